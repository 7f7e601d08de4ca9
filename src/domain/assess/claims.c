/*
 * claims.c: judging a vendor's answers by its endpoints' evidence (claims.h).
 * The rule, in one place: an answer that asserts a tested behaviour is
 * contradicted by any finding the registry (or the question) says disproves
 * it, or by a measurement under the answered number; confirmed only when
 * every probe that tests it passed on judged evidence with the credentials it
 * needs, and nothing contradicts it; untested otherwise, with the reason. An
 * answer that admits the weaker behaviour is confirmed when a finding shows
 * it, and otherwise untested: no probe can prove a weakness absent. The
 * evidence and the claims are records; a result's details, the probe's own
 * document, are read where a measurement is compared.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/assess.h"
#include "aivet/run-query.h"
#include "claims.h"
#include "finding.h"

static int
streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* ---- loading the evidence from the database ---- */

static int
load_endpoints(struct db *db, int64_t vendor_id, struct claim_evidence *ev, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT v.name || '/' || e.name, "
	    "(SELECT count(*) FROM credential c WHERE c.endpoint_id = e.id), e.context_tokens "
	    "FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.vendor_id = ? AND e.status = 'active' ORDER BY e.name", "i", vendor_id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		ev->endpoints = xrealloc(ev->endpoints, (ev->nendpoints + 1) * sizeof *ev->endpoints);
		ev->endpoints[ev->nendpoints++] = (struct claim_endpoint){ .name = xstrdup(col_text(st, 0)),
		    .tenants = db_col_int(st, 1) > 1 ? db_col_int(st, 1) : 1,
		    .context = db_col_type(st, 2) == DB_NULL ? 0 : db_col_int64(st, 2) };
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "claims evidence");
}

static cJSON *
parsed_or_null(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : cJSON_Parse(col_text(st, i));
}

static int
load_results(struct db *db, struct probe_run *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT probe, verdict, reason, details FROM probe_result "
	    "WHERE run_id = ? ORDER BY id", "i", r->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		r->probes = xrealloc(r->probes, (r->nprobes + 1) * sizeof *r->probes);
		r->probes[r->nprobes++] = (struct probe_result){ .name = xstrdup(col_text(st, 0)),
		    .verdict = xstrdup(col_text(st, 1)),
		    .reason = db_col_text(st, 2) ? xstrdup(db_col_text(st, 2)) : NULL,
		    .details = parsed_or_null(st, 3) };
		probe_result_details_read(&r->probes[r->nprobes - 1]);
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "claims evidence");
}

static struct probe_result *
result_of(struct probe_run *r, const char *probe)
{
	for (size_t i = 0; i < r->nprobes; i++)
		if (streq(r->probes[i].name, probe))
			return &r->probes[i];
	return NULL;
}

/* The run's findings under the result of their probe, each with its evidence
 * ids; a finding of a probe with no result judges nothing and is left out. */
static int
load_findings(struct db *db, struct probe_run *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, probe, code, severity, message FROM finding "
	    "WHERE run_id = ? ORDER BY id", "i", r->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct probe_result *p = result_of(r, col_text(st, 1));

		if (p == NULL)
			continue;
		p->findings = xrealloc(p->findings, (p->nfindings + 1) * sizeof *p->findings);
		p->findings[p->nfindings++] = (struct finding){ .id = db_col_int64(st, 0),
		    .code = xstrdup(col_text(st, 2)), .severity = xstrdup(col_text(st, 3)),
		    .message = xstrdup(col_text(st, 4)) };
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "claims evidence");
	st = db_prepare(db, err, "SELECT fe.finding_id, fe.evidence_id FROM finding_evidence fe JOIN "
	    "finding f ON f.id = fe.finding_id WHERE f.run_id = ? ORDER BY fe.finding_id, fe.evidence_id",
	    "i", r->id);
	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW)
		for (size_t i = 0; i < r->nprobes; i++)
			for (size_t k = 0; k < r->probes[i].nfindings; k++) {
				struct finding *f = &r->probes[i].findings[k];

				if (f->id != db_col_int64(st, 0))
					continue;
				f->evidence = xrealloc(f->evidence, (f->nevidence + 1) * sizeof *f->evidence);
				f->evidence[f->nevidence++] = db_col_int64(st, 1);
			}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "claims evidence");
}

