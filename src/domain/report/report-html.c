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
#include "report-doc.h"

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

/* Cells: text (NULL as a dash), a number, a free-form value, and a missing
 * value said in words. */
static void
td_s(struct buf *b, const char *s)
{
	buf_adds(b, "<td>");
	esc(b, s);
	buf_adds(b, "</td>");
}

static void
td_i(struct buf *b, int64_t v)
{
	buf_printf(b, "<td>%lld</td>", (long long)v);
}

static void
td_j(struct buf *b, const cJSON *v)
{
	buf_adds(b, "<td>");
	esc_value(b, v);
	buf_adds(b, "</td>");
}

static void
td_or(struct buf *b, const char *s, const char *missing)
{
	td_s(b, s != NULL ? s : missing);
}

/* One piece of evidence (an exchange by id, or an evidence record) as a link
 * to its file in the bundle (relative href), its name as the text; evidence
 * the bundle does not hold is named, and why. The link downloads the file,
 * never opens it: evidence is what a vendor or a colleague gave, and an SVG
 * or HTML file opened beside the report would run its script with the
 * bundle's files in reach. */
static void
evidence_link(struct buf *b, const struct report_doc *d, int64_t id, const struct report_evidence *e,
    const char *text)
{
	struct report_ref ref;

	report_evidence_ref(d, id, e, &ref);
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

/* A cell of links to a list of evidence (exchange ids, or records when ids
 * is NULL); "none" when empty. */
static void
td_evidence(struct buf *b, const struct report_doc *d, const int64_t *ids,
    const struct report_evidence *recs, size_t n)
{
	buf_adds(b, "<td>");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			buf_adds(b, ", ");
		evidence_link(b, d, ids != NULL ? ids[i] : 0, ids != NULL ? NULL : &recs[i], NULL);
	}
	if (n == 0)
		buf_adds(b, "none");
	buf_adds(b, "</td>");
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

/* The sweep chart's frame: its size, plot area and the largest token count. */
struct plot {
	double W, H, L, R, T, B, pw, ph, xmax;
};

#define X(p, t) ((p)->L + (t) / (p)->xmax * (p)->pw)
#define YF(p, f) ((p)->T + (1.0 - (f)) * (p)->ph)
#define YU(p, u) ((p)->T + (1.0 - (u) / (p)->xmax) * (p)->ph)

static double
pt_tokens(const struct size_point *p)
{
	return p->has_tokens_sent ? p->tokens_sent : 0;
}

/* The share of the point's nonces echoed back (3 sent when not recorded). */
static double
pt_integrity(const struct size_point *p, double *tot)
{
	*tot = p->has_nonces_total ? p->nonces_total : 3;
	return *tot > 0 ? (p->has_nonces_echoed ? p->nonces_echoed : 0) / *tot : 0;
}

/* The frame, the round ticks on both token axes, the integrity axis and the titles. */
static void
sweep_axes(struct buf *b, const struct plot *p)
{
	/* Round tick steps: 1, 2, 2.5 or 5 times a power of ten, about five of them. */
	double raw = p->xmax / 5, mag = pow(10, floor(log10(raw))), fr = raw / mag;
	double step = (fr <= 1 ? 1 : fr <= 2 ? 2 : fr <= 2.5 ? 2.5 : fr <= 5 ? 5 : 10) * mag;
	char lab[32];

	buf_printf(b, "<svg class=\"sweep-chart\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	    "height=\"%.0f\" aria-label=\"context-integrity sweep\">\n", p->W, p->H, p->W, p->H);
	buf_adds(b, "<title>Context-integrity sweep: prompt size against echoed-nonce integrity and "
	    "reported usage</title>\n");
	buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
	    "stroke=\"#444\"/>\n", p->L, p->T, p->pw, p->ph);
	for (double t = 0; t <= p->xmax; t += step) {
		fmt_tokens(lab, sizeof lab, t);
		buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
		    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n"
		    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b35900\">%s</text>\n",
		    X(p, t), p->T, X(p, t), p->T + p->ph, X(p, t), p->T + p->ph + 16, lab, p->L + p->pw + 6,
		    YU(p, t) + 4, lab);
	}
	for (int i = 0; i <= 5; i++)
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d%%</text>\n",
		    p->L - 6, YF(p, i / 5.0) + 4, i * 20);
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">prompt "
	    "tokens sent</text>\n", p->L + p->pw / 2, p->H - 28);
	buf_printf(b, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
	    "text-anchor=\"middle\" fill=\"#1f5fa8\">nonces echoed</text>\n", p->T + p->ph / 2,
	    p->T + p->ph / 2);
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(90 %.1f %.1f)\" "
	    "text-anchor=\"middle\" fill=\"#b35900\">reported prompt tokens</text>\n",
	    p->W - 8, p->T + p->ph / 2, p->W - 8, p->T + p->ph / 2);
	/* Honest usage: the diagonal. */
	buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b35900\" "
	    "stroke-dasharray=\"2 4\" opacity=\"0.6\"/>\n", X(p, 0), YU(p, 0), X(p, p->xmax), YU(p, p->xmax));
}

