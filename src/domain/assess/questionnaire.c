/*
 * questionnaire.c: reading and checking questionnaire files (the format is
 * questionnaires/FORMAT.md), their in-memory form, typed answer values and
 * their risk, and the questionnaire table. A file is checked completely
 * before anything is used, and every problem is reported at once with its
 * file:line:column and JSON path, so a questionnaire author fixes a file in
 * one pass.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "finding.h"
#include "probe.h"
#include "questionnaire.h"
#include "vendor.h"
#include "jsonpos.h"

static const char *const risk_names[] = { "none", "low", "medium", "high", "critical" };
static const char *const type_names[] = { "yes_no", "single_choice", "multi_choice", "text",
	"number", "duration", "date" };

#define NTYPES ((int)(sizeof type_names / sizeof type_names[0]))

const char *
risk_name(int risk)
{
	return risk >= RISK_NONE && risk <= RISK_CRITICAL ? risk_names[risk] : "?";
}

int
risk_parse(const char *s)
{
	for (int i = RISK_NONE; i <= RISK_CRITICAL; i++)
		if (strcmp(s, risk_names[i]) == 0)
			return i;
	return -1;
}

const char *
q_type_name(int type)
{
	return type >= 0 && type < NTYPES ? type_names[type] : "?";
}

static int
is_choice_type(int type)
{
	return type == QT_YES_NO || type == QT_SINGLE || type == QT_MULTI;
}

static int
is_date(const char *s)
{
	int64_t ms;

	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return 0;
	return s[10] == '\0' && parse_time(s, &ms, NULL) == 0;
}

/* Lower-case letters, digits and the given extra punctuation, 1 to 64 characters. */
static int
is_ident(const char *s, const char *extra)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return 0;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || strchr(extra, *p)))
			return 0;
	return 1;
}

/* ---- checking a file ---- */

/* A problem is located (line and column) only when all are known: one walk
 * of the text for all of them, so a file with many problems stays linear. */
struct vproblem {
	size_t off;
	int seq;
	const cJSON *node;
	int at_key;
	char *line;   /* "PATH: message" until located, then the whole line */
};

struct vctx {
	const char *name, *text;
	size_t len;
	const cJSON *root;
	struct vproblem *p;
	int n, cap;
};

static void
vproblem(struct vctx *v, const cJSON *node, int at_key, const char *path, const char *fmt,
    va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 16;
		v->p = xrealloc(v->p, (size_t)v->cap * sizeof *v->p);
	}
	v->p[v->n].off = 0;
	v->p[v->n].seq = v->n;
	v->p[v->n].node = node;
	v->p[v->n].at_key = at_key;
	v->p[v->n].line = xasprintf("%s: %s", *path ? path : "(top level)", msg);
	v->n++;
}

static int by_position(const void *a, const void *b);

/* Finds every problem's place in one walk, sorts them into file order and
 * writes NAME:LINE:COL in front, counting lines once from the start. */
static void
locate_problems(struct vctx *v)
{
	struct json_loc *locs = xcalloc((size_t)v->n + 1, sizeof *locs);
	size_t n = (size_t)v->n, at = 0;
	int line = 1, col = 1;

	for (int i = 0; i < v->n; i++)
		locs[i].node = v->p[i].node;
	json_locate_many(v->text, v->len, v->root, locs, &n);
	for (int i = 0; i < v->n; i++) {
		const struct json_loc *l = json_loc_find(locs, n, v->p[i].node);

		if (l != NULL && l->found)
			v->p[i].off = v->p[i].at_key ? l->key_off : l->val_off;
	}
	free(locs);
	qsort(v->p, (size_t)v->n, sizeof *v->p, by_position);
	for (int i = 0; i < v->n; i++) {
		char *whole;

		/* As text_line_col, carried on from the previous problem. */
		for (; at < v->p[i].off && at < v->len && v->text[at] != '\0'; at++) {
			if (v->text[at] == '\n')
				line++, col = 1;
			else if (((unsigned char)v->text[at] & 0xc0) != 0x80)
				col++;
		}
		whole = xasprintf("%s:%d:%d: %s\n", v->name, line, col, v->p[i].line);
		free(v->p[i].line);
		v->p[i].line = whole;
	}
}

static void problem(struct vctx *v, const cJSON *node, int at_key, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void problem_key(struct vctx *v, const cJSON *node, const char *path, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
problem(struct vctx *v, const cJSON *node, int at_key, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, node, at_key, path, fmt, ap);
	va_end(ap);
}

static char *path_key(const char *path, const char *key);

/* A problem with the value of member key of the object at path. */
static void
problem_key(struct vctx *v, const cJSON *node, const char *path, const char *key, const char *fmt, ...)
{
	char *p = path_key(path, key);
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, node, 0, p, fmt, ap);
	va_end(ap);
	free(p);
}

/* Problems are found in checking order; they are reported in file order. */
static int
by_position(const void *a, const void *b)
{
	const struct vproblem *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq - y->seq;
}

static char *
path_key(const char *path, const char *key)
{
	return xasprintf("%s%s%s", path, *path ? "." : "", key);
}

static char *
path_index(const char *path, int i)
{
	return xasprintf("%s[%d]", path, i);
}

static void
check_keys(struct vctx *v, const cJSON *obj, const char *path, const char *const *allowed)
{
	const cJSON *c;

	int nallowed = 0;
	char *seen;

	while (allowed[nallowed] != NULL)
		nallowed++;
	/* Only allowed keys can repeat without being unknown: one flag each keeps it linear. */
	seen = xcalloc((size_t)nallowed + 1, 1);
	cJSON_ArrayForEach(c, obj) {
		char *p = path_key(path, c->string);
		int known = -1;

		for (int i = 0; i < nallowed && known < 0; i++)
			if (strcmp(c->string, allowed[i]) == 0)
				known = i;
		if (known < 0)
			problem(v, c, 1, p, "unknown key '%s'", c->string);
		else if (seen[known])
			problem(v, c, 1, p, "duplicate key '%s'", c->string);
		seen[known < 0 ? nallowed : known] = 1;
		free(p);
	}
	free(seen);
}

/* The member when it passes good; NULL otherwise (reported, unless optional and absent). */
static const cJSON *
want_member(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required,
    int (*good)(const cJSON *), const char *expected)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (it == NULL) {
		if (required)
			problem(v, obj, 0, path, "missing required key '%s'", key);
		return NULL;
	}
	if (good(it))
		return it;
	problem_key(v, it, path, key, "%s", expected);
	return NULL;
}

static int
is_nonempty_string(const cJSON *it)
{
	return cJSON_IsString(it) && it->valuestring[0] != '\0';
}

static int
is_nonempty_array(const cJSON *it)
{
	return cJSON_IsArray(it) && cJSON_GetArraySize(it) > 0;
}

static const char *
want_string(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required)
{
	const cJSON *it = want_member(v, obj, path, key, required, is_nonempty_string,
	    "must be a non-empty string");

	return it ? it->valuestring : NULL;
}

static const cJSON *
want_array(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required)
{
	return want_member(v, obj, path, key, required, is_nonempty_array, "must be a non-empty array");
}

static int
want_risk(struct vctx *v, const cJSON *it, const char *path)
{
	int r = cJSON_IsString(it) ? risk_parse(it->valuestring) : -1;

	if (r < 0) {
		if (cJSON_IsString(it))
			problem(v, it, 0, path, "unknown risk '%s' (one of none, low, medium, high, "
			    "critical)", it->valuestring);
		else
			problem(v, it, 0, path, "must be a risk: none, low, medium, high or critical");
	}
	return r;
}

