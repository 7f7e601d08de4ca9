/*
 * provider.h: one interface over the inference APIs aivet probes. An adapter
 * builds a chat request (or one with the required field left out), adds its
 * API's authentication, reads a response body or one server-sent event into
 * a common result, and, where the API can, counts a prompt's tokens. The
 * adapters are registered in one table (provider.c).
 */
#ifndef AIVET_PROVIDER_H
#define AIVET_PROVIDER_H

#include "core.h"
#include "prompt.h"
#include "http.h"
#include "credref.h"

/* The serving engine behind an endpoint, read by the engine probe from its own
 * status API: its kind, one status URL per node (in the order given) and the
 * reference to its admin API's credential, read as an endpoint's credential is
 * (credref_read, under the label ENGINE_CRED_LABEL, which no tenant label can
 * take). engine NULL: none set. */
#define ENGINE_MAX_NODES 16
#define ENGINE_CRED_LABEL "@engine"
struct engine_conf {
	char *engine;                 /* "sglang", "vllm", "tgi", "llama.cpp" */
	char *credential_ref;         /* env:VAR or file:PATH, or NULL */
	char *url[ENGINE_MAX_NODES];
	int n;
};
extern const char *const engine_kinds[];   /* NULL-terminated */
int engine_conf_load(struct db *db, int64_t endpoint_id, struct engine_conf *c, struct aerr *err);
void engine_conf_free(struct engine_conf *c);

/* An endpoint: the one record of it, loaded by endpoint_get (endpoint-record.c)
 * for the probes, the commands, the screens and the report alike; fields
 * named as the JSON keys endpoint_to_json writes ("endpoint show --json"). */
struct endpoint {
	int64_t id;
	char *vendor, *name;
	char *ref;                    /* "VENDOR/NAME" */
	char *api, *url, *model;
	int64_t context_tokens;
	int allow_insecure_http;
	int has_price_in, has_price_out;   /* 0: the price is null */
	double price_in_per_mtok, price_out_per_mtok;
	cJSON *options;               /* --option KEY=VALUE pairs as stored, or NULL: {} */
	char *status, *created_at, *updated_at;
	struct credential *credentials;    /* by label (credential_list_load) */
	size_t ncredentials;
	struct engine_conf engine;    /* the serving engine's nodes (engine.n 0: none) */
};
struct endpoint_list {
	struct endpoint *items;
	size_t n;
};
void endpoint_free(struct endpoint *e);
void endpoint_list_free(struct endpoint_list *l);
/* The endpoint with its credentials and engine, archived or not. */
int endpoint_get(struct db *db, int64_t id, struct endpoint *out, struct aerr *err);
/* The same for an endpoint to be probed: refused (AV_USAGE) when archived. */
int endpoint_get_active(struct db *db, int64_t id, struct endpoint *out, struct aerr *err);
/* The endpoints (of one vendor unless vendor_id is 0; active ones, every one with
 * all) by vendor and name. */
int endpoint_list_load(struct db *db, int64_t vendor_id, int all, struct endpoint_list *out,
    struct aerr *err);
/* An endpoint option's value, or def. */
const char *endpoint_option(const struct endpoint *ep, const char *key, const char *def);

struct prov_chat {
	const char *model;            /* usually ep->model; the errors probe tries another */
	const char *prompt;
	size_t prompt_len;
	int max_tokens;
	int stream;
	int omit_required;            /* leave out the messages: a request missing a required field */
};

/* Why an API refused a request, as its error body, event or status says. Each
 * adapter reads its own API's shapes into this (prov_set_refusal); where an
 * adapter says nothing, provider_read() classifies by status and message
 * (prov_refusal_guess). The probe engine builds its outcome classes on it. */
enum prov_refusal {
	PREF_NONE,                    /* no refusal: not an error, or nothing said why */
	PREF_SIZE,                    /* the input is too long for the context (or 413) */
	PREF_AUTH,                    /* credentials missing, invalid or not allowed (401/403) */
	PREF_RATE,                    /* rate limit or quota, per request or per minute (429) */
	PREF_PARAM,                   /* a field or parameter unsupported or invalid */
	PREF_NOT_FOUND,               /* no such model or route (404) */
	PREF_BLOCKED,                 /* refused by a safety or content filter */
	PREF_SERVER,                  /* the server failed or was overloaded (5xx, overloaded_error) */
	PREF_OTHER                    /* refused for a reason none of the above names */
};
const char *prov_refusal_name(enum prov_refusal r);

