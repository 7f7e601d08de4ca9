#!/bin/sh
# tests/hard/hard-secrets.sh: secrets and leaked content at rest. After a full
# probe run against the incident's fault, an incident opened from its
# finding and verified, and a signed report with the incident, the API keys
# appear nowhere: database (and its WAL), configuration, bundle, stdout and
# stderr of every command. The response behind LEAK_CROSS_TENANT is sealed
# to the evidence key; the report shows its canaries and a redacted excerpt,
# and the whole body only with --include-leaked-content.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

LOG="$T/outputs"
: >"$LOG"
# keep CMD...: runs aivet, appending its stdout and stderr to $LOG.
keep() {
	"$AIVET" "$@" >>"$LOG" 2>&1
}
sim_start --tenants "$PROBE_TENANTS" --context 8192 --pool 4096 --fault disagg-placeholder || exit 1
probe_setup openai 8192
keep probe run V/e --probe all --yes --json
is "$?" 1 "the full run finds the leak (exit 1)"
leak=$(q "SELECT id FROM finding WHERE code = 'LEAK_CROSS_TENANT' LIMIT 1")
ok "$([ -n "$leak" ]; echo $?)" "LEAK_CROSS_TENANT raised"
keep incident open V --title "Leak" --endpoint V/e --from-finding "$leak"
keep incident verify 1
keep incident show 1 --json
keep probe show 1 --json
keep evidence show "$(q "SELECT evidence_id FROM finding_evidence WHERE finding_id = $leak LIMIT 1")"
"$AIVET" key generate --no-password >>"$LOG" 2>&1
keep report V --out "$T/bundle" --incident 1
is "$?" 0 "report with the incident written"
keep verify "$T/bundle"
is "$?" 0 "and it verifies"
sqlite3 "$AIVET_DB" "PRAGMA wal_checkpoint" >/dev/null

# ---- the keys appear nowhere ----
for key in "$PROBE_KEY_ALICE" "$PROBE_KEY_BOB"; do
	is "$(grep -rlaF -- "$key" "$T/aivet.db"* "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$T/bundle" "$LOG" 2>/dev/null | wc -l)" 0 \
		"key ${key%%-*}-... is in no file: database, WAL, config, bundle, outputs"
	is "$(sqlite3 "$AIVET_DB" .dump | grep -cF -- "$key")" 0 "nor in any row as SQLite dumps it"
done
# The test could find them: they did cross the wire, to the right server, and the sim saw them.
auths=$(q "SELECT count(*) FROM exchange WHERE request_headers LIKE '%Authorization%'")
ok "$([ "${auths:-0}" -gt 0 ]; echo $?)" "the exchanges recorded carry Authorization headers ($auths)"
is "$(q "SELECT count(*) FROM exchange WHERE request_headers LIKE '%[redacted]%'")" "$auths" \
	"every recorded Authorization header is redacted"

# ---- leaked content is sealed at rest ----
# A response that received another tenant's canary, as the canary probe attributed it.
ev=$("$AIVET" probe show 1 --json | jq -r '[.probes[] | select(.name == "canary") | .details.leaks[] |
	select(.other_tenant) | .found_in][0] // empty')
ev=$(q "SELECT e.evidence_id FROM finding_evidence e JOIN exchange x ON x.evidence_id = e.evidence_id
	JOIN blob b ON b.sha256 = x.response_blob WHERE e.finding_id = $leak AND b.encrypted = 1
	AND e.evidence_id = ${ev:-0}")
ok "$([ -n "$ev" ]; echo $?)" "the leaking response is stored encrypted (evidence $ev)"
is "$(q "SELECT instr(CAST(b.data AS TEXT), 'AIVET') FROM exchange x JOIN blob b ON b.sha256 = x.response_blob
	WHERE x.evidence_id = $ev")" 0 "its stored bytes hold no canary in clear"
is "$(q "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.response_blob WHERE b.encrypted = 1
	AND x.evidence_id NOT IN (SELECT evidence_id FROM finding_evidence f JOIN finding g ON g.id = f.finding_id
	WHERE g.code LIKE 'LEAK_%' OR g.code = 'PLACEHOLDER_SUBSTITUTION')")" 0 \
	"only exchanges behind LEAK_* findings (or a prompt swapped for others' content) are sealed"
is "$(stat -c %a "$XDG_CONFIG_HOME/aivet/evidence.key")" 600 "the evidence key is 0600"
is "$(wc -c <"$XDG_CONFIG_HOME/aivet/evidence.pub")" 65 "evidence.pub: 32 bytes in hex"

like "$("$AIVET" evidence show "$ev")" "response body: sealed \(leaked content is kept encrypted\)" \
	"evidence show keeps it sealed"
like "$("$AIVET" evidence show "$ev" --include-leaked-content --json | jq -r .exchange.response_body)" '"choices"' \
	"evidence show --include-leaked-content opens it with the evidence key"

# ---- the report: canaries and a redacted excerpt; all of it only on request ----
EX="$T/bundle/evidence/exchange-$ev.json"
is "$(jq -r '.response | [.encrypted, .body] | map(tostring) | join(" ")' "$EX")" "true null" \
	"the bundle's exchange says encrypted and carries no body"
canary=$(jq -r '.response.canaries[0]' "$EX")
like "$canary" "^AIVET[A-Za-z0-9]{19}$" "it names the leaked canary ($canary)"
other=0
for c in $(jq -r '.response.canaries[]' "$EX"); do
	[ "$(q "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.request_blob
	    WHERE x.tenant <> (SELECT tenant FROM exchange WHERE evidence_id = $ev)
	    AND instr(CAST(b.data AS TEXT), '$c') > 0")" -gt 0 ] && other=1
done
is "$other" 1 "among them a canary the other tenant sent"
like "$(jq -r '.response.body_excerpt' "$EX")" "^(\[[0-9]+ bytes withheld\]|AIVET[A-Za-z0-9]{19})+$" \
	"the excerpt shows canaries and withholds everything else"
keep report V --out "$T/full" --incident 1 --include-leaked-content
is "$(jq -r '.response.body | fromjson | .choices[0].message.content | contains("'"$canary"'")' "$T/full/evidence/exchange-$ev.json")" \
	true "--include-leaked-content puts the whole body in the bundle"
# Without the evidence key nothing can open it: the report says so and still works.
mv "$XDG_CONFIG_HOME/aivet/evidence.key" "$T/evidence.key.away"
keep report V --out "$T/nokey" --incident 1
is "$(jq -r '.response | [.encrypted, .body, .body_note] | map(tostring) | join("|")' "$T/nokey/evidence/exchange-$ev.json")" \
	"true|null|leaked content: stored encrypted, left out of the report; the hash identifies it" \
	"without evidence.key the report keeps only the hash"
mv "$T/evidence.key.away" "$XDG_CONFIG_HOME/aivet/evidence.key"
done_testing
