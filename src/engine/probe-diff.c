/*
 * probe-diff.c: drift between two probe runs (for "aivet probe diff" and
 * "probe run --compare-last"). The incident began with a configuration
 * change nobody announced; comparing each run with the last one shows such
 * a change as new or resolved findings, changed verdicts, an admission or
 * integrity boundary that moved, a changed calibration, and error responses
 * whose shape changed (status and JSON structure, with identifier fields
 * such as type and code kept).
 *
 * Two runs against an unchanged vendor never measure quite the same: the
 * calibration counts random filler, and each sweep ends its binary search
 * somewhere inside its last step. A nightly comparison that called that
 * drift would cry wolf, so figures are compared against the resolution of
 * their own measurement: calibration by the chance spread of its samples,
 * boundaries by the brackets their searches ended in.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "run-format.h"

/* Calibration figures of runs without two sample sizes to derive a resolution
 * from: closer than this fraction they are the same. */
#define CALIBRATION_TOLERANCE 0.05
/* Boundaries of runs whose points do not show their search's last step:
 * closer than this fraction of the advertised context they have not moved. */
#define BOUNDARY_TOLERANCE 0.01
#define SHAPE_MAX_DEPTH 4

static const cJSON *
find_probe(const cJSON *run, const char *name)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItem(run, "probes"))
		if (json_get_str(p, "name") && strcmp(json_get_str(p, "name"), name) == 0)
			return p;
	return NULL;
}

static const cJSON *
find_finding(const cJSON *probe, const char *code)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(probe, "findings"))
		if (json_get_str(f, "code") && strcmp(json_get_str(f, "code"), code) == 0)
			return f;
	return NULL;
}

static cJSON *
run_ref(const cJSON *run)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "id", cJSON_Duplicate(cJSON_GetObjectItem(run, "id"), 1));
	json_add_str(o, "endpoint", json_get_str(run, "endpoint"));
	json_add_str(o, "status", json_get_str(run, "status"));
	json_add_str(o, "started_at", json_get_str(run, "started_at"));
	return o;
}

/* Findings of `from` whose probe and code are not in `to`. */
static void
findings_missing(const cJSON *from, const cJSON *to, int need_probe_in_to, cJSON *out)
{
	const cJSON *p, *f;

	cJSON_ArrayForEach(p, cJSON_GetObjectItem(from, "probes")) {
		const char *name = json_get_str(p, "name");
		const cJSON *tp = name ? find_probe(to, name) : NULL;

		if (name == NULL)
			continue;
		/* A finding is resolved only when the later run checked again and did not err. */
		if (need_probe_in_to && (tp == NULL || strcmp(json_get_str(tp, "verdict") ? json_get_str(tp, "verdict") : "",
		    "error") == 0))
			continue;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(p, "findings")) {
			cJSON *o;

			if (json_get_str(f, "code") == NULL || (tp != NULL && find_finding(tp, json_get_str(f, "code"))))
				continue;
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "probe", name);
			json_add_str(o, "code", json_get_str(f, "code"));
			json_add_str(o, "severity", json_get_str(f, "severity"));
			json_add_str(o, "message", json_get_str(f, "message"));
			cJSON_AddItemToObject(o, "evidence",
			    cJSON_Duplicate(cJSON_GetObjectItem(f, "evidence"), 1));
			cJSON_AddItemToArray(out, o);
		}
	}
}

