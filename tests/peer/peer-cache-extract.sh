#!/bin/sh
# peer-cache-extract.sh: against llama.cpp's llama-server, whose one prompt
# cache serves every API key, cache-extract finds the cache shared by two keys
# of two organisations and recovers the secret planted in tenant a's prompt,
# with one slot and with four. The server keeps each slot's last prompt and a
# cache of earlier ones and restores a cached prompt only when it beats the
# slot's current one, so b's own requests displace a's: b's first control,
# served a's opening, shows the sharing, and the round that found nothing is
# repeated with a's prompt re-sent before each guess. The units recovered are
# checked against a's sealed prompt. The model's words are noise: only the
# usage's cached-token counts are read.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/peer/peer-lib.sh"
peer_require

"$AIVET" key generate --no-password >/dev/null

# The units planted in a's prompt, read from its sealed request body: the words that are
# a digit or one of the name's syllables.
planted() {
	"$AIVET" evidence show "$1" --json --include-leaked-content |
	    jq -r '.exchange.request_body | fromjson | .messages[0].content' |
	    tr ' \n' '\n\n' | grep -E '^([0-9]|ka|lo|mi|ne|ru|sa|ti|vo|ze|ha)$' | tr -d '\n'
}

for np in 1 4; do
	ctx=$((np == 1 ? 4096 : 2048))
	peer_start "$np" || exit 1
	peer_endpoint "P$np" --context "$ctx"
	run probe run "P$np/e" --probe cache-extract --yes --json --fail-on medium
	peer_stop
	is "$rc" 1 "$np slot(s): the finding fails --fail-on medium"
	is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, .details.granularity, .details.controls_shared, .details.reprimed, .details.resent_from_unit, .details.recovered_units, .details.planted.units, .details.tenant_b, .details.same_organisation, (.findings | map(.code) | unique | join(","))] | @csv')" \
	    "\"fail\",1,true,true,1,6,6,\"b\",false,\"PREFIX_CACHE_CONTENT_RECOVERED\"" \
	    "$np slot(s): counted to the token, b's first control shows the sharing, the first round repeated with a's prompt re-sent, all 6 units recovered"
	ctl=$(printf '%s' "$out" | json '.probes[0].details.control_cached_tokens')
	is "$([ "$ctl" -ge 300 ] && echo yes)" yes "$np slot(s): b's first control was served a's opening ($ctl cached tokens)"
	ev=$(printf '%s' "$out" | json '.probes[0].details.planted.evidence')
	secret=$(planted "$ev")
	like "$secret" '^[0-9]{4}(ka|lo|mi|ne|ru|sa|ti|vo|ze|ha){2}$' "$np slot(s): four digits and a two-syllable name were planted"
	is "$(printf '%s' "$out" | json '.probes[0].details.recovered')" "$secret" \
	    "$np slot(s): the units recovered are those in a's sealed prompt"
	like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
	    "^tenant 'b' \(org-b\) recovered 6 of the 6 units .* in [0-9]+ requests of its own: units 1 to 6 \(4 digits, 2 syllables\), each the planted one; the prompt cache discloses" \
	    "$np slot(s): the finding names the units recovered"
	is "$(printf '%s' "$out" | json '.probes[0] | (.findings[0].evidence | length) == .requests')" true \
	    "$np slot(s): the finding cites every exchange"
	echo "# $np slot(s): $(printf '%s' "$out" | json '.probes[0].details | "\(.requests) requests (\(.requests_tenant_b) of b), first control \(.control_cached_tokens) cached tokens"')"
done

done_testing
