#!/bin/sh
# sim-incident.sh: the incident end to end over real HTTP. Tenant A sends
# prompts holding canaries; tenant B sends a prompt between the pool and the
# advertised context. Under disagg-placeholder B gets a 200 carrying A's
# canary (decode read A's stale pages); a correct server refuses B with a 400
# and leaks nothing. Also the incident's own figures: 1,048,576 tokens
# against a 681,280-token pool.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

A="Authorization: Bearer key-a"
B="Authorization: Bearer key-b"
canaries="patient note CANARY_A_7f3e9c1d2b and CANARY_A_c0ffee4242 and CANARY_A_deadbeef99"
# 543 tokens: over the 256-token pool, under the 1024-token context
b_prompt=$(jq -nr '"lorem ipsum dolor " * 60')

incident_run() {
	sim_http POST /v1/chat/completions -H "$A" -d "$(chat_json "$canaries")"
	a_status=$status a_text=$(echo "$body" | json '.choices[0].message.content')
	sim_http POST /v1/chat/completions -H "$B" -d "$(chat_json "$b_prompt" 16)"
}

sim_start --tenants A=key-a,B=key-b --context 1024 --pool 256 --fault disagg-placeholder
sim_http POST /tokenize -H "$B" -d "$(chat_json "$b_prompt" | jq -c '{messages}')"
is "$(echo "$body" | json .count)" 543 "B's prompt is 543 tokens: between pool (256) and context (1024)"
incident_run
is "$a_status:$a_text" "200:CANARY_A_7f3e9c1d2b CANARY_A_c0ffee4242 CANARY_A_deadbeef99" \
    "A is answered with its own canaries"
is "$status" 200 "B: HTTP 200"
like "$(echo "$body" | json '.choices[0].message.content')" "CANARY_A_7f3e9c1d2b" \
    "B's answer holds A's canary"
is "$(echo "$body" | json '.choices[0].finish_reason')" length "B: finish_reason length"
is "$(echo "$body" | json .usage.prompt_tokens)" 1 "B: usage prompt_tokens 1 (the placeholder)"
unlike "$(echo "$body" | json '.choices[0].message.content')" "lorem" "B's own prompt was never seen"

# the same leak through the Anthropic API
sim_http POST /v1/messages -H "x-api-key: key-a" -d "$(messages_json "$canaries")"
sim_http POST /v1/messages -H "x-api-key: key-b" -d "$(messages_json "$b_prompt" 16)"
is "$status:$(echo "$body" | jq -c '[.stop_reason, .usage.input_tokens]')" '200:["max_tokens",1]' \
    "Anthropic: B gets 200, max_tokens, input_tokens 1"
like "$(echo "$body" | json '.content[0].text')" "CANARY_A_7f3e9c1d2b" "Anthropic: B's answer holds A's canary"

# over the advertised context the context check still refuses
long=$(jq -nr '"lorem ipsum dolor " * 120')
sim_http POST /v1/chat/completions -H "$B" -d "$(chat_json "$long")"
is "$status:$(echo "$body" | json .error.code)" 400:context_length_exceeded "over the context: 400"
like "$(echo "$body" | json .error.message)" "maximum context length is 1024 tokens" \
    "over the context: names the advertised context"
sim_stop

# a correct server refuses B before touching a page, and leaks nothing
sim_start --tenants A=key-a,B=key-b --context 1024 --pool 256
incident_run
is "$a_status" 200 "fault none: A answered"
is "$status:$(echo "$body" | json .error.code)" 400:context_length_exceeded "fault none: B refused"
is "$(echo "$body" | json .error.message)" \
    "This model's maximum context length is 256 tokens. However, your messages resulted in 543 tokens. Please reduce the length of the messages." \
    "fault none: refused below the advertised context, at the pool"
unlike "$body" "CANARY" "fault none: no canary in B's response"
sim_stop

# fault none under concurrency: two tenants stream at once through a pool of
# two pages, so one waits for the other's pages; each sees only its own canary
sim_start --tenants A=key-a,B=key-b --context 32 --pool 32 --decode-us-per-token 20000
for t in a b; do
	T_UP=$(echo "$t" | tr ab AB)
	curl -s "$SIM_URL/v1/chat/completions" -H "Authorization: Bearer key-$t" \
	    -d "$(chat_json "CANARY_${T_UP}_concurrent1 CANARY_${T_UP}_concurrent2" null '{stream:true}')" \
	    >"$T/conc-$t" &
	eval "pid_$t=\$!"
done
wait "$pid_a" "$pid_b"
for t in a b; do
	T_UP=$(echo "$t" | tr ab AB)
	is "$(sse_data <"$T/conc-$t" | jq -r '[.[] | .choices[0].delta.content // empty] | join("")')" \
	    "CANARY_${T_UP}_concurrent1 CANARY_${T_UP}_concurrent2" "concurrent tenant $T_UP gets its own canaries only"
done
sim_stop

# the incident's figures: a 1,048,576-token prompt against a 681,280-token pool
jq -nc --argjson k 524285 \
    '{model:"aivet-sim-1",max_tokens:16,messages:[{role:"user",content:("xy." + (" abcd" * $k))}]}' \
    >"$T/huge.json"
sim_start --context 1048576 --pool 681280
sim_http POST /v1/chat/completions --data-binary @"$T/huge.json"
is "$status" 400 "1M prompt, fault none: 400"
is "$(echo "$body" | json .error.message)" \
    "This model's maximum context length is 681280 tokens. However, your messages resulted in 1048576 tokens. Please reduce the length of the messages." \
    "1M prompt: refused at the pool with the exact count"
sim_stop
sim_start --context 1048576 --pool 681280 --fault disagg-placeholder
sim_http POST /v1/chat/completions --data-binary @"$T/huge.json"
is "$status:$(echo "$body" | json .usage.prompt_tokens)" 200:1 "1M prompt, disagg-placeholder: 200 with prompt_tokens 1"
sim_stop

done_testing
