#!/bin/sh
# sim-usage.sh: usage as the vendor reports it, against aivet-sim. Cached
# input is input: Anthropic's input_tokens leaves out what the prompt cache
# served (cache_read_input_tokens), and a run against a caching Anthropic
# endpoint raises no USAGE_ANOMALY. The vendor's cached counts are cache
# evidence: prefix-timing decides from them in its first trials (a tenant's
# response reporting another tenant's opening cached is the finding, quoting
# the counts; no such count while a tenant's own repeats are cached is a
# per-tenant cache). Every probe's judged, sent and classes match the
# exchanges it recorded.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# ---- the Anthropic shape: cached input beside input_tokens ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --prefix-cache global || exit 1
opening="$(jq -nr '"shared opening words " * 40')"
req=$(messages_json "$opening CANARY_cache_00001" 20)
sim_http POST /v1/messages -H "x-api-key: $PROBE_KEY_ALICE" -H "anthropic-version: 2023-06-01" -d "$req"
first=$(printf '%s' "$body" | jq -c .usage)
sim_http POST /v1/messages -H "x-api-key: $PROBE_KEY_BOB" -H "anthropic-version: 2023-06-01" -d "$req"
second=$(printf '%s' "$body" | jq -c '.usage | [.input_tokens, .cache_read_input_tokens, .cache_creation_input_tokens]')
total=$(printf '%s' "$first" | jq .input_tokens)
is "$(printf '%s' "$first" | jq -c 'has("cache_read_input_tokens")')" false \
    "anthropic sim: nothing cached, nothing reported beside input_tokens"
is "$second" "[$((total - 368)),368,0]" \
    "anthropic sim: a cache hit is reported as Anthropic does, input_tokens the uncached rest"

probe_setup anthropic 8192
run probe run V/e --yes --json
is "$(codes)" "" "anthropic with a prompt cache: no finding (cached input counted as input)"
is "$(printf '%s' "$out" | jq -c '[.probes[] | select(.name == "sweep") | .details.points[0].usage | keys[]]')" \
    '["input_tokens","output_tokens"]' "the sweep's points keep the vendor's raw usage"
is "$(printf "%s" "$out" | jq -c "[.probes[] | select(.name == \"canary\") | .details.cache_counts[] | select(.cached_tokens > 0)] | length > 0")" true \
    "the canary records the counts of its shared openings"
sim_stop

# ---- prefix-timing decided by the vendor's counts ----
export KEY_A=key-a KEY_B=key-b
counts_against() {   # MODE: a vendor "C-MODE" with two tenants, prefix-timing once
	sim_start --tenants a=key-a,b=key-b --prefix-cache "$1" || return 1
	run vendor add "C-$1"
	run endpoint add "C-$1" --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
		--context 131072 --credential a=env:KEY_A --credential b=env:KEY_B
	run probe run "C-$1/e" --probe prefix-timing --yes --json --fail-on medium
	sim_stop
}
counts_against global
is "$rc" 1 "counts, global: exit 1"
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .requests, .details.decided_by, .details.trials] | @csv')" \
    '"fail",20,"usage",4' "counts, global: decided by the vendor's usage in 4 trials (20 requests), no timing"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "^tenant 'b''s response reported [0-9]+ of its [0-9]+ prompt tokens served from the vendor's cache, for an opening of about 1280 tokens that only tenant 'a' had sent \(prompts with an opening not sent before: at most [0-9]+ cached; 4 of 4 such responses\): the prompt prefix cache is shared across tenants$" \
    "counts, global: the finding quotes the counts"
is "$(printf '%s' "$out" | json '.probes[0].findings | map(.code) | join(",")')" \
    PREFIX_CACHE_SHARED_ACROSS_TENANTS "counts, global: the one finding"
is "$(printf '%s' "$out" | json '.probes[0].findings[0].evidence | length')" 2 \
    "counts, global: it cites B's response and A's prime"
is "$(printf '%s' "$out" | json '.probes[0].details | [.judged, .sent, .classes.answered] | @csv')" "20,20,20" \
    "counts, global: judged, sent and classes recorded"

counts_against tenant
is "$rc" 0 "counts, tenant: exit 0"
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .requests, .details.decided_by, (.findings | length)] | @csv')" \
    '"pass",20,"usage",0' "counts, tenant: a pass from the counts, in 4 trials"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
    "^the vendor's usage reported none of tenant 'a''s opening cached for tenant 'b' \(4 responses, at most [0-9]+ cached tokens, as for an opening never sent\), while 'a''s own repeats were \(4 of 4, up to [0-9]+ cached tokens\): the cache is per tenant$" \
    "counts, tenant: the reason quotes the counts and names the scope"

# ---- every probe's counts match its recorded exchanges ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
run probe run V/e --yes --json
run_id=$(printf '%s' "$out" | jq .id)
for p in echo oversize sweep canary errors; do
	rec=$(q "SELECT count(*) FROM exchange WHERE run_id = $run_id AND probe = '$p'")
	is "$(printf '%s' "$out" | jq -r --arg p "$p" '.probes[] | select(.name == $p) | "\(.details.sent) \(.details.classes | add) \(.requests)"')" \
	    "$rec $rec $rec" "$p: sent, the classes and requests all count the $rec exchanges recorded"
done
is "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "canary") | "\(.details.responses_scanned) \(.details.classes.answered)"')" \
    "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "canary") | "\(.details.classes.answered) \(.details.classes.answered)"')" \
    "canary: the responses scanned are the answered exchanges"
sim_stop

done_testing
