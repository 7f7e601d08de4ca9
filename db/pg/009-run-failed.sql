-- 009-run-failed.sql: a run in which every probe ended in error is 'failed'
-- (see db/009-run-failed.sql); PostgreSQL alters the constraint in place.
-- aivet_probe_update (008-workflow.sql) writes whatever status the run ends
-- with, so the constraint is the one place the word is admitted.
ALTER TABLE probe_run DROP CONSTRAINT probe_run_status_check;
ALTER TABLE probe_run ADD CONSTRAINT probe_run_status_check CHECK (status IN ('planned',
    'running', 'completed', 'interrupted', 'budget_exhausted', 'error', 'failed'));
