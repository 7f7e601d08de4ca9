#!/bin/sh
# tests/pg/pg-entry-record.sh: on PostgreSQL the server builds each audit
# entry's full content from the rows it sealed (db/pg/017-entry-content.sql),
# never from the caller's details. The attacks of issue 43 as they were run:
# an assessor updates a vendor's name and a colleague's endpoint context from
# 8,192 to 1,000,000 in the same transaction as entries naming only notes and
# the model: refused by the server, nothing changed. The database's owner
# plants triggers that rewrite every new finding to USAGE_MISSING/info and
# every failing probe result to pass, a colleague runs the canary probe against
# a leaking simulator, the triggers are removed: the schema is as it was, and
# audit verify names the rewritten rows, which are not what their creating
# entries say. The content is what the C side reads: aivet's own writes verify.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice bob audrey; do pg_login "$l"; done
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
state() {
	pg_sql -d team "SELECT (SELECT count(*) FROM audit_log) || '/' ||
		(SELECT string_agg(id || ':' || name || ':' || coalesce(notes, '-'), ',' ORDER BY id) FROM vendor) || '/' ||
		(SELECT string_agg(id || ':' || model || ':' || context_tokens, ',' ORDER BY id) FROM endpoint)"
}

"$AIVET" key generate --no-password >/dev/null 2>&1
as owner vendor add V
for g in alice:assessor bob:assessor audrey:auditor; do as owner db grant "${g%%:*}" "${g#*:}"; done
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
as bob endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB
is "$rc" 0 "bob adds the simulator's endpoint$errout"
is "$(pg_sql -d team "SELECT count(*) || ' ' || count(content) FROM audit_log WHERE row_hash IS NOT NULL")" "2 2" \
	"each sealing entry holds its row's content, built by the server"
is "$(pg_sql -d team "SELECT content::json -> 0 -> 'rows' -> 0 ->> 'context_tokens' FROM audit_log WHERE action = 'endpoint.add'")" \
	8192 "(the endpoint's content: context 8192)"

# ---- attack 2: an edit entry that names some of the fields it changed ----
before=$(state)
vseq=$(pg_sql -d team "SELECT max(seq) FROM audit_log WHERE object_type = 'vendor'")
eseq=$(pg_sql -d team "SELECT max(seq) FROM audit_log WHERE object_type = 'endpoint'")
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE vendor SET name = 'V2', notes = 'n2' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{\"notes\":\"n2\"}')" \
	-c "UPDATE endpoint SET context_tokens = 1000000, model = 'm' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'endpoint.edit', 'endpoint', 1, '{\"model\":\"m\"}')" \
	-c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  vendor 1's name is not what audit entry $vseq recorded, and this vendor.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"the issue's transaction: refused by the server, naming the vendor's name"
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE endpoint SET context_tokens = 1000000, model = 'm' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'endpoint.edit', 'endpoint', 1, '{\"model\":\"m\"}')" \
	-c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  endpoint 1's context_tokens is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"the colleague's endpoint alone: refused, naming its context"
is "$(state)" "$before" "(the two changed nothing)"
as owner vendor add W
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE endpoint SET vendor_id = 2, model = 'm' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'endpoint.edit', 'endpoint', 1, '{\"model\":\"m\"}')" \
	-c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  endpoint 1's vendor_id is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"a colleague's endpoint moved to another vendor beside a named change: refused"
before=$(state)
creds=$(pg_sql -d team "SELECT string_agg(label || '=' || ref, ',' ORDER BY label) FROM credential")
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE credential SET ref = 'env:MALLORY_KEY' WHERE label = 'bob'" \
	-c "INSERT INTO credential (endpoint_id, label, ref, created_at) VALUES (1, 'carol', 'env:CAROL_KEY', '2026-11-30T09:00:00.000Z')" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'endpoint.edit', 'endpoint', 1, '{\"credentials\":{\"carol\":\"env:CAROL_KEY\"}}')" \
	-c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  endpoint 1's credential is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"a colleague's credential changed beside one the entry names: refused"