static const char *const top_keys[] = { "id", "version", "title", "description", "sections", NULL };
static const char *const section_keys[] = { "id", "title", "description", "questions", NULL };
static const char *const question_keys[] = { "id", "text", "help", "type", "unit", "choices",
	"bands", "above", "weight", "required", "depends_on", "references", "verified_by", "claim", "contradicted_by", "measured_by",
	"every_request", "engine_fact", NULL };
static const char *const choice_keys[] = { "value", "label", "risk", NULL };
static const char *const band_keys[] = { "max", "risk", NULL };
static const char *const depends_keys[] = { "question", "values", NULL };
static const char *const check_keys_allowed[] = { "probe", "confirms", "tenants", NULL };
static const char *const measure_keys_allowed[] = { "probe", "value", "tolerance", NULL };

/* What the second pass needs: each question's node and path. */
struct qref {
	const cJSON *node;
	char *path;
};

struct id_pos {
	const char *id;
	int i;
};

static int
by_id_cmp(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

/* A choice value given twice: the later one is reported and dropped, then
 * the rest are indexed by value. Sorting keeps this O(n log n). */
static void
index_choices(struct vctx *v, struct q_question *qq, struct id_pos *pos, const cJSON **node,
    const int *where, const char *apath)
{
	char *drop = xcalloc((size_t)qq->nchoices + 1, 1);
	int k = 0;

	qsort(pos, (size_t)qq->nchoices, sizeof *pos, by_id_cmp);
	for (int j = 1; j < qq->nchoices; j++)
		if (strcmp(pos[j - 1].id, pos[j].id) == 0) {
			int c = pos[j].i;
			char *cp = path_index(apath, where[c]), *vp = path_key(cp, "value");

			problem(v, cJSON_GetObjectItemCaseSensitive(node[c], "value"), 0, vp,
			    "duplicate choice '%s'", pos[j].id);
			free(vp);
			free(cp);
			drop[c] = 1;
		}
	/* Keep file order; then the index over what is kept. */
	{
		int *newi = xcalloc((size_t)qq->nchoices + 1, sizeof *newi);

		for (int j = 0; j < qq->nchoices; j++) {
			newi[j] = k;
			if (!drop[j])
				qq->choices[k++] = qq->choices[j];
		}
		qq->by_value = xcalloc((size_t)k + 1, sizeof *qq->by_value);
		for (int j = 0, m = 0; j < qq->nchoices; j++)
			if (!drop[pos[j].i])
				qq->by_value[m++] = newi[pos[j].i];
		free(newi);
	}
	qq->nchoices = k;
	free(drop);
}

static void
check_choices(struct vctx *v, struct q_question *qq, const cJSON *qn, const char *qpath)
{
	const cJSON *arr = want_array(v, qn, qpath, "choices", 1), *c, **node;
	struct id_pos *pos;
	char *apath;
	int i = 0, *where;
	size_t n;

	if (arr == NULL)
		return;
	apath = path_key(qpath, "choices");
	n = (size_t)cJSON_GetArraySize(arr) + 1;
	qq->choices = xcalloc(n, sizeof *qq->choices);
	pos = xcalloc(n, sizeof *pos);
	node = xcalloc(n, sizeof *node);
	where = xcalloc(n, sizeof *where);
	cJSON_ArrayForEach(c, arr) {
		char *cp = path_index(apath, i++);
		const char *value;
		const cJSON *risk;
		int r;

		if (!cJSON_IsObject(c)) {
			problem(v, c, 0, cp, "a choice must be an object with value, label and risk");
			free(cp);
			continue;
		}
		check_keys(v, c, cp, choice_keys);
		value = want_string(v, c, cp, "value", 1);
		if (value != NULL && !is_ident(value, "_-")) {
			char *vp = path_key(cp, "value");

			problem(v, cJSON_GetObjectItemCaseSensitive(c, "value"), 0, vp,
			    "choice value '%s' must be lower-case letters, digits, '_' and '-'", value);
			free(vp);
			value = NULL;
		}
		risk = cJSON_GetObjectItemCaseSensitive(c, "risk");
		r = RISK_NONE;
		if (risk == NULL) {
			problem(v, c, 0, cp, "choice '%s' has no risk", value ? value : "?");
		} else {
			char *rp = path_key(cp, "risk");

			r = want_risk(v, risk, rp);
			free(rp);
		}
		/* Kept even with a bad risk, so later checks do not report the same choice again. */
		if (value != NULL) {
			struct q_choice *ch = &qq->choices[qq->nchoices];
			const char *label = want_string(v, c, cp, "label", 0);

			ch->value = value;
			ch->label = label ? label : value;
			ch->risk = r < 0 ? RISK_NONE : r;
			pos[qq->nchoices].id = value;
			pos[qq->nchoices].i = qq->nchoices;
			node[qq->nchoices] = c;
			where[qq->nchoices++] = i - 1;
		}
		free(cp);
	}
	index_choices(v, qq, pos, node, where, apath);
	free(pos);
	free(node);
	free(where);
	if (qq->type == QT_YES_NO) {
		int yes = 0, no = 0;

		cJSON_ArrayForEach(c, arr) {
			const cJSON *val = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "value") : NULL;

			yes += cJSON_IsString(val) && strcmp(val->valuestring, "yes") == 0;
			no += cJSON_IsString(val) && strcmp(val->valuestring, "no") == 0;
		}
		if (cJSON_GetArraySize(arr) != 2 || yes != 1 || no != 1)
			problem(v, arr, 0, apath, "a yes_no question needs exactly the choices 'yes' and 'no'");
	}
	free(apath);
}

static void
check_bands(struct vctx *v, struct q_question *qq, const cJSON *qn, const char *qpath)
{
	const cJSON *arr = want_array(v, qn, qpath, "bands", 0), *b, *above;
	char *apath;
	int i = 0;

	if (arr == NULL)
		return;
	apath = path_key(qpath, "bands");
	qq->bands = xcalloc((size_t)cJSON_GetArraySize(arr), sizeof *qq->bands);
	cJSON_ArrayForEach(b, arr) {
		char *bp = path_index(apath, i++);
		const cJSON *max, *risk;
		double m = 0;
		int ok = 1, r = -1;

		if (!cJSON_IsObject(b)) {
			problem(v, b, 0, bp, "a band must be an object with max and risk");
			free(bp);
			continue;
		}
		check_keys(v, b, bp, band_keys);
		max = cJSON_GetObjectItemCaseSensitive(b, "max");
		risk = cJSON_GetObjectItemCaseSensitive(b, "risk");
		if (max == NULL) {
			problem(v, b, 0, bp, "missing required key 'max'");
			ok = 0;
		} else if (qq->type == QT_NUMBER ? !cJSON_IsNumber(max) : !cJSON_IsString(max)) {
			problem_key(v, max, bp, "max", qq->type == QT_NUMBER ? "must be a number" :
			    "must be a duration like \"24h\" or \"5d\"");
			ok = 0;
		} else if (qq->type == QT_NUMBER) {
			m = max->valuedouble;
		} else {
			int64_t s;

			if (duration_seconds(max->valuestring, &s) != 0) {
				problem_key(v, max, bp, "max", "'%s' is not a duration like 24h or 5d (units m, h, d, w)",
				    max->valuestring);
				ok = 0;
			}
			m = ok ? (double)s : 0;
		}
		if (risk == NULL) {
			problem(v, b, 0, bp, "missing required key 'risk'");
		} else {
			char *rp = path_key(bp, "risk");

			r = want_risk(v, risk, rp);
			free(rp);
		}
		if (ok && qq->nbands > 0 && m <= qq->bands[qq->nbands - 1].max) {
			problem(v, b, 0, bp, "bands must be in increasing order of max");
			ok = 0;
		}
		if (ok && r >= 0) {
			qq->bands[qq->nbands].max = m;
			qq->bands[qq->nbands++].risk = r;
		}
		free(bp);
	}
	above = cJSON_GetObjectItemCaseSensitive(qn, "above");
	if (above == NULL) {
		problem(v, qn, 0, qpath, "missing required key 'above' (the risk beyond the last band)");
	} else {
		char *ap = path_key(qpath, "above");

		qq->above = want_risk(v, above, ap);
		free(ap);
	}
	free(apath);
}

