-- 001-init.sql: aivet's schema for the whole product. Nothing that evidence
-- or answers refer to is ever deleted: rows are archived. Times are UTC
-- ISO 8601 text with milliseconds and Z. JSON columns hold cJSON text.

CREATE TABLE vendor (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	criticality INTEGER NOT NULL DEFAULT 2 CHECK (criticality BETWEEN 0 AND 4),
	contact     TEXT,
	notes       TEXT,
	status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
);

CREATE TABLE endpoint (
	id                  INTEGER PRIMARY KEY,
	vendor_id           INTEGER NOT NULL REFERENCES vendor(id),
	name                TEXT NOT NULL,
	api                 TEXT NOT NULL CHECK (api IN ('openai', 'anthropic', 'azure-openai',
	                        'gemini', 'bedrock', 'cloudflare')),
	url                 TEXT NOT NULL,
	model               TEXT NOT NULL,
	context_tokens      INTEGER NOT NULL CHECK (context_tokens > 0),
	allow_insecure_http INTEGER NOT NULL DEFAULT 0,
	price_in_per_mtok   REAL,     -- price per million input tokens, when known
	price_out_per_mtok  REAL,
	options             TEXT,     -- JSON: api-version, region, account, ...
	status              TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
	created_at          TEXT NOT NULL,
	updated_at          TEXT NOT NULL,
	UNIQUE (vendor_id, name)
);

-- A credential is a reference (env:VAR or file:PATH), never the secret itself.
-- Several credentials on one endpoint stand for several tenants.
CREATE TABLE credential (
	id          INTEGER PRIMARY KEY,
	endpoint_id INTEGER NOT NULL REFERENCES endpoint(id),
	label       TEXT NOT NULL,
	ref         TEXT NOT NULL CHECK (ref LIKE 'env:%' OR ref LIKE 'file:%'),
	created_at  TEXT NOT NULL,
	UNIQUE (endpoint_id, label)
);

CREATE TABLE questionnaire (
	id          INTEGER PRIMARY KEY,
	qid         TEXT NOT NULL,
	version     INTEGER NOT NULL,
	title       TEXT NOT NULL,
	source      TEXT NOT NULL,      -- the questionnaire file, as JSON
	sha256      TEXT NOT NULL,
	bundled     INTEGER NOT NULL DEFAULT 0,
	loaded_at   TEXT NOT NULL,
	UNIQUE (qid, version)
);

CREATE TABLE assessment (
	id               INTEGER PRIMARY KEY,
	vendor_id        INTEGER NOT NULL REFERENCES vendor(id),
	questionnaire_id INTEGER NOT NULL REFERENCES questionnaire(id),
	round            INTEGER NOT NULL DEFAULT 1,
	parent_id        INTEGER REFERENCES assessment(id),
	status           TEXT NOT NULL DEFAULT 'draft'
	                     CHECK (status IN ('draft', 'in_review', 'final')),
	created_by       TEXT NOT NULL,
	created_at       TEXT NOT NULL,
	submitted_at     TEXT,
	approved_at      TEXT,
	reviewer         TEXT
);

-- The current answer; every change is also a row in answer_history.
CREATE TABLE answer (
	assessment_id INTEGER NOT NULL REFERENCES assessment(id),
	question_id   TEXT NOT NULL,
	value         TEXT NOT NULL,     -- JSON value
	note          TEXT,
	actor         TEXT NOT NULL,
	updated_at    TEXT NOT NULL,
	PRIMARY KEY (assessment_id, question_id)
);

CREATE TABLE answer_history (
	id            INTEGER PRIMARY KEY,
	assessment_id INTEGER NOT NULL REFERENCES assessment(id),
	question_id   TEXT NOT NULL,
	value         TEXT,              -- JSON value; NULL when cleared
	note          TEXT,
	actor         TEXT NOT NULL,
	at            TEXT NOT NULL
);
CREATE INDEX answer_history_q ON answer_history(assessment_id, question_id);

