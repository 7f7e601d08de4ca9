/*
 * run-query.c: reading probe runs for lists — "probe runs", an endpoint's
 * runs in the TUI, the dashboard's recent runs and the export dialog's
 * choices all read them here, so each shows a run the same way: its
 * endpoint, status, start, number of findings and the worst of them. They
 * come as struct probe_run rows (run-query.h); "probe runs --json" is made
 * from them by probe_run_row_to_json.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "run-query.h"

static struct probe_run *
list_row(struct probe_run_list *out, size_t *cap)
{
	struct probe_run *r;

	if (out->n == *cap)
		out->items = xrealloc(out->items, (*cap = *cap ? *cap * 2 : 16) * sizeof *out->items);
	r = &out->items[out->n++];
	memset(r, 0, sizeof *r);
	return r;
}

/* The queue's entries no run has started for: waiting, just taken, or ended
 * without a run (its worker could not start it: said, never dropped). */
static int
queued_load(struct db *db, const struct run_query *q, struct probe_run_list *out, size_t *cap,
    struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT q.id, v.name || '/' || e.name, CASE q.status "
	    "WHEN 'done' THEN 'not started' ELSE q.status END, q.queued_at, q.worker, q.lease_until, "
	    "q.error FROM probe_queue q JOIN endpoint e ON e.id = q.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE q.status IN ('queued', 'taken', 'done') AND "
	    "q.run_id IS NULL AND (? = 0 OR v.id = ?) AND (? = 0 OR e.id = ?) ORDER BY q.id", "iiii", q->vendor_id,
	    q->vendor_id, q->endpoint_id, q->endpoint_id);

	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct probe_run *r = list_row(out, cap);

		r->queue_id = db_col_int64(st, 0);
		r->endpoint = xstrdup(col_text(st, 1));
		r->status = xstrdup(col_text(st, 2));
		r->state = RUN_OTHER;
		r->started_at = xstrdup(col_text(st, 3));
		r->worker = db_col_type(st, 4) == DB_NULL ? NULL : xstrdup(col_text(st, 4));
		r->lease_until = db_col_type(st, 5) == DB_NULL ? NULL : xstrdup(col_text(st, 5));
		r->queue_error = db_col_type(st, 6) == DB_NULL ? NULL : xstrdup(col_text(st, 6));
	}
	db_finalize(st);
	/* A list cut short by an error is no list: never fewer runs said as all. */
	return rc == DB_DONE ? 0 : db_err(db, err, "queued runs");
}

int
probe_run_list_load(struct db *db, const struct run_query *q, struct probe_run_list *out,
    struct aerr *err)
{
	char *sql = xasprintf("SELECT r.id, v.name || '/' || e.name, r.status, r.started_at, "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1), "
	    "(SELECT group_concat(probe || ':' || verdict, ' ') FROM probe_result p WHERE p.run_id = r.id), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND "
	    "p.verdict IN ('inconclusive', 'error')), "
	    "q.worker, CASE WHEN r.status = 'running' THEN q.lease_until END, q.id "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = e.vendor_id "
	    "LEFT JOIN probe_queue q ON q.run_id = r.id "
	    "WHERE (? = 0 OR v.id = ?) AND (? = 0 OR e.id = ?) ORDER BY r.id %s%s",
	    q->newest_first ? "DESC" : "ASC", q->limit > 0 ? " LIMIT ?" : "");
	/* No LIMIT at all when unlimited: PostgreSQL refuses SQLite's LIMIT -1. */
	struct db_stmt *st = q->limit > 0 ?
	    db_prepare(db, err, sql, "iiiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id,
	    (int64_t)q->limit) :
	    db_prepare(db, err, sql, "iiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id);

	size_t cap = 0;
	int rc;

	free(sql);
	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	if (q->queued && q->newest_first && queued_load(db, q, out, &cap, err) != 0) {
		db_finalize(st);
		probe_run_list_free(out);
		return err->code;
	}
	while ((rc = db_step(st)) == DB_ROW) {
		struct probe_run *r = list_row(out, &cap);

		r->id = db_col_int64(st, 0);
		r->endpoint = xstrdup(col_text(st, 1));
		r->status = xstrdup(col_text(st, 2));
		r->state = run_state_of(r->status);
		r->started_at = xstrdup(col_text(st, 3));
		r->findings = db_col_int64(st, 4);
		r->worst = db_col_type(st, 5) == DB_NULL ? NULL : xstrdup(col_text(st, 5));
		if (q->verdicts)
			r->verdicts = xstrdup(col_text(st, 6));
		r->results = db_col_int64(st, 7);
		r->unjudged = db_col_int64(st, 8);
		r->worker = db_col_type(st, 9) == DB_NULL ? NULL : xstrdup(col_text(st, 9));
		r->lease_until = db_col_type(st, 10) == DB_NULL ? NULL : xstrdup(col_text(st, 10));
		r->queue_id = db_col_int64(st, 11);
	}
	db_finalize(st);
	if (rc != DB_DONE)
		db_err(db, err, "probe runs");
	else if (!q->queued || q->newest_first || queued_load(db, q, out, &cap, err) == 0)
		return 0;
	probe_run_list_free(out);
	return err->code;
}

