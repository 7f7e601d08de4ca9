#!/bin/sh
# tests/cli/unknown-facts.sh: unknown is not no. An incident opened without
# saying whether EU personal data is involved has the GDPR 72-hour clock
# running ("may apply") until EU data is ruled out; --eu-data takes yes, no or
# unknown, and each is recorded as such (true, false, null). The CLI, the
# report and the terminal UI at 80x24 say so.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
"$AIVET" vendor add acme >/dev/null
run incident open acme --title "Prompt log exposure" --discovered 2026-11-29T12:00:00Z --phi yes \
	--individuals 40 --vendor-sla none
is "$rc" 0 "an incident opened without --eu-data"
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.eu_data, (.clocks[] | select(.id == "gdpr-sa") | .applies, .state, .due, .basis)]')" \
	'[null,true,"running","2026-12-02T12:00:00.000Z","EU personal data unknown: may apply, assumed involved until ruled out (--eu-data no)"]' \
	"EU data unknown (null): the GDPR clock runs, 72 hours from discovery, and says it may apply"
run incident show 1
like "$out" "  eu data      unknown" "incident show: EU data unknown"
like "$out" "gdpr-sa +running +due 2026-12-02T12:00:00.000Z" "and the GDPR clock running"
run incident due --json
is "$(printf '%s\n' "$out" | jq -r '[.clocks[] | .clock] | join(" ")')" "gdpr-sa" "incident due lists it"

run incident edit 1 --eu-data maybe
is "$rc:$(printf '%s\n' "$errout" | head -1)" "2:aivet: --eu-data: 'maybe' is not yes, no or unknown" "a word other than yes, no or unknown is refused"
run incident edit 1 --eu-data no
is "$rc" 0 "EU data ruled out"
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.eu_data, (.clocks[] | select(.id == "gdpr-sa") | .applies, .state, .basis)]')" \
	'[false,false,"not-applicable","no EU personal data involved"]' "ruled out: the GDPR clock does not apply"
run incident edit 1 --eu-data unknown
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.eu_data, (.clocks[] | select(.id == "gdpr-sa") | .state)]')" '[null,"running"]' \
	"set back to unknown: the clock runs again"
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(json_extract(details, '\$.facts.eu_data') IS NULL, ',') || ' ' || group_concat(text, ' | ') FROM (SELECT details, text FROM incident_entry WHERE incident_id = 1 AND kind = 'decision' ORDER BY id)")" \
	"0,1 Set EU data no | Set EU data unknown" \
	"each change is a decision entry, unknown recorded as null"
run incident open acme --title "EU data" --discovered 2026-11-29T12:00:00Z --eu-data yes --phi no
run incident show 2 --json
is "$(printf '%s\n' "$out" | jq -c '[.eu_data, (.clocks[] | select(.id == "gdpr-sa") | .basis)]')" '[true,"EU personal data involved"]' \
	"--eu-data yes: involved"

"$AIVET" key generate --no-password >/dev/null
"$AIVET" report acme --out "$T/b" >/dev/null
like "$(cat "$T/b/report.md")" "Incident 1: Prompt log exposure
+Status new; severity 2 \(medium; 4 = most severe\); discovered 2026-11-29T12:00:00.000Z; PHI yes; 40 individuals; EU data unknown\." \
	"report.md: EU data unknown"
like "$(grep 'GDPR supervisory authority' "$T/b/report.md" | head -1)" "\| running \| 2026-12-02T12:00:00Z \| not stopped \| EU personal data unknown: may apply" \
	"report.md: the GDPR clock running, may apply"

tui_start 80x24
tui_wait "== Open incidents =="
tui_keys i
tui_wait "Incidents ("
tui_keys G Enter
tui_wait "Incident 1 (new)"
like "$(tui_screen)" "PHI: yes   EU data: unknown   Indiv" "80x24: the incident says EU data unknown, whole"
like "$(tui_screen)" "gdpr-sa +running +due 2026-12-02T12:00:00Z" "80x24: and the GDPR clock runs"
tui_stop
done_testing
