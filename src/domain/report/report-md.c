/*
 * report-md.c: report.md — the content of report.html as Markdown (tables
 * for findings, claims, results and answers; the sweep as a table of points
 * instead of a chart), for review systems and diffs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report.h"
#include "report-doc.h"

/* A table cell: no pipes or newlines may break the row, no markup may run. */
static void
cell_text(struct buf *b, const char *s)
{
	if (s == NULL)
		buf_adds(b, "—");
	else
		md_escape(b, s, " ");
}

/* Text from the report (names, titles, actors) for running prose: escaped,
 * kept in the pool until the document is done. */
struct pool {
	char **v;
	size_t n;
};

static const char *
esc(struct pool *p, const char *s)
{
	struct buf b;

	if (s == NULL)
		return NULL;
	buf_init(&b);
	md_escape(&b, s, " ");
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n] = buf_steal(&b);
	return p->v[p->n++];
}

/* A table's head: the titles, NULL-terminated, and the rule under them. */
static void
head(struct buf *b, const char *const titles[])
{
	buf_adds(b, "|");
	for (int i = 0; titles[i] != NULL; i++)
		buf_printf(b, " %s |", titles[i]);
	buf_adds(b, "\n|");
	for (int i = 0; titles[i] != NULL; i++)
		buf_adds(b, "---|");
	buf_adds(b, "\n");
}

/* Cells: text, with the words for a missing value (so that no cell says
 * null); a number; a number that may be missing; a free-form value. */
static void
cell_s(struct buf *b, const char *s, const char *missing)
{
	buf_adds(b, " ");
	cell_text(b, s != NULL ? s : missing);
	buf_adds(b, " |");
}

static void
cell_i(struct buf *b, int64_t v)
{
	buf_printf(b, " %lld |", (long long)v);
}

/* A number as report.json prints it. */
static void
cell_n(struct buf *b, int has, double v, const char *missing)
{
	cJSON *n;
	char *t;

	if (!has) {
		cell_s(b, NULL, missing);
		return;
	}
	n = cJSON_CreateNumber(v);
	t = cJSON_PrintUnformatted(n);
	cell_s(b, t, missing);
	free(t);
	cJSON_Delete(n);
}

static void
cell_j(struct buf *b, const cJSON *v, const char *missing)
{
	buf_adds(b, " ");
	if (v == NULL || cJSON_IsNull(v)) {
		cell_text(b, missing);
	} else if (cJSON_IsString(v)) {
		cell_text(b, v->valuestring);
	} else if (cJSON_IsBool(v)) {
		cell_text(b, cJSON_IsTrue(v) ? "yes" : "no");
	} else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 && cJSON_IsString(v->child)) {
		const cJSON *e;

		cJSON_ArrayForEach(e, v) {
			if (e != v->child)
				buf_adds(b, ", ");
			cell_text(b, cJSON_IsString(e) ? e->valuestring : "");
		}
	} else {
		char *t = cJSON_PrintUnformatted(v);

		cell_text(b, t);
		free(t);
	}
	buf_adds(b, " |");
}

/* A relative Markdown link to a piece of evidence in the bundle (an exchange
 * by id, or an evidence record); text NULL: its name. */
static void
md_evidence_link(struct buf *b, const struct report_doc *d, int64_t id, const struct report_evidence *e,
    const char *text)
{
	struct report_ref ref;

	report_evidence_ref(d, id, e, &ref);
	if (ref.path == NULL) {
		md_escape(b, ref.name, " ");
		buf_adds(b, " (");
		md_escape(b, ref.note, " ");
		buf_adds(b, ")");
		return;
	}
	buf_adds(b, "[");
	for (const char *p = text != NULL ? text : ref.name; *p != '\0'; p++) {
		char one[2] = { *p, '\0' };

		if (strchr("*_", *p) != NULL)   /* md_escape takes care of []\\` */
			buf_adds(b, "\\");
		md_escape(b, one, " ");
	}
	buf_adds(b, "](");
	report_href(b, ref.path);
	buf_adds(b, ")");
}