static void
check_question(struct vctx *v, struct questionnaire *q, struct qref *refs, const cJSON *qn,
    const char *qpath)
{
	struct q_question *qq = &q->questions[q->nquestions];
	const char *id, *type;
	const cJSON *it;

	memset(qq, 0, sizeof *qq);
	qq->dep = -1;
	qq->section = q->nsections;
	qq->weight = 1;
	qq->type = -1;
	check_keys(v, qn, qpath, question_keys);
	id = want_string(v, qn, qpath, "id", 1);
	if (id != NULL && !is_ident(id, "_")) {
		char *p = path_key(qpath, "id");

		problem(v, cJSON_GetObjectItemCaseSensitive(qn, "id"), 0, p,
		    "question id '%s' must be lower-case letters, digits and '_'", id);
		free(p);
		id = NULL;
	}
	qq->id = id ? id : "";
	qq->text = want_string(v, qn, qpath, "text", 1);
	qq->help = want_string(v, qn, qpath, "help", 0);
	type = want_string(v, qn, qpath, "type", 1);
	for (int i = 0; type != NULL && i < NTYPES; i++)
		if (strcmp(type, type_names[i]) == 0)
			qq->type = i;
	if (type != NULL && qq->type < 0) {
		problem_key(v, cJSON_GetObjectItemCaseSensitive(qn, "type"), qpath, "type", "unknown type '%s' (one of "
		    "yes_no, single_choice, multi_choice, text, number, duration, date)", type);
	}
	if (qq->type >= 0) {
		if (is_choice_type(qq->type)) {
			check_choices(v, qq, qn, qpath);
		} else if ((it = cJSON_GetObjectItemCaseSensitive(qn, "choices")) != NULL) {
			problem_key(v, it, qpath, "choices", "a %s question has no choices", type);
		}
		if (qq->type == QT_NUMBER) {
			qq->unit = want_string(v, qn, qpath, "unit", 1);
		} else if ((it = cJSON_GetObjectItemCaseSensitive(qn, "unit")) != NULL) {
			problem_key(v, it, qpath, "unit", "only number questions have a unit");
		}
		if (qq->type == QT_NUMBER || qq->type == QT_DURATION) {
			check_bands(v, qq, qn, qpath);
		} else {
			static const char *const band_only[] = { "bands", "above" };

			for (int i = 0; i < 2; i++)
				if ((it = cJSON_GetObjectItemCaseSensitive(qn, band_only[i])) != NULL) {
					char *p = path_key(qpath, band_only[i]);

					problem(v, it, 0, p, "only number and duration questions have bands");
					free(p);
				}
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "weight")) != NULL) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 100) {
			problem_key(v, it, qpath, "weight", "must be a number from 0 to 100");
		} else {
			qq->weight = it->valuedouble;
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "required")) != NULL) {
		if (!cJSON_IsBool(it)) {
			problem_key(v, it, qpath, "required", "must be true or false");
		} else {
			qq->required = cJSON_IsTrue(it);
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "references")) != NULL) {
		char *p = path_key(qpath, "references");
		const cJSON *r;
		int i = 0, bad = !cJSON_IsArray(it);

		cJSON_ArrayForEach(r, (cJSON_IsArray(it) ? it : NULL)) {
			if (!cJSON_IsString(r) || r->valuestring[0] == '\0') {
				char *rp = path_index(p, i);

				problem(v, r, 0, rp, "a reference must be a non-empty string");
				free(rp);
			}
			i++;
		}
		if (bad)
			problem(v, it, 0, p, "must be an array of strings");
		cJSON_ArrayForEach(r, (cJSON_IsArray(it) ? it : NULL))
			if (cJSON_IsString(r)) {
				qq->references = xrealloc(qq->references, sizeof *qq->references *
				    (size_t)(qq->nreferences + 1));
				qq->references[qq->nreferences++] = r->valuestring;
			}
		free(p);
	}
	refs[q->nquestions].node = qn;
	refs[q->nquestions].path = xstrdup(qpath);
	q->nquestions++;
}

/* The sorted index behind questionnaire_find, and with it the duplicate ids
 * (the later of two equal ids names the first): O(n log n) for n questions. */
/* Section ids given twice: the later is reported (and loses its id). */
static void
index_sections(struct vctx *v, struct questionnaire *q, const cJSON *secs)
{
	struct id_pos *ids = xcalloc((size_t)q->nsections + 1, sizeof *ids);
	const cJSON **node = xcalloc((size_t)q->nsections + 1, sizeof *node);
	int *at = xcalloc((size_t)q->nsections + 1, sizeof *at);
	const cJSON *s;
	int n = 0, ai = 0, first = 0;

	/* Sections that are not objects were skipped when read: map back to the array. */
	cJSON_ArrayForEach(s, secs) {
		if (cJSON_IsObject(s) && n < q->nsections)
			node[n] = s, at[n++] = ai;
		ai++;
	}
	for (int i = 0; i < q->nsections; i++)
		ids[i].id = q->sections[i].id, ids[i].i = i;
	qsort(ids, (size_t)q->nsections, sizeof *ids, by_id_cmp);
	for (int k = 0; k < q->nsections; k++) {
		int i = ids[k].i;
		char *sp, *p;

		if (k == 0 || strcmp(ids[k - 1].id, ids[k].id) != 0) {
			first = i;
			continue;
		}
		if (*ids[k].id == '\0' || i >= n)
			continue;
		sp = path_index("sections", at[i]);
		p = path_key(sp, "id");
		problem(v, cJSON_GetObjectItemCaseSensitive(node[i], "id"), 0, p,
		    "duplicate section id '%s' (first at sections[%d])", ids[k].id, first);
		q->sections[i].id = "";
		free(p);
		free(sp);
	}
	free(node);
	free(at);
	free(ids);
}

static void
index_questions(struct vctx *v, struct questionnaire *q, struct qref *refs)
{
	struct id_pos *ids = xcalloc((size_t)q->nquestions + 1, sizeof *ids);
	int first = 0;

	for (int i = 0; i < q->nquestions; i++)
		ids[i].id = q->questions[i].id, ids[i].i = i;
	qsort(ids, (size_t)q->nquestions, sizeof *ids, by_id_cmp);
	q->by_id = xcalloc((size_t)q->nquestions + 1, sizeof *q->by_id);
	for (int k = 0; k < q->nquestions; k++) {
		int i = ids[k].i;
		char *p;

		q->by_id[k] = i;
		if (k == 0 || strcmp(ids[k - 1].id, ids[k].id) != 0) {
			first = i;
			continue;
		}
		if (*ids[k].id == '\0')
			continue;   /* no id, reported already */
		p = path_key(refs[i].path, "id");
		problem(v, cJSON_GetObjectItemCaseSensitive(refs[i].node, "id"), 0, p,
		    "duplicate question id '%s' (first at %s)", ids[k].id, refs[first].path);
		free(p);
	}
	free(ids);
}

/* Whether value is no answer to qq (why in e): for one-value questions an array
 * means "any of these answers", and must hold at least one. */
