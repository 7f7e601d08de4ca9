#!/bin/sh
# sim-cache-extract.sh: cache-extract recovers a random secret planted in
# tenant a's prompt from the cached-token counts of tenant c's guesses (a key
# of another organisation), at aivet-sim's blocks of 1, 2, 16 and 128 tokens,
# within the budget it plans; the granularity is measured from a's own
# repeats; a cache that keeps only the newest prompt is re-primed; llama.cpp's
# server's slots and prompt cache (--prefix-cache-slots, one slot and four) give
# up the secret too; where c's requests displace a's prompt, c's first control
# shows the sharing and the round that found nothing is repeated with a's prompt
# re-sent; a recovery stopped part way is a finding naming the units recovered;
# sharing with nothing recovered is a finding, never a pass; a hit on a value
# that is not the planted one is inconclusive; a cache per tenant, or per
# organisation with c elsewhere, gives a pass that says what was tried. The
# units recovered (four digits and a two-syllable name) are checked against the
# sealed prompt itself.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a KEY_B=key-b KEY_C=key-c
n=0
# extract NAME SIM-ARGS...: a vendor with keys a and b of acme and c of other (the
# --credential-org options $ORGS where set), a context of $CTX (131072 unless set); one
# cache-extract run, its JSON in $out.
extract() {
	name=$1
	shift
	orgs=${ORGS:-"--credential-org a=acme --credential-org b=acme --credential-org c=other"}
	sim_start --tenants a@acme=key-a,b@acme=key-b,c@other=key-c "$@" || return 1
	run vendor add "X-$name"
	run endpoint add "X-$name" --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
		--context "${CTX:-131072}" --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C \
		$orgs --price-in 2.5 --price-out 10
	run probe run "X-$name/e" --dry-run --probe cache-extract --json
	plan=$out
	run probe run "X-$name/e" --probe cache-extract --yes --json --fail-on medium
	sim_stop
}

# The units planted in a's prompt, read from its sealed request body (opened with the
# evidence key): the words that are a digit or one of the name's syllables (no filler
# word or word of the instruction is).
planted() {
	"$AIVET" evidence show "$1" --json --include-leaked-content |
	    jq -r '.exchange.request_body | fromjson | .messages[0].content' |
	    tr ' \n' '\n\n' | grep -E '^([0-9]|ka|lo|mi|ne|ru|sa|ti|vo|ze|ha)$' | tr -d '\n'
}

for block in 1 2 16 128; do
	extract "g$block" --prefix-cache global --page-size "$block"
	is "$rc" 1 "block $block: the finding fails --fail-on medium"
	is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.granularity, .details.recovered_units, .details.planted.units, .details.planted.sealed, .details.reprimed, .details.tenant_b, (.findings | map(.code) | join(","))] | @csv')" \
	    "\"fail\",$block,6,6,true,false,\"c\",\"PREFIX_CACHE_CONTENT_RECOVERED\"" \
	    "block $block: the granularity measured from a's repeats, all 6 units recovered by the other organisation's key"
	ev=$(printf '%s' "$out" | json '.probes[0].details.planted.evidence')
	rec=$(printf '%s' "$out" | json '.probes[0].details.recovered')
	secret=$(planted "$ev")
	is "$rec" "$secret" "block $block: the units recovered are those planted in a's sealed prompt"
	like "$secret" '^[0-9]{4}(ka|lo|mi|ne|ru|sa|ti|vo|ze|ha){2}$' "block $block: four digits and a two-syllable name were planted"
	is "$(printf '%s' "$out" | json '.probes[0] | (.findings[0].evidence | length) == .requests and .requests == .details.requests and .details.requests == .details.sent')" true \
	    "block $block: the finding cites every exchange of the probe"
	is "$(jq -n --argjson p "$plan" --argjson r "$out" '($p.probes[] | select(.name == "cache-extract")) as $pp | $r.probes[0].requests <= $pp.requests and $r.probes[0].details.tokens <= $pp.tokens_in + $pp.tokens_out and $pp.requests == 160 and $pp.tokens_in_expected < $pp.tokens_in / 4')" true \
	    "block $block: within the 160 requests and the tokens the plan gave (expected: 38 requests' worth, nothing shared)"
	is "$(printf '%s' "$out" | json '.probes[0].details | ((.bits_per_request - 19.93 / .requests_tenant_b) | fabs) < 0.001 and .bits == 19.93 and .bits_per_usd > 0')" true \
	    "block $block: bits per request and per dollar"
	echo "# block $block: $(printf '%s' "$out" | json '.probes[0].details | "\(.requests) requests (\(.requests_tenant_b) of c), \(.tokens) tokens, \(.bits_per_request) bits a request, \(.bits_per_usd) bits a dollar"')"
	is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.request_sha256 WHERE x.probe = 'cache-extract' AND x.run_id = (SELECT max(id) FROM probe_run) AND b.encrypted = 0")" 25 \
	    "block $block: only the 25 requests of the measurement, which carry no secret, are stored in plain text"
	is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.request_sha256 WHERE x.probe = 'cache-extract' AND x.run_id = (SELECT max(id) FROM probe_run) AND b.encrypted <> 0")" \
	    "$(printf '%s' "$out" | json '.probes[0].requests - 25')" \
	    "block $block: every request after the 25 of the measurement carried the secret and is sealed"
