/*
 * provider-bedrock.c: Amazon Bedrock's Converse API. The endpoint URL is the
 * runtime origin (https://bedrock-runtime.REGION.amazonaws.com); model ids
 * are percent-encoded in the path (they contain ':'). Authentication is a
 * Bedrock API key as a bearer token, or with the option auth=sigv4 a
 * credential "KEYID:SECRET" signed by libcurl's SigV4 for the option
 * "region". ConverseStream is a binary AWS event stream, not SSE, so the
 * probes use Converse only. Errors carry x-amzn-ErrorType and {"message"}.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

static int
bedrock_build_chat(const struct endpoint_info *ep, const struct prov_chat *c,
    struct http_req *req, struct aerr *err)
{
	char *esc = curl_easy_escape(NULL, c->model, 0), *path;
	cJSON *b = cJSON_CreateObject(), *msgs, *m, *content, *t, *cfg;

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

static int
bedrock_auth(const struct endpoint_info *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	const char *mode = endpoint_option(ep, "auth", "bearer");

	if (strcmp(mode, "sigv4") == 0) {
		if (strchr(secret, ':') == NULL)
			return aerr_set(err, AV_USAGE, "bedrock SigV4 needs the credential as KEYID:SECRET");
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

static void
bedrock_parse(cJSON *j, long status, struct prov_result *r)
{
	cJSON *block, *stop = cJSON_GetObjectItemCaseSensitive(j, "stopReason");
	cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
	cJSON *msg_l = cJSON_GetObjectItemCaseSensitive(j, "Message");
	int64_t in = json_path_int(j, "usage.inputTokens"), out = json_path_int(j, "usage.outputTokens");

	if (json_path(j, "output") == NULL && (cJSON_IsString(msg) || cJSON_IsString(msg_l)))
		prov_set_error(r, cJSON_IsString(msg) ? msg->valuestring : msg_l->valuestring);
	cJSON_ArrayForEach(block, json_path(j, "output.message.content")) {
		cJSON *text = cJSON_GetObjectItemCaseSensitive(block, "text");

		if (cJSON_IsString(text))
			buf_adds(&r->text, text->valuestring);
	}
	if (cJSON_IsString(stop))
		snprintf(r->finish, sizeof r->finish, "%s", stop->valuestring);
	if (in >= 0)
		r->usage_in = in;
	if (out >= 0)
		r->usage_out = out;
	r->parsed = r->is_error || json_path(j, "output") != NULL;
}

static void
bedrock_stream_event(const char *event, const char *data, struct prov_result *r)
{
	/* Never asked for: ConverseStream is not SSE. */
}

const struct provider provider_bedrock = {
	.api = "bedrock",
	.can_stream = 0,
	.build_chat = bedrock_build_chat,
	.auth = bedrock_auth,
	.parse = bedrock_parse,
	.stream_event = bedrock_stream_event,
};
