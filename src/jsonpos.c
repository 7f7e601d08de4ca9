/*
 * jsonpos.c: the position locator behind questionnaire validation messages
 * (see jsonpos.h). Not a second parser: the cJSON tree says what comes next,
 * the walk only steps over whitespace, punctuation and the token's bytes.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "jsonpos.h"

struct walk {
	const char *base, *end;
	const cJSON *target;
	int at_key;
	size_t found;
	int done;
};

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
	struct walk w = { text, text + len, node, at_key, 0, 0 };
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
