/*
 * report-doc.c: the typed report (report-doc.h) read from report.json, a
 * bridge that lets each renderer move from the JSON to the record on its own;
 * and the record's release.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report-doc.h"

static char *
s_dup(const cJSON *o, const char *k)
{
	const char *s = json_get_str(o, k);

	return s != NULL ? xstrdup(s) : NULL;
}

static int64_t
i_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static int
has_num(const cJSON *o, const char *k)
{
	return cJSON_IsNumber(cJSON_GetObjectItem(o, k));
}

/* A free-form member, copied; NULL for null or absent. */
static cJSON *
j_dup(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return v == NULL || cJSON_IsNull(v) ? NULL : cJSON_Duplicate(v, 1);
}

static void *
alloc_n(const cJSON *arr, size_t size, size_t *n)
{
	*n = (size_t)cJSON_GetArraySize(arr);
	return *n ? xcalloc(*n, size) : NULL;
}

static int64_t *
ids_of(const cJSON *arr, size_t *n)
{
	int64_t *v = alloc_n(arr, sizeof *v, n);
	const cJSON *e;
	size_t i = 0;

	cJSON_ArrayForEach(e, arr)
		v[i++] = cJSON_IsNumber(e) ? (int64_t)e->valuedouble : 0;
	return v;
}

static void
evidence_read(const cJSON *o, struct report_evidence *e)
{
	e->id = i_of(o, "id");
	e->kind = s_dup(o, "kind");
	e->sha256 = s_dup(o, "sha256");
	e->original_name = s_dup(o, "original_name");
	e->media_type = s_dup(o, "media_type");
	e->effective_date = s_dup(o, "effective_date");
	e->size = i_of(o, "size");
	e->added_by = s_dup(o, "added_by");
	e->added_at = s_dup(o, "added_at");
	e->has_file = cJSON_GetObjectItem(o, "file") != NULL;
	e->file = s_dup(o, "file");
	e->file_note = s_dup(o, "file_note");
}

static struct report_evidence *
evidence_list_read(const cJSON *arr, size_t *n)
{
	struct report_evidence *v = alloc_n(arr, sizeof *v, n);
	const cJSON *e;
	size_t i = 0;

	cJSON_ArrayForEach(e, arr)
		evidence_read(e, &v[i++]);
	return v;
}

static void
finding_read(const cJSON *o, struct report_finding *f)
{
	f->id = i_of(o, "id");
	f->run_id = i_of(o, "run_id");
	f->probe = s_dup(o, "probe");
	f->code = s_dup(o, "code");
	f->severity = s_dup(o, "severity");
	f->message = s_dup(o, "message");
	f->details = j_dup(o, "details");
	f->evidence = ids_of(cJSON_GetObjectItem(o, "evidence"), &f->nevidence);
	f->open = cJSON_IsTrue(cJSON_GetObjectItem(o, "open"));
	f->superseded_by_run = i_of(o, "superseded_by_run");
}

static struct report_finding *
finding_list_read(const cJSON *arr, size_t *n)
{
	struct report_finding *v = alloc_n(arr, sizeof *v, n);
	const cJSON *e;
	size_t i = 0;

	cJSON_ArrayForEach(e, arr)
		finding_read(e, &v[i++]);
	return v;
}

static void
answer_read(const cJSON *o, struct report_answer *a)
{
	a->question_id = s_dup(o, "question_id");
	a->value = j_dup(o, "value");
	a->note = s_dup(o, "note");
	a->actor = s_dup(o, "actor");
	a->updated_at = s_dup(o, "updated_at");
	a->question = s_dup(o, "question");
	a->risk = s_dup(o, "risk");
	a->stated_risk = s_dup(o, "stated_risk");
	a->claim = s_dup(o, "claim");
	a->evidence = evidence_list_read(cJSON_GetObjectItem(o, "evidence"), &a->nevidence);
}