/* The advertised context and the observed boundaries as vertical lines. */
static void
sweep_marks(struct buf *b, const struct plot *p, const struct sweep_bounds *d)
{
	const struct { int has; double v; const char *label, *color; double dy; } bounds[] = {
		{ d->has_integrity_boundary, d->integrity_boundary, "integrity lost", "#c0392b", 26 },
		{ d->has_refusal_boundary, d->refusal_boundary, "refused from", "#7d3c98", 40 },
	};
	char lab[32];

	if (d->has_advertised && d->advertised > 0) {
		fmt_tokens(lab, sizeof lab, d->advertised);
		buf_printf(b, "<line class=\"advertised\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#555\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		    "text-anchor=\"end\">advertised %s</text>\n", X(p, d->advertised), p->T, X(p, d->advertised),
		    p->T + p->ph, X(p, d->advertised) - 4, p->T + 12, lab);
	}
	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		double x = X(p, bounds[i].v);

		if (!bounds[i].has)
			continue;
		fmt_tokens(lab, sizeof lab, bounds[i].v);
		buf_printf(b, "<line class=\"boundary\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		    "fill=\"%s\">%s %s</text>\n", x, p->T, x, p->T + p->ph, bounds[i].color, x + 4,
		    p->T + bounds[i].dy, bounds[i].color, bounds[i].label, lab);
	}
}

/* Each point sent and its reported usage, unjoined: a line between two sizes
 * would draw a gradual loss at sizes nobody sent (a verify sweep sends the
 * top of the context and a small prompt, nothing between). */
static void
sweep_points(struct buf *b, const struct plot *p, const struct report_sweep *d)
{
	double tot, f;

	for (size_t i = 0; i < d->npoints; i++) {
		const struct size_point *pt = &d->points[i];
		double t = pt_tokens(pt);

		f = pt_integrity(pt, &tot);
		buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#1f5fa8\">"
		    "<title>%.0f tokens: %.0f/%.0f nonces, %s</title></circle>\n", X(p, t), YF(p, f),
		    pt->accepted ? "#1f5fa8" : "#fff", t, pt->has_nonces_echoed ? pt->nonces_echoed : 0, tot,
		    pt->accepted ? "accepted" : "refused");
		if (pt->has_usage)
			buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#e67e22\">"
			    "<title>%.0f tokens sent, %.0f reported</title></rect>\n", X(p, t) - 3.5,
			    YU(p, pt->usage_prompt_tokens) - 3.5, t, pt->usage_prompt_tokens);
	}
}

/* The context-integrity sweep: prompt size (x) against echoed-nonce integrity
 * (left axis, 0-100%) and the prompt tokens the vendor reported (right axis,
 * same scale as x, so honest usage lies on the diagonal), with the advertised
 * context and the observed boundaries as vertical lines. */
