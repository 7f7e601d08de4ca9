/*
 * provider-openai.c: the OpenAI chat completions API, also spoken by vLLM,
 * SGLang, llama.cpp, Ollama's /v1, Together, Groq and Cloudflare's /ai/v1.
 * The endpoint URL is the API base including /v1. Streaming asks for usage
 * in the final chunk; errors come as {"error":{...}} or vLLM/SGLang's flat
 * {"object":"error","message":...}, also as a data event after a 200.
 * Token counts come from vLLM/SGLang's POST /tokenize at the server root.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

cJSON *
openai_chat_body(const struct prov_chat *c, int with_model)
{
	cJSON *b = cJSON_CreateObject();

	if (with_model)
		cJSON_AddStringToObject(b, "model", c->model);
	if (!c->omit_required)
		cJSON_AddItemToObject(b, "messages", prov_user_messages(c));
	cJSON_AddNumberToObject(b, "max_tokens", c->max_tokens);
	cJSON_AddNumberToObject(b, "temperature", 0);
	if (c->stream) {
		cJSON_AddTrueToObject(b, "stream");
		cJSON_AddItemToObject(b, "stream_options", cJSON_CreateObject());
		cJSON_AddTrueToObject(cJSON_GetObjectItem(b, "stream_options"), "include_usage");
	}
	return b;
}

static int
openai_build_chat(const struct endpoint_info *ep, const struct prov_chat *c, struct http_req *req,
    struct aerr *err)
{
	req->url = url_join(ep->url, "chat/completions");
	prov_set_json_body(req, openai_chat_body(c, 1));
	return 0;
}

static int
openai_auth(const struct endpoint_info *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	char *v = xasprintf("Bearer %s", secret);

	http_req_header(req, "Authorization", v, 1);
	free(v);
	return 0;
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
		/* "code" is the precise one (context_length_exceeded, rate_limit_exceeded). */
		if (cJSON_IsString(code))
			prov_set_refusal(r, code->valuestring, PREF_NONE);
		else if (cJSON_IsString(type))
			prov_set_refusal(r, type->valuestring, PREF_NONE);
	} else if (cJSON_IsString(e)) {
		prov_set_error(r, e->valuestring);
	} else if (cJSON_IsString(obj) && strcmp(obj->valuestring, "error") == 0) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
	}
}

static void
openai_read_usage(cJSON *j, struct prov_result *r)
{
	int64_t in = json_path_int(j, "usage.prompt_tokens");
	int64_t out = json_path_int(j, "usage.completion_tokens");

	if (in >= 0)
		r->usage_in = in;
	if (out >= 0)
		r->usage_out = out;
}

void
openai_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *content = json_path(j, "choices.0.message.content");
	cJSON *fin = json_path(j, "choices.0.finish_reason");

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
openai_build_count(const struct endpoint_info *ep, const char *prompt, size_t len,
    struct http_req *req, struct aerr *err)
{
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
};
