#!/bin/sh
# tui-width.sh: the screens use their width for what tells rows apart. Two
# endpoints of one vendor with a long name, prod-leaky and prod-fixed, are
# told apart on the dashboard at 80x24 and 120x40 (the vendor's name gives
# way, not the endpoint's); a long incident title is whole where the columns
# are free; the vendor screen keeps the URL's host and port; the vendor list
# and the dashboard mark a vendor with the same "!!"; and a run whose
# credential cannot be read stops before any cost question. Then two smaller
# frictions: a status line does not follow to another screen, and q on the
# dashboard asks before quitting.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" || exit 1
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"
V="Mercy Inference Co"
"$AIVET" vendor add "$V" >/dev/null
for e in prod-leaky prod-fixed; do
	"$AIVET" endpoint add "$V" --name $e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
		--context 8192 --credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB >/dev/null
	"$AIVET" probe run "$V/$e" --probe echo --yes >/dev/null 2>&1
done
TITLE="Cross-tenant prompt leak seen on prod-leaky"
"$AIVET" incident open "$V" --title "$TITLE" --discovered 2026-11-01T09:00:00Z --phi no --eu-data no \
	--vendor-sla none >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")" 2 "two runs, one on each endpoint"

# The lines of one section of the screen: from its title to the blank line after it.
section() {
	tui_screen | sed 's/[[:space:]]*$//' | awk -v t="== $1 ==" 'index($0, t) { on = 1; next } on && $0 == "" { exit } on'
}
for size in 80x24 120x40; do
	tui_start "$size"
	tui_wait "== Recent probe runs =="; ok $? "$size: the dashboard shows the runs"
	runs=$(section "Recent probe runs")
	is "$(printf '%s\n' "$runs" | grep -c 'prod-fixed')" 1 "$size: the run on prod-fixed names its endpoint ($runs)"
	is "$(printf '%s\n' "$runs" | grep -c 'prod-leaky')" 1 "$size: the run on prod-leaky names its endpoint"
	is "$(printf '%s\n' "$runs" | cut -c1-14 | sort -u | wc -l)" 2 "$size: two runs, two lines"
	tui_stop
done
# At 120 columns the incident's title is whole: 60 columns are free beside it.
tui_start 120x40
tui_wait "== Open incidents =="
like "$(section "Open incidents")" "#1   $TITLE new " "120x40: a 43-character title is not cut at 20"
# The vendor list marks the vendor with an open incident as the dashboard does.
tui_keys L
tui_wait "OPEN INCIDENTS"
like "$(tui_screen)" "> !! $V +acceptable +2 +2 +1" "the vendor list marks it !! (an open incident), the dashboard's marker"
tui_stop

# The help at 80x24 wraps its legend to the screen instead of cutting it at the edge.
tui_start 80x24
tui_wait "== Vendors by rating =="
tui_keys '?'
tui_wait "Keys on this screen (dashboard):"
tui_keys G
tui_wait_re "^> +OVERDUE, LEAK and other words"
like "$(tui_screen)" "say in words what red says in
>? +colour\." "80x24: the help's last legend line wraps, not cut at the edge"
like "$(tui_screen)" "           probe run with a high or critical finding \(dashboard\)" \
	"80x24: a long entry wraps under its text"
tui_keys g /
tui_type "only dim"; tui_keys Enter
tui_wait "'only dim': line"
like "$(tui_screen)" "in a pane without the focus it is only dim, with
 +no >" "80x24: the first legend line wraps, its end kept"
tui_stop

# The vendor screen at 80 columns: the URL keeps its host and port.
port=${SIM_URL##*:}
tui_start 80x24
tui_wait "== Vendors by rating =="
tui_keys L
tui_wait "OPEN INCIDENTS"
tui_keys Enter
tui_wait "ENDPOINT"; ok $? "80x24: the vendor screen lists its endpoints"
is "$(tui_screen | grep -cE "prod-.* (http://)?127\.0\.0\.1:$port")" 2 "80x24: each endpoint's URL keeps host and port ($port)"

# A credential that cannot be read: the guard speaks before any cost question.
"$AIVET" endpoint add "$V" --name nokey --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	--context 8192 --credential alice=env:AIVET_TEST_NO_SUCH_KEY --price-in 2.5 --price-out 10 >/dev/null
tui_stop
tui_start 80x24
tui_wait "== Vendors by rating =="
tui_keys L
tui_wait "OPEN INCIDENTS"
tui_keys Enter
tui_wait "nokey"
tui_keys Home r
tui_wait "Probe runs of $V/nokey"; ok $? "r opens the runs of nokey"
tui_keys r
tui_wait "AIVET_TEST_NO_SUCH_KEY"; ok $? "r: the credential is refused first"
is "$(tui_screen | grep -c 'Send up to')" 0 "no cost question was asked"
# That refusal is this screen's: back on the vendor screen it is gone.
tui_keys q
tui_wait "ENDPOINT"
is "$(tui_screen | grep -c 'AIVET_TEST_NO_SUCH_KEY')" 0 "the status line does not linger on the screen below"
tui_keys q
tui_wait "OPEN INCIDENTS"
tui_keys q
tui_wait "== Vendors by rating =="
tui_keys q
tui_wait "Quit aivet?"; ok $? "q on the dashboard asks before quitting"
tui_keys n
sleep 0.3
like "$(tui_screen)" "== Vendors by rating ==" "n stays"
is "$(tui_screen | grep -c '\[exit ')" 0 "and aivet runs on"
tui_keys q
tui_wait "Quit aivet?"
tui_keys y
tui_wait "[exit 0]"; ok $? "y quits with status 0"
tui_stop
done_testing
