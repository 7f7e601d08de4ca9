/*
 * claims.c: judging a vendor's answers by its endpoints' evidence (claims.h).
 * The rule, in one place: an answer that asserts a tested behaviour is
 * contradicted by any finding the registry (or the question) says disproves
 * it, or by a measurement under the answered number; confirmed only when
 * every probe that tests it passed on judged evidence with the credentials it
 * needs, and nothing contradicts it; untested otherwise, with the reason. An
 * answer that admits the weaker behaviour is confirmed when a finding shows
 * it, and otherwise untested: no probe can prove a weakness absent.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/assess.h"
#include "claims.h"
#include "finding.h"

static int
streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* ---- loading the evidence from the database ---- */

static cJSON *
rowjson_get_str(struct db *db, struct aerr *err, const char *sql, int64_t id, const char *const *json_cols)
{
	struct db_stmt *st = db_prepare(db, err, sql, "i", id);
	cJSON *arr;

	if (st == NULL)
		return NULL;
	arr = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject();

		for (int c = 0; c < db_col_count(st); c++) {
			const char *name = db_col_name(st, c);
			int is_json = 0;

			for (int k = 0; json_cols != NULL && json_cols[k] != NULL; k++)
				is_json |= strcmp(json_cols[k], name) == 0;
			if (db_col_type(st, c) == DB_NULL)
				cJSON_AddNullToObject(o, name);
			else if (db_col_type(st, c) == DB_INTEGER)
				cJSON_AddNumberToObject(o, name, (double)db_col_int64(st, c));
			else if (is_json) {
				cJSON *j = cJSON_Parse(col_text(st, c));

				cJSON_AddItemToObject(o, name, j ? j : cJSON_CreateNull());
			} else
				cJSON_AddStringToObject(o, name, col_text(st, c));
		}
		cJSON_AddItemToArray(arr, o);
	}
	db_finalize(st);
	return arr;
}

int
claims_evidence_load(struct db *db, int64_t vendor_id, cJSON **runs, cJSON **endpoints,
    struct aerr *err)
{
	static const char *const details[] = { "details", "evidence", "plan", NULL };
	cJSON *r, *run;

	*runs = *endpoints = NULL;
	*endpoints = rowjson_get_str(db, err, "SELECT v.name || '/' || e.name AS endpoint, "
	    "max(1, (SELECT count(*) FROM credential c WHERE c.endpoint_id = e.id)) AS tenants, "
	    "e.context_tokens AS context "
	    "FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.vendor_id = ? AND e.status = 'active' ORDER BY e.name", vendor_id, NULL);
	if (*endpoints == NULL)
		return AV_RUNTIME;
	r = rowjson_get_str(db, err, "SELECT r.id, v.name || '/' || e.name AS endpoint, r.status, r.plan "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.vendor_id = ? AND r.status = 'completed' "
	    "ORDER BY coalesce(r.finished_at, r.started_at), r.id", vendor_id, details);
	if (r == NULL)
		goto fail;
	cJSON_ArrayForEach(run, r) {
		int64_t id = (int64_t)cJSON_GetObjectItem(run, "id")->valuedouble;
		cJSON *res = rowjson_get_str(db, err, "SELECT probe, verdict, reason, details FROM probe_result "
		    "WHERE run_id = ? ORDER BY id", id, details);
		cJSON *fs = res ? rowjson_get_str(db, err, "SELECT f.id, f.probe, f.code, f.severity, f.message, "
		    "(SELECT json_group_array(fe.evidence_id) FROM (SELECT evidence_id FROM "
		    "finding_evidence WHERE finding_id = f.id ORDER BY evidence_id) fe) AS evidence "
		    "FROM finding f WHERE f.run_id = ? ORDER BY f.id", id, details) : NULL;

		if (fs == NULL) {
			cJSON_Delete(res);
			cJSON_Delete(r);
			goto fail;
		}
		cJSON_AddItemToObject(run, "results", res);
		cJSON_AddItemToObject(run, "findings", fs);
	}
	*runs = r;
	return 0;
fail:
	cJSON_Delete(*endpoints);
	*endpoints = NULL;
	return AV_RUNTIME;
}

/* ---- judging ---- */

