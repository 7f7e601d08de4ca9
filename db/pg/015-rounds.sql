-- pg/015-rounds.sql: one round at a time, held by the server, whatever SQL a
-- member writes (db/015-rounds.sql says the rule): a vendor's questionnaire
-- (any version) with a round in work takes no second round, and one whose
-- latest round is final goes on only as that round's round N+1
-- (aivet_assessment_reopen). Refused naming the round in the way, as aivet
-- does before it writes. Rounds of one vendor are started one after the
-- other (a lock for the vendor, held to commit), so two logins starting at
-- once cannot both pass. A copy restores rows as they were.
CREATE UNIQUE INDEX assessment_one_next ON assessment(parent_id) WHERE parent_id IS NOT NULL;

CREATE FUNCTION aivet_assessment_round() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE q_id text; o record;
BEGIN
	IF aivet_restoring() THEN
		RETURN NEW;
	END IF;
	PERFORM pg_advisory_xact_lock(hashtext('aivet.round'), (NEW.vendor_id % 2147483647)::int);
	SELECT qid INTO q_id FROM questionnaire WHERE id = NEW.questionnaire_id;
	SELECT a.id, a.round, a.status INTO o FROM assessment a JOIN questionnaire q ON q.id = a.questionnaire_id
	WHERE a.vendor_id = NEW.vendor_id AND q.qid = q_id AND a.id <> NEW.id
	  AND (a.status <> 'final' OR (NEW.parent_id IS NULL
	       AND NOT EXISTS (SELECT 1 FROM assessment c WHERE c.parent_id = a.id)))
	ORDER BY a.status = 'final', a.id DESC LIMIT 1;
	IF NOT FOUND THEN
		RETURN NEW;
	END IF;
	IF o.status <> 'final' THEN
		RAISE EXCEPTION 'vendor % already has % % of % (round %, %): one round at a time',
			NEW.vendor_id, CASE o.status WHEN 'draft' THEN 'draft' ELSE 'assessment' END, o.id,
			q_id, o.round, replace(o.status, '_', ' ') USING ERRCODE = 'AVR01';
	END IF;
	RAISE EXCEPTION 'vendor %''s % round % is final (assessment %): reopening it starts round %',
		NEW.vendor_id, q_id, o.round, o.id, o.round + 1 USING ERRCODE = 'AVR01';
END $$;
CREATE TRIGGER assessment_round BEFORE INSERT ON assessment
	FOR EACH ROW EXECUTE FUNCTION aivet_assessment_round();

CALL pin_aivet_functions();
