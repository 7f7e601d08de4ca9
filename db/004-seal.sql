-- 004-seal.sql: evidence that cannot be quietly edited. Each audit entry
-- may carry row_hash, the hash of the row it records (with that row's child
-- rows), computed by audit_append() and covered by entry_hash, so
-- 'aivet audit verify' recomputes every evidentiary row against its newest
-- entry. The triggers below refuse what the application never does: an
-- UPDATE or DELETE of a recorded row, and the REPLACE path too (INSERT OR
-- REPLACE deletes the old row without firing DELETE triggers, so every
-- BEFORE INSERT here checks for an existing row first). The audit log only
-- takes the next seq chained to the current head.

ALTER TABLE audit_log ADD COLUMN row_hash TEXT;

CREATE TRIGGER audit_log_next BEFORE INSERT ON audit_log
WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM audit_log)
  OR NEW.prev_hash IS NOT coalesce((SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1),
     '0000000000000000000000000000000000000000000000000000000000000000')
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: seq must be the next number after the head'); END;

-- Probe evidence: written once, never changed.
CREATE TRIGGER finding_no_update BEFORE UPDATE ON finding
BEGIN SELECT RAISE(ABORT, 'findings are immutable'); END;
CREATE TRIGGER finding_no_delete BEFORE DELETE ON finding
BEGIN SELECT RAISE(ABORT, 'findings are immutable'); END;
CREATE TRIGGER finding_no_replace BEFORE INSERT ON finding
WHEN EXISTS (SELECT 1 FROM finding WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'findings are immutable'); END;

CREATE TRIGGER finding_evidence_no_update BEFORE UPDATE ON finding_evidence
BEGIN SELECT RAISE(ABORT, 'findings are immutable'); END;
CREATE TRIGGER finding_evidence_no_delete BEFORE DELETE ON finding_evidence
BEGIN SELECT RAISE(ABORT, 'findings are immutable'); END;

CREATE TRIGGER probe_result_no_update BEFORE UPDATE ON probe_result
BEGIN SELECT RAISE(ABORT, 'probe results are immutable'); END;
CREATE TRIGGER probe_result_no_delete BEFORE DELETE ON probe_result
BEGIN SELECT RAISE(ABORT, 'probe results are immutable'); END;
CREATE TRIGGER probe_result_no_replace BEFORE INSERT ON probe_result
WHEN EXISTS (SELECT 1 FROM probe_result WHERE id = NEW.id OR (run_id = NEW.run_id AND probe = NEW.probe))
BEGIN SELECT RAISE(ABORT, 'probe results are immutable'); END;

CREATE TRIGGER exchange_no_update BEFORE UPDATE ON exchange
BEGIN SELECT RAISE(ABORT, 'exchanges are immutable'); END;
CREATE TRIGGER exchange_no_delete BEFORE DELETE ON exchange
BEGIN SELECT RAISE(ABORT, 'exchanges are immutable'); END;
CREATE TRIGGER exchange_no_replace BEFORE INSERT ON exchange
WHEN EXISTS (SELECT 1 FROM exchange WHERE id = NEW.id OR evidence_id = NEW.evidence_id)
BEGIN SELECT RAISE(ABORT, 'exchanges are immutable'); END;

CREATE TRIGGER evidence_no_update BEFORE UPDATE ON evidence
BEGIN SELECT RAISE(ABORT, 'evidence is immutable'); END;
CREATE TRIGGER evidence_no_delete BEFORE DELETE ON evidence
BEGIN SELECT RAISE(ABORT, 'evidence is immutable'); END;
CREATE TRIGGER evidence_no_replace BEFORE INSERT ON evidence
WHEN EXISTS (SELECT 1 FROM evidence WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'evidence is immutable'); END;

-- Blobs are content-addressed: the only change is sealing a plaintext copy
-- of leaked content (blob_put), which keeps the hash and size.
CREATE TRIGGER blob_no_update BEFORE UPDATE ON blob
WHEN NOT (OLD.encrypted = 0 AND NEW.encrypted = 1 AND NEW.sha256 = OLD.sha256 AND NEW.size = OLD.size)
BEGIN SELECT RAISE(ABORT, 'stored content is immutable'); END;
CREATE TRIGGER blob_no_delete BEFORE DELETE ON blob
BEGIN SELECT RAISE(ABORT, 'stored content is immutable'); END;
CREATE TRIGGER blob_no_replace BEFORE INSERT ON blob
WHEN NEW.encrypted = 0 AND EXISTS (SELECT 1 FROM blob WHERE sha256 = NEW.sha256)
BEGIN SELECT RAISE(ABORT, 'stored content is immutable'); END;

-- A run changes while it runs; once it has finished, never again.
CREATE TRIGGER probe_run_finished_update BEFORE UPDATE ON probe_run
WHEN OLD.status NOT IN ('planned', 'running')
BEGIN SELECT RAISE(ABORT, 'finished probe runs are read-only'); END;
CREATE TRIGGER probe_run_no_delete BEFORE DELETE ON probe_run
BEGIN SELECT RAISE(ABORT, 'probe runs are never deleted'); END;
CREATE TRIGGER probe_run_no_replace BEFORE INSERT ON probe_run
WHEN EXISTS (SELECT 1 FROM probe_run WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'probe runs are never replaced'); END;

CREATE TRIGGER incident_entry_no_replace BEFORE INSERT ON incident_entry
WHEN EXISTS (SELECT 1 FROM incident_entry WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'incident timeline entries are immutable'); END;

CREATE TRIGGER report_no_update BEFORE UPDATE ON report
BEGIN SELECT RAISE(ABORT, 'exported reports are immutable'); END;
CREATE TRIGGER report_no_delete BEFORE DELETE ON report
BEGIN SELECT RAISE(ABORT, 'exported reports are immutable'); END;
CREATE TRIGGER report_no_replace BEFORE INSERT ON report
WHEN EXISTS (SELECT 1 FROM report WHERE id = NEW.id OR report_uuid = NEW.report_uuid)
BEGIN SELECT RAISE(ABORT, 'exported reports are immutable'); END;

-- A final round is closed: nothing is added to it, and it is not replaced.
CREATE TRIGGER assessment_final_replace BEFORE INSERT ON assessment
WHEN (SELECT status FROM assessment WHERE id = NEW.id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER answer_final_insert BEFORE INSERT ON answer
WHEN (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER answer_evidence_final_insert BEFORE INSERT ON answer_evidence
WHEN (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER answer_evidence_final_update BEFORE UPDATE ON answer_evidence
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER answer_history_no_replace BEFORE INSERT ON answer_history
WHEN EXISTS (SELECT 1 FROM answer_history WHERE id = NEW.id)
  OR (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'answer history is append-only'); END;
