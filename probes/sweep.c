/*
 * sweep.c: context integrity. Prompts at fractions of the advertised
 * context, then two binary searches for the sizes that matter: where
 * requests start being refused, and where accepted requests stop being
 * answered from their own content (a nonce missing, usage far below what
 * was sent, or a large prompt reported as a handful of tokens). Both
 * boundaries are reported beside the advertised context, with whether the
 * change is a visible refusal or a silent degradation. probe_result.details
 * is a contract the report draws its chart from (see aivet(1)). The top of
 * the context is sent more than once (at verify depth env->top_repeats times,
 * twice unless a budget covers more; the 97% point four times at diagnose), so
 * that a fault on some requests only (one backend of a fleet behind a
 * balancer) is caught with the confidence the plan states
 * (px_top_confidence()).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe-env.h"

static const double fractions[] = { 0.01, 0.25, 0.50, 0.65, 0.75, 0.90, 0.97 };
#define NFRAC (sizeof fractions / sizeof fractions[0])
#define MAX_STEPS 16
#define MAX_POINTS ((int)NFRAC + PX_TOP_REPEATS_DIAGNOSE + 2 * MAX_STEPS)
_Static_assert(PX_TOP_REPEATS_MAX + 1 <= MAX_POINTS, "verify's repeats and the streamed point fit");

/* C_UNJUDGED: refused for another reason than size, rate-limited or a server error. */
enum cls { C_SKIPPED, C_ERROR, C_REFUSED, C_DEGRADED, C_INTACT, C_UNJUDGED };

struct sweep {
	struct probe_env *env;
	struct px_req r[MAX_POINTS];
	enum cls c[MAX_POINTS];
	int judged[MAX_POINTS];       /* the point's class rests on what came back */
	int n;
	int unjudged;                 /* accepted answers neither nonces nor usage could judge */
	int verify;                   /* at verify depth: the top of the context only */
	/* What the points show, once judged. */
	int first_deg, first_ref;     /* the smallest degraded and refused points, or -1 */
	int64_t integrity, refusal;   /* the boundaries, -1 when not located */
	int64_t capped_from;          /* the first size --max-prompt-tokens kept from being sent */
	const char *change;
	int errors, no_usage, unjudged_class;
	const char *first_error;
	struct px_tally tally;
};

static int64_t
tolerance(const struct probe_env *env)
{
	int64_t t = env->ep.context_tokens / 1024;

	return t < 32 ? 32 : t;
}

static int64_t
top_size(const struct probe_env *env)
{
	return env->ep.context_tokens - env->max_tokens - 16;
}

