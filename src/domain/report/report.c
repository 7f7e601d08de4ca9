/*
 * report.c: collects report.json from the database — vendor, endpoints (no
 * secrets), assessment rounds and answers, probe runs with results, findings
 * and evidence hashes, incidents, the claims-vs-evidence table and the audit
 * checkpoint — plus the evidence files the report cites. Everything is read
 * in a fixed order so the same database and options give the same bytes.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "assess.h"
#include "claims.h"
#include "aivet/run-query.h"
#include "finding.h"
#include "incident.h"
#include "rating.h"
#include "report.h"
#include "evidence-key.h"
#include "canary.h"
#include "report-doc.h"

void
derived_uuid(const char *seed, const char *name, char out[37])
{
	crypto_hash_sha256_state st;
	unsigned char h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)seed, strlen(seed));
	crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)name, strlen(name));
	crypto_hash_sha256_final(&st, h);
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
	    h[12], h[13], h[14], h[15]);
}

static void
add_file(struct report *r, char *path, const void *data, size_t len)
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


/* ---- reading rows into the record ---- */

static char *
col_dup(struct db_stmt *st, int i)
{
	const char *s = db_col_text(st, i);

	return s != NULL ? xstrdup(s) : NULL;
}

/* A column that holds a JSON document: parsed, kept as a string when it does
 * not parse (so the report shows what is stored), NULL for NULL. */
static cJSON *
col_json(struct db_stmt *st, int i)
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

static void *
grow(void *v, size_t n, size_t size)
{
	return xrealloc(v, (n + 1) * size);
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
	x->probe = col_dup(st, 2);
	x->seq = db_col_int64(st, 3);
	x->tenant = col_dup(st, 4);
	x->streaming = db_col_int64(st, 5) != 0;
	x->started_at = col_dup(st, 6);
	x->method = col_dup(st, 7);
	x->url = col_dup(st, 8);
	x->request_headers = col_json(st, 9);
	x->request_sha256 = col_dup(st, 10);
	x->request_size = db_col_int64(st, 11);
	x->request_recipe = col_json(st, 12);
	x->request_blob = col_dup(st, 13);
	x->has_status = db_col_type(st, 14) != DB_NULL;
	x->response_status = db_col_int64(st, 14);
	x->response_headers = col_json(st, 15);
	x->response_sha256 = col_dup(st, 16);
	x->has_size = db_col_type(st, 17) != DB_NULL;
	x->response_size = db_col_int64(st, 17);
	x->truncated = db_col_int64(st, 18) != 0;
	x->response_blob = col_dup(st, 19);
	x->error = col_dup(st, 20);
	x->timings = col_json(st, 21);
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
		add_file(r, xstrdup(e->file), text, strlen(text));
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
static int
file_evidence(struct db *db, struct report *r, int64_t evidence_id, struct report_evidence *out,
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
				add_file(r, xstrdup(out->file), b.data, b.len);
		} else {
			out->file_note = xstrdup("stored encrypted; left out of the bundle");
		}
		buf_free(&b);
	}
	evidence_item_free(&e);
	aerr_clear(err);
	return 0;
}

/* ---- probe runs ---- */

