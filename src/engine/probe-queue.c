/*
 * probe-queue.c: the queue of probe runs, schedules and per-vendor limits
 * (db/014-queue.sql). Queueing plans each endpoint first, so a queued run
 * keeps the plan and budget it was asked with; a schedule queues its runs
 * when due, its next time moved on by the one worker whose compare-and-set
 * on next_at changed the row (the row's lock makes any other wait and find it
 * moved). Limits are the fleet's settings; the worker reads them
 * (probe-worker.c). Writes on PostgreSQL go through the functions of
 * db/pg/014-queue.sql.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe-queue.h"
#include "queue-impl.h"

#define MAX_TARGETS 4096

static const struct db_write queue_row = {
	{ "INSERT INTO probe_queue (endpoint_id, options, plan, schedule_id, actor, queued_at) "
	  "VALUES (?1, ?2, ?3, NULLIF(?4, 0), ?5, ?6)" },
	"SELECT aivet_probe_queue(?1, ?2, ?3, NULLIF(?4, 0), ?6)", 1
};

static const struct db_write schedule_row = {
	{ "INSERT INTO probe_schedule (endpoint_id, vendor_id, every_s, options, next_at, actor, created_at) "
	  "VALUES (NULLIF(?1, 0), NULLIF(?2, 0), ?3, ?4, ?5, ?6, ?7)" },
	"SELECT aivet_schedule_add(NULLIF(?1, 0), NULLIF(?2, 0), ?3, ?4, ?5, ?7)", 1
};

static const struct db_write schedule_removal = {
	{ "UPDATE probe_schedule SET status = 'removed', removed_at = ?2 WHERE id = ?1 AND status = 'active'" },
	"SELECT aivet_schedule_remove(?1, ?2)", 0
};

static const struct db_write schedule_advance = {
	{ "UPDATE probe_schedule SET next_at = ?3 WHERE id = ?1 AND next_at = ?2 AND status = 'active'" },
	"SELECT aivet_schedule_advance(?1, ?2, ?3)", 0
};

const char *
queue_now_sql(struct db *db)
{
	return db_now_sql(db);
}

cJSON *
queue_opts_to_json(const struct probe_opts *po)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "probes", po->probes);
	cJSON_AddStringToObject(o, "depth", probe_depth_name(po->depth));
	cJSON_AddNumberToObject(o, "concurrency", po->concurrency);
	cJSON_AddNumberToObject(o, "budget_tokens", (double)po->budget_tokens);
	cJSON_AddNumberToObject(o, "budget_usd", po->budget_usd);
	cJSON_AddNumberToObject(o, "max_prompt_tokens", (double)po->max_prompt_tokens);
	cJSON_AddNumberToObject(o, "max_response", (double)po->max_response);
	cJSON_AddNumberToObject(o, "timeout_ms", (double)po->timeout_ms);
	return o;
}

static double
num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void
queue_opts_from_json(const cJSON *o, struct probe_opts *po)
{
	struct aerr ignored = { 0 };
	const char *depth = json_get_str(o, "depth");

	memset(po, 0, sizeof *po);
	po->probes = json_get_str(o, "probes");
	if (depth != NULL && probe_depth_parse(depth, &po->depth, &ignored) != 0)
		po->depth = PROBE_VERIFY;
	po->concurrency = (int)num(o, "concurrency");
	po->budget_tokens = (int64_t)num(o, "budget_tokens");
	po->budget_usd = num(o, "budget_usd");
	po->max_prompt_tokens = (int64_t)num(o, "max_prompt_tokens");
	po->max_response = (size_t)num(o, "max_response");
	po->timeout_ms = (long)num(o, "timeout_ms");
}

int
probe_queue_targets(struct db *db, int64_t vendor_id, int64_t **ids, size_t *n, struct aerr *err)
{
	int rc = db_ids(db_prepare(db, err, "SELECT e.id FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.status = 'active' AND v.status = 'active' AND (? = 0 OR v.id = ?) ORDER BY v.name, e.name",
	    "ii", vendor_id, vendor_id), ids, n, err);

	if (rc == 0 && *n > MAX_TARGETS)
		return aerr_set(err, AV_USAGE, "more than %d active endpoints: queue them by vendor",
		    MAX_TARGETS);
	return rc;
}

char *
probe_target_name(struct db *db, int64_t endpoint_id, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.id = ?", "i", endpoint_id);
	char *name = NULL;

	if (st == NULL)
		return NULL;
	if (db_step(st) == DB_ROW)
		name = xstrdup(col_text(st, 0));
	else
		aerr_set(err, AV_RUNTIME, "endpoint %lld not found", (long long)endpoint_id);
	db_finalize(st);
	return name;
}

/* One entry and its audit entry, inside the caller's transaction. */
static int
queue_one(struct aivet *av, int64_t endpoint_id, const char *opts, const cJSON *plan,
    int64_t schedule_id, int64_t *id, struct aerr *err)
{
	char at[32], *plan_s = cJSON_PrintUnformatted(plan);
	cJSON *a;
	int rc;

	now_iso(at);
	rc = db_write(av->db, err, &queue_row, id, "ittitt", endpoint_id, opts,
	    plan_s, schedule_id, av->actor, at);
	free(plan_s);
	if (rc != 0)
		return rc;
	a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "endpoint", (double)endpoint_id);
	if (schedule_id)
		cJSON_AddNumberToObject(a, "schedule", (double)schedule_id);
	cJSON_AddItemToObject(a, "plan", cJSON_Duplicate(plan, 1));
	rc = audit_append(av->db, av->actor, "probe.queue", "probe_queue", *id, a, err);
	cJSON_Delete(a);
	return rc;
}

