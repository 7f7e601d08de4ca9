/*
 * providers/cloudflare.c: Cloudflare Workers AI's native API,
 * POST /client/v4/accounts/ACCOUNT/ai/run/MODEL with a bearer token. The
 * endpoint URL is either the API origin with the option "account", or the
 * account's .../ai base. Answers come in Cloudflare's envelope
 * {"result":{"response","usage"},"success","errors"}; streams are SSE of
 * {"response":...} ending in [DONE]. (Cloudflare's OpenAI-compatible /ai/v1
 * uses the openai adapter.) Bodies follow the text-generation input schema
 * of Workers AI's chat models (messages, max_tokens, temperature, stream).
 * Any "errors" entry or "error" member counts as an error; its internal code
 * is read as Workers AI's errors page lists them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

static int
cloudflare_build_chat(const struct endpoint *ep, const struct prov_chat *c,
    struct http_req *req, struct aerr *err)
{
	const char *account = endpoint_option(ep, "account", NULL);
	cJSON *b = cJSON_CreateObject();
	char *path = account ? xasprintf("client/v4/accounts/%s/ai/run/%s", account, c->model) :
	    xasprintf("run/%s", c->model);

	(void)err;
	req->url = url_join(ep->url, path);
	free(path);
	if (!c->omit_required)
		cJSON_AddItemToObject(b, "messages", prov_user_messages(c));
	cJSON_AddNumberToObject(b, "max_tokens", c->max_tokens);
	cJSON_AddNumberToObject(b, "temperature", 0);
	if (c->stream)
		cJSON_AddTrueToObject(b, "stream");
	prov_set_json_body(req, b);
	return 0;
}

static int
cloudflare_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	char *v = xasprintf("Bearer %s", secret);

	(void)ep;
	(void)err;
	http_req_header(req, "Authorization", v, 1);
	free(v);
	return 0;
}

/* Workers AI's usage has OpenAI's names (prompt_tokens, completion_tokens, and
 * prompt_tokens_details.cached_tokens for its prefix caching). */
static void
cloudflare_usage(cJSON *usage, struct prov_result *r)
{
	prov_read_usage(r, usage, &openai_usage_shape);
}

/* Workers AI's internal error codes (its errors page), by what they mean. */
static enum prov_refusal
cloudflare_refusal(int code)
{
	static const struct { int code; enum prov_refusal why; } t[] = {
		{ 5007, PREF_NOT_FOUND }, { 3042, PREF_NOT_FOUND },
		{ 3006, PREF_SIZE },
		{ 3036, PREF_RATE }, { 3040, PREF_RATE },
		{ 5018, PREF_AUTH }, { 3041, PREF_AUTH }, { 5016, PREF_AUTH }, { 3023, PREF_AUTH },
		{ 10000, PREF_AUTH },
		{ 5004, PREF_PARAM }, { 3003, PREF_PARAM }, { 5005, PREF_PARAM },
		{ 3007, PREF_SERVER }, { 3008, PREF_SERVER },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (code == t[i].code)
			return t[i].why;
	return PREF_NONE;
}

static void
cloudflare_errors(cJSON *j, struct prov_result *r)
{
	cJSON *errs = cJSON_GetObjectItemCaseSensitive(j, "errors");
	cJSON *m = json_path(j, "errors.0.message"), *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	cJSON *code = json_path(j, "errors.0.code");

	if (cJSON_GetArraySize(errs) > 0) {
		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
		if (cJSON_IsNumber(code)) {
			char n[24];

			snprintf(n, sizeof n, "%d", code->valueint);
			prov_set_refusal(r, n, cloudflare_refusal(code->valueint));
		}
	}
	else if (cJSON_IsString(e))
		prov_set_error(r, e->valuestring);
	else if (cJSON_IsObject(e))
		prov_set_error(r, cJSON_IsString(json_path(e, "message")) ?
		    json_path(e, "message")->valuestring : NULL);
	else if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "success")))
		prov_set_error(r, NULL);
}

static void
cloudflare_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *text = json_path(j, "result.response");

	(void)status;
	cloudflare_errors(j, r);
	if (cJSON_IsString(text))
		buf_adds(&r->text, text->valuestring);
	cloudflare_usage(json_path(j, "result.usage"), r);
	r->parsed = r->is_error || cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "result"));
}

static void
cloudflare_stream_event(const char *event, const char *data, struct prov_result *r)
{
	cJSON *j, *text;

	(void)event;
	if (strcmp(data, "[DONE]") == 0 || (j = cJSON_Parse(data)) == NULL)
		return;
	cloudflare_errors(j, r);
	if (r->is_error)
		r->stream_error = 1;
	text = cJSON_GetObjectItemCaseSensitive(j, "response");
	if (cJSON_IsString(text))
		buf_adds(&r->text, text->valuestring);
	cloudflare_usage(cJSON_GetObjectItemCaseSensitive(j, "usage"), r);
	cJSON_Delete(j);
}

const struct provider provider_cloudflare = {
	.api = "cloudflare",
	.can_stream = 1,
	.build_chat = cloudflare_build_chat,
	.auth = cloudflare_auth,
	.parse = cloudflare_parse,
	.stream_event = cloudflare_stream_event,
};
