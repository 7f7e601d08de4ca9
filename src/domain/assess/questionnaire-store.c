/*
 * questionnaire-store.c: the questionnaire table: a checked file stored with
 * its source and hash, the bundled questionnaires kept in step with the
 * table, and a stored one found, listed and loaded back.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "finding.h"
#include "probe.h"
#include "questionnaire.h"
#include "vendor.h"
#include "jsonpos.h"
#include "questionnaire-impl.h"

/* ---- the questionnaire table ---- */

/* On PostgreSQL the function checks that sha256 is the source's hash
 * (db/pg/008-workflow.sql). */
static const struct db_write questionnaire_row = {
	{ "INSERT INTO questionnaire (qid, version, title, source, sha256, bundled, loaded_at) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	"SELECT aivet_questionnaire_load(?1, ?2, ?3, ?4, ?5, ?6, ?7)", 1
};

int
questionnaire_store(struct db *db, const char *actor, struct questionnaire *q, const char *source,
    size_t len, int64_t *row_id, struct aerr *err)
{
	char at[32], *text = strndup(source, len);
	cJSON *d;
	int rc;

	if (text == NULL)
		die("out of memory");
	now_iso(at);
	rc = db_write(db, err, &questionnaire_row, row_id, "titttit",
	    q->qid, q->version, q->title, text, q->sha256, (int64_t)q->bundled, at);
	free(text);
	if (rc != 0)
		return rc;
	q->row_id = *row_id;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "qid", q->qid);
	cJSON_AddNumberToObject(d, "version", (double)q->version);
	cJSON_AddStringToObject(d, "sha256", q->sha256);
	cJSON_AddBoolToObject(d, "bundled", q->bundled);
	rc = audit_append(db, actor, "questionnaire.load", "questionnaire", *row_id, d, err);
	cJSON_Delete(d);
	return rc;
}

/* Which embedded questionnaires the database lacks; loads them when store is set. */
static int
sync_pass(struct db *db, const char *actor, int store, int *missing, struct aerr *err)
{
	*missing = 0;
	for (const struct embedded_file *f = embedded_questionnaires; f->name != NULL; f++) {
		struct questionnaire *q;
		int64_t have, row;
		int rc;

		if (questionnaire_parse(f->name, (const char *)f->data, f->len, &q, err) != 0)
			return aerr_prefix(err, "bundled questionnaire"), AV_RUNTIME;
		rc = db_int(db, &have, err, "SELECT id FROM questionnaire WHERE qid = ? AND version = ?",
		    "ti", q->qid, q->version);
		if (rc == 1) {
			(*missing)++;
			q->bundled = 1;
			if (store && questionnaire_store(db, actor, q, (const char *)f->data, f->len, &row,
			    err) != 0)
				rc = -1;
		}
		questionnaire_free(q);
		if (rc < 0)
			return AV_RUNTIME;
	}
	return 0;
}

int
questionnaires_sync(struct db *db, const char *actor, struct aerr *err)
{
	int missing;

	/* Read first: the common case (all loaded) takes no write lock. */
	if (sync_pass(db, actor, 0, &missing, err) != 0)
		return err->code;
	if (missing == 0)
		return 0;
	if (db_begin(db, err) != 0)
		return err->code;
	if (sync_pass(db, actor, 1, &missing, err) != 0) {
		db_rollback(db);
		return err->code;
	}
	return db_commit(db, err);
}

int
questionnaire_loaded_at(struct db *db, int64_t row_id, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT loaded_at FROM questionnaire WHERE id = ?", "i", row_id);

	*out = '\0';
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW)
		snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	return 0;
}