done
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "^tenant 'c' \(other\) recovered 6 of the 6 units \(digits, then a name's syllables\) of a random secret planted in tenant 'a''s prompt, one unit at a time from the cached-token counts of its own guesses \(blocks of 128 tokens\), in [0-9]+ requests of its own" \
    "the finding says who recovered what, and how"

# ---- the claim "prompts are never shared across tenants" falls to a recovery ----
"$AIVET" key generate --no-password >/dev/null
run assess start X-g128 llm-inference-isolation
run assess answer 1 kv_cache_scope per_tenant
run assess answer 1 cache_isolation_tested yes
run assess show 1 --json
is "$(printf '%s' "$out" | json '[.claims[] | select(.question_id == "kv_cache_scope" or .question_id == "cache_isolation_tested") | "\(.question_id)=\(.status):\([.contradicting[].code] | unique | join(","))"] | join(" ")')" \
    "kv_cache_scope=contradicted:PREFIX_CACHE_CONTENT_RECOVERED" \
    "claims: a per-tenant cache is contradicted by the recovery alone; whether the vendor tests isolation is a process answer, no claim"
run report X-g128 --out "$T/rep"
is "$(jq -r '[.claims[] | select(.question_id == "kv_cache_scope") | .status] | join(",")' "$T/rep/report.json")" contradicted \
    "claims: the signed report judges the claim as assess show does"
is "$(grep -rl -- "$secret" "$T/rep" | sed "s|$T/rep/||" | sort | tr '\n' ' ')" "report.json " \
    "report: the secret appears only in report.json, as the units the probe recovered"
is "$(jq -r --arg s "$secret" '[paths(type == "string" and contains($s)) | map(tostring) | join(".")] | join(" ")' "$T/rep/report.json")" \
    "probe_runs.0.results.0.details.recovered" "report: and there only as the evidence of recovery"
is "$(jq -r '.request | [.encrypted, .body == null] | @csv' "$T/rep/evidence/exchange-$ev.json")" "true,true" \
    "report: the planted prompt's evidence file holds it sealed"

# ---- a cache that keeps only the newest prompt: a re-primes before each guess ----
extract newest --prefix-cache global --page-size 16 --prefix-cache-newest
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.granularity, .details.recovered_units, .details.reprimed] | @csv')" \
    '"fail",16,6,true' "newest only: told from a's repeats, and recovered by re-priming"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE probe = 'cache-extract' AND run_id = (SELECT max(id) FROM probe_run) AND tenant = 'a'")" \
    "$(printf '%s' "$out" | json '.probes[0].details.requests_tenant_b + 25')" \
    "newest only: a sent its prompt again before each of c's requests (after its 25 of the measurement)"

