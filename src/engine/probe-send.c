/*
 * probe-send.c: sending a batch of requests for a probe (px_send): prompts
 * generated just before sending, the budget enforced on every request,
 * responses scanned once for every canary of the run, progress reported.
 * Part of the probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

/* ---- sending a batch ---- */

struct batch {
	struct probe_env *env;
	struct px_req *r;
	const size_t *idx;            /* request i of the run is r[idx[i]], or NULL: r[i] */
};

void
report_progress(struct probe_env *env)
{
	struct probe_progress p = {
		env->probe_name, env->probe_index, env->probe_count, env->requests_done,
		env->requests_planned, env->tokens_in + env->tokens_out,
	};

	if (env->opts->progress != NULL)
		env->opts->progress(env->opts->progress_arg, &p);
}

/* What a request may cost: its prompt by the calibration with a quarter to spare (the
 * vendor's count may differ), and its whole output allowance. */
static int64_t
px_reserve(const struct px_req *r)
{
	return r->est_max + r->est_max / 4 + r->max_tokens;
}

/* Whether the tenant's requests carry a credential: a rejudge holds none of
 * the secrets, but knows the run's tenants had them. */
static int
keyed(const struct probe_env *env, int tenant)
{
	return env->tenant_secret[tenant] != NULL || env->replay_keyed;
}

static int
px_prepare(void *user, size_t i, struct http_req *req)
{
	struct batch *b = user;
	struct probe_env *env = b->env;
	struct px_req *r = &b->r[b->idx ? b->idx[i] : i];
	int64_t reserve = px_reserve(r);
	struct aerr err = { 0 };

	if ((env->opts->cancel != NULL && *env->opts->cancel) || env->fatal.code != 0)
		return 1;
	/* Fail fast: a credential refused and never accepted is not tried again. */
	if (env->tenant_auth_refused[r->tenant] > 0 && env->tenant_other[r->tenant] == 0)
		return 1;
	if (r->kind != PX_COUNT && r->capped < 0)
		return 1;   /* over the plan's bound for it: never sent */
	if (r->kind == PX_CHAT && env->rate_ceiling > 0 && r->est_min >= env->rate_ceiling) {
		r->rate_skipped = 1;
		r->cls = PXC_RATE_LIMITED;
		return 1;
	}
	if (env->opts->budget_tokens > 0 &&
	    env->tokens_in + env->tokens_out + env->reserved + reserve > env->opts->budget_tokens) {
		env->budget_hit = BUDGET_HIT_TOKENS;
		return 1;
	}
	/* In USD: what was counted at the endpoint's prices, and what is reserved at the
	 * dearer of the two, so the budget is never overrun. */
	if (env->opts->budget_usd > 0 &&
	    ((double)env->tokens_in * env->ep.price_in_per_mtok + (double)env->tokens_out * env->ep.price_out_per_mtok +
	    (double)(env->reserved + reserve) * fmax(env->ep.price_in_per_mtok, env->ep.price_out_per_mtok)) / 1e6 >
	    env->opts->budget_usd) {
		env->budget_hit = BUDGET_HIT_USD;
		return 1;
	}
	/* A rejudge of a request the run kept by recipe compares the recipe: the
	 * prompt it describes is not made again. */
	req->by_recipe = env->replay != NULL && replay_kept_by_recipe(env, r->seq);
	if (build_body(&env->ep, env->prov, r, req, &err) != 0 ||
	    (env->tenant_secret[r->tenant] != NULL &&
	    env->prov->auth(&env->ep, env->tenant_secret[r->tenant], req, &err) != 0)) {
		snprintf(r->transport_error, sizeof r->transport_error, "%.255s", err.msg);
		return 1;
	}
	/* A credential goes only within the endpoint's URL (origin and path), which
	 * lies within what its writer bound it to: an adapter's path outside it (a
	 * server-root /tokenize beside /v1) is never sent with the key. */
	if (keyed(env, r->tenant) && !url_within_origin(req->url, env->ep.url)) {
		snprintf(r->transport_error, sizeof r->transport_error, "not sent: %.100s is outside "
		    "the endpoint's URL %.100s, where its credential may go", req->url, env->ep.url);
		r->outside_url = 1;
		return 1;
	}
	req->cainfo = endpoint_option(&env->ep, "ca-file", NULL);
	http_req_header(req, "Expect", "", 0);   /* no 100-continue round trip for large bodies */
	cJSON_DeleteItemFromObject(req->rec_headers, "Expect");
	if (env->opts->pace != NULL)
		env->opts->pace(env->opts->pace_arg);
	env->reserved += reserve;
	r->sent = 1;
	r->after = env->completions;
	env->sending_seq = r->seq;
	return 0;
}

