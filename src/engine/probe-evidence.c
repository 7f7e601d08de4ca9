/*
 * probe-evidence.c: every exchange a probe sends recorded as evidence, in its
 * own transaction with its audit entry: request bodies built and kept (large
 * prompts by recipe and SHA-256), credential headers redacted. Part of the
 * probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sodium.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

/* ---- evidence ---- */

/* The endpoint's options, with the body choices the adapter made resolved
 * (output-limit field, stream usage), so the recipe rebuilds the same bytes
 * whatever the adapters' defaults become. */
static cJSON *
recipe_options(const struct probe_env *env)
{
	cJSON *o = env->ep.options ? cJSON_Duplicate(env->ep.options, 1) : cJSON_CreateObject();

	if (env->prov->limit_field != NULL && !cJSON_HasObjectItem(o, "max-tokens-field"))
		cJSON_AddStringToObject(o, "max-tokens-field", env->prov->limit_field(&env->ep));
	if (env->prov->stream_usage != NULL && !cJSON_HasObjectItem(o, "stream-usage"))
		cJSON_AddStringToObject(o, "stream-usage", env->prov->stream_usage(&env->ep));
	if (cJSON_GetArraySize(o) == 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *
request_recipe(const struct probe_env *env, const struct px_req *r)
{
	cJSON *j = cJSON_CreateObject(), *o;

	cJSON_AddStringToObject(j, "kind", r->kind == PX_CHAT ? "chat" : r->kind == PX_MALFORMED ?
	    "malformed" : r->kind == PX_MISSING_FIELD ? "missing_field" : "count");
	cJSON_AddStringToObject(j, "api", env->ep.api);
	cJSON_AddStringToObject(j, "endpoint_url", env->ep.url);
	cJSON_AddStringToObject(j, "model", r->model ? r->model : env->ep.model);
	cJSON_AddNumberToObject(j, "max_tokens", r->max_tokens);
	cJSON_AddBoolToObject(j, "stream", r->stream);
	if ((o = recipe_options(env)) != NULL)
		cJSON_AddItemToObject(j, "options", o);
	cJSON_AddItemToObject(j, "prompt", prompt_recipe_json(r->kind == PX_COUNT ? r->count_of :
	    &r->recipe));
	return j;
}

/* Builds the request body (no authentication) of r into req. The adapter is
 * given a random marker for the prompt; the prompt itself is generated from
 * its recipe into that place, and streamed when the body is large. */
int
build_body(const struct endpoint *ep, const struct provider *prov, const struct px_req *r,
    struct http_req *req, struct aerr *err)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	const struct prompt_recipe *recipe = r->kind == PX_COUNT ? r->count_of : &r->recipe;
	unsigned char rnd[NONCE_LEN];
	char marker[NONCE_LEN + 1];
	int rc;

	/* A place holder only (never sent): one draw, not one a character. */
	randombytes_buf(rnd, sizeof rnd);
	memcpy(marker, NONCE_PREFIX, NONCE_PREFIX_LEN);
	for (size_t i = NONCE_PREFIX_LEN; i < NONCE_LEN; i++)
		marker[i] = alnum[rnd[i] % (sizeof alnum - 1)];
	marker[NONCE_LEN] = '\0';
	if (r->kind == PX_COUNT) {
		rc = prov->build_count(ep, marker, strlen(marker), req, err);
	} else {
		struct prov_chat c = {
			.model = r->model ? r->model : ep->model, .prompt = marker,
			.prompt_len = strlen(marker), .max_tokens = r->max_tokens, .stream = r->stream,
			.omit_required = r->kind == PX_MISSING_FIELD,
		};

		rc = prov->build_chat(ep, &c, req, err);
	}
	/* Half a JSON object is never JSON: its braces cannot balance. */
	return rc != 0 ? rc : prov_body_from_recipe(req, marker, recipe, r->kind == PX_MALFORMED,
	    STORE_BODY_MAX, err);
}

int
probe_rebuild_request(const char *recipe_json, struct buf *body, struct aerr *err)
{
	cJSON *j = cJSON_Parse(recipe_json), *v;
	struct endpoint ep = { 0 };
	struct http_req req = { 0 };
	struct px_req r;
	struct prompt_recipe count;
	const char *kind;
	int rc = 0;

	memset(&r, 0, sizeof r);
	buf_init(body);
	if (j == NULL)
		return aerr_set(err, AV_USAGE, "recipe: not JSON");
	kind = cJSON_GetStringValue(cJSON_GetObjectItem(j, "kind"));
	ep.api = cJSON_GetStringValue(cJSON_GetObjectItem(j, "api"));
	ep.url = cJSON_GetStringValue(cJSON_GetObjectItem(j, "endpoint_url"));
	ep.model = cJSON_GetStringValue(cJSON_GetObjectItem(j, "model"));
	ep.options = cJSON_GetObjectItem(j, "options");
	if (kind == NULL || ep.api == NULL || ep.url == NULL || ep.model == NULL ||
	    provider_find(ep.api) == NULL) {
		cJSON_Delete(j);
		return aerr_set(err, AV_USAGE, "recipe: kind, api, endpoint_url and model are needed");
	}
	/* Recipes recorded before the OpenAI-family adapters chose the output-limit
	 * field and stream usage per endpoint: those bodies always had max_tokens and
	 * stream_options. */
	if (provider_find(ep.api)->limit_field != NULL &&
	    !cJSON_HasObjectItem(ep.options, "max-tokens-field")) {
		if (ep.options == NULL)
			ep.options = cJSON_AddObjectToObject(j, "options");
		cJSON_AddStringToObject(ep.options, "max-tokens-field", "max_tokens");
		if (!cJSON_HasObjectItem(ep.options, "stream-usage"))
			cJSON_AddStringToObject(ep.options, "stream-usage", "stream_options");
	}
	r.kind = strcmp(kind, "chat") == 0 ? PX_CHAT : strcmp(kind, "malformed") == 0 ? PX_MALFORMED :
	    strcmp(kind, "missing_field") == 0 ? PX_MISSING_FIELD : PX_COUNT;
	v = cJSON_GetObjectItem(j, "max_tokens");
	r.max_tokens = cJSON_IsNumber(v) ? v->valueint : 0;
	r.stream = cJSON_IsTrue(cJSON_GetObjectItem(j, "stream"));
	if (prompt_recipe_parse(cJSON_GetObjectItem(j, "prompt"), r.kind == PX_COUNT ? &count :
	    &r.recipe, err) != 0) {
		cJSON_Delete(j);
		return err->code;
	}
	r.count_of = &count;
	rc = build_body(&ep, provider_find(ep.api), &r, &req, err);
	http_req_materialize(&req);
	if (rc == 0)
		buf_add(body, req.body, req.body_len);
	http_req_free(&req);
	cJSON_Delete(j);
	return rc;
}

static const struct db_write exchange_row = {
	{ "INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, streaming, method, url, "
	  "request_headers, request_sha256, request_size, request_blob, request_recipe, response_status, "
	  "response_headers, response_sha256, response_size, response_blob, response_truncated, error, "
	  "timings, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	  "?16, ?17, ?18, ?19, ?20, ?21, ?22)" },
	"SELECT aivet_exchange_add(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
	"?17, ?18, ?19, ?20, ?21, ?22)", 0
};
/* The request's and the response's bodies stored (sealed where they carry
 * leaked content or a planted secret): a request body kept whole names its
 * blob (*req_blob), a larger or streamed one is kept as its recipe (*recipe).
 * With defer set only their SHA-256s are made: the one call of
 * record_on_server() stores them. */
static int
store_bodies(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, const unsigned char *seal, int defer, char req_sha[65],
    char resp_sha[65], const char **req_blob, char **recipe, struct aerr *err)
{
	int planted = r->kind == PX_CHAT && r->recipe.planted != NULL;
	const char *rbody = req->body ? req->body : "";

	if (req->src != NULL)
		memcpy(req_sha, req->body_sha256, 65);
	else
		sha256_hex(rbody, req->body_len, req_sha);
	if (planted && (seal == NULL || req->src != NULL || req->body_len > STORE_BODY_MAX))
		return aerr_set(err, AV_RUNTIME, "a prompt carrying a planted secret can only be stored "
		    "whole and sealed (an evidence key, at most %zu bytes)", STORE_BODY_MAX);
	if (req->src == NULL && req->body_len <= STORE_BODY_MAX) {
		if (!defer && (planted ? blob_put_sealed(env->db, env->av->actor, env->run_id, rbody,
		    req->body_len, seal, req_sha, err) : blob_put(env->db, rbody, req->body_len, req_sha,
		    err)) != 0)
			return err->code;
		*req_blob = req_sha;
	} else {
		cJSON *rj = request_recipe(env, r);

		*recipe = cJSON_PrintUnformatted(rj);
		cJSON_Delete(rj);
	}
	if (resp->status > 0 || resp->body.len > 0) {
		const char *body = resp->body.data ? resp->body.data : "";

		if (defer)
			sha256_hex(body, resp->body.len, resp_sha);
		else if ((seal != NULL ? blob_put_sealed(env->db, env->av->actor, env->run_id, body,
		    resp->body.len, seal, resp_sha, err) : blob_put(env->db, body, resp->body.len,
		    resp_sha, err)) != 0)
			return err->code;
	}
	return 0;
}

/* The timings, and what a replay needs of the transfer: how it ended (curl's
 * code: whether it reached the vendor) and how many answers the run had had
 * when it was sent. */
static cJSON *
exchange_timings(const struct px_req *r, const struct http_resp *resp)
{
	cJSON *t = cJSON_CreateObject();

	cJSON_AddNumberToObject(t, "connect_ms", resp->t_connect_ms);
	cJSON_AddNumberToObject(t, "ttfb_ms", resp->t_ttfb_ms);
	cJSON_AddNumberToObject(t, "total_ms", resp->t_total_ms);
	cJSON_AddNumberToObject(t, "first_byte_ms", round(resp->t_first_byte_ms * 1000) / 1000);
	cJSON_AddNumberToObject(t, "curl_code", resp->curl_code);
	cJSON_AddNumberToObject(t, "after", (double)r->after);
	return t;
}

/* The evidence item itself: a description of the exchange that names its bodies by hash. */
static cJSON *
exchange_doc(const struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, enum px_class cls, const char *req_sha, const char *resp_sha,
    const char *recipe, const cJSON *t)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "type", "aivet-exchange");
	cJSON_AddNumberToObject(doc, "run", (double)env->run_id);
	cJSON_AddStringToObject(doc, "probe", env->probe_name);
	cJSON_AddNumberToObject(doc, "seq", (double)r->seq);
	/* A read of the engine's status API speaks for no tenant. */
	json_add_str(doc, "tenant", r->tenant >= 0 ? env->tenant_label[r->tenant] : NULL);
	cJSON_AddBoolToObject(doc, "streaming", r->stream);
	cJSON_AddStringToObject(doc, "method", req->method);
	cJSON_AddStringToObject(doc, "url", req->url);
	cJSON_AddItemToObject(doc, "request_headers", req->rec_headers ?
	    cJSON_Duplicate(req->rec_headers, 1) : cJSON_CreateObject());
	cJSON_AddStringToObject(doc, "request_sha256", req_sha);
	cJSON_AddNumberToObject(doc, "request_size", (double)req->body_len);
	if (recipe != NULL)
		cJSON_AddItemToObject(doc, "request_recipe", cJSON_Parse(recipe));
	if (resp->status > 0)
		cJSON_AddNumberToObject(doc, "response_status", (double)resp->status);
	else
		cJSON_AddNullToObject(doc, "response_status");
	if (resp->headers != NULL)
		cJSON_AddItemToObject(doc, "response_headers", cJSON_Duplicate(resp->headers, 1));
	json_add_str(doc, "response_sha256", resp->status > 0 || resp->body.len ? resp_sha : NULL);
	cJSON_AddNumberToObject(doc, "response_size", (double)resp->body.len);
	cJSON_AddBoolToObject(doc, "response_truncated", resp->truncated);
	json_add_str(doc, "error", resp->error[0] ? resp->error : NULL);
	cJSON_AddStringToObject(doc, "outcome", px_class_name(cls));
	cJSON_AddNumberToObject(doc, "foreign_canaries", (double)(r->leaks_tenant + r->leaks_request));
	cJSON_AddItemToObject(doc, "timings", cJSON_Duplicate(t, 1));
	cJSON_AddStringToObject(doc, "started_at", resp->started_at);
	return doc;
}