static int
not_an_answer(const struct q_question *qq, const cJSON *value, struct aerr *e)
{
	const cJSON *one;

	if (!cJSON_IsArray(value) || qq->type == QT_MULTI)
		return answer_check(qq, value, e) != 0;
	if (cJSON_GetArraySize(value) == 0) {
		snprintf(e->msg, sizeof e->msg, "must not be empty");
		return 1;
	}
	cJSON_ArrayForEach(one, value)
		if (answer_check(qq, one, e) != 0)
			return 1;
	return 0;
}

/* every_request (a claim about every request, which a sample of requests is
 * consistent with but never proves) and engine_fact (a fact the engine probe
 * reads of the serving nodes themselves: "disaggregation", prefill and decode
 * on separate nodes). */
static void
check_scope_keys(struct vctx *v, const cJSON *qn, const char *qpath, struct q_question *qq)
{
	const cJSON *every = cJSON_GetObjectItemCaseSensitive(qn, "every_request");
	const cJSON *fact = cJSON_GetObjectItemCaseSensitive(qn, "engine_fact");

	if (every != NULL && !cJSON_IsBool(every))
		problem_key(v, every, qpath, "every_request", "must be true or false");
	else
		qq->every_request = cJSON_IsTrue(every);
	if (fact == NULL)
		return;
	if (!cJSON_IsString(fact) || strcmp(fact->valuestring, "disaggregation") != 0)
		problem_key(v, fact, qpath, "engine_fact", "must be \"disaggregation\" (the one fact the "
		    "engine probe reads of the nodes' roles)");
	else if (qq->type >= 0 && qq->type != QT_YES_NO)
		problem_key(v, fact, qpath, "engine_fact", "only a yes_no question can be answered by an "
		    "engine fact");
	else
		qq->engine_fact = fact->valuestring;
}

/* claim, contradicted_by and measured_by: what the probes' evidence says of an answer. */
static void
check_claim_keys(struct vctx *v, const cJSON *qn, const char *qpath, struct q_question *qq)
{
	const cJSON *claim = cJSON_GetObjectItemCaseSensitive(qn, "claim");
	const cJSON *codes = want_array(v, qn, qpath, "contradicted_by", 0), *c, *m;
	int j = 0;

	if (claim != NULL && qq->type >= 0) {
		struct aerr e = { 0 };
		char *cp = path_key(qpath, "claim");

		if (not_an_answer(qq, claim, &e))
			problem(v, claim, 0, cp, "not an answer to this question: %s", e.msg);
		else
			qq->claim = claim;
		free(cp);
	}
	if (codes != NULL) {
		char *p = path_key(qpath, "contradicted_by");
		int good = 1;

		cJSON_ArrayForEach(c, codes) {
			char *cp = path_index(p, j++);

			if (!cJSON_IsString(c) || finding_lookup(c->valuestring) == NULL) {
				problem(v, c, 0, cp, "not a finding code of aivet (see aivet(1), FINDINGS)");
				good = 0;
			}
			free(cp);
		}
		if (good)
			qq->contradicted_by = codes;
		free(p);
	}
	if ((m = cJSON_GetObjectItemCaseSensitive(qn, "measured_by")) != NULL) {
		char *p = path_key(qpath, "measured_by");
		const char *probe, *value;
		const cJSON *tol;
		int known = 0;

		if (!cJSON_IsObject(m)) {
			problem(v, m, 0, p, "must be an object with probe, value and tolerance");
			free(p);
			return;
		}
		check_keys(v, m, p, measure_keys_allowed);
		probe = want_string(v, m, p, "probe", 1);
		value = want_string(v, m, p, "value", 1);
		tol = cJSON_GetObjectItemCaseSensitive(m, "tolerance");
		known = probe != NULL && probe_find(probe) != NULL;
		if (probe != NULL && !known)
			problem_key(v, cJSON_GetObjectItemCaseSensitive(m, "probe"), p, "probe",
			    "unknown probe '%s'", probe);
		else if (qq->type >= 0 && qq->type != QT_NUMBER)
			problem(v, m, 0, p, "only a number question can be measured");
		else if (tol != NULL && (!cJSON_IsNumber(tol) || tol->valuedouble < 0 || tol->valuedouble > 0.5))
			problem_key(v, tol, p, "tolerance", "must be a number from 0 to 0.5");
		else if (probe != NULL && value != NULL) {
			qq->measure.probe = probe;
			qq->measure.value = value;
			qq->measure.tolerance = tol ? tol->valuedouble : 0;
		}
		free(p);
	}
	check_scope_keys(v, qn, qpath, qq);
}

/* depends_on and verified_by refer to other questions and values: checked once all are read. */

/* depends_on's question (path p): it must come before question i and be a
 * yes_no or choice question. Its index, or -1 when it is none of those. */
static int
depends_target(struct vctx *v, struct questionnaire *q, int i, const cJSON *dep, const char *p)
{
	const char *target = want_string(v, dep, p, "question", 1);
	const cJSON *it;
	char *tp;
	int t;

	if (target == NULL)
		return -1;
	tp = path_key(p, "question");
	t = questionnaire_find(q, target);
	it = cJSON_GetObjectItemCaseSensitive(dep, "question");
	if (t < 0)
		problem(v, it, 0, tp, "unknown question '%s'", target);
	else if (t >= i)
		problem(v, it, 0, tp, "question '%s' does not come before this one", target);
	else if (!is_choice_type(q->questions[t].type))
		problem(v, it, 0, tp, "question '%s' is a %s question; depends_on needs a "
		    "yes_no or choice question", target, q_type_name(q->questions[t].type));
	free(tp);
	if (t >= i || (t >= 0 && !is_choice_type(q->questions[t].type)))
		t = -1;
	return t;
}

/* Question i's depends_on (path p): set on the question only when the
 * question it names and every one of its values are good. */
static void
check_depends_on(struct vctx *v, struct questionnaire *q, int i, const cJSON *dep, const char *p)
{
	struct q_question *qq = &q->questions[i];
	const cJSON *it;
	int t;

	if (!cJSON_IsObject(dep)) {
		problem(v, dep, 0, p, "must be an object with question and values");
		return;
	}
	check_keys(v, dep, p, depends_keys);
	t = depends_target(v, q, i, dep, p);
	if ((it = want_array(v, dep, p, "values", 1)) != NULL) {
		char *vp = path_key(p, "values");
		const cJSON *val;
		int j = 0, good = 1;

		cJSON_ArrayForEach(val, it) {
			char *ep = path_index(vp, j++);
			struct aerr e = { 0 };

			if (!cJSON_IsString(val)) {
				problem(v, val, 0, ep, "must be a string");
				good = 0;
			} else if (t >= 0 && answer_check(&q->questions[t], val, &e) != 0) {
				problem(v, val, 0, ep, "'%s' is not a choice of '%s'", val->valuestring,
				    q->questions[t].id);
				good = 0;
			}
			free(ep);
		}
		free(vp);
		if (t >= 0 && good) {
			qq->dep = t;
			qq->dep_values = it;
		}
	}
}

/* A check's confirms (in c, path cp): an answer to the question, or for a
 * one-value question an array meaning "any of these answers". 1 when good. */
static int
check_confirms(struct vctx *v, const struct q_question *qq, const cJSON *c, const char *cp,
    const cJSON **out)
{
	const cJSON *confirms = cJSON_GetObjectItemCaseSensitive(c, "confirms");
	struct aerr e = { 0 };
	char *fp;
	int bad;

	*out = confirms;
	if (confirms == NULL) {
		problem(v, c, 0, cp, "missing required key 'confirms'");
		return 0;
	}
	if (qq->type < 0)
		return 1;
	fp = path_key(cp, "confirms");
	if ((bad = not_an_answer(qq, confirms, &e)) != 0)
		problem(v, confirms, 0, fp, "not an answer to this question: %s", e.msg);
	free(fp);
	return !bad;
}

