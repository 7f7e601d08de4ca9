/*
 * canary.c: isolation. Every tenant (one per credential) is both a source and
 * a receiver: all send canary-bearing prompts, half opening with the same long
 * text (as customers sharing one system prompt do), first in the order of the
 * credentials, then in the reverse order; then each tenant in turn takes the
 * pressure role: the others send canaries, then the tenant sends near-limit
 * and over-limit prompts while the others send more. The engine scans every response of every tenant for
 * every canary that was not its own, so attribution holds in both directions.
 * Only answered exchanges are scanned for content; without the echo baseline
 * (a model that repeats nothing could never show a leak) the probe is
 * inconclusive unless a foreign canary turned up anyway. A valid small request
 * of one tenant that fails on the server while another tenant's load is in
 * flight, after the same tenant's requests were answered without that load, is
 * LOAD_BREAKS_OTHER_TENANT. With one credential only cross-request leaks can
 * be checked, and the verdict says the cross-tenant check needs a second.
 * Diagnose sends twice the canary rounds of verify; the findings record what
 * was seen, and the screens that show a verify run that saw isolation fail
 * add that command with its plan (probe_next_steps), computed when shown.
 */
#include "config.h"

#include <string.h>
#include <sodium.h>

#include "probe-env.h"

/* Victim prompts per tenant per wave: diagnose sends more, so a leak that shows only
 * now and then has more chances to show. */
#define VERIFY_ROUNDS 2
#define DIAGNOSE_ROUNDS 4
#define VICTIM_UNITS 48
#define SHARED_UNITS 256
#define MAX_REQ (DIAGNOSE_ROUNDS * PROBE_MAX_TENANTS + PROBE_MAX_TENANTS * \
    (2 * DIAGNOSE_ROUNDS * PROBE_MAX_TENANTS + 2))

static int
rounds(const struct probe_env *env)
{
	return env->opts->depth == PROBE_DIAGNOSE ? DIAGNOSE_ROUNDS : VERIFY_ROUNDS;
}

/* The near-limit pressure prompt: at verify depth the top of the context (the
 * sweep's streamed top point when both run), at diagnose 90% of it. */
static int64_t
near_limit(const struct probe_env *env)
{
	return env->opts->depth == PROBE_DIAGNOSE ? (int64_t)(0.9 * (double)env->ep.context_tokens) :
	    px_top_tokens(env);
}

/* The canary's streamed near-limit prompt stands for the sweep's streamed top
 * point: judged for size and content where the same size sent plain was
 * answered intact (a failure on both paths is the sweep's finding). */
static void
judge_streamed_top(struct probe_env *env, struct probe_outcome *out, const struct px_req *r)
{
	if (!env->top_shared || env->top_plain_intact != 1 || !r->stream)
		return;
	if (r->cls == PXC_REFUSED_SIZE)
		outcome_finding(out, F_CAPACITY_BELOW_ADVERTISED, r->evidence_id,
		    "a streamed prompt of about %lld tokens, under the advertised %lld, was refused for "
		    "size, where the same size sent plain was answered", (long long)r->est_tokens,
		    (long long)env->ep.context_tokens);
	else if (r->cls == PXC_ANSWERED && !px_substituted(env, r) &&
	    ((px_echoes(env) == 1 && r->nonces_echoed < 3 && !px_answer_cut_short(r)) ||
	    (px_usage_ok(r) == 0 && !px_usage_contradicts(r))))
		outcome_finding(out, F_SILENT_TRUNCATION, r->evidence_id,
		    "a streamed prompt of about %lld tokens (advertised %lld) lost content (%d of 3 "
		    "nonces, usage %lld), where the same size sent plain kept it",
		    (long long)r->est_tokens, (long long)env->ep.context_tokens, r->nonces_echoed,
		    (long long)r->res.usage.in);
}

static void
canary_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t small = (int64_t)(env->overhead_tokens + (VICTIM_UNITS + SHARED_UNITS / 2) *
	    env->tpu_max);
	int64_t t = env->ntenants, nr = rounds(env), victims = nr * t + t * 2 * nr * (t > 1 ? t - 1 : 1);

	p->requests = victims + 2 * t;
	p->tokens_in = victims * small + t * (near_limit(env) + (int64_t)(1.05 * env->tpu_max /
	    env->tpu_min * (double)env->ep.context_tokens) + (int64_t)env->overhead_tokens + 1);
	p->tokens_out = px_plan_tokens_out(env, p->requests);
	/* The over-limit pressure prompts are refused, and not billed, by a vendor as advertised. */
	p->tokens_in_expected = victims * small + t * near_limit(env);
	/* Half the canaries open with the same long text: after the first, a vendor with a
	 * prompt cache serves that opening from it. */
	if (victims / 2 > 1)
		p->tokens_cached_expected = (victims / 2 - 1) * (int64_t)(SHARED_UNITS * env->tpu_min);
}