/* Plans every endpoint (a bad one stops the lot before anything is queued). */
static int
plan_each(struct aivet *av, const int64_t *endpoints, size_t n, const struct probe_opts *po,
    cJSON ***plans, struct aerr *err)
{
	*plans = xcalloc(n + 1, sizeof **plans);
	for (size_t i = 0; i < n; i++)
		if (probe_plan_endpoint(av, endpoints[i], po, &(*plans)[i], err) != 0)
			return err->code;
	return 0;
}

static void
plans_free(cJSON **plans, size_t n)
{
	for (size_t i = 0; plans != NULL && i < n; i++)
		cJSON_Delete(plans[i]);
	free(plans);
}

/* The plans of what is asked (NULL plans: planned and dropped) and the options
 * as the JSON text an entry or a schedule keeps. */
static int
plan_asked(struct aivet *av, const int64_t *endpoints, size_t n, const struct probe_opts *po,
    cJSON ***plans, char **opts, struct aerr *err)
{
	cJSON **own = NULL, *oj;
	int rc;

	*opts = NULL;
	if (av_db(av, err) == NULL)
		return err->code;
	rc = plan_each(av, endpoints, n, po, &own, err);
	if (rc != 0 || plans == NULL)
		plans_free(own, n);
	else
		*plans = own;
	if (rc != 0)
		return rc;
	oj = queue_opts_to_json(po);
	*opts = cJSON_PrintUnformatted(oj);
	cJSON_Delete(oj);
	return 0;
}

