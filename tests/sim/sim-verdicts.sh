#!/bin/sh
# sim-verdicts.sh: what each probe concludes against aivet-sim configured with
# one ordinary misbehaviour at a time, from real probe runs over loopback:
# exact verdicts per probe, exact finding codes per probe (so a wrong one is
# as visible as a missing one), the exit status and the words of the reasons.
# Each judging rule is named in the description of the test that pins it, so
# a weakened rule (a comparison reversed, a threshold loosened, a branch
# removed) fails a test that says which rule it was.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# ---- a correct vendor: everything passes on judged evidence ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" "0:echo:pass[] oversize:pass[] sweep:pass[] canary:pass[] errors:pass[]" \
    "correct: every probe passes, no finding, exit 0"
is "$(detail echo '[.judged, .classes]')" '[2,{"answered":2}]' "correct: echo judged its two answers"
is "$(detail oversize '[.judged, .classes]')" '[4,{"refused_size":4}]' \
    "correct: oversize judged four refusals for size"
is "$(reason oversize)" "every oversize prompt was refused for size (4 of 4 judged)" \
    "correct: the oversize pass says what it rested on"
is "$(detail canary '[.per_tenant[] | [.tenant, .judged > 0, .sent]]')" '[["alice",true,6],["bob",true,6]]' \
    "canary symmetry: both tenants sent canaries and got answers scanned"
is "$(q "SELECT group_concat(tenant || ':' || n, ' ') FROM (SELECT tenant, count(*) n FROM exchange
    WHERE probe = 'canary' AND request_size > 10000 GROUP BY tenant ORDER BY tenant)")" "alice:2 bob:2" \
    "canary symmetry: each tenant took the pressure role (a near- and an over-limit prompt each)"
is "$(q "SELECT count(DISTINCT tenant) FROM exchange WHERE probe = 'canary' AND request_blob IN
    (SELECT sha256 FROM blob WHERE instr(CAST(data AS TEXT), 'Shared instructions follow.') > 0)")" 2 \
    "canary symmetry: both tenants sent the shared opening"
is "$(q "SELECT count(*) FROM exchange WHERE probe = 'echo'") $(q "SELECT count(*) FROM evidence e JOIN exchange x
    ON x.evidence_id = e.id JOIN blob b ON b.sha256 = e.sha256
    WHERE json_extract(CAST(b.data AS TEXT), '$.outcome') = 'answered' AND x.probe = 'echo'")" "2 2" \
    "outcome class recorded in each exchange's evidence document"
sim_stop

# ---- a small context: calibration from samples that fit ----
sim_start --context 2048 --pool 2048 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 2048
run_probes --probe echo
is "$rc:$(per_probe):$(printf '%s' "$out" | jq -c '[.calibration.method, [.calibration.samples[].units]]')" \
    '0:echo:pass[]:["usage",[76,307]]' \
    "rule small-context-calibration: at 2,048 tokens the samples shrink to fit and usage still calibrates"
sim_stop

# ---- a revoked key for one tenant: fail fast, name the tenant, never pass ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --revoked bob || exit 1
probe_setup openai 8192
run_probes
is "$rc" 3 "revoked bob: exit 3"
is "$(per_probe)" "echo:pass[] oversize:pass[] sweep:pass[] canary:error[] errors:error[]" \
    "rule auth-never-passes: revoked bob: canary error (not pass), errors not run"
like "$errout" "^aivet: run 1 stopped: every request of tenant 'bob' was refused for authentication \(HTTP 401 \(invalid_api_key\): .*\): check the credential$" \
    "revoked bob: the run stops naming the tenant and the credential"
like "$(reason canary)" "^tenant 'bob' got no answer to scan: every request was refused for authentication for tenant 'bob' \(HTTP 401" \
    "rule canary-needs-each-receiver: the canary reason names bob"
is "$(detail canary '.per_tenant[] | select(.tenant == "bob") | [.judged, .classes]')" '[0,{"refused_other":2}]' \
    "revoked bob: bob's two canaries were refused_other, none judged"
is "$(q "SELECT count(*) FROM exchange WHERE tenant = 'bob'")" 2 \
    "rule auth-fail-fast: a credential refused and never accepted is not tried again"
like "$(reason errors)" "^not run: every request of tenant 'bob' was refused for authentication" \
    "revoked bob: the probes left are recorded as not run, with the reason"
sim_stop

# ---- every key revoked: nothing passes, almost nothing is sent ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --revoked alice,bob || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" "3:echo:error[] oversize:error[] sweep:error[] canary:error[] errors:error[]" \
    "rule auth-never-passes: every key revoked: every probe error, exit 3"
is "$(q "SELECT count(*) FROM exchange")" 1 "rule auth-fail-fast: every key revoked: one calibration request, then nothing"
is "$(printf '%s' "$out" | jq -r '.status')" error "every key revoked: the run's status is error"
sim_stop

