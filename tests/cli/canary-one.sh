#!/bin/sh
# canary-one.sh: one foreign canary is a cross-tenant leak. The simulator's
# stale pages always carry a request's three nonces together, so a response
# with a single canary of another tenant is served here by the OpenAI mock
# (MOCK_LEAK_TO): the first answer to tenant b's key once tenant a has sent
# codes repeats b's own and exactly one of a's; then (MOCK_LEAK_OWN), with one
# credential, an answer repeats one code of the same tenant's earlier request.
. "$TESTS_SRCDIR/lib/lib.sh"

: >"$T/mock.out"
MOCK_LEAK_TO=sk-mock-b-0123456789 python3 "$TESTS_SRCDIR/lib/openai-mock.py" "$T/requests.log" \
	>"$T/mock.out" 2>"$T/mock.err" &
MOCK=$!
_mock_stop() { kill "$MOCK" 2>/dev/null; wait "$MOCK" 2>/dev/null; }
_cleanup_hooks="$_cleanup_hooks _mock_stop"
i=0
while ! grep -q '^listening on ' "$T/mock.out" && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
URL=$(sed -n 's/^listening on //p' "$T/mock.out")
ok "$([ -n "$URL" ]; echo $?)" "the mock server listens"

export KEY_A=sk-mock-a-0123456789 KEY_B=sk-mock-b-0123456789
"$AIVET" vendor add M >/dev/null
"$AIVET" endpoint add M --name e --api openai --url "$URL/v1" --model o3-mini --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
run probe run M/e --probe canary --yes --json
is "$rc" 1 "the run fails"
is "$(printf '%s' "$out" | jq -r '[.probes[0].verdict, (.probes[0].findings[] | select(.code == "LEAK_CROSS_TENANT") | .message)] | join(" | ")')" \
	"fail | a response to tenant 'b' contained canaries that tenant 'a' sent" \
	"a single canary of tenant a in b's answer is LEAK_CROSS_TENANT, naming both tenants"
is "$(printf '%s' "$out" | jq -r '[.probes[0].findings[] | select(.code == "LEAK_CROSS_TENANT") | .evidence | length] | join(",")')" \
	"2" "citing b's response and a's request"

# One canary of the same tenant's other request: LEAK_CROSS_REQUEST.
_mock_stop
: >"$T/mock.out"
MOCK_LEAK_OWN=sk-mock-a-0123456789 python3 "$TESTS_SRCDIR/lib/openai-mock.py" "$T/requests.log" \
	>"$T/mock.out" 2>"$T/mock.err" &
MOCK=$!
i=0
while ! grep -q '^listening on ' "$T/mock.out" && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
URL=$(sed -n 's/^listening on //p' "$T/mock.out")
ok "$([ -n "$URL" ]; echo $?)" "the second mock server listens"
"$AIVET" endpoint add M --name one --api openai --url "$URL/v1" --model o3-mini --context 8192 \
	--credential a=env:KEY_A >/dev/null
run probe run M/one --probe canary --yes --json
is "$rc $(printf '%s' "$out" | jq -r '[.probes[0].verdict, (.probes[0].findings[] | .code + ": " + .message)] | join(" | ")')" \
	"1 fail | LEAK_CROSS_REQUEST: a response contained canaries of another request of the same tenant" \
	"a single canary of another request of the tenant is LEAK_CROSS_REQUEST, the only finding"
done_testing
