#!/bin/sh
# cli-no-change.sh: on SQLite an action that changes no row, a confirmation
# of where an endpoint's secrets may go, is written only for an endpoint that
# exists, by the writer of the references it confirms, for the URL it has
# (endpoint_confirm() checks each before its entry). The attack of issue 43
# through the CLI, an entry confirming endpoint 999 or one of rita's
# references by mallory, is refused with the database unchanged; an entry of
# that kind an older database holds (written past aivet) is named by audit
# verify, its number and the endpoint it is about.
. "$TESTS_SRCDIR/lib/lib.sh"

URL=https://api.acme.example/v1
"$AIVET" vendor add Acme >/dev/null
"$AIVET" --actor rita endpoint add Acme --name e --api openai --url "$URL" --model m --context 8192 \
	--credential t=env:RITA_KEY >/dev/null
snap=$(db_snapshot)
run --actor mallory endpoint confirm Acme/nope --url "$URL"
is "$rc $errout" "2 aivet: unknown endpoint 'Acme/nope' (see 'aivet endpoint list')" \
	"a confirmation of an endpoint that does not exist is refused"
run --actor mallory endpoint confirm Acme/e --url "$URL"
is "$rc $errout" "2 aivet: endpoint Acme/e: you (mallory) wrote none of its credential references (t (rita)); where a secret may go is confirmed by whoever wrote its reference" \
	"mallory cannot confirm rita's reference"
run --actor rita endpoint confirm Acme/e --url http://127.0.0.1:9/v1
is "$rc $errout" "2 aivet: --url: endpoint Acme/e's URL is not http://127.0.0.1:9/v1; confirm the URL it has (aivet endpoint show Acme/e)" \
	"nor rita a URL the endpoint does not have"
is "$(db_snapshot)" "$snap" "none of them wrote anything"
run audit verify
is "$rc" 0 "the chain verifies$errout"
run --actor rita endpoint confirm Acme/e --url "$URL"
is "$rc $out" "0 endpoint Acme/e: rita's credentials t may go to $URL" "rita confirms her own reference"
is "$(sqlite3 "$AIVET_DB" "SELECT actor || ' ' || object_id || ' ' || details FROM audit_log WHERE action = 'endpoint.confirm'")" \
	"rita 1 {\"credentials\":[\"t\"],\"origin_url\":\"$URL\"}" "one confirmation, rita's, of endpoint 1"
run audit verify
is "$rc" 0 "the chain verifies$errout"

# An older database: an entry confirming endpoint 999 written past aivet, as
# PostgreSQL's aivet_audit_append() took it before migration 018.
n=$(python3 "$TESTS_SRCDIR/lib/audit-append.py" "$AIVET_DB" endpoint.confirm endpoint 999 row \
	"{\"credentials\":[\"t\"],\"origin_url\":\"$URL\"}")
run audit verify
is "$rc $errout" "1 aivet: audit chain broken: audit entry $n about endpoint 999 is not an action that creates a endpoint (endpoint.add)" \
	"audit verify names the entry and the endpoint it is about"
done_testing