/* What one exchange's rows are written from, made before any is. */
struct exchange_rec {
	char req_sha[65], resp_sha[65], ev_sha[65], name[96], status_s[16];
	const char *req_blob;
	char *recipe, *doc_s, *hdr_s, *resp_hdr_s, *timings_s, *details_s;
};

/* The exchange's evidence document, its exchange row and its audit entry, a
 * statement each (and the entry's head read and row hashed here, on SQLite). */
static int
record_rows(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, struct exchange_rec *x, const cJSON *details, int64_t *eid,
    struct aerr *err)
{
	struct db *db = env->db;
	int has_resp = resp->status > 0 || resp->body.len;

	if (blob_put(db, x->doc_s, strlen(x->doc_s), x->ev_sha, err) != 0 ||
	    evidence_insert(db, env->av->actor, "exchange", x->ev_sha, x->name, "application/json",
	    strlen(x->doc_s), NULL, eid, err) != 0)
		return err->code;
	if (db_write(db, err, &exchange_row, NULL, "iititittttitttttitittt", *eid, env->run_id,
	    env->probe_name, r->seq, r->tenant >= 0 ? env->tenant_label[r->tenant] : NULL,
	    (int64_t)r->stream, req->method, req->url, x->hdr_s, x->req_sha, (int64_t)req->body_len,
	    x->req_blob, x->recipe, resp->status > 0 ? x->status_s : NULL, x->resp_hdr_s,
	    has_resp ? x->resp_sha : NULL, (int64_t)resp->body.len, has_resp ? x->resp_sha : NULL,
	    (int64_t)resp->truncated, resp->error[0] ? resp->error : NULL, x->timings_s,
	    resp->started_at) != 0)
		return err->code;
	return audit_append(db, env->av->actor, "probe.exchange", "evidence", *eid, details, err);
}

