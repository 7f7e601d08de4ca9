/*
 * probe-read.c: probe runs read back from the database as the JSON that
 * "probe show" prints. Part of the probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"
#include "probe-engine.h"

/* ---- reading runs back ---- */

/* "billed": what the vendor's usage says it billed, and in USD at the prices the
 * plan was made at (null without them): the figure "probe show" and the TUI give. */
static void
add_billed(cJSON *run)
{
	const cJSON *plan = cJSON_GetObjectItem(run, "plan");
	const cJSON *b = cJSON_GetObjectItem(plan, "billed");
	const cJSON *pin = cJSON_GetObjectItem(plan, "price_in_per_mtok");
	const cJSON *pout = cJSON_GetObjectItem(plan, "price_out_per_mtok");
	cJSON *o;

	if (!cJSON_IsObject(b))
		return;
	o = cJSON_AddObjectToObject(run, "billed");
	cJSON_AddNumberToObject(o, "tokens_in", cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_in")));
	cJSON_AddNumberToObject(o, "tokens_out", cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_out")));
	if (cJSON_IsNumber(pin))
		cJSON_AddNumberToObject(o, "cost_usd",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_in")) / 1e6 * pin->valuedouble +
		    (cJSON_IsNumber(pout) ? cJSON_GetNumberValue(cJSON_GetObjectItem(b, "tokens_out")) /
		    1e6 * pout->valuedouble : 0));
	else
		cJSON_AddNullToObject(o, "cost_usd");
}

int
probe_run_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	int rc;

	if (*ref == '\0' || strspn(ref, "0123456789") != strlen(ref) || strlen(ref) > 15)
		return aerr_set(err, AV_USAGE, "'%s' is not a run id (see 'aivet probe runs')", ref);
	rc = db_int(db, id, err, "SELECT id FROM probe_run WHERE id = ?", "i", (int64_t)atoll(ref));
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "unknown run %lld (see 'aivet probe runs')",
		    (long long)atoll(ref));
	return rc < 0 ? AV_RUNTIME : 0;
}

int
probe_run_json(struct db *db, int64_t run_id, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.endpoint_id, "
	    "r.status, r.started_at, r.finished_at, r.actor, r.tokens_in, r.tokens_out, r.calibration, "
	    "r.plan, e.context_tokens, e.url FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE r.id = ?", "i", run_id);
	cJSON *j, *probes;

	*out = NULL;
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown run %lld (see 'aivet probe runs')", (long long)run_id);
	}
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)db_col_int64(st, 0));
	cJSON_AddStringToObject(j, "endpoint", col_text(st, 1));
	cJSON_AddNumberToObject(j, "endpoint_id", (double)db_col_int64(st, 2));
	cJSON_AddStringToObject(j, "endpoint_url", col_text(st, 12));
	cJSON_AddNumberToObject(j, "advertised_context", (double)db_col_int64(st, 11));
	cJSON_AddStringToObject(j, "status", col_text(st, 3));
	cJSON_AddStringToObject(j, "started_at", col_text(st, 4));
	json_add_str(j, "finished_at", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
	cJSON_AddStringToObject(j, "actor", col_text(st, 6));
	cJSON_AddNumberToObject(j, "tokens_in", (double)db_col_int64(st, 7));
	cJSON_AddNumberToObject(j, "tokens_out", (double)db_col_int64(st, 8));
	cJSON_AddItemToObject(j, "calibration", db_col_type(st, 9) == DB_NULL ?
	    cJSON_CreateNull() : cJSON_Parse(col_text(st, 9)));
	cJSON_AddItemToObject(j, "plan", cJSON_Parse(col_text(st, 10)));
	db_finalize(st);
	add_billed(j);
	probes = cJSON_AddArrayToObject(j, "probes");
	st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details FROM probe_result "
	    "WHERE run_id = ? ORDER BY id", "i", run_id);
	if (st == NULL) {
		cJSON_Delete(j);
		return err->code;
	}
	while (db_step(st) == DB_ROW) {
		cJSON *p = cJSON_CreateObject(), *fs;
		struct db_stmt *fst;

		cJSON_AddStringToObject(p, "name", col_text(st, 0));
		cJSON_AddStringToObject(p, "verdict", col_text(st, 1));
		json_add_str(p, "reason", db_col_type(st, 2) == DB_NULL ? NULL : col_text(st, 2));
		cJSON_AddNumberToObject(p, "requests", (double)db_col_int64(st, 3));
		cJSON_AddItemToObject(p, "details", db_col_type(st, 4) == DB_NULL ?
		    cJSON_CreateNull() : cJSON_Parse(col_text(st, 4)));
		fs = cJSON_AddArrayToObject(p, "findings");
		fst = db_prepare(db, err, "SELECT f.id, f.code, f.severity, f.message, "
		    "(SELECT json_group_array(evidence_id) FROM (SELECT evidence_id FROM finding_evidence "
		    "WHERE finding_id = f.id ORDER BY evidence_id) AS fe) FROM finding f WHERE f.run_id = ? AND "
		    "f.probe = ? ORDER BY f.id", "it", run_id, col_text(st, 0));
		while (fst != NULL && db_step(fst) == DB_ROW) {
			cJSON *f = cJSON_CreateObject();

			cJSON_AddNumberToObject(f, "id", (double)db_col_int64(fst, 0));
			cJSON_AddStringToObject(f, "code", col_text(fst, 1));
			cJSON_AddStringToObject(f, "severity", col_text(fst, 2));
			cJSON_AddStringToObject(f, "message", col_text(fst, 3));
			cJSON_AddItemToObject(f, "evidence", cJSON_Parse(col_text(fst, 4)));
			cJSON_AddItemToArray(fs, f);
		}
		db_finalize(fst);
		cJSON_AddItemToArray(probes, p);
	}
	db_finalize(st);
	*out = j;
	return 0;
}

int
probe_run_exit(struct db *db, int64_t run_id, const char *fail_on, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT severity FROM finding WHERE run_id = ?", "i", run_id);
	int64_t errored = 0;
	int worst = -1;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW)
		if (severity_rank(col_text(st, 0)) > worst)
			worst = severity_rank(col_text(st, 0));
	db_finalize(st);
	if (worst >= 0 && worst >= severity_rank(fail_on))
		return AV_FINDINGS;
	if (db_int(db, &errored, err, "SELECT count(*) FROM probe_result WHERE run_id = ? AND "
	    "verdict = 'error'", "i", run_id) < 0)
		return AV_RUNTIME;
	return errored > 0 ? AV_RUNTIME : AV_OK;
}