static int
run_results(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details "
	    "FROM probe_result WHERE run_id = ? ORDER BY id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct report_result *p;

		run->results = grow(run->results, run->nresults, sizeof *run->results);
		p = &run->results[run->nresults++];
		*p = (struct report_result){ .probe = col_dup(st, 0), .verdict = col_dup(st, 1),
		    .reason = col_dup(st, 2), .has_requests = db_col_type(st, 3) != DB_NULL,
		    .requests = db_col_int64(st, 3), .details = col_json(st, 4) };
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

/* The evidence ids behind each of the run's findings, ascending: one query
 * for the run, not one per finding. */
static int
run_finding_evidence(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT fe.finding_id, fe.evidence_id FROM "
	    "finding_evidence fe JOIN finding f ON f.id = fe.finding_id WHERE f.run_id = ? "
	    "ORDER BY fe.finding_id, fe.evidence_id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW)
		for (size_t i = 0; i < run->nfindings; i++) {
			struct report_finding *f = &run->findings[i];

			if (f->id != db_col_int64(st, 0))
				continue;
			f->evidence = grow(f->evidence, f->nevidence, sizeof *f->evidence);
			f->evidence[f->nevidence++] = db_col_int64(st, 1);
		}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

static int
run_findings(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, run_id, probe, code, severity, message, "
	    "details FROM finding WHERE run_id = ? ORDER BY id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct report_finding *f;

		run->findings = grow(run->findings, run->nfindings, sizeof *run->findings);
		f = &run->findings[run->nfindings++];
		*f = (struct report_finding){ .id = db_col_int64(st, 0), .run_id = db_col_int64(st, 1),
		    .probe = col_dup(st, 2), .code = col_dup(st, 3), .severity = col_dup(st, 4),
		    .message = col_dup(st, 5), .details = col_json(st, 6) };
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "report query");
	return run_finding_evidence(db, run, err);
}

/* The run's exchanges, each written to evidence/ and cited by the run. */
static int
run_exchanges(struct db *db, struct report *r, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT " EXCHANGE_COLS " FROM exchange "
	    "WHERE run_id = ? ORDER BY seq, id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct exchange_row x;

		exchange_row_read(st, &x);
		run->exchanges = grow(run->exchanges, run->nexchanges, sizeof *run->exchanges);
		memset(&run->exchanges[run->nexchanges], 0, sizeof *run->exchanges);
		exchange_file(db, r, &x, &run->exchanges[run->nexchanges++], err);
		exchange_row_free(&x);
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

static int
run_included(const struct report_opts *o, int64_t id)
{
	for (size_t i = 0; i < o->nrun_ids; i++)
		if (o->run_ids[i] == id)
			return 1;
	return 0;
}

static int
id_in(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* --runs names runs of this vendor only. */
static int
runs_check(struct db *db, const struct report_opts *o, int64_t vendor_id, struct aerr *err)
{
	for (size_t i = 0; i < o->nrun_ids; i++) {
		int64_t owner;

		if (db_int(db, &owner, err, "SELECT e.vendor_id FROM probe_run r JOIN endpoint e ON "
		    "e.id = r.endpoint_id WHERE r.id = ?", "i", o->run_ids[i]) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--runs: no probe run %lld for vendor '%s'",
			    (long long)o->run_ids[i], o->vendor);
	}
	return 0;
}

/* The runs the options choose (--runs, else --since, else all) and those an
 * incident links, oldest first. */
static int
runs_chosen(struct db *db, const struct report_opts *o, int64_t vendor_id, const char *since,
    const int64_t *linked, size_t nlinked, struct report_doc *d, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT r.id, r.endpoint_id, e.name, r.status, r.probes, "
	    "r.options, r.plan, r.calibration, r.tokens_in, r.tokens_out, r.actor, r.started_at, "
	    "r.finished_at FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "WHERE e.vendor_id = ? ORDER BY r.started_at, r.id", "i", vendor_id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t id = db_col_int64(st, 0);
		int keep = o->run_ids != NULL ? run_included(o, id) :
		    o->since != NULL ? strcmp(col_text(st, 11), since) >= 0 : 1;

		if (!keep && !id_in(linked, nlinked, id))
			continue;
		d->runs = grow(d->runs, d->nruns, sizeof *d->runs);
		d->runs[d->nruns++] = (struct report_run){ .id = id, .endpoint_id = db_col_int64(st, 1),
		    .endpoint = col_dup(st, 2), .status = col_dup(st, 3), .probes = col_json(st, 4),
		    .options = col_json(st, 5), .plan = col_json(st, 6), .calibration = col_json(st, 7),
		    .tokens_in = db_col_int64(st, 8), .tokens_out = db_col_int64(st, 9),
		    .actor = col_dup(st, 10), .started_at = col_dup(st, 11), .finished_at = col_dup(st, 12) };
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

static int
collect_runs(struct db *db, const struct report_opts *o, int64_t vendor_id, const int64_t *linked,
    size_t nlinked, struct report *r, struct aerr *err)
{
	struct report_doc *d = r->doc;
	char since[32] = "";

	if (o->since != NULL) {
		int64_t ms;

		if (parse_time(o->since, &ms, err) != 0)
			return aerr_prefix(err, "--since");
		fmt_time_ms(ms, since);
	}
	if (runs_check(db, o, vendor_id, err) != 0 ||
	    runs_chosen(db, o, vendor_id, since, linked, nlinked, d, err) != 0)
		return err->code;
	for (size_t i = 0; i < d->nruns; i++)
		if (run_results(db, &d->runs[i], err) != 0 || run_findings(db, &d->runs[i], err) != 0 ||
		    run_exchanges(db, r, &d->runs[i], err) != 0)
			return err->code;
		else
			report_details_read(&d->runs[i]);
	return 0;
}

/* ---- incidents ---- */

/* One incident in full (facts, timeline, clocks with their due text, tasks),
 * its clocks computed as of the report's time. */
static int
incident_at(struct db *db, int64_t id, const char *generated, struct incident *out, struct aerr *err)
{
	const char *was = getenv("AIVET_NOW");
	char *saved = was ? xstrdup(was) : NULL;
	int rc;

	setenv("AIVET_NOW", generated, 1);
	rc = incident_get(db, id, out, err);
	if (saved != NULL)
		setenv("AIVET_NOW", saved, 1);
	else
		unsetenv("AIVET_NOW");
	free(saved);
	return rc;
}

static struct report_incident *
incident_add(struct report_doc *d)
{
	d->incidents = grow(d->incidents, d->nincidents, sizeof *d->incidents);
	memset(&d->incidents[d->nincidents], 0, sizeof *d->incidents);
	return &d->incidents[d->nincidents++];
}

/* With --incident, that incident's linked runs join the report and its
 * linked files are copied into evidence/. */
static int
incident_links(struct db *db, struct report *r, struct report_incident *ri, int64_t **linked,
    size_t *nlinked, struct aerr *err)
{
	ri->has_files = 1;
	for (size_t i = 0; i < ri->inc.nlinks; i++) {
		const struct incident_link *l = &ri->inc.links[i];

		if (strcmp(l->object_type, "run") == 0) {
			*linked = grow(*linked, *nlinked, sizeof **linked);
			(*linked)[(*nlinked)++] = l->object_id;
		} else if (strcmp(l->object_type, "evidence") == 0) {
			struct report_evidence e;

			if (file_evidence(db, r, l->object_id, &e, err) == 0) {
				ri->files = grow(ri->files, ri->nfiles, sizeof *ri->files);
				ri->files[ri->nfiles++] = e;
			}
			aerr_clear(err);
		}
	}
	return 0;
}

/* Every incident of the vendor in full; with --incident, that one alone. */
static int
collect_incidents(struct db *db, const struct report_opts *o, int64_t vendor_id, struct report *r,
    int64_t **linked, size_t *nlinked, struct aerr *err)
{
	struct report_doc *d = r->doc;
	int64_t *ids = NULL, owner;
	size_t n = 0;

	*linked = NULL, *nlinked = 0;
	if (o->incident_id == 0) {
		if (db_ids(db_prepare(db, err, "SELECT id FROM incident WHERE vendor_id = ? ORDER BY id",
		    "i", vendor_id), &ids, &n, err) != 0)
			return err->code;
		for (size_t i = 0; i < n; i++)
			if (incident_at(db, ids[i], d->generated_at, &incident_add(d)->inc, err) != 0) {
				free(ids);
				return err->code;
			}
		free(ids);
		return 0;
	}
	if (db_int(db, &owner, err, "SELECT vendor_id FROM incident WHERE id = ?", "i",
	    o->incident_id) != 0 || owner != vendor_id)
		return aerr_set(err, AV_USAGE, "--incident: no incident %lld for vendor '%s'",
		    (long long)o->incident_id, o->vendor);
	if (incident_at(db, o->incident_id, d->generated_at, &incident_add(d)->inc, err) != 0)
		return err->code;
	return incident_links(db, r, &d->incidents[d->nincidents - 1], linked, nlinked, err);
}

/* ---- assessments ---- */

/* A signed approval (approval.c) as the bundle carries it: the statement and
 * its minisign signature as files, and the key registered to the reviewer,
 * which aivet verify checks the signature against. */
static int
approval_add(struct db *db, struct report *r, struct report_assessment *a, struct aerr *err)
{
	struct approval_signature sig;
	struct minisign_pub reg;
	struct report_approval *ap;
	struct buf line;
	int found = 0;

	if (approval_signature_load(db, a->id, &sig, err) != 0)
		return err->code;
	if (sig.statement == NULL || a->reviewer == NULL) {
		approval_signature_free(&sig);
		return 0;
	}
	if (approval_registered_key(db, a->reviewer, &reg, &found, err) != 0) {
		approval_signature_free(&sig);
		return err->code;
	}
	ap = a->approval = xcalloc(1, sizeof *a->approval);
	ap->signer = xstrdup(a->reviewer);
	ap->key_id = xstrdup(sig.key_id);
	ap->statement_file = xasprintf("approvals/assessment-%lld.txt", (long long)a->id);
	ap->signature_file = xasprintf("%s.minisig", ap->statement_file);
	{
		char names[64];

		approval_statement_field(sig.statement, "names", names, sizeof names);
		ap->self_declared = strcmp(names, APPROVAL_NAMES_SELF) == 0;
	}
	add_file(r, xstrdup(ap->statement_file), sig.statement, strlen(sig.statement));
	add_file(r, xstrdup(ap->signature_file), sig.minisig, strlen(sig.minisig));
	if (found) {
		buf_init(&line);
		minisign_pubkey_base64(&reg, &line);
		ap->registered_public_key = buf_steal(&line);
	}
	approval_signature_free(&sig);
	return 0;
}

/* The questionnaire a round answers, as report.json names it. */
static int
assessment_questionnaire(struct db *db, struct report_assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT qid, version, title, sha256 FROM questionnaire "
	    "WHERE id = ?", "i", a->questionnaire_id);

	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW) {
		a->has_questionnaire = 1;
		a->q_qid = col_dup(st, 0);
		a->q_version = db_col_int64(st, 1);
		a->q_title = col_dup(st, 2);
		a->q_sha256 = col_dup(st, 3);
	}
	db_finalize(st);
	return 0;
}

/* The round's answers by question id, each with its attached files. A
 * question its depends_on hides is not asked: its stale answer is neither
 * rated nor shown (as assess show leaves it out). */
static int
assessment_answers(struct db *db, struct report *r, const struct assessment *l,
    struct report_assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT question_id, value, note, actor, updated_at "
	    "FROM answer WHERE assessment_id = ? AND value <> 'null' ORDER BY question_id", "i", a->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		int qi = questionnaire_find(l->q, col_text(st, 0));
		struct report_answer *x;

		if (qi >= 0 && !l->asked[qi])
			continue;
		a->answers = grow(a->answers, a->nanswers, sizeof *a->answers);
		x = &a->answers[a->nanswers++];
		*x = (struct report_answer){ .question_id = col_dup(st, 0), .value = col_json(st, 1),
		    .note = col_dup(st, 2), .actor = col_dup(st, 3), .updated_at = col_dup(st, 4),
		    .question = qi >= 0 && l->q->questions[qi].text ? xstrdup(l->q->questions[qi].text) : NULL };
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "report query");
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];
		int64_t *ids;
		size_t n;

		if (db_ids(db_prepare(db, err, "SELECT evidence_id FROM answer_evidence WHERE assessment_id = ? "
		    "AND question_id = ? ORDER BY evidence_id", "it", a->id, x->question_id), &ids, &n, err) != 0)
			return err->code;
		x->evidence = n ? xcalloc(n, sizeof *x->evidence) : NULL;
		for (size_t k = 0; k < n && err->code == 0; k++)
			if (file_evidence(db, r, ids[k], &x->evidence[x->nevidence], err) == 0)
				x->nevidence++;
		free(ids);
		if (err->code != 0)
			return err->code;
	}
	return 0;
}

