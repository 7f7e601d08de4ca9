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
# So are the other entries that change no sealed row, each appended past aivet
# as an assessor could before: a grant or revocation of a role (to login 999
# too), the organisation's time zone, a fleet limit of vendor 999, and any
# action aivet never writes; and through their functions, a login or database
# that does not exist, a caller who is not the owner, a change not made.
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
# ---- the owner's actions and the fleet's limits, which change no row of a
# sealed table: db.grant, db.revoke, db.timezone, probe.limit ----
T0='2026-12-01T09:00:00.000Z'
append() { echo "SELECT aivet_audit_append('$T0', '$1', '$2', $3, '$4')"; }
ritaoid=$(pg_sql -d team "SELECT oid FROM pg_roles WHERE rolname = 'rita'")
G="{\"login\":\"rita\",\"role\":\"reviewer\"}"
before=$(state)
is "$(psql_as alice "$(append db.grant login "$ritaoid" "$G")")" \
	"ERROR:  audit entry db.grant of login $ritaoid follows no such operation in this transaction: it is written by the operation's function" \
	"alice appends a grant of the reviewer role to rita, past aivet: refused"
is "$(psql_as alice "$(append db.grant login 999 '{"login":"ghost","role":"reviewer"}')")" \
	"ERROR:  audit entry db.grant of login 999 follows no such operation in this transaction: it is written by the operation's function" \
	"and a grant to login 999, which does not exist: refused"
is "$(psql_as alice "$(append db.revoke login "$ritaoid" '{"login":"rita","role":"assessor"}')")" \
	"ERROR:  audit entry db.revoke of login $ritaoid follows no such operation in this transaction: it is written by the operation's function" \
	"a revocation likewise"
is "$(psql_as alice "SELECT aivet_db_role($ritaoid, '$G', true)")" \
	"ERROR:  granting roles is for the database's owner: alice is not it" \
	"through the function: granting is the owner's"
is "$(psql_as alice "SELECT aivet_db_role($ritaoid, '{\"login\":\"rita\",\"role\":\"assessor\"}', false)")" \
	"ERROR:  revoking roles is for the database's owner: alice is not it" "and so is revoking"
is "$(psql_as owner "SELECT aivet_db_role(999, '{\"login\":\"ghost\",\"role\":\"reviewer\"}', true)")" \
	"ERROR:  login 999 does not exist: there is no one to grant a role to" \
	"the owner grants nothing to a login that does not exist"
is "$(psql_as owner "SELECT aivet_db_role($ritaoid, '{\"login\":\"alice\",\"role\":\"reviewer\"}', true)")" \
	"ERROR:  db.grant of login $ritaoid: an entry names the login rita and one of aivet's roles (auditor, assessor, reviewer)" \
	"nor under another login's name"
is "$(psql_as owner "SELECT aivet_db_role($ritaoid, '$G', true)")" \
	"ERROR:  db.grant of login $ritaoid: rita does not hold aivet_reviewer; the entry records a change made in its transaction" \
	"nor records a grant that was not made"
is "$(psql_as owner "SELECT aivet_db_role($ritaoid, '{\"login\":\"rita\",\"role\":\"assessor\"}', false)")" \
	"ERROR:  db.revoke of login $ritaoid: rita still holds aivet_assessor; the entry records a change made in its transaction" \
	"nor a revocation that was not made"
is "$(psql_as owner "$(append db.grant login "$ritaoid" "$G")")" \
	"ERROR:  audit entry db.grant of login $ritaoid follows no such operation in this transaction: it is written by the operation's function" \
	"the owner's own entry needs the function too"

Z='{"timezone":"Asia/Tokyo"}'
is "$(psql_as alice "$(append db.timezone database 1 "$Z")")" \
	"ERROR:  audit entry db.timezone of database 1 follows no such operation in this transaction: it is written by the operation's function" \
	"alice appends the organisation's time zone, past aivet: refused"
is "$(psql_as alice "SELECT aivet_db_timezone(1, '$Z')")" \
	"ERROR:  setting the organisation's time zone is for the database's owner: alice is not it" \
	"through the function: the zone is the owner's"
is "$(psql_as owner "SELECT aivet_db_timezone(999, '$Z')")" \
	"ERROR:  database 999 does not exist: the organisation's time zone is database 1's" \
	"the owner sets no zone of database 999"
is "$(psql_as owner "SELECT aivet_db_timezone(1, '{\"timezone\":\"../../etc/passwd\"}')")" \
	"ERROR:  db.timezone of database 1: ../../etc/passwd is not a time zone's name" "nor a path for a zone"

L='{"max_runs":1,"per_minute":null}'
is "$(psql_as alice "$(append probe.limit probe_limit 999 "$L")")" \
	"ERROR:  audit entry probe.limit of probe_limit 999 follows no such operation in this transaction: it is written by the operation's function" \
	"alice appends a limit for vendor 999, which does not exist: refused"
is "$(psql_as alice "$(append probe.limit probe_limit 1 "$L")")" \
	"ERROR:  audit entry probe.limit of probe_limit 1 follows no such operation in this transaction: it is written by the operation's function" \
	"and for vendor R, with no limit written: refused"
is "$(psql_as alice "INSERT INTO probe_limit (vendor_id, max_runs, updated_by, updated_at) VALUES (1, 1, 'alice', '$T0')")" \
	"ERROR:  probe.limit of probe_limit 1 has no audit entry: nothing was written" \
	"a limit written with no entry: refused at commit"
is "$(psql_as alice "INSERT INTO probe_limit (vendor_id, max_runs, updated_by, updated_at) VALUES (999, 1, 'alice', '$T0')")" \
	'ERROR:  insert or update on table "probe_limit" violates foreign key constraint "probe_limit_vendor_id_fkey"' \
	"a limit of vendor 999: no such vendor"

is "$(psql_as alice "$(append login.note login "$ritaoid" '{"note":"trusted"}')")" \
	"ERROR:  audit entry login.note of login $ritaoid: aivet writes no such entry; an entry is written by the operation's function" \
	"an action aivet never writes, about a login: refused"
is "$(psql_as owner "$(append db.note database 1 '{}')")" \
	"ERROR:  audit entry db.note of database 1: aivet writes no such entry; an entry is written by the operation's function" \
	"about the database, by the owner too"
is "$(state)" "$before" "none of these wrote anything"
is "$(pg_sql -d team "SELECT count(*) FROM probe_limit")" 0 "and no limit is set"

as owner db grant rita reviewer
is "$rc" 0 "the owner grants rita the reviewer role through aivet$errout"
as owner db revoke rita reviewer
is "$rc" 0 "and revokes it$errout"
as owner db timezone Asia/Tokyo
is "$rc" 0 "the owner sets the organisation's zone$errout"
as alice probe limit R --runs 2
is "$rc" 0 "alice limits vendor R$errout"
is "$(pg_sql -d team "SELECT string_agg(actor || ' ' || action || ' ' || object_type || ' ' || object_id, ',' ORDER BY seq) FROM audit_log WHERE seq > ${before%% *}")" \
	"owner db.grant login $ritaoid,owner db.revoke login $ritaoid,owner db.timezone database 1,alice probe.limit probe_limit 1" \
	"each through its function, with its entry"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"
done_testing
