#!/bin/sh
# tests/oracle/oracle-budget.sh: cost plans with and without prices. The
# oracle recomputes each plan's totals from its probes and its cost as tokens
# times the price per million (none without prices), in the JSON and the text;
# after a run, the billed cost at the prices the plan kept; and the bundle of
# those runs as every report is read.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/oracle/oracle-lib.sh"

sim_start --context 4096 --pool 4096 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
"$AIVET" endpoint add V --name free --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB >/dev/null

for d in verify diagnose; do
	"$AIVET" probe run V/e --dry-run --depth $d >"$T/priced.txt" 2>&1
	"$AIVET" probe run V/e --dry-run --depth $d --json >"$T/priced.json"
	oracle_check plan --json "$T/priced.json" --text "$T/priced.txt" --price-in 3 --price-out 15
	"$AIVET" probe run V/free --dry-run --depth $d >"$T/free.txt" 2>&1
	"$AIVET" probe run V/free --dry-run --depth $d --json >"$T/free.json"
	oracle_check plan --json "$T/free.json" --text "$T/free.txt"
done
is "$(jq -c '[.tokens_in, .tokens_out, .cost_usd]' "$T/priced.json")" '[132341,3712,0.452703]' \
	"the diagnose plan the oracle priced: 132,341 in and 3,712 out at USD 3 and 15 per million"

"$AIVET" probe run V/e --yes >/dev/null 2>&1
"$AIVET" probe run V/free --yes >/dev/null 2>&1
for r in 1 2; do
	"$AIVET" probe show $r --json >"$T/show.json"
	"$AIVET" probe show $r >"$T/show.txt"
	oracle_check billed --show "$T/show.json" --text "$T/show.txt"
done
is "$(jq -c '[.billed.cost_usd, .plan.price_in_per_mtok]' "$T/show.json")" '[null,null]' "the unpriced run has no billed cost"

"$AIVET" key generate --no-password >/dev/null
"$AIVET" report V --out "$T/bundle" >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report of both runs is written"
"$AIVET" vendor show V --json >"$T/vshow.json"
"$AIVET" vendor list --json >"$T/vlist.json"
"$AIVET" vendor show V >"$T/vshow.txt"
"$AIVET" vendor list >"$T/vlist.txt"
oracle_check report --bundle "$T/bundle" --db "$AIVET_DB" --vendor-show "$T/vshow.json" --vendor-list "$T/vlist.json" --vendor-show-text "$T/vshow.txt" --vendor-list-text "$T/vlist.txt" --all-runs
done_testing
