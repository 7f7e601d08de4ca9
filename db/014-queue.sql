-- 014-queue.sql: probe runs queued in the database and taken by workers,
-- recurring schedules that queue them, and per-vendor limits the workers
-- keep between them. What a queued run did is sealed in its probe_run as
-- before; these tables are the work's state, and every change a person makes
-- to them (queueing, a schedule, a limit) and every run requeued has its
-- audit entry.
--
-- A queue row is 'queued' until a worker takes it ('taken': its name, the
-- login, a claim token and a lease), then 'done' when the run ended, or
-- 'requeued' when its lease ran out (the worker died or stopped) and a new
-- row took its place. At most one row of an endpoint is taken at a time (the
-- partial unique index), so an endpoint is never probed by two workers.
CREATE TABLE probe_queue (
	id            INTEGER PRIMARY KEY,
	endpoint_id   INTEGER NOT NULL REFERENCES endpoint(id),
	status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'taken', 'done',
	                  'requeued')),
	options       TEXT NOT NULL,     -- JSON: the probe options it runs with (budget included)
	plan          TEXT NOT NULL,     -- JSON: the plan when it was queued
	schedule_id   INTEGER REFERENCES probe_schedule(id),
	requeued_from INTEGER REFERENCES probe_queue(id),
	actor         TEXT NOT NULL,     -- who queued it
	queued_at     TEXT NOT NULL,
	worker        TEXT,              -- the worker's name (aivet worker --name)
	login         TEXT,              -- the login the worker runs as
	claim         TEXT,              -- the taking's random token
	taken_at      TEXT,
	lease_until   TEXT,              -- the database's clock, ISO 8601 UTC
	run_id        INTEGER REFERENCES probe_run(id),
	error         TEXT,              -- why it ended without a run
	finished_at   TEXT
);
CREATE UNIQUE INDEX probe_queue_one_taken ON probe_queue(endpoint_id) WHERE status = 'taken';
CREATE UNIQUE INDEX probe_queue_run ON probe_queue(run_id);
CREATE INDEX probe_queue_status ON probe_queue(status, id);

-- A recurring run: one endpoint, or (endpoint_id NULL) every active endpoint,
-- of one vendor when vendor_id is set. next_at moves on by every_s when a
-- worker queues it.
CREATE TABLE probe_schedule (
	id          INTEGER PRIMARY KEY,
	endpoint_id INTEGER REFERENCES endpoint(id),
	vendor_id   INTEGER REFERENCES vendor(id),
	every_s     INTEGER NOT NULL CHECK (every_s >= 60),
	options     TEXT NOT NULL,
	next_at     TEXT NOT NULL,
	status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'removed')),
	actor       TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	removed_at  TEXT
);

-- Per vendor, for the whole fleet: runs at once (max_runs) and requests a
-- minute (per_minute); slot_ms is when the vendor's last granted request may
-- go (Unix milliseconds), moved on by each request any worker sends.
CREATE TABLE probe_limit (
	vendor_id  INTEGER PRIMARY KEY REFERENCES vendor(id),
	max_runs   INTEGER CHECK (max_runs IS NULL OR max_runs >= 1),
	per_minute INTEGER CHECK (per_minute IS NULL OR per_minute >= 1),
	slot_ms    INTEGER NOT NULL DEFAULT 0,
	updated_by TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TRIGGER probe_queue_no_delete BEFORE DELETE ON probe_queue
BEGIN SELECT RAISE(ABORT, 'queued probe runs are never deleted'); END;
CREATE TRIGGER probe_queue_finished BEFORE UPDATE ON probe_queue
WHEN OLD.status IN ('done', 'requeued')
BEGIN SELECT RAISE(ABORT, 'a finished queue entry is read-only'); END;
CREATE TRIGGER probe_schedule_no_delete BEFORE DELETE ON probe_schedule
BEGIN SELECT RAISE(ABORT, 'schedules are removed, never deleted'); END;