/* The newest completed result of each probe on one endpoint, with its run. */
struct latest {
	const cJSON *result[16], *run[16];
	const char *probe[16];
	int n;
};

static void
latest_collect(const cJSON *runs, const char *endpoint, struct latest *l)
{
	const cJSON *run, *res;

	memset(l, 0, sizeof *l);
	cJSON_ArrayForEach(run, runs) {
		if (!streq(json_get_str(run, "status"), "completed") || !streq(json_get_str(run, "endpoint"), endpoint))
			continue;
		cJSON_ArrayForEach(res, cJSON_GetObjectItem(run, "results")) {
			const char *p = json_get_str(res, "probe");
			int k;

			if (p == NULL)
				continue;
			for (k = 0; k < l->n && !streq(l->probe[k], p); k++)
				;
			if (k == l->n) {
				if (l->n == 16)
					continue;
				l->n++;
			}
			l->probe[k] = p;
			l->result[k] = res;
			l->run[k] = run;   /* runs are oldest first: the last one seen is the newest */
		}
	}
}

static int
latest_find(const struct latest *l, const char *probe)
{
	for (int k = 0; k < l->n; k++)
		if (streq(l->probe[k], probe))
			return k;
	return -1;
}

/*
 * Whether a finding of run is open: its run completed and holds the newest
 * completed result of the finding's probe on its endpoint. When it is not,
 * *by is the run whose result replaced it (NULL when none did).
 */
static int
finding_open(const cJSON *runs, const cJSON *run, const cJSON *f, const cJSON **by)
{
	struct latest l;
	int k;

	*by = NULL;
	latest_collect(runs, json_get_str(run, "endpoint"), &l);
	k = latest_find(&l, json_get_str(f, "probe"));
	if (k < 0)
		return 0;
	if (l.run[k] == run && streq(json_get_str(run, "status"), "completed"))
		return 1;
	*by = l.run[k];
	return 0;
}

int
claims_open_findings(const cJSON *runs, char *code, size_t code_len, int *probed)
{
	const cJSON *run, *f, *by;
	int worst = -1;

	*probed = 0;
	if (code_len > 0)
		code[0] = '\0';
	cJSON_ArrayForEach(run, runs) {
		if (!streq(json_get_str(run, "status"), "completed") || json_get_str(run, "endpoint") == NULL)
			continue;
		*probed = 1;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			int r = severity_rank(json_get_str(f, "severity"));

			if (r <= worst || !finding_open(runs, run, f, &by))
				continue;
			worst = r;
			snprintf(code, code_len, "%s", json_get_str(f, "code") ? json_get_str(f, "code") : "");
		}
	}
	return worst;
}

void
claims_open_counts(const cJSON *runs, int counts[SEV_COUNT])
{
	const cJSON *run, *f, *by;

	memset(counts, 0, sizeof(int) * SEV_COUNT);
	cJSON_ArrayForEach(run, runs)
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			int r = severity_rank(json_get_str(f, "severity"));

			if (r >= 0 && finding_open(runs, run, f, &by))
				counts[r]++;
		}
}

void
claims_mark_open(cJSON *runs)
{
	const cJSON *run, *by;
	cJSON *f;

	cJSON_ArrayForEach(run, runs)
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			int open = finding_open(runs, run, f, &by);

			cJSON_DeleteItemFromObject(f, "open");
			cJSON_DeleteItemFromObject(f, "superseded_by_run");
			cJSON_AddBoolToObject(f, "open", open);
			if (by != NULL && cJSON_IsNumber(cJSON_GetObjectItem(by, "id")))
				cJSON_AddNumberToObject(f, "superseded_by_run",
				    cJSON_GetObjectItem(by, "id")->valuedouble);
			else
				cJSON_AddNullToObject(f, "superseded_by_run");
		}
}

static int
value_in(const cJSON *answer, const cJSON *set)
{
	const cJSON *c;

	if (cJSON_Compare(answer, set, 1))
		return 1;
	if (cJSON_IsArray(set) && !cJSON_IsArray(answer))
		cJSON_ArrayForEach(c, set)
			if (cJSON_Compare(answer, c, 1))
				return 1;
	if (cJSON_IsArray(answer) && cJSON_IsString(set))
		cJSON_ArrayForEach(c, answer)
			if (cJSON_Compare(c, set, 1))
				return 1;
	return 0;
}

