/*
 * probe-read.c: probe runs read back from the database as the JSON that
 * "probe show" prints. Part of the probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"
#include "probe-engine.h"

/* ---- reading runs back ---- */

/* "billed": what the vendor's usage says it billed, and in USD at the prices the
 * plan was made at (no cost without them): the figure "probe show" and the TUI give. */
static void
read_billed(struct probe_run *r)
{
	const cJSON *b = cJSON_GetObjectItem(r->plan, "billed");
	const cJSON *pin = cJSON_GetObjectItem(r->plan, "price_in_per_mtok");
	const cJSON *pout = cJSON_GetObjectItem(r->plan, "price_out_per_mtok");

	if (!cJSON_IsObject(b))
		return;
	r->has_billed = 1;
	r->billed.tokens_in = cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_in"));
	r->billed.tokens_out = cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_out"));
	r->billed.has_cost_usd = cJSON_IsNumber(pin);
	if (r->billed.has_cost_usd)
		r->billed.cost_usd = r->billed.tokens_in / 1e6 * pin->valuedouble +
		    (cJSON_IsNumber(pout) ? r->billed.tokens_out / 1e6 * pout->valuedouble : 0);
}

/* The scalar members of a document, in its order (arrays and objects left out). */
static void
read_scalars(const cJSON *doc, struct doc_scalar **out, size_t *n)
{
	const cJSON *m;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsObject(doc))
		return;
	*out = xcalloc((size_t)cJSON_GetArraySize(doc) + 1, sizeof **out);
	cJSON_ArrayForEach(m, doc) {
		if (cJSON_IsArray(m) || cJSON_IsObject(m))
			continue;
		(*out)[*n].name = xstrdup(m->string);
		(*out)[(*n)++].value = cJSON_Duplicate(m, 0);
	}
}

const cJSON *
doc_scalar_find(const struct doc_scalar *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return s[i].value;
	return NULL;
}

static void
scalars_free(struct doc_scalar *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].name);
		cJSON_Delete(s[i].value);
	}
	free(s);
}

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* A number member: *has set when it is one; 0 otherwise. */
static double
num_of(const cJSON *o, const char *k, int *has)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	*has = cJSON_IsNumber(v);
	return *has ? v->valuedouble : 0;
}

/* The members of an array, counted for an array of n records (+1: never NULL). */
static void *
alloc_for(const cJSON *arr, size_t size)
{
	return xcalloc((size_t)cJSON_GetArraySize(arr) + 1, size);
}

/* The calibration's samples: each as recorded, and the filler words of each
 * that has a positive number of them. */
static void
read_samples(const cJSON *samples, struct run_calibration *c)
{
	const cJSON *s;

	if (!cJSON_IsArray(samples))
		return;
	c->samples = alloc_for(samples, sizeof *c->samples);
	c->sample_units = alloc_for(samples, sizeof *c->sample_units);
	cJSON_ArrayForEach(s, samples) {
		struct cal_sample *x = &c->samples[c->nsamples++];
		int has;

		x->units = num_of(s, "units", &x->has_units);
		x->tokens = num_of(s, "tokens", &x->has_tokens);
		x->evidence = (int64_t)num_of(s, "evidence", &has);
		if (x->has_units && x->units > 0)
			c->sample_units[c->nunits++] = x->units;
	}
}

/* The counts the calibration rejected, and any member it does not read above. */
static void
read_rejected_others(const cJSON *cal, struct run_calibration *c)
{
	static const char *const known[] = { "method", "tokens_per_unit", "overhead_tokens", "bounds",
		"samples", "rejected", "unit", NULL };
	const cJSON *rej = cJSON_GetObjectItem(cal, "rejected"), *x;

	if ((c->has_rejected = cJSON_IsArray(rej))) {
		c->rejected = alloc_for(rej, sizeof *c->rejected);
		cJSON_ArrayForEach(x, rej) {
			c->rejected[c->nrejected].method = dup_or_null(json_get_str(x, "method"));
			c->rejected[c->nrejected++].reason = dup_or_null(json_get_str(x, "reason"));
		}
	}
	c->others = alloc_for(cal, sizeof *c->others);
	cJSON_ArrayForEach(x, cal) {
		size_t k;

		for (k = 0; known[k] != NULL && strcmp(known[k], x->string) != 0; k++)
			;
		if (known[k] != NULL)
			continue;
		c->others[c->nothers].name = xstrdup(x->string);
		c->others[c->nothers++].value = cJSON_Duplicate(x, 1);
	}
}

