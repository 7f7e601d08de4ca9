#!/bin/sh
# sim-isolated.sh: one judging rule at a time. Each case runs the probes
# against a vendor that shows one signal alone (aivet-sim's faults
# usage-collapse, stale-decode, placeholder-blank, lose-middle,
# accept-oversize, streams-fail-after, bad-request-404, unknown-model-404
# and --failing, and a small shared-cache saving under --ttft-noise-ms), and
# asserts the exact verdicts, finding codes and severities, so that
# weakening that one rule fails the case named after it. tests/mutants/run
# weakens the rules and runs the cases that should notice;
# TEST_CASES="name ..." runs only those cases.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# severities: "CODE:severity ..." of every finding in the run JSON in $out, sorted.
severities() {
	printf '%s' "$out" | jq -r '[.probes[].findings[] | "\(.code):\(.severity)"] | unique | join(" ")'
}
# vendor SIM-ARGS...: aivet-sim with two tenants and V/e at an 8,192-token context.
vendor() {
	sim_start --context 8192 --tenants "$PROBE_TENANTS" "$@" || exit 1
	probe_setup openai 8192
}

# ---- usage collapse alone: large prompts reported as 1 token, answers whole ----
if case_on usage-collapse; then
	vendor --pool 8192 --fault usage-collapse
	run_probes
	is "$rc:$(per_probe)" \
	    "0:echo:pass[] oversize:pass[] sweep:fail[USAGE_ANOMALY] canary:fail[USAGE_ANOMALY] errors:pass[]" \
	    "rule usage-anomaly: usage of 1 token for a large prompt answered whole is USAGE_ANOMALY alone, never a substitution or a truncation"
	is "$(severities)" "USAGE_ANOMALY:medium" "usage collapse: medium"
	is "$(printf '%s' "$out" | jq -r '.calibration.method')" usage "usage collapse: small prompts' usage still calibrates"
	sim_stop
fi

# ---- stale memory alone: another tenant's content, none of its own nonces, honest usage ----
if case_on stale-decode; then
	vendor --pool 5324 --fault stale-decode
	run_probes --probe canary --concurrency 1
	is "$rc:$(per_probe)" "1:canary:fail[LEAK_CROSS_TENANT,PLACEHOLDER_SUBSTITUTION]" \
	    "rule substitution-by-content: another tenant's canaries and none of its own nonces, with honest usage, are PLACEHOLDER_SUBSTITUTION"
	is "$(severities)" "LEAK_CROSS_TENANT:critical PLACEHOLDER_SUBSTITUTION:critical" "stale decode: both critical"
	run_probes --probe sweep
	is "$rc:$(per_probe)" "1:sweep:fail[PLACEHOLDER_SUBSTITUTION]" \
	    "rule substitution-by-content: the sweep's top point answered from stale memory is a substitution"
	like "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
	    "were swapped for a placeholder: answered from content they did not contain" \
	    "stale decode: the substitution rests on the content, not on usage"
	sim_stop
fi

# ---- a placeholder over blank pages: no nonce, no leak, usage of 1 token ----
if case_on placeholder-blank; then
	vendor --pool 5324 --fault placeholder-blank
	run_probes --probe echo,sweep,canary
	is "$rc:$(per_probe)" \
	    "1:echo:pass[] sweep:fail[PLACEHOLDER_SUBSTITUTION] canary:fail[PLACEHOLDER_SUBSTITUTION]" \
	    "rule placeholder-usage: a large prompt answered without its nonces and reported as 1 token is PLACEHOLDER_SUBSTITUTION"
	like "$(printf '%s' "$out" | jq -r '.probes[1].findings[0].message')" \
	    "were swapped for a placeholder: answered without any of their nonces and reported as a handful of tokens" \
	    "placeholder blank: the substitution rests on usage"
	is "$(severities)" "PLACEHOLDER_SUBSTITUTION:critical" "placeholder blank: critical"
	sim_stop
fi

# ---- one nonce of three lost at the top of the context, usage honest ----
if case_on lose-middle; then
	vendor --pool 8192 --fault lose-middle
	run_probes
	is "$rc:$(per_probe)" \
	    "1:echo:pass[] oversize:pass[] sweep:fail[SILENT_TRUNCATION] canary:pass[] errors:pass[]" \
	    "rule sweep-every-nonce: one nonce of three lost is SILENT_TRUNCATION"
	like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
	    "lost content: 2 of 3 nonces came back" "lose middle: the finding says two of three came back"
	is "$(severities)" "SILENT_TRUNCATION:high" "lose middle: high"
	sim_stop
fi

# ---- a model that repeats nothing, prompts cut silently: usage alone shows the loss ----
if case_on usage-low-no-echo; then
	vendor --pool 5324 --fault truncate-head --model-behaviour paraphrase
	run_probes --probe echo,sweep
	is "$rc:$(per_probe)" "1:echo:inconclusive[] sweep:fail[SILENT_TRUNCATION]" \
	    "rule sweep-usage-low: usage well below the prompt sent is SILENT_TRUNCATION, with no nonce to go by"
	like "$(printf '%s' "$out" | jq -r '.probes[1].findings[0].message')" "lost content: 0 of 3 nonces came back, usage 53[0-9][0-9] of about" \
	    "usage low: the finding quotes the usage"
	sim_stop