/*
 * What a pass covers. A pass confirms what its probe tests only within the
 * scope it ran at; outside it the pass is consistent with the answer, and this
 * says why (NULL: the pass confirms). One rule per probe that has a scope.
 */
static const char *
pass_scope(const char *probe, const cJSON *run)
{
	const char *depth = json_get_str(cJSON_GetObjectItem(run, "plan"), "depth");

	/* Verify sends half the canary rounds and no near-limit load on every tenant:
	 * a clean verify run does not show pages are never shared under load. */
	if (streq(probe, "canary") && !streq(depth, "diagnose"))
		return "probe canary passed at depth verify: consistent with the answer, which only a "
		    "pass at depth diagnose (twice the canary rounds, under load) confirms";
	return NULL;
}

/* Whether the answer asserts what the tests test. */
static int
is_claim(const struct q_question *qq, const cJSON *answer)
{
	if (qq->type == QT_NUMBER)
		return cJSON_IsNumber(answer);
	if (qq->claim != NULL)
		return value_in(answer, qq->claim);
	for (int k = 0; k < qq->nchecks; k++)
		if (value_in(answer, qq->checks[k].confirms))
			return 1;
	return 0;
}

static int
code_contradicts(const struct q_question *qq, const char *code)
{
	const cJSON *c;

	if (finding_contradicts(finding_lookup(code), qq->id))
		return 1;
	cJSON_ArrayForEach(c, qq->contradicted_by)
		if (cJSON_IsString(c) && streq(c->valuestring, code))
			return 1;
	return 0;
}

/* Whether the question can be tested at all. */
static int
testable(const struct q_question *qq)
{
	if (qq->nchecks > 0 || qq->measure.probe != NULL || cJSON_GetArraySize(qq->contradicted_by) > 0)
		return 1;
	for (int i = 0; i < F_COUNT; i++)
		if (finding_contradicts(finding_info((enum finding_code)i), qq->id))
			return 1;
	return 0;
}

/* Findings in the judged results that disprove the answer. */
static void
add_contradicting(const struct q_question *qq, const struct latest *l, cJSON *out)
{
	const cJSON *f;

	for (int k = 0; k < l->n; k++)
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(l->run[k], "findings")) {
			cJSON *c;

			if (!streq(json_get_str(f, "probe"), l->probe[k]) || !code_contradicts(qq, json_get_str(f, "code")))
				continue;
			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "code", json_get_str(f, "code"));
			cJSON_AddItemToObject(c, "finding_id", cJSON_Duplicate(cJSON_GetObjectItem(f, "id"), 1));
			cJSON_AddItemToObject(c, "run_id", cJSON_Duplicate(cJSON_GetObjectItem(l->run[k], "id"), 1));
			cJSON_AddStringToObject(c, "probe", l->probe[k]);
			json_add_str(c, "message", json_get_str(f, "message"));
			cJSON_AddItemToObject(c, "evidence", cJSON_IsArray(cJSON_GetObjectItem(f, "evidence")) ?
			    cJSON_Duplicate(cJSON_GetObjectItem(f, "evidence"), 1) : cJSON_CreateArray());
			cJSON_AddItemToArray(out, c);
		}
}

/*
 * The measurement a number is compared with, from the probe's newest result:
 * 1 with *v set when measured; 0 when the probe found no limit up to *v (the
 * largest size it sent whose content came back intact); -1 when there is
 * nothing to compare. *accepted: the largest size accepted at all, intact or not.
 */
