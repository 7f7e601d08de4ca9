#!/bin/sh
# pg-origin.sh: on a shared PostgreSQL database a colleague may edit my
# endpoint, but not send my key elsewhere. Rita adds an endpoint with her
# key; alice, logged in as herself, points its URL at a listener; rita's
# run stops before anything is sent, naming alice, until rita confirms the
# new URL (the actor of every entry is the login, so nobody confirms for her).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita; do pg_login "$l"; done
pg_createdb team owner
export RITA_KEY=sk-rita-0123456789abcdef
sim_start --tenants "ritakey=$RITA_KEY" || exit 1
listener_start "$T/alice.bytes"
PORT=${LISTEN_URL##*:}
like "$PORT" '^[0-9]+$' "alice's listener is up"
as() { _l=$1; shift; run --db "$(pg_url team "$_l")" "$@"; }

as owner vendor add R
as owner db grant alice assessor
as owner db grant rita assessor
as rita endpoint add R --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential t=env:RITA_KEY
is "$rc" 0 "rita adds an endpoint with her key"
as alice endpoint edit R/e --url "http://127.0.0.1:$PORT/v1"
is "$rc" 0 "alice points it at her listener"
at=$(pg_sql -d team "SELECT at FROM audit_log WHERE action = 'endpoint.edit' AND actor = 'alice'")
like "$at" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "her change is audited under her login"
as rita probe run R/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 't': endpoint R/e: its URL was changed by alice at $at to http://127.0.0.1:$PORT/v1, outside the origin $SIM_URL/v1 that rita wrote credential env:RITA_KEY for; nothing was sent. If the secret may go there, rita confirms it: aivet endpoint confirm R/e --url http://127.0.0.1:$PORT/v1" \
	"rita's run stops, exit 2, naming alice and when"
listener_flush
is "$(cat "$T/alice.bytes" 2>/dev/null | wc -c)" 0 "the listener received no byte, so no Authorization"
is "$(pg_sql -d team "SELECT count(*) FROM probe_run")" 0 "and no run was recorded"

as alice endpoint confirm R/e --url "http://127.0.0.1:$PORT/v1"
is "$rc $errout" "2 aivet: endpoint R/e: you (alice) wrote none of its credential references (t (rita)); where a secret may go is confirmed by whoever wrote its reference" \
	"alice cannot confirm for rita"
as alice --actor rita endpoint confirm R/e --url "http://127.0.0.1:$PORT/v1"
is "$rc" 2 "nor by naming rita: the login is the actor"
is "$(pg_sql -d team "SELECT count(*) FROM audit_log WHERE action = 'endpoint.confirm'")" 0 \
	"nothing was confirmed"

as rita endpoint confirm R/e --url "http://127.0.0.1:$PORT/v1"
is "$rc $out" "0 endpoint R/e: rita's credentials t may go to http://127.0.0.1:$PORT/v1" "rita confirms"
is "$(pg_sql -d team "SELECT actor || ' ' || (details::json->>'origin_url') FROM audit_log WHERE action = 'endpoint.confirm'")" \
	"rita http://127.0.0.1:$PORT/v1" "the confirmation is audited under rita's login"
as rita probe run R/e --probe echo --yes --timeout 5
like "$(cat "$T/alice.bytes")" "Authorization: Bearer $RITA_KEY" "then the run proceeds, to where she confirmed"
sim_stop
done_testing
