/*
 * report-html.c: report.html — one self-contained file (inline CSS and SVG,
 * no scripts, nothing fetched) readable on screen and on paper. Summary
 * first (rating, critical findings, contradicted claims), then claims,
 * findings, probe runs with the context-integrity sweep chart, assessments,
 * incidents, endpoints and the audit checkpoint.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report.h"
#include "run-format.h"

static const char *
s_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Markup as entities; control characters and bidirectional overrides first
 * shown as visible escapes (text_escape), so no text reorders the page. */
static void
esc(struct buf *b, const char *s)
{
	char *t;

	if (s == NULL) {
		buf_adds(b, "&#8212;");
		return;
	}
	t = text_escape(s, strlen(s), 1);
	for (const char *p = t; *p != '\0'; p++) {
		switch (*p) {
		case '&': buf_adds(b, "&amp;"); break;
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default: buf_add(b, p, 1);
		}
	}
	free(t);
}

/* Any JSON value as display text: strings bare, arrays joined, others as JSON. */
static void
esc_value(struct buf *b, const cJSON *v)
{
	if (v == NULL || cJSON_IsNull(v)) {
		esc(b, NULL);
	} else if (cJSON_IsString(v)) {
		esc(b, v->valuestring);
	} else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 && cJSON_IsString(v->child)) {
		const cJSON *e;
		int first = 1;

		cJSON_ArrayForEach(e, v) {
			if (!first)
				buf_adds(b, ", ");
			first = 0;
			esc_value(b, e);
		}
	} else {
		char *t = cJSON_PrintUnformatted(v);

		esc(b, t);
		free(t);
	}
}

static void
td_str(struct buf *b, const cJSON *o, const char *k)
{
	buf_adds(b, "<td>");
	esc_value(b, cJSON_GetObjectItem(o, k));
	buf_adds(b, "</td>");
}

/* One piece of evidence as a link to its file in the bundle (relative href),
 * its name as the text; evidence the bundle does not hold is named, and why.
 * The link downloads the file, never opens it: evidence is what a vendor or a
 * colleague gave, and an SVG or HTML file opened beside the report would run
 * its script with the bundle's files in reach. */
static void
evidence_link(struct buf *b, const cJSON *rep, const cJSON *e, const char *text)
{
	struct report_ref ref;

	report_evidence_ref(rep, e, &ref);
	if (ref.path == NULL) {
		esc(b, ref.name);
		buf_adds(b, " (");
		esc(b, ref.note);
		buf_adds(b, ")");
		return;
	}
	buf_adds(b, "<a href=\"");
	report_href(b, ref.path);
	buf_adds(b, "\" download type=\"application/octet-stream\">");
	esc(b, text != NULL ? text : ref.name);
	buf_adds(b, "</a>");
}

/* A cell of links to a list of evidence (ids or evidence objects); "none" when empty. */
static void
td_evidence(struct buf *b, const cJSON *rep, const cJSON *list)
{
	const cJSON *e;
	int first = 1;

	buf_adds(b, "<td>");
	cJSON_ArrayForEach(e, list) {
		if (!first)
			buf_adds(b, ", ");
		first = 0;
		evidence_link(b, rep, e, NULL);
	}
	if (first)
		buf_adds(b, "none");
	buf_adds(b, "</td>");
}

/* A cell whose missing value is said in words. */
static void
td_or(struct buf *b, const cJSON *o, const char *k, const char *missing)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	if (v == NULL || cJSON_IsNull(v)) {
		buf_adds(b, "<td>");
		esc(b, missing);
		buf_adds(b, "</td>");
	} else {
		td_str(b, o, k);
	}
}