static int
measured(const struct q_measure *m, const struct latest *l, double *v, double *accepted)
{
	int k = latest_find(l, m->probe);
	const cJSON *d, *x, *pt;
	double top = -1;

	*accepted = -1;

	if (k < 0 || (!streq(json_get_str(l->result[k], "verdict"), "pass") &&
	    !streq(json_get_str(l->result[k], "verdict"), "fail")))
		return -1;
	d = cJSON_GetObjectItem(l->result[k], "details");
	x = cJSON_GetObjectItem(d, m->value);
	if (cJSON_IsNumber(x)) {
		*v = x->valuedouble;
		return 1;
	}
	/* No boundary: the probe saw none up to the largest prompt it had accepted
	 * (for refusals, whatever happened to the content; for integrity, with none lost). */
	if (!streq(json_get_str(d, "change"), "none") && !(streq(m->value, "refusal_boundary") &&
	    !streq(json_get_str(d, "change"), "visible_refusal")))
		return -1;
	cJSON_ArrayForEach(pt, cJSON_GetObjectItem(d, "points")) {
		const cJSON *t = cJSON_GetObjectItem(pt, "tokens_sent");
		const cJSON *echoed = cJSON_GetObjectItem(pt, "nonces_echoed"), *all = cJSON_GetObjectItem(pt, "nonces_total");
		/* Content intact: every nonce came back (a point that does not count them says nothing). */
		int intact = cJSON_IsNumber(echoed) && cJSON_IsNumber(all) && echoed->valuedouble >= all->valuedouble;

		if (!cJSON_IsTrue(cJSON_GetObjectItem(pt, "accepted")) || !cJSON_IsNumber(t))
			continue;
		if (t->valuedouble > *accepted)
			*accepted = t->valuedouble;
		if (intact && t->valuedouble > top)
			top = t->valuedouble;
	}
	if (top < 0)
		return -1;
	*v = top;
	return 0;
}

/* The engine's own figure for a context claim (a number the sweep measures): what
 * one request can hold on the smallest node, from the engine probe's newest result,
 * every node read; -1 when there is none. *run_id: that result's run. */
