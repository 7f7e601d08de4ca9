#!/bin/sh
# probe-terminal.sh: the command line, not the engine, runs the terminal of
# "probe run": on a terminal (a pseudo-terminal from script(1)) it asks y/N
# before anything is sent and draws a progress bar on stderr; without one it
# asks nothing and draws nothing; Ctrl-C stops the run cleanly. Against
# aivet-sim on 127.0.0.1.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

ESC=$(printf '\033')

sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192

# on_tty INPUT ARGS...: aivet ARGS... on a pseudo-terminal with INPUT typed
# (after a second, so the question is up); what the terminal showed in $T/tty,
# the exit status in $rc.
on_tty() {
	_in=$1
	shift
	(sleep 1; printf '%s\n' "$_in") | timeout 120 script -qec "$AIVET $*; echo \"exit=\$?\"" /dev/null \
	    >"$T/tty" 2>&1
	rc=$(tr -d '\r' <"$T/tty" | sed -n 's/^exit=//p' | tail -n 1)
}

# ---- a terminal: the question, and no answer sends nothing ----
on_tty n probe run V/e --probe echo
like "$(tr -d '\r' <"$T/tty")" "send these requests to V/e\\? \\[y/N\\]" "on a terminal, probe run asks y/N"
is "$rc" 2 "no: exit 2"
like "$(tr -d '\r' <"$T/tty")" "aivet: not confirmed; nothing was sent" "no: and says nothing was sent"
is "$(q "SELECT count(*) FROM probe_run")" 0 "no: no run was made"
is "$(grep -c ' POST ' "$SIM_LOG")" 0 "no: nothing reached the vendor"

# ---- yes: the run goes, with a progress bar on the terminal ----
on_tty y probe run V/e --probe echo
is "$rc" 0 "yes: the run completes, exit 0"
is "$(q "SELECT count(*) || ' ' || min(status) FROM probe_run")" "1 completed" "yes: one run, completed"
like "$(cat "$T/tty")" "${ESC}\\[K(calibration|echo) +\\[#*[ ]*\\] [0-9]+/[0-9]+ requests, [0-9,]+ tokens" \
    "yes: the progress bar is drawn on the terminal"
like "$(tr -d '\r' <"$T/tty")" "run 1 on V/e: completed" "yes: and the run is printed"

# ---- no terminal: no question, no bar ----
"$AIVET" probe run V/e --probe echo </dev/null >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc" 0 "without a terminal: the run goes without a question, exit 0"
is "$(cat "$T/e")" "" "without a terminal: nothing on stderr (no question, no progress bar)"
is "$(grep -c "$ESC" "$T/o")" 0 "without a terminal: no escape sequence on stdout"
like "$(cat "$T/o")" "^plan \\(at most\\):" "without a terminal: the plan, then the run"
sim_stop

# ---- Ctrl-C on a terminal: the run stops cleanly ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --prefill-us-per-token 100 || exit 1
probe_setup openai 8192
script -qec "$AIVET probe run V/e --yes; echo \"exit=\$?\"" /dev/null </dev/null >"$T/int" 2>&1 &
spid=$!
n=0
while [ "$(q "SELECT count(*) FROM exchange" 2>/dev/null || echo 0)" -lt 6 ] && [ $n -lt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
# script(1), its shell, and aivet under it: only this test's own processes.
sh_pid=$(pgrep -P "$spid" | head -n 1)
apid=$( [ -n "$sh_pid" ] && pgrep -P "$sh_pid" -x aivet | head -n 1)
ok "$([ -n "$apid" ] && echo 0 || echo 1)" "Ctrl-C: the run is found running (pid ${apid:-none})"
kill -INT "$apid" 2>/dev/null
wait "$spid"
int=$(tr -d '\r' <"$T/int")
is "$(printf '%s\n' "$int" | sed -n 's/^exit=//p')" 3 "Ctrl-C: exit 3"
like "$int" "aivet: interrupted: run 1 stopped; its finished exchanges are recorded" "Ctrl-C: and says so"
is "$(q "SELECT status, finished_at IS NOT NULL FROM probe_run")" "interrupted|1" "Ctrl-C: the run is marked interrupted"
is "$(q "SELECT count(*) FROM exchange x JOIN evidence e ON e.id = x.evidence_id")" \
    "$(q "SELECT count(*) FROM exchange")" "Ctrl-C: every exchange has its evidence"
like "$(cat "$T/int")" "${ESC}\\[K" "Ctrl-C: the bar was drawn, and erased"
sim_stop

done_testing
