/*
 * prefix-timing.c: is the vendor's prompt-prefix cache shared across
 * tenants? No questionnaire answer can prove it; timing can. In each trial
 * tenant A sends a long unique opening; then, in random order, tenant B
 * sends the same opening ("primed"), B sends a fresh opening of the same
 * length ("control"), A repeats its own opening ("own") and B sends a short
 * prompt ("short"). All stream, and the time to the first token is measured.
 * A one-sided Mann-Whitney U test of primed < control at ALPHA with a large
 * effect size (Cliff's delta) decides PREFIX_CACHE_SHARED_ACROSS_TENANTS.
 * When B was not faster, the short prompts tell what prefill of the opening
 * costs; if the noise was too high for the trials to have seen a hit saving
 * half of that, the verdict is inconclusive and says how many would do.
 * Opt-in ("--probe all,prefix-timing"): 150 streamed prompts of about 1,300
 * tokens cost more than the rest of the suite together.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe.h"
#include "stats.h"

#define TRIALS 30                 /* per group */
#define OPENING_TOKENS 1280       /* above the 1,024-token minimum of common prefix caches */
#define SUFFIX_UNITS 16           /* each request's own words after the opening */
#define SHORT_UNITS 16
#define ALPHA 0.01                /* one-sided significance level */
#define MIN_DELTA 0.474           /* Cliff's delta of a "large" effect (Romano et al., 2006) */
#define MIN_SAVING_MS 1.0         /* a hit saving less than this is not worth a finding */
#define POWER 0.8
#define MIN_ANSWERED 8            /* per group, below which nothing is decided */

enum { K_PRIME, K_PRIMED, K_CONTROL, K_OWN, K_SHORT, K_N };
static const char *const kind_name[K_N] = { "prime", "primed", "control", "own", "short" };

static int64_t
opening_tokens(const struct probe_env *env)
{
	int64_t t = OPENING_TOKENS;

	/* Small contexts (test servers) get a smaller opening: a quarter of the context. */
	if (t > env->ep.context / 4)
		t = env->ep.context / 4;
	return t < 64 ? 64 : t;
}

static void
prefix_timing_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t longp = (int64_t)(env->overhead_tokens + SUFFIX_UNITS * env->tokens_per_unit) +
	    opening_tokens(env);
	int64_t shortp = (int64_t)(env->overhead_tokens + SHORT_UNITS * env->tokens_per_unit);

	if (env->ntenants < 2) {
		memset(p, 0, sizeof *p);
		return;
	}
	p->requests = (int64_t)TRIALS * K_N;
	p->tokens_in = (int64_t)TRIALS * (4 * longp + shortp);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

static cJSON *
group_json(const double *v, size_t n)
{
	cJSON *g = cJSON_CreateObject(), *s;

	cJSON_AddNumberToObject(g, "n", (double)n);
	if (n > 0) {
		cJSON_AddNumberToObject(g, "median_ms", round(stats_median(v, n) * 1000) / 1000);
		cJSON_AddNumberToObject(g, "sd_ms", round(stats_mad_sd(v, n) * 1000) / 1000);
	}
	s = cJSON_AddArrayToObject(g, "ttft_ms");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(s, cJSON_CreateNumber(round(v[i] * 1000) / 1000));
	return g;
}

static cJSON *
test_json(const struct mwu *m)
{
	cJSON *t = cJSON_CreateObject();

	cJSON_AddNumberToObject(t, "u", m->u);
	cJSON_AddNumberToObject(t, "z", round(m->z * 1e4) / 1e4);
	cJSON_AddNumberToObject(t, "p", m->p);
	cJSON_AddBoolToObject(t, "exact", m->exact);
	cJSON_AddNumberToObject(t, "cliffs_delta", round(m->delta * 1e4) / 1e4);
	return t;
}

