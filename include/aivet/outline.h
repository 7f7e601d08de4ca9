/*
 * aivet/outline.h: a free-form JSON document (a probe's details, an incident
 * timeline entry's) as typed outline lines, so that a screen draws lines and
 * reads no key of the document itself.
 */
#ifndef AIVET_OUTLINE_H
#define AIVET_OUTLINE_H

#include <stddef.h>

#include "base.h"

/* One line: its depth (a level of indentation) and its text, "key: value",
 * "key:" above nested members, or "- k=v k=v" for an item of an array of objects. */
struct outline_line {
	int depth;
	char *text;
};

struct outline_line_list {
	struct outline_line *items;
	size_t n;
};

/* Appends the members of doc (an object or an array) to out as lines starting at
 * `depth`: objects nested one level deeper, an array of scalars on one line
 * ("key: a, b"), an array of objects one "-" line per item one level deeper. */
void outline_lines(const cJSON *doc, int depth, struct outline_line_list *out);
void outline_line_list_free(struct outline_line_list *l);

#endif
