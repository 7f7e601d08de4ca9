/*
 * prefix-timing.c: is the vendor's prompt-prefix cache shared across
 * tenants? No questionnaire answer can prove it; timing can. In each trial
 * tenant A sends a long unique opening; then, in random order, tenant B
 * sends the same opening ("primed"), B sends a fresh opening of the same
 * length ("control"), A repeats its own opening ("own") and B sends a short
 * prompt ("short"). All stream, and the time to the first token is measured.
 *
 * PREFIX_CACHE_SHARED_ACROSS_TENANTS needs a one-sided Mann-Whitney U test
 * of primed < control, Cliff's delta beyond negligible and a median saving
 * of at least half the effect the probe looks for. That effect is a hit
 * skipping half of the opening's prefill, as the short prompts measure it.
 * Hosted APIs' hits can save a few percent of a noisy latency, so the design
 * is sequential: looks after 30, 60, 120 and 250 trials, alpha split evenly
 * over the four (Bonferroni, valid however the looks correlate). At each
 * look the probe stops when the test rejects (fail), or when the gated test
 * had the power to see the effect under the noise observed and did not
 * (pass; the power is simulated, see stats.h); otherwise it sends the next
 * trials while the run's token budget covers them and the trials the effect
 * needs are within the 250 (futility: beyond them, more cannot help). When
 * sampling stops undecided the verdict is inconclusive, saying why, with
 * the trials a decision would need. Opt-in ("--probe all,prefix-timing"): 150 streamed
 * prompts of about 1,300 tokens at the first look cost more than the rest
 * of the suite together.
 *
 * Where the vendor's usage reports the cached part of each prompt (OpenAI's
 * cached_tokens, Anthropic's cache_read_input_tokens, Gemini's
 * cachedContentTokenCount, Bedrock's cacheReadInputTokens) the counts decide
 * before any timing: the first COUNT_TRIALS trials are read for them. B's
 * "primed" request reporting more of its prompt cached than any fresh opening
 * did, at least half the opening, is tenant A's opening served to tenant B:
 * the finding, on that one response, quoting the counts. No primed request
 * cached while A's own repeats were is the cache scoped per tenant: a pass.
 * Anything else (no counts, no caching seen) is left to the timing.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe.h"
#include "stats.h"

static const int looks[] = { 30, 60, 120, 250 };   /* trials per group at each look */
#define NLOOKS ((int)(sizeof looks / sizeof looks[0]))
#define MAX_TRIALS 250
#define OPENING_TOKENS 1280       /* above the 1,024-token minimum of common prefix caches */
#define SUFFIX_UNITS 16           /* each request's own words after the opening */
#define SHORT_UNITS 16
#define ALPHA 0.01                /* one-sided, over all looks */
#define ALPHA_LOOK (ALPHA / NLOOKS)
#define MIN_DELTA 0.147           /* Cliff's delta below this is negligible (Romano et al., 2006) */
#define MIN_SAVING_MS 1.0         /* a median saving below this is not worth a finding */
#define POWER 0.8
#define POWER_SIMS 2000           /* power within about 0.01 */
#define NEEDED_SIMS 400
#define NEEDED_MAX 4096
#define POWER_SEED UINT64_C(0x61697665742d7074)  /* fixed: the same data give the same verdict */
#define MIN_ANSWERED 8            /* per group, below which nothing is decided */
#define COUNT_TRIALS 4            /* trials read for the vendor's cached counts first */
#define COUNT_MIN_OWN 2           /* own repeats cached (and primed answered) for a per-tenant pass */

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

/* Tokens one trial may take from the budget: its five prompts and their output allowance. */
static int64_t
trial_tokens(const struct probe_env *env, int64_t *tin)
{
	int64_t longp = (int64_t)(env->overhead_tokens + SUFFIX_UNITS * env->tokens_per_unit) +
	    opening_tokens(env);
	int64_t shortp = (int64_t)(env->overhead_tokens + SHORT_UNITS * env->tokens_per_unit);

	if (tin != NULL)
		*tin = 4 * longp + shortp;
	return 4 * longp + shortp + px_plan_tokens_out(env, K_N);
}

static void
prefix_timing_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t tin;

	if (env->ntenants < 2) {
		memset(p, 0, sizeof *p);
		return;
	}
	trial_tokens(env, &tin);
	p->requests = (int64_t)MAX_TRIALS * K_N;
	p->tokens_in = (int64_t)MAX_TRIALS * tin;
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