void
run_calibration_read(const cJSON *cal, struct run_calibration *c)
{
	const cJSON *bounds = cJSON_GetObjectItem(cal, "bounds");
	const cJSON *tpu = cJSON_GetObjectItem(cal, "tokens_per_unit");
	const cJSON *ovh = cJSON_GetObjectItem(cal, "overhead_tokens");

	memset(c, 0, sizeof *c);
	c->present = cJSON_IsObject(cal);
	if (!c->present)
		return;
	c->method = dup_or_null(json_get_str(cal, "method"));
	c->unit = dup_or_null(json_get_str(cal, "unit"));
	c->has_bounds = cJSON_GetArraySize(bounds) == 2;
	for (int i = 0; c->has_bounds && i < 2; i++)
		c->bounds[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(bounds, i));
	c->has_tokens_per_unit = tpu != NULL;
	c->tokens_per_unit = cJSON_GetNumberValue(tpu);
	c->has_overhead = ovh != NULL;
	c->overhead_tokens = cJSON_GetNumberValue(ovh);
	read_scalars(cal, &c->scalars, &c->nscalars);
	read_samples(cJSON_GetObjectItem(cal, "samples"), c);
	read_rejected_others(cal, c);
}

void
run_calibration_free(struct run_calibration *c)
{
	free(c->method);
	free(c->unit);
	free(c->samples);
	for (size_t i = 0; i < c->nrejected; i++) {
		free(c->rejected[i].method);
		free(c->rejected[i].reason);
	}
	free(c->rejected);
	scalars_free(c->scalars, c->nscalars);
	scalars_free(c->others, c->nothers);
	free(c->sample_units);
	memset(c, 0, sizeof *c);
}

/* The sizes a probe sent, from its details' "points". */
static void
read_points(struct probe_result *p)
{
	const cJSON *points = cJSON_GetObjectItem(p->details, "points"), *x;

	if (!cJSON_IsArray(points))
		return;
	p->points = alloc_for(points, sizeof *p->points);
	cJSON_ArrayForEach(x, points) {
		struct size_point *sp = &p->points[p->npoints++];
		const cJSON *acc = cJSON_GetObjectItem(x, "accepted");

		sp->tokens_sent = num_of(x, "tokens_sent", &sp->has_tokens_sent);
		if (!sp->has_tokens_sent)
			sp->tokens_sent = NAN;
		sp->status = num_of(x, "status", &sp->has_status);
		sp->nonces_echoed = num_of(x, "nonces_echoed", &sp->has_nonces_echoed);
		sp->nonces_total = num_of(x, "nonces_total", &sp->has_nonces_total);
		sp->usage_prompt_tokens = num_of(x, "usage_prompt_tokens", &sp->has_usage);
		sp->evidence = (int64_t)num_of(x, "evidence", &sp->has_evidence);
		sp->has_accepted = cJSON_IsBool(acc);
		sp->accepted = cJSON_IsTrue(acc);
		sp->stream = cJSON_IsTrue(cJSON_GetObjectItem(x, "stream"));
	}
}

static void
timing_group_read(const cJSON *g, struct timing_group *t)
{
	const cJSON *v, *ms = cJSON_GetObjectItem(g, "ttft_ms");

	t->ttft_ms = alloc_for(ms, sizeof *t->ttft_ms);
	cJSON_ArrayForEach(v, ms)
		if (cJSON_IsNumber(v))
			t->ttft_ms[t->n++] = v->valuedouble;
	t->median_ms = num_of(g, "median_ms", &t->has_median);
}

