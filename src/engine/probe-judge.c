/*
 * probe-judge.c: sizing prompts and classing and judging answers: token
 * estimates, the size of a request, and the class of each exchange (answered,
 * refused for size or otherwise, rate limited, server error, transport,
 * unreadable). Part of the probe engine (probe-engine.c).
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

/* ---- sizing and judging answers ---- */

int64_t
px_units_for(const struct probe_env *env, int64_t tokens)
{
	double u = ((double)tokens - env->overhead_tokens) / env->tpu_max;

	return u < 0 ? 0 : (int64_t)u;
}

/* A prompt's tokens at tpu per word (the calibration's, or a bound). */
int64_t
est_tokens(const struct probe_env *env, const struct prompt_recipe *r, double tpu)
{
	return (int64_t)llround(env->overhead_tokens + (double)(r->units + r->shared_units +
	    r->planted_units) * tpu);
}

/* Words for a prompt of q->target_tokens. One that must be over the target is
 * sized by the most compact tokenizer (no fixed part counted), one that must
 * fit by the least compact; both equal the calibration when it was measured.
 * --max-prompt-tokens caps the largest the prompt can be: a prompt that must
 * exceed a target above the cap is not sent at all (q->capped = -1). */
int64_t
px_size(const struct probe_env *env, struct px_req *q)
{
	int64_t target = q->target_tokens, cap = env->max_prompt_tokens;
	double shared = (double)q->shared_units * env->tpu_max, u;

	if (q->must_exceed) {
		u = ceil(((double)target + 1 - (double)q->shared_units * env->tpu_min) / env->tpu_min);
		if (cap > 0 && env->overhead_tokens + (u + (double)q->shared_units) * env->tpu_max >
		    (double)cap) {
			q->capped = -1;
			return 0;
		}
		return u < 1 ? 1 : (int64_t)u;
	}
	if (cap > 0 && target > cap) {
		target = cap;
		q->capped = 1;
	}
	u = floor(((double)target - env->overhead_tokens - shared) / env->tpu_max);
	return u < 0 ? 0 : (int64_t)u;
}

int
px_is_2xx(const struct px_req *r)
{
	return r->status >= 200 && r->status < 300;
}

static const char *const class_names[PXC_COUNT] = {
	"unsent", "answered", "refused_size", "refused_other", "rate_limited", "server_error",
	"transport", "unreadable",
};

const char *
px_class_name(enum px_class c)
{
	return (unsigned)c < PXC_COUNT ? class_names[c] : "unsent";
}

/* The one place an exchange's outcome is decided. A status is read with the
 * body that came with it: a 400 is a size refusal only when its error says
 * so, and a 429 is a rate limit whatever its body says. */
enum px_class
px_classify(long status, const struct prov_result *res, int no_body_to_judge)
{
	enum prov_refusal why = res->refusal;
	int ok2xx = status >= 200 && status < 300;

	if (status == 0 || (status >= 300 && status < 400))
		return PXC_TRANSPORT;
	if (why == PREF_NONE && !ok2xx)
		why = prov_refusal_guess(status, NULL, NULL);
	if (ok2xx) {
		if (no_body_to_judge)
			return PXC_UNREADABLE;
		if (!res->is_error)
			return res->parsed ? PXC_ANSWERED : PXC_UNREADABLE;
		if (why == PREF_NONE)
			why = PREF_SERVER;   /* an error without a reason, after a 200 */
	} else if (status == 429) {
		return PXC_RATE_LIMITED;
	}
	switch (why) {
	case PREF_SIZE:
		return PXC_REFUSED_SIZE;
	case PREF_RATE:
		return PXC_RATE_LIMITED;
	case PREF_SERVER:
		return PXC_SERVER_ERROR;
	default:
		return status >= 500 ? PXC_SERVER_ERROR : PXC_REFUSED_OTHER;
	}
}