static void
px_leaks_clear(struct px_req *r)
{
	free(r->leaked);
	r->leaked = NULL;
	r->nleaked = 0;
}

struct scan_ctx {
	struct probe_env *env;
	struct px_req *r;
	unsigned own;                 /* bit k: nonce k of the request was echoed */
	int text_pass;
};

static void
on_canary(void *arg, const char *nonce, int64_t owner, int tenant)
{
	struct scan_ctx *s = arg;
	struct px_req *r = s->r;
	struct px_leak *l;

	if (owner == r->seq) {
		for (int k = 0; k < 3; k++)
			if (s->text_pass && strcmp(nonce, r->recipe.nonces[k]) == 0)
				s->own |= 1u << k;
		return;
	}
	for (size_t i = 0; i < r->nleaked; i++)
		if (strcmp(r->leaked[i].nonce, nonce) == 0)
			return;
	r->leaked = xrealloc(r->leaked, (r->nleaked + 1) * sizeof *r->leaked);
	l = &r->leaked[r->nleaked++];
	*l = (struct px_leak){ .owner_seq = owner, .owner_tenant = tenant,
	    .other_tenant = tenant != r->tenant };
	snprintf(l->nonce, sizeof l->nonce, "%s", nonce);
	if (tenant != r->tenant)
		r->leaks_tenant++;
	else
		r->leaks_request++;
}

/* A 2xx is judged by its content; a body that has none to judge (empty,
 * compressed though none was asked for, not UTF-8, not the API's shape —
 * e.g. JSON nested past what the parser takes) is no answer at all. */
static void
unreadable_2xx(const struct probe_env *env, const struct http_resp *resp,
    const struct prov_result *res, char *why, size_t whysz)
{
	const char *enc = http_resp_header(resp, "content-encoding");
	const char *what = NULL;

	if (resp->truncated)
		return;   /* cut at the cap: said so already */
	if (resp->body.len == 0)
		what = "an empty body";
	else if (enc != NULL && strcasecmp(enc, "identity") != 0)
		what = "a body compressed though no compression was asked for";
	else if (!utf8_valid(resp->body.data, resp->body.len))
		what = "a body that is not valid UTF-8";
	else if (!res->parsed)
		what = "a body that is not a response of this API";
	if (what != NULL)
		snprintf(why, whysz, "HTTP %ld with %s (%zu bytes, %s API)", resp->status, what,
		    resp->body.len, env->ep.api);
}

/* Whether a request got as far as the vendor: a response, or a failure after the
 * connection was made (a timeout, a connection closed mid-answer). A name that
 * did not resolve, a refused connection or a failed TLS handshake sent nothing. */
static int
reached_vendor(const struct http_resp *resp)
{
	switch (resp->curl_code) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
		return resp->status > 0;
	default:
		return 1;
	}
}

/* The exchange's outcome class, decided once before any probe judges it. */
static enum px_class
px_class_of(struct probe_env *env, const struct px_req *r, const struct http_resp *resp,
    struct prov_result *res)
{
	char why[256] = "";
	enum px_class cls;

	if (r->kind == PX_CHAT && resp->status >= 200 && resp->status < 300)
		unreadable_2xx(env, resp, res, why, sizeof why);
	cls = px_classify(resp->status, res, resp->error[0] != '\0' || resp->truncated ||
	    why[0] != '\0');
	if (r->kind == PX_COUNT && resp->status >= 200 && resp->status < 300 &&
	    resp->error[0] == '\0')
		cls = PXC_ANSWERED;   /* judged by its count below */
	return cls;
}

/* The evidence of exchange seq, for the leaks that cite it (px_leak_evidence). */
static void
seq_evidence_set(struct probe_env *env, int64_t seq, int64_t eid)
{
	if ((size_t)seq >= env->nseq_evidence) {
		size_t n = (size_t)seq + 64;

		env->seq_evidence = xrealloc(env->seq_evidence, n * sizeof *env->seq_evidence);
		memset(env->seq_evidence + env->nseq_evidence, 0,
		    (n - env->nseq_evidence) * sizeof *env->seq_evidence);
		env->nseq_evidence = n;
	}
	env->seq_evidence[seq] = eid;
}

/* The request's last attempt as the probes read it: its response (res, taken
 * over), its own nonces found (own), its class and its evidence; and what it
 * says of its tenant's credential. */
