#!/bin/sh
# sim-sizes.sh: prompt sizes and silent loss below the advertised context.
# A vendor advertising 8,192 tokens that silently keeps only the end of any
# prompt over 2,048 (aivet-sim's fault keep-end-under-context, HTTP 200,
# honest usage of what it kept) is found at the default depth: the sweep's
# prompt at the top of the context loses its first nonces. Its calibration
# sample over 2,048 tokens lost content too, so its usage is not taken for
# the prompt's size (bounds size the prompts: the count endpoint, /tokenize
# at the server root, is outside the keys' /v1), and nothing is
# reported as a capacity below the advertised one. The default depth's
# silent-loss check stays within 3x the context in tokens (the top of the
# context twice, to catch a fault on one request in 4 with 43% confidence, and
# a small streamed one).
# The calibration measures the recipe the probes send (filler, three nonces,
# the instruction), the fixed part apart from the words: under a tokenizer
# where a nonce is six tokens and a filler word about three (aivet-sim's
# "pieces"), and one where each is one token ("words"), the sweep's prompt at
# the top of the context is accepted at its first sending, under the context
# by the vendor's own count, and (where the count is exact) as many tokens as
# aivet made it.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

sim_start --context 8192 --pool 4096 --tenants "$PROBE_TENANTS" --fault keep-end-under-context || exit 1
# The fault itself: within the context, past 2,048 tokens, only the end is kept.
long="CANARY_head_000001 $(jq -nr '"filler words for the head " * 400') CANARY_tail_000001"
sim_http POST /v1/chat/completions -H "Authorization: Bearer $PROBE_KEY_ALICE" -d "$(chat_json "$long" 64)"
is "$status:$(printf '%s' "$body" | jq -c '[.usage.prompt_tokens, .choices[0].message.content]')" \
    '200:[2048,"CANARY_tail_000001"]' "keep-end-under-context: HTTP 200, the last 2,048 tokens kept and counted"

probe_setup openai 8192
is "$("$AIVET" probe run V/e --dry-run --json | jq -c '.probes[] | select(.name == "sweep") | [.requests, .tokens_in, .tokens_in <= 3 * 8192]')" \
    '[3,15973,true]' "verify: the sweep plans at most 3x the context in tokens: the top twice (7,946 each) and 1% streamed (81)"
run probe run V/e --yes --json
is "$rc" 1 "keep-end-under-context: findings, exit 1"
is "$(printf '%s' "$out" | jq -c '[.probes[] | select(.name == "sweep") | .findings[].code]')" \
    '["SILENT_TRUNCATION"]' "the default depth finds the silent truncation below the advertised context, and no capacity finding"
like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
    "^accepted prompts at the top of the context \(about [0-9]+ tokens, advertised 8192\) lost content: 1 of 3 nonces came back, usage 2048 of about [0-9]+ tokens sent$" \
    "the finding quotes the nonces kept and the vendor's usage"
is "$(printf '%s' "$out" | jq -c '[.calibration.method, .calibration.rejected[0].reason]')" \
    '["bounds","the larger sample lost content (2 of 3 nonces came back): its usage counts what was kept, not the prompt"]' \
    "the calibration does not take a cut sample's usage for its size"
is "$(codes)" "SILENT_TRUNCATION" "nothing else is reported"
sim_stop

# ---- the top of the context by the vendor's count ----
for tk in pieces words; do
	sim_start --context 2048 --tokenizer "$tk" --tenants "$PROBE_TENANTS" || exit 1
	probe_setup openai 2048
	run probe run V/e --yes --json
	is "$rc:$(codes)" "0:" "$tk: a vendor as advertised, no finding"
	top=$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | .details |
	    [.classes, .sent, (.points | max_by(.tokens_sent) | [.tokens_sent, .usage_prompt_tokens, .class])]')
	# shellcheck disable=SC2046
	set -- $(printf '%s' "$top" | jq -r '.[2] | "\(.[0]) \(.[1])"')
	is "$(printf '%s' "$top" | jq -c '[.[0], .[1], .[2][2]]')" '[{"answered":3},3,"answered"]' \
	    "$tk: the sweep's top prompt is accepted at its first sending, each of 2 times ($top)"
	ok "$([ "$2" -le 2048 ] && [ "$2" -ge $((2048 * 90 / 100)) ]; echo $?)" \
	    "$tk: the vendor counts it $2 tokens: under the context of 2048, and near it"
	is "$(printf '%s' "$out" | jq -c '.calibration | [.method, .sizes_followed, (.overhead_tokens > 20)]')" \
	    '["usage",null,true]' "$tk: the calibration measured the fixed part (nonces, instruction) apart; no size had to follow a refusal"
	if [ "$tk" = words ]; then
		is "$2" "$1" "words: the vendor's count is the size aivet made the prompt"
	fi
	sim_stop
done

done_testing
