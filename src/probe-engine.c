/*
 * probe-engine.c: runs probes against an endpoint. It loads the endpoint and
 * its tenants' credentials, plans, opens a run, calibrates tokens per filler
 * word, then hands each probe px_send(): prompts are generated just before
 * sending, the budget is enforced on every request, every attempt is
 * recorded as evidence in its own transaction with its audit entry
 * (credential headers redacted; large prompts kept as their recipe and
 * SHA-256), and every response is scanned once for every canary of the run.
 * Probe results and findings are written with links to their evidence.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"

extern const struct probe probe_echo, probe_oversize, probe_sweep, probe_canary, probe_errors;
extern const struct probe probe_prefix_timing;

const struct probe *const probe_table[] = {
	&probe_echo,
	&probe_oversize,
	&probe_sweep,
	&probe_canary,
	&probe_errors,
	&probe_prefix_timing,
	NULL
};

/* Request bodies up to this size are stored; larger ones by recipe and hash. */
#define STORE_BODY_MAX ((size_t)32 << 10)
#define CALIB_SMALL 100
#define CALIB_LARGE 1100
/* Tokens per filler word: a count outside this range does not describe the
 * prompt. The words are common English of 3 to 8 letters: the most compact
 * tokenizers in use take one token each, byte-level ones under eight. */
#define TPU_PLAUSIBLE_MIN 0.75
#define TPU_PLAUSIBLE_MAX 8.0
#define OVERHEAD_PLAUSIBLE_MAX 2000.0
/* Usage under half a token per word contradicts the bytes sent. */
#define USAGE_MIN_PER_WORD 0.5
/* Without a usable count, sizes are bounded by the most and least compact
 * tokenizers in use today for these words. */
#define TPU_BOUND_MIN 1.0
#define TPU_BOUND_MAX 4.0
/* The plan's "at most" is made before the calibration: it sizes prompts given in
 * words at the least compact tokenizer's rate and allows each request a chat
 * template and instruction of this many tokens, so that what a run counts stays
 * within it whatever the calibration then finds (a test holds it across every
 * fault of aivet-sim). */
#define PLAN_OVERHEAD_MAX 256.0

int
px_same_org(const struct probe_env *env, int a, int b)
{
	return env->tenant_org[a] != NULL && env->tenant_org[b] != NULL &&
	    strcmp(env->tenant_org[a], env->tenant_org[b]) == 0;
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
	if (cross >= 0 && same >= 0)
		return "per-user, per-organisation or global (keys of one organisation and of another)";
	if (cross >= 0)
		return "global against per-user or per-organisation (keys of different organisations, "
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
	struct finding *f = NULL;
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

static void
outcome_free(struct probe_outcome *o)
{
	for (int i = 0; i < o->nf; i++) {
		free(o->f[i].message);
		cJSON_Delete(o->f[i].evidence);
	}
	cJSON_Delete(o->details);
	memset(o, 0, sizeof *o);
}

/* ---- sizing and judging answers ---- */

int64_t
px_units_for(const struct probe_env *env, int64_t tokens)
{
	double u = ((double)tokens - env->overhead_tokens) / env->tpu_max;

	return u < 0 ? 0 : (int64_t)u;
}

/* A prompt's tokens at tpu per word (the calibration's, or a bound). */
static int64_t
est_tokens(const struct probe_env *env, const struct prompt_recipe *r, double tpu)
{
	return (int64_t)llround(env->overhead_tokens + (double)(r->units + r->shared_units) * tpu);
}

/* Words for a prompt of q->target_tokens. One that must be over the target is
 * sized by the most compact tokenizer (no fixed part counted), one that must
 * fit by the least compact; both equal the calibration when it was measured.
 * --max-prompt-tokens caps the largest the prompt can be: a prompt that must
 * exceed a target above the cap is not sent at all (q->capped = -1). */
static int64_t
px_size(const struct probe_env *env, struct px_req *q)
{
	int64_t target = q->target_tokens, cap = env->max_prompt_tokens;
	double shared = (double)q->shared_units * env->tpu_max, u;

	if (q->must_exceed) {
		u = ceil(((double)target + 1 - (double)q->shared_units * env->tpu_min) / env->tpu_min);
		if (cap > 0 && env->overhead_tokens + (u + (double)q->shared_units) * env->tpu_max >
		    (double)cap) {
			q->capped = -1;
			return 0;
		}
		return u < 1 ? 1 : (int64_t)u;
	}
	if (cap > 0 && target > cap) {
		target = cap;
		q->capped = 1;
	}
	u = floor(((double)target - env->overhead_tokens - shared) / env->tpu_max);
	return u < 0 ? 0 : (int64_t)u;
}

int
px_is_2xx(const struct px_req *r)
{
	return r->status >= 200 && r->status < 300;
}

static const char *const class_names[PXC_COUNT] = {
	"unsent", "answered", "refused_size", "refused_other", "rate_limited", "server_error",
	"transport", "unreadable",
};

const char *
px_class_name(enum px_class c)
{
	return (unsigned)c < PXC_COUNT ? class_names[c] : "unsent";
}

/* The one place an exchange's outcome is decided. A status is read with the
 * body that came with it: a 400 is a size refusal only when its error says
 * so, and a 429 is a rate limit whatever its body says. */
static enum px_class
px_classify(long status, const struct prov_result *res, int no_body_to_judge)
{
	enum prov_refusal why = res->refusal;
	int ok2xx = status >= 200 && status < 300;

	if (status == 0 || (status >= 300 && status < 400))
		return PXC_TRANSPORT;
	if (why == PREF_NONE && !ok2xx)
		why = prov_refusal_guess(status, NULL, NULL);
	if (ok2xx) {
		if (no_body_to_judge)
			return PXC_UNREADABLE;
		if (!res->is_error)
			return res->parsed ? PXC_ANSWERED : PXC_UNREADABLE;
		if (why == PREF_NONE)
			why = PREF_SERVER;   /* an error without a reason, after a 200 */
	} else if (status == 429) {
		return PXC_RATE_LIMITED;
	}
	switch (why) {
	case PREF_SIZE:
		return PXC_REFUSED_SIZE;
	case PREF_RATE:
		return PXC_RATE_LIMITED;
	case PREF_SERVER:
		return PXC_SERVER_ERROR;
	default:
		return status >= 500 ? PXC_SERVER_ERROR : PXC_REFUSED_OTHER;
	}
}

void
px_describe(const struct px_req *r, char *out, size_t n)
{
	if (r->rate_skipped)
		snprintf(out, n, "not sent: a prompt no larger stayed rate-limited");
	else if (r->cls == PXC_TRANSPORT || r->cls == PXC_UNREADABLE)
		snprintf(out, n, "%s", r->transport_error[0] ? r->transport_error : "no response");
	else if (r->res.error[0] != '\0')
		snprintf(out, n, "HTTP %ld%s%s%s: %.150s", r->status, r->res.error_type[0] ? " (" : "",
		    r->res.error_type, r->res.error_type[0] ? ")" : "", r->res.error);
	else
		snprintf(out, n, "HTTP %ld", r->status);
}

void
px_tally_add(struct px_tally *t, const struct px_req *r, int judged)
{
	if (!r->sent && !r->rate_skipped)
		return;
	/* A prompt sent again smaller was refused for size first: two exchanges recorded. */
	if (r->resized) {
		t->sent++;
		t->n[PXC_REFUSED_SIZE]++;
	}
	t->sent++;
	t->n[r->cls]++;
	if (t->first[r->cls] == NULL)
		t->first[r->cls] = r;
	if (judged)
		t->judged++;
}

void
px_tally_json(const struct px_tally *t, cJSON *details)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddNumberToObject(details, "judged", t->judged);
	cJSON_AddNumberToObject(details, "sent", t->sent);
	for (int k = PXC_ANSWERED; k < PXC_COUNT; k++)
		if (t->n[k] > 0)
			cJSON_AddNumberToObject(c, class_names[k], t->n[k]);
	cJSON_AddItemToObject(details, "classes", c);
}

void
px_set_unjudged(const struct probe_env *env, struct probe_outcome *o, const struct px_tally *t,
    const char *what)
{
	/* The class that kept the exchanges from being judged, most telling first. */
	static const enum px_class order[] = { PXC_REFUSED_OTHER, PXC_RATE_LIMITED, PXC_SERVER_ERROR,
		PXC_TRANSPORT, PXC_UNREADABLE };
	const struct px_req *r = NULL;
	enum px_class c = PXC_UNSENT;
	char d[256], n[48];
	const char *pre = what ? what : "", *sep = what ? ": " : "";

	for (size_t i = 0; i < sizeof order / sizeof *order && r == NULL; i++)
		if (t->first[order[i]] != NULL)
			r = t->first[c = order[i]];
	if (r == NULL) {
		outcome_set(o, "inconclusive", "%s%stoo few exchanges could be judged (%d of %d)", pre,
		    sep, t->judged, t->sent);
		return;
	}
	px_describe(r, d, sizeof d);
	if (t->n[c] == t->sent)
		snprintf(n, sizeof n, "every request");
	else
		snprintf(n, sizeof n, "%d of %d requests", t->n[c], t->sent);
	if (c == PXC_REFUSED_OTHER && r->res.refusal == PREF_AUTH)
		outcome_set(o, "error", "%s%s%s %s refused for authentication for tenant '%s' (%s): "
		    "check the credential", pre, sep, n, t->n[c] == 1 || t->n[c] == t->sent ? "was" : "were",
		    env->tenant_label[r->tenant], d);
	else if (c == PXC_REFUSED_OTHER)
		outcome_set(o, "error", "%s%s%s %s refused for a reason unrelated to the test (%s)", pre,
		    sep, n, t->n[c] == 1 || t->n[c] == t->sent ? "was" : "were", d);
	else if (c == PXC_RATE_LIMITED && (strcasestr(r->res.error, "token") != NULL ||
	    strcasestr(r->res.error, "too large") != NULL))
		/* A limit on tokens per minute below the prompt: no wait will let it through. */
		outcome_set(o, "inconclusive", "%s%snot judged: rate-limited (%s; %s); lower prompt "
		    "sizes with --max-prompt-tokens N, or raise the account's limit", pre, sep, n, d);
	else if (c == PXC_RATE_LIMITED)
		outcome_set(o, "inconclusive", "%s%snot judged: rate-limited (%s, after retrying as "
		    "Retry-After asked; %s); run again later or with a lower --concurrency", pre, sep, n,
		    d);
	else if (c == PXC_SERVER_ERROR)
		outcome_set(o, "inconclusive", "%s%snot judged: %s failed on the server (%s)", pre, sep,
		    n, d);
	else if (t->n[c] == t->sent)
		outcome_set(o, "error", "%s%sno answer: %s", pre, sep, d);
	else
		outcome_set(o, "error", "%s%s%s got no answer: %s", pre, sep, n, d);
}

