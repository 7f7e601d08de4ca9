# tests/lib/report-fixture.sh: sourced by the report tests after lib.sh. Builds a
# vendor with one endpoint (two tenants), a questionnaire with verified_by
# links, a final assessment, one completed probe run (oversize fails, canary
# passes, sweep fails with its sweep points), findings, two recorded
# exchanges (one with a leaked, encrypted response) and an incident — rows
# written with sqlite3 the way the assess, probe and incident code write them.

fixture_blob() { # fixture_blob TEXT ENCRYPTED -> prints the sha256, stores the blob
	_sha=$(printf '%s' "$1" | sha256sum | cut -d' ' -f1)
	_hex=$(printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n')
	if [ "$2" = 1 ]; then _hex=$(head -c $((${#1} + 48)) /dev/urandom | od -An -v -tx1 | tr -d ' \n'); fi
	sqlite3 "$AIVET_DB" "INSERT OR IGNORE INTO blob (sha256, size, encrypted, data) VALUES ('$_sha', ${#1}, $2, X'$_hex');"
	echo "$_sha"
}

make_fixture() {
	# On a server the rows are written to an SQLite file, then copied over whole;
	# FIXTURE_DB is the SQLite file that holds them either way.
	FIXTURE_DB=$AIVET_DB
	if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
		_server_db=$AIVET_DB
		FIXTURE_DB=$T/fixture.db
		AIVET_DB=$FIXTURE_DB make_fixture_rows &&
		"$AIVET" db copy "$T/fixture.db" "$_server_db" >/dev/null
		return
	fi
	make_fixture_rows
}

make_fixture_rows() {
	ACME_QUESTIONNAIRE='{"id":"ai-vendor","version":1,"title":"AI inference vendor","sections":[{"id":"limits","title":"Limits","questions":[
{"id":"limits_oversize","text":"What happens to a request over the context limit?","type":"single_choice","choices":[{"value":"error","risk":"none"},{"value":"truncate","risk":"high"}],"verified_by":[{"probe":"oversize","confirms":"error"}],"contradicted_by":["OVERSIZE_ACCEPTED"]},
{"id":"isolation_tenant","text":"Are tenants isolated from each other?","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"critical"}],"verified_by":[{"probe":"canary","confirms":"yes","tenants":2}],"contradicted_by":["LEAK_CROSS_TENANT"]},
{"id":"context_full","text":"Is the whole advertised context usable?","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"medium"}],"verified_by":[{"probe":"sweep","confirms":"yes"}],"contradicted_by":["SILENT_TRUNCATION"]},
{"id":"stream_isolation","text":"Are streamed responses isolated?","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"high"}],"verified_by":[{"probe":"prefix-timing","confirms":"yes"}]},
{"id":"retention_days","text":"How many days are prompts kept?","type":"number","unit":"days"}]}]}'
	"$AIVET" vendor add acme --criticality 3 >/dev/null
	"$AIVET" endpoint add acme --name prod --api openai --url https://api.acme.example/v1 \
		--model acme-1m --context 1048576 --credential tenant-a=env:ACME_KEY_A \
		--credential tenant-b=env:ACME_KEY_B >/dev/null
	q=$(printf '%s' "$ACME_QUESTIONNAIRE" | sed "s/'/''/g")
	qsha=$(printf '%s' "$ACME_QUESTIONNAIRE" | sha256sum | cut -d' ' -f1)
	req1='{"model":"acme-1m","messages":[{"role":"user","content":"oversize prompt"}]}'
	resp1='{"choices":[{"message":{"content":"Sure! Patient John Doe, DOB 1970-01-01"}}],"usage":{"prompt_tokens":1}}'
	req2='{"model":"acme-1m","messages":[{"role":"user","content":"canary check"}]}'
	resp2='{"choices":[{"message":{"content":"CANARY-7f3a leaked from tenant-a"}}]}'
	s_req1=$(fixture_blob "$req1" 0); s_resp1=$(fixture_blob "$resp1" 0)
	s_req2=$(fixture_blob "$req2" 0); s_resp2=$(fixture_blob "$resp2" 1)
	sweep='{"advertised":1048576,"refusal_boundary":null,"integrity_boundary":681280,"change":"silent_degradation","points":[{"tokens_sent":131072,"status":200,"accepted":true,"nonces_echoed":3,"nonces_total":3,"usage_prompt_tokens":131080},{"tokens_sent":524288,"status":200,"accepted":true,"nonces_echoed":3,"nonces_total":3,"usage_prompt_tokens":524301},{"tokens_sent":786432,"status":200,"accepted":true,"nonces_echoed":1,"nonces_total":3,"usage_prompt_tokens":1},{"tokens_sent":1048576,"status":200,"accepted":true,"nonces_echoed":0,"nonces_total":3,"usage_prompt_tokens":null}]}'
	sqlite3 "$AIVET_DB" <<EOF
INSERT INTO questionnaire (id, qid, version, title, source, sha256, bundled, loaded_at)
  VALUES (1, 'ai-vendor', 1, 'AI inference vendor', '$q', '$qsha', 0, '2026-11-01T09:00:00.000Z');
INSERT INTO assessment (id, vendor_id, questionnaire_id, round, status, created_by, created_at, submitted_at, approved_at, reviewer)
  VALUES (1, 1, 1, 1, 'draft', 'alice', '2026-11-02T09:00:00.000Z', '2026-11-03T09:00:00.000Z', '2026-11-04T09:00:00.000Z', 'bob');
INSERT INTO answer VALUES (1, 'limits_oversize', '"error"', 'per their docs', 'alice', '2026-11-02T10:00:00.000Z');
INSERT INTO answer VALUES (1, 'isolation_tenant', '"yes"', NULL, 'alice', '2026-11-02T10:01:00.000Z');
INSERT INTO answer VALUES (1, 'context_full', '"yes"', NULL, 'alice', '2026-11-02T10:02:00.000Z');
INSERT INTO answer VALUES (1, 'stream_isolation', '"yes"', NULL, 'alice', '2026-11-02T10:03:00.000Z');
INSERT INTO answer VALUES (1, 'retention_days', '30', 'contract 4.2', 'alice', '2026-11-02T10:04:00.000Z');
UPDATE assessment SET status = 'in_review' WHERE id = 1;
UPDATE assessment SET status = 'final' WHERE id = 1;
INSERT INTO probe_run (id, endpoint_id, status, probes, options, calibration, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (1, 1, 'completed', '["oversize","canary","sweep"]', '{"budget_usd":5}', '{"chars_per_token":3.98}', 2490368, 420, 'alice', '2026-11-29T10:00:00.000Z', '2026-11-29T10:20:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) VALUES
  (1, 'oversize', 'fail', 'HTTP 200 to a prompt 2x the advertised context', 1, '{"sent":2097152,"status":200}'),
  (1, 'canary', 'pass', NULL, 2, NULL),
  (1, 'sweep', 'fail', 'integrity lost at 681280 tokens without an error', 4, '$sweep');
INSERT INTO evidence (id, kind, sha256, size, added_by, added_at) VALUES
  (1, 'exchange', '$s_resp1', ${#resp1}, 'alice', '2026-11-29T10:01:00.000Z'),
  (2, 'exchange', '$s_resp2', ${#resp2}, 'alice', '2026-11-29T10:02:00.000Z');
INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, method, url, request_headers, request_sha256, request_size, request_blob, response_status, response_headers, response_sha256, response_size, response_blob, timings, started_at) VALUES
  (1, 1, 'oversize', 1, 'tenant-a', 'POST', 'https://api.acme.example/v1/chat/completions?api-key=sk-live-SECRET&x=1', '{"Authorization":"Bearer sk-live-SECRET","Content-Type":"application/json"}', '$s_req1', ${#req1}, '$s_req1', 200, '{"content-type":"application/json","set-cookie":"session=SECRETCOOKIE"}', '$s_resp1', ${#resp1}, '$s_resp1', '{"total_ms":812}', '2026-11-29T10:01:00.000Z'),
  (2, 1, 'canary', 2, 'tenant-b', 'POST', 'https://api.acme.example/v1/chat/completions', '["Authorization: Bearer sk-live-SECRET"]', '$s_req2', ${#req2}, '$s_req2', 200, '{}', '$s_resp2', ${#resp2}, '$s_resp2', NULL, '2026-11-29T10:02:00.000Z');
INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
  (1, 1, 'oversize', 'OVERSIZE_ACCEPTED', 'high', 'a prompt twice the advertised context got HTTP 200'),
  (2, 1, 'sweep', 'SILENT_TRUNCATION', 'high', 'nonces lost from 681280 tokens with HTTP 200');
INSERT INTO finding_evidence VALUES (1, 1);
INSERT INTO incident (id, vendor_id, endpoint_id, title, status, severity, phi, discovered_at, created_by, created_at)
  VALUES (1, 1, 1, 'Cross-tenant text in responses', 'new', 3, 'yes', '2026-11-29T11:00:00.000Z', 'alice', '2026-11-29T11:05:00.000Z');
INSERT INTO incident_entry (incident_id, kind, at, at_utc, actor, text, recorded_at) VALUES
  (1, 'detection', '2026-11-29T12:00:00+01:00', '2026-11-29T11:00:00.000Z', 'alice', 'canary probe saw another tenant''s text', '2026-11-29T11:05:00.000Z'),
  (1, 'vendor-notice', '2026-11-29T13:30:00Z', '2026-11-29T13:30:00.000Z', 'bob', 'vendor told by email', '2026-11-29T13:31:00.000Z');
INSERT INTO incident_task (incident_id, title, owner, due_at, created_at) VALUES
  (1, 'Ask the vendor for its KV-cache isolation design', 'bob', '2026-12-01T17:00:00.000Z', '2026-11-29T11:10:00.000Z');
INSERT INTO incident_link VALUES (1, 'run', 1, '2026-11-29T11:06:00.000Z');
EOF
	# Sealed as aivet's writers seal what they write: the report vouches for them.
	python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"
}
