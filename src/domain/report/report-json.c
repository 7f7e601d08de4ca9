/*
 * report-json.c: report.json, written from the typed report (report-doc.h)
 * by this one writer. Members appear in a fixed order so the same record
 * gives the same bytes; the free-form documents (details, calibration, plan,
 * options, an answer's value) are written as recorded.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "aivet/evidence-json.h"
#include "aivet/tsa.h"
#include "report-doc.h"

static cJSON *
doc_or_null(const cJSON *j)
{
	return j != NULL ? cJSON_Duplicate(j, 1) : cJSON_CreateNull();
}

static void
add_id_or_null(cJSON *o, const char *k, int64_t id)
{
	if (id != 0)
		cJSON_AddNumberToObject(o, k, (double)id);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *
ids_json(const int64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

/* A stored file cited as evidence: its row as evidence_row_to_json writes
 * it, then where the bundle holds it. */
static cJSON *
evidence_json(const struct report_evidence *e)
{
	cJSON *o = cJSON_CreateObject();
	struct evidence_item it = { .id = e->id, .kind = e->kind, .sha256 = e->sha256,
	    .original_name = e->original_name, .media_type = e->media_type,
	    .effective_date = e->effective_date, .size = e->size, .added_by = e->added_by,
	    .added_at = e->added_at };

	evidence_row_to_json(o, &it);
	if (e->has_file)
		json_add_str(o, "file", e->file);
	if (e->file_note != NULL)
		cJSON_AddStringToObject(o, "file_note", e->file_note);
	return o;
}

static cJSON *
evidence_list_json(const struct report_evidence *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, evidence_json(&v[i]));
	return a;
}

static cJSON *
report_finding_json(const struct report_finding *f)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)f->id);
	cJSON_AddNumberToObject(o, "run_id", (double)f->run_id);
	json_add_str(o, "probe", f->probe);
	json_add_str(o, "code", f->code);
	cJSON_AddStringToObject(o, "severity", severity_name(f->severity));
	json_add_str(o, "message", f->message);
	cJSON_AddItemToObject(o, "details", doc_or_null(f->details));
	cJSON_AddItemToObject(o, "evidence", ids_json(f->evidence, f->nevidence));
	cJSON_AddBoolToObject(o, "open", f->open);
	add_id_or_null(o, "superseded_by_run", f->superseded_by_run);
	return o;
}

static cJSON *
findings_json(const struct report_finding *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, report_finding_json(&v[i]));
	return a;
}

static cJSON *
result_json(const struct report_result *p)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "probe", p->probe);
	cJSON_AddStringToObject(o, "verdict", probe_verdict_name(p->verdict));
	json_add_str(o, "reason", p->reason);
	if (p->has_requests)
		cJSON_AddNumberToObject(o, "requests", (double)p->requests);
	else
		cJSON_AddNullToObject(o, "requests");
	cJSON_AddItemToObject(o, "details", doc_or_null(p->details));
	return o;
}

static cJSON *
exchange_json(const struct report_exchange *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "evidence_id", (double)e->evidence_id);
	json_add_str(o, "probe", e->probe);
	cJSON_AddNumberToObject(o, "seq", (double)e->seq);
	json_add_str(o, "tenant", e->tenant);
	if (e->has_status)
		cJSON_AddNumberToObject(o, "status", (double)e->status);
	else
		cJSON_AddNullToObject(o, "status");
	json_add_str(o, "request_sha256", e->request_sha256);
	json_add_str(o, "response_sha256", e->response_sha256);
	json_add_str(o, "file", e->file);
	json_add_str(o, "file_sha256", e->file_sha256);
	return o;
}

static cJSON *
report_run_json(const struct report_run *r)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddNumberToObject(o, "endpoint_id", (double)r->endpoint_id);
	json_add_str(o, "endpoint", r->endpoint);
	cJSON_AddStringToObject(o, "status", run_state_name(r->state));
	cJSON_AddItemToObject(o, "probes", doc_or_null(r->probes));
	cJSON_AddItemToObject(o, "options", doc_or_null(r->options));
	cJSON_AddItemToObject(o, "plan", doc_or_null(r->plan));
	cJSON_AddItemToObject(o, "calibration", doc_or_null(r->calibration));
	cJSON_AddNumberToObject(o, "tokens_in", (double)r->tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)r->tokens_out);
	json_add_str(o, "actor", r->actor);
	json_add_str(o, "started_at", r->started_at);
	json_add_str(o, "finished_at", r->finished_at);
	a = cJSON_AddArrayToObject(o, "results");
	for (size_t i = 0; i < r->nresults; i++)
		cJSON_AddItemToArray(a, result_json(&r->results[i]));
	cJSON_AddItemToObject(o, "findings", findings_json(r->findings, r->nfindings));
	a = cJSON_AddArrayToObject(o, "exchanges");
	for (size_t i = 0; i < r->nexchanges; i++)
		cJSON_AddItemToArray(a, exchange_json(&r->exchanges[i]));
	return o;
}