int
px_no_answer(const struct px_req *r)
{
	return r->sent && (r->status == 0 || r->transport_error[0] != '\0');
}

int
px_accepted(const struct px_req *r)
{
	return px_is_2xx(r) && !r->res.is_error && r->transport_error[0] == '\0';
}

int
px_usage_ok(const struct px_req *r)
{
	if (r->res.usage.in < 0)
		return -1;
	return (double)r->res.usage.in >= 0.75 * (double)r->est_min;
}

int
px_answer_cut_short(const struct px_req *r)
{
	static const char *const cut[] = { "length", "max_tokens", "MAX_TOKENS", NULL };
	const char *text = r->res.text.data ? r->res.text.data : "";
	size_t n = strlen(text);
	int is_cut = 0;

	for (int i = 0; cut[i] != NULL; i++)
		is_cut |= strcmp(r->res.finish, cut[i]) == 0;
	if (!is_cut || cJSON_GetArraySize(r->leaked) > 0)
		return 0;
	if (r->nonce_mask == 1 || r->nonce_mask == 3)
		return 1;
	/* No room even for the first nonce: what came back must be its beginning. */
	while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n'))
		n--;
	return r->nonce_mask == 0 && n <= NONCE_LEN && strncmp(text, r->recipe.nonces[0], n) == 0;
}

int
px_placeholder_usage(const struct px_req *r)
{
	return r->res.usage.in >= 0 && r->est_tokens >= 1000 &&
	    (double)r->res.usage.in <= fmax(16.0, 0.01 * (double)r->est_tokens);
}

int
px_substituted(const struct probe_env *env, const struct px_req *r)
{
	if (r->cls != PXC_ANSWERED || r->nonces_echoed > 0)
		return 0;
	return cJSON_GetArraySize(r->leaked) > 0 || (env->echo_ok == 1 && px_placeholder_usage(r));
}

void
px_judge_common(struct probe_env *env, struct probe_outcome *o, const struct px_req *r,
    int stream_error_is_finding)
{
	cJSON *l;

	if (!r->sent)
		return;
	/* A canary can come back before its own request finished (memory shared while both
	 * were in flight): its evidence is known now. */
	cJSON_ArrayForEach(l, r->leaked) {
		cJSON *ev = cJSON_GetObjectItem(l, "evidence");
		int64_t owner = (int64_t)cJSON_GetObjectItem(l, "owner_seq")->valuedouble;

		if (ev->valuedouble == 0 && owner > 0 && (size_t)owner < env->nseq_evidence)
			cJSON_SetNumberValue(ev, (double)env->seq_evidence[owner]);
	}
	/* The response that showed the leak is cited first, then the requests it came from. */
	if (r->leaks_tenant > 0) {
		outcome_finding(o, F_LEAK_CROSS_TENANT, r->evidence_id, "%s", "");
		cJSON_ArrayForEach(l, r->leaked) {
			if (cJSON_IsTrue(cJSON_GetObjectItem(l, "other_tenant")))
				outcome_finding(o, F_LEAK_CROSS_TENANT,
				    (int64_t)cJSON_GetObjectItem(l, "evidence")->valuedouble,
				    "a response to tenant '%s' contained canaries that tenant '%s' sent",
				    env->tenant_label[r->tenant],
				    cJSON_GetObjectItem(l, "owner_tenant")->valuestring);
		}
	}
	/* A sized prompt swapped for stale memory shows whatever that memory held: the
	 * probe reports the substitution; the same tenant's canaries in it are not a
	 * same-tenant leak besides (the memory is the vendor's, shared across tenants). */
	if (r->leaks_request > 0 && !(r->target_tokens > 0 && px_substituted(env, r))) {
		outcome_finding(o, F_LEAK_CROSS_REQUEST, r->evidence_id, "%s", "");
		cJSON_ArrayForEach(l, r->leaked) {
			if (cJSON_IsFalse(cJSON_GetObjectItem(l, "other_tenant")))
				outcome_finding(o, F_LEAK_CROSS_REQUEST,
				    (int64_t)cJSON_GetObjectItem(l, "evidence")->valuedouble,
				    "a response contained canaries of another request of the same tenant");
		}
	}
	/* Usage that contradicts the words sent says the vendor's count is wrong, unless the
	 * answer also lost every nonce: then the prompt itself may have been replaced, and
	 * the probe that sent it judges that. */
	if (r->cls == PXC_ANSWERED && px_usage_contradicts(r) &&
	    !(env->echo_ok == 1 && r->nonces_echoed == 0))
		outcome_finding(o, F_USAGE_ANOMALY, r->evidence_id,
		    "usage said %lld prompt token%s for %lld filler words and three nonces%s",
		    (long long)r->res.usage.in,
		    r->res.usage.in == 1 ? "" : "s",
		    (long long)(r->recipe.units + r->recipe.shared_units), r->nonces_echoed > 0 ?
		    ", yet the answer repeated the prompt's own nonces" : env->echo_ok != 1 ?
		    " (the model does not repeat text: a swapped prompt is suspected, not shown)" : "");
	if (px_is_2xx(r) && r->res.is_error && !r->res.stream_error)
		outcome_finding(o, F_ERROR_IN_200, r->evidence_id,
		    "HTTP %ld carried an error in its body: %s", r->status, r->res.error);
	if (stream_error_is_finding && px_is_2xx(r) && r->res.stream_error)
		outcome_finding(o, F_STREAM_ERROR_AFTER_200, r->evidence_id,
		    "a stream that began with HTTP %ld ended in an error event: %s", r->status,
		    r->res.error);
}

cJSON *
px_point_json(const struct px_req *r)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(p, "tokens_sent", (double)r->est_tokens);
	if (r->status > 0)
		cJSON_AddNumberToObject(p, "status", (double)r->status);
	else
		cJSON_AddNullToObject(p, "status");
	cJSON_AddBoolToObject(p, "accepted", px_accepted(r));
	cJSON_AddStringToObject(p, "class", px_class_name(r->cls));
	cJSON_AddNumberToObject(p, "nonces_echoed", r->nonces_echoed);
	cJSON_AddNumberToObject(p, "nonces_total", 3);
	if (r->res.usage.in >= 0)
		cJSON_AddNumberToObject(p, "usage_prompt_tokens", (double)r->res.usage.in);
	else
		cJSON_AddNullToObject(p, "usage_prompt_tokens");
	if (r->res.usage.cached_in >= 0)
		cJSON_AddNumberToObject(p, "usage_cached_tokens", (double)r->res.usage.cached_in);
	if (r->res.usage.raw != NULL)
		cJSON_AddItemToObject(p, "usage", cJSON_Duplicate(r->res.usage.raw, 1));
	cJSON_AddBoolToObject(p, "stream", r->stream);
	cJSON_AddNumberToObject(p, "evidence", (double)r->evidence_id);
	return p;
}

int64_t
px_top_tokens(const struct probe_env *env)
{
	int64_t t = (int64_t)(0.97 * (double)env->ep.context), room = env->ep.context - env->max_tokens - 16;

	return t < room ? t : room;
}

int64_t
px_plan_tokens_out(const struct probe_env *env, int64_t requests)
{
	return requests * env->max_tokens;
}

void
px_diagnose_hint(const struct probe_env *env, const char *probe, const char *does, char *out,
    size_t n)
{
	struct probe_opts o = *env->opts;
	struct probe_env e = *env;
	struct probe_plan p = { 0 };
	const struct probe *pr = probe_find(probe);
	int len;

	if (pr == NULL)
		die("px_diagnose_hint: no probe '%s'", probe);
	/* Planned as that command would plan it: diagnose depth, the probe on its own. */
	o.depth = PROBE_DIAGNOSE;
	e.opts = &o;
	e.top_shared = 0;
	pr->plan(&e, &p);
	{
		/* Quoted, so the command pastes into a shell as it reads. */
		char *ref = xasprintf("%s/%s", env->ep.vendor, env->ep.name), *word = shell_word(ref);

		len = snprintf(out, n, "aivet probe run %s --probe %s --depth diagnose %s (at most %lld "
		    "input tokens", word, probe, does, (long long)p.tokens_in);
		free(ref);
		free(word);
	}
	if (len > 0 && (size_t)len < n && env->ep.has_price_in)
		len += snprintf(out + len, n - (size_t)len, ", about USD %.2f", (double)p.tokens_in / 1e6 *
		    env->ep.price_in + (env->ep.has_price_out ? (double)p.tokens_out / 1e6 *
		    env->ep.price_out : 0));
	if (len > 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, ")");
}

/* ---- evidence ---- */

/* The endpoint's options, with the body choices the adapter made resolved
 * (output-limit field, stream usage), so the recipe rebuilds the same bytes
 * whatever the adapters' defaults become. */
