/*
 * report-md.c: report.md — the content of report.html as Markdown (tables
 * for findings, claims, results and answers; the sweep as a table of points
 * instead of a chart), for review systems and diffs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aivet/domain.h"
#include "report.h"
#include "report-md.h"

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
		/* No link, image or reference definition without '[', no autolink
		 * without "://" or "www." as such, no code span: a note cannot point a
		 * reader elsewhere. A backslash is escaped too, or it would undo ours. */
		if (*p == '|' || *p == '[' || *p == ']' || *p == '`' || *p == '\\' ||
		    (*p == ':' && p[1] == '/' && p[2] == '/') ||
		    (*p == '.' && p - t >= 3 && strncasecmp(p - 3, "www", 3) == 0)) {
			buf_add(b, "\\", 1);
			buf_add(b, p, 1);
		} else if (*p == '<')
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

/* A column of a table: its title, the row's key, and the words for a
 * missing value (so that no cell says null). Keys "evidence", "evidence_id"
 * and "file" become links to the evidence files in the bundle. */
struct col {
	const char *title, *key, *missing;
};

/* A relative Markdown link to a piece of evidence in the bundle (an id or an
 * evidence object); text NULL: its name. */
static void
md_evidence_link(struct buf *b, const cJSON *rep, const cJSON *e, const char *text)
{
	struct report_ref ref;

	report_evidence_ref(rep, e, &ref);
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

static void
md_evidence_list(struct buf *b, const cJSON *rep, const cJSON *list)
{
	const cJSON *e;
	int first = 1;

	cJSON_ArrayForEach(e, list) {
		if (!first)
			buf_adds(b, ", ");
		first = 0;
		md_evidence_link(b, rep, e, NULL);
	}
	if (first)
		buf_adds(b, "none");
}

static void
cell(struct buf *b, const cJSON *rep, const cJSON *row, const struct col *c)
{
	const cJSON *v = cJSON_GetObjectItem(row, c->key);

	buf_adds(b, " ");
	if (strcmp(c->key, "evidence") == 0) {
		md_evidence_list(b, rep, v);
	} else if ((strcmp(c->key, "evidence_id") == 0 || strcmp(c->key, "file") == 0) &&
	    cJSON_IsNumber(cJSON_GetObjectItem(row, "evidence_id"))) {
		char num[32];
		const char *text = NULL;

		if (cJSON_IsString(v)) {
			text = v->valuestring;
		} else if (cJSON_IsNumber(v)) {
			snprintf(num, sizeof num, "%.0f", v->valuedouble);
			text = num;
		}
		md_evidence_link(b, rep, cJSON_GetObjectItem(row, "evidence_id"), text);
	} else if (v == NULL || cJSON_IsNull(v)) {
		cell_text(b, c->missing);
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

/* A table: one column per struct col, one row per element of rows. */
static void
table(struct buf *b, const cJSON *rep, const cJSON *rows, const struct col *cols)
{
	const cJSON *r;

	buf_adds(b, "|");
	for (int i = 0; cols[i].title != NULL; i++)
		buf_printf(b, " %s |", cols[i].title);
	buf_adds(b, "\n|");
	for (int i = 0; cols[i].title != NULL; i++)
		buf_adds(b, "---|");
	buf_adds(b, "\n");
	cJSON_ArrayForEach(r, rows) {
		buf_adds(b, "|");
		for (int i = 0; cols[i].title != NULL; i++)
			cell(b, rep, r, &cols[i]);
		buf_adds(b, "\n");
	}
	buf_adds(b, "\n");
}

static const struct col finding_cols[] = {
	{ "Severity", "severity", "none" }, { "Code", "code", "none" }, { "Probe", "probe", "none" },
	{ "Run", "run_id", "none" }, { "Message", "message", "none" }, { "Evidence", "evidence", "none" },
	{ NULL, NULL, NULL }
};
static const struct col superseded_cols[] = {
	{ "Severity", "severity", "none" }, { "Code", "code", "none" }, { "Probe", "probe", "none" },
	{ "Run", "run_id", "none" }, { "Superseded by run", "superseded_by_run", "none" },
	{ "Message", "message", "none" }, { "Evidence", "evidence", "none" }, { NULL, NULL, NULL }
};
static const struct col claim_cols[] = {
	{ "Question", "question_id", "none" }, { "Vendor's answer", "answer", "not answered" },
	{ "Endpoint", "endpoint", "none" }, { "Claim", "status", "none" },
	{ "On what evidence", "reason", "no reason recorded" }, { NULL, NULL, NULL }
};

static void
list_or_none(struct buf *b, const cJSON *rep, const cJSON *rows, const struct col *cols,
    const char *none)
{
	if (cJSON_GetArraySize(rows) == 0)
		buf_printf(b, "%s\n\n", none);
	else
		table(b, rep, rows, cols);
}

/* The header and the summary: rating, counts, what most needs a reader's eye. */
static void
md_summary(struct buf *b, const cJSON *rep, struct pool *pool)
{
	const cJSON *v = cJSON_GetObjectItem(rep, "vendor"), *sum = cJSON_GetObjectItem(rep, "summary");
	const cJSON *x;

	buf_printf(b, "# Vendor report: %s\n\n", esc(pool, s_of(v, "name")));
	buf_printf(b, "- Report: `%s`\n- Generated: %s\n- Keep until: %s\n- Signed by key: `%s`\n"
	    "- Signer's public key: `%s` (compare it with the key obtained out of band)\n"
	    "- aivet: %s\n", s_of(rep, "report_id"), s_of(rep, "generated_at"),
	    s_of(rep, "retention_until"), s_of(rep, "signer_key_id") ? s_of(rep, "signer_key_id") : "—",
	    s_of(rep, "signer_public_key") ? s_of(rep, "signer_public_key") : "—", s_of(rep, "aivet_version"));
	{
		struct buf t;

		buf_init(&t);
		tsa_report_words(rep, &t);
		buf_printf(b, "- Time: %s\n\n", esc(pool, t.data));
		buf_free(&t);
	}
	buf_printf(b, "## Summary\n\nOverall rating: **%s**\n\n",
	    s_of(sum, "rating") ? s_of(sum, "rating") : "not rated");
	if (s_of(sum, "rating_rule") != NULL)
		buf_printf(b, "The overall rating is %s%s%s\n\n", s_of(sum, "rating_rule"),
		    s_of(sum, "assessment_rating_rule") ? " An assessment is " : "",
		    s_of(sum, "assessment_rating_rule") ? s_of(sum, "assessment_rating_rule") : "");
	buf_adds(b, "|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(b, " open %s |", x->string);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(b, " claims %s |", x->string);
	buf_adds(b, "\n|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_adds(b, "---|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_adds(b, "---|");
	buf_adds(b, "\n|");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(b, " %d |", x->valueint);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(b, " %d |", x->valueint);
	buf_adds(b, "\n\n### Critical and high findings\n\n");
	list_or_none(b, rep, cJSON_GetObjectItem(sum, "critical_findings"), finding_cols, "None.");
	buf_adds(b, "### Contradicted claims\n\n");
	list_or_none(b, rep, cJSON_GetObjectItem(sum, "contradicted_claims"), claim_cols, "None.");
	buf_adds(b, "## Claims against evidence\n\n");
	list_or_none(b, rep, cJSON_GetObjectItem(rep, "claims"), claim_cols,
	    "No answered question is linked to a probe.");
	buf_adds(b, "## Open findings\n\n");
	list_or_none(b, rep, cJSON_GetObjectItem(rep, "findings"), finding_cols, "None.");
	buf_adds(b, "## Superseded findings (a later run of the probe replaced them; the rating does "
	    "not read them)\n\n");
	list_or_none(b, rep, cJSON_GetObjectItem(rep, "superseded_findings"), superseded_cols, "None.");
}

/* How the run measured tokens per word, as a table with each sample's exchange. */
static void
md_calibration(struct buf *b, const cJSON *rep, const cJSON *cal)
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
		if (rows.v[i].evidence > 0) {
			cJSON *id = cJSON_CreateNumber((double)rows.v[i].evidence);

			md_evidence_link(b, rep, id, NULL);
			cJSON_Delete(id);
		} else {
			buf_adds(b, "—");
		}
		buf_adds(b, " |\n");
	}
	buf_adds(b, "\n");
	report_rows_free(&rows);
}

/* Each run: results, calibration, the sweep's points, the exchanges. */
static void
md_runs(struct buf *b, const cJSON *rep, struct pool *pool)
{
	static const struct col res_cols[] = {
		{ "Probe", "probe", "none" }, { "Verdict", "verdict", "none" },
		{ "Reason", "reason", "no reason recorded" }, { "Requests", "requests", "not counted" },
		{ NULL, NULL, NULL }
	};
	static const struct col pt_cols[] = {
		{ "Tokens sent", "tokens_sent", "not counted" }, { "Status", "status", "no response" },
		{ "Accepted", "accepted", "no" }, { "Nonces echoed", "nonces_echoed", "not checked" },
		{ "Of", "nonces_total", "not counted" },
		{ "Reported prompt tokens", "usage_prompt_tokens", "not reported" },
		{ "Evidence", "evidence_id", "none" }, { NULL, NULL, NULL }
	};
	static const struct col ex_cols[] = {
		{ "Evidence", "evidence_id", "none" }, { "Probe", "probe", "none" }, { "Seq", "seq", "none" },
		{ "Tenant", "tenant", "none" }, { "Status", "status", "no response" },
		{ "File", "file", "not in this bundle" }, { "SHA-256 of the file", "file_sha256", "none" },
		{ NULL, NULL, NULL }
	};
	const cJSON *x, *y, *p;

	buf_adds(b, "## Probe runs\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "probe_runs")) == 0)
		buf_adds(b, "No probe runs in this report.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs")) {
		buf_printf(b, "### Run %d on %s\n\nStatus %s, started %s, %s%s.\n\n",
		    cJSON_GetObjectItem(x, "id")->valueint,
		    s_of(x, "endpoint") ? esc(pool, s_of(x, "endpoint")) : "?",
		    s_of(x, "status") ? s_of(x, "status") : "?",
		    s_of(x, "started_at") ? s_of(x, "started_at") : "?",
		    s_of(x, "finished_at") ? "finished " : "not finished",
		    s_of(x, "finished_at") ? s_of(x, "finished_at") : "");
		table(b, rep, cJSON_GetObjectItem(x, "results"), res_cols);
		md_calibration(b, rep, cJSON_GetObjectItem(x, "calibration"));
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "results")) {
			const cJSON *d = cJSON_GetObjectItem(y, "details");
			char rb[120], ib[120];
			cJSON *pts;

			if (!(s_of(y, "probe") && strcmp(s_of(y, "probe"), "sweep") == 0 && cJSON_IsObject(d) &&
			    cJSON_IsArray(cJSON_GetObjectItem(d, "points"))))
				continue;
			report_boundary_words(d, "refusal_boundary", rb, sizeof rb);
			report_boundary_words(d, "integrity_boundary", ib, sizeof ib);
			if (cJSON_IsNumber(cJSON_GetObjectItem(d, "advertised")))
				buf_printf(b, "Context-integrity sweep: advertised %.0f tokens; ",
				    cJSON_GetObjectItem(d, "advertised")->valuedouble);
			else
				buf_adds(b, "Context-integrity sweep: advertised context not stated; ");
			buf_printf(b, "refusal boundary %s; integrity boundary %s; change past the limit: "
			    "**%s**.\n\n", rb, ib, s_of(d, "change") ? s_of(d, "change") : "not judged");
			/* Each point names its exchange as the exchanges' table does. */
			pts = cJSON_Duplicate(cJSON_GetObjectItem(d, "points"), 1);
			cJSON_ArrayForEach(p, pts)
				if (cJSON_IsNumber(cJSON_GetObjectItem(p, "evidence")))
					cJSON_AddNumberToObject((cJSON *)p, "evidence_id",
					    cJSON_GetObjectItem(p, "evidence")->valuedouble);
			table(b, rep, pts, pt_cols);
			cJSON_Delete(pts);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "exchanges")) > 0)
			table(b, rep, cJSON_GetObjectItem(x, "exchanges"), ex_cols);
	}
}