static void
sweep_svg(struct buf *b, const struct report_sweep *d)
{
	struct plot p = { .W = 760, .H = 350, .L = 64, .R = 70, .T = 24, .B = 66 };

	p.pw = p.W - p.L - p.R;
	p.ph = p.H - p.T - p.B;
	p.xmax = d->b.has_advertised ? d->b.advertised : 0;
	for (size_t i = 0; i < d->npoints; i++) {
		p.xmax = fmax(p.xmax, pt_tokens(&d->points[i]));
		p.xmax = fmax(p.xmax, d->points[i].has_usage ? d->points[i].usage_prompt_tokens : 0);
	}
	if (p.xmax <= 0)
		p.xmax = 1;
	p.xmax *= 1.05;
	sweep_axes(b, &p);
	sweep_marks(b, &p, &d->b);
	sweep_points(b, &p, d);
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"><tspan fill=\"#1f5fa8\">&#9679; nonces "
	    "echoed (hollow: refused)</tspan>  <tspan fill=\"#e67e22\">&#9632; reported usage</tspan>"
	    "</text>\n", p.L, p.H - 8);
	buf_adds(b, "</svg>\n");
}

#undef X
#undef YF
#undef YU

/* Findings, each list[idx[i]] (list[i] when idx is NULL); a column for the
 * run that superseded them when the first is not open. */
