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
 *
 * The runs are compared as their records (struct probe_run, run-query.h):
 * the details and calibration a probe recorded are read once, by
 * probe_run_get, into typed members. Nothing here prints: the text is
 * rendered into a buffer the front end prints, the JSON built from the typed
 * comparison.
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

static const struct finding *
find_finding(const struct probe_result *p, const char *code)
{
	for (size_t i = 0; i < p->nfindings; i++)
		if (p->findings[i].code != NULL && strcmp(p->findings[i].code, code) == 0)
			return &p->findings[i];
	return NULL;
}

/* Findings of `from` whose probe and code are not in `to`, of the probes both
 * runs ran: a probe the other run never ran tells nothing new or resolved. */
static void
findings_missing(const struct probe_run *from, const struct probe_run *to, int need_probe_in_to,
    struct diff_findings *out)
{
	for (size_t i = 0; i < from->nprobes; i++) {
		const struct probe_result *p = &from->probes[i];
		const struct probe_result *tp = probe_run_result(to, p->name);

		if (p->name == NULL || tp == NULL)
			continue;
		/* A finding is resolved only when the later run checked again and did not err. */
		if (need_probe_in_to && tp->verdict != NULL && strcmp(tp->verdict, "error") == 0)
			continue;
		for (size_t k = 0; k < p->nfindings; k++) {
			const struct finding *f = &p->findings[k];

			if (f->code == NULL || (tp != NULL && find_finding(tp, f->code)))
				continue;
			out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
			out->v[out->n].probe = p->name;
			out->v[out->n++].f = f;
		}
	}
}

/* Adds a change; a and b are copied (NULL: none). */
static void
change(struct diff_changes *out, const char *probe, const char *field, const cJSON *a, const cJSON *b)
{
	struct diff_change *c;

	out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
	c = &out->v[out->n++];
	c->probe = probe ? xstrdup(probe) : NULL;
	c->field = xstrdup(field);
	c->a = a ? cJSON_Duplicate(a, 1) : NULL;
	c->b = b ? cJSON_Duplicate(b, 1) : NULL;
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
calibration_resolution(const struct run_calibration *cal, double *tpu, double *overhead)
{
	double u0 = 0, u1 = 0;

	for (size_t i = 0; i < cal->nunits; i++) {
		double u = cal->sample_units[i];

		if (u0 == 0 || u < u0)
			u0 = u;
		if (u > u1)
			u1 = u;
	}
	if (!(u1 > u0))
		return 0;
	*tpu = (sample_spread(u0) + sample_spread(u1)) / (u1 - u0);
	*overhead = sample_spread(u0) + u0 * *tpu;
	return 1;
}

/* The relative resolution of sizes estimated by a run's calibration. */
static double
size_resolution(const struct probe_run *run)
{
	double tpu_res, ovh_res, tpu = run->calib.tokens_per_unit;

	if (!run->calib.present || !calibration_resolution(&run->calib, &tpu_res, &ovh_res) || !(tpu > 0))
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
boundary_bracket(const struct probe_result *p, double v, double advertised, double size_res,
    double *lo, double *hi)
{
	const struct size_point *at = NULL, *next = NULL;

	*lo = v;
	*hi = v + BOUNDARY_TOLERANCE * advertised;
	for (size_t i = 0; i < p->npoints; i++) {
		const struct size_point *x = &p->points[i];

		if (x->stream)
			continue;
		if ((x->has_usage && x->usage_prompt_tokens == v) || (at == NULL && x->tokens_sent == v))
			at = x;
	}
	if (at == NULL)
		return;
	for (size_t i = 0; i < p->npoints; i++) {
		const struct size_point *x = &p->points[i];

		if (!x->stream && x->tokens_sent > at->tokens_sent &&
		    (next == NULL || x->tokens_sent < next->tokens_sent))
			next = x;
	}
	if (!at->has_usage)
		*lo = v * (1 - size_res);
	if (next != NULL)
		*hi = next->tokens_sent * (1 + size_res);
}

/* Two runs' boundaries moved when the ranges they could lie in do not meet. */
static int
boundaries_differ(const struct probe_run *ra, const struct probe_result *pa, const struct probe_run *rb,
    const struct probe_result *pb, double a, double b)
{
	const cJSON *advertised = doc_scalar_find(pb->scalars, pb->nscalars, "advertised");
	double adv = fmax(cJSON_IsNumber(advertised) ? advertised->valuedouble : NAN, 1);
	double alo, ahi, blo, bhi;

	boundary_bracket(pa, a, adv, size_resolution(ra), &alo, &ahi);
	boundary_bracket(pb, b, adv, size_resolution(rb), &blo, &bhi);
	return ahi < blo || bhi < alo;
}

/* The boundaries one probe's details record, compared against their brackets. */
static void
diff_boundaries(const struct probe_run *ra, const struct probe_result *pa, const struct probe_run *rb,
    const struct probe_result *pb, struct diff_changes *bounds)
{
	static const char *const fields[] = { "refusal_boundary", "integrity_boundary", "change",
		"advertised" };

	if (!cJSON_IsObject(pa->details) || !cJSON_IsObject(pb->details))
		return;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const cJSON *a = doc_scalar_find(pa->scalars, pa->nscalars, fields[i]);
		const cJSON *b = doc_scalar_find(pb->scalars, pb->nscalars, fields[i]);
		int differ;

		if (a == NULL && b == NULL)
			continue;
		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && strcmp(fields[i], "advertised") != 0)
			differ = boundaries_differ(ra, pa, rb, pb, a->valuedouble, b->valuedouble);
		else
			differ = a == NULL || b == NULL || !cJSON_Compare(a, b, 1);
		if (differ)
			change(bounds, pb->name, fields[i], a, b);
	}
}

