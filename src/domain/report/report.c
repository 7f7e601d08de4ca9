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

/* One result row as an object keyed by column name; columns named in json_cols
 * hold JSON text and are embedded parsed (as a string when they do not parse). */
static cJSON *
row_json(struct db_stmt *st, const char *const *json_cols)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < db_col_count(st); i++) {
		const char *name = db_col_name(st, i);
		int is_json = 0;

		for (const char *const *j = json_cols; j != NULL && *j != NULL; j++)
			if (strcmp(*j, name) == 0)
				is_json = 1;
		switch (db_col_type(st, i)) {
		case DB_NULL:
			cJSON_AddNullToObject(o, name);
			break;
		case DB_INTEGER:
			cJSON_AddNumberToObject(o, name, (double)db_col_int64(st, i));
			break;
		case DB_FLOAT:
			cJSON_AddNumberToObject(o, name, db_col_double(st, i));
			break;
		default: {
			cJSON *v = is_json ? cJSON_Parse(col_text(st, i)) : NULL;

			cJSON_AddItemToObject(o, name, v ? v : cJSON_CreateString(col_text(st, i)));
		}
		}
	}
	return o;
}

/* Runs a query and returns its rows as an array of objects. */
static int
rows_json(struct db *db, cJSON **out, const char *const *json_cols, struct aerr *err,
    const char *sql, const char *fmt, int64_t a)
{
	struct db_stmt *st = fmt ? db_prepare(db, err, sql, fmt, a) : db_prepare(db, err, sql, NULL);
	cJSON *arr;
	int rc;

	if (st == NULL)
		return err->code;
	arr = cJSON_CreateArray();
	while ((rc = db_step(st)) == DB_ROW)
		cJSON_AddItemToArray(arr, row_json(st, json_cols));
	db_finalize(st);
	if (rc != DB_DONE) {
		cJSON_Delete(arr);
		return db_err(db, err, "report query");
	}
	*out = arr;
	return 0;
}

static int64_t
num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
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
				const char *n = str(e, "name");

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

static const char *const exchange_json_cols[] = { "request_headers", "request_recipe",
	"response_headers", "timings", NULL };

/* evidence/exchange-ID.json for one exchange row; returns its file's SHA-256. */
static int
exchange_file(struct db *db, struct report *r, cJSON *ex, char sha[65], char **path, struct aerr *err)
{
	cJSON *o = cJSON_CreateObject(), *req, *resp, *h;
	char *url, *text;

	cJSON_AddNumberToObject(o, "evidence_id", (double)num(ex, "evidence_id"));
	cJSON_AddNumberToObject(o, "run_id", (double)num(ex, "run_id"));
	json_add_str(o, "probe", str(ex, "probe"));
	cJSON_AddNumberToObject(o, "seq", (double)num(ex, "seq"));
	json_add_str(o, "tenant", str(ex, "tenant"));
	cJSON_AddBoolToObject(o, "streaming", num(ex, "streaming") != 0);
	json_add_str(o, "started_at", str(ex, "started_at"));
	json_add_str(o, "method", str(ex, "method"));
	url = redact_url(str(ex, "url") ? str(ex, "url") : "");
	cJSON_AddStringToObject(o, "url", url);
	free(url);
	req = cJSON_AddObjectToObject(o, "request");
	h = cJSON_Duplicate(cJSON_GetObjectItem(ex, "request_headers"), 1);
	redact_headers(h);
	cJSON_AddItemToObject(req, "headers", h ? h : cJSON_CreateNull());
	json_add_str(req, "sha256", str(ex, "request_sha256"));
	cJSON_AddNumberToObject(req, "size", (double)num(ex, "request_size"));
	cJSON_AddItemToObject(req, "recipe", cJSON_Duplicate(cJSON_GetObjectItem(ex, "request_recipe"), 1));
	add_body(db, req, str(ex, "request_blob"), r->include_leaked, err);
	resp = cJSON_AddObjectToObject(o, "response");
	cJSON_AddItemToObject(resp, "status", cJSON_Duplicate(cJSON_GetObjectItem(ex, "response_status"), 1));
	h = cJSON_Duplicate(cJSON_GetObjectItem(ex, "response_headers"), 1);
	redact_headers(h);
	cJSON_AddItemToObject(resp, "headers", h ? h : cJSON_CreateNull());
	cJSON_AddItemToObject(resp, "sha256", cJSON_Duplicate(cJSON_GetObjectItem(ex, "response_sha256"), 1));
	cJSON_AddItemToObject(resp, "size", cJSON_Duplicate(cJSON_GetObjectItem(ex, "response_size"), 1));
	cJSON_AddBoolToObject(resp, "truncated", num(ex, "response_truncated") != 0);
	add_body(db, resp, str(ex, "response_blob"), r->include_leaked, err);
	cJSON_AddItemToObject(o, "error", cJSON_Duplicate(cJSON_GetObjectItem(ex, "error"), 1));
	cJSON_AddItemToObject(o, "timings", cJSON_Duplicate(cJSON_GetObjectItem(ex, "timings"), 1));
	text = report_json_text(o);
	cJSON_Delete(o);
	{
		char name[EVIDENCE_NAME_MAX];

		evidence_file_name(num(ex, "evidence_id"), "exchange", NULL, name, sizeof name);
		*path = xasprintf("evidence/%s", name);
	}
	sha256_hex(text, strlen(text), sha);
	if (!has_file(r, *path))
		add_file(r, xstrdup(*path), text, strlen(text));
	free(text);
	return 0;
}

