/*
 * run-query.h: the probe runs a list shows (probe_run_list_load, run-query.c,
 * the domain), for the commands and the screens that show runs, without the
 * probe engine's declarations; the records themselves, and one run read with
 * its results and findings, are the engine's (probe-record.h). JSON is made
 * from the records by one writer each (probe_run_list_to_json: "probe runs
 * --json"); front ends read the fields.
 */
#ifndef AIVET_RUN_QUERY_H
#define AIVET_RUN_QUERY_H

#include "core.h"
#include "probe-record.h"

/* Which runs probe_run_list_load lists: 0 for an id means any. */
struct run_query {
	int64_t vendor_id, endpoint_id;
	int newest_first;             /* by id, newest first; else oldest first */
	int limit;                    /* at most this many; 0: all */
	int verdicts;                 /* add "verdicts": "probe:verdict ..." */
	int queued;                   /* add the queue's entries not yet started */
};
/* The runs a query lists, as rows (struct probe_run's list members). */
int probe_run_list_load(struct db *db, const struct run_query *q, struct probe_run_list *out,
    struct aerr *err);

/* How a list row sums a run up, the one judgement every screen shows: BAD with
 * a high or critical finding, WARN with any other, UNSURE with none but a
 * probe inconclusive or in error or a run that did not complete, OK only with
 * none of these. out: "2 findings, worst high; 3 of 5 probes inconclusive". */
enum run_outcome { RUN_OUTCOME_OK, RUN_OUTCOME_UNSURE, RUN_OUTCOME_WARN, RUN_OUTCOME_BAD };
enum run_outcome probe_run_outcome(const struct probe_run *r, char *out, size_t n);
/* A list row as "probe runs --json" prints it: {id, endpoint ("VENDOR/NAME"),
 * status, started_at, findings, worst (a severity, or null)[, verdicts],
 * worker (or null), lease_until (while a worker runs it)}, and for a queued
 * entry id null, queue_id and queued_at; the list is an array of them. */
cJSON *probe_run_row_to_json(const struct probe_run *r);
cJSON *probe_run_list_to_json(const struct probe_run_list *l);
/* The list as JSON in one call (probe_run_list_load, then the writer). */
int probe_runs_json(struct db *db, const struct run_query *q, cJSON **out, struct aerr *err);
/* How many findings a run has. */
int probe_run_findings(struct db *db, int64_t run_id, int64_t *n, struct aerr *err);

#endif