static cJSON *
answer_json(const struct report_answer *x)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "question_id", x->question_id);
	cJSON_AddItemToObject(o, "value", doc_or_null(x->value));
	json_add_str(o, "note", x->note);
	json_add_str(o, "actor", x->actor);
	json_add_str(o, "updated_at", x->updated_at);
	cJSON_AddItemToObject(o, "evidence", evidence_list_json(x->evidence, x->nevidence));
	json_add_str(o, "question", x->question);
	if (x->rated) {
		cJSON_AddStringToObject(o, "risk", risk_name(x->risk));
		cJSON_AddStringToObject(o, "stated_risk", risk_name(x->stated_risk));
		json_add_str(o, "claim", claim_status_name(x->claim));
	}
	return o;
}

static void
approval_add_json(cJSON *o, const struct report_approval *ap)
{
	cJSON *s = cJSON_AddObjectToObject(o, "approval_signature");

	cJSON_AddStringToObject(s, "signer", ap->signer);
	cJSON_AddStringToObject(s, "key_id", ap->key_id ? ap->key_id : "");
	cJSON_AddStringToObject(s, "statement_file", ap->statement_file);
	cJSON_AddStringToObject(s, "signature_file", ap->signature_file);
	json_add_str(s, "registered_public_key", ap->registered_public_key);
	if (ap->self_declared)
		cJSON_AddStringToObject(s, "names", APPROVAL_NAMES_SELF);
}

static cJSON *
assessment_json_of(const struct report_assessment *a)
{
	cJSON *o = cJSON_CreateObject(), *q, *ans;

	cJSON_AddNumberToObject(o, "id", (double)a->id);
	cJSON_AddNumberToObject(o, "round", (double)a->round);
	add_id_or_null(o, "parent_id", a->parent_id);
	cJSON_AddStringToObject(o, "status", assessment_status_name(a->status));
	cJSON_AddBoolToObject(o, "rating_reads", a->rating_reads);
	cJSON_AddNumberToObject(o, "questionnaire_id", (double)a->questionnaire_id);
	json_add_str(o, "created_by", a->created_by);
	json_add_str(o, "created_at", a->created_at);
	json_add_str(o, "submitted_at", a->submitted_at);
	json_add_str(o, "approved_at", a->approved_at);
	json_add_str(o, "reviewer", a->reviewer);
	q = cJSON_AddObjectToObject(o, "questionnaire");
	if (a->has_questionnaire) {
		json_add_str(q, "qid", a->q_qid);
		cJSON_AddNumberToObject(q, "version", (double)a->q_version);
		json_add_str(q, "title", a->q_title);
		json_add_str(q, "sha256", a->q_sha256);
	}
	if (a->approval != NULL)
		approval_add_json(o, a->approval);
	cJSON_AddStringToObject(o, "rating", rating_name(a->rating));
	cJSON_AddNumberToObject(o, "risk_score", a->risk_score);
	cJSON_AddStringToObject(o, "worst_risk", risk_name(a->worst_risk));
	cJSON_AddNumberToObject(o, "unanswered_required", (double)a->unanswered_required);
	cJSON_AddNumberToObject(o, "contradicted_claims", (double)a->contradicted_claims);
	json_add_str(o, "contradicted_by", a->contradicted_by);
	ans = cJSON_AddArrayToObject(o, "answers");
	for (size_t i = 0; i < a->nanswers; i++)
		cJSON_AddItemToArray(ans, answer_json(&a->answers[i]));
	if (a->has_approved_score) {
		cJSON *ap = cJSON_AddObjectToObject(o, "approved_score");

		cJSON_AddStringToObject(ap, "rating", rating_name(a->approved_rating));
		cJSON_AddNumberToObject(ap, "risk_score", a->approved_risk_score);
	} else {
		cJSON_AddNullToObject(o, "approved_score");
	}
	json_add_str(o, "since_approval", a->since_approval);
	return o;
}

cJSON *
report_options_json(const struct report_doc *d)
{
	cJSON *o = cJSON_CreateObject();

	add_id_or_null(o, "assessment", d->opt_assessment);
	cJSON_AddItemToObject(o, "runs", d->has_opt_runs ? ids_json(d->opt_runs, d->nopt_runs) :
	    cJSON_CreateNull());
	json_add_str(o, "since", d->opt_since);
	add_id_or_null(o, "incident", d->opt_incident);
	cJSON_AddNumberToObject(o, "retain_years", (double)d->opt_retain_years);
	cJSON_AddBoolToObject(o, "include_leaked_content", d->opt_include_leaked);
	return o;
}

