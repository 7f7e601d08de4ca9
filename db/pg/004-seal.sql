-- pg/004-seal.sql: evidence that cannot be quietly edited, as db/004-seal.sql.
-- Each audit entry may carry row_hash, the hash of the row it records, which
-- 'aivet audit verify' recomputes. The triggers refuse an UPDATE or DELETE of
-- a recorded row. PostgreSQL has no INSERT OR REPLACE (ON CONFLICT DO UPDATE
-- fires the UPDATE triggers, and keys refuse a second row), but it has
-- TRUNCATE, which fires no row trigger: every table here refuses it. The audit
-- log only takes the next seq chained to the current head.

ALTER TABLE audit_log ADD COLUMN row_hash text;

CREATE FUNCTION aivet_audit_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.seq IS DISTINCT FROM (SELECT coalesce(max(seq), 0) + 1 FROM audit_log)
	    OR NEW.prev_hash IS DISTINCT FROM coalesce((SELECT entry_hash FROM audit_log ORDER BY seq DESC
	    LIMIT 1), '0000000000000000000000000000000000000000000000000000000000000000') THEN
		RAISE EXCEPTION 'the audit log is append-only: seq must be the next number after the head'
		    USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER audit_log_next BEFORE INSERT ON audit_log
FOR EACH ROW EXECUTE FUNCTION aivet_audit_next();

-- Probe evidence: written once, never changed.
CREATE TRIGGER finding_no_update BEFORE UPDATE ON finding
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('findings are immutable');
CREATE TRIGGER finding_no_delete BEFORE DELETE ON finding
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('findings are immutable');
CREATE TRIGGER finding_no_truncate BEFORE TRUNCATE ON finding
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('findings are immutable');

CREATE TRIGGER finding_evidence_no_update BEFORE UPDATE ON finding_evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('findings are immutable');
CREATE TRIGGER finding_evidence_no_delete BEFORE DELETE ON finding_evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('findings are immutable');
CREATE TRIGGER finding_evidence_no_truncate BEFORE TRUNCATE ON finding_evidence
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('findings are immutable');

CREATE TRIGGER probe_result_no_update BEFORE UPDATE ON probe_result
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('probe results are immutable');
CREATE TRIGGER probe_result_no_delete BEFORE DELETE ON probe_result
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('probe results are immutable');
CREATE TRIGGER probe_result_no_truncate BEFORE TRUNCATE ON probe_result
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('probe results are immutable');

CREATE TRIGGER exchange_no_update BEFORE UPDATE ON exchange
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('exchanges are immutable');
CREATE TRIGGER exchange_no_delete BEFORE DELETE ON exchange
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('exchanges are immutable');
CREATE TRIGGER exchange_no_truncate BEFORE TRUNCATE ON exchange
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('exchanges are immutable');

CREATE TRIGGER evidence_no_update BEFORE UPDATE ON evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('evidence is immutable');
CREATE TRIGGER evidence_no_delete BEFORE DELETE ON evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('evidence is immutable');
CREATE TRIGGER evidence_no_truncate BEFORE TRUNCATE ON evidence
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('evidence is immutable');

-- Blobs are content-addressed: the only change is sealing a plaintext copy
-- of leaked content (blob_put), which keeps the hash and size.
CREATE TRIGGER blob_no_update BEFORE UPDATE ON blob
FOR EACH ROW WHEN (NOT (OLD.encrypted = 0 AND NEW.encrypted = 1 AND NEW.sha256 = OLD.sha256
    AND NEW.size = OLD.size))
EXECUTE FUNCTION aivet_refuse('stored content is immutable');
CREATE TRIGGER blob_no_delete BEFORE DELETE ON blob
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('stored content is immutable');
CREATE TRIGGER blob_no_truncate BEFORE TRUNCATE ON blob
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('stored content is immutable');

-- A run changes while it runs; once it has finished, never again.
CREATE TRIGGER probe_run_finished_update BEFORE UPDATE ON probe_run
FOR EACH ROW WHEN (OLD.status NOT IN ('planned', 'running'))
EXECUTE FUNCTION aivet_refuse('finished probe runs are read-only');
CREATE TRIGGER probe_run_no_delete BEFORE DELETE ON probe_run
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('probe runs are never deleted');
CREATE TRIGGER probe_run_no_truncate BEFORE TRUNCATE ON probe_run
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('probe runs are never deleted');

CREATE TRIGGER report_no_update BEFORE UPDATE ON report
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('exported reports are immutable');
CREATE TRIGGER report_no_delete BEFORE DELETE ON report
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('exported reports are immutable');
CREATE TRIGGER report_no_truncate BEFORE TRUNCATE ON report
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('exported reports are immutable');

-- A final round is closed: nothing is added to it.
CREATE TRIGGER answer_final_insert BEFORE INSERT ON answer
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');
CREATE TRIGGER answer_evidence_final_insert BEFORE INSERT ON answer_evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');
CREATE TRIGGER answer_evidence_final_update BEFORE UPDATE ON answer_evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');
CREATE TRIGGER answer_history_final_insert BEFORE INSERT ON answer_history
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('answer history is append-only');
CREATE TRIGGER assessment_no_truncate BEFORE TRUNCATE ON assessment
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('final assessments are read-only');
CREATE TRIGGER answer_no_truncate BEFORE TRUNCATE ON answer
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('final assessments are read-only');
CREATE TRIGGER answer_evidence_no_truncate BEFORE TRUNCATE ON answer_evidence
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('final assessments are read-only');
CREATE TRIGGER answer_history_no_truncate BEFORE TRUNCATE ON answer_history
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('answer history is append-only');
