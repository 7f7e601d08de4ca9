/*
 * report-doc.c: the typed report's release (report-doc.h), and a claim as
 * claims_judge writes it read into the record.
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

void
report_claim_from_json(const cJSON *o, struct claim *c)
{
	const cJSON *x, *m;
	size_t i = 0;

	memset(c, 0, sizeof *c);
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
		free(r->results[i].probe), free(r->results[i].verdict), free(r->results[i].reason);
		cJSON_Delete(r->results[i].details);
	}
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