/* Prefix timing's groups and tests from its details. */
static void
read_timing(struct probe_result *p)
{
	const cJSON *d = p->details, *groups = cJSON_GetObjectItem(d, "groups");
	const cJSON *x = cJSON_GetObjectItem(d, "cross_tenant");
	struct prefix_timing *t = &p->timing;
	int has;

	if (strcmp(p->name, "prefix-timing") != 0 || !cJSON_IsObject(d))
		return;
	t->present = 1;
	timing_group_read(cJSON_GetObjectItem(groups, "primed"), &t->primed);
	timing_group_read(cJSON_GetObjectItem(groups, "control"), &t->control);
	const cJSON *pr = cJSON_GetObjectItem(d, "paired");

	/* Runs since the paired design decide on its test; Cliff's delta stays the groups'. */
	t->paired = cJSON_IsObject(pr);
	t->has_test = cJSON_IsObject(x) || t->paired;
	t->p = cJSON_GetNumberValue(cJSON_GetObjectItem(t->paired ? pr : x, "p"));
	t->cliffs_delta = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "cliffs_delta"));
	t->alpha_per_look = num_of(d, "alpha_per_look", &t->has_alpha_per_look);
	t->alpha = cJSON_GetNumberValue(cJSON_GetObjectItem(d, "alpha"));
	t->median_saving_ms = cJSON_GetNumberValue(cJSON_GetObjectItem(d, "median_saving_ms"));
	t->trials = (int64_t)num_of(d, "trials", &has);
}

static int64_t num_or_none(const cJSON *o, const char *k);

/* The canary's leaks from its details. */
static void
read_leaks(struct probe_result *p)
{
	const cJSON *leaks = cJSON_GetObjectItem(p->details, "leaks"), *l;

	if (strcmp(p->name, "canary") != 0 || !cJSON_IsArray(leaks))
		return;
	p->leaks = xcalloc((size_t)cJSON_GetArraySize(leaks) + 1, sizeof *p->leaks);
	cJSON_ArrayForEach(l, leaks) {
		struct canary_leak *k = &p->leaks[p->nleaks++];

		k->owner_tenant = dup_or_null(cJSON_GetStringValue(cJSON_GetObjectItem(l, "owner_tenant")));
		k->found_by = dup_or_null(cJSON_GetStringValue(cJSON_GetObjectItem(l, "found_by")));
		k->other_tenant = cJSON_IsTrue(cJSON_GetObjectItem(l, "other_tenant"));
		k->found_in = num_or_none(l, "found_in") > 0 ? num_or_none(l, "found_in") : 0;
	}
}

