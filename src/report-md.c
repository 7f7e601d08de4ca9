/*
 * report-md.c: report.md — the content of report.html as Markdown (tables
 * for findings, claims, results and answers; the sweep as a table of points
 * instead of a chart), for review systems and diffs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "report.h"

static const char *
s_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
md_escape(struct buf *b, const char *s, const char *newline)
{
	/* Control characters first (text_escape), then what Markdown and the HTML
	 * it is rendered to would read as structure: markup, entities, cell bars. */
	char *nocr = xstrdup(s), *q = nocr, *t;

	for (const char *p = s; *p != '\0'; p++)
		if (*p != '\r')   /* line ends written by spreadsheets on Windows */
			*q++ = *p;
	*q = '\0';
	t = text_escape(nocr, strlen(nocr), 1);
	free(nocr);
	for (const char *p = t; *p != '\0'; p++) {
		if (*p == '|')
			buf_adds(b, "\\|");
		else if (*p == '<')
			buf_adds(b, "&lt;");
		else if (*p == '>')
			buf_adds(b, "&gt;");
		else if (*p == '&')
			buf_adds(b, "&amp;");
		else if (*p == '\n')
			buf_adds(b, newline);
		else
			buf_add(b, p, 1);
	}
	free(t);
}

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

static void
cell(struct buf *b, const cJSON *v)
{
	buf_adds(b, " ");
	if (v == NULL || cJSON_IsNull(v)) {
		cell_text(b, NULL);
	} else if (cJSON_IsString(v)) {
		cell_text(b, v->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(v);

		cell_text(b, t);
		free(t);
	}
	buf_adds(b, " |");
}

/* A table: header titles and the object keys of each row's cells. */
static void
table(struct buf *b, const cJSON *rows, const char *const *titles, const char *const *keys)
{
	const cJSON *r;

	buf_adds(b, "|");
	for (int i = 0; titles[i] != NULL; i++)
		buf_printf(b, " %s |", titles[i]);
	buf_adds(b, "\n|");
	for (int i = 0; titles[i] != NULL; i++)
		buf_adds(b, "---|");
	buf_adds(b, "\n");
	cJSON_ArrayForEach(r, rows) {
		buf_adds(b, "|");
		for (int i = 0; keys[i] != NULL; i++)
			cell(b, cJSON_GetObjectItem(r, keys[i]));
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

/* The answers of an assessment, with the files attached to each as the bundle
 * stores them (evidence/...), or by name when the bundle left one out. */
static void
answers_table(struct buf *b, const cJSON *answers)
{
	static const char *const keys[] = { "question_id", "value", "note", "actor", "updated_at", NULL };
	const cJSON *r, *e;

	buf_adds(b, "| Question | Answer | Note | By | At | Evidence |\n|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(r, answers) {
		buf_adds(b, "|");
		for (int i = 0; keys[i] != NULL; i++)
			cell(b, cJSON_GetObjectItem(r, keys[i]));
		buf_adds(b, " ");
		if (cJSON_GetArraySize(cJSON_GetObjectItem(r, "evidence")) == 0)
			cell_text(b, NULL);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "evidence")) {
			if (e != cJSON_GetObjectItem(r, "evidence")->child)
				buf_adds(b, ", ");
			cell_text(b, s_of(e, "file") ? s_of(e, "file") : s_of(e, "original_name"));
		}
		buf_adds(b, " |\n");
	}
	buf_adds(b, "\n");
}

static const char *const finding_titles[] = { "Severity", "Code", "Probe", "Run", "Message", NULL };
static const char *const finding_keys[] = { "severity", "code", "probe", "run_id", "message", NULL };
static const char *const claim_titles[] = { "Question", "Vendor's answer", "Endpoint", "Claim",
	"On what evidence", NULL };
static const char *const claim_keys[] = { "question_id", "answer", "endpoint", "status", "reason", NULL };

static void
list_or_none(struct buf *b, const cJSON *rows, const char *const *t, const char *const *k,
    const char *none)
{
	if (cJSON_GetArraySize(rows) == 0)
		buf_printf(b, "%s\n\n", none);
	else
		table(b, rows, t, k);
}

char *
report_markdown(const cJSON *rep)
{
	static const char *const res_t[] = { "Probe", "Verdict", "Reason", "Requests", NULL };
	static const char *const res_k[] = { "probe", "verdict", "reason", "requests", NULL };
	static const char *const pt_t[] = { "Tokens sent", "Status", "Accepted", "Nonces echoed",
		"Of", "Reported prompt tokens", NULL };
	static const char *const pt_k[] = { "tokens_sent", "status", "accepted", "nonces_echoed",
		"nonces_total", "usage_prompt_tokens", NULL };
	static const char *const ex_t[] = { "Evidence", "Probe", "Seq", "Tenant", "Status", "File",
		"SHA-256 of the file", NULL };
	static const char *const ex_k[] = { "evidence_id", "probe", "seq", "tenant", "status", "file",
		"file_sha256", NULL };
	static const char *const tl_t[] = { "When (UTC)", "Kind", "Who", "What", NULL };
	static const char *const tl_k[] = { "at_utc", "kind", "actor", "text", NULL };
	static const char *const clock_t[] = { "Clock", "State", "Due", "Stopped", "Why", NULL };
	static const char *const clock_k[] = { "name", "state", "due", "stopped_at", "basis", NULL };
	static const char *const task_t[] = { "Task", "Owner", "Due", "Done", NULL };
	static const char *const task_k[] = { "title", "owner", "due_at", "done_at", NULL };
	static const char *const ep_t[] = { "Name", "API", "URL", "Model", "Advertised context",
		"Status", NULL };
	static const char *const ep_k[] = { "name", "api", "url", "model", "context_tokens", "status", NULL };
	const cJSON *v = cJSON_GetObjectItem(rep, "vendor"), *sum = cJSON_GetObjectItem(rep, "summary");
	const cJSON *cp = cJSON_GetObjectItem(rep, "audit_checkpoint"), *x, *y;
	struct pool pool = { NULL, 0 };
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "# Vendor report: %s\n\n", esc(&pool, s_of(v, "name")));
	buf_printf(&b, "- Report: `%s`\n- Generated: %s\n- Keep until: %s\n- Signed by key: `%s`\n"
	    "- Signer's public key: `%s` (compare it with the key obtained out of band)\n"
	    "- aivet: %s\n\n", s_of(rep, "report_id"), s_of(rep, "generated_at"),
	    s_of(rep, "retention_until"), s_of(rep, "signer_key_id") ? s_of(rep, "signer_key_id") : "—",
	    s_of(rep, "signer_public_key") ? s_of(rep, "signer_public_key") : "—", s_of(rep, "aivet_version"));
	buf_printf(&b, "## Summary\n\nOverall rating: **%s**\n\n", s_of(sum, "rating"));
	if (s_of(sum, "rating_rule") != NULL)
		buf_printf(&b, "The overall rating is %s An assessment is %s\n\n", s_of(sum, "rating_rule"),
		    s_of(sum, "assessment_rating_rule"));
	buf_adds(&b, "|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(&b, " %s |", x->string);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(&b, " claims %s |", x->string);
	buf_adds(&b, "\n|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_adds(&b, "---|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_adds(&b, "---|");
	buf_adds(&b, "\n|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(&b, " %d |", x->valueint);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(&b, " %d |", x->valueint);
	buf_adds(&b, "\n\n### Critical and high findings\n\n");
	list_or_none(&b, cJSON_GetObjectItem(sum, "critical_findings"), finding_titles, finding_keys, "None.");
	buf_adds(&b, "### Contradicted claims\n\n");
	list_or_none(&b, cJSON_GetObjectItem(sum, "contradicted_claims"), claim_titles, claim_keys, "None.");
	buf_adds(&b, "## Claims against evidence\n\n");
	list_or_none(&b, cJSON_GetObjectItem(rep, "claims"), claim_titles, claim_keys,
	    "No answered question is linked to a probe.");
	buf_adds(&b, "## All findings\n\n");
	list_or_none(&b, cJSON_GetObjectItem(rep, "findings"), finding_titles, finding_keys, "None.");
	buf_adds(&b, "## Probe runs\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "probe_runs")) == 0)
		buf_adds(&b, "No probe runs in this report.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs")) {
		buf_printf(&b, "### Run %d on %s\n\nStatus %s, started %s, finished %s.\n\n",
		    cJSON_GetObjectItem(x, "id")->valueint,
		    s_of(x, "endpoint") ? esc(&pool, s_of(x, "endpoint")) : "?",
		    s_of(x, "status") ? s_of(x, "status") : "?",
		    s_of(x, "started_at") ? s_of(x, "started_at") : "?",
		    s_of(x, "finished_at") ? s_of(x, "finished_at") : "—");
		table(&b, cJSON_GetObjectItem(x, "results"), res_t, res_k);
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "results")) {
			const cJSON *d = cJSON_GetObjectItem(y, "details");

			if (s_of(y, "probe") && strcmp(s_of(y, "probe"), "sweep") == 0 && cJSON_IsObject(d) &&
			    cJSON_IsArray(cJSON_GetObjectItem(d, "points"))) {
				char *adv = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "advertised"));
				char *rb = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "refusal_boundary"));
				char *ib = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "integrity_boundary"));

				buf_printf(&b, "Context-integrity sweep: advertised %s, refusal boundary %s, "
				    "integrity boundary %s, change past the limit: **%s**.\n\n", adv ? adv : "—",
				    rb ? rb : "—", ib ? ib : "—", s_of(d, "change") ? s_of(d, "change") : "—");
				free(adv);
				free(rb);
				free(ib);
				table(&b, cJSON_GetObjectItem(d, "points"), pt_t, pt_k);
			}
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "exchanges")) > 0)
			table(&b, cJSON_GetObjectItem(x, "exchanges"), ex_t, ex_k);
	}
	buf_adds(&b, "## Assessments\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "assessments")) == 0)
		buf_adds(&b, "No assessments in this report.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments")) {
		const cJSON *q = cJSON_GetObjectItem(x, "questionnaire");

		buf_printf(&b, "### Assessment %d, round %d: %s\n\nStatus %s; created by %s at %s; "
		    "submitted %s; approved %s by %s.\n\n", cJSON_GetObjectItem(x, "id")->valueint,
		    cJSON_GetObjectItem(x, "round") ? cJSON_GetObjectItem(x, "round")->valueint : 1,
		    s_of(q, "title") ? esc(&pool, s_of(q, "title")) : "?",
		    s_of(x, "status") ? s_of(x, "status") : "?",
		    s_of(x, "created_by") ? esc(&pool, s_of(x, "created_by")) : "?",
		    s_of(x, "created_at") ? s_of(x, "created_at") : "?",
		    s_of(x, "submitted_at") ? s_of(x, "submitted_at") : "—",
		    s_of(x, "approved_at") ? s_of(x, "approved_at") : "—",
		    s_of(x, "reviewer") ? esc(&pool, s_of(x, "reviewer")) : "—");
		answers_table(&b, cJSON_GetObjectItem(x, "answers"));
	}
	buf_adds(&b, "## Incidents\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "incidents")) == 0)
		buf_adds(&b, "None.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "incidents")) {
		buf_printf(&b, "### Incident %d: %s\n\nStatus %s; discovered %s; PHI %s.\n\n",
		    cJSON_GetObjectItem(x, "id")->valueint, s_of(x, "title") ? esc(&pool, s_of(x, "title")) : "?",
		    s_of(x, "status") ? s_of(x, "status") : "?",
		    s_of(x, "discovered_at") ? s_of(x, "discovered_at") : "?",
		    s_of(x, "phi") ? s_of(x, "phi") : "?");
		if (cJSON_IsArray(cJSON_GetObjectItem(x, "timeline")))
			table(&b, cJSON_GetObjectItem(x, "timeline"), tl_t, tl_k);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "clocks")) > 0) {
			buf_printf(&b, "Notification clocks as of %s:\n\n", s_of(x, "as_of") ? s_of(x, "as_of") : "?");
			table(&b, cJSON_GetObjectItem(x, "clocks"), clock_t, clock_k);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "tasks")) > 0)
			table(&b, cJSON_GetObjectItem(x, "tasks"), task_t, task_k);
	}
	buf_adds(&b, "## Endpoints\n\n");
	table(&b, cJSON_GetObjectItem(rep, "endpoints"), ep_t, ep_k);
	buf_printf(&b, "## Integrity\n\nAudit log at export: %d entries, head `%s` (chain %s). The "
	    "bundle's SHA256SUMS is signed; VERIFY.txt says how to check it.\n",
	    cJSON_GetObjectItem(cp, "entries") ? cJSON_GetObjectItem(cp, "entries")->valueint : 0,
	    s_of(cp, "head") ? s_of(cp, "head") : "?",
	    cJSON_IsTrue(cJSON_GetObjectItem(cp, "intact")) ? "intact" : "BROKEN");
	for (size_t i = 0; i < pool.n; i++)
		free(pool.v[i]);
	free(pool.v);
	return buf_steal(&b);
}
