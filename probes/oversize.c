/*
 * oversize.c: prompts at about 1.05x and 2x the advertised context, plain
 * and streamed. The only pass is a refusal for size (an error status or
 * stream event the API uses for too-long input) of every prompt; refusals
 * for other reasons (a credential, a rate limit, a server error) are not
 * judged. An answer is OVERSIZE_ACCEPTED, and worse when it shows the prompt
 * was swapped (PLACEHOLDER_SUBSTITUTION) or cut (SILENT_TRUNCATION).
 */
#include "config.h"

#include <string.h>

#include "probe-env.h"

static const double factors[] = { 1.05, 2.0 };
#define NF (sizeof factors / sizeof factors[0])

static void
oversize_plan(const struct probe_env *env, struct probe_plan *p)
{
	int per = env->prov->can_stream ? 2 : 1;

	p->requests = (int64_t)NF * per;
	/* Each prompt is made to exceed its size whatever the template adds. */
	p->tokens_in = ((int64_t)((1.05 + 2.0) * (double)env->ep.context_tokens) +
	    (int64_t)NF * ((int64_t)env->overhead_tokens + 1)) * per;
	p->tokens_out = px_plan_tokens_out(env, p->requests);
	/* A vendor as advertised refuses every one of them, and bills none. */
	p->tokens_in_expected = 0;
}

/* Judges one answered oversize prompt. */
static void
judge_accepted(struct probe_env *env, struct probe_outcome *out, const struct px_req *r)
{
	outcome_finding(out, F_OVERSIZE_ACCEPTED, r->evidence_id,
	    "a prompt of %s %lld tokens, over the advertised %lld, was answered with HTTP %ld",
	    env->bounded ? "at least" : "about", (long long)r->est_tokens, (long long)env->ep.context_tokens,
	    r->status);
	/* Substitution needs evidence the model read something else: its own nonces gone
	 * with usage collapsed (against a model known to repeat), or others' content. */
	if (px_substituted(env, r))
		outcome_finding(out, F_PLACEHOLDER_SUBSTITUTION, r->evidence_id,
		    "a prompt of about %lld tokens was %s", (long long)r->est_tokens,
		    r->nleaked > 0 ? "answered from content it did not contain" :
		    "answered without any of its nonces and reported as a handful of tokens");
	else if ((px_echoes(env) == 1 && r->nonces_echoed < 3 && !px_answer_cut_short(r)) ||
	    (px_usage_ok(r) == 0 && !px_usage_contradicts(r)))
		outcome_finding(out, F_SILENT_TRUNCATION, r->evidence_id,
		    "an oversize prompt was accepted and lost content (%d of 3 nonces, usage %lld of "
		    "about %lld tokens)", r->nonces_echoed, (long long)r->res.usage.in,
		    (long long)r->est_tokens);
	if (r->res.usage.in < 0)
		outcome_finding(out, F_USAGE_MISSING, r->evidence_id,
		    "an accepted answer reported no usage, so its prompt size could not be checked");
}

static void
oversize_run(struct probe_env *env, struct probe_outcome *out)
{
	struct px_req r[NF * 2];
	struct px_tally t = { 0 };
	size_t n = 0;
	int judged_at[NF] = { 0 }, capped = 0;
	cJSON *pts;

	memset(r, 0, sizeof r);
	for (size_t i = 0; i < NF; i++)
		for (int s = 0; s < (env->prov->can_stream ? 2 : 1); s++) {
			r[n].target_tokens = (int64_t)(factors[i] * (double)env->ep.context_tokens);
			r[n].must_exceed = 1;
			r[n].stream = s;
			n++;
		}
	/* One at a time: two huge prompts in flight would only measure the vendor's queue. */
	if (px_send(env, r, n, 1) != 0) {
		px_free(r, n);
		return;
	}
	out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->details, "advertised", (double)env->ep.context_tokens);
	cJSON_AddBoolToObject(out->details, "bounded", env->bounded);
	pts = cJSON_AddArrayToObject(out->details, "points");
	for (size_t i = 0; i < n; i++) {
		int judged = r[i].cls == PXC_ANSWERED || r[i].cls == PXC_REFUSED_SIZE;

		capped += r[i].capped < 0;
		/* Only an answer or a refusal for size says anything about the context:
		 * auth, rate limits and server errors are not judged. */
		px_tally_add(&t, &r[i], judged);
		if (!r[i].sent)
			continue;
		cJSON_AddItemToArray(pts, px_point_json(&r[i]));
		px_judge_common(env, out, &r[i], 0);
		judged_at[i / (n / NF)] += judged;
		if (r[i].cls == PXC_ANSWERED)
			judge_accepted(env, out, &r[i]);
	}
	px_tally_json(&t, out->details);
	if (out->nf > 0)
		;   /* the findings are the verdict */
	else if (capped > 0)
		outcome_set(out, "inconclusive", "not judged: %d prompt%s over the advertised %lld "
		    "tokens cannot be sent under --max-prompt-tokens %lld", capped, capped == 1 ? "" : "s",
		    (long long)env->ep.context_tokens, (long long)env->max_prompt_tokens);
	else if (judged_at[0] == 0 || judged_at[NF - 1] == 0 || t.judged < t.sent)
		px_set_unjudged(env, out, &t, NULL);
	else
		outcome_set(out, "pass", "every oversize prompt was refused for size (%d of %d judged)%s",
		    t.judged, t.sent, env->bounded ? "; sizes were bounded: no usable token count, so "
		    "each prompt was over the context even at one token per word" : "");
	px_free(r, n);
}

const struct probe probe_oversize = {
	"oversize", "prompts over the advertised context must be refused visibly",
	oversize_plan, oversize_run, PROBE_READS_ECHO_BASELINE, 2, 5,
};