static cJSON *
recipe_options(const struct probe_env *env)
{
	cJSON *o = env->ep.options ? cJSON_Duplicate(env->ep.options, 1) : cJSON_CreateObject();

	if (env->prov->limit_field != NULL && !cJSON_HasObjectItem(o, "max-tokens-field"))
		cJSON_AddStringToObject(o, "max-tokens-field", env->prov->limit_field(&env->ep));
	if (env->prov->stream_usage != NULL && !cJSON_HasObjectItem(o, "stream-usage"))
		cJSON_AddStringToObject(o, "stream-usage", env->prov->stream_usage(&env->ep));
	if (cJSON_GetArraySize(o) == 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *
request_recipe(const struct probe_env *env, const struct px_req *r)
{
	cJSON *j = cJSON_CreateObject(), *o;

	cJSON_AddStringToObject(j, "kind", r->kind == PX_CHAT ? "chat" : r->kind == PX_MALFORMED ?
	    "malformed" : r->kind == PX_MISSING_FIELD ? "missing_field" : "count");
	cJSON_AddStringToObject(j, "api", env->ep.api);
	cJSON_AddStringToObject(j, "endpoint_url", env->ep.url);
	cJSON_AddStringToObject(j, "model", r->model ? r->model : env->ep.model);
	cJSON_AddNumberToObject(j, "max_tokens", r->max_tokens);
	cJSON_AddBoolToObject(j, "stream", r->stream);
	if ((o = recipe_options(env)) != NULL)
		cJSON_AddItemToObject(j, "options", o);
	cJSON_AddItemToObject(j, "prompt", prompt_recipe_json(r->kind == PX_COUNT ? r->count_of :
	    &r->recipe));
	return j;
}

/* Builds the request body (no authentication) of r into req. The adapter is
 * given a random marker for the prompt; the prompt itself is generated from
 * its recipe into that place, and streamed when the body is large. */
static int
build_body(const struct endpoint_info *ep, const struct provider *prov, const struct px_req *r,
    struct http_req *req, struct aerr *err)
{
	const struct prompt_recipe *recipe = r->kind == PX_COUNT ? r->count_of : &r->recipe;
	char marker[NONCE_LEN + 1];
	int rc;

	nonce_new(marker);
	if (r->kind == PX_COUNT) {
		rc = prov->build_count(ep, marker, strlen(marker), req, err);
	} else {
		struct prov_chat c = {
			.model = r->model ? r->model : ep->model, .prompt = marker,
			.prompt_len = strlen(marker), .max_tokens = r->max_tokens, .stream = r->stream,
			.omit_required = r->kind == PX_MISSING_FIELD,
		};

		rc = prov->build_chat(ep, &c, req, err);
	}
	/* Half a JSON object is never JSON: its braces cannot balance. */
	return rc != 0 ? rc : prov_body_from_recipe(req, marker, recipe, r->kind == PX_MALFORMED,
	    STORE_BODY_MAX, err);
}

int
probe_rebuild_request(const char *recipe_json, struct buf *body, struct aerr *err)
{
	cJSON *j = cJSON_Parse(recipe_json), *v;
	struct endpoint_info ep = { 0 };
	struct http_req req = { 0 };
	struct px_req r;
	struct prompt_recipe count;
	const char *kind;
	int rc = 0;

	memset(&r, 0, sizeof r);
	buf_init(body);
	if (j == NULL)
		return aerr_set(err, AV_USAGE, "recipe: not JSON");
	kind = cJSON_GetStringValue(cJSON_GetObjectItem(j, "kind"));
	ep.api = cJSON_GetStringValue(cJSON_GetObjectItem(j, "api"));
	ep.url = cJSON_GetStringValue(cJSON_GetObjectItem(j, "endpoint_url"));
	ep.model = cJSON_GetStringValue(cJSON_GetObjectItem(j, "model"));
	ep.options = cJSON_GetObjectItem(j, "options");
	if (kind == NULL || ep.api == NULL || ep.url == NULL || ep.model == NULL ||
	    provider_find(ep.api) == NULL) {
		cJSON_Delete(j);
		return aerr_set(err, AV_USAGE, "recipe: kind, api, endpoint_url and model are needed");
	}
	/* Recipes recorded before the OpenAI-family adapters chose the output-limit
	 * field and stream usage per endpoint: those bodies always had max_tokens and
	 * stream_options. */
	if (provider_find(ep.api)->limit_field != NULL &&
	    !cJSON_HasObjectItem(ep.options, "max-tokens-field")) {
		if (ep.options == NULL)
			ep.options = cJSON_AddObjectToObject(j, "options");
		cJSON_AddStringToObject(ep.options, "max-tokens-field", "max_tokens");
		if (!cJSON_HasObjectItem(ep.options, "stream-usage"))
			cJSON_AddStringToObject(ep.options, "stream-usage", "stream_options");
	}
	r.kind = strcmp(kind, "chat") == 0 ? PX_CHAT : strcmp(kind, "malformed") == 0 ? PX_MALFORMED :
	    strcmp(kind, "missing_field") == 0 ? PX_MISSING_FIELD : PX_COUNT;
	v = cJSON_GetObjectItem(j, "max_tokens");
	r.max_tokens = cJSON_IsNumber(v) ? v->valueint : 0;
	r.stream = cJSON_IsTrue(cJSON_GetObjectItem(j, "stream"));
	if (prompt_recipe_parse(cJSON_GetObjectItem(j, "prompt"), r.kind == PX_COUNT ? &count :
	    &r.recipe, err) != 0) {
		cJSON_Delete(j);
		return err->code;
	}
	r.count_of = &count;
	rc = build_body(&ep, provider_find(ep.api), &r, &req, err);
	http_req_materialize(&req);
	if (rc == 0)
		buf_add(body, req.body, req.body_len);
	http_req_free(&req);
	cJSON_Delete(j);
	return rc;
}

/*
 * The run's rows (db.h's db_write): on PostgreSQL written by the functions of
 * db/pg/008-workflow.sql, which name the login as the run's actor and let
 * only that login, while the run runs, add its exchanges, results and
 * findings. Run arguments: endpoint, probes, options, plan, actor, pid, time.
 */
static const struct db_write run_row = {
	{ "INSERT INTO probe_run (endpoint_id, status, probes, options, plan, actor, pid, started_at) "
	  "VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7)" },
	"SELECT aivet_probe_start(?1, ?2, ?3, ?4, ?6, ?7)", 1
};
/* Arguments: run, status, calibration, tokens in and out, time, billed in and out. */
static const struct db_write run_update = {
	{ "UPDATE probe_run SET status = ?2, calibration = coalesce(?3, calibration), tokens_in = ?4, "
	  "tokens_out = ?5, finished_at = CASE WHEN ?2 = 'running' THEN NULL ELSE ?6 END, "
	  "plan = CASE WHEN json_valid(plan) THEN json_set(plan, '$.billed', json_object('tokens_in', ?7, "
	  "'tokens_out', ?8)) ELSE plan END WHERE id = ?1" },
	"SELECT aivet_probe_update(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", 0
};
static const struct db_write exchange_row = {
	{ "INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, streaming, method, url, "
	  "request_headers, request_sha256, request_size, request_blob, request_recipe, response_status, "
	  "response_headers, response_sha256, response_size, response_blob, response_truncated, error, "
	  "timings, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	  "?16, ?17, ?18, ?19, ?20, ?21, ?22)" },
	"SELECT aivet_exchange_add(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
	"?17, ?18, ?19, ?20, ?21, ?22)", 0
};
/* Arguments: run, probe, verdict, reason, requests, details. */
static const struct db_write result_row = {
	{ "INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	"SELECT aivet_probe_result(?1, ?2, ?3, ?4, ?5, ?6)", 1
};
/* Arguments: run, probe, code, severity, message, details. */
static const struct db_write finding_row = {
	{ "INSERT INTO finding (run_id, probe, code, severity, message, details) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	"SELECT aivet_finding_add(?1, ?2, ?3, ?4, ?5, ?6)", 1
};
static const struct db_write finding_evidence_row = {
	{ "INSERT OR IGNORE INTO finding_evidence (finding_id, evidence_id) VALUES (?1, ?2)" },
	"SELECT aivet_finding_evidence(?1, ?2)", 0
};

static int
record_exchange(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, enum px_class cls, int leaked, int64_t *evidence_id,
    struct aerr *err)
{
	struct db *db = env->db;
	char req_sha[65], resp_sha[65], ev_sha[65], *req_blob = NULL, *recipe = NULL, *doc_s = NULL;
	char *hdr_s = NULL, *resp_hdr_s = NULL, *timings_s = NULL, name[96];
	const unsigned char *seal = leaked ? env->opts->leak_seal_pk : NULL;
	char status_s[16];
	cJSON *doc = cJSON_CreateObject(), *t = cJSON_CreateObject(), *a = NULL;
	int64_t eid;

	if (db_begin(db, err) != 0) {
		cJSON_Delete(doc);
		cJSON_Delete(t);
		return err->code;
	}
	if (req->src != NULL)
		memcpy(req_sha, req->body_sha256, sizeof req_sha);
	else
		sha256_hex(req->body ? req->body : "", req->body_len, req_sha);
	if (req->src == NULL && req->body_len <= STORE_BODY_MAX) {
		if (blob_put(db, req->body ? req->body : "", req->body_len, req_sha, err) != 0)
			goto fail;
		req_blob = req_sha;
	} else {
		cJSON *rj = request_recipe(env, r);

		recipe = cJSON_PrintUnformatted(rj);
		cJSON_Delete(rj);
	}
	if (resp->status > 0 || resp->body.len > 0) {
		const char *body = resp->body.data ? resp->body.data : "";

		if ((seal != NULL ? blob_put_sealed(db, env->av->actor, env->run_id, body, resp->body.len, seal,
		    resp_sha, err) : blob_put(db, body, resp->body.len, resp_sha, err)) != 0)
			goto fail;
	}
	cJSON_AddNumberToObject(t, "connect_ms", resp->t_connect_ms);
	cJSON_AddNumberToObject(t, "ttfb_ms", resp->t_ttfb_ms);
	cJSON_AddNumberToObject(t, "total_ms", resp->t_total_ms);
	cJSON_AddNumberToObject(t, "first_byte_ms", round(resp->t_first_byte_ms * 1000) / 1000);
	timings_s = cJSON_PrintUnformatted(t);
	hdr_s = req->rec_headers ? cJSON_PrintUnformatted(req->rec_headers) : xstrdup("{}");
	resp_hdr_s = resp->headers ? cJSON_PrintUnformatted(resp->headers) : NULL;
	/* The evidence item itself: a description of the exchange that names its bodies by hash. */
	cJSON_AddStringToObject(doc, "type", "aivet-exchange");
	cJSON_AddNumberToObject(doc, "run", (double)env->run_id);
	cJSON_AddStringToObject(doc, "probe", env->probe_name);
	cJSON_AddNumberToObject(doc, "seq", (double)r->seq);
	json_add_str(doc, "tenant", env->tenant_label[r->tenant]);
	cJSON_AddBoolToObject(doc, "streaming", r->stream);
	cJSON_AddStringToObject(doc, "method", req->method);
	cJSON_AddStringToObject(doc, "url", req->url);
	cJSON_AddItemToObject(doc, "request_headers", req->rec_headers ?
	    cJSON_Duplicate(req->rec_headers, 1) : cJSON_CreateObject());
	cJSON_AddStringToObject(doc, "request_sha256", req_sha);
	cJSON_AddNumberToObject(doc, "request_size", (double)req->body_len);
	if (recipe != NULL)
		cJSON_AddItemToObject(doc, "request_recipe", cJSON_Parse(recipe));
	if (resp->status > 0)
		cJSON_AddNumberToObject(doc, "response_status", (double)resp->status);
	else
		cJSON_AddNullToObject(doc, "response_status");
	if (resp->headers != NULL)
		cJSON_AddItemToObject(doc, "response_headers", cJSON_Duplicate(resp->headers, 1));
	json_add_str(doc, "response_sha256", resp->status > 0 || resp->body.len ? resp_sha : NULL);
	cJSON_AddNumberToObject(doc, "response_size", (double)resp->body.len);
	cJSON_AddBoolToObject(doc, "response_truncated", resp->truncated);
	json_add_str(doc, "error", resp->error[0] ? resp->error : NULL);
	cJSON_AddStringToObject(doc, "outcome", px_class_name(cls));
	cJSON_AddNumberToObject(doc, "foreign_canaries", (double)(r->leaks_tenant + r->leaks_request));
	cJSON_AddItemToObject(doc, "timings", cJSON_Duplicate(t, 1));
	cJSON_AddStringToObject(doc, "started_at", resp->started_at);
	doc_s = cJSON_PrintUnformatted(doc);
	if (blob_put(db, doc_s, strlen(doc_s), ev_sha, err) != 0)
		goto fail;
	snprintf(name, sizeof name, "exchange-%lld-%lld.json", (long long)env->run_id, (long long)r->seq);
	if (evidence_insert(db, env->av->actor, "exchange", ev_sha, name, "application/json",
	    strlen(doc_s), NULL, &eid, err) != 0)
		goto fail;
	snprintf(status_s, sizeof status_s, "%ld", resp->status);
	if (db_write(db, err, &exchange_row, NULL, "iititittttitttttitittt", eid, env->run_id, env->probe_name, r->seq,
	    env->tenant_label[r->tenant], (int64_t)r->stream, req->method, req->url, hdr_s, req_sha,
	    (int64_t)req->body_len, req_blob, recipe, resp->status > 0 ? status_s : NULL, resp_hdr_s,
	    resp->status > 0 || resp->body.len ? resp_sha : NULL, (int64_t)resp->body.len,
	    resp->status > 0 || resp->body.len ? resp_sha : NULL, (int64_t)resp->truncated,
	    resp->error[0] ? resp->error : NULL, timings_s, resp->started_at) != 0)
		goto fail;
	a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "run", (double)env->run_id);
	cJSON_AddStringToObject(a, "probe", env->probe_name);
	cJSON_AddNumberToObject(a, "seq", (double)r->seq);
	cJSON_AddNumberToObject(a, "status", (double)resp->status);
	cJSON_AddStringToObject(a, "sha256", ev_sha);
	if (audit_append(db, env->av->actor, "probe.exchange", "evidence", eid, a, err) != 0 ||
	    db_commit(db, err) != 0)
		goto fail;
	*evidence_id = eid;
	cJSON_Delete(a);
	cJSON_Delete(doc);
	cJSON_Delete(t);
	free(recipe);
	free(doc_s);
	free(hdr_s);
	free(resp_hdr_s);
	free(timings_s);
	return 0;
fail:
	db_rollback(db);
	cJSON_Delete(a);
	cJSON_Delete(doc);
	cJSON_Delete(t);
	free(recipe);
	free(doc_s);
	free(hdr_s);
	free(resp_hdr_s);
	free(timings_s);
	return err->code ? err->code : AV_RUNTIME;
}

/* ---- sending a batch ---- */

struct batch {
	struct probe_env *env;
	struct px_req *r;
	const size_t *idx;            /* request i of the run is r[idx[i]], or NULL: r[i] */
};

static void
report_progress(struct probe_env *env)
{
	struct probe_progress p = {
		env->probe_name, env->probe_index, env->probe_count, env->requests_done,
		env->requests_planned, env->tokens_in + env->tokens_out,
	};

	if (env->opts->progress != NULL)
		env->opts->progress(env->opts->progress_arg, &p);
}

/* What a request may cost: its prompt by the calibration with a quarter to spare (the
 * vendor's count may differ), and its whole output allowance. */
static int64_t
px_reserve(const struct px_req *r)
{
	return r->est_max + r->est_max / 4 + r->max_tokens;
}

static int
px_prepare(void *user, size_t i, struct http_req *req)
{
	struct batch *b = user;
	struct probe_env *env = b->env;
	struct px_req *r = &b->r[b->idx ? b->idx[i] : i];
	int64_t reserve = px_reserve(r);
	struct aerr err = { 0 };

	if ((env->opts->cancel != NULL && *env->opts->cancel) || env->fatal.code != 0)
		return 1;
	/* Fail fast: a credential refused and never accepted is not tried again. */
	if (env->tenant_auth_refused[r->tenant] > 0 && env->tenant_other[r->tenant] == 0)
		return 1;
	if (r->kind != PX_COUNT && r->capped < 0)
		return 1;   /* over the plan's bound for it: never sent */
	if (r->kind == PX_CHAT && env->rate_ceiling > 0 && r->est_min >= env->rate_ceiling) {
		r->rate_skipped = 1;
		r->cls = PXC_RATE_LIMITED;
		return 1;
	}
	if (env->opts->budget_tokens > 0 &&
	    env->tokens_in + env->tokens_out + env->reserved + reserve > env->opts->budget_tokens) {
		env->budget_hit = 1;
		return 1;
	}
	/* In USD: what was counted at the endpoint's prices, and what is reserved at the
	 * dearer of the two, so the budget is never overrun. */
	if (env->opts->budget_usd > 0 &&
	    ((double)env->tokens_in * env->ep.price_in + (double)env->tokens_out * env->ep.price_out +
	    (double)(env->reserved + reserve) * fmax(env->ep.price_in, env->ep.price_out)) / 1e6 >
	    env->opts->budget_usd) {
		env->budget_hit = 1;
		return 1;
	}
	if (build_body(&env->ep, env->prov, r, req, &err) != 0 ||
	    (env->tenant_secret[r->tenant] != NULL &&
	    env->prov->auth(&env->ep, env->tenant_secret[r->tenant], req, &err) != 0)) {
		snprintf(r->transport_error, sizeof r->transport_error, "%.255s", err.msg);
		return 1;
	}
	req->cainfo = endpoint_option(&env->ep, "ca-file", NULL);
	http_req_header(req, "Expect", "", 0);   /* no 100-continue round trip for large bodies */
	cJSON_DeleteItemFromObject(req->rec_headers, "Expect");
	if (env->opts->pace != NULL)
		env->opts->pace(env->opts->pace_arg);
	env->reserved += reserve;
	r->sent = 1;
	return 0;
}

struct scan_ctx {
	struct probe_env *env;
	struct px_req *r;
	unsigned own;                 /* bit k: nonce k of the request was echoed */
	int text_pass;
};

static void
on_canary(void *arg, const char *nonce, int64_t owner, int tenant)
{
	struct scan_ctx *s = arg;
	struct px_req *r = s->r;
	cJSON *l, *o;

	if (owner == r->seq) {
		for (int k = 0; k < 3; k++)
			if (s->text_pass && strcmp(nonce, r->recipe.nonces[k]) == 0)
				s->own |= 1u << k;
		return;
	}
	cJSON_ArrayForEach(l, r->leaked)
		if (strcmp(cJSON_GetObjectItem(l, "nonce")->valuestring, nonce) == 0)
			return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "nonce", nonce);
	cJSON_AddNumberToObject(o, "owner_seq", (double)owner);
	cJSON_AddNumberToObject(o, "evidence", owner > 0 && (size_t)owner < s->env->nseq_evidence ?
	    (double)s->env->seq_evidence[owner] : 0);
	cJSON_AddStringToObject(o, "owner_tenant", s->env->tenant_label[tenant]);
	cJSON_AddBoolToObject(o, "other_tenant", tenant != r->tenant);
	cJSON_AddItemToArray(r->leaked, o);
	if (tenant != r->tenant)
		r->leaks_tenant++;
	else
		r->leaks_request++;
}

/* A 2xx is judged by its content; a body that has none to judge (empty,
 * compressed though none was asked for, not UTF-8, not the API's shape —
 * e.g. JSON nested past what the parser takes) is no answer at all. */
static void
unreadable_2xx(const struct probe_env *env, const struct http_resp *resp,
    const struct prov_result *res, char *why, size_t whysz)
{
	const char *enc = http_resp_header(resp, "content-encoding");
	const char *what = NULL;

	if (resp->truncated)
		return;   /* cut at the cap: said so already */
	if (resp->body.len == 0)
		what = "an empty body";
	else if (enc != NULL && strcasecmp(enc, "identity") != 0)
		what = "a body compressed though no compression was asked for";
	else if (!utf8_valid(resp->body.data, resp->body.len))
		what = "a body that is not valid UTF-8";
	else if (!res->parsed)
		what = "a body that is not a response of this API";
	if (what != NULL)
		snprintf(why, whysz, "HTTP %ld with %s (%zu bytes, %s API)", resp->status, what,
		    resp->body.len, env->ep.api);
}

/* Whether a request got as far as the vendor: a response, or a failure after the
 * connection was made (a timeout, a connection closed mid-answer). A name that
 * did not resolve, a refused connection or a failed TLS handshake sent nothing. */
static int
reached_vendor(const struct http_resp *resp)
{
	switch (resp->curl_code) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
		return resp->status > 0;
	default:
		return 1;
	}
}

static void
px_done(void *user, size_t i, const struct http_req *req, const struct http_resp *resp,
    int will_retry)
{
	struct batch *b = user;
	struct probe_env *env = b->env;
	struct px_req *r = &b->r[b->idx ? b->idx[i] : i];
	struct prov_result res;
	struct scan_ctx sc = { env, r, 0, 1 };
	enum px_class cls;
	int64_t eid = 0;

	prov_result_init(&res);
	if (resp->body.len > 0 && r->kind != PX_COUNT)
		provider_read(env->prov, r->stream, resp->body.data, resp->body.len, resp->status, &res);
	if (!will_retry) {
		cJSON_Delete(r->leaked);
		r->leaked = cJSON_CreateArray();
		r->leaks_tenant = r->leaks_request = 0;
		canary_scan(env->canaries, res.text.data ? res.text.data : "", res.text.len, on_canary, &sc);
		sc.text_pass = 0;
		canary_scan(env->canaries, resp->body.data ? resp->body.data : "", resp->body.len,
		    on_canary, &sc);
	}
	{
		char why[256] = "";

		if (r->kind == PX_CHAT && resp->status >= 200 && resp->status < 300)
			unreadable_2xx(env, resp, &res, why, sizeof why);
		cls = px_classify(resp->status, &res, resp->error[0] != '\0' || resp->truncated ||
		    why[0] != '\0');
		if (r->kind == PX_COUNT && resp->status >= 200 && resp->status < 300 &&
		    resp->error[0] == '\0')
			cls = PXC_ANSWERED;   /* judged by its count below */
	}
	if (env->fatal.code == 0 && record_exchange(env, r, req, resp, cls,
	    r->leaks_tenant + r->leaks_request > 0, &eid, &env->fatal) != 0)
		aerr_prefix(&env->fatal, "recording evidence");
	if ((size_t)r->seq >= env->nseq_evidence) {
		size_t n = (size_t)r->seq + 64;

		env->seq_evidence = xrealloc(env->seq_evidence, n * sizeof *env->seq_evidence);
		memset(env->seq_evidence + env->nseq_evidence, 0,
		    (n - env->nseq_evidence) * sizeof *env->seq_evidence);
		env->nseq_evidence = n;
	}
	env->seq_evidence[r->seq] = eid;
	/* Known from the first attempt: the engine sends the next request while this one
	 * waits to be retried, and that one is no smaller. */
	if (cls == PXC_RATE_LIMITED && r->kind == PX_CHAT && (strcasestr(res.error, "token") ||
	    strcasestr(res.error, "too large")) && (env->rate_ceiling == 0 ||
	    r->est_max < env->rate_ceiling))
		env->rate_ceiling = r->est_max;
	if (will_retry) {
		prov_result_free(&res);
		return;
	}
	r->evidence_id = eid;
	r->status = resp->status;
	r->truncated = resp->truncated;
	r->ttft_ms = resp->t_first_byte_ms > 0 ? resp->t_first_byte_ms : (double)resp->t_ttfb_ms;
	if (resp->error[0] != '\0')
		snprintf(r->transport_error, sizeof r->transport_error, "%s", resp->error);
	else if (resp->status >= 300 && resp->status < 400)
		snprintf(r->transport_error, sizeof r->transport_error, "HTTP %ld redirect to %.120s was "
		    "not followed (credentials are never sent on)", resp->status,
		    http_resp_header(resp, "location") ? http_resp_header(resp, "location") : "nowhere");
	else if (r->kind == PX_CHAT && px_is_2xx(r))
		unreadable_2xx(env, resp, &res, r->transport_error, sizeof r->transport_error);
	prov_result_free(&r->res);
	r->res = res;
	r->nonce_mask = sc.own;
	r->nonces_echoed = (sc.own & 1) + ((sc.own >> 1) & 1) + ((sc.own >> 2) & 1);
	if (r->kind == PX_COUNT && px_is_2xx(r)) {
		cJSON *j = cJSON_ParseWithLength(resp->body.data ? resp->body.data : "", resp->body.len);

		if (j == NULL || env->prov->parse_count(j, &r->count_tokens) != 0)
			r->count_tokens = -1;
		cJSON_Delete(j);
	}
	r->cls = r->kind == PX_COUNT && cls == PXC_ANSWERED && r->count_tokens < 0 ? PXC_UNREADABLE :
	    cls;
	env->answered += r->cls == PXC_ANSWERED && r->kind == PX_CHAT;
	if (r->cls == PXC_REFUSED_OTHER && r->res.refusal == PREF_AUTH) {
		if (env->tenant_auth_refused[r->tenant]++ == 0)
			px_describe(r, env->tenant_auth_msg[r->tenant], sizeof env->tenant_auth_msg[0]);
	} else if (r->cls != PXC_TRANSPORT) {
		env->tenant_other[r->tenant]++;
	}
	if (res.usage.in >= 0)
		env->usage_seen = 1;
	env->reserved -= px_reserve(r);
	/* Tokens in are the larger of the prompt's size (as it was made: at the target, by
	 * the calibration or the bound the target needed) and what the vendor says it read,
	 * of the requests that reached the vendor: a connection never made sent nothing.
	 * The budget reserved the most it could be before sending. */
	if (reached_vendor(resp)) {
		env->tokens_in += res.usage.in > r->est_tokens ? res.usage.in : r->est_tokens;
		env->tokens_out += res.usage.out >= 0 ? res.usage.out : (r->kind == PX_CHAT ?
		    r->max_tokens : 0);
	}
	/* What the vendor billed: its usage; without one, an answer is billed at aivet's
	 * estimate and a refusal at nothing (the vendors aivet supports bill no refusal). */
	if (res.usage.in >= 0)
		env->billed_in += res.usage.in;
	else if (r->cls == PXC_ANSWERED)
		env->billed_in += r->est_tokens;
	if (res.usage.out >= 0)
		env->billed_out += res.usage.out;
	env->requests_done++;
	report_progress(env);
}

/* An endpoint that refuses the output-limit field by name (400, "Unsupported
 * parameter: 'max_tokens'") is sent the other field from then on, once a run
 * and never against the user's own max-tokens-field; the requests refused
 * for it are sent again. The switch is kept in the run's calibration. */
static int
px_switch_limit_field(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	const char *cur, *other = NULL;
	size_t *idx, k = 0;
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	int rc;

	if (env->limit_switched || env->prov->limit_field == NULL ||
	    endpoint_option(&env->ep, "max-tokens-field", NULL) != NULL)
		return 0;
	cur = env->prov->limit_field(&env->ep);
	idx = xcalloc(n, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		const char *o = r[i].kind == PX_CHAT ? prov_limit_field_refused(&r[i].res, r[i].status,
		    cur) : NULL;

		if (o == NULL)
			continue;
		if (other == NULL) {
			other = o;
			env->limit_switch = cJSON_CreateObject();
			cJSON_AddStringToObject(env->limit_switch, "from", cur);
			cJSON_AddStringToObject(env->limit_switch, "to", o);
			cJSON_AddStringToObject(env->limit_switch, "reason", r[i].res.error);
			cJSON_AddNumberToObject(env->limit_switch, "evidence", (double)r[i].evidence_id);
		}
		idx[k++] = i;
		r[i].sent = 0;
		r[i].status = 0;
		r[i].transport_error[0] = '\0';
		prov_result_free(&r[i].res);
		prov_result_init(&r[i].res);
		cJSON_Delete(r[i].leaked);
		r[i].leaked = cJSON_CreateArray();
	}
	if (k == 0) {
		free(idx);
		return 0;
	}
	env->limit_switched = 1;
	if (env->ep.options == NULL)
		env->ep.options = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(env->ep.options, "max-tokens-field");
	cJSON_AddStringToObject(env->ep.options, "max-tokens-field", other);
	b.idx = idx;
	http_engine_set_concurrency(env->http, concurrency > 0 ? concurrency : env->hopts.concurrency);
	rc = http_run(env->http, k, px_prepare, px_done, &b, &err);
	free(idx);
	return rc;
}

/* A request made ready to send: its prompt sized, its sequence number and its
 * nonces registered as canaries of its tenant. */
static void
px_make(struct probe_env *env, struct px_req *q)
{
	if (q->max_tokens == 0)
		q->max_tokens = env->max_tokens;
	if (!env->prov->can_stream)
		q->stream = 0;
	if (q->kind != PX_COUNT) {
		int64_t units = q->target_tokens > 0 ? px_size(env, q) : q->units;

		prompt_recipe_new(&q->recipe, units);
		q->recipe.shared_units = q->shared_units;
		q->recipe.shared_seed = q->shared_seed;
		q->est_tokens = est_tokens(env, &q->recipe, q->must_exceed ? env->tpu_min :
		    env->tpu_max);
		q->est_max = est_tokens(env, &q->recipe, env->tpu_max);
		q->est_min = est_tokens(env, &q->recipe, env->tpu_min);
	}
	q->seq = ++env->seq;
	prov_result_init(&q->res);
	q->leaked = cJSON_CreateArray();
	if (q->kind != PX_COUNT)
		for (int k = 0; k < 3; k++)
			canary_add(env->canaries, q->recipe.nonces[k], q->seq, q->tenant);
}

/* Sizes follow the vendor's own count: a word is f times the tokens the
 * calibration said, so every later prompt is made of fewer words; the change
 * is kept for the run's calibration with what it rests on. */
static void
px_follow_count(struct probe_env *env, double f, const char *from, int64_t vendor, int64_t est,
    int64_t evidence)
{
	cJSON *x = cJSON_CreateObject();

	env->tokens_per_unit *= f;
	env->tpu_min *= f;
	env->tpu_max *= f;
	if (env->size_follow == NULL)
		env->size_follow = cJSON_CreateArray();
	cJSON_AddStringToObject(x, "from", from);
	cJSON_AddNumberToObject(x, "vendor_tokens", (double)vendor);
	cJSON_AddNumberToObject(x, "estimated_tokens", (double)est);
	cJSON_AddNumberToObject(x, "factor", round(f * 1e4) / 1e4);
	cJSON_AddNumberToObject(x, "evidence", (double)evidence);
	cJSON_AddItemToArray(env->size_follow, x);
}

/* A prompt made to fit under the advertised context and refused for size, where
 * the vendor's error counted it larger than aivet's estimate, was mis-sized, not
 * refused for capacity: the sizes follow the vendor's count and the prompt is
 * sent again, smaller, once, before any probe judges it. An accepted prompt
 * whose usage counts it larger than estimated makes later prompts smaller too. */
static int
px_resize(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	size_t *idx, k = 0;
	double f = 1;
	int rc, at = -1;

	for (size_t i = 0; i < n; i++) {
		const struct px_req *q = &r[i];

		if (q->kind != PX_CHAT || q->target_tokens <= 0 || q->must_exceed || !q->sent)
			continue;
		/* Usage above the estimate on an accepted prompt: later prompts are sized by it. */
		if (q->cls == PXC_ANSWERED && q->est_tokens >= 1000 && q->res.usage.in >
		    q->est_tokens + q->est_tokens / 50 && q->res.usage.in < 2 * q->est_tokens &&
		    (double)q->res.usage.in / (double)q->est_tokens > f) {
			f = (double)q->res.usage.in / (double)q->est_tokens;
			at = (int)i;
		}
		if (q->cls == PXC_REFUSED_SIZE && !q->resized && q->res.size_tokens > q->est_tokens &&
		    q->target_tokens < env->ep.context && (double)q->res.size_tokens /
		    (double)q->est_tokens > f) {
			f = (double)q->res.size_tokens / (double)q->est_tokens;
			at = (int)i;
		}
	}
	if (at < 0)
		return 0;
	px_follow_count(env, f, r[at].cls == PXC_REFUSED_SIZE ? "refusal" : "usage",
	    r[at].cls == PXC_REFUSED_SIZE ? r[at].res.size_tokens : r[at].res.usage.in,
	    r[at].est_tokens, r[at].evidence_id);
	idx = xcalloc(n, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		struct px_req *q = &r[i];

		if (q->kind != PX_CHAT || q->target_tokens <= 0 || q->must_exceed || !q->sent ||
		    q->cls != PXC_REFUSED_SIZE || q->resized || q->res.size_tokens <= q->est_tokens ||
		    q->target_tokens >= env->ep.context)
			continue;
		q->resized = 1;
		q->first_size_tokens = q->res.size_tokens;
		q->first_evidence_id = q->evidence_id;
		q->sent = 0;
		q->status = 0;
		q->transport_error[0] = '\0';
		prov_result_free(&q->res);
		cJSON_Delete(q->leaked);
		px_make(env, q);
		idx[k++] = i;
	}
	if (k == 0) {
		free(idx);
		return 0;
	}
	b.idx = idx;
	http_engine_set_concurrency(env->http, concurrency > 0 ? concurrency : env->hopts.concurrency);
	rc = http_run(env->http, k, px_prepare, px_done, &b, &err);
	free(idx);
	return rc;
}

int
px_send(struct probe_env *env, struct px_req *r, size_t n, int concurrency)
{
	struct batch b = { env, r, NULL };
	struct aerr err = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++)
		px_make(env, &r[i]);
	if (env->http == NULL)
		env->http = http_engine_new(&env->hopts);
	http_engine_set_concurrency(env->http, concurrency > 0 ? concurrency : env->hopts.concurrency);
	rc = http_run(env->http, n, px_prepare, px_done, &b, &err);
	if (rc == 0 && env->fatal.code == 0)
		rc = px_switch_limit_field(env, r, n, concurrency);
	if (rc == 0 && env->fatal.code == 0 && !(env->opts->cancel != NULL && *env->opts->cancel))
		rc = px_resize(env, r, n, concurrency);
	if (env->opts->cancel != NULL && *env->opts->cancel)
		env->interrupted = 1;
	return rc != 0 || env->fatal.code != 0 ? AV_RUNTIME : 0;
}