static cJSON *
change(const char *probe, const char *field, const cJSON *a, const cJSON *b)
{
	cJSON *o = cJSON_CreateObject();

	if (probe != NULL)
		cJSON_AddStringToObject(o, "probe", probe);
	cJSON_AddStringToObject(o, "field", field);
	cJSON_AddItemToObject(o, "a", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "b", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
	return o;
}

static int
numbers_differ(const cJSON *a, const cJSON *b, double tolerance)
{
	return fabs(a->valuedouble - b->valuedouble) > tolerance;
}

/* ---- resolution of a calibration ---- */

/* How far the token counts of two samples of `units` random filler words may
 * differ by chance alone (three standard deviations). The words are drawn at
 * random from a fixed list of common nouns, which any tokenizer in use prices
 * within a token of one another, so a word's count varies with sd at most
 * 1/2 and the difference of two samples of n words with sd at most
 * sqrt(2n) / 2; a token more for each of the two counts' rounding. */
static double
sample_spread(double units)
{
	return 3 * sqrt(2 * units) / 2 + 2;
}

/* The resolution of tokens_per_unit and overhead_tokens as the smallest and
 * largest samples fit them (slope and intercept of the line through both):
 * how far two runs may differ by chance. 0 when there are no two sizes. */
static int
calibration_resolution(const cJSON *cal, double *tpu, double *overhead)
{
	const cJSON *s;
	double u0 = 0, u1 = 0;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cal, "samples")) {
		const cJSON *u = cJSON_GetObjectItem(s, "units");

		if (!cJSON_IsNumber(u) || !(u->valuedouble > 0))
			continue;
		if (u0 == 0 || u->valuedouble < u0)
			u0 = u->valuedouble;
		if (u->valuedouble > u1)
			u1 = u->valuedouble;
	}
	if (!(u1 > u0))
		return 0;
	*tpu = (sample_spread(u0) + sample_spread(u1)) / (u1 - u0);
	*overhead = sample_spread(u0) + u0 * *tpu;
	return 1;
}

/* The relative resolution of sizes estimated by a run's calibration. */
static double
size_resolution(const cJSON *run)
{
	const cJSON *cal = cJSON_GetObjectItem(run, "calibration");
	double tpu_res, ovh_res, tpu = cJSON_GetNumberValue(cJSON_GetObjectItem(cal, "tokens_per_unit"));

	if (!cJSON_IsObject(cal) || !calibration_resolution(cal, &tpu_res, &ovh_res) || !(tpu > 0))
		return BOUNDARY_TOLERANCE;
	return tpu_res / tpu;
}

/* ---- resolution of a boundary ---- */

/* [lo, hi]: where a boundary of value v lies by its run's points. The search
 * ended with v, the last good size, and the next size it sent above it, which
 * was bad: the true boundary is between the two. Sizes measured by usage are
 * exact; those estimated by the calibration are widened by its resolution.
 * Without points to show it, v and the next 1% of the advertised context. */
static void
boundary_bracket(const cJSON *details, double v, double advertised, double size_res,
    double *lo, double *hi)
{
	const cJSON *p, *at = NULL, *next = NULL;
	double at_sent;

	*lo = v;
	*hi = v + BOUNDARY_TOLERANCE * advertised;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(details, "points")) {
		const cJSON *u = cJSON_GetObjectItem(p, "usage_prompt_tokens");

		if (cJSON_IsTrue(cJSON_GetObjectItem(p, "stream")))
			continue;
		if ((cJSON_IsNumber(u) && u->valuedouble == v) ||
		    (at == NULL && cJSON_GetNumberValue(cJSON_GetObjectItem(p, "tokens_sent")) == v))
			at = p;
	}
	if (at == NULL)
		return;
	at_sent = cJSON_GetNumberValue(cJSON_GetObjectItem(at, "tokens_sent"));
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(details, "points")) {
		double sent = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "tokens_sent"));

		if (!cJSON_IsTrue(cJSON_GetObjectItem(p, "stream")) && sent > at_sent &&
		    (next == NULL || sent < cJSON_GetNumberValue(cJSON_GetObjectItem(next, "tokens_sent"))))
			next = p;
	}
	if (!cJSON_IsNumber(cJSON_GetObjectItem(at, "usage_prompt_tokens")))
		*lo = v * (1 - size_res);
	if (next != NULL)
		*hi = cJSON_GetNumberValue(cJSON_GetObjectItem(next, "tokens_sent")) * (1 + size_res);
}

