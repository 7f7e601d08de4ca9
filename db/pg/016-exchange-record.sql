-- pg/016-exchange-record.sql: one exchange of a probe run recorded with one
-- call (record_exchange() in src/engine/probe-evidence.c), where it took one
-- round trip for each body, the evidence item, the exchange row and the audit
-- entry. The function writes nothing itself: it calls the functions each of
-- those writes goes through (aivet_blob_put, aivet_evidence_add,
-- aivet_exchange_add, aivet_audit_append), in the order aivet calls them, so
-- their checks, the operation the entry must follow and the entry's seal are
-- the same. The call is sent on its own, outside BEGIN, so that it is the
-- whole transaction (one round trip, where BEGIN and COMMIT took two more):
-- every write of the exchange commits together or not at all, and it takes
-- the audit chain's lock first, as aivet's BEGIN does, so that what it reads
-- after it is what the lock's previous holder committed. Content stored already
-- is left as it is (a sealed copy is never replaced by plaintext), as
-- blob_put() does. Plain content only: a body sealed to the evidence key is
-- recorded as before, with its own blob_seal and entry.
-- Arguments: aivet_exchange_add's but the evidence id, then the request's and
-- the response's bodies (NULL when not stored: the request kept as its recipe,
-- no response), the evidence document and its SHA-256 and file name, the time
-- and the audit entry's details. Returns the evidence id.
CREATE FUNCTION aivet_exchange_record(p_run bigint, p_probe text, p_seq bigint, p_tenant text,
    p_streaming bigint, p_method text, p_url text, p_request_headers text, p_request_sha256 text,
    p_request_size bigint, p_request_blob text, p_request_recipe text, p_response_status bigint,
    p_response_headers text, p_response_sha256 text, p_response_size bigint, p_response_blob text,
    p_response_truncated bigint, p_error text, p_timings text, p_started_at text,
    p_request_body bytea, p_response_body bytea, p_doc bytea, p_doc_sha256 text, p_name text,
    p_at text, p_details text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE eid bigint;
BEGIN
	PERFORM pg_advisory_xact_lock(1634301541);
	IF p_request_blob IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = p_request_blob) THEN
		PERFORM aivet_blob_put(p_request_blob, p_request_size, 0, p_request_body);
	END IF;
	IF p_response_blob IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = p_response_blob) THEN
		PERFORM aivet_blob_put(p_response_blob, p_response_size, 0, p_response_body);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = p_doc_sha256) THEN
		PERFORM aivet_blob_put(p_doc_sha256, octet_length(p_doc), 0, p_doc);
	END IF;
	eid := aivet_evidence_add('exchange', p_doc_sha256, p_name, 'application/json',
	    octet_length(p_doc), NULL, p_at);
	PERFORM aivet_exchange_add(eid, p_run, p_probe, p_seq, p_tenant, p_streaming, p_method, p_url,
	    p_request_headers, p_request_sha256, p_request_size, p_request_blob, p_request_recipe,
	    p_response_status, p_response_headers, p_response_sha256, p_response_size, p_response_blob,
	    p_response_truncated, p_error, p_timings, p_started_at);
	PERFORM aivet_audit_append(p_at, 'probe.exchange', 'evidence', eid, p_details);
	RETURN eid;
END $$;

-- A probe's result that raised no finding, the same way: its row and its
-- audit entry with one call, its own transaction, the chain's lock taken
-- first (write_result() in src/engine/probe-results.c; a result with
-- findings is written as before). Arguments: aivet_probe_result's, then the
-- time and the entry's details. Returns the result's id.
CREATE FUNCTION aivet_probe_result_record(p_run bigint, p_probe text, p_verdict text, p_reason text,
    p_requests bigint, p_details text, p_at text, p_entry text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE rid bigint;
BEGIN
	PERFORM pg_advisory_xact_lock(1634301541);
	rid := aivet_probe_result(p_run, p_probe, p_verdict, p_reason, p_requests, p_details);
	PERFORM aivet_audit_append(p_at, 'probe.result', 'probe_result', rid, p_entry);
	RETURN rid;
END $$;

CALL pin_aivet_functions();
