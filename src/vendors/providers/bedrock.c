/*
 * providers/bedrock.c: Amazon Bedrock's Converse API. The endpoint URL is the
 * runtime origin (https://bedrock-runtime.REGION.amazonaws.com); model ids
 * are percent-encoded in the path (they contain ':'). Authentication is a
 * Bedrock API key as a bearer token, or with the option auth=sigv4 a
 * credential "KEYID:SECRET" signed by libcurl's SigV4 for the option
 * "region". ConverseStream is a binary AWS event stream, not SSE, so the
 * probes use Converse only. Bodies follow ConverseRequest of botocore's
 * bedrock-runtime service-2.json (2023-09-30). Errors carry x-amzn-ErrorType
 * and {"message"} (the type is also read from a body's "__type" where one is
 * given); the stop reason model_context_window_exceeded is kept and flagged.
 *
 * libcurl before 8.9.0 signs SigV4 wrongly for Bedrock: it encodes the
 * canonical path once where AWS encodes non-S3 paths twice (model ids hold
 * ':') and signs an expect header it never sends. Such a libcurl is refused
 * before anything is sent.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

static int
bedrock_build_chat(const struct endpoint *ep, const struct prov_chat *c,
    struct http_req *req, struct aerr *err)
{
	char *esc = curl_easy_escape(NULL, c->model, 0), *path;
	cJSON *b = cJSON_CreateObject(), *msgs, *m, *content, *t, *cfg;

	(void)err;
	path = xasprintf("model/%s/converse", esc);
	curl_free(esc);
	req->url = url_join(ep->url, path);
	free(path);
	if (!c->omit_required) {
		msgs = cJSON_AddArrayToObject(b, "messages");
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "user");
		content = cJSON_AddArrayToObject(m, "content");
		t = cJSON_CreateObject();
		cJSON_AddItemToObject(t, "text", cJSON_CreateStringReference(c->prompt));
		cJSON_AddItemToArray(content, t);
		cJSON_AddItemToArray(msgs, m);
	}
	cfg = cJSON_AddObjectToObject(b, "inferenceConfig");
	cJSON_AddNumberToObject(cfg, "maxTokens", c->max_tokens);
	cJSON_AddNumberToObject(cfg, "temperature", 0);
	prov_set_json_body(req, b);
	return 0;
}

int
bedrock_sigv4_usable(unsigned int curl_version_num, struct aerr *err)
{
	if (curl_version_num >= 0x080900)
		return 0;
	return aerr_set(err, AV_USAGE, "bedrock SigV4 is signed wrongly by libcurl %u.%u.%u (AWS "
	    "refuses its signatures for model ids with ':'): it needs libcurl 8.9.0 or newer, or a "
	    "Bedrock API key as a bearer credential (option auth=bearer)",
	    curl_version_num >> 16, (curl_version_num >> 8) & 0xff, curl_version_num & 0xff);
}

static int
bedrock_check(const struct endpoint *ep, struct aerr *err)
{
	const char *mode = endpoint_option(ep, "auth", "bearer");

	if (strcmp(mode, "sigv4") == 0)
		return bedrock_sigv4_usable(curl_version_info(CURLVERSION_NOW)->version_num, err);
	if (strcmp(mode, "bearer") != 0)
		return aerr_set(err, AV_USAGE, "endpoint option auth: '%s' is not bearer or sigv4", mode);
	return 0;
}

static int
bedrock_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	const char *mode = endpoint_option(ep, "auth", "bearer");

	if (strcmp(mode, "sigv4") == 0) {
		if (strchr(secret, ':') == NULL)
			return aerr_set(err, AV_USAGE, "bedrock SigV4 needs the credential as KEYID:SECRET");
		if (bedrock_sigv4_usable(curl_version_info(CURLVERSION_NOW)->version_num, err) != 0)
			return err->code;
		req->userpwd = xstrdup(secret);
		req->aws_sigv4 = xasprintf("aws:amz:%s:bedrock", endpoint_option(ep, "region",
		    "us-east-1"));
		if (req->rec_headers == NULL)
			req->rec_headers = cJSON_CreateObject();
		cJSON_AddStringToObject(req->rec_headers, "Authorization", "[redacted: AWS SigV4]");
		return 0;
	}
	if (strcmp(mode, "bearer") != 0)
		return aerr_set(err, AV_USAGE, "endpoint option auth: '%s' is not bearer or sigv4", mode);
	{
		char *v = xasprintf("Bearer %s", secret);

		http_req_header(req, "Authorization", v, 1);
		free(v);
	}
	return 0;
}

/* The Converse errors of service-2.json, by their HTTP status, with the message
 * deciding within ValidationException (400). */