void
px_free(struct px_req *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		prov_result_free(&r[i].res);
		cJSON_Delete(r[i].leaked);
		r[i].leaked = NULL;
	}
}

/* ---- environment: endpoint, tenants, calibration ---- */

static void
env_free(struct probe_env *env)
{
	for (int i = 0; i < env->ntenants; i++) {
		free(env->tenant_label[i]);
		free(env->tenant_org[i]);
		if (env->tenant_secret[i] != NULL)
			credref_free(env->tenant_secret[i], env->tenant_secret_len[i]);
	}
	endpoint_info_free(&env->ep);
	cJSON_Delete(env->limit_switch);
	cJSON_Delete(env->size_follow);
	canary_set_free(env->canaries);
	http_engine_free(env->http);
	free(env->seq_evidence);
	memset(env, 0, sizeof *env);
}

static int
env_init(struct probe_env *env, struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int resolve, struct aerr *err)
{
	struct db_stmt *st;

	memset(env, 0, sizeof *env);
	env->av = av;
	env->opts = o;
	env->echo_ok = -1;
	env->max_tokens = 64;
	env->tokens_per_unit = env->tpu_min = env->tpu_max = 2.0;
	env->max_prompt_tokens = o->max_prompt_tokens;
	env->overhead_tokens = 40;
	snprintf(env->calib_method, sizeof env->calib_method, "none");
	if ((env->db = av_db(av, err)) == NULL)
		return err->code;
	if (endpoint_info_load(env->db, endpoint_id, &env->ep, err) != 0)
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
	if (url_check(env->ep.url, env->ep.insecure, err) != 0)
		return aerr_prefix(err, "endpoint %s/%s", env->ep.vendor, env->ep.name);
	st = db_prepare(env->db, err, "SELECT label, ref, org FROM credential WHERE endpoint_id = ? "
	    "ORDER BY id", "i", endpoint_id);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW && env->ntenants < PROBE_MAX_TENANTS) {
		int t = env->ntenants++;

		env->tenant_label[t] = xstrdup(col_text(st, 0));
		env->tenant_org[t] = db_col_type(st, 2) == DB_NULL ? NULL : xstrdup(col_text(st, 2));
		if (resolve && credref_read(env->db, av->actor, endpoint_id, env->tenant_label[t],
		    col_text(st, 1), &env->tenant_secret[t], &env->tenant_secret_len[t], err) != 0) {
			db_finalize(st);
			return aerr_prefix(err, "tenant '%s'", env->tenant_label[t]);
		}
	}
	db_finalize(st);
	if (env->ntenants == 0)
		env->tenant_label[env->ntenants++] = xstrdup("default");
	env->canaries = canary_set_new();
	http_opts_default(&env->hopts);
	if (o->concurrency > 0)
		env->hopts.concurrency = o->concurrency;
	if (o->max_response > 0)
		env->hopts.max_response = o->max_response;
	if (o->timeout_ms > 0)
		env->hopts.timeout_ms = o->timeout_ms;
	env->hopts.cancel = o->cancel;
	return 0;
}

