#!/bin/sh
# sim-faults2.sh: the aivet-sim faults of vendors that misbehave in ordinary
# ways, over real HTTP: faults combined, revoked keys, a tokens-per-minute
# limit below the context, usage that always says 1 prompt token, no count
# endpoint, and one tenant's large prompt failing another tenant's requests.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

A="Authorization: Bearer key-a"
AX="x-api-key: key-a"
B="Authorization: Bearer key-b"
BX="x-api-key: key-b"
OPENAI_BAD_KEY='{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}'
ANTHROPIC_BAD_KEY='{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
BUSY='slot unavailable: the server is busy with another request'

# sim_fails ARGS...: aivet-sim with ARGS exits 2 at once; sets $errout.
sim_fails() {
	"$AIVET_SIM" --port 0 "$@" >"$T/fail.out" 2>"$T/fail.err" && rc=0 || rc=$?
	errout=$(cat "$T/fail.err")
}

# ---- options: bad values are usage errors ----
sim_fails --fault stream-error,bogus
is "$rc:$errout" "2:aivet-sim: --fault: unknown fault 'bogus' (see aivet-sim --help)" \
    "fault set: an unknown name in a list is refused"
sim_fails --fault truncate-head --fault error-200
is "$rc:$errout" "2:aivet-sim: --fault: disagg-placeholder, truncate-head, error-200, stale-decode, placeholder-blank, accept-oversize and keep-end-under-context each decide what happens to an oversize prompt; give one of them" \
    "fault set: two admission faults are refused"
sim_fails --tenants a=key-a,b=key-b --revoked c
is "$rc:$errout" "2:aivet-sim: --revoked: no tenant 'c' in --tenants" "revoked: unknown label is a usage error"
sim_fails --revoked a
is "$rc:$errout" "2:aivet-sim: --revoked needs --tenants" "revoked: needs --tenants"
sim_fails --neighbour-victims 0
is "$rc" 2 "neighbour-victims: 0 is refused"
sim_fails --tpm-limit 0
is "$rc" 2 "tpm-limit: 0 is refused"
sim_fails --neighbour-wait-ms 100
is "$rc:$errout" "2:aivet-sim: --neighbour-wait-ms needs --neighbour-victims" \
    "neighbour-wait-ms: it waits for what --neighbour-victims holds, so it needs it"
"$AIVET_SIM" --help >"$T/help"
for opt in --revoked --tpm-limit --no-count --neighbour-hold-ms --neighbour-victims --neighbour-wait-ms usage-one noisy-neighbour; do
	ok "$(grep -q -e "$opt" "$T/help"; echo $?)" "--help mentions $opt"
done

# ---- fault set: --fault A,B and a repeated --fault give the same set ----
for args in "--fault stream-error,no-usage" "--fault stream-error --fault no-usage" \
    "--fault none --fault no-usage,stream-error"; do
	# shellcheck disable=SC2086
	sim_start --tenants A=key-a $args
	is "$(sed -n 's/.*, fault //p' "$SIM_LOG")" "stream-error,no-usage" "fault set ($args): both faults named at start"
	sim_http POST /v1/chat/completions -H "$A" \
	    -d "$(chat_json 'CANARY_set_0000001' null '{stream:true,stream_options:{include_usage:true}}')"
	is "$(printf '%s\n' "$body" | grep '^data: ' | tail -n 1 | sed 's/^data: //' | jq -c '.error.type')" \
	    '"server_error"' "fault set ($args): stream-error still ends the stream in an error"
	is "$(printf '%s\n' "$body" | grep -c usage)" 0 "fault set ($args): no-usage still drops usage"
	sim_stop
done
sim_start --tenants A=key-a --fault none
is "$(sed -n 's/.*, fault //p' "$SIM_LOG")" none "fault set: --fault none is the empty set"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_none_000001')"
is "$status:$(echo "$body" | jq -c '[.choices[0].message.content, .usage.prompt_tokens]')" \
    '200:["CANARY_none_000001",9]' "fault none: served, honest usage"
sim_stop

# ---- revoked: 401 on every route, in each API's shape ----
sim_start --tenants a=key-a,b=key-b,c=key-c --revoked b --revoked c
for route in "POST /v1/chat/completions $(chat_json hi)" "POST /tokenize {\"prompt\":\"hi\"}" "GET /v1/models"; do
	set -- $route
	if [ "$1" = GET ]; then sim_http GET "$2" -H "$B"; else sim_http POST "$2" -H "$B" -d "$3"; fi
	is "$status:$(echo "$body" | jq -c .)" "401:$OPENAI_BAD_KEY" "revoked: $1 $2 gets OpenAI's invalid_api_key 401"
