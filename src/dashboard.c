/*
 * dashboard.c: the summary the TUI opens on, read from the records the
 * commands keep. Vendors are rated as "assess show" rates their newest
 * assessment, clocks come from the same computation as "incident due",
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

/* Clocks due within this window follow the overdue ones: the default of "incident due". */
#define DUE_SOON_MS ((int64_t)7 * 86400 * 1000)

static void
add_vendor(struct dashboard *d, int *cap, int64_t id, const char *name, int rating, double score,
    const char *status)
{
	struct dash_vendor *v;

	if (d->nvendors == *cap)
		d->vendors = xrealloc(d->vendors, sizeof *d->vendors * (size_t)(*cap = *cap ? *cap * 2 : 16));
	v = &d->vendors[d->nvendors++];
	v->id = id;
	snprintf(v->name, sizeof v->name, "%s", name);
	v->rating = rating;
	v->score = score;
	snprintf(v->status, sizeof v->status, "%s", status);
}

/* Worst first; within a rating, the higher weighted score first. */
static int
worse_first(const void *a, const void *b)
{
	const struct dash_vendor *x = a, *y = b;

	if (x->rating != y->rating)
		return x->rating > y->rating ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return 0;
}

static int
load_vendors(struct db *db, int rows, struct dashboard *d, struct aerr *err)
{
	int cap = 0, rated;
	/* The newest assessment of each active vendor that has one. */
	struct db_stmt *st = db_prepare(db, err, "SELECT v.id, v.name, (SELECT a.id FROM assessment a "
	    "WHERE a.vendor_id = v.id ORDER BY a.created_at DESC, a.id DESC LIMIT 1) AS aid "
	    "FROM vendor v WHERE v.status = 'active' AND aid IS NOT NULL ORDER BY v.id", NULL);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct assessment *a;
		struct assessment_score s;
		struct aerr skip = { 0 };

		/* An assessment that no longer loads is left out rather than hiding the rest. */
		if (assessment_load(db, db_col_int64(st, 2), &a, &skip) != 0)
			continue;
		assessment_score(a, &s);
		add_vendor(d, &cap, db_col_int64(st, 0), col_text(st, 1), s.rating, s.risk_score,
		    a->status);
		assessment_free(a);
	}
	db_finalize(st);
	/* Insertion sort, being stable, keeps equals in the order of their ids. */
	for (int i = 1; i < d->nvendors; i++)
		for (int j = i; j > 0 && worse_first(&d->vendors[j], &d->vendors[j - 1]) < 0; j--) {
			struct dash_vendor tmp = d->vendors[j];

			d->vendors[j] = d->vendors[j - 1];
			d->vendors[j - 1] = tmp;
		}
	if (d->nvendors > rows)
		d->nvendors = rows;
	rated = d->nvendors;
	if (rated >= rows)
		return 0;
	/* Vendors never assessed fill what room is left: not assessed is a rating too. */
	st = db_prepare(db, err, "SELECT v.id, v.name FROM vendor v WHERE v.status = 'active' "
	    "AND NOT EXISTS (SELECT 1 FROM assessment a WHERE a.vendor_id = v.id) "
	    "ORDER BY v.name LIMIT ?", "i", (int64_t)(rows - rated));
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		add_vendor(d, &cap, db_col_int64(st, 0), col_text(st, 1), RATING_NOT_ASSESSED, 0, "");
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
	cJSON *oldest_first;
	int n;

	if (incident_list_json(db, 0, 1, now, &oldest_first, err) != 0)
		return err->code;
	d->incidents = cJSON_CreateArray();
	n = cJSON_GetArraySize(oldest_first);
	for (int i = n - 1; i >= 0 && i >= n - rows; i--)
		cJSON_AddItemToArray(d->incidents, cJSON_DetachItemFromArray(oldest_first, i));
	cJSON_Delete(oldest_first);
	return 0;
}

int
dashboard_load(struct db *db, int64_t now, int rows, struct dashboard *d, struct aerr *err)
{
	cJSON *due;

	memset(d, 0, sizeof *d);
	d->window_ms = DUE_SOON_MS;
	if (load_vendors(db, rows, d, err) != 0 || load_reviews(db, rows, d, err) != 0)
		return err->code;
	if (incident_due_report(db, now, d->window_ms, &due, err) != 0)
		return err->code;
	d->clocks = cJSON_DetachItemFromObject(due, "clocks");
	cJSON_Delete(due);
	if (load_incidents(db, now, rows, d, err) != 0)
		return err->code;
	if (probe_runs_json(db, &(struct run_query){ .newest_first = 1, .limit = rows }, &d->runs, err) != 0)
		return err->code;
	return 0;
}

void
dashboard_free(struct dashboard *d)
{
	free(d->vendors);
	free(d->reviews);
	cJSON_Delete(d->clocks);
	cJSON_Delete(d->incidents);
	cJSON_Delete(d->runs);
	memset(d, 0, sizeof *d);
}
