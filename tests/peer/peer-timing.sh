#!/bin/sh
# peer-timing.sh: prefix-timing against llama.cpp's llama-server, two API keys
# of two organisations as two tenants of one server. The server keeps one
# prompt cache for every key and reports the cached part of each prompt
# (usage.prompt_tokens_details.cached_tokens): tenant B's request with tenant
# A's opening is reported cached, so the count decides before any timing, a
# finding on one response. Started with --no-cache-prompt (llama-server's switch
# for its prompt cache) the server reuses no prompt and reports none cached:
# no finding from the counts.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/peer/peer-lib.sh"

peer_require

peer_start 4 || exit 1
peer_endpoint Shared --context 2048
run probe run Shared/e --probe prefix-timing --yes --json --fail-on medium
is "$rc" 1 "shared cache: the finding fails --fail-on medium"
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, (.findings | map(.code + ":" + .severity) | unique | join(",")), .details.decided_by, .details.level, (.details.cache_counts.primed_cached > 0), (.details.cache_counts.primed_cached_max > .details.cache_counts.baseline_cached_tokens), (.findings[0].evidence | length)] | @csv')" \
	'"fail","PREFIX_CACHE_SHARED_ACROSS_TENANTS:medium","usage","global",true,true,2' \
	"shared cache: B's response reports A's opening cached: a finding from the counts, global, citing B's response and A's prime"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
	"^tenant 'b''s response reported [0-9]+ of its [0-9]+ prompt tokens served from the vendor's cache, for an opening of about 512 tokens that only tenant 'a' had sent \(prompts with an opening not sent before: at most [0-9]+ cached; [0-9]+ of [0-9]+ such responses\): the prompt prefix cache is shared across tenants$" \
	"shared cache: the message quotes the counts"
is "$(printf '%s' "$out" | json '.probes[0].requests')" 20 "shared cache: decided on the 4 count trials (20 requests)"
peer_stop

# Timing needs 150 more streams of 64 tokens, minutes on a busy machine with this
# model; the budget stops the run after the count trials, and the timing side of
# "nothing shared, no finding" is tested on aivet-sim (timing-load.sh).
peer_start 4 8192 --no-cache-prompt || exit 1
peer_endpoint Unshared --context 2048
run probe run Unshared/e --probe prefix-timing --yes --json --fail-on medium --budget-tokens 16000
echo "# prompt cache off: $(printf '%s' "$out" | json '.probes[0] | "\(.verdict): \(.reason) \(.requests) \(.details.cache_counts)"')"
is "$(printf '%s' "$out" | json '.probes[0] | [(.findings | length), .verdict, .details.decided_by, (.details.cache_counts.reported >= 20), .details.cache_counts.primed_cached, .details.cache_counts.own_cached] | @csv')" \
	'0,"inconclusive","timing",true,0,0' \
	"prompt cache off: every count trial reports its cached part, none of A's opening for B (nor for A): no finding"
peer_stop
done_testing
