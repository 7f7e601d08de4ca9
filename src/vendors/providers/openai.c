/*
 * providers/openai.c: the OpenAI chat completions API, also spoken by vLLM,
 * SGLang, llama.cpp, Ollama's /v1, Together, Groq and Cloudflare's /ai/v1.
 * The endpoint URL is the API base including /v1. Bodies follow OpenAI's
 * openapi.yaml 2.3.0 (CreateChatCompletionRequest). The output limit goes in
 * max_completion_tokens on OpenAI's own API (max_tokens is deprecated there
 * and refused by o-series models) and in max_tokens elsewhere (vLLM,
 * llama.cpp and most compatible servers), unless the option
 * max-tokens-field names one. Streaming asks for usage in the final chunk
 * (stream_options) unless the option stream-usage=none; errors come as
 * {"error":{...}} or vLLM/SGLang's flat {"object":"error","message":...},
 * also as a data event after a 200. Token counts come from vLLM/SGLang's
 * POST /tokenize at the server root.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "provider.h"

/* The host of a URL is api.openai.com. */
static int
is_openai_host(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL;
	int yes;

	if (u == NULL)
		die("out of memory");
	yes = curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    strcasecmp(host, "api.openai.com") == 0;
	curl_free(host);
	curl_url_cleanup(u);
	return yes;
}

const char *
openai_limit_field(const struct endpoint *ep)
{
	return endpoint_option(ep, "max-tokens-field", is_openai_host(ep->url) ?
	    "max_completion_tokens" : "max_tokens");
}

cJSON *
openai_chat_body(const struct prov_chat *c, int with_model, const char *limit_field,
    int stream_usage)
{
	cJSON *b = cJSON_CreateObject();

	if (with_model)
		cJSON_AddStringToObject(b, "model", c->model);
	if (!c->omit_required)
		cJSON_AddItemToObject(b, "messages", prov_user_messages(c));
	cJSON_AddNumberToObject(b, limit_field, c->max_tokens);
	cJSON_AddNumberToObject(b, "temperature", 0);
	if (c->stream) {
		cJSON_AddTrueToObject(b, "stream");
		if (stream_usage)
			cJSON_AddTrueToObject(cJSON_AddObjectToObject(b, "stream_options"), "include_usage");
	}
	return b;
}

static const char *
openai_stream_usage(const struct endpoint *ep)
{
	return endpoint_option(ep, "stream-usage", "stream_options");
}

/* The options an OpenAI-family endpoint may carry, checked before a run. */
int
openai_check_options(const struct endpoint *ep, const char *limit_field, struct aerr *err)
{
	const char *usage = openai_stream_usage(ep);

	if (strcmp(usage, "stream_options") != 0 && strcmp(usage, "none") != 0)
		return aerr_set(err, AV_USAGE, "endpoint option stream-usage: '%s' is not "
		    "stream_options or none", usage);
	if (strcmp(limit_field, "max_tokens") != 0 && strcmp(limit_field, "max_completion_tokens") != 0)
		return aerr_set(err, AV_USAGE, "endpoint option max-tokens-field: '%s' is not "
		    "max_completion_tokens or max_tokens", limit_field);
	return 0;
}

static int
openai_check(const struct endpoint *ep, struct aerr *err)
{
	return openai_check_options(ep, openai_limit_field(ep), err);
}

static int
openai_build_chat(const struct endpoint *ep, const struct prov_chat *c, struct http_req *req,
    struct aerr *err)
{
	const char *usage = openai_stream_usage(ep);

	if (openai_check_options(ep, openai_limit_field(ep), err) != 0)
		return err->code;
	req->url = url_join(ep->url, "chat/completions");
	prov_set_json_body(req, openai_chat_body(c, 1, openai_limit_field(ep),
	    strcmp(usage, "stream_options") == 0));
	return 0;
}

static int
openai_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	char *v = xasprintf("Bearer %s", secret);

	(void)ep;
	(void)err;
	http_req_header(req, "Authorization", v, 1);
	free(v);
	return 0;
}

