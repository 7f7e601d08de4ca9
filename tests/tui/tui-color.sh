#!/bin/sh
# tui-color.sh: colour is an extra, never the only signal — a vendor with
# an open incident carries a "!" marker with or without colour, and
# NO_COLOR turns colour off.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

"$AIVET" vendor add Acme >/dev/null
"$AIVET" vendor add Calm >/dev/null
sqlite3 "$AIVET_DB" "INSERT INTO incident (vendor_id, title, discovered_at, created_by, created_at)
	VALUES (1, 'leak', '2026-11-30T00:00:00.000Z', 'tester', '2026-11-30T00:00:00.000Z')"

# Waits are for states only the vendor list has ("Vendors (2)" with its rows, then the
# selection on Calm): the dashboard shows "? Acme" too, and a fixed pause races a busy machine.
tui_start 80x24
tui_wait "Dashboard"
tui_keys L
tui_wait "Vendors (2)"
tui_wait_re '^ +\? +Calm '
like "$(tui_screen | grep Acme)" '^ *> *!! Acme' "the open incident is marked with !! (not colour alone)"
like "$(tui_screen | grep Calm)" '^ +\? +Calm [^!]*$' "a vendor without incidents is listed, marked only as not assessed (?)"
tui_keys j
tui_wait_re '^ *> +\? +Calm '
like "$(tmux -S "$TMUX_SOCK" capture-pane -e -p | grep Acme)" '\[[0-9;]*31m' "with colour the marker row is red"
tui_stop

TUI_ENV="NO_COLOR=1"
tui_start 80x24
tui_wait "Dashboard"
tui_keys L
tui_wait "Vendors (2)"
tui_wait_re '^ +\? +Calm '
tui_keys j
tui_wait_re '^ *> +\? +Calm '
like "$(tui_screen | grep Acme)" '! Acme' "NO_COLOR keeps the marker"
unlike "$(tmux -S "$TMUX_SOCK" capture-pane -e -p)" '\[[0-9;]*3[1-7]m' "NO_COLOR: no colour at all"

done_testing
