#!/bin/sh
# sim-origin.sh: a credential reference is bound to the origin (scheme, host,
# port, path prefix) of the URL its writer set it for. On SQLite the writer is
# the actor: rita adds an endpoint with her key; alice points it at her own
# listener; rita's run stops before a byte leaves, naming alice and when, and
# goes on only once rita confirms the new URL. Moves within the origin, and
# the writer's own moves, need no confirmation; a URL written behind aivet's
# back is never bound.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export RITA_KEY=sk-rita-0123456789abcdef
sim_start --tenants "ritakey=$RITA_KEY" || exit 1
listener_start "$T/alice.bytes"
EVIL=$LISTEN_URL
like "$EVIL" '^http://127\.0\.0\.1:[0-9]+$' "alice's listener is up"
as() { _a=$1; shift; run --actor "$_a" "$@"; }

as rita vendor add R
as rita endpoint add R --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential t=env:RITA_KEY
as rita probe run R/e --probe echo --yes
is "$rc" 0 "rita's run to the URL she wrote her key for goes"
sent_before=$(grep -c 'tenant=ritakey' "$SIM_LOG")

# Alice moves the endpoint to her listener.
as alice endpoint edit R/e --url "$EVIL/v1"
is "$rc" 0 "alice changes the endpoint's URL"
at=$(sqlite3 "$AIVET_DB" "SELECT at FROM audit_log WHERE action = 'endpoint.edit' AND actor = 'alice'")
runs=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")
as rita probe run R/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 't': endpoint R/e: its URL was changed by alice at $at to $EVIL/v1, outside the origin $SIM_URL/v1 that rita wrote credential env:RITA_KEY for; nothing was sent. If the secret may go there, rita confirms it: aivet endpoint confirm R/e --url $EVIL/v1" \
	"rita's run stops, naming alice, when, the new URL and the confirmation"
listener_flush
is "$(cat "$T/alice.bytes" 2>/dev/null | wc -c)" 0 "alice's listener received not one byte"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")" "$runs" "and no run was recorded"

# Only the writer confirms, and only the URL the endpoint has.
as alice endpoint confirm R/e --url "$EVIL/v1"
is "$rc $errout" "2 aivet: endpoint R/e: you (alice) wrote none of its credential references (t (rita)); where a secret may go is confirmed by whoever wrote its reference" \
	"alice cannot confirm for rita"
as rita endpoint confirm R/e --url "$SIM_URL/v1"
is "$rc $errout" "2 aivet: --url: endpoint R/e's URL is not $SIM_URL/v1; confirm the URL it has (aivet endpoint show R/e)" \
	"a confirmation names the URL the endpoint has"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action = 'endpoint.confirm'")" 0 \
	"neither refusal was recorded"
# A confirmation rebinds only when its actor wrote the reference: an entry by
# alice for rita's t (written behind aivet's back, on a copy) moves nothing.
sqlite3 "$AIVET_DB" ".backup '$T/forged.db'"
sqlite3 "$T/forged.db" "INSERT INTO audit_log SELECT seq + 1, at, 'alice', 'endpoint.confirm', 'endpoint',
	(SELECT id FROM endpoint WHERE name = 'e'), json_object('origin_url', '$EVIL/v1', 'credentials', json_array('t')),
	entry_hash, '$(printf '%064d' 1)', NULL, NULL FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)"
is "$(sqlite3 "$T/forged.db" "SELECT actor || ' ' || json_extract(details, '\$.credentials[0]') FROM audit_log WHERE action = 'endpoint.confirm'")" \
	"alice t" "the copy holds alice's confirmation for t"
db0=$AIVET_DB AIVET_DB=$T/forged.db
as rita probe run R/e --probe echo --yes
AIVET_DB=$db0
is "$rc $errout" "2 aivet: tenant 't': endpoint R/e: its URL was changed by alice at $at to $EVIL/v1, outside the origin $SIM_URL/v1 that rita wrote credential env:RITA_KEY for; nothing was sent. If the secret may go there, rita confirms it: aivet endpoint confirm R/e --url $EVIL/v1" \
	"a confirmation by someone else than the writer leaves the key bound to rita's origin"
