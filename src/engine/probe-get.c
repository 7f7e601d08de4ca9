/*
 * probe-get.c: reading a serving engine's status API. One GET per URL, no
 * prompt, each exchange recorded as evidence as a probe's chat exchanges are
 * (its own transaction and audit entry, the credential header redacted) and
 * classed once: a 2xx with a body is answered, anything else is what kept it
 * from being read. Part of the probe engine (probe-engine.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

struct get_batch {
	struct probe_env *env;
	struct px_get *g;
	const char *secret;
};

static int
get_prepare(void *user, size_t i, struct http_req *req)
{
	struct get_batch *b = user;
	char *auth;

	memset(req, 0, sizeof *req);
	req->url = xstrdup(b->g[i].url);
	req->method = "GET";
	http_req_header(req, "Accept", "application/json, text/plain", 0);
	if (b->secret != NULL) {
		auth = xasprintf("Bearer %s", b->secret);
		http_req_header(req, "Authorization", auth, 1);
		free(auth);
	}
	b->g[i].r.sent = 1;
	b->g[i].r.seq = ++b->env->seq;
	b->g[i].r.after = b->env->completions;
	b->env->sending_seq = b->g[i].r.seq;
	return 0;
}

static enum px_class
get_class(const struct http_resp *resp)
{
	if (resp->status == 0 || resp->error[0] != '\0')
		return PXC_TRANSPORT;
	if (resp->status == 429)
		return PXC_RATE_LIMITED;
	if (resp->status >= 500)
		return PXC_SERVER_ERROR;
	if (resp->status < 200 || resp->status >= 300)
		return PXC_REFUSED_OTHER;
	return resp->truncated || resp->body.len == 0 ? PXC_UNREADABLE : PXC_ANSWERED;
}

static void
get_done(void *user, size_t i, const struct http_req *req, const struct http_resp *resp,
    int will_retry)
{
	struct get_batch *b = user;
	struct probe_env *env = b->env;
	struct px_get *g = &b->g[i];
	enum px_class cls = get_class(resp);
	int64_t eid = 0;

	env->completions++;
	if (env->fatal.code == 0 && record_exchange(env, &g->r, req, resp, cls, 0, &eid,
	    &env->fatal) != 0)
		aerr_prefix(&env->fatal, "%s", px_replaying(env) ? "replaying the record" :
		    "recording evidence");
	if (will_retry)
		return;
	g->r.evidence_id = eid;
	g->r.status = resp->status;
	g->r.truncated = resp->truncated;
	g->r.cls = cls;
	g->total_ms = resp->t_total_ms;
	if (resp->error[0] != '\0')
		snprintf(g->r.transport_error, sizeof g->r.transport_error, "%s", resp->error);
	else if (resp->truncated)
		snprintf(g->r.transport_error, sizeof g->r.transport_error, "HTTP %ld with a body cut "
		    "at %zu bytes", resp->status, resp->body.len);
	else if (cls == PXC_UNREADABLE)
		snprintf(g->r.transport_error, sizeof g->r.transport_error, "HTTP %ld with an empty "
		    "body", resp->status);
	buf_free(&g->body);
	buf_init(&g->body);
	buf_add(&g->body, resp->body.data ? resp->body.data : "", resp->body.len);
	env->requests_done++;
	report_progress(env);
}

int
px_get(struct probe_env *env, struct px_get *g, size_t n, const char *secret)
{
	struct get_batch b = { env, g, secret };
	struct aerr err = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++) {
		memset(&g[i].r, 0, sizeof g[i].r);
		prov_result_init(&g[i].r.res);
		g[i].r.tenant = -1;
		g[i].r.cls = PXC_UNSENT;
		buf_init(&g[i].body);
	}
	if (env->interrupted)
		return AV_RUNTIME;
	rc = px_http_run(env, n, get_prepare, get_done, &b, 0, &err);
	if (rc != 0)
		env->interrupted = 1;
	return rc;
}

void
px_get_free(struct px_get *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		prov_result_free(&g[i].r.res);
		buf_free(&g[i].body);
	}
}