/* Fills trials [from, to) of r and kind: fresh random openings, shuffled order. */
static void
make_trials(struct px_req *r, int *kind, int64_t open_units, size_t from, size_t to)
{
	for (size_t trial = from; trial < to; trial++) {
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
}

/* What one look saw. */
struct look {
	size_t trials;
	struct mwu_look cross;
	struct mwu own;
	int have_own;
	double prefill, sd, shift;
	struct mwu_gate gate;
};

static void
judge_look(double *const t[K_N], const size_t cnt[K_N], size_t trials, struct look *l)
{
	memset(l, 0, sizeof *l);
	l->trials = trials;
	l->have_own = cnt[K_OWN] > 0 &&
	    mwu_less(t[K_OWN], cnt[K_OWN], t[K_CONTROL], cnt[K_CONTROL], &l->own) == 0;
	l->prefill = stats_median(t[K_CONTROL], cnt[K_CONTROL]) - stats_median(t[K_SHORT], cnt[K_SHORT]);
	l->sd = sqrt((pow(stats_mad_sd(t[K_PRIMED], cnt[K_PRIMED]), 2) +
	    pow(stats_mad_sd(t[K_CONTROL], cnt[K_CONTROL]), 2)) / 2);
	/* The effect looked for: a hit skipping half the opening's prefill (at least twice the
	 * smallest saving worth a finding); a finding needs half of it in the medians. */
	l->shift = fmax(l->prefill / 2, 2 * MIN_SAVING_MS);
	l->gate = (struct mwu_gate){ ALPHA_LOOK, MIN_DELTA, l->shift / 2 };
	mwu_look(t[K_PRIMED], cnt[K_PRIMED], t[K_CONTROL], cnt[K_CONTROL], &l->gate, l->shift, l->sd,
	    POWER, POWER_SEED, &l->cross);
}

static cJSON *
look_json(const struct look *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "trials", (double)l->trials);
	cJSON_AddNumberToObject(o, "p", l->cross.test.p);
	cJSON_AddNumberToObject(o, "cliffs_delta", round(l->cross.test.delta * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "median_saving_ms", round(l->cross.saving * 1000) / 1000);
	cJSON_AddNumberToObject(o, "power", l->cross.power);
	return o;
}

/* An undecided test says why in words: the noise, the trials it had, and how
 * many it would need (or that none would do), and why sampling stopped. */
static void
say_undecided(struct probe_outcome *out, cJSON *d, const struct look *lk, size_t sent_trials,
    const char *stopped)
{
	const struct look l = *lk;
	long needed;

	needed = mwu_gate_trials_needed(&l.gate, l.shift, l.sd, POWER, NEEDED_MAX, NEEDED_SIMS,
	    POWER_SEED);
	cJSON_AddNumberToObject(d, "trials_needed", (double)needed);
	cJSON_AddStringToObject(d, "stopped", stopped ? stopped : "");
	if (needed == 0)
		outcome_set(out, "inconclusive", "timing noise (sd %.1f ms) is too high to see a cache hit "
		    "saving %.1f ms in %zu trials (power %.0f%%), and no number of trials would: under "
		    "that noise such a hit has Cliff's delta %.2f, not beyond the %.3f a finding needs",
		    l.sd, l.shift, sent_trials, 100 * l.cross.power, 2 * theta_for_shift(l.shift, l.sd) - 1,
		    MIN_DELTA);
	else if (needed < 0 || needed > MAX_TRIALS)
		outcome_set(out, "inconclusive", "timing noise (sd %.1f ms) is too high for %zu trials to "
		    "see a cache hit saving %.1f ms (power %.0f%%); it would take %s%ld trials, more than "
		    "the %d the probe sends", l.sd, sent_trials, l.shift, 100 * l.cross.power,
		    needed < 0 ? "more than " : "about ", needed < 0 ? (long)NEEDED_MAX : needed, MAX_TRIALS);
	else
		outcome_set(out, "inconclusive", "timing noise (sd %.1f ms) is too high for %zu trials to "
		    "see a cache hit saving %.1f ms (power %.0f%%); %s; would need about %ld trials",
		    l.sd, sent_trials, l.shift, 100 * l.cross.power, stopped ? stopped : "sampling stopped",
		    needed);
}

/* What the vendor's usage said of its cache: the largest count a prompt it had
 * never seen the opening of reported (the baseline: a chat template's shared
 * start), and the primed and own requests counted above it. */
struct counts {
	int reported;                 /* answered exchanges whose usage gave a cached count */
	int64_t baseline;
	int primed, primed_hits, own, own_hits;
	int64_t hit_max, own_max;
	const struct px_req *hit, *hit_prime;  /* the first primed hit, and A's prime before it */
};

static void
read_counts(const struct probe_env *env, const struct px_req *r, const int *kind, size_t n,
    struct counts *c)
{
	int64_t need = opening_tokens(env) / 2;

	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < n; i++)
		if (r[i].sent && r[i].cls == PXC_ANSWERED && r[i].res.usage.cached_in >= 0) {
			c->reported++;
			if ((kind[i] == K_PRIME || kind[i] == K_CONTROL || kind[i] == K_SHORT) &&
			    r[i].res.usage.cached_in > c->baseline)
				c->baseline = r[i].res.usage.cached_in;
		}
	for (size_t i = 0; i < n; i++) {
		int64_t v = r[i].res.usage.cached_in;
		int hit = v > c->baseline && v >= need;

		if (!r[i].sent || r[i].cls != PXC_ANSWERED || v < 0)
			continue;
		if (kind[i] == K_PRIMED) {
			c->primed++;
			if (hit && c->primed_hits++ == 0) {
				c->hit = &r[i];
				c->hit_prime = &r[i - i % K_N];
			}
			if (hit && v > c->hit_max)
				c->hit_max = v;
		} else if (kind[i] == K_OWN) {
			c->own++;
			c->own_hits += hit;
			if (v > c->own_max)
				c->own_max = v;
		}
	}
}

