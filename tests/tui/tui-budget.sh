#!/bin/sh
# tui-budget.sh: a run a USD budget stopped, with probes left inconclusive and
# no finding, is never "ok" on the dashboard at 80x24: it is marked "?" and
# says how many probes were inconclusive, as "probe runs" does; the reasons
# name the USD budget, not the token budget.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --context 4096 --pool 4096 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
run probe run V/e --yes --json --budget-usd 0.05
is "$(printf '%s' "$out" | jq -r '.status')" budget_exhausted "the USD budget stops the run"
n=$(printf '%s' "$out" | jq '[.probes[] | select(.verdict == "inconclusive")] | length')
total=$(printf '%s' "$out" | jq '.probes | length')
ok "$([ "$n" -gt 0 ] && [ "$(printf '%s' "$out" | jq '[.probes[].findings[]?] | length')" -eq 0 ] && echo 0 || echo 1)" \
	"$n of $total probes inconclusive, no finding"
sim_stop

for size in 80x24 120x40; do
	tui_start "$size"
	tui_wait "== Recent probe runs =="
	line=$(tui_screen | grep ' run 1 ')
	like "$line" "^ *\? +run 1 +V/e +budget_exhausted .* $n/$total inco" "$size: the run is marked ? with $n/$total inconclusive"
	unlike "$line" "(^| )ok " "$size: never ok"
	tui_stop
done
like "$line" " $n/$total inconclusive" "120x40: the words whole"
done_testing
