#!/bin/sh
# adapter-bedrock.sh: Bedrock SigV4 through a libcurl older than 8.9.0 (which
# signs Bedrock paths wrongly) is refused before anything is sent, exit 2,
# naming the fixes; a bearer API key on the same libcurl is sent.
. "$TESTS_SRCDIR/lib/lib.sh"

vernum=$("$(dirname "$AIVET")/../tests/unit/test-provider" --libcurl)
: >"$T/mock.out"
python3 "$TESTS_SRCDIR/lib/openai-mock.py" "$T/requests.log" >"$T/mock.out" 2>"$T/mock.err" &
MOCK=$!
_mock_stop() { kill "$MOCK" 2>/dev/null; wait "$MOCK" 2>/dev/null; }
_cleanup_hooks="$_cleanup_hooks _mock_stop"
i=0
while ! grep -q '^listening on ' "$T/mock.out" && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
URL=$(sed -n 's/^listening on //p' "$T/mock.out")
: >"$T/requests.log"

export AWS_KEY=AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY BEDROCK_KEY=bedrock-api-key-0123
"$AIVET" vendor add B >/dev/null
"$AIVET" endpoint add B --name sig --api bedrock --url "$URL" \
	--model anthropic.claude-3-haiku-20240307-v1:0 --context 8192 \
	--option auth=sigv4 --option region=us-east-1 --credential t=env:AWS_KEY >/dev/null
if [ "$(printf '%d' "0x$vernum")" -lt "$(printf '%d' 0x080900)" ]; then
	before=$(db_snapshot)
	run probe run B/sig --yes --probe echo
	is "$rc" 2 "SigV4 on libcurl $vernum: refused as bad input (exit 2)"
	v=$(printf '%d.%d.%d' "0x$(echo "$vernum" | cut -c1-2)" "0x$(echo "$vernum" | cut -c3-4)" \
		"0x$(echo "$vernum" | cut -c5-6)")
	is "$errout" "aivet: endpoint B/sig: bedrock SigV4 is signed wrongly by libcurl $v (AWS refuses its signatures for model ids with ':'): it needs libcurl 8.9.0 or newer, or a Bedrock API key as a bearer credential (option auth=bearer)" \
		"the message names both fixes"
	is "$(wc -l <"$T/requests.log" | tr -d ' ')" 0 "nothing was sent"
	is "$(db_snapshot)" "$before" "no run was recorded"
	run probe run B/sig --dry-run
	is "$rc:$errout" "2:aivet: endpoint B/sig: bedrock SigV4 is signed wrongly by libcurl $v (AWS refuses its signatures for model ids with ':'): it needs libcurl 8.9.0 or newer, or a Bedrock API key as a bearer credential (option auth=bearer)" \
		"a dry run is refused too, with the same message"
else
	for i in 1 2 3 4 5; do
		_n=$((_n + 1)); echo "ok $_n # SKIP libcurl $vernum signs Bedrock SigV4 correctly"
	done
fi
# A bearer key goes out on any libcurl.
"$AIVET" endpoint add B --name key --api bedrock --url "$URL" \
	--model anthropic.claude-3-haiku-20240307-v1:0 --context 8192 --credential t=env:BEDROCK_KEY >/dev/null
run probe run B/key --yes --probe echo
ok "$([ "$(wc -l <"$T/requests.log" | tr -d ' ')" -gt 0 ]; echo $?)" "a bearer key is sent"
done_testing
