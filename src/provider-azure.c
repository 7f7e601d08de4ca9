/*
 * provider-azure.c: Azure OpenAI. The endpoint URL is the resource
 * (https://NAME.openai.azure.com); the model is the deployment name (or the
 * "deployment" option), the API version the "api-version" option. The key
 * goes in the api-key header. Bodies and responses are OpenAI's.
 */
#include "config.h"

#include <stdlib.h>

#include "provider.h"

static int
azure_build_chat(const struct endpoint_info *ep, const struct prov_chat *c, struct http_req *req,
    struct aerr *err)
{
	char *esc = curl_easy_escape(NULL, endpoint_option(ep, "deployment", c->model), 0);
	char *path = xasprintf("openai/deployments/%s/chat/completions?api-version=%s", esc,
	    endpoint_option(ep, "api-version", "2024-10-21"));

	curl_free(esc);
	req->url = url_join(ep->url, path);
	free(path);
	prov_set_json_body(req, openai_chat_body(c, 0));
	return 0;
}

static int
azure_auth(const struct endpoint_info *ep, const char *secret, struct http_req *req,
    struct aerr *err)
{
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
};
