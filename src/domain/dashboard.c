/*
 * dashboard.c: the summary the TUI opens on, read from the records the
 * commands keep. Vendors are rated by vendor_rate, as "vendor list" and the
 * report rate them, clocks come from the same computation as "incident due",
 * incidents and runs from the lists "incident list" and "probe runs" print,
 * so the dashboard never tells a different story from the command line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dashboard.h"
#include "assess.h"
#include "incident.h"
#include "rating.h"
#include "run-query.h"
#include "vendor-rating.h"

/* Clocks due within this window follow the overdue ones: the default of "incident due". */
#define DUE_SOON_MS ((int64_t)7 * 86400 * 1000)

static void
add_vendor(struct dashboard *d, int *cap, int64_t id, const char *name, const struct vendor_verdict *v)
{
	struct dash_vendor *x;

	if (d->nvendors == *cap)
		d->vendors = xrealloc(d->vendors, sizeof *d->vendors * (size_t)(*cap = *cap ? *cap * 2 : 16));
	x = &d->vendors[d->nvendors++];
	x->id = id;
	snprintf(x->name, sizeof x->name, "%s", name);
	x->v = *v;
}

/* Worst first; within a rating, the higher weighted score first, then by id. */
static int
worse_first(const void *a, const void *b)
{
	const struct dash_vendor *x = a, *y = b;

	if (x->v.rating != y->v.rating)
		return x->v.rating > y->v.rating ? -1 : 1;
	if (x->v.score != y->v.score)
		return x->v.score > y->v.score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
load_vendors(struct db *db, int rows, struct dashboard *d, struct aerr *err)
{
	int cap = 0, rated, n;
	struct vendor_rated *r;
	struct vendor_verdict none;
	struct db_stmt *st;

	if (vendor_rate_all(db, 0, &r, &n, err) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT v.id, v.name FROM vendor v WHERE v.status = 'active' AND "
	    "v.id IN (" VENDOR_RATED_IDS ") ORDER BY v.id", NULL);
	if (st == NULL) {
		free(r);
		return err->code;
	}
	while (db_step(st) == DB_ROW) {
		const struct vendor_verdict *v = vendor_rated_find(r, n, db_col_int64(st, 0));

		if (v != NULL)
			add_vendor(d, &cap, db_col_int64(st, 0), col_text(st, 1), v);
	}
	db_finalize(st);
	free(r);
	if (d->nvendors > 1)
		qsort(d->vendors, (size_t)d->nvendors, sizeof *d->vendors, worse_first);
	if (d->nvendors > rows)
		d->nvendors = rows;
	rated = d->nvendors;
	if (rated >= rows)
		return 0;
	/* Vendors with nothing to rate fill what room is left: not assessed is a rating too. */
	vendor_verdict_none(&none);
	st = db_prepare(db, err, "SELECT v.id, v.name FROM vendor v WHERE v.status = 'active' "
	    "AND v.id NOT IN (" VENDOR_RATED_IDS ") ORDER BY v.name LIMIT ?", "i", (int64_t)(rows - rated));
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		add_vendor(d, &cap, db_col_int64(st, 0), col_text(st, 1), &none);
	db_finalize(st);
	return 0;
}

static int
load_reviews(struct db *db, int rows, struct dashboard *d, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT a.id, v.name, q.qid, a.round, a.submitted_at "
	    "FROM assessment a JOIN vendor v ON v.id = a.vendor_id JOIN questionnaire q ON "
	    "q.id = a.questionnaire_id WHERE a.status = 'in_review' ORDER BY a.submitted_at LIMIT ?",
	    "i", (int64_t)rows);

	if (st == NULL)
		return err->code;
	d->reviews = xcalloc((size_t)rows + 1, sizeof *d->reviews);
	while (db_step(st) == DB_ROW) {
		struct dash_review *r = &d->reviews[d->nreviews++];

		r->id = db_col_int64(st, 0);
		snprintf(r->vendor, sizeof r->vendor, "%s", col_text(st, 1));
		snprintf(r->questionnaire, sizeof r->questionnaire, "%s", col_text(st, 2));
		r->round = db_col_int(st, 3);
		snprintf(r->submitted_at, sizeof r->submitted_at, "%s", col_text(st, 4));
	}
	db_finalize(st);
	return 0;
}

/* The open incidents, newest first (the list "incident list" prints is oldest first). */
static int
load_incidents(struct db *db, int64_t now, int rows, struct dashboard *d, struct aerr *err)
{
	struct incident_list *l = &d->incidents;

	if (incident_list_load(db, 0, 1, now, l, err) != 0)
		return err->code;
	for (size_t i = 0, j = l->n; i + 1 < j; i++, j--) {
		struct incident x = l->items[i];

		l->items[i] = l->items[j - 1];
		l->items[j - 1] = x;
	}
	while (l->n > (size_t)rows)
		incident_free(&l->items[--l->n]);
	return 0;
}

int
dashboard_load(struct db *db, int64_t now, int rows, struct dashboard *d, struct aerr *err)
{
	memset(d, 0, sizeof *d);
	d->window_ms = DUE_SOON_MS;
	if (load_vendors(db, rows, d, err) != 0 || load_reviews(db, rows, d, err) != 0)
		return err->code;
	if (incident_due_report(db, now, d->window_ms, &d->clocks, err) != 0)
		return err->code;
	if (load_incidents(db, now, rows, d, err) != 0)
		return err->code;
	if (probe_run_list_load(db, &(struct run_query){ .newest_first = 1, .limit = rows }, &d->runs, err) != 0)
		return err->code;
	return 0;
}

void
dashboard_free(struct dashboard *d)
{
	free(d->vendors);
	free(d->reviews);
	due_report_free(&d->clocks);
	incident_list_free(&d->incidents);
	probe_run_list_free(&d->runs);
	memset(d, 0, sizeof *d);
}
