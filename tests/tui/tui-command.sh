#!/bin/sh
# tests/tui/tui-command.sh: the ':' command line of the terminal UI runs the
# command in a child process: its output is shown, its error is the status
# line, and nothing it does reaches the TUI's own state — after ':evidence
# show N --include-leaked-content' the TUI's evidence view still keeps the
# leaked response sealed, and a failing command changes nothing.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --tenants "$PROBE_TENANTS" --context 8192 --pool 5324 --fault disagg-placeholder || exit 1
probe_setup openai 8192
"$AIVET" probe run V/e --probe canary --yes >/dev/null 2>&1
sim_stop
leak=$(q "SELECT id FROM finding WHERE code = 'LEAK_CROSS_TENANT' LIMIT 1")
ev=$(q "SELECT e.evidence_id FROM finding_evidence e JOIN exchange x ON x.evidence_id = e.evidence_id
	JOIN blob b ON b.sha256 = x.response_blob WHERE e.finding_id = '$leak' AND b.encrypted = 1 LIMIT 1")
ok "$([ -n "$ev" ]; echo $?)" "a leaking response is stored sealed (evidence $ev)"
audit_rows=$(q "SELECT count(*) FROM audit_log")

tui_start 160x40
tui_wait "Dashboard"; ok $? "the TUI starts"

# A command's output is shown in a pager, titled with the command line.
tui_keys :
tui_type "vendor list"
tui_keys Enter
tui_wait ":vendor list"; ok $? "the output is shown under the command line"
like "$(tui_screen)" "ID +NAME +CRIT" "vendor list's header"
like "$(tui_screen)" "done: vendor list" "success in the status line"
tui_keys q

# The leaked content, opened for this one command only.
tui_keys :
tui_type "evidence show $ev --include-leaked-content"
tui_keys Enter
# Long lines wrap in the pager: the response comes after the request's many lines.
tui_wait ":evidence show $ev"
tui_keys G
tui_wait "response body"; ok $? "evidence show runs"
like "$(tui_screen)" "choices" "with --include-leaked-content it shows the opened body"
tui_keys q

# A failing command: its error in the status line, nothing changed.
tui_keys :
tui_type "incident open V --title ''"
tui_keys Enter
tui_wait "error: --title must not be empty"; ok $? "the CLI's error in the status line"
tui_keys :
tui_type "vendor frobnicate"
tui_keys Enter
tui_wait "unknown subcommand 'frobnicate'"; ok $? "a usage error too"
is "$(q "SELECT count(*) FROM audit_log")" "$audit_rows" "the failed commands changed nothing"

# The TUI's own evidence view still keeps the leaked response sealed.
tui_keys L
tui_wait "Vendors"
tui_keys Enter
tui_wait "ENDPOINT"
tui_keys r
tui_wait "Probe runs of V/e (1)"
tui_keys Enter
tui_wait "Run 1 on V/e"
tui_keys /
tui_type LEAK_CROSS_TENANT
tui_keys Enter
# Keys queued behind a dialog's Enter are dropped: wait for the prompt to close.
tui_wait "filter: LEAK_CROSS_TENANT"
tui_keys Enter
tui_wait "REQUEST"; ok $? "the finding's evidence opens"
scr=$(tui_screen)
like "$scr" "\(sealed: leaked content is kept encrypted\)" "the leaked response is still sealed"
unlike "$scr" "\"choices\"" "and its body is not shown"
tui_q_out
tui_wait "[exit 0]"; ok $? "q backs out and quits"
tui_stop
done_testing