static int
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
			return aerr_set(err, AV_USAGE, "--probe: unknown probe '%.*s' (probes: echo, oversize, "
			    "sweep, canary, errors, prefix-timing, or all)", (int)len, s);
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

static int
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
static void
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

static cJSON *
make_plan(struct probe_env *env, const struct probe **sel, int n)
{
	cJSON *plan = cJSON_CreateObject(), *arr;
	int64_t req = 0, tin = 0, tout = 0, tin_exp = 0, cached = 0;

	cJSON_AddStringToObject(plan, "depth", probe_depth_name(env->opts->depth));
	{
		int sweep = 0, canary = 0;

		for (int i = 0; i < n; i++) {
			sweep |= strcmp(sel[i]->name, "sweep") == 0;
			canary |= strcmp(sel[i]->name, "canary") == 0;
		}
		env->top_shared = env->opts->depth == PROBE_VERIFY && sweep && canary &&
		    env->prov->can_stream;
		env->top_plain_intact = -1;
	}
	arr = cJSON_AddArrayToObject(plan, "probes");

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
		req += creq, tin += cin, tout += 2 * env->max_tokens;
		tin_exp += 2 * 40 + (CALIB_SMALL + CALIB_LARGE) * 2;
	}
	for (int i = 0; i < n; i++) {
		struct probe_plan pp = { .tokens_in_expected = -1 }, most = { .tokens_in_expected = -1 };
		struct probe_env worst = *env;
		cJSON *p = cJSON_CreateObject();

		/* Expected: sizes as a typical tokenizer makes them; at most: as the least
		 * compact one would, with the largest template allowed. */
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
		req += pp.requests, tin += pp.tokens_in, tout += pp.tokens_out;
		tin_exp += pp.tokens_in_expected;
		cached += pp.tokens_cached_expected;
	}
	/* The largest prompt the selected probes send, so a user under a lower tokens-per-minute
	 * limit knows to cap it. */
	{
		double f = 0;

		for (int i = 0; i < n; i++)
			f = fmax(f, strcmp(sel[i]->name, "oversize") == 0 ? 2.0 :
			    strcmp(sel[i]->name, "canary") == 0 ? 1.05 :
			    strcmp(sel[i]->name, "sweep") == 0 ? 0.97 : 0);
		if (f > 0 && env->max_prompt_tokens > 0 && f * (double)env->ep.context >
		    (double)env->max_prompt_tokens)
			cJSON_AddNumberToObject(plan, "largest_prompt_tokens", (double)env->max_prompt_tokens);
		else if (f > 0)
			cJSON_AddNumberToObject(plan, "largest_prompt_tokens", f * (double)env->ep.context);
		else
			cJSON_AddNullToObject(plan, "largest_prompt_tokens");
		if (env->max_prompt_tokens > 0)
			cJSON_AddNumberToObject(plan, "max_prompt_tokens", (double)env->max_prompt_tokens);
		else
			cJSON_AddNullToObject(plan, "max_prompt_tokens");
	}
	/* What the prefix-timing probe can tell apart with these credentials. */
	for (int i = 0; i < n; i++)
		if (strcmp(sel[i]->name, "prefix-timing") == 0)
			cJSON_AddStringToObject(plan, "cache_sharing_levels", px_cache_levels(env));
	cJSON_AddNumberToObject(plan, "requests", (double)req);
	cJSON_AddNumberToObject(plan, "tokens_in", (double)tin);
	cJSON_AddNumberToObject(plan, "tokens_in_expected", (double)tin_exp);
	cJSON_AddNumberToObject(plan, "tokens_out", (double)tout);
	if (env->ep.has_price_in) {
		double out_usd = env->ep.has_price_out ? (double)tout / 1e6 * env->ep.price_out : 0;
		/* The endpoint's cached-input price (--option price-cached-in=USD), where it has one:
		 * the expected figure prices the prompt-cache hits at it. */
		const char *pc = endpoint_option(&env->ep, "price-cached-in", NULL);
		char *end = NULL;
		double price_cached = pc != NULL ? strtod(pc, &end) : -1;

		if (pc == NULL || end == pc || *end != '\0' || !(price_cached >= 0))
			price_cached = env->ep.price_in, cached = 0;
		cached = cached < tin_exp ? cached : tin_exp;
		cJSON_AddNumberToObject(plan, "cost_usd", (double)tin / 1e6 * env->ep.price_in + out_usd);
		cJSON_AddNumberToObject(plan, "tokens_in_cached_expected", (double)cached);
		cJSON_AddNumberToObject(plan, "cost_usd_expected", (double)(tin_exp - cached) / 1e6 *
		    env->ep.price_in + (double)cached / 1e6 * price_cached + out_usd);
	} else {
		cJSON_AddNullToObject(plan, "cost_usd");
		cJSON_AddNullToObject(plan, "cost_usd_expected");
	}
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

