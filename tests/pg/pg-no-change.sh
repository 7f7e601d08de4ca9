#!/bin/sh
# pg-no-change.sh: an action that changes no row goes through a function that
# checks the object exists and the login's right (db/pg/018-no-change.sql).
# The attack of issue 43, as it was run: an assessor's login calls
# aivet_audit_append() with psql to append 'endpoint.confirm' about endpoint
# 999, which does not exist (before, it was kept, and audit verify failed for
# good). Refused, with nothing written; so is a confirmation by a login that
# did not write the reference, of a URL the endpoint does not have, or by an
# auditor. The reference's writer confirms through aivet, or with the
# function and the entry in one transaction, and the chain verifies.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita audrey; do pg_login "$l"; done
pg_createdb team owner
as() { _l=$1; shift; run --db "$(pg_url team "$_l")" "$@"; }
psql_as() { pg_psql_as "$1" team -c "$2" 2>&1 | head -1; }
state() { pg_sql -d team "SELECT count(*) || ' ' || md5(string_agg(entry_hash, ',' ORDER BY seq)) FROM audit_log"; }
URL=https://api.r.example/v1
D="{\"origin_url\":\"$URL\",\"credentials\":[\"t\"]}"

as owner vendor add R
as owner db grant alice assessor
as owner db grant rita assessor
as owner db grant audrey auditor
as rita endpoint add R --name e --api openai --url "$URL" --model m --context 8192 --credential t=env:RITA_KEY
is "$rc" 0 "rita adds an endpoint with her key$errout"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"
before=$(state)

is "$(psql_as alice "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'endpoint.confirm', 'endpoint', 999, '$D')")" \
	"ERROR:  audit entry endpoint.confirm of endpoint 999 follows no such operation in this transaction: it is written by the operation's function" \
	"the issue's attack: alice appends endpoint.confirm about endpoint 999: refused"
is "$(state)" "$before" "and nothing was written"
is "$(psql_as alice "SELECT aivet_endpoint_confirm(999, '$D')")" \
	"ERROR:  endpoint 999 does not exist: there is nothing to confirm" \
	"the function refuses an endpoint that does not exist"
is "$(psql_as alice "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'endpoint.confirm', 'endpoint', 1, '$D')")" \
	"ERROR:  audit entry endpoint.confirm of endpoint 1 follows no such operation in this transaction: it is written by the operation's function" \
	"an entry about the endpoint that exists, with no confirmation before it: refused"
is "$(pg_psql_as alice team -c "BEGIN" -c "SELECT aivet_endpoint_confirm(1, '$D')" \
	-c "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'endpoint.confirm', 'endpoint', 1, '$D')" \
	-c "COMMIT" 2>&1 | grep ERROR)" \
	"ERROR:  endpoint 1: alice did not write credential t's reference; where a secret may go is confirmed by whoever wrote its reference" \
	"alice, who did not write the reference, cannot confirm it"
is "$(psql_as rita "SELECT aivet_endpoint_confirm(1, '{\"origin_url\":\"http://127.0.0.1:9/v1\",\"credentials\":[\"t\"]}')")" \
	"ERROR:  endpoint 1: its URL is not http://127.0.0.1:9/v1; a confirmation is of the URL it has" \
	"nor does rita confirm a URL the endpoint does not have"
is "$(psql_as rita "SELECT aivet_endpoint_confirm(1, '{\"origin_url\":\"$URL\",\"credentials\":[]}')")" \
	"ERROR:  endpoint 1: a confirmation names the credentials it confirms" \
	"nor confirm no credential"
is "$(psql_as audrey "SELECT aivet_endpoint_confirm(1, '$D')")" \
	"ERROR:  confirming an endpoint needs the aivet_assessor role (audrey does not have it)" \
	"an auditor confirms nothing"
is "$(psql_as rita "SELECT aivet_endpoint_confirm(1, '$D')")" \
	"ERROR:  endpoint.confirm of endpoint 1 has no audit entry: nothing was written" \
	"a confirmation without its entry is refused at commit"
is "$(state)" "$before" "nothing was written by any of these"
as audrey audit verify
is "$rc" 0 "the chain still verifies$errout"

as alice endpoint confirm R/e --url "$URL"
is "$rc $errout" "2 aivet: endpoint R/e: you (alice) wrote none of its credential references (t (rita)); where a secret may go is confirmed by whoever wrote its reference" \
	"through aivet, alice is refused as before"
as rita endpoint confirm R/e --url "$URL"
is "$rc $out" "0 endpoint R/e: rita's credentials t may go to $URL" "rita confirms through aivet"
is "$(pg_psql_as rita team -c "BEGIN" -c "SELECT aivet_endpoint_confirm(1, '$D')" \
	-c "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'endpoint.confirm', 'endpoint', 1, '$D')" \
	-c "COMMIT" 2>&1)" "
7" "and with the function and its entry in one transaction"
is "$(pg_sql -d team "SELECT string_agg(seq || ' ' || actor || ' ' || object_id, ',' ORDER BY seq) FROM audit_log WHERE action = 'endpoint.confirm'")" \
	"6 rita 1,7 rita 1" "both confirmations are rita's, of endpoint 1"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"
done_testing
