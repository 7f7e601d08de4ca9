/*
 * evidence.c: the content-addressed evidence store. Bytes live once in the
 * blob table, keyed by their SHA-256; evidence rows describe what the bytes
 * are (an attached file, a recorded HTTP exchange). Writes happen inside the
 * caller's transaction, so evidence and the audit entry land together.
 */
#include "config.h"

#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "aivet/core.h"

/* Stored content and evidence rows (db.h's db_write): on PostgreSQL the
 * functions of db/pg/008-workflow.sql check that plaintext hashes to its name,
 * that a sealed box replaces only a plaintext copy, and name the login as the
 * one who added the evidence. Blob arguments: sha256, size, bytes. */
/* A content stored already is left as it is (an encrypted copy is never
 * replaced by plaintext): the statement looks itself, so no second row
 * reaches the triggers that refuse one, and looking costs no round trip of
 * its own on a server (one for each piece of evidence of a probe run). */
static const struct db_write blob_plain = {
	{ "INSERT INTO blob (sha256, size, encrypted, data) SELECT ?1, ?2, 0, ?3 "
	  "WHERE NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = ?1)" },
	"SELECT aivet_blob_put(?1, ?2, 0, ?3) WHERE NOT EXISTS (SELECT 1 FROM blob WHERE sha256 = ?1)", 0
};
static const struct db_write blob_sealed = {
	{ "INSERT INTO blob (sha256, size, encrypted, data) VALUES (?1, ?2, 1, ?3) "
	  "ON CONFLICT (sha256) DO UPDATE SET encrypted = 1, data = excluded.data" },
	"SELECT aivet_blob_put(?1, ?2, 1, ?3)", 0
};
/* Arguments: kind, sha256, name, media type, size, effective date, actor, time. */
static const struct db_write evidence_row = {
	{ "INSERT INTO evidence (kind, sha256, original_name, media_type, size, effective_date, "
	  "added_by, added_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)" },
	"SELECT aivet_evidence_add(?1, ?2, ?3, ?4, ?5, ?6, ?8)", 1
};

int
evidence_insert(struct db *db, const char *actor, const char *kind, const char *sha,
    const char *name, const char *media_type, size_t size, const char *effective_date,
    int64_t *id, struct aerr *err)
{
	char at[32];

	now_iso(at);
	return db_write(db, err, &evidence_row, id, "ttttitt" "t", kind, sha, name, media_type,
	    (int64_t)size, effective_date, actor, at);
}

/* Sealing content (leaked text, kept only as a box to the evidence key) is an
 * operation of its own: its blob_seal row, with the SHA-256 of the box as stored,
 * is recorded in the audit log before the blob changes, which the blob's triggers
 * require (db/006-seal-all.sql) and audit verify checks the box against. On
 * PostgreSQL aivet_blob_seal (db/pg/011-seal-writes.sql) writes the row, hashing
 * the box itself, only for the login's running run and content it may seal.
 * Arguments: sha256, size, box SHA-256, time, run, box. */
static const struct db_write blob_seal_row = {
	{ "INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at) VALUES (?1, ?2, ?3, ?4)" },
	"SELECT aivet_blob_seal(?5, ?1, ?2, ?6, ?4)", 1
};

static int
blob_seal_record(struct db *db, const char *actor, int64_t run, const char *sha, size_t len,
    const unsigned char *box, size_t n, struct aerr *err)
{
	char box_sha[65], at[32];
	cJSON *d;
	int64_t id;
	int rc;

	sha256_hex(box, n, box_sha);
	now_iso(at);
	if (db_write(db, err, &blob_seal_row, &id, "titt" "ib", sha, (int64_t)len, box_sha, at, run,
	    box, n) != 0)
		return err->code;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "sha256", sha);
	cJSON_AddStringToObject(d, "box_sha256", box_sha);
	rc = audit_append(db, actor, "blob.seal", "blob_seal", id, d, err);
	cJSON_Delete(d);
	return rc;
}

int
blob_put(struct db *db, const void *data, size_t len, char sha[65], struct aerr *err)
{
	sha256_hex(data, len, sha);
	return db_write(db, err, &blob_plain, NULL, "tib", sha, (int64_t)len, data, len);
}

int
blob_put_sealed(struct db *db, const char *actor, int64_t run, const void *data, size_t len,
    const unsigned char *seal_pk, char sha[65], struct aerr *err)
{
	size_t n = len + crypto_box_SEALBYTES;
	unsigned char *box;
	int64_t have;
	int rc;

	sha256_hex(data, len, sha);
	rc = db_int(db, &have, err, "SELECT encrypted FROM blob WHERE sha256 = ?", "t", sha);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0 && have)
		return 0;   /* sealed already */
	box = xmalloc(n);
	crypto_box_seal(box, data, len, seal_pk);
	/* Leaked content must not stay readable: replace a plaintext copy. */
	rc = blob_seal_record(db, actor, run, sha, len, box, n, err);
	if (rc == 0)
		rc = db_write(db, err, &blob_sealed, NULL, "tib", sha, (int64_t)len, box, n);
	sodium_memzero(box, n);
	free(box);
	return rc;
}