static int64_t
num_or_none(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

/* The engine probe's nodes from its details. */
static void
read_nodes(struct probe_result *p)
{
	const cJSON *nodes = cJSON_GetObjectItem(p->details, "nodes"), *n;

	if (strcmp(p->name, "engine") != 0 || !cJSON_IsArray(nodes))
		return;
	p->nodes = xcalloc((size_t)cJSON_GetArraySize(nodes) + 1, sizeof *p->nodes);
	cJSON_ArrayForEach(n, nodes) {
		struct engine_node_status *e = &p->nodes[p->nnodes++];

		e->url = dup_or_null(json_get_str(n, "url"));
		e->read = json_get_str(n, "verdict") != NULL && strcmp(json_get_str(n, "verdict"), "read") == 0;
		e->pool = num_or_none(n, "pool_tokens");
		e->context = num_or_none(n, "context_tokens");
		e->max_total = num_or_none(n, "max_total_tokens");
		e->version = dup_or_null(json_get_str(n, "version"));
		e->mode = dup_or_null(json_get_str(n, "mode"));
		e->said = (cJSON_HasObjectItem(n, "version") ? NODE_SAID_VERSION : 0) |
		    (cJSON_HasObjectItem(n, "pool_tokens") ? NODE_SAID_POOL : 0) |
		    (cJSON_HasObjectItem(n, "context_tokens") ? NODE_SAID_CONTEXT : 0) |
		    (cJSON_HasObjectItem(n, "max_total_tokens") ? NODE_SAID_MAX_TOTAL : 0) |
		    (cJSON_HasObjectItem(n, "mode") ? NODE_SAID_MODE : 0);
	}
}

/* The sweep's boundaries from its details. */
static void
read_sweep(struct probe_result *p)
{
	const cJSON *d = p->details;

	if (strcmp(p->name, "sweep") != 0 || !cJSON_IsObject(d))
		return;
	p->sweep.present = 1;
	p->sweep.advertised = num_of(d, "advertised", &p->sweep.has_advertised);
	p->sweep.integrity_boundary = num_of(d, "integrity_boundary", &p->sweep.has_integrity_boundary);
	p->sweep.refusal_boundary = num_of(d, "refusal_boundary", &p->sweep.has_refusal_boundary);
	p->sweep.change = dup_or_null(json_get_str(d, "change"));
	p->sweep.depth = dup_or_null(json_get_str(d, "depth"));
}

void
probe_result_details_read(struct probe_result *p)
{
	if (p->name != NULL) {   /* what a probe's own members mean is known by its name */
		read_sweep(p);
		read_timing(p);
		read_leaks(p);
		read_nodes(p);
		if (strcmp(p->name, "engine") == 0)
			p->capacity_tokens = num_of(p->details, "capacity_tokens", &p->has_capacity);
	}
	read_scalars(p->details, &p->scalars, &p->nscalars);
	read_points(p);
}

void
probe_result_details_free(struct probe_result *p)
{
	free(p->sweep.change);
	free(p->sweep.depth);
	memset(&p->sweep, 0, sizeof p->sweep);
	free(p->timing.primed.ttft_ms);
	free(p->timing.control.ttft_ms);
	memset(&p->timing, 0, sizeof p->timing);
	for (size_t k = 0; k < p->nleaks; k++) {
		free(p->leaks[k].owner_tenant);
		free(p->leaks[k].found_by);
	}
	free(p->leaks);
	for (size_t k = 0; k < p->nnodes; k++) {
		free(p->nodes[k].url);
		free(p->nodes[k].version);
		free(p->nodes[k].mode);
	}
	free(p->nodes);
	scalars_free(p->scalars, p->nscalars);
	free(p->points);
	p->leaks = NULL, p->nleaks = 0, p->nodes = NULL, p->nnodes = 0;
	p->scalars = NULL, p->nscalars = 0, p->points = NULL, p->npoints = 0;
	p->has_capacity = 0, p->capacity_tokens = 0;
}

/* A number member as an integer, 0 when missing (as the plan's text always had it). */
static int64_t
plan_int(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

/* An optional number member: *has set when it is one. */
static double
plan_num(const cJSON *o, const char *k, int *has)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	*has = cJSON_IsNumber(v);
	return *has ? v->valuedouble : 0;
}

double
plan_usd(const struct plan_prices *p, int64_t tokens_in, int64_t cached_in, int64_t tokens_out)
{
	double usd = p->has_in ? ((double)(tokens_in - cached_in) * p->in +
	    (double)cached_in * p->cached_in) / 1e6 : 0;

	return usd + (p->has_out ? (double)tokens_out * p->out / 1e6 : 0);
}

/* A budget bounds the plan: the run stops before it would spend more, so the most
 * the plan can cost is the budget, and what it is expected to spend never exceeds
 * it. A token budget is priced at the plan's own mix of input and output. */
static void
plan_bound(const cJSON *plan, struct run_plan *out)
{
	struct plan_prices *pr = &out->prices;
	int64_t all = out->tokens_in + out->tokens_out;
	int has;

	pr->in = plan_num(plan, "price_in_per_mtok", &pr->has_in);
	pr->out = plan_num(plan, "price_out_per_mtok", &pr->has_out);
	pr->cached_in = plan_num(plan, "price_cached_in_per_mtok", &has);
	if (!has)
		pr->cached_in = pr->in;
	out->budget_usd = plan_num(plan, "budget_usd", &has);
	out->budget_tokens = (int64_t)plan_num(plan, "budget_tokens", &has);
	out->has_most_usd = out->has_cost_usd;
	out->most_usd = out->cost_usd;
	if (out->budget_tokens > 0 && pr->has_in && all > 0) {
		double share = (double)out->budget_tokens / (double)all;

		out->has_budget_tokens_usd = 1;
		out->budget_tokens_usd = plan_usd(pr, (int64_t)((double)out->tokens_in * share), 0,
		    (int64_t)((double)out->tokens_out * share));
	}
	if (out->budget_tokens > 0 && out->budget_tokens < all) {
		out->capped = 1;
		if (out->has_budget_tokens_usd)
			out->most_usd = fmin(out->most_usd, out->budget_tokens_usd);
	}
	if (out->budget_usd > 0 && out->has_cost_usd && out->budget_usd < out->most_usd) {
		out->capped = 1;
		out->most_usd = out->budget_usd;
	}
	out->expected_usd = fmin(out->cost_usd_expected, out->most_usd);
}

void
run_plan_read(const cJSON *plan, struct run_plan *out)
{
	const cJSON *p, *probes = cJSON_GetObjectItem(plan, "probes");
	const char *s;

	memset(out, 0, sizeof *out);
	out->probes = xcalloc((size_t)cJSON_GetArraySize(probes) + 1, sizeof *out->probes);
	cJSON_ArrayForEach(p, probes) {
		struct plan_probe *pp = &out->probes[out->nprobes++];

		s = json_get_str(p, "name");
		pp->name = xstrdup(s ? s : "");
		pp->requests = plan_int(p, "requests");
		pp->tokens_in = plan_int(p, "tokens_in");
		pp->tokens_out = plan_int(p, "tokens_out");
	}
	out->requests = plan_int(plan, "requests");
	out->tokens_in = plan_int(plan, "tokens_in");
	out->tokens_out = plan_int(plan, "tokens_out");
	out->cost_usd = plan_num(plan, "cost_usd", &out->has_cost_usd);
	out->cost_usd_expected = plan_num(plan, "cost_usd_expected", &out->has_cost_usd_expected);
	out->tokens_in_expected = (int64_t)plan_num(plan, "tokens_in_expected", &out->has_tokens_in_expected);
	out->max_prompt_tokens = (int64_t)plan_num(plan, "max_prompt_tokens", &out->has_max_prompt_tokens);
	out->largest_prompt_tokens = (int64_t)plan_num(plan, "largest_prompt_tokens",
	    &out->has_largest_prompt_tokens);
	s = json_get_str(plan, "depth");
	out->depth = s ? xstrdup(s) : NULL;
	plan_bound(plan, out);
	s = json_get_str(plan, "cache_sharing_levels");
	out->cache_sharing_levels = s ? xstrdup(s) : NULL;
	s = json_get_str(plan, "sweep_repeats");
	out->sweep_repeats = s ? xstrdup(s) : NULL;
}

void
run_plan_free(struct run_plan *p)
{
	for (size_t i = 0; i < p->nprobes; i++)
		free(p->probes[i].name);
	free(p->probes);
	free(p->depth);
	free(p->cache_sharing_levels);
	free(p->sweep_repeats);
	memset(p, 0, sizeof *p);
}

int
probe_run_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	int rc;

	if (*ref == '\0' || strspn(ref, "0123456789") != strlen(ref) || strlen(ref) > 15)
		return aerr_set(err, AV_USAGE, "'%s' is not a run id (see 'aivet probe runs')", ref);
	rc = db_int(db, id, err, "SELECT id FROM probe_run WHERE id = ?", "i", (int64_t)atoll(ref));
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "unknown run %lld (see 'aivet probe runs')",
		    (long long)atoll(ref));
	return rc < 0 ? AV_RUNTIME : 0;
}

