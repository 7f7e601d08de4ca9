#!/bin/sh
# pg-no-change.sh: an action that changes no row goes through a function that
# checks the object exists and the login's right (db/pg/018-no-change.sql).
# The attack of issue 43, as it was run: an assessor's login calls
# aivet_audit_append() with psql to append 'endpoint.confirm' about endpoint
# 999, which does not exist (before, it was kept, and audit verify failed for
# good). Refused, with nothing written; so is a confirmation by a login that
# did not write the reference, of a URL the endpoint does not have, or by an
# auditor. The reference's writer confirms through aivet, or with the
# function and the entry in one transaction, and the chain verifies. A key
# registration, which writes no row either, likewise: the report key, a key
# in another's name, a second key, another's key are refused at the server.
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

# ---- a key registration changes no row either: aivet_key_register() ----
"$AIVET" key generate --no-password --name org >/dev/null
"$AIVET" key generate --no-password --name alice >/dev/null
XDG_CONFIG_HOME="$T/rita" "$AIVET" key generate --no-password --name rita >/dev/null
# The report only makes org's key a report key here; the chain is checked on its
# own (audit verify), so a broken one does not stop the registrations' checks.
as owner report R --out "$T/b" --key org --allow-broken-chain
is "$rc" 0 "the owner writes a report, signed with the organisation's key$errout"
keyline() { sed -n 2p "$1"; }
keyid() { sed -n 's/^untrusted comment: minisign public key //p' "$1"; }
# The object id aivet gives a key: its key number's low 63 bits, little-endian.
oid() { python3 -c 'import base64,sys; print(int.from_bytes(base64.b64decode(sys.argv[1])[2:10], "little") & (2**63 - 1))' "$1"; }
K="$XDG_CONFIG_HOME/aivet/keys"
org=$(keyline "$K/org.pub") orgid=$(keyid "$K/org.pub") ali=$(keyline "$K/alice.pub") aliid=$(keyid "$K/alice.pub")
reg() { echo "{\"person\":\"$1\",\"key_id\":\"$2\",\"public_key\":\"$3\"}"; }
before=$(state)
is "$(psql_as alice "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'key.register', 'person_key', $(oid "$org"), '$(reg alice "$orgid" "$org")')")" \
	"ERROR:  audit entry key.register of person_key $(oid "$org") follows no such operation in this transaction: it is written by the operation's function" \
	"alice appends a registration of the report key as hers, past aivet: refused"
is "$(psql_as alice "SELECT aivet_key_register($(oid "$org"), '$(reg alice "$orgid" "$org")')")" \
	"ERROR:  key $orgid signs report bundles (1 here): a report signing key is the organisation's, not a person's, and is not registered to anyone" \
	"and through the function: the report key is nobody's"
is "$(psql_as alice "SELECT aivet_key_register($(oid "$ali"), '$(reg rita "$aliid" "$ali")')")" \
	"ERROR:  a key registration by alice is of key $aliid, in alice's name, as person_key $(oid "$ali")" \
	"alice registers no key in rita's name"
is "$(state)" "$before" "nothing was written"
as alice key register alice
is "$rc" 0 "alice registers her own key through aivet$errout"
is "$(psql_as alice "SELECT aivet_key_register($(oid "$org"), '$(reg alice "$orgid" "$org")')")" \
	"ERROR:  alice already has key $aliid registered; a person's key is registered once" \
	"a second key of hers is refused"
is "$(psql_as rita "SELECT aivet_key_register($(oid "$ali"), '$(reg rita "$aliid" "$ali")')")" \
	"ERROR:  key $aliid is registered to alice already" "rita does not register alice's key as hers"
is "$(pg_sql -d team "SELECT string_agg(actor || ' ' || (details::jsonb ->> 'key_id'), ',') FROM audit_log WHERE action = 'key.register'")" \
	"alice $aliid" "the one registration is alice's own"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"

# The auditor's checkpoint records the one registered key, names being logins here.
XDG_CONFIG_HOME="$T/audrey" "$AIVET" key generate --no-password >/dev/null
XDG_CONFIG_HOME="$T/audrey" as audrey audit checkpoint --out "$T/cp.json"
is "$rc" 0 "audrey writes a checkpoint$errout"
is "$(jq -c '[.reviewer_names, [.reviewer_keys[] | .person, .key_id, .public_key]]' "$T/cp.json")" \
	"[\"database logins\",[\"alice\",\"$aliid\",\"$ali\"]]" "it records alice's key, the names being logins"
XDG_CONFIG_HOME="$T/audrey" run key trust --reviewer alice "$T/cp.json"
is "$rc $(printf '%s\n' "$out" | grep -c '^  names')" "0 0" "audrey trusts alice's key from it, with no word of self-declared names$errout"
done_testing
