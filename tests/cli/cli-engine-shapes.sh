#!/bin/sh
# cli-engine-shapes.sh: the engine probe reads each engine's status shape,
# from fixtures built from the engines' sources and one captured from a real
# llama-server (tests/data/engines/README.md says which), each folder served
# over HTTP on 127.0.0.1 by Python's http.server as the engine serves it.
# Asserts the figures read, the fields they came from, and the verdict.
. "$TESTS_SRCDIR/lib/lib.sh"

if ! command -v python3 >/dev/null; then
	skip "python3 is needed to serve the fixtures"
	done_testing
	exit 0
fi

# serve DIR: a static server on a free loopback port; sets URL.
serve() {
	python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$1" >"$T/serve.out" 2>"$T/serve.err" &
	_serve_pid=$!
	for _i in $(seq 1 100); do
		URL=$(sed -n 's|^Serving HTTP on 127.0.0.1 port \([0-9]*\).*|http://127.0.0.1:\1|p' "$T/serve.out")
		[ -n "$URL" ] && return 0
		sleep 0.05
	done
	echo "# http.server did not start"
	sed 's/^/#   /' "$T/serve.err"
	return 1
}
stop_serve() {
	if [ -n "${_serve_pid:-}" ]; then
		kill "$_serve_pid" 2>/dev/null
		wait "$_serve_pid" 2>/dev/null
	fi
	_serve_pid=""
}
_cleanup_hooks="$_cleanup_hooks stop_serve"
# shape KIND DIR CONTEXT: V/e at CONTEXT with engine KIND at the fixture's folder, the engine probe run.
shape() {
	serve "$TESTS_SRCDIR/data/engines/$2" || exit 1
	db_fresh
	"$AIVET" vendor add V >/dev/null
	"$AIVET" endpoint add V --name e --api openai --url http://127.0.0.1:9/v1 --model m \
	    --context "$3" --engine "$1" --engine-url "$URL" >/dev/null
	run probe run V/e --probe engine --yes --json
	# What the probe said, should a figure below be missing.
	echo "# $1 ($2): $(printf '%s' "$out" | jq -r '.probes[0].reason // "no reason"')"
	stop_serve
}
fig() {
	printf '%s' "$out" | jq -c ".probes[0].details.nodes[0] | $1"
}
verdict() {
	printf '%s' "$out" | jq -r '.probes[0] | "\(.verdict)[\([.findings[] | "\(.code):\(.severity)"] | join(","))]"'
}

# ---- endpoint --engine, --engine-url, --engine-credential: checked, stored, shown, audited ----
"$AIVET" vendor add V >/dev/null
"$AIVET" endpoint add V --name e --api openai --url http://127.0.0.1:9/v1 --model m --context 10 >/dev/null
before=$(db_snapshot)
run endpoint edit V/e --engine sglang --engine-url http://x.example.com/
is "$rc:$errout" "2:aivet: --engine-url: plain http to x.example.com would send credentials unencrypted; use https, or --allow-insecure-http if you really mean it" \
    "an engine URL is checked as the endpoint's"
run endpoint edit V/e --engine sglang --engine-url 'http://127.0.0.1:1/?api_key=sk-abcdefabcdefabcdefabcdef'
like "$rc:$errout" "^2:aivet: --engine-url: the URL's query carries a credential" "a key in an engine URL is refused"
run endpoint edit V/e --engine sglang --engine-url http://127.0.0.1:1 --engine-credential sk-secret-value
is "$rc:$errout" "2:aivet: --engine-credential: a credential must be a reference, env:VAR or file:PATH; a literal secret is refused and was not stored" \
    "a literal engine secret is refused"
run endpoint edit V/e --engine-url http://127.0.0.1:1
is "$rc:$errout" "2:aivet: --engine-url needs --engine sglang|vllm|tgi|llama.cpp" "a node needs the engine's kind"
run endpoint edit V/e --engine sglang
is "$rc:$errout" "2:aivet: --engine needs at least one --engine-url (one per node)" "a kind needs a node"
run endpoint edit V/e --engine vmm --engine-url http://127.0.0.1:1
is "$rc:$errout" "2:aivet: --engine: 'vmm' is not one of sglang, vllm, tgi, llama.cpp" "an unknown kind"
run endpoint edit V/e --engine sglang --engine-url http://127.0.0.1:1 --engine-url http://127.0.0.1:1
is "$rc:$errout" "2:aivet: --engine-url: http://127.0.0.1:1 given twice" "a node given twice"
is "$(db_snapshot)" "$before" "nothing was stored by a refused edit"
run endpoint edit V/e --engine vllm --engine-url http://127.0.0.1:1 --engine-url http://127.0.0.1:2/ \
    --engine-credential env:ENGINE_KEY
is "$rc" 0 "an engine of two nodes"
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c .engine)" \
    '{"kind":"vllm","nodes":["http://127.0.0.1:1","http://127.0.0.1:2/"],"credential":"env:ENGINE_KEY"}' "endpoint show --json: the engine"
run endpoint show V/e
is "$(printf '%s\n' "$out" | tail -3)" "  engine       vllm, 2 nodes, credential env:ENGINE_KEY
    node 1       http://127.0.0.1:1
    node 2       http://127.0.0.1:2/" "endpoint show: the engine and its nodes"
