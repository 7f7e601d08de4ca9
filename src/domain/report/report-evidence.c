/*
 * report-evidence.c: the evidence files a report cites, as the bundle holds
 * them: each recorded exchange the runs cite as evidence/exchange-ID.json
 * with the credentials in its headers and URL redacted and its bodies as
 * text (a leaked canary's excerpt only, unless --include-leaked), and each
 * stored file an answer or incident links, copied when it is stored in the
 * clear. The files are added to the report once each, by path.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "report.h"
#include "evidence-key.h"
#include "canary.h"
#include "report-doc.h"
#include "report-collect.h"

void
report_file_add(struct report *r, char *path, const void *data, size_t len)
{
	r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof *r->files);
	r->files[r->nfiles].path = path;
	buf_init(&r->files[r->nfiles].data);
	buf_add(&r->files[r->nfiles].data, data, len);
	r->nfiles++;
}

static int
has_file(const struct report *r, const char *path)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (strcmp(r->files[i].path, path) == 0)
			return 1;
	return 0;
}

/* ---- credential redaction for evidence ---- */

static int
secret_header(const char *name)
{
	static const char *const exact[] = { "authorization", "proxy-authorization", "x-api-key",
		"api-key", "x-goog-api-key", "cookie", "set-cookie", "ocp-apim-subscription-key",
		"x-amz-security-token", NULL };
	static const char *const parts[] = { "auth", "token", "secret", "password", "api-key",
		"apikey", "api_key", "credential", "signature", NULL };

	for (int i = 0; exact[i] != NULL; i++)
		if (strcasecmp(name, exact[i]) == 0)
			return 1;
	for (int i = 0; parts[i] != NULL; i++)
		if (strcasestr(name, parts[i]) != NULL)
			return 1;
	return 0;
}

/* Headers as recorded: an object {name: value}, an array of "Name: value"
 * strings, or an array of {name, value} objects. Redacts in place. */
static void
redact_headers(cJSON *h)
{
	cJSON *e;

	if (cJSON_IsObject(h)) {
		cJSON *next;

		for (e = h->child; e != NULL; e = next) {
			next = e->next;
			if (e->string != NULL && secret_header(e->string)) {
				char *k = xstrdup(e->string);

				cJSON_ReplaceItemInObjectCaseSensitive(h, k, cJSON_CreateString("[REDACTED]"));
				free(k);
			}
		}
	} else if (cJSON_IsArray(h)) {
		cJSON_ArrayForEach(e, h) {
			if (cJSON_IsString(e)) {
				char *colon = strchr(e->valuestring, ':');

				if (colon != NULL) {
					char *name = xstrdup(e->valuestring);

					name[colon - e->valuestring] = '\0';
					if (secret_header(name)) {
						char *v = xasprintf("%s: [REDACTED]", name);

						cJSON_SetValuestring(e, v);
						free(v);
					}
					free(name);
				}
			} else if (cJSON_IsObject(e)) {
				const char *n = json_get_str(e, "name");

				if (n != NULL && secret_header(n) && cJSON_GetObjectItem(e, "value") != NULL)
					cJSON_ReplaceItemInObject(e, "value", cJSON_CreateString("[REDACTED]"));
			} else if (cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2 &&
			    cJSON_IsString(cJSON_GetArrayItem(e, 0)) &&
			    secret_header(cJSON_GetArrayItem(e, 0)->valuestring)) {
				cJSON_ReplaceItemInArray(e, 1, cJSON_CreateString("[REDACTED]"));
			}
		}
	}
}

/* Blanks the values of query parameters that carry keys (?key=..., &sig=...). */
static char *
redact_url(const char *url)
{
	static const char *const names[] = { "key", "api_key", "api-key", "apikey", "token",
		"access_token", "sig", "signature", "code", "x-amz-signature", "x-amz-security-token",
		"x-amz-credential", NULL };
	const char *q = strchr(url, '?');
	struct buf b;

	if (q == NULL)
		return xstrdup(url);
	buf_init(&b);
	buf_add(&b, url, (size_t)(q - url) + 1);
	for (const char *p = q + 1; *p != '\0';) {
		size_t n = strcspn(p, "&#");
		const char *eq = memchr(p, '=', n);
		int secret = 0;

		if (eq != NULL)
			for (int i = 0; names[i] != NULL; i++)
				if ((size_t)(eq - p) == strlen(names[i]) && strncasecmp(p, names[i], strlen(names[i])) == 0)
					secret = 1;
		if (secret) {
			buf_add(&b, p, (size_t)(eq - p) + 1);
			buf_adds(&b, "REDACTED");
		} else {
			buf_add(&b, p, n);
		}
		p += n;
		if (*p == '#') {
			buf_adds(&b, p);
			break;
		}
		if (*p == '&')
			buf_add(&b, p++, 1);
	}
	return buf_steal(&b);
}

