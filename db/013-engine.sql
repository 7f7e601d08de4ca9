-- 013-engine.sql: the serving engine behind an endpoint, read from its own
-- status API, and the advisories its versions are checked against.
--
-- engine_node: one row per node of the endpoint's engine (sglang, vllm, tgi,
-- llama.cpp): its status URL, in the order given, and the reference to the
-- engine's admin credential (env:VAR or file:PATH, never the secret; the same
-- on every node). A child of the endpoint's seal, hashed only when it has rows.
CREATE TABLE engine_node (
	id             INTEGER PRIMARY KEY,
	endpoint_id    INTEGER NOT NULL REFERENCES endpoint(id),
	position       INTEGER NOT NULL CHECK (position >= 1),
	engine         TEXT NOT NULL CHECK (engine IN ('sglang', 'vllm', 'tgi', 'llama.cpp')),
	url            TEXT NOT NULL,
	credential_ref TEXT CHECK (credential_ref IS NULL OR credential_ref LIKE 'env:%' OR
	                   credential_ref LIKE 'file:%'),
	created_at     TEXT NOT NULL,
	UNIQUE (endpoint_id, position)
);

-- advisory: an OSV record imported by 'aivet advisories import' (the ones
-- aivet ships are built in, not stored). Written once with its audit entry;
-- a newer version of a record is a new row, the latest by modified then id.
CREATE TABLE advisory (
	id          INTEGER PRIMARY KEY,
	osv_id      TEXT NOT NULL,
	modified    TEXT NOT NULL,
	document    TEXT NOT NULL,     -- the OSV JSON as read
	sha256      TEXT NOT NULL,
	source      TEXT NOT NULL,     -- the file it came from
	imported_by TEXT NOT NULL,
	imported_at TEXT NOT NULL
);
CREATE INDEX advisory_osv ON advisory(osv_id);
CREATE TRIGGER advisory_no_update BEFORE UPDATE ON advisory
BEGIN
	SELECT RAISE(ABORT, 'an imported advisory is written once');
END;
CREATE TRIGGER advisory_no_delete BEFORE DELETE ON advisory
BEGIN
	SELECT RAISE(ABORT, 'an imported advisory is written once');
END;
