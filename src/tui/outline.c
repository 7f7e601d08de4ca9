/*
 * tui/outline.c: JSON for people. Screens that show a record's details
 * (a probe's, a timeline entry's) show them as an indented outline of
 * "key: value" lines, which the pager wraps; the raw JSON stays one key
 * away (J). The library makes the lines (outline_lines()); this draws them.
 */
#include "config.h"

#include <stdlib.h>

#include "aivet/outline.h"
#include "tui.h"

/* A JSON value as an indented outline, two columns a level. */
void
tui_json_outline(struct buf *b, const cJSON *o, int depth)
{
	struct outline_line_list lines = { 0 };

	outline_lines(o, depth, &lines);
	for (size_t i = 0; i < lines.n; i++)
		buf_printf(b, "%*s%s\n", lines.items[i].depth * 2, "", lines.items[i].text);
	outline_line_list_free(&lines);
}
