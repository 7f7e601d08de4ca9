/*
 * incident-verify.c: re-verifying an incident after the vendor's fix. The
 * probes to re-run and the failure to look for come from the findings
 * linked to the incident; the caller runs the probes (the CLI with its
 * progress bar, the TUI in a job thread); the outcome is recorded as a
 * verification entry with the run linked, in one transaction.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "incident.h"
#include "probe.h"

void
incident_verify_free(struct incident_verify *v)
{
	free(v->probes);
	free(v->text);
	cJSON_Delete(v->codes);
	memset(v, 0, sizeof *v);
}

int
incident_verify_prepare(struct db *db, int64_t id, const char *probes, struct incident_verify *v,
    struct aerr *err)
{
	struct buf b;
	struct db_stmt *st;
	char *prev = NULL;
	int rc;

	memset(v, 0, sizeof *v);
	v->incident_id = id;
	rc = db_int(db, &v->endpoint_id, err, "SELECT endpoint_id FROM incident WHERE id = ? AND "
	    "endpoint_id IS NOT NULL", "i", id);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "incident %lld has no endpoint to verify against: set one "
		    "with 'aivet incident edit %lld --endpoint VENDOR/NAME'", (long long)id, (long long)id);
	/* The failure is what the linked findings found, by the probes that found it;
	 * without any, canary and oversize, and any finding of severity high or above. */
	st = db_prepare(db, err, "SELECT DISTINCT f.probe, f.code FROM incident_link l "
	    "JOIN finding f ON f.id = l.object_id WHERE l.incident_id = ? AND l.object_type = 'finding' "
	    "ORDER BY f.probe, f.code", "i", id);
	if (st == NULL)
		return AV_RUNTIME;
	buf_init(&b);
	v->codes = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		if (prev == NULL || strcmp(prev, col_text(st, 0)) != 0) {
			buf_printf(&b, "%s%s", b.len ? "," : "", col_text(st, 0));
			free(prev);
			prev = xstrdup(col_text(st, 0));
		}
		cJSON_AddItemToArray(v->codes, cJSON_CreateString(col_text(st, 1)));
	}
	db_finalize(st);
	free(prev);
	if (probes != NULL) {
		buf_free(&b);
		buf_adds(&b, probes);
	} else if (b.len == 0) {
		buf_adds(&b, "canary,oversize");
	}
	v->probes = buf_steal(&b);
	return 0;
}

/* The run's status, and the codes it found that are the failure looked for
 * (v->codes, or without any a finding of severity high or above); NULL on a
 * database error. */
static cJSON *
failure_found(struct db *db, struct incident_verify *v, struct aerr *err)
{
	struct db_stmt *st;
	cJSON *found, *x;

	st = db_prepare(db, err, "SELECT status FROM probe_run WHERE id = ?", "i", v->run_id);
	if (st == NULL)
		return NULL;
	if (db_step(st) == DB_ROW)
		snprintf(v->run_status, sizeof v->run_status, "%s", col_text(st, 0));
	db_finalize(st);
	st = db_prepare(db, err, "SELECT DISTINCT code, severity FROM finding WHERE run_id = ? "
	    "ORDER BY code", "i", v->run_id);
	if (st == NULL)
		return NULL;
	found = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		int match = 0;

		if (cJSON_GetArraySize(v->codes) > 0) {
			cJSON_ArrayForEach(x, v->codes)
				match |= strcmp(x->valuestring, col_text(st, 0)) == 0;
		} else {
			match = severity_rank(col_text(st, 1)) >= severity_rank("high");
		}
		if (match)
			cJSON_AddItemToArray(found, cJSON_CreateString(col_text(st, 0)));
	}
	db_finalize(st);
	return found;
}

/* "No longer reproduces" needs each probe that found the failure to have judged
 * what came back: one that ended in error or inconclusive saw nothing. A run that
 * failed (every probe in error) or stopped in error says why by its first probe's
 * reason. Turns v->reproduces to -1 (with v->why) when the probes say so. */
