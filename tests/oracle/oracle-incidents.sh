#!/bin/sh
# tests/oracle/oracle-incidents.sh: incidents with unknown facts. The oracle
# recomputes every notification clock from the facts a report carries (the
# stricter case for each unknown: PHI involved, 500 or more individuals, EU
# data involved, the vendor's notice in 24 hours), stops from the timeline,
# the HHS annual date in the organisation's zone (UTC assumed before one is
# set, then America/New_York, which moves a New Year's Eve discovery back a
# year; a leap year's 29 February), and checks report.md and report.html
# show each due text.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/oracle/oracle-lib.sh"

export AIVET_NOW=2027-06-01T00:00:00Z
"$AIVET" vendor add acme >/dev/null
"$AIVET" incident open acme --title "All unknown" --discovered 2027-05-29T12:00:00Z >/dev/null
"$AIVET" incident open acme --title "Known, New Year's Eve" --discovered 2025-12-31T23:30:00-05:00 --phi yes \
	--individuals 40 --eu-data no --vendor-discovered 2025-12-30T10:00:00Z --vendor-sla 5d >/dev/null
"$AIVET" incident open acme --title "No PHI" --discovered 2027-05-01T08:00:00+01:00 --phi no --individuals 900 \
	--state-residents 300 --eu-data yes --vendor-sla none >/dev/null
"$AIVET" incident open acme --title "Few, leap year next" --discovered 2027-05-20T10:00:00Z --phi yes \
	--individuals 10 --state-residents 10 >/dev/null
"$AIVET" incident note 1 "told the authority" --kind notification-sent --clock gdpr-sa --at 2027-05-30T20:00:00Z >/dev/null
"$AIVET" incident note 2 "the vendor told us" --kind vendor-notice --at 2026-01-06T10:00:00Z >/dev/null
"$AIVET" incident note 2 "the vendor again" --kind vendor-notice --at 2026-01-07T10:00:00Z >/dev/null
"$AIVET" key generate --no-password >/dev/null

"$AIVET" report acme --out "$T/utc" --at 2027-06-01T00:00:00Z >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report with no organisation zone"
oracle_check report --bundle "$T/utc" --db "$AIVET_DB"
is "$(jq -r '[.incidents[] | .clocks[] | select(.id == "hhs") | .due_date // "-"] | join(" ")' "$T/utc/report.json")" \
	"- 2027-03-01 - 2028-02-29" "HHS: with the individuals' notice when unknown, by 1 March (UTC year 2026), none without PHI, 29 February 2028"

"$AIVET" db timezone America/New_York >/dev/null
"$AIVET" report acme --out "$T/ny" --at 2027-06-01T00:00:00Z >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report with the organisation in America/New_York"
oracle_check report --bundle "$T/ny" --db "$AIVET_DB"
is "$(jq -r '.incidents[1].clocks[] | select(.id == "hhs") | .due_text' "$T/ny/report.json")" \
	"by 2026-03-01, end of day America/New_York" "discovered on 31 December in New York: the year before UTC's"

"$AIVET" report acme --incident 1 --out "$T/one" --at 2027-06-01T00:00:00Z >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report of incident 1 alone"
oracle_check report --bundle "$T/one" --db "$AIVET_DB"
is "$(jq -c '[.incidents[].id]' "$T/one/report.json")" "[1]" "it holds that incident"
done_testing