# ---- llama.cpp's server: slots each keeping their last prompt, and a prompt cache ----
# Each slot's context as llama-server -c 8192 gives it (4,096 for one, 2,048 for four): as
# there, a's repeats are served from the prompt cache (no newest-only cache is seen), c's
# requests displace a's planted prompt, and the first round finds nothing.
for slots in 1 4; do
	CTX=$((slots == 1 ? 4096 : 2048))
	extract "slots$slots" --context "$CTX" --prefix-cache global --prefix-cache-slots "$slots"
	# With four slots a's repeats can land on a slot that holds another prompt
	# (the slot picked by how recently each was used), so the granularity they
	# show is a few tokens rather than one; with one slot it is exact.
	is "$(printf '%s' "$out" | jq -r --argjson slots "$slots" '.probes[0] | [.verdict, (.details.granularity | if $slots == 1 then . == 1 else . >= 1 and . <= 4 end), .details.controls_shared, .details.resent_from_unit, .details.reprimed, .details.recovered_units, (.findings | map(.code) | unique | join(","))] | @csv')" \
	    "\"fail\",true,true,1,true,6,\"PREFIX_CACHE_CONTENT_RECOVERED\"" \
	    "$slots slot(s): counted to the token (to a few with four slots), c's first control shows the sharing, the first round repeated with a's prompt re-sent, all 6 units recovered"
	# What the measurement read, for a failure to be traced.
	printf '%s' "$out" | jq -r '.probes[0].details | "# granularity \(.granularity), controls_shared \(.controls_shared), requests \(.requests)"'
	ev=$(printf '%s' "$out" | json '.probes[0].details.planted.evidence')
	is "$(printf '%s' "$out" | json '.probes[0].details.recovered')" "$(planted "$ev")" \
	    "$slots slot(s): the units recovered are those planted in a's sealed prompt"
done
unset CTX

# ---- c's requests displace a's prompt: the controls show sharing, the round is repeated ----
extract displace --prefix-cache global --page-size 16 --prefix-cache-displace
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.controls_shared, .details.control_cached_tokens >= 1000, .details.resent_from_unit, .details.reprimed, .details.recovered_units] | @csv')" \
    '"fail",true,true,1,true,6' \
    "displaced: c's first control was served a's opening, the first round found nothing and was repeated with a's prompt re-sent, all 6 units recovered"
ev=$(printf '%s' "$out" | json '.probes[0].details.planted.evidence')
is "$(printf '%s' "$out" | json '.probes[0].details.recovered')" "$(planted "$ev")" \
    "displaced: the units recovered are those planted in a's sealed prompt"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE probe = 'cache-extract' AND run_id = (SELECT max(id) FROM probe_run) AND tenant = 'a'")" \
    "$(printf '%s' "$out" | json '.probes[0].details.requests_tenant_b + 26 - 12')" \
    "displaced: a re-sent its prompt before each of c's requests after the first round (its 25 of the measurement, its first prompt, none before c's 2 controls and 10 first guesses)"

# ---- a recovery stopped part way is a finding that names the units recovered ----
extract partial --prefix-cache global --page-size 16 --prefix-cache-max 1400
n=$(printf '%s' "$out" | json '.probes[0].details.recovered_units')
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.controls_shared, (.details.recovered_units >= 2 and .details.recovered_units <= 5), .details.resent_from_unit == .details.recovered_units + 1, (.findings | map(.code) | unique | join(","))] | @csv')" \
    '"fail",true,true,true,"PREFIX_CACHE_CONTENT_RECOVERED"' \
    "partial: a cache serving only a prompt's first 1400 tokens gives up $n of the 6 units, a finding"
