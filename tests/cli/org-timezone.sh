#!/bin/sh
# tests/cli/org-timezone.sh: the organisation's time zone is the database's.
# An end-of-day deadline ends its day there, whoever runs the command and
# whatever --tz they give: three reports, with --tz Asia/Tokyo, none and
# --tz America/New_York, give the same instant. Until the database names a
# zone the deadline says it assumes UTC; report.json records the zone.
# An incident discovered on 31 December at 20:00 UTC is in 2026 in UTC and New
# York but in 2027 in Tokyo, so the zone decides the year of the HHS annual log.
. "$TESTS_SRCDIR/lib/lib.sh"

export AIVET_NOW=2027-01-02T00:00:00Z
"$AIVET" key generate --no-password >/dev/null
"$AIVET" vendor add acme >/dev/null
"$AIVET" incident open acme --title "Year end" --discovered 2026-12-31T20:00:00Z --phi yes \
	--individuals 40 --vendor-sla none >/dev/null

hhs() { jq -r '[(.organisation_timezone | tostring), (.incidents[0].clocks[] | select(.id == "hhs") | .due, .due_text)] | join("|")' "$1"; }
reports() { # reports NAME: three reports, with --tz Asia/Tokyo, none and America/New_York
	run --tz Asia/Tokyo report acme --out "$T/$1-tokyo"
	run report acme --out "$T/$1-none"
	run --tz America/New_York report acme --out "$T/$1-ny"
	printf '%s\n' "$(hhs "$T/$1-tokyo/report.json")" "$(hhs "$T/$1-none/report.json")" "$(hhs "$T/$1-ny/report.json")"
}

is "$(reports utc)" "null|2027-03-02T00:00:00.000Z|by 2027-03-01, end of day UTC (assumed: no zone set)
null|2027-03-02T00:00:00.000Z|by 2027-03-01, end of day UTC (assumed: no zone set)
null|2027-03-02T00:00:00.000Z|by 2027-03-01, end of day UTC (assumed: no zone set)" \
	"no zone set: the same instant with --tz Asia/Tokyo, none and America/New_York, UTC said to be assumed"
like "$(grep -F 'HIPAA notice to HHS' "$T/utc-none/report.md")" "by 2027-03-01, end of day UTC \(assumed: no zone set\)" \
	"report.md says so too"

"$AIVET" db timezone America/New_York >/dev/null
is "$(reports ny)" "America/New_York|2027-03-02T05:00:00.000Z|by 2027-03-01, end of day America/New_York
America/New_York|2027-03-02T05:00:00.000Z|by 2027-03-01, end of day America/New_York
America/New_York|2027-03-02T05:00:00.000Z|by 2027-03-01, end of day America/New_York" \
	"the database's zone New York: the end of 1 March there, whatever --tz"

"$AIVET" db timezone Asia/Tokyo >/dev/null
is "$(reports tokyo)" "Asia/Tokyo|2028-02-29T15:00:00.000Z|by 2028-02-29, end of day Asia/Tokyo
Asia/Tokyo|2028-02-29T15:00:00.000Z|by 2028-02-29, end of day Asia/Tokyo
Asia/Tokyo|2028-02-29T15:00:00.000Z|by 2028-02-29, end of day Asia/Tokyo" \
	"the database's zone Tokyo: discovered in 2027 there, so day 60 of 2028 (a leap year), whatever --tz"
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(details, ' ') FROM (SELECT details FROM audit_log WHERE action = 'db.timezone' ORDER BY seq)")" \
	'{"timezone":"America/New_York","previous":null} {"timezone":"Asia/Tokyo","previous":"America/New_York"}' \
	"each change of zone is in the audit log, with the zone it replaced"
run audit verify
is "$rc" 0 "and the chain verifies"
run db timezone
like "$out" "^organisation time zone Asia/Tokyo \(set by [^ ]+ at 20[0-9-]+T[0-9:.]+Z\): every end-of-day deadline ends there$" \
	"db timezone shows it, who set it and when"
run --tz America/New_York incident show 1
like "$out" "hhs +running +due by 2028-02-29, end of day Asia/Tokyo \(2028-02-29T15:00:00.000Z, 2028-03-01T00:00:00\+09:00 JST, 2028-02-29T10:00:00-05:00 EST\)" \
	"incident show: the organisation's clock, and the --tz one beside"
done_testing
