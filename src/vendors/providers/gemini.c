/*
 * providers/gemini.c: Google's Gemini API. The endpoint URL is the API origin
 * (https://generativelanguage.googleapis.com, "/v1beta" is added unless
 * present); the key goes in x-goog-api-key. generateContent answers JSON,
 * streamGenerateContent?alt=sse a stream of the same objects; usage is
 * usageMetadata, where thinking tokens (thoughtsTokenCount) are output too;
 * models/M:countTokens counts a prompt. Bodies follow GenerateContentRequest
 * of googleapis' google/ai/generativelanguage/v1beta generative_service.proto.
 * A prompt the API blocks is a 200 without candidates whose
 * promptFeedback.blockReason says why: a refusal (blocked), not an answer.
 * Errors are google.rpc.Status ({"error":{"code","message","status"}}).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

static char *
gemini_url(const struct endpoint *ep, const char *model, const char *method)
{
	size_t n = strlen(ep->url);
	int versioned;

	while (n > 0 && ep->url[n - 1] == '/')
		n--;
	versioned = (n >= 7 && strncmp(ep->url + n - 7, "/v1beta", 7) == 0) ||
	    (n >= 3 && strncmp(ep->url + n - 3, "/v1", 3) == 0);
	return xasprintf("%.*s%s/models/%s:%s", (int)n, ep->url, versioned ? "" : "/v1beta",
	    model, method);
}

static cJSON *
gemini_contents(const char *prompt)
{
	cJSON *contents = cJSON_CreateArray(), *c = cJSON_CreateObject(), *parts = cJSON_CreateArray(),
	    *p = cJSON_CreateObject();

	cJSON_AddStringToObject(c, "role", "user");
	cJSON_AddItemToObject(p, "text", cJSON_CreateStringReference(prompt));
	cJSON_AddItemToArray(parts, p);
	cJSON_AddItemToObject(c, "parts", parts);
	cJSON_AddItemToArray(contents, c);
	return contents;
}

static int
gemini_build_chat(const struct endpoint *ep, const struct prov_chat *c, struct http_req *req,
    struct aerr *err)
{
	cJSON *b = cJSON_CreateObject(), *g;

	(void)err;
	req->url = gemini_url(ep, c->model, c->stream ? "streamGenerateContent?alt=sse" :
	    "generateContent");
	if (!c->omit_required)
		cJSON_AddItemToObject(b, "contents", gemini_contents(c->prompt));
	g = cJSON_AddObjectToObject(b, "generationConfig");
	cJSON_AddNumberToObject(g, "maxOutputTokens", c->max_tokens);
	cJSON_AddNumberToObject(g, "temperature", 0);
	prov_set_json_body(req, b);
	return 0;
}

static int
gemini_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	(void)ep;
	(void)err;
	http_req_header(req, "x-goog-api-key", secret, 1);
	return 0;
}

/* google.rpc.Code names, as the Gemini API's troubleshooting page lists them. */
static enum prov_refusal
gemini_refusal(const char *status, const char *msg)
{
	static const struct { const char *status; enum prov_refusal why; } t[] = {
		{ "RESOURCE_EXHAUSTED", PREF_RATE },
		{ "UNAUTHENTICATED", PREF_AUTH },
		{ "PERMISSION_DENIED", PREF_AUTH },
		{ "NOT_FOUND", PREF_NOT_FOUND },
		{ "INTERNAL", PREF_SERVER },
		{ "UNAVAILABLE", PREF_SERVER },
		{ "DEADLINE_EXCEEDED", PREF_SERVER },
		{ "FAILED_PRECONDITION", PREF_OTHER },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (strcmp(status, t[i].status) == 0)
			return t[i].why;
	if (strcmp(status, "INVALID_ARGUMENT") == 0 && msg != NULL)
		return strstr(msg, "input token count") != NULL ? PREF_SIZE :
		    strstr(msg, "Unknown name") != NULL || strstr(msg, "Invalid value") != NULL ?
		    PREF_PARAM : PREF_NONE;
	return PREF_NONE;
}

/* promptTokenCount counts the whole prompt, cachedContentTokenCount the part
 * served from the cache. Thinking (thoughtsTokenCount) is output the budget
 * pays for, though no text shows it: counted apart from candidatesTokenCount. */
static const struct prov_usage_shape gemini_usage_shape = {
	.in = { "promptTokenCount" },
	.cached = "cachedContentTokenCount",
	.out = { "candidatesTokenCount", "thoughtsTokenCount" },
	.reasoning = "thoughtsTokenCount",
};

static void
gemini_chunk(cJSON *j, struct prov_result *r)
{
	cJSON *part, *fin = json_path(j, "candidates.0.finishReason"), *m = json_path(j, "error.message");
	cJSON *st = json_path(j, "error.status");
	cJSON *block = json_path(j, "promptFeedback.blockReason");

	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "error"))) {
		cJSON *d, *code = json_path(j, "error.code");

		prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
		if (cJSON_IsNumber(code) && code->valuedouble >= 100 && code->valuedouble < 600)
			r->error_code = (long)code->valuedouble;

		if (cJSON_IsString(st))
			prov_set_refusal(r, st->valuestring, gemini_refusal(st->valuestring,
			    cJSON_IsString(m) ? m->valuestring : NULL));
		/* A wrong key is a 400 INVALID_ARGUMENT whose ErrorInfo says API_KEY_INVALID. */
		cJSON_ArrayForEach(d, json_path(j, "error.details")) {
			cJSON *reason = cJSON_GetObjectItemCaseSensitive(d, "reason");

			if (cJSON_IsString(reason) && strcmp(reason->valuestring, "API_KEY_INVALID") == 0)
				r->refusal = PREF_AUTH;
		}
	}
	if (cJSON_IsString(block) && cJSON_GetArraySize(json_path(j, "candidates")) == 0) {
		char msg[96];

		snprintf(msg, sizeof msg, "the prompt was blocked: %s", block->valuestring);
		prov_set_error(r, msg);
		prov_set_refusal(r, block->valuestring, PREF_BLOCKED);
	}
	cJSON_ArrayForEach(part, json_path(j, "candidates.0.content.parts")) {
		cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");

		if (cJSON_IsString(text))
			buf_adds(&r->text, text->valuestring);
	}
	if (cJSON_IsString(fin))
		snprintf(r->finish, sizeof r->finish, "%s", fin->valuestring);
	prov_read_usage(r, cJSON_GetObjectItemCaseSensitive(j, "usageMetadata"), &gemini_usage_shape);
}

