/*
 * canary.c: isolation. Tenants (one per credential) send canary-bearing
 * prompts concurrently and interleaved, half of them opening with the same
 * long text (as customers sharing one system prompt do), while the last
 * tenant sends near-limit and over-limit prompts. The engine scans every
 * response of every tenant for every canary that was not its own. With one
 * credential only cross-request leaks can be checked, and the verdict says
 * the cross-tenant check needs a second credential.
 */
#include "config.h"

#include <string.h>
#include <sodium.h>

#include "probe.h"

#define ROUNDS 2                  /* victim prompts per tenant per wave */
#define VICTIM_UNITS 48
#define SHARED_UNITS 256
#define MAX_REQ (2 * ROUNDS * PROBE_MAX_TENANTS + 2)

static int
victims(const struct probe_env *env)
{
	return env->ntenants > 1 ? env->ntenants - 1 : 1;
}

static void
canary_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t small = (int64_t)(env->overhead_tokens + (VICTIM_UNITS + SHARED_UNITS / 2) *
	    env->tokens_per_unit);

	p->requests = 2 * ROUNDS * victims(env) + 2;
	p->tokens_in = 2 * ROUNDS * victims(env) * small + (int64_t)(1.95 * (double)env->ep.context);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

static void
add_victims(struct probe_env *env, struct px_req *r, int *n, uint64_t shared_seed)
{
	for (int round = 0; round < ROUNDS; round++)
		for (int t = 0; t < victims(env); t++) {
			struct px_req *q = &r[(*n)++];

			memset(q, 0, sizeof *q);
			q->tenant = t;
			q->units = VICTIM_UNITS;
			q->stream = (round + t) % 2;
			if (round % 2 == 0) {
				q->shared_units = SHARED_UNITS;
				q->shared_seed = shared_seed;
			}
		}
}

static void
canary_run(struct probe_env *env, struct probe_outcome *out)
{
	struct px_req r[MAX_REQ];
	int n = 0, wave1, pressure = env->ntenants - 1, errors = 0, answered = 0;
	uint64_t shared_seed;
	const char *first_error = NULL;
	cJSON *d;

	randombytes_buf(&shared_seed, sizeof shared_seed);
	memset(r, 0, sizeof r);
	/* Wave 1: victims fill the vendor's caches with their canaries. */
	add_victims(env, r, &n, shared_seed);
	wave1 = n;
	if (px_send(env, r, (size_t)n, 0) != 0)
		goto out;
	/* Wave 2: another tenant's near- and over-limit prompts, interleaved with more victims. */
	memset(&r[n], 0, sizeof r[n]);
	r[n].tenant = pressure;
	r[n++].target_tokens = (int64_t)(0.9 * (double)env->ep.context);
	add_victims(env, r, &n, shared_seed);
	memset(&r[n], 0, sizeof r[n]);
	r[n].tenant = pressure;
	r[n].stream = 1;
	r[n++].target_tokens = (int64_t)(1.05 * (double)env->ep.context);
	if (px_send(env, &r[wave1], (size_t)(n - wave1), 0) != 0)
		goto out;
	for (int i = 0; i < n; i++) {
		if (!r[i].sent)
			continue;
		px_judge_common(env, out, &r[i], 0);
		if (px_no_answer(&r[i])) {
			errors++;
			if (first_error == NULL)
				first_error = r[i].transport_error;
			continue;
		}
		answered++;
		/* A pressure prompt answered with others' content and none of its own: swapped. */
		if (r[i].target_tokens > 0 && px_accepted(&r[i]) && r[i].nonces_echoed == 0 &&
		    (cJSON_GetArraySize(r[i].leaked) > 0 || px_placeholder_usage(&r[i])))
			outcome_finding(out, "PLACEHOLDER_SUBSTITUTION", "critical", r[i].evidence_id,
			    "a prompt of about %lld tokens was answered from content it did not contain",
			    (long long)r[i].est_tokens);
	}
	d = out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "tenants", env->ntenants);
	cJSON_AddNumberToObject(d, "responses_scanned", answered);
	cJSON_AddNumberToObject(d, "canaries", (double)canary_count(env->canaries));
	{
		cJSON *leaks = cJSON_AddArrayToObject(d, "leaks");

		for (int i = 0; i < n; i++) {
			cJSON *l;

			cJSON_ArrayForEach(l, r[i].leaked) {
				cJSON *c = cJSON_Duplicate(l, 1);

				cJSON_AddNumberToObject(c, "found_in", (double)r[i].evidence_id);
				cJSON_AddStringToObject(c, "found_by", env->tenant_label[r[i].tenant]);
				cJSON_AddItemToArray(leaks, c);
			}
		}
	}
	if (errors > 0 && out->nf == 0)
		outcome_set(out, "error", "%d request%s got no answer: %s", errors, errors == 1 ? "" : "s",
		    first_error);
	else if (out->nf == 0 && env->ntenants == 1)
		outcome_set(out, "pass", "no cross-request leak in %d responses; the cross-tenant check "
		    "needs a second credential", answered);
	else if (out->nf == 0)
		outcome_set(out, "pass", "no leak across %d tenants in %d responses", env->ntenants,
		    answered);
out:
	px_free(r, (size_t)n);
}

const struct probe probe_canary = {
	"canary", "isolation: canaries of one tenant must never reach another",
	canary_plan, canary_run,
};
