#!/bin/sh
# tests/oracle/oracle-demo.sh: the demo's database (an engine finding, a
# sweep and canary run with cross-tenant leaks, then the fixed configuration)
# read by the oracle: once over every run (everything superseded by the fixed
# run, the CLI agreeing), once over the first two runs (the leaks open, each
# cited response holding another tenant's canary).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/oracle/oracle-lib.sh"

DB="$T/demo.db"
"$AIVET" demo --quick --db "$DB" >"$T/demo.out" 2>&1 && rc=0 || rc=$?
is "$rc" 0 "aivet demo --quick builds the scenario"
"$AIVET" key generate --no-password >/dev/null

"$AIVET" --db "$DB" report demo-vendor --out "$T/all" >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report over every run is written"
"$AIVET" --db "$DB" vendor show demo-vendor --json >"$T/show.json"
"$AIVET" --db "$DB" vendor list --json >"$T/list.json"
"$AIVET" --db "$DB" vendor show demo-vendor >"$T/show.txt"
"$AIVET" --db "$DB" vendor list >"$T/list.txt"
oracle_check report --bundle "$T/all" --db "$DB" --vendor-show "$T/show.json" --vendor-list "$T/list.json" --vendor-show-text "$T/show.txt" --vendor-list-text "$T/list.txt" --all-runs
is "$(jq -r '.summary.rating' "$T/all/report.json") $(jq '.superseded_findings | length' "$T/all/report.json")" "acceptable 4" \
	"the fixed run supersedes the four findings"

"$AIVET" --db "$DB" report demo-vendor --runs 1,2 --out "$T/leak" >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report over the faulty runs is written"
oracle_check report --bundle "$T/leak" --db "$DB"
is "$(jq -r '[.findings[].code] | join(" ")' "$T/leak/report.json")" \
	"KV_POOL_BELOW_CONTEXT PLACEHOLDER_SUBSTITUTION LEAK_CROSS_TENANT PLACEHOLDER_SUBSTITUTION" \
	"the faulty runs' findings are open (the oracle checked the leak's evidence)"
done_testing