static cJSON *
counts_json(const struct counts *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "reported", c->reported);
	cJSON_AddNumberToObject(o, "baseline_cached_tokens", (double)c->baseline);
	cJSON_AddNumberToObject(o, "primed", c->primed);
	cJSON_AddNumberToObject(o, "primed_cached", c->primed_hits);
	cJSON_AddNumberToObject(o, "primed_cached_max", (double)c->hit_max);
	cJSON_AddNumberToObject(o, "own", c->own);
	cJSON_AddNumberToObject(o, "own_cached", c->own_hits);
	cJSON_AddNumberToObject(o, "own_cached_max", (double)c->own_max);
	return o;
}

/* The verdict the counts give, when they give one: 1 decided, 0 left to timing. */
static int
judge_counts(struct probe_env *env, struct probe_outcome *out, const struct counts *c)
{
	const char *a = env->tenant_label[0], *b = env->tenant_label[1];

	if (c->primed_hits > 0) {
		outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, c->hit->evidence_id,
		    "tenant '%s''s response reported %lld of its %lld prompt tokens served from the "
		    "vendor's cache, for an opening of about %lld tokens that only tenant '%s' had sent "
		    "(prompts with an opening not sent before: at most %lld cached; %d of %d such "
		    "responses): the prompt prefix cache is shared across tenants",
		    b, (long long)c->hit->res.usage.cached_in, (long long)c->hit->res.usage.in,
		    (long long)opening_tokens(env), a, (long long)c->baseline, c->primed_hits,
		    c->primed);
		outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, c->hit_prime->evidence_id,
		    "%s", "");
		outcome_set(out, "fail", "the vendor's usage reported tenant '%s''s opening cached for "
		    "tenant '%s' (%lld cached tokens)", a, b, (long long)c->hit_max);
		return 1;
	}
	if (c->primed >= COUNT_MIN_OWN && c->own_hits >= COUNT_MIN_OWN) {
		outcome_set(out, "pass", "the vendor's usage reported none of tenant '%s''s opening "
		    "cached for tenant '%s' (%d responses, at most %lld cached tokens, as for an opening "
		    "never sent), while '%s''s own repeats were (%d of %d, up to %lld cached tokens): "
		    "the cache is per tenant", a, b, c->primed, (long long)c->baseline, a, c->own_hits,
		    c->own, (long long)c->own_max);
		return 1;
	}
	return 0;
}

/* The exchanges [from, to): common findings, the tally, and the first-token
 * times of the accepted ones by kind. */
static void
collect(struct probe_env *env, struct probe_outcome *out, const struct px_req *r, const int *kind,
    size_t from, size_t to, double *const t[K_N], size_t cnt[K_N], struct px_tally *tally)
{
	for (size_t i = from; i < to; i++) {
		int k = kind[i];

		if (!r[i].sent)
			continue;
		px_judge_common(env, out, &r[i], 1);
		px_tally_add(tally, &r[i], r[i].cls == PXC_ANSWERED);
		if (px_accepted(&r[i]) && r[i].ttft_ms > 0)
			t[k][cnt[k]++] = r[i].ttft_ms;
	}
}