static void
diff_verdicts_and_boundaries(const struct probe_run *ra, const struct probe_run *rb,
    struct diff_changes *verdicts, struct diff_changes *bounds)
{
	for (size_t i = 0; i < rb->nprobes; i++) {
		const struct probe_result *pb = &rb->probes[i], *pa = probe_run_result(ra, pb->name);

		if (pb->name == NULL || pa == NULL)
			continue;
		if (pa->verdict && pb->verdict && strcmp(pa->verdict, pb->verdict) != 0) {
			cJSON *a = cJSON_CreateString(pa->verdict), *b = cJSON_CreateString(pb->verdict);

			change(verdicts, pb->name, "verdict", a, b);
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
		diff_boundaries(ra, pa, rb, pb, bounds);
	}
}

/* The tolerance of one calibration figure: its resolution where the runs give one. */
static double
calibration_tolerance(const struct doc_scalar *a, const cJSON *b, int have_res, double tpu_res,
    double ovh_res)
{
	if (have_res && strcmp(a->name, "tokens_per_unit") == 0)
		return tpu_res;
	if (have_res && strcmp(a->name, "overhead_tokens") == 0)
		return ovh_res;
	return CALIBRATION_TOLERANCE * fmax(fmax(fabs(a->value->valuedouble), fabs(b->valuedouble)), 1e-9);
}

static void
diff_calibration(const struct probe_run *ra, const struct probe_run *rb, struct diff_changes *out)
{
	const struct run_calibration *ca = &ra->calib, *cb = &rb->calib;
	double tpu_res = 0, ovh_res = 0, t, o;
	int ha, have_res;

	if (!ca->present || !cb->present) {
		if (ca->present != cb->present)
			change(out, NULL, "calibration", ra->calibration, rb->calibration);
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
	for (size_t i = 0; i < ca->nscalars; i++) {
		const cJSON *a = ca->scalars[i].value, *b = doc_scalar_find(cb->scalars, cb->nscalars,
		    ca->scalars[i].name);
		double tol;

		if (b == NULL) {
			change(out, NULL, ca->scalars[i].name, a, NULL);
			continue;
		}
		tol = calibration_tolerance(&ca->scalars[i], b, have_res, tpu_res, ovh_res);
		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) ? numbers_differ(a, b, tol) : !cJSON_Compare(a, b, 1))
			change(out, NULL, ca->scalars[i].name, a, b);
	}
	for (size_t i = 0; i < cb->nscalars; i++)
		if (doc_scalar_find(ca->scalars, ca->nscalars, cb->scalars[i].name) == NULL)
			change(out, NULL, cb->scalars[i].name, NULL, cb->scalars[i].value);
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

static const struct diff_shape *
find_shape(const struct diff_shapes *s, const char *probe, int64_t status, const char *shape)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].status == status && strcmp(s->v[i].probe, probe) == 0 &&
		    strcmp(s->v[i].shape, shape) == 0)
			return &s->v[i];
	return NULL;
}