static void
add_victim(struct px_req *q, int tenant, int round, uint64_t shared_seed)
{
	memset(q, 0, sizeof *q);
	q->tenant = tenant;
	q->units = VICTIM_UNITS;
	q->stream = (round + tenant) % 2;
	if (round % 2 == 0) {
		q->shared_units = SHARED_UNITS;
		q->shared_seed = shared_seed;
	}
}

struct canary_run {
	struct px_req r[MAX_REQ];
	int wave[MAX_REQ];            /* 0: no load; p + 1: tenant p's load */
	int pressure[MAX_REQ];        /* the request is a pressure prompt */
	int n;
	int nt, nr;                   /* tenants, canary rounds per tenant per wave */
	uint64_t shared_seed;         /* the long opening half the canaries share */
	/* What the answers show, once judged. */
	struct px_tally t, per[PROBE_MAX_TENANTS];
	int answered, loaded;
	int load_refused;             /* near-limit load refused for size: judged, the vendor failed closed */
};

/* Tenant k's canaries of every round, from the last tenant to the first,
 * skipping tenant p (the tenant under load; with one credential, its own). */
static void
add_others(struct canary_run *c, int p, int wave)
{
	for (int round = 0; round < c->nr; round++)
		for (int k = c->nt - 1; k >= 0; k--) {
			if (k == p && c->nt > 1)
				continue;
			add_victim(&c->r[c->n], k, round, c->shared_seed);
			c->wave[c->n++] = wave;
		}
}

/* Wave 0: every tenant fills the vendor's caches with its canaries, in the order of
 * the credentials for the shared opening and the reverse order for the rest. */
static int
send_quiet_wave(struct probe_env *env, struct canary_run *c)
{
	for (int round = 0; round < c->nr; round++)
		for (int k = 0; k < c->nt; k++) {
			int tn = round % 2 == 0 ? k : c->nt - 1 - k;

			add_victim(&c->r[c->n], tn, round, c->shared_seed);
			c->wave[c->n++] = 0;
		}
	return px_send(env, c->r, (size_t)c->n, 0);
}

/* Tenant p's wave under load: its near- and over-limit prompts, with the other
 * tenants' canaries (its own, with one credential) in between, newest tenant first. */
static int
send_pressure_wave(struct probe_env *env, struct canary_run *c, int p)
{
	struct px_req *r = c->r;
	int first = c->n;

	/* First the others' canaries, finished: what a swapped prompt of p's would be
	 * answered from is then theirs, not only p's own. */
	add_others(c, p, 0);
	if (px_send(env, &r[first], (size_t)(c->n - first), 0) != 0)
		return -1;
	first = c->n;
	memset(&r[c->n], 0, sizeof r[0]);
	r[c->n].tenant = p;
	r[c->n].target_tokens = near_limit(env);
	/* The last tenant's (the only one's, with one credential) is the streamed top point. */
	r[c->n].stream = env->top_shared && p == c->nt - 1;
	c->pressure[c->n] = 1;
	c->wave[c->n++] = p + 1;
	add_others(c, p, p + 1);
	memset(&r[c->n], 0, sizeof r[0]);
	r[c->n].tenant = p;
	r[c->n].stream = 1;
	r[c->n].must_exceed = 1;
	r[c->n].target_tokens = (int64_t)(1.05 * (double)env->ep.context_tokens);
	c->pressure[c->n] = 1;
	c->wave[c->n++] = p + 1;
	return px_send(env, &r[first], (size_t)(c->n - first), 0);
}

/* Availability isolation: a small valid request of tenant r[i] failing on the
 * server under another tenant's load, when the same tenant's requests were
 * answered without it; the load's prompts are cited too. */