static void
gemini_parse(cJSON *j, long status, struct prov_result *r)
{
	(void)status;
	/* Gemini's REST streaming without alt=sse is a JSON array of chunks. */
	if (cJSON_IsArray(j)) {
		cJSON *c;

		cJSON_ArrayForEach(c, j)
			gemini_chunk(c, r);
	} else {
		gemini_chunk(j, r);
	}
	r->parsed = r->is_error || json_path(j, "candidates") != NULL || cJSON_IsArray(j) ||
	    json_path(j, "promptFeedback") != NULL;
}

static void
gemini_stream_event(const char *event, const char *data, struct prov_result *r)
{
	cJSON *j = cJSON_Parse(data);

	(void)event;
	if (j == NULL)
		return;
	gemini_chunk(j, r);
	/* A blocked prompt is the API's documented refusal, not a failed stream. */
	if (r->is_error && r->refusal != PREF_BLOCKED)
		r->stream_error = 1;
	cJSON_Delete(j);
}

static int
gemini_build_count(const struct endpoint *ep, const char *prompt, size_t len,
    struct http_req *req, struct aerr *err)
{
	cJSON *b = cJSON_CreateObject();

	(void)len;
	(void)err;
	req->url = gemini_url(ep, ep->model, "countTokens");
	cJSON_AddItemToObject(b, "contents", gemini_contents(prompt));
	prov_set_json_body(req, b);
	return 0;
}

static int
gemini_parse_count(cJSON *j, int64_t *tokens)
{
	*tokens = json_path_int(j, "totalTokens");
	return *tokens < 0 ? -1 : 0;
}

const struct provider provider_gemini = {
	.api = "gemini",
	.can_stream = 1,
	.count_method = "count_tokens",
	.build_chat = gemini_build_chat,
	.auth = gemini_auth,
	.parse = gemini_parse,
	.stream_event = gemini_stream_event,
	.build_count = gemini_build_count,
	.parse_count = gemini_parse_count,
};