int
px_usage_contradicts(const struct px_req *r)
{
	int64_t words = r->recipe.units + r->recipe.shared_units;

	if (r->res.usage.in < 0 || r->kind != PX_CHAT)
		return 0;
	/* Three nonces of 24 random characters take at least three tokens each. */
	return (double)r->res.usage.in < USAGE_MIN_PER_WORD * (double)words + 9 ||
	    (double)r->res.usage.in > TPU_PLAUSIBLE_MAX * (double)words + OVERHEAD_PLAUSIBLE_MAX;
}

static cJSON *
calibrate(struct probe_env *env)
{
	struct px_req r[2], c[2];
	cJSON *cal = cJSON_CreateObject(), *samples = cJSON_AddArrayToObject(cal, "samples");
	cJSON *rejected = cJSON_CreateArray();
	int64_t t0 = -1, t1 = -1, large = CALIB_LARGE, small = CALIB_SMALL, room;
	double tpu = 0, overhead = 0;
	char why[200];
	int ok = 0;

	memset(r, 0, sizeof r);
	memset(c, 0, sizeof c);
	env->probe_name = "calibration";
	/* A small context (or --max-prompt-tokens): samples that fit under the least
	 * compact tokenizer. */
	room = env->max_prompt_tokens > 0 && env->max_prompt_tokens < env->ep.context ?
	    env->max_prompt_tokens : env->ep.context;
	if ((double)large * TPU_BOUND_MAX > 0.6 * (double)room) {
		large = (int64_t)(0.6 * (double)room / TPU_BOUND_MAX);
		small = large / 4;
	}
	r[0].units = small;
	r[1].units = large;
	if (px_send(env, r, 2, 1) == 0 && r[0].cls == PXC_ANSWERED && r[1].cls == PXC_ANSWERED) {
		t0 = r[0].res.usage.in, t1 = r[1].res.usage.in;
		/* A larger sample that lost nonces the smaller one kept was cut: its usage
		 * counts what was kept, not the prompt. */
		if (r[0].nonces_echoed == 3 && r[1].nonces_echoed < 3 && !px_answer_cut_short(&r[1]) &&
		    t0 >= 0 && t1 >= 0) {
			cJSON *x = cJSON_CreateObject();
			char m[160];

			snprintf(m, sizeof m, "the larger sample lost content (%d of 3 nonces came back): "
			    "its usage counts what was kept, not the prompt", r[1].nonces_echoed);
			cJSON_AddStringToObject(x, "method", "usage");
			cJSON_AddStringToObject(x, "reason", m);
			cJSON_AddItemToArray(rejected, x);
			t0 = t1 = -1;
		}
		if (t0 >= 0 || t1 >= 0) {
			ok = calib_plausible(small, t0, large, t1, &tpu, &overhead, why, sizeof why);
			if (ok) {
				snprintf(env->calib_method, sizeof env->calib_method, "usage");
			} else {
				cJSON *x = cJSON_CreateObject();

				cJSON_AddStringToObject(x, "method", "usage");
				cJSON_AddStringToObject(x, "reason", why);
				cJSON_AddItemToArray(rejected, x);
			}
		}
	}
	/* The calibration prompts carry nonces too: a first sign of whether the model echoes. */
	env->echo_ok = r[0].nonces_echoed == 3 || r[1].nonces_echoed == 3;
	if (!ok && env->prov->build_count != NULL && !env->interrupted && env->fatal.code == 0 &&
	    !(env->tenant_auth_refused[0] > 0 && env->tenant_other[0] == 0)) {
		c[0].kind = c[1].kind = PX_COUNT;
		c[0].count_of = &r[0].recipe;
		c[1].count_of = &r[1].recipe;
		t0 = t1 = -1;
		if (px_send(env, c, 2, 1) == 0 && c[0].cls == PXC_ANSWERED && c[1].cls == PXC_ANSWERED) {
			t0 = c[0].count_tokens, t1 = c[1].count_tokens;
			ok = calib_plausible(small, t0, large, t1, &tpu, &overhead, why, sizeof why);
			if (ok) {
				snprintf(env->calib_method, sizeof env->calib_method, "%s",
				    env->prov->count_method);
			} else {
				cJSON *x = cJSON_CreateObject();

				cJSON_AddStringToObject(x, "method", env->prov->count_method);
				cJSON_AddStringToObject(x, "reason", why);
				cJSON_AddItemToArray(rejected, x);
			}
		}
	}
	if (ok) {
		env->tokens_per_unit = env->tpu_min = env->tpu_max = tpu;
		env->overhead_tokens = overhead;
	} else {
		/* No usable count: sizes by bounds, said so in every verdict that rests on them. */
		env->bounded = 1;
		env->tpu_min = TPU_BOUND_MIN;
		env->tpu_max = TPU_BOUND_MAX;
		snprintf(env->calib_method, sizeof env->calib_method, "bounds");
		t0 = t1 = -1;
	}
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

		cJSON_AddNumberToObject(s, "units", (double)r[i].recipe.units);
		if (i == 0 ? t0 >= 0 : t1 >= 0)
			cJSON_AddNumberToObject(s, "tokens", (double)(i == 0 ? t0 : t1));
		else
			cJSON_AddNullToObject(s, "tokens");
		cJSON_AddNumberToObject(s, "evidence", (double)r[i].evidence_id);
		cJSON_AddItemToArray(samples, s);
	}
	cJSON_AddItemToObject(cal, "rejected", rejected);
	px_free(r, 2);
	px_free(c, 2);
	return cal;
}

