#!/bin/sh
# tests/pg/pg-exchange-record.sh: on PostgreSQL each exchange of a probe run
# is recorded with one call, aivet_exchange_record (db/pg/016-exchange-record.sql),
# its own transaction: a run's exchanges are as many calls, each storing its
# bodies and adding its evidence, exchange row and audit entry (in the login's
# name, with the row hash the server computed); so is each probe's result that
# raised no finding, with aivet_probe_result_record. The calls write through the
# functions that check each write, so what they refuse it refuses, all of it:
# a run not the caller's, a finished one, bytes that do not hash to their
# name, an auditor; a refused call leaves nothing behind.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice bob audrey; do pg_login "$l"; done
pg_createdb team owner
# The server counts the calls of each function of the database.
pg_sql "ALTER DATABASE team SET track_functions = 'pl'" >/dev/null
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
as owner vendor add V
for g in alice:assessor bob:assessor audrey:auditor; do as owner db grant "${g%%:*}" "${g#*:}"; done
sim_start --context 8192 --tenants "$PROBE_TENANTS" || exit 1
as alice endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB
is "$rc" 0 "alice adds the simulator's endpoint$errout"
as alice probe run V/e --probe echo,errors,canary,oversize --yes
ok "$([ "$rc" = 0 ] || [ "$rc" = 1 ]; echo $?)" "alice runs four probes (exit $rc)$errout"

is "$(pg_sql -d team "SELECT count(*) || ' ' || count(request_blob) || ' ' || count(request_recipe) FROM exchange")" \
	"28 26 2" "28 exchanges stored, 26 requests whole and two as their recipes"
is "$(pg_sql -d team "SELECT count(*) FROM evidence e JOIN exchange x ON x.evidence_id = e.id
	JOIN blob b ON b.sha256 = e.sha256 AND b.size = e.size WHERE e.kind = 'exchange' AND e.added_by = 'alice'")" \
	28 "each with its evidence document, added by alice"
is "$(pg_sql -d team "SELECT count(*) FROM exchange x WHERE NOT EXISTS (SELECT 1 FROM blob b WHERE b.sha256 = x.response_blob)
	OR (x.request_blob IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blob b WHERE b.sha256 = x.request_blob))")" \
	0 "and every body it names stored"
is "$(pg_sql -d team "SELECT count(*) || ' ' || count(DISTINCT l.object_id) || ' ' || bool_and(l.actor = 'alice' AND l.row_hash IS NOT NULL)
	FROM audit_log l JOIN exchange x ON x.evidence_id = l.object_id WHERE l.action = 'probe.exchange' AND l.object_type = 'evidence'")" \
	"28 28 true" "one audit entry per exchange, alice's, sealed with the row hash the server computed"
# The backend's counts reach the server when it ends, a moment after aivet exits.
calls() {
	pg_sql -d team "SELECT coalesce((SELECT calls FROM pg_stat_user_functions WHERE funcname = 'aivet_exchange_record'), 0)"
}
i=0
while [ "$(calls)" != 28 ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
is "$(calls)" 28 "one call of aivet_exchange_record per exchange"
is "$(pg_sql -d team "SELECT count(*) || ' ' || count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM finding f
	WHERE f.run_id = r.run_id AND f.probe = r.probe)) FROM probe_result r")" "4 4" "four results, none with a finding"
is "$(pg_sql -d team "SELECT calls FROM pg_stat_user_functions WHERE funcname = 'aivet_probe_result_record'")" 4 \
	"one call of aivet_probe_result_record per result"
is "$(pg_sql -d team "SELECT count(*) || ' ' || bool_and(l.actor = 'alice' AND l.row_hash IS NOT NULL) FROM audit_log l
	JOIN probe_result r ON r.id = l.object_id WHERE l.action = 'probe.result' AND l.object_type = 'probe_result'")" \
	"4 true" "each result with its entry, alice's, sealed"
as audrey audit verify
is "$rc" 0 "the auditor verifies the chain$errout"

# ---- calls beside aivet, with psql ----
counts() {
	pg_sql -d team "SELECT (SELECT count(*) FROM blob) || '/' || (SELECT count(*) FROM evidence) || '/' ||
		(SELECT count(*) FROM exchange) || '/' || (SELECT count(*) FROM audit_log)"
}
# record LOGIN RUN DOC SHA: a call for an exchange of RUN with the document DOC named SHA.
record() {
	pg_psql_as "$1" team -c "SELECT aivet_exchange_record($2, 'echo', 99, 'alice', 0, 'POST', 'http://x/v1', '{}',
		encode(sha256('q'), 'hex'), 1, encode(sha256('q'), 'hex'), NULL, 200, NULL, encode(sha256('r'), 'hex'), 1,
		encode(sha256('r'), 'hex'), 0, NULL, '{}', 'x', 'q', 'r', convert_to('$3', 'UTF8'), '$4', 'exchange-x.json', 'x', '{}')" 2>&1 |
		head -1
}
doc_sha=$(printf '{"type":"planted"}' | sha256sum | cut -d' ' -f1)
before=$(counts)
is "$(record bob 1 '{"type":"planted"}' "$doc_sha")" \
	"ERROR:  probe run 1 is completed: finished probe runs are read-only" \
	"bob records an exchange into alice's finished run: refused"
is "$(pg_psql_as alice team -c "UPDATE probe_run SET status = 'running' WHERE id = 1" 2>&1 | head -1)" \
	"ERROR:  permission denied for table probe_run" "(nor can alice reopen it)"
pg_sql -d team "ALTER TABLE probe_run DISABLE TRIGGER USER; UPDATE probe_run SET status = 'running' WHERE id = 1;
	ALTER TABLE probe_run ENABLE TRIGGER USER" >/dev/null
is "$(record bob 1 '{"type":"planted"}' "$doc_sha")" \
	"ERROR:  probe run 1 is alice's: only the login running it records its results" \
	"bob records an exchange into alice's running run: refused"
is "$(pg_psql_as bob team -c "SELECT aivet_probe_result_record(1, 'echo', 'pass', NULL, 1, NULL, 'x', '{}')" 2>&1 | head -1)" \
	"ERROR:  probe run 1 is alice's: only the login running it records its results" \
	"bob records a result into alice's running run: refused"
is "$(record alice 1 '{"type":"planted"}' "$(printf x | sha256sum | cut -d' ' -f1)")" \
	"ERROR:  stored content $(printf x | sha256sum | cut -d' ' -f1): the bytes do not hash to it" \
	"alice records a document under another's SHA-256: refused"
like "$(record audrey 1 '{"type":"planted"}' "$doc_sha")" "^ERROR:  .*aivet_assessor" \
	"the auditor records an exchange: refused"
is "$(counts)" "$before" "the refused calls left nothing: no body, evidence, exchange or entry"
eid=$(record alice 1 '{"type":"planted"}' "$doc_sha")
is "$eid" "$(pg_sql -d team "SELECT id FROM evidence WHERE original_name = 'exchange-x.json' AND added_by = 'alice'
	AND sha256 = '$doc_sha'")" "alice's own call for her running run goes through and returns the evidence's id"
is "$(counts)" "$(echo "$before" | awk -F/ '{ printf "%d/%d/%d/%d", $1 + 3, $2 + 1, $3 + 1, $4 + 1 }')" \
	"and adds its three contents, its evidence, its exchange and its entry"
sim_stop
done_testing