/* Two runs' boundaries moved when the ranges they could lie in do not meet. */
static int
boundaries_differ(const cJSON *ra, const cJSON *da, const cJSON *rb, const cJSON *db, double a,
    double b)
{
	double adv = fmax(cJSON_GetNumberValue(cJSON_GetObjectItem(db, "advertised")), 1);
	double alo, ahi, blo, bhi;

	boundary_bracket(da, a, adv, size_resolution(ra), &alo, &ahi);
	boundary_bracket(db, b, adv, size_resolution(rb), &blo, &bhi);
	return ahi < blo || bhi < alo;
}

static void
diff_verdicts_and_boundaries(const cJSON *ra, const cJSON *rb, cJSON *verdicts, cJSON *bounds)
{
	static const char *const fields[] = { "refusal_boundary", "integrity_boundary", "change",
		"advertised" };
	const cJSON *pa, *pb;

	cJSON_ArrayForEach(pb, cJSON_GetObjectItem(rb, "probes")) {
		const char *name = json_get_str(pb, "name");
		const cJSON *da, *db;

		if (name == NULL || (pa = find_probe(ra, name)) == NULL)
			continue;
		if (json_get_str(pa, "verdict") && json_get_str(pb, "verdict") &&
		    strcmp(json_get_str(pa, "verdict"), json_get_str(pb, "verdict")) != 0)
			cJSON_AddItemToArray(verdicts, change(name, "verdict", cJSON_GetObjectItem(pa, "verdict"),
			    cJSON_GetObjectItem(pb, "verdict")));
		da = cJSON_GetObjectItem(pa, "details");
		db = cJSON_GetObjectItem(pb, "details");
		if (!cJSON_IsObject(da) || !cJSON_IsObject(db))
			continue;
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			const cJSON *a = cJSON_GetObjectItem(da, fields[i]), *b = cJSON_GetObjectItem(db, fields[i]);
			int differ;

			if (a == NULL && b == NULL)
				continue;
			if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && strcmp(fields[i], "advertised") != 0)
				differ = boundaries_differ(ra, da, rb, db, a->valuedouble, b->valuedouble);
			else
				differ = a == NULL || b == NULL || !cJSON_Compare(a, b, 1);
			if (differ)
				cJSON_AddItemToArray(bounds, change(name, fields[i], a, b));
		}
	}
}

static void
diff_calibration(const cJSON *ca, const cJSON *cb, cJSON *out)
{
	const cJSON *a, *b;
	double tpu_res = 0, ovh_res = 0, t, o;
	int ha, have_res;

	if (!cJSON_IsObject(ca) || !cJSON_IsObject(cb)) {
		if (cJSON_IsObject(ca) != cJSON_IsObject(cb))
			cJSON_AddItemToArray(out, change(NULL, "calibration", ca, cb));
		return;
	}
	/* The fitted line is judged by the coarser of the two runs' resolutions. */
	ha = calibration_resolution(ca, &tpu_res, &ovh_res);
	if (calibration_resolution(cb, &t, &o)) {
		tpu_res = ha ? fmax(tpu_res, t) : t;
		ovh_res = ha ? fmax(ovh_res, o) : o;
		have_res = 1;
	} else {
		have_res = ha;
	}
	/* Scalars only: the raw samples differ every run, the fitted figures should not. */
	cJSON_ArrayForEach(a, ca) {
		double tol;

		if (cJSON_IsArray(a) || cJSON_IsObject(a))
			continue;
		b = cJSON_GetObjectItemCaseSensitive(cb, a->string);
		if (b == NULL) {
			cJSON_AddItemToArray(out, change(NULL, a->string, a, NULL));
			continue;
		}
		tol = CALIBRATION_TOLERANCE * fmax(fmax(fabs(a->valuedouble), fabs(b->valuedouble)), 1e-9);
		if (have_res && strcmp(a->string, "tokens_per_unit") == 0)
			tol = tpu_res;
		else if (have_res && strcmp(a->string, "overhead_tokens") == 0)
			tol = ovh_res;
		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) ? numbers_differ(a, b, tol) : !cJSON_Compare(a, b, 1))
			cJSON_AddItemToArray(out, change(NULL, a->string, a, b));
	}
	cJSON_ArrayForEach(b, cb)
		if (!cJSON_IsArray(b) && !cJSON_IsObject(b) &&
		    cJSON_GetObjectItemCaseSensitive(ca, b->string) == NULL)
			cJSON_AddItemToArray(out, change(NULL, b->string, NULL, b));
}

