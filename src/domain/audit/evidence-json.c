/*
 * evidence-json.c: a piece of evidence as a record (struct evidence_item),
 * which "evidence show" and the TUI's evidence screen print, and its one JSON
 * writer, "evidence show --json": an attached file's description,
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

/*
 * A body as JSON text: as it is when it is UTF-8 without NUL bytes; else
 * escaped (NUL as \x00, bytes that are not UTF-8 as \xNN), so that neither
 * the JSON nor a terminal cuts or garbles it, with the exact bytes beside it
 * in KEY_base64.
 */
static void
body_set(struct evidence_body *o, const char *data, size_t len)
{
	size_t b64len;

	if (memchr(data, '\0', len) == NULL && utf8_valid(data, len)) {
		o->text = xstrdup(data);
		o->len = len;
		return;
	}
	o->text = text_escape(data, len, 1);
	o->len = strlen(o->text);
	b64len = sodium_base64_encoded_len(len, sodium_base64_VARIANT_ORIGINAL);
	o->base64 = xmalloc(b64len);
	sodium_bin2base64(o->base64, b64len, (const unsigned char *)data, len, sodium_base64_VARIANT_ORIGINAL);
}

/* Loads the blob sha into o and reports whether its hash holds. With
 * open_leaked (--include-leaked-content, for this one call only) a sealed
 * body is opened with the evidence key. */
static int
body_load(struct db *db, struct evidence_body *o, const char *sha, int open_leaked, struct aerr *err)
{
	struct buf b;
	int enc = 0;
	char got[65];

	if (sha == NULL || *sha == '\0')
		return 0;
	if (blob_get(db, sha, &b, &enc, err) != 0)
		return err->code;
	o->present = 1;
	o->sealed = enc;
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
	if (!enc) {
		sha256_hex(b.data ? b.data : "", b.len, got);
		if (strcmp(got, sha) != 0) {
			buf_free(&b);
			return aerr_set(err, AV_RUNTIME, "stored content %s does not match its SHA-256: the "
			    "evidence store is damaged", sha);
		}
		body_set(o, b.data ? b.data : "", b.len);
	}
	buf_free(&b);
	return 0;
}

static char *
col_dup(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : xstrdup(col_text(st, i));
}

/* The string members of a stored headers object, in order. */
static void
headers_parse(const char *json, struct evidence_header **out, size_t *n)
{
	cJSON *h = json ? cJSON_Parse(json) : NULL, *kv;

	*out = NULL;
	*n = 0;
	cJSON_ArrayForEach(kv, h)
		if (cJSON_IsString(kv)) {
			*out = xrealloc(*out, sizeof **out * (*n + 1));
			(*out)[*n].name = xstrdup(kv->string);
			(*out)[*n].value = xstrdup(kv->valuestring);
			(*n)++;
		}
	cJSON_Delete(h);
}

static double
num_in(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void
timings_parse(struct evidence_exchange *x)
{
	cJSON *t = cJSON_Parse(x->timings);

	if (cJSON_IsObject(t)) {
		x->has_timings = 1;
		x->connect_ms = num_in(t, "connect_ms");
		x->ttfb_ms = num_in(t, "ttfb_ms");
		x->total_ms = num_in(t, "total_ms");
	}
	cJSON_Delete(t);
}

/* The exchange row behind evidence id, its bodies loaded and checked. */
static int
exchange_load(struct db *db, int64_t id, int open_leaked, struct evidence_exchange *x, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT run_id, probe, seq, tenant, streaming, method, url, "
	    "request_headers, request_sha256, request_size, request_blob, request_recipe, "
	    "response_status, response_headers, response_sha256, response_size, response_blob, "
	    "response_truncated, error, timings, started_at FROM exchange WHERE evidence_id = ?", "i", id);
	int rc = 0;

	if (st == NULL || db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_RUNTIME, "evidence %lld is an exchange without its record",
		    (long long)id);
	}
	x->run = db_col_int64(st, 0);
	x->probe = xstrdup(col_text(st, 1));
	x->seq = db_col_int64(st, 2);
	x->tenant = col_dup(st, 3);
	x->streaming = db_col_int(st, 4) != 0;
	x->method = xstrdup(col_text(st, 5));
	x->url = xstrdup(col_text(st, 6));
	x->request_headers = xstrdup(col_text(st, 7));
	headers_parse(x->request_headers, &x->req_hdr, &x->nreq_hdr);
	x->request_sha256 = xstrdup(col_text(st, 8));
	x->request_size = db_col_int64(st, 9);
	if (db_col_type(st, 11) != DB_NULL) {
		struct buf body;
		char sha[65];

		x->request_recipe = xstrdup(col_text(st, 11));
		if (probe_rebuild_request(x->request_recipe, &body, err) != 0) {
			db_finalize(st);
			return aerr_prefix(err, "evidence %lld", (long long)id);
		}
		sha256_hex(body.data ? body.data : "", body.len, sha);
		x->request_regenerated = strcmp(sha, x->request_sha256) == 0;
		buf_free(&body);
	} else if ((rc = body_load(db, &x->request_body, col_text(st, 10), open_leaked, err)) != 0) {
		db_finalize(st);
		return rc;
	}
	if (db_col_type(st, 12) != DB_NULL) {
		x->has_response_status = 1;
		x->response_status = (int)db_col_int64(st, 12);
	}
	x->response_headers = col_dup(st, 13);
	headers_parse(x->response_headers, &x->resp_hdr, &x->nresp_hdr);
	x->response_sha256 = col_dup(st, 14);
	x->response_size = db_col_int64(st, 15);
	if ((rc = body_load(db, &x->response_body, db_col_type(st, 16) == DB_NULL ? NULL :
	    col_text(st, 16), open_leaked, err)) != 0) {
		db_finalize(st);
		return rc;
	}
	x->response_truncated = db_col_int(st, 17) != 0;
	x->error = col_dup(st, 18);
	x->timings = xstrdup(col_text(st, 19));
	timings_parse(x);
	x->started_at = xstrdup(col_text(st, 20));
	db_finalize(st);
	return 0;
}