int
claims_evidence_load(struct db *db, int64_t vendor_id, struct claim_evidence *ev, struct aerr *err)
{
	struct db_stmt *st;
	int rc;

	memset(ev, 0, sizeof *ev);
	if (load_endpoints(db, vendor_id, ev, err) != 0)
		goto fail;
	st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.status, r.plan "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.vendor_id = ? AND r.status = 'completed' "
	    "ORDER BY coalesce(r.finished_at, r.started_at), r.id", "i", vendor_id);
	if (st == NULL)
		goto fail;
	while ((rc = db_step(st)) == DB_ROW) {
		struct probe_run *r;

		ev->runs.items = xrealloc(ev->runs.items, (ev->runs.n + 1) * sizeof *ev->runs.items);
		r = &ev->runs.items[ev->runs.n++];
		*r = (struct probe_run){ .id = db_col_int64(st, 0), .endpoint = xstrdup(col_text(st, 1)),
		    .status = xstrdup(col_text(st, 2)), .plan = parsed_or_null(st, 3) };
		r->depth = claims_plan_depth(r->plan);
	}
	db_finalize(st);
	if (rc != DB_DONE) {
		db_err(db, err, "claims evidence");
		goto fail;
	}
	for (size_t i = 0; i < ev->runs.n; i++)
		if (load_results(db, &ev->runs.items[i], err) != 0 ||
		    load_findings(db, &ev->runs.items[i], err) != 0)
			goto fail;
	return 0;
fail:
	claim_evidence_free(ev);
	return AV_RUNTIME;
}

char *
claims_plan_depth(const cJSON *plan)
{
	struct run_plan p;
	char *depth;

	if (plan == NULL)
		return NULL;
	run_plan_read(plan, &p);
	depth = p.depth != NULL ? xstrdup(p.depth) : NULL;
	run_plan_free(&p);
	return depth;
}

void
claim_evidence_free(struct claim_evidence *ev)
{
	probe_run_list_free(&ev->runs);
	for (size_t i = 0; i < ev->nendpoints; i++)
		free(ev->endpoints[i].name);
	free(ev->endpoints);
	memset(ev, 0, sizeof *ev);
}

/* ---- judging ---- */

/* The newest completed result of each probe on one endpoint, with its run. */
struct latest {
	const struct probe_result *result[16];
	const struct probe_run *run[16];
	const char *probe[16];
	int n;
};