is "$(pg_sql -d team "SELECT string_agg(label || '=' || ref, ',' ORDER BY label) FROM credential")" "$creds" \
	"(the credentials as they were)"
is "$(state)" "$before" "nothing changed"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"
# ---- attack 1: triggers planted by the owner for one honest run ----
schema() { pg_sql -d team "SELECT string_agg(tgname || ' ' || pg_get_triggerdef(oid), ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal"; }
triggers=$(schema)
pg_psql_as owner team -c "CREATE FUNCTION zf() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
	NEW.code := 'USAGE_MISSING'; NEW.severity := 'info'; RETURN NEW; END \$\$;
	CREATE TRIGGER zf BEFORE INSERT ON finding FOR EACH ROW EXECUTE FUNCTION zf();
	CREATE FUNCTION zr() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
	IF NEW.verdict = 'fail' THEN NEW.verdict := 'pass'; END IF; RETURN NEW; END \$\$;
	CREATE TRIGGER zr BEFORE INSERT ON probe_result FOR EACH ROW EXECUTE FUNCTION zr()" >/dev/null 2>"$T/err"
ok "$(test ! -s "$T/err"; echo $?)" "(the owner plants the triggers)$(cat "$T/err")"
as bob probe run V/e --probe canary --yes
is "$rc" 0 "bob, a colleague, runs the canary probe: it passes (exit 0)$errout"
sim_stop
pg_psql_as owner team -c "DROP TRIGGER zf ON finding; DROP FUNCTION zf(); DROP TRIGGER zr ON probe_result; DROP FUNCTION zr()" \
	>/dev/null 2>"$T/err"
is "$(schema)" "$triggers" "(the triggers removed: the schema is as it was)$(cat "$T/err")"
is "$(pg_sql -d team "SELECT string_agg(probe || '=' || verdict, ',') FROM probe_result;
	SELECT string_agg(DISTINCT code || ' ' || severity, ',') FROM finding")" "canary=pass
USAGE_MISSING info" "(the run's rows say pass and USAGE_MISSING/info: the attack)"
rid=$(pg_sql -d team "SELECT id FROM probe_result WHERE probe = 'canary'")
rseq=$(pg_sql -d team "SELECT min(seq) FROM audit_log WHERE object_type = 'probe_result' AND object_id = $rid")
is "$(pg_sql -d team "SELECT details::json ->> 'verdict' FROM audit_log WHERE seq = $rseq")" fail \
	"(the result's own entry still says fail)"
as audrey audit verify
is "$rc:$errout" "1:aivet: audit chain broken: probe result $rid's verdict is pass where audit entry $rseq (probe.result) that created it says verdict is fail: the row was rewritten as it was written" \
	"named by audit verify, run by the auditor"
as alice report V --out "$T/r"
like "$rc:$errout" "^1:aivet: this database failed its audit: probe result $rid's verdict is pass" "and aivet report refuses"

# ---- an edit naming a field with a value the row does not hold (in a
# database of its own: the entry stays in the chain): the server takes it, the
# details being the client's; audit verify compares the value with the content.
pg_createdb other owner
for g in alice:assessor audrey:auditor; do run --db "$(pg_url other owner)" db grant "${g%%:*}" "${g#*:}"; done
run --db "$(pg_url other alice)" vendor add W
run --db "$(pg_url other alice)" endpoint add W --name e --api openai --url https://api.w.example/v1 --model m --context 8192
is "$(pg_psql_as alice other -c "BEGIN" -c "UPDATE endpoint SET context_tokens = 1000000 WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'endpoint.edit', 'endpoint', 1, '{\"context_tokens\":8192}')" \
	-c "COMMIT" 2>&1 | grep -c ERROR)" 0 "(an edit naming the context with another value: taken by the server)"
n=$(pg_sql -d other "SELECT max(seq) FROM audit_log")
run --db "$(pg_url other audrey)" audit verify
is "$rc:$errout" "1:aivet: audit chain broken: endpoint 1's context_tokens is not what audit entry $n (endpoint.edit) recorded: edited behind aivet's back" \
	"named by audit verify"

done_testing
