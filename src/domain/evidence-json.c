/*
 * evidence-json.c: a piece of evidence as "evidence show --json" prints it
 * and the TUI's evidence screen reads it: an attached file's description,
 * or a recorded exchange with its headers, bodies (checked against their
 * SHA-256; a request kept as a recipe is regenerated and checked), timings
 * and the findings that cite it. Sealed (leaked) content stays sealed
 * unless the one call asks for it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "probe.h"
#include "evidence-key.h"
#include "evidence-json.h"

/* Loads a blob into o[key] (text) and reports whether its hash holds. With
 * open_leaked (--include-leaked-content, for this one call only) a sealed
 * body is opened with the evidence key. */
/*
 * A body as JSON text: as it is when it is UTF-8 without NUL bytes; else
 * escaped (NUL as \x00, bytes that are not UTF-8 as \xNN), so that neither
 * the JSON nor a terminal cuts or garbles it, with the exact bytes beside it
 * in KEY_base64.
 */
static void
add_body(cJSON *o, const char *key, const char *data, size_t len)
{
	char *text, *k, *b64;
	size_t b64len;

	if (memchr(data, '\0', len) == NULL && utf8_valid(data, len)) {
		cJSON_AddStringToObject(o, key, data);
		return;
	}
	text = text_escape(data, len, 1);
	cJSON_AddStringToObject(o, key, text);
	free(text);
	b64len = sodium_base64_encoded_len(len, sodium_base64_VARIANT_ORIGINAL);
	b64 = xmalloc(b64len);
	sodium_bin2base64(b64, b64len, (const unsigned char *)data, len, sodium_base64_VARIANT_ORIGINAL);
	k = xasprintf("%s_base64", key);
	cJSON_AddStringToObject(o, k, b64);
	free(k);
	free(b64);
}

static int
body_json(struct db *db, cJSON *o, const char *key, const char *sha, int open_leaked, struct aerr *err)
{
	struct buf b;
	int enc = 0;
	char got[65];
	char *k;

	if (sha == NULL || *sha == '\0') {
		cJSON_AddNullToObject(o, key);
		return 0;
	}
	if (blob_get(db, sha, &b, &enc, err) != 0)
		return err->code;
	k = xasprintf("%s_sealed", key);
	cJSON_AddBoolToObject(o, k, enc);
	free(k);
	if (enc && open_leaked) {
		struct buf plain;

		if (evidence_open_sealed(b.data, b.len, &plain, err) != 0) {
			buf_free(&b);
			return err->code;
		}
		buf_free(&b);
		b = plain;
		enc = 0;
	}
	if (enc) {
		cJSON_AddNullToObject(o, key);
	} else {
		sha256_hex(b.data ? b.data : "", b.len, got);
		if (strcmp(got, sha) != 0) {
			buf_free(&b);
			return aerr_set(err, AV_RUNTIME, "stored content %s does not match its SHA-256: the "
			    "evidence store is damaged", sha);
		}
		add_body(o, key, b.data ? b.data : "", b.len);
	}
	buf_free(&b);
	return 0;
}

