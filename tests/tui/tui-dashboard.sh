#!/bin/sh
# tui-dashboard.sh: the dashboard's notification clocks in tmux — every
# overdue clock of every open incident, most overdue first (clocks due at the
# same moment in the order of the rules), each naming the incident, the clock
# and how long overdue, then the clocks due soon; the open incidents below
# say how many of theirs are overdue. At 120x40 and 80x24, and a clock's line
# opens its incident.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
"$AIVET" vendor add "Acme Health AI" >/dev/null
# A large breach: every HIPAA clock, GDPR's and the vendor's 24h notice, all passed.
"$AIVET" incident open "Acme Health AI" --title "Shared KV cache" --discovered 2026-09-01T09:00:00Z \
	--phi yes --individuals 1200 --state-residents 800 --eu-data --vendor-sla 24h >/dev/null
# A small one: GDPR's notice passed, the individuals' notice due today.
"$AIVET" incident open "Acme Health AI" --title "Prompt log exposure" --discovered 2026-10-01T12:00:00Z \
	--phi yes --individuals 40 --eu-data --vendor-sla none >/dev/null
# A closed incident's clocks are nobody's deadline any more.
"$AIVET" incident open "Acme Health AI" --title "Closed long ago" --discovered 2026-06-01T09:00:00Z \
	--phi yes --eu-data --vendor-sla none >/dev/null
# close SQL: closing through the workflow needs every notice recorded; the screen only
# reads the status. Incident facts change only on a connection that defines
# aivet_writing() (db/006-seal-all.sql), as aivet's own do: not the sqlite3 shell's.
close() {
	python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1])
db.create_function("aivet_writing", 0, lambda: 1); db.execute(sys.argv[2]); db.commit()' \
		"$AIVET_DB" "UPDATE incident SET status = 'closed' $1"
}
close "WHERE id = 3"

# The lines of one section of the screen: from its title to the blank line after it.
section() {
	tui_screen | sed 's/[[:space:]]*$//' | awk -v t="== $1 ==" 'index($0, t) { on = 1; next } on && $0 == "" { exit } on'
}

clocks='!! #1   Shared KV cache     Vendor'"'"'s contractual notice OVERDUE by 88d 15h
  !! #1   Shared KV cache     GDPR supervisory authority  OVERDUE by 86d 15h
  !! #2   Prompt log exposure GDPR supervisory authority  OVERDUE by 56d 12h
  !! #1   Shared KV cache     HIPAA notice to individuals OVERDUE by 29d 15h
  !! #1   Shared KV cache     HIPAA notice to HHS         OVERDUE by 29d 15h
  !! #1   Shared KV cache     HIPAA notice to media       OVERDUE by 29d 15h
  !  #2   Prompt log exposure HIPAA notice to individuals due in 12h 00m'
incidents='!! #2   Prompt log exposure new           gdpr-sa OVERDUE by 56d 12h  [Acme Health AI]
  !! #1   Shared KV cache     new           5 clocks OVERDUE  [Acme Health AI]'

for size in 120x40 80x24; do
	tui_start "$size"
	tui_wait "== Notification clocks =="; ok $? "$size: the dashboard opens on the notification clocks"
	is "$(section "Notification clocks")" "> $clocks
     no organisation zone: days end in UTC (aivet db timezone ZONE)" \
		"$size: every overdue clock, most overdue first, then the one due soon; days end in UTC, and how to set the zone"
	# At 80 columns the vendor is cut at the edge, as every list line is.
	is "$(section "Open incidents")" "$(printf '  %s\n' "$incidents" | cut -c1-"${size%x*}")" \
		"$size: each open incident with its overdue clocks"
	tui_keys Down Down Enter
	tui_wait "Incident 2 (new)"; ok $? "$size: Enter on a clock's line opens its incident"
	tui_stop
done

# Once the database names the organisation's zone, the note is gone.
"$AIVET" db timezone UTC >/dev/null
tui_start 80x24
tui_wait "== Notification clocks =="
is "$(section "Notification clocks")" "> $clocks" "80x24: a zone set (UTC), no note"
tui_stop

# Nothing overdue or due soon: no clocks section, the incidents say when theirs are due.
close ""
"$AIVET" incident open "Acme Health AI" --title "Fresh" --discovered 2026-11-29T00:00:00Z \
	--phi yes --individuals 40 --vendor-sla none --eu-data no >/dev/null
tui_start 80x24
tui_wait "== Open incidents =="
unlike "$(tui_screen)" "Notification clocks" "no clock overdue or due soon: no clocks section"
is "$(section "Open incidents")" "  !  #4   Fresh    new           hipaa-individuals due in 59d 00h  [Acme Health" \
	"an incident's nearest clock, with the time left"
done_testing
