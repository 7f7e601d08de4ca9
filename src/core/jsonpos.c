/*
 * jsonpos.c: the position locator behind questionnaire validation messages
 * (see jsonpos.h). Not a second parser: the cJSON tree says what comes next,
 * the walk only steps over whitespace, punctuation and the token's bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"

struct walk {
	const char *base, *end;
	const cJSON *target;
	int at_key;
	size_t found;
	int done;
	struct json_loc *locs;   /* json_locate_many: every node of these, sorted */
	size_t nlocs;
};

static int
loc_cmp(const void *a, const void *b)
{
	const struct json_loc *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

const struct json_loc *
json_loc_find(const struct json_loc *locs, size_t n, const cJSON *node)
{
	struct json_loc key = { node, 0, 0, 0 };

	return n == 0 ? NULL : bsearch(&key, locs, n, sizeof *locs, loc_cmp);
}

static const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *
skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *
skip_literal(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

/* p is at the start of node's value; key is the offset of its member name. */
static const char *
walk(struct walk *w, const char *p, const cJSON *node, size_t key)
{
	if (node == w->target) {
		w->found = w->at_key ? key : (size_t)(p - w->base);
		w->done = 1;
		return NULL;
	}
	if (w->locs != NULL) {
		struct json_loc *l = (struct json_loc *)json_loc_find(w->locs, w->nlocs, node);

		if (l != NULL)
			l->key_off = key, l->val_off = (size_t)(p - w->base), l->found = 1;
	}
	if (cJSON_IsObject(node) || cJSON_IsArray(node)) {
		int obj = cJSON_IsObject(node);
		const cJSON *c;

		if (p >= w->end || *p != (obj ? '{' : '['))
			return NULL;
		p++;
		cJSON_ArrayForEach(c, node) {
			size_t k;

			p = skip_ws(p, w->end);
			k = (size_t)(p - w->base);
			if (obj) {
				if ((p = skip_string(p, w->end)) == NULL)
					return NULL;
				p = skip_ws(p, w->end);
				if (p >= w->end || *p != ':')
					return NULL;
				p = skip_ws(p + 1, w->end);
			}
			if ((p = walk(w, p, c, k)) == NULL)
				return NULL;
			p = skip_ws(p, w->end);
			if (p < w->end && *p == ',')
				p++;
		}
		p = skip_ws(p, w->end);
		return p < w->end ? p + 1 : NULL;
	}
	if (cJSON_IsString(node))
		return skip_string(p, w->end);
	if (cJSON_IsNumber(node)) {
		while (p < w->end && *p != '\0' && strchr("+-0123456789.eE", *p) != NULL)
			p++;
		return p;
	}
	if (cJSON_IsTrue(node))
		return skip_literal(p, w->end, "true");
	if (cJSON_IsFalse(node))
		return skip_literal(p, w->end, "false");
	if (cJSON_IsNull(node))
		return skip_literal(p, w->end, "null");
	return NULL;
}

int
json_locate(const char *text, size_t len, const cJSON *root, const cJSON *node, int at_key,
    size_t *off)
{
	struct walk w = { text, text + len, node, at_key, 0, 0, NULL, 0 };
	const char *p = text;

	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;   /* cJSON skips a UTF-8 byte order mark too */
	p = skip_ws(p, w.end);
	walk(&w, p, root, (size_t)(p - text));
	if (!w.done)
		return -1;
	*off = w.found;
	return 0;
}

void
json_locate_many(const char *text, size_t len, const cJSON *root, struct json_loc *locs, size_t *n)
{
	struct walk w = { text, text + len, NULL, 0, 0, 0, locs, 0 };
	const char *p = text;
	size_t k = 0;

	if (*n == 0)
		return;
	qsort(locs, *n, sizeof *locs, loc_cmp);
	for (size_t i = 0; i < *n; i++)
		if (k == 0 || locs[k - 1].node != locs[i].node) {
			locs[k] = locs[i];
			locs[k].found = 0;
			k++;
		}
	*n = w.nlocs = k;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	p = skip_ws(p, w.end);
	walk(&w, p, root, (size_t)(p - text));
}

void
text_line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i] != '\0'; i++) {
		if (text[i] == '\n')
			(*line)++, *col = 1;
		else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++;
	}
}