int
evidence_row_get(struct db *db, int64_t id, struct evidence_item *e, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT kind, sha256, original_name, media_type, size, "
	    "effective_date, added_by, added_at FROM evidence WHERE id = ?", "i", id);
	char name[EVIDENCE_NAME_MAX];

	memset(e, 0, sizeof *e);
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return 1;
	}
	e->id = id;
	e->kind = xstrdup(col_text(st, 0));
	e->sha256 = xstrdup(col_text(st, 1));
	e->original_name = col_dup(st, 2);
	e->media_type = col_dup(st, 3);
	e->size = db_col_int64(st, 4);
	e->effective_date = col_dup(st, 5);
	e->added_by = xstrdup(col_text(st, 6));
	e->added_at = xstrdup(col_text(st, 7));
	db_finalize(st);
	/* The name it has in a report bundle's evidence/ and on every screen. */
	evidence_file_name(id, e->kind, e->original_name, name, sizeof name);
	e->file = xstrdup(name);
	return 0;
}

int
evidence_get(struct db *db, int64_t id, int open_leaked, struct evidence_item *e, struct aerr *err)
{
	struct db_stmt *st;
	int rc = evidence_row_get(db, id, e, err);

	if (rc == 1)
		return aerr_set(err, AV_USAGE, "no evidence with id %lld", (long long)id);
	if (rc != 0)
		return rc;
	if (strcmp(e->kind, "exchange") != 0)
		return 0;
	e->exchange = xcalloc(1, sizeof *e->exchange);
	if (exchange_load(db, id, open_leaked, e->exchange, err) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT f.id, f.code, f.severity FROM finding f JOIN finding_evidence fe "
	    "ON fe.finding_id = f.id WHERE fe.evidence_id = ? ORDER BY f.id", "i", id);
	while (st != NULL && db_step(st) == DB_ROW) {
		struct evidence_finding *f;

		e->findings = xrealloc(e->findings, sizeof *e->findings * (e->nfindings + 1));
		f = &e->findings[e->nfindings++];
		f->id = db_col_int64(st, 0);
		f->code = xstrdup(col_text(st, 1));
		f->severity = xstrdup(col_text(st, 2));
	}
	db_finalize(st);
	return 0;
}

static void
body_free(struct evidence_body *b)
{
	free(b->text);
	free(b->base64);
}

static void
headers_free(struct evidence_header *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].name);
		free(h[i].value);
	}
	free(h);
}

static void
exchange_free(struct evidence_exchange *x)
{
	free(x->probe);
	free(x->tenant);
	free(x->method);
	free(x->url);
	free(x->request_headers);
	headers_free(x->req_hdr, x->nreq_hdr);
	free(x->request_sha256);
	free(x->request_recipe);
	body_free(&x->request_body);
	free(x->response_headers);
	headers_free(x->resp_hdr, x->nresp_hdr);
	free(x->response_sha256);
	body_free(&x->response_body);
	free(x->error);
	free(x->timings);
	free(x->started_at);
}

