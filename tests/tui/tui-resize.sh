#!/bin/sh
# tui-resize.sh: the screen during a probe run — the terminal is resized
# several times while the run is in progress and every screen redraws at
# the new size with the progress still shown; keys still work (help opens
# and closes); x stops the run, which ends interrupted with its finished
# exchanges kept.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

# A slow vendor: every prompt token costs 3 ms of prefill.
sim_start --context 8192 --pool 16384 --tenants "$PROBE_TENANTS" --prefill-us-per-token 3000 || exit 1
probe_setup openai 8192 --price-in 2.5 --price-out 10
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"

tui_start 80x24
tui_wait "Dashboard"
tui_keys L; tui_wait "Vendors"
tui_keys Enter; tui_wait "ENDPOINT"
tui_keys r; tui_wait "Probe runs of V/e"
tui_keys r; tui_wait "Send up to"
like "$(tui_screen | tr -d '\n')" "Send up to [0-9,]+ requests to V/e at depth verify\? USD [0-9]+\.[0-9]{2} expected, [0-9]+\.[0-9]{2} at most" \
	"the plan shows the expected and the largest cost before anything is sent"
tui_keys y
tui_wait "(x stops)"; ok $? "the run shows its progress"

for size in 120x40 60x20 200x50 80x24; do
	tui_resize "$size"
	sleep 0.5
	rows=${size#*x}
	is "$(tui_screen | wc -l)" "$rows" "resized to $size during the run: the screen has $rows rows"
	like "$(tui_screen | head -1)" "aivet \| Probes V/e" "$size: the title bar is redrawn"
	like "$(tui_screen | tail -1)" "\(x stops\)" "$size: the progress line is redrawn"
done

tui_keys '?'
tui_wait "Keys on this screen"; ok $? "keys work during the run: ? opens help"
tui_keys q
tui_wait "Probe runs of V/e"; ok $? "and q closes it"
tui_keys x
i=0
while [ $i -lt 100 ] && [ "$(sqlite3 "$AIVET_DB" "SELECT status FROM probe_run WHERE id = 1")" = running ]; do
	sleep 0.2; i=$((i + 1))
done
run probe show 1 --json
is "$(printf '%s' "$out" | json '.status')" interrupted "x stops the run: it is interrupted"
n=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE run_id = 1")
ok "$([ "$n" -gt 0 ]; echo $?)" "its finished exchanges are kept ($n)"
run audit verify
is "$rc" 0 "the audit chain is intact"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
done_testing