/* One entry of verified_by (c, path cp): a known probe not listed before, what
 * it confirms and for how many tenants; added to the question's checks when good. */
static void
check_one_check(struct vctx *v, struct q_question *qq, const cJSON *c, const char *cp)
{
	const char *probe;
	const cJSON *confirms, *t;
	int known = 0, good = 1;

	if (!cJSON_IsObject(c)) {
		problem(v, c, 0, cp, "must be an object with probe and confirms");
		return;
	}
	check_keys(v, c, cp, check_keys_allowed);
	probe = want_string(v, c, cp, "probe", 1);
	known = probe != NULL && probe_find(probe) != NULL;
	if (probe != NULL && !known) {
		struct buf names;

		buf_init(&names);
		probe_names_text(&names, ", ");
		problem_key(v, cJSON_GetObjectItemCaseSensitive(c, "probe"), cp, "probe", "unknown probe "
		    "'%s' (one of %s)", probe, names.data);
		buf_free(&names);
		good = 0;
	}
	for (int k = 0; probe != NULL && k < qq->nchecks; k++)
		if (strcmp(qq->checks[k].probe, probe) == 0) {
			problem(v, c, 0, cp, "probe '%s' is listed twice", probe);
			good = 0;
		}
	if (!check_confirms(v, qq, c, cp, &confirms))
		good = 0;
	t = cJSON_GetObjectItemCaseSensitive(c, "tenants");
	if (t != NULL && (!cJSON_IsNumber(t) || t->valuedouble != (int)t->valuedouble ||
	    t->valueint < 1 || t->valueint > 16)) {
		char *tp = path_key(cp, "tenants");

		problem(v, t, 0, tp, "must be a whole number from 1 to 16");
		free(tp);
		good = 0;
	}
	if (good && probe != NULL) {
		qq->checks[qq->nchecks].probe = probe;
		qq->checks[qq->nchecks].tenants = t ? t->valueint : 1;
		qq->checks[qq->nchecks++].confirms = confirms;
	}
}

static void
check_references(struct vctx *v, struct questionnaire *q, struct qref *refs)
{
	for (int i = 0; i < q->nquestions; i++) {
		struct q_question *qq = &q->questions[i];
		const cJSON *qn = refs[i].node, *dep, *vb, *c;
		char *p;

		if ((dep = cJSON_GetObjectItemCaseSensitive(qn, "depends_on")) != NULL) {
			p = path_key(refs[i].path, "depends_on");
			check_depends_on(v, q, i, dep, p);
			free(p);
		}
		if ((vb = want_array(v, qn, refs[i].path, "verified_by", 0)) != NULL) {
			int j = 0;

			p = path_key(refs[i].path, "verified_by");
			qq->checks = xcalloc((size_t)cJSON_GetArraySize(vb), sizeof *qq->checks);
			cJSON_ArrayForEach(c, vb) {
				char *cp = path_index(p, j++);

				check_one_check(v, qq, c, cp);
				free(cp);
			}
			free(p);
		}
		check_claim_keys(v, qn, refs[i].path, qq);
	}
}

static void
check_root(struct vctx *v, struct questionnaire *q)
{
	const cJSON *root = v->root, *it, *secs, *s;
	struct qref *refs;
	int nq = 0, si = 0;

	if (!cJSON_IsObject(root)) {
		problem(v, root, 0, "", "a questionnaire must be a JSON object");
		return;
	}
	check_keys(v, root, "", top_keys);
	q->qid = want_string(v, root, "", "id", 1);
	if (q->qid != NULL && !is_ident(q->qid, "-")) {
		problem(v, cJSON_GetObjectItemCaseSensitive(root, "id"), 0, "id",
		    "questionnaire id '%s' must be lower-case letters, digits and '-'", q->qid);
		q->qid = NULL;
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (it == NULL)
		problem(v, root, 0, "", "missing required key 'version'");
	else if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 1e9 ||
	    it->valuedouble != floor(it->valuedouble))
		problem(v, it, 0, "version", "must be a whole number from 1");
	else
		q->version = (int64_t)it->valuedouble;
	q->title = want_string(v, root, "", "title", 1);
	q->description = want_string(v, root, "", "description", 0);
	if ((secs = want_array(v, root, "", "sections", 1)) == NULL)
		return;
	cJSON_ArrayForEach(s, secs) {
		const cJSON *qs = cJSON_IsObject(s) ? cJSON_GetObjectItemCaseSensitive(s, "questions") : NULL;

		nq += cJSON_GetArraySize(qs);
	}
	q->sections = xcalloc((size_t)cJSON_GetArraySize(secs), sizeof *q->sections);
	q->questions = xcalloc((size_t)nq, sizeof *q->questions);
	refs = xcalloc((size_t)nq, sizeof *refs);
	cJSON_ArrayForEach(s, secs) {
		char *sp = path_index("sections", si++);
		struct q_section *sec = &q->sections[q->nsections];
		const cJSON *qs, *qn;
		int qi = 0;

		if (!cJSON_IsObject(s)) {
			problem(v, s, 0, sp, "a section must be an object");
			free(sp);
			continue;
		}
		check_keys(v, s, sp, section_keys);
		sec->id = want_string(v, s, sp, "id", 1);
		if (sec->id != NULL && !is_ident(sec->id, "_-")) {
			char *p = path_key(sp, "id");

			problem(v, cJSON_GetObjectItemCaseSensitive(s, "id"), 0, p,
			    "section id '%s' must be lower-case letters, digits, '_' and '-'", sec->id);
			free(p);
			sec->id = NULL;
		}
		sec->title = want_string(v, s, sp, "title", 1);
		sec->description = want_string(v, s, sp, "description", 0);
		sec->first = q->nquestions;
		if ((qs = want_array(v, s, sp, "questions", 1)) != NULL) {
			char *qsp = path_key(sp, "questions");

			cJSON_ArrayForEach(qn, qs) {
				char *qp = path_index(qsp, qi++);

				if (!cJSON_IsObject(qn))
					problem(v, qn, 0, qp, "a question must be an object");
				else
					check_question(v, q, refs, qn, qp);
				free(qp);
			}
			free(qsp);
		}
		sec->count = q->nquestions - sec->first;
		if (sec->id == NULL)
			sec->id = "";
		q->nsections++;
		free(sp);
	}
	index_sections(v, q, secs);
	index_questions(v, q, refs);
	check_references(v, q, refs);
	for (int i = 0; i < q->nquestions; i++)
		free(refs[i].path);
	free(refs);
}

int
questionnaire_check(const char *name, const char *text, size_t len, struct buf *problems,
    struct questionnaire **out)
{
	struct vctx v = { name, text, len, NULL, NULL, 0, 0 };
	struct questionnaire *q;
	const char *end = NULL;
	cJSON *root;