/* Copies a stored file (answer attachment, incident evidence) into evidence/. */
static int
file_evidence(struct db *db, struct report *r, int64_t evidence_id, cJSON **out, struct aerr *err)
{
	struct evidence_item e;
	cJSON *o;
	struct buf b;
	int enc = 0, rc = evidence_row_get(db, evidence_id, &e, err);

	if (rc != 0) {
		evidence_item_free(&e);
		return rc == 1 ? aerr_set(err, AV_RUNTIME, "evidence %lld is missing", (long long)evidence_id) : rc;
	}
	o = cJSON_CreateObject();
	evidence_row_to_json(o, &e);
	if (strcmp(e.kind, "file") == 0 && blob_get(db, e.sha256, &b, &enc, err) == 0) {
		if (!enc) {
			char *path = xasprintf("evidence/%s", e.file);

			cJSON_AddStringToObject(o, "file", path);
			if (!has_file(r, path))
				add_file(r, path, b.data, b.len);
			else
				free(path);
		} else {
			cJSON_AddNullToObject(o, "file");
			cJSON_AddStringToObject(o, "file_note", "stored encrypted; left out of the bundle");
		}
		buf_free(&b);
	}
	evidence_item_free(&e);
	aerr_clear(err);
	*out = o;
	return 0;
}

/* ---- questionnaires and claims ---- */

static const cJSON *
find_question(const cJSON *node, const char *qid)
{
	const cJSON *c, *f;

	if (cJSON_IsObject(node) && cJSON_IsString(cJSON_GetObjectItem(node, "id")) &&
	    strcmp(cJSON_GetObjectItem(node, "id")->valuestring, qid) == 0 &&
	    (cJSON_GetObjectItem(node, "text") || cJSON_GetObjectItem(node, "type")))
		return node;
	if (cJSON_IsObject(node) || cJSON_IsArray(node))
		cJSON_ArrayForEach(c, node)
			if ((f = find_question(c, qid)) != NULL)
				return f;
	return NULL;
}

/* The report's endpoints as claims_judge takes them: {endpoint, tenants}. */
static cJSON *
claim_endpoints(const cJSON *eps)
{
	cJSON *endpoints = cJSON_CreateArray();
	const cJSON *ep;

	cJSON_ArrayForEach(ep, eps) {
		cJSON *o = cJSON_CreateObject();
		int n;

		cJSON_AddStringToObject(o, "endpoint", str(ep, "name"));
		n = cJSON_GetArraySize(cJSON_GetObjectItem(ep, "credentials"));
		cJSON_AddNumberToObject(o, "tenants", n > 1 ? n : 1);
		if (cJSON_IsNumber(cJSON_GetObjectItem(ep, "context_tokens")))
			cJSON_AddNumberToObject(o, "context", cJSON_GetObjectItem(ep, "context_tokens")->valuedouble);
		cJSON_AddItemToArray(endpoints, o);
	}
	return endpoints;
}

/* Each answer's risk as the rating counts it (stated_risk as the vendor's
 * answer states it) and its claim status, in assess show's words. */
static void
rate_answers(const struct assessment *a, const cJSON *claims, cJSON *answers)
{
	cJSON *ans;

	cJSON_ArrayForEach(ans, answers) {
		const char *qid = str(ans, "question_id"), *st;
		int qi = qid ? questionnaire_find(a->q, qid) : -1;

		if (qi < 0 || a->answers[qi].value == NULL)
			continue;
		/* Rated again once the claims are judged: each key replaced, or added. */
		cJSON_DeleteItemFromObject(ans, "risk");
		cJSON_DeleteItemFromObject(ans, "stated_risk");
		cJSON_DeleteItemFromObject(ans, "claim");
		cJSON_AddStringToObject(ans, "risk", risk_name(assessment_answer_risk(a, qi, claims)));
		cJSON_AddStringToObject(ans, "stated_risk",
		    risk_name(answer_risk(&a->q->questions[qi], a->answers[qi].value)));
		st = assessment_claim_status(claims, qid);
		json_add_str(ans, "claim", st);
	}
}

/* Each assessment rated as assess show rates it (assessment_score), its claims
 * judged on the report's runs, as the report's claims are. */
