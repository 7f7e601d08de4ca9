-- 011-seal-writes.sql: sealing stored content keeps to the rule PostgreSQL's
-- aivet_blob_seal() holds (db/pg/011-seal-writes.sql): a box replaces
-- plaintext only for content a running probe run is receiving (a leaked
-- response), never for content an evidence item names or an exchange of a
-- finished run recorded, since a box cannot be checked against what it
-- replaced. The blob triggers of 006 check that rule first when content is being
-- sealed, then their own, each refusal worded for what it refuses. And an
-- incident fact changed from the sqlite3 shell is refused in words.

DROP TRIGGER blob_no_update;
CREATE TRIGGER blob_no_update BEFORE UPDATE ON blob
BEGIN
	SELECT RAISE(ABORT, 'stored content that an evidence item names: evidence is never sealed')
	WHERE NEW.encrypted <> 0 AND EXISTS (SELECT 1 FROM evidence WHERE sha256 = NEW.sha256);
	SELECT RAISE(ABORT, 'stored content a finished probe run recorded: only content a running probe run receives is sealed')
	WHERE NEW.encrypted <> 0 AND EXISTS (SELECT 1 FROM exchange x JOIN probe_run r ON r.id = x.run_id
	              WHERE (x.request_blob = NEW.sha256 OR x.response_blob = NEW.sha256) AND r.status <> 'running');
	SELECT RAISE(ABORT, 'stored content is immutable: only aivet seals it, recording the seal first')
	WHERE NOT (OLD.encrypted = 0 AND NEW.encrypted = 1 AND NEW.sha256 = OLD.sha256 AND NEW.size = OLD.size
	  AND length(NEW.data) = NEW.size + 48
	  AND EXISTS (SELECT 1 FROM blob_seal s JOIN audit_log a ON a.object_type = 'blob_seal' AND a.object_id = s.id
	              WHERE s.sha256 = NEW.sha256));
END;
DROP TRIGGER blob_no_replace;
CREATE TRIGGER blob_no_replace BEFORE INSERT ON blob
WHEN EXISTS (SELECT 1 FROM blob WHERE sha256 = NEW.sha256)
BEGIN
	SELECT RAISE(ABORT, 'stored content that an evidence item names: evidence is never sealed')
	WHERE NEW.encrypted <> 0 AND EXISTS (SELECT 1 FROM evidence WHERE sha256 = NEW.sha256);
	SELECT RAISE(ABORT, 'stored content a finished probe run recorded: only content a running probe run receives is sealed')
	WHERE NEW.encrypted <> 0 AND EXISTS (SELECT 1 FROM exchange x JOIN probe_run r ON r.id = x.run_id
	              WHERE (x.request_blob = NEW.sha256 OR x.response_blob = NEW.sha256) AND r.status <> 'running');
	SELECT RAISE(ABORT, 'stored content is immutable: only aivet seals it, recording the seal first')
	WHERE NOT (NEW.encrypted = 1 AND length(NEW.data) = NEW.size + 48
	  AND (SELECT encrypted FROM blob WHERE sha256 = NEW.sha256) = 0
	  AND EXISTS (SELECT 1 FROM blob_seal s JOIN audit_log a ON a.object_type = 'blob_seal' AND a.object_id = s.id
	              WHERE s.sha256 = NEW.sha256));
END;

-- Incident facts (006): the refusal of an UPDATE from any connection but
-- aivet's said "no such function: aivet_writing" in the sqlite3 shell, which
-- calls a function only aivet's connections define. Asking whether this
-- connection knows that function (pragma_function_list, which every
-- connection can read) lets the shell's UPDATE fail with the reason instead.
DROP TRIGGER incident_facts_update;
CREATE TRIGGER incident_facts_update BEFORE UPDATE ON incident
WHEN NOT EXISTS (SELECT 1 FROM pragma_function_list WHERE name = 'aivet_writing')
BEGIN SELECT RAISE(ABORT, 'incident facts change only through aivet''s audited entries (aivet incident edit), not by SQL'); END;

-- audit verify checks incident entries written before rows were sealed (no
-- row_hash) against the content their details recorded: this index holds
-- just those, so that check no longer reads the whole log a second time.
CREATE INDEX audit_log_legacy_entry ON audit_log(seq) WHERE action = 'incident.entry' AND row_hash IS NULL;