/* Usage as the vendor reported it, in the same terms for every API. The
 * input is the whole prompt whatever part the vendor's prompt cache served
 * or stored (Anthropic and Bedrock count those apart from their input_tokens;
 * OpenAI and Gemini include them): calibration, budgets, USAGE_ANOMALY and
 * billing use these totals; raw keeps the vendor's own usage object. */
struct prov_usage {
	int64_t in;                   /* total input tokens, cached and cache-written included */
	int64_t cached_in;            /* of which read from the vendor's prompt cache */
	int64_t cache_write_in;       /* of which written to the cache (Anthropic, Bedrock) */
	int64_t out;                  /* output tokens, reasoning included */
	int64_t reasoning;            /* of which reasoning ("thinking") */
	cJSON *raw;                   /* the usage object(s) as sent, merged over a stream, or NULL */
};                                    /* each -1 when the response did not say */

/* Which members of an API's usage object say what (dotted paths; the
 * members of in and out are summed, those absent left out). */
struct prov_usage_shape {
	const char *in[3], *cached, *cache_write, *out[2], *reasoning;
};
struct prov_result;
/* Merges a usage object (or a stream's part of one) into r->usage and
 * recomputes the totals from everything merged so far. */
void prov_read_usage(struct prov_result *r, cJSON *usage, const struct prov_usage_shape *shape);
/* OpenAI's usage shape, shared by Azure OpenAI and Workers AI. */
extern const struct prov_usage_shape openai_usage_shape;

/* What a response said, in the same terms for every API. */
struct prov_result {
	struct buf text;              /* the model's output text */
	struct prov_usage usage;
	int is_error;                 /* an error body, or an error event in a stream */
	char error[256];              /* the error's message */
	int stream_error;             /* the error came as an event inside a stream */
	int stream_as_json;           /* a streaming request was answered with plain JSON */
	int parsed;                   /* the body had the API's shape */
	char finish[32];              /* finish/stop reason, "" when absent */
	char error_type[64];          /* the API's error type or code, "" when absent */
	int cut_by_context;           /* the answer stopped because the context window filled
	                               * (finish "model_context_window_exceeded"): cut short,
	                               * not content lost */
	enum prov_refusal refusal;    /* why, when is_error or the status is not 2xx */
	long error_code;              /* the numeric code an error gave (llama.cpp, vLLM, Gemini:
	                               * the HTTP status it stands for), 0 when none */
	int64_t size_tokens;          /* a refusal for size: the prompt's tokens by the vendor's
	                               * own count, where its error states it; else -1 */
};
/* The prompt's size a refusal for size states, in the wordings of OpenAI,
 * Azure, Anthropic, Gemini, vLLM, SGLang, llama.cpp, TGI and Workers AI; -1
 * when the message gives none. */
int64_t prov_size_from_message(const char *msg);
void prov_result_init(struct prov_result *r);
void prov_result_free(struct prov_result *r);

struct provider {
	const char *api;              /* as in endpoint.api */
	int can_stream;
	const char *count_method;     /* "tokenize", "count_tokens", or NULL */
	int (*build_chat)(const struct endpoint *ep, const struct prov_chat *c,
	    struct http_req *req, struct aerr *err);
	int (*auth)(const struct endpoint *ep, const char *secret, struct http_req *req,
	    struct aerr *err);
	/* A whole JSON body (success or error). */
	void (*parse)(cJSON *body, long status, struct prov_result *r);
	/* One server-sent event: its event name ("" when none) and data. */
	void (*stream_event)(const char *event, const char *data, struct prov_result *r);
	int (*build_count)(const struct endpoint *ep, const char *prompt, size_t len,
	    struct http_req *req, struct aerr *err);
	int (*parse_count)(cJSON *body, int64_t *tokens);
	/* The output-limit field the endpoint is sent (max_completion_tokens or
	 * max_tokens), for APIs that have two; NULL for the others. */
	const char *(*limit_field)(const struct endpoint *ep);
	/* How a stream reports usage on this endpoint: "stream_options" (asked for in
	 * the last chunk) or "none" (streams carry none); NULL: the API's streams always do. */
	const char *(*stream_usage)(const struct endpoint *ep);
	/* Refuses, before anything is sent, an endpoint whose options cannot
	 * work (AV_USAGE with the fix); NULL when there is nothing to check. */
	int (*check)(const struct endpoint *ep, struct aerr *err);
};

