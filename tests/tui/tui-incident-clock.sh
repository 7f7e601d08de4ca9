#!/bin/sh
# tui-incident-clock.sh: on the incident screen, Enter (or w) on a clock shows
# why it applies or not, what was assumed, its rule, start, due time as the
# rule states it in the organisation's zone, and its state; W edits the
# exposure window through the domain function "incident edit" calls, with its
# timeline and audit entries. At 80x24 and at 120x40 (with --tz).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
SKIP_VERIFY=1 TMPDIR="$T" AIVET="$AIVET" sh "$TESTS_SRCDIR/../docs/examples/kv-cache-exposure.sh" >/dev/null
"$AIVET" incident open "Lumen Inference" --title "Late notice" --discovered 2026-11-01T10:00:00Z \
	--phi unknown --individuals 40 --eu-data --vendor-sla none >/dev/null

# The pager's lines from the clock's name to "as of", without the selection
# column, trailing blanks cut; a wrapped line keeps its indent.
clock_lines() {
	tui_screen | sed 's/[[:space:]]*$//; s/^[> ] //' | sed -n '/^clock  /,/^as of  /p'
}
# The hint line: the one ending "q back".
hint_line() { tui_screen | grep 'q back$'; }

# ---- 80x24: Enter on a clock, then the window form ----
tui_start 80x24
tui_wait "== Open incidents =="
tui_keys i
tui_wait "Incidents (2, 1 overdue)"
tui_keys Enter
tui_wait "Incident 2 (new)"; ok $? "the incident opens"
tui_keys g j j j j j Enter
tui_wait "Incident 2, clock gdpr-sa"; ok $? "Enter on a clock shows it"
is "$(clock_lines)" "clock        gdpr-sa: GDPR supervisory authority
applies      yes
why          EU personal data involved
rule         GDPR Art. 33: without undue delay and within 72 hours after
  becoming aware, when EU personal data is involved
started      2026-11-01T10:00:00.000Z
due          2026-11-04T10:00:00Z
due (UTC)    2026-11-04T10:00:00.000Z
state        OVERDUE by 25d 14h
as of        2026-11-30T00:00:00.000Z" "why it applies, its rule, start, due and state, wrapped at 80 columns"
tui_keys q
tui_wait "Incident 2 (new)"
tui_keys g j j j w
tui_wait "Incident 2, clock media"; ok $? "w shows the selected clock too"
is "$(clock_lines | sed -n '1,3p')" "clock        media: HIPAA notice to media
applies      no
why          40 individuals in all, so no state has more than 500" "a clock that does not apply says why not"
is "$(clock_lines | sed -n '/^state/p')" "state        not applicable" "and its state"
tui_keys q
tui_wait "Incident 2 (new)"
tui_keys g j w
tui_wait "Incident 2, clock hipaa-individuals"
is "$(clock_lines | sed -n '/^why/p')" "why          PHI involvement unknown: assumed involved" "what was assumed is said"
tui_keys q
tui_wait "Incident 2 (new)"
tui_keys g w
tui_wait "error: select a clock: w shows why it applies"; ok $? "w elsewhere says what it needs"
sleep 0.5   # a pause ends the refused burst: keys act again

is "$(hint_line)" "/ search  Enter open  e edit  W window  N note  t task  c status  ? help  q back" \
	"W keeps its place on the hint line at 80 columns (w, less used, makes room)"
tui_keys W
tui_wait "Exposure window"; ok $? "W opens the exposure window form"
tui_type "2026-10-30T08:00"
tui_wait "error"; ok $? "a time without a zone is refused as typed"
tui_keys C-u
tui_type "2026-10-30T08:00:00-04:00"
tui_keys Tab
tui_type "2026-10-29T00:00:00Z"
tui_keys Enter
tui_wait "--window-end 2026-10-29T00:00:00Z is before --window-start"
ok $? "an end before the start is refused with the CLI's words, the form kept open"
is "$(tui_screen | grep -c 'Exposure window')" 1 "the form stays open"
tui_keys C-u
tui_type "2026-11-01T09:00:00Z"
tui_keys Tab
tui_type "Vendor's log review"
tui_keys Enter
tui_wait "incident 2: exposure window recorded"; ok $? "the window is recorded"
is "$(tui_screen | sed -n 's/[[:space:]]*$//; /^  Window:/p')" \
	"  Window: 2026-10-30T12:00:00.000Z to 2026-11-01T09:00:00.000Z" "the header shows it, in UTC"
run incident show 2 --json
is "$(echo "$out" | json '[.window_start, .window_end, .timeline[-1].kind, .timeline[-1].text] | join("|")')" \
	"2026-10-30T12:00:00.000Z|2026-11-01T09:00:00.000Z|decision|Vendor's log review" \
	"the CLI sees the window, and its decision entry with the note"
is "$(sqlite3 "$AIVET_DB" "SELECT action || ' ' || json_extract(details, '\$.window_start') FROM audit_log WHERE object_type = 'incident' AND object_id = 2 ORDER BY seq DESC LIMIT 1")" \
	"incident.edit 2026-10-30T08:00:00-04:00" "with its audit entry, as incident edit writes it"
run audit verify
is "$rc" 0 "the audit chain verifies"
tui_keys W
tui_wait "Exposure window"
tui_keys Enter
tui_wait "incident 2: the exposure window is unchanged"; ok $? "the form sent unchanged records nothing"
tui_step q q q
tui_wait "[exit 0]"; ok $? "q quits"
tui_stop

# ---- 120x40 with --tz: the due time as the rule states it, in the zone ----
tui_start 120x40 --tz America/New_York
tui_wait "== Open incidents =="
tui_keys i
tui_wait "Incidents (2, 1 overdue)"
tui_keys Enter
tui_wait "Incident 2 (new)"
tui_keys g j j Enter
tui_wait "Incident 2, clock hhs"; ok $? "Enter on the HHS clock at 120x40"
is "$(clock_lines)" "clock        hhs: HIPAA notice to HHS
applies      yes
why          PHI involvement unknown: assumed involved; 40 individuals (fewer than 500): annual log, 60 days after the
  end of the calendar year of discovery
rule         45 CFR 164.408: with the individuals' notice when 500 or more individuals, else within 60 days after the
  end of the calendar year of discovery
started      2026-11-01T10:00:00.000Z
due          by 2027-03-01, end of day
due (UTC)    2027-03-02T05:00:00.000Z
due (local)  2027-03-02T00:00:00-05:00 EST
state        running, 92d 05h left
as of        2026-11-30T00:00:00.000Z" "a date deadline reads as a date, the zone's end of day beside UTC"
tui_keys q
tui_wait "Incident 2 (new)"
is "$(hint_line)" "/ search  Enter open  e edit  W window  N note  t task  c status  f attach  y verify  w why  ? help  q back" \
	"both keys on the hint line at 120 columns"
tui_keys W
tui_wait "Exposure window"
is "$(tui_screen | grep -o 'Exposure began *[^ │]*' | sed 's/  */ /g')" "Exposure began 2026-10-30T12:00:00.000Z" \
	"the form opens with the recorded window"
tui_keys Escape
tui_wait "cancelled"   # the form closed (the page under it was on screen all along)
tui_step q q q
tui_wait "[exit 0]"; ok $? "q quits"
tui_stop
done_testing
