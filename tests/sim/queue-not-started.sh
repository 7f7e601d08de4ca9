#!/bin/sh
# queue-not-started.sh: a queued run its worker cannot start (the credential's
# variable is not set where the worker runs) is not a quiet end: aivet worker
# --once exits 3 naming the entry and why, the entry stays in 'probe runs'
# (text and JSON) as "not started" with the reason, and nothing was sent. An
# entry that starts is unaffected: its run is listed as usual.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

sim_start --context 8192 --pool 8192 --tenants a=key-a || exit 1
export KEY_A=key-a
run vendor add Acme
run endpoint add Acme --name ok --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A
run endpoint add Acme --name nokey --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_UNSET_HERE
run probe queue Acme/nokey --probe echo
is "$rc:$out" "0:queued run entry 1 for Acme/nokey" "a run of Acme/nokey is queued, said in words"
run worker --once --name w1
is "$rc" 3 "worker --once exits 3 when a run it took did not start"
is "$errout" "aivet: 1 queued run did not start (entry 1: tenant 'a': credential env:KEY_UNSET_HERE: the environment variable is not set); see 'aivet probe runs'" \
	"and names the entry and why"
like "$out" "^entry 1: run 0 tenant 'a': credential env:KEY_UNSET_HERE: the environment variable is not set$" "its line says why"
run probe runs
like "$out" "^ +- +Acme/nokey +not started +[0-9T:.-]+Z  entry 1, worker w1: tenant 'a': credential env:KEY_UNSET_HERE: the environment variable is not set$" \
	"probe runs lists the entry as not started, with why"
run probe runs --json
why="tenant 'a': credential env:KEY_UNSET_HERE: the environment variable is not set"
is "$(printf '%s' "$out" | jq -c --arg why "$why" '[.[] | select(.queue_id == 1) | [.id, .status, .worker, .error == $why]]')" \
	'[[null,"not started","w1",true]]' "probe runs --json: the same"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange")" 0 "nothing was sent"
run probe queue Acme/ok --probe echo --json
is "$rc:$out" "0:[2]" "probe queue --json: the entry's id, for scripts"
run worker --once --name w2
is "$rc:$errout" "0:" "a worker whose runs all started exits 0"
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM probe_run")" "completed" "and its run completed"
sim_stop
done_testing