static int
utf8_text(const unsigned char *s, size_t n)
{
	/* JSON strings here are C strings: no NUL either. */
	return memchr(s, 0, n) == NULL && utf8_valid(s, n);
}

/* The body of an exchange side: text, base64 for binary, or only a note when
 * the content is encrypted (leaked content) or was never stored. */
/* Leaked content, opened with the evidence key: the canaries it holds, and
 * an excerpt with everything else withheld — enough to show the leak
 * without repeating another customer's data. */
static void
add_leak_excerpt(cJSON *side, const struct buf *plain)
{
	cJSON *canaries = cJSON_AddArrayToObject(side, "canaries");
	struct buf ex;
	size_t i = 0, gap = 0, shown = 0;

	buf_init(&ex);
	buf_adds(&ex, "");
	while (i < plain->len) {
		size_t k = 0;

		if (plain->len - i >= NONCE_LEN && memcmp(plain->data + i, NONCE_PREFIX, NONCE_PREFIX_LEN) == 0)
			while (k < NONCE_LEN && isalnum((unsigned char)plain->data[i + k]))
				k++;
		if (k < NONCE_LEN) {
			gap++, i++;
			continue;
		}
		if (gap > 0)
			buf_printf(&ex, "[%zu bytes withheld]", gap);
		gap = 0;
		if (shown++ < 32) {
			char tok[NONCE_LEN + 1];

			memcpy(tok, plain->data + i, NONCE_LEN);
			tok[NONCE_LEN] = '\0';
			buf_adds(&ex, tok);
			cJSON_AddItemToArray(canaries, cJSON_CreateString(tok));
		}
		i += NONCE_LEN;
	}
	if (gap > 0)
		buf_printf(&ex, "[%zu bytes withheld]", gap);
	cJSON_AddStringToObject(side, "body_excerpt", ex.data);
	buf_free(&ex);
}

/* The body with generated text hidden and what judgement reads kept (redact.c),
 * for "verify --rejudge". */
static void
add_redacted(cJSON *side, const struct buf *plain)
{
	struct buf red;

	if (!utf8_text((const unsigned char *)plain->data, plain->len))
		return;
	leak_redact(plain->data, plain->len, &red);
	cJSON_AddStringToObject(side, "body_redacted", red.data);
	buf_free(&red);
}

static int
add_body(struct db *db, cJSON *side, const char *blob_sha, int include_leaked, struct aerr *err)
{
	struct buf b;
	int encrypted = 0;

	if (blob_sha == NULL || *blob_sha == '\0') {
		cJSON_AddNullToObject(side, "body");
		return 0;
	}
	if (blob_get(db, blob_sha, &b, &encrypted, err) != 0) {
		aerr_clear(err);
		cJSON_AddNullToObject(side, "body");
		cJSON_AddStringToObject(side, "body_note", "content not in the evidence store");
		return 0;
	}
	if (encrypted) {
		struct buf plain;
		struct aerr e = { 0 };

		cJSON_AddBoolToObject(side, "encrypted", 1);
		if (evidence_open_sealed(b.data, b.len, &plain, &e) != 0) {
			cJSON_AddNullToObject(side, "body");
			cJSON_AddStringToObject(side, "body_note", "leaked content: stored encrypted, "
			    "left out of the report; the hash identifies it");
		} else if (include_leaked && utf8_text((const unsigned char *)plain.data, plain.len)) {
			cJSON_AddStringToObject(side, "body", plain.data);
			cJSON_AddStringToObject(side, "body_note", "leaked content, included on request "
			    "(--include-leaked-content)");
		} else {
			cJSON_AddNullToObject(side, "body");
			add_leak_excerpt(side, &plain);
			add_redacted(side, &plain);
			cJSON_AddStringToObject(side, "body_note", "leaked content: stored encrypted; its "
			    "canaries and a redacted excerpt are shown (--include-leaked-content shows it all)");
		}
		if (plain.data != NULL)
			sodium_memzero(plain.data, plain.len);
		buf_free(&plain);
	} else if (utf8_text((const unsigned char *)b.data, b.len)) {
		cJSON_AddStringToObject(side, "body", b.data);
	} else {
		size_t cap = sodium_base64_ENCODED_LEN(b.len, sodium_base64_VARIANT_ORIGINAL);
		char *s = xmalloc(cap);

		sodium_bin2base64(s, cap, (const unsigned char *)b.data, b.len,
		    sodium_base64_VARIANT_ORIGINAL);
		cJSON_AddNullToObject(side, "body");
		cJSON_AddStringToObject(side, "body_base64", s);
		free(s);
	}
	buf_free(&b);
	return 0;
}

