/*
 * report-doc.c: the typed report (report-doc.h): the free-form documents a
 * run recorded (the sweep's and prefix timing's details, the calibration)
 * read once into the typed views the renderers draw from, and the release of
 * every member the record owns.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report-doc.h"

/* ---- the free-form documents, read once ---- */

static char *
s_dup(const cJSON *o, const char *k)
{
	const char *s = json_get_str(o, k);

	return s != NULL ? xstrdup(s) : NULL;
}

static void *
alloc_n(const cJSON *arr, size_t size, size_t *n)
{
	*n = (size_t)cJSON_GetArraySize(arr);
	return *n ? xcalloc(*n, size) : NULL;
}


static double
num_of(const cJSON *o, const char *k, int *has)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	*has = cJSON_IsNumber(v);
	return *has ? v->valuedouble : 0;
}

static void
sweep_read(const cJSON *d, struct report_sweep *s)
{
	const cJSON *points = cJSON_GetObjectItem(d, "points"), *p;

	if (!cJSON_IsObject(d) || !cJSON_IsArray(points))
		return;
	s->present = 1;
	s->advertised = num_of(d, "advertised", &s->has_advertised);
	s->refusal_boundary = num_of(d, "refusal_boundary", &s->has_refusal_boundary);
	s->integrity_boundary = num_of(d, "integrity_boundary", &s->has_integrity_boundary);
	s->change = s_dup(d, "change");
	s->depth = s_dup(d, "depth");
	s->points = alloc_n(points, sizeof *s->points, &s->npoints);
	s->npoints = 0;
	cJSON_ArrayForEach(p, points) {
		struct report_sweep_point *t = &s->points[s->npoints++];
		const cJSON *acc = cJSON_GetObjectItem(p, "accepted");

		t->tokens_sent = num_of(p, "tokens_sent", &t->has_tokens_sent);
		t->status = num_of(p, "status", &t->has_status);
		t->nonces_echoed = num_of(p, "nonces_echoed", &t->has_nonces_echoed);
		t->nonces_total = num_of(p, "nonces_total", &t->has_nonces_total);
		t->usage_prompt_tokens = num_of(p, "usage_prompt_tokens", &t->has_usage);
		t->evidence = (int64_t)num_of(p, "evidence", &t->has_evidence);
		t->has_accepted = cJSON_IsBool(acc);
		t->accepted = cJSON_IsTrue(acc);
		t->stream = cJSON_IsTrue(cJSON_GetObjectItem(p, "stream"));
	}
}

static void
timing_group_read(const cJSON *g, struct report_timing_group *t)
{
	const cJSON *v, *ms = cJSON_GetObjectItem(g, "ttft_ms");

	t->ttft_ms = alloc_n(ms, sizeof *t->ttft_ms, &t->n);
	t->n = 0;
	cJSON_ArrayForEach(v, ms)
		if (cJSON_IsNumber(v))
			t->ttft_ms[t->n++] = v->valuedouble;
	t->median_ms = num_of(g, "median_ms", &t->has_median);
}

static void
timing_read(const cJSON *d, struct report_timing *t)
{
	const cJSON *groups = cJSON_GetObjectItem(d, "groups"), *p = cJSON_GetObjectItem(d, "cross_tenant");
	int has;

	if (!cJSON_IsObject(d))
		return;
	t->present = 1;
	timing_group_read(cJSON_GetObjectItem(groups, "primed"), &t->primed);
	timing_group_read(cJSON_GetObjectItem(groups, "control"), &t->control);
	t->has_test = cJSON_IsObject(p);
	t->p = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p"));
	t->cliffs_delta = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cliffs_delta"));
	t->alpha_per_look = num_of(d, "alpha_per_look", &t->has_alpha_per_look);
	t->alpha = cJSON_GetNumberValue(cJSON_GetObjectItem(d, "alpha"));
	t->median_saving_ms = cJSON_GetNumberValue(cJSON_GetObjectItem(d, "median_saving_ms"));
	t->trials = (int64_t)num_of(d, "trials", &has);
}