static void
prefix_timing_run(struct probe_env *env, struct probe_outcome *out)
{
	size_t n = (size_t)MAX_TRIALS * K_N, cnt[K_N] = { 0 }, sent_trials = 0;
	struct px_req *r;
	int *kind;
	double *t[K_N] = { NULL };
	int64_t open_units, per_trial;
	struct look l;
	long needed;
	cJSON *d = NULL, *lj;
	const char *stopped = NULL;
	int li, decided = 0;
	struct counts cc;
	struct px_tally tally = { 0 };

	if (env->ntenants < 2) {
		outcome_set(out, "inconclusive", "the cross-tenant prefix-cache check needs a second "
		    "credential on the endpoint (one per tenant)");
		return;
	}
	r = xcalloc(n, sizeof *r);
	kind = xcalloc(n, sizeof *kind);
	for (int k = 0; k < K_N; k++)
		t[k] = xcalloc(MAX_TRIALS, sizeof *t[k]);
	open_units = px_units_for(env, opening_tokens(env));
	per_trial = trial_tokens(env, NULL);
	per_trial += per_trial / 4;   /* the engine reserves a quarter more for each prompt */
	memset(&l, 0, sizeof l);
	memset(&cc, 0, sizeof cc);
	lj = cJSON_CreateArray();
	/* The vendor's own counts first: where they decide, no timing is needed. */
	make_trials(r, kind, open_units, 0, COUNT_TRIALS);
	if (px_send(env, r, (size_t)COUNT_TRIALS * K_N, 1) != 0)
		goto out;
	collect(env, out, r, kind, 0, (size_t)COUNT_TRIALS * K_N, t, cnt, &tally);
	while (sent_trials < COUNT_TRIALS && r[sent_trials * K_N].sent)
		sent_trials++;
	read_counts(env, r, kind, sent_trials * K_N, &cc);
	if (cc.reported > 0 && !env->budget_hit && !env->interrupted)
		decided = judge_counts(env, out, &cc);
	for (li = 0; li < NLOOKS && !decided && !env->budget_hit && !env->interrupted; li++) {
		size_t to = (size_t)looks[li];

		/* A later look is taken only when the budget covers all of it: a look cut short by
		 * the budget would stop the run, and half a look adds little. */
		if (li > 0 && env->opts->budget_tokens > 0 && env->tokens_in + env->tokens_out +
		    per_trial * (int64_t)(to - sent_trials) > env->opts->budget_tokens) {
			stopped = "the run's token budget does not cover the next look";
			break;
		}
		make_trials(r, kind, open_units, sent_trials, to);
		/* One at a time, in order: B's "primed" request must follow A's prime. */
		if (px_send(env, &r[sent_trials * K_N], (to - sent_trials) * K_N, 1) != 0)
			goto out;
		collect(env, out, r, kind, sent_trials * K_N, to * K_N, t, cnt, &tally);
		/* Sent in order: the trials begun are those whose prime went out. */
		while (sent_trials < to && r[sent_trials * K_N].sent)
			sent_trials++;
		/* A count that shows the opening served across tenants decides at any look. */
		read_counts(env, r, kind, sent_trials * K_N, &cc);
		if (cc.primed_hits > 0 && (decided = judge_counts(env, out, &cc)) != 0)
			break;
		if (env->budget_hit || env->interrupted) {
			stopped = "the run's token budget ended during the look";
			break;
		}
		if (cnt[K_PRIMED] < MIN_ANSWERED || cnt[K_CONTROL] < MIN_ANSWERED || cnt[K_SHORT] < 1)
			break;
		judge_look(t, cnt, sent_trials, &l);
		cJSON_AddItemToArray(lj, look_json(&l));
		if (l.cross.decision != MWU_LOOK_UNDECIDED)
			break;
		/* Futility: no more trials when what the effect needs is beyond what the probe sends. */
		needed = mwu_gate_trials_needed(&l.gate, l.shift, l.sd, POWER, NEEDED_MAX, NEEDED_SIMS,
		    POWER_SEED);
		if (needed <= 0 || needed > MAX_TRIALS) {
			stopped = "more trials cannot help";
			break;
		}
		if (li == NLOOKS - 1)
			stopped = "the last look was reached";
	}

	d = out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "alpha", ALPHA);
	cJSON_AddNumberToObject(d, "alpha_per_look", ALPHA_LOOK);
	cJSON_AddNumberToObject(d, "min_cliffs_delta", MIN_DELTA);
	cJSON_AddNumberToObject(d, "trials", (double)sent_trials);
	cJSON_AddNumberToObject(d, "max_trials", MAX_TRIALS);
	cJSON_AddNumberToObject(d, "opening_units", (double)open_units);
	cJSON_AddNumberToObject(d, "opening_tokens", (double)opening_tokens(env));
	{
		cJSON *g = cJSON_AddObjectToObject(d, "groups");

		for (int k = 1; k < K_N; k++)
			cJSON_AddItemToObject(g, kind_name[k], group_json(t[k], cnt[k]));
	}
	cJSON_AddItemToObject(d, "looks", lj);
	lj = NULL;
	px_tally_json(&tally, d);
	cJSON_AddItemToObject(d, "cache_counts", counts_json(&cc));
	cJSON_AddStringToObject(d, "decided_by", decided ? "usage" : "timing");
	if (decided)
		goto out;
	if (cnt[K_PRIMED] < MIN_ANSWERED || cnt[K_CONTROL] < MIN_ANSWERED || cnt[K_SHORT] < 1) {
		if (env->budget_hit)
			outcome_set(out, "inconclusive", "the run stopped before the first %d trials were sent",
			    looks[0]);
		else
			outcome_set(out, "inconclusive", "too few answered streams to time: %zu primed, %zu "
			    "control (at least %d each are needed)", cnt[K_PRIMED], cnt[K_CONTROL], MIN_ANSWERED);
		goto out;
	}
	if (l.trials != sent_trials) {
		/* The look the budget cut short is judged on what it got. */
		judge_look(t, cnt, sent_trials, &l);
		cJSON_AddItemToArray(cJSON_GetObjectItem(d, "looks"), look_json(&l));
	}
	cJSON_AddItemToObject(d, "cross_tenant", test_json(&l.cross.test));
	if (l.have_own)
		cJSON_AddItemToObject(d, "own_tenant", test_json(&l.own));
	cJSON_AddNumberToObject(d, "median_saving_ms", round(l.cross.saving * 1000) / 1000);
	cJSON_AddNumberToObject(d, "opening_prefill_ms", round(l.prefill * 1000) / 1000);
	cJSON_AddNumberToObject(d, "detectable_saving_ms", round(l.shift * 1000) / 1000);
	cJSON_AddNumberToObject(d, "min_saving_ms", round(l.gate.min_saving * 1000) / 1000);
	cJSON_AddNumberToObject(d, "noise_sd_ms", round(l.sd * 1000) / 1000);
	cJSON_AddNumberToObject(d, "power", l.cross.power);

	if (l.cross.decision == MWU_LOOK_REJECT) {
		for (size_t i = 0; i < sent_trials * K_N; i++)
			if (r[i].sent && (kind[i] == K_PRIMED || kind[i] == K_CONTROL) && r[i].evidence_id > 0)
				outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, r[i].evidence_id,
				    "tenant B's first token came %.1f ms sooner (median) when tenant A had just sent "
				    "the same opening than after a fresh opening of the same length: one-sided "
				    "Mann-Whitney p = %.2g < %.2g, Cliff's delta %.2f, %zu + %zu trials; the prompt "
				    "prefix cache is shared across tenants", l.cross.saving, l.cross.test.p,
				    ALPHA_LOOK, l.cross.test.delta, cnt[K_PRIMED], cnt[K_CONTROL]);
		outcome_set(out, "fail", "B was faster only when A had primed the cache (p = %.2g, Cliff's "
		    "delta %.2f, %zu trials)", l.cross.test.p, l.cross.test.delta, sent_trials);
		goto out;
	}
	if (l.cross.decision == MWU_LOOK_POWERED) {
		outcome_set(out, "pass", "B was not faster after A sent the same opening (p = %.2g, Cliff's "
		    "delta %.2f over %zu trials; the test had %.0f%% power to see a hit saving %.1f ms "
		    "under noise sd %.1f ms)%s", l.cross.test.p, l.cross.test.delta, sent_trials,
		    100 * l.cross.power, l.shift, l.sd, !l.have_own ? "" : l.own.p < ALPHA && l.own.delta >= MIN_DELTA ?
		    "; A's own repeats were faster: the cache is per tenant" :
		    "; A's own repeats were not faster either: no prefix caching seen");
		goto out;
	}
	say_undecided(out, d, &l, sent_trials, stopped);
out:
	cJSON_Delete(lj);
	for (int k = 0; k < K_N; k++)
		free(t[k]);
	px_free(r, n);
	free(r);
	free(kind);
}

const struct probe probe_prefix_timing = {
	"prefix-timing", "cache scoping: is a prompt-prefix cache shared across tenants?",
	prefix_timing_plan, prefix_timing_run, PROBE_OPT_IN, 6, 6,
};