/* OpenAI's documented error codes and types (and Azure's), by what they mean. */
enum prov_refusal
openai_refusal(const char *code)
{
	static const struct { const char *code; enum prov_refusal why; } t[] = {
		{ "context_length_exceeded", PREF_SIZE },
		{ "string_above_max_length", PREF_SIZE },
		{ "rate_limit_exceeded", PREF_RATE },
		{ "insufficient_quota", PREF_RATE },
		{ "tokens_exceeded", PREF_RATE },
		{ "429", PREF_RATE },                /* Azure's rate limit code */
		{ "invalid_api_key", PREF_AUTH },
		{ "invalid_authentication", PREF_AUTH },
		{ "authentication_error", PREF_AUTH },
		{ "permission_error", PREF_AUTH },
		{ "401", PREF_AUTH },                /* Azure's "Access denied" */
		{ "unsupported_parameter", PREF_PARAM },
		{ "unsupported_value", PREF_PARAM },
		{ "invalid_value", PREF_PARAM },
		{ "unknown_parameter", PREF_PARAM },
		{ "model_not_found", PREF_NOT_FOUND },
		{ "DeploymentNotFound", PREF_NOT_FOUND },
		{ "content_filter", PREF_BLOCKED },
		{ "content_policy_violation", PREF_BLOCKED },
		{ "server_error", PREF_SERVER },
		{ "engine_overloaded", PREF_SERVER },
		/* llama.cpp's llama-server */
		{ "exceed_context_size_error", PREF_SIZE },
		{ "not_supported_error", PREF_PARAM },
		{ "unavailable_error", PREF_SERVER },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (code != NULL && strcmp(code, t[i].code) == 0)
			return t[i].why;
	return PREF_NONE;
}

static void
openai_read_error(cJSON *j, struct prov_result *r)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	cJSON *obj = cJSON_GetObjectItemCaseSensitive(j, "object");

	if (cJSON_IsObject(e)) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
		cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
		cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");

		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
		if (cJSON_IsNumber(code) && code->valuedouble >= 100 && code->valuedouble < 600)
			r->error_code = (long)code->valuedouble;
		/* llama.cpp states the prompt's size in a field of its own. */
		if (json_path_int(e, "n_prompt_tokens") > 0)
			r->size_tokens = json_path_int(e, "n_prompt_tokens");
		/* "code" is the precise one (context_length_exceeded, rate_limit_exceeded);
		 * the type where a server gives no code. Unknown values are kept as given
		 * and left to the status and message. */
		if (cJSON_IsString(code))
			prov_set_refusal(r, code->valuestring, openai_refusal(code->valuestring));
		/* A numeric code (llama.cpp, vLLM) only repeats the HTTP status: the type says more. */
		if (r->refusal == PREF_NONE && cJSON_IsString(type))
			prov_set_refusal(r, type->valuestring, openai_refusal(type->valuestring));
	} else if (cJSON_IsString(e)) {
		prov_set_error(r, e->valuestring);
	} else if (cJSON_IsString(obj) && strcmp(obj->valuestring, "error") == 0) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
		cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");

		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
		if (cJSON_IsString(type))
			prov_set_refusal(r, type->valuestring, openai_refusal(type->valuestring));
	} else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "code")) &&
	    cJSON_GetObjectItemCaseSensitive(j, "choices") == NULL &&
	    prov_read_flat_error(j, r) && r->error_type[0] != '\0') {
		/* llama.cpp's flat {"code":500,"message":...,"type":"server_error"} */
		r->refusal = openai_refusal(r->error_type);
	}
}

/* prompt_tokens counts the whole prompt, the cached part (prompt_tokens_details.
 * cached_tokens) included; completion_tokens the reasoning tokens too. */
const struct prov_usage_shape openai_usage_shape = {
	.in = { "prompt_tokens" },
	.cached = "prompt_tokens_details.cached_tokens",
	.out = { "completion_tokens" },
	.reasoning = "completion_tokens_details.reasoning_tokens",
};

static void
openai_read_usage(cJSON *j, struct prov_result *r)
{
	prov_read_usage(r, cJSON_GetObjectItemCaseSensitive(j, "usage"), &openai_usage_shape);
}

void
openai_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *content = json_path(j, "choices.0.message.content");
	cJSON *fin = json_path(j, "choices.0.finish_reason");

	(void)status;
	openai_read_error(j, r);
	if (cJSON_IsString(content))
		buf_adds(&r->text, content->valuestring);
	if (cJSON_IsString(fin))
		snprintf(r->finish, sizeof r->finish, "%s", fin->valuestring);
	openai_read_usage(j, r);
	r->parsed = r->is_error || cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "choices"));
}

void
openai_stream_event(const char *event, const char *data, struct prov_result *r)
{
	cJSON *j, *delta, *fin;

	if (strcmp(data, "[DONE]") == 0)
		return;
	if ((j = cJSON_Parse(data)) == NULL)
		return;
	if (cJSON_GetObjectItemCaseSensitive(j, "error") != NULL ||
	    strcmp(event, "error") == 0) {
		openai_read_error(j, r);
		prov_set_error(r, NULL);
		r->stream_error = 1;
	}
	delta = json_path(j, "choices.0.delta.content");
	if (cJSON_IsString(delta))
		buf_adds(&r->text, delta->valuestring);
	fin = json_path(j, "choices.0.finish_reason");
	if (cJSON_IsString(fin))
		snprintf(r->finish, sizeof r->finish, "%s", fin->valuestring);
	openai_read_usage(j, r);
	cJSON_Delete(j);
}

static int
openai_build_count(const struct endpoint *ep, const char *prompt, size_t len,
    struct http_req *req, struct aerr *err)
{
	(void)len;
	(void)err;
	/* /tokenize lives at the server root, beside /v1. */
	size_t n = strlen(ep->url);
	cJSON *b = cJSON_CreateObject();
	char *root;

	while (n > 0 && ep->url[n - 1] == '/')
		n--;
	if (n >= 3 && strncmp(ep->url + n - 3, "/v1", 3) == 0)
		n -= 3;
	root = xasprintf("%.*s", (int)n, ep->url);
	req->url = url_join(root, "tokenize");
	free(root);
	cJSON_AddStringToObject(b, "model", ep->model);
	cJSON_AddItemToObject(b, "prompt", cJSON_CreateStringReference(prompt));
	/* vLLM and SGLang read "prompt"; llama.cpp's llama-server reads "content". */
	cJSON_AddItemToObject(b, "content", cJSON_CreateStringReference(prompt));
	prov_set_json_body(req, b);
	return 0;
}

static int
openai_parse_count(cJSON *j, int64_t *tokens)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "tokens");

	*tokens = json_path_int(j, "count");
	if (*tokens < 0 && cJSON_IsArray(t))
		*tokens = cJSON_GetArraySize(t);
	return *tokens < 0 ? -1 : 0;
}

const struct provider provider_openai = {
	.api = "openai",
	.can_stream = 1,
	.count_method = "tokenize",
	.build_chat = openai_build_chat,
	.auth = openai_auth,
	.parse = openai_parse,
	.stream_event = openai_stream_event,
	.build_count = openai_build_count,
	.parse_count = openai_parse_count,
	.limit_field = openai_limit_field,
	.stream_usage = openai_stream_usage,
	.check = openai_check,
};