fi

# ---- no answer at all: every connection closes mid-body ----
if case_on sweep-no-answer; then
	vendor --pool 8192 --fault close-mid-body
	run_probes --probe sweep
	is "$rc:$(per_probe)" "3:sweep:error[]" "rule sweep-no-answer: requests that got no answer make the sweep an error, never a pass"
	sim_stop
fi

# ---- oversize prompts accepted and answered whole ----
if case_on accept-oversize; then
	vendor --pool 32768 --fault accept-oversize
	run_probes
	is "$rc:$(per_probe)" \
	    "1:echo:pass[] oversize:fail[OVERSIZE_ACCEPTED] sweep:pass[] canary:pass[] errors:pass[]" \
	    "rule oversize-answered: an oversize prompt answered is OVERSIZE_ACCEPTED, never counted as refused"
	is "$(severities)" "OVERSIZE_ACCEPTED:high" "accept oversize: high"
	is "$(detail oversize '.classes')" '{"answered":4}' "accept oversize: four answered"
	sim_stop
	vendor --pool 32768 --fault accept-oversize,lose-middle
	run_probes --probe oversize
	is "$rc:$(per_probe)" "1:oversize:fail[OVERSIZE_ACCEPTED,SILENT_TRUNCATION]" \
	    "rule oversize-every-nonce: an accepted oversize prompt that lost one nonce of three is SILENT_TRUNCATION too"
	sim_stop
	vendor --pool 131072 --fault accept-oversize,no-usage
	run_probes --probe oversize
	is "$rc:$(per_probe)" "1:oversize:fail[OVERSIZE_ACCEPTED,USAGE_MISSING]" \
	    "rule oversize-usage-missing: an accepted oversize answer without usage is USAGE_MISSING too"
	sim_stop
fi

# ---- oversize passing only on judged prompts: one streamed prompt fails on the server ----
if case_on oversize-unjudged; then
	vendor --pool 8192 --fault streams-fail-after --fail-after 1
	run_probes --probe oversize
	is "$rc:$(per_probe)" "0:oversize:inconclusive[]" \
	    "rule oversize-all-judged: three refusals for size and a server error are not a pass"
	like "$(reason oversize)" "^not judged: 1 of [0-9]+ requests failed on the server \(HTTP 500" \
	    "oversize unjudged: the reason names the server error"
	sim_stop
fi

# ---- oversize: a refusal by policy (403) of the oversize prompts alone ----
# The gateway refuses every prompt over the context with 403 and serves the
# rest: a refusal, but not for size, so it says nothing of the context (not a
# pass, no finding), and the credential answers the other requests, so the run
# goes on to its end.
if case_on oversize-forbidden; then
	vendor --pool 8192 --fault oversize-forbidden
	run_probes --probe oversize
	# failed: its one probe ended in error; not error, the status of a run stopped
	# because a tenant's every request was refused for authentication.
	is "$rc:$(per_probe):$(printf '%s' "$out" | jq -r .status)" "3:oversize:error[]:failed" \
	    "rule oversize-refused-other: 403 on every oversize prompt alone is no pass and no finding, and stops no tenant"
	is "$(detail oversize '[.judged, .sent, .classes.refused_other]')" "[0,4,4]" \
	    "oversize forbidden: none of the four judged, all four refused for another reason"
	like "$(reason oversize)" "^every request was refused for authentication for tenant '(alice|bob)' \(HTTP 403 \(policy_violation\): This request is not permitted by your organization's policy\.\): check the credential$" \
	    "oversize forbidden: the reason quotes the vendor's refusal"
	answered=$(grep -c 'status=200' "$SIM_LOG")
	is "$(grep -c 'status=403' "$SIM_LOG") $([ "$answered" -gt 0 ] && echo answered)" "4 answered" \
	    "oversize forbidden: the vendor refused the four oversize prompts and answered the others ($answered)"
	sim_stop
fi

# ---- errors: a 5xx for bad input while valid requests succeed ----
if case_on errors-500-bad-input; then
	vendor --pool 8192 --fault malformed-500
	run_probes --probe errors
	is "$rc:$(per_probe):$(severities)" "0:errors:fail[SERVER_ERROR_ON_BAD_INPUT]:SERVER_ERROR_ON_BAD_INPUT:low" \
	    "rule errors-5xx-blames-input: alone (no calibration answered), the unknown model's answer shows valid requests succeed"
	sim_stop
	vendor --pool 8192 --fault malformed-500,unknown-model-404
	run_probes --probe errors
	is "$rc:$(per_probe)" "0:errors:fail[SERVER_ERROR_ON_BAD_INPUT]" \
	    "rule errors-unknown-model-refused-serves: a 4xx for the unknown model shows the server answers well-formed requests"
	is "$(detail errors '.unknown_model.status')" 404 "unknown model: refused with 404"
	sim_stop
