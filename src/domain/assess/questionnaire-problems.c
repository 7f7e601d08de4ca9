/*
 * questionnaire-problems.c: how the checker of a questionnaire file reports:
 * each problem with its JSON path, located (line and column) in one walk of
 * the text once all are known, and the small readers of a member that report
 * what is missing or of the wrong kind.
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
#include "questionnaire-impl.h"

/* ---- checking a file ---- */

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
void
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


void
problem(struct vctx *v, const cJSON *node, int at_key, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, node, at_key, path, fmt, ap);
	va_end(ap);
}


/* A problem with the value of member key of the object at path. */
void
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

char *
path_key(const char *path, const char *key)
{
	return xasprintf("%s%s%s", path, *path ? "." : "", key);
}

char *
path_index(const char *path, int i)
{
	return xasprintf("%s[%d]", path, i);
}

void
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

const char *
want_string(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required)
{
	const cJSON *it = want_member(v, obj, path, key, required, is_nonempty_string,
	    "must be a non-empty string");

	return it ? it->valuestring : NULL;
}

const cJSON *
want_array(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required)
{
	return want_member(v, obj, path, key, required, is_nonempty_array, "must be a non-empty array");
}

int
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