static void
assessment_read(const cJSON *o, struct report_assessment *a)
{
	const cJSON *q = cJSON_GetObjectItem(o, "questionnaire"), *ap, *x;
	size_t i = 0;

	a->id = i_of(o, "id");
	a->round = i_of(o, "round");
	a->parent_id = i_of(o, "parent_id");
	a->status = s_dup(o, "status");
	a->questionnaire_id = i_of(o, "questionnaire_id");
	a->created_by = s_dup(o, "created_by");
	a->created_at = s_dup(o, "created_at");
	a->submitted_at = s_dup(o, "submitted_at");
	a->approved_at = s_dup(o, "approved_at");
	a->reviewer = s_dup(o, "reviewer");
	a->has_questionnaire = json_get_str(q, "qid") != NULL;
	a->q_qid = s_dup(q, "qid");
	a->q_title = s_dup(q, "title");
	a->q_sha256 = s_dup(q, "sha256");
	a->q_version = i_of(q, "version");
	if (cJSON_IsObject(ap = cJSON_GetObjectItem(o, "approval_signature"))) {
		a->approval = xcalloc(1, sizeof *a->approval);
		a->approval->signer = s_dup(ap, "signer");
		a->approval->key_id = s_dup(ap, "key_id");
		a->approval->statement_file = s_dup(ap, "statement_file");
		a->approval->signature_file = s_dup(ap, "signature_file");
		a->approval->registered_public_key = s_dup(ap, "registered_public_key");
	}
	a->rating = s_dup(o, "rating");
	a->risk_score = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "risk_score"));
	a->worst_risk = s_dup(o, "worst_risk");
	a->unanswered_required = i_of(o, "unanswered_required");
	a->contradicted_claims = i_of(o, "contradicted_claims");
	a->contradicted_by = s_dup(o, "contradicted_by");
	if (cJSON_IsObject(ap = cJSON_GetObjectItem(o, "approved_score"))) {
		a->has_approved_score = 1;
		a->approved_rating = s_dup(ap, "rating");
		a->approved_risk_score = cJSON_GetNumberValue(cJSON_GetObjectItem(ap, "risk_score"));
	}
	a->since_approval = s_dup(o, "since_approval");
	a->answers = alloc_n(cJSON_GetObjectItem(o, "answers"), sizeof *a->answers, &a->nanswers);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "answers"))
		answer_read(x, &a->answers[i++]);
}

/* ---- the views of free-form documents ---- */

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

static void
run_read(const cJSON *o, struct report_run *r)
{
	const cJSON *x;
	size_t i = 0;

	r->id = i_of(o, "id");
	r->endpoint_id = i_of(o, "endpoint_id");
	r->endpoint = s_dup(o, "endpoint");
	r->status = s_dup(o, "status");
	r->probes = j_dup(o, "probes");
	r->options = j_dup(o, "options");
	r->plan = j_dup(o, "plan");
	r->calibration = j_dup(o, "calibration");
	r->tokens_in = i_of(o, "tokens_in");
	r->tokens_out = i_of(o, "tokens_out");
	r->actor = s_dup(o, "actor");
	r->started_at = s_dup(o, "started_at");
	r->finished_at = s_dup(o, "finished_at");
	r->results = alloc_n(cJSON_GetObjectItem(o, "results"), sizeof *r->results, &r->nresults);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "results")) {
		struct report_result *p = &r->results[i++];

		p->probe = s_dup(x, "probe");
		p->verdict = s_dup(x, "verdict");
		p->reason = s_dup(x, "reason");
		p->has_requests = has_num(x, "requests");
		p->requests = i_of(x, "requests");
		p->details = j_dup(x, "details");
	}
	r->findings = finding_list_read(cJSON_GetObjectItem(o, "findings"), &r->nfindings);
	r->exchanges = alloc_n(cJSON_GetObjectItem(o, "exchanges"), sizeof *r->exchanges, &r->nexchanges);
	i = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "exchanges")) {
		struct report_exchange *e = &r->exchanges[i++];

		e->evidence_id = i_of(x, "evidence_id");
		e->seq = i_of(x, "seq");
		e->probe = s_dup(x, "probe");
		e->tenant = s_dup(x, "tenant");
		e->has_status = has_num(x, "status");
		e->status = i_of(x, "status");
		e->request_sha256 = s_dup(x, "request_sha256");
		e->response_sha256 = s_dup(x, "response_sha256");
		e->file = s_dup(x, "file");
		e->file_sha256 = s_dup(x, "file_sha256");
	}
	report_details_read(r);
}