static void
px_settle(struct probe_env *env, struct px_req *r, const struct http_resp *resp,
    struct prov_result *res, unsigned own, enum px_class cls, int64_t eid)
{
	r->evidence_id = eid;
	r->status = resp->status;
	r->truncated = resp->truncated;
	/* As recorded (to the microsecond): a rejudge reads the same figure. */
	r->ttft_ms = resp->t_first_byte_ms > 0 ? round(resp->t_first_byte_ms * 1000) / 1000 :
	    (double)resp->t_ttfb_ms;
	if (resp->error[0] != '\0')
		snprintf(r->transport_error, sizeof r->transport_error, "%s", resp->error);
	else if (resp->status >= 300 && resp->status < 400)
		snprintf(r->transport_error, sizeof r->transport_error, "HTTP %ld redirect to %.120s was "
		    "not followed (credentials are never sent on)", resp->status,
		    http_resp_header(resp, "location") ? http_resp_header(resp, "location") : "nowhere");
	else if (r->kind == PX_CHAT && px_is_2xx(r))
		unreadable_2xx(env, resp, res, r->transport_error, sizeof r->transport_error);
	prov_result_free(&r->res);
	r->res = *res;
	r->nonce_mask = own;
	r->nonces_echoed = (own & 1) + ((own >> 1) & 1) + ((own >> 2) & 1);
	if (r->kind == PX_COUNT && px_is_2xx(r)) {
		cJSON *j = cJSON_ParseWithLength(resp->body.data ? resp->body.data : "", resp->body.len);

		if (j == NULL || env->prov->parse_count(j, &r->count_tokens) != 0)
			r->count_tokens = -1;
		cJSON_Delete(j);
	}
	r->cls = r->kind == PX_COUNT && cls == PXC_ANSWERED && r->count_tokens < 0 ? PXC_UNREADABLE :
	    cls;
	env->answered += r->cls == PXC_ANSWERED && r->kind == PX_CHAT;
	if (r->cls == PXC_REFUSED_OTHER && r->res.refusal == PREF_AUTH) {
		if (env->tenant_auth_refused[r->tenant]++ == 0)
			px_describe(r, env->tenant_auth_msg[r->tenant], sizeof env->tenant_auth_msg[0]);
	} else if (r->cls != PXC_TRANSPORT) {
		env->tenant_other[r->tenant]++;
	}
}

/* The run's counts after a request: tokens against the budget, what the vendor billed. */
static void
px_account(struct probe_env *env, const struct px_req *r, const struct http_resp *resp)
{
	const struct prov_usage *u = &r->res.usage;

	if (u->in >= 0)
		env->usage_seen = 1;
	env->reserved -= px_reserve(r);
	/* Tokens in are the larger of the prompt's size (as it was made: at the target, by
	 * the calibration or the bound the target needed) and what the vendor says it read,
	 * of the requests that reached the vendor: a connection never made sent nothing.
	 * The budget reserved the most it could be before sending. */
	if (reached_vendor(resp)) {
		env->tokens_in += u->in > r->est_tokens ? u->in : r->est_tokens;
		env->tokens_out += u->out >= 0 ? u->out : (r->kind == PX_CHAT ? r->max_tokens : 0);
	}
	/* What the vendor billed: its usage; without one, an answer is billed at aivet's
	 * estimate and a refusal at nothing (the vendors aivet supports bill no refusal). */
	if (u->in >= 0)
		env->billed_in += u->in;
	else if (r->cls == PXC_ANSWERED)
		env->billed_in += r->est_tokens;
	if (u->out >= 0)
		env->billed_out += u->out;
	env->requests_done++;
}

static void
px_done(void *user, size_t i, const struct http_req *req, const struct http_resp *resp,
    int will_retry)
{
	struct batch *b = user;
	struct probe_env *env = b->env;
	struct px_req *r = &b->r[b->idx ? b->idx[i] : i];
	struct prov_result res;
	struct scan_ctx sc = { env, r, 0, 1 };
	enum px_class cls;
	int64_t eid = 0;

	env->completions++;
	prov_result_init(&res);
	if (resp->body.len > 0 && r->kind != PX_COUNT)
		provider_read(env->prov, r->stream, resp->body.data, resp->body.len, resp->status, &res);
	if (!will_retry) {
		px_leaks_clear(r);
		r->leaks_tenant = r->leaks_request = 0;
		canary_scan(env->canaries, res.text.data ? res.text.data : "", res.text.len, on_canary, &sc);
		sc.text_pass = 0;
		canary_scan(env->canaries, resp->body.data ? resp->body.data : "", resp->body.len,
		    on_canary, &sc);
	}
	cls = px_class_of(env, r, resp, &res);
	if (env->fatal.code == 0 && record_exchange(env, r, req, resp, cls,
	    r->leaks_tenant + r->leaks_request > 0, &eid, &env->fatal) != 0)
		aerr_prefix(&env->fatal, "%s", px_replaying(env) ? "replaying the record" :
		    "recording evidence");
	seq_evidence_set(env, r->seq, eid);
	/* Known from the first attempt: the engine sends the next request while this one
	 * waits to be retried, and that one is no smaller. */
	if (cls == PXC_RATE_LIMITED && r->kind == PX_CHAT && (strcasestr(res.error, "token") ||
	    strcasestr(res.error, "too large")) && (env->rate_ceiling == 0 ||
	    r->est_max < env->rate_ceiling))
		env->rate_ceiling = r->est_max;
	if (will_retry) {
		prov_result_free(&res);
		return;
	}
	px_settle(env, r, resp, &res, sc.own, cls, eid);
	px_account(env, r, resp);
	report_progress(env);
}