int
probe_queue_add(struct aivet *av, const int64_t *endpoints, size_t n, const struct probe_opts *po,
    int64_t *ids, struct aerr *err)
{
	cJSON **plans = NULL;
	char *opts;
	int rc;

	if ((rc = plan_asked(av, endpoints, n, po, &plans, &opts, err)) != 0)
		return rc;
	rc = db_begin(av->db, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = queue_one(av, endpoints[i], opts, plans[i], 0, &ids[i], err);
	if (rc == 0)
		rc = db_commit(av->db, err);
	else
		db_rollback(av->db);
	free(opts);
	plans_free(plans, n);
	return rc;
}

/* ---- schedules ---- */

static int
schedule_one(struct aivet *av, int64_t endpoint_id, int64_t vendor_id, int64_t every_s,
    const char *opts, int64_t *id, struct aerr *err)
{
	char at[32];
	cJSON *a;
	int rc;

	now_iso(at);
	rc = db_write(av->db, err, &schedule_row, id, "iiitttt", endpoint_id, vendor_id, every_s, opts,
	    at, av->actor, at);
	if (rc != 0)
		return rc;
	a = cJSON_CreateObject();
	if (endpoint_id)
		cJSON_AddNumberToObject(a, "endpoint", (double)endpoint_id);
	if (vendor_id)
		cJSON_AddNumberToObject(a, "vendor", (double)vendor_id);
	cJSON_AddNumberToObject(a, "every_s", (double)every_s);
	cJSON_AddRawToObject(a, "options", opts);
	rc = audit_append(av->db, av->actor, "schedule.add", "probe_schedule", *id, a, err);
	cJSON_Delete(a);
	return rc;
}

int
probe_schedule_add(struct aivet *av, const int64_t *endpoints, size_t n, int64_t vendor_id,
    int64_t every_s, const struct probe_opts *po, int64_t *ids, struct aerr *err)
{
	char *opts;
	int rc;

	/* What is scheduled must plan now: a bad probe name is refused here, not at night. */
	if ((rc = plan_asked(av, endpoints, n, po, NULL, &opts, err)) != 0)
		return rc;
	rc = db_begin(av->db, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = schedule_one(av, endpoints[i], 0, every_s, opts, &ids[i], err);
	if (rc == 0 && n == 0)
		rc = schedule_one(av, 0, vendor_id, every_s, opts, &ids[0], err);
	if (rc == 0)
		rc = db_commit(av->db, err);
	else
		db_rollback(av->db);
	free(opts);
	return rc;
}

int
probe_schedule_remove(struct aivet *av, int64_t id, struct aerr *err)
{
	char at[32];
	int64_t changed = 0;
	cJSON *a;
	int rc;

	if (av_db(av, err) == NULL || db_begin(av->db, err) != 0)
		return err->code;
	now_iso(at);
	rc = db_write(av->db, err, &schedule_removal, &changed, "it", id, at);
	if (rc == 0 && changed == 0)
		rc = aerr_set(err, AV_USAGE, "schedule %lld: no such active schedule (see 'aivet schedule "
		    "list')", (long long)id);
	if (rc == 0) {
		a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "status", "removed");
		rc = audit_append(av->db, av->actor, "schedule.remove", "probe_schedule", id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0)
		return db_commit(av->db, err);
	db_rollback(av->db);
	return rc;
}

int
probe_schedule_list_load(struct db *db, struct probe_schedule_list *out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT s.id, CASE WHEN s.endpoint_id IS NOT NULL THEN "
	    "(SELECT v.name || '/' || e.name FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.id = s.endpoint_id) WHEN s.vendor_id IS NOT NULL THEN (SELECT v.name || ' (every endpoint)' "
	    "FROM vendor v WHERE v.id = s.vendor_id) ELSE 'every endpoint' END, s.every_s, s.next_at, s.actor, "
	    "s.created_at, s.options FROM probe_schedule s WHERE s.status = 'active' ORDER BY s.id", "");

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct probe_schedule *s;

		out->items = xrealloc(out->items, (out->n + 1) * sizeof *out->items);
		s = &out->items[out->n++];
		s->id = db_col_int64(st, 0);
		s->target = xstrdup(col_text(st, 1));
		s->every_s = db_col_int64(st, 2);
		s->next_at = xstrdup(col_text(st, 3));
		s->actor = xstrdup(col_text(st, 4));
		s->created_at = xstrdup(col_text(st, 5));
		s->options = xstrdup(col_text(st, 6));
	}
	db_finalize(st);
	return 0;
}