static void
claim_read(const cJSON *o, struct claim *c)
{
	const cJSON *x, *m;
	size_t i = 0;

	c->assessment_id = i_of(o, "assessment_id");
	c->question_id = s_dup(o, "question_id");
	c->question = s_dup(o, "question");
	c->answer = j_dup(o, "answer");
	c->endpoint = s_dup(o, "endpoint");
	c->status = s_dup(o, "status");
	c->reason = s_dup(o, "reason");
	c->probes = alloc_n(cJSON_GetObjectItem(o, "probes"), sizeof *c->probes, &c->nprobes);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "probes")) {
		c->probes[i].probe = s_dup(x, "probe");
		c->probes[i].run_id = i_of(x, "run_id");
		c->probes[i++].verdict = s_dup(x, "verdict");
	}
	c->contradicting = alloc_n(cJSON_GetObjectItem(o, "contradicting"), sizeof *c->contradicting,
	    &c->ncontradicting);
	i = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "contradicting")) {
		struct claim_contra *k = &c->contradicting[i++];

		k->code = s_dup(x, "code");
		k->finding_id = i_of(x, "finding_id");
		k->run_id = i_of(x, "run_id");
		k->probe = s_dup(x, "probe");
		k->message = s_dup(x, "message");
		k->evidence = ids_of(cJSON_GetObjectItem(x, "evidence"), &k->nevidence);
	}
	if (cJSON_IsObject(m = cJSON_GetObjectItem(o, "measure"))) {
		c->measure = xcalloc(1, sizeof *c->measure);
		c->measure->probe = s_dup(m, "probe");
		c->measure->value = s_dup(m, "value");
		c->measure->has_measured = has_num(m, "measured");
		c->measure->measured = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "measured"));
		c->measure->has_accepted_up_to = has_num(m, "accepted_up_to");
		c->measure->accepted_up_to = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "accepted_up_to"));
		c->measure->has_engine_capacity = has_num(m, "engine_capacity");
		c->measure->engine_capacity = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "engine_capacity"));
		c->measure->limit_found = cJSON_IsTrue(cJSON_GetObjectItem(m, "limit_found"));
		c->measure->tolerance = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "tolerance"));
	}
	c->has_endpoint_record = has_num(o, "endpoint_record");
	c->endpoint_record = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "endpoint_record"));
	c->record_mismatch = cJSON_IsTrue(cJSON_GetObjectItem(o, "record_mismatch"));
}

/* The time a clock's member names, or -1 for null. */
static int64_t
ms_of(const cJSON *o, const char *k)
{
	int64_t ms;
	struct aerr e = { 0 };

	if (json_get_str(o, k) == NULL || parse_time(json_get_str(o, k), &ms, &e) != 0) {
		aerr_clear(&e);
		return -1;
	}
	return ms;
}

/* The clock's static words (id, name, rule, state) point into the source
 * the doc keeps (adapter_src). */
static void
clock_read(const cJSON *o, struct incident_clock *c)
{
	c->id = json_get_str(o, "id");
	c->name = json_get_str(o, "name");
	c->rule = json_get_str(o, "rule");
	c->state = json_get_str(o, "state");
	c->applies = cJSON_IsTrue(cJSON_GetObjectItem(o, "applies"));
	snprintf(c->basis, sizeof c->basis, "%s", json_get_str(o, "basis") ? json_get_str(o, "basis") : "");
	c->start_ms = ms_of(o, "start");
	c->due_ms = ms_of(o, "due");
	c->stopped_ms = ms_of(o, "stopped_at");
	c->stop_entry = i_of(o, "stopped_by_entry");
	snprintf(c->by_date, sizeof c->by_date, "%s", json_get_str(o, "due_date") ? json_get_str(o, "due_date") : "");
	snprintf(c->due_text, sizeof c->due_text, "%s", json_get_str(o, "due_text") ? json_get_str(o, "due_text") : "");
	snprintf(c->due_local, sizeof c->due_local, "%s", json_get_str(o, "due_local") ? json_get_str(o, "due_local") : "");
	snprintf(c->due_org, sizeof c->due_org, "%s", json_get_str(o, "due_org") ? json_get_str(o, "due_org") : "");
	c->seconds_left = i_of(o, "seconds_left");
}

