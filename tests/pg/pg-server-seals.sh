#!/bin/sh
# tests/pg/pg-server-seals.sh: on PostgreSQL the server computes every hash
# of an audit entry (db/pg/012-server-seals.sql). psql as the assessor tries
# the attacks of issue 33: an entry appended with no row hash, or a wrong
# one, then a vendor or endpoint changed behind it with UPDATE; an entry
# about a sealed row that no operation wrote. Each is refused with nothing
# changed; aivet's own writes still verify, each entry with the row hash the
# server computed and the login as its actor. An edit entry whose details
# name no changed field is refused by the server; one that names it with a
# value the row does not hold (the client writes them) is named by audit verify.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice audrey; do pg_login "$l"; done
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
psql_as() { pg_psql_as "$1" team -c "$2" 2>&1 | head -1; }
state() {
	pg_sql -d team "SELECT (SELECT count(*) FROM audit_log) || '/' ||
		(SELECT string_agg(id || ':' || criticality || ':' || coalesce(notes, '-'), ',' ORDER BY id) FROM vendor) || '/' ||
		(SELECT string_agg(id || ':' || url, ',' ORDER BY id) FROM endpoint)"
}

as owner vendor add Acme
for g in alice:assessor audrey:auditor; do as owner db grant "${g%%:*}" "${g#*:}"; done
as alice endpoint add Acme --name prod --api openai --url https://api.acme.example/v1 --model m --context 100 \
	--credential t=env:ACME_KEY
is "$rc" 0 "alice adds an endpoint$errout"
as alice vendor edit Acme --criticality 4
is "$rc" 0 "and edits the vendor through aivet$errout"
as audrey audit verify
is "$rc" 0 "the chain verifies, as the auditor$errout"
is "$(pg_sql -d team "SELECT string_agg(seq || ' ' || actor || ' ' || action || ' ' || (row_hash IS NOT NULL), ',' ORDER BY seq)
	FROM audit_log WHERE object_type IN ('vendor', 'endpoint')")" \
	"1 owner vendor.add true,4 alice endpoint.add true,5 alice vendor.edit true" \
	"each entry carries the row hash the server computed, in the login's name"

# ---- the assessor appends an entry, then UPDATEs the vendor behind it ----
before=$(state)
is "$(psql_as alice "SELECT aivet_audit_append(99, 'x', 'vendor.edit', 'vendor', 1, '{}', 'x', 'x', NULL)" | sed 's/(.*//')" \
	"ERROR:  function aivet_audit_append" "the raw append (seq and hashes from the caller) is gone"
is "$(psql_as alice "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{}')")" \
	"ERROR:  audit entry vendor.edit of vendor 1 follows no such operation in this transaction: it is written by the operation's function" \
	"an entry about a vendor nothing changed: refused"
is "$(psql_as alice "UPDATE vendor SET criticality = 0 WHERE id = 1")" \
	"ERROR:  vendor.write of vendor 1 has no audit entry: nothing was written" \
	"an UPDATE of a vendor with no entry: refused at commit"
is "$(pg_psql_as alice team -c "BEGIN" -c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{}')" \
	-c "UPDATE vendor SET criticality = 0 WHERE id = 1" -c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  audit entry vendor.edit of vendor 1 follows no such operation in this transaction: it is written by the operation's function" \
	"the issue's order (append, then UPDATE vendor): refused"
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE vendor SET notes = 'x' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{\"notes\":\"x\"}')" \
	-c "UPDATE vendor SET criticality = 0 WHERE id = 1" -c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  vendor.write of vendor 1 has no audit entry: nothing was written" \
	"an UPDATE after the entry that sealed the change: refused at commit"
is "$(psql_as alice "UPDATE endpoint SET url = 'http://127.0.0.1:9/v1' WHERE id = 1")" \
	"ERROR:  endpoint.write of endpoint 1 has no audit entry: nothing was written" \
	"an endpoint redirected with no entry: refused at commit"
is "$(psql_as alice "UPDATE credential SET ref = 'env:OTHER' WHERE endpoint_id = 1")" \
	"ERROR:  endpoint.write of endpoint 1 has no audit entry: nothing was written" \
	"a credential changed with no entry: refused at commit"
is "$(psql_as alice "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.note', 'vendor', 1, '{}')")" \
	"ERROR:  audit entry vendor.note of vendor 1: a vendor is recorded only by the operation that writes it" \
	"an action that writes no vendor: refused"
is "$(psql_as alice "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'finding.note', 'finding', 1, '{}')")" \
	"ERROR:  audit entry finding.note of finding 1: a finding is recorded only by the operation that writes it" \
	"an entry about a finding no operation wrote: refused"
is "$(psql_as alice "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, entry_hash, row_hash)
	SELECT max(seq) + 1, 'x', 'alice', 'vendor.edit', 'vendor', 1, '{}', 'x', 'x', 'x' FROM audit_log")" \
	"ERROR:  permission denied for table audit_log" "nor an entry written directly"
is "$(state)" "$before" "the attacks changed nothing"
as audrey audit verify
is "$rc" 0 "the chain still verifies: no false alarm was planted$errout"

# A change with its entry, as aivet writes one: sealed by the server, verified.
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE vendor SET notes = 'reviewed' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{\"notes\":\"reviewed\"}')" \
	-c "COMMIT" 2>&1 | grep -c ERROR)" 0 "an UPDATE followed by its entry, in one transaction, is taken"
is "$(pg_sql -d team "SELECT actor || ' ' || (row_hash IS NOT NULL) FROM audit_log ORDER BY seq DESC LIMIT 1")" "alice true" \
	"its entry names the login and carries the row hash"
as audrey audit verify
is "$rc" 0 "and verifies$errout"

# The server seals the row and compares it with the content of its previous
# entry: an edit entry naming no changed field, in the same transaction as the
# UPDATE, is refused; one naming the field with another value than the row's
# (the details are the client's) is taken, and named by audit verify (the same
# C code as on SQLite).
last=$(pg_sql -d team "SELECT max(seq) FROM audit_log")
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE vendor SET notes = 'by hand' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{}')" \
	-c "COMMIT" 2>&1 | grep ERROR | head -1)" \
	"ERROR:  vendor 1's notes is not what audit entry $last recorded, and this vendor.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"an UPDATE with an edit entry naming no field, in one transaction: refused by the server"
is "$(pg_psql_as alice team -c "BEGIN" -c "UPDATE vendor SET notes = 'by hand' WHERE id = 1" \
	-c "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{\"notes\":\"n2\"}')" \
	-c "COMMIT" 2>&1 | grep -c ERROR)" 0 "(an UPDATE with an edit entry naming the field with another value: taken by the server)"
n=$(pg_sql -d team "SELECT max(seq) FROM audit_log")
as audrey audit verify
is "$rc:$errout" "1:aivet: audit chain broken: vendor 1's notes is not what audit entry $n (vendor.edit) recorded: edited behind aivet's back" \
	"named by audit verify"

done_testing