/* The shape of a JSON value: structure and identifier-like fields, not free text. */
static void
shape_of(const cJSON *v, const char *key, int depth, struct buf *out)
{
	if (cJSON_IsObject(v)) {
		const cJSON *c;
		int first = 1;

		if (depth >= SHAPE_MAX_DEPTH) {
			buf_adds(out, "{...}");
			return;
		}
		buf_adds(out, "{");
		/* Keys in the order the server sent them: a reordering is a change of shape too. */
		cJSON_ArrayForEach(c, v) {
			buf_printf(out, "%s%s:", first ? "" : ",", c->string);
			shape_of(c, c->string, depth + 1, out);
			first = 0;
		}
		buf_adds(out, "}");
	} else if (cJSON_IsArray(v)) {
		buf_adds(out, "[");
		if (cJSON_GetArraySize(v) > 0)
			shape_of(cJSON_GetArrayItem(v, 0), NULL, depth + 1, out);
		buf_adds(out, "]");
	} else if (cJSON_IsString(v)) {
		if (key != NULL && (strcmp(key, "type") == 0 || strcmp(key, "code") == 0 ||
		    strcmp(key, "status") == 0) && strlen(v->valuestring) <= 64)
			buf_printf(out, "\"%s\"", v->valuestring);
		else
			buf_adds(out, "string");
	} else if (cJSON_IsNumber(v)) {
		if (key != NULL && (strcmp(key, "code") == 0 || strcmp(key, "status") == 0))
			buf_printf(out, "%g", v->valuedouble);
		else
			buf_adds(out, "number");
	} else if (cJSON_IsBool(v)) {
		buf_adds(out, "bool");
	} else {
		buf_adds(out, "null");
	}
}

/* {"probe\nshape": {"probe", "status", "shape", "evidence"}} for a run's error responses. */
static int
error_shapes(struct db *db, int64_t run, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT x.probe, x.response_status, x.response_blob, "
	    "x.evidence_id FROM exchange x WHERE x.run_id = ? AND x.response_status >= 300 "
	    "ORDER BY x.seq", "i", run);
	cJSON *shapes = cJSON_CreateObject();

	*out = NULL;
	if (st == NULL) {
		cJSON_Delete(shapes);
		return err->code;
	}
	while (db_step(st) == DB_ROW) {
		struct buf body, shape;
		int encrypted = 0;
		cJSON *j = NULL, *o;
		char *key;

		buf_init(&shape);
		buf_init(&body);
		if (db_col_type(st, 2) != DB_NULL &&
		    blob_get(db, col_text(st, 2), &body, &encrypted, err) != 0) {
			aerr_clear(err);
			encrypted = 1;
		}
		if (encrypted)
			buf_adds(&shape, "(sealed)");
		else if (body.len == 0)
			buf_adds(&shape, "(empty)");
		else if ((j = cJSON_ParseWithLength(body.data, body.len)) != NULL)
			shape_of(j, NULL, 0, &shape);
		else
			buf_adds(&shape, "(not JSON)");
		cJSON_Delete(j);
		buf_free(&body);
		key = xasprintf("%s\n%lld %s", col_text(st, 0), (long long)db_col_int64(st, 1),
		    shape.data);
		if (cJSON_GetObjectItemCaseSensitive(shapes, key) == NULL) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "probe", col_text(st, 0));
			cJSON_AddNumberToObject(o, "status", (double)db_col_int64(st, 1));
			cJSON_AddStringToObject(o, "shape", shape.data);
			cJSON_AddNumberToObject(o, "evidence", (double)db_col_int64(st, 3));
			cJSON_AddItemToObject(shapes, key, o);
		}
		free(key);
		buf_free(&shape);
	}
	db_finalize(st);
	*out = shapes;
	return 0;
}