# The errors probe alone (no calibration) with a revoked key: a 401 is not a 4xx for bad input.
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --revoked alice || exit 1
probe_setup openai 8192
run_probes --probe errors
is "$rc:$(per_probe)" "3:errors:error[]" "rule errors-auth-judges-nothing: a 401 never makes the errors probe pass"
like "$(reason errors)" "^every request was refused for authentication for tenant 'alice' \(HTTP 401" \
    "revoked key, errors: the reason names the tenant"
is "$(detail errors '[.judged, .sent, .classes]')" '[0,4,{"refused_other":4}]' \
    "revoked key, errors: nothing judged; all 4 sent, the unknown model recorded but never judged"
sim_stop

# ---- disagg-placeholder: the incident, attributed in both directions ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" \
    "1:echo:pass[] oversize:pass[] sweep:fail[PLACEHOLDER_SUBSTITUTION] canary:fail[LEAK_CROSS_TENANT,PLACEHOLDER_SUBSTITUTION] errors:pass[]" \
    "disagg: exact findings per probe, exit 1"
# Each leak names the tenant whose request held the nonce and the one whose answer showed it.
printf '%s' "$out" | jq -r '.probes[] | select(.name == "canary") | .details.leaks[] | select(.other_tenant) |
    "\(.nonce) \(.owner_tenant) \(.found_by) \(.found_in)"' >"$T/leaks"
bad=0 nleaks=0
while read -r nonce owner finder found_in; do
	nleaks=$((nleaks + 1))
	[ "$(q "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.request_blob
	    WHERE x.tenant = '$owner' AND instr(CAST(b.data AS TEXT), '$nonce') > 0")" -gt 0 ] || bad=$((bad + 1))
	[ "$(q "SELECT tenant FROM exchange WHERE evidence_id = $found_in")" = "$finder" ] && [ "$finder" != "$owner" ] ||
	    bad=$((bad + 1))
done <"$T/leaks"
ok "$([ "$nleaks" -gt 0 ] && [ "$bad" = 0 ] && echo 0 || echo 1)" \
    "rule leak-attribution: each of $nleaks cross-tenant leaks names the tenant that sent the nonce and the other that received it"
run_probes --probe sweep --depth diagnose
like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
    "were swapped for a placeholder: answered (from content they did not contain|without any of their nonces and reported as a handful of tokens)" \
    "disagg: the substitution says what showed it"
sim_stop

# ---- the leak from the last tenant to the first: one request at a time, each tenant's
# near-limit prompt is swapped for memory holding the other tenant's canaries ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
run_probes --probe canary --concurrency 1
is "$rc:$(per_probe)" "1:canary:fail[LEAK_CROSS_TENANT,PLACEHOLDER_SUBSTITUTION]" "last to first: exact findings, exit 1"
is "$(printf '%s' "$out" | jq -r '.probes[0].details | [.leaks[] | select(.other_tenant) | "\(.owner_tenant)->\(.found_by)"] | unique | join(" ")')" \
    "alice->bob bob->alice" "rule every-tenant-takes-the-pressure-role: both directions, the leak from bob (last) to alice (first) too"
like "$(printf '%s' "$out" | jq -r '.probes[0].findings[] | select(.code == "LEAK_CROSS_TENANT") | .message')" \
    "^a response to tenant 'alice' contained canaries that tenant 'bob' sent; a response to tenant 'bob' contained canaries that tenant 'alice' sent\$" \
    "rule shared-memory-is-cross-tenant: attributed both ways, each message kept; the same tenant's canaries in the swapped prompts are no LEAK_CROSS_REQUEST; the record names no command"
sim_stop

# ---- a prompt cache shared across tenants, with placeholders ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder --prefix-cache global || exit 1
probe_setup openai 8192
run_probes --probe canary
like "$rc:$(per_probe)" '^1:canary:fail\[(LEAK_CROSS_TENANT,)?PLACEHOLDER_SUBSTITUTION\]$' \
    "rule shared-memory-is-cross-tenant: global cache + placeholder: the substitution, never a same-tenant LEAK_CROSS_REQUEST"
sim_stop

# ---- a tokens-per-minute limit below the context: rate limits are not refusals for size ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --tpm-limit 4000 || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" "0:echo:pass[] oversize:inconclusive[] sweep:inconclusive[] canary:inconclusive[] errors:pass[]" \
    "rule rate-limit-is-not-capacity: TPM 429s make no CAPACITY_BELOW_ADVERTISED and no pass for oversize"
like "$(reason oversize)" "^not judged: rate-limited \(every request; HTTP 429 \(rate_limit_exceeded\): Request too large .* tokens per min .*\); lower prompt sizes with --max-prompt-tokens N, or raise the account's limit$" \
    "tpm: oversize says it was not judged, why, and how to lower sizes"
