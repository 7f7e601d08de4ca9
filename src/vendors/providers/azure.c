/*
 * providers/azure.c: Azure OpenAI. The endpoint URL is the resource
 * (https://NAME.openai.azure.com); the model is the deployment name (or the
 * "deployment" option), the API version the "api-version" option. The key
 * goes in the api-key header. Bodies and responses are OpenAI's, as the
 * Azure OpenAI inference spec of the api-version defines them: the GA
 * version 2024-10-21 (the default) takes max_tokens and has no
 * stream_options, so its streams carry no usage (the probes then take usage
 * from non-streamed answers and the count); the previews from
 * 2024-09-01-preview on define max_completion_tokens and stream_options.
 * The options max-tokens-field and stream-usage override both.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

#define AZURE_DEFAULT_VERSION "2024-10-21"

/* The previews from 2024-09-01-preview on (and the later dated versions)
 * define max_completion_tokens and stream_options; the GA versions up to
 * 2024-10-21 define neither. */
int
azure_version_has_completion_tokens(const char *v)
{
	size_t n = strlen(v);
	int preview = n > 8 && strcmp(v + n - 8, "-preview") == 0;

	if (n < 10)
		return 0;
	return preview ? strncmp(v, "2024-09-01", 10) >= 0 : strncmp(v, "2024-10-21", 10) > 0;
}

static const char *
azure_limit_field(const struct endpoint *ep)
{
	return endpoint_option(ep, "max-tokens-field", azure_version_has_completion_tokens(
	    endpoint_option(ep, "api-version", AZURE_DEFAULT_VERSION)) ? "max_completion_tokens" :
	    "max_tokens");
}

static const char *
azure_stream_usage(const struct endpoint *ep)
{
	return endpoint_option(ep, "stream-usage", azure_version_has_completion_tokens(
	    endpoint_option(ep, "api-version", AZURE_DEFAULT_VERSION)) ? "stream_options" : "none");
}

static int
azure_check(const struct endpoint *ep, struct aerr *err)
{
	return openai_check_options(ep, azure_limit_field(ep), err);
}

static int
azure_build_chat(const struct endpoint *ep, const struct prov_chat *c, struct http_req *req,
    struct aerr *err)
{
	const char *version = endpoint_option(ep, "api-version", AZURE_DEFAULT_VERSION);
	const char *field = azure_limit_field(ep);
	const char *usage = azure_stream_usage(ep);
	char *esc, *path;

	if (openai_check_options(ep, field, err) != 0)
		return err->code;
	esc = curl_easy_escape(NULL, endpoint_option(ep, "deployment", c->model), 0);
	path = xasprintf("openai/deployments/%s/chat/completions?api-version=%s", esc, version);
	curl_free(esc);
	req->url = url_join(ep->url, path);
	free(path);
	prov_set_json_body(req, openai_chat_body(c, 0, field, strcmp(usage, "stream_options") == 0));
	return 0;
}

static int
azure_auth(const struct endpoint *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
	(void)ep;
	(void)err;
	http_req_header(req, "api-key", secret, 1);
	return 0;
}

const struct provider provider_azure = {
	.api = "azure-openai",
	.can_stream = 1,
	.build_chat = azure_build_chat,
	.auth = azure_auth,
	.parse = openai_parse,
	.stream_event = openai_stream_event,
	.limit_field = azure_limit_field,
	.stream_usage = azure_stream_usage,
	.check = azure_check,
};