/* Shapes of `from` absent from `to`, for probes both runs ran. */
static void
shapes_missing(const cJSON *from, const cJSON *to, const cJSON *run_from, const cJSON *run_to,
    cJSON *out)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, from) {
		const char *probe = json_get_str(s, "probe");

		if (cJSON_GetObjectItemCaseSensitive(to, s->string) != NULL || probe == NULL ||
		    find_probe(run_from, probe) == NULL || find_probe(run_to, probe) == NULL)
			continue;
		cJSON_AddItemToArray(out, cJSON_Duplicate(s, 1));
	}
}

/* The engine each run read, node by node: its count, then each node's version,
 * pool, context, maximum total and mode, compared exactly (the engine says them of
 * itself; they change only when its configuration does). Nothing when either run
 * did not read the engine. */
static void
diff_engine(const cJSON *ra, const cJSON *rb, cJSON *out)
{
	static const char *const fields[] = { "version", "pool_tokens", "context_tokens",
		"max_total_tokens", "mode", NULL };
	const cJSON *ea = find_probe(ra, "engine"), *eb = find_probe(rb, "engine");
	const cJSON *na = cJSON_GetObjectItem(cJSON_GetObjectItem(ea, "details"), "nodes");
	const cJSON *nb = cJSON_GetObjectItem(cJSON_GetObjectItem(eb, "details"), "nodes");
	int n;

	if (!cJSON_IsArray(na) || !cJSON_IsArray(nb))
		return;
	if (cJSON_GetArraySize(na) != cJSON_GetArraySize(nb)) {
		cJSON *a = cJSON_CreateNumber(cJSON_GetArraySize(na)), *b = cJSON_CreateNumber(cJSON_GetArraySize(nb));

		cJSON_AddItemToArray(out, change(NULL, "nodes", a, b));
		cJSON_Delete(a);
		cJSON_Delete(b);
	}
	n = cJSON_GetArraySize(na) < cJSON_GetArraySize(nb) ? cJSON_GetArraySize(na) : cJSON_GetArraySize(nb);
	for (int i = 0; i < n; i++) {
		const cJSON *a = cJSON_GetArrayItem(na, i), *b = cJSON_GetArrayItem(nb, i);

		for (int k = 0; fields[k] != NULL; k++) {
			const cJSON *x = cJSON_GetObjectItem(a, fields[k]), *y = cJSON_GetObjectItem(b, fields[k]);
			char field[64];

			/* A node read in one run and not in the other says nothing of its figures. */
			if (!cJSON_HasObjectItem(a, fields[k]) || !cJSON_HasObjectItem(b, fields[k]) ||
			    cJSON_Compare(x, y, 1))
				continue;
			snprintf(field, sizeof field, "node %d %s", i + 1, fields[k]);
			cJSON_AddItemToArray(out, change(NULL, field, x, y));
		}
	}
}