static double
engine_capacity(const struct q_question *qq, const struct latest *l, double *run_id)
{
	int k = latest_find(l, "engine");
	const cJSON *v;

	if (k < 0 || !streq(qq->measure.probe, "sweep"))
		return -1;
	v = cJSON_GetObjectItem(cJSON_GetObjectItem(l->result[k], "details"), "capacity_tokens");
	*run_id = cJSON_GetNumberValue(cJSON_GetObjectItem(l->run[k], "id"));
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The endpoint's own record of what a number claims, when the number is one it
 * records: the advertised context (the largest prompt the sweep sees accepted). */
static void
record_compare(const struct q_question *qq, const cJSON *answer, const cJSON *ep, cJSON *c,
    struct buf *why)
{
	const cJSON *rec = cJSON_GetObjectItem(ep, "context");

	if (qq->measure.probe == NULL || !streq(qq->measure.value, "refusal_boundary") ||
	    !cJSON_IsNumber(answer) || !cJSON_IsNumber(rec) || rec->valuedouble <= 0)
		return;
	cJSON_AddNumberToObject(c, "endpoint_record", rec->valuedouble);
	cJSON_AddBoolToObject(c, "record_mismatch", rec->valuedouble != answer->valuedouble);
	if (rec->valuedouble != answer->valuedouble)
		buf_printf(why, "%sthe vendor states %.0f, the endpoint's record says %.0f", why->len ? "; " : "",
		    answer->valuedouble, rec->valuedouble);
}

/* The claim's "measure": what its probe measured (mv), up to where prompts were
 * accepted (macc) and the engine's own figure (ec, from run erun; -1 when none).
 * Returns measured()'s result, -1 when the question measures nothing. */
static int
measure_json(const struct q_question *qq, const struct latest *l, cJSON *c, double *mv, double *macc,
    double *ec, double *erun)
{
	cJSON *ms;
	int mres;

	*ec = -1;
	if (qq->measure.probe == NULL) {
		cJSON_AddNullToObject(c, "measure");
		return -1;
	}
	ms = cJSON_AddObjectToObject(c, "measure");
	cJSON_AddStringToObject(ms, "probe", qq->measure.probe);
	cJSON_AddStringToObject(ms, "value", qq->measure.value);
	mres = measured(&qq->measure, l, mv, macc);
	if (mres >= 0)
		cJSON_AddNumberToObject(ms, "measured", *mv);
	else
		cJSON_AddNullToObject(ms, "measured");
	if (*macc >= 0)
		cJSON_AddNumberToObject(ms, "accepted_up_to", *macc);
	else
		cJSON_AddNullToObject(ms, "accepted_up_to");
	cJSON_AddBoolToObject(ms, "limit_found", mres == 1);
	cJSON_AddNumberToObject(ms, "tolerance", qq->measure.tolerance);
	if ((*ec = engine_capacity(qq, l, erun)) >= 0)
		cJSON_AddNumberToObject(ms, "engine_capacity", *ec);
	return mres;
}

static cJSON *
judge_one(const struct q_question *qq, const cJSON *answer, const cJSON *runs, const cJSON *ep,
    int tenants)
{
	cJSON *c = cJSON_CreateObject(), *probes, *contra;
	struct latest l;
	struct buf why;
	const char *status, *scope = NULL, *endpoint = json_get_str(ep, "endpoint");
	int claim = is_claim(qq, answer), all_pass = qq->nchecks > 0, mres = -1;
	double mv = 0, erun = 0, ec, macc = -1;

	buf_init(&why);
	latest_collect(runs, endpoint, &l);
	if (endpoint == NULL)
		endpoint = "";
	cJSON_AddStringToObject(c, "question_id", qq->id);
	cJSON_AddStringToObject(c, "question", qq->text);
	cJSON_AddItemToObject(c, "answer", cJSON_Duplicate(answer, 1));
	json_add_str(c, "endpoint", *endpoint ? endpoint : NULL);
	probes = cJSON_AddArrayToObject(c, "probes");
	for (int i = 0; i < qq->nchecks; i++) {
		const struct q_check *ck = &qq->checks[i];
		int k = latest_find(&l, ck->probe);
		const char *verdict = k >= 0 ? json_get_str(l.result[k], "verdict") : NULL;
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "probe", ck->probe);
		if (k >= 0)
			cJSON_AddItemToObject(p, "run_id", cJSON_Duplicate(cJSON_GetObjectItem(l.run[k], "id"), 1));
		else
			cJSON_AddNullToObject(p, "run_id");
		json_add_str(p, "verdict", verdict);
		cJSON_AddItemToArray(probes, p);
		if (streq(verdict, "pass") && tenants >= ck->tenants) {
			if (scope == NULL)
				scope = pass_scope(ck->probe, l.run[k]);
			continue;
		}
		all_pass = 0;
		if (why.len == 0) {
			if (k < 0)
				buf_printf(&why, "probe %s has no completed run on %s", ck->probe, endpoint);
			else if (streq(verdict, "pass"))
				buf_printf(&why, "probe %s passed with %d credential%s; a pass confirms this only with "
				    "%d or more", ck->probe, tenants, tenants == 1 ? "" : "s", ck->tenants);
			else
				buf_printf(&why, "probe %s ended %s in run %lld%s%s", ck->probe, verdict,
				    (long long)cJSON_GetObjectItem(l.run[k], "id")->valuedouble,
				    json_get_str(l.result[k], "reason") ? ": " : "",
				    json_get_str(l.result[k], "reason") ? json_get_str(l.result[k], "reason") : "");
		}
	}
	contra = cJSON_AddArrayToObject(c, "contradicting");
	add_contradicting(qq, &l, contra);
	mres = measure_json(qq, &l, c, &mv, &macc, &ec, &erun);

	if (!claim) {
		/* The answer admits the weaker behaviour. */
		if (cJSON_GetArraySize(contra) > 0) {
			status = "confirmed";
			buf_free(&why);
			buf_printf(&why, "the answer admits it, and %s shows it",
			    json_get_str(cJSON_GetArrayItem(contra, 0), "code"));
		} else {
			status = "untested";
			buf_free(&why);
			buf_adds(&why, "the answer admits the weaker behaviour: probes can show it, never rule it out");
		}
	} else if (cJSON_GetArraySize(contra) > 0) {
		const cJSON *x = cJSON_GetArrayItem(contra, 0);

		status = "contradicted";
		buf_free(&why);
		buf_printf(&why, "%s in run %lld (%s)", json_get_str(x, "code"),
		    (long long)cJSON_GetObjectItem(x, "run_id")->valuedouble, json_get_str(x, "probe"));
		if (cJSON_GetArraySize(contra) > 1)
			buf_printf(&why, " and %d more finding%s", cJSON_GetArraySize(contra) - 1,
			    cJSON_GetArraySize(contra) == 2 ? "" : "s");
	} else if (mres == 1 && mv < answer->valuedouble * (1 - qq->measure.tolerance)) {
		status = "contradicted";
		buf_free(&why);
		buf_printf(&why, "%s measured %.0f, under the answered %.0f", qq->measure.value, mv,
		    answer->valuedouble);
	} else if (ec >= 0 && ec < answer->valuedouble * (1 - qq->measure.tolerance)) {
		/* The engine says of itself that one request holds less than the answer. */
		status = "contradicted";
		buf_free(&why);
		buf_printf(&why, "the engine's own status in run %.0f: one request holds at most %.0f "
		    "tokens, under the answered %.0f", erun, ec, answer->valuedouble);
	} else if (ec >= 0 && mres < 0) {
		status = "confirmed";
		buf_free(&why);
		buf_printf(&why, "the engine's own status in run %.0f: every node holds %.0f tokens in one "
		    "request, and no finding contradicts it", erun, ec);
	} else if (qq->measure.probe != NULL && mres < 0) {
		status = "untested";
		if (why.len == 0)
			buf_printf(&why, "probe %s measured no %s on %s", qq->measure.probe, qq->measure.value,
			    endpoint);
	} else if (qq->measure.probe != NULL && mres == 0 &&
	    mv < answer->valuedouble * (1 - qq->measure.tolerance)) {
		/* Accepted is not intact: only content intact up to the number confirms it. */
		int took = macc >= answer->valuedouble * (1 - qq->measure.tolerance);

		status = took ? "consistent" : "untested";
		buf_free(&why);
		if (took)
			buf_printf(&why, "probe %s saw prompts up to %.0f tokens accepted, but content intact "
			    "only up to %.0f: consistent with the answered %.0f, not confirmed", qq->measure.probe,
			    macc, mv, answer->valuedouble);
		else
			buf_printf(&why, "probe %s found content intact up to %.0f tokens, below the answered %.0f",
			    qq->measure.probe, mv, answer->valuedouble);
	} else if (qq->nchecks == 0 && qq->measure.probe == NULL) {
		status = "untested";
		buf_free(&why);
		buf_adds(&why, "no probe can confirm this answer; none of the findings that would "
		    "contradict it was raised");
	} else if (qq->nchecks > 0 && !all_pass) {
		status = "untested";
	} else if (scope != NULL) {
		status = "consistent";
		buf_free(&why);
		buf_adds(&why, scope);
	} else {
		status = "confirmed";
		buf_free(&why);
		if (qq->measure.probe != NULL)
			buf_printf(&why, "%s %s %.0f", qq->measure.value, mres == 1 ? "measured" :
			    "intact up to at least", mv);
		for (int i = 0; i < qq->nchecks; i++)
			buf_printf(&why, "%sprobe %s passed", why.len ? "; " : "", qq->checks[i].probe);
		buf_adds(&why, ", and no finding contradicts it");
	}
	record_compare(qq, answer, ep, c, &why);
	cJSON_AddStringToObject(c, "status", status);
	cJSON_AddStringToObject(c, "reason", why.len ? why.data : "");
	buf_free(&why);
	return c;
}

