#!/bin/sh
# tests/tui/tui-inputs.sh: a vendor's text in the terminal UI. A redirect whose
# Location carries escape sequences (clear the screen, set the window title)
# is shown escaped through the ':' command line, and a refused name quoted
# in the status line is escaped too: the vendor never drives the terminal.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

EVIL_LOC=$(printf 'http://127.0.0.1:1/x\033[2J\033]2;pwned\007')
sim_start --tenants "$PROBE_TENANTS" --hostile redirect-origin --redirect-to "$EVIL_LOC" || exit 1
probe_setup openai 8192
"$AIVET" probe run V/e --probe echo --yes >/dev/null 2>&1
sim_stop

tui_start 200x30
tui_wait "Dashboard"; ok $? "the TUI starts"
title=$(tmux -S "$TMUX_SOCK" display -p '#{pane_title}')
tui_keys :
tui_type "evidence show 1"
tui_keys Enter
tui_wait 'location: http://127.0.0.1:1/x\x1b[2J\x1b]2;pwned\x07'; ok $? \
	"evidence show in the TUI shows the Location escaped"
is "$(tmux -S "$TMUX_SOCK" display -p '#{pane_title}')" "$title" "the window title did not change"
tui_keys q
tui_keys :
tui_type "probe show 1"
tui_keys Enter
tui_wait 'x\x1b[2J\x1b]2;pwned\x07 was not followed'; ok $? \
	"probe show in the TUI shows the reason escaped"
tui_keys q
tui_keys :
tui_type "vendor add 'x$(printf '\342\200\256')y'"
tui_keys Enter
tui_wait "\\u202e' may not contain '/', control characters or bidirectional overrides"
ok $? "a refused name is echoed escaped in the status line"
is "$(tmux -S "$TMUX_SOCK" display -p '#{pane_title}')" "$title" "the window title still did not change"
tui_q_out
tui_wait "[exit 0]"; ok $? "q quits with status 0"
tui_stop
done_testing