static void
shapes_free(struct diff_shapes *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].probe);
		free(s->v[i].shape);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* The shape of one recorded error body: "(sealed)", "(empty)", "(not JSON)" or its structure. */
static void
body_shape(struct db *db, const char *blob, struct buf *shape)
{
	struct buf body;
	int encrypted = 0;
	struct aerr err = { 0 };
	cJSON *j = NULL;

	buf_init(&body);
	if (blob != NULL && blob_get(db, blob, &body, &encrypted, &err) != 0)
		encrypted = 1;
	if (encrypted)
		buf_adds(shape, "(sealed)");
	else if (body.len == 0)
		buf_adds(shape, "(empty)");
	else if ((j = cJSON_ParseWithLength(body.data, body.len)) != NULL)
		shape_of(j, NULL, 0, shape);
	else
		buf_adds(shape, "(not JSON)");
	cJSON_Delete(j);
	buf_free(&body);
}

/* A run's error responses, one per probe, status and shape, in the order sent. */
static int
error_shapes(struct db *db, int64_t run, struct diff_shapes *out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT x.probe, x.response_status, x.response_blob, "
	    "x.evidence_id FROM exchange x WHERE x.run_id = ? AND x.response_status >= 300 "
	    "ORDER BY x.seq", "i", run);

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct buf shape;
		int64_t status = db_col_int64(st, 1);

		buf_init(&shape);
		body_shape(db, db_col_type(st, 2) != DB_NULL ? col_text(st, 2) : NULL, &shape);
		if (find_shape(out, col_text(st, 0), status, shape.data) == NULL) {
			out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
			out->v[out->n].probe = xstrdup(col_text(st, 0));
			out->v[out->n].status = status;
			out->v[out->n].shape = xstrdup(shape.data);
			out->v[out->n++].evidence = db_col_int64(st, 3);
		}
		buf_free(&shape);
	}
	db_finalize(st);
	return 0;
}

/* Shapes of `from` absent from `to`, for probes both runs ran. */
static void
shapes_missing(const struct diff_shapes *from, const struct diff_shapes *to, const struct probe_run *run_from,
    const struct probe_run *run_to, struct diff_shapes *out)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct diff_shape *s = &from->v[i];

		if (find_shape(to, s->probe, s->status, s->shape) != NULL ||
		    probe_run_result(run_from, s->probe) == NULL || probe_run_result(run_to, s->probe) == NULL)
			continue;
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n] = *s;
		out->v[out->n].probe = xstrdup(s->probe);
		out->v[out->n++].shape = xstrdup(s->shape);
	}
}

/* A node's figure as a JSON value: the number, or null where it is not served. */
static cJSON *
node_figure(const struct engine_node_status *n, int k)
{
	const char *s = k == 0 ? n->version : n->mode;
	int64_t v = k == 1 ? n->pool : k == 2 ? n->context : n->max_total;

	if (k == 0 || k == 4)
		return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
	return v >= 0 ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

/* The engine each run read, node by node: its count, then each node's version,
 * pool, context, maximum total and mode, compared exactly (the engine says them of
 * itself; they change only when its configuration does). Nothing when either run
 * did not read the engine. */
static void
diff_engine(const struct probe_run *ra, const struct probe_run *rb, struct diff_changes *out)
{
	static const char *const fields[] = { "version", "pool_tokens", "context_tokens",
		"max_total_tokens", "mode" };
	static const unsigned said[] = { NODE_SAID_VERSION, NODE_SAID_POOL, NODE_SAID_CONTEXT,
		NODE_SAID_MAX_TOTAL, NODE_SAID_MODE };
	const struct probe_result *ea = probe_run_result(ra, "engine"), *eb = probe_run_result(rb, "engine");
	size_t n;

	if (ea == NULL || eb == NULL || ea->nodes == NULL || eb->nodes == NULL)
		return;
	if (ea->nnodes != eb->nnodes) {
		cJSON *a = cJSON_CreateNumber((double)ea->nnodes), *b = cJSON_CreateNumber((double)eb->nnodes);

		change(out, NULL, "nodes", a, b);
		cJSON_Delete(a);
		cJSON_Delete(b);
	}
	n = ea->nnodes < eb->nnodes ? ea->nnodes : eb->nnodes;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 5; k++) {
			cJSON *x, *y;
			char field[64];

			/* A node read in one run and not in the other says nothing of its figures. */
			if (!(ea->nodes[i].said & said[k]) || !(eb->nodes[i].said & said[k]))
				continue;
			x = node_figure(&ea->nodes[i], k);
			y = node_figure(&eb->nodes[i], k);
			snprintf(field, sizeof field, "node %zu %s", i + 1, fields[k]);
			if (!cJSON_Compare(x, y, 1))
				change(out, NULL, field, x, y);
			cJSON_Delete(x);
			cJSON_Delete(y);
		}
}

