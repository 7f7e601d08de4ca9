/*
 * oversize.c: prompts at about 1.05x and 2x the advertised context, plain
 * and streamed. The only pass is a visible refusal: a non-2xx with an error
 * body, or an error event in the stream. A 2xx with content is
 * OVERSIZE_ACCEPTED, and worse when the answer shows the prompt was swapped
 * (PLACEHOLDER_SUBSTITUTION) or cut (SILENT_TRUNCATION).
 */
#include "config.h"

#include <string.h>

#include "probe.h"

static const double factors[] = { 1.05, 2.0 };
#define NF (sizeof factors / sizeof factors[0])

static void
oversize_plan(const struct probe_env *env, struct probe_plan *p)
{
	int per = env->prov->can_stream ? 2 : 1;

	p->requests = (int64_t)NF * per;
	p->tokens_in = (int64_t)((1.05 + 2.0) * (double)env->ep.context) * per;
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

/* Judges one accepted oversize answer; shared with the sweep's idea of a degraded answer. */
static void
judge_accepted(struct probe_env *env, struct probe_outcome *out, const struct px_req *r)
{
	outcome_finding(out, "OVERSIZE_ACCEPTED", "high", r->evidence_id,
	    "a prompt of about %lld tokens, over the advertised %lld, was answered with HTTP %ld",
	    (long long)r->est_tokens, (long long)env->ep.context, r->status);
	if (px_placeholder_usage(r) || (r->nonces_echoed == 0 && r->leaked != NULL &&
	    cJSON_GetArraySize(r->leaked) > 0))
		outcome_finding(out, "PLACEHOLDER_SUBSTITUTION", "critical", r->evidence_id,
		    "a prompt of about %lld tokens was %s", (long long)r->est_tokens,
		    px_placeholder_usage(r) ? "reported as a handful of tokens" :
		    "answered from content it did not contain");
	else if ((env->echo_ok == 1 && r->nonces_echoed < 3) || px_usage_ok(r) == 0)
		outcome_finding(out, "SILENT_TRUNCATION", "high", r->evidence_id,
		    "an oversize prompt was accepted and lost content (%d of 3 nonces, usage %lld of "
		    "about %lld tokens)", r->nonces_echoed, (long long)r->res.usage_in,
		    (long long)r->est_tokens);
	if (r->res.usage_in < 0)
		outcome_finding(out, "USAGE_MISSING", "info", r->evidence_id,
		    "an accepted answer reported no usage, so its prompt size could not be checked");
}

static void
oversize_run(struct probe_env *env, struct probe_outcome *out)
{
	struct px_req r[NF * 2];
	size_t n = 0;
	int refused = 0, errors = 0;
	const char *first_error = NULL;
	cJSON *pts;

	memset(r, 0, sizeof r);
	for (size_t i = 0; i < NF; i++)
		for (int s = 0; s < (env->prov->can_stream ? 2 : 1); s++) {
			r[n].target_tokens = (int64_t)(factors[i] * (double)env->ep.context);
			r[n].stream = s;
			n++;
		}
	/* One at a time: two huge prompts in flight would only measure the vendor's queue. */
	if (px_send(env, r, n, 1) != 0) {
		px_free(r, n);
		return;
	}
	out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->details, "advertised", (double)env->ep.context);
	pts = cJSON_AddArrayToObject(out->details, "points");
	for (size_t i = 0; i < n; i++) {
		if (!r[i].sent)
			continue;
		cJSON_AddItemToArray(pts, px_point_json(&r[i]));
		px_judge_common(env, out, &r[i], 0);
		if (px_no_answer(&r[i])) {
			errors++;
			if (first_error == NULL)
				first_error = r[i].transport_error;
		} else if (!px_is_2xx(&r[i]) || r[i].res.stream_error) {
			refused++;   /* visible: an error status, or an error event in the stream */
		} else if (!r[i].res.is_error) {
			judge_accepted(env, out, &r[i]);
		}
	}
	if (errors > 0 && out->nf == 0)
		outcome_set(out, "error", "%d oversize request%s got no answer: %s", errors,
		    errors == 1 ? "" : "s", first_error);
	else if (out->nf == 0 && refused > 0)
		outcome_set(out, "pass", "every oversize prompt was refused visibly");
	px_free(r, n);
}

const struct probe probe_oversize = {
	"oversize", "prompts over the advertised context must be refused visibly",
	oversize_plan, oversize_run,
};