/* The same rows on a server that writes evidence through its functions, for
 * plain content: one call (db/pg/016-exchange-record.sql) stores the bodies
 * and the document, adds the evidence, the exchange row and the audit entry,
 * one round trip where each took its own. Sent outside BEGIN, the call is its
 * own transaction (all of it commits or none), and takes the audit chain's
 * lock first as db_begin() does: no round trips for BEGIN and COMMIT.
 * Arguments: exchange_row's but the evidence id, the request's and the
 * response's bytes, the document, its SHA-256, its file name, the time and
 * the entry's details. */
static const struct db_write exchange_record = {
	{ NULL },
	"SELECT aivet_exchange_record(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	"?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)", 1
};

static int
record_on_server(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, struct exchange_rec *x, int64_t *eid, struct aerr *err)
{
	int has_resp = resp->status > 0 || resp->body.len;
	char at[32];

	now_iso(at);
	return db_write(env->db, err, &exchange_record, eid, "itititttti" "tttttitittt" "bbbtttt",
	    env->run_id, env->probe_name, r->seq, r->tenant >= 0 ? env->tenant_label[r->tenant] : NULL,
	    (int64_t)r->stream, req->method, req->url, x->hdr_s, x->req_sha, (int64_t)req->body_len,
	    x->req_blob, x->recipe, resp->status > 0 ? x->status_s : NULL, x->resp_hdr_s,
	    has_resp ? x->resp_sha : NULL, (int64_t)resp->body.len, has_resp ? x->resp_sha : NULL,
	    (int64_t)resp->truncated, resp->error[0] ? resp->error : NULL, x->timings_s,
	    resp->started_at, x->req_blob && req->body ? req->body : "", x->req_blob ? req->body_len : 0,
	    has_resp && resp->body.data ? resp->body.data : "", has_resp ? resp->body.len : 0,
	    x->doc_s, strlen(x->doc_s), x->ev_sha, x->name, at, x->details_s);
}

