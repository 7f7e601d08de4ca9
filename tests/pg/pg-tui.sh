#!/bin/sh
# tests/pg/pg-tui.sh: the terminal UI on a PostgreSQL database, in tmux. Its
# title bar shows who is logged in: the database login, not AIVET_ACTOR;
# a vendor added with keystrokes is recorded under that login; a second
# login sees it; and an auditor's attempt to add one is refused on the
# status line naming the role it needs, with nothing written.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

pg_start
pg_login owner CREATEROLE
pg_login alice
pg_login audrey
pg_createdb team owner
"$AIVET" --db "$(pg_url team owner)" db grant alice assessor >/dev/null &&
"$AIVET" --db "$(pg_url team owner)" db grant audrey auditor >/dev/null
ok $? "alice is an assessor, audrey an auditor"

# title TEXT WHO: the title bar of an 80-column screen, WHO at its right.
title() { printf ' %-*s%s' $((80 - ${#2} - 2)) "$1" "$2"; }

AIVET_DB=$(pg_url team alice) AIVET_ACTOR=tester
tui_start 80x24
tui_wait "No vendors yet. Press a to add the first one."; ok $? "the first screen, from the server"
is "$(tui_screen | head -1 | sed 's/[[:space:]]*$//')" \
	"$(title "aivet | Vendors (0)" "as alice")" \
	"the title bar shows the login, alice, not AIVET_ACTOR"
tui_keys a
tui_wait "Add vendor"; ok $? "a opens the add dialog"
tui_type "Acme Health"
tui_keys Enter
tui_wait "vendor Acme Health added (id 1)"; ok $? "the vendor is added"
tui_q_out
tui_wait "[exit 0]"; ok $? "q quits"
tui_stop
is "$(pg_sql -d team "SELECT actor || ' ' || action FROM audit_log WHERE action = 'vendor.add'")" "alice vendor.add" \
	"recorded under alice's login"

AIVET_DB=$(pg_url team audrey) AIVET_ACTOR=alice
tui_start 80x24
tui_wait "Dashboard"
is "$(tui_screen | head -1 | sed 's/[[:space:]]*$//')" \
	"$(title "aivet | Dashboard" "as audrey")" \
	"the title bar shows audrey, whatever AIVET_ACTOR says"
tui_keys L
tui_wait "Acme Health"; ok $? "the auditor sees alice's vendor"
tui_keys a
tui_wait "Add vendor"
tui_type "Beta Care"
tui_keys Enter
tui_wait "writing needs the aivet_assessor role"; ok $? "adding is refused in the dialog, naming aivet_assessor"
tui_keys Escape q
tui_stop
is "$(pg_sql -d team "SELECT count(*) FROM vendor")" 1 "nothing was written"

done_testing
