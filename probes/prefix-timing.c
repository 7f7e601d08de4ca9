/*
 * prefix-timing.c: is the vendor's prompt-prefix cache shared across
 * tenants? No questionnaire answer can prove it; timing can. In each trial
 * tenant A sends a long unique opening; then, in random order, tenant B
 * sends the same opening ("primed"), B sends a fresh opening of the same
 * length ("control"), A repeats its own opening ("own") and B sends a short
 * prompt ("short"). All stream, and the time to the first token is measured.
 *
 * PREFIX_CACHE_SHARED_ACROSS_TENANTS needs a paired test: each trial's
 * control time minus its primed time, one-sided Wilcoxon signed-rank test of
 * the differences being positive, p below the look's alpha and a median
 * saving of at least MIN_SAVING_MS. Load on the machine or the vendor that
 * moves both requests of a trial (sent back to back, in a random order)
 * cancels in the difference, so a saving far below the spread of the times
 * (two caches Gu et al., ICML 2025, found shared have hits of about a Cliff's
 * delta of 0.10 between the groups at the noise of their measured times) is
 * seen; there is no effect-size floor, which would
 * make such a cache undetectable at any number of trials. The design is
 * sequential: looks after 30, 60, 120 and 250 trials, alpha split evenly
 * over the four (Bonferroni, a Pocock-type spending, valid however the looks
 * correlate). At each look the probe stops when the test rejects (fail), or
 * when it had the power (POWER) to see the effect looked for under the noise
 * of the differences and did not (pass; the power is simulated, see
 * stats.h); the effect looked for is a hit skipping half of the opening's
 * prefill, as the trials bound it from below (each trial's control minus its
 * short prompt, the 0.95 lower bound of their median: an overstated prefill
 * would pass a hit smaller than the one looked for). Otherwise it sends the next
 * trials while the run's token budget covers them; at verify depth only
 * while the trials that effect needs are within the 250, at diagnose depth to
 * the last look (a real hit may save more than the effect looked for). When
 * sampling stops undecided the verdict is inconclusive, saying why, with the
 * trials and tokens a decision would need, or that none would where the
 * arithmetic shows it. A saving that changes during the run is checked before
 * a timing finding: the halves of the trials (in the order sent) must not
 * differ, significantly and by more than a factor of two (a half that saved
 * nothing is that), else "inconclusive: the timing drifted". The Mann-Whitney
 * test and Cliff's delta between the groups are reported beside it. Opt-in
 * ("--probe all,prefix-timing"): 150
 * streamed prompts of about 1,300 tokens at the first look cost more than
 * the rest of the suite together.
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
 *
 * Credentials say which organisation (account) they belong to. Tenant B is a
 * key of another organisation than A's where there is one: sharing across
 * organisations is the finding (global). Where the endpoint also has a
 * second key of A's organisation, COUNT_TRIALS more trials pair A with it, and
 * the level is named as Gu et al. (ICML 2025) do: per-user, per-organisation
 * or global. Sharing between two keys of one organisation (OpenAI documents
 * per-organisation caching) is reported as that, never as a cross-tenant
 * exposure.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe-env.h"
#include "stats.h"

static const int looks[] = { 30, 60, 120, 250 };   /* trials per group at each look */
#define NLOOKS ((int)(sizeof looks / sizeof looks[0]))
#define MAX_TRIALS 250
#define SUFFIX_UNITS 16           /* each request's own words after the opening */
#define SHORT_UNITS 16
#define ALPHA 0.01                /* one-sided, over all looks */
#define ALPHA_LOOK (ALPHA / NLOOKS)
#define MIN_SAVING_MS 1.0         /* a median saving below this is not worth a finding */
#define POWER 0.8                 /* the power a pass needs, and the trials needed are for */
#define PREFILL_CONF 0.95         /* the effect looked for is half the prefill at this confidence */
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
	return px_cache_opening(env);
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
	int cross, same, extra;

	trial_tokens(env, &tin);
	px_cache_pairs(env, &cross, &same);
	/* With keys of A's organisation and of another, the same-organisation pair's count
	 * trials come on top. */
	extra = cross >= 0 && same >= 0 ? COUNT_TRIALS : 0;
	p->requests = (int64_t)(MAX_TRIALS + extra) * K_N;
	p->tokens_in = (int64_t)(MAX_TRIALS + extra) * tin;
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
shuffle_trial(struct probe_env *env, int *order)
{
	for (int i = 3; i > 0; i--) {
		int j = (int)px_uniform(env, (uint32_t)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/* Fills trials [from, to) of r and kind: fresh random openings, shuffled order. */
static void
make_trials(struct probe_env *env, struct px_req *r, int *kind, int64_t open_units, size_t from,
    size_t to, int ta, int tb)
{
	for (size_t trial = from; trial < to; trial++) {
		uint64_t opening, fresh;
		int order[4] = { K_PRIMED, K_CONTROL, K_OWN, K_SHORT };
		struct px_req *q = &r[trial * K_N];

		px_random(env, &opening, sizeof opening);
		px_random(env, &fresh, sizeof fresh);
		shuffle_trial(env, order);
		kind[trial * K_N] = K_PRIME;
		for (int k = 0; k < 4; k++)
			kind[trial * K_N + 1 + (size_t)k] = order[k];
		for (int k = 0; k < K_N; k++) {
			int what = kind[trial * K_N + (size_t)k];

			q[k].stream = 1;
			q[k].units = what == K_SHORT ? SHORT_UNITS : SUFFIX_UNITS;
			q[k].tenant = what == K_PRIME || what == K_OWN ? ta : tb;
			if (what != K_SHORT) {
				q[k].shared_units = open_units;
				q[k].shared_seed = what == K_CONTROL ? fresh : opening;
			}
		}
	}
}

/* What one look saw: the paired test that decides, and the groups' tests beside it. */
struct look {
	size_t trials, pairs;
	struct wsr_look paired;
	struct mwu cross, own;
	int have_cross, have_own;
	double prefill, prefill_low, sd, shift;
	struct paired_gate gate;
};

/* The trials' paired differences, control minus the request of kind which
 * (B's primed one, or A's own repeat), in the order sent: one for each trial
 * whose two streams were both timed. */
static size_t
pair_diffs(const struct px_req *r, const int *kind, size_t trials, int which, double *d)
{
	size_t nd = 0;

	for (size_t trial = 0; trial < trials; trial++) {
		double other = -1, control = -1;

		for (size_t i = trial * K_N; i < (trial + 1) * K_N; i++) {
			if (!r[i].sent || !px_accepted(&r[i]) || !(r[i].ttft_ms > 0))
				continue;
			if (kind[i] == which)
				other = r[i].ttft_ms;
			else if (kind[i] == K_CONTROL)
				control = r[i].ttft_ms;
		}
		if (other > 0 && control > 0)
			d[nd++] = control - other;
	}
	return nd;
}

static cJSON *
look_json(const struct look *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "trials", (double)l->trials);
	cJSON_AddNumberToObject(o, "pairs", (double)l->pairs);
	cJSON_AddNumberToObject(o, "p", l->paired.test.p);
	cJSON_AddNumberToObject(o, "rank_biserial", round(l->paired.test.r * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "cliffs_delta", round(l->cross.delta * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "median_saving_ms", round(l->paired.saving * 1000) / 1000);
	cJSON_AddNumberToObject(o, "noise_sd_ms", round(l->sd * 1000) / 1000);
	cJSON_AddNumberToObject(o, "power", l->paired.power);
	return o;
}

static cJSON *
paired_json(const struct look *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "test", "wilcoxon-signed-rank");
	cJSON_AddNumberToObject(o, "pairs", (double)l->paired.test.n);
	cJSON_AddNumberToObject(o, "zeros", (double)l->paired.test.zeros);
	cJSON_AddNumberToObject(o, "w_plus", l->paired.test.w);
	cJSON_AddNumberToObject(o, "z", round(l->paired.test.z * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "p", l->paired.test.p);
	cJSON_AddNumberToObject(o, "rank_biserial", round(l->paired.test.r * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "median_saving_ms", round(l->paired.saving * 1000) / 1000);
	return o;
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

/* The verdict the counts give, when they give one: 1 decided, 0 left to timing.
 * Tenants ta and tb of one organisation share within it: said, not a finding. */
static int
judge_counts(struct probe_env *env, struct probe_outcome *out, const struct counts *c, int ta,
    int tb)
{
	const char *a = env->tenant_label[ta], *b = env->tenant_label[tb];

	if (c->primed_hits > 0 && px_same_org(env, ta, tb)) {
		outcome_set(out, "pass", "the vendor's usage reported tenant '%s''s opening cached for "
		    "tenant '%s' (%lld cached tokens), both keys of organisation '%s': the cache is "
		    "shared within the organisation (per-organisation or global; a key of another "
		    "organisation would tell which), not across tenants as far as these keys show", a, b,
		    (long long)c->hit_max, env->tenant_org[ta]);
		return 1;
	}
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
		    "the cache is per tenant%s", a, b, c->primed, (long long)c->baseline, a, c->own_hits,
		    c->own, (long long)c->own_max, px_same_org(env, ta, tb) ? " (per user: both keys are "
		    "of one organisation)" : "");
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

/* The level a cache is shared at, as far as the counts of the pair across
 * organisations (c) and of the pair within one (s, when measured) show; NULL
 * when they do not. */
static const char *
sharing_level(const struct counts *c, const struct counts *s, int have_same)
{
	if (c->primed_hits > 0)
		return "global";
	if (c->primed < COUNT_MIN_OWN || c->own_hits < COUNT_MIN_OWN)
		return NULL;
	if (!have_same)
		return "per-user or per-organisation";
	if (s->primed_hits > 0)
		return "per-organisation";
	return s->primed >= COUNT_MIN_OWN ? "per-user" : "per-user or per-organisation";
}

/* A second key of A's organisation: COUNT_TRIALS trials pair A with it, for the
 * level only (their times are not part of the timing test). */
static void
same_org_counts(struct probe_env *env, struct probe_outcome *out, int64_t open_units, int ta,
    int ts, struct px_tally *tally, struct counts *cs)
{
	size_t n = (size_t)COUNT_TRIALS * K_N, cnt[K_N] = { 0 };
	struct px_req *r = xcalloc(n, sizeof *r);
	int *kind = xcalloc(n, sizeof *kind);
	double *t[K_N];

	for (int k = 0; k < K_N; k++)
		t[k] = xcalloc(COUNT_TRIALS, sizeof *t[k]);
	make_trials(env, r, kind, open_units, 0, COUNT_TRIALS, ta, ts);
	if (px_send(env, r, n, 1) == 0) {
		collect(env, out, r, kind, 0, n, t, cnt, tally);
		read_counts(env, r, kind, n, cs);
	}
	for (int k = 0; k < K_N; k++)
		free(t[k]);
	px_free(r, n);
	free(r);
	free(kind);
}

/* One run of the probe: the trials, what came back, and what was decided. */
struct pt {
	struct px_req *r;
	int *kind;
	size_t n, cnt[K_N], sent_trials, nd;
	double *t[K_N], *d;
	int64_t open_units, per_trial;
	struct look l;
	cJSON *lj;
	const char *stopped, *level;
	int decided, cross, same, ta, tb, ts, diagnose;
	struct counts cc, cs;
	struct px_tally tally;
};

/* The opening's prefill, as the trials show it: each trial's control time minus
 * its short prompt's, sent in the same shuffled trial, so that load moving the
 * trial cancels (the groups' medians compared unpaired, load could make it seem
 * several times its size). The effect looked for is half of it at least: half
 * the lower PREFILL_CONF bound of the differences' median, at least twice the
 * smallest saving worth a finding. A measurement that overstates the prefill
 * would make the probe look for a hit bigger than the vendor's, and pass it
 * with "the power" to see one it did not. It sets the power and the trials
 * needed, not what a finding needs: any saving past MIN_SAVING_MS with p below
 * the look's alpha. */
static void
measure_prefill(const struct pt *s, size_t trials, struct look *l)
{
	double *pf = xcalloc(MAX_TRIALS, sizeof *pf);
	size_t npf = pair_diffs(s->r, s->kind, trials, K_SHORT, pf);

	l->prefill = npf > 0 ? stats_median(pf, npf) : NAN;
	l->prefill_low = stats_median_lower(pf, npf, PREFILL_CONF);
	l->shift = isfinite(l->prefill_low) ? fmax(l->prefill_low / 2, 2 * MIN_SAVING_MS) :
	    2 * MIN_SAVING_MS;
	free(pf);
}

static void
judge_look(const struct pt *s, size_t trials, struct look *l)
{
	memset(l, 0, sizeof *l);
	l->trials = trials;
	l->pairs = s->nd;
	l->have_own = s->cnt[K_OWN] > 0 && mwu_less(s->t[K_OWN], s->cnt[K_OWN], s->t[K_CONTROL],
	    s->cnt[K_CONTROL], &l->own) == 0;
	l->have_cross = mwu_less(s->t[K_PRIMED], s->cnt[K_PRIMED], s->t[K_CONTROL],
	    s->cnt[K_CONTROL], &l->cross) == 0;
	measure_prefill(s, trials, l);
	/* The noise that matters is that of a trial's difference: load that moves both of
	 * its requests cancels. */
	l->sd = stats_mad_sd(s->d, s->nd);
	l->gate = (struct paired_gate){ ALPHA_LOOK, MIN_SAVING_MS };
	wsr_look(s->d, s->nd, &l->gate, l->shift, l->sd, POWER, POWER_SEED, &l->paired);
}

/* The trials the effect looked for needs under the noise of the last look. */
static long
trials_needed(const struct look *l)
{
	return wsr_gate_trials_needed(&l->gate, l->shift, l->sd, POWER, NEEDED_MAX, NEEDED_SIMS,
	    POWER_SEED);
}

/* An undecided test says why in words: the noise, the trials it had and the
 * power they gave, why sampling stopped, and the trials and tokens a decision
 * would need; "no number of trials" only when the arithmetic shows it. */
static void
say_undecided(struct probe_env *env, struct probe_outcome *out, cJSON *d, const struct pt *s)
{
	const struct look *l = &s->l;
	long needed = trials_needed(l);
	int64_t per = trial_tokens(env, NULL);
	char cost[160] = "";

	cJSON_AddNumberToObject(d, "trials_needed", (double)needed);
	cJSON_AddStringToObject(d, "stopped", s->stopped ? s->stopped : "");
	if (needed > 0) {
		cJSON_AddNumberToObject(d, "tokens_needed", (double)(needed * per));
		snprintf(cost, sizeof cost, "about %ld trials (%ld requests, about %lld tokens)", needed,
		    needed * K_N, (long long)(needed * per));
	}
	if (needed == 0)
		outcome_set(out, "inconclusive", "no cache hit seen in %zu trials (paired timing noise sd "
		    "%.1f ms), and no number of trials would show one: the saving looked for, %.1f ms, is "
		    "not above the %.1f ms a finding needs", s->sent_trials, l->sd, l->shift,
		    (double)MIN_SAVING_MS);
	else if (needed < 0)
		outcome_set(out, "inconclusive", "timing noise (paired sd %.1f ms) is too high for %zu trials "
		    "to see a cache hit saving %.1f ms (power %.0f%%, target %.0f%%); %s; it would take more "
		    "than %d trials (more than %lld tokens)", l->sd, s->sent_trials, l->shift,
		    100 * l->paired.power, 100 * POWER, s->stopped ? s->stopped : "sampling stopped",
		    NEEDED_MAX, (long long)(NEEDED_MAX * per));
	else
		outcome_set(out, "inconclusive", "timing noise (paired sd %.1f ms) is too high for %zu trials "
		    "to see a cache hit saving %.1f ms (power %.0f%%, target %.0f%%); %s; a decision would "
		    "need %s", l->sd, s->sent_trials, l->shift, 100 * l->paired.power, 100 * POWER,
		    s->stopped ? s->stopped : "sampling stopped", cost);
}

/* The vendor's own counts first: where they decide, no timing is needed.
 * Returns -1 when sending failed. */
static int
counts_phase(struct probe_env *env, struct probe_outcome *out, struct pt *s)
{
	make_trials(env, s->r, s->kind, s->open_units, 0, COUNT_TRIALS, s->ta, s->tb);
	if (px_send(env, s->r, (size_t)COUNT_TRIALS * K_N, 1) != 0)
		return -1;
	collect(env, out, s->r, s->kind, 0, (size_t)COUNT_TRIALS * K_N, s->t, s->cnt, &s->tally);
	while (s->sent_trials < COUNT_TRIALS && s->r[s->sent_trials * K_N].sent)
		s->sent_trials++;
	read_counts(env, s->r, s->kind, s->sent_trials * K_N, &s->cc);
	if (s->cc.reported > 0 && s->ts >= 0 && !env->budget_hit && !env->interrupted)
		same_org_counts(env, out, s->open_units, s->ta, s->ts, &s->tally, &s->cs);
	if (s->cc.reported > 0 && !env->budget_hit && !env->interrupted) {
		s->decided = judge_counts(env, out, &s->cc, s->ta, s->tb);
		if (s->cross >= 0)
			s->level = sharing_level(&s->cc, &s->cs, s->ts >= 0);
	}
	/* The same organisation's pair shares what the other does not: said beside the pass. */
	if (s->decided && s->level != NULL && strcmp(s->level, "per-organisation") == 0 &&
	    out->verdict != NULL && strcmp(out->verdict, "pass") == 0) {
		size_t len = strlen(out->reason);

		snprintf(out->reason + len, sizeof out->reason - len, "; keys '%s' and '%s' of "
		    "organisation '%s' share it (%lld cached tokens reported for the other's opening): "
		    "the cache is per organisation, as OpenAI documents its own",
		    env->tenant_label[s->ta], env->tenant_label[s->ts], env->tenant_org[s->ta],
		    (long long)s->cs.hit_max);
	}
	return 0;
}

/* The sequential timing test, look by look, until one decides or sampling stops
 * (s->stopped says why). Returns -1 when sending failed. */
static int
timing_looks(struct probe_env *env, struct probe_outcome *out, struct pt *s)
{
	long needed;

	for (int li = 0; li < NLOOKS && !s->decided && !env->budget_hit && !env->interrupted; li++) {
		size_t to = (size_t)looks[li];

		/* A later look is taken only when the budget covers all of it: a look cut short by
		 * the budget would stop the run, and half a look adds little. */
		if (li > 0 && env->opts->budget_tokens > 0 && env->tokens_in + env->tokens_out +
		    s->per_trial * (int64_t)(to - s->sent_trials) > env->opts->budget_tokens) {
			s->stopped = "the run's token budget does not cover the next look";
			break;
		}
		make_trials(env, s->r, s->kind, s->open_units, s->sent_trials, to, s->ta, s->tb);
		/* One at a time, in order: B's "primed" request must follow A's prime. */
		if (px_send(env, &s->r[s->sent_trials * K_N], (to - s->sent_trials) * K_N, 1) != 0)
			return -1;
		collect(env, out, s->r, s->kind, s->sent_trials * K_N, to * K_N, s->t, s->cnt,
		    &s->tally);
		/* Sent in order: the trials begun are those whose prime went out. */
		while (s->sent_trials < to && s->r[s->sent_trials * K_N].sent)
			s->sent_trials++;
		s->nd = pair_diffs(s->r, s->kind, s->sent_trials, K_PRIMED, s->d);
		/* A count that shows the opening served across tenants decides at any look. */
		read_counts(env, s->r, s->kind, s->sent_trials * K_N, &s->cc);
		if (s->cc.primed_hits > 0 &&
		    (s->decided = judge_counts(env, out, &s->cc, s->ta, s->tb)) != 0)
			break;
		if (env->budget_hit || env->interrupted) {
			s->stopped = "the run's token budget ended during the look";
			break;
		}
		if (s->nd < MIN_ANSWERED || s->cnt[K_SHORT] < 1)
			break;
		judge_look(s, s->sent_trials, &s->l);
		cJSON_AddItemToArray(s->lj, look_json(&s->l));
		if (s->l.paired.decision != MWU_LOOK_UNDECIDED)
			break;
		if (li == NLOOKS - 1) {
			s->stopped = "the last look was reached";
			break;
		}
		/* Futility: no number of trials can show the effect looked for; or, at verify
		 * depth, it needs more than the probe sends. A real hit may save more than the
		 * effect looked for (half the opening's prefill, as the trials bound it), so
		 * at diagnose depth the looks go on to the last. */
		needed = trials_needed(&s->l);
		if (needed == 0) {
			s->stopped = "more trials cannot help";
			break;
		}
		if ((needed < 0 || needed > MAX_TRIALS) && !s->diagnose) {
			s->stopped = "at verify depth the probe stops when a decision needs more than the "
			    "250 trials it sends (--depth diagnose samples to the last look all the same)";
			break;
		}
	}
	return 0;
}

/* probe_result.details before any timing verdict: the design, the groups, the
 * looks, the tally, the counts and the pairs. */
static cJSON *
pt_details(struct probe_env *env, struct pt *s)
{
	cJSON *d = cJSON_CreateObject(), *g;

	cJSON_AddStringToObject(d, "test", "paired: one-sided Wilcoxon signed-rank of control minus "
	    "primed, per trial");
	cJSON_AddNumberToObject(d, "alpha", ALPHA);
	cJSON_AddNumberToObject(d, "alpha_per_look", ALPHA_LOOK);
	cJSON_AddStringToObject(d, "alpha_spending", "bonferroni: alpha split evenly over the looks "
	    "(Pocock-type)");
	g = cJSON_AddArrayToObject(d, "looks_planned");
	for (int i = 0; i < NLOOKS; i++)
		cJSON_AddItemToArray(g, cJSON_CreateNumber(looks[i]));
	cJSON_AddNumberToObject(d, "power_target", POWER);
	cJSON_AddStringToObject(d, "depth", probe_depth_name(env->opts->depth));
	cJSON_AddNumberToObject(d, "trials", (double)s->sent_trials);
	cJSON_AddNumberToObject(d, "max_trials", MAX_TRIALS);
	cJSON_AddNumberToObject(d, "opening_units", (double)s->open_units);
	cJSON_AddNumberToObject(d, "opening_tokens", (double)opening_tokens(env));
	g = cJSON_AddObjectToObject(d, "groups");
	for (int k = 1; k < K_N; k++)
		cJSON_AddItemToObject(g, kind_name[k], group_json(s->t[k], s->cnt[k]));
	cJSON_AddItemToObject(d, "looks", s->lj);
	s->lj = NULL;
	px_tally_json(&s->tally, d);
	cJSON_AddItemToObject(d, "cache_counts", counts_json(&s->cc));
	cJSON_AddStringToObject(d, "decided_by", s->decided ? "usage" : "timing");
	cJSON_AddStringToObject(d, "tenant_a", env->tenant_label[s->ta]);
	cJSON_AddStringToObject(d, "tenant_b", env->tenant_label[s->tb]);
	cJSON_AddBoolToObject(d, "same_organisation", px_same_org(env, s->ta, s->tb));
	if (s->ts >= 0) {
		cJSON_AddStringToObject(d, "tenant_same_organisation", env->tenant_label[s->ts]);
		cJSON_AddItemToObject(d, "cache_counts_same_organisation", counts_json(&s->cs));
	}
	if (s->level != NULL)
		cJSON_AddStringToObject(d, "level", s->level);
	else
		cJSON_AddNullToObject(d, "level");
	return d;
}

/* What drift over the run would make of a timing finding. Pairing cancels load
 * that moves both requests of a trial; load that changes during the run can
 * still make the saving itself change. The paired differences are split into the
 * first and second half of the trials, in the order sent, and must not differ
 * (saving_drifted: a saving that holds over the whole run but comes from one
 * half is drift; one a few percent smaller in one half is the same hit).
 * half[] gets the groups' medians (primed, control, each half: for the record)
 * and the halves' median savings. Returns 1 when the timing drifted. */
static int
timing_drifted(const double *d, size_t nd, double *const t[K_N], const size_t cnt[K_N],
    double half[6])
{
	size_t hp = cnt[K_PRIMED] / 2, hc = cnt[K_CONTROL] / 2;

	if (hp < 2 || hc < 2)
		return 0;
	half[0] = stats_median(t[K_PRIMED], hp);
	half[1] = stats_median(t[K_PRIMED] + hp, cnt[K_PRIMED] - hp);
	half[2] = stats_median(t[K_CONTROL], hc);
	half[3] = stats_median(t[K_CONTROL] + hc, cnt[K_CONTROL] - hc);
	return saving_drifted(d, nd, half + 4) == 1;
}

static cJSON *
drift_json(const double half[6], int drifted)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "primed_first_half_ms", round(half[0] * 1000) / 1000);
	cJSON_AddNumberToObject(o, "primed_second_half_ms", round(half[1] * 1000) / 1000);
	cJSON_AddNumberToObject(o, "control_first_half_ms", round(half[2] * 1000) / 1000);
	cJSON_AddNumberToObject(o, "control_second_half_ms", round(half[3] * 1000) / 1000);
	cJSON_AddNumberToObject(o, "saving_first_half_ms", round(half[4] * 1000) / 1000);
	cJSON_AddNumberToObject(o, "saving_second_half_ms", round(half[5] * 1000) / 1000);
	cJSON_AddBoolToObject(o, "drifted", drifted);
	return o;
}

/* The finding of a paired rejection that held over the run, on every primed and control
 * exchange. */
static void
timing_finding(struct probe_outcome *out, const struct pt *s)
{
	const struct look *l = &s->l;

	for (size_t i = 0; i < s->sent_trials * K_N; i++)
		if (s->r[i].sent && (s->kind[i] == K_PRIMED || s->kind[i] == K_CONTROL) &&
		    s->r[i].evidence_id > 0)
			outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, s->r[i].evidence_id,
			    "tenant B's first token came %.1f ms sooner (median of %zu trials' differences) "
			    "when tenant A had just sent the same opening than after a fresh opening of the "
			    "same length sent beside it: one-sided Wilcoxon signed-rank p = %.2g < %.2g, "
			    "rank-biserial %.2f (Cliff's delta between the groups %.2f); the prompt prefix "
			    "cache is shared across tenants", l->paired.saving, l->pairs, l->paired.test.p,
			    ALPHA_LOOK, l->paired.test.r, l->cross.delta);
	outcome_set(out, "fail", "B was faster only when A had primed the cache (paired p = %.2g, "
	    "median saving %.1f ms, %zu trials)", l->paired.test.p, l->paired.saving, s->sent_trials);
}

/* The verdict of the timing test at its last look. */
/* What a pass says of A's own repeats, paired as the cross-tenant test is: each
 * trial's control time minus A's repeat of its opening, sent in the same
 * shuffled trial, so that load moving the trial cancels (the groups compared
 * unpaired, a busy machine could make one tenant's streams look faster).
 * Faster takes what a finding would: p below ALPHA and a median saving of at
 * least MIN_SAVING_MS. Only the wording depends on it; "own_paired" in d. */
static void
own_said(const struct pt *s, cJSON *d, char *buf, size_t n)
{
	static const struct paired_gate gate = { ALPHA, MIN_SAVING_MS };
	double *od = xcalloc(MAX_TRIALS, sizeof *od), saving;
	size_t nod = pair_diffs(s->r, s->kind, s->sent_trials, K_OWN, od);
	struct wsr w;
	int faster;
	cJSON *o;

	buf[0] = '\0';
	if (nod >= MIN_ANSWERED && (faster = wsr_gated(od, nod, &gate, &w, &saving)) >= 0) {
		o = cJSON_AddObjectToObject(d, "own_paired");
		cJSON_AddNumberToObject(o, "pairs", (double)w.n);
		cJSON_AddNumberToObject(o, "p", w.p);
		cJSON_AddNumberToObject(o, "median_saving_ms", round(saving * 1000) / 1000);
		if (faster)
			snprintf(buf, n, "; A's own repeats were faster (paired p = %.2g, median saving "
			    "%.1f ms): the cache is per tenant", w.p, saving);
		else
			snprintf(buf, n, "; A's own repeats were not faster either: no prefix caching seen");
	}
	free(od);
}

static void
timing_verdict(struct probe_env *env, struct probe_outcome *out, struct pt *s, cJSON *d)
{
	const struct look *l = &s->l;
	size_t trials = s->sent_trials;

	if (s->nd < MIN_ANSWERED || s->cnt[K_SHORT] < 1) {
		if (env->budget_hit && trials < (size_t)looks[0])
			outcome_set(out, "inconclusive", "the run stopped before the first %d trials were sent",
			    looks[0]);
		else
			outcome_set(out, "inconclusive", "too few answered streams to time: %zu primed, %zu "
			    "control, %zu trials with both (at least %d are needed)", s->cnt[K_PRIMED],
			    s->cnt[K_CONTROL], s->nd, MIN_ANSWERED);
		return;
	}
	if (s->l.trials != trials) {
		/* The look the budget cut short is judged on what it got. */
		judge_look(s, trials, &s->l);
		cJSON_AddItemToArray(cJSON_GetObjectItem(d, "looks"), look_json(&s->l));
	}
	cJSON_AddItemToObject(d, "paired", paired_json(l));
	if (l->have_cross)
		cJSON_AddItemToObject(d, "cross_tenant", test_json(&l->cross));
	if (l->have_own)
		cJSON_AddItemToObject(d, "own_tenant", test_json(&l->own));
	cJSON_AddNumberToObject(d, "median_saving_ms", round(l->paired.saving * 1000) / 1000);
	cJSON_AddNumberToObject(d, "opening_prefill_ms", round(l->prefill * 1000) / 1000);
	cJSON_AddNumberToObject(d, "opening_prefill_low_ms", round(l->prefill_low * 1000) / 1000);
	cJSON_AddNumberToObject(d, "opening_prefill_conf", PREFILL_CONF);
	cJSON_AddNumberToObject(d, "detectable_saving_ms", round(l->shift * 1000) / 1000);
	cJSON_AddNumberToObject(d, "min_saving_ms", round(l->gate.min_saving * 1000) / 1000);
	cJSON_AddNumberToObject(d, "noise_sd_ms", round(l->sd * 1000) / 1000);
	cJSON_AddNumberToObject(d, "power", l->paired.power);

	if (l->paired.decision == MWU_LOOK_REJECT && px_same_org(env, s->ta, s->tb)) {
		outcome_set(out, "pass", "B was faster only when A had primed the cache (paired p = %.2g, "
		    "median saving %.1f ms, %zu trials), both keys of organisation '%s': the cache is "
		    "shared within the organisation (per-organisation or global; a key of another "
		    "organisation would tell which)", l->paired.test.p, l->paired.saving, trials,
		    env->tenant_org[s->ta]);
		return;
	}
	if (l->paired.decision == MWU_LOOK_REJECT) {
		double half[6] = { 0, 0, 0, 0, 0, 0 };
		int drifted = timing_drifted(s->d, s->nd, s->t, s->cnt, half);

		cJSON_AddItemToObject(d, "drift", drift_json(half, drifted));
		if (drifted) {
			outcome_set(out, "inconclusive", "the timing drifted: B was faster after A's opening "
			    "over all %zu trials (paired p = %.2g), but the saving moved during the run "
			    "(%.1f then %.1f ms, halves in the order sent; primed %.1f then %.1f ms, "
			    "control %.1f then %.1f ms): a saving that does not hold alike in both halves "
			    "is load, not a cache hit", trials, l->paired.test.p, half[4], half[5], half[0],
			    half[1], half[2], half[3]);
			return;
		}
		timing_finding(out, s);
		return;
	}
	if (l->paired.decision == MWU_LOOK_POWERED) {
		char own[160];

		own_said(s, d, own, sizeof own);
		outcome_set(out, "pass", "B was not faster after A sent the same opening (paired p = %.2g, "
		    "median saving %.1f ms over %zu trials; the test had %.0f%% power, target %.0f%%, to "
		    "see a hit saving %.1f ms under paired noise sd %.1f ms)%s", l->paired.test.p,
		    l->paired.saving, trials, 100 * l->paired.power, 100 * POWER, l->shift, l->sd, own);
		return;
	}
	say_undecided(env, out, d, s);
}

static void
prefix_timing_run(struct probe_env *env, struct probe_outcome *out)
{
	struct pt s;

	if (env->ntenants < 2) {
		outcome_set(out, "inconclusive", "the cross-tenant prefix-cache check needs a second "
		    "credential on the endpoint (one per tenant)");
		return;
	}
	memset(&s, 0, sizeof s);
	s.n = (size_t)MAX_TRIALS * K_N;
	s.diagnose = env->opts->depth == PROBE_DIAGNOSE;
	/* B is a key of another organisation where there is one; a second key of A's own
	 * names the level. */
	px_cache_pairs(env, &s.cross, &s.same);
	s.tb = s.cross >= 0 ? s.cross : s.same;
	s.ts = s.cross >= 0 ? s.same : -1;
	s.r = xcalloc(s.n, sizeof *s.r);
	s.kind = xcalloc(s.n, sizeof *s.kind);
	for (int k = 0; k < K_N; k++)
		s.t[k] = xcalloc(MAX_TRIALS, sizeof *s.t[k]);
	s.d = xcalloc(MAX_TRIALS, sizeof *s.d);
	s.open_units = px_units_for(env, opening_tokens(env));
	s.per_trial = trial_tokens(env, NULL);
	s.per_trial += s.per_trial / 4;   /* the engine reserves a quarter more for each prompt */
	s.lj = cJSON_CreateArray();
	if (counts_phase(env, out, &s) == 0 && timing_looks(env, out, &s) == 0) {
		out->details = pt_details(env, &s);
		if (!s.decided)
			timing_verdict(env, out, &s, out->details);
	}
	cJSON_Delete(s.lj);
	for (int k = 0; k < K_N; k++)
		free(s.t[k]);
	free(s.d);
	px_free(s.r, s.n);
	free(s.r);
	free(s.kind);
}

const struct probe probe_prefix_timing = {
	"prefix-timing", "cache scoping: is a prompt-prefix cache shared across tenants?",
	prefix_timing_plan, prefix_timing_run, PROBE_OPT_IN, 6, 6,
};