	if (out != NULL)
		*out = NULL;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root == NULL) {
		int line, col;
		size_t off = end != NULL && end >= text && end <= text + len ? (size_t)(end - text) : 0;

		/* Where cJSON stopped: at or just after the mistake. */
		text_line_col(text, off, &line, &col);
		buf_printf(problems, "%s:%d:%d: not valid JSON\n", name, line, col);
		return 1;
	}
	{
		/* Trailing text after the value: cJSON stops there without complaint. */
		const char *p = end;

		while (p < text + len && strchr(" \t\r\n", *p) != NULL && *p != '\0')
			p++;
		if (p < text + len) {
			int line, col;

			text_line_col(text, (size_t)(p - text), &line, &col);
			buf_printf(problems, "%s:%d:%d: not valid JSON (text after the questionnaire)\n",
			    name, line, col);
			cJSON_Delete(root);
			return 1;
		}
	}
	q = xcalloc(1, sizeof *q);
	q->root = root;
	v.root = root;
	check_root(&v, q);
	if (v.n > 0)
		locate_problems(&v);
	for (int i = 0; i < v.n; i++) {
		buf_adds(problems, v.p[i].line);
		free(v.p[i].line);
	}
	free(v.p);
	sha256_hex(text, len, q->sha256);
	if (v.n > 0 || out == NULL)
		questionnaire_free(q);
	else
		*out = q;
	return v.n;
}

int
questionnaire_parse(const char *name, const char *text, size_t len, struct questionnaire **out,
    struct aerr *err)
{
	struct buf b;
	int n;

	buf_init(&b);
	n = questionnaire_check(name, text, len, &b, out);
	if (n > 0) {
		if (b.len > 0 && b.data[b.len - 1] == '\n')
			b.data[--b.len] = '\0';
		aerr_set(err, AV_USAGE, "%d problem%s in %s:\n%s", n, n == 1 ? "" : "s", name, b.data);
	}
	buf_free(&b);
	return n > 0 ? AV_USAGE : 0;
}

void
questionnaire_free(struct questionnaire *q)
{
	if (q == NULL)
		return;
	for (int i = 0; i < q->nquestions; i++) {
		free(q->questions[i].choices);
		free(q->questions[i].by_value);
		free(q->questions[i].bands);
		free(q->questions[i].checks);
		free(q->questions[i].references);
	}
	free(q->questions);
	free(q->by_id);
	free(q->sections);
	cJSON_Delete(q->root);
	free(q);
}