static void
fmt_tokens(char *out, size_t n, double v)
{
	if (v >= 1e6)
		snprintf(out, n, "%.3gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(out, n, "%.0fk", v / 1e3);
	else
		snprintf(out, n, "%.0f", v);
}

static double
num_or(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Sweep points by prompt size, then non-streamed before streamed; stable for equal keys
 * because the evidence id breaks ties. */
static int
point_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	double d = num_or(x, "tokens_sent", 0) - num_or(y, "tokens_sent", 0);

	if (d == 0)
		d = cJSON_IsTrue(cJSON_GetObjectItem(x, "stream")) - cJSON_IsTrue(cJSON_GetObjectItem(y, "stream"));
	if (d == 0)
		d = num_or(x, "evidence", 0) - num_or(y, "evidence", 0);
	return d < 0 ? -1 : d > 0;
}

/* The context-integrity sweep: prompt size (x) against echoed-nonce integrity
 * (left axis, 0-100%) and the prompt tokens the vendor reported (right axis,
 * same scale as x, so honest usage lies on the diagonal), with the advertised
 * context and the observed boundaries as vertical lines. */
static void
sweep_svg(struct buf *b, const cJSON *d)
{
	const double W = 760, H = 350, L = 64, R = 70, T = 24, B = 66;
	const double pw = W - L - R, ph = H - T - B;
	const cJSON *points = cJSON_GetObjectItem(d, "points"), *p;
	double adv = num_or(d, "advertised", 0), xmax = adv;
	struct buf line;
	char lab[32];

	cJSON_ArrayForEach(p, points) {
		xmax = fmax(xmax, num_or(p, "tokens_sent", 0));
		xmax = fmax(xmax, num_or(p, "usage_prompt_tokens", 0));
	}
	if (xmax <= 0)
		xmax = 1;
	xmax *= 1.05;
#define X(t) (L + (t) / xmax * pw)
#define YF(f) (T + (1.0 - (f)) * ph)
#define YU(u) (T + (1.0 - (u) / xmax) * ph)
	buf_printf(b, "<svg class=\"sweep-chart\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	    "height=\"%.0f\" aria-label=\"context-integrity sweep\">\n", W, H, W, H);
	buf_adds(b, "<title>Context-integrity sweep: prompt size against echoed-nonce integrity and "
	    "reported usage</title>\n");
	buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
	    "stroke=\"#444\"/>\n", L, T, pw, ph);
	/* Round tick steps: 1, 2, 2.5 or 5 times a power of ten, about five of them. */
	{
		double raw = xmax / 5, mag = pow(10, floor(log10(raw))), fr = raw / mag;
		double step = (fr <= 1 ? 1 : fr <= 2 ? 2 : fr <= 2.5 ? 2.5 : fr <= 5 ? 5 : 10) * mag;

		for (double t = 0; t <= xmax; t += step) {
			fmt_tokens(lab, sizeof lab, t);
			buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n"
			    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b35900\">%s</text>\n",
			    X(t), T, X(t), T + ph, X(t), T + ph + 16, lab, L + pw + 6, YU(t) + 4, lab);
		}
	}
	for (int i = 0; i <= 5; i++)
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d%%</text>\n",
		    L - 6, YF(i / 5.0) + 4, i * 20);
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">prompt "
	    "tokens sent</text>\n", L + pw / 2, H - 28);
	buf_printf(b, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
	    "text-anchor=\"middle\" fill=\"#1f5fa8\">nonces echoed</text>\n", T + ph / 2, T + ph / 2);
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(90 %.1f %.1f)\" "
	    "text-anchor=\"middle\" fill=\"#b35900\">reported prompt tokens</text>\n",
	    W - 8, T + ph / 2, W - 8, T + ph / 2);
	/* Honest usage: the diagonal. */
	buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b35900\" "
	    "stroke-dasharray=\"2 4\" opacity=\"0.6\"/>\n", X(0), YU(0), X(xmax), YU(xmax));
	if (adv > 0) {
		fmt_tokens(lab, sizeof lab, adv);
		buf_printf(b, "<line class=\"advertised\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#555\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		    "text-anchor=\"end\">advertised %s</text>\n", X(adv), T, X(adv), T + ph, X(adv) - 4,
		    T + 12, lab);
	}
	{
		static const struct { const char *key, *label, *color; double dy; } bounds[] = {
			{ "integrity_boundary", "integrity lost", "#c0392b", 26 },
			{ "refusal_boundary", "refused from", "#7d3c98", 40 },
		};

		for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
			const cJSON *v = cJSON_GetObjectItem(d, bounds[i].key);

			if (!cJSON_IsNumber(v))
				continue;
			fmt_tokens(lab, sizeof lab, v->valuedouble);
			buf_printf(b, "<line class=\"boundary\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			    "fill=\"%s\">%s %s</text>\n", X(v->valuedouble), T, X(v->valuedouble), T + ph,
			    bounds[i].color, X(v->valuedouble) + 4, T + bounds[i].dy, bounds[i].color,
			    bounds[i].label, lab);
		}
	}
	/* The line runs in order of prompt size; probes record points in the order sent. */
	buf_init(&line);
	{
		const cJSON **v = NULL;
		size_t n = 0;

		cJSON_ArrayForEach(p, points) {
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = p;
		}
		if (n > 0)
			qsort(v, n, sizeof *v, point_cmp);
		for (size_t i = 0; i < n; i++) {
			double t = num_or(v[i], "tokens_sent", 0), tot = num_or(v[i], "nonces_total", 3);
			double f = tot > 0 ? num_or(v[i], "nonces_echoed", 0) / tot : 0;

			buf_printf(&line, "%s%.1f,%.1f", line.len ? " " : "", X(t), YF(f));
		}
		free(v);
	}
	if (line.len > 0)
		buf_printf(b, "<polyline points=\"%s\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\"/>\n",
		    line.data);
	buf_free(&line);
	cJSON_ArrayForEach(p, points) {
		double t = num_or(p, "tokens_sent", 0), tot = num_or(p, "nonces_total", 3);
		double f = tot > 0 ? num_or(p, "nonces_echoed", 0) / tot : 0;
		const cJSON *u = cJSON_GetObjectItem(p, "usage_prompt_tokens");
		int accepted = cJSON_IsTrue(cJSON_GetObjectItem(p, "accepted"));

		buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#1f5fa8\">"
		    "<title>%.0f tokens: %.0f/%.0f nonces, %s</title></circle>\n", X(t), YF(f),
		    accepted ? "#1f5fa8" : "#fff", t, num_or(p, "nonces_echoed", 0), tot,
		    accepted ? "accepted" : "refused");
		if (cJSON_IsNumber(u))
			buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#e67e22\">"
			    "<title>%.0f tokens sent, %.0f reported</title></rect>\n", X(t) - 3.5,
			    YU(u->valuedouble) - 3.5, t, u->valuedouble);
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"><tspan fill=\"#1f5fa8\">&#9679; nonces "
	    "echoed (hollow: refused)</tspan>  <tspan fill=\"#e67e22\">&#9632; reported usage</tspan>"
	    "</text>\n", L, H - 8);
	buf_adds(b, "</svg>\n");