run endpoint edit V/e --engine-url http://127.0.0.1:3
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c .engine)" '{"kind":"vllm","nodes":["http://127.0.0.1:3"],"credential":"env:ENGINE_KEY"}' \
    "--engine-url given replaces the nodes, the kind and credential kept"
run audit log --json
is "$(printf '%s' "$out" | jq -c '[.[] | select(.action == "endpoint.edit") | .details.engine]')" \
    '[{"kind":"vllm","nodes":["http://127.0.0.1:1","http://127.0.0.1:2/"]},{"kind":"vllm","nodes":["http://127.0.0.1:3"]}]' \
    "each change is in its audit entry"
run endpoint edit V/e --remove-engine
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c .engine)" "null" "--remove-engine drops it"
run audit verify
is "$rc" 0 "the endpoint's seal, engine nodes included, verifies"

# llama.cpp, -c 8192 -np 4: each request holds 2,048 tokens whatever the endpoint advertises.
shape llama.cpp llama.cpp 8192
is "$(fig '[.verdict, .context_tokens, .context_field, .slots, .pool_tokens, .version]')" \
    '["read",2048,"default_generation_settings.n_ctx",4,null,"b0-dc02e1f8"]' "llama.cpp: n_ctx per slot, 4 slots, build_info"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "llama.cpp: 2,048 per slot under 8,192 advertised"
like "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "default_generation_settings.n_ctx 2,048 \\(the context one request may hold\\) is below the advertised context of 8,192 tokens" \
    "llama.cpp: the field and both numbers"
is "$(fig '.advisories')" '"not checked: the version is not one an advisory'"'"'s range can be compared with"' \
    "llama.cpp: a build id is not taken as unaffected"
is "$(printf '%s' "$out" | jq -c '[.probes[0].details.sent, .tokens_in]')" "[3,0]" "llama.cpp: three GETs, no token"
shape llama.cpp llama.cpp 2048
is "$(verdict)" "pass[]" "llama.cpp: an endpoint advertising 2,048 passes"
shape llama.cpp llama.cpp-no-slots 8192
is "$(fig '[.verdict, .context_tokens, .not_served]')" '["read",2048,["/slots","/v1/models"]]' \
    "llama.cpp without /slots: read from /props, the paths not served said"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "llama.cpp without /slots: still judged"

# sglang: the incident's configuration.
shape sglang sglang 1048576
is "$(fig '[.pool_tokens, .pool_field, .context_tokens, .mode, .page_size, .chunked_prefill_size, .version]')" \
    '[681280,"max_total_num_tokens",1048576,"decode",64,16384,"0.5.21"]' "sglang: pool, context, mode, page and chunk sizes, version"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:critical,ENGINE_VERSION_AFFECTED:high]" \
    "sglang: the pool under the context on a decode node, on a version both advisories name"

# sglang, newer: /get_server_info is 404, /server_info answers; context_length null.
shape sglang sglang-new 32768
is "$(fig '[.verdict, .pool_tokens, .context_tokens, .context_field, .mode, .version]')" \
    '["read",420000,32768,"max_req_input_len + 1",null,"0.5.24"]' "sglang (newer): read from /server_info, the context from max_req_input_len"
is "$(verdict)" "pass[]" "sglang (newer): passes"
is "$(printf '%s' "$out" | jq -c '.probes[0].details | [.sent, .judged, .classes]')" '[2,1,{"answered":1,"refused_other":1}]' \
    "sglang (newer): the 404 is counted and recorded, the read that stands is judged"

# vllm: 2,048 blocks of 16 tokens.
shape vllm vllm 131072
is "$(fig '[.pool_tokens, .pool_field, .context_tokens, .context_field, .version]')" \
    '[32768,"vllm:cache_config_info num_gpu_blocks x block_size",131072,"max_model_len","0.11.0"]' "vllm: the pool from the cache config, max_model_len, version"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "vllm: a 32,768-token pool under 131,072"

# tgi
shape tgi tgi 8192
is "$(fig '[.max_total_tokens, .context_tokens, .context_field, .pool_tokens, .pool_field, .version]')" \
    '[8192,8191,"max_input_tokens",65536,"max_batch_total_tokens","3.3.6"]' "tgi: /info's limits and version"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "tgi: 8,191 input tokens under 8,192 advertised"
shape tgi tgi 8191
is "$(verdict)" "pass[]" "tgi: 8,191 advertised passes"

# A node that answers without the engine's fields is an error for it, never a pass.
shape sglang wrong 2048
is "$(verdict)" "error[]" "a server info without the pool is an error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "node 1 \\(.*\\): the server info answered without max_total_num_tokens\$" "it names the missing field"
# A path an engine must serve is not optional: vLLM's /metrics without /v1/models.
shape vllm llama.cpp-no-slots 131072
is "$(verdict)" "error[]" "vllm: no /metrics is an error"
# And one whose paths are not there at all.
shape sglang llama.cpp 2048
is "$(verdict)" "error[]" "no server info at either path is an error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" "/server_info: HTTP 404\$" "it names the last path asked and the status"

done_testing