/* One round as loaded (assessment_load): its record, questionnaire, signed
 * approval and answers; rated once the claims are judged (rate_assessments). */
static int
assessment_add(struct db *db, struct report *r, const struct assessment *l, struct aerr *err)
{
	struct report_doc *d = r->doc;
	struct report_assessment *a;

	d->assessments = grow(d->assessments, d->nassessments, sizeof *d->assessments);
	a = &d->assessments[d->nassessments++];
	*a = (struct report_assessment){ .id = l->id, .round = l->round, .parent_id = l->parent_id,
	    .status = xstrdup(l->status), .questionnaire_id = l->q->row_id,
	    .created_by = l->created_by ? xstrdup(l->created_by) : NULL,
	    .created_at = l->created_at ? xstrdup(l->created_at) : NULL,
	    .submitted_at = l->submitted_at ? xstrdup(l->submitted_at) : NULL,
	    .approved_at = l->approved_at ? xstrdup(l->approved_at) : NULL,
	    .reviewer = l->reviewer ? xstrdup(l->reviewer) : NULL };
	if (assessment_questionnaire(db, a, err) != 0 || approval_add(db, r, a, err) != 0)
		return err->code;
	return assessment_answers(db, r, l, a, err);
}

/* The rounds the options choose: with --assessment, that round and the rounds
 * before it; else every round of the vendor. Each is loaded into loaded[]. */