/* ---- results ---- */

static int
write_result(struct probe_env *env, const struct probe *p, struct probe_outcome *out,
    struct aerr *err)
{
	struct db *db = env->db;
	char *details = out->details ? cJSON_PrintUnformatted(out->details) : NULL;
	int64_t rid;
	cJSON *a;

	if (db_begin(db, err) != 0) {
		free(details);
		return err->code;
	}
	if (db_write(db, err, &result_row, &rid, "itttit", env->run_id, p->name, out->verdict,
	    out->reason[0] ? out->reason : NULL, out->requests, details) != 0)
		goto fail;
	a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "run", (double)env->run_id);
	cJSON_AddStringToObject(a, "probe", p->name);
	cJSON_AddStringToObject(a, "verdict", out->verdict);
	if (audit_append(db, env->av->actor, "probe.result", "probe_result", rid, a, err) != 0) {
		cJSON_Delete(a);
		goto fail;
	}
	cJSON_Delete(a);
	for (int i = 0; i < out->nf; i++) {
		struct finding *f = &out->f[i];
		char *fd = cJSON_PrintUnformatted(f->evidence);
		int64_t fid;
		cJSON *e;

		char *msg = f->more > 0 ? xasprintf("%s; and %d more", f->message, f->more) :
		    xstrdup(f->message);

		if (db_write(db, err, &finding_row, &fid, "itttt" "t", env->run_id, p->name, f->info->code,
		    severity_name(f->info->severity), msg, fd) != 0) {
			free(fd);
			free(msg);
			goto fail;
		}
		free(fd);
		free(msg);
		cJSON_ArrayForEach(e, f->evidence)
			if (db_write(db, err, &finding_evidence_row, NULL, "ii", fid,
			    (int64_t)e->valuedouble) != 0)
				goto fail;
		a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "run", (double)env->run_id);
		cJSON_AddStringToObject(a, "code", f->info->code);
		cJSON_AddStringToObject(a, "severity", severity_name(f->info->severity));
		cJSON_AddItemReferenceToObject(a, "evidence", f->evidence);
		if (audit_append(db, env->av->actor, "probe.finding", "finding", fid, a, err) != 0) {
			cJSON_Delete(a);
			goto fail;
		}
		cJSON_Delete(a);
	}
	free(details);
	return db_commit(db, err);
fail:
	db_rollback(db);
	free(details);
	return err->code;
}

/* The verdict: findings of low or above fail the probe (its reason then counts them);
 * otherwise what the probe said, inconclusive when the budget cut it short, else pass. */
static void
judge(struct probe_env *env, struct probe_outcome *out)
{
	int worst = -1, xt = -1, xr = -1;

	/* Canaries of the same tenant's other requests that came back beside another
	 * tenant's went through memory shared across tenants: one cross-tenant defect,
	 * not a same-tenant leak besides. */
	for (int i = 0; i < out->nf; i++) {
		if (out->f[i].info->id == F_LEAK_CROSS_TENANT)
			xt = i;
		if (out->f[i].info->id == F_LEAK_CROSS_REQUEST)
			xr = i;
	}
	if (xt >= 0 && xr >= 0) {
		cJSON *e;

		cJSON_ArrayForEach(e, out->f[xr].evidence)
			outcome_finding(out, F_LEAK_CROSS_TENANT, (int64_t)e->valuedouble, "%s",
			    "canaries of the same tenant's other requests came back through the same "
			    "shared memory");
		free(out->f[xr].message);
		cJSON_Delete(out->f[xr].evidence);
		memmove(&out->f[xr], &out->f[xr + 1], (size_t)(out->nf - xr - 1) * sizeof out->f[0]);
		out->nf--;
	}
	for (int i = 0; i < out->nf; i++)
		if ((int)out->f[i].info->severity > worst)
			worst = (int)out->f[i].info->severity;
	if (worst >= severity_rank("low")) {
		snprintf(out->reason, sizeof out->reason, "%d finding%s", out->nf, out->nf == 1 ? "" : "s");
		out->verdict = "fail";
	} else if (env->budget_hit && (out->verdict == NULL || strcmp(out->verdict, "error") != 0)) {
		outcome_set(out, "inconclusive", "the token budget was exhausted before the probe finished");
	} else if (out->verdict == NULL) {
		/* No verdict without judged evidence: a probe that said nothing passed nothing. */
		outcome_set(out, "inconclusive", "no exchange was judged");
	}
}

/* Which output-limit field the endpoint took, and whether its streams report
 * usage, are part of how it was measured: added to the calibration (a new
 * object in *own, for the caller to free, when the run has none). */
static cJSON *
calibration_notes(const struct probe_env *env, cJSON *cal, cJSON **own)
{
	int no_stream_usage = env->prov->stream_usage != NULL &&
	    strcmp(env->prov->stream_usage(&env->ep), "none") == 0;

	if (env->limit_switch == NULL && !no_stream_usage && env->size_follow == NULL)
		return cal;
	if (cal == NULL)
		cal = *own = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "output_limit_field");
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "stream_usage");
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "sizes_followed");
	if (env->size_follow != NULL)
		cJSON_AddItemToObject(cal, "sizes_followed", cJSON_Duplicate(env->size_follow, 1));
	if (env->limit_switch != NULL)
		cJSON_AddItemToObject(cal, "output_limit_field", cJSON_Duplicate(env->limit_switch, 1));
	if (no_stream_usage)
		cJSON_AddStringToObject(cal, "stream_usage", "none: streamed answers on this endpoint "
		    "carry no usage (no stream_options); usage comes from its non-streamed answers");
	return cal;
}

/* A tenant whose every exchange was refused for authentication, or -1. */
static int
auth_dead(const struct probe_env *env)
{
	for (int t = 0; t < env->ntenants; t++)
		if (env->tenant_auth_refused[t] > 0 && env->tenant_other[t] == 0)
			return t;
	return -1;
}

static int
update_run(struct probe_env *env, const char *status, cJSON *cal, struct aerr *err)
{
	char at[32], *cs;
	cJSON *a = cJSON_CreateObject(), *own = NULL;
	int rc;

	cal = calibration_notes(env, cal, &own);
	cs = cal ? cJSON_PrintUnformatted(cal) : NULL;
	cJSON_Delete(own);
	now_iso(at);
	if ((rc = db_begin(env->db, err)) != 0)
		goto out;
	/* Beside the plan, what the vendor really billed (its usage), kept with the run. */
	if (db_write(env->db, err, &run_update, NULL, "ittiitii", env->run_id, status, cs, env->tokens_in,
	    env->tokens_out, at, env->billed_in, env->billed_out) != 0) {
		db_rollback(env->db);
		rc = err->code;
		goto out;
	}
	cJSON_AddStringToObject(a, "status", status);
	cJSON_AddNumberToObject(a, "tokens_in", (double)env->tokens_in);
	cJSON_AddNumberToObject(a, "tokens_out", (double)env->tokens_out);
	if (audit_append(env->db, env->av->actor, strcmp(status, "running") == 0 ?
	    "probe.calibrate" : "probe.finish", "probe_run", env->run_id, a, err) != 0) {
		db_rollback(env->db);
		rc = err->code;
		goto out;
	}
	rc = db_commit(env->db, err);
out:
	cJSON_Delete(a);
	free(cs);
	return rc;
}

/* The run's row and its audit entry, in one transaction: which probes, with
 * what options, and the plan they were sent under. */