fi

# ---- errors: a 5xx on everything blames no input ----
if case_on errors-500-everything; then
	vendor --pool 8192 --failing alice,bob
	run_probes --probe errors
	is "$rc:$(per_probe)" "0:errors:inconclusive[]" \
	    "rule errors-valid-requests-succeed: a server failing every request is not blaming the input"
	like "$(reason errors)" "^not judged: every request failed on the server \(HTTP 500" \
	    "5xx on everything: the reason says so"
	sim_stop
fi

# ---- errors: a 404 for bad requests judges nothing ----
if case_on errors-404; then
	vendor --pool 8192 --fault bad-request-404
	run_probes --probe errors
	is "$rc:$(per_probe)" "3:errors:error[]" "rule errors-404-judges-nothing: a 404 is not a valid refusal of bad input"
	like "$(reason errors)" "refused for a reason unrelated to the test \(HTTP 404" "404: the reason names the 404"
	sim_stop
fi

# ---- the load-break guard: a tenant failing with and without load ----
if case_on load-break-guard; then
	vendor --pool 8192 --failing bob
	run_probes --probe canary
	is "$rc:$(per_probe)" "0:canary:inconclusive[]" \
	    "rule load-break-guard: a tenant that fails without load too is no LOAD_BREAKS_OTHER_TENANT"
	like "$(reason canary)" "^tenant 'bob' got no answer to scan: not judged: every request failed on the server" \
	    "load-break guard: the reason names bob"
	sim_stop
fi

# ---- prefix-timing: fewer answered streams per group than the minimum ----
# The vendor reports no cached counts, so the timing path (and its minimum) decides.
if case_on prefix-min-answered; then
	export KEY_A=key-a KEY_B=key-b
	sim_start --tenants a=key-a,b=key-b --prefix-cache global --prefill-us-per-token 25 \
	    --fault streams-fail-after,no-cached-usage --fail-after 30 || exit 1
	run vendor add P
	run endpoint add P --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	    --context 131072 --credential a=env:KEY_A --credential b=env:KEY_B
	run probe run P/e --probe prefix-timing --yes --json
	is "$(printf '%s' "$out" | jq -c '.probes[0] | [.verdict, (.findings | length)]')" '["inconclusive",0]' \
	    "rule prefix-min-answered: six trials answered of thirty decide nothing, though the cache is shared"
	is "$(reason prefix-timing)" "too few answered streams to time: 6 primed, 6 control, 6 trials with both (at least 8 are needed)" \
	    "prefix min answered: the reason gives the counts and the minimum"
	sim_stop
fi

# ---- prefix-timing: a saving that only the p-value gate rejects ----
# aivet-sim's cache is shared and a hit saves about 13 ms (10 us a token), under
# seeded noise of each request's own (0-120 ms, paired sd about 49 ms): in 30
# trials the median paired saving is past the 1 ms gate about 9 times in 10
# while p is most often near 0.07, above the 0.0025 of one look; the budget stops the run after the
# first look. When the trials' order makes the median saving fall below its
# gate, or p below alpha, that run cannot show the p gate alone: the probe runs
# again, and after three such runs the case says so.
if case_on prefix-p-gate; then
	export KEY_A=key-a KEY_B=key-b
	sim_start --tenants a=key-a,b=key-b --prefix-cache global --prefill-us-per-token 10 \
	    --fault no-cached-usage --ttft-noise-ms 120 --seed 4 || exit 1
	run vendor add Gain
	run endpoint add Gain --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	    --context 131072 --credential a=env:KEY_A --credential b=env:KEY_B
	# Up to three runs (the simulator's noise goes on from one to the next): the case is
	# left untested about 1 time in 1,000 instead of 1 in 10.
	for try in 1 2 3; do
		run probe run Gain/e --probe prefix-timing --yes --json --budget-tokens 300000
		look=$(printf '%s' "$out" | jq -c '.probes[0].details | [.looks[0].p, .looks[0].median_saving_ms,
		    .min_saving_ms, .alpha_per_look]')
		printf '%s' "$look" | jq -e '.[1] >= .[2] and .[0] >= .[3]' >/dev/null && break
		echo "# run $try did not make the overlap ($look)"
	done
	if printf '%s' "$look" | jq -e '.[1] >= .[2] and .[0] >= .[3]' >/dev/null; then
		is "$(printf '%s' "$out" | jq -c '.probes[0] | [.verdict, (.findings | length), (.details.looks | length)]')" \
		    '["inconclusive",0,1]' \
		    "rule prefix-p-gate: a saving past the saving gate but not the p-value gate is no finding ($look)"
	else
		skip "could not create the overlap: the saving fell below its gate or p below alpha ($look)"
	fi
	sim_stop
fi

done_testing