ev=$(printf '%s' "$out" | json '.probes[0].details.planted.evidence')
secret=$(planted "$ev")
is "$(printf '%s' "$out" | json '.probes[0].details.recovered')" "$(printf '%s' "$secret" | cut -c1-"$n")" \
    "partial: the $n units recovered are the first $n planted in a's sealed prompt"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "^tenant 'c' \(other\) recovered $n of the 6 units .*: units 1 to $n \($([ "$n" -gt 4 ] && echo "4 digits, $((n - 4)) syllable" || echo "$n digits")\)?\)?,? ?.*each the planted one; no guess of unit $((n + 1)) was reported cached beyond the recovered prefix \(with tenant 'a''s prompt re-sent before each\); the prompt cache discloses" \
    "partial: the finding names the units recovered and why the search ended"
unlike "$(printf '%s' "$out" | json '[.probes[0].reason, .probes[0].findings[0].message] | join(" ")')" "nothing recovered|not shared" \
    "partial: no message says nothing was recovered"

# ---- shared, nothing recovered: a finding, never a pass ----
extract opening --prefix-cache global --page-size 16 --prefix-cache-max 1100
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.controls_shared, .details.control_cached_tokens, .details.recovered_units, .details.resent_from_unit, .details.first_unit_guesses, (.findings | map(.code) | unique | join(","))] | @csv')" \
    '"fail",true,1088,0,1,20,"PREFIX_CACHE_SHARED_ACROSS_TENANTS"' \
    "opening only: c's first control was served 1088 tokens of a's opening, both rounds found nothing: the sharing is the finding"
is "$(printf '%s' "$out" | json '.probes[0] | [.findings[].evidence[]] == [.details.planted.evidence, (.findings[0].evidence[0] + 1)]')" true \
    "opening only: the finding cites a's planted prompt and c's first control, sent after it"
is "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "tenant 'c''s first control was served 1088 cached tokens of an opening only tenant 'a' had sent: the prompt cache is shared across organisations, though no unit of the secret was recovered; no guess of unit 1 was reported cached beyond the recovered prefix (with tenant 'a''s prompt re-sent before each)" \
    "opening only: the finding says what the exchanges show"

# The same with no --credential-org for c: "across organisations" is an assumption, and said.
ORGS="--credential-org a=acme --credential-org b=acme" extract unsaid --prefix-cache global --page-size 16 \
    --prefix-cache-max 1100
is "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "tenant 'c''s first control was served 1088 cached tokens of an opening only tenant 'a' had sent: the prompt cache is shared across organisations (tenants with no --credential-org are taken as separate organisations), though no unit of the secret was recovered; no guess of unit 1 was reported cached beyond the recovered prefix (with tenant 'a''s prompt re-sent before each)" \
    "c without an organisation: the finding says it is taken as another organisation"

# ---- a hit on a value that is not the planted one: nothing is claimed ----
# The first wrong digit the guesses reach stops it: at unit 1, unless the planted
# digit happened to be the first guess of a unit (one time in ten for each), in
# which case that unit was recovered, rightly, and the next one stops it.
extract masked --prefix-cache global --page-size 16 --prefix-cache-mask-digits
reason=$(printf '%s' "$out" | json '.probes[0].reason')
like "$reason" \
    "^tenant 'c''s guess '[0-9]' for unit [1-4] was reported cached beyond the known prefix \([0-9]+ tokens\) but is not the planted one" \
    "digits masked: the reason names the guess, at a digit, that is not the planted one"
unit=$(printf '%s' "$reason" | sed -n "s/.* for unit \([0-9]*\) was reported.*/\1/p")
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.recovered_units, (.findings | length)] | @csv')" "\"inconclusive\",$((${unit:-1} - 1)),0" \
    "digits masked: a wrong digit is reported cached, inconclusive, nothing claimed; only the units before it recovered"

