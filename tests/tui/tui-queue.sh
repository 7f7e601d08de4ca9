#!/bin/sh
# tui-queue.sh: the probes screen shows the queue as probe runs does — an
# entry queued for the workers, then, once a worker has run it, the run with
# the worker's name.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
"$AIVET" probe queue V/e --probe echo >/dev/null
ok $? "a run of V/e is queued"
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"

tui_start 160x40 tui
tui_wait "V"
tui_keys L
tui_wait "Vendors"
tui_keys Enter
tui_wait "ENDPOINT"
tui_keys r
tui_wait "Probe runs of V/e (1)"; ok $? "the runs screen counts the queued entry"
like "$(tui_screen)" " -  +20[0-9T:.-]+Z +queued +- +- +entry 1" "it shows the entry, queued, with its number"
tui_keys q
tui_wait "ENDPOINT"
run worker --once --name w7
is "$rc:$(printf '%s' "$out" | tail -1)" "0:entry 1: run 1 finished" "worker w7 runs it"
tui_keys r
tui_wait "Probe runs of V/e (1)"
tui_wait "completed"; ok $? "reopened, the screen shows the run completed"
like "$(tui_screen)" " 1 +20[0-9T:.-]+Z +completed .*echo:[a-z]+ +worker w7" "with the worker that ran it"
tui_stop
done_testing
