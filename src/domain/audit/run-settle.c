/*
 * run-settle.c: a probe run killed outright (SIGKILL, power loss, a crash)
 * cannot mark itself interrupted, and would read 'running' forever. Every
 * run records the pid of the process that runs it; when that process no
 * longer exists, the run is settled as 'interrupted' the next time the
 * database is opened. Its recorded exchanges are untouched: each was
 * committed in its own transaction. A run a worker took from the queue is
 * left to its lease (probe-worker.c): its process may be on another host.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>

#include "run-settle.h"

static int
process_gone(int64_t pid)
{
	if (pid <= 0 || pid > 0x7fffffff)
		return 0;   /* unknown: leave the run as it is */
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Settles a run whose process is gone: interrupted, ending no later than its
 * last recorded exchange; the condition on status keeps a run another process
 * settled first from being touched. The rows changed (on PostgreSQL the
 * function of db/pg/008-workflow.sql says). */
static const struct db_write settle_run = {
	{ "UPDATE probe_run SET status = 'interrupted', finished_at = "
	  "COALESCE((SELECT max(started_at) FROM exchange WHERE run_id = ?1), started_at) "
	  "WHERE id = ?1 AND status = 'running'" },
	"SELECT aivet_probe_settle(?1)", 0
};

int
probe_runs_settle(struct db *db, const char *actor, int *settled, struct aerr *err)
{
	struct db_stmt *st;
	int64_t *dead = NULL;
	size_t n = 0;
	int rc = 0;

	if (settled != NULL)
		*settled = 0;
	st = db_prepare(db, err, "SELECT id, pid FROM probe_run r WHERE status = 'running' AND "
	    "NOT EXISTS (SELECT 1 FROM probe_queue q WHERE q.run_id = r.id)", "");
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		if (process_gone(db_col_int64(st, 1))) {
			dead = xrealloc(dead, (n + 1) * 2 * sizeof *dead);
			dead[2 * n] = db_col_int64(st, 0);
			dead[2 * n + 1] = db_col_int64(st, 1);
			n++;
		}
	db_finalize(st);
	if (n == 0)
		return 0;
	if (db_begin(db, err) != 0) {
		free(dead);
		return err->code;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		cJSON *a = cJSON_CreateObject();
		int64_t changed = 0;

		rc = db_write(db, err, &settle_run, &changed, "i", dead[2 * i]);
		if (rc == 0 && changed > 0) {
			cJSON_AddNumberToObject(a, "pid", (double)dead[2 * i + 1]);
			cJSON_AddStringToObject(a, "status", "interrupted");
			cJSON_AddStringToObject(a, "reason", "the process running it ended without "
			    "finishing it");
			rc = audit_append(db, actor, "probe.interrupted", "probe_run", dead[2 * i], a, err);
			if (rc == 0 && settled != NULL)
				(*settled)++;
		}
		cJSON_Delete(a);
	}
	free(dead);
	if (rc == 0)
		rc = db_commit(db, err);
	else
		db_rollback(db);
	return rc;
}