# ---- nothing shared with the other organisation: a pass that says what was tried ----
extract tenant --prefix-cache tenant --page-size 16
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.granularity, .details.recovered, .details.first_unit_guesses, (.findings | length)] | @csv')" \
    '"pass",16,"",10,0' "per-tenant cache: nothing recovered, every guess of the first unit tried"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
    "^tenant 'c''s first control was served 0 cached tokens \(sharing needs [0-9]+\) and none of its 10 guesses of the first planted unit was reported cached beyond the known opening \([0-9]+ tokens, a hit needs 24 more\), while tenant 'a''s own repeats were cached in blocks of 16 tokens \(up to [0-9]+\): nothing recovered, the cache is not shared with 'c'$" \
    "per-tenant cache: the pass says what was tried"
extract org --prefix-cache org --page-size 16
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.tenant_b, .details.recovered, (.findings | length)] | @csv')" \
    '"pass","c","",0' "per-organisation cache, two keys of acme: the other organisation's key recovers nothing"

# ---- two keys of one organisation only: recovery within it is no cross-tenant finding ----
sim_start --tenants a@acme=key-a,b@acme=key-b --prefix-cache org --page-size 16 || exit 1
run vendor add One
run endpoint add One --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 131072 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential-org a=acme --credential-org b=acme
run probe run One/e --probe cache-extract --yes --json --fail-on medium
sim_stop
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.same_organisation, .details.recovered_units, (.findings | length)] | @csv')" \
    '"pass",true,6,0' "one organisation's keys: b reads a's prompt, no cross-tenant finding"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
    "both keys of organisation 'acme': the cache is shared within the organisation, not across tenants" \
    "one organisation: the reason says so"

# ---- no counts, no caching, the budget ----
extract nocount --prefix-cache global --page-size 16 --fault no-cached-usage
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.recovered, (.findings | length)] | @csv')" '"inconclusive","",0' \
    "no cached counts: inconclusive"
like "$(printf '%s' "$out" | json '.probes[0].reason')" "^the vendor's usage reported no cached-token counts \(25 answered requests\): recovery reads them, and recovery by timing alone is not attempted" \
    "no cached counts: the reason says why"
extract off --prefix-cache off --page-size 16
like "$(printf '%s' "$out" | json '.probes[0] | "\(.verdict): \(.reason)"')" "^inconclusive: tenant 'a''s own repeats were not reported cached \(0 of 12, at most 0 tokens\)" \
    "no prefix cache: inconclusive, nothing to recover through"

sim_start --tenants a@acme=key-a,c@other=key-c --prefix-cache tenant --page-size 16 || exit 1
run vendor add Bud
run endpoint add Bud --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 131072 \
    --credential a=env:KEY_A --credential c=env:KEY_C --credential-org a=acme --credential-org c=other
run probe run Bud/e --probe cache-extract --yes --json --budget-tokens 40000
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.recovered, (.details.first_unit_guesses < 10), (.details.granularity)] | @csv')" \
    '"inconclusive","",true,16' "budget: stopped among the first unit's guesses, inconclusive"
like "$(printf '%s' "$out" | json '.probes[0] | "\(.reason); \(.details.stopped)"')" "^the token budget of [0-9,]+ tokens was exhausted before the probe finished; the run's token budget ended after [0-9]+ requests, before tenant 'c' had tried every guess of the first unit \([0-9] of 10\)$" \
    "budget: the reason says where it stopped"
is "$(printf '%s' "$out" | json '.tokens_in + .tokens_out <= 40000')" true "budget: the run stayed within it"
echo "# budget: $(printf '%s' "$out" | json '"\(.tokens_in + .tokens_out) tokens; \(.probes[0].details.stopped)"')"
run probe run Bud/e --probe cache-extract --yes --json --budget-tokens 12000
like "$(printf '%s' "$out" | json '.probes[0] | "\(.verdict): \(.details.stopped)"')" "^inconclusive: the run's token budget ended during the granularity measurement \([0-9]+ requests\)$" \
    "budget: stopped during the measurement, inconclusive"
sim_stop

done_testing
