/*
 * report-parts.c: what report.html and report.md say the same way, so the
 * two renderings cannot drift apart: where in the bundle a piece of
 * evidence is (every evidence id and file becomes a relative link), the
 * run's calibration as labelled rows instead of a JSON blob, and the words
 * for a value that is missing (a sweep boundary not located, usage not
 * reported) so that no reader meets "null".
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "incident.h"
#include "report.h"

static const char *
s_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
id_is(const cJSON *o, const char *k, int64_t id)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) && (int64_t)v->valuedouble == id;
}

const char *
report_evidence_path(const cJSON *rep, int64_t id)
{
	const cJSON *x, *y, *e;

	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs"))
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "exchanges"))
			if (id_is(y, "evidence_id", id) && s_of(y, "file"))
				return s_of(y, "file");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments"))
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "answers"))
			cJSON_ArrayForEach(e, cJSON_GetObjectItem(y, "evidence"))
				if (id_is(e, "id", id) && s_of(e, "file"))
					return s_of(e, "file");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "incidents"))
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(x, "evidence_files"))
			if (id_is(e, "id", id) && s_of(e, "file"))
				return s_of(e, "file");
	return NULL;
}

void
report_evidence_ref(const cJSON *rep, const cJSON *e, struct report_ref *ref)
{
	const char *slash;

	memset(ref, 0, sizeof *ref);
	if (cJSON_IsNumber(e)) {
		ref->id = (int64_t)e->valuedouble;
		ref->path = report_evidence_path(rep, ref->id);
		evidence_file_name(ref->id, "exchange", NULL, ref->name, sizeof ref->name);
	} else if (cJSON_IsObject(e)) {
		ref->id = cJSON_IsNumber(cJSON_GetObjectItem(e, "id")) ?
		    (int64_t)cJSON_GetObjectItem(e, "id")->valuedouble : 0;
		ref->path = s_of(e, "file");
		/* An exchange linked to an incident is in the bundle with its run. */
		if (ref->path == NULL && s_of(e, "file_note") == NULL)
			ref->path = report_evidence_path(rep, ref->id);
		evidence_file_name(ref->id, s_of(e, "kind") ? s_of(e, "kind") : "file",
		    s_of(e, "original_name"), ref->name, sizeof ref->name);
		ref->note = s_of(e, "file_note");
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
calibration_rate(const cJSON *cal, const char *unit, struct report_rows *rs)
{
	const char *m = s_of(cal, "method");
	const cJSON *tpu = cJSON_GetObjectItem(cal, "tokens_per_unit");
	const cJSON *ovh = cJSON_GetObjectItem(cal, "overhead_tokens");
	const cJSON *bounds = cJSON_GetObjectItem(cal, "bounds");
	int measured = m != NULL && strcmp(m, "bounds") != 0;
	char label[96];

	if (m != NULL || cJSON_GetObjectItem(cal, "tokens_per_unit") != NULL) {
		if (method_words(m) != NULL)
			row_add(rs, "Method", 0, "%s", method_words(m));
		else
			row_add(rs, "Method", 0, "%s: the vendor's token-count endpoint", m);
	}
	snprintf(label, sizeof label, "Tokens per %s", unit);
	if (cJSON_IsNumber(tpu) && measured && tpu->valuedouble > 0)
		row_add(rs, label, 0, "%.3f", tpu->valuedouble);
	else if (tpu != NULL)
		row_add(rs, label, 0, "not measured");
	if (cJSON_IsNumber(ovh) && measured)
		row_add(rs, "Overhead tokens per request", 0, "%.0f", ovh->valuedouble);
	else if (ovh != NULL)
		row_add(rs, "Overhead tokens per request", 0, "not measured");
	if (cJSON_GetArraySize(bounds) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(bounds, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(bounds, 1)))
		row_add(rs, "Bounds", 0, "%g to %g tokens per %s", cJSON_GetArrayItem(bounds, 0)->valuedouble,
		    cJSON_GetArrayItem(bounds, 1)->valuedouble, unit);
}