int
probe_diff_json(struct db *db, int64_t a, int64_t b, cJSON **out, int *changed_out, struct aerr *err)
{
	cJSON *ra = NULL, *rb = NULL, *sa = NULL, *sb = NULL, *d, *o, *fnew, *fres, *ver, *bnd, *cal,
	    *snew, *sgone, *eng;
	int changed;

	*out = NULL;
	if (changed_out != NULL)
		*changed_out = 0;
	if (probe_run_json(db, a, &ra, err) != 0 || probe_run_json(db, b, &rb, err) != 0 ||
	    error_shapes(db, a, &sa, err) != 0 || error_shapes(db, b, &sb, err) != 0) {
		cJSON_Delete(ra);
		cJSON_Delete(rb);
		cJSON_Delete(sa);
		return err->code;
	}
	d = cJSON_CreateObject();
	cJSON_AddItemToObject(d, "a", run_ref(ra));
	cJSON_AddItemToObject(d, "b", run_ref(rb));
	cJSON_AddBoolToObject(d, "same_endpoint", json_get_str(ra, "endpoint") && json_get_str(rb, "endpoint") &&
	    strcmp(json_get_str(ra, "endpoint"), json_get_str(rb, "endpoint")) == 0);
	o = cJSON_AddObjectToObject(d, "findings");
	fnew = cJSON_AddArrayToObject(o, "new");
	fres = cJSON_AddArrayToObject(o, "resolved");
	findings_missing(rb, ra, 0, fnew);
	findings_missing(ra, rb, 1, fres);
	ver = cJSON_AddArrayToObject(d, "verdicts");
	bnd = cJSON_AddArrayToObject(d, "boundaries");
	diff_verdicts_and_boundaries(ra, rb, ver, bnd);
	cal = cJSON_AddArrayToObject(d, "calibration");
	diff_calibration(cJSON_GetObjectItem(ra, "calibration"), cJSON_GetObjectItem(rb, "calibration"), cal);
	eng = cJSON_AddArrayToObject(d, "engine");
	diff_engine(ra, rb, eng);
	o = cJSON_AddObjectToObject(d, "error_shapes");
	snew = cJSON_AddArrayToObject(o, "new");
	sgone = cJSON_AddArrayToObject(o, "gone");
	shapes_missing(sb, sa, rb, ra, snew);
	shapes_missing(sa, sb, ra, rb, sgone);
	changed = cJSON_GetArraySize(fnew) + cJSON_GetArraySize(fres) + cJSON_GetArraySize(ver) +
	    cJSON_GetArraySize(bnd) + cJSON_GetArraySize(cal) + cJSON_GetArraySize(snew) +
	    cJSON_GetArraySize(sgone) + cJSON_GetArraySize(eng) > 0;
	cJSON_AddBoolToObject(d, "changed", changed);
	cJSON_Delete(ra);
	cJSON_Delete(rb);
	cJSON_Delete(sa);
	cJSON_Delete(sb);
	*out = d;
	if (changed_out != NULL)
		*changed_out = changed;
	return 0;
}

/* One line of a vendor's text (a finding's message, an error body's shape):
 * escaped for the terminal, line breaks included, so it cannot forge a line. */
static void
print_line_text(FILE *f, const char *s)
{
	char *e = text_escape(s ? s : "", strlen(s ? s : ""), 0);

	fputs(e, f);
	free(e);
}

static void
print_value(FILE *f, const cJSON *v)
{
	char *s;

	if (cJSON_IsString(v)) {
		print_line_text(f, v->valuestring);
		return;
	}
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15) {
		char t[32];

		fputs(thousands((int64_t)v->valuedouble, t), f);
		return;
	}
	if (cJSON_IsNumber(v)) {
		fprintf(f, "%.4g", v->valuedouble);
		return;
	}
	s = cJSON_PrintUnformatted(v);
	print_line_text(f, s ? s : "?");
	free(s);
}

static void
print_changes(FILE *f, const char *label, const cJSON *arr)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, arr) {
		term_printf(f, "  %-18s ", label);
		if (json_get_str(c, "probe"))
			term_printf(f, "%s ", json_get_str(c, "probe"));
		term_printf(f, "%s ", json_get_str(c, "field"));
		print_value(f, cJSON_GetObjectItem(c, "a"));
		fputs(" -> ", f);
		print_value(f, cJSON_GetObjectItem(c, "b"));
		fputc('\n', f);
	}
}

