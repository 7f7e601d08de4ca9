#!/bin/sh
# sim-claims.sh: a vendor's answers judged by real probe runs against
# aivet-sim, for three vendors: one that leaks (a placeholder reads other
# tenants' stale KV pages), one that refuses every request (both keys revoked)
# and a correct one. No answer that the findings disprove is confirmed, in
# assess show or in the signed report; nothing is confirmed on evidence that
# was never judged; a correct vendor's testable answers are confirmed.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# answer_all: the vendor's answers to every testable question, each claiming
# the safe behaviour.
answer_all() {
	"$AIVET" assess start V llm-inference-isolation >/dev/null || return 1
	for qa in kv_cache_scope=per_tenant kv_pages_exposed=no cache_isolation_tested=yes \
	    context_capacity_check=every_node_every_change over_limit_behaviour=error \
	    advertised_context_tokens=8192 guaranteed_context_tokens=6000 errors_are_errors=yes \
	    release_tests_inspect_content=content prompt_integrity=yes pd_disaggregated=yes \
	    kv_transfer_checked=yes cross_tenant_batching=dedicated; do
		"$AIVET" assess answer 1 "${qa%%=*}" "${qa#*=}" >/dev/null || return 1
	done
}
# claims: "question=status ..." of assess show, in questionnaire order.
claims() {
	"$AIVET" assess show 1 --json | jq -r '[.claims[] | "\(.question_id)=\(.status)"] | join(" ")'
}
# report_claims: the same from a signed report's report.json.
report_claims() {
	rm -rf "$T/rep"
	"$AIVET" report V --out "$T/rep" >/dev/null || return 1
	jq -r '[.claims[] | "\(.question_id)=\(.status)"] | join(" ")' "$T/rep/report.json"
}
"$AIVET" key generate --no-password >/dev/null

# ---- a vendor that leaks ----
sim_start --context 8192 --pool 5324 --fault disagg-placeholder --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
answer_all
run probe run V/e --yes --json
is "$rc" 1 "leaking: the probes find problems"
leak=$(claims)
is "$leak" "kv_cache_scope=contradicted kv_pages_exposed=contradicted \
context_capacity_check=contradicted over_limit_behaviour=contradicted advertised_context_tokens=consistent \
guaranteed_context_tokens=untested errors_are_errors=contradicted \
prompt_integrity=contradicted pd_disaggregated=untested kv_transfer_checked=contradicted cross_tenant_batching=untested" \
	"leaking: every answer the findings disprove is contradicted, none confirmed; prompts admitted up to the advertised context, content not intact: consistent, not confirmed"
# A number is judged by the sizes the evidence holds: the sweep sent 82 tokens
# (intact) and the top of the context (lost); 6,000 lies between, so neither.
gct() {
	"$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "guaranteed_context_tokens") | "\(.status): \(.reason)"'
}
top=$("$AIVET" probe show 1 --json | jq -r '[.probes[] | select(.name == "sweep") | .details.points[] | select(.accepted and .nonces_echoed < .nonces_total) | .tokens_sent] | min')
like "$top" '^[0-9]+$' "leaking: the sweep lost content at the top of the context"
is "$(gct)" "untested: probe sweep first lost content at $top tokens, not below the answered 6000 (within 1%), and measured no integrity_boundary: the evidence neither confirms nor disproves it" \
	"leaking: a guaranteed context below the first size that lost content is neither confirmed nor contradicted"
"$AIVET" assess answer 1 guaranteed_context_tokens $((top * 100 / 99 + 1)) >/dev/null
is "$(gct)" "contradicted: probe sweep lost content at $top tokens, under the answered $((top * 100 / 99 + 1))" \
	"leaking: one above the tolerance over the size that lost content is contradicted"
is "$("$AIVET" assess show 1 --json | jq -r '[.claims[] | select(.question_id == "guaranteed_context_tokens") | .contradicting[].code] | unique | join(" ")')" \
	"PLACEHOLDER_SUBSTITUTION" "leaking: and cites the sweep's finding at that size"
"$AIVET" assess answer 1 guaranteed_context_tokens $((top * 100 / 99)) >/dev/null
is "$(gct)" "untested: probe sweep first lost content at $top tokens, not below the answered $((top * 100 / 99)) (within 1%), and measured no integrity_boundary: the evidence neither confirms nor disproves it" \
	"leaking: at the tolerance's edge it is not"
"$AIVET" assess answer 1 guaranteed_context_tokens 6000 >/dev/null
like "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "advertised_context_tokens") | .reason')" \
	"^probe sweep saw prompts up to [0-9]+ tokens accepted, but content intact only up to [0-9]+: consistent with the answered [0-9]+, not confirmed$" \
	"leaking: the advertised context is confirmed only where the sweep found content intact up to it"
is "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "errors_are_errors") | [.contradicting[].code] | unique | join(" ")')" \
	"PLACEHOLDER_SUBSTITUTION" "leaking: errors are errors is disproved by the swapped prompt (a 200), whichever probe saw it, and not by the leak"
is "$(report_claims)" "$leak" "leaking: the signed report judges every claim as assess show does"
# Answering says the risk the rating counts, with the stated risk beside it.
run assess answer 1 kv_cache_scope per_request
run assess answer 1 kv_cache_scope per_tenant
is "$rc:$out" "0:question kv_cache_scope: per_tenant (risk high (stated low; contradicted by LEAK_CROSS_TENANT on V/e))" \
	"leaking: an answer the evidence contradicts is said at the risk the rating counts"