static int
rate_assessments(struct db *db, cJSON *assess, const cJSON *runs, const cJSON *eps, struct aerr *err)
{
	cJSON *endpoints = claim_endpoints(eps), *a;

	cJSON_ArrayForEach(a, assess) {
		struct assessment *loaded;
		struct assessment_score sc;
		cJSON *claims;

		if (assessment_load(db, num(a, "id"), &loaded, err) != 0) {
			cJSON_Delete(endpoints);
			return err->code;
		}
		claims = assessment_claims_on(loaded, runs, endpoints);
		assessment_score(loaded, claims, &sc);
		rate_answers(loaded, claims, cJSON_GetObjectItem(a, "answers"));
		cJSON_ReplaceItemInObject(a, "rating", cJSON_CreateString(rating_name(sc.rating)));
		cJSON_ReplaceItemInObject(a, "risk_score", cJSON_CreateNumber(sc.risk_score));
		cJSON_ReplaceItemInObject(a, "worst_risk", cJSON_CreateString(risk_name(sc.worst_risk)));
		cJSON_ReplaceItemInObject(a, "contradicted_claims", cJSON_CreateNumber(sc.contradicted));
		cJSON_ReplaceItemInObject(a, "contradicted_by", sc.finding[0] ?
		    cJSON_CreateString(sc.finding) : cJSON_CreateNull());
		cJSON_DeleteItemFromObject(a, "approved_score");
		cJSON_DeleteItemFromObject(a, "since_approval");
		assessment_approved_json(a, loaded, &sc);
		cJSON_Delete(claims);
		assessment_free(loaded);
	}
	cJSON_Delete(endpoints);
	return 0;
}

/* The assessment's claims, judged as assess show judges them (claims.c), on the
 * report's runs and endpoints. A contradicted claim is counted as a claim, never
 * as a finding: the findings are what the probes raised. */
static void
add_claims(const cJSON *assessment, const cJSON *qdoc, const cJSON *runs, const cJSON *eps,
    cJSON *claims)
{
	struct questionnaire *q = NULL;
	struct aerr e = { 0 };
	char *text = qdoc ? cJSON_PrintUnformatted(qdoc) : NULL;
	cJSON *answers, *endpoints, *judged, *c;
	const cJSON *a;

	if (text == NULL || questionnaire_parse("report", text, strlen(text), &q, &e) != 0) {
		free(text);
		return;
	}
	free(text);
	answers = cJSON_CreateObject();
	cJSON_ArrayForEach(a, cJSON_GetObjectItem(assessment, "answers"))
		if (str(a, "question_id") && cJSON_GetObjectItem(a, "value") &&
		    !cJSON_IsNull(cJSON_GetObjectItem(a, "value")))
			cJSON_AddItemToObject(answers, str(a, "question_id"),
			    cJSON_Duplicate(cJSON_GetObjectItem(a, "value"), 1));
	endpoints = claim_endpoints(eps);
	judged = claims_judge(q, answers, runs, endpoints);
	while ((c = cJSON_DetachItemFromArray(judged, 0)) != NULL) {
		cJSON_AddNumberToObject(c, "assessment_id", (double)num(assessment, "id"));
		cJSON_AddItemToArray(claims, c);
	}
	cJSON_Delete(judged);
	cJSON_Delete(answers);
	cJSON_Delete(endpoints);
	questionnaire_free(q);
}

/* A signed approval (approval.c) as the bundle carries it: the statement and
 * its minisign signature as files, and the key registered to the reviewer,
 * which aivet verify checks the signature against. */
static int
approval_add(struct db *db, struct report *r, cJSON *a, struct aerr *err)
{
	struct minisign_pub reg;
	struct buf line;
	const char *st, *sg, *who = str(a, "reviewer");
	char *sp, *gp;
	cJSON *sig, *o;
	int found = 0;

	if (approval_signature_load(db, (int64_t)num(a, "id"), &sig, err) != 0)
		return err->code;
	st = str(sig, "statement"), sg = str(sig, "minisig");
	if (sig == NULL || st == NULL || sg == NULL || who == NULL) {
		cJSON_Delete(sig);
		return 0;
	}
	if (approval_registered_key(db, who, &reg, &found, err) != 0) {
		cJSON_Delete(sig);
		return err->code;
	}
	o = cJSON_AddObjectToObject(a, "approval_signature");
	cJSON_AddStringToObject(o, "signer", who);
	cJSON_AddStringToObject(o, "key_id", str(sig, "key_id") ? str(sig, "key_id") : "");
	sp = xasprintf("approvals/assessment-%lld.txt", (long long)num(a, "id"));
	gp = xasprintf("%s.minisig", sp);
	cJSON_AddStringToObject(o, "statement_file", sp);
	cJSON_AddStringToObject(o, "signature_file", gp);
	add_file(r, sp, st, strlen(st));
	add_file(r, gp, sg, strlen(sg));
	buf_init(&line);
	if (found) {
		minisign_pubkey_base64(&reg, &line);
		cJSON_AddStringToObject(o, "registered_public_key", line.data);
	} else
		cJSON_AddNullToObject(o, "registered_public_key");
	buf_free(&line);
	cJSON_Delete(sig);
	return 0;
}

/* ---- the collector ---- */

