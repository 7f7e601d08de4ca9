-- 008-workflow.sql: the assessment workflow held by the database itself, the
-- same rules as PostgreSQL's (db/pg/008-workflow.sql, where the roles write
-- only through functions that check them): a round begins as a draft; its
-- status moves draft -> in_review -> final, or back from review to draft;
-- approval names a reviewer who neither answered the round (its answer
-- history) nor submitted it (the latest assessment.submit entry); answers,
-- their history and evidence links change only on a draft. An SQLite file has
-- no logins: whoever can write it can drop these, but no statement the
-- application or a slip of the sqlite3 shell writes gets past them.

CREATE TRIGGER assessment_insert_final BEFORE INSERT ON assessment WHEN NEW.status = 'final'
BEGIN SELECT RAISE(ABORT, 'an assessment is not written as final: it is approved in review'); END;

CREATE TRIGGER assessment_status BEFORE UPDATE OF status ON assessment
WHEN NEW.status IS NOT OLD.status AND OLD.status <> 'final' AND NOT (
	(OLD.status = 'draft' AND NEW.status = 'in_review') OR
	(OLD.status = 'in_review' AND NEW.status IN ('draft', 'final')))
BEGIN SELECT RAISE(ABORT, 'an assessment''s status moves draft -> in_review -> final (or back to draft from review)'); END;

CREATE TRIGGER assessment_approval BEFORE UPDATE OF status ON assessment
WHEN NEW.status = 'final' AND OLD.status = 'in_review' AND (NEW.reviewer IS NULL
	OR NEW.approved_at IS NULL
	OR EXISTS (SELECT 1 FROM answer_history WHERE assessment_id = NEW.id AND actor = NEW.reviewer)
	OR (SELECT actor FROM audit_log WHERE action = 'assessment.submit' AND object_type = 'assessment'
	    AND object_id = NEW.id ORDER BY seq DESC LIMIT 1) IS NEW.reviewer)
BEGIN SELECT RAISE(ABORT, 'approval names a reviewer who neither answered nor submitted the round'); END;

CREATE TRIGGER answer_draft_insert BEFORE INSERT ON answer
WHEN (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
CREATE TRIGGER answer_draft_update BEFORE UPDATE ON answer
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
CREATE TRIGGER answer_draft_delete BEFORE DELETE ON answer
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
CREATE TRIGGER answer_history_draft_insert BEFORE INSERT ON answer_history
WHEN (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
CREATE TRIGGER answer_evidence_draft_insert BEFORE INSERT ON answer_evidence
WHEN (SELECT status FROM assessment WHERE id = NEW.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
CREATE TRIGGER answer_evidence_draft_delete BEFORE DELETE ON answer_evidence
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'in_review'
BEGIN SELECT RAISE(ABORT, 'an assessment in review: its answers change only on a draft'); END;