-- Content-addressed store: the bytes of every file and exchange body, once.
-- Encrypted blobs (leaked content) hold a libsodium sealed box.
CREATE TABLE blob (
	sha256    TEXT PRIMARY KEY,      -- of the plaintext
	size      INTEGER NOT NULL,
	encrypted INTEGER NOT NULL DEFAULT 0,
	data      BLOB NOT NULL
);

CREATE TABLE evidence (
	id             INTEGER PRIMARY KEY,
	kind           TEXT NOT NULL CHECK (kind IN ('file', 'exchange')),
	sha256         TEXT NOT NULL REFERENCES blob(sha256),
	original_name  TEXT,
	media_type     TEXT,
	size           INTEGER NOT NULL,
	effective_date TEXT,
	added_by       TEXT NOT NULL,
	added_at       TEXT NOT NULL
);
CREATE INDEX evidence_sha ON evidence(sha256);

CREATE TABLE answer_evidence (
	assessment_id INTEGER NOT NULL REFERENCES assessment(id),
	question_id   TEXT NOT NULL,
	evidence_id   INTEGER NOT NULL REFERENCES evidence(id),
	PRIMARY KEY (assessment_id, question_id, evidence_id)
);

CREATE TABLE probe_run (
	id          INTEGER PRIMARY KEY,
	endpoint_id INTEGER NOT NULL REFERENCES endpoint(id),
	status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('planned', 'running',
	                'completed', 'interrupted', 'budget_exhausted', 'error')),
	probes      TEXT NOT NULL,       -- JSON array of probe names
	options     TEXT,                -- JSON
	plan        TEXT,                -- JSON: requests and tokens per probe
	calibration TEXT,                -- JSON
	tokens_in   INTEGER NOT NULL DEFAULT 0,
	tokens_out  INTEGER NOT NULL DEFAULT 0,
	actor       TEXT NOT NULL,
	pid         INTEGER,             -- to tell a crashed run from a running one
	started_at  TEXT NOT NULL,
	finished_at TEXT
);
CREATE INDEX probe_run_endpoint ON probe_run(endpoint_id);

CREATE TABLE probe_result (
	id       INTEGER PRIMARY KEY,
	run_id   INTEGER NOT NULL REFERENCES probe_run(id),
	probe    TEXT NOT NULL,
	verdict  TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'inconclusive', 'error')),
	reason   TEXT,
	requests INTEGER NOT NULL DEFAULT 0,
	details  TEXT,                   -- JSON: boundaries, sweep points, statistics
	UNIQUE (run_id, probe)
);

-- One HTTP exchange. Large generated request bodies are stored as the
-- recipe that regenerates them byte for byte plus their SHA-256.
CREATE TABLE exchange (
	id                  INTEGER PRIMARY KEY,
	evidence_id         INTEGER NOT NULL UNIQUE REFERENCES evidence(id),
	run_id              INTEGER NOT NULL REFERENCES probe_run(id),
	probe               TEXT NOT NULL,
	seq                 INTEGER NOT NULL,
	tenant              TEXT,
	streaming           INTEGER NOT NULL DEFAULT 0,
	method              TEXT NOT NULL,
	url                 TEXT NOT NULL,
	request_headers     TEXT NOT NULL,   -- JSON, credentials redacted
	request_sha256      TEXT NOT NULL,
	request_size        INTEGER NOT NULL,
	request_blob        TEXT REFERENCES blob(sha256),
	request_recipe      TEXT,            -- JSON
	response_status     INTEGER,
	response_headers    TEXT,            -- JSON
	response_sha256     TEXT,
	response_size       INTEGER,
	response_blob       TEXT REFERENCES blob(sha256),
	response_truncated  INTEGER NOT NULL DEFAULT 0,
	error               TEXT,            -- transport error, when there was one
	timings             TEXT,            -- JSON: connect, ttfb, total (ms)
	started_at          TEXT NOT NULL
);
CREATE INDEX exchange_run ON exchange(run_id);

CREATE TABLE finding (
	id        INTEGER PRIMARY KEY,
	run_id    INTEGER NOT NULL REFERENCES probe_run(id),
	probe     TEXT NOT NULL,
	code      TEXT NOT NULL,
	severity  TEXT NOT NULL CHECK (severity IN ('info', 'low', 'medium', 'high', 'critical')),
	message   TEXT NOT NULL,
	details   TEXT
);
CREATE INDEX finding_run ON finding(run_id);

