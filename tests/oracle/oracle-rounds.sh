#!/bin/sh
# tests/oracle/oracle-rounds.sh: a final round with a newer draft beside it.
# The oracle recomputes rating_reads, each claim's status and the summary's
# claim counts: the final round's claims counted, the draft's contradicted
# ones apart (contradicted_not_rated), never twice over.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
. "$TESTS_SRCDIR/oracle/oracle-lib.sh"
make_fixture
python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"
"$AIVET" key generate --no-password >/dev/null

"$AIVET" report acme --out "$T/final" --at 2026-11-30T08:00:00Z >/dev/null && rc=0 || rc=$?
is "$rc" 0 "a report of the final round alone"
"$AIVET" vendor show acme --json >"$T/show.json"
"$AIVET" vendor list --json >"$T/list.json"
"$AIVET" vendor show acme >"$T/show.txt"
"$AIVET" vendor list >"$T/list.txt"
oracle_check report --bundle "$T/final" --db "$AIVET_DB" --vendor-show "$T/show.json" --vendor-list "$T/list.json" --vendor-show-text "$T/show.txt" --vendor-list-text "$T/list.txt" --all-runs

"$AIVET" --actor carol assess reopen 1 >/dev/null
"$AIVET" report acme --out "$T/draft" --at 2026-11-30T08:00:00Z >/dev/null && rc=0 || rc=$?
is "$rc" 0 "a report of the final round with a newer draft"
"$AIVET" vendor show acme --json >"$T/show.json"
"$AIVET" vendor list --json >"$T/list.json"
"$AIVET" vendor show acme >"$T/show.txt"
"$AIVET" vendor list >"$T/list.txt"
oracle_check report --bundle "$T/draft" --db "$AIVET_DB" --vendor-show "$T/show.json" --vendor-list "$T/list.json" --vendor-show-text "$T/show.txt" --vendor-list-text "$T/list.txt" --all-runs
is "$(jq -c '.summary.claims' "$T/draft/report.json")" \
	'{"confirmed":0,"contradicted":2,"untested":1,"consistent":1,"contradicted_not_rated":2}' \
	"the draft's two contradicted claims are counted apart"
done_testing