done
for path in /v1/messages /v1/messages/count_tokens; do
	sim_http POST "$path" -H "$BX" -d "$(messages_json hi)"
	is "$status:$(echo "$body" | jq -c 'del(.request_id)')" "401:$ANTHROPIC_BAD_KEY" \
	    "revoked: POST $path gets Anthropic's authentication_error 401"
done
sim_http POST /v1/messages -H "x-api-key: key-c" -d "$(messages_json hi)"
is "$status" 401 "revoked: a second --revoked adds tenant c"
sim_http POST /v1/chat/completions -H "Authorization: Bearer key-zzz" -d "$(chat_json hi)"
is "$status:$(echo "$body" | jq -c .)" "401:$OPENAI_BAD_KEY" "unknown key: the same OpenAI 401"
sim_http POST /v1/messages -H "x-api-key: key-zzz" -d "$(messages_json hi)"
is "$status:$(echo "$body" | jq -c 'del(.request_id)')" "401:$ANTHROPIC_BAD_KEY" "unknown key: the same Anthropic 401"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json CANARY_not_revoked)"
is "$status:$(echo "$body" | json '.choices[0].message.content')" 200:CANARY_not_revoked \
    "revoked: tenant a is still served"
is "$(grep -c 'tenant=b status=401' "$SIM_LOG")" 5 "revoked: the log names tenant b on each 401"
sim_stop

# ---- tpm-limit: over N prompt tokens gets 429, N or fewer are served ----
# "user: aaaa aaaa aaaa\n" is 9 tokens; "aaaaa" for the last word makes 10.
sim_start --tenants A=key-a --tpm-limit 9 --context 8
sim_http POST /tokenize -H "$A" -d '{"messages":[{"role":"user","content":"aaaa aaaa aaaa"}]}'
is "$(echo "$body" | json .count)" 9 "tpm-limit: the fitting prompt is 9 tokens"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'aaaa aaaa aaaa')"
is "$status:$(echo "$body" | json .error.code)" 400:context_length_exceeded \
    "tpm-limit: a prompt of exactly N tokens passes the limit (then meets the 8-token context)"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'aaaa aaaa aaaaa')"
is "$status:$(header retry-after):$(header x-ratelimit-limit-tokens)" 429:1:9 \
    "rule tpm-limit: N+1 tokens get 429, Retry-After 1, checked before the context"
is "$(echo "$body" | jq -c .)" '{"error":{"message":"Request too large for aivet-sim-1 in organization org-sim on tokens per min (TPM): Limit 9, Requested 10. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}' \
    "tpm-limit: OpenAI's body"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json 'aaaa aaaa aaaaa' 5 '{stream:true}')"
is "$status:$(header retry-after):$(echo "$body" | jq -c 'del(.request_id)')" \
    '429:1:{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 9 input tokens per minute."}}' \
    "tpm-limit: Anthropic's body, streamed requests too"
sim_http POST /tokenize -H "$A" -d '{"prompt":"aaaa aaaa aaaa a aaaa aaaa"}'
is "$status" 200 "tpm-limit: the count routes are not limited"
sim_stop
sim_start --tenants A=key-a --tpm-limit 9
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'aaaa aaaa aaaa')"
is "$status:$(echo "$body" | json .usage.prompt_tokens)" 200:9 "tpm-limit: a prompt of N tokens is served"
sim_stop

# ---- usage-one: usage says 1 prompt token, the answer reads the whole prompt ----
sim_start --tenants A=key-a --fault usage-one
p="opening words then CANARY_usage_one_001 and more words and CANARY_usage_one_002"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$p")"
is "$(echo "$body" | jq -c '[.choices[0].message.content, .usage.prompt_tokens, .usage.completion_tokens, .usage.total_tokens]')" \
    '["CANARY_usage_one_001 CANARY_usage_one_002",1,11,12]' "usage-one: OpenAI body says 1 prompt token"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$p" null '{stream:true,stream_options:{include_usage:true}}')"
is "$(printf '%s\n' "$body" | sse_data | jq -c '.[-1].usage | [.prompt_tokens, .total_tokens]')" '[1,12]' \
    "usage-one: OpenAI's final usage chunk"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json "$p")"
is "$(echo "$body" | jq -c '[.content[0].text, .usage.input_tokens]')" '["CANARY_usage_one_001 CANARY_usage_one_002",1]' \
    "usage-one: Anthropic body"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json "$p" 256 '{stream:true}')"