static int
collect_assessments(struct db *db, const struct report_opts *o, int64_t vendor_id, struct report *r,
    cJSON **out, cJSON **qdocs, struct aerr *err)
{
	static const char *const jcols[] = { "value", NULL };
	cJSON *list, *a;

	if (o->assessment_id != 0) {
		int64_t owner;

		if (db_int(db, &owner, err, "SELECT vendor_id FROM assessment WHERE id = ?", "i",
		    o->assessment_id) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--assessment: no assessment %lld for vendor '%s'",
			    (long long)o->assessment_id, o->vendor);
		/* The chosen round and the rounds before it (the id typed: PostgreSQL
		 * would take a bare parameter as text, and text = bigint is no operator). */
		if (rows_json(db, &list, NULL, err, "WITH RECURSIVE chain(id) AS (SELECT CAST(? AS BIGINT) "
		    "UNION ALL SELECT a.parent_id FROM assessment a JOIN chain ON a.id = chain.id "
		    "WHERE a.parent_id IS NOT NULL) SELECT a.id, a.round, a.parent_id, a.status, "
		    "a.questionnaire_id, a.created_by, a.created_at, a.submitted_at, a.approved_at, "
		    "a.reviewer FROM assessment a WHERE a.id IN (SELECT id FROM chain) ORDER BY a.round, a.id",
		    "i", o->assessment_id) != 0)
			return err->code;
	} else if (rows_json(db, &list, NULL, err, "SELECT a.id, a.round, a.parent_id, a.status, "
	    "a.questionnaire_id, a.created_by, a.created_at, a.submitted_at, a.approved_at, a.reviewer "
	    "FROM assessment a WHERE a.vendor_id = ? ORDER BY a.id", "i", vendor_id) != 0) {
		return err->code;
	}
	*qdocs = cJSON_CreateObject();
	cJSON_ArrayForEach(a, list) {
		cJSON *qs, *answers, *ans;
		struct db_stmt *st = db_prepare(db, err, "SELECT id, qid, version, title, sha256, source "
		    "FROM questionnaire WHERE id = ?", "i", num(a, "questionnaire_id"));
		char key[32];

		if (st == NULL)
			goto fail;
		qs = cJSON_CreateObject();
		if (db_step(st) == DB_ROW) {
			cJSON_AddStringToObject(qs, "qid", col_text(st, 1));
			cJSON_AddNumberToObject(qs, "version", (double)db_col_int64(st, 2));
			cJSON_AddStringToObject(qs, "title", col_text(st, 3));
			cJSON_AddStringToObject(qs, "sha256", col_text(st, 4));
			snprintf(key, sizeof key, "%lld", (long long)db_col_int64(st, 0));
			if (cJSON_GetObjectItem(*qdocs, key) == NULL) {
				cJSON *doc = cJSON_Parse(col_text(st, 5));

				cJSON_AddItemToObject(*qdocs, key, doc ? doc : cJSON_CreateObject());
			}
		}
		db_finalize(st);
		cJSON_AddItemToObject(a, "questionnaire", qs);
		if (approval_add(db, r, a, err) != 0)
			goto fail;
		{
			/* Rated as assess show rates it: the same rule, the same words. */
			struct assessment *loaded;
			struct assessment_score sc;

			if (assessment_load(db, num(a, "id"), &loaded, err) != 0)
				goto fail;
			/* Claims come once the runs are read (rate_assessments); a place is kept. */
			assessment_score(loaded, NULL, &sc);
			cJSON_AddStringToObject(a, "rating", rating_name(sc.rating));
			cJSON_AddNumberToObject(a, "risk_score", sc.risk_score);
			cJSON_AddStringToObject(a, "worst_risk", risk_name(sc.worst_risk));
			cJSON_AddNumberToObject(a, "unanswered_required", sc.unanswered_required);
			cJSON_AddNumberToObject(a, "contradicted_claims", sc.contradicted);
			cJSON_AddNullToObject(a, "contradicted_by");
			if (rows_json(db, &answers, jcols, err, "SELECT question_id, value, note, actor, "
			    "updated_at FROM answer WHERE assessment_id = ? AND value <> 'null' ORDER BY "
			    "question_id", "i", num(a, "id")) != 0) {
				assessment_free(loaded);
				goto fail;
			}
			/* A question its depends_on hides is not asked: its stale answer is
			 * neither rated nor shown (as assess show leaves it out). */
			for (cJSON *n = answers->child, *next; n != NULL; n = next) {
				int qi = str(n, "question_id") ? questionnaire_find(loaded->q,
				    str(n, "question_id")) : -1;

				next = n->next;
				if (qi >= 0 && !loaded->asked[qi])
					cJSON_Delete(cJSON_DetachItemViaPointer(answers, n));
			}
			assessment_free(loaded);
		}
		cJSON_AddItemToObject(a, "answers", answers);
		cJSON_ArrayForEach(ans, answers) {
			cJSON *ev = cJSON_AddArrayToObject(ans, "evidence");
			const cJSON *q = NULL;
			char k2[32];
			struct db_stmt *es;

			snprintf(k2, sizeof k2, "%lld", (long long)num(a, "questionnaire_id"));
			q = find_question(cJSON_GetObjectItem(*qdocs, k2), str(ans, "question_id"));
			json_add_str(ans, "question", q ? str(q, "text") : NULL);
			es = db_prepare(db, err, "SELECT evidence_id FROM answer_evidence WHERE assessment_id = ? "
			    "AND question_id = ? ORDER BY evidence_id", "it", num(a, "id"), str(ans, "question_id"));
			if (es == NULL)
				goto fail;
			while (db_step(es) == DB_ROW) {
				cJSON *e;

				if (file_evidence(db, r, db_col_int64(es, 0), &e, err) != 0) {
					db_finalize(es);
					goto fail;
				}
				cJSON_AddItemToArray(ev, e);
			}
			db_finalize(es);
		}
	}
	*out = list;
	return 0;
fail:
	cJSON_Delete(list);
	cJSON_Delete(*qdocs);
	*qdocs = NULL;
	return err->code;
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
collect_runs(struct db *db, const struct report_opts *o, int64_t vendor_id, const cJSON *linked_runs,
    struct report *r, cJSON **out, struct aerr *err)
{
	static const char *const run_cols[] = { "probes", "options", "plan", "calibration", NULL };
	static const char *const res_cols[] = { "details", NULL };
	cJSON *all, *runs = cJSON_CreateArray(), *run, *next;
	char since[32] = "";

	if (o->since != NULL) {
		int64_t ms;

		if (parse_time(o->since, &ms, err) != 0)
			return aerr_prefix(err, "--since");
		fmt_time_ms(ms, since);
	}
	for (size_t i = 0; i < o->nrun_ids; i++) {
		int64_t owner;

		if (db_int(db, &owner, err, "SELECT e.vendor_id FROM probe_run r JOIN endpoint e ON "
		    "e.id = r.endpoint_id WHERE r.id = ?", "i", o->run_ids[i]) != 0 || owner != vendor_id) {
			cJSON_Delete(runs);
			return aerr_set(err, AV_USAGE, "--runs: no probe run %lld for vendor '%s'",
			    (long long)o->run_ids[i], o->vendor);
		}
	}
	if (rows_json(db, &all, run_cols, err, "SELECT r.id, r.endpoint_id, e.name AS endpoint, r.status, "
	    "r.probes, r.options, r.plan, r.calibration, r.tokens_in, r.tokens_out, r.actor, "
	    "r.started_at, r.finished_at FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "WHERE e.vendor_id = ? ORDER BY r.started_at, r.id", "i", vendor_id) != 0) {
		cJSON_Delete(runs);
		return err->code;
	}
	for (run = all->child; run != NULL; run = next) {
		int keep, linked = 0;
		const cJSON *l;

		next = run->next;
		cJSON_ArrayForEach(l, linked_runs)
			if ((int64_t)l->valuedouble == num(run, "id"))
				linked = 1;
		if (o->run_ids != NULL)
			keep = run_included(o, num(run, "id"));
		else if (o->since != NULL)
			keep = strcmp(str(run, "started_at"), since) >= 0;
		else
			keep = 1;
		if (keep || linked)
			cJSON_AddItemToArray(runs, cJSON_DetachItemViaPointer(all, run));
	}
	cJSON_Delete(all);
	cJSON_ArrayForEach(run, runs) {
		cJSON *results, *findings, *exchanges, *f, *ex, *cited;
		int64_t id = num(run, "id");

		if (rows_json(db, &results, res_cols, err, "SELECT probe, verdict, reason, requests, details "
		    "FROM probe_result WHERE run_id = ? ORDER BY id", "i", id) != 0)
			goto fail;
		cJSON_AddItemToObject(run, "results", results);
		if (rows_json(db, &findings, res_cols, err, "SELECT id, run_id, probe, code, severity, "
		    "message, details FROM finding WHERE run_id = ? ORDER BY id", "i", id) != 0)
			goto fail;
		cJSON_AddItemToObject(run, "findings", findings);
		cJSON_ArrayForEach(f, findings) {
			cJSON *evs;

			if (rows_json(db, &evs, NULL, err, "SELECT evidence_id FROM finding_evidence "
			    "WHERE finding_id = ? ORDER BY evidence_id", "i", num(f, "id")) != 0)
				goto fail;
			cited = cJSON_AddArrayToObject(f, "evidence");
			{
				cJSON *e;

				cJSON_ArrayForEach(e, evs)
					cJSON_AddItemToArray(cited, cJSON_CreateNumber((double)num(e, "evidence_id")));
			}
			cJSON_Delete(evs);
		}
		if (rows_json(db, &exchanges, exchange_json_cols, err, "SELECT * FROM exchange "
		    "WHERE run_id = ? ORDER BY seq, id", "i", id) != 0)
			goto fail;
		cited = cJSON_AddArrayToObject(run, "exchanges");
		cJSON_ArrayForEach(ex, exchanges) {
			cJSON *c = cJSON_CreateObject();
			char sha[65], *path;

			if (exchange_file(db, r, ex, sha, &path, err) != 0) {
				cJSON_Delete(c);
				cJSON_Delete(exchanges);
				goto fail;
			}
			cJSON_AddNumberToObject(c, "evidence_id", (double)num(ex, "evidence_id"));
			json_add_str(c, "probe", str(ex, "probe"));
			cJSON_AddNumberToObject(c, "seq", (double)num(ex, "seq"));
			json_add_str(c, "tenant", str(ex, "tenant"));
			cJSON_AddItemToObject(c, "status", cJSON_Duplicate(cJSON_GetObjectItem(ex, "response_status"), 1));
			json_add_str(c, "request_sha256", str(ex, "request_sha256"));
			json_add_str(c, "response_sha256", str(ex, "response_sha256"));
			cJSON_AddStringToObject(c, "file", path);
			cJSON_AddStringToObject(c, "file_sha256", sha);
			cJSON_AddItemToArray(cited, c);
			free(path);
		}
		cJSON_Delete(exchanges);
	}
	*out = runs;
	return 0;
fail:
	cJSON_Delete(runs);
	return err->code;
}

/* One incident in full (facts, timeline, clocks with their due text, tasks),
 * its clocks computed as of the report's time. */
static int
incident_detail_at(struct db *db, int64_t id, const char *generated, cJSON **detail,
    struct aerr *err)
{
	const char *was = getenv("AIVET_NOW");
	char *saved = was ? xstrdup(was) : NULL;
	int rc;

	setenv("AIVET_NOW", generated, 1);
	rc = incident_report_json(db, id, detail, err);
	if (saved != NULL)
		setenv("AIVET_NOW", saved, 1);
	else
		unsetenv("AIVET_NOW");
	free(saved);
	return rc;
}

/* Every incident of the vendor in full; with --incident, that one alone, its
 * linked runs joining the report and its linked files copied into evidence/. */
static int
collect_incidents(struct db *db, const struct report_opts *o, int64_t vendor_id, const char *generated,
    struct report *r, cJSON **out, cJSON **linked_runs, struct aerr *err)
{
	cJSON *list, *detail, *links, *l;

	*linked_runs = cJSON_CreateArray();
	if (o->incident_id == 0) {
		int64_t *ids;
		size_t n;

		if (db_ids(db_prepare(db, err, "SELECT id FROM incident WHERE vendor_id = ? ORDER BY id",
		    "i", vendor_id), &ids, &n, err) != 0)
			return err->code;
		list = cJSON_CreateArray();
		for (size_t i = 0; i < n; i++) {
			if (incident_detail_at(db, ids[i], generated, &detail, err) != 0) {
				free(ids);
				cJSON_Delete(list);
				return err->code;
			}
			cJSON_AddItemToArray(list, detail);
		}
		free(ids);
		*out = list;
		return 0;
	}
	{
		int64_t owner;

		if (db_int(db, &owner, err, "SELECT vendor_id FROM incident WHERE id = ?", "i",
		    o->incident_id) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--incident: no incident %lld for vendor '%s'",
			    (long long)o->incident_id, o->vendor);
	}
	if (incident_detail_at(db, o->incident_id, generated, &detail, err) != 0)
		return err->code;
	/* Linked runs join the report; linked files are copied into evidence/. */
	if (rows_json(db, &links, NULL, err, "SELECT object_type, object_id FROM incident_link "
	    "WHERE incident_id = ? ORDER BY object_type, object_id", "i", o->incident_id) != 0) {
		cJSON_Delete(detail);
		return err->code;
	}
	{
		cJSON *files = cJSON_CreateArray();

		cJSON_ArrayForEach(l, links) {
			const char *t = str(l, "object_type");

			if (strcmp(t, "run") == 0) {
				cJSON_AddItemToArray(*linked_runs, cJSON_CreateNumber((double)num(l, "object_id")));
			} else if (strcmp(t, "evidence") == 0) {
				cJSON *e;

				if (file_evidence(db, r, num(l, "object_id"), &e, err) == 0)
					cJSON_AddItemToArray(files, e);
				aerr_clear(err);
			}
		}
		cJSON_AddItemToObject(detail, "evidence_files", files);
	}
	cJSON_Delete(links);
	list = cJSON_CreateArray();
	cJSON_AddItemToArray(list, detail);
	*out = list;
	return 0;
}

/* The vendor's verdict on what the report holds: its rounds as the report
 * rated them and its runs, through the one rule (rating.c). */
static void
report_verdict(const cJSON *assessments, const cJSON *runs, struct vendor_verdict *v)
{
	int n = cJSON_GetArraySize(assessments), i = 0;
	struct rated_round *r = xcalloc((size_t)n + 1, sizeof *r);
	const cJSON *a;

	cJSON_ArrayForEach(a, assessments) {
		int rt = rating_parse(str(a, "rating"));

		r[i++] = (struct rated_round){ .id = num(a, "id"), .round = num(a, "round"),
		    .qid = str(cJSON_GetObjectItem(a, "questionnaire"), "qid") ?
		    str(cJSON_GetObjectItem(a, "questionnaire"), "qid") : "",
		    .status = str(a, "status") ? str(a, "status") : "",
		    .rating = rt < 0 ? RATING_NOT_ASSESSED : (enum rating)rt,
		    .score = cJSON_GetNumberValue(cJSON_GetObjectItem(a, "risk_score")),
		    .contradicted = (int)num(a, "contradicted_claims"),
		    .contradicted_by = str(a, "contradicted_by") };
	}
	vendor_verdict(r, n, runs, v);
	free(r);
}

static void
add_summary(cJSON *rep, const cJSON *findings, const cJSON *claims, const cJSON *assessments,
    const cJSON *runs)
{
	cJSON *s = cJSON_CreateObject(), *counts, *top, *contra, *cs;
	const cJSON *f, *c;
	int nc[4] = { 0 };
	struct vendor_verdict v;

	cJSON_ArrayForEach(c, claims) {
		const char *st = str(c, "status");

		nc[strcmp(st, "confirmed") == 0 ? 0 : strcmp(st, "contradicted") == 0 ? 1 :
		    strcmp(st, "consistent") == 0 ? 3 : 2]++;
	}
	report_verdict(assessments, runs, &v);
	vendor_verdict_add_json(s, &v);
	cJSON_AddStringToObject(s, "rating_rule", vendor_rating_rule);
	cJSON_AddStringToObject(s, "assessment_rating_rule", assessment_rating_rule);
	counts = cJSON_AddObjectToObject(s, "findings");
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		cJSON_AddNumberToObject(counts, severity_name((enum severity)i), v.open[i]);
	cs = cJSON_AddObjectToObject(s, "claims");
	cJSON_AddNumberToObject(cs, "confirmed", nc[0]);
	cJSON_AddNumberToObject(cs, "contradicted", nc[1]);
	cJSON_AddNumberToObject(cs, "untested", nc[2]);
	cJSON_AddNumberToObject(cs, "consistent", nc[3]);
	top = cJSON_AddArrayToObject(s, "critical_findings");
	cJSON_ArrayForEach(f, findings)
		if (severity_rank(str(f, "severity")) >= SEV_HIGH)
			cJSON_AddItemToArray(top, cJSON_Duplicate(f, 1));
	contra = cJSON_AddArrayToObject(s, "contradicted_claims");
	cJSON_ArrayForEach(c, claims)
		if (strcmp(str(c, "status"), "contradicted") == 0)
			cJSON_AddItemToArray(contra, cJSON_Duplicate(c, 1));
	cJSON_AddItemToObject(rep, "summary", s);
}

/* Findings, most severe first, then by run and id (claims' findings after). */
static int
finding_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int d = severity_rank(str(y, "severity")) - severity_rank(str(x, "severity"));
	int64_t xi = num(x, "id") ? num(x, "id") : INT64_MAX, yi = num(y, "id") ? num(y, "id") : INT64_MAX;

	if (d != 0)
		return d;
	if (xi != yi)
		return xi < yi ? -1 : 1;
	return strcmp(str(x, "message") ? str(x, "message") : "", str(y, "message") ? str(y, "message") : "");
}

/* The runs' findings that are open (open 1) or not (open 0), most severe first. */
static cJSON *
sorted_findings(const cJSON *runs, int open)
{
	const cJSON *run, *f;
	cJSON **v = NULL, *out = cJSON_CreateArray();
	size_t n = 0;

	cJSON_ArrayForEach(run, runs)
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			if (cJSON_IsTrue(cJSON_GetObjectItem(f, "open")) != open)
				continue;
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = (cJSON *)f;
		}
	if (n > 0)
		qsort(v, n, sizeof *v, finding_cmp);   /* keys are unique: the order is total */
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(out, cJSON_Duplicate(v[i], 1));
	free(v);
	return out;
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
static cJSON *
report_object(const char *failure)
{
	cJSON *rep = cJSON_CreateObject();

	if (failure != NULL)
		cJSON_AddStringToObject(rep, "audit_failure", failure);
	cJSON_AddStringToObject(rep, "format", REPORT_FORMAT);
	return rep;
}

/* The vendor's endpoints, tenants by label only: not even the reference to a secret leaves. */
static int
add_endpoints(struct db *db, int64_t vid, cJSON *eps, struct aerr *err)
{
	struct endpoint_list l;
	cJSON *e, *c;

	if (endpoint_list_load(db, vid, 1, &l, err) != 0)
		return err->code;
	for (size_t i = 0; i < l.n; i++) {
		e = endpoint_to_json(&l.items[i]);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(e, "credentials"))
			cJSON_DeleteItemFromObject(c, "ref");
		cJSON_AddItemToArray(eps, e);
	}
	endpoint_list_free(&l);
	return 0;
}