int
questionnaire_lookup(struct db *db, const char *ref, int64_t *row_id, struct aerr *err)
{
	const char *at = strchr(ref, '@');
	char *qid = at ? strndup(ref, (size_t)(at - ref)) : xstrdup(ref);
	int64_t version = 0;
	int rc;

	if (at != NULL && parse_int_opt("questionnaire version", at + 1, 1, 1000000000, &version,
	    err) != 0) {
		free(qid);
		return err->code;
	}
	if (at != NULL)
		rc = db_int(db, row_id, err, "SELECT id FROM questionnaire WHERE qid = ? AND version = ?",
		    "ti", qid, version);
	else
		rc = db_int(db, row_id, err, "SELECT id FROM questionnaire WHERE qid = ? "
		    "ORDER BY version DESC LIMIT 1", "t", qid);
	if (rc == 1) {
		int64_t any;

		if (at != NULL && db_int(db, &any, err, "SELECT id FROM questionnaire WHERE qid = ?",
		    "t", qid) == 0)
			aerr_set(err, AV_USAGE, "questionnaire '%s' has no version %lld (see 'aivet "
			    "questionnaire list --all')", qid, (long long)version);
		else {
			struct aerr e = { 0 };
			char near[128];

			if (db_suggest(db_prepare(db, &e, "SELECT DISTINCT qid FROM questionnaire ORDER BY qid",
			    NULL), qid, near, sizeof near) != NULL)
				aerr_set(err, AV_USAGE, "no questionnaire '%s'; did you mean %s? (see 'aivet "
				    "questionnaire list')", qid, near);
			else
				aerr_set(err, AV_USAGE, "unknown questionnaire '%s' (see 'aivet questionnaire "
				    "list')", qid);
		}
	}
	free(qid);
	return rc == 0 ? 0 : rc == 1 ? AV_USAGE : AV_RUNTIME;
}

int
questionnaire_ids(struct db *db, int all, int64_t **ids, size_t *n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id FROM questionnaire q WHERE ? OR version = "
	    "(SELECT max(version) FROM questionnaire r WHERE r.qid = q.qid) ORDER BY qid, version",
	    "i", (int64_t)all);

	return db_ids(st, ids, n, err);
}

int
questionnaire_load(struct db *db, int64_t row_id, struct questionnaire **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT qid, version, source, bundled FROM questionnaire "
	    "WHERE id = ?", "i", row_id);
	char *name;
	int rc;

	*out = NULL;
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown questionnaire id %lld", (long long)row_id);
	}
	name = xasprintf("%s@%lld", col_text(st, 0), (long long)db_col_int64(st, 1));
	rc = questionnaire_parse(name, col_text(st, 2), (size_t)db_col_bytes(st, 2), out, err);
	if (rc == 0) {
		(*out)->row_id = row_id;
		(*out)->bundled = db_col_int(st, 3);
	} else {
		rc = AV_RUNTIME;   /* a stored questionnaire was checked when loaded: damage */
	}
	free(name);
	db_finalize(st);
	return rc;
}

int
questionnaire_qids_from(struct db *db, const char *prefix,
    void (*fn)(const char *qid, void *ctx), void *ctx, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT DISTINCT qid FROM questionnaire "
	    "WHERE substr(qid, 1, length(?1)) = ?1 ORDER BY qid", "t", prefix);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		fn(col_text(st, 0), ctx);
	db_finalize(st);
	return 0;
}

int
questionnaire_stored(struct db *db, const char *qid, int64_t version, int64_t *row_id,
    char sha256[65], struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, sha256 FROM questionnaire "
	    "WHERE qid = ? AND version = ?", "ti", qid, version);
	int rc = 1;

	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW) {
		*row_id = db_col_int64(st, 0);
		snprintf(sha256, 65, "%s", col_text(st, 1));
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

int
questionnaire_import(struct db *db, const char *actor, const char *name, struct questionnaire *q,
    const char *source, size_t len, int64_t *row_id, int *already, struct aerr *err)
{
	char sha[65];
	int rc;

	*already = 0;
	if (db_begin(db, err) != 0)
		return err->code;
	rc = questionnaire_stored(db, q->qid, q->version, row_id, sha, err);
	if (rc == 0) {
		db_rollback(db);
		if (strcmp(sha, q->sha256) == 0) {
			*already = 1;
			return 0;
		}
		return aerr_set(err, AV_USAGE, "%s: questionnaire %s version %lld is already loaded with "
		    "different content; give the changed file a higher version", name, q->qid,
		    (long long)q->version);
	}
	rc = rc < 0 ? AV_RUNTIME : questionnaire_store(db, actor, q, source, len, row_id, err);
	if (rc == 0)
		return db_commit(db, err);
	db_rollback(db);
	return rc;
}
