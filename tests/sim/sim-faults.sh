#!/bin/sh
# sim-faults.sh: each of aivet-sim's faults over real HTTP, against both APIs
# where the fault differs between them, and the prefix cache's effect on
# cached tokens and time to first token.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

A="Authorization: Bearer key-a"
AX="x-api-key: key-a"
# 537 tokens with a canary at each end: over a 512-token limit.
big="CANARY_head_000001 $(jq -nr '"lorem ipsum dolor " * 58')CANARY_tail_000002"

# ---- truncate-head: the last tokens kept silently, honest usage ----
# (context below the pool, so decode has pages left after the kept tokens)
sim_start --tenants A=key-a --context 512 --pool 1024 --fault truncate-head
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$big" 20)"
is "$status" 200 "truncate-head: over the pool answers 200"
is "$(echo "$body" | json '.choices[0].message.content')" CANARY_tail_000002 \
    "truncate-head: only the tail's canary was seen"
is "$(echo "$body" | json .usage.prompt_tokens)" 512 "truncate-head: usage reports the 512 kept tokens"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_small_00001')"
is "$(echo "$body" | json '.choices[0].message.content')" CANARY_small_00001 "truncate-head: small prompts intact"
sim_stop

# ---- error-200: an error object in a 200 ----
sim_start --tenants A=key-a --context 1024 --pool 512 --fault error-200
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$big")"
is "$status" 200 "error-200: status 200"
is "$(echo "$body" | jq -c '[.error.code, has("choices")]')" '["context_length_exceeded",false]' \
    "error-200: error object, no choices"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json "$big")"
is "$status:$(echo "$body" | jq -c '[.type, .error.type]')" '200:["error","invalid_request_error"]' \
    "error-200: Anthropic's error shape in a 200"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_small_00001')"
is "$(echo "$body" | json '.choices[0].message.content')" CANARY_small_00001 "error-200: small prompts intact"
sim_stop

# ---- stream-error: 200, then an error event instead of the end ----
sim_start --tenants A=key-a --fault stream-error
sim_http POST /v1/chat/completions -H "$A" \
    -d "$(chat_json 'CANARY_stream_0001' null '{stream:true,stream_options:{include_usage:true}}')"
is "$status" 200 "stream-error: 200"
is "$(printf '%s\n' "$body" | grep '^data: ' | tail -n 1 | sed 's/^data: //' | jq -c '[.error.type, .error.code]')" \
    '["server_error",null]' "stream-error: last event is an OpenAI error"
is "$(printf '%s\n' "$body" | grep -c -e '\[DONE\]' -e '"finish_reason":"stop"')" 0 \
    "stream-error: no finish_reason, no [DONE]"
is "$(printf '%s\n' "$body" | sse_data | jq -r '[.[] | .choices[0].delta.content // empty] | join("")')" CANA \
    "stream-error: one piece came before the error"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json 'CANARY_stream_0001' 50 '{stream:true}')"
is "$(printf '%s\n' "$body" | sed -n 's/^event: //p' | tail -n 1)" error "stream-error: Anthropic ends with event: error"
is "$(printf '%s\n' "$body" | tail -n 2 | sed -n 's/^data: //p' | jq -c '[.type, .error.type]')" \
    '["error","overloaded_error"]' "stream-error: Anthropic error data"
is "$(printf '%s\n' "$body" | grep -c 'message_stop')" 0 "stream-error: no message_stop"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_stream_0001')"
is "$(echo "$body" | json '.choices[0].message.content')" CANARY_stream_0001 "stream-error: plain requests intact"
sim_stop

# ---- no-usage ----
sim_start --tenants A=key-a --fault no-usage
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_usage_00001')"
is "$(echo "$body" | jq -c '[has("usage"), .choices[0].message.content]')" '[false,"CANARY_usage_00001"]' \
    "no-usage: OpenAI body without usage"
sim_http POST /v1/chat/completions -H "$A" \
    -d "$(chat_json 'CANARY_usage_00001' null '{stream:true,stream_options:{include_usage:true}}')"
is "$(printf '%s\n' "$body" | grep -c usage)" 0 "no-usage: no usage in the stream"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json 'CANARY_usage_00001')"
is "$(echo "$body" | jq -c 'has("usage")')" false "no-usage: Anthropic body without usage"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json 'CANARY_usage_00001' 50 '{stream:true}')"
is "$(printf '%s\n' "$body" | grep -c usage)" 0 "no-usage: no usage in Anthropic events"
sim_stop

# ---- stream-as-json ----
sim_start --tenants A=key-a --fault stream-as-json
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_json_000001' null '{stream:true}')"
is "$status:$(header content-type)" 200:application/json "stream-as-json: JSON content type"
is "$(echo "$body" | jq -c '[.object, .choices[0].message.content]')" '["chat.completion","CANARY_json_000001"]' \
    "stream-as-json: a whole completion"
