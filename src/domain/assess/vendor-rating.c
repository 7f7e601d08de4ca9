/*
 * vendor-rating.c: reads what a vendor's rating rests on (its assessments,
 * its completed probe runs with their results and findings, its endpoints)
 * and hands it to the one rule (vendor_verdict, rating.c). Each round is rated
 * by assessment_score with its claims judged on the same evidence, so the
 * vendor's word and its assessments' words never disagree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "claims.h"
#include "vendor-rating.h"

void
vendor_verdict_none(struct vendor_verdict *v)
{
	vendor_verdict(NULL, 0, NULL, v);
}

/* Rates every round of the vendor on the loaded evidence. */
static int
rate_rounds(struct db *db, int64_t vendor_id, const struct claim_evidence *ev,
    struct rated_round **out, int *n, struct aerr *err)
{
	int64_t *ids;
	size_t nids;
	struct rated_round *r;

	*out = NULL;
	*n = 0;
	if (assessment_ids(db, vendor_id, &ids, &nids, err) != 0)
		return err->code;
	r = xcalloc(nids + 1, sizeof *r);
	for (size_t i = 0; i < nids; i++) {
		struct assessment *a;
		struct assessment_score s;
		struct claim_list claims;

		if (assessment_load(db, ids[i], &a, err) != 0) {
			for (int k = 0; k < *n; k++) {
				free((char *)r[k].qid);
				free((char *)r[k].contradicted_by);
			}
			free(r);
			free(ids);
			*n = 0;
			return err->code;
		}
		assessment_claims_on(a, ev, &claims);
		assessment_score(a, &claims, &s);
		claim_list_free(&claims);
		r[*n] = (struct rated_round){ .id = a->id, .round = a->round, .qid = xstrdup(a->q->qid),
		    .status = assessment_status_of(a->status), .rating = (enum rating)s.rating, .score = s.risk_score,
		    .contradicted = s.contradicted,
		    .contradicted_by = s.finding[0] ? xstrdup(s.finding) : NULL, .approved = a->approved };
		(*n)++;
		assessment_free(a);
	}
	free(ids);
	*out = r;
	return 0;
}

int
vendor_rate(struct db *db, int64_t vendor_id, struct vendor_verdict *v, struct aerr *err)
{
	struct claim_evidence ev;
	struct rated_round *r;
	int n;

	if (claims_evidence_load(db, vendor_id, &ev, err) != 0)
		return AV_RUNTIME;
	if (rate_rounds(db, vendor_id, &ev, &r, &n, err) != 0) {
		claim_evidence_free(&ev);
		return err->code;
	}
	vendor_verdict(r, n, &ev.runs, v);
	for (int k = 0; k < n; k++) {
		free((char *)r[k].qid);
		free((char *)r[k].contradicted_by);
	}
	free(r);
	claim_evidence_free(&ev);
	return 0;
}

int
vendor_rate_all(struct db *db, int all, struct vendor_rated **out, int *n, struct aerr *err)
{
	int64_t *ids;
	size_t nids;
	struct db_stmt *st = db_prepare(db, err, "SELECT v.id FROM vendor v WHERE (? <> 0 OR "
	    "v.status = 'active') AND v.id IN (" VENDOR_RATED_IDS ") ORDER BY v.id", "i", (int64_t)all);

	*out = NULL;
	*n = 0;
	if (db_ids(st, &ids, &nids, err) != 0)
		return err->code;
	*out = xcalloc(nids + 1, sizeof **out);
	for (size_t i = 0; i < nids; i++) {
		(*out)[i].id = ids[i];
		if (vendor_rate(db, ids[i], &(*out)[i].v, err) != 0) {
			free(ids);
			free(*out);
			*out = NULL;
			return err->code;
		}
	}
	*n = (int)nids;
	free(ids);
	return 0;
}

