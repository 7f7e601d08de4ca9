/*
 * report-rows.c: a database row's columns as the report's record keeps them
 * (text copied, JSON documents parsed), for every file that gathers the
 * record (report.c, report-evidence.c, report-judge.c).
 */
#include "config.h"

#include <stdlib.h>

#include "aivet/domain.h"
#include "report-collect.h"

char *
report_col_dup(struct db_stmt *st, int i)
{
	const char *s = db_col_text(st, i);

	return s != NULL ? xstrdup(s) : NULL;
}

/* A column that holds a JSON document: parsed, kept as a string when it does
 * not parse (so the report shows what is stored), NULL for NULL. */
cJSON *
report_col_json(struct db_stmt *st, int i)
{
	cJSON *v;

	switch (db_col_type(st, i)) {
	case DB_NULL:
		return NULL;
	case DB_INTEGER:
		return cJSON_CreateNumber((double)db_col_int64(st, i));
	case DB_FLOAT:
		return cJSON_CreateNumber(db_col_double(st, i));
	default:
		v = cJSON_Parse(col_text(st, i));
		return v != NULL ? v : cJSON_CreateString(col_text(st, i));
	}
}

void *
report_grow(void *v, size_t n, size_t size)
{
	return xrealloc(v, (n + 1) * size);
}
