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

/* What a run found, as "aivet demo" tells it: where the sweep saw content
 * integrity break, the placeholder substitutions and the cross-tenant leaks
 * (each the first one's first evidence, 0 when none), and each direction a
 * leak ran (its owner's canaries found by finder), at most four. */
struct run_story {
	int64_t run;
	int has_integrity_boundary;
	double integrity_boundary;       /* tokens */
	int placeholder;                 /* placeholder_substitution findings */
	int64_t placeholder_evidence;
	int leaks;                       /* cross-tenant leak findings */
	int64_t leak_evidence;
	struct run_story_leak {
		char *owner, *finder;
	} dirs[4];
	int ndirs;
};
int probe_run_story(struct db *db, int64_t run_id, struct run_story *out, struct aerr *err);
void run_story_free(struct run_story *s);

#endif