is "$(printf '%s\n' "$body" | sed -n 's/^data: //p' | jq -sc '.[0].message.usage.input_tokens')" 1 \
    "usage-one: Anthropic's message_start"
sim_http POST /tokenize -H "$A" -d "$(chat_json "$p")"
is "$(echo "$body" | json .count)" 32 "usage-one: the count route stays honest"
is "$(grep -c 'prompt_tokens=32' "$SIM_LOG")" 4 "usage-one: the log has the real prompt tokens"
sim_stop

# ---- no-count: the count routes answer 404 in the API's shape ----
sim_start --tenants A=key-a --no-count
sim_http POST /tokenize -H "$A" -d '{"prompt":"hi"}'
is "$status:$(echo "$body" | jq -c .)" \
    '404:{"error":{"message":"Invalid URL (POST /tokenize)","type":"invalid_request_error","param":null,"code":null}}' \
    "no-count: /tokenize 404 in OpenAI's shape"
sim_http POST /v1/messages/count_tokens -H "$AX" -d "$(messages_json hi)"
is "$status:$(echo "$body" | jq -c 'del(.request_id)')" \
    '404:{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}' \
    "no-count: count_tokens 404 in Anthropic's shape"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json CANARY_no_count_01)"
is "$status:$(echo "$body" | json .usage.prompt_tokens)" 200:9 "no-count: chat is served with usage"
sim_stop