static enum prov_refusal
bedrock_refusal(long status, const char *msg)
{
	switch (status) {
	case 403: return PREF_AUTH;            /* AccessDeniedException */
	case 404: return PREF_NOT_FOUND;       /* ResourceNotFoundException */
	case 429: return PREF_RATE;            /* ThrottlingException */
	case 408:                              /* ModelTimeoutException */
	case 424:                              /* ModelErrorException */
	case 500:                              /* InternalServerException */
	case 503: return PREF_SERVER;          /* ServiceUnavailable, ModelNotReady */
	case 400:
		if (msg != NULL && (strstr(msg, "too long") != NULL ||
		    strstr(msg, "context window") != NULL || strstr(msg, "too many input tokens") != NULL))
			return PREF_SIZE;
		if (msg != NULL && (strstr(msg, "extraneous key") != NULL ||
		    strstr(msg, "doesn't support") != NULL || strstr(msg, "not supported") != NULL))
			return PREF_PARAM;
		return PREF_NONE;
	}
	return PREF_NONE;
}

/* Converse's TokenUsage: inputTokens leaves out what was read from the prompt
 * cache and written to it (totalTokens includes them). */
static const struct prov_usage_shape bedrock_usage_shape = {
	.in = { "inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens" },
	.cached = "cacheReadInputTokens",
	.cache_write = "cacheWriteInputTokens",
	.out = { "outputTokens" },
};

static void
bedrock_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *block, *stop = cJSON_GetObjectItemCaseSensitive(j, "stopReason");
	cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
	cJSON *msg_l = cJSON_GetObjectItemCaseSensitive(j, "Message");
	cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "__type");

	if (json_path(j, "output") == NULL && (cJSON_IsString(msg) || cJSON_IsString(msg_l))) {
		prov_set_error(r, cJSON_IsString(msg) ? msg->valuestring : msg_l->valuestring);
		prov_set_refusal(r, cJSON_IsString(type) ? type->valuestring : NULL,
		    bedrock_refusal(status, r->error));
	}
	cJSON_ArrayForEach(block, json_path(j, "output.message.content")) {
		cJSON *text = cJSON_GetObjectItemCaseSensitive(block, "text");

		if (cJSON_IsString(text))
			buf_adds(&r->text, text->valuestring);
	}
	if (cJSON_IsString(stop)) {
		snprintf(r->finish, sizeof r->finish, "%s", stop->valuestring);
		r->cut_by_context = strcmp(stop->valuestring, "model_context_window_exceeded") == 0;
	}
	prov_read_usage(r, cJSON_GetObjectItemCaseSensitive(j, "usage"), &bedrock_usage_shape);
	r->parsed = r->is_error || json_path(j, "output") != NULL;
}

static void
bedrock_stream_event(const char *event, const char *data, struct prov_result *r)
{
	/* Never asked for: ConverseStream is not SSE. */
	(void)event;
	(void)data;
	(void)r;
}

const struct provider provider_bedrock = {
	.api = "bedrock",
	.can_stream = 0,
	.build_chat = bedrock_build_chat,
	.auth = bedrock_auth,
	.parse = bedrock_parse,
	.stream_event = bedrock_stream_event,
	.check = bedrock_check,
};
