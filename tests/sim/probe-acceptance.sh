#!/bin/sh
# probe-acceptance.sh: the probes against aivet-sim on 127.0.0.1, one
# configuration per fault. A correct server raises nothing; each fault
# raises exactly the finding that describes it; every exchange is evidence
# with credentials redacted. Contexts are scaled down (8,192 tokens).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# ---- fault none: every probe passes, no findings, exit 0 ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
run probe run V/e --yes --json
is "$rc" 0 "none: exit 0"
is "$(verdicts)" "echo:pass oversize:pass sweep:pass canary:pass errors:pass" "none: every probe passes"
is "$(codes)" "" "none: no findings"
is "$(printf '%s' "$out" | jq -r '[.id, .endpoint, .status, .calibration.method] | join(" ")')" \
    "1 V/e completed usage" "none: run id, endpoint, status, calibration method"
like "$(printf '%s' "$out" | jq -r '.calibration.tokens_per_unit')" '^[0-9]+(\.[0-9]+)?$' \
    "none: calibration has tokens_per_unit"
is "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | .details |
    [.advertised, .refusal_boundary, .integrity_boundary, .change]')" '[8192,null,null,"none"]' \
    "none: sweep details contract"
is "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | .details.points[0] | keys')" \
    '["accepted","class","evidence","nonces_echoed","nonces_total","status","stream","tokens_sent","usage","usage_cached_tokens","usage_prompt_tokens"]' \
    "none: sweep point fields"
is "$(printf '%s' "$out" | jq -c '[.probes[] | select(.name == "sweep") | .details.points[] |
    select(.accepted and .nonces_echoed == 3 and .status == 200)] | length >= 1')" true \
    "none: sweep points accepted with all three nonces (verify: the top of the context)"
is "$(q "SELECT count(*) FROM exchange") $(q "SELECT count(*) FROM evidence WHERE kind = 'exchange'")" \
    "$(q "SELECT sum(requests) + 2 FROM probe_result") $(q "SELECT count(*) FROM exchange")" \
    "none: one evidence row per exchange, calibration included"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.exchange'")" \
    "$(q "SELECT count(*) FROM exchange")" "none: every exchange is in the audit log"
sqlite3 "$AIVET_DB" .dump >"$T/dump.sql"
ok "$(grep -c -e "$PROBE_KEY_ALICE" -e "$PROBE_KEY_BOB" "$T/dump.sql")" "none: no key anywhere in the database"
is "$(q "SELECT DISTINCT json_extract(request_headers, '$.Authorization') FROM exchange")" "[redacted]" \
    "none: Authorization recorded redacted"
