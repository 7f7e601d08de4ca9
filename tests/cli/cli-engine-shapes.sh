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

# serve DIR: a static server on a free loopback port; sets URL. The server binds
# port 0 and hands the port it got over a FIFO of its own, which the test reads:
# the read returns when the server is listening, and no other server's port (a
# previous one's, closed) can be read in its place.
_serve_pids=""
_serve_n=0
serve() {
	_serve_n=$((_serve_n + 1))
	_fifo="$T/serve$_serve_n.port"
	mkfifo "$_fifo" || return 1
	python3 -c '
import functools, http.server, sys
root, fifo = sys.argv[1], sys.argv[2]
try:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
except Exception as e:
    with open(fifo, "w") as f:
        f.write("error %s\n" % e)
    sys.exit(1)
with open(fifo, "w") as f:
    f.write("%d\n" % srv.server_port)
srv.serve_forever()
' "$1" "$_fifo" 2>"$T/serve$_serve_n.err" &
	_serve_pids="$_serve_pids $!"
	read -r _port <"$_fifo"
	case $_port in
	[0-9]*) URL="http://127.0.0.1:$_port"; return 0 ;;
	esac
	echo "# the fixture server did not start: $_port"
	return 1
}
stop_serve() {
	for _p in $_serve_pids; do kill "$_p" 2>/dev/null; done
	for _p in $_serve_pids; do wait "$_p" 2>/dev/null; done
	_serve_pids=""
}
_cleanup_hooks="$_cleanup_hooks stop_serve"
# shape KIND DIRS CONTEXT: V/e at CONTEXT with engine KIND, one node per fixture
# folder of DIRS (space-separated), the engine probe run.
shape() {
	_urls=""
	for _d in $2; do
		serve "$TESTS_SRCDIR/data/engines/$_d" || exit 1
		_urls="$_urls --engine-url $URL"
	done
	db_fresh
	"$AIVET" vendor add V >/dev/null
	# shellcheck disable=SC2086
	"$AIVET" endpoint add V --name e --api openai --url http://127.0.0.1:9/v1 --model m \
	    --context "$3" --engine "$1" $_urls >/dev/null
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
# Slots of unequal contexts: a request may land on the smallest.
shape llama.cpp llama.cpp-unequal 2048
is "$(fig '[.context_tokens, .context_field]')" '[1024,"/slots n_ctx (the smallest slot)"]' \
    "llama.cpp: the smallest slot's n_ctx, from /slots"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "llama.cpp: a 1,024-token slot under 2,048 advertised"
# A slot context above the model's training context is capped at it.
shape llama.cpp llama.cpp-uncapped 8192
is "$(fig '[.context_tokens, .context_field]')" '[4096,"/v1/models meta.n_ctx_train"]' \
    "llama.cpp: a slot's 8,192 capped at n_ctx_train 4,096"
is "$(printf '%s' "$out" | jq -r '.probes[0] | "\(.verdict) \(.findings[0].message)"')" \
    "fail node 1 (${URL}): /v1/models meta.n_ctx_train 4,096 (the context one request may hold) is below the advertised context of 8,192 tokens" \
    "llama.cpp: the cap is judged, with its field and both numbers"
shape llama.cpp llama.cpp-uncapped 4096
is "$(verdict)" "pass[]" "llama.cpp: 4,096 advertised, the training context, passes"

# sglang: the incident's configuration.
shape sglang sglang 1048576
is "$(fig '[.pool_tokens, .pool_field, .context_tokens, .context_field, .mode, .page_size, .chunked_prefill_size, .version]')" \
    '[681280,"max_total_num_tokens",1048576,"context_length","decode",64,16384,"0.5.21"]' "sglang: pool, context, mode, page and chunk sizes, version"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:critical,ENGINE_VERSION_AFFECTED:high]" \
    "sglang: the pool under the context on a decode node, on a version both advisories name"

# sglang, newer: /get_server_info is 404, /server_info answers; context_length null and
# /v1/models not served: max_req_input_len = min(32,768 - 1, 420,000 - 1) - 5 = 32,762.
shape sglang sglang-new 32768
is "$(fig '[.verdict, .pool_tokens, .context_tokens, .context_field, .max_total_tokens, .mode, .version, .not_served]')" \
    '["read",420000,32768,"max_req_input_len + 6",null,null,"0.5.24",["/v1/models"]]' \
    "sglang (newer): read from /server_info, the context from max_req_input_len's arithmetic"
is "$(verdict)" "pass[]" "sglang (newer): passes"
is "$(printf '%s' "$out" | jq -c '.probes[0].details | [.sent, .judged, .classes]')" '[3,2,{"answered":1,"refused_other":2}]' \
    "sglang (newer): the 404s are counted and recorded, the reads that stand are judged"
shape sglang sglang-new 32769
is "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "node 1 (${URL}): max_req_input_len + 6 32,768 (the context one request may hold) is below the advertised context of 32,769 tokens" \
    "sglang (newer): one token more than the model's context is below it"
# A default deployment serving 131,072: context_length null, /v1/models max_model_len
# 131,072, max_req_input_len 131,066.
shape sglang sglang-default 131072
is "$(fig '[.pool_tokens, .context_tokens, .context_field, .max_total_tokens]')" '[1200000,131072,"/v1/models max_model_len",null]' \
    "sglang (default): the model's context from /v1/models; max_req_input_len + 6 is the same"
is "$(verdict)" "pass[]" "sglang (default): a healthy default deployment passes"
is "$(printf '%s' "$out" | jq -c '.probes[0].details | [.sent, .judged]')" '[2,2]' \
    "sglang (default): /v1/models asked where context_length is null"