CREATE TABLE finding_evidence (
	finding_id  INTEGER NOT NULL REFERENCES finding(id),
	evidence_id INTEGER NOT NULL REFERENCES evidence(id),
	PRIMARY KEY (finding_id, evidence_id)
);

CREATE TABLE incident (
	id               INTEGER PRIMARY KEY,
	vendor_id        INTEGER NOT NULL REFERENCES vendor(id),
	endpoint_id      INTEGER REFERENCES endpoint(id),
	title            TEXT NOT NULL,
	status           TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'investigating',
	                     'contained', 'resolved', 'closed')),
	severity         INTEGER NOT NULL DEFAULT 2 CHECK (severity BETWEEN 1 AND 4),
	phi              TEXT NOT NULL DEFAULT 'unknown' CHECK (phi IN ('yes', 'no', 'unknown')),
	individuals      INTEGER,
	eu_data          INTEGER NOT NULL DEFAULT 0,
	discovered_at    TEXT NOT NULL,
	window_start     TEXT,
	window_end       TEXT,
	created_by       TEXT NOT NULL,
	created_at       TEXT NOT NULL
);

-- Timeline entries are immutable: triggers below refuse UPDATE and DELETE.
CREATE TABLE incident_entry (
	id          INTEGER PRIMARY KEY,
	incident_id INTEGER NOT NULL REFERENCES incident(id),
	kind        TEXT NOT NULL CHECK (kind IN ('detection', 'vendor-notice', 'observation',
	                'decision', 'notification-sent', 'mitigation', 'verification', 'status-change')),
	at          TEXT NOT NULL,       -- when it happened, with its zone as given
	at_utc      TEXT NOT NULL,
	actor       TEXT NOT NULL,
	text        TEXT NOT NULL,
	details     TEXT,                -- JSON: clock stopped, run verified, ...
	recorded_at TEXT NOT NULL
);
CREATE INDEX incident_entry_incident ON incident_entry(incident_id);
CREATE TRIGGER incident_entry_no_update BEFORE UPDATE ON incident_entry
BEGIN SELECT RAISE(ABORT, 'incident timeline entries are immutable'); END;
CREATE TRIGGER incident_entry_no_delete BEFORE DELETE ON incident_entry
BEGIN SELECT RAISE(ABORT, 'incident timeline entries are immutable'); END;

CREATE TABLE incident_task (
	id          INTEGER PRIMARY KEY,
	incident_id INTEGER NOT NULL REFERENCES incident(id),
	title       TEXT NOT NULL,
	owner       TEXT,
	due_at      TEXT,
	done_at     TEXT,
	created_at  TEXT NOT NULL
);

CREATE TABLE incident_link (
	incident_id INTEGER NOT NULL REFERENCES incident(id),
	object_type TEXT NOT NULL CHECK (object_type IN ('run', 'finding', 'evidence')),
	object_id   INTEGER NOT NULL,
	added_at    TEXT NOT NULL,
	PRIMARY KEY (incident_id, object_type, object_id)
);

CREATE TABLE report (
	id           INTEGER PRIMARY KEY,
	report_uuid  TEXT NOT NULL UNIQUE,
	vendor_id    INTEGER NOT NULL REFERENCES vendor(id),
	out_dir      TEXT NOT NULL,
	options      TEXT,               -- JSON
	key_id       TEXT,
	sums_sha256  TEXT,
	generated_at TEXT NOT NULL
);

-- The audit log: append-only and hash-chained. entry_hash covers the fields
-- and prev_hash in the canonical encoding documented in aivet(1).
CREATE TABLE audit_log (
	seq         INTEGER PRIMARY KEY,
	at          TEXT NOT NULL,
	actor       TEXT NOT NULL,
	action      TEXT NOT NULL,
	object_type TEXT NOT NULL,
	object_id   INTEGER NOT NULL,
	details     TEXT NOT NULL,
	prev_hash   TEXT NOT NULL,
	entry_hash  TEXT NOT NULL
);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