/* Any other value the calibration holds, as words. */
static char *
value_words(const cJSON *v)
{
	struct buf b;
	const cJSON *e;

	if (v == NULL || cJSON_IsNull(v))
		return xstrdup("none");
	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (cJSON_IsBool(v))
		return xstrdup(cJSON_IsTrue(v) ? "yes" : "no");
	if (cJSON_IsNumber(v))
		return xasprintf("%g", v->valuedouble);
	buf_init(&b);
	cJSON_ArrayForEach(e, v) {
		char *w = value_words(e);

		if (b.len > 0)
			buf_adds(&b, cJSON_IsObject(v) ? "; " : ", ");
		if (cJSON_IsObject(v))
			buf_printf(&b, "%s: ", e->string);
		buf_adds(&b, w);
		free(w);
	}
	if (b.len == 0)
		buf_adds(&b, "none");
	return buf_steal(&b);
}

/* The members the calibration's rows name, and any other as a labelled row. */
static void
calibration_extra(const cJSON *cal, struct report_rows *rs)
{
	static const char *const known[] = { "method", "tokens_per_unit", "overhead_tokens", "bounds",
		"samples", "rejected", "unit", NULL };
	const cJSON *x;

	cJSON_ArrayForEach(x, cal) {
		size_t k;
		struct report_row *r;

		for (k = 0; known[k] != NULL && strcmp(known[k], x->string) != 0; k++)
			;
		if (known[k] != NULL)
			continue;
		rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
		r = &rs->v[rs->n++];
		r->label = xstrdup(x->string);
		for (char *p = r->label; *p; p++)
			if (*p == '_')
				*p = ' ';
		if (r->label[0] >= 'a' && r->label[0] <= 'z')
			r->label[0] = (char)(r->label[0] - 'a' + 'A');
		r->value = value_words(x);
		r->evidence = 0;
	}
}

static void
calibration_read(const cJSON *cal, struct report_calibration *c)
{
	const cJSON *tpu = cJSON_GetObjectItem(cal, "tokens_per_unit");
	const cJSON *ovh = cJSON_GetObjectItem(cal, "overhead_tokens");
	const cJSON *bounds = cJSON_GetObjectItem(cal, "bounds"), *x;
	const cJSON *samples = cJSON_GetObjectItem(cal, "samples"), *rej = cJSON_GetObjectItem(cal, "rejected");

	if (!cJSON_IsObject(cal))
		return;
	c->present = 1;
	c->method = s_dup(cal, "method");
	c->unit = s_dup(cal, "unit");
	c->has_tokens_per_unit = tpu != NULL;
	c->tpu_is_number = cJSON_IsNumber(tpu);
	c->tokens_per_unit = cJSON_GetNumberValue(tpu);
	c->has_overhead = ovh != NULL;
	c->overhead_is_number = cJSON_IsNumber(ovh);
	c->overhead_tokens = cJSON_GetNumberValue(ovh);
	c->has_bounds = cJSON_GetArraySize(bounds) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(bounds, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(bounds, 1));
	for (int i = 0; c->has_bounds && i < 2; i++)
		c->bounds[i] = cJSON_GetArrayItem(bounds, i)->valuedouble;
	c->samples = alloc_n(samples, sizeof *c->samples, &c->nsamples);
	c->nsamples = 0;
	cJSON_ArrayForEach(x, samples) {
		struct report_cal_sample *s = &c->samples[c->nsamples++];
		int has;

		s->units = num_of(x, "units", &s->has_units);
		s->tokens = num_of(x, "tokens", &s->has_tokens);
		s->evidence = (int64_t)num_of(x, "evidence", &has);
	}
	if ((c->has_rejected = cJSON_IsArray(rej))) {
		c->rejected = alloc_n(rej, sizeof *c->rejected, &c->nrejected);
		c->nrejected = 0;
		cJSON_ArrayForEach(x, rej) {
			c->rejected[c->nrejected].method = s_dup(x, "method");
			c->rejected[c->nrejected++].reason = s_dup(x, "reason");
		}
	}
	calibration_extra(cal, &c->extra);
}

void
report_details_read(struct report_run *r)
{
	calibration_read(r->calibration, &r->cal);
	for (size_t i = 0; i < r->nresults; i++) {
		struct report_result *p = &r->results[i];

		if (p->probe != NULL && strcmp(p->probe, "sweep") == 0)
			sweep_read(p->details, &p->sweep);
		if (p->probe != NULL && strcmp(p->probe, "prefix-timing") == 0)
			timing_read(p->details, &p->timing);
	}
}