static void
judge_load_break(struct probe_env *env, struct probe_outcome *out, struct canary_run *c, int i)
{
	struct px_req *r = c->r;
	int p = c->wave[i] - 1;
	char what[256];

	px_describe(&r[i], what, sizeof what);
	outcome_finding(out, F_LOAD_BREAKS_OTHER_TENANT, r[i].evidence_id,
	    "a request of tenant '%s' (about %lld tokens) failed (%s) while tenant '%s' had "
	    "prompts near the context in flight", env->tenant_label[r[i].tenant],
	    (long long)r[i].est_tokens, what, env->tenant_label[p]);
	for (int j = 0; j < c->n; j++)
		if (c->pressure[j] && c->wave[j] == c->wave[i] && r[j].sent)
			outcome_finding(out, F_LOAD_BREAKS_OTHER_TENANT, r[j].evidence_id, "%s", "");
}

/* Every exchange sent: its common findings, tallies, the streamed top point,
 * swapped pressure prompts and load that broke another tenant. */
static void
judge_requests(struct probe_env *env, struct probe_outcome *out, struct canary_run *c)
{
	struct px_req *r = c->r;
	int quiet_ok[PROBE_MAX_TENANTS] = { 0 };

	for (int i = 0; i < c->n; i++) {
		if (c->wave[i] == 0 && r[i].cls == PXC_ANSWERED)
			quiet_ok[r[i].tenant] = 1;
		if (c->pressure[i] && !r[i].must_exceed && r[i].cls == PXC_ANSWERED)
			c->loaded++;
		if (c->pressure[i] && !r[i].must_exceed && r[i].cls == PXC_REFUSED_SIZE)
			c->load_refused++;
	}
	for (int i = 0; i < c->n; i++) {
		int judged = r[i].cls == PXC_ANSWERED;

		if (!r[i].sent)
			continue;
		px_judge_common(env, out, &r[i], 0);
		/* The pressure prompts are load, not canaries: over the limit, a refusal for size
		 * will do. They count among what the probe sent and judged; the per-tenant
		 * tallies are of the canaries alone. */
		px_tally_add(&c->t, &r[i], judged || (c->pressure[i] && r[i].cls == PXC_REFUSED_SIZE));
		if (!c->pressure[i])
			px_tally_add(&c->per[r[i].tenant], &r[i], judged);
		c->answered += judged;
		if (c->pressure[i] && !r[i].must_exceed)
			judge_streamed_top(env, out, &r[i]);
		/* A pressure prompt answered with others' content and none of its own: swapped. */
		if (c->pressure[i] && px_substituted(env, &r[i]))
			outcome_finding(out, F_PLACEHOLDER_SUBSTITUTION, r[i].evidence_id,
			    "a prompt of about %lld tokens was answered from content it did not contain",
			    (long long)r[i].est_tokens);
		if (!c->pressure[i] && c->wave[i] > 0 && r[i].cls == PXC_SERVER_ERROR &&
		    quiet_ok[r[i].tenant] && c->nt > 1)
			judge_load_break(env, out, c, i);
	}
}

/* probe_result.details: counts, the tally, every leak with where it was found, per tenant. */
static void
canary_details(struct probe_env *env, struct probe_outcome *out, struct canary_run *c)
{
	cJSON *d = out->details = cJSON_CreateObject(), *leaksj, *pt;

	cJSON_AddNumberToObject(d, "tenants", c->nt);
	cJSON_AddNumberToObject(d, "responses_scanned", c->answered);
	cJSON_AddNumberToObject(d, "canaries", (double)canary_count(env->canaries));
	cJSON_AddBoolToObject(d, "echo_ok", px_echoes(env) == 1);
	px_tally_json(&c->t, d);
	leaksj = cJSON_AddArrayToObject(d, "leaks");
	pt = cJSON_AddArrayToObject(d, "per_tenant");
	for (int i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->r[i].nleaked; k++) {
			const struct px_leak *l = &c->r[i].leaked[k];
			cJSON *x = cJSON_CreateObject();

			cJSON_AddStringToObject(x, "nonce", l->nonce);
			cJSON_AddNumberToObject(x, "owner_seq", (double)l->owner_seq);
			cJSON_AddNumberToObject(x, "evidence", (double)px_leak_evidence(env, l));
			cJSON_AddStringToObject(x, "owner_tenant", env->tenant_label[l->owner_tenant]);
			cJSON_AddBoolToObject(x, "other_tenant", l->other_tenant);
			cJSON_AddNumberToObject(x, "found_in", (double)c->r[i].evidence_id);
			cJSON_AddStringToObject(x, "found_by", env->tenant_label[c->r[i].tenant]);
			cJSON_AddItemToArray(leaksj, x);
		}
	}
	/* What the vendor's usage said its prompt cache served of each canary (they share
	 * a long opening across tenants): recorded as evidence, judged by prefix-timing,
	 * which sends in an order that can attribute a hit. */
	{
		cJSON *cc = cJSON_AddArrayToObject(d, "cache_counts");

		for (int i = 0; i < c->n; i++) {
			cJSON *x;

			if (c->pressure[i] || c->r[i].cls != PXC_ANSWERED ||
			    c->r[i].res.usage.cached_in < 0)
				continue;
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "tenant", env->tenant_label[c->r[i].tenant]);
			cJSON_AddNumberToObject(x, "prompt_tokens", (double)c->r[i].res.usage.in);
			cJSON_AddNumberToObject(x, "cached_tokens", (double)c->r[i].res.usage.cached_in);
			cJSON_AddNumberToObject(x, "evidence", (double)c->r[i].evidence_id);
			cJSON_AddItemToArray(cc, x);
		}
	}
	for (int k = 0; k < c->nt; k++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "tenant", env->tenant_label[k]);
		px_tally_json(&c->per[k], x);
		cJSON_AddItemToArray(pt, x);
	}
}