static int64_t
count_of(const cJSON *o, const char *k)
{
	return has_num(o, k) ? i_of(o, k) : -1;
}

static void
incident_read(const cJSON *o, struct report_incident *ri)
{
	struct incident *r = &ri->inc;
	const cJSON *x, *eu = cJSON_GetObjectItem(o, "eu_data"), *sla = cJSON_GetObjectItem(o, "vendor_sla");
	size_t i = 0;
	int k = 0;

	r->id = i_of(o, "id");
	r->vendor = s_dup(o, "vendor");
	r->vendor_id = i_of(o, "vendor_id");
	r->endpoint = s_dup(o, "endpoint");
	r->title = s_dup(o, "title");
	r->status = s_dup(o, "status");
	r->severity = i_of(o, "severity");
	r->phi = s_dup(o, "phi");
	r->individuals = count_of(o, "individuals");
	r->eu_data = cJSON_IsBool(eu) ? cJSON_IsTrue(eu) : -1;
	r->discovered_at = s_dup(o, "discovered_at");
	r->window_start = s_dup(o, "window_start");
	r->window_end = s_dup(o, "window_end");
	r->created_by = s_dup(o, "created_by");
	r->created_at = s_dup(o, "created_at");
	r->discovered_at_local = s_dup(o, "discovered_at_local");
	r->state_residents = count_of(o, "state_residents");
	r->vendor_discovered_at = s_dup(o, "vendor_discovered_at");
	if ((r->has_vendor_sla = cJSON_IsObject(sla))) {
		r->vendor_sla_value = s_dup(sla, "value");
		r->vendor_sla_seconds = i_of(sla, "seconds");
		r->vendor_sla_source = s_dup(sla, "source");
	}
	r->as_of = s_dup(o, "as_of");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "clocks"))
		if (k < CLOCK_COUNT)
			clock_read(x, &r->clocks[k++]);
	r->timeline = alloc_n(cJSON_GetObjectItem(o, "timeline"), sizeof *r->timeline, &r->ntimeline);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "timeline")) {
		struct incident_entry *e = &r->timeline[i++];

		e->id = i_of(x, "id");
		e->kind = s_dup(x, "kind");
		e->at = s_dup(x, "at");
		e->at_utc = s_dup(x, "at_utc");
		e->actor = s_dup(x, "actor");
		e->text = s_dup(x, "text");
		e->details = j_dup(x, "details");
		e->recorded_at = s_dup(x, "recorded_at");
	}
	r->tasks = alloc_n(cJSON_GetObjectItem(o, "tasks"), sizeof *r->tasks, &r->ntasks);
	i = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "tasks")) {
		struct incident_task *t = &r->tasks[i++];

		t->id = i_of(x, "id");
		t->title = s_dup(x, "title");
		t->owner = s_dup(x, "owner");
		t->due_at = s_dup(x, "due_at");
		t->done_at = s_dup(x, "done_at");
		t->created_at = s_dup(x, "created_at");
		t->overdue = cJSON_IsTrue(cJSON_GetObjectItem(x, "overdue"));
	}
	if ((ri->has_files = cJSON_IsArray(cJSON_GetObjectItem(o, "evidence_files"))))
		ri->files = evidence_list_read(cJSON_GetObjectItem(o, "evidence_files"), &ri->nfiles);
}

