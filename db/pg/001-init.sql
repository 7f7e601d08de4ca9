-- pg/001-init.sql: aivet's schema on PostgreSQL, the same tables as
-- db/001-init.sql (what each holds is said there), with bigint for INTEGER,
-- double precision for REAL, bytea for BLOB and identity ids (BY DEFAULT, so a
-- copy keeps its ids). Also here: aivet_schema, the schema version (SQLite
-- keeps it in user_version), and the functions SQLite has built in, or aivet
-- registers on it, that aivet's queries use, so one statement serves both.

CREATE TABLE aivet_schema (version integer NOT NULL);
INSERT INTO aivet_schema VALUES (0);

-- ---- SQLite's functions, as aivet uses them ----

-- severity_rank(name) is 010-severity.sql's: the order is aivet's (include/aivet/severity.h).

-- A JSON path as SQLite writes it ('$.a.b', '$.a[2]') as PostgreSQL's text[] path.
CREATE FUNCTION aivet_json_path(path text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT coalesce(array_remove(regexp_split_to_array(
	    regexp_replace(regexp_replace(path, '^\$\.?', ''), '\[([0-9]+)\]', '.\1', 'g'), '\.'), ''),
	    '{}')
$$;

-- json_extract(doc, path): a string's text, a number as written, true/false as
-- 1/0, an object or array as its JSON text, NULL for null or no such member.
CREATE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v json;
BEGIN
	IF doc IS NULL OR path IS NULL THEN RETURN NULL; END IF;
	v := doc::json #> aivet_json_path(path);
	IF v IS NULL THEN RETURN NULL; END IF;
	CASE json_typeof(v)
	WHEN 'string' THEN RETURN v #>> '{}';
	WHEN 'boolean' THEN RETURN CASE WHEN v::text = 'true' THEN '1' ELSE '0' END;
	WHEN 'null' THEN RETURN NULL;
	ELSE RETURN v::text;
	END CASE;
END $$;

-- json_type(doc, path): SQLite's names (null, true, false, integer, real, text,
-- array, object), NULL for no such member.
CREATE FUNCTION json_type(doc text, path text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v json;
BEGIN
	IF doc IS NULL OR path IS NULL THEN RETURN NULL; END IF;
	v := doc::json #> aivet_json_path(path);
	IF v IS NULL THEN RETURN NULL; END IF;
	CASE json_typeof(v)
	WHEN 'string' THEN RETURN 'text';
	WHEN 'boolean' THEN RETURN v::text;
	WHEN 'number' THEN RETURN CASE WHEN v::text ~ '^-?[0-9]+$' THEN 'integer' ELSE 'real' END;
	ELSE RETURN json_typeof(v);
	END CASE;
END $$;

-- json_valid(doc): aivet asks it only as a condition, so a boolean here.
CREATE FUNCTION json_valid(doc text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF doc IS NULL THEN RETURN NULL; END IF;
	PERFORM doc::json;
	RETURN true;
EXCEPTION WHEN others THEN
	RETURN false;
END $$;

-- json_object with two integer members (what a run records of its billing).
CREATE FUNCTION json_object(k1 text, v1 bigint, k2 text, v2 bigint) RETURNS json
LANGUAGE sql IMMUTABLE AS $$ SELECT json_build_object(k1, v1, k2, v2) $$;

-- json_set(doc, '$.key', value) for a top-level key: a new key is appended as
-- SQLite appends it, keeping the document's text; an existing one is replaced.
CREATE FUNCTION json_set(doc text, path text, val json) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE p text[] := aivet_json_path(path);
BEGIN
	IF doc IS NULL THEN RETURN NULL; END IF;
	IF array_length(p, 1) = 1 AND json_typeof(doc::json) = 'object' AND doc::json -> p[1] IS NULL THEN
		RETURN regexp_replace(doc, '\s*\}\s*$', '') ||
		    CASE WHEN doc ~ '^\s*\{\s*\}\s*$' THEN '' ELSE ',' END ||
		    to_json(p[1])::text || ':' || val::text || '}';
	END IF;
	RETURN jsonb_set(doc::jsonb, p, val::jsonb, true)::text;
END $$;

-- json_group_array(x): the values as a JSON array, '[]' for none.
CREATE FUNCTION aivet_json_array_final(acc anycompatiblearray) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(to_json(acc)::text, '[]') $$;
CREATE AGGREGATE json_group_array(anycompatible) (
	sfunc = array_append, stype = anycompatiblearray, finalfunc = aivet_json_array_final,
	initcond = '{}'
);

-- group_concat(x [, separator]): non-null values joined, NULL for none.
CREATE FUNCTION aivet_concat_step(acc text, v text, sep text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END
$$;
CREATE FUNCTION aivet_concat_step(acc text, v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT aivet_concat_step(acc, v, ',') $$;
CREATE AGGREGATE group_concat(text, text) (sfunc = aivet_concat_step, stype = text);
CREATE AGGREGATE group_concat(text) (sfunc = aivet_concat_step, stype = text);

-- max(a, b) and min(a, b), SQLite's scalar forms.
CREATE FUNCTION max(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(a, b) $$;
CREATE FUNCTION min(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT least(a, b) $$;
CREATE FUNCTION max(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(a, b) $$;
CREATE FUNCTION min(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$ SELECT least(a, b) $$;

-- hex(bytes): upper-case hex, as SQLite gives it.
CREATE FUNCTION hex(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(encode(b, 'hex')) $$;

-- ---- the guarantees: what SQLite's RAISE(ABORT, msg) triggers refuse ----

-- Refuses the statement with the message the trigger names (TG_ARGV[0]).
CREATE FUNCTION aivet_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
END $$;

-- ---- tables ----

CREATE TABLE vendor (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	criticality bigint NOT NULL DEFAULT 2 CHECK (criticality BETWEEN 0 AND 4),
	contact     text,
	notes       text,
	status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
	created_at  text NOT NULL,
	updated_at  text NOT NULL
);

CREATE TABLE endpoint (
	id                  bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	vendor_id           bigint NOT NULL REFERENCES vendor(id),
	name                text NOT NULL,
	api                 text NOT NULL CHECK (api IN ('openai', 'anthropic', 'azure-openai',
	                        'gemini', 'bedrock', 'cloudflare')),
	url                 text NOT NULL,
	model               text NOT NULL,
	context_tokens      bigint NOT NULL CHECK (context_tokens > 0),
	allow_insecure_http bigint NOT NULL DEFAULT 0,
	price_in_per_mtok   double precision,     -- price per million input tokens, when known
	price_out_per_mtok  double precision,
	options             text,     -- JSON: api-version, region, account, ...
	status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
	created_at          text NOT NULL,
	updated_at          text NOT NULL,
	UNIQUE (vendor_id, name)
);

-- A credential is a reference (env:VAR or file:PATH), never the secret itself.
-- Several credentials on one endpoint stand for several tenants.
CREATE TABLE credential (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	endpoint_id bigint NOT NULL REFERENCES endpoint(id),
	label       text NOT NULL,
	ref         text NOT NULL CHECK (ref LIKE 'env:%' OR ref LIKE 'file:%'),
	created_at  text NOT NULL,
	UNIQUE (endpoint_id, label)
);

CREATE TABLE questionnaire (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	qid         text NOT NULL,
	version     bigint NOT NULL,
	title       text NOT NULL,
	source      text NOT NULL,      -- the questionnaire file, as JSON
	sha256      text NOT NULL,
	bundled     bigint NOT NULL DEFAULT 0,
	loaded_at   text NOT NULL,
	UNIQUE (qid, version)
);

CREATE TABLE assessment (
	id               bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	vendor_id        bigint NOT NULL REFERENCES vendor(id),
	questionnaire_id bigint NOT NULL REFERENCES questionnaire(id),
	round            bigint NOT NULL DEFAULT 1,
	parent_id        bigint REFERENCES assessment(id),
	status           text NOT NULL DEFAULT 'draft'
	                     CHECK (status IN ('draft', 'in_review', 'final')),
	created_by       text NOT NULL,
	created_at       text NOT NULL,
	submitted_at     text,
	approved_at      text,
	reviewer         text
);

-- The current answer; every change is also a row in answer_history.
CREATE TABLE answer (
	assessment_id bigint NOT NULL REFERENCES assessment(id),
	question_id   text NOT NULL,
	value         text NOT NULL,     -- JSON value
	note          text,
	actor         text NOT NULL,
	updated_at    text NOT NULL,
	PRIMARY KEY (assessment_id, question_id)
);

CREATE TABLE answer_history (
	id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	assessment_id bigint NOT NULL REFERENCES assessment(id),
	question_id   text NOT NULL,
	value         text,              -- JSON value; NULL when cleared
	note          text,
	actor         text NOT NULL,
	at            text NOT NULL
);
CREATE INDEX answer_history_q ON answer_history(assessment_id, question_id);

-- Content-addressed store: the bytes of every file and exchange body, once.
-- Encrypted blobs (leaked content) hold a libsodium sealed box.
CREATE TABLE blob (
	sha256    text PRIMARY KEY,      -- of the plaintext
	size      bigint NOT NULL,
	encrypted bigint NOT NULL DEFAULT 0,
	data      bytea NOT NULL
);

CREATE TABLE evidence (
	id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	kind           text NOT NULL CHECK (kind IN ('file', 'exchange')),
	sha256         text NOT NULL REFERENCES blob(sha256),
	original_name  text,
	media_type     text,
	size           bigint NOT NULL,
	effective_date text,
	added_by       text NOT NULL,
	added_at       text NOT NULL
);
CREATE INDEX evidence_sha ON evidence(sha256);

CREATE TABLE answer_evidence (
	assessment_id bigint NOT NULL REFERENCES assessment(id),
	question_id   text NOT NULL,
	evidence_id   bigint NOT NULL REFERENCES evidence(id),
	PRIMARY KEY (assessment_id, question_id, evidence_id)
);

CREATE TABLE probe_run (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	endpoint_id bigint NOT NULL REFERENCES endpoint(id),
	status      text NOT NULL DEFAULT 'running' CHECK (status IN ('planned', 'running',
	                'completed', 'interrupted', 'budget_exhausted', 'error')),
	probes      text NOT NULL,       -- JSON array of probe names
	options     text,                -- JSON
	plan        text,                -- JSON: requests and tokens per probe
	calibration text,                -- JSON
	tokens_in   bigint NOT NULL DEFAULT 0,
	tokens_out  bigint NOT NULL DEFAULT 0,
	actor       text NOT NULL,
	pid         bigint,             -- to tell a crashed run from a running one
	started_at  text NOT NULL,
	finished_at text
);
CREATE INDEX probe_run_endpoint ON probe_run(endpoint_id);

CREATE TABLE probe_result (
	id       bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	run_id   bigint NOT NULL REFERENCES probe_run(id),
	probe    text NOT NULL,
	verdict  text NOT NULL CHECK (verdict IN ('pass', 'fail', 'inconclusive', 'error')),
	reason   text,
	requests bigint NOT NULL DEFAULT 0,
	details  text,                   -- JSON: boundaries, sweep points, statistics
	UNIQUE (run_id, probe)
);

-- One HTTP exchange. Large generated request bodies are stored as the
-- recipe that regenerates them byte for byte plus their SHA-256.
CREATE TABLE exchange (
	id                  bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	evidence_id         bigint NOT NULL UNIQUE REFERENCES evidence(id),
	run_id              bigint NOT NULL REFERENCES probe_run(id),
	probe               text NOT NULL,
	seq                 bigint NOT NULL,
	tenant              text,
	streaming           bigint NOT NULL DEFAULT 0,
	method              text NOT NULL,
	url                 text NOT NULL,
	request_headers     text NOT NULL,   -- JSON, credentials redacted
	request_sha256      text NOT NULL,
	request_size        bigint NOT NULL,
	request_blob        text REFERENCES blob(sha256),
	request_recipe      text,            -- JSON
	response_status     bigint,
	response_headers    text,            -- JSON
	response_sha256     text,
	response_size       bigint,
	response_blob       text REFERENCES blob(sha256),
	response_truncated  bigint NOT NULL DEFAULT 0,
	error               text,            -- transport error, when there was one
	timings             text,            -- JSON: connect, ttfb, total (ms)
	started_at          text NOT NULL
);
CREATE INDEX exchange_run ON exchange(run_id);

CREATE TABLE finding (
	id        bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	run_id    bigint NOT NULL REFERENCES probe_run(id),
	probe     text NOT NULL,
	code      text NOT NULL,
	severity  text NOT NULL CHECK (severity IN ('info', 'low', 'medium', 'high', 'critical')),
	message   text NOT NULL,
	details   text
);
CREATE INDEX finding_run ON finding(run_id);

CREATE TABLE finding_evidence (
	finding_id  bigint NOT NULL REFERENCES finding(id),
	evidence_id bigint NOT NULL REFERENCES evidence(id),
	PRIMARY KEY (finding_id, evidence_id)
);

CREATE TABLE incident (
	id               bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	vendor_id        bigint NOT NULL REFERENCES vendor(id),
	endpoint_id      bigint REFERENCES endpoint(id),
	title            text NOT NULL,
	status           text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'investigating',
	                     'contained', 'resolved', 'closed')),
	severity         bigint NOT NULL DEFAULT 2 CHECK (severity BETWEEN 1 AND 4),
	phi              text NOT NULL DEFAULT 'unknown' CHECK (phi IN ('yes', 'no', 'unknown')),
	individuals      bigint,
	eu_data          bigint NOT NULL DEFAULT 0,
	discovered_at    text NOT NULL,
	window_start     text,
	window_end       text,
	created_by       text NOT NULL,
	created_at       text NOT NULL
);

-- Timeline entries are immutable: triggers below refuse UPDATE and DELETE.
CREATE TABLE incident_entry (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	incident_id bigint NOT NULL REFERENCES incident(id),
	kind        text NOT NULL CHECK (kind IN ('detection', 'vendor-notice', 'observation',
	                'decision', 'notification-sent', 'mitigation', 'verification', 'status-change')),
	at          text NOT NULL,       -- when it happened, with its zone as given
	at_utc      text NOT NULL,
	actor       text NOT NULL,
	text        text NOT NULL,
	details     text,                -- JSON: clock stopped, run verified, ...
	recorded_at text NOT NULL
);
CREATE INDEX incident_entry_incident ON incident_entry(incident_id);

CREATE TABLE incident_task (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	incident_id bigint NOT NULL REFERENCES incident(id),
	title       text NOT NULL,
	owner       text,
	due_at      text,
	done_at     text,
	created_at  text NOT NULL
);

CREATE TABLE incident_link (
	incident_id bigint NOT NULL REFERENCES incident(id),
	object_type text NOT NULL CHECK (object_type IN ('run', 'finding', 'evidence')),
	object_id   bigint NOT NULL,
	added_at    text NOT NULL,
	PRIMARY KEY (incident_id, object_type, object_id)
);

CREATE TABLE report (
	id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	report_uuid  text NOT NULL UNIQUE,
	vendor_id    bigint NOT NULL REFERENCES vendor(id),
	out_dir      text NOT NULL,
	options      text,               -- JSON
	key_id       text,
	sums_sha256  text,
	generated_at text NOT NULL
);

-- The audit log: append-only and hash-chained. entry_hash covers the fields
-- and prev_hash in the canonical encoding documented in aivet(1).
CREATE TABLE audit_log (
	seq         bigint PRIMARY KEY,
	at          text NOT NULL,
	actor       text NOT NULL,
	action      text NOT NULL,
	object_type text NOT NULL,
	object_id   bigint NOT NULL,
	details     text NOT NULL,
	prev_hash   text NOT NULL,
	entry_hash  text NOT NULL
);

CREATE TRIGGER incident_entry_no_update BEFORE UPDATE ON incident_entry
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('incident timeline entries are immutable');
CREATE TRIGGER incident_entry_no_delete BEFORE DELETE ON incident_entry
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('incident timeline entries are immutable');
CREATE TRIGGER incident_entry_no_truncate BEFORE TRUNCATE ON incident_entry
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('incident timeline entries are immutable');

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('the audit log is append-only');
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
FOR EACH ROW EXECUTE FUNCTION aivet_refuse('the audit log is append-only');
-- TRUNCATE fires no row triggers: it is refused on its own.
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
FOR EACH STATEMENT EXECUTE FUNCTION aivet_refuse('the audit log is append-only');
