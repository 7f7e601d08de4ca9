/*
 * providers/anthropic.c: Anthropic's Messages API. The endpoint URL is the
 * API origin (https://api.anthropic.com); the key goes in x-api-key with
 * anthropic-version (option "anthropic-version", default 2023-06-01).
 * Streams are typed events: message_start carries the input tokens,
 * content_block_delta the text, message_delta the output tokens, and an
 * "error" event an error after the 200. Tokens are counted by
 * /v1/messages/count_tokens. Bodies follow the Messages API reference (as of
 * anthropic-version 2023-06-01); error types are read as its errors page
 * defines them, and the stop reason model_context_window_exceeded (an
 * answer cut because the window filled) is kept and flagged.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

static char *
anthropic_url(const struct endpoint *ep, const char *path)
{
	size_t n = strlen(ep->url);

	while (n > 0 && ep->url[n - 1] == '/')
		n--;
	/* Accept a base given with or without /v1. */
	if (n >= 3 && strncmp(ep->url + n - 3, "/v1", 3) == 0)
		return xasprintf("%.*s/%s", (int)n, ep->url, path);
	return xasprintf("%.*s/v1/%s", (int)n, ep->url, path);
}

static int
anthropic_build_chat(const struct endpoint *ep, const struct prov_chat *c,
    struct http_req *req, struct aerr *err)
{
	cJSON *b = cJSON_CreateObject();

	(void)err;
	req->url = anthropic_url(ep, "messages");
	cJSON_AddStringToObject(b, "model", c->model);
	cJSON_AddNumberToObject(b, "max_tokens", c->max_tokens);
	if (!c->omit_required)
		cJSON_AddItemToObject(b, "messages", prov_user_messages(c));
	cJSON_AddNumberToObject(b, "temperature", 0);
	if (c->stream)
		cJSON_AddTrueToObject(b, "stream");
	http_req_header(req, "anthropic-version", endpoint_option(ep, "anthropic-version",
	    "2023-06-01"), 0);
	prov_set_json_body(req, b);
	return 0;
}

static int
anthropic_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	(void)ep;
	(void)err;
	http_req_header(req, "x-api-key", secret, 1);
	return 0;
}

/* The error types of Anthropic's errors page, by what they mean. */
static enum prov_refusal
anthropic_refusal(const char *type, const char *msg)
{
	static const struct { const char *type; enum prov_refusal why; } t[] = {
		{ "authentication_error", PREF_AUTH },
		{ "permission_error", PREF_AUTH },
		{ "billing_error", PREF_AUTH },
		{ "not_found_error", PREF_NOT_FOUND },
		{ "request_too_large", PREF_SIZE },
		{ "rate_limit_error", PREF_RATE },
		{ "api_error", PREF_SERVER },
		{ "overloaded_error", PREF_SERVER },
		{ "timeout_error", PREF_SERVER },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (strcmp(type, t[i].type) == 0)
			return t[i].why;
	/* invalid_request_error covers a prompt too long and any other bad field. */
	if (strcmp(type, "invalid_request_error") == 0 && msg != NULL)
		return strstr(msg, "prompt is too long") != NULL ||
		    strstr(msg, "context window") != NULL ? PREF_SIZE :
		    strstr(msg, "Extra inputs are not permitted") != NULL ? PREF_PARAM : PREF_NONE;
	return PREF_NONE;
}

static void
anthropic_stop(const char *stop, struct prov_result *r)
{
	snprintf(r->finish, sizeof r->finish, "%s", stop);
	r->cut_by_context = strcmp(stop, "model_context_window_exceeded") == 0;
}

static void
anthropic_error(cJSON *j, struct prov_result *r)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "type");
	cJSON *m = json_path(j, "error.message");

	if ((cJSON_IsString(t) && strcmp(t->valuestring, "error") == 0) ||
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "error"))) {
		cJSON *et = json_path(j, "error.type");

		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
		if (cJSON_IsString(et))
			prov_set_refusal(r, et->valuestring, anthropic_refusal(et->valuestring,
			    cJSON_IsString(m) ? m->valuestring : NULL));
	}
}

