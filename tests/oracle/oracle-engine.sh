#!/bin/sh
# tests/oracle/oracle-engine.sh: engine and cache-extract findings. One
# aivet-sim node runs decode with a KV pool below the advertised context and a
# prefix cache shared by every tenant; a run of the engine and cache-extract
# probes finds both; the isolation questionnaire's answers that the cache is
# per tenant are contradicted. The oracle reads the report of a final round
# and of its reopened draft: counts, rating, claims and cited evidence.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/oracle/oracle-lib.sh"

export KEY_A=key-a KEY_B=key-b KEY_C=key-c
sim_start --tenants a@acme=key-a,b@acme=key-b,c@other=key-c --context 131072 --pool 65536 \
	--engine-mode decode --prefix-cache global --page-size 16 || exit 1
"$AIVET" vendor add X >/dev/null
"$AIVET" endpoint add X --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	--context 131072 --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C \
	--credential-org a=acme --credential-org b=acme --credential-org c=other \
	--price-in 2.5 --price-out 10 --engine sglang --engine-url "$SIM_URL" >/dev/null
"$AIVET" probe run X/e --probe engine,cache-extract --yes --json >"$T/run.json" 2>/dev/null && rc=0 || rc=$?
is "$rc $(jq -r '[.probes[] | .findings[] | "\(.code):\(.severity)"] | join(" ")' "$T/run.json")" \
	"1 KV_POOL_BELOW_CONTEXT:critical PREFIX_CACHE_CONTENT_RECOVERED:critical" "the run finds the pool and the shared cache"

"$AIVET" key generate --no-password >/dev/null
approver_key bob
"$AIVET" assess start X llm-inference-isolation >/dev/null
"$AIVET" assess answer 1 kv_cache_scope per_tenant >/dev/null
"$AIVET" assess answer 1 cache_isolation_tested yes >/dev/null
for qa in kv_pages_exposed=no context_capacity_check=every_node_every_change over_limit_behaviour=error \
	release_tests_inspect_content=content pd_disaggregated=yes prompt_logging=metadata_only \
	training_on_customer_data=no exposure_notification_time=24h exposure_notification_channel=direct \
	past_cross_tenant_incidents=no kv_transfer_checked=yes log_retention=30d; do
	"$AIVET" assess answer 1 "${qa%%=*}" "${qa#*=}" >/dev/null
done
"$AIVET" assess submit 1 >/dev/null
run --actor bob assess approve 1
is "$rc:$errout" "0:" "the round is submitted and approved by another"
"$AIVET" report X --out "$T/final" >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report of the final round"
"$AIVET" vendor show X --json >"$T/show.json"
"$AIVET" vendor list --json >"$T/list.json"
"$AIVET" vendor show X >"$T/show.txt"
"$AIVET" vendor list >"$T/list.txt"
oracle_check report --bundle "$T/final" --db "$(oracle_db)" --vendor-show "$T/show.json" --vendor-list "$T/list.json" --vendor-show-text "$T/show.txt" --vendor-list-text "$T/list.txt" --all-runs
is "$(jq -c '.summary.claims' "$T/final/report.json")" \
	'{"confirmed":1,"contradicted":2,"untested":3,"consistent":0,"contradicted_not_rated":0}' \
	"the cache scope falls to the recovery, the capacity check to the pool; the decode node confirms disaggregation; three claims no probe here tests (process answers have none)"

run --actor carol assess reopen 1
"$AIVET" report X --out "$T/draft" >/dev/null && rc=0 || rc=$?
is "$rc" 0 "the report with a newer draft"
"$AIVET" vendor show X --json >"$T/show.json"
"$AIVET" vendor list --json >"$T/list.json"
"$AIVET" vendor show X >"$T/show.txt"
"$AIVET" vendor list >"$T/list.txt"
oracle_check report --bundle "$T/draft" --db "$(oracle_db)" --vendor-show "$T/show.json" --vendor-list "$T/list.json" --vendor-show-text "$T/show.txt" --vendor-list-text "$T/list.txt" --all-runs
is "$(jq -c '[.summary.claims.contradicted, .summary.claims.contradicted_not_rated]' "$T/draft/report.json")" '[2,2]' \
	"the draft's two contradicted claims are counted apart"
done_testing