static int
judge_probes(struct db *db, struct incident_verify *v, struct aerr *err)
{
	struct db_stmt *st;
	int failed = v->reproduces < 0;

	st = db_prepare(db, err, "SELECT probe, verdict, coalesce(reason, ''), "
	    "coalesce(CAST(json_extract(details, '$.judged') AS INTEGER), -1) FROM probe_result WHERE run_id = ? "
	    "ORDER BY id", "i", v->run_id);
	if (st == NULL)
		return AV_RUNTIME;
	while ((v->reproduces == 0 || failed) && db_step(st) == DB_ROW) {
		const char *verdict = col_text(st, 1);

		if (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0) {
			v->reproduces = -1;
			failed = 0;
			snprintf(v->why, sizeof v->why, "%s ended %s: %s", col_text(st, 0), verdict,
			    col_text(st, 2));
		} else if (v->reproduces == 0 && db_col_int64(st, 3) == 0) {
			v->reproduces = -1;
			snprintf(v->why, sizeof v->why, "%s judged no exchange", col_text(st, 0));
		}
	}
	db_finalize(st);
	return 0;
}

/* The verification entry's details (found is taken) and its text, in v->text. */
static cJSON *
verification_entry(struct incident_verify *v, cJSON *found)
{
	cJSON *d = cJSON_CreateObject();

	cJSON_AddNumberToObject(d, "run", (double)v->run_id);
	cJSON_AddStringToObject(d, "probes", v->probes);
	cJSON_AddStringToObject(d, "run_status", v->run_status);
	if (v->reproduces < 0)
		cJSON_AddNullToObject(d, "reproduces");
	else
		cJSON_AddBoolToObject(d, "reproduces", v->reproduces);
	cJSON_AddItemToObject(d, "codes_checked", cJSON_Duplicate(v->codes, 1));
	cJSON_AddItemToObject(d, "codes_found", found);
	if (v->reproduces < 0)
		cJSON_AddStringToObject(d, "why", v->why);
	free(v->text);
	if (v->reproduces > 0) {
		char *list = cJSON_PrintUnformatted(found);

		v->text = xasprintf("Verification run %lld (%s): the failure still reproduces: %s",
		    (long long)v->run_id, v->probes, list);
		free(list);
	} else if (v->reproduces == 0) {
		v->text = xasprintf("Verification run %lld (%s): the failure no longer reproduces",
		    (long long)v->run_id, v->probes);
	} else {
		v->text = xasprintf("Verification run %lld (%s): could not verify: %s",
		    (long long)v->run_id, v->probes, v->why);
	}
	return d;
}

/* The run linked and the entry added in one transaction, refused when the
 * incident was closed while the run went on. */
static int
record_verification(struct db *db, const char *actor, struct incident_verify *v, const cJSON *d,
    struct aerr *err)
{
	int64_t closed = 0;

	if (db_begin(db, err) != 0)
		return err->code;
	if (db_int(db, &closed, err, "SELECT status = 'closed' FROM incident WHERE id = ?", "i",
	    v->incident_id) < 0 || closed) {
		if (closed)
			aerr_set(err, AV_USAGE, "incident %lld was closed while it was being verified; "
			    "run %lld is kept", (long long)v->incident_id, (long long)v->run_id);
		db_rollback(db);
		return err->code;
	}
	if (incident_link_add(db, actor, v->incident_id, "run", v->run_id, err) != 0 ||
	    incident_entry_add(db, actor, v->incident_id, "verification", NULL, v->text, d,
	    &v->entry_id, err) != 0 || db_commit(db, err) != 0) {
		db_rollback(db);
		return err->code;
	}
	return 0;
}

int
incident_verify_record(struct db *db, const char *actor, struct incident_verify *v,
    cJSON **details, struct aerr *err)
{
	cJSON *found, *d;
	int complete;

	*details = NULL;
	if ((found = failure_found(db, v, err)) == NULL)
		return AV_RUNTIME;
	complete = strcmp(v->run_status, "completed") == 0;
	/* A reproduction counts even in a run cut short; an unfinished run proves nothing else. */
	v->reproduces = cJSON_GetArraySize(found) > 0 ? 1 : complete ? 0 : -1;
	if (v->reproduces < 0)
		snprintf(v->why, sizeof v->why, "the run ended %s", v->run_status);
	if ((v->reproduces == 0 || (v->reproduces < 0 && (strcmp(v->run_status, "failed") == 0 ||
	    strcmp(v->run_status, "error") == 0))) && judge_probes(db, v, err) != 0) {
		cJSON_Delete(found);
		return AV_RUNTIME;
	}
	d = verification_entry(v, found);
	if (record_verification(db, actor, v, d, err) != 0) {
		cJSON_Delete(d);
		return err->code;
	}
	*details = d;
	return 0;
}
