-- 005-roles.sql: the team's roles, enforced by the server. Three group
-- roles (NOLOGIN; cluster-wide, so created only when missing):
--   aivet_auditor   reads everything and verifies the audit chain;
--   aivet_assessor  also writes vendors, endpoints, questionnaires, answers,
--                   evidence, probe runs, incidents and reports, and appends
--                   to the audit log;
--   aivet_reviewer  also approves assessments.
-- Each holds the one below it. 'aivet db grant LOGIN ROLE' (the owner)
-- gives them to logins. Tables stay owned by the database's owner; the
-- others get only these privileges: nothing may UPDATE or DELETE the audit
-- log, answer history, evidence, exchanges, findings or results, whatever
-- the triggers say. The actor is the login: an audit entry is written by
-- the login it names, and approval is by a reviewer who is not the only
-- author of the answers. A later migration that adds a table grants
-- writes on it as the lines below do (reads come by the default privileges).

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aivet_auditor') THEN
		CREATE ROLE aivet_auditor NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aivet_assessor') THEN
		CREATE ROLE aivet_assessor NOLOGIN;
		GRANT aivet_auditor TO aivet_assessor;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aivet_reviewer') THEN
		CREATE ROLE aivet_reviewer NOLOGIN;
		GRANT aivet_assessor TO aivet_reviewer;
	END IF;
EXCEPTION WHEN insufficient_privilege THEN
	RAISE EXCEPTION 'aivet''s roles (aivet_auditor, aivet_assessor, aivet_reviewer) are missing and '
		'login % may not create them', session_user
	USING ERRCODE = 'insufficient_privilege',
	      HINT = 'give the database owner CREATEROLE, or create them once as a superuser: CREATE ROLE '
		'aivet_auditor NOLOGIN; CREATE ROLE aivet_assessor NOLOGIN IN ROLE aivet_auditor; '
		'CREATE ROLE aivet_reviewer NOLOGIN IN ROLE aivet_assessor;';
END $$;

-- Reading: every table, now and in later migrations.
DO $$
BEGIN
	EXECUTE format('GRANT USAGE ON SCHEMA %I TO aivet_auditor', current_schema());
	EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO aivet_auditor', current_schema());
	EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO aivet_auditor',
		current_schema());
	EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO aivet_assessor', current_schema());
	EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE ON SEQUENCES TO aivet_assessor',
		current_schema());
END $$;

-- Writing: what the commands do, and no more. Records that are written once
-- get INSERT only.
GRANT INSERT, UPDATE ON vendor, endpoint, questionnaire, assessment, probe_run, incident,
	incident_task TO aivet_assessor;
GRANT INSERT, UPDATE, DELETE ON answer, credential TO aivet_assessor;
-- blob: a plaintext copy of leaked content is sealed in place (INSERT ... ON CONFLICT DO UPDATE).
GRANT INSERT, UPDATE ON blob TO aivet_assessor;
GRANT INSERT ON answer_history, answer_evidence, evidence, exchange, probe_result, finding,
	finding_evidence, incident_entry, incident_link, report, audit_log TO aivet_assessor;

-- The database's owner (or a superuser, or a member of the owning role) owns
-- these tables and their triggers and could drop them: approval's rules
-- below bind the other logins, and raw SQL by the owner (a fixture, a
-- repair) is the owner's to answer for. aivet applies the same rules to the
-- owner itself (src/domain/assess/assess.c), since its actor is the login there too.
CREATE FUNCTION aivet_is_owner() RETURNS boolean LANGUAGE sql STABLE AS $$
	SELECT pg_has_role(session_user, (SELECT datdba FROM pg_database WHERE datname = current_database()),
	                   'MEMBER')
$$;

-- db copy (the owner only) restores entries written by other logins: it sets
-- aivet.restore for its transaction; anyone else setting it gains nothing.
CREATE FUNCTION aivet_restoring() RETURNS boolean LANGUAGE sql STABLE AS $$
	SELECT coalesce(current_setting('aivet.restore', true), '') = 'on' AND aivet_is_owner()
$$;

-- Refusals of aivet's rules carry SQLSTATE AVR01 (aivet exits 2, as for a
-- missing privilege, 42501); the message says what was refused.

-- An audit entry names the login that writes it: --actor cannot speak for another.
CREATE FUNCTION aivet_audit_actor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.actor IS DISTINCT FROM session_user::text AND NOT aivet_restoring() THEN
		RAISE EXCEPTION 'audit entries are written by the login they name: % is logged in, not %',
			session_user, NEW.actor USING ERRCODE = 'AVR01';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER audit_log_actor BEFORE INSERT ON audit_log
	FOR EACH ROW EXECUTE FUNCTION aivet_audit_actor();

-- Approval: by a reviewer, recorded under the login, by someone who neither
-- answered nor submitted the round (as assess.c checks).
CREATE FUNCTION aivet_approval() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF aivet_is_owner() THEN
		RETURN NEW;
	END IF;
	IF NOT pg_has_role(session_user, 'aivet_reviewer', 'MEMBER') THEN
		RAISE EXCEPTION 'approving an assessment needs the aivet_reviewer role (% does not have it)',
			session_user USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF NEW.reviewer IS DISTINCT FROM session_user::text THEN
		RAISE EXCEPTION 'the reviewer of an approval is the login approving (%), not %',
			session_user, NEW.reviewer USING ERRCODE = 'AVR01';
	END IF;
	IF EXISTS (SELECT 1 FROM answer_history WHERE assessment_id = NEW.id
	           AND actor = session_user::text)
	   OR (SELECT actor FROM audit_log WHERE action = 'assessment.submit' AND object_type = 'assessment'
	       AND object_id = NEW.id ORDER BY seq DESC LIMIT 1) = session_user::text THEN
		RAISE EXCEPTION 'login % answered or submitted assessment %: another login must approve it',
			session_user, NEW.id USING ERRCODE = 'AVR01';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER assessment_approval BEFORE UPDATE ON assessment
	FOR EACH ROW WHEN (NEW.status = 'final' AND OLD.status IS DISTINCT FROM 'final')
	EXECUTE FUNCTION aivet_approval();