/* The findings of one probe's result, with their evidence ids. */
static int
read_findings(struct db *db, int64_t run_id, struct probe_result *p, struct aerr *err)
{
	struct db_stmt *fst = db_prepare(db, err, "SELECT f.id, f.code, f.severity, f.message, "
	    "(SELECT json_group_array(evidence_id) FROM (SELECT evidence_id FROM finding_evidence "
	    "WHERE finding_id = f.id ORDER BY evidence_id) AS fe) FROM finding f WHERE f.run_id = ? AND "
	    "f.probe = ? ORDER BY f.id", "it", run_id, p->name);
	size_t cap = 0;

	if (fst == NULL)
		return err->code;
	while (db_step(fst) == DB_ROW) {
		struct finding *f;
		cJSON *ev = cJSON_Parse(col_text(fst, 4)), *e;

		if (p->nfindings == cap)
			p->findings = xrealloc(p->findings, (cap = cap ? cap * 2 : 4) * sizeof *p->findings);
		f = &p->findings[p->nfindings++];
		memset(f, 0, sizeof *f);
		f->id = db_col_int64(fst, 0);
		f->code = xstrdup(col_text(fst, 1));
		f->severity = xstrdup(col_text(fst, 2));
		f->message = xstrdup(col_text(fst, 3));
		f->evidence = xcalloc((size_t)cJSON_GetArraySize(ev) + 1, sizeof *f->evidence);
		cJSON_ArrayForEach(e, ev)
			f->evidence[f->nevidence++] = (int64_t)cJSON_GetNumberValue(e);
		cJSON_Delete(ev);
	}
	db_finalize(fst);
	return 0;
}