#undef X
#undef YF
#undef YU
}

/* A table of one row per element of list, one cell per key; th is the
 * header row's cells. */
static void
rows_table(struct buf *b, const char *th, const cJSON *list, const char *const keys[])
{
	const cJSON *r;

	buf_printf(b, "<table><tr>%s</tr>\n", th);
	cJSON_ArrayForEach(r, list) {
		buf_adds(b, "<tr>");
		for (size_t k = 0; keys[k] != NULL; k++)
			td_str(b, r, keys[k]);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
}

static void
findings_table(struct buf *b, const cJSON *rep, const cJSON *list)
{
	const cJSON *f;
	int superseded = cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "open"));

	buf_printf(b, "<table><tr><th>Severity</th><th>Code</th><th>Probe</th><th>Run</th>%s"
	    "<th>Message</th><th>Evidence</th></tr>\n", superseded ? "<th>Superseded by run</th>" : "");
	cJSON_ArrayForEach(f, list) {
		buf_printf(b, "<tr class=\"sev-%s\">", s_of(f, "severity") ? s_of(f, "severity") : "");
		td_str(b, f, "severity");
		td_str(b, f, "code");
		td_str(b, f, "probe");
		td_str(b, f, "run_id");
		if (superseded)
			td_str(b, f, "superseded_by_run");
		td_str(b, f, "message");
		td_evidence(b, rep, cJSON_GetObjectItem(f, "evidence"));
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
}