/* A rejudge stores nothing: the request made again is checked against the one
 * recorded, by the same digest or recipe the run kept. */
static int
replay_request(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    int64_t *evidence_id, struct aerr *err)
{
	char *recipe = NULL;
	int rc;

	if (req->src != NULL || req->body_len > STORE_BODY_MAX) {
		cJSON *rj = request_recipe(env, r);

		recipe = cJSON_PrintUnformatted(rj);
		cJSON_Delete(rj);
	}
	rc = replay_check_request(env, r, req, recipe, evidence_id, err);
	free(recipe);
	return rc;
}

int
record_exchange(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, enum px_class cls, int leaked, int64_t *evidence_id,
    struct aerr *err)
{
	struct db *db = env->db;
	struct exchange_rec x = { 0 };
	/* A prompt carrying cache-extract's planted secret is sealed both ways, as leaked
	 * content is: the secret never rests in plain text. */
	int planted = r->kind == PX_CHAT && r->recipe.planted != NULL, rc = -1;
	const unsigned char *seal = leaked || planted ? env->opts->leak_seal_pk : NULL;
	int server;
	cJSON *doc = NULL, *t = NULL, *a = NULL;
	int64_t eid;

	if (env->replay != NULL)
		return replay_request(env, r, req, evidence_id, err);
	server = seal == NULL && db_has(db, DB_STORE_SEALS);
	if (!server && db_begin(db, err) != 0)
		return err->code;
	if (store_bodies(env, r, req, resp, seal, server, x.req_sha, x.resp_sha, &x.req_blob,
	    &x.recipe, err) != 0)
		goto out;
	t = exchange_timings(r, resp);
	x.timings_s = cJSON_PrintUnformatted(t);
	x.hdr_s = req->rec_headers ? cJSON_PrintUnformatted(req->rec_headers) : xstrdup("{}");
	x.resp_hdr_s = resp->headers ? cJSON_PrintUnformatted(resp->headers) : NULL;
	doc = exchange_doc(env, r, req, resp, cls, x.req_sha, x.resp_sha, x.recipe, t);
	x.doc_s = cJSON_PrintUnformatted(doc);
	sha256_hex(x.doc_s, strlen(x.doc_s), x.ev_sha);
	snprintf(x.name, sizeof x.name, "exchange-%lld-%lld.json", (long long)env->run_id,
	    (long long)r->seq);
	snprintf(x.status_s, sizeof x.status_s, "%ld", resp->status);
	a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "run", (double)env->run_id);
	cJSON_AddStringToObject(a, "probe", env->probe_name);
	cJSON_AddNumberToObject(a, "seq", (double)r->seq);
	cJSON_AddNumberToObject(a, "status", (double)resp->status);
	cJSON_AddStringToObject(a, "sha256", x.ev_sha);
	x.details_s = cJSON_PrintUnformatted(a);
	if ((server ? record_on_server(env, r, req, resp, &x, &eid, err) :
	    record_rows(env, r, req, resp, &x, a, &eid, err)) != 0 ||
	    (!server && db_commit(db, err) != 0))
		goto out;
	*evidence_id = eid;
	rc = 0;
out:
	if (rc != 0) {
		db_rollback(db);
		rc = err->code ? err->code : AV_RUNTIME;
	}
	cJSON_Delete(a);
	cJSON_Delete(doc);
	cJSON_Delete(t);
	free(x.recipe);
	free(x.doc_s);
	free(x.hdr_s);
	free(x.resp_hdr_s);
	free(x.timings_s);
	free(x.details_s);
	return rc;
}
