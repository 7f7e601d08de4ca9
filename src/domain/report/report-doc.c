/*
 * report-doc.c: the typed report (report-doc.h): the free-form documents a
 * run recorded (the sweep's and prefix timing's details, the calibration)
 * read once, by the engine's one reader of them (probe-record.h), into the
 * typed members the renderers draw from, and the release of every member the
 * record owns.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report-doc.h"

/* ---- the free-form documents, read once by the engine ---- */

void
report_details_read(struct report_run *r)
{
	run_calibration_read(r->calibration, &r->cal);
	for (size_t i = 0; i < r->nresults; i++) {
		struct report_result *x = &r->results[i];
		struct probe_result *p = &x->read;

		*p = (struct probe_result){ .name = x->probe, .details = x->details };
		probe_result_details_read(p);
		/* The report charts a sweep that recorded its points. */
		if (p->sweep.present && p->points != NULL)
			x->sweep = (struct report_sweep){ .present = 1, .b = p->sweep, .points = p->points,
			    .npoints = p->npoints };
		x->timing = p->timing;
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
		free(v[i].probe), free(v[i].code), free(v[i].message);
		cJSON_Delete(v[i].details);
		free(v[i].evidence);
	}
	free(v);
}

static void
assessment_doc_free(struct report_assessment *a)
{
	free(a->created_by), free(a->created_at), free(a->submitted_at);
	free(a->approved_at), free(a->reviewer), free(a->q_qid), free(a->q_title), free(a->q_sha256);
	if (a->approval != NULL) {
		free(a->approval->signer), free(a->approval->key_id), free(a->approval->statement_file);
		free(a->approval->signature_file), free(a->approval->registered_public_key);
		free(a->approval);
	}
	free(a->contradicted_by);
	free(a->since_approval);
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];

		free(x->question_id), free(x->note), free(x->actor), free(x->updated_at);
		free(x->question);
		cJSON_Delete(x->value);
		evidence_free(x->evidence, x->nevidence);
	}
	free(a->answers);
}

static void
run_doc_free(struct report_run *r)
{
	free(r->endpoint), free(r->actor), free(r->started_at), free(r->finished_at);
	cJSON_Delete(r->probes), cJSON_Delete(r->options), cJSON_Delete(r->plan);
	cJSON_Delete(r->calibration);
	for (size_t i = 0; i < r->nresults; i++) {
		struct report_result *p = &r->results[i];

		free(p->probe), free(p->reason);
		cJSON_Delete(p->details);
		probe_result_details_free(&p->read);
	}
	run_calibration_free(&r->cal);
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
	free(d->tsa_url);
	vendor_free(&d->vendor);
	endpoint_list_free(&d->endpoints);
	for (size_t i = 0; i < d->nassessments; i++)
		assessment_doc_free(&d->assessments[i]);
	free(d->assessments);
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