listener_flush
is "$(cat "$T/alice.bytes" 2>/dev/null | wc -c)" 0 "alice's listener still received not one byte"

# Alice's moves that stay within the origin need no one's word.
as alice endpoint edit R/e --url "$SIM_URL/v1/"
as rita probe run R/e --probe echo --yes
is "$rc" 0 "a move within the origin (same scheme, host, port, path under /v1) goes"
as alice endpoint edit R/e --url "$SIM_URL/v1beta"
as rita probe run R/e --probe echo --yes
is "$rc" 2 "a path beside the prefix (/v1beta is not under /v1) stops"
as alice endpoint edit R/e --url "http://localhost:${SIM_URL##*:}/v1"
as rita probe run R/e --probe echo --yes
like "$rc $errout" "^2 .*changed by alice at .* to http://localhost:" "another host name for the same port stops"
as alice endpoint edit R/e --url "https://${SIM_URL#http://}/v1"
as rita probe run R/e --probe echo --yes
is "$rc $(printf '%s' "$errout" | sed -n 's/.* to \(https:[^ ]*\), outside the origin \([^ ]*\) that .*/\1 \2/p')" \
	"2 https://${SIM_URL#http://}/v1 $SIM_URL/v1" "another scheme for the same host and port stops"

# The writer confirms: from then on the key goes there.
as alice endpoint edit R/e --url "$EVIL/v1"
as rita endpoint confirm R/e --url "$EVIL/v1"
is "$rc $out" "0 endpoint R/e: rita's credentials t may go to $EVIL/v1" "rita confirms the new URL"
is "$(sqlite3 "$AIVET_DB" "SELECT actor || ' ' || json_extract(details, '\$.origin_url') || ' ' ||
	json_extract(details, '\$.credentials[0]') FROM audit_log WHERE action = 'endpoint.confirm'")" \
	"rita $EVIL/v1 t" "the confirmation is audited: by rita, of that URL, for t"
as rita probe run R/e --probe echo --yes --timeout 5
like "$(cat "$T/alice.bytes")" "Authorization: Bearer $RITA_KEY" \
	"after her confirmation rita's run goes there, key and all"

# Rita's own move binds her key to where she moved it.
as rita endpoint edit R/e --url "$SIM_URL/v1"
as rita probe run R/e --probe echo --yes
is "$rc $(grep -c 'tenant=ritakey' "$SIM_LOG")" "0 $((sent_before + 8))" "the writer's own move goes unasked"

# The engine's admin credential goes only to the nodes its writer set.
export RITA_ENGINE=sk-rita-engine-0123456789
as rita endpoint edit R/e --engine sglang --engine-url "$SIM_URL" --engine-credential env:RITA_ENGINE
as rita probe run R/e --probe engine --yes --json
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict | . != "error" and . != null')" true \
	"rita's engine node, set with her admin key, is read"
bytes_before=$(wc -c <"$T/alice.bytes")
as alice endpoint edit R/e --engine-url "$EVIL"
as rita probe run R/e --probe engine --yes --json
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict')" error "alice's node: the engine probe ends in error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
	"^the engine's credential: endpoint R/e: its URL was changed by alice at .* to $EVIL, outside the origin $SIM_URL that rita wrote credential env:RITA_ENGINE for; nothing was sent" \
	"naming alice, the node and rita's reference"
listener_flush
is "$(wc -c <"$T/alice.bytes")" "$bytes_before" "alice's listener received no byte of it"
as rita endpoint edit R/e --remove-engine

# A URL set behind aivet's back was never bound.
sqlite3 "$AIVET_DB" "DROP TRIGGER IF EXISTS endpoint_no_update; UPDATE endpoint SET url = '$SIM_URL/v1/x' WHERE name = 'e'"
as rita probe run R/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 't': endpoint R/e: its URL $SIM_URL/v1/x was set outside aivet (no audit entry records it), so credential env:RITA_KEY was never bound to it; nothing was sent. Set the URL with 'aivet endpoint edit R/e --url URL'" \
	"a URL written with SQL stops the run"
sim_stop
done_testing
