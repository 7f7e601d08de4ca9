-- pg/008-workflow.sql: the workflow enforced by the server, whatever SQL a
-- member writes. The roles (005-roles.sql) lose their INSERT, UPDATE and
-- DELETE on the evidentiary tables below; aivet writes them through the
-- SECURITY DEFINER functions here, one per domain operation, owned by the
-- schema's owner, with search_path pinned. Each checks the role and the state
-- machine, takes the actor from session_user (never from an argument), and
-- records the operation in aivet_op for its transaction.
--
-- The audit chain: audit entries are appended only by aivet_audit_append(),
-- which writes the login as actor, checks the entry's hash over what it
-- stores and that the chain goes on from the head (the trigger of
-- 004-seal.sql), and, for an action one of these functions performs, that
-- the function ran for that object in this transaction (aivet_op). Every
-- operation recorded there must have its entry by commit (a deferred
-- constraint trigger). So a sealed 'assessment.approve' entry exists only for
-- an approval that went through aivet_assessment_approve(), and an operation
-- never goes unaudited. Entries of actions no function here performs
-- (vendors, endpoints, grants) are appended as before.
--
-- Revoked (written only through the functions): assessment, answer,
-- answer_history, answer_evidence, questionnaire, blob, evidence, incident,
-- incident_entry, incident_link, incident_task, probe_run, probe_result,
-- exchange, finding, finding_evidence, report, audit_log. Still written
-- directly by the assessor: vendor, endpoint and credential (what is vetted
-- and how it is reached; their audit entries record each change). The database's owner keeps every privilege (it owns
-- the tables and could drop the triggers: see 005-roles.sql), and the same
-- transition rules bind it through the triggers at the end.

-- ---- operations of the open transaction ----

-- One row per (operation, object) a function performed in a transaction,
-- until its audit entry is written; emptied at commit.
CREATE TABLE aivet_op (
	tx          bigint NOT NULL,
	action      text NOT NULL,
	object_type text NOT NULL,
	object_id   bigint NOT NULL,
	audited     boolean NOT NULL DEFAULT false,
	PRIMARY KEY (tx, action, object_type, object_id)
);
REVOKE ALL ON aivet_op FROM aivet_auditor, aivet_assessor, aivet_reviewer;