void
probe_schedule_list_free(struct probe_schedule_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].target);
		free(l->items[i].next_at);
		free(l->items[i].actor);
		free(l->items[i].created_at);
		free(l->items[i].options);
	}
	free(l->items);
	memset(l, 0, sizeof *l);
}

cJSON *
probe_schedule_list_to_json(const struct probe_schedule_list *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++) {
		const struct probe_schedule *s = &l->items[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)s->id);
		cJSON_AddStringToObject(o, "target", s->target);
		cJSON_AddNumberToObject(o, "every_s", (double)s->every_s);
		cJSON_AddStringToObject(o, "next_at", s->next_at);
		cJSON_AddStringToObject(o, "actor", s->actor);
		cJSON_AddStringToObject(o, "created_at", s->created_at);
		cJSON_AddItemToObject(o, "options", cJSON_Parse(s->options));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* A due schedule's runs: one entry per endpoint it names that has none of
 * this schedule's waiting or running already (a slow night does not pile up). */
static int
schedule_queue(struct aivet *av, int64_t sid, int64_t endpoint_id, int64_t vendor_id, const char *opts,
    struct schedules_due *out, struct aerr *err)
{
	int64_t *eids = NULL, one = endpoint_id;
	size_t n = 1;
	cJSON *oj = cJSON_Parse(opts);
	struct probe_opts po;
	int rc = 0;

	if (oj == NULL)
		return aerr_set(err, AV_RUNTIME, "schedule %lld: its options are not JSON", (long long)sid);
	queue_opts_from_json(oj, &po);
	if (endpoint_id == 0 && (rc = probe_queue_targets(av->db, vendor_id, &eids, &n, err)) != 0)
		goto out;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int64_t eid = eids ? eids[i] : one, busy = 0, id;
		cJSON *plan;

		if (db_int(av->db, &busy, err, "SELECT count(*) FROM probe_queue WHERE schedule_id = ? AND "
		    "endpoint_id = ? AND status IN ('queued', 'taken')", "ii", sid, eid) < 0)
			rc = err->code;
		else if (busy == 0 && probe_plan_endpoint(av, eid, &po, &plan, err) != 0) {
			/* An endpoint that no longer plans is left out, said, not the schedule's other runs. */
			if (out->skipped++ == 0)
				snprintf(out->why, sizeof out->why, "schedule %lld: %s", (long long)sid, err->msg);
			aerr_clear(err);
		} else if (busy == 0) {
			rc = queue_one(av, eid, opts, plan, sid, &id, err);
			cJSON_Delete(plan);
			out->queued += rc == 0;
		}
	}
out:
	free(eids);
	cJSON_Delete(oj);
	return rc;
}

/* The first time after now on the schedule's cadence from next_at. */
static void
next_time(const char *next_at, int64_t every_s, char out[32])
{
	int64_t t, now = now_ms();
	struct aerr ignored = { 0 };

	if (parse_time(next_at, &t, &ignored) != 0 || every_s <= 0)
		t = now;
	if (t <= now)
		t += ((now - t) / (every_s * 1000) + 1) * every_s * 1000;
	fmt_time_ms(t, out);
}

struct due {
	int64_t id, endpoint_id, vendor_id, every_s;
	char *next_at, *options;
};

/* The schedules due now, read whole before any is written. */
static int
due_load(struct db *db, struct due **out, size_t *n, struct aerr *err)
{
	char now[32];
	struct db_stmt *st;

	*out = NULL;
	*n = 0;
	fmt_time_ms(now_ms(), now);
	st = db_prepare(db, err, "SELECT id, coalesce(endpoint_id, 0), coalesce(vendor_id, 0), every_s, "
	    "next_at, options FROM probe_schedule WHERE status = 'active' AND next_at <= ? ORDER BY id", "t", now);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct due *d;

		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		d = &(*out)[(*n)++];
		d->id = db_col_int64(st, 0);
		d->endpoint_id = db_col_int64(st, 1);
		d->vendor_id = db_col_int64(st, 2);
		d->every_s = db_col_int64(st, 3);
		d->next_at = xstrdup(col_text(st, 4));
		d->options = xstrdup(col_text(st, 5));
	}
	db_finalize(st);
	return 0;
}

