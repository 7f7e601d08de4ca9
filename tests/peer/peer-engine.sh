#!/bin/sh
# peer-engine.sh: the engine probe against llama.cpp's real llama-server
# (tests/peer/peer-lib.sh): its /props, /slots and /v1/models read per slot, with
# the server's API key as the engine's credential. -c 8192 with one slot gives
# that slot 4,096 (capped at the model's training context); with four slots,
# 2,048 each. An endpoint advertising the per-slot context passes with that
# figure in the details; one advertising more is KV_POOL_BELOW_CONTEXT with both
# numbers; without the credential the node refuses and the probe says so.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/peer/peer-lib.sh"

peer_require

# engine_endpoint CONTEXT [OPTIONS...]: a fresh database, V/e advertising CONTEXT
# on the last server started, its engine llama.cpp on the same server.
engine_endpoint() {
	_ctx=$1
	shift
	db_fresh
	peer_endpoint V --context "$_ctx" --engine llama.cpp --engine-url "$PEER_URL" "$@" >/dev/null
}
engine_run() {
	run probe run V/e --probe engine --yes --json
}
verdict() {
	printf '%s' "$out" | jq -r '.probes[0] | "\(.verdict)[\([.findings[] | "\(.code):\(.severity)"] | join(","))]"'
}
fig() {
	printf '%s' "$out" | jq -c ".probes[0].details.nodes[0] | $1"
}

# ---- one slot: 8,192 capped at n_ctx_train 4,096 ----
peer_start 1 8192 || exit 1
engine_endpoint 4096 --engine-credential env:PEER_KEY_A
engine_run
is "$rc:$(verdict)" "0:pass[]" "-np 1: an endpoint advertising 4,096, the capped slot, passes"
is "$(fig '[.verdict, .context_tokens, .context_field, .slots]')" '["read",4096,"default_generation_settings.n_ctx",1]' \
    "-np 1: the slot's 4,096 in the details, from /props"
is "$(printf '%s' "$out" | jq -c '.probes[0].details | [.capacity_tokens, .sent, .prompts_sent]')" '[4096,3,0]' \
    "-np 1: capacity 4,096, three GETs, no prompt"
engine_endpoint 8192 --engine-credential env:PEER_KEY_A
engine_run
is "$rc:$(verdict)" "1:fail[KV_POOL_BELOW_CONTEXT:high]" "-np 1: advertising the -c 8,192 is more than a slot holds"
is "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "node 1 ($PEER_URL): default_generation_settings.n_ctx 4,096 (the context one request may hold) is below the advertised context of 8,192 tokens" \
    "-np 1: the field and both numbers"
# Without the key /props answers 401: an error that says so, never a pass.
engine_endpoint 4096
engine_run
is "$rc:$(verdict)" "3:error[]" "no engine credential: an error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "^1 of 1 node could not be read, so their capacity is unknown: node 1 \\($PEER_URL\\): $PEER_URL/props: HTTP 401; the endpoint has no engine credential \\(--engine-credential\\)\$" \
    "the refusal of /props (401) is said, and the credential missing"
peer_stop

# ---- four slots: 2,048 each ----
peer_start 4 8192 || exit 1
engine_endpoint 2048 --engine-credential env:PEER_KEY_B
engine_run
is "$rc:$(verdict)" "0:pass[]" "-np 4: an endpoint advertising 2,048 a slot passes"
is "$(fig '[.context_tokens, .slots]')" '[2048,4]' "-np 4: 2,048 a slot, 4 slots"
engine_endpoint 8192 --engine-credential env:PEER_KEY_B
engine_run
is "$rc:$(verdict)" "1:fail[KV_POOL_BELOW_CONTEXT:high]" "-np 4: 8,192 advertised over 2,048 a slot"
is "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "node 1 ($PEER_URL): default_generation_settings.n_ctx 2,048 (the context one request may hold) is below the advertised context of 8,192 tokens" \
    "-np 4: the field and both numbers"
peer_stop

done_testing