sim_stop

# ---- rate-limit: the first N inference requests get 429 ----
sim_start --tenants A=key-a --fault rate-limit --rate-limit-count 2
sim_http GET /v1/models -H "$A"
is "$status" 200 "rate-limit: /v1/models is not limited"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json hi)"
is "$status:$(header retry-after)" 429:1 "rate-limit: first request 429, Retry-After 1"
is "$(echo "$body" | jq -c '[.error.type, .error.code]')" '["requests","rate_limit_exceeded"]' \
    "rate-limit: OpenAI's body"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json hi)"
is "$status:$(echo "$body" | jq -c '[.type, .error.type]')" '429:["error","rate_limit_error"]' \
    "rate-limit: second request 429 in Anthropic's shape"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json CANARY_after_limit1)"
is "$status:$(echo "$body" | json '.choices[0].message.content')" 200:CANARY_after_limit1 \
    "rate-limit: third request served"
sim_stop

# ---- redirect ----
sim_start --tenants A=key-a --fault redirect --redirect-to http://127.0.0.2:9/elsewhere
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json hi)"
is "$status:$(header location)" 307:http://127.0.0.2:9/elsewhere "redirect: 307 to --redirect-to"
sim_http GET /v1/models
is "$status" 307 "redirect: every request, even unauthenticated"
sim_stop

# ---- huge-response ----
sim_start --tenants A=key-a --fault huge-response --huge-bytes 100000
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_huge_000001')"
is "$status:$(wc -c <"$T/sim-body" | tr -d ' ')" 200:100000 "huge-response: exactly --huge-bytes"
is "$(jq -r '.choices[0].message.content' "$T/sim-body")" CANARY_huge_000001 "huge-response: still valid JSON"
like "$(jq -r '.x_padding | length' "$T/sim-body")" '^9[0-9]{4}$' "huge-response: the padding member"
sim_http POST /v1/messages -H "$AX" -d "$(messages_json 'CANARY_huge_000001' 50 '{stream:true}')"
is "$(jq -r '.content[0].text' "$T/sim-body"):$(wc -c <"$T/sim-body" | tr -d ' ')" CANARY_huge_000001:100000 \
    "huge-response: streams also get the padded JSON"
sim_stop

# ---- close-mid-body ----
sim_start --tenants A=key-a --fault close-mid-body
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_close_00001')"
is "$status" curl:18 "close-mid-body: curl sees a partial transfer"
full=$(header content-length)
got=$(wc -c <"$T/sim-body" | tr -d ' ')
ok "$([ "$got" -gt 0 ] && [ "$got" -lt "$full" ] && echo 0 || echo 1)" \
    "close-mid-body: part of the declared $full bytes arrived ($got)"
sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json 'CANARY_close_00001' null '{stream:true}')"
is "$status" curl:18 "close-mid-body: streams are cut too"
like "$body" '"content":"CANA"' "close-mid-body: the stream got as far as the first piece"
sim_stop

# ---- prefix cache: cached tokens, and a faster first token ----
opening="$(jq -nr '"shared opening words " * 40')"
sim_start --tenants A=key-a,B=key-b --prefix-cache tenant --prefill-us-per-token 500
req=$(chat_json "$opening CANARY_cache_00001" 20 '{stream:true,stream_options:{include_usage:true}}')
ttft() { curl -s -o "$T/ttft-body" -w '%{time_starttransfer}' "$SIM_URL/v1/chat/completions" -H "$1" -d "$req"; }
cached() { sse_data <"$T/ttft-body" | jq -r '.[-1].usage.prompt_tokens_details.cached_tokens'; }
t1=$(ttft "$A"); c1=$(cached)
t2=$(ttft "$A"); c2=$(cached)
t3=$(ttft "Authorization: Bearer key-b"); c3=$(cached)
is "$c1:$c2:$c3" "0:368:0" "tenant cache: A's repeat hits 23 pages, B misses"
ok "$(echo "$t1 $t2" | awk '{ print ($1 >= 0.16 && $2 < $1) ? 0 : 1 }')" \
    "tenant cache: A's repeat starts sooner ($t2 s < $t1 s)"
sim_stop
sim_start --tenants A=key-a,B=key-b --prefix-cache global --prefill-us-per-token 500
t1=$(ttft "$A"); c1=$(cached)
t3=$(ttft "Authorization: Bearer key-b"); c3=$(cached)
is "$c1:$c3" "0:368" "global cache: B hits A's opening"
ok "$(echo "$t1 $t3" | awk '{ print ($1 >= 0.16 && $2 < $1) ? 0 : 1 }')" \
    "global cache: B starts sooner ($t3 s < $t1 s)"
sim_stop

done_testing