int
evidence_build(struct db *db, int64_t id, int open_leaked, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT kind, sha256, original_name, media_type, size, "
	    "effective_date, added_by, added_at FROM evidence WHERE id = ?", "i", id);
	cJSON *j, *x, *f;
	int exchange;

	*out = NULL;
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "no evidence with id %lld", (long long)id);
	}
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)id);
	cJSON_AddStringToObject(j, "kind", col_text(st, 0));
	cJSON_AddStringToObject(j, "sha256", col_text(st, 1));
	json_add_str(j, "original_name", db_col_type(st, 2) == DB_NULL ? NULL : col_text(st, 2));
	json_add_str(j, "media_type", db_col_type(st, 3) == DB_NULL ? NULL : col_text(st, 3));
	cJSON_AddNumberToObject(j, "size", (double)db_col_int64(st, 4));
	json_add_str(j, "effective_date", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
	cJSON_AddStringToObject(j, "added_by", col_text(st, 6));
	cJSON_AddStringToObject(j, "added_at", col_text(st, 7));
	exchange = strcmp(col_text(st, 0), "exchange") == 0;
	{
		char name[EVIDENCE_NAME_MAX];

		/* The name it has in a report bundle's evidence/ and on every screen. */
		evidence_file_name(id, col_text(st, 0), db_col_type(st, 2) == DB_NULL ? NULL :
		    col_text(st, 2), name, sizeof name);
		cJSON_AddStringToObject(j, "file", name);
	}
	db_finalize(st);
	*out = j;
	if (!exchange)
		return 0;
	st = db_prepare(db, err, "SELECT run_id, probe, seq, tenant, streaming, method, url, "
	    "request_headers, request_sha256, request_size, request_blob, request_recipe, "
	    "response_status, response_headers, response_sha256, response_size, response_blob, "
	    "response_truncated, error, timings, started_at FROM exchange WHERE evidence_id = ?", "i", id);
	if (st == NULL || db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_RUNTIME, "evidence %lld is an exchange without its record",
		    (long long)id);
	}
	x = cJSON_AddObjectToObject(j, "exchange");
	cJSON_AddNumberToObject(x, "run", (double)db_col_int64(st, 0));
	cJSON_AddStringToObject(x, "probe", col_text(st, 1));
	cJSON_AddNumberToObject(x, "seq", (double)db_col_int64(st, 2));
	json_add_str(x, "tenant", db_col_type(st, 3) == DB_NULL ? NULL : col_text(st, 3));
	cJSON_AddBoolToObject(x, "streaming", db_col_int(st, 4));
	cJSON_AddStringToObject(x, "method", col_text(st, 5));
	cJSON_AddStringToObject(x, "url", col_text(st, 6));
	cJSON_AddItemToObject(x, "request_headers", cJSON_Parse(col_text(st, 7)));
	cJSON_AddStringToObject(x, "request_sha256", col_text(st, 8));
	cJSON_AddNumberToObject(x, "request_size", (double)db_col_int64(st, 9));
	if (db_col_type(st, 11) != DB_NULL) {
		struct buf body;
		char sha[65];

		cJSON_AddItemToObject(x, "request_recipe", cJSON_Parse(col_text(st, 11)));
		if (probe_rebuild_request(col_text(st, 11), &body, err) != 0) {
			db_finalize(st);
			return aerr_prefix(err, "evidence %lld", (long long)id);
		}
		sha256_hex(body.data ? body.data : "", body.len, sha);
		cJSON_AddBoolToObject(x, "request_regenerated", strcmp(sha, col_text(st, 8)) == 0);
		buf_free(&body);
		cJSON_AddNullToObject(x, "request_body");
	} else if (body_json(db, x, "request_body", col_text(st, 10), open_leaked, err) != 0) {
		db_finalize(st);
		return err->code;
	}
	if (db_col_type(st, 12) == DB_NULL)
		cJSON_AddNullToObject(x, "response_status");
	else
		cJSON_AddNumberToObject(x, "response_status", (double)db_col_int64(st, 12));
	cJSON_AddItemToObject(x, "response_headers", db_col_type(st, 13) == DB_NULL ?
	    cJSON_CreateNull() : cJSON_Parse(col_text(st, 13)));
	json_add_str(x, "response_sha256", db_col_type(st, 14) == DB_NULL ? NULL :
	    col_text(st, 14));
	cJSON_AddNumberToObject(x, "response_size", (double)db_col_int64(st, 15));
	if (body_json(db, x, "response_body", db_col_type(st, 16) == DB_NULL ? NULL :
	    col_text(st, 16), open_leaked, err) != 0) {
		db_finalize(st);
		return err->code;
	}
	cJSON_AddBoolToObject(x, "response_truncated", db_col_int(st, 17));
	json_add_str(x, "error", db_col_type(st, 18) == DB_NULL ? NULL : col_text(st, 18));
	cJSON_AddItemToObject(x, "timings", cJSON_Parse(col_text(st, 19)));
	cJSON_AddStringToObject(x, "started_at", col_text(st, 20));
	db_finalize(st);
	f = cJSON_AddArrayToObject(j, "findings");
	st = db_prepare(db, err, "SELECT f.id, f.code, f.severity FROM finding f JOIN finding_evidence fe "
	    "ON fe.finding_id = f.id WHERE fe.evidence_id = ? ORDER BY f.id", "i", id);
	while (st != NULL && db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
		cJSON_AddStringToObject(o, "code", col_text(st, 1));
		cJSON_AddStringToObject(o, "severity", col_text(st, 2));
		cJSON_AddItemToArray(f, o);
	}
	db_finalize(st);
	return 0;
}

/* Sealed content stays sealed unless asked for in this very call. */
int
evidence_json(struct db *db, int64_t id, cJSON **out, struct aerr *err)
{
	return evidence_build(db, id, 0, out, err);
}