static void
claims_table(struct buf *b, const cJSON *list)
{
	const cJSON *c;

	buf_adds(b, "<table><tr><th>Question</th><th>Vendor's answer</th><th>Endpoint</th>"
	    "<th>Claim</th><th>On what evidence</th></tr>\n");
	cJSON_ArrayForEach(c, list) {
		buf_printf(b, "<tr class=\"claim-%s\"><td>", s_of(c, "status"));
		esc(b, s_of(c, "question_id"));
		if (s_of(c, "question")) {
			buf_adds(b, ": ");
			esc(b, s_of(c, "question"));
		}
		buf_adds(b, "</td>");
		td_str(b, c, "answer");
		td_str(b, c, "endpoint");
		buf_printf(b, "<td><strong>%s</strong></td>", s_of(c, "status"));
		td_str(b, c, "reason");
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
}

static const char css[] =
    "body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em;color:#111}"
    "h1{font-size:1.6em}h2{border-bottom:2px solid #333;margin-top:1.6em}"
    "table{border-collapse:collapse;width:100%;margin:.5em 0;font-size:.9em}"
    "th,td{border:1px solid #999;padding:.25em .4em;text-align:left;vertical-align:top}"
    "th{background:#eee}.rating{font-size:1.3em;font-weight:bold;padding:.3em .6em;display:inline-block}"
    ".rating-unacceptable{background:#f5b7b1}.rating-concerns{background:#fad7a0}"
    ".rating-acceptable{background:#abebc6}.rating-not-assessed{background:#ddd}"
    ".rating-incomplete{background:#d6eaf8}"
    ".sev-critical,.sev-high,.claim-contradicted{background:#fdedec}.claim-confirmed{background:#eafaf1}"
    "code{font-size:.85em;word-break:break-all}dl{display:grid;grid-template-columns:12em 1fr}"
    "dt{font-weight:bold}svg{max-width:100%;height:auto}"
    "@media print{body{max-width:none}h2{page-break-after:avoid}table,svg{page-break-inside:avoid}}";

/* A section of the report over one of its lists: the heading, and when the
 * list is empty, the sentence that says so. Returns the list. */
static const cJSON *
section(struct buf *b, const cJSON *rep, const char *key, const char *id, const char *title,
    const char *none)
{
	const cJSON *list = cJSON_GetObjectItem(rep, key);

	buf_printf(b, "<h2 id=\"%s\">%s</h2>\n", id, title);
	if (cJSON_GetArraySize(list) == 0)
		buf_printf(b, "<p>%s</p>\n", none);
	return list;
}

/* The title and who made and signed the report. */
static void
html_head(struct buf *b, const cJSON *rep)
{
	const cJSON *v = cJSON_GetObjectItem(rep, "vendor");

	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aivet report: ");
	esc(b, s_of(v, "name"));
	buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	if (s_of(rep, "audit_failure") != NULL) {
		buf_adds(b, "<p class=\"audit-failure\"><strong>");
		esc(b, s_of(rep, "audit_failure"));
		buf_adds(b, "</strong></p>\n");
	}
	buf_adds(b, "<h1>Vendor report: ");
	esc(b, s_of(v, "name"));
	buf_adds(b, "</h1>\n<dl>\n<dt>Report</dt><dd><code>");
	esc(b, s_of(rep, "report_id"));
	buf_adds(b, "</code></dd>\n<dt>Generated</dt><dd>");
	esc(b, s_of(rep, "generated_at"));
	buf_adds(b, "</dd>\n<dt>Keep until</dt><dd>");
	esc(b, s_of(rep, "retention_until"));
	buf_adds(b, "</dd>\n<dt>Signed by key</dt><dd><code>");
	esc(b, s_of(rep, "signer_key_id"));
	buf_adds(b, "</code></dd>\n<dt>Signer's public key</dt><dd><code>");
	esc(b, s_of(rep, "signer_public_key"));
	buf_adds(b, "</code> (compare it with the key obtained out of band)</dd>\n<dt>aivet</dt><dd>");
	esc(b, s_of(rep, "aivet_version"));
	{
		struct buf t;

		buf_init(&t);
		tsa_report_words(rep, &t);
		buf_adds(b, "</dd>\n<dt>Time</dt><dd>");
		esc(b, t.data);
		buf_free(&t);
	}
	buf_adds(b, "</dd>\n</dl>\n");
}

/* The rating, the counts, and what most needs a reader's eye. */
static void
html_summary(struct buf *b, const cJSON *rep, const cJSON *sum)
{
	const cJSON *x;
	const char *rating = s_of(sum, "rating");

	buf_adds(b, "<h2 id=\"summary\">Summary</h2>\n");
	buf_printf(b, "<p>Overall rating: <span class=\"rating rating-%s\">%s</span></p>\n",
	    rating ? rating : "", rating ? rating : "");
	if (s_of(sum, "rating_rule") != NULL) {
		buf_adds(b, "<p class=\"rule\">The overall rating is ");
		esc(b, s_of(sum, "rating_rule"));
		buf_adds(b, " An assessment is ");
		esc(b, s_of(sum, "assessment_rating_rule"));
		buf_adds(b, "</p>\n");
	}
	buf_adds(b, "<table><tr>");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(b, "<th>open %s</th>", x->string);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(b, "<th>claims %s</th>", x->string);
	buf_adds(b, "</tr><tr>");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "findings"))
		buf_printf(b, "<td>%d</td>", x->valueint);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sum, "claims"))
		buf_printf(b, "<td>%d</td>", x->valueint);
	buf_adds(b, "</tr></table>\n<h3>Critical and high findings</h3>\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(sum, "critical_findings")) == 0)
		buf_adds(b, "<p>None.</p>\n");
	else
		findings_table(b, rep, cJSON_GetObjectItem(sum, "critical_findings"));
	buf_adds(b, "<h3>Contradicted claims</h3>\n");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(sum, "contradicted_claims")) == 0)
		buf_adds(b, "<p>None.</p>\n");
	else
		claims_table(b, cJSON_GetObjectItem(sum, "contradicted_claims"));
}