static int
collect_assessments(struct db *db, const struct report_opts *o, int64_t vendor_id, struct report *r,
    struct assessment ***loaded, struct aerr *err)
{
	int64_t *ids, owner;
	size_t n;

	*loaded = NULL;
	if (o->assessment_id != 0) {
		if (db_int(db, &owner, err, "SELECT vendor_id FROM assessment WHERE id = ?", "i",
		    o->assessment_id) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--assessment: no assessment %lld for vendor '%s'",
			    (long long)o->assessment_id, o->vendor);
		/* The id typed: PostgreSQL would take a bare parameter as text, and text =
		 * bigint is no operator. */
		if (db_ids(db_prepare(db, err, "WITH RECURSIVE chain(id) AS (SELECT CAST(? AS BIGINT) "
		    "UNION ALL SELECT a.parent_id FROM assessment a JOIN chain ON a.id = chain.id "
		    "WHERE a.parent_id IS NOT NULL) SELECT a.id FROM assessment a WHERE a.id IN "
		    "(SELECT id FROM chain) ORDER BY a.round, a.id", "i", o->assessment_id), &ids, &n, err) != 0)
			return err->code;
	} else if (db_ids(db_prepare(db, err, "SELECT a.id FROM assessment a WHERE a.vendor_id = ? "
	    "ORDER BY a.id", "i", vendor_id), &ids, &n, err) != 0) {
		return err->code;
	}
	*loaded = xcalloc(n + 1, sizeof **loaded);
	for (size_t i = 0; i < n; i++)
		if (assessment_load(db, ids[i], &(*loaded)[i], err) != 0 ||
		    assessment_add(db, r, (*loaded)[i], err) != 0) {
			free(ids);
			return err->code;
		}
	free(ids);
	return 0;
}

static void
loaded_free(struct assessment **loaded)
{
	for (size_t i = 0; loaded != NULL && loaded[i] != NULL; i++)
		assessment_free(loaded[i]);
	free(loaded);
}

/* ---- judging: claims, ratings, open findings ---- */

