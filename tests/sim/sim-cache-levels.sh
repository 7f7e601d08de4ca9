#!/bin/sh
# sim-cache-levels.sh: the level a prompt cache is shared at, named from keys
# of one organisation and of another. Credentials say their organisation
# (endpoint --credential-org); aivet-sim scopes its cache per tenant, per
# organisation (--prefix-cache org, tenants LABEL@ORG=KEY) or globally. The
# plan says which levels the credentials can tell; prefix-timing names the
# level from the vendor's cached counts; sharing between two keys of one
# organisation is said as that, never as a cross-tenant exposure.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a KEY_B=key-b KEY_C=key-c
# levels MODE: vendor L-MODE, keys a and b of organisation acme and c of other; one run.
levels() {
	sim_start --tenants a@acme=key-a,b@acme=key-b,c@other=key-c --prefix-cache "$1" || return 1
	run vendor add "L-$1"
	run endpoint add "L-$1" --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
		--context 131072 --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C \
		--credential-org a=acme --credential-org b=acme --credential-org c=other
	run probe run "L-$1/e" --probe prefix-timing --yes --json --fail-on medium
	sim_stop
}

levels org
is "$rc" 0 "org: exit 0, no finding"
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .requests, .details.level, .details.tenant_b, .details.tenant_same_organisation, (.findings | length)] | @csv')" \
    '"pass",40,"per-organisation","c","b",0' \
    "org: B is the key of the other organisation; 4 trials with it and 4 with the second key of acme; the level is per organisation"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
    "^the vendor's usage reported none of tenant 'a''s opening cached for tenant 'c' .*: the cache is per tenant; keys 'a' and 'b' of organisation 'acme' share it \([0-9]+ cached tokens reported for the other's opening\): the cache is per organisation, as OpenAI documents its own$" \
    "org: the reason names the sharing within the organisation, not a cross-tenant exposure"
run endpoint show L-org/e
like "$out" "a +env:KEY_A  \(organisation acme\)" "endpoint show names each credential's organisation"
run endpoint show L-org/e --json
is "$(printf '%s' "$out" | jq -c '[.credentials[] | [.label, .org]]')" '[["a","acme"],["b","acme"],["c","other"]]' \
    "endpoint show --json: the organisation of each credential"

levels tenant
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.level] | @csv')" '"pass","per-user"' \
    "tenant: the level is per user"

levels global
is "$rc" 1 "global: the finding fails --fail-on medium"
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.level, (.findings | map(.code) | join(","))] | @csv')" \
    '"fail","global","PREFIX_CACHE_SHARED_ACROSS_TENANTS"' "global: across organisations, the finding"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" "^tenant 'c''s response reported [0-9]+ of its [0-9]+ prompt tokens" \
    "global: the finding names the key of the other organisation"

# ---- the plan says what the credentials can tell ----
run vendor add P
run endpoint add P --name both --api openai --url http://127.0.0.1:9/v1 --model m --context 8192 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C \
    --credential-org a=acme --credential-org b=acme --credential-org c=other
run probe run P/both --dry-run --probe prefix-timing
like "$out" "prompt-cache sharing these credentials can tell: per-user, per-organisation or global \(keys of one organisation and of another\)" \
    "plan: keys of one organisation and of another tell all three levels"
run probe run P/both --dry-run --probe prefix-timing --json
is "$(printf '%s' "$out" | json '[.probes[] | select(.name == "prefix-timing") | .requests][0]')" 1270 \
    "plan: the same organisation's count trials on top of the 250"
run endpoint add P --name one-org --api openai --url http://127.0.0.1:9/v1 --model m --context 8192 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential-org a=acme --credential-org b=acme
run probe run P/one-org --dry-run --probe prefix-timing --json
like "$(printf '%s' "$out" | json .cache_sharing_levels)" "^per-user against per-organisation or global" \
    "plan: keys of one organisation only"
run endpoint add P --name two-orgs --api openai --url http://127.0.0.1:9/v1 --model m --context 8192 \
    --credential a=env:KEY_A --credential b=env:KEY_B
run probe run P/two-orgs --dry-run --probe prefix-timing --json
is "$(printf '%s' "$out" | json .cache_sharing_levels)" "global against per-user or per-organisation (keys taken as of different organisations, tenants with no --credential-org are taken as separate organisations: --credential-org on a second key of one organisation would tell those apart)" \
    "plan: credentials without an organisation are taken as organisations of their own, and it says so"
run endpoint add P --name two-stated --api openai --url http://127.0.0.1:9/v1 --model m --context 8192 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential-org a=acme --credential-org b=other
run probe run P/two-stated --dry-run --probe prefix-timing --json
is "$(printf '%s' "$out" | json .cache_sharing_levels)" "global against per-user or per-organisation (keys of different organisations, none of one organisation: a second key of an organisation would tell those apart)" \
    "plan: two organisations stated: no assumption to state"
run endpoint add P --name one-unsaid --api openai --url http://127.0.0.1:9/v1 --model m --context 8192 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C \
    --credential-org a=acme --credential-org b=acme
run probe run P/one-unsaid --dry-run --probe prefix-timing
like "$out" "prompt-cache sharing these credentials can tell: per-user, per-organisation or global \(keys of one organisation and of another; tenants with no --credential-org are taken as separate organisations\)" \
    "plan: a key with no organisation beside two of one: the assumption said in words"
run probe run P/two-orgs --dry-run --json
is "$(printf '%s' "$out" | json 'has("cache_sharing_levels")')" false "plan: said only when prefix-timing runs"

# ---- bad input changes nothing ----
db_snapshot >"$T/before"
run endpoint edit P/both --credential-org z=acme
is "$rc:$errout" "2:aivet: --credential-org: the endpoint has no credential labelled 'z'" \
    "--credential-org for a credential the endpoint lacks is refused"
run endpoint edit P/both --credential-org a=
is "$rc:$errout" "2:aivet: --credential-org must be LABEL=ORG (an organisation of 1 to 64 characters)" \
    "an empty organisation is refused"
db_snapshot >"$T/after"
is "$(cmp -s "$T/before" "$T/after" && echo same)" same "and nothing changed"
run endpoint edit P/both --credential-org c=acme
is "$(sqlite3 "$AIVET_DB" "SELECT org FROM credential WHERE label = 'c' AND endpoint_id = (SELECT id FROM endpoint WHERE name = 'both')")" acme \
    "endpoint edit moves a credential to another organisation"

# ---- two keys of one organisation only: sharing within it is no cross-tenant finding ----
sim_start --tenants a@acme=key-a,b@acme=key-b --prefix-cache global || exit 1
run endpoint edit P/one-org --url "$SIM_URL/v1" --context 131072
run probe run P/one-org --probe prefix-timing --yes --json --fail-on medium
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, (.findings | length), .details.same_organisation] | @csv')" '"pass",0,true' \
    "one organisation: a shared cache is no finding"
like "$(printf '%s' "$out" | json '.probes[0].reason')" "both keys of organisation 'acme': the cache is shared within the organisation \(per-organisation or global; a key of another organisation would tell which\)" \
    "one organisation: the reason says what the keys can and cannot tell"
sim_stop

done_testing
