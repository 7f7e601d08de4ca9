/*
 * jsonpos.h: where a cJSON node sits in the text it was parsed from. cJSON
 * keeps no positions, so the locator walks the source text in step with the
 * parsed tree (it trusts the tree for structure and only skips tokens); it is
 * what lets validation messages name a line and column.
 */
#ifndef AIVET_JSONPOS_H
#define AIVET_JSONPOS_H

#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * Finds node (a node of root, parsed from text) and sets *off to the byte
 * offset of its value, or with at_key of its member name. Returns 0 when
 * found, -1 when the node is not in the tree or the text does not match it.
 */
int json_locate(const char *text, size_t len, const cJSON *root, const cJSON *node, int at_key,
    size_t *off);
/* Many nodes located in one walk of the text (validation with many problems
 * stays linear): fill node in each entry, call json_locate_many, then look
 * entries up with json_loc_find. found is 0 for a node not in the tree. */
struct json_loc {
	const cJSON *node;
	size_t key_off, val_off;
	int found;
};
/* Sorts locs by node and removes repeats (*n may shrink), then walks once. */
void json_locate_many(const char *text, size_t len, const cJSON *root, struct json_loc *locs, size_t *n);
const struct json_loc *json_loc_find(const struct json_loc *locs, size_t n, const cJSON *node);
/* Byte offset -> 1-based line and column; the column counts UTF-8 characters. */
void text_line_col(const char *text, size_t off, int *line, int *col);

#endif