int
probe_diff_runs(struct db *db, int64_t a, int64_t b, struct probe_diff *d, struct aerr *err)
{
	struct diff_shapes sa = { 0 }, sb = { 0 };

	memset(d, 0, sizeof *d);
	if (probe_run_get(db, a, &d->ra, err) != 0 || probe_run_get(db, b, &d->rb, err) != 0 ||
	    error_shapes(db, a, &sa, err) != 0 || error_shapes(db, b, &sb, err) != 0) {
		shapes_free(&sa);
		probe_diff_free(d);
		return err->code;
	}
	d->same_endpoint = d->ra.endpoint && d->rb.endpoint && strcmp(d->ra.endpoint, d->rb.endpoint) == 0;
	findings_missing(&d->rb, &d->ra, 0, &d->new_findings);
	findings_missing(&d->ra, &d->rb, 1, &d->resolved_findings);
	diff_verdicts_and_boundaries(&d->ra, &d->rb, &d->verdicts, &d->boundaries);
	diff_calibration(&d->ra, &d->rb, &d->calibration);
	diff_engine(&d->ra, &d->rb, &d->engine);
	shapes_missing(&sb, &sa, &d->rb, &d->ra, &d->new_shapes);
	shapes_missing(&sa, &sb, &d->ra, &d->rb, &d->gone_shapes);
	shapes_free(&sa);
	shapes_free(&sb);
	for (size_t i = 0; i < d->rb.nprobes; i++)
		if (d->rb.probes[i].name != NULL && probe_run_result(&d->ra, d->rb.probes[i].name) == NULL) {
			d->not_compared = xrealloc(d->not_compared, (d->nnot_compared + 1) *
			    sizeof *d->not_compared);
			d->not_compared[d->nnot_compared++] = d->rb.probes[i].name;
		}
	d->changed = d->new_findings.n + d->resolved_findings.n + d->verdicts.n + d->boundaries.n +
	    d->calibration.n + d->new_shapes.n + d->gone_shapes.n + d->engine.n > 0;
	return 0;
}

static void
changes_free(struct diff_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].probe);
		free(c->v[i].field);
		cJSON_Delete(c->v[i].a);
		cJSON_Delete(c->v[i].b);
	}
	free(c->v);
}

void
probe_diff_free(struct probe_diff *d)
{
	free(d->new_findings.v);
	free(d->resolved_findings.v);
	free(d->not_compared);
	changes_free(&d->verdicts);
	changes_free(&d->boundaries);
	changes_free(&d->calibration);
	changes_free(&d->engine);
	shapes_free(&d->new_shapes);
	shapes_free(&d->gone_shapes);
	probe_run_free(&d->ra);
	probe_run_free(&d->rb);
	memset(d, 0, sizeof *d);
}

/* ---- the comparison as JSON ---- */

static cJSON *
run_ref(const struct probe_run *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)r->id);
	json_add_str(o, "endpoint", r->endpoint);
	json_add_str(o, "status", r->status);
	json_add_str(o, "started_at", r->started_at);
	return o;
}

