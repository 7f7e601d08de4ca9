-- pg/011-seal-writes.sql: sealing stored content becomes an operation of the
-- server's like any other evidentiary write (db/011-seal-writes.sql keeps the
-- same rules for SQLite). Until now a member wrote blob_seal rows directly,
-- appended a 'blob.seal' entry for them as herself and then sealed any blob
-- to a box of her choosing: an attached SOC 2 report, say, replaced by
-- garbage that audit verify accepted, since the record named that garbage.
--
-- Now a blob_seal row is written only by aivet_blob_seal(), which records
-- the SHA-256 of the box it is given (never one from an argument), for the
-- login's own running probe run only, and for content that neither an
-- evidence item names nor an exchange of a finished run recorded: only what
-- a run is receiving, a leaked response, is sealed. Its 'blob.seal' entry
-- follows the operation as for the other functions, and aivet_blob_put()
-- stores a box only as that operation recorded it, in the same transaction.
-- The blob trigger holds the same content rule for any writer, the owner
-- included. And the refusal of an incident fact changed by SQL is worded
-- as SQLite's.

-- Why stored content may not be sealed, or NULL when it may: sealing turns
-- readable bytes into a box no one can check, so it is for content a
-- running probe run is receiving, never for what evidence already rests on.
CREATE FUNCTION aivet_blob_unsealable(p_sha256 text) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT coalesce(
	    (SELECT format('stored content %s is the content of evidence %s: evidence is never sealed',
	        p_sha256, min(e.id)) FROM evidence e WHERE e.sha256 = p_sha256 HAVING count(*) > 0),
	    (SELECT format('stored content %s was recorded by probe run %s, which is %s: only content a '
	        'running probe run receives is sealed', p_sha256, r.id, r.status)
	     FROM exchange x JOIN probe_run r ON r.id = x.run_id
	     WHERE (x.request_blob = p_sha256 OR x.response_blob = p_sha256) AND r.status <> 'running'
	     ORDER BY r.id LIMIT 1))
$$;

-- A leaked response sealed while its run records it: the record of the box
-- (its SHA-256 computed here), for the login's own running run.
CREATE FUNCTION aivet_blob_seal(p_run bigint, p_sha256 text, p_size bigint, p_box bytea, p_at text)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	new_id bigint;
	why text;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_run_mine(p_run);
	IF octet_length(p_box) <> p_size + 48 THEN
		PERFORM aivet_refused(format('stored content %s: not a sealed box of %s bytes', p_sha256, p_size));
	END IF;
	IF EXISTS (SELECT 1 FROM blob WHERE sha256 = p_sha256 AND (encrypted <> 0 OR size <> p_size))
	   OR EXISTS (SELECT 1 FROM blob_seal WHERE sha256 = p_sha256) THEN
		PERFORM aivet_refused(format('stored content %s is sealed already, or is not of %s bytes',
		    p_sha256, p_size));
	END IF;
	why := aivet_blob_unsealable(p_sha256);
	IF why IS NOT NULL THEN
		PERFORM aivet_refused(why);
	END IF;
	INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at)
	VALUES (p_sha256, p_size, encode(sha256(p_box), 'hex'), p_at) RETURNING blob_seal.id INTO new_id;
	PERFORM aivet_op('blob.seal', 'blob_seal', new_id);
	RETURN new_id;
END $$;

