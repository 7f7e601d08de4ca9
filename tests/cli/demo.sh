#!/bin/sh
# demo.sh: "aivet demo" reproduces the incident against aivet-sim (found
# beside aivet): the engine probe reads the pool of 681,280 tokens below the
# context of 1,048,576 from the engine itself first, with no prompt (0
# tokens); then from outside the size at which content integrity broke must
# be the pool within 1%; the demo states both; the fixed configuration passes. The full-size run
# is this suite's one test at the incident's real numbers.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"

# Without AIVET_DB or --db the demo makes its own database.
out=$(env -u AIVET_DB "$AIVET" demo 2>"$T/stderr") && rc=0 || rc=$?
is "$rc" 0 "demo exits 0"
like "$out" "^\[1/2\] the vendor as it was: http://127\.0\.0\.1:[0-9]+, tenants alice and bob" "the faulty vendor"
first=$(printf '%s\n' "$out" | grep -n -m1 -e 'KV_POOL_BELOW_CONTEXT' -e 'PLACEHOLDER_SUBSTITUTION' -e 'LEAK_CROSS_TENANT' | cut -d: -f2-)
like "$first" "^       critical KV_POOL_BELOW_CONTEXT: node 1 \(http://127\.0\.0\.1:[0-9]+\): max_total_num_tokens 681,280 \(the KV cache pool\) is below the advertised context of 1,048,576 tokens; the node runs disaggregated, mode decode " \
    "the engine finding comes first: the pool below the context, on a decode node, critical"
