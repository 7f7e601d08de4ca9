/*
 * probe-env.c: a run's environment: the endpoint and its tenants'
 * credentials loaded, the probes selected and ordered for the budget, the
 * plan, and the calibration of tokens per filler word; and the endpoint as a
 * run records it, from which a rejudge makes its environment. Part of the
 * probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sodium.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

/* ---- environment: endpoint, tenants, calibration ---- */

void
env_free(struct probe_env *env)
{
	for (int i = 0; i < env->ntenants; i++) {
		free(env->tenant_label[i]);
		free(env->tenant_org[i]);
		if (env->tenant_secret[i] != NULL)
			credref_free(env->tenant_secret[i], env->tenant_secret_len[i]);
	}
	endpoint_free(&env->ep);
	cJSON_Delete(env->limit_switch);
	cJSON_Delete(env->size_follow);
	canary_set_free(env->canaries);
	http_engine_free(env->http);
	free(env->seq_evidence);
	memset(env, 0, sizeof *env);
}

static int
by_id(const void *a, const void *b)
{
	const struct credential *x = *(const struct credential *const *)a;
	const struct credential *y = *(const struct credential *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The endpoint's credentials as its tenants, in the order they were added
 * (the canary probe's order; the record holds them by label), the first
 * PROBE_MAX_TENANTS, each secret read when resolve is set. */
static int
env_tenants(struct probe_env *env, int resolve, struct aerr *err)
{
	const struct credential **c = xcalloc(env->ep.ncredentials + 1, sizeof *c);
	int rc = 0;

	for (size_t i = 0; i < env->ep.ncredentials; i++)
		c[i] = &env->ep.credentials[i];
	qsort(c, env->ep.ncredentials, sizeof *c, by_id);
	for (size_t i = 0; rc == 0 && i < env->ep.ncredentials && env->ntenants < PROBE_MAX_TENANTS; i++) {
		int t = env->ntenants++;

		env->tenant_label[t] = xstrdup(c[i]->label);
		env->tenant_org[t] = c[i]->org != NULL ? xstrdup(c[i]->org) : NULL;
		if (resolve && (rc = credref_read(env->db, env->av->actor, env->ep.id, env->ep.url,
		    env->tenant_label[t], c[i]->ref, &env->tenant_secret[t],
		    &env->tenant_secret_len[t], err)) != 0)
			aerr_prefix(err, "tenant '%s'", env->tenant_label[t]);
	}
	free(c);
	return rc;
}

/* What every run starts from, before its endpoint is known. */
void
env_defaults(struct probe_env *env, struct aivet *av, const struct probe_opts *o)
{
	memset(env, 0, sizeof *env);
	env->av = av;
	env->opts = o;
	env->echo_ok = -1;
	env->max_tokens = 64;
	env->tokens_per_unit = env->tpu_min = env->tpu_max = 2.0;
	env->max_prompt_tokens = o->max_prompt_tokens;
	env->overhead_tokens = 40;
	snprintf(env->calib_method, sizeof env->calib_method, "none");
	randombytes_buf(env->seed, sizeof env->seed);
	http_opts_default(&env->hopts);
	if (o->concurrency > 0)
		env->hopts.concurrency = o->concurrency;
	if (o->max_response > 0)
		env->hopts.max_response = o->max_response;
	if (o->timeout_ms > 0)
		env->hopts.timeout_ms = o->timeout_ms;
	env->hopts.cancel = o->cancel;
}

int
env_init(struct probe_env *env, struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int resolve, struct aerr *err)
{
	env_defaults(env, av, o);
	if ((env->db = av_db(av, err)) == NULL)
		return err->code;
	if (endpoint_get_active(env->db, endpoint_id, &env->ep, err) != 0)
		return err->code;
	if ((env->prov = provider_find(env->ep.api)) == NULL)
		return aerr_set(err, AV_USAGE, "endpoint API '%s' has no adapter", env->ep.api);
	if (o->budget_usd > 0 && !(env->ep.has_price_in && env->ep.has_price_out)) {
		char *ref = xasprintf("%s/%s", env->ep.vendor, env->ep.name), *word = shell_word(ref);

		aerr_set(err, AV_USAGE, "--budget-usd: endpoint %s has no prices: set them with "
		    "aivet endpoint edit %s --price-in USD --price-out USD, or use --budget-tokens",
		    ref, word);
		free(ref);
		free(word);
		return err->code;
	}
	if (env->prov->check != NULL && env->prov->check(&env->ep, err) != 0)
		return aerr_prefix(err, "endpoint %s/%s", env->ep.vendor, env->ep.name);
	if (url_check(env->ep.url, env->ep.allow_insecure_http, err) != 0)
		return aerr_prefix(err, "endpoint %s/%s", env->ep.vendor, env->ep.name);
	if (env_tenants(env, resolve, err) != 0)
		return err->code;
	if (env->ntenants == 0)
		env->tenant_label[env->ntenants++] = xstrdup("default");
	env->canaries = canary_set_new();
	return 0;
}

void
probe_names_text(struct buf *b, const char *sep)
{
	for (size_t n = 0; probe_table[n] != NULL; n++)
		buf_printf(b, "%s%s", n ? sep : "", probe_table[n]->name);
}

/* An unknown name in --probe: the probes from the table (every one, opt-in too),
 * and the one a typo meant where name_suggest() finds it. */
static int
unknown_probe(const char *s, size_t len, struct aerr *err)
{
	const char *names[16];
	char *typed = xasprintf("%.*s", (int)len, s);
	const char *near;
	struct buf list;
	size_t n = 0;
	int rc;

	buf_init(&list);
	for (; probe_table[n] != NULL && n < sizeof names / sizeof names[0]; n++) {
		names[n] = probe_table[n]->name;
		buf_printf(&list, "%s, ", names[n]);
	}
	near = name_suggest(typed, names, n);
	if (near != NULL)
		rc = aerr_set(err, AV_USAGE, "--probe: unknown probe '%s': did you mean '%s'? (probes: %sor all)",
		    typed, near, list.data);
	else
		rc = aerr_set(err, AV_USAGE, "--probe: unknown probe '%s' (probes: %sor all)", typed, list.data);
	buf_free(&list);
	free(typed);
	return rc;
}

int
select_probes(const struct probe_opts *o, const struct probe **sel, int *n, struct aerr *err)
{
	const char *s = o->probes;

	*n = 0;
	if (s == NULL || strcmp(s, "all") == 0) {
		for (int i = 0; probe_table[i] != NULL; i++)
			if (!(probe_table[i]->traits & PROBE_OPT_IN))
				sel[(*n)++] = probe_table[i];
		return 0;
	}
	while (*s) {
		size_t len = strcspn(s, ",");
		char name[32];
		const struct probe *p;

		snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), s);
		if (strcmp(name, "all") == 0) {
			/* "all" in a list: the default suite, plus the opt-in probes named beside it. */
			for (int i = 0; probe_table[i] != NULL; i++) {
				int dup = 0;

				for (int j = 0; j < *n; j++)
					dup |= sel[j] == probe_table[i];
				if (!(probe_table[i]->traits & PROBE_OPT_IN) && !dup)
					sel[(*n)++] = probe_table[i];
			}
			s += len + (s[len] == ',');
			continue;
		}
		if ((p = probe_find(name)) == NULL || len > 31)
			return unknown_probe(s, len, err);
		for (int i = 0; i < *n; i++)
			if (sel[i] == p)
				return aerr_set(err, AV_USAGE, "--probe: '%s' given twice", name);
		sel[(*n)++] = p;
		s += len + (s[len] == ',');
	}
	if (*n == 0)
		return aerr_set(err, AV_USAGE, "--probe: no probe named");
	/* Run in the declared order: the probe that makes the echo baseline before
	 * those that read it. */
	for (int i = 1; i < *n; i++)
		for (int j = i; j > 0 && sel[j - 1]->order > sel[j]->order; j--) {
			const struct probe *t = sel[j];

			sel[j] = sel[j - 1];
			sel[j - 1] = t;
		}
	return 0;
}

/* A probe that reads the endpoint's engine leaves the default suite of an endpoint
 * that has none; named on its own it stays, and says the engine is missing. */
void
drop_engineless(const struct probe_opts *o, const struct endpoint *ep, const struct probe **sel,
    int *n)
{
	int k = 0;

	for (int i = 0; i < *n; i++) {
		const char *s = o->probes, *p = NULL;
		size_t len = strlen(sel[i]->name);

		for (p = s ? strstr(s, sel[i]->name) : NULL; p != NULL; p = strstr(p + 1, sel[i]->name))
			if ((p == s || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
				break;
		if ((sel[i]->traits & PROBE_NEEDS_ENGINE) && ep->engine.n == 0 && p == NULL)
			continue;
		sel[k++] = sel[i];
	}
	*n = k;
}

int
needs_calibration(const struct probe **sel, int n)
{
	for (int i = 0; i < n; i++)
		if (!(sel[i]->traits & PROBE_NO_CALIBRATION))
			return 1;
	return 0;
}

/* Under a budget the most informative requests go first, as each probe declares
 * (budget_order): the echo baseline every content check rests on, the cheap error
 * handling, the top of the context (one prompt), the canaries under near-limit
 * load, and last the oversize pair, whose prompts reserve twice the context each.
 * Without a budget the usual order. */
void
order_for_budget(const struct probe_opts *o, const struct probe **sel, int n)
{
	if (o->budget_tokens <= 0 && o->budget_usd <= 0)
		return;
	for (int i = 1; i < n; i++)   /* stable: insertion */
		for (int j = i; j > 0 && sel[j - 1]->budget_order > sel[j]->budget_order; j--) {
			const struct probe *t = sel[j];

			sel[j] = sel[j - 1];
			sel[j - 1] = t;
		}
}

const char *
probe_depth_name(enum probe_depth d)
{
	return d == PROBE_DIAGNOSE ? "diagnose" : "verify";
}

int
probe_depth_parse(const char *s, enum probe_depth *out, struct aerr *err)
{
	if (strcmp(s, "verify") == 0)
		*out = PROBE_VERIFY;
	else if (strcmp(s, "diagnose") == 0)
		*out = PROBE_DIAGNOSE;
	else
		return aerr_set(err, AV_USAGE, "--depth: '%s' is not verify or diagnose", s);
	return 0;
}

/* A plan's totals over its lines. */
struct plan_totals {
	int64_t req, tin, tout, tin_exp, cached;
};

/* The plan's lines: the calibration when a probe needs it, then each probe's,
 * expected (sizes as a typical tokenizer makes them) and at most (as the least
 * compact one would, with the largest template allowed). */
static void
plan_lines(struct probe_env *env, const struct probe **sel, int n, cJSON *arr,
    struct plan_totals *t)
{
	if (needs_calibration(sel, n)) {
		cJSON *p = cJSON_CreateObject();
		/* Where usage cannot be read the API's count endpoint is asked: two requests
		 * more, at most, that bill nothing. */
		int creq = env->prov->build_count != NULL ? 4 : 2;
		int64_t cin = (int64_t)(2 * PLAN_OVERHEAD_MAX + (CALIB_SMALL + CALIB_LARGE) * TPU_BOUND_MAX);

		cJSON_AddStringToObject(p, "name", "calibration");
		cJSON_AddNumberToObject(p, "requests", creq);
		cJSON_AddNumberToObject(p, "tokens_in", (double)cin);
		cJSON_AddNumberToObject(p, "tokens_in_expected", 2 * 40 + (CALIB_SMALL + CALIB_LARGE) * 2);
		cJSON_AddNumberToObject(p, "tokens_out", 2 * env->max_tokens);
		cJSON_AddItemToArray(arr, p);
		t->req += creq, t->tin += cin, t->tout += 2 * env->max_tokens;
		t->tin_exp += 2 * 40 + (CALIB_SMALL + CALIB_LARGE) * 2;
	}
	for (int i = 0; i < n; i++) {
		struct probe_plan pp = { .tokens_in_expected = -1 }, most = { .tokens_in_expected = -1 };
		struct probe_env worst = *env;
		cJSON *p = cJSON_CreateObject();

		sel[i]->plan(env, &pp);
		if (pp.tokens_in_expected < 0)
			pp.tokens_in_expected = pp.tokens_in;
		worst.tokens_per_unit = worst.tpu_min = worst.tpu_max = TPU_BOUND_MAX;
		worst.overhead_tokens = PLAN_OVERHEAD_MAX;
		sel[i]->plan(&worst, &most);
		pp.tokens_in = most.tokens_in > pp.tokens_in ? most.tokens_in : pp.tokens_in;
		cJSON_AddStringToObject(p, "name", sel[i]->name);
		cJSON_AddNumberToObject(p, "requests", (double)pp.requests);
		cJSON_AddNumberToObject(p, "tokens_in", (double)pp.tokens_in);
		cJSON_AddNumberToObject(p, "tokens_in_expected", (double)pp.tokens_in_expected);
		cJSON_AddNumberToObject(p, "tokens_out", (double)pp.tokens_out);
		cJSON_AddItemToArray(arr, p);
		t->req += pp.requests, t->tin += pp.tokens_in, t->tout += pp.tokens_out;
		t->tin_exp += pp.tokens_in_expected;
		t->cached += pp.tokens_cached_expected;
	}
}

/* What the plan says beside its lines: the largest prompt the selected probes
 * send (so a user under a lower tokens-per-minute limit knows to cap it), how
 * often the sweep repeats the top, what prefix-timing can tell apart, and the
 * budgets the run will stop at (the plan's at-most is read against them). */
/* The largest prompt the selected probes send, in tokens (--max-prompt-tokens caps
 * it); 0 when none sends a large one. */
static double
largest_prompt(const struct probe_env *env, const struct probe **sel, int n)
{
	double f = 0;

	for (int i = 0; i < n; i++)
		f = fmax(f, strcmp(sel[i]->name, "oversize") == 0 ? 2.0 :
		    strcmp(sel[i]->name, "canary") == 0 ? 1.05 :
		    strcmp(sel[i]->name, "sweep") == 0 ? 0.97 : 0);
	if (f > 0 && env->max_prompt_tokens > 0 && f * (double)env->ep.context_tokens >
	    (double)env->max_prompt_tokens)
		return (double)env->max_prompt_tokens;
	return f * (double)env->ep.context_tokens;
}

static void
plan_limits(const struct probe_env *env, const struct probe **sel, int n, cJSON *plan)
{
	double largest = largest_prompt(env, sel, n);

	if (largest > 0)
		cJSON_AddNumberToObject(plan, "largest_prompt_tokens", largest);
	else
		cJSON_AddNullToObject(plan, "largest_prompt_tokens");
	if (env->max_prompt_tokens > 0)
		cJSON_AddNumberToObject(plan, "max_prompt_tokens", (double)env->max_prompt_tokens);
	else
		cJSON_AddNullToObject(plan, "max_prompt_tokens");
	for (int i = 0; i < n; i++)
		if (strcmp(sel[i]->name, "sweep") == 0) {
			char rep[240];

			cJSON_AddStringToObject(plan, "sweep_repeats", px_top_repeats_text(env, rep, sizeof rep));
		}
	for (int i = 0; i < n; i++)
		if (strcmp(sel[i]->name, "prefix-timing") == 0)
			cJSON_AddStringToObject(plan, "cache_sharing_levels", px_cache_levels(env));
	if (env->opts->budget_usd > 0)
		cJSON_AddNumberToObject(plan, "budget_usd", env->opts->budget_usd);
	else
		cJSON_AddNullToObject(plan, "budget_usd");
	if (env->opts->budget_tokens > 0)
		cJSON_AddNumberToObject(plan, "budget_tokens", (double)env->opts->budget_tokens);
	else
		cJSON_AddNullToObject(plan, "budget_tokens");
}

/* The endpoint's prices; 1 when it has a cached-input price (--option
 * price-cached-in=USD), at which the expected figure prices the prompt-cache hits. */
static int
endpoint_prices(const struct probe_env *env, struct plan_prices *pr)
{
	const char *pc = endpoint_option(&env->ep, "price-cached-in", NULL);
	char *end = NULL;

	memset(pr, 0, sizeof *pr);
	pr->has_in = env->ep.has_price_in, pr->has_out = env->ep.has_price_out;
	pr->in = env->ep.price_in_per_mtok, pr->out = env->ep.price_out_per_mtok;
	pr->cached_in = pc != NULL ? strtod(pc, &end) : -1;
	if (pc == NULL || end == pc || *end != '\0' || !(pr->cached_in >= 0)) {
		pr->cached_in = pr->in;
		return 0;
	}
	return 1;
}

/* The plan's cost at the endpoint's prices (plan_usd(), as each line of its text
 * prices its own tokens), null without them. */
static void
plan_cost(const struct probe_env *env, const struct plan_totals *t, cJSON *plan)
{
	struct plan_prices pr;
	int64_t cached = endpoint_prices(env, &pr) ? t->cached : 0;

	cached = cached < t->tin_exp ? cached : t->tin_exp;
	if (!pr.has_in) {
		cJSON_AddNullToObject(plan, "cost_usd");
		cJSON_AddNullToObject(plan, "cost_usd_expected");
		return;
	}
	cJSON_AddNumberToObject(plan, "cost_usd", plan_usd(&pr, t->tin, 0, t->tout));
	cJSON_AddNumberToObject(plan, "tokens_in_cached_expected", (double)cached);
	cJSON_AddNumberToObject(plan, "cost_usd_expected", plan_usd(&pr, t->tin_exp, cached, t->tout));
	/* The prices the plan was made at stay with the run, so what it billed can be
	 * priced later as it was then, and each line of the plan at the same prices. */
	cJSON_AddNumberToObject(plan, "price_in_per_mtok", pr.in);
	if (pr.has_out)
		cJSON_AddNumberToObject(plan, "price_out_per_mtok", pr.out);
	if (cached > 0 || pr.cached_in != pr.in)
		cJSON_AddNumberToObject(plan, "price_cached_in_per_mtok", pr.cached_in);
}

/* Verify's repeats of the top of the context: PX_TOP_REPEATS, or as many more (up to
 * PX_TOP_REPEATS_MAX) as the budgets cover with the whole plan at most, so that the
 * run does not stop short for them; more confidence is bought, never taken by default.
 * In USD the run reserves a request at the dearer of the two prices before it is
 * counted at its own (probe-send.c): the largest prompt's reservation is kept free. */
static void
choose_top_repeats(struct probe_env *env, const struct probe **sel, int n)
{
	const struct probe_opts *o = env->opts;
	struct plan_prices pr;
	double reserve_usd;
	int sweep = 0;

	env->top_repeats = PX_TOP_REPEATS;
	for (int i = 0; i < n; i++)
		sweep |= strcmp(sel[i]->name, "sweep") == 0;
	if (o->depth != PROBE_VERIFY || !sweep || (o->budget_tokens <= 0 && o->budget_usd <= 0))
		return;
	endpoint_prices(env, &pr);
	reserve_usd = largest_prompt(env, sel, n) * (fmax(pr.in, pr.out) - pr.in) / 1e6;
	for (int r = PX_TOP_REPEATS_MAX; r > PX_TOP_REPEATS; r--) {
		cJSON *scratch = cJSON_CreateArray();
		struct plan_totals t = { 0 };
		int fits;

		env->top_repeats = r;
		plan_lines(env, sel, n, scratch, &t);
		cJSON_Delete(scratch);
		fits = (o->budget_tokens <= 0 || t.tin + t.tout <= o->budget_tokens) &&
		    (o->budget_usd <= 0 || (pr.has_in && plan_usd(&pr, t.tin, 0, t.tout) + reserve_usd <=
		    o->budget_usd));
		if (fits)
			return;
	}
	env->top_repeats = PX_TOP_REPEATS;
}

cJSON *
make_plan(struct probe_env *env, const struct probe **sel, int n)
{
	cJSON *plan = cJSON_CreateObject(), *arr;
	struct plan_totals t = { 0 };
	int sweep = 0, canary = 0;

	cJSON_AddStringToObject(plan, "depth", probe_depth_name(env->opts->depth));
	for (int i = 0; i < n; i++) {
		sweep |= strcmp(sel[i]->name, "sweep") == 0;
		canary |= strcmp(sel[i]->name, "canary") == 0;
	}
	env->top_shared = env->opts->depth == PROBE_VERIFY && sweep && canary &&
	    env->prov->can_stream;
	env->top_plain_intact = -1;
	choose_top_repeats(env, sel, n);
	arr = cJSON_AddArrayToObject(plan, "probes");
	plan_lines(env, sel, n, arr, &t);
	plan_limits(env, sel, n, plan);
	cJSON_AddNumberToObject(plan, "requests", (double)t.req);
	cJSON_AddNumberToObject(plan, "tokens_in", (double)t.tin);
	cJSON_AddNumberToObject(plan, "tokens_in_expected", (double)t.tin_exp);
	cJSON_AddNumberToObject(plan, "tokens_out", (double)t.tout);
	plan_cost(env, &t, plan);
	return plan;
}

int
probe_plan_endpoint(struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    cJSON **plan, struct aerr *err)
{
	const struct probe *sel[16];
	struct probe_env env;
	int n;

	*plan = NULL;
	if (select_probes(o, sel, &n, err) != 0)
		return err->code;
	order_for_budget(o, sel, n);
	if (env_init(&env, av, endpoint_id, o, 0, err) != 0) {
		env_free(&env);
		return err->code;
	}
	drop_engineless(o, &env.ep, sel, &n);
	*plan = make_plan(&env, sel, n);
	env_free(&env);
	return 0;
}

/* Whether two samples (units -> tokens) give a believable tokens per word: a
 * rate no tokenizer in use produces for common English words, or a fixed part
 * larger than any chat template, is a count that does not describe the
 * prompt. *why says what was wrong. */
static int
calib_plausible(int64_t u0, int64_t t0, int64_t u1, int64_t t1, double *tpu, double *overhead,
    char *why, size_t whysz)
{
	if (t0 < 0 || t1 < 0) {
		snprintf(why, whysz, "no count");
		return 0;
	}
	if (t1 <= t0) {
		snprintf(why, whysz, "%lld and %lld words were counted as %lld and %lld tokens",
		    (long long)u0, (long long)u1, (long long)t0, (long long)t1);
		return 0;
	}
	*tpu = (double)(t1 - t0) / (double)(u1 - u0);
	*overhead = (double)t0 - (double)u0 * *tpu;
	if (*tpu < TPU_PLAUSIBLE_MIN || *tpu > TPU_PLAUSIBLE_MAX) {
		snprintf(why, whysz, "%.3f tokens per word is outside the plausible %.2f to %.1f",
		    *tpu, TPU_PLAUSIBLE_MIN, TPU_PLAUSIBLE_MAX);
		return 0;
	}
	/* Both samples on one line: the fixed part (nonces, instruction, template) is small. */
	if (*overhead < -0.1 * (double)t0 || *overhead > OVERHEAD_PLAUSIBLE_MAX) {
		snprintf(why, whysz, "the samples disagree: %lld words as %lld tokens but %lld as %lld",
		    (long long)u0, (long long)t0, (long long)u1, (long long)t1);
		return 0;
	}
	if (*overhead < 0)
		*overhead = 0;
	return 1;
}

/* A count the calibration did not use, and why: the document's "rejected". */
static void
calib_reject(cJSON *rejected, const char *method, const char *reason)
{
	cJSON *x = cJSON_CreateObject();

	cJSON_AddStringToObject(x, "method", method);
	cJSON_AddStringToObject(x, "reason", reason);
	cJSON_AddItemToArray(rejected, x);
}

/* What the calibration found: the two samples. units are the words sent; t0
 * and t1 their counts (-1: none usable); tpu and overhead the fit. */
struct calib {
	int64_t small, large, t0, t1;
	double tpu, overhead;
};

/* The samples' usage, when both were answered and it is plausible: 1 when it is used. */
static int
calib_by_usage(struct probe_env *env, struct px_req r[2], struct calib *k, cJSON *rejected)
{
	char why[200];

	if (px_send(env, r, 2, 1) != 0 || r[0].cls != PXC_ANSWERED || r[1].cls != PXC_ANSWERED)
		return 0;
	k->t0 = r[0].res.usage.in, k->t1 = r[1].res.usage.in;
	/* A larger sample that lost nonces the smaller one kept was cut: its usage
	 * counts what was kept, not the prompt. */
	if (r[0].nonces_echoed == 3 && r[1].nonces_echoed < 3 && !px_answer_cut_short(&r[1]) &&
	    k->t0 >= 0 && k->t1 >= 0) {
		char m[160];

		snprintf(m, sizeof m, "the larger sample lost content (%d of 3 nonces came back): "
		    "its usage counts what was kept, not the prompt", r[1].nonces_echoed);
		calib_reject(rejected, "usage", m);
		k->t0 = k->t1 = -1;
	}
	if (k->t0 < 0 && k->t1 < 0)
		return 0;
	if (!calib_plausible(k->small, k->t0, k->large, k->t1, &k->tpu, &k->overhead, why, sizeof why)) {
		calib_reject(rejected, "usage", why);
		return 0;
	}
	snprintf(env->calib_method, sizeof env->calib_method, "usage");
	return 1;
}

/* The API's count endpoint asked for the samples' sizes (two requests that
 * bill nothing): 1 when its counts are plausible and used. */
static int
calib_by_count(struct probe_env *env, struct px_req r[2], struct px_req c[2], struct calib *k,
    cJSON *rejected)
{
	char why[200];

	c[0].kind = c[1].kind = PX_COUNT;
	c[0].count_of = &r[0].recipe;
	c[1].count_of = &r[1].recipe;
	k->t0 = k->t1 = -1;
	if (px_send(env, c, 2, 1) != 0 || c[0].cls != PXC_ANSWERED || c[1].cls != PXC_ANSWERED) {
		/* llama.cpp's and vLLM's /tokenize is at the server root, beside /v1:
		 * outside the path a credential is bound to, so never asked with it. */
		if (c[0].outside_url)
			calib_reject(rejected, env->prov->count_method, c[0].transport_error);
		return 0;
	}
	k->t0 = c[0].count_tokens, k->t1 = c[1].count_tokens;
	if (!calib_plausible(k->small, k->t0, k->large, k->t1, &k->tpu, &k->overhead, why, sizeof why)) {
		calib_reject(rejected, env->prov->count_method, why);
		return 0;
	}
	snprintf(env->calib_method, sizeof env->calib_method, "%s", env->prov->count_method);
	return 1;
}

/* The calibration document the run records. */
static cJSON *
calib_document(const struct probe_env *env, const struct px_req r[2], const struct calib *k,
    cJSON *rejected)
{
	cJSON *cal = cJSON_CreateObject(), *samples = cJSON_AddArrayToObject(cal, "samples");

	cJSON_AddStringToObject(cal, "method", env->calib_method);
	cJSON_AddNumberToObject(cal, "tokens_per_unit", env->tokens_per_unit);
	cJSON_AddNumberToObject(cal, "overhead_tokens", env->overhead_tokens);
	cJSON_AddStringToObject(cal, "unit", "filler word");
	if (env->bounded) {
		cJSON *b = cJSON_AddArrayToObject(cal, "bounds");

		cJSON_AddItemToArray(b, cJSON_CreateNumber(env->tpu_min));
		cJSON_AddItemToArray(b, cJSON_CreateNumber(env->tpu_max));
	}
	for (int i = 0; i < 2; i++) {
		cJSON *s = cJSON_CreateObject();
		int64_t t = i == 0 ? k->t0 : k->t1;

		cJSON_AddNumberToObject(s, "units", (double)r[i].recipe.units);
		if (t >= 0)
			cJSON_AddNumberToObject(s, "tokens", (double)t);
		else
			cJSON_AddNullToObject(s, "tokens");
		cJSON_AddNumberToObject(s, "evidence", (double)r[i].evidence_id);
		cJSON_AddItemToArray(samples, s);
	}
	cJSON_AddItemToObject(cal, "rejected", rejected);
	return cal;
}

cJSON *
calibrate(struct probe_env *env)
{
	struct px_req r[2], c[2];
	cJSON *rejected = cJSON_CreateArray(), *cal;
	struct calib k = { CALIB_SMALL, CALIB_LARGE, -1, -1, 0, 0 };
	int64_t room;
	int ok;

	memset(r, 0, sizeof r);
	memset(c, 0, sizeof c);
	env->probe_name = "calibration";
	/* A small context (or --max-prompt-tokens): samples that fit under the least
	 * compact tokenizer. */
	room = env->max_prompt_tokens > 0 && env->max_prompt_tokens < env->ep.context_tokens ?
	    env->max_prompt_tokens : env->ep.context_tokens;
	if ((double)k.large * TPU_BOUND_MAX > 0.6 * (double)room) {
		k.large = (int64_t)(0.6 * (double)room / TPU_BOUND_MAX);
		k.small = k.large / 4;
	}
	r[0].units = k.small;
	r[1].units = k.large;
	ok = calib_by_usage(env, r, &k, rejected);
	/* The calibration prompts carry nonces too: a first sign of whether the model echoes. */
	env->echo_ok = r[0].nonces_echoed == 3 || r[1].nonces_echoed == 3;
	if (!ok && env->prov->build_count != NULL && !env->interrupted && env->fatal.code == 0 &&
	    !(env->tenant_auth_refused[0] > 0 && env->tenant_other[0] == 0))
		ok = calib_by_count(env, r, c, &k, rejected);
	if (ok) {
		env->tokens_per_unit = env->tpu_min = env->tpu_max = k.tpu;
		env->overhead_tokens = k.overhead;
	} else {
		/* No usable count: sizes by bounds, said so in every verdict that rests on them. */
		env->bounded = 1;
		env->tpu_min = TPU_BOUND_MIN;
		env->tpu_max = TPU_BOUND_MAX;
		snprintf(env->calib_method, sizeof env->calib_method, "bounds");
		k.t0 = k.t1 = -1;
	}
	cal = calib_document(env, r, &k, rejected);
	px_free(r, 2);
	px_free(c, 2);
	return cal;
}

/* ---- the endpoint as the run saw it ---- */

/* What of the endpoint and its tenants the probes read, kept in the run's
 * options: a rejudge takes it from there, not from the endpoint as it is now,
 * and never needs the database it was recorded in. */
cJSON *
replay_endpoint_json(const struct probe_env *env)
{
	const struct endpoint *e = &env->ep;
	cJSON *o = cJSON_CreateObject(), *t;

	cJSON_AddStringToObject(o, "vendor", e->vendor);
	cJSON_AddStringToObject(o, "name", e->name);
	cJSON_AddStringToObject(o, "api", e->api);
	cJSON_AddStringToObject(o, "url", e->url);
	cJSON_AddStringToObject(o, "model", e->model);
	cJSON_AddNumberToObject(o, "context_tokens", (double)e->context_tokens);
	cJSON_AddBoolToObject(o, "allow_insecure_http", e->allow_insecure_http);
	cJSON_AddItemToObject(o, "price_in_per_mtok", e->has_price_in ?
	    cJSON_CreateNumber(e->price_in_per_mtok) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "price_out_per_mtok", e->has_price_out ?
	    cJSON_CreateNumber(e->price_out_per_mtok) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "options", e->options ? cJSON_Duplicate(e->options, 1) :
	    cJSON_CreateObject());
	if (e->engine.n > 0) {
		cJSON *g = cJSON_AddObjectToObject(o, "engine"), *nodes = cJSON_AddArrayToObject(g, "nodes");

		cJSON_AddStringToObject(g, "kind", e->engine.engine);
		for (int i = 0; i < e->engine.n; i++)
			cJSON_AddItemToArray(nodes, cJSON_CreateString(e->engine.url[i]));
		cJSON_AddBoolToObject(g, "credential", e->engine.credential_ref != NULL);
	}
	t = cJSON_AddArrayToObject(o, "tenants");
	for (int i = 0; i < env->ntenants; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "label", env->tenant_label[i]);
		json_add_str(x, "org", env->tenant_org[i]);
		cJSON_AddBoolToObject(x, "keyed", i < (int)e->ncredentials);
		cJSON_AddItemToArray(t, x);
	}
	return o;
}

static char *
str_of(const cJSON *o, const char *name)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, name));

	return s != NULL ? xstrdup(s) : NULL;
}

