/*
 * report-parts.c: what report.html and report.md say the same way, so the
 * two renderings cannot drift apart: where in the bundle a piece of
 * evidence is (every evidence id and file becomes a relative link), the
 * run's calibration as labelled rows instead of a JSON blob, and the words
 * for a value that is missing (a sweep boundary not located, usage not
 * reported) so that no reader meets "null".
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "incident.h"
#include "report.h"
#include "report-doc.h"

const char *
report_evidence_path(const struct report_doc *d, int64_t id)
{
	for (size_t i = 0; i < d->nruns; i++)
		for (size_t k = 0; k < d->runs[i].nexchanges; k++)
			if (d->runs[i].exchanges[k].evidence_id == id && d->runs[i].exchanges[k].file != NULL)
				return d->runs[i].exchanges[k].file;
	for (size_t i = 0; i < d->nassessments; i++)
		for (size_t k = 0; k < d->assessments[i].nanswers; k++) {
			const struct report_answer *a = &d->assessments[i].answers[k];

			for (size_t j = 0; j < a->nevidence; j++)
				if (a->evidence[j].id == id && a->evidence[j].file != NULL)
					return a->evidence[j].file;
		}
	for (size_t i = 0; i < d->nincidents; i++)
		for (size_t k = 0; k < d->incidents[i].nfiles; k++)
			if (d->incidents[i].files[k].id == id && d->incidents[i].files[k].file != NULL)
				return d->incidents[i].files[k].file;
	return NULL;
}

void
report_evidence_ref(const struct report_doc *d, int64_t id, const struct report_evidence *e,
    struct report_ref *ref)
{
	const char *slash;

	memset(ref, 0, sizeof *ref);
	if (e == NULL) {
		ref->id = id;
		ref->path = report_evidence_path(d, ref->id);
		evidence_file_name(ref->id, "exchange", NULL, ref->name, sizeof ref->name);
	} else {
		ref->id = e->id;
		ref->path = e->file;
		/* An exchange linked to an incident is in the bundle with its run. */
		if (ref->path == NULL && e->file_note == NULL)
			ref->path = report_evidence_path(d, ref->id);
		evidence_file_name(ref->id, e->kind ? e->kind : "file", e->original_name, ref->name,
		    sizeof ref->name);
		ref->note = e->file_note;
	}
	if (ref->path != NULL && (slash = strrchr(ref->path, '/')) != NULL)
		snprintf(ref->name, sizeof ref->name, "%s", slash + 1);
	if (ref->path == NULL && ref->note == NULL)
		ref->note = "not in this bundle";
}