int
report_collect(struct db *db, const struct report_opts *o, struct report *r, struct aerr *err)
{
	cJSON *rep = NULL, *vendor = NULL, *eps, *assess = NULL, *qdocs = NULL, *runs = NULL;
	cJSON *incidents = NULL, *linked = NULL, *claims, *a, *opts, *cp;
	struct audit_status as;
	char failure[320];
	char generated[32], retain[32], seed_uuid[37];
	int64_t vid;
	char *seed, *optstr;

	memset(r, 0, sizeof *r);
	{
		struct vendor v;

		if (vendor_lookup(db, o->vendor, &vid, err) != 0 || vendor_get(db, vid, &v, err) != 0)
			return err->code;
		vendor = vendor_to_json(&v);
		vendor_free(&v);
	}
	r->vendor_id = vid;
	r->include_leaked = o->include_leaked;
	if (o->at != NULL) {
		int64_t ms;

		if (parse_time(o->at, &ms, err) != 0) {
			cJSON_Delete(vendor);
			return aerr_prefix(err, "--at");
		}
		fmt_time_ms(ms, generated);
	} else {
		now_iso(generated);
	}
	add_years(generated, o->retain_years, retain);
	if (audit_gate(db, o, &as, failure, err) != 0) {
		cJSON_Delete(vendor);
		return err->code;
	}
	if (collect_incidents(db, o, vid, generated, r, &incidents, &linked, err) != 0 ||
	    collect_assessments(db, o, vid, r, &assess, &qdocs, err) != 0 ||
	    collect_runs(db, o, vid, linked, r, &runs, err) != 0)
		goto fail;

	opts = cJSON_CreateObject();
	if (o->assessment_id)
		cJSON_AddNumberToObject(opts, "assessment", (double)o->assessment_id);
	else
		cJSON_AddNullToObject(opts, "assessment");
	if (o->run_ids != NULL) {
		cJSON *ra = cJSON_AddArrayToObject(opts, "runs");

		for (size_t i = 0; i < o->nrun_ids; i++)
			cJSON_AddItemToArray(ra, cJSON_CreateNumber((double)o->run_ids[i]));
	} else {
		cJSON_AddNullToObject(opts, "runs");
	}
	json_add_str(opts, "since", o->since);
	if (o->incident_id)
		cJSON_AddNumberToObject(opts, "incident", (double)o->incident_id);
	else
		cJSON_AddNullToObject(opts, "incident");
	cJSON_AddNumberToObject(opts, "retain_years", (double)o->retain_years);
	cJSON_AddBoolToObject(opts, "include_leaked_content", o->include_leaked);

	/* The report id names this report of this database state at this time. */
	optstr = cJSON_PrintUnformatted(opts);
	seed = xasprintf("aivet-report\n%lld\n%s\n%lld\n%s\n%s\n%s", (long long)vid, optstr,
	    (long long)as.entries, as.head, generated, o->key_id ? o->key_id : "");
	derived_uuid(seed, "report", seed_uuid);
	free(seed);
	free(optstr);

	rep = report_object(as.bad_seq != 0 ? failure : NULL);
	cJSON_AddStringToObject(rep, "report_id", seed_uuid);
	cJSON_AddStringToObject(rep, "aivet_version", PACKAGE_VERSION);
	cJSON_AddStringToObject(rep, "generated_at", generated);
	/* The zone every end-of-day deadline below ends in; null: none set, UTC assumed. */
	json_add_str(rep, "organisation_timezone", org_zone());
	cJSON_AddStringToObject(rep, "retention_until", retain);
	json_add_str(rep, "signer_key_id", o->key_id);
	json_add_str(rep, "signer_public_key", o->public_key);
	cJSON_AddItemToObject(rep, "options", opts);
	cp = cJSON_AddObjectToObject(rep, "audit_checkpoint");
	cJSON_AddNumberToObject(cp, "entries", (double)as.entries);
	cJSON_AddStringToObject(cp, "head", as.head);
	cJSON_AddBoolToObject(cp, "intact", as.bad_seq == 0);
	cJSON_AddItemToObject(rep, "vendor", vendor);
	vendor = NULL;
	eps = cJSON_AddArrayToObject(rep, "endpoints");
	if (add_endpoints(db, vid, eps, err) != 0 || rate_assessments(db, assess, runs, eps, err) != 0)
		goto fail;
	claims = cJSON_CreateArray();
	claims_mark_open(runs);
	cJSON_ArrayForEach(a, assess) {
		char key[32];

		snprintf(key, sizeof key, "%lld", (long long)num(a, "questionnaire_id"));
		add_claims(a, cJSON_GetObjectItem(qdocs, key), runs, eps, claims);
	}
	cJSON_AddItemToObject(rep, "assessments", assess);
	assess = NULL;
	{
		cJSON *all = sorted_findings(runs, 1);

		add_summary(rep, all, claims, cJSON_GetObjectItem(rep, "assessments"), runs);
		cJSON_AddItemToObject(rep, "superseded_findings", sorted_findings(runs, 0));
		cJSON_AddItemToObject(rep, "probe_runs", runs);
		runs = NULL;
		cJSON_AddItemToObject(rep, "claims", claims);
		cJSON_AddItemToObject(rep, "findings", all);
	}
	cJSON_AddItemToObject(rep, "incidents", incidents);
	incidents = NULL;
	{
		cJSON *files = cJSON_AddArrayToObject(rep, "evidence_files");

		if (r->nfiles > 0)
			qsort(r->files, r->nfiles, sizeof *r->files, file_cmp);
		for (size_t i = 0; i < r->nfiles; i++) {
			cJSON *f = cJSON_CreateObject();
			char sha[65];

			sha256_hex(r->files[i].data.data, r->files[i].data.len, sha);
			cJSON_AddStringToObject(f, "path", r->files[i].path);
			cJSON_AddStringToObject(f, "sha256", sha);
			cJSON_AddNumberToObject(f, "size", (double)r->files[i].data.len);
			cJSON_AddItemToArray(files, f);
		}
	}
	cJSON_Delete(qdocs);
	cJSON_Delete(linked);
	r->json = rep;
	r->doc = xcalloc(1, sizeof *r->doc);
	report_doc_from_json(rep, r->doc);
	return 0;
fail:
	cJSON_Delete(rep);
	cJSON_Delete(vendor);
	cJSON_Delete(assess);
	cJSON_Delete(qdocs);
	cJSON_Delete(runs);
	cJSON_Delete(incidents);
	cJSON_Delete(linked);
	report_free(r);
	return err->code;
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
