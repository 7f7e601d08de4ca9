/*
 * test-judge.c: the verdict a probe's outcome is given (probe_judge), branch
 * by branch, on outcomes built by hand. Some branches no built-in probe
 * reaches today (a probe that says nothing at all; findings of info alone),
 * and the threshold, low, is checked at its edge: a low finding fails, an
 * info one does not.
 */
#include "config.h"

#include <string.h>

#include "probe-engine.h"
#include "../lib/tap.h"

/* The outcome judged with no budget hit, or with the one given. */
static void
judged(struct probe_outcome *o, int budget_hit)
{
	struct probe_opts opts;
	struct probe_env env;

	memset(&opts, 0, sizeof opts);
	memset(&env, 0, sizeof env);
	opts.budget_usd = 10;
	opts.budget_tokens = 1000000;
	env.opts = &opts;
	env.budget_hit = budget_hit;
	probe_judge(&env, o);
}

static const char *
verdict(const struct probe_outcome *o)
{
	return o->verdict != NULL ? o->verdict : "(none)";
}

int
main(void)
{
	struct probe_outcome o;

	/* A probe that said nothing and found nothing passed nothing. */
	memset(&o, 0, sizeof o);
	judged(&o, 0);
	is_str(verdict(&o), "inconclusive", "no verdict, no finding: inconclusive");
	is_str(o.reason, "no exchange was judged", "saying why");

	/* Info alone decides nothing: without the probe's word it is not a pass. */
	memset(&o, 0, sizeof o);
	outcome_finding(&o, F_USAGE_MISSING, 3, "%s", "no usage");
	judged(&o, 0);
	is_str(verdict(&o), "inconclusive", "no verdict, an info finding only: inconclusive");
	outcome_free(&o);

	/* The threshold at its edge: info leaves a pass, low fails it. */
	memset(&o, 0, sizeof o);
	outcome_set(&o, "pass", "%s", "every bad request was refused with 4xx");
	outcome_finding(&o, F_USAGE_MISSING, 3, "%s", "no usage");
	judged(&o, 0);
	is_str(verdict(&o), "pass", "a pass with an info finding stays a pass");
	outcome_free(&o);
	memset(&o, 0, sizeof o);
	outcome_set(&o, "pass", "%s", "every bad request was refused with 4xx");
	outcome_finding(&o, F_SERVER_ERROR_ON_BAD_INPUT, 4, "%s", "a 500");
	judged(&o, 0);
	is_str(verdict(&o), "fail", "a low finding fails the probe");
	is_str(o.reason, "1 finding", "its reason counts the findings");
	outcome_free(&o);

	/* An error stays said beside the findings. */
	memset(&o, 0, sizeof o);
	outcome_set(&o, "error", "%s", "node 2 could not be read");
	outcome_finding(&o, F_SERVER_ERROR_ON_BAD_INPUT, 4, "%s", "a 500");
	outcome_finding(&o, F_USAGE_MISSING, 5, "%s", "no usage");
	judged(&o, 0);
	is_str(verdict(&o), "fail", "findings with an error: fail");
	is_str(o.reason, "2 findings; and node 2 could not be read", "the error is kept in the reason");
	outcome_free(&o);

	/* A budget that cut the probe short: inconclusive, naming the budget; an error stays. */
	memset(&o, 0, sizeof o);
	judged(&o, BUDGET_HIT_USD);
	is_str(verdict(&o), "inconclusive", "no verdict under an exhausted budget: inconclusive");
	is_str(o.reason, "the USD budget of USD 10.00 was exhausted before the probe finished",
	    "naming the USD budget");
	memset(&o, 0, sizeof o);
	outcome_set(&o, "pass", "%s", "so far so good");
	judged(&o, BUDGET_HIT_TOKENS);
	is_str(o.reason, "the token budget of 1,000,000 tokens was exhausted before the probe finished",
	    "a pass cut short by the token budget is inconclusive, naming it");
	memset(&o, 0, sizeof o);
	outcome_set(&o, "error", "%s", "refused for authentication");
	judged(&o, BUDGET_HIT_TOKENS);
	is_str(verdict(&o), "error", "an error under an exhausted budget stays an error");

	/* The same tenant's canaries beside another tenant's: one cross-tenant finding. */
	memset(&o, 0, sizeof o);
	outcome_finding(&o, F_LEAK_CROSS_TENANT, 7, "%s", "");
	outcome_finding(&o, F_LEAK_CROSS_REQUEST, 9, "%s", "");
	judged(&o, 0);
	is_int(o.nf, 1, "one finding");
	is_str(o.f[0].info->code, "LEAK_CROSS_TENANT", "the cross-tenant one");
	is_int(cJSON_GetArraySize(o.f[0].evidence), 2, "citing both responses");
	is_int((int)cJSON_GetArrayItem(o.f[0].evidence, 1)->valuedouble, 9, "the same-tenant one second");
	outcome_free(&o);
	return tap_done();
}
