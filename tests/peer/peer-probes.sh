#!/bin/sh
# peer-probes.sh: the basic probes against a real engine, llama.cpp's
# llama-server with a tiny random-weight model (tests/peer/peer-lib.sh; a
# visible SKIP where ../shared/peer is absent). The verdicts are pinned as they
# come out against a model whose answers are gibberish: oversize prompts are
# refused with the server's HTTP 400 (exceed_context_size_error), and that is
# a pass; the sweep passes on usage alone; echo and canary are inconclusive,
# and say why (the model repeats no text); malformed JSON gets HTTP 500, a
# true finding of this server (SERVER_ERROR_ON_BAD_INPUT). Two keys share one
# server, its slots and its prompt cache: neither on one slot nor on four is
# a leak or a KV fault reported where there is none.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/peer/peer-lib.sh"

peer_require

# exchanges PROBE: "Nx status:error type" of the exchanges PROBE sent in the
# last run, read from their evidence, counted by kind.
exchanges() {
	for e in $(sqlite3 "$AIVET_DB" "SELECT evidence_id FROM exchange WHERE probe = '$1' AND
	    run_id = (SELECT max(id) FROM probe_run) ORDER BY seq"); do
		"$AIVET" evidence show "$e" --json | jq -r '"\(.exchange.response_status):" +
		    ((.exchange.response_body // "" | fromjson? | .error.type) // "-")'
	done | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1x /' | tr '\n' ',' | sed 's/,$//'
}

# verdicts: "name:verdict[codes]" of each probe of the run JSON in $out.
verdicts() {
	printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)[\([.findings[].code] | sort | join(","))]"] | join(" ")'
}

# reason NAME: the reason of probe NAME in $out.
reason() {
	printf '%s' "$out" | jq -r --arg n "$1" '.probes[] | select(.name == $n) | .reason'
}

# check SLOTS ADVERTISED LABEL: the basic probes on a server of SLOTS slots whose
# slot holds ADVERTISED tokens, advertised as such.
check() {
	peer_start "$1" "$(($1 * $2))" || return 1
	peer_endpoint "S$1" --context "$2"
	is "$rc" 0 "$3: the endpoint is added"
	run probe run "S$1/e" --yes --json --probe echo,oversize,sweep,canary,errors
	is "$rc:$(verdicts)" \
	    "0:echo:inconclusive[] oversize:pass[] sweep:pass[] canary:inconclusive[] errors:fail[SERVER_ERROR_ON_BAD_INPUT]" \
	    "$3: the verdicts against a gibberish model; the one finding is low, under --fail-on's default"
	is "$(printf '%s' "$out" | jq -r '[.probes[].findings[].code | select(test("^(LEAK|KV)_"))] | length')" 0 \
	    "$3: no false alarm: no LEAK_* and no KV_* finding from two keys sharing the server"
	is "$(exchanges oversize)" "4x 400:exceed_context_size_error" \
	    "$3: oversize: every prompt refused with HTTP 400, exceed_context_size_error, in its evidence"
	is "$(reason oversize)" "every oversize prompt was refused for size (4 of 4 judged)" \
	    "$3: oversize: the pass says what it rests on"
	is "$(reason sweep)" \
	    "every accepted prompt was answered from its own content (judged by usage only: the model does not repeat text)" \
	    "$3: sweep: a pass on usage, and it says so"
	is "$(reason echo)" \
	    "the model did not repeat its nonces (best 0 of 3); content checks on this endpoint are inconclusive" \
	    "$3: echo: inconclusive, the model repeats nothing"
	like "$(reason canary)" \
	    "^the model does not repeat text, so a leak could not show in its answers: [0-9]+ responses scanned, and no foreign canary in any raw body$" \
	    "$3: canary: inconclusive, a leak could not show in gibberish; the raw bodies were scanned"
	is "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "errors") | .findings[0].message')" \
	    "a request with malformed JSON got HTTP 500, a server error for a client's mistake" \
	    "$3: errors: malformed JSON is a server error here"
	is "$(exchanges errors | tr ',' '\n' | grep ':server_error$')" "1x 500:server_error" \
	    "$3: errors: its evidence is the server's HTTP 500, type server_error"
	peer_stop
}

check 1 4096 "1 slot of 4,096"
check 4 2048 "4 slots of 2,048"
done_testing