like "$(reason sweep)" "^judged up to about [0-9]+ tokens: not judged: rate-limited \(2 of 3 requests; HTTP 429" \
    "tpm: the sweep says up to which size it judged (verify: the top of the context twice, rate-limited, and a small streamed prompt)"
is "$(detail sweep '[.refusal_boundary, .change]')" '[null,"none"]' "tpm: no refusal boundary from rate limits"
is "$(reason canary)" "no leak in 12 responses (12 of 12 canary requests judged), but none of 2 tenants' near-limit load was answered or refused for size: leaks under load, the probe's central question, were not tested" \
    "tpm: no tenant's near-limit load answered: the canary's central part was not judged, never a pass"
is "$(q "SELECT count(DISTINCT seq) FROM exchange WHERE response_status = 429")" 2 \
    "rule rate-ceiling: a prompt no smaller than one that stayed rate-limited is not sent again (one per probe that found the limit)"
run probe run V/e --dry-run
is "$(printf '%s\n' "$out" | tail -n 1)" "  largest prompt about 16,384 tokens; under a lower tokens-per-minute limit, cap prompts with --max-prompt-tokens N" \
    "tpm: the plan says how to lower the sizes"
run probe run V/e --dry-run --max-prompt-tokens 3000 --json
is "$(printf '%s' "$out" | jq -c '[.largest_prompt_tokens, .max_prompt_tokens]')" '[3000,3000]' \
    "--max-prompt-tokens: the plan's largest prompt is the cap"
run_probes --probe oversize,sweep --max-prompt-tokens 3000 --depth diagnose
is "$rc:$(per_probe)" "0:oversize:inconclusive[] sweep:inconclusive[]" "tpm with --max-prompt-tokens 3000: nothing over the cap judged"
is "$(reason oversize)" "not judged: 4 prompts over the advertised 8192 tokens cannot be sent under --max-prompt-tokens 3000" \
    "rule max-prompt-tokens: prompts that must exceed the context are not sent under a lower cap"
is "$(reason sweep)" "judged up to the --max-prompt-tokens cap of 3000 tokens, where every accepted prompt was answered from its own content; sizes from 4096 to the advertised 8192 were not judged" \
    "--max-prompt-tokens: the sweep judged up to the cap and says so"
is "$(q "SELECT count(*) FROM exchange WHERE run_id = 2 AND response_status = 429")" 0 \
    "--max-prompt-tokens: no request over the cap reached the limit"
run_probes --probe sweep --depth diagnose
like "$(reason sweep)" "^judged up to about [0-9]+ tokens: not judged: rate-limited \([0-9]+ of 11 requests; HTTP 429" \
    "tpm, diagnose: the sweep says up to which size it judged"
sim_stop

# ---- usage always 1 prompt token: an anomaly, never a substitution, never bigger prompts ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault usage-one || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" \
    "0:echo:fail[USAGE_ANOMALY] oversize:pass[] sweep:fail[USAGE_ANOMALY] canary:fail[USAGE_ANOMALY] errors:fail[USAGE_ANOMALY]" \
    "rule substitution-needs-evidence: usage of 1 token with the nonces repeated is USAGE_ANOMALY, not PLACEHOLDER_SUBSTITUTION"
is "$(printf '%s' "$out" | jq -c '[.calibration.method, .calibration.rejected]')" \
    "[\"bounds\",[{\"method\":\"usage\",\"reason\":\"100 and 1100 words were counted as 1 and 1 tokens\"},{\"method\":\"tokenize\",\"reason\":\"not sent: $SIM_URL/tokenize is outside the endpoint's URL $SIM_URL/v1, where its credential may go\"}]]" \
    "rule calibration-plausible: usage of 1 token is rejected; /tokenize, beside the keys' /v1, is not asked: bounds size the prompts"
like "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "^usage said 1 prompt token for 64 filler words and three nonces, yet the answer repeated the prompt's own nonces$" \
    "usage-one: the anomaly says what contradicts it"
run_probes --probe sweep --depth diagnose
like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
    "^usage said 1 prompt token for [0-9]+ filler words and three nonces, yet the answer repeated the prompt's own nonces; usage said 1 prompt token for [0-9]+ filler words" \
    "rule distinct-messages-kept: a finding merged from several exchanges keeps each distinct message"
ok "$([ "$(q "SELECT max(request_size) FROM exchange")" -lt 131072 ] && echo 0 || echo 1)" \
    "rule usage-never-grows-prompts: no request body over 128 KiB at an 8,192-token context"
sim_stop

# ---- usage of 1 token and no count route: sizes by bounds ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault usage-one --no-count || exit 1
probe_setup openai 8192
run_probes --probe oversize
is "$rc:$(per_probe):$(printf '%s' "$out" | jq -c '[.calibration.method, .calibration.bounds]')" \
    '0:oversize:pass[]:["bounds",[1,4]]' "rule bounded-sizing: no usable count: sizes by bounds, oversize still refused"