/* How the run measured tokens per word, as a table with each sample's exchange. */
static void
html_calibration(struct buf *b, const cJSON *rep, const cJSON *cal)
{
	struct report_rows rows;

	report_calibration_rows(cal, &rows);
	buf_adds(b, "<table class=\"calibration\"><tr><th colspan=\"3\">Calibration</th></tr>\n");
	for (size_t i = 0; i < rows.n; i++) {
		buf_adds(b, "<tr><th>");
		esc(b, rows.v[i].label);
		buf_adds(b, rows.v[i].evidence > 0 ? "</th><td>" : "</th><td colspan=\"2\">");
		esc(b, rows.v[i].value);
		buf_adds(b, "</td>");
		if (rows.v[i].evidence > 0) {
			cJSON *id = cJSON_CreateNumber((double)rows.v[i].evidence);

			buf_adds(b, "<td>");
			evidence_link(b, rep, id, NULL);
			buf_adds(b, "</td>");
			cJSON_Delete(id);
		}
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	report_rows_free(&rows);
}

/* The run's exchanges: each id and file a link to the exchange's file. */
static void
html_exchanges(struct buf *b, const cJSON *rep, const cJSON *x)
{
	const cJSON *r;

	if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "exchanges")) == 0)
		return;
	buf_adds(b, "<details><summary>Exchanges (evidence files)</summary>\n<table><tr><th>Evidence"
	    "</th><th>Probe</th><th>Seq</th><th>Tenant</th><th>Status</th><th>File</th>"
	    "<th>SHA-256 of the file</th></tr>\n");
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(x, "exchanges")) {
		const cJSON *id = cJSON_GetObjectItem(r, "evidence_id");
		char num[32];

		snprintf(num, sizeof num, "%.0f", num_or(r, "evidence_id", 0));
		buf_adds(b, "<tr><td>");
		evidence_link(b, rep, id, num);
		buf_adds(b, "</td>");
		td_str(b, r, "probe");
		td_str(b, r, "seq");
		td_str(b, r, "tenant");
		if (cJSON_IsNumber(cJSON_GetObjectItem(r, "status")))
			td_str(b, r, "status");
		else
			buf_adds(b, "<td>no response</td>");
		buf_adds(b, "<td>");
		evidence_link(b, rep, id, s_of(r, "file"));
		buf_adds(b, "</td><td><code>");
		esc(b, s_of(r, "file_sha256"));
		buf_adds(b, "</code></td></tr>\n");
	}
	buf_adds(b, "</table></details>\n");
}