/* The report's runs and endpoints as claims are judged on them: the runs'
 * results, each with the findings its probe raised and its details as
 * report_details_read read them. The strings are the record's (claim_view_free frees only what
 * the view made). */
static void
claim_view(struct report_doc *d, struct claim_evidence *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->runs.items = xcalloc(d->nruns + 1, sizeof *ev->runs.items);
	ev->runs.n = d->nruns;
	for (size_t i = 0; i < d->nruns; i++) {
		struct report_run *r = &d->runs[i];
		struct probe_run *p = &ev->runs.items[i];

		*p = (struct probe_run){ .id = r->id, .endpoint = r->endpoint, .status = r->status,
		    .depth = claims_plan_depth(r->plan), .nprobes = r->nresults,
		    .probes = xcalloc(r->nresults + 1, sizeof *p->probes) };
		for (size_t k = 0; k < r->nresults; k++) {
			struct probe_result *x = &p->probes[k];

			*x = r->results[k].read;
			x->verdict = r->results[k].verdict;
			x->reason = r->results[k].reason;
			x->findings = xcalloc(r->nfindings + 1, sizeof *x->findings);
			for (size_t f = 0; f < r->nfindings; f++) {
				const struct report_finding *rf = &r->findings[f];

				if (rf->probe != NULL && x->name != NULL && strcmp(rf->probe, x->name) == 0)
					x->findings[x->nfindings++] = (struct finding){ .id = rf->id, .code = rf->code,
					    .severity = rf->severity, .message = rf->message, .evidence = rf->evidence,
					    .nevidence = rf->nevidence };
			}
		}
	}
	ev->endpoints = xcalloc(d->endpoints.n + 1, sizeof *ev->endpoints);
	ev->nendpoints = d->endpoints.n;
	for (size_t i = 0; i < d->endpoints.n; i++) {
		const struct endpoint *e = &d->endpoints.items[i];

		ev->endpoints[i] = (struct claim_endpoint){ .name = e->name,
		    .tenants = e->ncredentials > 1 ? (int)e->ncredentials : 1, .context = e->context_tokens };
	}
}

static void
claim_view_free(struct claim_evidence *ev)
{
	for (size_t i = 0; i < ev->runs.n; i++) {
		for (size_t k = 0; k < ev->runs.items[i].nprobes; k++)
			free(ev->runs.items[i].probes[k].findings);
		free(ev->runs.items[i].probes);
		free(ev->runs.items[i].depth);
	}
	free(ev->runs.items);
	free(ev->endpoints);
}

/* Each answer's risk as the rating counts it (stated_risk as the vendor's
 * answer states it) and its claim status, in assess show's words. */
static void
rate_answers(const struct assessment *l, const struct claim_list *claims, struct report_assessment *a)
{
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];
		int qi = questionnaire_find(l->q, x->question_id);
		const char *st;

		if (qi < 0 || l->answers[qi].value == NULL)
			continue;
		x->rated = 1;
		x->risk = xstrdup(risk_name(assessment_answer_risk(l, qi, claims)));
		x->stated_risk = xstrdup(risk_name(answer_risk(&l->q->questions[qi], l->answers[qi].value)));
		st = assessment_claim_status(claims, x->question_id);
		x->claim = st != NULL ? xstrdup(st) : NULL;
	}
}

/* The round scored on its claims as assess show names them: the report's claims
 * give the endpoint by name, assess show (and so contradicted_by and the
 * since_approval sentence, which vendor show and list repeat) VENDOR/ENDPOINT. */
static void
score_as_assess_show(const struct assessment *l, const struct claim_list *claims,
    struct assessment_score *sc)
{
	struct claim_list refs = { .items = xcalloc(claims->n + 1, sizeof *refs.items), .n = claims->n };

	for (size_t i = 0; i < claims->n; i++) {
		refs.items[i] = claims->items[i];
		if (claims->items[i].endpoint != NULL && l->vendor != NULL)
			refs.items[i].endpoint = xasprintf("%s/%s", l->vendor, claims->items[i].endpoint);
	}
	assessment_score(l, &refs, sc);
	for (size_t i = 0; i < refs.n; i++)
		if (refs.items[i].endpoint != claims->items[i].endpoint)
			free(refs.items[i].endpoint);
	free(refs.items);
}

/* A round rated as assess show rates it (assessment_score), its claims judged
 * on the report's runs, and those claims the report's. A contradicted claim is
 * counted as a claim, never as a finding: the findings are what the probes raised. */
static void
rate_assessment(const struct assessment *l, const struct claim_evidence *ev,
    struct report_assessment *a, struct claim_list *all)
{
	struct claim_list claims;
	struct assessment_score sc;

