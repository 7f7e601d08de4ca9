/*
 * probe-engine.c: runs probes against an endpoint. It loads the endpoint and
 * its tenants' credentials, plans, opens a run, calibrates tokens per filler
 * word, then hands each probe px_send(): prompts are generated just before
 * sending, the budget is enforced on every request, every attempt is
 * recorded as evidence in its own transaction with its audit entry
 * (credential headers redacted; large prompts kept as their recipe and
 * SHA-256), and every response is scanned once for every canary of the run.
 * Probe results and findings are written with links to their evidence.
 *
 * The engine's files: this one (the probe table, what a probe sees of its
 * environment, outcomes), probe-judge.c, probe-evidence.c, probe-send.c,
 * probe-env.c, probe-results.c and probe-read.c; probe-engine.h is what they
 * share.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"
#include "probe-engine.h"

extern const struct probe probe_echo, probe_oversize, probe_sweep, probe_canary, probe_errors;
extern const struct probe probe_prefix_timing, probe_engine, probe_cache_extract;

const struct probe *const probe_table[] = {
	&probe_engine,
	&probe_echo,
	&probe_oversize,
	&probe_sweep,
	&probe_canary,
	&probe_errors,
	&probe_prefix_timing,
	&probe_cache_extract,
	NULL
};


int
px_same_org(const struct probe_env *env, int a, int b)
{
	return env->tenant_org[a] != NULL && env->tenant_org[b] != NULL &&
	    strcmp(env->tenant_org[a], env->tenant_org[b]) == 0;
}

int
px_org_assumed(const struct probe_env *env, int a, int b)
{
	return !px_same_org(env, a, b) && (env->tenant_org[a] == NULL || env->tenant_org[b] == NULL);
}

double
px_top_confidence(int repeats)
{
	return 1 - pow(1 - 1.0 / PX_TOP_ONE_IN, repeats);
}

/* The run's repeats and their confidence; at the default count also the ways to more
 * (diagnose, or a budget that covers them), which leave the default depth's cost be. */
const char *
px_top_repeats_text(const struct probe_env *env, char *out, size_t n)
{
	int d = env->opts->depth == PROBE_DIAGNOSE, reps = d ? PX_TOP_REPEATS_DIAGNOSE : env->top_repeats;
	int len = snprintf(out, n, "sweep sends %s %d times%s: a fault on one request in %d shows on "
	    "at least one with %.0f%% confidence", d ? "97% of the context" : "the top of the context",
	    reps, !d && reps > PX_TOP_REPEATS ? ", as the budget covers them" : "", PX_TOP_ONE_IN,
	    floor(100 * px_top_confidence(reps)));

	if (!d && reps == PX_TOP_REPEATS && len > 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, " (--depth diagnose: %d times, %.0f%%; a budget "
		    "covering them: up to %d, %.0f%%)", PX_TOP_REPEATS_DIAGNOSE,
		    floor(100 * px_top_confidence(PX_TOP_REPEATS_DIAGNOSE)), PX_TOP_REPEATS_MAX,
		    floor(100 * px_top_confidence(PX_TOP_REPEATS_MAX)));
	return out;
}

int64_t
px_cache_opening(const struct probe_env *env)
{
	int64_t t = 1280;   /* above the 1,024-token minimum of common prefix caches */

	/* Small contexts (test servers) get a smaller opening: a quarter of the context. */
	if (t > env->ep.context_tokens / 4)
		t = env->ep.context_tokens / 4;
	return t < 64 ? 64 : t;
}

void
px_cache_pairs(const struct probe_env *env, int *cross, int *same)
{
	*cross = *same = -1;
	for (int t = 1; t < env->ntenants; t++) {
		if (px_same_org(env, 0, t) && *same < 0)
			*same = t;
		else if (!px_same_org(env, 0, t) && *cross < 0)
			*cross = t;
	}
}