/* One probe run: its results, the charts its probes draw, its exchanges. */
static void
html_run(struct buf *b, const cJSON *rep, const cJSON *x)
{
	const cJSON *r;

	buf_printf(b, "<h3>Run %d on ", cJSON_GetObjectItem(x, "id")->valueint);
	esc(b, s_of(x, "endpoint"));
	buf_adds(b, "</h3>\n<p>Status ");
	esc(b, s_of(x, "status"));
	buf_adds(b, ", started ");
	esc(b, s_of(x, "started_at"));
	if (s_of(x, "finished_at") != NULL) {
		buf_adds(b, ", finished ");
		esc(b, s_of(x, "finished_at"));
	} else {
		buf_adds(b, ", not finished");
	}
	buf_printf(b, "; tokens in %.0f, out %.0f.</p>\n", num_or(x, "tokens_in", 0),
	    num_or(x, "tokens_out", 0));
	html_calibration(b, rep, cJSON_GetObjectItem(x, "calibration"));
	buf_adds(b, "<table><tr><th>Probe</th><th>Verdict</th><th>Reason</th>"
	    "<th>Requests</th></tr>\n");
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(x, "results")) {
		buf_adds(b, "<tr>");
		td_str(b, r, "probe");
		buf_printf(b, "<td><strong>%s</strong></td>", s_of(r, "verdict") ? s_of(r, "verdict") : "");
		if (s_of(r, "reason") != NULL)
			td_str(b, r, "reason");
		else
			buf_adds(b, "<td>no reason recorded</td>");
		td_str(b, r, "requests");
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(x, "results")) {
		const cJSON *d = cJSON_GetObjectItem(r, "details");

		if (s_of(r, "probe") && strcmp(s_of(r, "probe"), "sweep") == 0 && cJSON_IsObject(d) &&
		    cJSON_IsArray(cJSON_GetObjectItem(d, "points"))) {
			char rb[120], ib[120];

			report_boundary_words(d, "refusal_boundary", rb, sizeof rb);
			report_boundary_words(d, "integrity_boundary", ib, sizeof ib);
			buf_adds(b, "<figure>\n");
			sweep_svg(b, d);
			buf_adds(b, "<figcaption>Context-integrity sweep: behaviour past the limit was <strong>");
			esc(b, s_of(d, "change"));
			buf_adds(b, "</strong>; refusal boundary ");
			esc(b, rb);
			buf_adds(b, "; integrity boundary ");
			esc(b, ib);
			buf_adds(b, ".</figcaption>\n</figure>\n");
		}
		if (s_of(r, "probe") && strcmp(s_of(r, "probe"), "prefix-timing") == 0 && cJSON_IsObject(d))
			prefix_timing_svg(b, d);
	}
	html_exchanges(b, rep, x);
}

static void
html_runs(struct buf *b, const cJSON *rep)
{
	/* The list first: cJSON_ArrayForEach names its array twice, which wrote the heading twice. */
	const cJSON *x, *list = section(b, rep, "probe_runs", "runs", "Probe runs",
	    "No probe runs in this report.");

	cJSON_ArrayForEach(x, list)
		html_run(b, rep, x);
}