static int
run_start(struct probe_env *env, const struct probe *const *sel, int n, const cJSON *plan,
    struct aerr *err)
{
	const struct probe_opts *o = env->opts;
	cJSON *names = cJSON_CreateArray(), *opts = cJSON_CreateObject(), *a;
	char at[32], *plan_s, *names_s, *opts_s;
	int rc;

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(sel[i]->name));
	cJSON_AddNumberToObject(opts, "concurrency", env->hopts.concurrency);
	cJSON_AddNumberToObject(opts, "budget_tokens", (double)o->budget_tokens);
	if (o->budget_usd > 0)
		cJSON_AddNumberToObject(opts, "budget_usd", o->budget_usd);
	cJSON_AddNumberToObject(opts, "max_response", (double)env->hopts.max_response);
	cJSON_AddNumberToObject(opts, "tenants", env->ntenants);
	plan_s = cJSON_PrintUnformatted(plan);
	names_s = cJSON_PrintUnformatted(names);
	opts_s = cJSON_PrintUnformatted(opts);
	now_iso(at);
	rc = db_begin(env->db, err);
	if (rc == 0)
		rc = db_write(env->db, err, &run_row, &env->run_id, "itttti" "t", env->ep.id, names_s, opts_s,
		    plan_s, env->av->actor, (int64_t)getpid(), at);
	if (rc == 0) {
		a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "endpoint", (double)env->ep.id);
		cJSON_AddItemReferenceToObject(a, "probes", names);
		rc = audit_append(env->db, env->av->actor, "probe.start", "probe_run", env->run_id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0)
		rc = db_commit(env->db, err);
	if (rc != 0)
		db_rollback(env->db);
	cJSON_Delete(names);
	cJSON_Delete(opts);
	free(plan_s);
	free(names_s);
	free(opts_s);
	return rc;
}

/* An honest partial verdict: the probes the budget left out (from index ran)
 * are recorded as not checked, beside those that were. */
static int
budget_left_out(struct probe_env *env, const struct probe *const *sel, int n, int ran,
    struct aerr *err)
{
	const struct probe_opts *o = env->opts;
	char checked[256] = "", budget[64];
	size_t len = 0;

	if (o->budget_usd > 0)
		snprintf(budget, sizeof budget, "budget of USD %.2f", o->budget_usd);
	else
		snprintf(budget, sizeof budget, "token budget of %lld", (long long)o->budget_tokens);
	for (int i = 0; i < ran - 1 && len < sizeof checked; i++)
		len += (size_t)snprintf(checked + len, sizeof checked - len, "%s%s", i ? ", " : "",
		    sel[i]->name);
	for (int i = ran; i < n; i++) {
		struct probe_outcome out;
		struct probe_plan pp = { 0 };
		int rc;

		memset(&out, 0, sizeof out);
		sel[i]->plan(env, &pp);
		outcome_set(&out, "inconclusive", "not checked: the %s ran out before "
		    "it (%s%s); it plans at most %lld input tokens", budget,
		    ran > 1 ? "checked before it: " : "nothing was checked before it",
		    ran > 1 ? checked : "", (long long)pp.tokens_in);
		rc = write_result(env, sel[i], &out, err);
		outcome_free(&out);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
probe_run_endpoint(struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int64_t *run_id, struct aerr *err)
{
	const struct probe *sel[16];
	struct probe_env env;
	cJSON *plan = NULL, *cal = NULL;
	const char *status = "completed";
	int n, rc, ran = 0, results = 0, errored = 0;
	char first_error[300] = "";

	*run_id = 0;
	if (select_probes(o, sel, &n, err) != 0)
		return err->code;
	order_for_budget(o, sel, n);
	if (env_init(&env, av, endpoint_id, o, 1, err) != 0) {
		env_free(&env);
		return err->code;
	}
	plan = make_plan(&env, sel, n);
	env.requests_planned = (int64_t)cJSON_GetObjectItem(plan, "requests")->valuedouble;
	env.probe_count = n;
	if (run_start(&env, sel, n, plan, err) != 0)
		goto out;
	*run_id = env.run_id;
	if (needs_calibration(sel, n)) {
		cal = calibrate(&env);
		if (update_run(&env, "running", cal, err) != 0)
			goto out;
	}
	for (ran = 0; ran < n && !env.interrupted && env.fatal.code == 0 && !env.budget_hit; ran++) {
		struct probe_outcome out;
		int dead = auth_dead(&env), i = ran;

		memset(&out, 0, sizeof out);
		if (dead >= 0) {
			/* Failing fast: the probes left are recorded as not run, and why. */
			outcome_set(&out, "error", "not run: every request of tenant '%s' was refused for "
			    "authentication (%s): check the credential", env.tenant_label[dead],
			    env.tenant_auth_msg[dead]);
			rc = write_result(&env, sel[i], &out, err);
			outcome_free(&out);
			if (rc != 0)
				goto out;
			continue;
		}
		env.probe_name = sel[i]->name;
		env.probe_index = i;
		report_progress(&env);
		{
			int64_t before = env.requests_done;

			out.echo_baseline = -1;
			sel[i]->run(&env, &out);
			out.requests = env.requests_done - before;
		}
		if ((sel[i]->traits & PROBE_MAKES_ECHO_BASELINE) && out.echo_baseline >= 0)
			env.echo_ok = out.echo_baseline;
		if (env.interrupted || env.fatal.code != 0) {
			outcome_free(&out);
			break;
		}
		judge(&env, &out);
		results++;
		if (strcmp(out.verdict, "error") == 0 && errored++ == 0)
			snprintf(first_error, sizeof first_error, "%s: %s", sel[i]->name, out.reason);
		rc = write_result(&env, sel[i], &out, err);
		outcome_free(&out);
		if (rc != 0)
			goto out;
	}
	if (env.budget_hit && !env.interrupted && env.fatal.code == 0 && ran < n &&
	    budget_left_out(&env, sel, n, ran, err) != 0)
		goto out;
	if (env.fatal.code == 0 && auth_dead(&env) >= 0) {
		int dead = auth_dead(&env);

		aerr_set(&env.fatal, AV_RUNTIME, "run %lld stopped: every request of tenant '%s' was "
		    "refused for authentication (%s): check the credential", (long long)env.run_id,
		    env.tenant_label[dead], env.tenant_auth_msg[dead]);
	}
	/* A run whose every probe ended in error checked nothing: it failed, whatever it
	 * sent on the way. */
	if (env.fatal.code == 0 && !env.interrupted && results > 0 && errored == results)
		aerr_set(&env.fatal, AV_RUNTIME, "run %lld failed: every probe ended in error (%s)",
		    (long long)env.run_id, first_error);
	if (env.fatal.code != 0) {
		status = "error";
	} else if (env.interrupted) {
		status = "interrupted";
	} else if (env.budget_hit) {
		status = "budget_exhausted";
	}
	if (update_run(&env, status, cal, err) != 0)
		goto out;
	if (env.fatal.code != 0)
		*err = env.fatal;
	else if (env.interrupted)
		aerr_set(err, AV_RUNTIME, "interrupted: run %lld stopped; its finished exchanges are "
		    "recorded", (long long)env.run_id);
out:
	rc = err->code;
	cJSON_Delete(plan);
	cJSON_Delete(cal);
	env_free(&env);
	return rc;
}

/* ---- reading runs back ---- */

int
probe_run_json(struct db *db, int64_t run_id, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.endpoint_id, "
	    "r.status, r.started_at, r.finished_at, r.actor, r.tokens_in, r.tokens_out, r.calibration, "
	    "r.plan, e.context_tokens, e.url FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE r.id = ?", "i", run_id);
	cJSON *j, *probes;

	*out = NULL;
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "no probe run %lld", (long long)run_id);
	}
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)db_col_int64(st, 0));
	cJSON_AddStringToObject(j, "endpoint", col_text(st, 1));
	cJSON_AddNumberToObject(j, "endpoint_id", (double)db_col_int64(st, 2));
	cJSON_AddStringToObject(j, "endpoint_url", col_text(st, 12));
	cJSON_AddNumberToObject(j, "advertised_context", (double)db_col_int64(st, 11));
	cJSON_AddStringToObject(j, "status", col_text(st, 3));
	cJSON_AddStringToObject(j, "started_at", col_text(st, 4));
	json_add_str(j, "finished_at", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
	cJSON_AddStringToObject(j, "actor", col_text(st, 6));
	cJSON_AddNumberToObject(j, "tokens_in", (double)db_col_int64(st, 7));
	cJSON_AddNumberToObject(j, "tokens_out", (double)db_col_int64(st, 8));
	cJSON_AddItemToObject(j, "calibration", db_col_type(st, 9) == DB_NULL ?
	    cJSON_CreateNull() : cJSON_Parse(col_text(st, 9)));
	cJSON_AddItemToObject(j, "plan", cJSON_Parse(col_text(st, 10)));
	db_finalize(st);
	probes = cJSON_AddArrayToObject(j, "probes");
	st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details FROM probe_result "
	    "WHERE run_id = ? ORDER BY id", "i", run_id);
	if (st == NULL) {
		cJSON_Delete(j);
		return err->code;
	}
	while (db_step(st) == DB_ROW) {
		cJSON *p = cJSON_CreateObject(), *fs;
		struct db_stmt *fst;

		cJSON_AddStringToObject(p, "name", col_text(st, 0));
		cJSON_AddStringToObject(p, "verdict", col_text(st, 1));
		json_add_str(p, "reason", db_col_type(st, 2) == DB_NULL ? NULL : col_text(st, 2));
		cJSON_AddNumberToObject(p, "requests", (double)db_col_int64(st, 3));
		cJSON_AddItemToObject(p, "details", db_col_type(st, 4) == DB_NULL ?
		    cJSON_CreateNull() : cJSON_Parse(col_text(st, 4)));
		fs = cJSON_AddArrayToObject(p, "findings");
		fst = db_prepare(db, err, "SELECT f.id, f.code, f.severity, f.message, "
		    "(SELECT json_group_array(evidence_id) FROM (SELECT evidence_id FROM finding_evidence "
		    "WHERE finding_id = f.id ORDER BY evidence_id) AS fe) FROM finding f WHERE f.run_id = ? AND "
		    "f.probe = ? ORDER BY f.id", "it", run_id, col_text(st, 0));
		while (fst != NULL && db_step(fst) == DB_ROW) {
			cJSON *f = cJSON_CreateObject();

			cJSON_AddNumberToObject(f, "id", (double)db_col_int64(fst, 0));
			cJSON_AddStringToObject(f, "code", col_text(fst, 1));
			cJSON_AddStringToObject(f, "severity", col_text(fst, 2));
			cJSON_AddStringToObject(f, "message", col_text(fst, 3));
			cJSON_AddItemToObject(f, "evidence", cJSON_Parse(col_text(fst, 4)));
			cJSON_AddItemToArray(fs, f);
		}
		db_finalize(fst);
		cJSON_AddItemToArray(probes, p);
	}
	db_finalize(st);
	*out = j;
	return 0;
}

int
probe_run_exit(struct db *db, int64_t run_id, const char *fail_on, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT severity FROM finding WHERE run_id = ?", "i", run_id);
	int64_t errored = 0;
	int worst = -1;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW)
		if (severity_rank(col_text(st, 0)) > worst)
			worst = severity_rank(col_text(st, 0));
	db_finalize(st);
	if (worst >= 0 && worst >= severity_rank(fail_on))
		return AV_FINDINGS;
	if (db_int(db, &errored, err, "SELECT count(*) FROM probe_result WHERE run_id = ? AND "
	    "verdict = 'error'", "i", run_id) < 0)
		return AV_RUNTIME;
	return errored > 0 ? AV_RUNTIME : AV_OK;
}
