/*
 * echo.c: the baseline probe. A short prompt with three nonces, once plain
 * and once streamed: does the model repeat them? Every content check of the
 * other probes relies on this; when the model does not echo, their content
 * checks are inconclusive rather than false failures.
 */
#include "config.h"

#include <string.h>

#include "probe-env.h"

#define ECHO_UNITS 64

static void
echo_plan(const struct probe_env *env, struct probe_plan *p)
{
	p->requests = env->prov->can_stream ? 2 : 1;
	p->tokens_in = p->requests * (int64_t)(env->overhead_tokens + ECHO_UNITS * env->tokens_per_unit);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

static void
echo_run(struct probe_env *env, struct probe_outcome *out)
{
	struct px_req r[2];
	struct px_tally t = { 0 };
	int n = env->prov->can_stream ? 2 : 1, best = 0;
	cJSON *pts;

	memset(r, 0, sizeof r);
	for (int i = 0; i < n; i++) {
		r[i].units = ECHO_UNITS;
		r[i].stream = i == 1;
	}
	if (px_send(env, r, (size_t)n, 0) != 0) {
		px_free(r, (size_t)n);
		return;
	}
	out->details = cJSON_CreateObject();
	pts = cJSON_AddArrayToObject(out->details, "points");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(pts, px_point_json(&r[i]));
		px_judge_common(env, out, &r[i], 1);
		/* Only an answer shows whether the model repeats: refusals and errors say nothing. */
		px_tally_add(&t, &r[i], r[i].cls == PXC_ANSWERED);
		if (r[i].cls == PXC_ANSWERED && r[i].nonces_echoed > best)
			best = r[i].nonces_echoed;
	}
	px_tally_json(&t, out->details);
	if (t.judged > 0)
		out->echo_baseline = best == 3;
	cJSON_AddBoolToObject(out->details, "echo_ok",
	    t.judged > 0 ? out->echo_baseline == 1 : px_echoes(env) == 1);
	if (t.sent == 0) {
		px_free(r, (size_t)n);
		return;
	}
	if (t.judged == 0)
		px_set_unjudged(env, out, &t, NULL);
	else if (!out->echo_baseline)
		outcome_set(out, "inconclusive", "the model did not repeat its nonces (best %d of 3); "
		    "content checks on this endpoint are inconclusive", best);
	else
		outcome_set(out, "pass", "the model repeated all three nonces");
	px_free(r, (size_t)n);
}

const struct probe probe_echo = {
	"echo", "baseline: does the model repeat its nonces?", echo_plan, echo_run,
	PROBE_MAKES_ECHO_BASELINE, 1, 1,
};
