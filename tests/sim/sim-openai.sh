#!/bin/sh
# sim-openai.sh: aivet-sim's OpenAI-style API over real HTTP: chat
# completions (plain and streamed), usage, /tokenize, /v1/models, auth,
# malformed input, body limit and the context refusal.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

sim_start --tenants A=key-a,B=key-b --context 1024 --pool 512 --max-body 65536
ok $? "sim starts"
like "$SIM_URL" '^http://127\.0\.0\.1:[0-9]+$' "first line names the loopback URL"
A="Authorization: Bearer key-a"

# plain completion: echoes the caller's own identifiers, in order
sim_http POST /v1/chat/completions -H "$A" \
    -d "$(chat_json 'note CANARY_aaaa_111111 then x then CANARY_bbbb_222222 end')"
is "$status" 200 "chat: 200"
is "$(echo "$body" | json .object)" chat.completion "chat: object"
is "$(echo "$body" | json '.choices[0].message.content')" "CANARY_aaaa_111111 CANARY_bbbb_222222" \
    "chat: echoes both nonces in order"
is "$(echo "$body" | json '.choices[0].message.role')" assistant "chat: role"
is "$(echo "$body" | json '.choices[0].finish_reason')" stop "chat: finish_reason stop"
is "$(echo "$body" | json '.model')" aivet-sim-1 "chat: model echoed"
is "$(echo "$body" | json '[.usage.prompt_tokens, .usage.completion_tokens, .usage.total_tokens] | @csv')" \
    "25,11,36" "chat: usage prompt/completion/total"
is "$(header content-type)" application/json "chat: JSON content type"

# usage agrees with /tokenize on the same messages
sim_http POST /tokenize -H "$A" \
    -d '{"messages":[{"role":"user","content":"note CANARY_aaaa_111111 then x then CANARY_bbbb_222222 end"}]}'
is "$(echo "$body" | json .count)" 25 "tokenize messages: same count as usage"
sim_http POST /tokenize -H "$A" -d '{"prompt":"hello world"}'
is "$status" 200 "tokenize prompt: 200"
is "$(echo "$body" | jq -c '[.count, .max_model_len, .tokens]')" \
    "[5,1024,[1819043176,111,32,1819438967,100]]" "tokenize: count, max_model_len, token ids"
sim_http POST /tokenize -H "$A" -d '{}'
is "$status" 400 "tokenize without prompt: 400"
is "$(echo "$body" | json .error.message)" "Either 'prompt' or 'messages' is required." "tokenize: message"

# max_tokens cuts the answer
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'x CANARY_aaaa_111111 y' 3)"
is "$(echo "$body" | json '.choices[0].message.content')" "CANARY_aaaa_" "max_tokens 3: three pieces"
is "$(echo "$body" | json '.choices[0].finish_reason')" length "max_tokens: finish_reason length"
is "$(echo "$body" | json .usage.completion_tokens)" 3 "max_tokens: completion_tokens 3"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'nothing long here')"
is "$(echo "$body" | json '.choices[0].message.content')" \
    "I found nothing to repeat in this conversation." "no identifiers: the fixed sentence"

# streaming with usage
sim_http POST /v1/chat/completions -H "$A" \
    -d "$(chat_json 'hello CANARY_abcdef123456' null '{stream:true,stream_options:{include_usage:true}}')"
is "$status" 200 "stream: 200"
is "$(header content-type)" text/event-stream "stream: event-stream"
is "$(printf '%s\n' "$body" | grep '^data: ' | tail -n 1)" "data: [DONE]" "stream: ends with [DONE]"
events=$(printf '%s\n' "$body" | sse_data)
is "$(echo "$events" | jq -r '[.[] | .choices[0].delta.content // empty] | join("")')" \
    CANARY_abcdef123456 "stream: deltas join to the echo"