/* Each probe's result of the run, in the order recorded. */
static int
read_results(struct db *db, struct probe_run *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details "
	    "FROM probe_result WHERE run_id = ? ORDER BY id", "i", r->id);
	size_t cap = 0;

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct probe_result *p;

		if (r->nprobes == cap)
			r->probes = xrealloc(r->probes, (cap = cap ? cap * 2 : 8) * sizeof *r->probes);
		p = &r->probes[r->nprobes++];
		memset(p, 0, sizeof *p);
		p->name = xstrdup(col_text(st, 0));
		p->verdict = xstrdup(col_text(st, 1));
		p->reason = dup_or_null(db_col_text(st, 2));
		p->requests = db_col_int64(st, 3);
		p->details = db_col_type(st, 4) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 4));
		probe_result_details_read(p);
		if (read_findings(db, r->id, p, err) != 0) {
			db_finalize(st);
			return err->code;
		}
	}
	db_finalize(st);
	return 0;
}

/* The status column's words, in the order of enum probe_run_state. */
static const char *const run_state_names[] = { "planned", "running", "completed", "interrupted",
	"budget_exhausted", "error", "failed" };

enum probe_run_state
run_state_of(const char *status)
{
	for (size_t i = 0; status != NULL && i < sizeof run_state_names / sizeof run_state_names[0]; i++)
		if (strcmp(status, run_state_names[i]) == 0)
			return (enum probe_run_state)i;
	return RUN_OTHER;
}

const char *
run_state_name(enum probe_run_state s)
{
	return (size_t)s < sizeof run_state_names / sizeof run_state_names[0] ? run_state_names[s] : "unknown";
}

/* The verdict column's words, in the order of enum probe_verdict. */
static const char *const verdict_names[] = { "pass", "fail", "inconclusive", "error" };

enum probe_verdict
probe_verdict_of(const char *verdict)
{
	for (size_t i = 0; verdict != NULL && i < sizeof verdict_names / sizeof verdict_names[0]; i++)
		if (strcmp(verdict, verdict_names[i]) == 0)
			return (enum probe_verdict)i;
	return VERDICT_OTHER;
}