/* Each assessment with every answer, who gave it and its evidence. */
static void
html_assessments(struct buf *b, const cJSON *rep)
{
	const cJSON *x, *y, *list = section(b, rep, "assessments", "assessments", "Assessments",
	    "No assessments in this report.");

	cJSON_ArrayForEach(x, list) {
		const cJSON *q = cJSON_GetObjectItem(x, "questionnaire");

		buf_printf(b, "<h3>Assessment %d, round %d: ", cJSON_GetObjectItem(x, "id")->valueint,
		    (int)num_or(x, "round", 1));
		esc(b, s_of(q, "title"));
		buf_adds(b, "</h3>\n<p>Status ");
		esc(b, s_of(x, "status"));
		buf_adds(b, "; created by ");
		esc(b, s_of(x, "created_by"));
		buf_adds(b, " at ");
		esc(b, s_of(x, "created_at"));
		if (s_of(x, "submitted_at") != NULL) {
			buf_adds(b, "; submitted ");
			esc(b, s_of(x, "submitted_at"));
		} else {
			buf_adds(b, "; not submitted");
		}
		if (s_of(x, "approved_at") != NULL) {
			buf_adds(b, "; approved ");
			esc(b, s_of(x, "approved_at"));
			buf_adds(b, " by ");
			esc(b, s_of(x, "reviewer") ? s_of(x, "reviewer") : "an unrecorded reviewer");
			if (s_of(x, "since_approval") != NULL) {
				buf_adds(b, ", ");
				esc(b, s_of(x, "since_approval"));
			}
		} else {
			buf_adds(b, "; not approved");
		}
		/* Rated as assess show rates it (report.json's rating, its contradicted claims counted). */
		buf_printf(b, ".</p>\n<p>Rating <span class=\"rating rating-%s\">%s</span>, risk score %.1f "
		    "(worst answer %s)", s_of(x, "rating") ? s_of(x, "rating") : "",
		    s_of(x, "rating") ? s_of(x, "rating") : "not rated", num_or(x, "risk_score", 0),
		    s_of(x, "worst_risk") ? s_of(x, "worst_risk") : "none");
		if (num_or(x, "contradicted_claims", 0) > 0) {
			buf_printf(b, "; %d contradicted claim%s counted high: ",
			    (int)num_or(x, "contradicted_claims", 0),
			    num_or(x, "contradicted_claims", 0) == 1 ? "" : "s");
			esc(b, s_of(x, "contradicted_by") ? s_of(x, "contradicted_by") : "");
		}
		buf_adds(b, ".</p>\n<table><tr><th>Question</th><th>Answer</th><th>Risk</th><th>Claim</th>"
		    "<th>Note</th><th>By</th><th>At</th><th>Evidence</th></tr>\n");
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "answers")) {
			buf_adds(b, "<tr><td>");
			esc(b, s_of(y, "question_id"));
			if (s_of(y, "question")) {
				buf_adds(b, ": ");
				esc(b, s_of(y, "question"));
			}
			buf_adds(b, "</td>");
			td_or(b, y, "value", "not answered");
			td_or(b, y, "risk", "none");
			if (s_of(y, "claim") != NULL)
				buf_printf(b, "<td class=\"claim-%s\"><strong>%s</strong></td>", s_of(y, "claim"),
				    s_of(y, "claim"));
			else
				buf_adds(b, "<td>not testable</td>");
			td_or(b, y, "note", "none");
			td_str(b, y, "actor");
			td_str(b, y, "updated_at");
			td_evidence(b, rep, cJSON_GetObjectItem(y, "evidence"));
			buf_adds(b, "</tr>\n");
		}
		buf_adds(b, "</table>\n");
	}
}