static void
diagnose_plan(const struct probe_env *env, struct probe_plan *p)
{
	double sum = 0.01;   /* the streamed 1% point */
	int steps = 0;

	for (size_t i = 0; i < NFRAC; i++)
		sum += fractions[i];
	/* The top fraction repeated (px_top_confidence()). */
	sum += (PX_TOP_REPEATS_DIAGNOSE - 1) * fractions[NFRAC - 1];
	for (int64_t w = env->ep.context_tokens / 4; w > tolerance(env) && steps < MAX_STEPS; w /= 2)
		steps++;
	/* At most two searches, each step under the advertised context. */
	p->requests = (int64_t)NFRAC + PX_TOP_REPEATS_DIAGNOSE + 2 * steps;
	p->tokens_in = (int64_t)(sum * (double)env->ep.context_tokens) + 2 * steps * env->ep.context_tokens * 3 / 4;
	/* A vendor as advertised neither refuses nor degrades under its context: no search. */
	p->tokens_in_expected = (int64_t)(sum * (double)env->ep.context_tokens);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

/* The top of the context, plain and streamed: capped by --max-prompt-tokens. */
static int64_t
verify_size(const struct probe_env *env)
{
	int64_t t = px_top_tokens(env);

	return env->max_prompt_tokens > 0 && t > env->max_prompt_tokens ? env->max_prompt_tokens : t;
}

static void
sweep_plan(const struct probe_env *env, struct probe_plan *p)
{
	if (env->opts->depth == PROBE_DIAGNOSE) {
		diagnose_plan(env, p);
		return;
	}
	/* The streamed top point is the canary's near-limit prompt when both run; the
	 * stream path is then judged here on a small prompt, as diagnose's 1% point. */
	p->requests = env->top_repeats + 1;
	p->tokens_in = (env->top_repeats + (env->top_shared ? 0 : 1)) * verify_size(env) +
	    (env->top_shared ? (int64_t)(0.01 * (double)env->ep.context_tokens) : 0);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

static enum cls
classify(struct sweep *s, int i)
{
	struct probe_env *env = s->env;
	struct px_req *r = &s->r[i];
	int usage = px_usage_contradicts(r) ? -1 : px_usage_ok(r);

	s->judged[i] = 0;
	switch (r->cls) {
	case PXC_UNSENT:
		return C_SKIPPED;
	case PXC_TRANSPORT:
	case PXC_UNREADABLE:
		return C_ERROR;
	case PXC_REFUSED_SIZE:
		s->judged[i] = 1;
		return C_REFUSED;
	case PXC_ANSWERED:
		break;
	default:
		/* A credential, a rate limit or a server error says nothing about the size. */
		return C_UNJUDGED;
	}
	s->judged[i] = 1;
	if (px_substituted(env, r) || usage == 0)
		return C_DEGRADED;
	if (px_echoes(env) == 1 && r->nonces_echoed < 3 && !px_answer_cut_short(r))
		return C_DEGRADED;
	if (px_echoes(env) != 1 && usage < 0) {
		s->unjudged++;
		s->judged[i] = 0;
	}
	/* An intact answer with believable usage sharpens a measured calibration. */
	if (usage == 1 && !env->bounded && r->recipe.units >= 1000) {
		double tpu = ((double)r->res.usage.in - env->overhead_tokens) / (double)r->recipe.units;

		if (tpu > 0.75 * env->tokens_per_unit && tpu < 1.33 * env->tokens_per_unit)
			env->tokens_per_unit = env->tpu_min = env->tpu_max = tpu;
	}
	return C_INTACT;
}

/* Sends one more point of `tokens` (plain, or streamed); returns its index or -1. */
static int
send_point(struct sweep *s, int64_t tokens, int stream, int nreq)
{
	int first = s->n;

	if (s->n + nreq > MAX_POINTS)
		return -1;
	for (int k = 0; k < nreq; k++) {
		memset(&s->r[s->n + k], 0, sizeof s->r[0]);
		s->r[s->n + k].target_tokens = tokens;
		s->r[s->n + k].stream = stream;
	}
	s->n += nreq;
	if (px_send(s->env, &s->r[first], (size_t)nreq, 1) != 0)
		return -1;
	for (int k = first; k < s->n; k++)
		s->c[k] = classify(s, k);
	return first;
}

static int64_t
measured(const struct sweep *s, int i)
{
	return s->c[i] == C_INTACT && s->r[i].res.usage.in >= 0 && !px_usage_contradicts(&s->r[i]) ?
	    s->r[i].res.usage.in : s->r[i].est_tokens;
}

/* Largest point below `below` (by requested size) whose class is in `want` (bitmask). */
static int
largest_below(const struct sweep *s, int64_t below, unsigned want)
{
	int best = -1;

	for (int i = 0; i < s->n; i++)
		if (!s->r[i].stream && (want >> s->c[i] & 1u) && s->r[i].target_tokens < below &&
		    (best < 0 || s->r[i].target_tokens > s->r[best].target_tokens))
			best = i;
	return best;
}

static int
smallest_of(const struct sweep *s, unsigned want)
{
	int best = -1;

	for (int i = 0; i < s->n; i++)
		if (!s->r[i].stream && (want >> s->c[i] & 1u) &&
		    (best < 0 || s->r[i].target_tokens < s->r[best].target_tokens))
			best = i;
	return best;
}

#define BIT(c) (1u << (c))

/* Narrows [lo, hi) where lo has a class in good and hi does not; returns the final lo. */
static int
search(struct sweep *s, int lo, int hi, unsigned good)
{
	int64_t tol = tolerance(s->env);

	while (lo >= 0 && hi >= 0 && s->r[hi].target_tokens - s->r[lo].target_tokens > tol &&
	    !s->env->budget_hit && !s->env->interrupted) {
		int64_t mid = (s->r[lo].target_tokens + s->r[hi].target_tokens) / 2;
		int i = send_point(s, mid, 0, 1);

		if (i < 0 || s->c[i] == C_ERROR || s->c[i] == C_SKIPPED || s->c[i] == C_UNJUDGED)
			break;
		if (good >> s->c[i] & 1u)
			lo = i;
		else
			hi = i;
	}
	return lo;
}

static int
by_size(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	double dx = cJSON_GetObjectItem(x, "tokens_sent")->valuedouble;
	double dy = cJSON_GetObjectItem(y, "tokens_sent")->valuedouble;

	return dx < dy ? -1 : dx > dy;
}

/* Verify: the top of the context on both request paths; an answer there that
 * kept its content is the invariant, a refusal or a loss is the failure. */
static int
send_verify(struct sweep *s)
{
	struct probe_env *env = s->env;

	if (env->max_prompt_tokens > 0 && px_top_tokens(env) > env->max_prompt_tokens)
		s->capped_from = env->max_prompt_tokens;
	/* The plain top repeated (px_top_confidence()), then the streamed one. */
	for (int k = 0; k <= env->top_repeats; k++) {
		int stream = k == env->top_repeats;

		memset(&s->r[s->n], 0, sizeof s->r[0]);
		s->r[s->n].target_tokens = stream && env->top_shared ?
		    (int64_t)(0.01 * (double)env->ep.context_tokens) : verify_size(env);
		s->r[s->n++].stream = stream;
	}
	if (px_send(env, s->r, (size_t)s->n, 1) != 0)
		return -1;
	env->top_plain_intact = 1;
	for (int i = 0; i < s->n; i++) {
		s->c[i] = classify(s, i);
		/* Intact only when every plain repeat was; unknown when one was not judged. */
		if (i < env->top_repeats && env->top_plain_intact != 0)
			env->top_plain_intact = s->c[i] == C_INTACT ? env->top_plain_intact :
			    s->judged[i] ? 0 : -1;
	}
	return 0;
}

/* Diagnose: the fractions of the context, then the searches for where content
 * is lost and where prompts are refused. -1 when nothing can be judged. */
static int
send_diagnose(struct sweep *s)
{
	struct probe_env *env = s->env;
	int64_t top = top_size(env);
	int first_deg, first_ref, lo;

	for (size_t i = 0; i < NFRAC; i++) {
		int64_t t = (int64_t)(fractions[i] * (double)env->ep.context_tokens);

		if (t > top)
			t = top;
		/* Over --max-prompt-tokens: one point at the cap stands for all of them. */
		if (env->max_prompt_tokens > 0 && t > env->max_prompt_tokens) {
			s->capped_from = s->capped_from < 0 ? t : s->capped_from;
			if (s->n > 0 && s->r[s->n - 1].target_tokens == env->max_prompt_tokens)
				continue;
			t = env->max_prompt_tokens;
		}
		memset(&s->r[s->n], 0, sizeof s->r[0]);
		s->r[s->n++].target_tokens = t;
	}
	/* The top fraction again (px_top_confidence()): a fault on one request in a few. */
	for (int k = 1; k < PX_TOP_REPEATS_DIAGNOSE; k++) {
		memset(&s->r[s->n], 0, sizeof s->r[0]);
		s->r[s->n].target_tokens = s->r[s->n - 1].target_tokens;
		s->n++;
	}
	memset(&s->r[s->n], 0, sizeof s->r[0]);
	s->r[s->n].target_tokens = s->r[0].target_tokens;
	s->r[s->n++].stream = 1;
	/* One at a time: concurrent large prompts would compete for the vendor's capacity. */
	if (px_send(env, s->r, (size_t)s->n, 1) != 0)
		return -1;
	for (int i = 0; i < s->n; i++)
		s->c[i] = classify(s, i);

	first_deg = smallest_of(s, BIT(C_DEGRADED));
	if (first_deg >= 0) {
		lo = largest_below(s, s->r[first_deg].target_tokens, BIT(C_INTACT));
		search(s, lo, first_deg, BIT(C_INTACT));
	}
	first_ref = smallest_of(s, BIT(C_REFUSED));
	if (first_ref >= 0) {
		lo = largest_below(s, s->r[first_ref].target_tokens, BIT(C_INTACT) | BIT(C_DEGRADED));
		search(s, lo, first_ref, BIT(C_INTACT) | BIT(C_DEGRADED));
	}
	return env->interrupted ? -1 : 0;
}

/* The boundaries the points show; the searches may have found smaller bad sizes. */
static void
locate(struct sweep *s)
{
	int lo;

	s->first_deg = smallest_of(s, BIT(C_DEGRADED));
	s->first_ref = smallest_of(s, BIT(C_REFUSED));
	if (s->first_deg >= 0) {
		lo = largest_below(s, s->r[s->first_deg].target_tokens, BIT(C_INTACT));
		s->integrity = lo >= 0 ? measured(s, lo) : 0;
	}
	if (s->first_ref >= 0) {
		lo = largest_below(s, s->r[s->first_ref].target_tokens, BIT(C_INTACT) | BIT(C_DEGRADED));
		s->refusal = lo >= 0 ? measured(s, lo) : 0;
	}
	if (s->first_deg >= 0 && (s->first_ref < 0 ||
	    s->r[s->first_deg].target_tokens < s->r[s->first_ref].target_tokens))
		s->change = "silent_degradation";
	else if (s->first_ref >= 0)
		s->change = "visible_refusal";
}

/* A point whose content was lost: at verify depth where it was seen, at
 * diagnose depth above the located boundary. */
static void
judge_degraded(struct sweep *s, struct probe_outcome *out, const struct px_req *r)
{
	struct probe_env *env = s->env;

	if (s->verify && px_substituted(env, r)) {
		/* Verify sees the failure at the top of the context, not where it begins. */
		outcome_finding(out, F_PLACEHOLDER_SUBSTITUTION, r->evidence_id,
		    "accepted prompts at the top of the context (about %lld tokens, advertised %lld) "
		    "were swapped for a placeholder: %s", (long long)r->est_tokens,
		    (long long)env->ep.context_tokens, r->nleaked > 0 ?
		    "answered from content they did not contain" :
		    "answered without any of their nonces and reported as a handful of tokens");
	} else if (s->verify) {
		outcome_finding(out, F_SILENT_TRUNCATION, r->evidence_id,
		    "accepted prompts at the top of the context (about %lld tokens, advertised %lld) "
		    "lost content: %d of 3 nonces came back, usage %lld of about %lld tokens sent",
		    (long long)r->est_tokens, (long long)env->ep.context_tokens, r->nonces_echoed,
		    (long long)r->res.usage.in, (long long)r->est_tokens);
	} else if (px_substituted(env, r)) {
		outcome_finding(out, F_PLACEHOLDER_SUBSTITUTION, r->evidence_id,
		    "accepted prompts above about %lld tokens (advertised %lld) were swapped for a "
		    "placeholder: %s", (long long)s->integrity, (long long)env->ep.context_tokens,
		    r->nleaked > 0 ? "answered from content they did not contain" :
		    "answered without any of their nonces and reported as a handful of tokens");
	} else {
		outcome_finding(out, F_SILENT_TRUNCATION, r->evidence_id,
		    "accepted prompts above about %lld tokens (advertised %lld) lost content: "
		    "%d of 3 nonces came back, usage %lld of about %lld tokens sent",
		    (long long)s->integrity, (long long)env->ep.context_tokens, r->nonces_echoed,
		    (long long)r->res.usage.in, (long long)r->est_tokens);
	}
}

/* Every point judged: what it says in common with the other probes, lost
 * content, refusals under the advertised size and missing usage, in that order. */
static void
judge_points(struct sweep *s, struct probe_outcome *out)
{
	struct probe_env *env = s->env;

	for (int i = 0; i < s->n; i++) {
		struct px_req *r = &s->r[i];

		px_judge_common(env, out, r, 1);
		px_tally_add(&s->tally, r, s->judged[i]);
		if (s->c[i] == C_UNJUDGED)
			s->unjudged_class++;
		if (s->c[i] == C_ERROR) {
			s->errors++;
			if (s->first_error == NULL)
				s->first_error = r->transport_error;
		}
		if ((s->c[i] == C_INTACT || s->c[i] == C_DEGRADED) && r->res.usage.in < 0)
			s->no_usage++;
		if (s->c[i] == C_DEGRADED)
			judge_degraded(s, out, r);
	}
	if (s->verify) {
		for (int i = 0; i < s->n; i++) {
			const struct px_req *r = &s->r[i];
			char count[96] = "";

			if (s->c[i] != C_REFUSED)
				continue;
			/* Over the advertised context by the vendor's own count: the prompt was
			 * too large, not the vendor's capacity too small. */
			if (r->res.size_tokens >= env->ep.context_tokens)
				continue;
			if (r->res.size_tokens > 0)
				snprintf(count, sizeof count, ", %lld by the vendor's own count%s",
				    (long long)r->res.size_tokens, r->resized ? ", sent again at that size" : "");
			outcome_finding(out, F_CAPACITY_BELOW_ADVERTISED, r->evidence_id,
			    "a %sprompt of about %lld tokens%s, under the advertised %lld, was refused for "
			    "size", r->stream ? "streamed " : "", (long long)r->est_tokens, count,
			    (long long)env->ep.context_tokens);
			if (r->resized)
				outcome_finding(out, F_CAPACITY_BELOW_ADVERTISED, r->first_evidence_id, "%s", "");
		}
	} else if (s->first_ref >= 0 &&
	    s->r[s->first_ref].target_tokens < (int64_t)(0.95 * (double)env->ep.context_tokens)) {
		for (int i = 0; i < s->n; i++)
			if (s->c[i] == C_REFUSED && !s->r[i].stream)
				outcome_finding(out, F_CAPACITY_BELOW_ADVERTISED, s->r[i].evidence_id,
				    "requests were refused above about %lld tokens, below the advertised "
				    "%lld", (long long)s->refusal, (long long)env->ep.context_tokens);
	}
	if (s->no_usage > 0)
		for (int i = 0; i < s->n; i++)
			if ((s->c[i] == C_INTACT || s->c[i] == C_DEGRADED) && s->r[i].res.usage.in < 0)
				outcome_finding(out, F_USAGE_MISSING, s->r[i].evidence_id,
				    "%d accepted answer%s reported no usage, so prompt sizes were checked by "
				    "nonces alone", s->no_usage, s->no_usage == 1 ? "" : "s");
}

/* probe_result.details: the boundaries, the change and the points by size. */
static void
sweep_details(struct sweep *s, struct probe_outcome *out)
{
	struct probe_env *env = s->env;
	cJSON *d, *pts, **sorted;
	int nsorted = 0;

	d = out->details = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "advertised", (double)env->ep.context_tokens);
	cJSON_AddStringToObject(d, "depth", probe_depth_name(env->opts->depth));
	if (s->verify)
		s->refusal = s->integrity = -1;   /* not located at this depth */
	if (s->refusal >= 0)
		cJSON_AddNumberToObject(d, "refusal_boundary", (double)s->refusal);
	else
		cJSON_AddNullToObject(d, "refusal_boundary");
	if (s->integrity >= 0)
		cJSON_AddNumberToObject(d, "integrity_boundary", (double)s->integrity);
	else
		cJSON_AddNullToObject(d, "integrity_boundary");
	cJSON_AddStringToObject(d, "change", s->change);
	if (s->verify) {
		cJSON_AddNumberToObject(d, "top_repeats", s->env->top_repeats);
		cJSON_AddNumberToObject(d, "catches_one_in", PX_TOP_ONE_IN);
		cJSON_AddNumberToObject(d, "confidence", floor(100 * px_top_confidence(s->env->top_repeats)) / 100);
	}
	pts = cJSON_AddArrayToObject(d, "points");
	sorted = xcalloc((size_t)s->n + 1, sizeof *sorted);
	for (int i = 0; i < s->n; i++)
		if (s->r[i].sent)
			sorted[nsorted++] = px_point_json(&s->r[i]);
	qsort(sorted, (size_t)nsorted, sizeof *sorted, by_size);
	for (int i = 0; i < nsorted; i++)
		cJSON_AddItemToArray(pts, sorted[i]);
	free(sorted);

	px_tally_json(&s->tally, d);
	cJSON_AddBoolToObject(d, "bounded", env->bounded);
}

/* The verdict when no finding settled it: no answer, not judged, capped, or a pass. */
static void
sweep_verdict(struct sweep *s, struct probe_outcome *out)
{
	struct probe_env *env = s->env;

	if (s->errors > 0 && out->nf == 0) {
		outcome_set(out, "error", "%d request%s got no answer: %s", s->errors,
		    s->errors == 1 ? "" : "s", s->first_error);
	} else if (s->unjudged_class > 0 && out->nf == 0) {
		char what[96];
		int64_t top_judged = -1;

		for (int i = 0; i < s->n; i++)
			if (s->judged[i] && s->r[i].target_tokens > top_judged)
				top_judged = s->r[i].target_tokens;
		if (top_judged >= 0)
			snprintf(what, sizeof what, "judged up to about %lld tokens", (long long)top_judged);
		else
			snprintf(what, sizeof what, "no size judged");
		px_set_unjudged(env, out, &s->tally, what);
	} else if (s->capped_from >= 0 && out->nf == 0) {
		outcome_set(out, "inconclusive", "judged up to the --max-prompt-tokens cap of %lld tokens%s; "
		    "sizes from %lld to the advertised %lld were not judged",
		    (long long)env->max_prompt_tokens, s->unjudged > 0 ? "" :
		    ", where every accepted prompt was answered from its own content",
		    (long long)s->capped_from, (long long)env->ep.context_tokens);
	} else if (s->unjudged > 0 && out->nf == 0) {
		outcome_set(out, "inconclusive", "the model does not repeat nonces and reported no usage, "
		    "so %d accepted answer%s could not be judged", s->unjudged, s->unjudged == 1 ? "" : "s");
	} else if (out->nf == 0 || (out->nf == 1 && outcome_has(out, F_USAGE_MISSING))) {
		outcome_set(out, "pass", "%s%s%s", s->first_ref >= 0 ? "refused for size at the limit; "
		    "every accepted prompt was answered from its own content" :
		    "every accepted prompt was answered from its own content",
		    px_echoes(env) == 1 ? "" : " (judged by usage only: the model does not repeat text)",
		    env->bounded ? "; sizes were bounded: no usable token count, so each prompt fit "
		    "even at four tokens per word" : "");
	}
}

static void
sweep_run(struct probe_env *env, struct probe_outcome *out)
{
	struct sweep *s = xcalloc(1, sizeof *s);

	s->env = env;
	s->verify = env->opts->depth != PROBE_DIAGNOSE;
	s->integrity = s->refusal = s->capped_from = -1;
	s->first_deg = s->first_ref = -1;
	s->change = "none";
	if ((s->verify ? send_verify(s) : send_diagnose(s)) == 0) {
		locate(s);
		judge_points(s, out);
		sweep_details(s, out);
		sweep_verdict(s, out);
	}
	px_free(s->r, (size_t)s->n);
	free(s);
}

const struct probe probe_sweep = {
	"sweep", "context integrity: where prompts are refused, and where content is lost",
	sweep_plan, sweep_run, PROBE_READS_ECHO_BASELINE, 3, 3,
};
