/*
 * tui/outline.c: JSON for people. Screens that show a record's details
 * (a probe's, a timeline entry's) show them as an indented outline of
 * "key: value" lines, which the pager wraps; the raw JSON stays one key
 * away (J).
 */
#include "config.h"

#include <stdlib.h>

#include "tui.h"

/* A JSON value as an indented outline: "key: value", objects nested, an array of
 * scalars on one line, an array of objects one "-" line per item. */
void
tui_json_outline(struct buf *b, const cJSON *o, int depth)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, o) {
		const char *k = x->string ? x->string : "-";

		if (cJSON_IsObject(x)) {
			buf_printf(b, "%*s%s:\n", depth * 2, "", k);
			tui_json_outline(b, x, depth + 1);
		} else if (cJSON_IsArray(x) && cJSON_IsObject(x->child)) {
			const cJSON *item, *f;

			buf_printf(b, "%*s%s:\n", depth * 2, "", k);
			cJSON_ArrayForEach(item, x) {
				buf_printf(b, "%*s-", depth * 2 + 2, "");
				cJSON_ArrayForEach(f, item) {
					char *val = cJSON_IsString(f) ? xstrdup(f->valuestring) : cJSON_PrintUnformatted(f);

					buf_printf(b, " %s=%s", f->string, val);
					free(val);
				}
				buf_adds(b, "\n");
			}
		} else if (cJSON_IsArray(x)) {
			const cJSON *item;

			buf_printf(b, "%*s%s:", depth * 2, "", k);
			cJSON_ArrayForEach(item, x) {
				char *val = cJSON_IsString(item) ? xstrdup(item->valuestring) :
				    cJSON_PrintUnformatted(item);

				buf_printf(b, "%s %s", item == x->child ? "" : ",", val);
				free(val);
			}
			buf_adds(b, "\n");
		} else {
			char *val = cJSON_IsString(x) ? xstrdup(x->valuestring) : cJSON_PrintUnformatted(x);

			buf_printf(b, "%*s%s: %s\n", depth * 2, "", k, val);
			free(val);
		}
	}
}