static void
latest_collect(const struct probe_run_list *runs, const char *endpoint, struct latest *l)
{
	memset(l, 0, sizeof *l);
	for (size_t i = 0; runs != NULL && i < runs->n; i++) {
		const struct probe_run *run = &runs->items[i];

		if (!streq(run->status, "completed") || !streq(run->endpoint, endpoint))
			continue;
		for (size_t j = 0; j < run->nprobes; j++) {
			const char *p = run->probes[j].name;
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
			l->result[k] = &run->probes[j];
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
 * Whether a finding of probe in run i is open: its run completed and holds
 * the newest completed result of the finding's probe on its endpoint. When it
 * is not, *by is the run whose result replaced it (0 when none did).
 */
int
claims_finding_open(const struct probe_run_list *runs, size_t i, const char *probe, int64_t *by)
{
	const struct probe_run *run = &runs->items[i];
	struct latest l;
	int k;

	*by = 0;
	latest_collect(runs, run->endpoint, &l);
	k = latest_find(&l, probe);
	if (k < 0)
		return 0;
	if (l.run[k] == run && streq(run->status, "completed"))
		return 1;
	*by = l.run[k]->id;
	return 0;
}

/* The findings of a run in the order they were raised (by id), across its
 * results, each with its probe; the caller frees the array. */
struct raised {
	const struct finding *f;
	const char *probe;
};

static struct raised *
raised_in_order(const struct probe_run *run, size_t *n)
{
	struct raised *v = NULL, t;

	*n = 0;
	for (size_t j = 0; j < run->nprobes; j++)
		for (size_t k = 0; k < run->probes[j].nfindings; k++) {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = (struct raised){ &run->probes[j].findings[k], run->probes[j].name };
		}
	for (size_t a = 1; a < *n; a++)   /* insertion sort: stable, and runs raise few findings */
		for (size_t b = a; b > 0 && v[b - 1].f->id > v[b].f->id; b--)
			t = v[b], v[b] = v[b - 1], v[b - 1] = t;
	return v;
}

int
claims_open_findings(const struct probe_run_list *runs, char *code, size_t code_len, int *probed)
{
	int worst = -1;
	int64_t by;

	*probed = 0;
	if (code_len > 0)
		code[0] = '\0';
	for (size_t i = 0; runs != NULL && i < runs->n; i++) {
		const struct probe_run *run = &runs->items[i];
		struct raised *v;
		size_t n;

		if (!streq(run->status, "completed") || run->endpoint == NULL)
			continue;
		*probed = 1;
		v = raised_in_order(run, &n);
		for (size_t k = 0; k < n; k++) {
			int r = severity_rank(v[k].f->severity);

			if (r <= worst || !claims_finding_open(runs, i, v[k].probe, &by))
				continue;
			worst = r;
			snprintf(code, code_len, "%s", v[k].f->code ? v[k].f->code : "");
		}
		free(v);
	}
	return worst;
}

void
claims_open_counts(const struct probe_run_list *runs, int counts[SEV_COUNT])
{
	int64_t by;

	memset(counts, 0, sizeof(int) * SEV_COUNT);
	for (size_t i = 0; runs != NULL && i < runs->n; i++)
		for (size_t j = 0; j < runs->items[i].nprobes; j++) {
			const struct probe_result *p = &runs->items[i].probes[j];

			for (size_t k = 0; k < p->nfindings; k++) {
				int r = severity_rank(p->findings[k].severity);

				if (r >= 0 && claims_finding_open(runs, i, p->name, &by))
					counts[r]++;
			}
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
pass_scope(const char *probe, const struct probe_run *run)
{
	const char *depth = run->depth;

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
	if (qq->nchecks > 0 || qq->measure.probe != NULL || cJSON_GetArraySize(qq->contradicted_by) > 0 ||
	    qq->engine_fact != NULL)
		return 1;
	for (int i = 0; i < F_COUNT; i++)
		if (finding_contradicts(finding_info((enum finding_code)i), qq->id))
			return 1;
	return 0;
}

/* One claim being judged: the question, the answer, the endpoint's newest
 * results, and what the judging found so far. */
struct judging {
	const struct q_question *qq;
	const cJSON *answer;
	const struct claim_endpoint *ep;   /* NULL: the vendor has none */
	const char *endpoint;              /* its name, "" for none */
	int tenants;
	struct latest l;
	const char *scope;                 /* why a pass does not confirm, or NULL */
	int all_pass, mres;
	double mv, macc, ec, erun;
	double lost;                       /* the smallest accepted size whose content was lost; -1 */
	struct buf why;
	struct claim *c;
};

/* Whether the claim is a number a probe or the engine measures: then the
 * number decides, and a finding disproves it only where the figure it stands
 * on is below the answer (a pool of 681,280 under an advertised 1,048,576 is
 * a finding, and an answer of 681,280 is true of it). */
static int
number_short(const struct judging *j)
{
	double floor = j->answer->valuedouble * (1 - j->qq->measure.tolerance);

	return (j->mres == 1 && j->mv < floor) || (j->ec >= 0 && j->ec < floor) ||
	    (j->lost >= 0 && j->lost < floor);
}

/* The smallest size the measuring probe sent that was accepted and came back
 * without all its content (its nonces counted, not all echoed); -1: none. */
static double
smallest_lost(const struct q_measure *m, const struct latest *l)
{
	int k = latest_find(l, m->probe);
	double lost = -1;

	for (size_t i = 0; k >= 0 && i < l->result[k]->npoints; i++) {
		const struct size_point *pt = &l->result[k]->points[i];

		if (pt->has_accepted && pt->accepted && pt->has_tokens_sent && pt->has_nonces_echoed &&
		    pt->has_nonces_total && pt->nonces_echoed < pt->nonces_total &&
		    (lost < 0 || pt->tokens_sent < lost))
			lost = pt->tokens_sent;
	}
	return lost;
}

static int
numeric(const struct judging *j)
{
	return j->qq->measure.probe != NULL && cJSON_IsNumber(j->answer);
}

/* Findings in the judged results that disprove the answer: for a number, only
 * when the measured figure falls short of it. */
static void
add_contradicting(struct judging *j)
{
	if (numeric(j) && !number_short(j))
		return;
	for (int k = 0; k < j->l.n; k++)
		for (size_t i = 0; i < j->l.result[k]->nfindings; i++) {
			const struct finding *f = &j->l.result[k]->findings[i];
			struct claim_contra *x;

			if (!code_contradicts(j->qq, f->code))
				continue;
			j->c->contradicting = xrealloc(j->c->contradicting, (j->c->ncontradicting + 1) *
			    sizeof *j->c->contradicting);
			x = &j->c->contradicting[j->c->ncontradicting++];
			*x = (struct claim_contra){ .code = xstrdup(f->code ? f->code : ""), .finding_id = f->id,
			    .run_id = j->l.run[k]->id, .probe = xstrdup(j->l.probe[k]),
			    .message = f->message ? xstrdup(f->message) : NULL, .nevidence = f->nevidence,
			    .evidence = f->nevidence ? xmalloc(f->nevidence * sizeof *x->evidence) : NULL };
			if (f->nevidence)
				memcpy(x->evidence, f->evidence, f->nevidence * sizeof *x->evidence);
		}
}

/*
 * The measurement a number is compared with, from the probe's newest result:
 * 1 with *v set when measured; 0 when the probe found no limit up to *v (the
 * largest size it sent whose content came back intact); -1 when there is
 * nothing to compare. *accepted: the largest size accepted at all, intact or
 * not. The result's details are the probe's own document, read by the engine
 * (probe_result_details_read): its scalar members and the sizes it sent.
 */
static int
measured(const struct q_measure *m, const struct latest *l, double *v, double *accepted)
{
	int k = latest_find(l, m->probe);
	const struct probe_result *p;
	const cJSON *x;
	double top = -1;

	*accepted = -1;

	if (k < 0 || (!streq(l->result[k]->verdict, "pass") && !streq(l->result[k]->verdict, "fail")))
		return -1;
	p = l->result[k];
	x = doc_scalar_find(p->scalars, p->nscalars, m->value);
	if (cJSON_IsNumber(x)) {
		*v = x->valuedouble;
		return 1;
	}
	/* No boundary: the probe saw none up to the largest prompt it had accepted
	 * (for refusals, whatever happened to the content; for integrity, with none lost). */
	x = doc_scalar_find(p->scalars, p->nscalars, "change");
	if (!streq(cJSON_GetStringValue(x), "none") && !(streq(m->value, "refusal_boundary") &&
	    !streq(cJSON_GetStringValue(x), "visible_refusal")))
		return -1;
	for (size_t i = 0; i < p->npoints; i++) {
		const struct size_point *pt = &p->points[i];
		/* Content intact: every nonce came back (a point that does not count them says nothing). */
		int intact = pt->has_nonces_echoed && pt->has_nonces_total && pt->nonces_echoed >= pt->nonces_total;

		if (!(pt->has_accepted && pt->accepted) || !pt->has_tokens_sent)
			continue;
		if (pt->tokens_sent > *accepted)
			*accepted = pt->tokens_sent;
		if (intact && pt->tokens_sent > top)
			top = pt->tokens_sent;
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

	if (k < 0 || !streq(qq->measure.probe, "sweep"))
		return -1;
	*run_id = (double)l->run[k]->id;
	return l->result[k]->has_capacity ? l->result[k]->capacity_tokens : -1;
}

/* The endpoint's own record of what a number claims, when the number is one it
 * records: the advertised context (the largest prompt the sweep sees accepted). */
static void
record_compare(struct judging *j)
{
	const struct q_question *qq = j->qq;
	double rec = j->ep != NULL ? (double)j->ep->context : 0;

	if (qq->measure.probe == NULL || !streq(qq->measure.value, "refusal_boundary") ||
	    !cJSON_IsNumber(j->answer) || j->ep == NULL || rec <= 0)
		return;
	j->c->has_endpoint_record = 1;
	j->c->endpoint_record = rec;
	j->c->record_mismatch = rec != j->answer->valuedouble;
	if (rec != j->answer->valuedouble)
		buf_printf(&j->why, "%sthe vendor states %.0f, the endpoint's record says %.0f",
		    j->why.len ? "; " : "", j->answer->valuedouble, rec);
}

/* The claim's measure: what its probe measured (mv), up to where prompts were
 * accepted (macc) and the engine's own figure (ec, from run erun; -1 when none);
 * mres is measured()'s result, -1 when the question measures nothing. */
static void
add_measure(struct judging *j)
{
	const struct q_question *qq = j->qq;
	struct claim_measure *m;

	j->ec = -1;
	j->mres = -1;
	j->macc = -1;
	j->lost = -1;
	if (qq->measure.probe == NULL)
		return;
	j->lost = smallest_lost(&qq->measure, &j->l);
	m = j->c->measure = xcalloc(1, sizeof *m);
	m->probe = xstrdup(qq->measure.probe);
	m->value = xstrdup(qq->measure.value);
	j->mres = measured(&qq->measure, &j->l, &j->mv, &j->macc);
	m->has_measured = j->mres >= 0;
	m->measured = j->mres >= 0 ? j->mv : 0;
	m->has_accepted_up_to = j->macc >= 0;
	m->accepted_up_to = j->macc >= 0 ? j->macc : 0;
	m->limit_found = j->mres == 1;
	m->tolerance = qq->measure.tolerance;
	if ((j->ec = engine_capacity(qq, &j->l, &j->erun)) >= 0) {
		m->has_engine_capacity = 1;
		m->engine_capacity = j->ec;
	}
}

/* Each probe that tests the claim and its newest result on the endpoint;
 * the first that does not confirm says why. */
static void
add_probes(struct judging *j)
{
	const struct q_question *qq = j->qq;

	j->all_pass = qq->nchecks > 0;
	j->c->probes = qq->nchecks ? xcalloc((size_t)qq->nchecks, sizeof *j->c->probes) : NULL;
	for (int i = 0; i < qq->nchecks; i++) {
		const struct q_check *ck = &qq->checks[i];
		int k = latest_find(&j->l, ck->probe);
		const char *verdict = k >= 0 ? j->l.result[k]->verdict : NULL;

		j->c->probes[j->c->nprobes++] = (struct claim_probe){ .probe = xstrdup(ck->probe),
		    .run_id = k >= 0 ? j->l.run[k]->id : 0, .verdict = probe_verdict_of(verdict) };
		if (streq(verdict, "pass") && j->tenants >= ck->tenants) {
			if (j->scope == NULL)
				j->scope = pass_scope(ck->probe, j->l.run[k]);
			continue;
		}
		j->all_pass = 0;
		if (j->why.len > 0)
			continue;
		if (k < 0)
			buf_printf(&j->why, "probe %s has no completed run on %s", ck->probe, j->endpoint);
		else if (streq(verdict, "pass"))
			buf_printf(&j->why, "probe %s passed with %d credential%s; a pass confirms this only "
			    "with %d or more", ck->probe, j->tenants, j->tenants == 1 ? "" : "s", ck->tenants);
		else
			buf_printf(&j->why, "probe %s ended %s in run %lld%s%s", ck->probe, verdict,
			    (long long)j->l.run[k]->id, j->l.result[k]->reason ? ": " : "",
			    j->l.result[k]->reason ? j->l.result[k]->reason : "");
	}
}

/* Says why (text, which it frees), replacing what was said; returns status. */
static enum claim_status
because(struct judging *j, enum claim_status status, char *text)
{
	buf_free(&j->why);
	buf_adds(&j->why, text);
	free(text);
	return status;
}

/* The status of an answer that admits the weaker behaviour, or of a finding
 * or measurement that disproves the claim; CLAIM_NONE when neither decides. */
static enum claim_status
status_disproved(struct judging *j, int claim)
{
	const struct claim *c = j->c;
	double a = j->answer->valuedouble, floor = a * (1 - j->qq->measure.tolerance);

	if (!claim && c->ncontradicting > 0)
		return because(j, CLAIM_CONFIRMED, xasprintf("the answer admits it, and %s shows it",
		    c->contradicting[0].code));
	if (!claim)
		return because(j, CLAIM_UNTESTED, xstrdup("the answer admits the weaker behaviour: probes "
		    "can show it, never rule it out"));
	if (c->ncontradicting > 0 && !numeric(j)) {
		because(j, CLAIM_CONTRADICTED, xasprintf("%s in run %lld (%s)", c->contradicting[0].code,
		    (long long)c->contradicting[0].run_id, c->contradicting[0].probe));
		if (c->ncontradicting > 1)
			buf_printf(&j->why, " and %zu more finding%s", c->ncontradicting - 1,
			    c->ncontradicting == 2 ? "" : "s");
		return CLAIM_CONTRADICTED;
	}
	if (j->mres == 1 && j->mv < floor)
		return because(j, CLAIM_CONTRADICTED, xasprintf("%s measured %.0f, under the answered %.0f",
		    j->qq->measure.value, j->mv, a));
	/* The engine says of itself that one request holds less than the answer. */
	if (j->ec >= 0 && j->ec < floor)
		return because(j, CLAIM_CONTRADICTED, xasprintf("the engine's own status in run %.0f: one "
		    "request holds at most %.0f tokens, under the answered %.0f", j->erun, j->ec, a));
	if (j->lost >= 0 && j->lost < floor)
		return because(j, CLAIM_CONTRADICTED, xasprintf("probe %s lost content at %.0f tokens, under "
		    "the answered %.0f", j->qq->measure.probe, j->lost, a));
	return CLAIM_NONE;
}

/* The status once nothing disproves the claim: confirmed only on evidence
 * that covers it. */
static enum claim_status
status_supported(struct judging *j)
{
	const struct q_question *qq = j->qq;
	const char *probe = qq->measure.probe;
	double a = j->answer->valuedouble, floor = a * (1 - qq->measure.tolerance);

	if (j->ec >= 0 && j->mres < 0)
		return because(j, CLAIM_CONFIRMED, xasprintf("the engine's own status in run %.0f: every node "
		    "holds %.0f tokens in one request, and no finding contradicts it", j->erun, j->ec));
	if (probe != NULL && j->mres < 0 && j->lost >= 0)
		return because(j, CLAIM_UNTESTED, xasprintf("probe %s first lost content at %.0f tokens, not "
		    "below the answered %.0f (within %g%%), and measured no %s: the evidence neither "
		    "confirms nor disproves it", probe, j->lost, a, qq->measure.tolerance * 100,
		    qq->measure.value));
	if (probe != NULL && j->mres < 0) {
		if (j->why.len == 0)
			buf_printf(&j->why, "probe %s measured no %s on %s", probe, qq->measure.value,
			    j->endpoint);
		return CLAIM_UNTESTED;
	}
	/* Accepted is not intact: only content intact up to the number confirms it. */
	if (probe != NULL && j->mres == 0 && j->mv < floor && j->macc >= floor)
		return because(j, CLAIM_CONSISTENT, xasprintf("probe %s saw prompts up to %.0f tokens "
		    "accepted, but content intact only up to %.0f: consistent with the answered %.0f, "
		    "not confirmed", probe, j->macc, j->mv, a));
	if (probe != NULL && j->mres == 0 && j->mv < floor)
		return because(j, CLAIM_UNTESTED, xasprintf("probe %s found content intact up to %.0f tokens, "
		    "below the answered %.0f", probe, j->mv, a));
	if (qq->nchecks == 0 && probe == NULL)
		return because(j, CLAIM_UNTESTED, xstrdup("no probe can confirm this answer; none of the "
		    "findings that would contradict it was raised"));
	if (qq->nchecks > 0 && !j->all_pass)
		return CLAIM_UNTESTED;
	if (j->scope != NULL)
		return because(j, CLAIM_CONSISTENT, xstrdup(j->scope));
	/* "Always" is a claim about every request: a sample agrees with it, never proves it. */
	if (qq->every_request)
		return because(j, CLAIM_CONSISTENT, xasprintf("every probe that tests it passed on the "
		    "requests it sent; the answer is about every request, which a sample is consistent with but "
		    "never confirms"));
	buf_free(&j->why);
	if (probe != NULL)
		buf_printf(&j->why, "%s %s %.0f", qq->measure.value, j->mres == 1 ? "measured" :
		    "intact up to at least", j->mv);
	for (int i = 0; i < qq->nchecks; i++)
		buf_printf(&j->why, "%sprobe %s passed", j->why.len ? "; " : "", qq->checks[i].probe);
	buf_adds(&j->why, ", and no finding contradicts it");
	return CLAIM_CONFIRMED;
}

/* A node's role as the engine reports it, or NULL when it reports none. */
static const char *
node_role(const struct engine_node_status *n)
{
	return n->read && n->mode != NULL && (streq(n->mode, "prefill") || streq(n->mode, "decode")) ?
	    n->mode : NULL;
}

/* An answer an engine fact bears on ("disaggregation": whether prefill and
 * decode run on separate nodes), judged on the nodes the newest engine
 * result read; CLAIM_NONE when the engine probe has no result to judge by. A role
 * a node reports proves it; no node reporting one is only consistent with
 * "no" (not every engine reports roles). */
static enum claim_status
status_engine_fact(struct judging *j)
{
	int k = latest_find(&j->l, "engine"), yes = streq(cJSON_GetStringValue(j->answer), "yes");
	const struct probe_result *p;
	const char *role = NULL;
	size_t read = 0, at = 0;

	if (k < 0 || !(streq(j->l.result[k]->verdict, "pass") || streq(j->l.result[k]->verdict, "fail")))
		return CLAIM_NONE;
	p = j->l.result[k];
	for (size_t i = 0; i < p->nnodes; i++) {
		read += p->nodes[i].read;
		if (role == NULL && (role = node_role(&p->nodes[i])) != NULL)
			at = i;
	}
	if (role != NULL)
		return because(j, yes ? CLAIM_CONFIRMED : CLAIM_CONTRADICTED, xasprintf("the engine's own "
		    "status in run %lld: node %s serves as %s", (long long)j->l.run[k]->id, p->nodes[at].url, role));
	if (read == 0)
		return CLAIM_NONE;
	return because(j, yes ? CLAIM_UNTESTED : CLAIM_CONSISTENT, xasprintf("no node of the %zu the engine "
	    "probe read in run %lld reports a prefill or decode role; not every engine reports one",
	    read, (long long)j->l.run[k]->id));
}

/* One answered, testable question judged on one endpoint (or none). */
static void
judge_one(const struct q_question *qq, const cJSON *answer, const struct probe_run_list *runs,
    const struct claim_endpoint *ep, struct claim *c)
{
	struct judging j = { .qq = qq, .answer = answer, .ep = ep, .c = c,
	    .endpoint = ep != NULL ? ep->name : "", .tenants = ep != NULL ? ep->tenants : 0 };
	enum claim_status status;

	memset(c, 0, sizeof *c);
	buf_init(&j.why);
	latest_collect(runs, ep != NULL ? ep->name : NULL, &j.l);
	c->question_id = xstrdup(qq->id);
	c->question = qq->text ? xstrdup(qq->text) : NULL;
	c->answer = cJSON_Duplicate(answer, 1);
	c->endpoint = ep != NULL && *ep->name ? xstrdup(ep->name) : NULL;
	add_probes(&j);
	add_measure(&j);
	add_contradicting(&j);
	status = qq->engine_fact != NULL ? status_engine_fact(&j) : CLAIM_NONE;
	if (status == CLAIM_NONE && qq->engine_fact != NULL)
		status = because(&j, CLAIM_UNTESTED, xasprintf("the engine probe has no judged result on %s",
		    j.endpoint));
	if (status == CLAIM_NONE)
		status = status_disproved(&j, is_claim(qq, answer));
	if (status == CLAIM_NONE)
		status = status_supported(&j);
	record_compare(&j);
	c->status = status;
	c->reason = xstrdup(j.why.len ? j.why.data : "");
	buf_free(&j.why);
}

void
claims_judge(const struct questionnaire *q, const cJSON *const *values, const struct claim_evidence *ev,
    struct claim_list *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < q->nquestions; i++) {
		const struct q_question *qq = &q->questions[i];
		const cJSON *answer = values[i];
		size_t n = ev != NULL && ev->nendpoints > 0 ? ev->nendpoints : 1;

		if (answer == NULL || cJSON_IsNull(answer) || !testable(qq))
			continue;
		out->items = xrealloc(out->items, (out->n + n) * sizeof *out->items);
		if (ev == NULL || ev->nendpoints == 0) {
			struct claim *c = &out->items[out->n++];

			judge_one(qq, answer, NULL, NULL, c);
			free(c->reason);
			c->status = CLAIM_UNTESTED;
			c->reason = xstrdup("the vendor has no endpoint to probe");
			continue;
		}
		for (size_t e = 0; e < ev->nendpoints; e++)
			judge_one(qq, answer, &ev->runs, &ev->endpoints[e], &out->items[out->n++]);
	}
}

void
claim_list_free(struct claim_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct claim *c = &l->items[i];

		free(c->question_id), free(c->question), free(c->endpoint), free(c->reason);
		cJSON_Delete(c->answer);
		for (size_t k = 0; k < c->nprobes; k++)
			free(c->probes[k].probe);
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

/* The statuses' words, in the order of enum claim_status. */
static const char *const claim_status_names[CLAIM_STATUS_COUNT] = {
	"confirmed", "contradicted", "untested", "consistent"
};

const char *
claim_status_name(enum claim_status s)
{
	return s >= 0 && s < CLAIM_STATUS_COUNT ? claim_status_names[s] : NULL;
}

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
		json_add_str(p, "verdict", k->probes[i].run_id != 0 ? probe_verdict_name(k->probes[i].verdict) :
		    NULL);
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
	cJSON_AddStringToObject(c, "status", claim_status_name(k->status));
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