/* Each assessment: who made, submitted and approved it, every answer with its evidence. */
static void
md_assessments(struct buf *b, const cJSON *rep, struct pool *pool)
{
	static const struct col ans_cols[] = {
		{ "Question", "question_id", "none" }, { "Answer", "value", "not answered" },
		{ "Risk", "risk", "none" }, { "Claim", "claim", "not testable" },
		{ "Note", "note", "none" }, { "By", "actor", "none" }, { "At", "updated_at", "none" },
		{ "Evidence", "evidence", "none" }, { NULL, NULL, NULL }
	};
	const cJSON *x;

	buf_adds(b, "## Assessments\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "assessments")) == 0)
		buf_adds(b, "No assessments in this report.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments")) {
		const cJSON *q = cJSON_GetObjectItem(x, "questionnaire");

		buf_printf(b, "### Assessment %d, round %d: %s\n\nStatus %s; created by %s at %s; ",
		    cJSON_GetObjectItem(x, "id")->valueint,
		    cJSON_GetObjectItem(x, "round") ? cJSON_GetObjectItem(x, "round")->valueint : 1,
		    s_of(q, "title") ? esc(pool, s_of(q, "title")) : "?",
		    s_of(x, "status") ? s_of(x, "status") : "?",
		    s_of(x, "created_by") ? esc(pool, s_of(x, "created_by")) : "?",
		    s_of(x, "created_at") ? s_of(x, "created_at") : "?");
		if (s_of(x, "submitted_at") != NULL)
			buf_printf(b, "submitted %s; ", s_of(x, "submitted_at"));
		else
			buf_adds(b, "not submitted; ");
		if (s_of(x, "approved_at") != NULL && s_of(x, "since_approval") != NULL)
			buf_printf(b, "approved %s by %s, %s.\n\n", s_of(x, "approved_at"),
			    s_of(x, "reviewer") ? esc(pool, s_of(x, "reviewer")) : "an unrecorded reviewer",
			    esc(pool, s_of(x, "since_approval")));
		else if (s_of(x, "approved_at") != NULL)
			buf_printf(b, "approved %s by %s.\n\n", s_of(x, "approved_at"),
			    s_of(x, "reviewer") ? esc(pool, s_of(x, "reviewer")) : "an unrecorded reviewer");
		else
			buf_adds(b, "not approved.\n\n");
		/* Rated as assess show rates it (report.json's rating, contradicted claims counted). */
		buf_printf(b, "Rating **%s**, risk score %.1f (worst answer %s)",
		    s_of(x, "rating") ? s_of(x, "rating") : "not rated",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(x, "risk_score")),
		    s_of(x, "worst_risk") ? s_of(x, "worst_risk") : "none");
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(x, "contradicted_claims")) > 0) {
			int n = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(x, "contradicted_claims"));

			buf_printf(b, "; %d contradicted claim%s counted high: %s", n, n == 1 ? "" : "s",
			    s_of(x, "contradicted_by") ? esc(pool, s_of(x, "contradicted_by")) : "");
		}
		buf_adds(b, ".\n\n");
		table(b, rep, cJSON_GetObjectItem(x, "answers"), ans_cols);
	}
}

