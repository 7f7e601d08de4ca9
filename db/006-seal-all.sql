-- 006-seal-all.sql: every table a verdict, rating, claim, clock or report
-- reads is sealed (see the table registry in src/core/audit.c). This migration
-- adds what the seals need:
--  - an index behind the audit log's lookups by object, so that
--    'aivet audit verify' is one pass over each table;
--  - the questionnaire text an assessment was started against, as its
--    SHA-256 (assessment.questionnaire_sha256, covered by the assessment's
--    seal), so an edited questionnaire no longer matches what was answered;
--  - blob_seal: one row per stored content that was sealed (leaked content
--    kept as a sealed box), written with its own audit entry that carries the
--    SHA-256 of the box as stored. Blobs sealed before this migration get a
--    row with no box hash: only their size can be checked;
--  - triggers: questionnaires never change; a blob changes only by being
--    sealed with its blob_seal row recorded first; incident facts change only
--    through aivet's writes, which record them (aivet_writing() is a function
--    only aivet's own connection defines: any other writer's UPDATE fails).

CREATE INDEX audit_log_object ON audit_log(object_type, object_id, seq);

ALTER TABLE assessment ADD COLUMN questionnaire_sha256 TEXT;

CREATE TABLE blob_seal (
	id          INTEGER PRIMARY KEY,
	sha256      TEXT NOT NULL UNIQUE,    -- the blob's (of its plaintext)
	size        INTEGER NOT NULL,
	data_sha256 TEXT,                    -- of the sealed box as stored; NULL before 006
	sealed_at   TEXT NOT NULL
);
INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at)
SELECT sha256, size, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM blob WHERE encrypted <> 0 ORDER BY sha256;

CREATE TRIGGER blob_seal_no_update BEFORE UPDATE ON blob_seal
BEGIN SELECT RAISE(ABORT, 'the record of sealed content is immutable'); END;
CREATE TRIGGER blob_seal_no_delete BEFORE DELETE ON blob_seal
BEGIN SELECT RAISE(ABORT, 'the record of sealed content is immutable'); END;
CREATE TRIGGER blob_seal_no_replace BEFORE INSERT ON blob_seal
WHEN NEW.data_sha256 IS NULL OR EXISTS (SELECT 1 FROM blob_seal WHERE id = NEW.id OR sha256 = NEW.sha256)
BEGIN SELECT RAISE(ABORT, 'the record of sealed content is immutable'); END;

-- Sealing a plaintext blob in place (blob_put: INSERT ... ON CONFLICT DO
-- UPDATE fires both triggers) needs its blob_seal row, already recorded in
-- the audit log, and a box of the right size (crypto_box_SEALBYTES is 48).
DROP TRIGGER blob_no_update;
CREATE TRIGGER blob_no_update BEFORE UPDATE ON blob
WHEN NOT (OLD.encrypted = 0 AND NEW.encrypted = 1 AND NEW.sha256 = OLD.sha256 AND NEW.size = OLD.size
  AND length(NEW.data) = NEW.size + 48
  AND EXISTS (SELECT 1 FROM blob_seal s JOIN audit_log a ON a.object_type = 'blob_seal' AND a.object_id = s.id
              WHERE s.sha256 = NEW.sha256))
BEGIN SELECT RAISE(ABORT, 'stored content is immutable: only aivet seals it, recording the seal first'); END;
DROP TRIGGER blob_no_replace;
CREATE TRIGGER blob_no_replace BEFORE INSERT ON blob
WHEN EXISTS (SELECT 1 FROM blob WHERE sha256 = NEW.sha256)
  AND NOT (NEW.encrypted = 1 AND length(NEW.data) = NEW.size + 48
  AND (SELECT encrypted FROM blob WHERE sha256 = NEW.sha256) = 0
  AND EXISTS (SELECT 1 FROM blob_seal s JOIN audit_log a ON a.object_type = 'blob_seal' AND a.object_id = s.id
              WHERE s.sha256 = NEW.sha256))
BEGIN SELECT RAISE(ABORT, 'stored content is immutable: only aivet seals it, recording the seal first'); END;

-- A questionnaire is the text assessments were answered against.
CREATE TRIGGER questionnaire_no_update BEFORE UPDATE ON questionnaire
BEGIN SELECT RAISE(ABORT, 'questionnaires are immutable: load a new version'); END;
CREATE TRIGGER questionnaire_no_delete BEFORE DELETE ON questionnaire
BEGIN SELECT RAISE(ABORT, 'questionnaires are immutable: load a new version'); END;
CREATE TRIGGER questionnaire_no_replace BEFORE INSERT ON questionnaire
WHEN EXISTS (SELECT 1 FROM questionnaire WHERE id = NEW.id OR (qid = NEW.qid AND version = NEW.version))
BEGIN SELECT RAISE(ABORT, 'questionnaires are immutable: load a new version'); END;

-- Incident facts (discovery time, PHI, EU data, window, counts) start the
-- notification clocks: they change only by aivet's audited writes.
CREATE TRIGGER incident_facts_update BEFORE UPDATE ON incident
WHEN NOT aivet_writing()
BEGIN SELECT RAISE(ABORT, 'incident facts change only through aivet (an audited entry)'); END;
CREATE TRIGGER incident_no_delete BEFORE DELETE ON incident
BEGIN SELECT RAISE(ABORT, 'incidents are never deleted'); END;
CREATE TRIGGER incident_no_replace BEFORE INSERT ON incident
WHEN EXISTS (SELECT 1 FROM incident WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'incidents are never replaced'); END;
CREATE TRIGGER incident_link_no_change BEFORE UPDATE ON incident_link
BEGIN SELECT RAISE(ABORT, 'incident links are immutable'); END;
CREATE TRIGGER incident_link_no_delete BEFORE DELETE ON incident_link
BEGIN SELECT RAISE(ABORT, 'incident links are immutable'); END;
