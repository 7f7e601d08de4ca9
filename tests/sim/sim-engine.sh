#!/bin/sh
# sim-engine.sh: the engine probe against aivet-sim's SGLang server info over
# real HTTP on 127.0.0.1, one rule at a time: a KV pool below the advertised
# context (high), the same on a disaggregated node (critical), nodes that
# disagree, a node that cannot be read (an error for that node, never a
# pass), a version an advisory names, and the engine's admin credential. The
# probe sends no prompt: the simulator's log shows GETs only, and the run
# counts 0 tokens. TEST_CASES="name ..." runs only those cases.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

# per_probe: "name:verdict[CODE:severity,...]" of the run JSON in $out.
per_probe() {
	printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)[\([.findings[] | "\(.code):\(.severity)"] | sort | join(","))]"] | join(" ")'
}
finding() {
	printf '%s' "$out" | jq -r --arg c "$1" '.probes[].findings[] | select(.code == $c) | .message'
}
node() {
	printf '%s' "$out" | jq -c ".probes[] | select(.name == \"engine\") | .details.nodes[$1] | $2"
}
CTX=1048576
# endpoint NODE-URL...: a fresh database, V/e at a 1,048,576-token context whose
# sglang engine runs on the nodes given.
endpoint() {
	db_fresh
	_nodes=""
	for _u in "$@"; do _nodes="$_nodes --engine-url $_u"; done
	# shellcheck disable=SC2086
	"$AIVET" vendor add V >/dev/null &&
	"$AIVET" endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	    --context $CTX --engine sglang $_nodes $EXTRA >/dev/null || echo "# endpoint add failed"
}
EXTRA=""
engine_run() {
	run probe run V/e --probe engine --yes --json "$@"
}
# posts: how many requests other than GET /get_server_info the last simulator saw.
posts() {
	grep '^aivet-sim: #' "$SIM_LOG" | grep -c -v ' GET /get_server_info ' || true
}

# ---- the pool below the context on one node, not disaggregated: high ----
if case_on pool-below-context; then
	sim_start --context $CTX --pool 681280 --engine-mode null || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "1:engine:fail[KV_POOL_BELOW_CONTEXT:high]" \
	    "rule kv-pool: a pool of 681,280 tokens under a 1,048,576-token context is KV_POOL_BELOW_CONTEXT, high"
	is "$(finding KV_POOL_BELOW_CONTEXT)" \
	    "node 1 ($SIM_URL): max_total_num_tokens 681,280 (the KV cache pool) is below the advertised context of 1,048,576 tokens" \
	    "the finding names the node, both numbers and the field"
	is "$(node 0 '[.verdict, .pool_tokens, .pool_field, .context_tokens, .context_field, .version, .mode]')" \
	    '["read",681280,"max_total_num_tokens",1048576,"context_length","0.5.23",null]' "the node's figures, each with its field"
	is "$(printf '%s' "$out" | jq -c '[.tokens_in, .tokens_out, .probes[0].details.prompts_sent, .probes[0].details.sent]')" \
	    "[0,0,0,1]" "no prompt: 0 tokens, one GET"
	is "$(posts):$(grep -c ' GET /get_server_info ' "$SIM_LOG")" 0:1 "the simulator saw one GET /get_server_info and nothing else"
	is "$(sqlite3 "$AIVET_DB" "SELECT method || ' ' || url || ' ' || response_status || ' ' || coalesce(tenant, '-') FROM exchange WHERE probe = 'engine'")" \
	    "GET $SIM_URL/get_server_info 200 -" "the raw response is kept as evidence, for no tenant"
	is "$(sqlite3 "$AIVET_DB" "SELECT b.data FROM exchange x JOIN blob b ON b.sha256 = x.response_blob WHERE x.probe = 'engine'" | jq -r .max_total_num_tokens)" \
	    681280 "the evidence holds the engine's own body"
	sim_stop
fi