static void
endpoint_read(const cJSON *o, struct endpoint *e)
{
	const cJSON *x, *eng = cJSON_GetObjectItem(o, "engine");
	size_t i = 0;

	e->id = i_of(o, "id");
	e->vendor = s_dup(o, "vendor");
	e->name = s_dup(o, "name");
	e->ref = s_dup(o, "ref");
	e->api = s_dup(o, "api");
	e->url = s_dup(o, "url");
	e->model = s_dup(o, "model");
	e->context_tokens = i_of(o, "context_tokens");
	e->allow_insecure_http = cJSON_IsTrue(cJSON_GetObjectItem(o, "allow_insecure_http"));
	e->has_price_in = has_num(o, "price_in_per_mtok");
	e->price_in_per_mtok = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "price_in_per_mtok"));
	e->has_price_out = has_num(o, "price_out_per_mtok");
	e->price_out_per_mtok = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "price_out_per_mtok"));
	e->options = cJSON_GetObjectItem(o, "options") ? cJSON_PrintUnformatted(cJSON_GetObjectItem(o, "options")) : NULL;
	e->status = s_dup(o, "status");
	e->created_at = s_dup(o, "created_at");
	e->updated_at = s_dup(o, "updated_at");
	e->credentials = alloc_n(cJSON_GetObjectItem(o, "credentials"), sizeof *e->credentials, &e->ncredentials);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "credentials")) {
		e->credentials[i].label = s_dup(x, "label");
		e->credentials[i].ref = s_dup(x, "ref");
		e->credentials[i++].org = s_dup(x, "org");
	}
	if (cJSON_IsObject(eng)) {
		e->engine.engine = s_dup(eng, "kind");
		e->engine.credential_ref = s_dup(eng, "credential");
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(eng, "nodes"))
			if (cJSON_IsString(x) && e->engine.n < ENGINE_MAX_NODES)
				e->engine.url[e->engine.n++] = xstrdup(x->valuestring);
	}
}

static void
vendor_read(const cJSON *o, struct vendor *v)
{
	v->id = i_of(o, "id");
	v->name = s_dup(o, "name");
	v->criticality = i_of(o, "criticality");
	v->contact = s_dup(o, "contact");
	v->notes = s_dup(o, "notes");
	v->status = s_dup(o, "status");
	v->created_at = s_dup(o, "created_at");
	v->updated_at = s_dup(o, "updated_at");
	v->endpoints = i_of(o, "endpoints");
	v->open_incidents = i_of(o, "open_incidents");
}

/* Where a finding of the summary is in the list, by id (and message for the
 * claims' findings, which have none); n when it is not there. */
static size_t
finding_index(const struct report_doc *d, const cJSON *f)
{
	for (size_t i = 0; i < d->nfindings; i++)
		if (d->findings[i].id == i_of(f, "id") && d->findings[i].run_id == i_of(f, "run_id"))
			return i;
	return d->nfindings;
}

static size_t
claim_index(const struct report_doc *d, const cJSON *c)
{
	for (size_t i = 0; i < d->claims.n; i++) {
		const struct claim *k = &d->claims.items[i];

		const char *q = json_get_str(c, "question_id"), *e = json_get_str(c, "endpoint");

		if (k->assessment_id == i_of(c, "assessment_id") && q != NULL &&
		    strcmp(k->question_id, q) == 0 &&
		    strcmp(k->endpoint ? k->endpoint : "", e ? e : "") == 0)
			return i;
	}
	return d->claims.n;
}

static void
summary_read(const cJSON *s, struct report_doc *d)
{
	struct report_summary *m = &d->summary;
	const cJSON *x, *cs = cJSON_GetObjectItem(s, "claims");

	m->rating = s_dup(s, "rating");
	m->rating_basis = s_dup(s, "rating_basis");
	m->since_approval = s_dup(s, "since_approval");
	m->verdict.rating = (enum rating)(rating_parse(m->rating) < 0 ? RATING_NOT_ASSESSED : rating_parse(m->rating));
	m->rating_rule = json_get_str(s, "rating_rule");
	m->assessment_rating_rule = json_get_str(s, "assessment_rating_rule");
	for (int i = 0; i < SEV_COUNT; i++) {
		m->findings[i] = i_of(cJSON_GetObjectItem(s, "findings"), severity_name((enum severity)i));
		m->verdict.open[i] = (int)i_of(cJSON_GetObjectItem(s, "open_findings"),
		    severity_name((enum severity)i));
	}
	m->claims_confirmed = i_of(cs, "confirmed");
	m->claims_contradicted = i_of(cs, "contradicted");
	m->claims_untested = i_of(cs, "untested");
	m->claims_consistent = i_of(cs, "consistent");
	m->critical = alloc_n(cJSON_GetObjectItem(s, "critical_findings"), sizeof *m->critical, &m->ncritical);
	m->ncritical = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(s, "critical_findings"))
		m->critical[m->ncritical++] = finding_index(d, x);
	m->contradicted = alloc_n(cJSON_GetObjectItem(s, "contradicted_claims"), sizeof *m->contradicted,
	    &m->ncontradicted);
	m->ncontradicted = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(s, "contradicted_claims"))
		m->contradicted[m->ncontradicted++] = claim_index(d, x);
}

