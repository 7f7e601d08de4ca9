/*
 * run-query.h: reading probe runs for lists (run-query.c), for the commands
 * and the screens that show runs, without the probe engine's declarations.
 */
#ifndef AIVET_RUN_QUERY_H
#define AIVET_RUN_QUERY_H

#include "core.h"

/* Which runs probe_runs_json lists: 0 for an id means any. */
struct run_query {
	int64_t vendor_id, endpoint_id;
	int newest_first;             /* by id, newest first; else oldest first */
	int limit;                    /* at most this many; 0: all */
	int verdicts;                 /* add "verdicts": "probe:verdict ..." */
};
/* The runs as "probe runs --json" prints them: [{id, endpoint ("VENDOR/NAME"),
 * status, started_at, findings, worst (a severity, or null)}]. */
int probe_runs_json(struct db *db, const struct run_query *q, cJSON **out, struct aerr *err);
/* How many findings a run has. */
int probe_run_findings(struct db *db, int64_t run_id, int64_t *n, struct aerr *err);

#endif