static void
engine_from_json(struct engine_conf *c, const cJSON *g)
{
	const cJSON *u;

	if (!cJSON_IsObject(g))
		return;
	c->engine = str_of(g, "kind");
	cJSON_ArrayForEach(u, cJSON_GetObjectItem(g, "nodes"))
		if (cJSON_GetStringValue(u) != NULL && c->n < ENGINE_MAX_NODES)
			c->url[c->n++] = xstrdup(u->valuestring);
	/* Only whether there was one: a rejudge reads no secret. */
	if (cJSON_IsTrue(cJSON_GetObjectItem(g, "credential")))
		c->credential_ref = xstrdup("[replay]");
}

/* The environment of a rejudge: as env_init() makes it, from the run's record. */
int
replay_env_init(struct probe_env *env, struct aivet *av, const cJSON *snap,
    const struct probe_opts *o, struct aerr *err)
{
	struct endpoint *e = &env->ep;
	const cJSON *v;

	env_defaults(env, av, o);
	if (!cJSON_IsObject(snap) || (e->api = str_of(snap, "api")) == NULL ||
	    (e->url = str_of(snap, "url")) == NULL || (e->model = str_of(snap, "model")) == NULL)
		return aerr_set(err, AV_USAGE, "not re-derivable: the run recorded no endpoint (it was "
		    "made by an aivet older than rejudging)");
	e->vendor = str_of(snap, "vendor");
	e->name = str_of(snap, "name");
	e->context_tokens = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(snap, "context_tokens"));
	e->allow_insecure_http = cJSON_IsTrue(cJSON_GetObjectItem(snap, "allow_insecure_http"));
	if ((e->has_price_in = cJSON_IsNumber(v = cJSON_GetObjectItem(snap, "price_in_per_mtok"))))
		e->price_in_per_mtok = v->valuedouble;
	if ((e->has_price_out = cJSON_IsNumber(v = cJSON_GetObjectItem(snap, "price_out_per_mtok"))))
		e->price_out_per_mtok = v->valuedouble;
	e->options = cJSON_IsObject(v = cJSON_GetObjectItem(snap, "options")) ?
	    cJSON_Duplicate(v, 1) : NULL;
	engine_from_json(&e->engine, cJSON_GetObjectItem(snap, "engine"));
	if ((env->prov = provider_find(e->api)) == NULL)
		return aerr_set(err, AV_USAGE, "not re-derivable: this aivet has no adapter for API '%s'",
		    e->api);
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(snap, "tenants")) {
		if (env->ntenants == PROBE_MAX_TENANTS)
			break;
		env->tenant_label[env->ntenants] = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(v,
		    "label")) ? cJSON_GetObjectItem(v, "label")->valuestring : "?");
		env->tenant_org[env->ntenants] = str_of(v, "org");
		if (cJSON_IsTrue(cJSON_GetObjectItem(v, "keyed")))
			env->replay_keyed = 1;
		env->ntenants++;
	}
	if (env->ntenants == 0)
		env->tenant_label[env->ntenants++] = xstrdup("default");
	env->canaries = canary_set_new();
	return 0;
}