const char *
px_cache_levels(const struct probe_env *env)
{
	int cross, same;

	px_cache_pairs(env, &cross, &same);
	/* "Another organisation" is only as true as the credentials' organisations: where one
	 * was not given, the levels say what was assumed. */
	if (cross >= 0 && same >= 0)
		return px_org_assumed(env, 0, cross) ? "per-user, per-organisation or global (keys of "
		    "one organisation and of another; " PX_ORG_ASSUMED ")" :
		    "per-user, per-organisation or global (keys of one organisation and of another)";
	if (cross >= 0)
		return px_org_assumed(env, 0, cross) ? "global against per-user or per-organisation "
		    "(keys taken as of different organisations, " PX_ORG_ASSUMED ": --credential-org "
		    "on a second key of one organisation would tell those apart)" :
		    "global against per-user or per-organisation (keys of different organisations, "
		    "none of one organisation: a second key of an organisation would tell those apart)";
	if (same >= 0)
		return "per-user against per-organisation or global (every key of one organisation: "
		    "a key of another organisation would tell those apart)";
	return "none (one credential: a second would tell per-user from shared)";
}

int
px_echoes(const struct probe_env *env)
{
	return env->echo_ok;
}

const struct probe *
probe_find(const char *name)
{
	for (int i = 0; probe_table[i] != NULL; i++)
		if (strcmp(probe_table[i]->name, name) == 0)
			return probe_table[i];
	return NULL;
}

/* ---- outcomes ---- */

/* Whether msg is one of the "; "-joined messages of m. */
static int
message_has(const char *m, const char *msg)
{
	size_t n = strlen(msg);

	for (const char *p = m; (p = strstr(p, msg)) != NULL; p++)
		if ((p == m || (p >= m + 2 && p[-2] == ';' && p[-1] == ' ')) &&
		    (p[n] == '\0' || (p[n] == ';' && p[n + 1] == ' ')))
			return 1;
	return 0;
}

/* Distinct messages a merged finding keeps in full; later ones are counted. */
#define FINDING_MESSAGES 4

void
outcome_finding(struct probe_outcome *o, enum finding_code code, int64_t evidence_id,
    const char *fmt, ...)
{
	struct raised_finding *f = NULL;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (int i = 0; i < o->nf; i++)
		if (o->f[i].info->id == code)
			f = &o->f[i];
	if (f == NULL) {
		if (o->nf == PROBE_MAX_FINDINGS)
			die("outcome_finding: too many findings");
		f = &o->f[o->nf++];
		memset(f, 0, sizeof *f);
		if ((f->info = finding_info(code)) == NULL)
			die("outcome_finding: finding %d is not in the registry", (int)code);
		f->message = xstrdup(msg);
		f->nmessages = msg[0] != '\0';
		f->evidence = cJSON_CreateArray();
	} else if (msg[0] != '\0' && !message_has(f->message, msg)) {
		/* Several exchanges, several things seen: each distinct message is kept. */
		char *m;

		if (f->message[0] == '\0')
			m = xstrdup(msg);
		else if (f->nmessages < FINDING_MESSAGES)
			m = xasprintf("%s; %s", f->message, msg);
		else
			m = NULL, f->more++;
		if (m != NULL) {
			free(f->message);
			f->message = m;
			f->nmessages++;
		}
	}
	if (evidence_id > 0) {
		cJSON *e;

		cJSON_ArrayForEach(e, f->evidence)
			if ((int64_t)e->valuedouble == evidence_id)
				return;
		cJSON_AddItemToArray(f->evidence, cJSON_CreateNumber((double)evidence_id));
	}
}

enum severity
raised_severity(const struct raised_finding *f)
{
	enum severity s = f->raised > f->info->severity ? f->raised : f->info->severity;

	/* Never past what the registry allows, which audit verify holds it to. */
	return s > finding_worst(f->info) ? finding_worst(f->info) : s;
}

int
outcome_has(const struct probe_outcome *o, enum finding_code code)
{
	for (int i = 0; i < o->nf; i++)
		if (o->f[i].info->id == code)
			return 1;
	return 0;
}

void
outcome_set(struct probe_outcome *o, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	o->verdict = verdict;
	va_start(ap, fmt);
	vsnprintf(o->reason, sizeof o->reason, fmt, ap);
	va_end(ap);
}

void
outcome_free(struct probe_outcome *o)
{
	for (int i = 0; i < o->nf; i++) {
		free(o->f[i].message);
		cJSON_Delete(o->f[i].evidence);
	}
	cJSON_Delete(o->details);
	memset(o, 0, sizeof *o);
}