-- 'blob.seal' entries now follow their operation, as the others do.
CREATE OR REPLACE FUNCTION aivet_op_bound(action text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT aivet_op_action(action) IN ('assessment.start', 'assessment.submit', 'assessment.approve',
	    'assessment.return', 'assessment.reopen', 'answer', 'answer.evidence', 'evidence.add',
	    'probe.exchange', 'questionnaire.load', 'incident.open', 'incident.status', 'incident.edit',
	    'incident.entry', 'incident.link', 'probe.start', 'probe.calibrate', 'probe.finish',
	    'probe.interrupted', 'probe.result', 'probe.finding', 'incident.task.add',
	    'incident.task.done', 'report.export', 'blob.seal')
$$;

-- As in 008, and a sealed box only as aivet_blob_seal recorded it (the box's
-- SHA-256), audited, in this transaction.
CREATE OR REPLACE FUNCTION aivet_blob_put(p_sha256 text, p_size bigint, p_encrypted bigint, p_data bytea)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF p_encrypted = 0 AND (encode(sha256(p_data), 'hex') IS DISTINCT FROM p_sha256
	    OR octet_length(p_data) <> p_size) THEN
		PERFORM aivet_refused(format('stored content %s: the bytes do not hash to it', p_sha256));
	END IF;
	IF p_encrypted <> 0 AND octet_length(p_data) <> p_size + 48 THEN
		PERFORM aivet_refused(format('stored content %s: not a sealed box of %s bytes', p_sha256,
		    p_size));
	END IF;
	IF p_encrypted <> 0 AND NOT EXISTS (SELECT 1 FROM blob_seal s JOIN aivet_op o ON o.tx = txid_current()
	    AND o.action = 'blob.seal' AND o.object_type = 'blob_seal' AND o.object_id = s.id AND o.audited
	    WHERE s.sha256 = p_sha256 AND s.data_sha256 = encode(sha256(p_data), 'hex')) THEN
		PERFORM aivet_refused(format('stored content %s: a sealed box is stored only as its sealing '
		    '(aivet_blob_seal, with its audit entry) recorded it in this transaction', p_sha256));
	END IF;
	IF p_encrypted <> 0 THEN
		INSERT INTO blob (sha256, size, encrypted, data) VALUES (p_sha256, p_size, 1, p_data)
		ON CONFLICT (sha256) DO UPDATE SET encrypted = 1, data = excluded.data
		WHERE blob.encrypted = 0 AND blob.size = excluded.size;
	ELSE
		INSERT INTO blob (sha256, size, encrypted, data) VALUES (p_sha256, p_size, 0, p_data)
		ON CONFLICT DO NOTHING;
	END IF;
END $$;

-- The blob trigger of 006, with the content rule for every writer (the
-- owner's SQL too) checked first: a box replaces plaintext only when the
-- content may be sealed.
CREATE OR REPLACE FUNCTION aivet_blob_seal_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE why text;
BEGIN
	IF TG_OP = 'INSERT' AND NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = NEW.sha256) THEN
		RETURN NEW;
	END IF;
	IF NEW.encrypted <> 0 AND NOT aivet_restoring() THEN
		why := aivet_blob_unsealable(NEW.sha256);
		IF why IS NOT NULL THEN
			RAISE EXCEPTION '%', why USING ERRCODE = 'AVR01';
		END IF;
	END IF;
	IF TG_OP = 'UPDATE' AND NOT (OLD.encrypted = 0 AND NEW.sha256 = OLD.sha256 AND NEW.size = OLD.size) THEN
		RAISE EXCEPTION 'stored content is immutable: only aivet seals it, recording the seal first'
		    USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	IF NOT (NEW.encrypted = 1 AND octet_length(NEW.data) = NEW.size + 48
	    AND EXISTS (SELECT 1 FROM blob_seal s JOIN audit_log a ON a.object_type = 'blob_seal'
	                AND a.object_id = s.id WHERE s.sha256 = NEW.sha256)) THEN
		RAISE EXCEPTION 'stored content is immutable: only aivet seals it, recording the seal first'
		    USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	RETURN NEW;
END $$;

-- Incident facts (006): the refusal worded as SQLite's.
CREATE OR REPLACE FUNCTION aivet_incident_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT aivet_writing() THEN
		RAISE EXCEPTION 'incident facts change only through aivet''s audited entries (aivet incident edit), not by SQL'
		    USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	RETURN NEW;
END $$;

-- The functions' grants and pinned search_path, as 008 gives its own.
DO $$
DECLARE f regprocedure;
BEGIN
	FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
	    AND p.proname LIKE 'aivet\_%' LOOP
		EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO aivet_auditor', f);
	END LOOP;
END $$;

REVOKE INSERT, UPDATE, DELETE ON blob_seal FROM aivet_auditor, aivet_assessor, aivet_reviewer;

-- audit verify checks incident entries written before rows were sealed (no
-- row_hash) against the content their details recorded: this index holds
-- just those, so that check no longer reads the whole log a second time.
CREATE INDEX audit_log_legacy_entry ON audit_log(seq) WHERE action = 'incident.entry' AND row_hash IS NULL;