static cJSON *
findings_json(const struct diff_findings *fs)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = fs->v[i].f;
		cJSON *o = cJSON_CreateObject(), *ev;

		cJSON_AddStringToObject(o, "probe", fs->v[i].probe);
		json_add_str(o, "code", f->code);
		json_add_str(o, "severity", f->severity);
		json_add_str(o, "message", f->message);
		ev = cJSON_AddArrayToObject(o, "evidence");
		for (size_t k = 0; k < f->nevidence; k++)
			cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)f->evidence[k]));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *
changes_json(const struct diff_changes *c)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < c->n; i++) {
		cJSON *o = cJSON_CreateObject();

		if (c->v[i].probe != NULL)
			cJSON_AddStringToObject(o, "probe", c->v[i].probe);
		cJSON_AddStringToObject(o, "field", c->v[i].field);
		cJSON_AddItemToObject(o, "a", c->v[i].a ? cJSON_Duplicate(c->v[i].a, 1) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "b", c->v[i].b ? cJSON_Duplicate(c->v[i].b, 1) : cJSON_CreateNull());
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *
shapes_json(const struct diff_shapes *s)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < s->n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "probe", s->v[i].probe);
		cJSON_AddNumberToObject(o, "status", (double)s->v[i].status);
		cJSON_AddStringToObject(o, "shape", s->v[i].shape);
		cJSON_AddNumberToObject(o, "evidence", (double)s->v[i].evidence);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *
probe_diff_to_json(const struct probe_diff *d)
{
	cJSON *o, *x;

	if (d->none)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "a", run_ref(&d->ra));
	cJSON_AddItemToObject(o, "b", run_ref(&d->rb));
	cJSON_AddBoolToObject(o, "same_endpoint", d->same_endpoint);
	x = cJSON_AddObjectToObject(o, "findings");
	cJSON_AddItemToObject(x, "new", findings_json(&d->new_findings));
	cJSON_AddItemToObject(x, "resolved", findings_json(&d->resolved_findings));
	cJSON_AddItemToObject(o, "verdicts", changes_json(&d->verdicts));
	cJSON_AddItemToObject(o, "boundaries", changes_json(&d->boundaries));
	cJSON_AddItemToObject(o, "calibration", changes_json(&d->calibration));
	cJSON_AddItemToObject(o, "engine", changes_json(&d->engine));
	x = cJSON_AddObjectToObject(o, "error_shapes");
	cJSON_AddItemToObject(x, "new", shapes_json(&d->new_shapes));
	cJSON_AddItemToObject(x, "gone", shapes_json(&d->gone_shapes));
	x = cJSON_AddArrayToObject(o, "not_compared");
	for (size_t i = 0; i < d->nnot_compared; i++)
		cJSON_AddItemToArray(x, cJSON_CreateString(d->not_compared[i]));
	cJSON_AddBoolToObject(o, "changed", d->changed);
	return o;
}

/* ---- the comparison as text ---- */

/* One line of a vendor's text (a finding's message, an error body's shape):
 * escaped for the terminal, line breaks included, so it cannot forge a line. */
static void
line_text(struct buf *b, const char *s)
{
	char *e = text_escape(s ? s : "", strlen(s ? s : ""), 0);

	buf_adds(b, e);
	free(e);
}

static void
value_text(struct buf *b, const cJSON *v)
{
	char *s;

	if (cJSON_IsString(v)) {
		line_text(b, v->valuestring);
		return;
	}
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15) {
		char t[32];

		buf_adds(b, thousands((int64_t)v->valuedouble, t));
		return;
	}
	if (cJSON_IsNumber(v)) {
		buf_printf(b, "%.4g", v->valuedouble);
		return;
	}
	s = v != NULL ? cJSON_PrintUnformatted(v) : xstrdup("null");
	line_text(b, s ? s : "?");
	free(s);
}

static void
changes_text(struct buf *b, const char *label, const struct diff_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		buf_printf(b, "  %-18s ", label);
		if (c->v[i].probe)
			buf_printf(b, "%s ", c->v[i].probe);
		buf_printf(b, "%s ", c->v[i].field);
		value_text(b, c->v[i].a);
		buf_adds(b, " -> ");
		value_text(b, c->v[i].b);
		buf_adds(b, "\n");
	}
}

static void
shapes_text(struct buf *b, const char *label, const struct diff_shapes *s)
{
	for (size_t i = 0; i < s->n; i++) {
		buf_printf(b, "  %-18s %s %d ", label, s->v[i].probe, (int)s->v[i].status);
		line_text(b, s->v[i].shape);
		buf_adds(b, "\n");
	}
}