static void
findings_table(struct buf *b, const struct report_doc *d, const struct report_finding *list,
    const size_t *idx, size_t n)
{
	int superseded = n > 0 && !list[idx != NULL ? idx[0] : 0].open;

	buf_printf(b, "<table><tr><th>Severity</th><th>Code</th><th>Probe</th><th>Run</th>%s"
	    "<th>Message</th><th>Evidence</th></tr>\n", superseded ? "<th>Superseded by run</th>" : "");
	for (size_t i = 0; i < n; i++) {
		const struct report_finding *f = &list[idx != NULL ? idx[i] : i];

		buf_printf(b, "<tr class=\"sev-%s\">", severity_name(f->severity));
		td_s(b, severity_name(f->severity));
		td_s(b, f->code);
		td_s(b, f->probe);
		td_i(b, f->run_id);
		if (superseded && f->superseded_by_run != 0)
			td_i(b, f->superseded_by_run);
		else if (superseded)
			td_s(b, NULL);
		td_s(b, f->message);
		td_evidence(b, d, f->evidence, NULL, f->nevidence);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* Claims, each list[idx[i]] (list[i] when idx is NULL). */
static void
claims_table(struct buf *b, const struct report_doc *d, const size_t *idx, size_t n)
{
	buf_adds(b, "<table><tr><th>Question</th><th>Round</th><th>Vendor's answer</th><th>Endpoint</th>"
	    "<th>Claim</th><th>On what evidence</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		const struct claim *c = &d->claims.items[idx != NULL ? idx[i] : i];
		char round[160];

		report_claim_round(d, c, round, sizeof round);
		buf_printf(b, "<tr class=\"claim-%s\"><td>", claim_status_name(c->status));
		esc(b, c->question_id);
		if (c->question) {
			buf_adds(b, ": ");
			esc(b, c->question);
		}
		buf_adds(b, "</td>");
		td_s(b, round);
		td_j(b, c->answer);
		td_s(b, c->endpoint);
		buf_printf(b, "<td><strong>%s</strong></td>", claim_status_name(c->status));
		td_s(b, c->reason);
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
 * list is empty (n 0), the sentence that says so. */
static void
section(struct buf *b, size_t n, const char *id, const char *title, const char *none)
{
	buf_printf(b, "<h2 id=\"%s\">%s</h2>\n", id, title);
	if (n == 0)
		buf_printf(b, "<p>%s</p>\n", none);
}

/* The title and who made and signed the report. */
static void
html_head(struct buf *b, const struct report *r)
{
	const struct report_doc *d = r->doc;

	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aivet report: ");
	esc(b, d->vendor.name);
	buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	if (d->audit_failure != NULL) {
		buf_adds(b, "<p class=\"audit-failure\"><strong>");
		esc(b, d->audit_failure);
		buf_adds(b, "</strong></p>\n");
	}
	buf_adds(b, "<h1>Vendor report: ");
	esc(b, d->vendor.name);
	buf_adds(b, "</h1>\n<dl>\n<dt>Report</dt><dd><code>");
	esc(b, d->report_id);
	buf_adds(b, "</code></dd>\n<dt>Generated</dt><dd>");
	esc(b, d->generated_at);
	buf_adds(b, "</dd>\n<dt>Keep until</dt><dd>");
	esc(b, d->retention_until);
	buf_adds(b, "</dd>\n<dt>Signed by key</dt><dd><code>");
	esc(b, d->signer_key_id);
	buf_adds(b, "</code></dd>\n<dt>Signer's public key</dt><dd><code>");
	esc(b, d->signer_public_key);
	buf_adds(b, "</code> (compare it with the key obtained out of band)</dd>\n<dt>aivet</dt><dd>");
	esc(b, d->aivet_version);
	{
		struct buf t;

		buf_init(&t);
		tsa_request_words(r->doc->tsa_url, &t);
		buf_adds(b, "</dd>\n<dt>Time</dt><dd>");
		esc(b, t.data);
		buf_free(&t);
	}
	buf_adds(b, "</dd>\n</dl>\n");
}

/* The rating, the counts, and what most needs a reader's eye. */
static void
html_summary(struct buf *b, const struct report_doc *d)
{
	const struct report_summary *sum = &d->summary;
	const char *rating = rating_name(sum->verdict.rating);

	buf_adds(b, "<h2 id=\"summary\">Summary</h2>\n");
	buf_printf(b, "<p>Overall rating: <span class=\"rating rating-%s\">%s</span></p>\n",
	    rating, rating);
	if (sum->rating_rule != NULL) {
		buf_adds(b, "<p class=\"rule\">The overall rating is ");
		esc(b, sum->rating_rule);
		buf_adds(b, " An assessment is ");
		esc(b, sum->assessment_rating_rule);
		buf_adds(b, "</p>\n");
	}
	buf_adds(b, "<table><tr>");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		buf_printf(b, "<th>open %s</th>", severity_name((enum severity)i));
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		buf_printf(b, "<th>claims %s</th>", claim_status_name((enum claim_status)i));
	buf_adds(b, "</tr><tr>");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		buf_printf(b, "<td>%lld</td>", (long long)sum->findings[i]);
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		buf_printf(b, "<td>%lld</td>", (long long)sum->claims[i]);
	buf_adds(b, "</tr></table>\n<h3>Critical and high findings</h3>\n");
	if (sum->ncritical == 0)
		buf_adds(b, "<p>None.</p>\n");
	else
		findings_table(b, d, d->findings, sum->critical, sum->ncritical);
	buf_adds(b, "<h3>Contradicted claims</h3>\n");
	if (sum->claims_contradicted_unrated > 0)
		buf_printf(b, "<p>Of the rounds the rating reads; %lld more in a round it does not read "
		    "(Claims against evidence names each claim's round).</p>\n",
		    (long long)sum->claims_contradicted_unrated);
	if (sum->ncontradicted == 0)
		buf_adds(b, "<p>None.</p>\n");
	else
		claims_table(b, d, sum->contradicted, sum->ncontradicted);
}

/* How the run measured tokens per word, as a table with each sample's exchange. */
static void
html_calibration(struct buf *b, const struct report_doc *d, const struct run_calibration *cal)
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
			buf_adds(b, "<td>");
			evidence_link(b, d, rows.v[i].evidence, NULL, NULL);
			buf_adds(b, "</td>");
		}
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	report_rows_free(&rows);
}

/* The run's exchanges: each id and file a link to the exchange's file. */
static void
html_exchanges(struct buf *b, const struct report_doc *d, const struct report_run *x)
{
	if (x->nexchanges == 0)
		return;
	buf_adds(b, "<details><summary>Exchanges (evidence files)</summary>\n<table><tr><th>Evidence"
	    "</th><th>Probe</th><th>Seq</th><th>Tenant</th><th>Status</th><th>File</th>"
	    "<th>SHA-256 of the file</th></tr>\n");
	for (size_t i = 0; i < x->nexchanges; i++) {
		const struct report_exchange *r = &x->exchanges[i];
		char num[32];

		snprintf(num, sizeof num, "%lld", (long long)r->evidence_id);
		buf_adds(b, "<tr><td>");
		evidence_link(b, d, r->evidence_id, NULL, num);
		buf_adds(b, "</td>");
		td_s(b, r->probe);
		td_i(b, r->seq);
		td_s(b, r->tenant);
		if (r->has_status)
			td_i(b, r->status);
		else
			buf_adds(b, "<td>no response</td>");
		buf_adds(b, "<td>");
		evidence_link(b, d, r->evidence_id, NULL, r->file);
		buf_adds(b, "</td><td><code>");
		esc(b, r->file_sha256);
		buf_adds(b, "</code></td></tr>\n");
	}
	buf_adds(b, "</table></details>\n");
}

/* The charts a result's probe draws: the sweep's, prefix timing's. */
static void
html_charts(struct buf *b, const struct report_result *r)
{
	if (r->sweep.present) {
		char rb[120], ib[120];

		report_boundary_words(&r->sweep.b, 1, rb, sizeof rb);
		report_boundary_words(&r->sweep.b, 0, ib, sizeof ib);
		buf_adds(b, "<figure>\n");
		sweep_svg(b, &r->sweep);
		buf_adds(b, "<figcaption>Context-integrity sweep: behaviour past the limit was <strong>");
		esc(b, r->sweep.b.change);
		buf_adds(b, "</strong>; refusal boundary ");
		esc(b, rb);
		buf_adds(b, "; integrity boundary ");
		esc(b, ib);
		buf_adds(b, ".</figcaption>\n</figure>\n");
	}
	if (r->timing.present)
		prefix_timing_svg(b, &r->timing);
}

/* One probe run: its results, the charts its probes draw, its exchanges. */
static void
html_run(struct buf *b, const struct report_doc *d, const struct report_run *x)
{
	buf_printf(b, "<h3>Run %d on ", (int)x->id);
	esc(b, x->endpoint);
	buf_adds(b, "</h3>\n<p>Status ");
	esc(b, run_state_name(x->state));
	buf_adds(b, ", started ");
	esc(b, x->started_at);
	if (x->finished_at != NULL) {
		buf_adds(b, ", finished ");
		esc(b, x->finished_at);
	} else {
		buf_adds(b, ", not finished");
	}
	buf_printf(b, "; tokens in %lld, out %lld.</p>\n", (long long)x->tokens_in, (long long)x->tokens_out);
	html_calibration(b, d, &x->cal);
	buf_adds(b, "<table><tr><th>Probe</th><th>Verdict</th><th>Reason</th>"
	    "<th>Requests</th></tr>\n");
	for (size_t i = 0; i < x->nresults; i++) {
		const struct report_result *r = &x->results[i];

		buf_adds(b, "<tr>");
		td_s(b, r->probe);
		buf_printf(b, "<td><strong>%s</strong></td>", probe_verdict_name(r->verdict));
		td_or(b, r->reason, "no reason recorded");
		if (r->has_requests)
			td_i(b, r->requests);
		else
			td_s(b, NULL);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	for (size_t i = 0; i < x->nresults; i++)
		html_charts(b, &x->results[i]);
	html_exchanges(b, d, x);
}

/* Who made, submitted and approved an assessment, and how it is rated. */
static void
html_assessment_head(struct buf *b, const struct report_assessment *x)
{
	buf_printf(b, "<h3>Assessment %d, round %d: ", (int)x->id, (int)x->round);
	esc(b, x->q_title);
	buf_adds(b, "</h3>\n<p>Status ");
	esc(b, assessment_status_name(x->status));
	buf_adds(b, "; created by ");
	esc(b, x->created_by);
	buf_adds(b, " at ");
	esc(b, x->created_at);
	if (x->submitted_at != NULL) {
		buf_adds(b, "; submitted ");
		esc(b, x->submitted_at);
	} else {
		buf_adds(b, "; not submitted");
	}
	if (x->approved_at != NULL) {
		buf_adds(b, "; approved ");
		esc(b, x->approved_at);
		buf_adds(b, " by ");
		esc(b, x->reviewer ? x->reviewer : "an unrecorded reviewer");
		if (x->since_approval != NULL) {
			buf_adds(b, ", ");
			esc(b, x->since_approval);
		}
	} else {
		buf_adds(b, "; not approved");
	}
	/* Rated as assess show rates it (report.json's rating, its contradicted claims counted). */
	buf_printf(b, ".</p>\n<p>Rating <span class=\"rating rating-%s\">%s</span>, risk score %.1f "
	    "(worst answer %s)", rating_name(x->rating), rating_name(x->rating), x->risk_score,
	    risk_name(x->worst_risk));
	if (x->contradicted_claims > 0) {
		buf_printf(b, "; %d contradicted claim%s counted high: ", (int)x->contradicted_claims,
		    x->contradicted_claims == 1 ? "" : "s");
		esc(b, x->contradicted_by ? x->contradicted_by : "");
	}
}

/* Each assessment with every answer, who gave it and its evidence. */
static void
html_assessments(struct buf *b, const struct report_doc *d)
{
	section(b, d->nassessments, "assessments", "Assessments", "No assessments in this report.");
	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *x = &d->assessments[i];

		html_assessment_head(b, x);
		buf_adds(b, ".</p>\n<table><tr><th>Question</th><th>Answer</th><th>Risk</th><th>Claim</th>"
		    "<th>Note</th><th>By</th><th>At</th><th>Evidence</th></tr>\n");
		for (size_t k = 0; k < x->nanswers; k++) {
			const struct report_answer *y = &x->answers[k];

			buf_adds(b, "<tr><td>");
			esc(b, y->question_id);
			if (y->question) {
				buf_adds(b, ": ");
				esc(b, y->question);
			}
			buf_adds(b, "</td>");
			if (y->value != NULL)
				td_j(b, y->value);
			else
				td_s(b, "not answered");
			td_or(b, y->rated ? risk_name(y->risk) : NULL, "none");
			if (y->claim != CLAIM_NONE)
				buf_printf(b, "<td class=\"claim-%s\"><strong>%s</strong></td>",
				    claim_status_name(y->claim), claim_status_name(y->claim));
			else
				buf_adds(b, "<td>not testable</td>");
			td_or(b, y->note, "none");
			td_s(b, y->actor);
			td_s(b, y->updated_at);
			td_evidence(b, d, NULL, y->evidence, y->nevidence);
			buf_adds(b, "</tr>\n");
		}
		buf_adds(b, "</table>\n");
	}
}

/* An incident's timeline, notification clocks and tasks. */
static void
html_incident_tables(struct buf *b, const struct incident *x)
{
	buf_printf(b, "<table><tr>%s</tr>\n", "<th>When (UTC)</th><th>Kind</th><th>Who</th><th>What</th>");
	for (size_t i = 0; i < x->ntimeline; i++) {
		const struct incident_entry *e = &x->timeline[i];

		buf_adds(b, "<tr>");
		td_s(b, e->at_utc), td_s(b, e->kind), td_s(b, e->actor), td_s(b, e->text);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	if (x->clocks[0].name != NULL) {
		buf_adds(b, "<h4>Notification clocks (as of ");
		esc(b, x->as_of);
		buf_adds(b, ")</h4>\n");
		buf_printf(b, "<table><tr>%s</tr>\n", "<th>Clock</th><th>State</th><th>Due</th><th>Stopped</th>"
		    "<th>Why</th>");
		for (int i = 0; i < CLOCK_COUNT && x->clocks[i].name != NULL; i++) {
			const struct incident_clock *c = &x->clocks[i];
			char t[32];

			if (c->applies && c->stopped_ms >= 0)
				fmt_time_ms(c->stopped_ms, t);
			buf_adds(b, "<tr>");
			td_s(b, c->name), td_s(b, c->state), td_s(b, c->applies ? c->due_text : NULL);
			td_s(b, c->applies && c->stopped_ms >= 0 ? t : NULL), td_s(b, c->basis);
			buf_adds(b, "</tr>\n");
		}
		buf_adds(b, "</table>\n");
	}
	if (x->ntasks > 0) {
		buf_adds(b, "<h4>Tasks</h4>\n");
		buf_printf(b, "<table><tr>%s</tr>\n", "<th>Task</th><th>Owner</th><th>Due</th><th>Done</th>");
		for (size_t i = 0; i < x->ntasks; i++) {
			const struct incident_task *t = &x->tasks[i];

			buf_adds(b, "<tr>");
			td_s(b, t->title), td_s(b, t->owner), td_s(b, t->due_at), td_s(b, t->done_at);
			buf_adds(b, "</tr>\n");
		}
		buf_adds(b, "</table>\n");
	}
}

/* Each incident: its facts, tables and linked evidence. */
static void
html_incidents(struct buf *b, const struct report_doc *d)
{
	section(b, d->nincidents, "incidents", "Incidents", "None.");
	for (size_t i = 0; i < d->nincidents; i++) {
		const struct report_incident *ri = &d->incidents[i];
		struct buf f;

		buf_printf(b, "<h3>Incident %d: ", (int)ri->inc.id);
		esc(b, ri->inc.title);
		buf_init(&f);
		report_incident_facts(&ri->inc, &f);
		buf_adds(b, "</h3>\n<p>");
		esc(b, f.data);
		buf_adds(b, "</p>\n");
		buf_free(&f);
		html_incident_tables(b, &ri->inc);
		if (ri->has_files && ri->nfiles > 0) {
			buf_adds(b, "<h4>Linked evidence</h4>\n<table><tr><th>Evidence</th></tr>\n<tr>");
			td_evidence(b, d, NULL, ri->files, ri->nfiles);
			buf_adds(b, "</tr></table>\n");
		}
	}
}

/* The endpoints, then the audit checkpoint the bundle was made at. */
static void
html_endpoints_integrity(struct buf *b, const struct report_doc *d)
{
	buf_adds(b, "<h2 id=\"endpoints\">Endpoints</h2>\n");
	buf_printf(b, "<table><tr>%s</tr>\n", "<th>Name</th><th>API</th><th>URL</th><th>Model</th>"
	    "<th>Advertised context</th><th>Status</th>");
	for (size_t i = 0; i < d->endpoints.n; i++) {
		const struct endpoint *e = &d->endpoints.items[i];

		buf_adds(b, "<tr>");
		td_s(b, e->name), td_s(b, e->api), td_s(b, e->url), td_s(b, e->model);
		td_i(b, e->context_tokens), td_s(b, e->status);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
	buf_adds(b, "<h2 id=\"integrity\">Integrity</h2>\n<p>Audit log at export: ");
	buf_printf(b, "%lld entries, head <code>", (long long)d->audit_entries);
	esc(b, d->audit_head);
	buf_printf(b, "</code> (chain %s). The bundle's SHA256SUMS is signed; VERIFY.txt says how to check "
	    "it with minisign, sha256sum or OpenSSL.</p>\n</body>\n</html>\n",
	    d->audit_intact ? "intact" : "BROKEN");
}

char *
report_html(const struct report *r)
{
	const struct report_doc *d = r->doc;
	struct buf b;

	buf_init(&b);
	html_head(&b, r);
	html_summary(&b, d);
	section(&b, d->claims.n, "claims", "Claims against evidence",
	    "No answered question can be tested by a probe.");
	if (d->claims.n > 0)
		claims_table(&b, d, NULL, d->claims.n);
	section(&b, d->nfindings, "findings", "Open findings", "None.");
	if (d->nfindings > 0)
		findings_table(&b, d, d->findings, NULL, d->nfindings);
	section(&b, d->nsuperseded, "superseded", "Superseded findings (a later run "
	    "of the probe replaced them; the rating does not read them)", "None.");
	if (d->nsuperseded > 0)
		findings_table(&b, d, d->superseded, NULL, d->nsuperseded);
	section(&b, d->nruns, "runs", "Probe runs", "No probe runs in this report.");
	for (size_t i = 0; i < d->nruns; i++)
		html_run(&b, d, &d->runs[i]);
	html_assessments(&b, d);
	html_incidents(&b, d);
	html_endpoints_integrity(&b, d);
	return buf_steal(&b);
}
