#!/bin/sh
# sim-anthropic.sh: aivet-sim's Anthropic-style API over real HTTP: messages
# (plain and streamed, with the real event sequence), usage, count_tokens,
# x-api-key auth, validation errors, body limit and the context refusal.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

sim_start --tenants A=key-a,B=key-b --context 1024 --pool 512 --max-body 65536
ok $? "sim starts"
A="x-api-key: key-a"
V="anthropic-version: 2023-06-01"

sim_http POST /v1/messages -H "$A" -H "$V" \
    -d "$(messages_json 'note CANARY_aaaa_111111 then CANARY_bbbb_222222' 256 '{system:"be brief"}')"
is "$status" 200 "messages: 200"
is "$(echo "$body" | jq -c '[.type, .role, .content[0].type, .stop_reason, .stop_sequence]')" \
    '["message","assistant","text","end_turn",null]' "messages: shape"
is "$(echo "$body" | json '.content[0].text')" "CANARY_aaaa_111111 CANARY_bbbb_222222" \
    "messages: echoes both nonces"
like "$(echo "$body" | json .id)" '^msg_' "messages: id"
in_tokens=$(echo "$body" | json .usage.input_tokens)
is "$(echo "$body" | jq -c '[.usage.input_tokens, .usage.output_tokens]')" "[28,11]" \
    "messages: usage input/output tokens"

sim_http POST /v1/messages/count_tokens -H "$A" -H "$V" \
    -d '{"model":"aivet-sim-1","system":"be brief","messages":[{"role":"user","content":"note CANARY_aaaa_111111 then CANARY_bbbb_222222"}]}'
is "$status" 200 "count_tokens: 200"
is "$body" "{\"input_tokens\":$in_tokens}" "count_tokens: the same count as usage"

# content as blocks
sim_http POST /v1/messages -H "$A" \
    -d '{"model":"m","max_tokens":50,"messages":[{"role":"user","content":[{"type":"text","text":"CANARY_block_00001"}]}]}'
is "$(echo "$body" | json '.content[0].text')" CANARY_block_00001 "content blocks are read"

sim_http POST /v1/messages -H "$A" -d "$(messages_json 'x CANARY_aaaa_111111 y' 3)"
is "$(echo "$body" | jq -c '[.content[0].text, .stop_reason, .usage.output_tokens]')" \
    '["CANARY_aaaa_","max_tokens",3]' "max_tokens cuts: stop_reason max_tokens"

# streaming: the real event sequence
sim_http POST /v1/messages -H "$A" -d "$(messages_json 'hello CANARY_abcdef123456' 256 '{stream:true}')"
is "$status" 200 "stream: 200"
is "$(header content-type)" text/event-stream "stream: event-stream"
is "$(printf '%s\n' "$body" | sed -n 's/^event: //p' | uniq | tr '\n' ' ')" \
    "message_start content_block_start ping content_block_delta content_block_stop message_delta message_stop " \
    "stream: event sequence"
is "$(printf '%s\n' "$body" | grep -c '^event: content_block_delta')" 5 "stream: five deltas"
events=$(printf '%s\n' "$body" | sse_data)
is "$(echo "$events" | jq -r '[.[] | select(.type == "content_block_delta") | .delta.text] | join("")')" \
    CANARY_abcdef123456 "stream: deltas join to the echo"
is "$(echo "$events" | jq -c '.[0].message.usage.input_tokens')" 12 "message_start: input_tokens"
is "$(echo "$events" | jq -c '.[] | select(.type == "message_delta") | [.delta.stop_reason, .usage.output_tokens]')" \
    '["end_turn",5]' "message_delta: stop_reason and output_tokens"
is "$(printf '%s\n' "$body" | grep -c '^data: \[DONE\]')" 0 "stream: no OpenAI [DONE]"

# auth
sim_http POST /v1/messages -d "$(messages_json hi)"
is "$status" 401 "no key: 401"
is "$(echo "$body" | jq -c '[.type, .error.type, .error.message]')" \
    '["error","authentication_error","x-api-key header is required"]' "no key: body"
sim_http POST /v1/messages -H "x-api-key: wrong" -d "$(messages_json hi)"
is "$status:$(echo "$body" | json .error.message)" "401:invalid x-api-key" "wrong key"
like "$(echo "$body" | json .request_id)" '^req_' "errors carry a request_id"
sim_http POST /v1/messages -H "x-api-key: key-b" -d "$(messages_json hi)"
is "$status" 200 "tenant B's key works"

# validation
sim_http POST /v1/messages -H "$A" -d '{"model":'
is "$status:$(echo "$body" | jq -c '[.type, .error.type]')" '400:["error","invalid_request_error"]' \
    "malformed JSON: 400 in Anthropic's shape"
sim_http POST /v1/messages -H "$A" -d '{"model":"m","messages":[{"role":"user","content":"x"}]}'
is "$(echo "$body" | json .error.message)" "max_tokens: Field required" "missing max_tokens"
sim_http POST /v1/messages -H "$A" -d '{"model":"m","max_tokens":5}'
is "$(echo "$body" | json .error.message)" "messages: Field required" "missing messages"
sim_http POST /v1/messages -H "$A" -d '{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"x"}]}'
is "$(echo "$body" | json .error.message)" "messages.0.role: Input should be 'user' or 'assistant'" \
    "bad role"
sim_http POST /v1/messages -H "$A" -d '{"max_tokens":5,"messages":[{"role":"user","content":"x"}]}'
is "$(echo "$body" | json .error.message)" "model: Field required" "missing model"

head -c 70000 /dev/zero | tr '\0' a >"$T/big"
sim_http POST /v1/messages -H "$A" --data-binary @"$T/big"
is "$status:$(echo "$body" | json .error.type)" 413:request_too_large "body over --max-body: 413"
sim_http POST /v1/messages -H "$A" -H "Transfer-Encoding: chunked" --data-binary @"$T/big"
is "$status:$(echo "$body" | json .error.type)" 413:request_too_large \
    "chunked body over --max-body (no Content-Length): 413"

words=$(jq -nr '"lorem ipsum dolor " * 60')
sim_http POST /v1/messages -H "$A" -d "$(messages_json "$words")"
is "$status" 400 "over the pool: 400"
is "$(echo "$body" | jq -c '[.type, .error.type, .error.message]')" \
    '["error","invalid_request_error","prompt is too long: 543 tokens > 512 maximum"]' \
    "over the pool: Anthropic's message"

done_testing
