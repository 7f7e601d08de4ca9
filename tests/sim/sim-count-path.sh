#!/bin/sh
# sim-count-path.sh: every request of a run that carries a credential stays
# within the endpoint's URL, origin and path, as its writer bound the key. An
# OpenAI-style server's /tokenize is at its root, beside /v1: with a key bound
# to .../v1 the calibration's count is not sent there and the run calibrates
# by bounds instead, saying why. Without a credential nothing is bound and
# /tokenize is asked as before. aivet-sim logs every request it receives.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=sk-count-a-0123456789
sim_start --context 8192 --pool 8192 --tenants "a=$KEY_A" --fault no-usage || exit 1
run vendor add V
run endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A
run probe run V/e --probe echo --yes --json
is "$rc" 0 "a run with a key bound to $SIM_URL/v1 and no usage in the answers completes"
is "$(printf '%s' "$out" | jq -c '[.calibration.method, .calibration.rejected]')" \
	"[\"bounds\",[{\"method\":\"tokenize\",\"reason\":\"not sent: $SIM_URL/tokenize is outside the endpoint's URL $SIM_URL/v1, where its credential may go\"}]]" \
	"the count at the server root is not asked: calibrated by bounds, the reason recorded"
is "$(grep -c '^aivet-sim: #[0-9]* POST /tokenize' "$SIM_LOG")" 0 "the simulator received no /tokenize request"
is "$(grep '^aivet-sim: #' "$SIM_LOG" | grep -vc ' /v1/')" 0 "every request it received was under /v1"
sim_stop

# Without a credential there is no key to keep within the path.
sim_start --context 8192 --pool 8192 --fault no-usage || exit 1
run endpoint add V --name open --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192
run probe run V/open --probe echo --yes --json
is "$rc $(printf '%s' "$out" | jq -r '.calibration.method')" "0 tokenize" \
	"an endpoint without a credential is calibrated by /tokenize"
is "$(grep -c '^aivet-sim: #[0-9]* POST /tokenize tenant=default status=200' "$SIM_LOG")" 2 \
	"the two samples were counted there"
sim_stop
done_testing
