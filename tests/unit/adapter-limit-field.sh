#!/bin/sh
# adapter-limit-field.sh: an endpoint that refuses max_tokens by name (as
# OpenAI's o-series models do) is switched to max_completion_tokens once,
# its refused requests are sent again, the switch is kept in the run's
# calibration, and the probes judge real answers, not the refusals.
. "$TESTS_SRCDIR/lib/lib.sh"

: >"$T/mock.out"
python3 "$TESTS_SRCDIR/lib/openai-mock.py" "$T/requests.log" >"$T/mock.out" 2>"$T/mock.err" &
MOCK=$!
_mock_stop() { kill "$MOCK" 2>/dev/null; wait "$MOCK" 2>/dev/null; }
_cleanup_hooks="$_cleanup_hooks _mock_stop"
i=0
while ! grep -q '^listening on ' "$T/mock.out" && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
URL=$(sed -n 's/^listening on //p' "$T/mock.out")
ok "$([ -n "$URL" ]; echo $?)" "the mock o-series server listens"

export MOCK_KEY=sk-mock-0123456789
"$AIVET" vendor add O >/dev/null
"$AIVET" endpoint add O --name o3 --api openai --url "$URL/v1" --model o3-mini --context 8192 \
	--credential t=env:MOCK_KEY >/dev/null
run probe run O/o3 --yes --probe echo --json
is "$rc" 0 "the run completes (exit 0)$errout"
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict')" pass "echo is judged on real answers: pass"
is "$(printf '%s' "$out" | jq -c '.calibration.output_limit_field | [.from, .to, .reason]')" \
	'["max_tokens","max_completion_tokens","Unsupported parameter: '"'"'max_tokens'"'"' is not supported with this model. Use '"'"'max_completion_tokens'"'"' instead."]' \
	"the switch is kept in the calibration, with the API's words"
ev=$(printf '%s' "$out" | jq -r '.calibration.output_limit_field.evidence')
is "$(sqlite3 "$AIVET_DB" "SELECT response_status FROM exchange WHERE evidence_id = $ev")" 400 \
	"the switch names the refused exchange as its evidence"
is "$(printf '%s' "$out" | jq -r '.calibration.method')" usage "calibrated by usage after the switch"
# Refused with max_tokens, then only max_completion_tokens: switched once.
first=$(grep -n max_completion_tokens "$T/requests.log" | head -n 1 | cut -d: -f1)
is "$(head -n $((first - 1)) "$T/requests.log" | grep -cw max_tokens)" "$((first - 1))" \
	"every request before the switch carried max_tokens"
is "$(tail -n +"$first" "$T/requests.log" | grep -cw max_tokens)" 0 \
	"no request after the switch carries max_tokens"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE response_status = 400")" "$((first - 1))" \
	"each refused attempt is recorded as evidence"

# A user's own choice is kept: no switch against --option max-tokens-field.
"$AIVET" endpoint add O --name pinned --api openai --url "$URL/v1" --model o3-mini --context 8192 \
	--option max-tokens-field=max_tokens --credential t=env:MOCK_KEY >/dev/null
run probe run O/pinned --yes --probe echo --json
is "$(printf '%s' "$out" | jq -r '.calibration.output_limit_field')" null \
	"a field the user chose is never switched"
isnt_pass=$(printf '%s' "$out" | jq -r '.probes[0].verdict != "pass"')
is "$isnt_pass" true "and its refusals never make a pass"

# Azure 2024-10-21 defines neither stream_options nor max_completion_tokens:
# neither is sent, and the run says its streams carry no usage.
"$AIVET" endpoint add O --name az --api azure-openai --url "$URL" --model dep1 --context 8192 \
	--credential t=env:MOCK_KEY >/dev/null
n=$(wc -l <"$T/requests.log")
run probe run O/az --yes --probe echo --json
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict')" pass "azure 2024-10-21: echo passes"
is "$(tail -n +"$((n + 1))" "$T/requests.log" | grep -c -e stream_options -e max_completion_tokens)" 0 \
	"azure 2024-10-21: no request carries stream_options or max_completion_tokens"
is "$(tail -n +"$((n + 1))" "$T/requests.log" | grep -c -w stream)" 1 "azure 2024-10-21: one request streamed"
is "$(printf '%s' "$out" | jq -r '.calibration.stream_usage')" \
	"none: streamed answers on this endpoint carry no usage (no stream_options); usage comes from its non-streamed answers" \
	"azure 2024-10-21: the run says where usage comes from"

# An unknown value is refused before anything is sent.
"$AIVET" endpoint add O --name bad --api openai --url "$URL/v1" --model o3-mini --context 8192 \
	--option max-tokens-field=max_output_tokens --credential t=env:MOCK_KEY >/dev/null
n=$(wc -l <"$T/requests.log")
run probe run O/bad --yes --probe echo
is "$rc" 2 "an unknown max-tokens-field is bad input (exit 2)"
is "$errout" "aivet: endpoint O/bad: endpoint option max-tokens-field: 'max_output_tokens' is not max_completion_tokens or max_tokens" \
	"naming the option and its values"
is "$(wc -l <"$T/requests.log")" "$n" "nothing was sent"
done_testing