	assessment_claims_on(l, ev, &claims);
	score_as_assess_show(l, &claims, &sc);
	a->rating = xstrdup(rating_name(sc.rating));
	a->risk_score = sc.risk_score;
	a->worst_risk = xstrdup(risk_name(sc.worst_risk));
	a->unanswered_required = sc.unanswered_required;
	a->contradicted_claims = sc.contradicted;
	a->contradicted_by = sc.finding[0] ? xstrdup(sc.finding) : NULL;
	if ((a->has_approved_score = l->approved.known)) {
		char since[320];

		a->approved_rating = xstrdup(rating_name(l->approved.rating));
		a->approved_risk_score = l->approved.score;
		assessment_since_approval(l, &sc, since, sizeof since);
		a->since_approval = xstrdup(since);
	}
	rate_answers(l, &claims, a);
	all->items = xrealloc(all->items, (all->n + claims.n + 1) * sizeof *all->items);
	for (size_t i = 0; i < claims.n; i++) {
		claims.items[i].assessment_id = a->id;
		all->items[all->n++] = claims.items[i];
	}
	free(claims.items);
}

/* The vendor's verdict on what the report holds: its rounds as the report
 * rated them and its runs, through the one rule (rating.c). */
static void
report_verdict(struct report_doc *d, const struct probe_run_list *runs, struct vendor_verdict *v)
{
	struct rated_round *r = xcalloc(d->nassessments + 1, sizeof *r);

	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *a = &d->assessments[i];
		int rt = rating_parse(a->rating);
		int at = a->has_approved_score ? rating_parse(a->approved_rating) : -1;

		/* What the round was approved at too: the summary's since_approval is
		 * the sentence vendor list and vendor show give. */
		r[i] = (struct rated_round){ .id = a->id, .round = a->round,
		    .qid = a->q_qid ? a->q_qid : "", .status = a->status ? a->status : "",
		    .rating = rt < 0 ? RATING_NOT_ASSESSED : (enum rating)rt, .score = a->risk_score,
		    .contradicted = (int)a->contradicted_claims, .contradicted_by = a->contradicted_by,
		    .approved = { .known = at >= 0, .rating = at < 0 ? RATING_NOT_ASSESSED : (enum rating)at,
		    .score = a->approved_risk_score } };
	}
	vendor_verdict(r, (int)d->nassessments, runs, v);
	for (size_t i = 0; i < d->nassessments; i++)
		d->assessments[i].rating_reads = verdict_reads(r, (int)d->nassessments, (int)i);
	free(r);
}

void
report_claim_round(const struct report_doc *d, const struct claim *c, char *out, size_t n)
{
	snprintf(out, n, "-");
	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *a = &d->assessments[i];

		if (a->id == c->assessment_id)
			snprintf(out, n, "round %lld of assessment %lld (%s%s)", (long long)a->round,
			    (long long)a->id, a->status ? a->status : "?",
			    a->rating_reads ? "; the rating reads it" : "; the rating does not read it");
	}
}

/* Whether the rating reads the round a claim was judged in. */
static int
claim_rated(const struct report_doc *d, const struct claim *c)
{
	for (size_t i = 0; i < d->nassessments; i++)
		if (d->assessments[i].id == c->assessment_id)
			return d->assessments[i].rating_reads;
	return 0;
}

/* Claims and ratings judged once on the report's own runs, and each finding
 * open or superseded as the rating counts it. */
static void
judge(struct report_doc *d, struct assessment **loaded)
{
	struct claim_evidence ev;

	claim_view(d, &ev);
	for (size_t i = 0; i < d->nassessments; i++)
		rate_assessment(loaded[i], &ev, &d->assessments[i], &d->claims);
	for (size_t i = 0; i < d->nruns; i++)
		for (size_t k = 0; k < d->runs[i].nfindings; k++) {
			struct report_finding *f = &d->runs[i].findings[k];

			f->open = claims_finding_open(&ev.runs, i, f->probe, &f->superseded_by_run);
		}
	report_verdict(d, &ev.runs, &d->summary.verdict);
	claim_view_free(&ev);
}

/* ---- the summary and the findings lists ---- */

static void
finding_copy(const struct report_finding *f, struct report_finding *out)
{
	*out = *f;
	out->probe = f->probe ? xstrdup(f->probe) : NULL;
	out->code = f->code ? xstrdup(f->code) : NULL;
	out->severity = f->severity ? xstrdup(f->severity) : NULL;
	out->message = f->message ? xstrdup(f->message) : NULL;
	out->details = f->details ? cJSON_Duplicate(f->details, 1) : NULL;
	out->evidence = f->nevidence ? xmalloc(f->nevidence * sizeof *out->evidence) : NULL;
	if (f->nevidence)
		memcpy(out->evidence, f->evidence, f->nevidence * sizeof *out->evidence);
}

/* Findings, most severe first, then by run and id. */
static int
finding_cmp(const void *a, const void *b)
{
	const struct report_finding *x = a, *y = b;
	int d = severity_rank(y->severity) - severity_rank(x->severity);
	int64_t xi = x->id ? x->id : INT64_MAX, yi = y->id ? y->id : INT64_MAX;

	if (d != 0)
		return d;
	if (xi != yi)
		return xi < yi ? -1 : 1;
	return strcmp(x->message ? x->message : "", y->message ? y->message : "");
}