/* ---- an exchange as its evidence file ---- */

/* One exchange row as the evidence file writes it. */
struct exchange_row {
	int64_t evidence_id, run_id, seq, request_size, response_status, response_size;
	int has_status, has_size, streaming, truncated;
	char *probe, *tenant, *started_at, *method, *url, *request_sha256, *request_blob;
	char *response_sha256, *response_blob, *error;
	cJSON *request_headers, *request_recipe, *response_headers, *timings;
};

#define EXCHANGE_COLS "evidence_id, run_id, probe, seq, tenant, streaming, started_at, method, url, " \
	"request_headers, request_sha256, request_size, request_recipe, request_blob, " \
	"response_status, response_headers, response_sha256, response_size, response_truncated, " \
	"response_blob, error, timings"

static void
exchange_row_read(struct db_stmt *st, struct exchange_row *x)
{
	memset(x, 0, sizeof *x);
	x->evidence_id = db_col_int64(st, 0);
	x->run_id = db_col_int64(st, 1);
	x->probe = report_col_dup(st, 2);
	x->seq = db_col_int64(st, 3);
	x->tenant = report_col_dup(st, 4);
	x->streaming = db_col_int64(st, 5) != 0;
	x->started_at = report_col_dup(st, 6);
	x->method = report_col_dup(st, 7);
	x->url = report_col_dup(st, 8);
	x->request_headers = report_col_json(st, 9);
	x->request_sha256 = report_col_dup(st, 10);
	x->request_size = db_col_int64(st, 11);
	x->request_recipe = report_col_json(st, 12);
	x->request_blob = report_col_dup(st, 13);
	x->has_status = db_col_type(st, 14) != DB_NULL;
	x->response_status = db_col_int64(st, 14);
	x->response_headers = report_col_json(st, 15);
	x->response_sha256 = report_col_dup(st, 16);
	x->has_size = db_col_type(st, 17) != DB_NULL;
	x->response_size = db_col_int64(st, 17);
	x->truncated = db_col_int64(st, 18) != 0;
	x->response_blob = report_col_dup(st, 19);
	x->error = report_col_dup(st, 20);
	x->timings = report_col_json(st, 21);
}

static void
exchange_row_free(struct exchange_row *x)
{
	free(x->probe), free(x->tenant), free(x->started_at), free(x->method), free(x->url);
	free(x->request_sha256), free(x->request_blob), free(x->response_sha256);
	free(x->response_blob), free(x->error);
	cJSON_Delete(x->request_headers), cJSON_Delete(x->request_recipe);
	cJSON_Delete(x->response_headers), cJSON_Delete(x->timings);
}