const char *
probe_verdict_name(enum probe_verdict v)
{
	return (size_t)v < sizeof verdict_names / sizeof verdict_names[0] ? verdict_names[v] : "unknown";
}

int
probe_run_get(struct db *db, int64_t run_id, struct probe_run *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.endpoint_id, "
	    "r.status, r.started_at, r.finished_at, r.actor, r.tokens_in, r.tokens_out, r.calibration, "
	    "r.plan, e.context_tokens, e.url FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE r.id = ?", "i", run_id);
	const char *depth;

	memset(r, 0, sizeof *r);
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown run %lld (see 'aivet probe runs')", (long long)run_id);
	}
	r->id = db_col_int64(st, 0);
	r->endpoint = xstrdup(col_text(st, 1));
	r->endpoint_id = db_col_int64(st, 2);
	r->endpoint_url = xstrdup(col_text(st, 12));
	r->advertised_context = db_col_int64(st, 11);
	r->status = xstrdup(col_text(st, 3));
	r->state = run_state_of(r->status);
	r->started_at = xstrdup(col_text(st, 4));
	r->finished_at = dup_or_null(db_col_text(st, 5));
	r->actor = xstrdup(col_text(st, 6));
	r->tokens_in = db_col_int64(st, 7);
	r->tokens_out = db_col_int64(st, 8);
	r->calibration = db_col_type(st, 9) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 9));
	r->plan = cJSON_Parse(col_text(st, 10));
	db_finalize(st);
	depth = cJSON_GetStringValue(cJSON_GetObjectItem(r->plan, "depth"));
	r->depth = dup_or_null(depth);
	run_calibration_read(r->calibration, &r->calib);
	read_billed(r);
	if (read_results(db, r, err) != 0) {
		probe_run_free(r);
		return err->code;
	}
	return 0;
}

void
probe_run_free(struct probe_run *r)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_result *p = &r->probes[i];

		for (size_t k = 0; k < p->nfindings; k++) {
			free(p->findings[k].code);
			free(p->findings[k].severity);
			free(p->findings[k].message);
			free(p->findings[k].evidence);
		}
		free(p->findings);
		free(p->name);
		free(p->verdict);
		free(p->reason);
		probe_result_details_free(p);
		cJSON_Delete(p->details);
	}
	free(r->probes);
	free(r->endpoint);
	free(r->worker);
	free(r->lease_until);
	free(r->queue_error);
	free(r->endpoint_url);
	free(r->status);
	free(r->depth);
	free(r->started_at);
	free(r->finished_at);
	free(r->actor);
	cJSON_Delete(r->calibration);
	run_calibration_free(&r->calib);
	cJSON_Delete(r->plan);
	free(r->worst);
	free(r->verdicts);
	memset(r, 0, sizeof *r);
}

void
probe_run_list_free(struct probe_run_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		probe_run_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

cJSON *
finding_to_json(const struct finding *f)
{
	cJSON *o = cJSON_CreateObject(), *ev;

	cJSON_AddNumberToObject(o, "id", (double)f->id);
	cJSON_AddStringToObject(o, "code", f->code);
	cJSON_AddStringToObject(o, "severity", f->severity);
	cJSON_AddStringToObject(o, "message", f->message);
	ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < f->nevidence; i++)
		cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)f->evidence[i]));
	return o;
}

cJSON *
probe_result_to_json(const struct probe_result *p)
{
	cJSON *o = cJSON_CreateObject(), *fs;

	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "verdict", p->verdict);
	json_add_str(o, "reason", p->reason);
	cJSON_AddNumberToObject(o, "requests", (double)p->requests);
	cJSON_AddItemToObject(o, "details", p->details ? cJSON_Duplicate(p->details, 1) : cJSON_CreateNull());
	fs = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < p->nfindings; i++)
		cJSON_AddItemToArray(fs, finding_to_json(&p->findings[i]));
	return o;
}