void
evidence_item_free(struct evidence_item *e)
{
	free(e->kind);
	free(e->sha256);
	free(e->original_name);
	free(e->media_type);
	free(e->effective_date);
	free(e->added_by);
	free(e->added_at);
	free(e->file);
	if (e->exchange != NULL) {
		exchange_free(e->exchange);
		free(e->exchange);
	}
	for (size_t i = 0; i < e->nfindings; i++) {
		free(e->findings[i].code);
		free(e->findings[i].severity);
	}
	free(e->findings);
	memset(e, 0, sizeof *e);
}

/* KEY_sealed, KEY and KEY_base64, in the order "evidence show --json" has always had. */
static void
body_to_json(cJSON *o, const char *key, const struct evidence_body *b)
{
	char *k;

	if (!b->present) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	k = xasprintf("%s_sealed", key);
	cJSON_AddBoolToObject(o, k, b->sealed);
	free(k);
	json_add_str(o, key, b->text);
	if (b->base64 != NULL) {
		k = xasprintf("%s_base64", key);
		cJSON_AddStringToObject(o, k, b->base64);
		free(k);
	}
}

static void
exchange_to_json(cJSON *x, const struct evidence_exchange *e)
{
	cJSON_AddNumberToObject(x, "run", (double)e->run);
	cJSON_AddStringToObject(x, "probe", e->probe);
	cJSON_AddNumberToObject(x, "seq", (double)e->seq);
	json_add_str(x, "tenant", e->tenant);
	cJSON_AddBoolToObject(x, "streaming", e->streaming);
	cJSON_AddStringToObject(x, "method", e->method);
	cJSON_AddStringToObject(x, "url", e->url);
	cJSON_AddItemToObject(x, "request_headers", cJSON_Parse(e->request_headers));
	cJSON_AddStringToObject(x, "request_sha256", e->request_sha256);
	cJSON_AddNumberToObject(x, "request_size", (double)e->request_size);
	if (e->request_recipe != NULL) {
		cJSON_AddItemToObject(x, "request_recipe", cJSON_Parse(e->request_recipe));
		cJSON_AddBoolToObject(x, "request_regenerated", e->request_regenerated);
		cJSON_AddNullToObject(x, "request_body");
	} else
		body_to_json(x, "request_body", &e->request_body);
	if (e->has_response_status)
		cJSON_AddNumberToObject(x, "response_status", e->response_status);
	else
		cJSON_AddNullToObject(x, "response_status");
	cJSON_AddItemToObject(x, "response_headers", e->response_headers == NULL ?
	    cJSON_CreateNull() : cJSON_Parse(e->response_headers));
	json_add_str(x, "response_sha256", e->response_sha256);
	cJSON_AddNumberToObject(x, "response_size", (double)e->response_size);
	body_to_json(x, "response_body", &e->response_body);
	cJSON_AddBoolToObject(x, "response_truncated", e->response_truncated);
	json_add_str(x, "error", e->error);
	cJSON_AddItemToObject(x, "timings", cJSON_Parse(e->timings));
	cJSON_AddStringToObject(x, "started_at", e->started_at);
}

void
evidence_row_to_json(cJSON *j, const struct evidence_item *e)
{
	cJSON_AddNumberToObject(j, "id", (double)e->id);
	cJSON_AddStringToObject(j, "kind", e->kind);
	cJSON_AddStringToObject(j, "sha256", e->sha256);
	json_add_str(j, "original_name", e->original_name);
	json_add_str(j, "media_type", e->media_type);
	cJSON_AddNumberToObject(j, "size", (double)e->size);
	json_add_str(j, "effective_date", e->effective_date);
	cJSON_AddStringToObject(j, "added_by", e->added_by);
	cJSON_AddStringToObject(j, "added_at", e->added_at);
}

cJSON *
evidence_item_to_json(const struct evidence_item *e)
{
	cJSON *j = cJSON_CreateObject(), *f;

	evidence_row_to_json(j, e);
	cJSON_AddStringToObject(j, "file", e->file);
	if (e->exchange == NULL)
		return j;
	exchange_to_json(cJSON_AddObjectToObject(j, "exchange"), e->exchange);
	f = cJSON_AddArrayToObject(j, "findings");
	for (size_t i = 0; i < e->nfindings; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)e->findings[i].id);
		cJSON_AddStringToObject(o, "code", e->findings[i].code);
		cJSON_AddStringToObject(o, "severity", e->findings[i].severity);
		cJSON_AddItemToArray(f, o);
	}
	return j;
}