/* Shuffles the four requests that follow each trial's prime (Fisher-Yates). */
static void
shuffle_trial(int *order)
{
	for (int i = 3; i > 0; i--) {
		int j = (int)randombytes_uniform((uint32_t)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

static void
prefix_timing_run(struct probe_env *env, struct probe_outcome *out)
{
	size_t n = (size_t)TRIALS * K_N, cnt[K_N] = { 0 };
	struct px_req *r;
	int *kind;
	double *t[K_N];
	int64_t open_units;
	struct mwu cross, own;
	double saving, prefill_cost, sd, shift, theta;
	long needed;
	cJSON *d, *groups;
	int have_own;

	if (env->ntenants < 2) {
		outcome_set(out, "inconclusive", "the cross-tenant prefix-cache check needs a second "
		    "credential on the endpoint (one per tenant)");
		return;
	}
	r = xcalloc(n, sizeof *r);
	kind = xcalloc(n, sizeof *kind);
	open_units = px_units_for(env, opening_tokens(env));
	for (size_t trial = 0; trial < TRIALS; trial++) {
		uint64_t opening, fresh;
		int order[4] = { K_PRIMED, K_CONTROL, K_OWN, K_SHORT };
		struct px_req *q = &r[trial * K_N];

		randombytes_buf(&opening, sizeof opening);
		randombytes_buf(&fresh, sizeof fresh);
		shuffle_trial(order);
		kind[trial * K_N] = K_PRIME;
		for (int k = 0; k < 4; k++)
			kind[trial * K_N + 1 + (size_t)k] = order[k];
		for (int k = 0; k < K_N; k++) {
			int what = kind[trial * K_N + (size_t)k];

			q[k].stream = 1;
			q[k].units = what == K_SHORT ? SHORT_UNITS : SUFFIX_UNITS;
			q[k].tenant = what == K_PRIME || what == K_OWN ? 0 : 1;
			if (what != K_SHORT) {
				q[k].shared_units = open_units;
				q[k].shared_seed = what == K_CONTROL ? fresh : opening;
			}
		}
	}
	/* One at a time, in order: B's "primed" request must follow A's prime. */
	if (px_send(env, r, n, 1) != 0)
		goto out;

	for (int k = 0; k < K_N; k++)
		t[k] = xcalloc(TRIALS, sizeof *t[k]);
	for (size_t i = 0; i < n; i++) {
		int k = kind[i];

		if (!r[i].sent)
			continue;
		px_judge_common(env, out, &r[i], 1);
		if (px_accepted(&r[i]) && r[i].ttft_ms > 0)
			t[k][cnt[k]++] = r[i].ttft_ms;
	}
	d = out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "alpha", ALPHA);
	cJSON_AddNumberToObject(d, "min_cliffs_delta", MIN_DELTA);
	cJSON_AddNumberToObject(d, "trials", TRIALS);
	cJSON_AddNumberToObject(d, "opening_units", (double)open_units);
	cJSON_AddNumberToObject(d, "opening_tokens", (double)opening_tokens(env));
	groups = cJSON_AddObjectToObject(d, "groups");
	for (int k = 1; k < K_N; k++)
		cJSON_AddItemToObject(groups, kind_name[k], group_json(t[k], cnt[k]));
	if (env->budget_hit || env->interrupted) {
		outcome_set(out, "inconclusive", "the run stopped before all %d trials were sent", TRIALS);
		goto done;
	}
	if (cnt[K_PRIMED] < MIN_ANSWERED || cnt[K_CONTROL] < MIN_ANSWERED || cnt[K_SHORT] < 1) {
		outcome_set(out, "inconclusive", "too few answered streams to time: %zu primed, %zu control "
		    "(at least %d each are needed)", cnt[K_PRIMED], cnt[K_CONTROL], MIN_ANSWERED);
		goto done;
	}
	mwu_less(t[K_PRIMED], cnt[K_PRIMED], t[K_CONTROL], cnt[K_CONTROL], &cross);
	have_own = cnt[K_OWN] > 0 && mwu_less(t[K_OWN], cnt[K_OWN], t[K_CONTROL], cnt[K_CONTROL], &own) == 0;
	cJSON_AddItemToObject(d, "cross_tenant", test_json(&cross));
	if (have_own)
		cJSON_AddItemToObject(d, "own_tenant", test_json(&own));
	saving = stats_median(t[K_CONTROL], cnt[K_CONTROL]) - stats_median(t[K_PRIMED], cnt[K_PRIMED]);
	prefill_cost = stats_median(t[K_CONTROL], cnt[K_CONTROL]) - stats_median(t[K_SHORT], cnt[K_SHORT]);
	cJSON_AddNumberToObject(d, "median_saving_ms", round(saving * 1000) / 1000);
	cJSON_AddNumberToObject(d, "opening_prefill_ms", round(prefill_cost * 1000) / 1000);

	if (cross.p < ALPHA && cross.delta >= MIN_DELTA && saving >= MIN_SAVING_MS) {
		for (size_t i = 0; i < n; i++)
			if (r[i].sent && (kind[i] == K_PRIMED || kind[i] == K_CONTROL) && r[i].evidence_id > 0)
				outcome_finding(out, "PREFIX_CACHE_SHARED_ACROSS_TENANTS", "medium", r[i].evidence_id,
				    "tenant B's first token came %.1f ms sooner (median) when tenant A had just sent "
				    "the same opening than after a fresh opening of the same length: one-sided "
				    "Mann-Whitney p = %.2g < %.2g, Cliff's delta %.2f, %zu + %zu trials; the prompt "
				    "prefix cache is shared across tenants", saving, cross.p, ALPHA, cross.delta,
				    cnt[K_PRIMED], cnt[K_CONTROL]);
		outcome_set(out, "fail", "B was faster only when A had primed the cache (p = %.2g, Cliff's "
		    "delta %.2f)", cross.p, cross.delta);
		goto done;
	}
	/* Not faster. Could the trials have seen a hit? A hit skips the opening's
	 * prefill; take half of its measured cost (at least MIN_SAVING_MS) as the
	 * saving to detect, under the noise of the two groups compared. */
	sd = sqrt((pow(stats_mad_sd(t[K_PRIMED], cnt[K_PRIMED]), 2) +
	    pow(stats_mad_sd(t[K_CONTROL], cnt[K_CONTROL]), 2)) / 2);
	shift = prefill_cost / 2 > MIN_SAVING_MS ? prefill_cost / 2 : MIN_SAVING_MS;
	theta = theta_for_shift(shift, sd);
	needed = mwu_trials_needed(theta, ALPHA, POWER);
	cJSON_AddNumberToObject(d, "detectable_saving_ms", round(shift * 1000) / 1000);
	cJSON_AddNumberToObject(d, "noise_sd_ms", round(sd * 1000) / 1000);
	cJSON_AddNumberToObject(d, "trials_needed", (double)needed);
	if (needed > (long)cnt[K_PRIMED] || needed > (long)cnt[K_CONTROL]) {
		outcome_set(out, "inconclusive", "timing noise (sd %.1f ms) is too high for %zu trials to "
		    "see a cache hit saving %.1f ms; would need about %ld trials", sd, cnt[K_PRIMED], shift,
		    needed);
		goto done;
	}
	outcome_set(out, "pass", "B was not faster after A sent the same opening (p = %.2g, Cliff's "
	    "delta %.2f over %zu trials; a hit saving %.1f ms would have shown)%s", cross.p, cross.delta,
	    cnt[K_PRIMED], shift, !have_own ? "" : own.p < ALPHA && own.delta >= MIN_DELTA ?
	    "; A's own repeats were faster: the cache is per tenant" :
	    "; A's own repeats were not faster either: no prefix caching seen");
done:
	for (int k = 0; k < K_N; k++)
		free(t[k]);
out:
	px_free(r, n);
	free(r);
	free(kind);
}

const struct probe probe_prefix_timing = {
	"prefix-timing", "cache scoping: is a prompt-prefix cache shared across tenants?",
	prefix_timing_plan, prefix_timing_run,
};