/* The vendor's text (messages, the shapes of its error bodies, whose keys and
 * codes it chose) escaped on one line. */
void
probe_diff_text(struct buf *b, const struct probe_diff *d)
{
	if (d->none) {
		buf_printf(b, "no earlier completed run of this endpoint to compare run %lld with\n",
		    (long long)d->rb.id);
		return;
	}
	buf_printf(b, "%s from run %d", d->changed ? "drift" : "no drift", (int)d->ra.id);
	if (d->same_endpoint)
		buf_printf(b, " to run %d (%s)", (int)d->rb.id, d->rb.endpoint);
	else
		buf_printf(b, " (%s) to run %d (%s)", d->ra.endpoint, (int)d->rb.id, d->rb.endpoint);
	buf_adds(b, d->changed ? ":\n" : "\n");
	for (size_t i = 0; i < d->nnot_compared; i++)
		buf_printf(b, "  %-18s %s: run %d did not run it\n", "not compared", d->not_compared[i],
		    (int)d->ra.id);
	for (size_t i = 0; i < d->new_findings.n; i++) {
		const struct finding *f = d->new_findings.v[i].f;

		buf_printf(b, "  %-18s %s %s (%s): ", "new finding", d->new_findings.v[i].probe, f->code,
		    f->severity);
		line_text(b, f->message);
		buf_adds(b, "\n");
	}
	for (size_t i = 0; i < d->resolved_findings.n; i++) {
		const struct finding *f = d->resolved_findings.v[i].f;

		buf_printf(b, "  %-18s %s %s (%s)\n", "resolved finding", d->resolved_findings.v[i].probe,
		    f->code, f->severity);
	}
	changes_text(b, "verdict", &d->verdicts);
	changes_text(b, "boundary", &d->boundaries);
	changes_text(b, "calibration", &d->calibration);
	changes_text(b, "engine", &d->engine);
	shapes_text(b, "new error shape", &d->new_shapes);
	shapes_text(b, "gone error shape", &d->gone_shapes);
}

int
probe_previous_run(struct db *db, int64_t run, int64_t *prev, struct aerr *err)
{
	return db_int(db, prev, err, "SELECT p.id FROM probe_run p JOIN probe_run r ON r.id = ? "
	    "WHERE p.endpoint_id = r.endpoint_id AND p.id < r.id AND p.status = 'completed' "
	    "ORDER BY p.id DESC LIMIT 1", "i", run);
}

/* The baseline of a run's drift: the last completed run on its endpoint that
 * ran every probe this run did, so that a run of other probes in between (the
 * engine probe alone, cache-extract) is never the yardstick and no finding
 * the probe had before reads as new; 1 when no earlier run ran any of them. */
static int
probe_baseline_run(struct db *db, int64_t run, int64_t *prev, struct aerr *err)
{
	/* Else the latest that ran most of them; the others are not compared. */
	return db_int(db, prev, err, "SELECT p.id FROM probe_run p JOIN probe_run r ON r.id = ? "
	    "WHERE p.endpoint_id = r.endpoint_id AND p.id < r.id AND p.status = 'completed' "
	    "AND EXISTS (SELECT 1 FROM probe_result x JOIN probe_result y ON y.probe = x.probe "
	    "WHERE x.run_id = r.id AND y.run_id = p.id) ORDER BY (SELECT count(*) FROM probe_result x "
	    "WHERE x.run_id = r.id AND NOT EXISTS (SELECT 1 FROM probe_result y WHERE y.run_id = p.id "
	    "AND y.probe = x.probe)), p.id DESC LIMIT 1", "i", run);
}

int
probe_compare_last(struct db *db, int64_t run_id, struct probe_diff *out, struct aerr *err)
{
	int64_t prev;
	int rc = probe_baseline_run(db, run_id, &prev, err);

	memset(out, 0, sizeof *out);
	if (rc == 1) {
		aerr_clear(err);
		out->none = 1;
		out->rb.id = run_id;
		return 0;
	}
	if (rc != 0)
		return rc;
	return probe_diff_runs(db, prev, run_id, out, err);
}