is "$(echo "$events" | jq -r '.[0].choices[0].delta.role')" assistant "stream: first delta has the role"
is "$(echo "$events" | jq -r '[.[] | .choices[0].finish_reason // empty] | join(",")')" stop \
    "stream: one finish_reason, stop"
is "$(echo "$events" | jq -c '.[-1] | [.choices, .usage.prompt_tokens, .usage.completion_tokens, .usage.total_tokens]')" \
    "[[],12,5,17]" "stream: final chunk has choices [] and usage"
is "$(echo "$events" | jq -r '[.[] | .object] | unique | join(",")')" chat.completion.chunk \
    "stream: every event is a chunk"

sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'hello CANARY_abcdef123456' null '{stream:true}')"
events=$(printf '%s\n' "$body" | sse_data)
is "$(echo "$events" | jq -r '[.[] | has("usage")] | any')" false "stream without include_usage: no usage"
is "$(printf '%s\n' "$body" | grep -c '^data: ')" 8 "stream: role, 5 pieces, finish, [DONE]"

# auth
sim_http POST /v1/chat/completions -d "$(chat_json hi)"
is "$status" 401 "no key: 401"
is "$(echo "$body" | jq -c '[.error.type, .error.code]')" '["invalid_request_error",null]' "no key: type, code null"
like "$(echo "$body" | json .error.message)" "^You didn't provide an API key\." "no key: message"
sim_http POST /v1/chat/completions -H "Authorization: Bearer wrong" -d "$(chat_json hi)"
is "$status" 401 "wrong key: 401"
is "$(echo "$body" | json .error.code)" invalid_api_key "wrong key: code invalid_api_key"
is "$(echo "$body" | json .error.message)" \
    "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys." \
    "wrong key: message does not echo the key"
sim_http POST /v1/chat/completions -H "x-api-key: key-a" -d "$(chat_json hi)"
is "$status" 401 "x-api-key is not OpenAI auth"
sim_http POST /v1/chat/completions -H "Authorization: Bearer key-b" -d "$(chat_json hi)"
is "$status" 200 "tenant B's key works"
like "$(cat "$SIM_LOG")" "tenant=B status=200" "the log names the tenant"

# malformed input
sim_http POST /v1/chat/completions -H "$A" -d '{"model":'
is "$status" 400 "malformed JSON: 400"
is "$(echo "$body" | jq -c '[.error.type, .error.param, .error.code]')" '["invalid_request_error",null,null]' \
    "malformed JSON: shape"
like "$(echo "$body" | json .error.message)" "^We could not parse the JSON body of your request\." \
    "malformed JSON: message"
sim_http POST /v1/chat/completions -H "$A" -d '{"model":"m"}'
is "$(echo "$body" | jq -c '[.error.message, .error.param, .error.code]')" \
    "[\"Missing required parameter: 'messages'.\",\"messages\",\"missing_required_parameter\"]" \
    "missing messages"
sim_http POST /v1/chat/completions -H "$A" -d '{"model":"m","messages":[]}'
is "$status:$(echo "$body" | json .error.code)" 400:empty_array "empty messages"
sim_http POST /v1/chat/completions -H "$A" -d '{"model":"m","messages":[{"role":"user"}]}'
is "$(echo "$body" | json .error.message)" "Missing required parameter: 'messages[0].content'." \
    "missing content"
sim_http POST /v1/chat/completions -H "$A" -d '{"model":"m","messages":[{"role":"robot","content":"x"}]}'
is "$(echo "$body" | jq -c '[.error.param, .error.code]')" '["messages[0].role","invalid_value"]' "bad role"
sim_http POST /v1/chat/completions -H "$A" -d '{"messages":[{"role":"user","content":"x"}]}'
is "$(echo "$body" | json .error.message)" "you must provide a model parameter" "missing model"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json hi 0)"
is "$(echo "$body" | jq -c '[.error.param, .error.code]')" '["max_tokens","integer_below_min_value"]' \
    "max_tokens 0"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json hi null '{stream_options:{include_usage:true}}')"