extern const struct provider *const provider_table[];
const struct provider *provider_find(const char *api);

/* Reads a response of a request made with or without streaming into r. */
void provider_read(const struct provider *p, int stream, const char *body, size_t len, long status,
    struct prov_result *r);

/* ---- helpers the adapters share (provider.c) ---- */
/* url joined with path, without doubling the '/'. */
char *url_join(const char *base, const char *path);
/* Serialises a request body into req (and frees the tree). */
void prov_set_json_body(struct http_req *req, cJSON *body);
/* Appends s JSON-escaped exactly as cJSON prints a string's characters. */
void json_escape_append(struct buf *out, const char *s, size_t n);
/* Puts a recipe's prompt wherever an adapter's body holds `marker` (the
 * prompt it was given): the body becomes the text around it with the prompt
 * generated and JSON-escaped piece by piece in each place, cut to half its
 * length when `half` (a malformed body). Sets body_len and body_sha256. A
 * body of at most `keep` bytes stays in memory; a longer one is streamed
 * (req->src). A body without the marker (the prompt left out) is kept as built. */
int prov_body_from_recipe(struct http_req *req, const char *marker, const struct prompt_recipe *r,
    int half, size_t keep, struct aerr *err);
/* The messages array most APIs take: [{"role":"user","content":PROMPT}]. The
 * prompt is referenced, not copied: it must outlive the tree. */
cJSON *prov_user_messages(const struct prov_chat *c);
/* Number at a dotted path ("usage.prompt_tokens"), or -1. */
int64_t json_path_int(cJSON *o, const char *path);
cJSON *json_path(cJSON *o, const char *path);
void prov_set_error(struct prov_result *r, const char *msg);
/* Reads an error object of the common flat shape {"code":500,"message":...,
 * "type":"server_error"} (llama.cpp's, also inside "error"): its message, its
 * type when none was read, its numeric code. Returns 1 when it had any of them. */
int prov_read_flat_error(cJSON *e, struct prov_result *r);
/* Records the API's error type (kept as given) and what it means. */
void prov_set_refusal(struct prov_result *r, const char *type, enum prov_refusal why);
/* A refusal's meaning from the status, the API's error type and its message,
 * for APIs and servers whose adapter said nothing more precise. */
enum prov_refusal prov_refusal_guess(long status, const char *type, const char *message);

/* OpenAI's shapes, shared with Azure OpenAI (providers/openai.c). The output
 * limit goes in limit_field (max_completion_tokens or max_tokens); a stream
 * asks for usage with stream_options when stream_usage is set. */
cJSON *openai_chat_body(const struct prov_chat *c, int with_model, const char *limit_field,
    int stream_usage);
/* The output-limit field an OpenAI endpoint takes: the option max-tokens-field,
 * else max_completion_tokens on api.openai.com and max_tokens elsewhere. */
const char *openai_limit_field(const struct endpoint *ep);
/* What an OpenAI error code or type means (PREF_NONE when not documented). */
enum prov_refusal openai_refusal(const char *code);
/* Azure api-versions that define max_completion_tokens and stream_options. */
int azure_version_has_completion_tokens(const char *version);
/* The options stream-usage and max-tokens-field (limit_field as chosen) hold
 * values the adapters know. */
int openai_check_options(const struct endpoint *ep, const char *limit_field,
    struct aerr *err);
/* A 400 that says the output-limit field `field` is not supported: the other
 * field's name, or NULL. */
const char *prov_limit_field_refused(const struct prov_result *r, long status, const char *field);
void openai_parse(cJSON *j, long status, struct prov_result *r);
void openai_stream_event(const char *event, const char *data, struct prov_result *r);

/* Bedrock SigV4 through this libcurl (CURLVERSION_NOW's version_num): 0, or
 * AV_USAGE naming the fix when it is older than 8.9.0 (providers/bedrock.c). */
int bedrock_sigv4_usable(unsigned int curl_version_num, struct aerr *err);

/* ---- server-sent events (sse.c) ---- */
typedef void (*sse_fn)(void *arg, const char *event, const char *data);
/* Calls fn for every complete event in buf; an unfinished last event is dropped. */
size_t sse_parse(const char *buf, size_t len, sse_fn fn, void *arg);

#endif
