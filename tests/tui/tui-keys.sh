#!/bin/sh
# tests/tui/tui-keys.sh: what the terminal UI's framework promises on every
# screen, at 120x40 and 80x24: keys typed after a refused action, or queued
# while a dialog was open, never run as commands; a refusal is shown whole;
# dialogs grow to show a long validation message whole, and wrap it where
# the terminal is narrow; a pre-filled value is replaced by typing; ? holds
# a legend of the markers and / searches it; every screen's footer keeps
# "? help"; Tab on the dashboard moves the focus where it shows.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

"$AIVET" vendor add "Acme AI" >/dev/null
# gone TEXT: waits until the screen no longer shows TEXT (a dialog closed).
gone() {
	_i=0
	while tui_screen | grep -qF -- "$1" && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
}
status_line() { tui_screen | sed 's/[[:space:]]*$//' | grep -v '^$' | tail -1; }

# A date typed into an action the screen refuses: the ':' in it would open
# the command line and the rest run as a command ("unknown command '00:00Z'").
tui_start 120x40
tui_wait "aivet | Dashboard"; ok $? "120x40: the dashboard"
# Typed key by key, as a person types (the first burst), then in one write (the second).
tui_keys t
for c in 2 0 2 6 - 1 2 - 0 1 T 1 0 : 0 0 : 0 0 Z; do tui_type "$c"; sleep 0.05; done
tui_keys Enter
sleep 0.7
tui_keys t 2 0 2 6 - 1 2 - 0 1 T 1 0 : 0 0 : 0 0 Z Enter
tui_wait "error: task is not on this screen"; ok $? "the refusal in the status line"
sleep 0.5   # what the typed keys would have done has been done
# The keys that came before the refusal was shown are dropped silently, the rest counted.
like "$(status_line)" '^error: task is not on this screen \(\? lists the keys\)( \([0-9]+ keys? typed after it ignored\))?$' \
	"the refusal says what was refused, and that keys after it were dropped"
unlike "$(tui_screen)" "unknown command" "no typed key ran as a command"
like "$(tui_screen)" "aivet \| Dashboard" "still on the dashboard, no prompt or dialog open"
sleep 0.5   # a pause ends the burst: keys act again
tui_keys L
tui_wait "aivet | Vendors (1)"; ok $? "after a pause keys act again"

# Keys queued while a dialog was open were meant for it: they do not run after it closes.
tui_keys a; tui_wait "Add vendor"
tui_keys B e t a Enter : v e n d o r Space a d d Space X Enter
tui_wait "vendor Beta added (id 2)"; ok $? "the dialog took its keys"
sleep 0.5
run vendor list --json
is "$(printf '%s' "$out" | json '[.[].name] | join(",")')" "Acme AI,Beta" \
	"the keys queued after the dialog's Enter did not run 'vendor add X'"

# A pre-filled field is selected: typing replaces it (criticality 2, typing 4 gives 4).
tui_keys a; tui_wait "Add vendor"
tui_type "Zeta Care"; tui_keys Tab; tui_type 4; tui_keys Enter
tui_wait "vendor Zeta Care added (id 3)"; ok $? "a vendor added with a typed criticality"
run vendor show "Zeta Care" --json
is "$(printf '%s' "$out" | json '.criticality')" 4 "typing 4 into the pre-filled 2 stored 4"
# Arrows keep the value for editing: Left then 1 inserts before it.
tui_keys a; tui_wait "Add vendor"
tui_type "Yonder"; tui_keys Tab Left; tui_type 1; tui_keys Enter
tui_wait "criticality: 12 is out of range (0 to 4)"; ok $? "after an arrow, typing edits the value (2 became 12)"
tui_keys Escape; gone "Add vendor"

# A long validation message: whole in a wider box at 120x40, wrapped at 80x24.
tui_keys a; tui_wait "Add vendor"
tui_type 4; tui_keys Enter
tui_wait "choose another"; ok $? "the name is refused"
tui_expect tui-keys-dialog-120x40.txt
tui_keys Escape; gone "Add vendor"
tui_resize 80x24
tui_wait "aivet | Vendors (3)"
tui_keys a; tui_wait "Add vendor"
tui_type 4; tui_keys Enter
tui_wait "choose"; ok $? "80x24: the name is refused"
tui_expect tui-keys-dialog-80x24.txt
tui_keys Escape; gone "Add vendor"
# A refusal wider than the terminal wraps onto a second status row, whole.
tui_keys :; tui_type "vendor add 'Acme AI/prod'"; tui_keys Enter
tui_wait "bidirectional overrides"; ok $? "80x24: a refusal wider than the screen is shown to its end"
is "$(tui_screen | sed 's/[[:space:]]*$//' | tail -2 | paste -sd ' ')" \
	"error: vendor name 'Acme AI/prod' may not contain '/', control characters or bidirectional overrides" \
	"the refusal wraps over two rows, nothing cut"