is "$(reason oversize)" "every oversize prompt was refused for size (4 of 4 judged); sizes were bounded: no usable token count, so each prompt was over the context even at one token per word" \
    "bounded: the pass says the sizes were bounded"
sim_stop

# ---- one tenant's load fails another's requests ----
# Each large request holds the server until a request of the other tenant has
# met it (--neighbour-victims 1: the overlap on demand; the other tenant's
# requests are sent beside it), 5 s at most: the calibration's large prompt,
# sent alone, meets no one and waits that long. And every request that is not
# large waits up to 2 s for another tenant's large one (--neighbour-wait-ms):
# the others' requests travel on kept-alive connections and a busy machine
# could read and answer them all before the large one's upload, so that no
# request met it.
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault noisy-neighbour --neighbour-victims 1 \
    --neighbour-hold-ms 5000 --neighbour-wait-ms 2000 || exit 1
probe_setup openai 8192
run_probes --probe canary
# Whether a request met another tenant's load is the simulator's to say (its
# "busy" log line), not aivet's.
ok "$(grep -q ' busy: ' "$SIM_LOG"; echo $?)" "noisy neighbour: a request met another tenant's load (the sim says so)"
is "$rc:$(per_probe)" "0:canary:fail[LOAD_BREAKS_OTHER_TENANT]" \
    "rule load-breaks-other-tenant: valid requests failing under another tenant's load are a finding (medium)"
like "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "^a request of tenant '(alice|bob)' \(about [0-9]+ tokens\) failed \(HTTP (500|200) .*\) while tenant '(bob|alice)' had prompts near the context in flight" \
    "noisy neighbour: the message names both tenants"
lb=$(q "SELECT id FROM finding WHERE code = 'LOAD_BREAKS_OTHER_TENANT'")
is "$(q "SELECT count(DISTINCT x.tenant) FROM finding_evidence fe JOIN exchange x ON x.evidence_id = fe.evidence_id WHERE fe.finding_id = $lb")" 2 \
    "noisy neighbour: the evidence holds both sides"
sim_stop

# ---- no usage, no count route, about one token per word: sizes by bounds ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault no-usage --no-count --tokenizer words || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" "0:echo:pass[] oversize:pass[] sweep:pass[USAGE_MISSING] canary:pass[] errors:pass[]" \
    "rule bounded-sizing: a compact tokenizer without usage or count gets no OVERSIZE_ACCEPTED"
is "$(printf '%s' "$out" | jq -c '[.calibration.method, .calibration.bounds]')" '["bounds",[1,4]]' \
    "no count: the calibration says the sizes are bounded"
is "$(reason oversize)" "every oversize prompt was refused for size (4 of 4 judged); sizes were bounded: no usable token count, so each prompt was over the context even at one token per word" \
    "no count: the oversize pass says its sizes were bounded"
is "$(reason sweep)" "every accepted prompt was answered from its own content; sizes were bounded: no usable token count, so each prompt fit even at four tokens per word" \
    "no count: the sweep pass says its sizes were bounded"
sim_stop

# ---- a model that never repeats the prompt's text ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --model-behaviour paraphrase || exit 1
probe_setup openai 8192
run_probes
is "$rc:$(per_probe)" "0:echo:inconclusive[] oversize:pass[] sweep:pass[] canary:inconclusive[] errors:pass[]" \
    "rule canary-needs-echo-baseline: a model that repeats nothing leaves canary inconclusive, never pass"
is "$(reason canary)" "the model does not repeat text, so a leak could not show in its answers: 14 responses scanned, and no foreign canary in any raw body" \
    "paraphrase: the canary says why it could not judge"
is "$(reason sweep)" "every accepted prompt was answered from its own content (judged by usage only: the model does not repeat text)" \
    "paraphrase: the sweep pass says what it rested on"
sim_stop

# ---- a model that never repeats, with placeholders: suspected, on the evidence of usage ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --model-behaviour paraphrase --fault disagg-placeholder || exit 1
probe_setup openai 8192
run_probes --probe echo,sweep
is "$rc:$(per_probe)" "0:echo:inconclusive[] sweep:fail[USAGE_ANOMALY]" \
    "rule substitution-needs-evidence: without the echo baseline a collapsed usage is USAGE_ANOMALY, not PLACEHOLDER_SUBSTITUTION"
like "$(printf '%s' "$out" | jq -r '.probes[1].findings[0].message')" \
    "^usage said 1 prompt token for [0-9]+ filler words and three nonces \(the model does not repeat text: a swapped prompt is suspected, not shown\)" \
    "paraphrase + placeholder: the finding says what is suspected and on what evidence"
sim_stop

done_testing
