#!/bin/sh
# tui-incident.sh: drives the incident screens in tmux — the list with an
# overdue clock marked in words, the incident page with clocks, tasks and
# timeline, and adding a note, a task, a status change from there; each
# change is checked through the CLI.
. "$TESTS_SRCDIR/lib.sh"
. "$TESTS_SRCDIR/tui-lib.sh"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
SKIP_VERIFY=1 TMPDIR="$T" AIVET="$AIVET" sh "$TESTS_SRCDIR/../docs/examples/kv-cache-exposure.sh" >/dev/null
"$AIVET" incident open "Lumen Inference" --title "Late notice" --discovered 2026-11-01T10:00:00Z \
	--phi yes --individuals 40 --eu-data --vendor-sla none >/dev/null

tui_start 80x24
tui_wait "== Open incidents =="
tui_keys i
tui_wait "Incidents (2, 1 overdue)"; ok $? "i opens the incident list, counting overdue ones"
tui_expect tui-incidents-80x24.txt
tui_keys Enter
tui_wait "Incident 2 (new)"; ok $? "Enter opens the incident"
like "$(tui_screen)" "gdpr-sa +OVERDUE +due 2026-11-04T10:00:00Z, 25d 14h ago" "the overdue clock says so in words"
like "$(tui_screen)" "hipaa-individuals +running +due 2026-12-31T10:00:00Z, 31d 10h left" "a running clock with time left"

tui_keys N
tui_wait "Add timeline entry"; ok $? "N opens the entry form"
tui_type "Supervisory authority notified through its portal"
tui_keys Tab C-u
tui_type notification-sent
tui_keys Tab Tab
tui_type "gdpr-sa"
tui_keys Enter
tui_wait "incident 2: entry 12 recorded (notification-sent)"; ok $? "the CLI's words in the status line"
run incident show 2 --json
is "$(echo "$out" | json '.clocks[4] | .state + " " + .stopped_at')" "late 2026-11-30T00:00:00.000Z" "the notice stopped the GDPR clock (late)"

tui_keys t
tui_wait "Add task"; ok $? "t opens the task form"
tui_type "Call the patients' liaison"
tui_keys Tab
tui_type dpo
tui_keys Enter
tui_wait "incident 2: task 4 added"; ok $? "task added"
tui_wait "[ ] 4"; ok $? "and listed"
tui_keys g j j j j j j j
tui_wait ">   [ ] 4"
tui_keys Enter
tui_wait "Mark task 4 done?"; ok $? "Enter on a task asks to mark it done"
tui_keys y
tui_wait "incident 2: task 4 done"; ok $? "task done"
run incident show 2 --json
is "$(echo "$out" | json '.tasks[0] | .owner + " " + .done_at')" "dpo 2026-11-30T00:00:00.000Z" "the CLI sees the task done"

tui_keys c
tui_wait "New status"; ok $? "c asks for the new status"
tui_keys Enter
tui_wait "incident 2: new -> investigating"; ok $? "the next status is offered"
tui_keys c C-u
tui_type closed
tui_keys Enter
tui_wait "error: incident 2 is investigating: it can move to contained, not closed"
ok $? "a refused change shows the CLI's reason"
tui_keys q
tui_wait "Incidents (2, 0 overdue)"; ok $? "back in the list, nothing overdue now"
tui_keys q q
tui_wait "[exit 0]"; ok $? "q quits"
done_testing