-- The audit action an operation's entry carries, as aivet_op records it:
-- the ways an answer changes (one at a time, or a sheet imported) are one operation.
CREATE FUNCTION aivet_op_action(action text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN action IN ('answer.set', 'answer.clear', 'answer.note', 'answer.import') THEN 'answer'
	    ELSE action END
$$;

-- Actions only a function here performs: their entries need the operation.
CREATE FUNCTION aivet_op_bound(action text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT aivet_op_action(action) IN ('assessment.start', 'assessment.submit', 'assessment.approve',
	    'assessment.return', 'assessment.reopen', 'answer', 'answer.evidence', 'evidence.add',
	    'probe.exchange', 'questionnaire.load', 'incident.open', 'incident.status', 'incident.edit',
	    'incident.entry', 'incident.link', 'probe.start', 'probe.calibrate', 'probe.finish',
	    'probe.interrupted', 'probe.result', 'probe.finding', 'incident.task.add',
	    'incident.task.done', 'report.export')
$$;

CREATE FUNCTION aivet_op(action text, object_type text, object_id bigint) RETURNS void
LANGUAGE sql SECURITY DEFINER AS $$
	INSERT INTO aivet_op (tx, action, object_type, object_id) VALUES (txid_current(), $1, $2, $3)
	ON CONFLICT (tx, action, object_type, object_id) DO UPDATE SET audited = false
$$;

-- At commit: every operation has its audit entry.
CREATE FUNCTION aivet_op_audited() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM aivet_op WHERE tx = NEW.tx AND action = NEW.action
	           AND object_type = NEW.object_type AND object_id = NEW.object_id AND NOT audited) THEN
		RAISE EXCEPTION '% of % % has no audit entry: nothing was written', NEW.action,
			NEW.object_type, NEW.object_id USING ERRCODE = 'AVR01';
	END IF;
	DELETE FROM aivet_op WHERE tx = NEW.tx AND action = NEW.action AND object_type = NEW.object_type
	    AND object_id = NEW.object_id;
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER aivet_op_audited AFTER INSERT ON aivet_op
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION aivet_op_audited();

-- Refuses a login without the role (the owner holds them all): SQLSTATE
-- 42501, worded as aivet words it, so aivet exits 2 naming the role.
CREATE FUNCTION aivet_need(role text, what text) RETURNS void LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF NOT aivet_is_owner() AND NOT pg_has_role(session_user, role, 'MEMBER') THEN
		RAISE EXCEPTION '% needs the % role (% does not have it)', what, role, session_user
			USING ERRCODE = 'insufficient_privilege';
	END IF;
END $$;

CREATE FUNCTION aivet_refused(msg text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '%', msg USING ERRCODE = 'AVR01';
END $$;

-- ---- the audit log ----

CREATE FUNCTION aivet_netstring(s text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT octet_length(convert_to(s, 'UTF8')) || ':' || s || ','
$$;

-- Appends an entry as audit.c encodes it (aivet(1)), in the login's name.
CREATE FUNCTION aivet_audit_append(p_seq bigint, p_at text, p_action text, p_object_type text,
    p_object_id bigint, p_details text, p_prev_hash text, p_entry_hash text, p_row_hash text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	me text := session_user;
	h text;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF aivet_op_bound(p_action) THEN
		UPDATE aivet_op SET audited = true WHERE tx = txid_current()
		    AND action = aivet_op_action(p_action) AND object_type = p_object_type
		    AND object_id = p_object_id;
		IF NOT FOUND THEN
			PERFORM aivet_refused(format('audit entry %s of %s %s follows no such operation in '
			    'this transaction: it is written by the operation''s function', p_action,
			    p_object_type, p_object_id));
		END IF;
	END IF;
	h := encode(sha256(convert_to(aivet_netstring(p_seq::text) || aivet_netstring(p_at) ||
	    aivet_netstring(me) || aivet_netstring(p_action) || aivet_netstring(p_object_type) ||
	    aivet_netstring(p_object_id::text) || aivet_netstring(p_details) ||
	    aivet_netstring(p_prev_hash) || coalesce(aivet_netstring(p_row_hash), ''), 'UTF8')), 'hex');
	IF h IS DISTINCT FROM p_entry_hash THEN
		PERFORM aivet_refused(format('audit entry %s: its entry_hash is not the hash of what it '
		    'records as written by %s', p_seq, me));
	END IF;
	INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash,
	    entry_hash, row_hash)
	VALUES (p_seq, p_at, me, p_action, p_object_type, p_object_id, p_details, p_prev_hash,
	    p_entry_hash, p_row_hash);
END $$;

-- ---- assessments ----

-- The assessment, locked for the rest of the transaction; refused unless its
-- status is one of those given.
CREATE FUNCTION aivet_assessment_in(p_id bigint, allowed text[], what text) RETURNS assessment
LANGUAGE plpgsql AS $$
DECLARE a assessment;
BEGIN
	SELECT * INTO a FROM assessment WHERE id = p_id FOR UPDATE;
	IF NOT FOUND THEN
		PERFORM aivet_refused(format('unknown assessment %s', p_id));
	END IF;
	IF NOT (a.status = ANY (allowed)) THEN
		PERFORM aivet_refused(format('assessment %s is %s: %s', p_id,
		    replace(a.status, '_', ' '), what));
	END IF;
	RETURN a;
END $$;

CREATE FUNCTION aivet_assessment_start(p_vendor bigint, p_questionnaire bigint, p_at text)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF NOT EXISTS (SELECT 1 FROM vendor WHERE vendor.id = p_vendor AND status = 'active') THEN
		PERFORM aivet_refused(format('vendor %s is unknown or archived', p_vendor));
	END IF;
	-- The text answered against, hashed here from the questionnaire itself.
	INSERT INTO assessment (vendor_id, questionnaire_id, created_by, created_at, questionnaire_sha256)
	SELECT p_vendor, p_questionnaire, session_user, p_at, encode(sha256(convert_to(q.source, 'UTF8')), 'hex')
	FROM questionnaire q WHERE q.id = p_questionnaire RETURNING assessment.id INTO new_id;
	IF new_id IS NULL THEN
		PERFORM aivet_refused(format('questionnaire %s is unknown', p_questionnaire));
	END IF;
	PERFORM aivet_op('assessment.start', 'assessment', new_id);
	RETURN new_id;
END $$;

-- An answer set (value), a note alone (value NULL, note), or cleared (both
-- NULL); each change is a history row, by the login.
CREATE FUNCTION aivet_answer_put(p_assessment bigint, p_question text, p_value text, p_note text,
    p_at text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_assessment_in(p_assessment, '{draft}', 'answers change only on a draft');
	IF p_value IS NULL AND p_note IS NULL THEN
		DELETE FROM answer WHERE assessment_id = p_assessment AND question_id = p_question;
	ELSE
		INSERT INTO answer (assessment_id, question_id, value, note, actor, updated_at)
		VALUES (p_assessment, p_question, coalesce(p_value, 'null'), p_note, session_user, p_at)
		ON CONFLICT (assessment_id, question_id) DO UPDATE SET value = excluded.value,
		    note = excluded.note, actor = excluded.actor, updated_at = excluded.updated_at;
	END IF;
	INSERT INTO answer_history (assessment_id, question_id, value, note, actor, at)
	VALUES (p_assessment, p_question, p_value, p_note, session_user, p_at);
	PERFORM aivet_op('answer', 'assessment', p_assessment);
END $$;

CREATE FUNCTION aivet_answer_evidence(p_assessment bigint, p_question text, p_evidence bigint)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_assessment_in(p_assessment, '{draft}', 'evidence is attached only on a draft');
	INSERT INTO answer_evidence (assessment_id, question_id, evidence_id)
	VALUES (p_assessment, p_question, p_evidence);
	PERFORM aivet_op('answer.evidence', 'assessment', p_assessment);
END $$;

CREATE FUNCTION aivet_assessment_submit(p_id bigint, p_at text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_assessment_in(p_id, '{draft}', 'only a draft is submitted');
	UPDATE assessment SET status = 'in_review', submitted_at = p_at WHERE id = p_id;
	PERFORM aivet_op('assessment.submit', 'assessment', p_id);
END $$;

-- Approval: by a reviewer who neither answered (any history row of the round
-- by the login) nor submitted (the latest submit entry) the round.
CREATE FUNCTION aivet_assessment_approve(p_id bigint, p_at text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE me text := session_user;
BEGIN
	PERFORM aivet_need('aivet_reviewer', 'approving an assessment');
	PERFORM aivet_assessment_in(p_id, '{in_review}', 'only an assessment in review is approved');
	IF NOT EXISTS (SELECT 1 FROM answer_history WHERE assessment_id = p_id) THEN
		PERFORM aivet_refused(format('assessment %s has no answers to approve', p_id));
	END IF;
	IF EXISTS (SELECT 1 FROM answer_history WHERE assessment_id = p_id AND actor = me)
	   OR (SELECT actor FROM audit_log WHERE action = 'assessment.submit' AND object_type = 'assessment'
	       AND object_id = p_id ORDER BY seq DESC LIMIT 1) = me THEN
		PERFORM aivet_refused(format('login %s answered or submitted assessment %s: another login '
		    'must approve it', me, p_id));
	END IF;
	UPDATE assessment SET status = 'final', approved_at = p_at, reviewer = me WHERE id = p_id;
	PERFORM aivet_op('assessment.approve', 'assessment', p_id);
END $$;

CREATE FUNCTION aivet_assessment_return(p_id bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_assessment_in(p_id, '{in_review}', 'only an assessment in review is returned');
	UPDATE assessment SET status = 'draft', submitted_at = NULL WHERE id = p_id;
	PERFORM aivet_op('assessment.return', 'assessment', p_id);
END $$;

-- A final round reopened: a new draft round starting from its answers.
CREATE FUNCTION aivet_assessment_reopen(p_id bigint, p_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_assessment_in(p_id, '{final}', 'only a final round is reopened');
	IF EXISTS (SELECT 1 FROM assessment WHERE parent_id = p_id) THEN
		PERFORM aivet_refused(format('assessment %s was already reopened', p_id));
	END IF;
	INSERT INTO assessment (vendor_id, questionnaire_id, round, parent_id, created_by, created_at,
	    questionnaire_sha256)
	SELECT a.vendor_id, a.questionnaire_id, a.round + 1, a.id, session_user, p_at,
	    encode(sha256(convert_to(q.source, 'UTF8')), 'hex')
	FROM assessment a JOIN questionnaire q ON q.id = a.questionnaire_id
	WHERE a.id = p_id RETURNING assessment.id INTO new_id;
	INSERT INTO answer (assessment_id, question_id, value, note, actor, updated_at)
	SELECT new_id, question_id, value, note, actor, updated_at FROM answer WHERE assessment_id = p_id;
	INSERT INTO answer_history (assessment_id, question_id, value, note, actor, at)
	SELECT new_id, question_id, nullif(value, 'null'), note, actor, updated_at FROM answer
	WHERE assessment_id = p_id ORDER BY updated_at, question_id;
	INSERT INTO answer_evidence (assessment_id, question_id, evidence_id)
	SELECT new_id, question_id, evidence_id FROM answer_evidence WHERE assessment_id = p_id;
	PERFORM aivet_op('assessment.reopen', 'assessment', new_id);
	RETURN new_id;
END $$;

-- ---- questionnaires, stored content, evidence ----

CREATE FUNCTION aivet_questionnaire_load(p_qid text, p_version bigint, p_title text, p_source text,
    p_sha256 text, p_bundled bigint, p_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF encode(sha256(convert_to(p_source, 'UTF8')), 'hex') IS DISTINCT FROM p_sha256 THEN
		PERFORM aivet_refused(format('questionnaire %s version %s: sha256 %s is not the hash of '
		    'its source', p_qid, p_version, p_sha256));
	END IF;
	INSERT INTO questionnaire (qid, version, title, source, sha256, bundled, loaded_at)
	VALUES (p_qid, p_version, p_title, p_source, p_sha256, p_bundled, p_at)
	RETURNING questionnaire.id INTO new_id;
	PERFORM aivet_op('questionnaire.load', 'questionnaire', new_id);
	RETURN new_id;
END $$;

-- Content by its hash: plaintext must hash to its name; a sealed box
-- (leaked content) is the plaintext's size plus libsodium's 48 bytes, and
-- replaces only a plaintext copy. Stored content never changes otherwise.
CREATE FUNCTION aivet_blob_put(p_sha256 text, p_size bigint, p_encrypted bigint, p_data bytea)
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
	IF p_encrypted <> 0 THEN
		INSERT INTO blob (sha256, size, encrypted, data) VALUES (p_sha256, p_size, 1, p_data)
		ON CONFLICT (sha256) DO UPDATE SET encrypted = 1, data = excluded.data
		WHERE blob.encrypted = 0 AND blob.size = excluded.size;
	ELSE
		INSERT INTO blob (sha256, size, encrypted, data) VALUES (p_sha256, p_size, 0, p_data)
		ON CONFLICT DO NOTHING;
	END IF;
END $$;

CREATE FUNCTION aivet_evidence_add(p_kind text, p_sha256 text, p_name text, p_media_type text,
    p_size bigint, p_effective_date text, p_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = p_sha256 AND size = p_size) THEN
		PERFORM aivet_refused(format('evidence: no stored content %s of %s bytes', p_sha256, p_size));
	END IF;
	INSERT INTO evidence (kind, sha256, original_name, media_type, size, effective_date, added_by,
	    added_at)
	VALUES (p_kind, p_sha256, p_name, p_media_type, p_size, p_effective_date, session_user, p_at)
	RETURNING evidence.id INTO new_id;
	PERFORM aivet_op(CASE p_kind WHEN 'file' THEN 'evidence.add' ELSE 'probe.exchange' END,
	    'evidence', new_id);
	RETURN new_id;
END $$;

-- ---- incidents ----

-- A closed incident does not change.
CREATE FUNCTION aivet_incident_open_for(p_id bigint) RETURNS incident LANGUAGE plpgsql AS $$
DECLARE i incident;
BEGIN
	SELECT * INTO i FROM incident WHERE id = p_id FOR UPDATE;
	IF NOT FOUND THEN
		PERFORM aivet_refused(format('unknown incident %s', p_id));
	END IF;
	IF i.status = 'closed' THEN
		PERFORM aivet_refused(format('incident %s is closed: a closed incident does not change', p_id));
	END IF;
	RETURN i;
END $$;

CREATE FUNCTION aivet_incident_open(p_vendor bigint, p_endpoint bigint, p_title text,
    p_severity bigint, p_phi text, p_individuals bigint, p_eu_data bigint, p_discovered_at text,
    p_window_start text, p_window_end text, p_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	INSERT INTO incident (vendor_id, endpoint_id, title, severity, phi, individuals, eu_data,
	    discovered_at, window_start, window_end, created_by, created_at)
	VALUES (p_vendor, nullif(p_endpoint, 0), p_title, p_severity, p_phi, nullif(p_individuals, -1),
	    p_eu_data, p_discovered_at, p_window_start, p_window_end, session_user, p_at)
	RETURNING incident.id INTO new_id;
	PERFORM aivet_op('incident.open', 'incident', new_id);
	RETURN new_id;
END $$;

CREATE FUNCTION aivet_incident_status(p_id bigint, p_to text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for(p_id);
	UPDATE incident SET status = p_to WHERE id = p_id;
	PERFORM aivet_op('incident.status', 'incident', p_id);
END $$;

-- An edit of an incident's facts: those kept in its row change through
-- aivet_incident_set, the others (the vendor's SLA and discovery) are the
-- edit's audit entry and timeline entry alone.
CREATE FUNCTION aivet_incident_edit(p_id bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for(p_id);
	PERFORM aivet_op('incident.edit', 'incident', p_id);
END $$;

-- One fact of an incident changed (incident edit); the entry that says so
-- follows in the same transaction.
CREATE FUNCTION aivet_incident_set(p_id bigint, p_field text, p_value text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for(p_id);
	CASE p_field
	WHEN 'title' THEN UPDATE incident SET title = p_value WHERE id = p_id;
	WHEN 'endpoint_id' THEN UPDATE incident SET endpoint_id = p_value::bigint WHERE id = p_id;
	WHEN 'severity' THEN UPDATE incident SET severity = p_value::bigint WHERE id = p_id;
	WHEN 'phi' THEN UPDATE incident SET phi = p_value WHERE id = p_id;
	WHEN 'individuals' THEN UPDATE incident SET individuals = nullif(p_value::bigint, -1) WHERE id = p_id;
	WHEN 'eu_data' THEN UPDATE incident SET eu_data = p_value::bigint WHERE id = p_id;
	WHEN 'window_start' THEN UPDATE incident SET window_start = p_value WHERE id = p_id;
	WHEN 'window_end' THEN UPDATE incident SET window_end = p_value WHERE id = p_id;
	ELSE PERFORM aivet_refused(format('incident: no fact %s', p_field));
	END CASE;
	PERFORM aivet_op('incident.edit', 'incident', p_id);
END $$;

CREATE FUNCTION aivet_incident_entry(p_incident bigint, p_kind text, p_at text, p_at_utc text,
    p_text text, p_details text, p_recorded_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF NOT EXISTS (SELECT 1 FROM incident WHERE incident.id = p_incident) THEN
		PERFORM aivet_refused(format('unknown incident %s', p_incident));
	END IF;
	INSERT INTO incident_entry (incident_id, kind, at, at_utc, actor, text, details, recorded_at)
	VALUES (p_incident, p_kind, p_at, p_at_utc, session_user, p_text, p_details, p_recorded_at)
	RETURNING incident_entry.id INTO new_id;
	PERFORM aivet_op('incident.entry', 'incident_entry', new_id);
	RETURN new_id;
END $$;

CREATE FUNCTION aivet_incident_link(p_incident bigint, p_type text, p_object bigint, p_at text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for(p_incident);
	INSERT INTO incident_link (incident_id, object_type, object_id, added_at)
	VALUES (p_incident, p_type, p_object, p_at);
	PERFORM aivet_op('incident.link', 'incident', p_incident);
END $$;

CREATE FUNCTION aivet_task_add(p_incident bigint, p_title text, p_owner text, p_due_at text,
    p_at text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for(p_incident);
	INSERT INTO incident_task (incident_id, title, owner, due_at, created_at)
	VALUES (p_incident, p_title, p_owner, p_due_at, p_at) RETURNING incident_task.id INTO new_id;
	PERFORM aivet_op('incident.task.add', 'incident_task', new_id);
	RETURN new_id;
END $$;

CREATE FUNCTION aivet_task_done(p_task bigint, p_at text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_incident_open_for((SELECT incident_id FROM incident_task WHERE id = p_task));
	UPDATE incident_task SET done_at = p_at WHERE id = p_task;
	PERFORM aivet_op('incident.task.done', 'incident_task', p_task);
END $$;

-- ---- exported reports ----

CREATE FUNCTION aivet_report_add(p_uuid text, p_vendor bigint, p_out_dir text, p_options text,
    p_key_id text, p_sums_sha256 text, p_generated_at text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	INSERT INTO report (report_uuid, vendor_id, out_dir, options, key_id, sums_sha256, generated_at)
	VALUES (p_uuid, p_vendor, p_out_dir, p_options, p_key_id, p_sums_sha256, p_generated_at)
	RETURNING report.id INTO new_id;
	PERFORM aivet_op('report.export', 'report', new_id);
	RETURN new_id;
END $$;

-- ---- probe runs ----

-- A run is written by the login that started it, while it runs.
CREATE FUNCTION aivet_run_mine(p_run bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r probe_run;
BEGIN
	SELECT * INTO r FROM probe_run WHERE id = p_run;
	IF NOT FOUND THEN
		PERFORM aivet_refused(format('unknown probe run %s', p_run));
	END IF;
	IF r.status <> 'running' THEN
		PERFORM aivet_refused(format('probe run %s is %s: finished probe runs are read-only', p_run,
		    r.status));
	END IF;
	IF r.actor IS DISTINCT FROM session_user::text THEN
		PERFORM aivet_refused(format('probe run %s is %s''s: only the login running it records its '
		    'results', p_run, r.actor));
	END IF;
END $$;

CREATE FUNCTION aivet_probe_start(p_endpoint bigint, p_probes text, p_options text, p_plan text,
    p_pid bigint, p_at text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	INSERT INTO probe_run (endpoint_id, status, probes, options, plan, actor, pid, started_at)
	VALUES (p_endpoint, 'running', p_probes, p_options, p_plan, session_user, p_pid, p_at)
	RETURNING probe_run.id INTO new_id;
	PERFORM aivet_op('probe.start', 'probe_run', new_id);
	RETURN new_id;
END $$;

-- Calibration while it runs (status running), or its end; with what the
-- vendor billed beside the plan.
CREATE FUNCTION aivet_probe_update(p_run bigint, p_status text, p_calibration text, p_tokens_in bigint,
    p_tokens_out bigint, p_at text, p_billed_in bigint, p_billed_out bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_run_mine(p_run);
	UPDATE probe_run SET status = p_status, calibration = coalesce(p_calibration, calibration),
	    tokens_in = p_tokens_in, tokens_out = p_tokens_out,
	    finished_at = CASE WHEN p_status = 'running' THEN NULL ELSE p_at END,
	    plan = CASE WHEN json_valid(plan) THEN json_set(plan, '$.billed', json_object('tokens_in',
	        p_billed_in, 'tokens_out', p_billed_out)) ELSE plan END
	WHERE id = p_run;
	PERFORM aivet_op(CASE WHEN p_status = 'running' THEN 'probe.calibrate' ELSE 'probe.finish' END,
	    'probe_run', p_run);
END $$;

-- A run whose process ended without finishing it (aivet checks the process
-- before it asks): interrupted, ending at its last exchange. 1 when settled
-- here, 0 when it was no longer running.
CREATE FUNCTION aivet_probe_settle(p_run bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	UPDATE probe_run SET status = 'interrupted', finished_at =
	    coalesce((SELECT max(started_at) FROM exchange WHERE run_id = p_run), started_at)
	WHERE id = p_run AND status = 'running';
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	PERFORM aivet_op('probe.interrupted', 'probe_run', p_run);
	RETURN 1;
END $$;

CREATE FUNCTION aivet_probe_result(p_run bigint, p_probe text, p_verdict text, p_reason text,
    p_requests bigint, p_details text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_run_mine(p_run);
	INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details)
	VALUES (p_run, p_probe, p_verdict, p_reason, p_requests, p_details)
	RETURNING probe_result.id INTO new_id;
	PERFORM aivet_op('probe.result', 'probe_result', new_id);
	RETURN new_id;
END $$;

CREATE FUNCTION aivet_finding_add(p_run bigint, p_probe text, p_code text, p_severity text,
    p_message text, p_details text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE new_id bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_run_mine(p_run);
	INSERT INTO finding (run_id, probe, code, severity, message, details)
	VALUES (p_run, p_probe, p_code, p_severity, p_message, p_details)
	RETURNING finding.id INTO new_id;
	PERFORM aivet_op('probe.finding', 'finding', new_id);
	RETURN new_id;
END $$;

-- A finding cites evidence of its own run, in the transaction that adds it.
CREATE FUNCTION aivet_finding_evidence(p_finding bigint, p_evidence bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF NOT EXISTS (SELECT 1 FROM aivet_op WHERE tx = txid_current() AND action = 'probe.finding'
	               AND object_type = 'finding' AND object_id = p_finding) THEN
		PERFORM aivet_refused(format('finding %s was not added in this transaction: its evidence '
		    'is cited as it is added', p_finding));
	END IF;
	INSERT INTO finding_evidence (finding_id, evidence_id) VALUES (p_finding, p_evidence)
	ON CONFLICT DO NOTHING;
END $$;

-- An exchange's record, beside the evidence row added in this transaction.
CREATE FUNCTION aivet_exchange_add(p_evidence bigint, p_run bigint, p_probe text, p_seq bigint,
    p_tenant text, p_streaming bigint, p_method text, p_url text, p_request_headers text,
    p_request_sha256 text, p_request_size bigint, p_request_blob text, p_request_recipe text,
    p_response_status bigint, p_response_headers text, p_response_sha256 text, p_response_size bigint,
    p_response_blob text, p_response_truncated bigint, p_error text, p_timings text, p_started_at text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	PERFORM aivet_run_mine(p_run);
	IF NOT EXISTS (SELECT 1 FROM aivet_op WHERE tx = txid_current() AND action = 'probe.exchange'
	               AND object_type = 'evidence' AND object_id = p_evidence) THEN
		PERFORM aivet_refused(format('evidence %s was not added in this transaction: an exchange '
		    'is recorded with its evidence', p_evidence));
	END IF;
	INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, streaming, method, url,
	    request_headers, request_sha256, request_size, request_blob, request_recipe, response_status,
	    response_headers, response_sha256, response_size, response_blob, response_truncated, error,
	    timings, started_at)
	VALUES (p_evidence, p_run, p_probe, p_seq, p_tenant, p_streaming, p_method, p_url,
	    p_request_headers, p_request_sha256, p_request_size, p_request_blob, p_request_recipe,
	    p_response_status, p_response_headers, p_response_sha256, p_response_size, p_response_blob,
	    p_response_truncated, p_error, p_timings, p_started_at);
END $$;

-- ---- privileges ----

-- The functions run as their owner with the schema's search_path (and
-- pg_temp last), so nothing a member creates can stand in for a table; only
-- aivet's roles may call them.
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

REVOKE INSERT, UPDATE, DELETE ON assessment, answer, answer_history, answer_evidence, questionnaire,
	blob, evidence, incident, incident_entry, incident_link, incident_task, probe_run, probe_result,
	exchange, finding, finding_evidence, report, audit_log
	FROM aivet_auditor, aivet_assessor, aivet_reviewer;

-- ---- the workflow's rules, for every writer (the owner's raw SQL too) ----

-- A round begins as a draft (a copy restores rows as they were).
CREATE FUNCTION aivet_assessment_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.status = 'final' AND NOT aivet_restoring() THEN
		RAISE EXCEPTION 'an assessment is not written as final: it is approved in review'
			USING ERRCODE = 'AVR01';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER assessment_insert BEFORE INSERT ON assessment
	FOR EACH ROW EXECUTE FUNCTION aivet_assessment_insert();

-- Status moves draft -> in_review -> final, or back to draft from review.
CREATE FUNCTION aivet_assessment_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF aivet_restoring() OR NEW.status = OLD.status OR (OLD.status, NEW.status) IN
	    (('draft', 'in_review'), ('in_review', 'draft'), ('in_review', 'final')) THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'assessment % cannot go from % to %', OLD.id, OLD.status, NEW.status
		USING ERRCODE = 'AVR01';
END $$;
CREATE TRIGGER assessment_status BEFORE UPDATE ON assessment
	FOR EACH ROW EXECUTE FUNCTION aivet_assessment_status();

-- Answers, their history and evidence links change only on a draft.
CREATE FUNCTION aivet_draft_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE aid bigint;
BEGIN
	IF TG_OP = 'INSERT' THEN aid := NEW.assessment_id; ELSE aid := OLD.assessment_id; END IF;
	IF (SELECT status FROM assessment WHERE id = aid) = 'in_review' AND NOT aivet_restoring() THEN
		RAISE EXCEPTION 'assessment % is in review: its answers change only on a draft', aid
			USING ERRCODE = 'AVR01';
	END IF;
	IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER answer_draft_only BEFORE INSERT OR UPDATE OR DELETE ON answer
	FOR EACH ROW EXECUTE FUNCTION aivet_draft_only();
CREATE TRIGGER answer_history_draft_only BEFORE INSERT ON answer_history
	FOR EACH ROW EXECUTE FUNCTION aivet_draft_only();
CREATE TRIGGER answer_evidence_draft_only BEFORE INSERT OR UPDATE OR DELETE ON answer_evidence
	FOR EACH ROW EXECUTE FUNCTION aivet_draft_only();