void
px_describe(const struct px_req *r, char *out, size_t n)
{
	if (r->rate_skipped)
		snprintf(out, n, "not sent: a prompt no larger stayed rate-limited");
	else if (r->cls == PXC_TRANSPORT || r->cls == PXC_UNREADABLE)
		snprintf(out, n, "%s", r->transport_error[0] ? r->transport_error : "no response");
	else if (r->res.error[0] != '\0')
		snprintf(out, n, "HTTP %ld%s%s%s: %.150s", r->status, r->res.error_type[0] ? " (" : "",
		    r->res.error_type, r->res.error_type[0] ? ")" : "", r->res.error);
	else
		snprintf(out, n, "HTTP %ld", r->status);
}

void
px_tally_add(struct px_tally *t, const struct px_req *r, int judged)
{
	if (!r->sent && !r->rate_skipped)
		return;
	/* A prompt sent again smaller was refused for size first: two exchanges recorded. */
	if (r->resized) {
		t->sent++;
		t->n[PXC_REFUSED_SIZE]++;
	}
	t->sent++;
	t->n[r->cls]++;
	if (t->first[r->cls] == NULL)
		t->first[r->cls] = r;
	if (judged)
		t->judged++;
}

void
px_tally_json(const struct px_tally *t, cJSON *details)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddNumberToObject(details, "judged", t->judged);
	cJSON_AddNumberToObject(details, "sent", t->sent);
	for (int k = PXC_ANSWERED; k < PXC_COUNT; k++)
		if (t->n[k] > 0)
			cJSON_AddNumberToObject(c, class_names[k], t->n[k]);
	cJSON_AddItemToObject(details, "classes", c);
}

void
px_set_unjudged(const struct probe_env *env, struct probe_outcome *o, const struct px_tally *t,
    const char *what)
{
	/* The class that kept the exchanges from being judged, most telling first. */
	static const enum px_class order[] = { PXC_REFUSED_OTHER, PXC_RATE_LIMITED, PXC_SERVER_ERROR,
		PXC_TRANSPORT, PXC_UNREADABLE };
	const struct px_req *r = NULL;
	enum px_class c = PXC_UNSENT;
	char d[256], n[48];
	const char *pre = what ? what : "", *sep = what ? ": " : "";

	for (size_t i = 0; i < sizeof order / sizeof *order && r == NULL; i++)
		if (t->first[order[i]] != NULL)
			r = t->first[c = order[i]];
	if (r == NULL) {
		outcome_set(o, "inconclusive", "%s%stoo few exchanges could be judged (%d of %d)", pre,
		    sep, t->judged, t->sent);
		return;
	}
	px_describe(r, d, sizeof d);
	if (t->n[c] == t->sent)
		snprintf(n, sizeof n, "every request");
	else
		snprintf(n, sizeof n, "%d of %d requests", t->n[c], t->sent);
	if (c == PXC_REFUSED_OTHER && r->res.refusal == PREF_AUTH)
		outcome_set(o, "error", "%s%s%s %s refused for authentication for tenant '%s' (%s): "
		    "check the credential", pre, sep, n, t->n[c] == 1 || t->n[c] == t->sent ? "was" : "were",
		    env->tenant_label[r->tenant], d);
	else if (c == PXC_REFUSED_OTHER)
		outcome_set(o, "error", "%s%s%s %s refused for a reason unrelated to the test (%s)", pre,
		    sep, n, t->n[c] == 1 || t->n[c] == t->sent ? "was" : "were", d);
	else if (c == PXC_RATE_LIMITED && (strcasestr(r->res.error, "token") != NULL ||
	    strcasestr(r->res.error, "too large") != NULL))
		/* A limit on tokens per minute below the prompt: no wait will let it through. */
		outcome_set(o, "inconclusive", "%s%snot judged: rate-limited (%s; %s); lower prompt "
		    "sizes with --max-prompt-tokens N, or raise the account's limit", pre, sep, n, d);
	else if (c == PXC_RATE_LIMITED)
		outcome_set(o, "inconclusive", "%s%snot judged: rate-limited (%s, after retrying as "
		    "Retry-After asked; %s); run again later or with a lower --concurrency", pre, sep, n,
		    d);
	else if (c == PXC_SERVER_ERROR)
		outcome_set(o, "inconclusive", "%s%snot judged: %s failed on the server (%s)", pre, sep,
		    n, d);
	else if (t->n[c] == t->sent)
		outcome_set(o, "error", "%s%sno answer: %s", pre, sep, d);
	else
		outcome_set(o, "error", "%s%s%s got no answer: %s", pre, sep, n, d);
}