/* An endpoint that refuses the output-limit field by name (400, "Unsupported
 * parameter: 'max_tokens'") is sent the other field from then on, once a run
 * and never against the user's own max-tokens-field; the requests refused
 * for it are sent again. The switch is kept in the run's calibration. */
static int
px_switch_limit_field(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	const char *cur, *other = NULL;
	size_t *idx, k = 0;
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	int rc;

	if (env->limit_switched || env->prov->limit_field == NULL ||
	    endpoint_option(&env->ep, "max-tokens-field", NULL) != NULL)
		return 0;
	cur = env->prov->limit_field(&env->ep);
	idx = xcalloc(n, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		const char *o = r[i].kind == PX_CHAT ? prov_limit_field_refused(&r[i].res, r[i].status,
		    cur) : NULL;

		if (o == NULL)
			continue;
		if (other == NULL) {
			other = o;
			env->limit_switch = cJSON_CreateObject();
			cJSON_AddStringToObject(env->limit_switch, "from", cur);
			cJSON_AddStringToObject(env->limit_switch, "to", o);
			cJSON_AddStringToObject(env->limit_switch, "reason", r[i].res.error);
			cJSON_AddNumberToObject(env->limit_switch, "evidence", (double)r[i].evidence_id);
		}
		idx[k++] = i;
		r[i].sent = 0;
		r[i].status = 0;
		r[i].transport_error[0] = '\0';
		prov_result_free(&r[i].res);
		prov_result_init(&r[i].res);
		px_leaks_clear(&r[i]);
	}
	if (k == 0) {
		free(idx);
		return 0;
	}
	env->limit_switched = 1;
	if (env->ep.options == NULL)
		env->ep.options = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(env->ep.options, "max-tokens-field");
	cJSON_AddStringToObject(env->ep.options, "max-tokens-field", other);
	b.idx = idx;
	rc = px_http_run(env, k, px_prepare, px_done, &b, concurrency, &err);
	free(idx);
	return rc;
}

/* A request made ready to send: its prompt sized, its sequence number and its
 * nonces registered as canaries of its tenant. */
static void
px_make(struct probe_env *env, struct px_req *q)
{
	if (q->max_tokens == 0)
		q->max_tokens = env->max_tokens;
	if (!env->prov->can_stream)
		q->stream = 0;
	if (q->kind != PX_COUNT) {
		int64_t units = q->target_tokens > 0 ? px_size(env, q) : q->units;

		/* As prompt_recipe_new() makes it, from the run's seed, not the system's: a
		 * rejudge makes the same prompt. */
		memset(&q->recipe, 0, sizeof q->recipe);
		q->recipe.units = units;
		px_random(env, &q->recipe.seed, sizeof q->recipe.seed);
		for (int k = 0; k < 3; k++) {
			memcpy(q->recipe.nonces[k], NONCE_PREFIX, NONCE_PREFIX_LEN);
			px_random_alnum(env, q->recipe.nonces[k] + NONCE_PREFIX_LEN,
			    NONCE_LEN - NONCE_PREFIX_LEN);
		}
		q->recipe.shared_units = q->shared_units;
		q->recipe.shared_seed = q->shared_seed;
		q->recipe.planted = q->planted;
		q->recipe.planted_units = q->planted_units;
		q->est_tokens = est_tokens(env, &q->recipe, q->must_exceed ? env->tpu_min :
		    env->tpu_max);
		q->est_max = est_tokens(env, &q->recipe, env->tpu_max);
		q->est_min = est_tokens(env, &q->recipe, env->tpu_min);
	}
	q->seq = ++env->seq;
	prov_result_init(&q->res);
	q->leaked = NULL;
	q->nleaked = 0;
	if (q->kind != PX_COUNT)
		for (int k = 0; k < 3; k++)
			canary_add(env->canaries, q->recipe.nonces[k], q->seq, q->tenant);
}