# The same with a pool under the model's context: max_req_input_len = 100,000 - 1 - 5.
shape sglang sglang-pool-bound 131072
is "$(fig '[.pool_tokens, .context_tokens, .max_total_tokens]')" '[100000,131072,null]' "sglang (pool-bound): the pool bounds the request"
is "$(printf '%s' "$out" | jq -r '.probes[0] | "\(.verdict) \(.findings[0].message)"')" \
    "fail node 1 (${URL}): max_total_num_tokens 100,000 (the KV cache pool) is below the advertised context of 131,072 tokens" \
    "sglang (pool-bound): the pool under 131,072"
# A token pool smaller than max_total_num_tokens: max_req_input_len = min(131,071, 119,999) - 5.
shape sglang sglang-token-pool 131072
is "$(fig '[.pool_tokens, .context_tokens, .max_total_tokens, .max_total_field]')" \
    '[200000,131072,120000,"max_req_input_len + 6"]' "sglang (token pool): the scheduler's limit, tighter than pool and context"
is "$(printf '%s' "$out" | jq -r '.probes[0] | "\(.verdict) \(.findings[0].message)"')" \
    "fail node 1 (${URL}): max_req_input_len + 6 120,000 (the most tokens of one request) is below the advertised context of 131,072 tokens" \
    "sglang (token pool): 120,000 under 131,072"
# A prefill/decode pair: their pools differ by design; each holds the context.
shape sglang "sglang-pd-prefill sglang-pd-decode" 1048576
is "$(printf '%s' "$out" | jq -c '[.probes[0].details.nodes[] | [.mode, .pool_tokens, .context_tokens]]')" \
    '[["prefill",1500000,1048576],["decode",2400000,1048576]]' "sglang (prefill/decode): both nodes read with their roles"
is "$(verdict)" "pass[]" "sglang (prefill/decode): a healthy pair passes: nodes are compared within their role"
# Two decode nodes that disagree are still said.
shape sglang "sglang-pd-decode sglang-pd-prefill sglang" 1048576
is "$(printf '%s' "$out" | jq -c '[.probes[0].findings[] | select(.code == "ENGINE_NODES_DIFFER") | .message | sub("\\(http[^)]*\\)"; "(U)"; "g")]')" \
    '["KV cache pool: node 1 (U) 2,400,000, node 3 (U) 681,280; version: node 1 (U) 0.5.24, node 3 (U) 0.5.21"]' \
    "sglang: two decode nodes compared on the pool; the version across all nodes"

# vllm: 2,048 blocks of 16 tokens.
shape vllm vllm 131072
is "$(fig '[.pool_tokens, .pool_field, .engines, .context_tokens, .context_field, .version]')" \
    '[32768,"vllm:cache_config_info num_gpu_blocks x block_size",1,131072,"max_model_len","0.11.0"]' "vllm: the pool from the cache config, max_model_len, version"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "vllm: a 32,768-token pool under 131,072"
# vllm, data parallel over 2 engines: num_gpu_blocks 4,096 is their sum; one engine holds 2,048 x 16.
shape vllm vllm-dp 65536
is "$(fig '[.pool_tokens, .pool_field, .engines, .context_tokens]')" \
    '[32768,"vllm:cache_config_info num_gpu_blocks / engines x block_size",2,65536]' "vllm (data parallel): the pool per engine"
is "$(verdict)" "fail[KV_POOL_BELOW_CONTEXT:high]" "vllm (data parallel): one engine's 32,768 under 65,536, not the sum"
# Lines of one front end that differ are not a shape vLLM writes: an error naming the field.
shape vllm vllm-mixed 65536
is "$(verdict)" "error[]" "vllm: cache_config_info lines that differ are an error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "/metrics answered with vllm:cache_config_info lines that differ in num_gpu_blocks or block_size, which one front end does not write: a shape not known\$" \
    "it names the field"

# tgi 3.3.6: max_total_tokens is the window; max_input_tokens is below it by construction.
shape tgi tgi 8192
is "$(fig '[.context_tokens, .context_field, .input_tokens, .input_field, .pool_tokens, .max_total_tokens, .version]')" \
    '[8192,"max_total_tokens",8191,"max_input_tokens",null,null,"3.3.6"]' "tgi: /info's window, input limit and version"
is "$(verdict)" "pass[]" "tgi: a TGI at its window passes"
shape tgi tgi 8193
is "$(printf '%s' "$out" | jq -r '.probes[0].findings[0].message')" \
    "node 1 (${URL}): max_total_tokens 8,192 (the context one request may hold) is below the advertised context of 8,193 tokens" \
    "tgi: a window under the advertised context"
# tgi 2.2.0 still served max_batch_total_tokens: the pool.
shape tgi tgi-2.2 4096
is "$(fig '[.context_tokens, .input_tokens, .pool_tokens, .pool_field, .version]')" \
    '[4096,4095,16000,"max_batch_total_tokens","2.2.0"]' "tgi 2.2: the batch pool read"
is "$(verdict)" "pass[]" "tgi 2.2: passes at its window"
# A field the version does not serve is a shape not known: an error naming it.
shape tgi tgi-unknown 8192
is "$(verdict)" "error[]" "tgi: max_batch_total_tokens under 3.3.6 is an error"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "/info answered with max_batch_total_tokens, which text-generation-inference 3.3.6 does not serve \\(it was removed in 2.3.0\\): a shape not known\$" \
    "it names the field and the version"

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