int
px_no_answer(const struct px_req *r)
{
	return r->sent && (r->status == 0 || r->transport_error[0] != '\0');
}

int
px_accepted(const struct px_req *r)
{
	return px_is_2xx(r) && !r->res.is_error && r->transport_error[0] == '\0';
}

int
px_usage_ok(const struct px_req *r)
{
	if (r->res.usage.in < 0)
		return -1;
	return (double)r->res.usage.in >= 0.75 * (double)r->est_min;
}

int
px_answer_cut_short(const struct px_req *r)
{
	static const char *const cut[] = { "length", "max_tokens", "MAX_TOKENS", NULL };
	const char *text = r->res.text.data ? r->res.text.data : "";
	size_t n = strlen(text);
	int is_cut = 0;

	for (int i = 0; cut[i] != NULL; i++)
		is_cut |= strcmp(r->res.finish, cut[i]) == 0;
	if (!is_cut || r->nleaked > 0)
		return 0;
	if (r->nonce_mask == 1 || r->nonce_mask == 3)
		return 1;
	/* No room even for the first nonce: what came back must be its beginning. */
	while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n'))
		n--;
	return r->nonce_mask == 0 && n <= NONCE_LEN && strncmp(text, r->recipe.nonces[0], n) == 0;
}

int
px_placeholder_usage(const struct px_req *r)
{
	return r->res.usage.in >= 0 && r->est_tokens >= 1000 &&
	    (double)r->res.usage.in <= fmax(16.0, 0.01 * (double)r->est_tokens);
}

int
px_substituted(const struct probe_env *env, const struct px_req *r)
{
	if (r->cls != PXC_ANSWERED || r->nonces_echoed > 0)
		return 0;
	return r->nleaked > 0 || (env->echo_ok == 1 && px_placeholder_usage(r));
}

int64_t
px_leak_evidence(const struct probe_env *env, const struct px_leak *l)
{
	return l->owner_seq > 0 && (size_t)l->owner_seq < env->nseq_evidence ?
	    env->seq_evidence[l->owner_seq] : 0;
}

