-- pg/002-assess.sql: assessments, as db/002-assess.sql. A final round is a
-- record someone signed off: the database refuses to change or remove it, its
-- answers or their evidence links. Answer history is append-only.

CREATE INDEX assessment_vendor ON assessment(vendor_id, created_at);
CREATE INDEX assessment_parent ON assessment(parent_id);

CREATE TRIGGER assessment_final_update BEFORE UPDATE ON assessment
FOR EACH ROW WHEN (OLD.status = 'final') EXECUTE FUNCTION aivet_refuse('final assessments are read-only');
CREATE TRIGGER assessment_final_delete BEFORE DELETE ON assessment
FOR EACH ROW WHEN (OLD.status = 'final') EXECUTE FUNCTION aivet_refuse('final assessments are read-only');

-- Refuses a change to a row of a final round's answers (OLD for UPDATE and
-- DELETE, NEW for INSERT), with the message TG_ARGV[0].
CREATE FUNCTION aivet_refuse_final() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE aid bigint;
BEGIN
	IF TG_OP = 'INSERT' THEN aid := NEW.assessment_id; ELSE aid := OLD.assessment_id; END IF;
	IF (SELECT status FROM assessment WHERE id = aid) = 'final' THEN
		RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
	RETURN NEW;
END $$;

CREATE TRIGGER answer_final_update BEFORE UPDATE ON answer
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');
CREATE TRIGGER answer_final_delete BEFORE DELETE ON answer
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');

CREATE TRIGGER answer_history_no_update BEFORE UPDATE ON answer_history
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('answer history is append-only');
CREATE TRIGGER answer_history_no_delete BEFORE DELETE ON answer_history
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('answer history is append-only');

CREATE TRIGGER answer_evidence_final_delete BEFORE DELETE ON answer_evidence
FOR EACH ROW EXECUTE FUNCTION aivet_refuse_final('final assessments are read-only');