/* Sizes follow the vendor's own count: a word is f times the tokens the
 * calibration said, so every later prompt is made of fewer words; the change
 * is kept for the run's calibration with what it rests on. */
static void
px_follow_count(struct probe_env *env, double f, const char *from, int64_t vendor, int64_t est,
    int64_t evidence)
{
	cJSON *x = cJSON_CreateObject();

	env->tokens_per_unit *= f;
	env->tpu_min *= f;
	env->tpu_max *= f;
	if (env->size_follow == NULL)
		env->size_follow = cJSON_CreateArray();
	cJSON_AddStringToObject(x, "from", from);
	cJSON_AddNumberToObject(x, "vendor_tokens", (double)vendor);
	cJSON_AddNumberToObject(x, "estimated_tokens", (double)est);
	cJSON_AddNumberToObject(x, "factor", round(f * 1e4) / 1e4);
	cJSON_AddNumberToObject(x, "evidence", (double)evidence);
	cJSON_AddItemToArray(env->size_follow, x);
}

/* A prompt made to fit under the advertised context and refused for size, where
 * the vendor's error counted it larger than aivet's estimate, was mis-sized, not
 * refused for capacity: the sizes follow the vendor's count and the prompt is
 * sent again, smaller, once, before any probe judges it. An accepted prompt
 * whose usage counts it larger than estimated makes later prompts smaller too. */
static int
px_resize(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	size_t *idx, k = 0;
	double f = 1;
	int rc, at = -1;

	for (size_t i = 0; i < n; i++) {
		const struct px_req *q = &r[i];

		if (q->kind != PX_CHAT || q->target_tokens <= 0 || q->must_exceed || !q->sent)
			continue;
		/* Usage above the estimate on an accepted prompt: later prompts are sized by it. */
		if (q->cls == PXC_ANSWERED && q->est_tokens >= 1000 && q->res.usage.in >
		    q->est_tokens + q->est_tokens / 50 && q->res.usage.in < 2 * q->est_tokens &&
		    (double)q->res.usage.in / (double)q->est_tokens > f) {
			f = (double)q->res.usage.in / (double)q->est_tokens;
			at = (int)i;
		}
		if (q->cls == PXC_REFUSED_SIZE && !q->resized && q->res.size_tokens > q->est_tokens &&
		    q->target_tokens < env->ep.context_tokens && (double)q->res.size_tokens /
		    (double)q->est_tokens > f) {
			f = (double)q->res.size_tokens / (double)q->est_tokens;
			at = (int)i;
		}
	}
	if (at < 0)
		return 0;
	px_follow_count(env, f, r[at].cls == PXC_REFUSED_SIZE ? "refusal" : "usage",
	    r[at].cls == PXC_REFUSED_SIZE ? r[at].res.size_tokens : r[at].res.usage.in,
	    r[at].est_tokens, r[at].evidence_id);
	idx = xcalloc(n, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		struct px_req *q = &r[i];

		if (q->kind != PX_CHAT || q->target_tokens <= 0 || q->must_exceed || !q->sent ||
		    q->cls != PXC_REFUSED_SIZE || q->resized || q->res.size_tokens <= q->est_tokens ||
		    q->target_tokens >= env->ep.context_tokens)
			continue;
		q->resized = 1;
		q->first_size_tokens = q->res.size_tokens;
		q->first_evidence_id = q->evidence_id;
		q->sent = 0;
		q->status = 0;
		q->transport_error[0] = '\0';
		prov_result_free(&q->res);
		px_leaks_clear(q);
		px_make(env, q);
		idx[k++] = i;
	}
	if (k == 0) {
		free(idx);
		return 0;
	}
	b.idx = idx;
	rc = px_http_run(env, k, px_prepare, px_done, &b, concurrency, &err);
	free(idx);
	return rc;
}

int
px_send(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++)
		px_make(env, &r[i]);
	rc = px_http_run(env, n, px_prepare, px_done, &b, concurrency, &err);
	if (rc == 0 && env->fatal.code == 0)
		rc = px_switch_limit_field(env, r, n, concurrency);
	if (rc == 0 && env->fatal.code == 0 && !(env->opts->cancel != NULL && *env->opts->cancel))
		rc = px_resize(env, r, n, concurrency);
	if (env->opts->cancel != NULL && *env->opts->cancel)
		env->interrupted = 1;
	return rc != 0 || env->fatal.code != 0 ? AV_RUNTIME : 0;
}

void
px_free(struct px_req *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		prov_result_free(&r[i].res);
		px_leaks_clear(&r[i]);
	}
}