/* ---- release ---- */

static void
evidence_free(struct report_evidence *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kind), free(v[i].sha256), free(v[i].original_name), free(v[i].media_type);
		free(v[i].effective_date), free(v[i].added_by), free(v[i].added_at);
		free(v[i].file), free(v[i].file_note);
	}
	free(v);
}

static void
findings_free(struct report_finding *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].probe), free(v[i].code), free(v[i].severity), free(v[i].message);
		cJSON_Delete(v[i].details);
		free(v[i].evidence);
	}
	free(v);
}

static void
assessment_doc_free(struct report_assessment *a)
{
	free(a->status), free(a->created_by), free(a->created_at), free(a->submitted_at);
	free(a->approved_at), free(a->reviewer), free(a->q_qid), free(a->q_title), free(a->q_sha256);
	if (a->approval != NULL) {
		free(a->approval->signer), free(a->approval->key_id), free(a->approval->statement_file);
		free(a->approval->signature_file), free(a->approval->registered_public_key);
		free(a->approval);
	}
	free(a->rating), free(a->worst_risk), free(a->contradicted_by), free(a->approved_rating);
	free(a->since_approval);
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];

		free(x->question_id), free(x->note), free(x->actor), free(x->updated_at);
		free(x->question), free(x->risk), free(x->stated_risk), free(x->claim);
		cJSON_Delete(x->value);
		evidence_free(x->evidence, x->nevidence);
	}
	free(a->answers);
}

static void
run_doc_free(struct report_run *r)
{
	free(r->endpoint), free(r->status), free(r->actor), free(r->started_at), free(r->finished_at);
	cJSON_Delete(r->probes), cJSON_Delete(r->options), cJSON_Delete(r->plan);
	cJSON_Delete(r->calibration);
	for (size_t i = 0; i < r->nresults; i++) {
		struct report_result *p = &r->results[i];

		free(p->probe), free(p->verdict), free(p->reason);
		cJSON_Delete(p->details);
		free(p->sweep.change), free(p->sweep.depth), free(p->sweep.points);
		free(p->timing.primed.ttft_ms), free(p->timing.control.ttft_ms);
	}
	free(r->cal.method), free(r->cal.unit), free(r->cal.samples);
	for (size_t i = 0; i < r->cal.nrejected; i++)
		free(r->cal.rejected[i].method), free(r->cal.rejected[i].reason);
	free(r->cal.rejected);
	report_rows_free(&r->cal.extra);
	free(r->results);
	findings_free(r->findings, r->nfindings);
	for (size_t i = 0; i < r->nexchanges; i++) {
		struct report_exchange *e = &r->exchanges[i];

		free(e->probe), free(e->tenant), free(e->request_sha256), free(e->response_sha256);
		free(e->file), free(e->file_sha256);
	}
	free(r->exchanges);
}

void
report_doc_free(struct report_doc *d)
{
	free(d->audit_failure), free(d->format), free(d->report_id), free(d->aivet_version);
	free(d->generated_at), free(d->organisation_timezone), free(d->retention_until);
	free(d->signer_key_id), free(d->signer_public_key), free(d->opt_runs), free(d->opt_since);
	free(d->audit_head);
	vendor_free(&d->vendor);
	endpoint_list_free(&d->endpoints);
	for (size_t i = 0; i < d->nassessments; i++)
		assessment_doc_free(&d->assessments[i]);
	free(d->assessments);
	free(d->summary.rating), free(d->summary.rating_basis), free(d->summary.since_approval);
	free(d->summary.critical), free(d->summary.contradicted);
	findings_free(d->superseded, d->nsuperseded);
	for (size_t i = 0; i < d->nruns; i++)
		run_doc_free(&d->runs[i]);
	free(d->runs);
	claim_list_free(&d->claims);
	findings_free(d->findings, d->nfindings);
	for (size_t i = 0; i < d->nincidents; i++) {
		incident_free(&d->incidents[i].inc);
		evidence_free(d->incidents[i].files, d->incidents[i].nfiles);
	}
	free(d->incidents);
	for (size_t i = 0; i < d->nfiles; i++)
		free(d->files[i].path);
	free(d->files);
	memset(d, 0, sizeof *d);
}