is "$(echo "$body" | json .error.param)" stream_options "stream_options without stream"

# body limit
head -c 70000 /dev/zero | tr '\0' a >"$T/big"
sim_http POST /v1/chat/completions -H "$A" --data-binary @"$T/big"
is "$status" 413 "body over --max-body: 413"
is "$(echo "$body" | jq -c '[.error.type, .error.code]')" '["invalid_request_error","request_too_large"]' \
    "413: shape"

# context: a prompt over the pool (512 tokens) is refused, with the counts
words=$(jq -nr '"lorem ipsum dolor " * 60')
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$words")"
is "$status" 400 "over the pool: 400"
is "$(echo "$body" | jq -c '[.error.type, .error.param, .error.code]')" \
    '["invalid_request_error","messages","context_length_exceeded"]' "over the pool: shape"
is "$(echo "$body" | json .error.message)" \
    "This model's maximum context length is 512 tokens. However, your messages resulted in 543 tokens. Please reduce the length of the messages." \
    "over the pool: message with the limit and the count"

# models and routing
sim_http GET /v1/models -H "$A"
is "$(echo "$body" | jq -c '[.object, .data[0].id, .data[0].context_length]')" '["list","aivet-sim-1",1024]' \
    "models: the advertised context"
sim_http GET /v1/nope -H "$A"
is "$status:$(echo "$body" | json .error.message)" "404:Invalid URL (GET /v1/nope)" "unknown path: 404"
sim_http GET /v1/chat/completions -H "$A"
is "$status" 404 "wrong method: 404"

sim_stop

# SIGTERM with a stream in flight and a request waiting for its pages: both
# are dropped and the sim still stops cleanly
sim_start --context 32 --pool 32 --decode-us-per-token 200000
: >"$T/slow1"
curl -sN "$SIM_URL/v1/chat/completions" -d "$(chat_json CANARY_slow_stream1 null '{stream:true}')" \
    >"$T/slow1" 2>/dev/null &
c1=$!
i=0
while ! grep -q '"role":"assistant"' "$T/slow1" && [ "$i" -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ok "$([ "$i" -lt 100 ] && echo 0 || echo 1)" "the slow stream has started"
curl -s "$SIM_URL/v1/chat/completions" -d "$(chat_json CANARY_waiting_0001)" >"$T/slow2" 2>/dev/null &
c2=$!
sleep 0.3
kill "$SIM_PID"
i=0
while kill -0 "$SIM_PID" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ok "$([ "$i" -lt 100 ] && echo 0 || echo 1)" "SIGTERM stops the sim with work in flight"
sim_stop
wait "$c1" "$c2"

# help, version and bad options
"$AIVET_SIM" --help >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(head -n 1 "$T/o")" "0:usage: aivet-sim [--host ADDR] [--port N] [--context TOKENS] [--pool TOKENS]" \
    "--help prints the usage"
like "$(cat "$T/o")" "disagg-placeholder, truncate-head, error-200," "--help lists the faults"
"$AIVET_SIM" --version >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(cat "$T/o")" "0:aivet-sim $("$AIVET" --version | sed 's/^aivet //')" "--version matches aivet's"
"$AIVET_SIM" --fault nope >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(cat "$T/e")" "2:aivet-sim: --fault: unknown fault 'nope' (see aivet-sim --help)" "unknown fault"
"$AIVET_SIM" --pool 8 >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(cat "$T/e")" "2:aivet-sim: --pool: 8 tokens do not hold one page of 16 tokens" "pool below a page"
"$AIVET_SIM" --fault redirect >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(cat "$T/e")" "2:aivet-sim: --fault redirect needs --redirect-to URL" "redirect without a target"
"$AIVET_SIM" --tenants A >"$T/o" 2>"$T/e" && rc=0 || rc=$?
is "$rc:$(cat "$T/e")" "2:aivet-sim: --tenants: 'A' is not LABEL=KEY" "bad tenants"

done_testing