/* The runs' findings that are open (open 1) or not (open 0), most severe first. */
static struct report_finding *
sorted_findings(const struct report_doc *d, int open, size_t *n)
{
	struct report_finding *v = NULL;

	*n = 0;
	for (size_t i = 0; i < d->nruns; i++)
		for (size_t k = 0; k < d->runs[i].nfindings; k++) {
			if (d->runs[i].findings[k].open != open)
				continue;
			v = grow(v, *n, sizeof *v);
			finding_copy(&d->runs[i].findings[k], &v[(*n)++]);
		}
	if (*n > 0)
		qsort(v, *n, sizeof *v, finding_cmp);   /* keys are unique: the order is total */
	return v;
}

static void
summarise(struct report_doc *d)
{
	struct report_summary *s = &d->summary;

	d->findings = sorted_findings(d, 1, &d->nfindings);
	d->superseded = sorted_findings(d, 0, &d->nsuperseded);
	s->rating_rule = vendor_rating_rule;
	s->assessment_rating_rule = assessment_rating_rule;
	for (int i = 0; i < SEV_COUNT; i++)
		s->findings[i] = s->verdict.open[i];
	s->critical = xcalloc(d->nfindings + 1, sizeof *s->critical);
	for (size_t i = 0; i < d->nfindings; i++)
		if (severity_rank(d->findings[i].severity) >= SEV_HIGH)
			s->critical[s->ncritical++] = i;
	/* A count beside the rating counts what the rating reads: the claims of
	 * the rounds it rests on, never a newer draft's beside them. */
	s->contradicted = xcalloc(d->claims.n + 1, sizeof *s->contradicted);
	for (size_t i = 0; i < d->claims.n; i++) {
		const char *st = d->claims.items[i].status;

		if (!claim_rated(d, &d->claims.items[i])) {
			s->claims_contradicted_unrated += strcmp(st, "contradicted") == 0;
			continue;
		}
		if (strcmp(st, "confirmed") == 0)
			s->claims_confirmed++;
		else if (strcmp(st, "contradicted") == 0)
			s->claims_contradicted++, s->contradicted[s->ncontradicted++] = i;
		else if (strcmp(st, "consistent") == 0)
			s->claims_consistent++;
		else
			s->claims_untested++;
	}
}
static void
add_years(const char *iso, int64_t years, char out[32])
{
	int y = atoi(iso) + (int)years;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	snprintf(out, 32, "%04d%s", y, iso + 4);
	if (!leap && strncmp(iso + 4, "-02-29", 6) == 0)
		memcpy(out + 4, "-02-28", 6);
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct report_file *)a)->path, ((const struct report_file *)b)->path);
}

/* A report vouches for the database: the whole audit verification runs first, and
 * a database that fails it is not reported as sound; with --allow-broken-chain it is
 * reported under a first line saying so (as->failure). */
static int
audit_gate(struct db *db, const struct report_opts *o, struct audit_status *as, char failure[320],
    struct aerr *err)
{
	if (audit_verify(db, as, err) != 0)
		return err->code;
	if (as->bad_seq == 0)
		return 0;
	snprintf(failure, 320, "this database failed its audit: %s", as->problem);
	if (!o->allow_broken)
		return aerr_set(err, AV_FINDINGS, "%s; no report was written (--allow-broken-chain writes "
		    "one that opens with this)", failure);
	return 0;
}

/* report.json's object: a report of a database that failed its audit opens with that. */

static void
drop(char **s)
{
	free(*s);
	*s = NULL;
}

/* The vendor's endpoints, tenants by label only: not even the reference to a
 * secret leaves, the engine's admin credential's included: the record holds none,
 * so report.json writes none. */
static int
collect_endpoints(struct db *db, int64_t vid, struct report_doc *d, struct aerr *err)
{
	if (endpoint_list_load(db, vid, 1, &d->endpoints, err) != 0)
		return err->code;
	for (size_t i = 0; i < d->endpoints.n; i++) {
		struct endpoint *e = &d->endpoints.items[i];

		for (size_t k = 0; k < e->ncredentials; k++)
			drop(&e->credentials[k].ref);
		drop(&e->engine.credential_ref);
	}
	return 0;
}

/* The report's header: when, by whom, kept how long, the options, and the
 * audit log as found. The report id names this report of this database state
 * at this time. */