is "$("$AIVET" assess show 1 --json | jq -r '.questions[] | select(.id == "kv_cache_scope") | "\(.risk) \(.stated_risk)"')" "high low" \
	"leaking: as assess show counts it"
run assess answer 1 cross_tenant_batching shared_batches
is "$out" "question cross_tenant_batching: shared_batches (risk medium)" "leaking: an answer nothing contradicts says its risk alone"
run assess answer 1 cross_tenant_batching dedicated
sim_stop

# ---- a vendor that refuses everything ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --revoked alice,bob || exit 1
probe_setup openai 8192
answer_all
run probe run V/e --yes --json
is "$rc" 3 "refusing: every request refused for authentication ends the run, exit 3"
refused=$(claims)
# The claims listed by name (as the other two vendors list them): an empty list is no pass.
is "$refused" "kv_cache_scope=untested kv_pages_exposed=untested \
context_capacity_check=untested over_limit_behaviour=untested advertised_context_tokens=untested \
guaranteed_context_tokens=untested errors_are_errors=untested \
prompt_integrity=untested pd_disaggregated=untested kv_transfer_checked=untested cross_tenant_batching=untested" \
	"refusing: every claim is untested, none confirmed on evidence never judged"
like "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "over_limit_behaviour") | .reason')" \
	"^probe oversize has no completed run on V/e$" "refusing: with the reason (the run ended in error)"
is "$(report_claims)" "$refused" "refusing: the signed report judges every claim as assess show does"
sim_stop

# ---- a correct vendor ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --prefix-cache tenant \
    --prefill-us-per-token 25 || exit 1
probe_setup openai 8192
answer_all
run probe run V/e --yes --json --probe all,prefix-timing
is "$rc" 0 "correct: no finding"
correct=$(claims)
is "$correct" "kv_cache_scope=consistent kv_pages_exposed=consistent \
context_capacity_check=untested over_limit_behaviour=confirmed advertised_context_tokens=confirmed \
guaranteed_context_tokens=confirmed errors_are_errors=consistent \
prompt_integrity=consistent pd_disaggregated=untested kv_transfer_checked=untested cross_tenant_batching=untested" \
	"correct: every answer a probe can confirm in its scope is confirmed; the canary's at depth verify and the claims about every request only consistent; the others stay untested, never confirmed by silence"
is "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "prompt_integrity") | .reason')" \
	"every probe that tests it passed on the requests it sent; the answer is about every request, which a sample is consistent with but never confirms" \
	"correct: an 'always' answer is consistent with a sample, never confirmed by it"
# Process answers (what the vendor tests before a release) are not judged by
# probes: no claim, on the leaking vendor as on the correct one.
is "$("$AIVET" assess show 1 --json | jq -c '[.claims[] | select(.question_id == "cache_isolation_tested" or .question_id == "release_tests_inspect_content")] | length')" 0 \
	"correct: process answers have no claim"
is "$(printf '%s' "$leak" | grep -c 'cache_isolation_tested\|release_tests_inspect_content')" 0 "leaking: nor there"
is "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "kv_pages_exposed") | .reason')" \
	"probe canary passed at depth verify: consistent with the answer, which only a pass at depth diagnose (twice the canary rounds, under load) confirms" \
	"correct: a canary pass at depth verify says what it does not cover"
run probe run V/e --yes --json --probe canary --depth diagnose
is "$rc" 0 "correct: the canary at depth diagnose"
is "$(claims | tr ' ' '\n' | grep -E '^kv_(cache_scope|pages_exposed)=' | tr '\n' ' ')" "kv_cache_scope=confirmed kv_pages_exposed=confirmed " \
	"correct: a canary pass at depth diagnose confirms"
correct=$(claims)
is "$("$AIVET" assess show 1 --json | jq -r '.claims[] | select(.question_id == "kv_transfer_checked") | .reason')" \
	"no probe can confirm this answer; none of the findings that would contradict it was raised" \
	"correct: an answer only findings can test says so"
is "$(report_claims)" "$correct" "correct: the signed report judges every claim as assess show does"
# The vendor's stated number against the endpoint's own record of it.
adv() { "$AIVET" assess show 1 --json | jq -c '.claims[] | select(.question_id == "advertised_context_tokens") | [.endpoint_record, .record_mismatch, .reason]'; }
like "$(adv)" '^\[8192,false,"refusal_boundary intact up to at least [0-9]+, and no finding contradicts it"\]$' \
	"correct: the stated context matches the endpoint's record"
"$AIVET" assess answer 1 advertised_context_tokens 16384 >/dev/null
is "$(adv | jq -c '.[0:2]') $(adv | jq -r '.[2]' | grep -c "; the vendor states 16384, the endpoint's record says 8192$")" '[8192,true] 1' \
	"correct: a stated context that differs from the endpoint's record shows the mismatch"
rm -rf "$T/rep" && "$AIVET" report V --out "$T/rep" >/dev/null
is "$(jq -c '.claims[] | select(.question_id == "advertised_context_tokens") | [.endpoint_record, .record_mismatch]' "$T/rep/report.json")" '[8192,true]' \
	"correct: and so does the signed report"
sim_stop
done_testing