/* Links to a list of evidence (exchange ids, or records when ids is NULL). */
static void
md_evidence_list(struct buf *b, const struct report_doc *d, const int64_t *ids,
    const struct report_evidence *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			buf_adds(b, ", ");
		md_evidence_link(b, d, ids != NULL ? ids[i] : 0, ids != NULL ? NULL : &recs[i], NULL);
	}
	if (n == 0)
		buf_adds(b, "none");
}

static void
cell_evidence(struct buf *b, const struct report_doc *d, const int64_t *ids,
    const struct report_evidence *recs, size_t n)
{
	buf_adds(b, " ");
	md_evidence_list(b, d, ids, recs, n);
	buf_adds(b, " |");
}

/* A cell linking an exchange, with text as the link's words. */
static void
cell_exchange(struct buf *b, const struct report_doc *d, int64_t id, const char *text)
{
	buf_adds(b, " ");
	md_evidence_link(b, d, id, NULL, text);
	buf_adds(b, " |");
}

/* Findings, each list[idx[i]] (list[i] when idx is NULL), with the run that
 * superseded them when superseded. */
static void
findings_table(struct buf *b, const struct report_doc *d, const struct report_finding *list,
    const size_t *idx, size_t n, int superseded)
{
	static const char *const open_cols[] = { "Severity", "Code", "Probe", "Run", "Message", "Evidence",
		NULL };
	static const char *const sup_cols[] = { "Severity", "Code", "Probe", "Run", "Superseded by run",
		"Message", "Evidence", NULL };

	head(b, superseded ? sup_cols : open_cols);
	for (size_t i = 0; i < n; i++) {
		const struct report_finding *f = &list[idx != NULL ? idx[i] : i];

		buf_adds(b, "|");
		cell_s(b, severity_name(f->severity), "none");
		cell_s(b, f->code, "none");
		cell_s(b, f->probe, "none");
		cell_i(b, f->run_id);
		if (superseded)
			cell_n(b, f->superseded_by_run != 0, (double)f->superseded_by_run, "none");
		cell_s(b, f->message, "none");
		cell_evidence(b, d, f->evidence, NULL, f->nevidence);
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

/* Claims, each list[idx[i]] (list[i] when idx is NULL). */
static void
claims_table(struct buf *b, const struct report_doc *d, const size_t *idx, size_t n)
{
	static const char *const cols[] = { "Question", "Round", "Vendor's answer", "Endpoint", "Claim",
		"On what evidence", NULL };

	head(b, cols);
	for (size_t i = 0; i < n; i++) {
		const struct claim *c = &d->claims.items[idx != NULL ? idx[i] : i];
		char round[160];

		report_claim_round(d, c, round, sizeof round);
		buf_adds(b, "|");
		cell_s(b, c->question_id, "none");
		cell_s(b, round, "-");
		cell_j(b, c->answer, "not answered");
		cell_s(b, c->endpoint, "none");
		cell_s(b, claim_status_name(c->status), "none");
		cell_s(b, c->reason, "no reason recorded");
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

/* The header: who made and signed the report, and when. */
static void
md_head(struct buf *b, const struct report *r, struct pool *pool)
{
	const struct report_doc *d = r->doc;
	struct buf t;

	buf_printf(b, "# Vendor report: %s\n\n", esc(pool, d->vendor.name));
	buf_printf(b, "- Report: `%s`\n- Generated: %s\n- Keep until: %s\n- Signed by key: `%s`\n"
	    "- Signer's public key: `%s` (compare it with the key obtained out of band)\n"
	    "- aivet: %s\n", d->report_id, d->generated_at, d->retention_until,
	    d->signer_key_id ? d->signer_key_id : "—", d->signer_public_key ? d->signer_public_key : "—",
	    d->aivet_version);
	buf_init(&t);
	tsa_request_words(r->doc->tsa_url, &t);
	buf_printf(b, "- Time: %s\n\n", esc(pool, t.data));
	buf_free(&t);
}

/* The summary: rating, counts, what most needs a reader's eye, then the
 * claims and the findings. */
static void
md_summary(struct buf *b, const struct report_doc *d)
{
	const struct report_summary *sum = &d->summary;

	buf_printf(b, "## Summary\n\nOverall rating: **%s**\n\n", rating_name(sum->verdict.rating));
	if (sum->rating_rule != NULL)
		buf_printf(b, "The overall rating is %s%s%s\n\n", sum->rating_rule,
		    sum->assessment_rating_rule ? " An assessment is " : "",
		    sum->assessment_rating_rule ? sum->assessment_rating_rule : "");
	buf_adds(b, "|");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		buf_printf(b, " open %s |", severity_name((enum severity)i));
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		buf_printf(b, " claims %s |", claim_status_name((enum claim_status)i));
	buf_adds(b, "\n|");
	for (int i = 0; i < SEV_COUNT + CLAIM_STATUS_COUNT; i++)
		buf_adds(b, "---|");
	buf_adds(b, "\n|");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		buf_printf(b, " %lld |", (long long)sum->findings[i]);
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		buf_printf(b, " %lld |", (long long)sum->claims[i]);
	buf_adds(b, "\n\n### Critical and high findings\n\n");
	if (sum->ncritical == 0)
		buf_adds(b, "None.\n\n");
	else
		findings_table(b, d, d->findings, sum->critical, sum->ncritical, 0);
	buf_adds(b, "### Contradicted claims\n\n");
	if (sum->claims_contradicted_unrated > 0)
		buf_printf(b, "Of the rounds the rating reads; %lld more in a round it does not read "
		    "(Claims against evidence names each claim's round).\n\n",
		    (long long)sum->claims_contradicted_unrated);
	if (sum->ncontradicted == 0)
		buf_adds(b, "None.\n\n");
	else
		claims_table(b, d, sum->contradicted, sum->ncontradicted);
	buf_adds(b, "## Claims against evidence\n\n");
	if (d->claims.n == 0)
		buf_adds(b, "No answered question is linked to a probe.\n\n");
	else
		claims_table(b, d, NULL, d->claims.n);
	buf_adds(b, "## Open findings\n\n");
	if (d->nfindings == 0)
		buf_adds(b, "None.\n\n");
	else
		findings_table(b, d, d->findings, NULL, d->nfindings, 0);
	buf_adds(b, "## Superseded findings (a later run of the probe replaced them; the rating does "
	    "not read them)\n\n");
	if (d->nsuperseded == 0)
		buf_adds(b, "None.\n\n");
	else
		findings_table(b, d, d->superseded, NULL, d->nsuperseded, 1);
}

/* How the run measured tokens per word, as a table with each sample's exchange. */
static void
md_calibration(struct buf *b, const struct report_doc *d, const struct run_calibration *cal)
{
	struct report_rows rows;

	report_calibration_rows(cal, &rows);
	buf_adds(b, "| Calibration | Value | Evidence |\n|---|---|---|\n");
	for (size_t i = 0; i < rows.n; i++) {
		buf_adds(b, "| ");
		md_escape(b, rows.v[i].label, " ");
		buf_adds(b, " | ");
		md_escape(b, rows.v[i].value, " ");
		buf_adds(b, " | ");
		if (rows.v[i].evidence > 0)
			md_evidence_link(b, d, rows.v[i].evidence, NULL, NULL);
		else
			buf_adds(b, "—");
		buf_adds(b, " |\n");
	}
	buf_adds(b, "\n");
	report_rows_free(&rows);
}

/* The sweep's boundaries in words and its points, each naming its exchange
 * as the exchanges' table does. */
static void
md_sweep(struct buf *b, const struct report_doc *d, const struct report_sweep *s)
{
	static const char *const cols[] = { "Tokens sent", "Status", "Accepted", "Nonces echoed", "Of",
		"Reported prompt tokens", "Evidence", NULL };
	char rb[120], ib[120];

	report_boundary_words(&s->b, 1, rb, sizeof rb);
	report_boundary_words(&s->b, 0, ib, sizeof ib);
	if (s->b.has_advertised)
		buf_printf(b, "Context-integrity sweep: advertised %.0f tokens; ", s->b.advertised);
	else
		buf_adds(b, "Context-integrity sweep: advertised context not stated; ");
	buf_printf(b, "refusal boundary %s; integrity boundary %s; change past the limit: "
	    "**%s**.\n\n", rb, ib, s->b.change ? s->b.change : "not judged");
	head(b, cols);
	for (size_t i = 0; i < s->npoints; i++) {
		const struct size_point *p = &s->points[i];
		char num[32];

		buf_adds(b, "|");
		cell_n(b, p->has_tokens_sent, p->tokens_sent, "not counted");
		cell_n(b, p->has_status, p->status, "no response");
		cell_s(b, p->has_accepted ? (p->accepted ? "yes" : "no") : NULL, "no");
		cell_n(b, p->has_nonces_echoed, p->nonces_echoed, "not checked");
		cell_n(b, p->has_nonces_total, p->nonces_total, "not counted");
		cell_n(b, p->has_usage, p->usage_prompt_tokens, "not reported");
		snprintf(num, sizeof num, "%lld", (long long)p->evidence);
		if (p->has_evidence)
			cell_exchange(b, d, p->evidence, num);
		else
			cell_s(b, NULL, "none");
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

/* A run's exchanges, each id and file a link to the exchange's file. */
static void
md_exchanges(struct buf *b, const struct report_doc *d, const struct report_run *x)
{
	static const char *const cols[] = { "Evidence", "Probe", "Seq", "Tenant", "Status", "File",
		"SHA-256 of the file", NULL };

	head(b, cols);
	for (size_t i = 0; i < x->nexchanges; i++) {
		const struct report_exchange *e = &x->exchanges[i];
		char num[32];

		snprintf(num, sizeof num, "%lld", (long long)e->evidence_id);
		buf_adds(b, "|");
		cell_exchange(b, d, e->evidence_id, num);
		cell_s(b, e->probe, "none");
		cell_i(b, e->seq);
		cell_s(b, e->tenant, "none");
		cell_n(b, e->has_status, (double)e->status, "no response");
		cell_exchange(b, d, e->evidence_id, e->file);
		cell_s(b, e->file_sha256, "none");
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

/* Each run: results, calibration, the sweep's points, the exchanges. */
static void
md_runs(struct buf *b, const struct report_doc *d, struct pool *pool)
{
	static const char *const res_cols[] = { "Probe", "Verdict", "Reason", "Requests", NULL };

	buf_adds(b, "## Probe runs\n\n");
	if (d->nruns == 0)
		buf_adds(b, "No probe runs in this report.\n\n");
	for (size_t i = 0; i < d->nruns; i++) {
		const struct report_run *x = &d->runs[i];

		buf_printf(b, "### Run %d on %s\n\nStatus %s, started %s, %s%s.\n\n", (int)x->id,
		    x->endpoint ? esc(pool, x->endpoint) : "?", run_state_name(x->state),
		    x->started_at ? x->started_at : "?", x->finished_at ? "finished " : "not finished",
		    x->finished_at ? x->finished_at : "");
		head(b, res_cols);
		for (size_t k = 0; k < x->nresults; k++) {
			const struct report_result *r = &x->results[k];

			buf_adds(b, "|");
			cell_s(b, r->probe, "none");
			cell_s(b, probe_verdict_name(r->verdict), "none");
			cell_s(b, r->reason, "no reason recorded");
			cell_n(b, r->has_requests, (double)r->requests, "not counted");
			buf_adds(b, "\n");
		}
		buf_adds(b, "\n");
		md_calibration(b, d, &x->cal);
		for (size_t k = 0; k < x->nresults; k++)
			if (x->results[k].sweep.present)
				md_sweep(b, d, &x->results[k].sweep);
		if (x->nexchanges > 0)
			md_exchanges(b, d, x);
	}
}

/* Who made, submitted and approved an assessment, and how it is rated. */
static void
md_assessment_head(struct buf *b, const struct report_assessment *x, struct pool *pool)
{
	buf_printf(b, "### Assessment %d, round %d: %s\n\nStatus %s; created by %s at %s; ", (int)x->id,
	    (int)x->round, x->q_title ? esc(pool, x->q_title) : "?", assessment_status_name(x->status),
	    x->created_by ? esc(pool, x->created_by) : "?", x->created_at ? x->created_at : "?");
	if (x->submitted_at != NULL)
		buf_printf(b, "submitted %s; ", x->submitted_at);
	else
		buf_adds(b, "not submitted; ");
	if (x->approved_at != NULL && x->since_approval != NULL)
		buf_printf(b, "approved %s by %s, %s.\n\n", x->approved_at,
		    x->reviewer ? esc(pool, x->reviewer) : "an unrecorded reviewer", esc(pool, x->since_approval));
	else if (x->approved_at != NULL)
		buf_printf(b, "approved %s by %s.\n\n", x->approved_at,
		    x->reviewer ? esc(pool, x->reviewer) : "an unrecorded reviewer");
	else
		buf_adds(b, "not approved.\n\n");
	if (x->approval != NULL && x->approval->self_declared)
		buf_printf(b, "The reviewer's name is self-declared (on SQLite anyone can type any name): "
		    "the approval is signed with key %s, registered to that name here; an auditor checks "
		    "it with the reviewer's key as obtained from the reviewer (VERIFY.txt).\n\n",
		    x->approval->key_id ? x->approval->key_id : "?");
	/* Rated as assess show rates it (report.json's rating, contradicted claims counted). */
	buf_printf(b, "Rating **%s**, risk score %.1f (worst answer %s)", rating_name(x->rating),
	    x->risk_score, risk_name(x->worst_risk));
	if (x->contradicted_claims > 0) {
		int n = (int)x->contradicted_claims;

		buf_printf(b, "; %d contradicted claim%s counted high: %s", n, n == 1 ? "" : "s",
		    x->contradicted_by ? esc(pool, x->contradicted_by) : "");
	}
	buf_adds(b, ".\n\n");
}

/* Each assessment: who made, submitted and approved it, every answer with its evidence. */
static void
md_assessments(struct buf *b, const struct report_doc *d, struct pool *pool)
{
	static const char *const cols[] = { "Question", "Answer", "Risk", "Claim", "Note", "By", "At",
		"Evidence", NULL };

	buf_adds(b, "## Assessments\n\n");
	if (d->nassessments == 0)
		buf_adds(b, "No assessments in this report.\n\n");
	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *x = &d->assessments[i];

		md_assessment_head(b, x, pool);
		head(b, cols);
		for (size_t k = 0; k < x->nanswers; k++) {
			const struct report_answer *y = &x->answers[k];

			buf_adds(b, "|");
			cell_s(b, y->question_id, "none");
			cell_j(b, y->value, "not answered");
			cell_s(b, y->rated ? risk_name(y->risk) : NULL, "none");
			cell_s(b, claim_status_name(y->claim), "not testable");
			cell_s(b, y->note, "none");
			cell_s(b, y->actor, "none");
			cell_s(b, y->updated_at, "none");
			cell_evidence(b, d, NULL, y->evidence, y->nevidence);
			buf_adds(b, "\n");
		}
		buf_adds(b, "\n");
	}
}

/* An incident's timeline, clocks and tasks. */
static void
md_incident_tables(struct buf *b, const struct incident *x)
{
	static const char *const tl_cols[] = { "When (UTC)", "Kind", "Who", "What", NULL };
	static const char *const clock_cols[] = { "Clock", "State", "Due", "Stopped", "Why", NULL };
	static const char *const task_cols[] = { "Task", "Owner", "Due", "Done", NULL };

	head(b, tl_cols);
	for (size_t i = 0; i < x->ntimeline; i++) {
		buf_adds(b, "|");
		cell_s(b, x->timeline[i].at_utc, "none"), cell_s(b, x->timeline[i].kind, "none");
		cell_s(b, x->timeline[i].actor, "none"), cell_s(b, x->timeline[i].text, "none");
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
	if (x->clocks[0].name != NULL) {
		buf_printf(b, "Notification clocks as of %s:\n\n", x->as_of ? x->as_of : "?");
		head(b, clock_cols);
		for (int i = 0; i < CLOCK_COUNT && x->clocks[i].name != NULL; i++) {
			const struct incident_clock *c = &x->clocks[i];
			char t[32];

			if (c->applies && c->stopped_ms >= 0)
				fmt_time_ms(c->stopped_ms, t);
			buf_adds(b, "|");
			cell_s(b, c->name, "none"), cell_s(b, c->state, "none");
			cell_s(b, c->applies ? c->due_text : NULL, "no deadline");
			cell_s(b, c->applies && c->stopped_ms >= 0 ? t : NULL, "not stopped");
			cell_s(b, c->basis, "none");
			buf_adds(b, "\n");
		}
		buf_adds(b, "\n");
	}
	if (x->ntasks > 0) {
		head(b, task_cols);
		for (size_t i = 0; i < x->ntasks; i++) {
			buf_adds(b, "|");
			cell_s(b, x->tasks[i].title, "none"), cell_s(b, x->tasks[i].owner, "nobody");
			cell_s(b, x->tasks[i].due_at, "no date"), cell_s(b, x->tasks[i].done_at, "not done");
			buf_adds(b, "\n");
		}
		buf_adds(b, "\n");
	}
}

/* Each incident: timeline, clocks, tasks and linked evidence. */
static void
md_incidents(struct buf *b, const struct report_doc *d, struct pool *pool)
{
	buf_adds(b, "## Incidents\n\n");
	if (d->nincidents == 0)
		buf_adds(b, "None.\n\n");
	for (size_t i = 0; i < d->nincidents; i++) {
		const struct report_incident *ri = &d->incidents[i];
		struct buf f;

		buf_init(&f);
		report_incident_facts(&ri->inc, &f);
		buf_printf(b, "### Incident %d: %s\n\n%s\n\n", (int)ri->inc.id,
		    ri->inc.title ? esc(pool, ri->inc.title) : "?", esc(pool, f.data));
		buf_free(&f);
		md_incident_tables(b, &ri->inc);
		if (ri->has_files && ri->nfiles > 0) {
			buf_adds(b, "Linked evidence: ");
			md_evidence_list(b, d, NULL, ri->files, ri->nfiles);
			buf_adds(b, "\n\n");
		}
	}
}

/* The endpoints, then the audit checkpoint the bundle was made at. */
static void
md_endpoints_integrity(struct buf *b, const struct report_doc *d)
{
	static const char *const cols[] = { "Name", "API", "URL", "Model", "Advertised context", "Status",
		NULL };

	buf_adds(b, "## Endpoints\n\n");
	head(b, cols);
	for (size_t i = 0; i < d->endpoints.n; i++) {
		const struct endpoint *e = &d->endpoints.items[i];

		buf_adds(b, "|");
		cell_s(b, e->name, "none"), cell_s(b, e->api, "none"), cell_s(b, e->url, "none");
		cell_s(b, e->model, "none"), cell_i(b, e->context_tokens), cell_s(b, e->status, "none");
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
	buf_printf(b, "## Integrity\n\nAudit log at export: %d entries, head `%s` (chain %s). The "
	    "bundle's SHA256SUMS is signed; VERIFY.txt says how to check it.\n", (int)d->audit_entries,
	    d->audit_head ? d->audit_head : "?", d->audit_intact ? "intact" : "BROKEN");
}

char *
report_markdown(const struct report *r)
{
	const struct report_doc *d = r->doc;
	struct pool pool = { NULL, 0 };
	struct buf b;

	buf_init(&b);
	if (d->audit_failure != NULL)
		buf_printf(&b, "**%s**\n\n", esc(&pool, d->audit_failure));
	md_head(&b, r, &pool);
	md_summary(&b, d);
	md_runs(&b, d, &pool);
	md_assessments(&b, d, &pool);
	md_incidents(&b, d, &pool);
	md_endpoints_integrity(&b, d);
	for (size_t i = 0; i < pool.n; i++)
		free(pool.v[i]);
	free(pool.v);
	return buf_steal(&b);
}
