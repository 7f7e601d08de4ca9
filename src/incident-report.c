/*
 * incident-report.c: the incident section of a report — the incident row,
 * its timeline entries, tasks and links — for report.json. A basic version:
 * the incident code computes the notification clocks and replaces this file
 * with its own incident_report_json(), which adds them.
 */
#include "config.h"

#include <string.h>

#include "aivet.h"
#include "report.h"

static cJSON *
stmt_rows(sqlite3_stmt *st, const char *json_col)
{
	cJSON *arr = cJSON_CreateArray();

	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject(), *v;

		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *name = sqlite3_column_name(st, i);

			if (sqlite3_column_type(st, i) == SQLITE_NULL)
				cJSON_AddNullToObject(o, name);
			else if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
				cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(st, i));
			else if (json_col != NULL && strcmp(name, json_col) == 0 &&
			    (v = cJSON_Parse(col_text(st, i))) != NULL)
				cJSON_AddItemToObject(o, name, v);
			else
				cJSON_AddStringToObject(o, name, col_text(st, i));
		}
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_finalize(st);
	return arr;
}

int
incident_report_json(sqlite3 *db, int64_t incident_id, cJSON **out, struct aerr *err)
{
	sqlite3_stmt *st;
	cJSON *rows, *inc;

	st = db_prepare(db, err, "SELECT id, vendor_id, endpoint_id, title, status, severity, phi, "
	    "individuals, eu_data, discovered_at, window_start, window_end, created_by, created_at "
	    "FROM incident WHERE id = ?", "i", incident_id);
	if (st == NULL)
		return err->code;
	rows = stmt_rows(st, NULL);
	if (cJSON_GetArraySize(rows) != 1) {
		cJSON_Delete(rows);
		return aerr_set(err, AV_USAGE, "no incident %lld", (long long)incident_id);
	}
	inc = cJSON_DetachItemFromArray(rows, 0);
	cJSON_Delete(rows);
	if ((st = db_prepare(db, err, "SELECT id, kind, at, at_utc, actor, text, details, recorded_at "
	    "FROM incident_entry WHERE incident_id = ? ORDER BY at_utc, id", "i", incident_id)) == NULL)
		goto fail;
	cJSON_AddItemToObject(inc, "timeline", stmt_rows(st, "details"));
	/* Clocks need the incident code's rules; this basic version has none. */
	cJSON_AddArrayToObject(inc, "clocks");
	if ((st = db_prepare(db, err, "SELECT id, title, owner, due_at, done_at, created_at "
	    "FROM incident_task WHERE incident_id = ? ORDER BY id", "i", incident_id)) == NULL)
		goto fail;
	cJSON_AddItemToObject(inc, "tasks", stmt_rows(st, NULL));
	if ((st = db_prepare(db, err, "SELECT object_type, object_id, added_at FROM incident_link "
	    "WHERE incident_id = ? ORDER BY object_type, object_id", "i", incident_id)) == NULL)
		goto fail;
	cJSON_AddItemToObject(inc, "links", stmt_rows(st, NULL));
	*out = inc;
	return 0;
fail:
	cJSON_Delete(inc);
	return err->code;
}
