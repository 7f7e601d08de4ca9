/*
 * engine/outline.c: JSON for people. A record's free-form details (a probe's,
 * an incident timeline entry's) become indented "key: value" lines here, in
 * the library, so that the screens showing them draw lines and walk no
 * document of their own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "outline.h"

static void
add_line(struct outline_line_list *out, int depth, char *text)
{
	out->items = xrealloc(out->items, (out->n + 1) * sizeof *out->items);
	out->items[out->n].depth = depth;
	out->items[out->n].text = text;
	out->n++;
}

/* A scalar or nested value as text: a string as it is, anything else as JSON. */
static char *
value_text(const cJSON *v)
{
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : cJSON_PrintUnformatted(v);
}

/* "key: a, b, c": an array of scalars on one line. */
static char *
array_line(const char *k, const cJSON *arr)
{
	const cJSON *item;
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "%s:", k);
	cJSON_ArrayForEach(item, arr) {
		char *val = value_text(item);

		buf_printf(&b, "%s %s", item == arr->child ? "" : ",", val);
		free(val);
	}
	return buf_steal(&b);
}

/* "- k=v k=v": one item of an array of objects. */
static char *
item_line(const cJSON *item)
{
	const cJSON *f;
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "-");
	cJSON_ArrayForEach(f, item) {
		char *val = value_text(f);

		buf_printf(&b, " %s=%s", f->string, val);
		free(val);
	}
	return buf_steal(&b);
}

void
outline_lines(const cJSON *doc, int depth, struct outline_line_list *out)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, doc) {
		const char *k = x->string ? x->string : "-";

		if (cJSON_IsObject(x)) {
			add_line(out, depth, xasprintf("%s:", k));
			outline_lines(x, depth + 1, out);
		} else if (cJSON_IsArray(x) && cJSON_IsObject(x->child)) {
			const cJSON *item;

			add_line(out, depth, xasprintf("%s:", k));
			cJSON_ArrayForEach(item, x)
				add_line(out, depth + 1, item_line(item));
		} else if (cJSON_IsArray(x)) {
			add_line(out, depth, array_line(k, x));
		} else {
			char *val = value_text(x);

			add_line(out, depth, xasprintf("%s: %s", k, val));
			free(val);
		}
	}
}

void
outline_line_list_free(struct outline_line_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].text);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}