cJSON *
probe_run_to_json(const struct probe_run *r)
{
	cJSON *j = cJSON_CreateObject(), *probes;

	cJSON_AddNumberToObject(j, "id", (double)r->id);
	cJSON_AddStringToObject(j, "endpoint", r->endpoint);
	cJSON_AddNumberToObject(j, "endpoint_id", (double)r->endpoint_id);
	cJSON_AddStringToObject(j, "endpoint_url", r->endpoint_url);
	cJSON_AddNumberToObject(j, "advertised_context", (double)r->advertised_context);
	cJSON_AddStringToObject(j, "status", r->status);
	cJSON_AddStringToObject(j, "started_at", r->started_at);
	json_add_str(j, "finished_at", r->finished_at);
	cJSON_AddStringToObject(j, "actor", r->actor);
	cJSON_AddNumberToObject(j, "tokens_in", (double)r->tokens_in);
	cJSON_AddNumberToObject(j, "tokens_out", (double)r->tokens_out);
	cJSON_AddItemToObject(j, "calibration", r->calibration ? cJSON_Duplicate(r->calibration, 1) :
	    cJSON_CreateNull());
	if (r->plan != NULL)
		cJSON_AddItemToObject(j, "plan", cJSON_Duplicate(r->plan, 1));
	if (r->has_billed) {
		cJSON *o = cJSON_AddObjectToObject(j, "billed");

		cJSON_AddNumberToObject(o, "tokens_in", r->billed.tokens_in);
		cJSON_AddNumberToObject(o, "tokens_out", r->billed.tokens_out);
		if (r->billed.has_cost_usd)
			cJSON_AddNumberToObject(o, "cost_usd", r->billed.cost_usd);
		else
			cJSON_AddNullToObject(o, "cost_usd");
	}
	probes = cJSON_AddArrayToObject(j, "probes");
	for (size_t i = 0; i < r->nprobes; i++)
		cJSON_AddItemToArray(probes, probe_result_to_json(&r->probes[i]));
	return j;
}

const struct finding *
probe_result_worst(const struct probe_result *p)
{
	const struct finding *w = NULL;

	for (size_t i = 0; i < p->nfindings; i++)
		if (w == NULL || severity_rank(p->findings[i].severity) > severity_rank(w->severity))
			w = &p->findings[i];
	return w;
}

const struct finding *
probe_run_finding(const struct probe_run *r, int64_t id)
{
	for (size_t i = 0; i < r->nprobes; i++)
		for (size_t k = 0; k < r->probes[i].nfindings; k++)
			if (r->probes[i].findings[k].id == id)
				return &r->probes[i].findings[k];
	return NULL;
}

const struct probe_result *
probe_run_result(const struct probe_run *r, const char *name)
{
	for (size_t i = 0; name != NULL && i < r->nprobes; i++)
		if (r->probes[i].name != NULL && strcmp(r->probes[i].name, name) == 0)
			return &r->probes[i];
	return NULL;
}

/* A run as JSON (the contract of "probe show --json"): the record through its writer. */
int
probe_run_json(struct db *db, int64_t run_id, cJSON **out, struct aerr *err)
{
	struct probe_run r;

	*out = NULL;
	if (probe_run_get(db, run_id, &r, err) != 0)
		return err->code;
	*out = probe_run_to_json(&r);
	probe_run_free(&r);
	return 0;
}

int
probe_run_exit(struct db *db, int64_t run_id, const char *fail_on, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT severity FROM finding WHERE run_id = ?", "i", run_id);
	int64_t errored = 0;
	int worst = -1;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW)
		if (severity_rank(col_text(st, 0)) > worst)
			worst = severity_rank(col_text(st, 0));
	db_finalize(st);
	if (worst >= 0 && worst >= severity_rank(fail_on))
		return AV_FINDINGS;
	if (db_int(db, &errored, err, "SELECT count(*) FROM probe_result WHERE run_id = ? AND "
	    "verdict = 'error'", "i", run_id) < 0)
		return AV_RUNTIME;
	return errored > 0 ? AV_RUNTIME : AV_OK;
}