/* The verdict when no finding is it: a tenant with nothing to scan, no echo, or a pass. */
static void
canary_verdict(struct probe_env *env, struct probe_outcome *out, struct canary_run *c)
{
	int nt = c->nt, cj = 0, cs = 0;

	for (int k = 0; k < nt; k++) {
		cj += c->per[k].judged;
		cs += c->per[k].sent;
	}
	for (int k = 0; k < nt; k++)
		if (c->per[k].judged == 0) {
			/* A tenant that received nothing could not show a leak to it. */
			char what[96];

			snprintf(what, sizeof what, "tenant '%s' got no answer to scan", env->tenant_label[k]);
			px_set_unjudged(env, out, &c->per[k], what);
			return;
		}
	if (px_echoes(env) != 1)
		outcome_set(out, "inconclusive", "the model does not repeat text, so a leak could not "
		    "show in its answers: %d responses scanned, and no foreign canary in any raw body",
		    c->answered);
	else if (c->loaded == 0 && c->load_refused == 0)
		/* The near-limit load is what the probe is for: none judged (answered, or refused
		 * for size), never a pass. */
		outcome_set(out, "inconclusive", "no leak in %d responses (%d of %d canary requests "
		    "judged), but none of %d tenants' near-limit load was answered or refused for size: "
		    "leaks under load, the probe's central question, were not tested", c->answered, cj,
		    cs, nt);
	else if (nt == 1)
		outcome_set(out, "pass", "no cross-request leak in %d responses; the cross-tenant check "
		    "needs a second credential", c->answered);
	else
		outcome_set(out, "pass", "no leak across %d tenants in %d responses; each tenant sent "
		    "canaries and received answers (%d of %d canary requests judged)%s", nt, c->answered,
		    cj, cs, c->loaded < nt ? "; only " : "");
	if (nt > 1 && c->loaded < nt && strcmp(out->verdict, "pass") == 0) {
		size_t len = strlen(out->reason);

		snprintf(out->reason + len, sizeof out->reason - len, "%d of %d tenants' near-limit "
		    "load was answered, so leaks under load were tested only in part", c->loaded, nt);
	}
}

static void
canary_run(struct probe_env *env, struct probe_outcome *out)
{
	struct canary_run *c = xcalloc(1, sizeof *c);
	int sent = 0;

	c->nt = env->ntenants;
	c->nr = rounds(env);
	px_random(env, &c->shared_seed, sizeof c->shared_seed);
	if (send_quiet_wave(env, c) == 0) {
		sent = 1;
		for (int p = 0; p < c->nt && !env->budget_hit && sent; p++)
			sent = send_pressure_wave(env, c, p) == 0;
	}
	if (sent) {
		judge_requests(env, out, c);
		canary_details(env, out, c);
		if (out->nf == 0)   /* otherwise the findings are the verdict */
			canary_verdict(env, out, c);
	}
	px_free(c->r, (size_t)c->n);
	free(c);
}

const struct probe probe_canary = {
	"canary", "isolation: canaries of one tenant must never reach another",
	canary_plan, canary_run, PROBE_READS_ECHO_BASELINE, 4, 4,
};