cJSON *
claims_judge(const struct questionnaire *q, const cJSON *answers, const cJSON *runs,
    const cJSON *endpoints)
{
	cJSON *out = cJSON_CreateArray();

	for (int i = 0; i < q->nquestions; i++) {
		const struct q_question *qq = &q->questions[i];
		const cJSON *answer = cJSON_GetObjectItemCaseSensitive(answers, qq->id), *e;

		if (answer == NULL || cJSON_IsNull(answer) || !testable(qq))
			continue;
		if (cJSON_GetArraySize(endpoints) == 0) {
			cJSON *c = judge_one(qq, answer, NULL, NULL, 0);
			cJSON *reason = cJSON_CreateString("the vendor has no endpoint to probe");

			cJSON_ReplaceItemInObject(c, "status", cJSON_CreateString("untested"));
			cJSON_ReplaceItemInObject(c, "reason", reason);
			cJSON_AddItemToArray(out, c);
			continue;
		}
		cJSON_ArrayForEach(e, endpoints) {
			const cJSON *t = cJSON_GetObjectItem(e, "tenants");

			cJSON_AddItemToArray(out, judge_one(qq, answer, runs, e, cJSON_IsNumber(t) ? t->valueint : 1));
		}
	}
	return out;
}

void
claim_list_free(struct claim_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct claim *c = &l->items[i];

		free(c->question_id), free(c->question), free(c->endpoint), free(c->status), free(c->reason);
		cJSON_Delete(c->answer);
		for (size_t k = 0; k < c->nprobes; k++)
			free(c->probes[k].probe), free(c->probes[k].verdict);
		free(c->probes);
		for (size_t k = 0; k < c->ncontradicting; k++) {
			struct claim_contra *x = &c->contradicting[k];

			free(x->code), free(x->probe), free(x->message), free(x->evidence);
		}
		free(c->contradicting);
		if (c->measure != NULL)
			free(c->measure->probe), free(c->measure->value);
		free(c->measure);
	}
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* ---- the one JSON form of a claim ---- */

