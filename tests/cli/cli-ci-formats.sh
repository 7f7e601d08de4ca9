#!/bin/sh
# cli-ci-formats.sh: probe runs in the formats CI systems read, and drift
# between runs, on runs written with sqlite3: "probe show --format sarif"
# (valid against the SARIF 2.1.0 schema, rule ids = finding codes, each
# result located at its evidence file in the bundle or at the endpoint),
# "--format junit" (well-formed XML with the counts dashboards read, hostile
# text escaped), and "probe diff" (new and resolved findings, verdicts, a
# moved boundary, calibration, error shapes; exit 1 when something changed).
. "$TESTS_SRCDIR/lib/lib.sh"

run vendor add Acme
run endpoint add Acme --name prod --api openai --url https://api.acme.example/v1 --model m1 \
	--context 1048576 --credential a=env:ACME_A --credential b=env:ACME_B

# put_blob NAME TEXT: stores TEXT as a blob and sets $sha.
put_blob() {
	printf '%s' "$2" >"$T/$1"
	sha=$(sha256sum "$T/$1" | cut -d' ' -f1)
	sqlite3 "$AIVET_DB" "INSERT OR IGNORE INTO blob VALUES ('$sha', $(wc -c <"$T/$1"), 0, readfile('$T/$1'));"
}
# exchange EVIDENCE RUN PROBE SEQ STATUS BODY: one recorded exchange with its response body.
exchange() {
	put_blob "body$1" "$6"
	sqlite3 "$AIVET_DB" "INSERT INTO evidence (id, kind, sha256, size, added_by, added_at)
		VALUES ($1, 'exchange', '$sha', 1, 'tester', '2026-11-30T02:00:00.000Z');
	INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, method, url, request_headers,
		request_sha256, request_size, response_status, response_blob, started_at)
		VALUES ($1, $2, '$3', $4, 'a', 'POST', 'https://api.acme.example/v1/chat/completions', '{}',
		'$sha', 10, $5, '$sha', '2026-11-30T02:00:00.000Z');"
}

sqlite3 "$AIVET_DB" <<'SQL'
INSERT INTO probe_run (id, endpoint_id, status, probes, calibration, tokens_in, tokens_out, actor, started_at, finished_at)
VALUES (1, 1, 'completed', '["echo","oversize","sweep","canary","errors","prefix-timing"]',
  '{"method":"usage","tokens_per_unit":1.31,"overhead_tokens":12,"unit":"filler word","samples":[{"units":100,"tokens":143}]}',
  2500000, 900, 'tester', '2026-11-29T02:00:00.000Z', '2026-11-29T02:03:20.500Z'),
