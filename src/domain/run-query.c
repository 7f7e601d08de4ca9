/*
 * run-query.c: reading probe runs for lists — "probe runs", an endpoint's
 * runs in the TUI, the dashboard's recent runs and the export dialog's
 * choices all read them here, so each shows a run the same way: its
 * endpoint, status, start, number of findings and the worst of them.
 */
#include "config.h"

#include <stdlib.h>

#include "run-query.h"

int
probe_runs_json(struct db *db, const struct run_query *q, cJSON **out, struct aerr *err)
{
	char *sql = xasprintf("SELECT r.id, v.name || '/' || e.name, r.status, r.started_at, "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1), "
	    "(SELECT group_concat(probe || ':' || verdict, ' ') FROM probe_result p WHERE p.run_id = r.id) "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE (? = 0 OR v.id = ?) AND (? = 0 OR e.id = ?) ORDER BY r.id %s%s",
	    q->newest_first ? "DESC" : "ASC", q->limit > 0 ? " LIMIT ?" : "");
	/* No LIMIT at all when unlimited: PostgreSQL refuses SQLite's LIMIT -1. */
	struct db_stmt *st = q->limit > 0 ?
	    db_prepare(db, err, sql, "iiiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id,
	    (int64_t)q->limit) :
	    db_prepare(db, err, sql, "iiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id);

	free(sql);
	*out = NULL;
	if (st == NULL)
		return err->code;
	*out = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
		cJSON_AddStringToObject(o, "endpoint", col_text(st, 1));
		cJSON_AddStringToObject(o, "status", col_text(st, 2));
		cJSON_AddStringToObject(o, "started_at", col_text(st, 3));
		cJSON_AddNumberToObject(o, "findings", (double)db_col_int64(st, 4));
		json_add_str(o, "worst", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
		if (q->verdicts)
			cJSON_AddStringToObject(o, "verdicts", col_text(st, 6));
		cJSON_AddItemToArray(*out, o);
	}
	db_finalize(st);
	return 0;
}

int
probe_run_findings(struct db *db, int64_t run_id, int64_t *n, struct aerr *err)
{
	*n = 0;
	return db_int(db, n, err, "SELECT count(*) FROM finding WHERE run_id = ?", "i", run_id) < 0 ?
	    err->code : 0;
}