enum run_outcome
probe_run_outcome(const struct probe_run *r, char *out, size_t n)
{
	int sev = r->worst != NULL ? severity_rank(r->worst) : -1;
	int done = strcmp(r->status, "completed") == 0;
	struct buf b;
	enum run_outcome o;

	buf_init(&b);
	if (r->findings > 0)
		buf_printf(&b, "%lld finding%s, worst %s", (long long)r->findings, r->findings == 1 ? "" : "s",
		    r->worst ? r->worst : "?");
	else
		buf_adds(&b, "no findings");
	if (r->unjudged > 0)
		buf_printf(&b, "; %lld of %lld probe%s inconclusive", (long long)r->unjudged,
		    (long long)r->results, r->results == 1 ? "" : "s");
	if (!done && strcmp(r->status, "running") != 0)
		buf_printf(&b, "; run %s", r->status);
	snprintf(out, n, "%s", b.data);
	buf_free(&b);
	if (sev >= SEV_HIGH)
		o = RUN_OUTCOME_BAD;
	else if (r->findings > 0)
		o = RUN_OUTCOME_WARN;
	else if (r->unjudged > 0 || !done)
		o = RUN_OUTCOME_UNSURE;
	else
		o = RUN_OUTCOME_OK;
	return o;
}

cJSON *
probe_run_row_to_json(const struct probe_run *r)
{
	cJSON *o = cJSON_CreateObject();

	if (r->id == 0) {   /* a queued entry: no run yet */
		cJSON_AddNullToObject(o, "id");
		cJSON_AddNumberToObject(o, "queue_id", (double)r->queue_id);
		cJSON_AddStringToObject(o, "endpoint", r->endpoint);
		cJSON_AddStringToObject(o, "status", r->status);
		cJSON_AddStringToObject(o, "queued_at", r->started_at);
		json_add_str(o, "worker", r->worker);
		if (r->queue_error != NULL)
			cJSON_AddStringToObject(o, "error", r->queue_error);
		return o;
	}
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddStringToObject(o, "endpoint", r->endpoint);
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddStringToObject(o, "started_at", r->started_at);
	json_add_str(o, "worker", r->worker);
	if (r->lease_until != NULL)
		cJSON_AddStringToObject(o, "lease_until", r->lease_until);
	cJSON_AddNumberToObject(o, "findings", (double)r->findings);
	json_add_str(o, "worst", r->worst);
	cJSON_AddNumberToObject(o, "probes", (double)r->results);
	cJSON_AddNumberToObject(o, "inconclusive", (double)r->unjudged);
	{
		char sum[160];
		static const char *const words[] = { "ok", "unsure", "warn", "bad" };

		cJSON_AddStringToObject(o, "outcome", words[probe_run_outcome(r, sum, sizeof sum)]);
		cJSON_AddStringToObject(o, "summary", sum);
	}
	if (r->verdicts != NULL)
		cJSON_AddStringToObject(o, "verdicts", r->verdicts);
	return o;
}

cJSON *
probe_run_list_to_json(const struct probe_run_list *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, probe_run_row_to_json(&l->items[i]));
	return a;
}

int
probe_runs_json(struct db *db, const struct run_query *q, cJSON **out, struct aerr *err)
{
	struct probe_run_list l;

	*out = NULL;
	if (probe_run_list_load(db, q, &l, err) != 0)
		return err->code;
	*out = probe_run_list_to_json(&l);
	probe_run_list_free(&l);
	return 0;
}

int
probe_run_findings(struct db *db, int64_t run_id, int64_t *n, struct aerr *err)
{
	*n = 0;
	return db_int(db, n, err, "SELECT count(*) FROM finding WHERE run_id = ?", "i", run_id) < 0 ?
	    err->code : 0;
}