int
blob_get(struct db *db, const char *sha, struct buf *out, int *encrypted, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT encrypted, data FROM blob WHERE sha256 = ?",
	    "t", sha);
	int rc;

	buf_init(out);
	if (st == NULL)
		return AV_RUNTIME;
	rc = db_step(st);
	if (rc != DB_ROW) {
		db_finalize(st);
		return rc == DB_DONE ? aerr_set(err, AV_USAGE, "no stored content with SHA-256 %s", sha)
		    : db_err(db, err, "blob");
	}
	*encrypted = db_col_int(st, 0);
	buf_add(out, db_col_blob(st, 1), (size_t)db_col_bytes(st, 1));
	db_finalize(st);
	return 0;
}

const char *
media_type_for(const char *name)
{
	static const struct { const char *ext, *type; } types[] = {
		{ ".pdf", "application/pdf" }, { ".json", "application/json" },
		{ ".txt", "text/plain" }, { ".md", "text/markdown" }, { ".csv", "text/csv" },
		{ ".html", "text/html" }, { ".htm", "text/html" }, { ".png", "image/png" },
		{ ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" }, { ".xml", "application/xml" },
		{ ".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
		{ ".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
		{ ".zip", "application/zip" }, { ".eml", "message/rfc822" },
	};
	const char *dot = strrchr(name, '.');

	if (dot != NULL)
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (strcasecmp(dot, types[i].ext) == 0)
				return types[i].type;
	return "application/octet-stream";
}

int
evidence_add_file(struct db *db, const char *actor, const char *path, const char *effective_date,
    int64_t *id, struct aerr *err)
{
	struct buf b;
	char sha[65];
	const char *base = strrchr(path, '/');
	cJSON *d;
	int rc;

	base = base ? base + 1 : path;
	if (effective_date != NULL) {
		int64_t ms;

		if (parse_time(effective_date, &ms, err) != 0)
			return aerr_prefix(err, "--effective");
	}
	if (read_file(path, EVIDENCE_FILE_MAX, &b, err) != 0)
		return aerr_prefix(err, "evidence file");
	if (blob_put(db, b.data, b.len, sha, err) != 0) {
		buf_free(&b);
		return err->code;
	}
	rc = evidence_insert(db, actor, "file", sha, base, media_type_for(base), b.len, effective_date,
	    id, err);
	buf_free(&b);
	if (rc != 0)
		return rc;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "sha256", sha);
	cJSON_AddStringToObject(d, "original_name", base);
	rc = audit_append(db, actor, "evidence.add", "evidence", *id, d, err);
	cJSON_Delete(d);
	return rc;
}

int
finding_evidence_ids(struct db *db, int64_t finding_id, char *summary, size_t n, int64_t **ids,
    size_t *nids, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT code, severity, message FROM finding "
	    "WHERE id = ?", "i", finding_id);

	*ids = NULL;
	*nids = 0;
	summary[0] = '\0';
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW)
		snprintf(summary, n, "%s (%s): %s", col_text(st, 0), col_text(st, 1), col_text(st, 2));
	db_finalize(st);
	return db_ids(db_prepare(db, err, "SELECT evidence_id FROM finding_evidence WHERE finding_id = ? "
	    "ORDER BY evidence_id", "i", finding_id), ids, nids, err);
}

int
finding_leak_evidence(struct db *db, int64_t finding_id, int64_t *id, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT max(fe.evidence_id) FROM finding_evidence fe "
	    "JOIN evidence e ON e.id = fe.evidence_id JOIN blob b ON b.sha256 = e.sha256 "
	    "WHERE fe.finding_id = ? AND b.encrypted = 0 AND "
	    "CAST(json_extract(convert_from(b.data, 'UTF8'), '$.foreign_canaries') AS INTEGER) > 0", "i", finding_id);

	*id = 0;
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW && db_col_type(st, 0) != DB_NULL)
		*id = db_col_int64(st, 0);
	db_finalize(st);
	return 0;
}

/*
 * One name for each piece of evidence, the same in the bundle's evidence/
 * directory, the reports, probe show, evidence show and the terminal UI:
 * the evidence id is stable across runs and databases' exports, where a
 * run's sequence number is not unique outside its run.
 */
void
evidence_file_name(int64_t id, const char *kind, const char *original_name, char *out, size_t n)
{
	char safe[80];
	const char *name = original_name != NULL && *original_name != '\0' ? original_name : "file";
	size_t i;

	if (kind == NULL || strcmp(kind, "exchange") == 0) {
		snprintf(out, n, "exchange-%lld.json", (long long)id);
		return;
	}
	for (i = 0; name[i] != '\0' && i < sizeof safe - 1; i++)
		safe[i] = strchr("/\\\n\r\t ", name[i]) || (unsigned char)name[i] < 0x20 ? '_' : name[i];
	safe[i] = '\0';
	snprintf(out, n, "file-%lld-%s", (long long)id, safe);
}
