#!/bin/sh
# tests/sim-report.sh: the whole chain over real HTTP. aivet-sim stands in
# for a vendor whose disaggregated serving swaps oversized prompts for a
# placeholder; the vendor's answers (bundled questionnaire) say requests
# over the limit get an error and the KV cache is per tenant; the probes
# find otherwise; the signed report says so, and minisign and aivet verify it.
. "$TESTS_SRCDIR/lib.sh"
. "$TESTS_SRCDIR/sim-lib.sh"

sim_start --context 1048576 --pool 681280 --fault disagg-placeholder --tenants a=key-a,b=key-b
export KEY_A=key-a KEY_B=key-b
"$AIVET" vendor add lumen >/dev/null
"$AIVET" endpoint add lumen --name s --api openai --url "$SIM_URL/v1" --model m --context 1048576 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
"$AIVET" assess start lumen llm-inference-isolation >/dev/null
"$AIVET" assess answer 1 over_limit_behaviour error --note "per the vendor's FAQ" >/dev/null
"$AIVET" assess answer 1 kv_cache_scope per_tenant >/dev/null
"$AIVET" assess answer 1 errors_are_errors yes >/dev/null
run probe run lumen/s --probe oversize,sweep,canary,errors --yes
is "$rc" 1 "the probes ran and found problems (exit 1)"
"$AIVET" key generate --no-password >/dev/null

run report lumen --out "$T/b"
is "$rc" 0 "report of the live run"
R="$T/b/report.json"
is "$(jq -r '[.claims[] | .question_id + "=" + .status] | join(" ")' "$R")" \
	"kv_cache_scope=contradicted over_limit_behaviour=contradicted errors_are_errors=contradicted" \
	"claims in questionnaire order: no answer that the findings disprove is confirmed"
is "$(jq -r '.claims[] | select(.question_id == "errors_are_errors") | [.contradicting[].code] | unique | join(" ")' "$R")" \
	"PLACEHOLDER_SUBSTITUTION" "errors are errors: disproved by a prompt swapped behind a 200, whatever probe saw it"
like "$(jq -r '[.findings[].code] | join(" ")' "$R")" "LEAK_CROSS_TENANT" "the cross-tenant leak is a finding"
like "$(jq -r '[.findings[] | select(.code == "CLAIM_CONTRADICTED") | .severity] | unique | join(" ")' "$R")" "^high$" \
	"contradicted claims are high findings"
is "$(jq -r '.summary.rating' "$R")" unacceptable "the rating is unacceptable"
is "$(jq -r '.probe_runs[0].results[] | select(.probe=="sweep") | .details | [.advertised, .change] | map(tostring) | join(" ")' "$R")" \
	"1048576 silent_degradation" "the sweep saw silent degradation below the advertised context"
is "$(grep -c '<svg class="sweep-chart"' "$T/b/report.html")" 1 "and the HTML charts it"
is "$(grep -rl 'key-a\|key-b' "$T/b" | wc -l | tr -d ' ')" 0 "no credential in the bundle"
(cd "$T/b" && minisign -Vm SHA256SUMS -p aivet.pub >/dev/null 2>&1 && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1)
ok $? "minisign and sha256sum verify the bundle"
run verify "$T/b" --key aivet
is "$rc" 0 "aivet verify accepts it"
v=$(python3 "$TESTS_SRCDIR/oscal-validate.py" "$TESTS_SRCDIR/data/oscal_assessment-results_schema-1.0.6.json" "$T/b/oscal-assessment-results.json" 2>&1)
is "$v" "0 errors" "the OSCAL output of a live run validates"
sim_stop
done_testing