/* Each incident: its timeline, notification clocks and tasks. */
static void
html_incidents(struct buf *b, const cJSON *rep)
{
	const cJSON *x, *list = section(b, rep, "incidents", "incidents", "Incidents", "None.");

	cJSON_ArrayForEach(x, list) {
		buf_printf(b, "<h3>Incident %d: ", cJSON_GetObjectItem(x, "id")->valueint);
		esc(b, s_of(x, "title"));
		{
			struct buf f;

			buf_init(&f);
			report_incident_facts(x, &f);
			buf_adds(b, "</h3>\n<p>");
			esc(b, f.data);
			buf_adds(b, "</p>\n");
			buf_free(&f);
		}
		if (cJSON_IsArray(cJSON_GetObjectItem(x, "timeline"))) {
			static const char *const k[] = { "at_utc", "kind", "actor", "text", NULL };

			rows_table(b, "<th>When (UTC)</th><th>Kind</th><th>Who</th><th>What</th>",
			    cJSON_GetObjectItem(x, "timeline"), k);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "clocks")) > 0) {
			static const char *const k[] = { "name", "state", "due_text", "stopped_at", "basis", NULL };

			buf_adds(b, "<h4>Notification clocks (as of ");
			esc(b, s_of(x, "as_of"));
			buf_adds(b, ")</h4>\n");
			rows_table(b, "<th>Clock</th><th>State</th><th>Due</th><th>Stopped</th><th>Why</th>",
			    cJSON_GetObjectItem(x, "clocks"), k);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "tasks")) > 0) {
			static const char *const k[] = { "title", "owner", "due_at", "done_at", NULL };

			buf_adds(b, "<h4>Tasks</h4>\n");
			rows_table(b, "<th>Task</th><th>Owner</th><th>Due</th><th>Done</th>",
			    cJSON_GetObjectItem(x, "tasks"), k);
		}
		if (cJSON_GetArraySize(cJSON_GetObjectItem(x, "evidence_files")) > 0) {
			buf_adds(b, "<h4>Linked evidence</h4>\n<table><tr><th>Evidence</th></tr>\n<tr>");
			td_evidence(b, rep, cJSON_GetObjectItem(x, "evidence_files"));
			buf_adds(b, "</tr></table>\n");
		}
	}
}

/* The endpoints, then the audit checkpoint the bundle was made at. */
static void
html_endpoints_integrity(struct buf *b, const cJSON *rep)
{
	static const char *const k[] = { "name", "api", "url", "model", "context_tokens", "status", NULL };
	const cJSON *cp = cJSON_GetObjectItem(rep, "audit_checkpoint");

	buf_adds(b, "<h2 id=\"endpoints\">Endpoints</h2>\n");
	rows_table(b, "<th>Name</th><th>API</th><th>URL</th><th>Model</th><th>Advertised context</th>"
	    "<th>Status</th>", cJSON_GetObjectItem(rep, "endpoints"), k);
	buf_adds(b, "<h2 id=\"integrity\">Integrity</h2>\n<p>Audit log at export: ");
	buf_printf(b, "%.0f entries, head <code>", num_or(cp, "entries", 0));
	esc(b, s_of(cp, "head"));
	buf_printf(b, "</code> (chain %s). The bundle's SHA256SUMS is signed; VERIFY.txt says how to check "
	    "it with minisign, sha256sum or OpenSSL.</p>\n</body>\n</html>\n",
	    cJSON_IsTrue(cJSON_GetObjectItem(cp, "intact")) ? "intact" : "BROKEN");
}

char *
report_html(const cJSON *rep)
{
	struct buf b;
	const cJSON *list;

	buf_init(&b);
	html_head(&b, rep);
	html_summary(&b, rep, cJSON_GetObjectItem(rep, "summary"));
	list = section(&b, rep, "claims", "claims", "Claims against evidence",
	    "No answered question can be tested by a probe.");
	if (cJSON_GetArraySize(list) > 0)
		claims_table(&b, list);
	list = section(&b, rep, "findings", "findings", "Open findings", "None.");
	if (cJSON_GetArraySize(list) > 0)
		findings_table(&b, rep, list);
	list = section(&b, rep, "superseded_findings", "superseded", "Superseded findings (a later run "
	    "of the probe replaced them; the rating does not read them)", "None.");
	if (cJSON_GetArraySize(list) > 0)
		findings_table(&b, rep, list);
	html_runs(&b, rep);
	html_assessments(&b, rep);
	html_incidents(&b, rep);
	html_endpoints_integrity(&b, rep);
	return buf_steal(&b);
}