# ---- the same on a node running disaggregated prefill/decode: critical ----
if case_on disaggregated; then
	sim_start --context $CTX --pool 681280 --engine-mode decode || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "1:engine:fail[KV_POOL_BELOW_CONTEXT:critical]" \
	    "rule kv-pool-disaggregated: the pool below the context on a decode node is critical"
	like "$(finding KV_POOL_BELOW_CONTEXT)" "; the node runs disaggregated, mode decode\$" "the mode is named"
	run audit verify
	like "$rc:$out" "^0:audit chain intact" \
	    "raised to critical is within the registry's range for the code (high to critical): audit verify passes"
	sim_stop
	# A finding stored past what the registry allows its code is named: an
	# ENGINE_VERSION_AFFECTED (high, never raised) rewritten to critical before
	# it was sealed, by a trigger planted in the file (an SQLite file's
	# attack: on PostgreSQL the roles cannot create triggers).
	[ "${AIVET_TEST_BACKEND:-sqlite}" = pg ] || {
	sim_start --context $CTX --pool 1200000 --engine-version 0.5.22 || exit 1
	endpoint "$SIM_URL"
	sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_update;
		CREATE TRIGGER zz AFTER INSERT ON finding BEGIN
		UPDATE finding SET severity = 'critical' WHERE id = NEW.id; END"
	engine_run
	fid=$(sqlite3 "$AIVET_DB" "SELECT id FROM finding WHERE code = 'ENGINE_VERSION_AFFECTED'")
	fseq=$(sqlite3 "$AIVET_DB" "SELECT min(seq) FROM audit_log WHERE object_type = 'finding' AND object_id = ${fid:-0}")
	run audit verify
	is "$rc:$errout" "1:aivet: audit chain broken: finding $fid (audit entry $fseq) is recorded as critical, but a ENGINE_VERSION_AFFECTED finding is high (the finding registry)" \
	    "rule severity-worst: a code never raised, stored above its severity, is named"
	sim_stop
	}
	sim_start --context $CTX --pool 2000000 --engine-mode prefill || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:pass[]" "disaggregated alone, with room for the context, passes"
	is "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
	    "every node (1) holds the advertised context of 1,048,576 tokens in one request, and the nodes agree; no prompt was sent" \
	    "the pass says what was checked"
	sim_stop
fi

# ---- two nodes that disagree on the pool (both large enough) ----
if case_on nodes-differ; then
	sim_start --context $CTX --pool 1200000 || exit 1
	U1=$SIM_URL
	sim_start --context $CTX --pool 2400000 || exit 1
	endpoint "$U1" "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:fail[ENGINE_NODES_DIFFER:medium]" \
	    "rule nodes-differ: two nodes with different pools are ENGINE_NODES_DIFFER, medium (exit 0 under --fail-on high)"
	is "$(finding ENGINE_NODES_DIFFER)" \
	    "KV cache pool: node 1 ($U1) 1,200,000, node 2 ($SIM_URL) 2,400,000" "the finding names both nodes and both pools"
	is "$(printf '%s' "$out" | jq -c '.probes[0].findings[0].evidence | length')" 2 "both nodes' responses are its evidence"
	sim_stop
	sim_start --context $CTX --pool 1200000 --engine-version 0.5.24 || exit 1
	endpoint "$U1" "$SIM_URL"
	engine_run
	is "$(finding ENGINE_NODES_DIFFER)" \
	    "version: node 1 ($U1) 0.5.23, node 2 ($SIM_URL) 0.5.24" "a version difference alone"
	sim_stop
fi