/* Printed through term_printf, with the vendor's text (messages, the shapes of
 * its error bodies, whose keys and codes it chose) escaped on one line. */
void
probe_diff_print(FILE *f, const cJSON *d)
{
	const cJSON *a = cJSON_GetObjectItem(d, "a"), *b = cJSON_GetObjectItem(d, "b"), *x;
	const cJSON *fs = cJSON_GetObjectItem(d, "findings"), *ss = cJSON_GetObjectItem(d, "error_shapes");
	int changed = cJSON_IsTrue(cJSON_GetObjectItem(d, "changed"));

	term_printf(f, "%s from run %d", changed ? "drift" : "no drift",
	    cJSON_GetObjectItem(a, "id")->valueint);
	if (cJSON_IsTrue(cJSON_GetObjectItem(d, "same_endpoint")))
		term_printf(f, " to run %d (%s)", cJSON_GetObjectItem(b, "id")->valueint,
		    json_get_str(b, "endpoint"));
	else
		term_printf(f, " (%s) to run %d (%s)", json_get_str(a, "endpoint"),
		    cJSON_GetObjectItem(b, "id")->valueint, json_get_str(b, "endpoint"));
	fputs(changed ? ":\n" : "\n", f);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(fs, "new")) {
		term_printf(f, "  %-18s %s %s (%s): ", "new finding", json_get_str(x, "probe"),
		    json_get_str(x, "code"), json_get_str(x, "severity"));
		print_line_text(f, json_get_str(x, "message"));
		fputc('\n', f);
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(fs, "resolved"))
		term_printf(f, "  %-18s %s %s (%s)\n", "resolved finding", json_get_str(x, "probe"),
		    json_get_str(x, "code"), json_get_str(x, "severity"));
	print_changes(f, "verdict", cJSON_GetObjectItem(d, "verdicts"));
	print_changes(f, "boundary", cJSON_GetObjectItem(d, "boundaries"));
	print_changes(f, "calibration", cJSON_GetObjectItem(d, "calibration"));
	print_changes(f, "engine", cJSON_GetObjectItem(d, "engine"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(ss, "new")) {
		term_printf(f, "  %-18s %s %d ", "new error shape", json_get_str(x, "probe"),
		    cJSON_GetObjectItem(x, "status")->valueint);
		print_line_text(f, json_get_str(x, "shape"));
		fputc('\n', f);
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(ss, "gone")) {
		term_printf(f, "  %-18s %s %d ", "gone error shape", json_get_str(x, "probe"),
		    cJSON_GetObjectItem(x, "status")->valueint);
		print_line_text(f, json_get_str(x, "shape"));
		fputc('\n', f);
	}
}

int
probe_previous_run(struct db *db, int64_t run, int64_t *prev, struct aerr *err)
{
	return db_int(db, prev, err, "SELECT p.id FROM probe_run p JOIN probe_run r ON r.id = ? "
	    "WHERE p.endpoint_id = r.endpoint_id AND p.id < r.id AND p.status = 'completed' "
	    "ORDER BY p.id DESC LIMIT 1", "i", run);
}

cJSON *
probe_compare_last(struct db *db, int64_t run_id, struct aerr *err)
{
	int64_t prev;
	cJSON *d;
	int rc = probe_previous_run(db, run_id, &prev, err);

	if (rc == 1)
		return cJSON_CreateNull();
	if (rc != 0 || probe_diff_json(db, prev, run_id, &d, NULL, err) != 0)
		return NULL;
	return d;
}

void
probe_compare_print(FILE *f, int64_t run_id, const cJSON *cmp)
{
	if (cJSON_IsNull(cmp))
		term_printf(f, "no earlier completed run of this endpoint to compare run %lld with\n",
		    (long long)run_id);
	else
		probe_diff_print(f, cmp);
}