const struct vendor_verdict *
vendor_rated_find(const struct vendor_rated *r, int n, int64_t id)
{
	int lo = 0, hi = n - 1;

	/* By id, as vendor_rate_all orders them. */
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (r[mid].id == id)
			return &r[mid].v;
		if (r[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/* Gives each vendor of a loaded list its rating (a copy of the verdict). */
static int
rate_list(struct db *db, int all, struct vendor_list *l, struct aerr *err)
{
	struct vendor_rated *r;
	struct vendor_verdict none;
	int n;

	if (vendor_rate_all(db, all, &r, &n, err) != 0)
		return err->code;
	vendor_verdict_none(&none);
	for (size_t i = 0; i < l->n; i++) {
		const struct vendor_verdict *v = vendor_rated_find(r, n, l->items[i].id);

		l->items[i].rating = xcalloc(1, sizeof *l->items[i].rating);
		*l->items[i].rating = v ? *v : none;
	}
	free(r);
	return 0;
}

int
vendor_list_rated(struct db *db, int all, struct vendor_list *out, struct aerr *err)
{
	if (vendor_list_load(db, all, out, err) != 0)
		return err->code;
	if (rate_list(db, all, out, err) != 0) {
		vendor_list_free(out);
		return err->code;
	}
	return 0;
}

struct rated_each {
	const struct vendor_rated *r;
	int n;
	const struct vendor_verdict *none;
	void (*each)(const struct vendor *v, void *ctx);
	void *ctx;
};

static void
rated_one(const struct vendor *v, void *p)
{
	struct rated_each *c = p;
	struct vendor rated = *v;
	const struct vendor_verdict *verdict = vendor_rated_find(c->r, c->n, v->id);

	rated.rating = (struct vendor_verdict *)(verdict ? verdict : c->none);
	c->each(&rated, c->ctx);
}

int
vendor_each_rated(struct db *db, int all, void (*each)(const struct vendor *v, void *ctx), void *ctx,
    struct aerr *err)
{
	struct vendor_rated *r;
	struct vendor_verdict none;
	struct rated_each c;
	int n, rc;

	if (vendor_rate_all(db, all, &r, &n, err) != 0)
		return err->code;
	vendor_verdict_none(&none);
	c = (struct rated_each){ r, n, &none, each, ctx };
	/* One vendor at a time: a list of many vendors is never held whole. */
	rc = vendor_each(db, all, rated_one, &c, err);
	free(r);
	return rc;
}

/* Every round in work, not only the newest: each is a draft someone may be answering. */
static int
load_in_work(struct db *db, int64_t id, struct vendor *v, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT a.id, q.qid, a.round, a.status FROM assessment a "
	    "JOIN questionnaire q ON q.id = a.questionnaire_id WHERE a.vendor_id = ? AND a.status IN "
	    "('draft', 'in_review') ORDER BY a.id", "i", id);
	int rc;

	if (st == NULL)
		return AV_RUNTIME;
	v->has_in_work = 1;
	while ((rc = db_step(st)) == DB_ROW) {
		struct vendor_round *r;

		v->in_work = xrealloc(v->in_work, (v->nin_work + 1) * sizeof *v->in_work);
		r = &v->in_work[v->nin_work++];
		r->id = db_col_int64(st, 0);
		snprintf(r->questionnaire, sizeof r->questionnaire, "%s", col_text(st, 1));
		r->round = db_col_int64(st, 2);
		snprintf(r->status, sizeof r->status, "%s", col_text(st, 3));
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "rounds in work");
	/* How far each is answered, counted as the assessment screen counts it. */
	for (size_t i = 0; i < v->nin_work; i++) {
		struct assessment *a;
		struct assessment_score sc;

		if (assessment_load(db, v->in_work[i].id, &a, err) != 0)
			return err->code;
		assessment_score(a, NULL, &sc);
		v->in_work[i].answered = sc.answered;
		v->in_work[i].asked = sc.asked;
		assessment_free(a);
	}
	return 0;
}

int
vendor_show_load(struct db *db, int64_t id, struct vendor *out, struct aerr *err)
{
	if (vendor_get(db, id, out, err) != 0)
		return err->code;
	out->rating = xcalloc(1, sizeof *out->rating);
	/* Every endpoint of the vendor, archived ones too, by name. */
	if (endpoint_list_load(db, id, 1, &out->endpoint_list, err) != 0 ||
	    vendor_rate(db, id, out->rating, err) != 0) {
		vendor_free(out);
		return err->code;
	}
	out->has_endpoint_list = 1;
	if (load_in_work(db, id, out, err) != 0) {
		vendor_free(out);
		return err->code;
	}
	return 0;
}

/* The rating sits between the vendor's row and its rounds in work: the
 * vendor's own parts are vendor.c's, the rating this room's. */
cJSON *
vendor_to_json(const struct vendor *v)
{
	cJSON *o = vendor_row_to_json(v);

	if (v->rating != NULL)
		vendor_verdict_add_json(o, v->rating);
	vendor_in_work_add_json(o, v);
	return o;
}