# ---- SGLang's default deployment: context_length null, the model's own ----
if case_on default-deployment; then
	# max_req_input_len = min(1,048,576 - 1, 1,200,000 - 1) - 5 = 1,048,570.
	sim_start --context $CTX --pool 1200000 --engine-model-context || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:pass[]" "rule sglang-default: a healthy default deployment passes"
	is "$(node 0 '[.context_tokens, .context_field, .max_total_tokens]')" '[1048576,"/v1/models max_model_len",null]' \
	    "the context is the model's, from /v1/models; max_req_input_len + 6 is no tighter"
	is "$(grep -c ' GET /v1/models ' "$SIM_LOG")" 1 "/v1/models asked once, where context_length is null"
	is "$(sqlite3 "$AIVET_DB" "SELECT b.data FROM exchange x JOIN blob b ON b.sha256 = x.response_blob WHERE x.probe = 'engine' AND x.url LIKE '%/get_server_info'" | jq -c '[.context_length, .max_req_input_len]')" \
	    '[null,1048570]' "aivet-sim computes max_req_input_len as SGLang does: min(1,048,575, 1,199,999) - 5"
	sim_stop
	# The incident's pool under the same default: still caught, critical on a decode node.
	sim_start --context $CTX --pool 681280 --engine-mode decode --engine-model-context || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "1:engine:fail[KV_POOL_BELOW_CONTEXT:critical]" \
	    "the incident's configuration under the default context is still critical"
	is "$(node 0 '[.pool_tokens, .context_tokens]')" '[681280,1048576]' "the pool under the model's context"
	sim_stop
fi

# ---- a prefill/decode pair: they differ in role and pool by design ----
if case_on pd-pair; then
	sim_start --context $CTX --pool 1500000 --engine-mode prefill || exit 1
	U1=$SIM_URL
	sim_start --context $CTX --pool 2400000 --engine-mode decode || exit 1
	endpoint "$U1" "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:pass[]" \
	    "rule nodes-by-role: a healthy prefill/decode pair is not ENGINE_NODES_DIFFER"
	sim_stop
	# Versions are compared across roles.
	sim_start --context $CTX --pool 2400000 --engine-mode decode --engine-version 0.5.24 || exit 1
	endpoint "$U1" "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:fail[ENGINE_NODES_DIFFER:medium]" \
	    "rule version-across-roles: a prefill and a decode node on two versions differ"
	is "$(finding ENGINE_NODES_DIFFER)" "version: node 1 ($U1) 0.5.23, node 2 ($SIM_URL) 0.5.24" \
	    "the version alone, not the pool"
	sim_stop
fi