# ? lists the markers; / searches the help, n and N move between matches.
tui_resize 120x40
tui_wait_width 120
tui_keys '?'
tui_wait "Keys on this screen (vendors):"; ok $? "? opens the help"
tui_keys G
# The legend is wrapped to the width the help opens at; G is drawn once the last line is selected.
tui_wait_re "^> +OVERDUE, LEAK and other words"
tui_wait "worst first: a vendor rated unacceptable (dashboard, vendors) or with open incidents (vendors),"
tui_expect tui-keys-help-120x40.txt
tui_keys g /
tui_type overdue; tui_keys Enter
tui_wait "'overdue': line 1 of 2 with it (n next, N previous)"; ok $? "/ finds the first line with the word"
like "$(tui_screen)" '^> .*clock overdue' \
	"the selection is on that line"
ESC=$(printf '\033')
tui_keys n
tui_wait "'overdue': line 2 of 2 with it"; ok $? "n goes to the next match"
like "$(tui_screen)" '> +OVERDUE, LEAK and other words' "the selection is on the second line"
is "$(tmux -S "$TMUX_SOCK" capture-pane -p -e | grep -cE "$ESC\[[0-9;]*4m($ESC\[[0-9;]*m)*OVERDUE")" 1 \
	"the match on the selected line is underlined"
is "$(tmux -S "$TMUX_SOCK" capture-pane -p -e | grep -cE "$ESC\[[0-9;]*7m($ESC\[[0-9;]*m)*overdue")" 1 \
	"the match on another line is reversed"
tui_keys n
tui_wait "'overdue': line 1 of 2 with it, wrapped"; ok $? "n wraps to the first match"
tui_keys N
tui_wait "'overdue': line 2 of 2 with it, wrapped"; ok $? "N goes back, wrapping"
tui_keys /; tui_type nosuchword; tui_keys Enter
tui_wait "'nosuchword' not found"; ok $? "a word not in the help is reported"
tui_keys q

# Every screen keeps "? help" in its footer at 80x24.
"$AIVET" endpoint add "Acme AI" --name prod --api openai --url http://127.0.0.1:9/v1 --model m1 \
	--context 8192 --cred a=env:KEY_A >/dev/null
"$AIVET" assess start "Acme AI" llm-inference-isolation >/dev/null
"$AIVET" incident open "Acme AI" --title "Prompt text of another tenant" \
	--discovered 2026-11-30T10:00:00Z --eu-data no --vendor-sla none >/dev/null
tui_stop
tui_start 80x24
footer() {
	tui_wait "$1"
	like "$(tui_screen)" '\? help  q back' "80x24: the footer of $2 keeps ? help"
}
footer "aivet | Dashboard" "the dashboard"
tui_keys L; footer "aivet | Vendors (3)" "the vendor list"
tui_keys g Enter; footer "Vendor:      Acme AI" "a vendor"
tui_keys s; footer "aivet | Assessments" "the assessments"
tui_keys Enter; footer "Assessment 1 (draft)" "an assessment"
# A dialog's title (here the question) wraps inside the box rather than being cut.
tui_keys Left G Right
tui_wait "exposure_notification_time (required)"
tui_keys Enter
tui_wait_re "│ data may have reached another tenant do you notify that customer\? +│"
ok $? "80x24: the answer dialog's title wraps inside the box"
tui_keys Escape; gone "│ data may have reached"
tui_keys '?'; footer "Keys on this screen (assess):" "the help"
tui_keys q q q q q
tui_wait "aivet | Dashboard"
tui_keys i; footer "aivet | Incidents" "the incident list"
tui_keys Enter; footer "Incident 1 (new)" "an incident"
tui_keys q q :; tui_type "vendor list"; tui_keys Enter
footer "aivet | :vendor list" "a command's output"
tui_keys q

# Tab on the dashboard: at 80x24 the selection goes to the next section.
tui_wait "aivet | Dashboard"
like "$(tui_screen | grep '^>')" '^> \?  Acme AI' "the first vendor is selected"
tui_keys Tab
tui_wait_re '^> !  #1   Prompt text'; ok $? "Tab moves the selection to the open incidents"
tui_stop

# On a wide terminal Tab moves the focus to the other pane: only the focused pane shows >.
tui_start 200x50
tui_wait "aivet | Dashboard"
is "$(tui_screen | grep -o '>' | wc -l)" 1 "one selection marker"
like "$(tui_screen | grep '>')" '^> \?  Acme AI' "in the left pane"
tui_keys Tab
tui_wait_re '│> !  #1   Prompt text'; ok $? "Tab moves the focus to the right pane"
is "$(tui_screen | grep -o '>' | wc -l)" 1 "and the left pane's selection no longer shows >"
tui_stop
done_testing