int
questionnaire_find(const struct questionnaire *q, const char *question_id)
{
	int lo = 0, hi;

	if (q == NULL)
		return -1;
	if (q->by_id == NULL) {
		for (int i = 0; i < q->nquestions; i++)
			if (strcmp(q->questions[i].id, question_id) == 0)
				return i;
		return -1;
	}
	/* The first of equal ids: the leftmost match in the sorted index. */
	hi = q->nquestions;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(q->questions[q->by_id[mid]].id, question_id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < q->nquestions && strcmp(q->questions[q->by_id[lo]].id, question_id) == 0 ?
	    q->by_id[lo] : -1;
}

/* ---- answer values ---- */

static char *
choice_list(const struct q_question *qq, const char *sep)
{
	struct buf b;

	buf_init(&b);
	for (int i = 0; i < qq->nchoices; i++)
		buf_printf(&b, "%s%s", i ? sep : "", qq->choices[i].value);
	return buf_steal(&b);
}

static int
choice_index(const struct q_question *qq, const char *value)
{
	int lo = 0, hi = qq->nchoices;

	if (qq->by_value == NULL) {
		for (int i = 0; i < qq->nchoices; i++)
			if (strcmp(qq->choices[i].value, value) == 0)
				return i;
		return -1;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, c = strcmp(qq->choices[qq->by_value[mid]].value, value);

		if (c == 0)
			return qq->by_value[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int
not_a_choice(const struct q_question *qq, const char *value, struct aerr *err)
{
	char *all = choice_list(qq, ", ");

	aerr_set(err, AV_USAGE, "'%s' is not one of %s", value, all);
	free(all);
	return AV_USAGE;
}

int
answer_check(const struct q_question *qq, const cJSON *value, struct aerr *err)
{
	const cJSON *c;

	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		if (!cJSON_IsString(value)) {
			char *all = choice_list(qq, ", ");

			aerr_set(err, AV_USAGE, "needs one of %s", all);
			free(all);
			return AV_USAGE;
		}
		return choice_index(qq, value->valuestring) < 0 ? not_a_choice(qq, value->valuestring, err) : 0;
	case QT_MULTI: {
		char *seen;

		if (!cJSON_IsArray(value))
			return aerr_set(err, AV_USAGE, "needs a list of choices");
		/* One flag per choice: a long list stays linear. */
		seen = xcalloc((size_t)qq->nchoices + 1, 1);
		cJSON_ArrayForEach(c, value) {
			int k;

			if (!cJSON_IsString(c)) {
				free(seen);
				return aerr_set(err, AV_USAGE, "needs a list of choices");
			}
			if ((k = choice_index(qq, c->valuestring)) < 0) {
				free(seen);
				return not_a_choice(qq, c->valuestring, err);
			}
			if (seen[k]) {
				free(seen);
				return aerr_set(err, AV_USAGE, "'%s' is given twice", c->valuestring);
			}
			seen[k] = 1;
		}
		free(seen);
		return 0;
	}
	case QT_TEXT:
		if (!cJSON_IsString(value) || value->valuestring[0] == '\0')
			return aerr_set(err, AV_USAGE, "needs some text");
		return 0;
	case QT_NUMBER:
		if (!cJSON_IsNumber(value) || !isfinite(value->valuedouble))
			return aerr_set(err, AV_USAGE, "needs a number");
		/* A number answer is a quantity (tokens, days, people): never below 0. The
		 * workbook's own validation says the same (assess-xlsx.c). */
		if (value->valuedouble < 0)
			return aerr_set(err, AV_USAGE, "%.15g is below 0: the answer is a quantity (0 or more)",
			    value->valuedouble);
		return 0;
	case QT_DURATION: {
		int64_t s;

		if (!cJSON_IsString(value))
			return aerr_set(err, AV_USAGE, "needs a duration like 24h or 5d");
		if (duration_seconds(value->valuestring, &s) != 0)
			return aerr_set(err, AV_USAGE, "'%s' is not a duration like 24h or 5d (units m, h, d, w)",
			    value->valuestring);
		return 0;
	}
	case QT_DATE:
		if (!cJSON_IsString(value))
			return aerr_set(err, AV_USAGE, "needs a date (YYYY-MM-DD)");
		if (!is_date(value->valuestring))
			return aerr_set(err, AV_USAGE, "'%s' is not a date (YYYY-MM-DD)", value->valuestring);
		return 0;
	}
	return aerr_set(err, AV_USAGE, "question has no valid type");
}

static char *
trimmed(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* The choices as they may be typed: each one's value, and its label beside it
 * where the label says more than the value (what a dropdown shows, also
 * accepted), separated by "; " when a label holds a comma. */
static char *
choice_labels(const struct q_question *qq)
{
	const char *sep = ", ";
	struct buf b;

	for (int i = 0; i < qq->nchoices; i++)
		if (strchr(qq->choices[i].label, ',') != NULL)
			sep = "; ";
	buf_init(&b);
	buf_adds(&b, "");
	for (int i = 0; i < qq->nchoices; i++) {
		const struct q_choice *c = &qq->choices[i];

		buf_printf(&b, "%s%s", i ? sep : "", c->value);
		if (strcasecmp(c->label, c->value) != 0)
			buf_printf(&b, " (%s)", c->label);
	}
	return buf_steal(&b);
}

/* A choice by its value or its label (what a dropdown shows), in any case; -1 for none. */
static int
choice_typed(const struct q_question *qq, const char *typed)
{
	char *low = xstrdup(typed);
	int i;

	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	i = choice_index(qq, low);
	free(low);
	for (int k = 0; i < 0 && k < qq->nchoices; k++)
		if (strcasecmp(qq->choices[k].label, typed) == 0)
			i = k;
	return i;
}

/* The vendor's words quoted as typed, and the choices as shown. */
static int
not_a_choice_typed(const struct q_question *qq, const char *typed, struct aerr *err)
{
	char *all = choice_labels(qq);

	aerr_set(err, AV_USAGE, "'%s' is not one of %s", typed, all);
	free(all);
	return AV_USAGE;
}

/* "30 days", "2 Weeks", "12 hours" as the short form (30d); NULL when it is none. */
static char *
duration_words(const char *t)
{
	static const struct { const char *word; char unit; } words[] = {
		{ "m", 'm' }, { "min", 'm' }, { "mins", 'm' }, { "minute", 'm' }, { "minutes", 'm' },
		{ "h", 'h' }, { "hr", 'h' }, { "hrs", 'h' }, { "hour", 'h' }, { "hours", 'h' },
		{ "d", 'd' }, { "day", 'd' }, { "days", 'd' },
		{ "w", 'w' }, { "wk", 'w' }, { "wks", 'w' }, { "week", 'w' }, { "weeks", 'w' } };
	size_t n = strspn(t, "0123456789");
	const char *u = t + n;

	if (n == 0 || n > 9)
		return NULL;
	while (*u == ' ')
		u++;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(u, words[i].word) == 0)
			return xasprintf("%.*s%c", (int)n, t, words[i].unit);
	return NULL;
}

/* A multi-choice answer: choices by value or label, separated by commas. */
static int
multi_from_text(const struct q_question *qq, char *t, cJSON **v, struct aerr *err)
{
	char *save = NULL, *tok;
	int *chosen = xcalloc((size_t)qq->nchoices + 1, sizeof *chosen);

	for (tok = strtok_r(t, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *one = trimmed(tok);
		int i = *one != '\0' ? choice_typed(qq, one) : -2;

		if (i == -1) {
			not_a_choice_typed(qq, one, err);
			free(one);
			free(chosen);
			return AV_USAGE;
		}
		if (i >= 0)
			chosen[i] = 1;
		free(one);
	}
	/* Stored in the questionnaire's order, so equal answers compare equal. */
	*v = cJSON_CreateArray();
	for (int i = 0; i < qq->nchoices; i++)
		if (chosen[i])
			cJSON_AddItemToArray(*v, cJSON_CreateString(qq->choices[i].value));
	free(chosen);
	return 0;
}

/* What the checks read from typed text; errors quote the text as typed. */
static int
value_from_text(const struct q_question *qq, const char *text, char *t, cJSON **v,
    struct aerr *err)
{
	char *end, *d;
	double n;
	int i;

	switch (qq->type) {
	case QT_MULTI:
		return multi_from_text(qq, t, v, err);
	case QT_YES_NO:
	case QT_SINGLE:
		if ((i = choice_typed(qq, t)) < 0)
			return not_a_choice_typed(qq, t, err);
		*v = cJSON_CreateString(qq->choices[i].value);
		return 0;
	case QT_NUMBER:
		errno = 0;
		n = strtod(t, &end);
		if (*end != '\0' || errno != 0 || !isfinite(n))
			return aerr_set(err, AV_USAGE, "'%s' is not a number", t);
		*v = cJSON_CreateNumber(n);
		return 0;
	case QT_TEXT:
		*v = cJSON_CreateString(text);   /* text is kept exactly as written */
		return 0;
	case QT_DURATION:
		if ((d = duration_words(t)) == NULL)
			return aerr_set(err, AV_USAGE, "'%s' is not a duration like 24h or 5d (units m, h, "
			    "d, w)", t);
		*v = cJSON_CreateString(d);
		free(d);
		return 0;
	default:
		if (!is_date(t))
			return aerr_set(err, AV_USAGE, "'%s' is not a date (YYYY-MM-DD)", t);
		*v = cJSON_CreateString(t);
		return 0;
	}
}

int
answer_from_text(const struct q_question *qq, const char *text, cJSON **value, struct aerr *err)
{
	char *t = trimmed(text);
	cJSON *v = NULL;
	int rc;

	*value = NULL;
	if (t == NULL)
		die("out of memory");
	if (*t == '\0' && qq->type != QT_MULTI) {
		free(t);
		return aerr_set(err, AV_USAGE, "the answer is empty");
	}
	rc = value_from_text(qq, text, t, &v, err);
	free(t);
	if (rc == 0 && (rc = answer_check(qq, v, err)) != 0) {
		cJSON_Delete(v);
		return rc;
	}
	*value = rc == 0 ? v : NULL;
	return rc;
}

char *
answer_to_text(const struct q_question *qq, const cJSON *value)
{
	struct buf b;
	const cJSON *c;

	(void)qq;
	if (value == NULL)
		return xstrdup("");
	if (cJSON_IsString(value))
		return xstrdup(value->valuestring);
	if (cJSON_IsNumber(value))
		return xasprintf("%.15g", value->valuedouble);
	buf_init(&b);
	cJSON_ArrayForEach(c, (cJSON_IsArray(value) ? value : NULL))
		buf_printf(&b, "%s%s", b.len ? "," : "", cJSON_IsString(c) ? c->valuestring : "?");
	return buf_steal(&b);
}

int
answer_chose(const cJSON *value, const char *choice)
{
	const cJSON *c;

	if (choice == NULL)
		return 0;
	if (cJSON_IsString(value))
		return strcmp(value->valuestring, choice) == 0;
	cJSON_ArrayForEach(c, (cJSON_IsArray(value) ? value : NULL))
		if (cJSON_IsString(c) && strcmp(c->valuestring, choice) == 0)
			return 1;
	return 0;
}

static int
band_risk(const struct q_question *qq, double x)
{
	if (qq->nbands == 0)
		return RISK_NONE;
	for (int i = 0; i < qq->nbands; i++)
		if (x <= qq->bands[i].max)
			return qq->bands[i].risk;
	return qq->above;
}

int
answer_risk(const struct q_question *qq, const cJSON *value)
{
	const cJSON *c;
	int worst = RISK_NONE, i;
	int64_t s;

	if (value == NULL)
		return RISK_NONE;
	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		i = cJSON_IsString(value) ? choice_index(qq, value->valuestring) : -1;
		return i >= 0 ? qq->choices[i].risk : RISK_NONE;
	case QT_MULTI:
		cJSON_ArrayForEach(c, value)
			if (cJSON_IsString(c) && (i = choice_index(qq, c->valuestring)) >= 0 &&
			    qq->choices[i].risk > worst)
				worst = qq->choices[i].risk;
		return worst;
	case QT_NUMBER:
		return cJSON_IsNumber(value) ? band_risk(qq, value->valuedouble) : RISK_NONE;
	case QT_DURATION:
		return cJSON_IsString(value) && duration_seconds(value->valuestring, &s) == 0 ?
		    band_risk(qq, (double)s) : RISK_NONE;
	}
	return RISK_NONE;
}

char *
question_allowed(const struct q_question *qq)
{
	char *all, *s;

	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		return choice_list(qq, "|");
	case QT_MULTI:
		all = choice_list(qq, "|");
		s = xasprintf("any of %s, separated by ','", all);
		free(all);
		return s;
	case QT_NUMBER:
		return xasprintf("number (%s)", qq->unit ? qq->unit : "");
	case QT_DURATION:
		return xstrdup("duration (e.g. 24h, 5d; units m, h, d, w)");
	case QT_DATE:
		return xstrdup("date (YYYY-MM-DD)");
	}
	return xstrdup("text");
}

/* ---- the questionnaire table ---- */

/* On PostgreSQL the function checks that sha256 is the source's hash
 * (db/pg/008-workflow.sql). */
static const struct db_write questionnaire_row = {
	{ "INSERT INTO questionnaire (qid, version, title, source, sha256, bundled, loaded_at) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	"SELECT aivet_questionnaire_load(?1, ?2, ?3, ?4, ?5, ?6, ?7)", 1
};

int
questionnaire_store(struct db *db, const char *actor, struct questionnaire *q, const char *source,
    size_t len, int64_t *row_id, struct aerr *err)
{
	char at[32], *text = strndup(source, len);
	cJSON *d;
	int rc;

	if (text == NULL)
		die("out of memory");
	now_iso(at);
	rc = db_write(db, err, &questionnaire_row, row_id, "titttit",
	    q->qid, q->version, q->title, text, q->sha256, (int64_t)q->bundled, at);
	free(text);
	if (rc != 0)
		return rc;
	q->row_id = *row_id;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "qid", q->qid);
	cJSON_AddNumberToObject(d, "version", (double)q->version);
	cJSON_AddStringToObject(d, "sha256", q->sha256);
	cJSON_AddBoolToObject(d, "bundled", q->bundled);
	rc = audit_append(db, actor, "questionnaire.load", "questionnaire", *row_id, d, err);
	cJSON_Delete(d);
	return rc;
}

/* Which embedded questionnaires the database lacks; loads them when store is set. */
static int
sync_pass(struct db *db, const char *actor, int store, int *missing, struct aerr *err)
{
	*missing = 0;
	for (const struct embedded_file *f = embedded_questionnaires; f->name != NULL; f++) {
		struct questionnaire *q;
		int64_t have, row;
		int rc;

		if (questionnaire_parse(f->name, (const char *)f->data, f->len, &q, err) != 0)
			return aerr_prefix(err, "bundled questionnaire"), AV_RUNTIME;
		rc = db_int(db, &have, err, "SELECT id FROM questionnaire WHERE qid = ? AND version = ?",
		    "ti", q->qid, q->version);
		if (rc == 1) {
			(*missing)++;
			q->bundled = 1;
			if (store && questionnaire_store(db, actor, q, (const char *)f->data, f->len, &row,
			    err) != 0)
				rc = -1;
		}
		questionnaire_free(q);
		if (rc < 0)
			return AV_RUNTIME;
	}
	return 0;
}

int
questionnaires_sync(struct db *db, const char *actor, struct aerr *err)
{
	int missing;

	/* Read first: the common case (all loaded) takes no write lock. */
	if (sync_pass(db, actor, 0, &missing, err) != 0)
		return err->code;
	if (missing == 0)
		return 0;
	if (db_begin(db, err) != 0)
		return err->code;
	if (sync_pass(db, actor, 1, &missing, err) != 0) {
		db_rollback(db);
		return err->code;
	}
	return db_commit(db, err);
}

int
questionnaire_loaded_at(struct db *db, int64_t row_id, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT loaded_at FROM questionnaire WHERE id = ?", "i", row_id);

	*out = '\0';
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW)
		snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	return 0;
}

int
questionnaire_lookup(struct db *db, const char *ref, int64_t *row_id, struct aerr *err)
{
	const char *at = strchr(ref, '@');
	char *qid = at ? strndup(ref, (size_t)(at - ref)) : xstrdup(ref);
	int64_t version = 0;
	int rc;

	if (at != NULL && parse_int_opt("questionnaire version", at + 1, 1, 1000000000, &version,
	    err) != 0) {
		free(qid);
		return err->code;
	}
	if (at != NULL)
		rc = db_int(db, row_id, err, "SELECT id FROM questionnaire WHERE qid = ? AND version = ?",
		    "ti", qid, version);
	else
		rc = db_int(db, row_id, err, "SELECT id FROM questionnaire WHERE qid = ? "
		    "ORDER BY version DESC LIMIT 1", "t", qid);
	if (rc == 1) {
		int64_t any;

		if (at != NULL && db_int(db, &any, err, "SELECT id FROM questionnaire WHERE qid = ?",
		    "t", qid) == 0)
			aerr_set(err, AV_USAGE, "questionnaire '%s' has no version %lld (see 'aivet "
			    "questionnaire list --all')", qid, (long long)version);
		else {
			struct aerr e = { 0 };
			char near[128];

			if (db_suggest(db_prepare(db, &e, "SELECT DISTINCT qid FROM questionnaire ORDER BY qid",
			    NULL), qid, near, sizeof near) != NULL)
				aerr_set(err, AV_USAGE, "no questionnaire '%s'; did you mean %s? (see 'aivet "
				    "questionnaire list')", qid, near);
			else
				aerr_set(err, AV_USAGE, "unknown questionnaire '%s' (see 'aivet questionnaire "
				    "list')", qid);
		}
	}
	free(qid);
	return rc == 0 ? 0 : rc == 1 ? AV_USAGE : AV_RUNTIME;
}

int
questionnaire_ids(struct db *db, int all, int64_t **ids, size_t *n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id FROM questionnaire q WHERE ? OR version = "
	    "(SELECT max(version) FROM questionnaire r WHERE r.qid = q.qid) ORDER BY qid, version",
	    "i", (int64_t)all);

	return db_ids(st, ids, n, err);
}