# ---- a node that cannot be read: an error for that node, never a pass ----
if case_on unreadable-node; then
	sim_start --context $CTX --pool 1200000 || exit 1
	U1=$SIM_URL
	sim_start --context $CTX --pool 1200000 --fault engine-unreadable || exit 1
	endpoint "$U1" "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "3:engine:error[]" "rule unreadable-node: one node answering 500 makes the probe an error, not a pass"
	is "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
	    "1 of 2 nodes could not be read, so their capacity is unknown: node 2 ($SIM_URL): $SIM_URL/get_server_info: HTTP 500" \
	    "the reason names the node and what it answered"
	is "$(node 1 '[.verdict, .pool_tokens]')" '["error",null]' "the unread node has no figures"
	is "$(node 0 '.verdict')" '"read"' "the other node was read"
	run probe show "$(printf '%s' "$out" | jq -r .id)"
	is "$(printf '%s\n' "$out" | grep '^       node ')" "       node 1 $U1: pool 1,200,000, context 1,048,576, version 0.5.23, mode null
       node 2 $SIM_URL: not read" "probe show: a line per node, the unread one said"
	sim_stop
	endpoint "$U1" "http://127.0.0.1:9"
	engine_run
	is "$rc:$(per_probe)" "3:engine:error[]" "a node that does not answer at all is an error"
	like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" "node 2 \\(http://127.0.0.1:9\\): http://127.0.0.1:9/get_server_info: " \
	    "the closed port is named"
fi

# ---- a version an advisory names (built in, OSV) ----
if case_on affected-version; then
	sim_start --context $CTX --pool 1200000 --engine-version 0.5.22 || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "1:engine:fail[ENGINE_VERSION_AFFECTED:high]" \
	    "rule version-affected: 0.5.22 is in the transfer-backend advisory's range"
	is "$(finding ENGINE_VERSION_AFFECTED)" \
	    "node 1 ($SIM_URL): sglang 0.5.22 is affected by AIVET-2026-0002 (SGLang KV transfer backends: a failed or partial page transfer is not reported to the decode node); fixed in 0.5.23" \
	    "0.5.22 is fixed for the disaggregation advisory, not for the transfer backends"
	sim_stop
	sim_start --context $CTX --pool 1200000 --engine-version 0.5.21rc1 || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$(node 0 '[.advisories[].id]')" '["AIVET-2026-0001","AIVET-2026-0002"]' "a pre-release of 0.5.21 is in both ranges"
	sim_stop
	sim_start --context $CTX --pool 1200000 --engine-version nightly-abc || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "0:engine:pass[]" "a version no range orders raises nothing ..."
	is "$(node 0 '.advisories')" '"not checked: the version is not one an advisory'"'"'s range can be compared with"' \
	    "... and says it was not checked"
	sim_stop
fi

# ---- the engine's admin credential: read as an endpoint's, sent, recorded redacted ----
if case_on credential; then
	export ENGINE_ADMIN_KEY=adm-0123456789abcdef
	sim_start --context $CTX --pool 1200000 --engine-key "$ENGINE_ADMIN_KEY" || exit 1
	endpoint "$SIM_URL"
	engine_run
	is "$rc:$(per_probe)" "3:engine:error[]" "without the admin credential the node refuses: an error"
	like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" "HTTP 401" "the refusal is named"
	EXTRA="--engine-credential env:ENGINE_ADMIN_KEY"
	endpoint "$SIM_URL"
	EXTRA=""
	engine_run
	is "$rc:$(per_probe)" "0:engine:pass[]" "with it the node is read"
	is "$(sqlite3 "$AIVET_DB" "SELECT request_headers FROM exchange WHERE probe = 'engine'" | jq -r .Authorization)" \
	    "[redacted]" "the credential is recorded redacted"
	is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange x LEFT JOIN blob b ON b.sha256 IN (x.request_blob, x.response_blob) WHERE instr(x.request_headers || coalesce(b.data, ''), '$ENGINE_ADMIN_KEY') > 0")" \
	    0 "the secret is in no exchange"
	run audit log --json
	is "$(printf '%s' "$out" | jq -r '[.[] | select(.action == "endpoint.add") | .details.credentials["@engine"]] | last')" \
	    "env:ENGINE_ADMIN_KEY" "the reference (never the secret) is in the audit entry that set it"
	if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
		skip "on PostgreSQL the runner is the login, not AIVET_ACTOR (tests/pg/pg-credrefs.sh has logins)"
	else
		AIVET_ACTOR=someone-else run probe run V/e --probe engine --yes --json
		like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
		    "the engine's credential: credential env:ENGINE_ADMIN_KEY was set by .*, not by you \\(someone-else\\)" \
		    "a runner who did not set it is refused, as for an endpoint's credential"
	fi
	sim_stop
fi

# ---- the default suite holds the engine probe when an engine is set; 0 tokens planned ----
if case_on default-suite; then
	sim_start --context $CTX --pool 1200000 || exit 1
	endpoint "$SIM_URL" "$SIM_URL/"
	run probe run V/e --dry-run --json
	is "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "engine") | [.requests, .tokens_in, .tokens_out]')" \
	    "[2,0,0]" "the plan: one GET per node, 0 tokens"
	db_fresh
	"$AIVET" vendor add V >/dev/null
	"$AIVET" endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context $CTX >/dev/null
	run probe run V/e --dry-run --json
	is "$(printf '%s' "$out" | jq -c '[.probes[].name] | index("engine")')" "null" "no engine set: not in the default suite"
	engine_run
	is "$rc:$(per_probe)" "3:engine:error[]" "named without an engine: an error saying how to set one"
	like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" "endpoint edit V/e --engine sglang" "the reason gives the command"
	sim_stop
fi

# ---- after every change: probe diff and --compare-last report the engine's changes ----
if case_on diff; then
	sim_start --context $CTX --pool 1200000 --engine-version 0.5.23 || exit 1
	U1=$SIM_URL
	endpoint "$U1"
	engine_run
	a=$(printf '%s' "$out" | jq -r .id)
	run probe run V/e --probe engine --yes --compare-last
	is "$rc" 0 "unchanged engine: exit 0"
	like "$out" "no drift from run $a to run $((a + 1)) \\(V/e\\)" "unchanged engine: no drift"
	sim_start --context $CTX --pool 681280 --engine-version 0.5.24 --engine-mode decode || exit 1
	"$AIVET" endpoint edit V/e --engine-url "$U1" --engine-url "$SIM_URL" >/dev/null
	run probe run V/e --probe engine --yes --compare-last
	like "$out" "drift from run $((a + 1)) to run $((a + 2)) \\(V/e\\):" "a second node with another configuration: drift"
	like "$out" "  engine             nodes 1 -> 2" "the node count is reported"
	run probe diff "$a" "$((a + 2))" --json
	is "$rc:$(printf '%s' "$out" | jq -c '.engine')" '1:[{"field":"nodes","a":1,"b":2}]' \
	    "node 1 unchanged: only the count, exit 1"
	"$AIVET" endpoint edit V/e --engine-url "$SIM_URL" >/dev/null
	engine_run
	run probe diff "$a" "$((a + 3))" --json
	is "$(printf '%s' "$out" | jq -c '.engine')" \
	    '[{"field":"node 1 version","a":"0.5.23","b":"0.5.24"},{"field":"node 1 pool_tokens","a":1200000,"b":681280},{"field":"node 1 mode","a":null,"b":"decode"}]' \
	    "version, pool and mode changes, each with both values"
	is "$(printf '%s' "$out" | jq -c '[.findings.new[].code]')" '["KV_POOL_BELOW_CONTEXT"]' "and the new finding"
	sim_stop
fi

# ---- cheap enough to run every few minutes: one GET a node, no prompt ----
if case_on timing; then
	sim_start --context $CTX --pool 1200000 || exit 1
	port=${SIM_URL##*:}
	endpoint "$SIM_URL" "$SIM_URL/" "http://localhost:$port" "http://localhost:$port/"
	t0=$(date +%s%N)
	engine_run
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	echo "# probe run --probe engine, 4 nodes on loopback: $ms ms in all, $((ms / 4)) ms a node"
	is "$rc:$(per_probe)" "0:engine:pass[]" "four nodes read"
	# What makes it cheap is what it sends (its time is the line above; no test times it).
	is "$(posts):$(grep -c ' GET /get_server_info ' "$SIM_LOG")" 0:4 "cheap: one GET a node, and no prompt"
	sim_stop
fi

# ---- the nightly job of docs/ runs the engine probe with the default suite ----
if case_on nightly; then
	sim_start --context 8192 --pool 5324 || exit 1
	db_fresh
	"$AIVET" vendor add V >/dev/null
	"$AIVET" endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
	    --context 8192 --engine sglang --engine-url "$SIM_URL" >/dev/null
	"$AIVET" key generate --no-password >/dev/null 2>&1
	AIVET="$AIVET" AIVET_OUT="$T/night" AIVET_PROBES=all sh "$TESTS_SRCDIR/../docs/aivet-nightly.sh" \
	    >/dev/null 2>"$T/nightly.err"
	night=$(ls -d "$T"/night/* | tail -n 1)
	is "$(jq -c '.[0].probes[0] | [.name, .requests, (.findings | map(.code))]' "$night/runs.json")" \
	    '["engine",1,["KV_POOL_BELOW_CONTEXT"]]' "the nightly job's default suite runs the engine probe first, one GET"
	is "$(jq -c '.[0].plan.probes[] | select(.name == "engine") | [.requests, .tokens_in, .tokens_out]' "$night/runs.json")" '[1,0,0]' \
	    "its plan says 0 tokens"
	sim_stop
fi

# ---- claims: the capacity-check answer and the stated context, judged by the engine ----
# claim QUESTION: "status: reason" of that claim in assess show.
claim() {
	"$AIVET" assess show 1 --json | jq -r --arg q "$1" '.claims[] | select(.question_id == $q) | "\(.status): \(.reason)"'
}
if case_on claims; then
	sim_start --context $CTX --pool 681280 --engine-mode decode || exit 1
	endpoint "$SIM_URL"
	"$AIVET" assess start V llm-inference-isolation >/dev/null
	for qa in context_capacity_check=every_node_every_change advertised_context_tokens=1048576 \
	    guaranteed_context_tokens=1048576; do
		"$AIVET" assess answer 1 "${qa%%=*}" "${qa#*=}" >/dev/null
	done
	engine_run
	run_id=$(printf '%s' "$out" | jq -r .id)
	is "$(claim context_capacity_check)" "contradicted: KV_POOL_BELOW_CONTEXT in run $run_id (engine)" \
	    "claim: 'checked on every node' is contradicted by the engine's finding"
	is "$(claim guaranteed_context_tokens)" \
	    "contradicted: the engine's own status in run $run_id: one request holds at most 681280 tokens, under the answered 1048576" \
	    "claim: the stated guaranteed context is contradicted by the number the engine gives, not by the finding's code"
	# The pool itself, stated: the finding is about the advertised context, and
	# this answer is true of it (equal is not contradicted).
	"$AIVET" assess answer 1 guaranteed_context_tokens 681280 >/dev/null
	is "$(claim guaranteed_context_tokens)" \
	    "confirmed: the engine's own status in run $run_id: every node holds 681280 tokens in one request, and no finding contradicts it" \
	    "claim: a guaranteed context equal to the pool the engine reports is confirmed, beside KV_POOL_BELOW_CONTEXT"
	is "$("$AIVET" assess show 1 --json | jq -c '[.claims[] | select(.question_id == "guaranteed_context_tokens") | .contradicting | length]')" \
	    "[0]" "and no finding is cited against it"
	"$AIVET" assess answer 1 guaranteed_context_tokens 1048576 >/dev/null
	# Disaggregation is a fact the engine reads of its nodes: a decode node
	# contradicts "no" and confirms "yes".
	"$AIVET" assess answer 1 pd_disaggregated no >/dev/null
	is "$(claim pd_disaggregated)" "contradicted: the engine's own status in run $run_id: node $SIM_URL serves as decode" \
	    "claim: 'not disaggregated' is contradicted by a node that reports the decode role"
	"$AIVET" assess answer 1 pd_disaggregated yes >/dev/null
	is "$(claim pd_disaggregated)" "confirmed: the engine's own status in run $run_id: node $SIM_URL serves as decode" \
	    "claim: 'disaggregated' is confirmed by it"
	sim_stop
	sim_start --context $CTX --pool 1200000 || exit 1
	"$AIVET" endpoint edit V/e --engine-url "$SIM_URL" >/dev/null
	engine_run
	run_id=$(printf '%s' "$out" | jq -r .id)
	is "$(claim context_capacity_check)" "confirmed: probe engine passed, and no finding contradicts it" \
	    "claim: confirmed when the engine probe read every node and found the context held"
	is "$(claim pd_disaggregated)" "untested: no node of the 1 the engine probe read in run $run_id reports a prefill or decode role; not every engine reports one" \
	    "claim: 'disaggregated' is untested where no node reports a role"
	"$AIVET" assess answer 1 pd_disaggregated no >/dev/null
	is "$(claim pd_disaggregated)" "consistent: no node of the 1 the engine probe read in run $run_id reports a prefill or decode role; not every engine reports one" \
	    "claim: 'not disaggregated' is only consistent with nodes that report no role"
	is "$(claim guaranteed_context_tokens)" \
	    "confirmed: the engine's own status in run $run_id: every node holds 1048576 tokens in one request, and no finding contradicts it" \
	    "claim: the stated context confirmed by the engine's own figure, no prompt sent"
	"$AIVET" assess answer 1 guaranteed_context_tokens 2000000 >/dev/null
	is "$(claim guaranteed_context_tokens)" \
	    "contradicted: the engine's own status in run $run_id: one request holds at most 1048576 tokens, under the answered 2000000" \
	    "claim: a stated context above what the engine holds is contradicted"
	sim_stop
fi

done_testing