/* AIVET_TEST_SCHEDULE_GATE=PATH, for tests: a worker that has read the due
 * schedules makes PATH.PID and waits (30 s at most) for PATH before writing
 * any, so that a test can have several workers hold the same due list at once:
 * the race a busy fleet meets by chance (each schedule advanced by one of
 * them, the others told "queued first by another worker"), on demand. */
static void
schedule_gate(void)
{
	const char *gate = getenv("AIVET_TEST_SCHEDULE_GATE");
	struct timespec nap = { 0, 10 * 1000000L };
	char *mine;
	FILE *f;

	if (gate == NULL || *gate == '\0')
		return;
	mine = xasprintf("%s.%ld", gate, (long)getpid());
	if ((f = fopen(mine, "w")) != NULL)
		fclose(f);
	free(mine);
	for (int i = 0; i < 3000 && access(gate, F_OK) != 0; i++)
		nanosleep(&nap, NULL);
}

int
probe_schedules_due(struct aivet *av, struct schedules_due *out, struct aerr *err)
{
	struct due *due;
	size_t n;
	int rc;

	memset(out, 0, sizeof *out);
	if (av_db(av, err) == NULL || due_load(av->db, &due, &n, err) != 0)
		return err->code;
	if (n > 0)
		schedule_gate();
	rc = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t moved = 0;
		char next[32];

		next_time(due[i].next_at, due[i].every_s, next);
		if (rc == 0)
			rc = db_begin(av->db, err);
		if (rc != 0)
			break;
		rc = db_write(av->db, err, &schedule_advance, &moved, "itt", due[i].id, due[i].next_at, next);
		out->raced += rc == 0 && moved == 0;
		if (rc == 0 && moved > 0)
			rc = schedule_queue(av, due[i].id, due[i].endpoint_id, due[i].vendor_id, due[i].options,
			    out, err);
		if (rc == 0)
			rc = db_commit(av->db, err);
		else
			db_rollback(av->db);
	}
	for (size_t i = 0; i < n; i++) {
		free(due[i].next_at);
		free(due[i].options);
	}
	free(due);
	return rc;
}

/* ---- limits ---- */

int
probe_limit_set(struct aivet *av, int64_t vendor_id, int64_t max_runs, int64_t per_minute,
    struct aerr *err)
{
	char at[32];
	cJSON *a;
	int rc;

	if (av_db(av, err) == NULL || db_begin(av->db, err) != 0)
		return err->code;
	now_iso(at);
	rc = db_exec(av->db, err, "INSERT INTO probe_limit (vendor_id, max_runs, per_minute, updated_by, "
	    "updated_at) VALUES (?, NULLIF(?, 0), NULLIF(?, 0), ?, ?) ON CONFLICT (vendor_id) DO UPDATE SET max_runs = "
	    "excluded.max_runs, per_minute = excluded.per_minute, updated_by = excluded.updated_by, "
	    "updated_at = excluded.updated_at", "iiitt", vendor_id, max_runs, per_minute, av->actor, at);
	if (rc == 0) {
		a = cJSON_CreateObject();
		cJSON_AddItemToObject(a, "max_runs", max_runs ? cJSON_CreateNumber((double)max_runs) :
		    cJSON_CreateNull());
		cJSON_AddItemToObject(a, "per_minute", per_minute ? cJSON_CreateNumber((double)per_minute) :
		    cJSON_CreateNull());
		rc = audit_append(av->db, av->actor, "probe.limit", "probe_limit", vendor_id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0)
		return db_commit(av->db, err);
	db_rollback(av->db);
	return rc;
}