void
px_judge_common(struct probe_env *env, struct probe_outcome *o, const struct px_req *r,
    int stream_error_is_finding)
{
	if (!r->sent)
		return;
	/* The response that showed the leak is cited first, then the requests it came from
	 * (a canary can come back before its own request finished, memory shared while
	 * both were in flight: its evidence is read now). */
	if (r->leaks_tenant > 0) {
		outcome_finding(o, F_LEAK_CROSS_TENANT, r->evidence_id, "%s", "");
		for (size_t i = 0; i < r->nleaked; i++)
			if (r->leaked[i].other_tenant)
				outcome_finding(o, F_LEAK_CROSS_TENANT, px_leak_evidence(env, &r->leaked[i]),
				    "a response to tenant '%s' contained canaries that tenant '%s' sent",
				    env->tenant_label[r->tenant], env->tenant_label[r->leaked[i].owner_tenant]);
	}
	/* A sized prompt swapped for stale memory shows whatever that memory held: the
	 * probe reports the substitution; the same tenant's canaries in it are not a
	 * same-tenant leak besides (the memory is the vendor's, shared across tenants). */
	if (r->leaks_request > 0 && !(r->target_tokens > 0 && px_substituted(env, r))) {
		outcome_finding(o, F_LEAK_CROSS_REQUEST, r->evidence_id, "%s", "");
		for (size_t i = 0; i < r->nleaked; i++)
			if (!r->leaked[i].other_tenant)
				outcome_finding(o, F_LEAK_CROSS_REQUEST, px_leak_evidence(env, &r->leaked[i]),
				    "a response contained canaries of another request of the same tenant");
	}
	/* Usage that contradicts the words sent says the vendor's count is wrong, unless the
	 * answer also lost every nonce: then the prompt itself may have been replaced, and
	 * the probe that sent it judges that. */
	if (r->cls == PXC_ANSWERED && px_usage_contradicts(r) &&
	    !(env->echo_ok == 1 && r->nonces_echoed == 0))
		outcome_finding(o, F_USAGE_ANOMALY, r->evidence_id,
		    "usage said %lld prompt token%s for %lld filler words and three nonces%s",
		    (long long)r->res.usage.in,
		    r->res.usage.in == 1 ? "" : "s",
		    (long long)(r->recipe.units + r->recipe.shared_units), r->nonces_echoed > 0 ?
		    ", yet the answer repeated the prompt's own nonces" : env->echo_ok != 1 ?
		    " (the model does not repeat text: a swapped prompt is suspected, not shown)" : "");
	if (px_is_2xx(r) && r->res.is_error && !r->res.stream_error)
		outcome_finding(o, F_ERROR_IN_200, r->evidence_id,
		    "HTTP %ld carried an error in its body: %s", r->status, r->res.error);
	if (stream_error_is_finding && px_is_2xx(r) && r->res.stream_error)
		outcome_finding(o, F_STREAM_ERROR_AFTER_200, r->evidence_id,
		    "a stream that began with HTTP %ld ended in an error event: %s", r->status,
		    r->res.error);
}

cJSON *
px_point_json(const struct px_req *r)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(p, "tokens_sent", (double)r->est_tokens);
	if (r->status > 0)
		cJSON_AddNumberToObject(p, "status", (double)r->status);
	else
		cJSON_AddNullToObject(p, "status");
	cJSON_AddBoolToObject(p, "accepted", px_accepted(r));
	cJSON_AddStringToObject(p, "class", px_class_name(r->cls));
	cJSON_AddNumberToObject(p, "nonces_echoed", r->nonces_echoed);
	cJSON_AddNumberToObject(p, "nonces_total", 3);
	if (r->res.usage.in >= 0)
		cJSON_AddNumberToObject(p, "usage_prompt_tokens", (double)r->res.usage.in);
	else
		cJSON_AddNullToObject(p, "usage_prompt_tokens");
	if (r->res.usage.cached_in >= 0)
		cJSON_AddNumberToObject(p, "usage_cached_tokens", (double)r->res.usage.cached_in);
	if (r->res.usage.raw != NULL)
		cJSON_AddItemToObject(p, "usage", cJSON_Duplicate(r->res.usage.raw, 1));
	cJSON_AddBoolToObject(p, "stream", r->stream);
	cJSON_AddNumberToObject(p, "evidence", (double)r->evidence_id);
	return p;
}

int64_t
px_top_tokens(const struct probe_env *env)
{
	int64_t t = (int64_t)(0.97 * (double)env->ep.context_tokens), room = env->ep.context_tokens - env->max_tokens - 16;

	return t < room ? t : room;
}

int64_t
px_plan_tokens_out(const struct probe_env *env, int64_t requests)
{
	return requests * env->max_tokens;
}

int
px_usage_contradicts(const struct px_req *r)
{
	int64_t words = r->recipe.units + r->recipe.shared_units + r->recipe.planted_units;

	if (r->res.usage.in < 0 || r->kind != PX_CHAT)
		return 0;
	/* Three nonces of 24 random characters take at least three tokens each. */
	return (double)r->res.usage.in < USAGE_MIN_PER_WORD * (double)words + 9 ||
	    (double)r->res.usage.in > TPU_PLAUSIBLE_MAX * (double)words + OVERHEAD_PLAUSIBLE_MAX;
}
