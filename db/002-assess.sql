-- 002-assess.sql: assessments. A final round is a record someone signed
-- off: once written, the database itself refuses to change or remove it,
-- its answers or their evidence links, whatever code runs against it (aivet
-- also never adds to one). Answer history is append-only. Lookups by vendor
-- (lists, the notification SLA).

CREATE INDEX assessment_vendor ON assessment(vendor_id, created_at);
CREATE INDEX assessment_parent ON assessment(parent_id);

CREATE TRIGGER assessment_final_update BEFORE UPDATE ON assessment WHEN OLD.status = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER assessment_final_delete BEFORE DELETE ON assessment WHEN OLD.status = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;

CREATE TRIGGER answer_final_update BEFORE UPDATE ON answer
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
CREATE TRIGGER answer_final_delete BEFORE DELETE ON answer
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;

-- History is history: never rewritten.
CREATE TRIGGER answer_history_no_update BEFORE UPDATE ON answer_history
BEGIN SELECT RAISE(ABORT, 'answer history is append-only'); END;
CREATE TRIGGER answer_history_no_delete BEFORE DELETE ON answer_history
BEGIN SELECT RAISE(ABORT, 'answer history is append-only'); END;

CREATE TRIGGER answer_evidence_final_delete BEFORE DELETE ON answer_evidence
WHEN (SELECT status FROM assessment WHERE id = OLD.assessment_id) = 'final'
BEGIN SELECT RAISE(ABORT, 'final assessments are read-only'); END;
