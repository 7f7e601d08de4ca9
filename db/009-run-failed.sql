-- 009-run-failed.sql: a run in which every probe ended in error checked
-- nothing: its status is 'failed', told apart from a run stopped by an error
-- of its own ('error': a credential refused, the database) and never listed
-- as completed. SQLite cannot alter a CHECK constraint, so probe_run is
-- rebuilt: its rows are kept aside, the table made again with the new word
-- and its rows put back under the same ids, then its index and triggers made
-- again. Foreign keys are deferred for this transaction (a PRAGMA that ends
-- with it): dropping the table leaves the results, exchanges and findings
-- that name a run without it until the same rows are back, which SQLite
-- checks when the migration commits.
PRAGMA defer_foreign_keys = ON;

CREATE TABLE probe_run_009 AS SELECT * FROM probe_run;
DROP TABLE probe_run;

CREATE TABLE probe_run (
	id          INTEGER PRIMARY KEY,
	endpoint_id INTEGER NOT NULL REFERENCES endpoint(id),
	status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('planned', 'running',
	                'completed', 'interrupted', 'budget_exhausted', 'error', 'failed')),
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
INSERT INTO probe_run (id, endpoint_id, status, probes, options, plan, calibration, tokens_in,
    tokens_out, actor, pid, started_at, finished_at)
SELECT id, endpoint_id, status, probes, options, plan, calibration, tokens_in, tokens_out, actor,
    pid, started_at, finished_at FROM probe_run_009 ORDER BY id;
DROP TABLE probe_run_009;

CREATE INDEX probe_run_endpoint ON probe_run(endpoint_id);

-- As 004-seal.sql: a run changes while it runs; once it has finished, never again.
CREATE TRIGGER probe_run_finished_update BEFORE UPDATE ON probe_run
WHEN OLD.status NOT IN ('planned', 'running')
BEGIN SELECT RAISE(ABORT, 'finished probe runs are read-only'); END;
CREATE TRIGGER probe_run_no_delete BEFORE DELETE ON probe_run
BEGIN SELECT RAISE(ABORT, 'probe runs are never deleted'); END;
CREATE TRIGGER probe_run_no_replace BEFORE INSERT ON probe_run
WHEN EXISTS (SELECT 1 FROM probe_run WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'probe runs are never replaced'); END;
