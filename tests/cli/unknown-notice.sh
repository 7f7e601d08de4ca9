#!/bin/sh
# tests/cli/unknown-notice.sh: unknown is not no for the vendor's contractual
# notice time. An incident whose vendor never answered it (and none was
# given) keeps the vendor-sla clock running, due at the strictest time the
# questionnaires score as no risk (24 hours), saying the time is unknown and
# may apply; only a stated "none" (recorded as such, not as null) stops it,
# and a stated time replaces the assumption. incident show and due, report.md,
# report.html and report.json, and the terminal UI at 80x24 say the same.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
BASIS="contract: notice time unknown (not answered or given), may apply: assumed 24h, the strictest, until given (--vendor-sla), from the incident's discovery (the vendor's own discovery time is not recorded)"
"$AIVET" vendor add acme >/dev/null
run --actor alice incident open acme --title "Prompt log exposure" --discovered 2026-11-29T12:00:00Z \
	--phi no --eu-data no
is "$rc" 0 "an incident opened for a vendor that never answered its notice time"
is "$(sqlite3 "$AIVET_DB" "SELECT json_type(details, '\$.facts.vendor_sla') FROM audit_log WHERE action = 'incident.open'")" \
	null "recorded as unknown (null)"
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.clocks[] | select(.id == "vendor-sla") | .applies, .state, .start, .due, .basis]')" \
	"[true,\"running\",\"2026-11-29T12:00:00.000Z\",\"2026-11-30T12:00:00.000Z\",\"$BASIS\"]" \
	"incident show --json: the clock runs, due 24 hours from discovery, and says the time is unknown"
run incident show 1
is "$(printf '%s\n' "$out" | grep -A1 '^  vendor-sla ' | sed 's/^ *//')" "vendor-sla         running        due 2026-11-30T12:00:00.000Z (12h 00m left)
$BASIS" "incident show: running, and why"
run incident due --json
is "$(printf '%s\n' "$out" | jq -r '[.clocks[] | .clock + " " + .due] | join(",")')" "vendor-sla 2026-11-30T12:00:00.000Z" \
	"incident due lists it"
run incident due
like "$out" "1 +vendor-sla +2026-11-30T12:00:00Z +12h 00m +Prompt log exposure" "incident due's text too"

"$AIVET" key generate --no-password >/dev/null
"$AIVET" report acme --out "$T/b" >/dev/null
is "$(grep "^| Vendor's contractual notice " "$T/b/report.md")" \
	"| Vendor's contractual notice | running | 2026-11-30T12:00:00Z | not stopped | $BASIS |" "report.md"
is "$(grep -o "<tr><td>Vendor&#39;s contractual notice</td><td>[^<]*</td><td>[^<]*</td>" "$T/b/report.html")" \
	"<tr><td>Vendor&#39;s contractual notice</td><td>running</td><td>2026-11-30T12:00:00Z</td>" "report.html"
is "$(grep -c "contract: notice time unknown (not answered or given), may apply" "$T/b/report.html")" 1 "report.html: why"
is "$(jq -c '[.incidents[0].clocks[] | select(.id == "vendor-sla") | .state, .due, .basis]' "$T/b/report.json")" \
	"[\"running\",\"2026-11-30T12:00:00.000Z\",\"$BASIS\"]" "report.json"

# ---- 80x24: on the incident screen, and Enter on the clock ----
tui_start 80x24
tui_wait "== Open incidents =="
tui_keys i
tui_wait "Incidents ("
tui_keys G Enter
tui_wait "Incident 1 (new)"
like "$(tui_screen)" "vendor-sla +running +due 2026-11-30T12:00:00Z, 12h 00m left" "80x24: the clock runs on the incident screen"
tui_keys g j j j j Enter
tui_wait "Incident 1, clock vendor-sla"
is "$(tui_screen | sed 's/[[:space:]]*$//; s/^[> ] //' | sed -n '/^applies  /,/^due  /p')" "applies      yes
why          contract: notice time unknown (not answered or given), may apply:
  assumed 24h, the strictest, until given (--vendor-sla), from the incident's
  discovery (the vendor's own discovery time is not recorded)
rule         the vendor's questionnaire answer: notice within the stated time
  after it discovered the incident; stopped by a vendor-notice entry
started      2026-11-29T12:00:00.000Z
due          2026-11-30T12:00:00Z" "80x24: why, whole, wrapped"
tui_stop

# ---- the incident is not closed while the clock runs; it says how it stops ----
for st in investigating contained; do "$AIVET" incident status 1 "$st" >/dev/null; done
"$AIVET" incident note 1 "fixed and checked" --kind verification >/dev/null
"$AIVET" incident status 1 resolved >/dev/null
run incident status 1 closed
is "$rc:$errout" "2:aivet: incident 1 cannot be closed: clock vendor-sla is still running (due 2026-11-30T12:00:00.000Z); record the vendor's notice with 'aivet incident note 1 TEXT --kind vendor-notice', or, if the contract has no notice time, 'aivet incident edit 1 --vendor-sla none'" \
	"closing with the notice time unknown: refused, naming both ways to stop the clock"

# ---- only a stated none stops it; a stated time replaces the assumption ----
run --actor alice incident edit 1 --vendor-sla none
is "$rc" 0 "the contract has none: said"
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.clocks[] | select(.id == "vendor-sla") | .applies, .state, .basis]')" \
	'[false,"not-applicable","no contractual notification time (stated none, set by alice with incident edit)"]' \
	"a stated none: the clock does not apply, and says who stated it"
run --actor alice incident edit 1 --vendor-sla 72h
run incident show 1 --json
is "$(printf '%s\n' "$out" | jq -c '[.clocks[] | select(.id == "vendor-sla") | .state, .due]')" \
	'["running","2026-12-02T12:00:00.000Z"]' "a stated 72h: due 72 hours from discovery"
run --actor alice incident open acme --title "No SLA" --discovered 2026-11-29T12:00:00Z --phi no --eu-data no \
	--vendor-sla none
is "$(sqlite3 "$AIVET_DB" "SELECT json_extract(details, '\$.facts.vendor_sla') FROM audit_log WHERE action = 'incident.open' AND object_id = 2")" \
	none "--vendor-sla none at opening: recorded as none, not as unknown"
run incident show 2 --json
is "$(printf '%s\n' "$out" | jq -c '[.clocks[] | select(.id == "vendor-sla") | .applies, .basis]')" \
	'[false,"no contractual notification time (stated none, given with incident open by alice)"]' \
	"and its clock does not apply"
done_testing