/* The sample prompts (with their exchanges) and any count that was rejected. */
static void
calibration_samples(const cJSON *cal, const char *unit, struct report_rows *rs)
{
	const cJSON *s, *rej = cJSON_GetObjectItem(cal, "rejected");
	char label[32];
	int i = 0;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cal, "samples")) {
		const cJSON *units = cJSON_GetObjectItem(s, "units"), *tok = cJSON_GetObjectItem(s, "tokens");
		const cJSON *ev = cJSON_GetObjectItem(s, "evidence");
		int64_t eid = cJSON_IsNumber(ev) ? (int64_t)ev->valuedouble : 0;

		snprintf(label, sizeof label, "Sample %d", ++i);
		if (cJSON_IsNumber(tok))
			row_add(rs, label, eid, "%.0f %ss: %.0f tokens", cJSON_IsNumber(units) ?
			    units->valuedouble : 0, unit, tok->valuedouble);
		else
			row_add(rs, label, eid, "%.0f %ss: no token count", cJSON_IsNumber(units) ?
			    units->valuedouble : 0, unit);
	}
	if (cJSON_IsArray(rej) && cJSON_GetArraySize(rej) == 0) {
		row_add(rs, "Rejected counts", 0, "none");
	} else if (cJSON_IsArray(rej)) {
		cJSON_ArrayForEach(s, rej)
			row_add(rs, "Rejected count", 0, "%s: %s", s_of(s, "method") ? s_of(s, "method") : "count",
			    s_of(s, "reason") ? s_of(s, "reason") : "no reason recorded");
	}
}

void
report_calibration_rows(const cJSON *cal, struct report_rows *rs)
{
	static const char *const known[] = { "method", "tokens_per_unit", "overhead_tokens", "bounds",
		"samples", "rejected", "unit", NULL };
	const char *unit = s_of(cal, "unit") ? s_of(cal, "unit") : "filler word";
	const cJSON *x;

	rs->v = NULL;
	rs->n = 0;
	if (!cJSON_IsObject(cal)) {
		row_add(rs, "Calibration", 0, "not measured in this run");
		return;
	}
	calibration_rate(cal, unit, rs);
	calibration_samples(cal, unit, rs);
	cJSON_ArrayForEach(x, cal) {
		size_t k;
		char *label, *w;

		for (k = 0; known[k] != NULL && strcmp(known[k], x->string) != 0; k++)
			;
		if (known[k] != NULL)
			continue;
		label = xstrdup(x->string);
		for (char *p = label; *p; p++)
			if (*p == '_')
				*p = ' ';
		if (label[0] >= 'a' && label[0] <= 'z')
			label[0] = (char)(label[0] - 'a' + 'A');
		w = value_words(x);
		row_add(rs, label, 0, "%s", w);
		free(w);
		free(label);
	}
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
report_boundary_words(const cJSON *sweep, const char *key, char *out, size_t n)
{
	const cJSON *v = cJSON_GetObjectItem(sweep, key);
	const char *depth = s_of(sweep, "depth");

	if (cJSON_IsNumber(v))
		snprintf(out, n, "%.0f tokens", v->valuedouble);
	else if (depth != NULL && strcmp(depth, "verify") == 0)
		snprintf(out, n, "not located at depth verify (--depth diagnose locates it)");
	else if (strcmp(key, "refusal_boundary") == 0)
		snprintf(out, n, "none found: no prompt sent was refused for size");
	else
		snprintf(out, n, "none found: content came back intact at every size sent");
}

/* ---- incidents ---- */

void
report_incident_facts(const cJSON *x, struct buf *out)
{
	const cJSON *v;
	char sev[64];

	buf_printf(out, "Status %s", s_of(x, "status") ? s_of(x, "status") : "?");
	if (cJSON_IsNumber(v = cJSON_GetObjectItem(x, "severity"))) {
		incident_severity_text(v->valueint, sev, sizeof sev);
		buf_printf(out, "; severity %s", sev);
	}
	buf_printf(out, "; discovered %s", s_of(x, "discovered_at") ? s_of(x, "discovered_at") : "?");
	if (s_of(x, "vendor_discovered_at") != NULL)
		buf_printf(out, "; the vendor found it %s", s_of(x, "vendor_discovered_at"));
	buf_printf(out, "; PHI %s", s_of(x, "phi") ? s_of(x, "phi") : "?");
	if (cJSON_IsNumber(v = cJSON_GetObjectItem(x, "individuals")))
		buf_printf(out, "; %.0f individuals", v->valuedouble);
	else if (cJSON_GetObjectItem(x, "individuals") != NULL)
		buf_adds(out, "; individuals unknown");
	if (cJSON_IsNumber(v = cJSON_GetObjectItem(x, "state_residents")))
		buf_printf(out, " (at most %.0f residents of one state)", v->valuedouble);
	if (cJSON_IsBool(v = cJSON_GetObjectItem(x, "eu_data")))
		buf_printf(out, "; EU data %s", cJSON_IsTrue(v) ? "yes" : "no");
	else if (cJSON_IsNull(v))
		buf_adds(out, "; EU data unknown");
	if (s_of(x, "window_start") != NULL)
		buf_printf(out, "; exposure window %s to %s", s_of(x, "window_start"),
		    s_of(x, "window_end") ? s_of(x, "window_end") : "not closed");
	buf_adds(out, ".");
}