is "$(q "SELECT count(DISTINCT tenant) FROM exchange WHERE probe = 'canary'")" 2 "none: both tenants sent canaries"
eid=$(q "SELECT evidence_id FROM exchange WHERE probe = 'echo' ORDER BY seq LIMIT 1")
run evidence show "$eid"
like "$out" "Authorization: \[redacted\]" "evidence show: redacted header"
# One number for one exchange: its evidence id, in the file name as on every
# screen; the run's own count of its requests is said as such.
seq=$(q "SELECT seq FROM exchange WHERE evidence_id = $eid")
is "$(printf '%s\n' "$out" | sed -n '1s/, [0-9]* bytes.*//p;3p')" "evidence $eid: exchange, exchange-$eid.json
run 1, probe echo, request $seq of the run, tenant alice" "evidence show: one number for the exchange, the run's request counted apart"
like "$out" "response: HTTP 200" "evidence show: status"
like "$out" 'request body \([0-9]+ bytes\):' "evidence show: small request body stored"
# The usage a finding cites is shown whole even where the body's preview stops
# short of it: the response body's own usage object (a JSON body's, or the last
# server-sent event's that has one), read here with jq from the stored body.
for streaming in 0 1; do
	ue=$(q "SELECT evidence_id FROM exchange WHERE streaming = $streaming AND response_status = 200 ORDER BY response_size DESC LIMIT 1")
	want=$("$AIVET" evidence show "$ue" --json | jq -c '.exchange.response_body |
	    (try (fromjson | .usage) catch (split("\n") | map(select(startswith("data:")) | .[5:] | try fromjson catch null |
	    objects | select(.usage) | .usage) | last))')
	run evidence show "$ue"
	like "$want" '"prompt_tokens":[0-9]+' "evidence show (streaming $streaming): the stored body has a usage object"
	is "$(printf '%s\n' "$out" | sed -n 's/^usage: //p')" "$want" "evidence show (streaming $streaming): its usage line is the body's usage"
done
big=$(q "SELECT evidence_id FROM exchange WHERE request_recipe IS NOT NULL ORDER BY seq LIMIT 1")
run evidence show "$big" --json
is "$(printf '%s' "$out" | jq -r '[.kind, .exchange.request_regenerated, .exchange.request_body] | join(",")')" \
    "exchange,true," "evidence show: a large request regenerates from its recipe to the recorded SHA-256"
run audit verify
is "$rc" 0 "none: audit chain intact"
run probe runs
like "$out" '^ +1  V/e +completed .* no findings$' "probe runs lists the run: no findings, every probe judged"
run probe show 1
like "$out" "ok   sweep +pass" "probe show prints verdicts"
sim_stop

# ---- disagg-placeholder, two tenants: the incident ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
run probe run V/e --yes --json
is "$rc" 1 "disagg: exit 1"
like " $(codes) " " LEAK_CROSS_TENANT.* PLACEHOLDER_SUBSTITUTION " "disagg: LEAK_CROSS_TENANT and PLACEHOLDER_SUBSTITUTION"
is "$(printf '%s' "$out" | jq -r '[.probes[].findings[] | select(.code == "LEAK_CROSS_TENANT") | .severity] | unique | join(",")')" \
    critical "disagg: a cross-tenant leak is critical"
leak=$(q "SELECT f.id FROM finding f WHERE f.code = 'LEAK_CROSS_TENANT' LIMIT 1")
is "$(q "SELECT group_concat(t) FROM (SELECT DISTINCT x.tenant t FROM finding_evidence fe JOIN exchange x ON x.evidence_id = fe.evidence_id WHERE fe.finding_id = $leak ORDER BY t)")" \
    "alice,bob" "disagg: the leak cites alice's request and bob's response"
# A canary in one tenant's answer is one the other tenant sent (both tenants send and
# receive, so the leak may run either way).
found=0
for pair in alice:bob bob:alice; do
	rcv=${pair%%:*} src=${pair#*:}
	for eid in $(q "SELECT x.evidence_id FROM finding_evidence fe JOIN exchange x ON x.evidence_id = fe.evidence_id WHERE fe.finding_id = $leak AND x.tenant = '$rcv'"); do
		"$AIVET" evidence show "$eid" --json --include-leaked-content | jq -r '.exchange.response_body // ""' | grep -oE 'AIVET[A-Za-z0-9]{19}' | sort -u >"$T/saw"
		for n in $(cat "$T/saw"); do
			[ "$(q "SELECT count(*) FROM exchange x JOIN blob b ON b.sha256 = x.request_blob
			    WHERE x.tenant = '$src' AND instr(CAST(b.data AS TEXT), '$n') > 0")" -gt 0 ] && found=1
		done
	done
done
is "$found" 1 "disagg: a tenant's response holds a canary from the other tenant's request"
# Where it broke is diagnose's to locate.
run probe run V/e --yes --json --probe echo,sweep --depth diagnose
ib=$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .details.integrity_boundary')
# The pool holds 5,312 tokens in whole pages of 16.
ok "$([ "$ib" -ge 5259 ] && [ "$ib" -le 5312 ] && echo 0 || echo 1)" "disagg: integrity broke at $ib, within 1% of 5,312"
is "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .details.change')" silent_degradation \
    "disagg: the change is silent"
sim_stop

# ---- truncate-head: SILENT_TRUNCATION ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault truncate-head || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe sweep
is "$rc" 1 "truncate-head: exit 1"
is "$(codes)" "SILENT_TRUNCATION" "truncate-head: SILENT_TRUNCATION"
sim_stop

# ---- error-200: ERROR_IN_200 ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault error-200 || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe oversize
is "$(codes)" "ERROR_IN_200" "error-200: ERROR_IN_200"
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict')" fail "error-200: oversize fails"
is "$rc" 0 "error-200: medium is below the default --fail-on high"
sim_stop

# ---- advertised context above real capacity, visible refusals ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
run probe run V/e --yes --json
is "$(codes)" "CAPACITY_BELOW_ADVERTISED" "capacity below advertised: CAPACITY_BELOW_ADVERTISED only"
is "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .details.change')" visible_refusal \
    "capacity below advertised: the change is a visible refusal"
run probe run V/e --yes --json --depth diagnose
is "$(codes)" "CAPACITY_BELOW_ADVERTISED" "capacity below advertised, diagnose: CAPACITY_BELOW_ADVERTISED only"
rb=$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .details.refusal_boundary')
ok "$([ "$rb" -ge 5200 ] && [ "$rb" -le 5312 ] && echo 0 || echo 1)" "capacity below advertised: refusals from $rb"
is "$rc" 0 "capacity below advertised: exit 0 at --fail-on high"
run probe run V/e --yes --probe sweep --fail-on medium
is "$rc" 1 "capacity below advertised: exit 1 at --fail-on medium"
sim_stop

# ---- context below the pool, correct rejection: nothing ----
sim_start --context 4096 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096
run probe run V/e --yes --json
is "$rc:$(codes)" "0:" "context below pool: no finding"
sim_stop

# ---- Anthropic's API ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup anthropic 8192
run probe run V/e --yes --json
is "$rc:$(verdicts):$(codes)" "0:echo:pass oversize:pass sweep:pass canary:pass errors:pass:" \
    "anthropic: every probe passes"
is "$(q "SELECT DISTINCT json_extract(request_headers, '$.x-api-key') FROM exchange WHERE probe <> 'errors'")" \
    "[redacted]" "anthropic: x-api-key recorded redacted"
"$AIVET" endpoint edit V/e --remove-credential bob >/dev/null
run probe run V/e --yes --json --probe canary
is "$(printf '%s' "$out" | jq -r '.probes[0] | .verdict + ": " + .reason')" \
    "pass: no cross-request leak in 7 responses; the cross-tenant check needs a second credential" \
    "one credential: cross-request only, and the verdict says what is missing"
sim_stop
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault no-usage || exit 1
probe_setup anthropic 8192
run probe run V/e --yes --json --probe echo
is "$(printf '%s' "$out" | jq -r '.calibration.method')" count_tokens "anthropic without usage: calibrated by count_tokens"
sim_stop

# ---- streams and usage ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault stream-error || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo
is "$(codes):$rc" "STREAM_ERROR_AFTER_200:0" "stream-error: STREAM_ERROR_AFTER_200 (low)"
sim_stop
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault no-usage || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo,sweep
is "$(codes):$rc" "USAGE_MISSING:0" "no-usage: USAGE_MISSING (info)"
is "$(printf '%s' "$out" | jq -r '[.calibration.method, .calibration.rejected[0].method] | join(" ")')" "bounds tokenize" \
    "no-usage: /tokenize, at the server root beside the keys' /v1, is not asked: calibrated by bounds"
sim_stop
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault stream-as-json || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo,sweep
is "$(verdicts):$(codes):$rc" "echo:pass sweep:pass::0" "stream-as-json: judged on what was sent"
sim_stop

# ---- rate limits: retried after Retry-After, every attempt recorded ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault rate-limit --rate-limit-count 2 || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo
is "$(verdicts):$rc" "echo:pass:0" "rate-limit: passes after retrying"
is "$(q "SELECT count(*) FROM exchange WHERE response_status = 429")" 2 "rate-limit: the 429s are recorded"
sim_stop

# ---- bad input answered with a server error ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault malformed-500 || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe errors
is "$(codes):$(verdicts):$rc" "SERVER_ERROR_ON_BAD_INPUT:errors:fail:0" "malformed-500: SERVER_ERROR_ON_BAD_INPUT (low)"
is "$(printf '%s' "$out" | jq -c '.probes[0].details | [.malformed_json.status, .missing_field.status, .missing_field_stream.status]')" \
    '[500,400,400]' "malformed-500: the malformed body got 500, the incomplete ones 400"
sim_stop

done_testing