int
questionnaire_load(struct db *db, int64_t row_id, struct questionnaire **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT qid, version, source, bundled FROM questionnaire "
	    "WHERE id = ?", "i", row_id);
	char *name;
	int rc;

	*out = NULL;
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown questionnaire id %lld", (long long)row_id);
	}
	name = xasprintf("%s@%lld", col_text(st, 0), (long long)db_col_int64(st, 1));
	rc = questionnaire_parse(name, col_text(st, 2), (size_t)db_col_bytes(st, 2), out, err);
	if (rc == 0) {
		(*out)->row_id = row_id;
		(*out)->bundled = db_col_int(st, 3);
	} else {
		rc = AV_RUNTIME;   /* a stored questionnaire was checked when loaded: damage */
	}
	free(name);
	db_finalize(st);
	return rc;
}

int
questionnaire_qids_from(struct db *db, const char *prefix,
    void (*fn)(const char *qid, void *ctx), void *ctx, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT DISTINCT qid FROM questionnaire "
	    "WHERE substr(qid, 1, length(?1)) = ?1 ORDER BY qid", "t", prefix);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		fn(col_text(st, 0), ctx);
	db_finalize(st);
	return 0;
}

int
questionnaire_stored(struct db *db, const char *qid, int64_t version, int64_t *row_id,
    char sha256[65], struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, sha256 FROM questionnaire "
	    "WHERE qid = ? AND version = ?", "ti", qid, version);
	int rc = 1;

	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW) {
		*row_id = db_col_int64(st, 0);
		snprintf(sha256, 65, "%s", col_text(st, 1));
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

int
questionnaire_import(struct db *db, const char *actor, const char *name, struct questionnaire *q,
    const char *source, size_t len, int64_t *row_id, int *already, struct aerr *err)
{
	char sha[65];
	int rc;

	*already = 0;
	if (db_begin(db, err) != 0)
		return err->code;
	rc = questionnaire_stored(db, q->qid, q->version, row_id, sha, err);
	if (rc == 0) {
		db_rollback(db);
		if (strcmp(sha, q->sha256) == 0) {
			*already = 1;
			return 0;
		}
		return aerr_set(err, AV_USAGE, "%s: questionnaire %s version %lld is already loaded with "
		    "different content; give the changed file a higher version", name, q->qid,
		    (long long)q->version);
	}
	rc = rc < 0 ? AV_RUNTIME : questionnaire_store(db, actor, q, source, len, row_id, err);
	if (rc == 0)
		return db_commit(db, err);
	db_rollback(db);
	return rc;
}