static void
options_read(const cJSON *o, struct report_doc *d)
{
	const cJSON *runs = cJSON_GetObjectItem(o, "runs");

	d->opt_assessment = i_of(o, "assessment");
	if ((d->has_opt_runs = cJSON_IsArray(runs)))
		d->opt_runs = ids_of(runs, &d->nopt_runs);
	d->opt_since = s_dup(o, "since");
	d->opt_incident = i_of(o, "incident");
	d->opt_retain_years = i_of(o, "retain_years");
	d->opt_include_leaked = cJSON_IsTrue(cJSON_GetObjectItem(o, "include_leaked_content"));
}

static void
lists_read(const cJSON *rep, struct report_doc *d)
{
	const cJSON *x;
	size_t i;

	i = 0;
	d->endpoints.items = alloc_n(cJSON_GetObjectItem(rep, "endpoints"), sizeof *d->endpoints.items,
	    &d->endpoints.n);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "endpoints"))
		endpoint_read(x, &d->endpoints.items[i++]);
	i = 0;
	d->assessments = alloc_n(cJSON_GetObjectItem(rep, "assessments"), sizeof *d->assessments,
	    &d->nassessments);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments"))
		assessment_read(x, &d->assessments[i++]);
	i = 0;
	d->runs = alloc_n(cJSON_GetObjectItem(rep, "probe_runs"), sizeof *d->runs, &d->nruns);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs"))
		run_read(x, &d->runs[i++]);
	i = 0;
	d->claims.items = alloc_n(cJSON_GetObjectItem(rep, "claims"), sizeof *d->claims.items, &d->claims.n);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "claims"))
		claim_read(x, &d->claims.items[i++]);
	d->findings = finding_list_read(cJSON_GetObjectItem(rep, "findings"), &d->nfindings);
	d->superseded = finding_list_read(cJSON_GetObjectItem(rep, "superseded_findings"), &d->nsuperseded);
	i = 0;
	d->incidents = alloc_n(cJSON_GetObjectItem(rep, "incidents"), sizeof *d->incidents, &d->nincidents);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "incidents"))
		incident_read(x, &d->incidents[i++]);
	i = 0;
	d->files = alloc_n(cJSON_GetObjectItem(rep, "evidence_files"), sizeof *d->files, &d->nfiles);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "evidence_files")) {
		d->files[i].path = s_dup(x, "path");
		snprintf(d->files[i].sha256, sizeof d->files[i].sha256, "%s",
		    json_get_str(x, "sha256") ? json_get_str(x, "sha256") : "");
		d->files[i++].size = i_of(x, "size");
	}
}

void
report_doc_from_json(const cJSON *report, struct report_doc *d)
{
	const cJSON *rep, *cp;

	memset(d, 0, sizeof *d);
	d->adapter_src = cJSON_Duplicate(report, 1);
	rep = d->adapter_src;
	d->audit_failure = s_dup(rep, "audit_failure");
	d->format = s_dup(rep, "format");
	d->report_id = s_dup(rep, "report_id");
	d->aivet_version = s_dup(rep, "aivet_version");
	d->generated_at = s_dup(rep, "generated_at");
	d->organisation_timezone = s_dup(rep, "organisation_timezone");
	d->retention_until = s_dup(rep, "retention_until");
	d->signer_key_id = s_dup(rep, "signer_key_id");
	d->signer_public_key = s_dup(rep, "signer_public_key");
	options_read(cJSON_GetObjectItem(rep, "options"), d);
	cp = cJSON_GetObjectItem(rep, "audit_checkpoint");
	d->audit_entries = i_of(cp, "entries");
	d->audit_head = s_dup(cp, "head");
	d->audit_intact = cJSON_IsTrue(cJSON_GetObjectItem(cp, "intact"));
	vendor_read(cJSON_GetObjectItem(rep, "vendor"), &d->vendor);
	lists_read(rep, d);
	summary_read(cJSON_GetObjectItem(rep, "summary"), d);
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
	cJSON_Delete(d->adapter_src);
	memset(d, 0, sizeof *d);
}