void
report_href(struct buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p) != NULL)
			buf_add(b, (const char *)p, 1);
		else
			buf_printf(b, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

/* ---- calibration ---- */

static void
row_add(struct report_rows *rs, const char *label, int64_t evidence, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
row_add(struct report_rows *rs, const char *label, int64_t evidence, const char *fmt, ...)
{
	va_list ap;
	struct report_row *r;
	int n;

	rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
	r = &rs->v[rs->n++];
	r->label = xstrdup(label);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	r->value = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	r->value[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(r->value, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	r->evidence = evidence;
}

static const char *
method_words(const char *m)
{
	if (m == NULL)
		return "not recorded";
	if (strcmp(m, "usage") == 0)
		return "usage: the prompt tokens the vendor reported for two sample prompts";
	if (strcmp(m, "bounds") == 0)
		return "bounds: no usable token count, so prompt sizes are bounded, not measured";
	return NULL;
}

/* The measured part: method, rate, overhead, bounds. */
static void
calibration_rate(const struct run_calibration *cal, const char *unit, struct report_rows *rs)
{
	const char *m = cal->method;
	int measured = m != NULL && strcmp(m, "bounds") != 0;
	char label[96];

	if (m != NULL || cal->has_tokens_per_unit) {
		if (method_words(m) != NULL)
			row_add(rs, "Method", 0, "%s", method_words(m));
		else
			row_add(rs, "Method", 0, "%s: the vendor's token-count endpoint", m);
	}
	snprintf(label, sizeof label, "Tokens per %s", unit);
	if (!isnan(cal->tokens_per_unit) && measured && cal->tokens_per_unit > 0)
		row_add(rs, label, 0, "%.3f", cal->tokens_per_unit);
	else if (cal->has_tokens_per_unit)
		row_add(rs, label, 0, "not measured");
	if (!isnan(cal->overhead_tokens) && measured)
		row_add(rs, "Overhead tokens per request", 0, "%.0f", cal->overhead_tokens);
	else if (cal->has_overhead)
		row_add(rs, "Overhead tokens per request", 0, "not measured");
	if (cal->has_bounds && !isnan(cal->bounds[0]) && !isnan(cal->bounds[1]))
		row_add(rs, "Bounds", 0, "%g to %g tokens per %s", cal->bounds[0], cal->bounds[1], unit);
}

/* The sample prompts (with their exchanges) and any count that was rejected. */
static void
calibration_samples(const struct run_calibration *cal, const char *unit, struct report_rows *rs)
{
	char label[32];

	for (size_t i = 0; i < cal->nsamples; i++) {
		const struct cal_sample *s = &cal->samples[i];

		snprintf(label, sizeof label, "Sample %zu", i + 1);
		if (s->has_tokens)
			row_add(rs, label, s->evidence, "%.0f %ss: %.0f tokens", s->units, unit, s->tokens);
		else
			row_add(rs, label, s->evidence, "%.0f %ss: no token count", s->units, unit);
	}
	if (cal->has_rejected && cal->nrejected == 0)
		row_add(rs, "Rejected counts", 0, "none");
	for (size_t i = 0; cal->has_rejected && i < cal->nrejected; i++)
		row_add(rs, "Rejected count", 0, "%s: %s",
		    cal->rejected[i].method ? cal->rejected[i].method : "count",
		    cal->rejected[i].reason ? cal->rejected[i].reason : "no reason recorded");
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

/* A member the rows above do not name, as a labelled row: its name with
 * spaces for underscores and a capital, its value in words. */
static void
calibration_other(const struct doc_scalar *m, struct report_rows *rs)
{
	char *label = xstrdup(m->name), *value = value_words(m->value);

	for (char *p = label; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (label[0] >= 'a' && label[0] <= 'z')
		label[0] = (char)(label[0] - 'a' + 'A');
	row_add(rs, label, 0, "%s", value);
	free(label);
	free(value);
}

void
report_calibration_rows(const struct run_calibration *cal, struct report_rows *rs)
{
	const char *unit = cal->unit ? cal->unit : "filler word";

	rs->v = NULL;
	rs->n = 0;
	if (!cal->present) {
		row_add(rs, "Calibration", 0, "not measured in this run");
		return;
	}
	calibration_rate(cal, unit, rs);
	calibration_samples(cal, unit, rs);
	for (size_t i = 0; i < cal->nothers; i++)
		calibration_other(&cal->others[i], rs);
}

void
report_rows_free(struct report_rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].label);
		free(rs->v[i].value);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

/* ---- missing values ---- */

void
report_boundary_words(const struct sweep_bounds *sweep, int refusal, char *out, size_t n)
{
	int has = refusal ? sweep->has_refusal_boundary : sweep->has_integrity_boundary;

	if (has)
		snprintf(out, n, "%.0f tokens", refusal ? sweep->refusal_boundary : sweep->integrity_boundary);
	else if (sweep->depth != NULL && strcmp(sweep->depth, "verify") == 0)
		snprintf(out, n, "not located at depth verify (--depth diagnose locates it)");
	else if (refusal)
		snprintf(out, n, "none found: no prompt sent was refused for size");
	else
		snprintf(out, n, "none found: content came back intact at every size sent");
}

/* ---- incidents ---- */

void
report_incident_facts(const struct incident *x, struct buf *out)
{
	char sev[64];

	buf_printf(out, "Status %s", x->status ? x->status : "?");
	incident_severity_text((int)x->severity, sev, sizeof sev);
	buf_printf(out, "; severity %s", sev);
	buf_printf(out, "; discovered %s", x->discovered_at ? x->discovered_at : "?");
	if (x->vendor_discovered_at != NULL)
		buf_printf(out, "; the vendor found it %s", x->vendor_discovered_at);
	buf_printf(out, "; PHI %s", x->phi ? x->phi : "?");
	if (x->individuals >= 0)
		buf_printf(out, "; %lld individuals", (long long)x->individuals);
	else
		buf_adds(out, "; individuals unknown");
	if (x->state_residents >= 0)
		buf_printf(out, " (at most %lld residents of one state)", (long long)x->state_residents);
	if (x->eu_data >= 0)
		buf_printf(out, "; EU data %s", x->eu_data ? "yes" : "no");
	else
		buf_adds(out, "; EU data unknown");
	if (x->window_start != NULL)
		buf_printf(out, "; exposure window %s to %s", x->window_start,
		    x->window_end ? x->window_end : "not closed");
	buf_adds(out, ".");
}