like "$out" "run 1 on demo-vendor/chat: completed \(0 tokens in, 0 out\)" "the engine's run sent no token"
like "$out" "What the engine says of itself, with no prompt \(run 1, 0 tokens\):
  Its KV pool holds 681,280 tokens; the advertised context is 1,048,576 tokens \(a decode node: disaggregated\)\.
  One request of the advertised size cannot fit: KV_POOL_BELOW_CONTEXT \(evidence 1, the engine's own response\)\." \
    "the demo states the engine's finding"
like "$out" "  Both say the same: the engine's pool, read with no prompt, and where the content broke
  from outside, after [0-9,]+ tokens were sent, are 0\.[0-9]+% apart\." "and that the sweep confirms it from outside"
n=$(printf '%s\n' "$out" | sed -n 's/^  Content integrity broke at \([0-9,]*\) tokens; the advertised context is 1,048,576 tokens\.$/\1/p' | tr -d ,)
ok "$([ -n "$n" ] && [ "$n" -ge 674468 ] && [ "$n" -le 688093 ] && echo 0 || echo 1)" \
    "integrity broke at $n tokens: 681,280 within 1%, beside the advertised 1,048,576"
like "$out" "critical LEAK_CROSS_TENANT: .*a response to tenant 'bob' contained canaries that tenant 'alice' sent" \
    "the cross-tenant leak is found"
like "$out" "critical PLACEHOLDER_SUBSTITUTION" "the placeholder is found"
like "$out" "Tenant (alice|bob) received canaries that only tenant (bob|alice) had sent \(evidence [0-9]+\)\." \
	"and explained, in the direction the canary probe attributed"
like "$out" "  Each is another customer's prompt, returned in an HTTP 200\." \
	"with what that means, once"
# The evidence cited is the response the other tenant's canary came back in.
line=$(printf '%s\n' "$out" | grep -m1 'received canaries that only tenant')
got_by=$(printf '%s' "$line" | sed 's/^  Tenant \([a-z]*\) received.*/\1/')
owner=$(printf '%s' "$line" | sed 's/.*only tenant \([a-z]*\) had sent.*/\1/')
cited=$(printf '%s' "$line" | sed 's/.*(evidence \([0-9]*\))\.$/\1/')
demo_db_path="$XDG_DATA_HOME/aivet/demo.db"
nonce=$("$AIVET" --db "$demo_db_path" probe show 2 --json | jq -r --argjson e "$cited" --arg o "$owner" \
	'[.probes[] | select(.name == "canary") | .details.leaks[] | select(.found_in == $e and .owner_tenant == $o) | .nonce] | .[0]')
like "$nonce" '^[A-Za-z0-9]+$' "the canary probe recorded a leak of $owner's canary found in evidence $cited"
ex=$("$AIVET" --db "$demo_db_path" evidence show "$cited" --json --include-leaked-content)
is "$(printf '%s' "$ex" | jq -r '.exchange.tenant')" "$got_by" "the cited exchange is $got_by's"
is "$(printf '%s' "$ex" | jq -r --arg n "$nonce" '.exchange.response_body | contains($n)')" true \
	"and its response holds $owner's canary"
ok "$([ "$owner" != "$got_by" ] && echo 0 || echo 1)" "a canary of another tenant ($owner, not $got_by)"
like "$out" "Fixed: every probe passes, no findings" "the fixed configuration passes"
like "$out" "  ok   engine       pass          every node \(1\) holds the advertised context of 681,280 tokens in one request" \
    "the fixed engine passes too"
ok "$([ -e "$AIVET_DB" ] && echo 1 || echo 0)" "the user's database is not touched"
demo_db="$XDG_DATA_HOME/aivet/demo.db"
is "$(sqlite3 "$demo_db" "SELECT group_concat(status) FROM probe_run")" "completed,completed,completed" \
    "the demo database holds the three runs"

run demo --quick --db "$T/quick.db"
is "$rc" 0 "demo --quick exits 0"
like "$out" "scaled down 16x" "--quick says it is scaled down"
n=$(printf '%s\n' "$out" | sed -n 's/^  Content integrity broke at \([0-9,]*\) tokens; the advertised context is 65,536 tokens\.$/\1/p' | tr -d ,)
ok "$([ -n "$n" ] && [ "$n" -ge 42154 ] && [ "$n" -le 42580 ] && echo 0 || echo 1)" \
    "--quick: integrity broke at $n tokens, the scaled pool within 1%"
run --db "$T/quick.db" probe runs --json
is "$(printf '%s' "$out" | jq -c '[.[] | [.status, .worst]]')" '[["completed","critical"],["completed","critical"],["completed",null]]' \
    "--db: the runs are in the named database"
# What the demo recorded is sound evidence: the chain intact (the engine's
# finding raised to critical on a decode node is within what the registry
# allows), and the vendor's report is made and verifies without overrides.
run --db "$T/quick.db" audit verify
like "$rc:$out" "^0:audit chain intact: [1-9][0-9]* entries" "the demo's database passes audit verify"
"$AIVET" key generate --no-password >/dev/null
run --db "$T/quick.db" report demo-vendor --out "$T/bundle"
is "$rc" 0 "the demo vendor's report is made without --allow-broken-chain"
is "$(jq -r '[.superseded_findings[] | select(.code == "KV_POOL_BELOW_CONTEXT") | "\(.severity) superseded by run \(.superseded_by_run)"] | unique | join(",")' "$T/bundle/report.json")" \
    "critical superseded by run 3" "report.json: the engine finding on the decode node, critical, closed by the fixed run"
run verify "$T/bundle"
is "$rc" 0 "and the bundle verifies"
run verify "$T/bundle" --rejudge
is "$rc:$(printf '%s\n' "$out" | grep -c 're-derived (')" "0:12" \
    "and every verdict of its three runs is re-derived from the bundle alone"
run --db "$T/global.db" demo --quick
is "$rc" 0 "aivet --db PATH demo exits 0"
like "$out" "aivet --db $T/global\.db probe show" "aivet --db PATH demo: the demo says where its runs are"
is "$(sqlite3 "$T/global.db" "SELECT group_concat(status) FROM probe_run")" "completed,completed,completed" \
    "aivet --db PATH demo: the runs are in the database --db named"
run demo --bogus
is "$rc:$errout" "2:aivet: unknown option '--bogus'
usage: aivet demo [--quick] [--db PATH]" "an unknown option is refused"

# AIVET_DB names the demo's database as --db does.
AIVET_DB="$T/env.db" "$AIVET" demo --quick > "$T/env.out" 2>&1 && rc=0 || rc=$?
is "$rc" 0 "AIVET_DB=PATH aivet demo exits 0"
is "$(sqlite3 "$T/env.db" "SELECT group_concat(status) FROM probe_run")" "completed,completed,completed" \
    "AIVET_DB=PATH aivet demo: the runs are in the database AIVET_DB names"
like "$(cat "$T/env.out")" "aivet --db $T/env\.db probe show" "and the demo says where they are"

done_testing