(2, 1, 'completed', '["echo","oversize","sweep","canary","errors","prefix-timing"]',
  '{"method":"usage","tokens_per_unit":1.52,"overhead_tokens":12.4,"unit":"filler word","samples":[{"units":100,"tokens":164}]}',
  2400000, 800, 'tester', '2026-11-30T02:00:00.000Z', '2026-11-30T02:02:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) VALUES
(1, 'echo', 'pass', 'the model repeated all three nonces', 2, NULL),
(1, 'oversize', 'fail', '1 finding', 4, NULL),
(1, 'sweep', 'fail', '1 finding', 24,
  '{"advertised":1048576,"refusal_boundary":null,"integrity_boundary":681280,"change":"silent_degradation","points":[]}'),
(1, 'canary', 'fail', '1 finding', 6, NULL),
(1, 'errors', 'pass', 'bad requests were refused with 4xx', 4, NULL),
(1, 'prefix-timing', 'inconclusive', 'timing noise (sd 41.0 ms) is too high for 30 trials to see a cache hit saving 20.0 ms; would need about 64 trials', 150, NULL),
(2, 'echo', 'pass', 'the model repeated all three nonces', 2, NULL),
(2, 'oversize', 'error', 'no answer: Connection reset by peer', 4, NULL),
(2, 'sweep', 'fail', '1 finding', 24,
  '{"advertised":1048576,"refusal_boundary":524288,"integrity_boundary":null,"change":"visible_refusal","points":[]}'),
(2, 'canary', 'fail', '1 finding', 6, NULL),
(2, 'errors', 'pass', 'bad requests were refused with 4xx', 4, NULL),
(2, 'prefix-timing', 'pass', 'B was not faster after A sent the same opening', 150, NULL);
SQL
exchange 1 1 errors 1 400 '{"error":{"message":"Expecting value: line 1 column 1","type":"invalid_request_error","param":null,"code":null}}'
exchange 2 1 errors 2 400 '{"error":{"message":"messages is required","type":"invalid_request_error","param":null,"code":null}}'
exchange 3 1 oversize 3 413 '<html><body>Request Entity Too Large</body></html>'
exchange 4 1 canary 4 200 '{"choices":[]}'
exchange 5 2 errors 1 400 '{"error":{"message":"Expecting value: line 9 column 2","type":"invalid_request_error","param":null,"code":null}}'
exchange 6 2 errors 2 422 '{"detail":[{"loc":["body","messages"],"msg":"field required","type":"missing"}]}'
exchange 7 2 canary 3 200 '{"choices":[]}'
sqlite3 "$AIVET_DB" <<'SQL'
INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
(1, 1, 'oversize', 'OVERSIZE_ACCEPTED', 'high', 'a prompt of 1,101,004 tokens was answered with HTTP 200'),
(2, 1, 'sweep', 'PLACEHOLDER_SUBSTITUTION', 'critical', 'a prompt of about 700,000 tokens was reported as 1 token'),
(3, 1, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'a response to tenant ''b'' contained <canaries> & "text" sent by another tenant' || char(1) || CAST(X'C328' AS TEXT)),
(4, 2, 'sweep', 'CAPACITY_BELOW_ADVERTISED', 'medium', 'prompts of 524,288 tokens and more were refused (advertised 1,048,576)'),
(5, 2, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'a response to tenant ''b'' contained canaries sent by another tenant' || char(8238) || 'txt.exe' || char(133));
INSERT INTO finding_evidence VALUES (1, 3), (2, 4), (3, 4), (3, 1), (4, 5), (5, 7);
SQL

# ---- SARIF ----
run probe show 1 --format sarif
is "$rc" 0 "probe show --format sarif exits 0"
printf '%s\n' "$out" >"$T/run1.sarif"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/sarif-schema-2.1.0.json" "$T/run1.sarif" 2>&1)
is "$v" "0 errors" "the SARIF log is valid against the SARIF 2.1.0 schema"
is "$(json '[.version, (.runs | length), .runs[0].tool.driver.name, .runs[0].automationDetails.id] | @csv' <"$T/run1.sarif")" \
	'"2.1.0",1,"aivet","aivet/Acme/prod/run-1"' "SARIF: version, one run, tool, category per endpoint"
is "$(json '.runs[0].results | map(.ruleId + ":" + .level + ":" + (.properties.evidence | map(tostring) | join("+"))) | join(" ")' <"$T/run1.sarif")" \
	"OVERSIZE_ACCEPTED:error:3 PLACEHOLDER_SUBSTITUTION:error:4 LEAK_CROSS_TENANT:error:1+4" \
	"SARIF: a result per finding, rule id = finding code, level, evidence ids"
is "$(json '.runs[0] | .results[] | select(.ruleId == "LEAK_CROSS_TENANT") | [.tool, .ruleIndex, .message.text, .locations[0].logicalLocations[0].fullyQualifiedName, .properties.severity] | .[1:] | @csv' <"$T/run1.sarif")" \
	"0,\"a response to tenant 'b' contained <canaries> & \"\"text\"\" sent by another tenant$(printf '\001')�(\",\"Acme/prod/canary\",\"critical\"" \
	"SARIF: rule index, message (invalid UTF-8 replaced), endpoint/probe location"
is "$(json '.runs[0] | .tool.driver.rules[.results[0].ruleIndex] | [.id, .name, .defaultConfiguration.level, .properties["security-severity"]] | @csv' <"$T/run1.sarif")" \
	'"OVERSIZE_ACCEPTED","OversizeAccepted","error","8.0"' "SARIF: the rule a result points at"
is "$(json '[.runs[0].tool.driver.rules[].id] | join(" ")' <"$T/run1.sarif")" \
	"LEAK_CROSS_TENANT PLACEHOLDER_SUBSTITUTION PREFIX_CACHE_CONTENT_RECOVERED LEAK_CROSS_REQUEST OVERSIZE_ACCEPTED SILENT_TRUNCATION KV_POOL_BELOW_CONTEXT ENGINE_VERSION_AFFECTED CLAIM_CONTRADICTED CAPACITY_BELOW_ADVERTISED ENGINE_NODES_DIFFER ERROR_IN_200 MALFORMED_ACCEPTED PREFIX_CACHE_SHARED_ACROSS_TENANTS USAGE_ANOMALY LOAD_BREAKS_OTHER_TENANT STREAM_ERROR_AFTER_200 SERVER_ERROR_ON_BAD_INPUT USAGE_MISSING" \
	"SARIF: every finding code of the registry is a rule"
is "$(json '.runs[0].invocations[0] | [.executionSuccessful, .startTimeUtc, .endTimeUtc, (.toolExecutionNotifications | map(.level + ":" + .message.text) | join("|"))] | @csv' <"$T/run1.sarif")" \
	'true,"2026-11-29T02:00:00.000Z","2026-11-29T02:03:20.500Z","warning:probe prefix-timing inconclusive: timing noise (sd 41.0 ms) is too high for 30 trials to see a cache hit saving 20.0 ms; would need about 64 trials"' \
	"SARIF: invocation times; an inconclusive probe is a warning notification"
is "$(json '[.runs[0].results[] | .locations[0].physicalLocation.artifactLocation | .uriBaseId + ":" + .uri] | join(" ")' <"$T/run1.sarif")" \
	"AIVET_BUNDLE:evidence/exchange-3.json AIVET_BUNDLE:evidence/exchange-4.json AIVET_BUNDLE:evidence/exchange-1.json" \
	"SARIF: each result's physical location is its first evidence file, as the bundle names it"
is "$(json '.runs[0].originalUriBaseIds.AIVET_BUNDLE.description.text' <"$T/run1.sarif")" \
	"the directory of the signed report bundle (aivet report) that holds this run's evidence" \
	"SARIF: the base the evidence paths are relative to"
fp1=$(json '.runs[0].results[2].partialFingerprints["aivetFinding/v1"]' <"$T/run1.sarif")
run probe show 2 --format sarif
printf '%s\n' "$out" >"$T/run2.sarif"
is "$(json '.runs[0] | [.invocations[0].executionSuccessful, .invocations[0].toolExecutionNotifications[0].level, .results[1].ruleId, .results[1].partialFingerprints["aivetFinding/v1"] == "'"$fp1"'"] | @csv' <"$T/run2.sarif")" \
	'false,"error","LEAK_CROSS_TENANT",true' \
	"SARIF: a probe error fails the invocation; the same leak has the same fingerprint in both runs"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/sarif-schema-2.1.0.json" "$T/run2.sarif" 2>&1)
is "$v" "0 errors" "run 2's SARIF log is valid too"

# ---- JUnit ----
run probe show 1 --format junit
is "$rc" 0 "probe show --format junit exits 0"
printf '%s\n' "$out" >"$T/run1.xml"
is "$(python3 - "$T/run1.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
s = root.find("testsuite")
print(root.tag, root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped"), root.get("time"))
print(s.get("name"), s.get("id"), s.get("tests"), s.get("failures"), s.get("skipped"), s.get("timestamp"))
for c in s.findall("testcase"):
    f = c.find("failure")
    k = c.find("skipped")
    print(c.get("classname"), c.get("name"), f.get("type") if f is not None else "-",
          "skipped" if k is not None else "")
print(s.find("testcase[@name='canary']/failure").text)
PY
)" "testsuites 6 3 0 1 200.500
Acme/prod 1 6 3 1 2026-11-29T02:00:00
aivet.Acme/prod echo - 
aivet.Acme/prod oversize OVERSIZE_ACCEPTED 
aivet.Acme/prod sweep PLACEHOLDER_SUBSTITUTION 
aivet.Acme/prod canary LEAK_CROSS_TENANT 
aivet.Acme/prod errors - 
aivet.Acme/prod prefix-timing - skipped
[critical] LEAK_CROSS_TENANT: a response to tenant 'b' contained <canaries> & \"text\" sent by another tenant��( (evidence 1 4)" "JUnit: well-formed; suite and case counts, failure types, skipped inconclusive, escaped text"
like "$out" '<failure type="LEAK_CROSS_TENANT" message="LEAK_CROSS_TENANT \(critical\): 1 finding">' \
	"JUnit: the failure names the code and severity"
run probe show 2 --format junit
like "$out" '<error type="error" message="no answer: Connection reset by peer"/>' "JUnit: a probe error is <error>"
is "$(printf '%s\n' "$out" | grep -F 'sent by another tenant')" \
	'      <failure type="LEAK_CROSS_TENANT" message="LEAK_CROSS_TENANT (critical): 1 finding">[critical] LEAK_CROSS_TENANT: a response to tenant &apos;b&apos; contained canaries sent by another tenant\u202etxt.exe\u0085 (evidence 7)' \
	"JUnit: a bidirectional override (U+202E) and a C1 control are written as visible escapes, never raw"

run probe show 1 --format yaml
is "$rc:$errout" "2:aivet: --format: 'yaml' is not one of text, json, junit, sarif" "an unknown format is refused"

# ---- drift ----
run probe diff 1 2
is "$rc" 1 "probe diff exits 1 when something changed"
is "$out" "drift from run 1 to run 2 (Acme/prod):
  new finding        sweep CAPACITY_BELOW_ADVERTISED (medium): prompts of 524,288 tokens and more were refused (advertised 1,048,576)
  resolved finding   sweep PLACEHOLDER_SUBSTITUTION (critical)
  verdict            oversize verdict fail -> error
  verdict            prefix-timing verdict inconclusive -> pass
  boundary           sweep refusal_boundary null -> 524,288
  boundary           sweep integrity_boundary 681,280 -> null
  boundary           sweep change silent_degradation -> visible_refusal
  calibration        tokens_per_unit 1.31 -> 1.52
  new error shape    errors 422 {detail:[{loc:[string],msg:string,type:\"missing\"}]}
  gone error shape   oversize 413 (not JSON)" \
	"probe diff: new/resolved findings (not OVERSIZE_ACCEPTED: oversize erred), verdicts, boundaries, calibration beyond 5%, error shapes"
run probe diff 1 2 --json
is "$(printf '%s' "$out" | json '[.changed, .same_endpoint, .a.id, .b.id, (.findings.new | length), .findings.resolved[0].code, (.boundaries | length), .calibration[0].field, .error_shapes.new[0].evidence, .error_shapes.gone[0].status] | @csv')" \
	'true,true,1,2,1,"PLACEHOLDER_SUBSTITUTION",3,"tokens_per_unit",6,413' "probe diff --json"
is "$rc" 1 "probe diff --json exits 1 as its document's changed says"
run probe diff 2 2
is "$rc:$out" "0:no drift from run 2 to run 2 (Acme/prod)" "a run compared with itself: no drift, exit 0"
run probe diff 2 2 --json
is "$rc:$(printf '%s' "$out" | json '.changed')" "0:false" "probe diff --json: no drift, changed false, exit 0"
run probe diff 1 9
is "$rc:$errout" "2:aivet: unknown run 9 (see 'aivet probe runs')" "an unknown run is refused"
run probe diff 1
is "$rc" 2 "probe diff needs two runs"
like "$errout" "^aivet: probe diff needs exactly two RUN_A RUN_B" "and says so"

# ---- a finding without evidence: SARIF points at the endpoint ----
sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at)
	VALUES (3, 1, 'completed', '[\"errors\"]', 'tester', '2026-12-01T02:00:00.000Z', '2026-12-01T02:01:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (3, 'errors', 'fail', '1 finding', 4);
	INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
	(6, 3, 'errors', 'SERVER_ERROR_ON_BAD_INPUT', 'medium', 'a malformed request got HTTP 500');"
run probe show 3 --format sarif
printf '%s\n' "$out" >"$T/run3.sarif"
is "$(json '.runs[0].results[0].locations[0].physicalLocation.artifactLocation | [.uri, (.uriBaseId | tostring)] | join(" ")' <"$T/run3.sarif")" \
	"https://api.acme.example/v1 null" "SARIF: a finding without evidence is located at the endpoint URL"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/sarif-schema-2.1.0.json" "$T/run3.sarif" 2>&1)
is "$v" "0 errors" "and that log is valid too"
# ---- the positionals "probe show" and "probe run" declare, counted and resolved by the framework ----
run probe show
like "$rc:$errout" "^2:aivet: probe show needs at least one RUN
usage: aivet probe show RUN \[RUN...\]" "probe show without a RUN: the framework's wording and the usage line"
run probe show 1 2 3 1 2 --json
is "$rc:$(printf '%s' "$out" | json '[.[].id] | @csv')" "0:1,2,3,1,2" \
	"probe show takes any number of runs (more than the framework keeps ids for), in the order given"
run probe show 1 2 3 1 9
is "$rc:$errout" "2:aivet: unknown run 9 (see 'aivet probe runs')" "an unknown fifth run: the one wording"
run probe show 1 x
is "$rc:$errout" "2:aivet: 'x' is not a run id (see 'aivet probe runs')" "a RUN that is not an id"
run probe show 3 --json
is "$(printf '%s' "$out" | jq -c '.probes[0]')" \
	'{"name":"errors","verdict":"fail","reason":"1 finding","requests":4,"details":null,"findings":[{"id":6,"code":"SERVER_ERROR_ON_BAD_INPUT","severity":"medium","message":"a malformed request got HTTP 500","evidence":[]}]}' \
	"probe show --json: a result and its finding, every member in its order and type"
run probe run
like "$rc:$errout" "^2:aivet: probe run needs exactly one VENDOR/ENDPOINT" "probe run without an endpoint"
run probe run Acme/prod Acme/prod
like "$rc:$errout" "^2:aivet: probe run takes at most one VENDOR/ENDPOINT" "probe run with two endpoints: the framework's wording"
run probe run Acme/nope --dry-run
is "$rc:$errout" "2:aivet: unknown endpoint 'Acme/nope' (see 'aivet endpoint list')" "probe run: an unknown endpoint, resolved before exec"
done_testing
