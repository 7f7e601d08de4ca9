#!/bin/sh
# tui-next.sh: advice is shown, never recorded. A verify run whose canary saw
# isolation fail keeps only what it saw in its findings; its run screen at
# 80x24 adds the diagnose command with the plan "probe run --dry-run" prints
# for it, computed when shown, as "probe show" does.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --context 4096 --pool 2662 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"
run probe run V/e --yes --json --probe canary --concurrency 1
is "$rc" 1 "a verify run whose canary fails"
run probe show 1
cli_next=$(printf '%s\n' "$out" | grep '^next: ')
like "$cli_next" "^next: aivet probe run V/e --probe canary --depth diagnose looks further, with twice the canary rounds: [0-9,]+ requests, at most [0-9,]+ tokens in and [0-9,]+ out \(about USD [0-9.]+\), as its --dry-run plans it$" \
	"probe show: the next command and its plan"

tui_start 80x24
tui_wait "== Recent probe runs =="
tui_keys G Enter
tui_wait "Run 1 on V/e"; ok $? "80x24: the run opens from the dashboard"
screen=$(tui_screen | sed 's/[[:space:]]*$//')
like "$screen" "^ +next: aivet probe run V/e --probe canary --depth diagnose looks furt" \
	"80x24: the run screen adds the same next command"
is "$(printf '%s\n' "$screen" | grep -c 'LEAK_CROSS_TENANT: .*--depth')" 0 "80x24: the finding's own line names no command"
line=$(printf '%s\n' "$screen" | grep 'next: ' | sed 's/^ *//')
is "$line" "$(printf '%s' "$cli_next" | cut -c1-${#line})" \
	"80x24: word for word what probe show prints, as far as the screen shows it"
ok "$([ ${#line} -ge 70 ] && echo 0 || echo 1)" "80x24: most of the line is on screen (${#line} characters)"
tui_stop
sim_stop
done_testing