static cJSON *
claim_contra_to_json(const struct claim_contra *x)
{
	cJSON *c = cJSON_CreateObject(), *ev;

	cJSON_AddStringToObject(c, "code", x->code);
	cJSON_AddNumberToObject(c, "finding_id", (double)x->finding_id);
	cJSON_AddNumberToObject(c, "run_id", (double)x->run_id);
	cJSON_AddStringToObject(c, "probe", x->probe);
	json_add_str(c, "message", x->message);
	ev = cJSON_AddArrayToObject(c, "evidence");
	for (size_t i = 0; i < x->nevidence; i++)
		cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)x->evidence[i]));
	return c;
}

static void
claim_measure_add_json(cJSON *c, const struct claim_measure *m)
{
	cJSON *ms;

	if (m == NULL) {
		cJSON_AddNullToObject(c, "measure");
		return;
	}
	ms = cJSON_AddObjectToObject(c, "measure");
	cJSON_AddStringToObject(ms, "probe", m->probe);
	cJSON_AddStringToObject(ms, "value", m->value);
	if (m->has_measured)
		cJSON_AddNumberToObject(ms, "measured", m->measured);
	else
		cJSON_AddNullToObject(ms, "measured");
	if (m->has_accepted_up_to)
		cJSON_AddNumberToObject(ms, "accepted_up_to", m->accepted_up_to);
	else
		cJSON_AddNullToObject(ms, "accepted_up_to");
	cJSON_AddBoolToObject(ms, "limit_found", m->limit_found);
	cJSON_AddNumberToObject(ms, "tolerance", m->tolerance);
	if (m->has_engine_capacity)
		cJSON_AddNumberToObject(ms, "engine_capacity", m->engine_capacity);
}

cJSON *
claim_to_json(const struct claim *k)
{
	cJSON *c = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(c, "question_id", k->question_id);
	cJSON_AddStringToObject(c, "question", k->question);
	cJSON_AddItemToObject(c, "answer", k->answer ? cJSON_Duplicate(k->answer, 1) : cJSON_CreateNull());
	json_add_str(c, "endpoint", k->endpoint);
	arr = cJSON_AddArrayToObject(c, "probes");
	for (size_t i = 0; i < k->nprobes; i++) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "probe", k->probes[i].probe);
		if (k->probes[i].run_id != 0)
			cJSON_AddNumberToObject(p, "run_id", (double)k->probes[i].run_id);
		else
			cJSON_AddNullToObject(p, "run_id");
		json_add_str(p, "verdict", k->probes[i].verdict);
		cJSON_AddItemToArray(arr, p);
	}
	arr = cJSON_AddArrayToObject(c, "contradicting");
	for (size_t i = 0; i < k->ncontradicting; i++)
		cJSON_AddItemToArray(arr, claim_contra_to_json(&k->contradicting[i]));
	claim_measure_add_json(c, k->measure);
	if (k->has_endpoint_record) {
		cJSON_AddNumberToObject(c, "endpoint_record", k->endpoint_record);
		cJSON_AddBoolToObject(c, "record_mismatch", k->record_mismatch);
	}
	cJSON_AddStringToObject(c, "status", k->status);
	cJSON_AddStringToObject(c, "reason", k->reason ? k->reason : "");
	if (k->assessment_id != 0)
		cJSON_AddNumberToObject(c, "assessment_id", (double)k->assessment_id);
	return c;
}

cJSON *
claim_list_to_json(const struct claim_list *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, claim_to_json(&l->items[i]));
	return a;
}