# ---- noisy-neighbour: tenant a's large prompt fails tenant b's requests ----
# Pool 4096: a prompt over 1024 tokens is large. The large request holds until
# four requests of tenant b have met it (--neighbour-victims: the overlap on
# demand, whatever the machine's load), a minute at most. The test waits for its
# "holding" line in the log, then sends tenant a's own request and another
# route (served under the load), then tenant b's four (bodies made beforehand).
# sent_until NAME HEADER BODY TEXT: sends BODY to the chat route in the
# background (its answer in $T/NAME.body, status in $T/NAME.status, pid in
# bg_pid) and waits, 30 s at most, for TEXT in the simulator's log: the event
# the next step needs.
sent_until() {
	curl -s -o "$T/$1.body" -w '%{http_code}' "$SIM_URL/v1/chat/completions" -H "$2" -d "$3" \
	    >"$T/$1.status" &
	bg_pid=$!
	_i=0
	while ! grep -q "$4" "$SIM_LOG" && [ "$_i" -lt 600 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
big=$(jq -nr '"lorem ipsum dolor " * 400')
v_chat=$(chat_json CANARY_victim_0001)
v_msg=$(messages_json CANARY_victim_0001)
v_chat_stream=$(chat_json CANARY_victim_0001 null '{stream:true}')
v_msg_stream=$(messages_json CANARY_victim_0001 256 '{stream:true}')
a_small=$(chat_json CANARY_same_tenant 20)
sim_start --tenants a=key-a,b=key-b --pool 4096 --fault noisy-neighbour --neighbour-victims 4 \
    --neighbour-hold-ms 60000
sent_until large "$A" "$(chat_json "$big CANARY_large_00001" 20)" holding
large_pid=$bg_pid
is "$(sed -n 's/^aivet-sim: #1 //p' "$SIM_LOG")" \
    "tenant=a holding prompt_tokens=3609 until 4 other tenants' requests met it, at most 60000 ms" \
    "noisy-neighbour: the large request logs its hold after prefill"
sim_http POST /v1/chat/completions -H "$A" -d "$a_small"
is "$status:$(echo "$body" | json '.choices[0].message.content')" 200:CANARY_same_tenant \
    "noisy-neighbour: the large request's own tenant is served"
sim_http GET /v1/models -H "$B"
is "$status" 200 "noisy-neighbour: other routes are served"
sim_http POST /v1/chat/completions -H "$B" -d "$v_chat"
is "$status:$(echo "$body" | jq -c .)" "500:{\"error\":{\"code\":500,\"message\":\"$BUSY\",\"type\":\"server_error\"}}" \
    "noisy-neighbour: tenant b gets llama.cpp's 500"
sim_http POST /v1/messages -H "$BX" -d "$v_msg"
is "$status:$(echo "$body" | jq -c 'del(.request_id)')" "500:{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"$BUSY\"}}" \
    "noisy-neighbour: Anthropic's 500"
sim_http POST /v1/chat/completions -H "$B" -d "$v_chat_stream"
is "$status" 200 "noisy-neighbour: a stream starts with 200"
is "$(printf '%s\n' "$body" | sse_data | jq -c '[.[1].choices[0].delta.content, .[-1]]')" \
    "[\"CANA\",{\"error\":{\"code\":500,\"message\":\"$BUSY\",\"type\":\"server_error\"}}]" \
    "noisy-neighbour: one piece, then the error event"
is "$(printf '%s\n' "$body" | grep -c -e '\[DONE\]' -e 'finish_reason":"')" 0 "noisy-neighbour: the stream never finishes"
sim_http POST /v1/messages -H "$BX" -d "$v_msg_stream"
is "$(printf '%s\n' "$body" | sed -n 's/^event: //p' | tr '\n' ' ')" \
    "message_start content_block_start ping content_block_delta error " "noisy-neighbour: Anthropic stream ends in event: error"
is "$(printf '%s\n' "$body" | tail -n 2 | sed -n 's/^data: //p' | jq -c .error)" \
    "{\"type\":\"api_error\",\"message\":\"$BUSY\"}" "noisy-neighbour: Anthropic error data"
wait "$large_pid"
is "$(cat "$T/large.status"):$(jq -r '.choices[0].message.content' "$T/large.body")" 200:CANARY_large_00001 \
    "noisy-neighbour: the large request itself succeeds"
# In the log's order: the four met the load (their "busy" lines), then the large request ended.
is "$(sed -n -e 's/^aivet-sim: #[0-9]* tenant=b busy: .*/busy/p' \
    -e 's/^aivet-sim: #1 .*tenant=a status=200 prompt_tokens=3609.*/large done/p' "$SIM_LOG" | tr '\n' ' ')" \
    "busy busy busy busy large done " "noisy-neighbour: all four met the large request in flight, which then ended"
sim_http POST /v1/chat/completions -H "$B" -d "$v_chat"
is "$status:$(echo "$body" | json '.choices[0].message.content')" 200:CANARY_victim_0001 \
    "noisy-neighbour: once it is done, tenant b is served"
sim_stop

# --neighbour-wait-ms: a request that is not large waits for another tenant's
# large one, so that one sent first, or read first by a busy machine, still
# meets it. Tenant b's request comes first and waits (a minute at most); once
# its "waiting" line is in the log, tenant a's large request comes, holding
# until one request met it: b's fails, and both end.
sim_start --tenants a=key-a,b=key-b --pool 4096 --fault noisy-neighbour --neighbour-victims 1 \
    --neighbour-hold-ms 60000 --neighbour-wait-ms 60000
sent_until early "$B" "$v_chat" waiting
early_pid=$bg_pid
is "$(sed -n 's/^aivet-sim: #1 //p' "$SIM_LOG")" \
    "tenant=b waiting for another tenant's large request, at most 60000 ms" \
    "neighbour-wait-ms: tenant b's request, first to come, waits"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$big CANARY_large_00001" 20)"
wait "$early_pid"
is "$status:$(cat "$T/early.status"):$(jq -r .error.message "$T/early.body")" "200:500:$BUSY" \
    "neighbour-wait-ms: the large request came after it, and b's request met it: 500"
# (The large request's "holding" line and b's "busy" line are written by two
# threads once the large one is in flight, in either order.)
is "$(grep -c '^aivet-sim: #2 tenant=a holding' "$SIM_LOG"):$(sed -n -e 's/^aivet-sim: #1 tenant=b busy: .*/b busy/p' \
    -e 's/^aivet-sim: #2 POST .*tenant=a status=200.*/a done/p' "$SIM_LOG" | tr '\n' ' ')" "1:b busy a done " \
    "neighbour-wait-ms: the large request held, b's met it, then the large one ended"
sim_stop

# With no large request to meet, the wait ends at its cap and the request is
# served.
sim_start --tenants a=key-a,b=key-b --pool 4096 --fault noisy-neighbour --neighbour-victims 1 \
    --neighbour-hold-ms 0 --neighbour-wait-ms 200
sim_http POST /v1/chat/completions -H "$B" -d "$v_chat"
is "$status:$(echo "$body" | json '.choices[0].message.content'):$(grep -c ' busy: ' "$SIM_LOG")" \
    "200:CANARY_victim_0001:0" "neighbour-wait-ms: no large request came: served when the wait ends"
sim_stop

# The rule "large means over a quarter of the pool": 1024 tokens of 4096 are
# not large, 1025 are.
sim_start --tenants a=key-a,b=key-b --pool 4096 --fault noisy-neighbour --neighbour-hold-ms 0
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$(jq -nr '"a" * 4080')" 1)"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$(jq -nr '"a" * 4081')" 1)"
is "$(grep -o 'holding prompt_tokens=[0-9]*' "$SIM_LOG" | tr '\n' ' ')" "holding prompt_tokens=1025 " \
    "noisy-neighbour: a quarter of the pool (1024) is not large, 1025 is"
sim_stop

# ---- tokenizer words: about one token per word ----
sim_start --tenants A=key-a --tokenizer words
# user | : | " Hello" | " world" | , | " CANARY_words_00001" | " is" | " here" | , |
# " with" | " fourteen" | " tokens" | . | "\n"
wp='Hello world, CANARY_words_00001 is here, with fourteen tokens.'
sim_http POST /tokenize -H "$A" -d "$(jq -nc --arg t "$wp" '{messages:[{role:"user",content:$t}]}')"
is "$(echo "$body" | json .count)" 14 "tokenizer words: /tokenize counts a word as one token (14)"
sim_http POST /v1/messages/count_tokens -H "$AX" -d "$(messages_json "$wp")"
is "$(echo "$body" | json .input_tokens)" 14 "tokenizer words: count_tokens agrees"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$wp")"
is "$(echo "$body" | jq -c '[.choices[0].message.content, .usage.prompt_tokens, .usage.completion_tokens]')" \
    '["CANARY_words_00001",14,1]' "tokenizer words: usage counts words, the echo is one token"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$wp CANARY_words_00002" 2 '{stream:true}')"
is "$(printf '%s\n' "$body" | sse_data | jq -c '[.[] | .choices[0].delta.content // empty]')" \
    '["","CANARY_words_00001"," CANARY_words_00002"]' "tokenizer words: a stream sends one word a chunk"
sim_http POST /tokenize -H "$A" -d "{\"prompt\":\"$(jq -nr '"lorem ipsum dolor " * 1000')\"}"
is "$(echo "$body" | json .count)" 3001 "tokenizer words: 3,000 words and a trailing space are 3,001 tokens"
sim_stop
sim_start --tenants A=key-a --tokenizer pieces
sim_http POST /tokenize -H "$A" -d "$(jq -nc --arg t "$wp" '{messages:[{role:"user",content:$t}]}')"
is "$(echo "$body" | json .count)" 30 "tokenizer pieces: the same text is 30 tokens"
sim_stop
sim_start --tenants A=key-a --tokenizer words --fault no-usage --no-count --context 40 --pool 64
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$(jq -nr '"word " * 38')")"
is "$status:$(echo "$body" | json .error.code)" 400:context_length_exceeded \
    "tokenizer words: 38 words and the template (41 tokens) are over a 40-token context"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$(jq -nr '"word " * 37')" 1)"
is "$status:$(echo "$body" | jq -c 'has("usage")')" 200:false \
    "tokenizer words: 40 tokens fit, with no usage to tell"
sim_stop
sim_fails --tokenizer bpe
is "$rc:$errout" "2:aivet-sim: --tokenizer: 'bpe' is not pieces or words" "tokenizer: unknown kind refused"

# ---- model-behaviour paraphrase: a model that cannot repeat text ----
sim_fails --model-behaviour parrot
is "$rc:$errout" "2:aivet-sim: --model-behaviour: 'parrot' is not echo or paraphrase" \
    "model-behaviour: unknown kind refused"
sim_start --tenants A=key-a,B=key-b --model-behaviour paraphrase
pp='Please repeat these codes exactly: CANARY_para_000001 CANARY_para_000002'
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$pp")"
ans=$(echo "$body" | json '.choices[0].message.content')
is "$status:$(echo "$body" | jq -c '[.usage.prompt_tokens, .choices[0].finish_reason]')" '200:[31,"stop"]' \
    "paraphrase: served, honest prompt usage"
is "$(printf '%s' "$ans" | grep -c -e CANARY -e para_ -e 'codes ex')" 0 "paraphrase: no nonce and no prompt text in '$ans'"
like "$ans" '^[A-Z][a-z ]+\.( [A-Z][a-z ]+\.)?$' "paraphrase: plain prose sentences"
is "$(echo "$body" | jq '.usage.completion_tokens > 0')" true "paraphrase: completion tokens counted"
sim_http POST /v1/chat/completions -H "$B" -d "$(chat_json "$pp")"
is "$(echo "$body" | json '.choices[0].message.content')" "$ans" "paraphrase: deterministic (same prompt, same answer)"
sim_http POST /v1/messages -H "x-api-key: key-a" -d "$(messages_json "$pp" 256 '{stream:true}')"
is "$(printf '%s\n' "$body" | sed -n 's/^data: //p' | jq -rs '[.[] | select(.type == "content_block_delta") | .delta.text] | join("")')" \
    "$ans" "paraphrase: Anthropic stream sends the same answer"
sim_stop

done_testing