static void
report_header(const struct report_opts *o, int64_t vid, const struct audit_status *as,
    const char *failure, struct report_doc *d)
{
	char retain[32], uuid[37], *seed, *optstr;
	cJSON *opts;

	d->audit_failure = as->bad_seq != 0 ? xstrdup(failure) : NULL;
	d->format = xstrdup(REPORT_FORMAT);
	d->aivet_version = xstrdup(PACKAGE_VERSION);
	d->organisation_timezone = org_zone() ? xstrdup(org_zone()) : NULL;
	add_years(d->generated_at, o->retain_years, retain);
	d->retention_until = xstrdup(retain);
	d->signer_key_id = o->key_id ? xstrdup(o->key_id) : NULL;
	d->signer_public_key = o->public_key ? xstrdup(o->public_key) : NULL;
	d->opt_assessment = o->assessment_id;
	if ((d->has_opt_runs = o->run_ids != NULL)) {
		d->opt_runs = xcalloc(o->nrun_ids + 1, sizeof *d->opt_runs);
		memcpy(d->opt_runs, o->run_ids, o->nrun_ids * sizeof *d->opt_runs);
		d->nopt_runs = o->nrun_ids;
	}
	d->opt_since = o->since ? xstrdup(o->since) : NULL;
	d->opt_incident = o->incident_id;
	d->opt_retain_years = o->retain_years;
	d->opt_include_leaked = o->include_leaked;
	d->audit_entries = as->entries;
	d->audit_head = xstrdup(as->head);
	d->audit_intact = as->bad_seq == 0;
	opts = report_options_json(d);
	optstr = cJSON_PrintUnformatted(opts);
	seed = xasprintf("aivet-report\n%lld\n%s\n%lld\n%s\n%s\n%s", (long long)vid, optstr,
	    (long long)as->entries, as->head, d->generated_at, o->key_id ? o->key_id : "");
	derived_uuid(seed, "report", uuid);
	d->report_id = xstrdup(uuid);
	free(seed);
	free(optstr);
	cJSON_Delete(opts);
}

/* generated_at: --at, else now. */
static int
report_time(const struct report_opts *o, struct report_doc *d, struct aerr *err)
{
	char t[32];

	if (o->at != NULL) {
		int64_t ms;

		if (parse_time(o->at, &ms, err) != 0)
			return aerr_prefix(err, "--at");
		fmt_time_ms(ms, t);
	} else {
		now_iso(t);
	}
	d->generated_at = xstrdup(t);
	return 0;
}

/* The files the bundle holds beside the renderings, by path, with their hashes. */
static void
list_files(struct report *r)
{
	struct report_doc *d = r->doc;

	if (r->nfiles > 0)
		qsort(r->files, r->nfiles, sizeof *r->files, file_cmp);
	d->files = xcalloc(r->nfiles + 1, sizeof *d->files);
	for (size_t i = 0; i < r->nfiles; i++) {
		d->files[i].path = xstrdup(r->files[i].path);
		sha256_hex(r->files[i].data.data, r->files[i].data.len, d->files[i].sha256);
		d->files[i].size = (int64_t)r->files[i].data.len;
	}
	d->nfiles = r->nfiles;
}

/* The record from the database: the vendor, what the options choose of its
 * incidents, rounds and runs, then everything judged once. */
static int
collect(struct db *db, const struct report_opts *o, int64_t vid, struct report *r,
    struct assessment ***loaded, struct aerr *err)
{
	struct report_doc *d = r->doc;
	struct audit_status as;
	char failure[320];
	int64_t *linked;
	size_t nlinked;
	int rc;

	if (vendor_get(db, vid, &d->vendor, err) != 0 || report_time(o, d, err) != 0 ||
	    audit_gate(db, o, &as, failure, err) != 0)
		return err->code;
	rc = collect_incidents(db, o, vid, r, &linked, &nlinked, err);
	if (rc == 0)
		rc = collect_assessments(db, o, vid, r, loaded, err);
	if (rc == 0)
		rc = collect_runs(db, o, vid, linked, nlinked, r, err);
	free(linked);
	if (rc != 0)
		return rc;
	report_header(o, vid, &as, failure, d);
	return collect_endpoints(db, vid, d, err);
}

int
report_collect(struct db *db, const struct report_opts *o, struct report *r, struct aerr *err)
{
	struct assessment **loaded = NULL;
	int64_t vid;

	memset(r, 0, sizeof *r);
	if (vendor_lookup(db, o->vendor, &vid, err) != 0)
		return err->code;
	r->vendor_id = vid;
	r->include_leaked = o->include_leaked;
	r->doc = xcalloc(1, sizeof *r->doc);
	if (collect(db, o, vid, r, &loaded, err) != 0) {
		loaded_free(loaded);
		report_free(r);
		return err->code;
	}
	judge(r->doc, loaded);
	loaded_free(loaded);
	summarise(r->doc);
	list_files(r);
	r->json = report_doc_to_json(r->doc);
	return 0;
}

void
report_free(struct report *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		buf_free(&r->files[i].data);
	}
	free(r->files);
	cJSON_Delete(r->json);
	if (r->doc != NULL)
		report_doc_free(r->doc);
	free(r->doc);
	memset(r, 0, sizeof *r);
}

char *
report_json_text(const cJSON *report)
{
	char *s = cJSON_Print(report), *t;

	if (s == NULL)
		die("out of memory");
	t = xasprintf("%s\n", s);
	free(s);
	return t;
}