static cJSON *
num_or_null(int has, int64_t v)
{
	return has ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

/* A recorded header set, credentials redacted, or null. */
static cJSON *
headers_redacted(const cJSON *h)
{
	cJSON *c = h != NULL ? cJSON_Duplicate(h, 1) : NULL;

	redact_headers(c);
	return c != NULL ? c : cJSON_CreateNull();
}

static cJSON *
exchange_file_json(struct db *db, const struct report *r, const struct exchange_row *x, struct aerr *err)
{
	cJSON *o = cJSON_CreateObject(), *req, *resp;
	char *url = redact_url(x->url ? x->url : "");

	cJSON_AddNumberToObject(o, "evidence_id", (double)x->evidence_id);
	cJSON_AddNumberToObject(o, "run_id", (double)x->run_id);
	json_add_str(o, "probe", x->probe);
	cJSON_AddNumberToObject(o, "seq", (double)x->seq);
	json_add_str(o, "tenant", x->tenant);
	cJSON_AddBoolToObject(o, "streaming", x->streaming);
	json_add_str(o, "started_at", x->started_at);
	json_add_str(o, "method", x->method);
	cJSON_AddStringToObject(o, "url", url);
	free(url);
	req = cJSON_AddObjectToObject(o, "request");
	cJSON_AddItemToObject(req, "headers", headers_redacted(x->request_headers));
	json_add_str(req, "sha256", x->request_sha256);
	cJSON_AddNumberToObject(req, "size", (double)x->request_size);
	cJSON_AddItemToObject(req, "recipe", x->request_recipe ? cJSON_Duplicate(x->request_recipe, 1) :
	    cJSON_CreateNull());
	add_body(db, req, x->request_blob, r->include_leaked, err);
	resp = cJSON_AddObjectToObject(o, "response");
	cJSON_AddItemToObject(resp, "status", num_or_null(x->has_status, x->response_status));
	cJSON_AddItemToObject(resp, "headers", headers_redacted(x->response_headers));
	json_add_str(resp, "sha256", x->response_sha256);
	cJSON_AddItemToObject(resp, "size", num_or_null(x->has_size, x->response_size));
	cJSON_AddBoolToObject(resp, "truncated", x->truncated);
	add_body(db, resp, x->response_blob, r->include_leaked, err);
	json_add_str(o, "error", x->error);
	cJSON_AddItemToObject(o, "timings", x->timings ? cJSON_Duplicate(x->timings, 1) : cJSON_CreateNull());
	return o;
}

/* evidence/exchange-ID.json for one exchange, and the run's entry citing it. */
static void
exchange_file(struct db *db, struct report *r, const struct exchange_row *x, struct report_exchange *e,
    struct aerr *err)
{
	cJSON *o = exchange_file_json(db, r, x, err);
	char *text = report_json_text(o), sha[65], name[EVIDENCE_NAME_MAX];

	cJSON_Delete(o);
	evidence_file_name(x->evidence_id, "exchange", NULL, name, sizeof name);
	e->file = xasprintf("evidence/%s", name);
	sha256_hex(text, strlen(text), sha);
	if (!has_file(r, e->file))
		report_file_add(r, xstrdup(e->file), text, strlen(text));
	free(text);
	e->file_sha256 = xstrdup(sha);
	e->evidence_id = x->evidence_id;
	e->seq = x->seq;
	e->probe = x->probe ? xstrdup(x->probe) : NULL;
	e->tenant = x->tenant ? xstrdup(x->tenant) : NULL;
	e->has_status = x->has_status;
	e->status = x->response_status;
	e->request_sha256 = x->request_sha256 ? xstrdup(x->request_sha256) : NULL;
	e->response_sha256 = x->response_sha256 ? xstrdup(x->response_sha256) : NULL;
}

/* Copies a stored file (answer attachment, incident evidence) into evidence/. */
int
report_file_evidence(struct db *db, struct report *r, int64_t evidence_id, struct report_evidence *out,
    struct aerr *err)
{
	struct evidence_item e;
	struct buf b;
	int enc = 0, rc = evidence_row_get(db, evidence_id, &e, err);

	memset(out, 0, sizeof *out);
	if (rc != 0) {
		evidence_item_free(&e);
		return rc == 1 ? aerr_set(err, AV_RUNTIME, "evidence %lld is missing", (long long)evidence_id) : rc;
	}
	*out = (struct report_evidence){ .id = e.id, .kind = e.kind, .sha256 = e.sha256,
	    .original_name = e.original_name, .media_type = e.media_type,
	    .effective_date = e.effective_date, .size = e.size, .added_by = e.added_by,
	    .added_at = e.added_at };
	e.kind = e.sha256 = e.original_name = e.media_type = e.effective_date = NULL;
	e.added_by = e.added_at = NULL;
	if (strcmp(out->kind, "file") == 0 && blob_get(db, out->sha256, &b, &enc, err) == 0) {
		out->has_file = 1;
		if (!enc) {
			out->file = xasprintf("evidence/%s", e.file);
			if (!has_file(r, out->file))
				report_file_add(r, xstrdup(out->file), b.data, b.len);
		} else {
			out->file_note = xstrdup("stored encrypted; left out of the bundle");
		}
		buf_free(&b);
	}
	evidence_item_free(&e);
	aerr_clear(err);
	return 0;
}

/* The run's exchanges, each written to evidence/ and cited by the run. */
int
report_run_exchanges(struct db *db, struct report *r, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT " EXCHANGE_COLS " FROM exchange "
	    "WHERE run_id = ? ORDER BY seq, id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct exchange_row x;

		exchange_row_read(st, &x);
		run->exchanges = report_grow(run->exchanges, run->nexchanges, sizeof *run->exchanges);
		memset(&run->exchanges[run->nexchanges], 0, sizeof *run->exchanges);
		exchange_file(db, r, &x, &run->exchanges[run->nexchanges++], err);
		exchange_row_free(&x);
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}