/* input_tokens is only the part after the last cache breakpoint: the prompt is
 * that, what was read from the cache and what was written to it. Thinking is
 * inside output_tokens. */
static const struct prov_usage_shape anthropic_usage_shape = {
	.in = { "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens" },
	.cached = "cache_read_input_tokens",
	.cache_write = "cache_creation_input_tokens",
	.out = { "output_tokens" },
};

static void
anthropic_usage(cJSON *usage, struct prov_result *r)
{
	prov_read_usage(r, usage, &anthropic_usage_shape);
}

static void
anthropic_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *block, *stop = cJSON_GetObjectItemCaseSensitive(j, "stop_reason");

	(void)status;
	anthropic_error(j, r);
	cJSON_ArrayForEach(block, cJSON_GetObjectItemCaseSensitive(j, "content")) {
		cJSON *text = cJSON_GetObjectItemCaseSensitive(block, "text");

		if (cJSON_IsString(text))
			buf_adds(&r->text, text->valuestring);
	}
	if (cJSON_IsString(stop))
		anthropic_stop(stop->valuestring, r);
	anthropic_usage(cJSON_GetObjectItemCaseSensitive(j, "usage"), r);
	r->parsed = r->is_error || cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "content"));
}

static void
anthropic_stream_event(const char *event, const char *data, struct prov_result *r)
{
	cJSON *j = cJSON_Parse(data), *t, *text, *stop;
	const char *type;

	if (j == NULL)
		return;
	t = cJSON_GetObjectItemCaseSensitive(j, "type");
	type = *event ? event : cJSON_IsString(t) ? t->valuestring : "";
	if (strcmp(type, "error") == 0 || (*event == '\0' &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "error")))) {
		cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");

		anthropic_error(j, r);
		/* Servers behind an Anthropic-compatible route (llama.cpp's llama-server) send
		 * their own shape: {"error":{"code":500,...}} or the flat {"code":500,...}. */
		prov_read_flat_error(cJSON_IsObject(e) ? e : j, r);
		prov_set_error(r, NULL);
		r->stream_error = 1;
	} else if (strcmp(type, "message_start") == 0) {
		anthropic_usage(json_path(j, "message.usage"), r);
	} else if (strcmp(type, "content_block_delta") == 0) {
		text = json_path(j, "delta.text");
		if (cJSON_IsString(text))
			buf_adds(&r->text, text->valuestring);
	} else if (strcmp(type, "message_delta") == 0) {
		anthropic_usage(cJSON_GetObjectItemCaseSensitive(j, "usage"), r);
		stop = json_path(j, "delta.stop_reason");
		if (cJSON_IsString(stop))
			anthropic_stop(stop->valuestring, r);
	}
	cJSON_Delete(j);
}

static int
anthropic_build_count(const struct endpoint *ep, const char *prompt, size_t len,
    struct http_req *req, struct aerr *err)
{
	struct prov_chat c = { .model = ep->model, .prompt = prompt, .prompt_len = len };
	cJSON *b = cJSON_CreateObject();

	(void)err;
	req->url = anthropic_url(ep, "messages/count_tokens");
	cJSON_AddStringToObject(b, "model", ep->model);
	cJSON_AddItemToObject(b, "messages", prov_user_messages(&c));
	http_req_header(req, "anthropic-version", endpoint_option(ep, "anthropic-version",
	    "2023-06-01"), 0);
	prov_set_json_body(req, b);
	return 0;
}

static int
anthropic_parse_count(cJSON *j, int64_t *tokens)
{
	*tokens = json_path_int(j, "input_tokens");
	return *tokens < 0 ? -1 : 0;
}

const struct provider provider_anthropic = {
	.api = "anthropic",
	.can_stream = 1,
	.count_method = "count_tokens",
	.build_chat = anthropic_build_chat,
	.auth = anthropic_auth,
	.parse = anthropic_parse,
	.stream_event = anthropic_stream_event,
	.build_count = anthropic_build_count,
	.parse_count = anthropic_parse_count,
};