/* Each incident: timeline, clocks, tasks and linked evidence. */
static void
md_incidents(struct buf *b, const cJSON *rep, struct pool *pool)
{
	static const struct col tl_cols[] = {
		{ "When (UTC)", "at_utc", "none" }, { "Kind", "kind", "none" }, { "Who", "actor", "none" },
		{ "What", "text", "none" }, { NULL, NULL, NULL }
	};
	static const struct col clock_cols[] = {
		{ "Clock", "name", "none" }, { "State", "state", "none" }, { "Due", "due_text", "no deadline" },
		{ "Stopped", "stopped_at", "not stopped" }, { "Why", "basis", "none" }, { NULL, NULL, NULL }
	};
	static const struct col task_cols[] = {
		{ "Task", "title", "none" }, { "Owner", "owner", "nobody" }, { "Due", "due_at", "no date" },
		{ "Done", "done_at", "not done" }, { NULL, NULL, NULL }
	};
	const cJSON *x;

	buf_adds(b, "## Incidents\n\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(rep, "incidents")) == 0)
		buf_adds(b, "None.\n\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "incidents")) {
		struct buf f;

		buf_init(&f);
		report_incident_facts(x, &f);
		buf_printf(b, "### Incident %d: %s\n\n%s\n\n",
		    cJSON_GetObjectItem(x, "id")->valueint, s_of(x, "title") ? esc(pool, s_of(x, "title")) : "?",
		    esc(pool, f.data));
		buf_free(&f);
		if (cJSON_IsArray(cJSON_GetObjectItem(x, "timeline")))
			table(b, rep, cJSON_GetObjectItem(x, "timeline"), tl_cols);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "clocks")) > 0) {
			buf_printf(b, "Notification clocks as of %s:\n\n", s_of(x, "as_of") ? s_of(x, "as_of") : "?");
			table(b, rep, cJSON_GetObjectItem(x, "clocks"), clock_cols);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "tasks")) > 0)
			table(b, rep, cJSON_GetObjectItem(x, "tasks"), task_cols);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "evidence_files")) > 0) {
			buf_adds(b, "Linked evidence: ");
			md_evidence_list(b, rep, cJSON_GetObjectItem(x, "evidence_files"));
			buf_adds(b, "\n\n");
		}
	}
}

char *
report_markdown(const cJSON *rep)
{
	static const struct col ep_cols[] = {
		{ "Name", "name", "none" }, { "API", "api", "none" }, { "URL", "url", "none" },
		{ "Model", "model", "none" }, { "Advertised context", "context_tokens", "not stated" },
		{ "Status", "status", "none" }, { NULL, NULL, NULL }
	};
	const cJSON *cp = cJSON_GetObjectItem(rep, "audit_checkpoint");
	struct pool pool = { NULL, 0 };
	struct buf b;

	buf_init(&b);
	if (s_of(rep, "audit_failure") != NULL)
		buf_printf(&b, "**%s**\n\n", esc(&pool, s_of(rep, "audit_failure")));
	md_summary(&b, rep, &pool);
	md_runs(&b, rep, &pool);
	md_assessments(&b, rep, &pool);
	md_incidents(&b, rep, &pool);
	buf_adds(&b, "## Endpoints\n\n");
	table(&b, rep, cJSON_GetObjectItem(rep, "endpoints"), ep_cols);
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