static cJSON *
summary_json(const struct report_doc *d)
{
	const struct report_summary *m = &d->summary;
	cJSON *s = cJSON_CreateObject(), *c, *a;

	vendor_verdict_add_json(s, &m->verdict);
	json_add_str(s, "rating_rule", m->rating_rule);
	json_add_str(s, "assessment_rating_rule", m->assessment_rating_rule);
	c = cJSON_AddObjectToObject(s, "findings");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		cJSON_AddNumberToObject(c, severity_name((enum severity)i), (double)m->findings[i]);
	c = cJSON_AddObjectToObject(s, "claims");
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		cJSON_AddNumberToObject(c, claim_status_name((enum claim_status)i), (double)m->claims[i]);
	cJSON_AddNumberToObject(c, "contradicted_not_rated", (double)m->claims_contradicted_unrated);
	a = cJSON_AddArrayToObject(s, "critical_findings");
	for (size_t i = 0; i < m->ncritical; i++)
		if (m->critical[i] < d->nfindings)
			cJSON_AddItemToArray(a, report_finding_json(&d->findings[m->critical[i]]));
	a = cJSON_AddArrayToObject(s, "contradicted_claims");
	for (size_t i = 0; i < m->ncontradicted; i++)
		if (m->contradicted[i] < d->claims.n)
			cJSON_AddItemToArray(a, claim_to_json(&d->claims.items[m->contradicted[i]]));
	return s;
}

/* The vendor's endpoints as endpoint_to_json writes them: the record holds no
 * reference to a secret (report_collect dropped each), so none is written. */
static cJSON *
endpoints_json(const struct endpoint_list *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, endpoint_to_json(&l->items[i]));
	return a;
}

static cJSON *
incidents_json(const struct report_doc *d)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < d->nincidents; i++) {
		cJSON *o = incident_to_json(&d->incidents[i].inc);

		if (d->incidents[i].has_files)
			cJSON_AddItemToObject(o, "evidence_files", evidence_list_json(d->incidents[i].files,
			    d->incidents[i].nfiles));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void
add_header(cJSON *rep, const struct report_doc *d)
{
	cJSON *cp;

	if (d->audit_failure != NULL)
		cJSON_AddStringToObject(rep, "audit_failure", d->audit_failure);
	json_add_str(rep, "format", d->format);
	json_add_str(rep, "report_id", d->report_id);
	json_add_str(rep, "aivet_version", d->aivet_version);
	json_add_str(rep, "generated_at", d->generated_at);
	/* The zone every end-of-day deadline below ends in; null: none set, UTC assumed. */
	json_add_str(rep, "organisation_timezone", d->organisation_timezone);
	json_add_str(rep, "retention_until", d->retention_until);
	json_add_str(rep, "signer_key_id", d->signer_key_id);
	json_add_str(rep, "signer_public_key", d->signer_public_key);
	cJSON_AddItemToObject(rep, "options", report_options_json(d));
	cp = cJSON_AddObjectToObject(rep, "audit_checkpoint");
	cJSON_AddNumberToObject(cp, "entries", (double)d->audit_entries);
	json_add_str(cp, "head", d->audit_head);
	cJSON_AddBoolToObject(cp, "intact", d->audit_intact);
}

cJSON *
report_doc_to_json(const struct report_doc *d)
{
	cJSON *rep = cJSON_CreateObject(), *a;

	add_header(rep, d);
	cJSON_AddItemToObject(rep, "vendor", vendor_to_json(&d->vendor));
	cJSON_AddItemToObject(rep, "endpoints", endpoints_json(&d->endpoints));
	a = cJSON_AddArrayToObject(rep, "assessments");
	for (size_t i = 0; i < d->nassessments; i++)
		cJSON_AddItemToArray(a, assessment_json_of(&d->assessments[i]));
	cJSON_AddItemToObject(rep, "summary", summary_json(d));
	cJSON_AddItemToObject(rep, "superseded_findings", findings_json(d->superseded, d->nsuperseded));
	a = cJSON_AddArrayToObject(rep, "probe_runs");
	for (size_t i = 0; i < d->nruns; i++)
		cJSON_AddItemToArray(a, report_run_json(&d->runs[i]));
	cJSON_AddItemToObject(rep, "claims", claim_list_to_json(&d->claims));
	cJSON_AddItemToObject(rep, "findings", findings_json(d->findings, d->nfindings));
	cJSON_AddItemToObject(rep, "incidents", incidents_json(d));
	a = cJSON_AddArrayToObject(rep, "evidence_files");
	for (size_t i = 0; i < d->nfiles; i++) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "path", d->files[i].path);
		cJSON_AddStringToObject(f, "sha256", d->files[i].sha256);
		cJSON_AddNumberToObject(f, "size", (double)d->files[i].size);
		cJSON_AddItemToArray(a, f);
	}
	/* Last, as the token is made last: over SHA256SUMS once it is signed. */
	if (d->tsa_url != NULL) {
		cJSON *ts = cJSON_AddObjectToObject(rep, "time_stamp");

		cJSON_AddStringToObject(ts, "tsa_url", d->tsa_url);
		cJSON_AddStringToObject(ts, "token", "SHA256SUMS" TSA_TOKEN_SUFFIX);
	}
	return rep;
}

/* The printed bytes: tab-indented cJSON and a trailing newline. */
char *
report_json_text(const cJSON *report)
{
	char *s = cJSON_Print(report), *t;

	if (s == NULL)
		die("out of memory");
	t = xasprintf("%s\n", s);
	free(s);
	return t;
}
