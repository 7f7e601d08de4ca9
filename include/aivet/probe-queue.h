/*
 * probe-queue.h: probe runs queued in the database and run by workers on any
 * number of hosts (db/014-queue.sql). "probe queue" puts runs in the queue
 * with their options and plan; "aivet worker" takes them (a lease it renews
 * while the run goes on), runs them without a terminal and marks them done;
 * a run whose lease ran out is interrupted and its endpoint queued again.
 * Schedules queue runs when due, and per-vendor limits (runs at once,
 * requests a minute) hold across every worker. probe-queue.c holds the queue,
 * schedules and limits; probe-worker.c the worker.
 */
#ifndef AIVET_PROBE_QUEUE_H
#define AIVET_PROBE_QUEUE_H

#include "core.h"
#include "probe.h"

/* The active endpoints of a vendor (0: of every active vendor), by name; at most 4096. */
int probe_queue_targets(struct db *db, int64_t vendor_id, int64_t **ids, size_t *n, struct aerr *err);
/* An endpoint's VENDOR/ENDPOINT, allocated, or NULL with err set. */
char *probe_target_name(struct db *db, int64_t endpoint_id, struct aerr *err);
/* Plans each endpoint with po, then queues them all in one transaction, each
 * with its audit entry; ids[i] (n of them, the caller's) get the new entries. */
int probe_queue_add(struct aivet *av, const int64_t *endpoints, size_t n, const struct probe_opts *po,
    int64_t *ids, struct aerr *err);

/* aivet worker's options. */
struct worker_opts {
	const char *name;             /* recorded on each run it takes; NULL: HOST:PID */
	int concurrency;              /* runs at once (default 1) */
	int lease_s;                  /* lease, seconds (default 60); renewed every third of it */
	int once;                     /* exit when nothing is left to take */
	int poll_ms;                  /* how often an idle worker looks (default 1000) */
	/* Set by the front end (its SIGINT and SIGTERM handler) to stop: runs in
	 * hand are interrupted and queued again. NULL: runs until once ends it. */
	volatile sig_atomic_t *stop;
	/* Each line of what the worker does ("entry 3: run 12 finished"), without
	 * its newline and not escaped for a terminal; NULL: said to nobody. */
	void (*say)(void *arg, const char *line);
	void *say_arg;
};
/* Runs queued runs until *w->stop is set or, with once, until nothing is left.
 * Prints nothing: each line goes to w->say. */
int probe_worker(struct aivet *av, const struct worker_opts *w, struct aerr *err);

/* ---- schedules ---- */

struct probe_schedule {
	int64_t id;
	char *target;                 /* VENDOR/ENDPOINT, "VENDOR (every endpoint)" or "every endpoint" */
	int64_t every_s;
	char *next_at, *actor, *created_at;
	char *options;                /* the probe options as JSON text */
};
struct probe_schedule_list {
	struct probe_schedule *items;
	size_t n;
};
/* One schedule per endpoint given, or (n 0) one for every active endpoint
 * (of vendor_id when not 0), first due now; ids get the new schedules (n, or 1). */
int probe_schedule_add(struct aivet *av, const int64_t *endpoints, size_t n, int64_t vendor_id,
    int64_t every_s, const struct probe_opts *po, int64_t *ids, struct aerr *err);
int probe_schedule_remove(struct aivet *av, int64_t id, struct aerr *err);
int probe_schedule_list_load(struct db *db, struct probe_schedule_list *out, struct aerr *err);
void probe_schedule_list_free(struct probe_schedule_list *l);
cJSON *probe_schedule_list_to_json(const struct probe_schedule_list *l);
/* What queueing the due schedules did: entries queued, schedules this caller
 * saw due that another queued first, and endpoints left out because they no
 * longer plan (archived, a probe gone), the first one's reason in why. */
struct schedules_due {
	int queued, raced, skipped;
	char why[300];
};
/* Queues the runs of every schedule due now; of two workers seeing one due,
 * exactly one queues it. */
int probe_schedules_due(struct aivet *av, struct schedules_due *out, struct aerr *err);

/* ---- limits ---- */

/* A vendor's limits for the fleet; 0 leaves one unlimited. */
int probe_limit_set(struct aivet *av, int64_t vendor_id, int64_t max_runs, int64_t per_minute,
    struct aerr *err);

#endif
