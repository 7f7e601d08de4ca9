/*
 * errors.c: bad requests must be refused as the client's fault. Malformed
 * JSON and a request missing its required messages must each get a 4xx: a
 * 2xx is MALFORMED_ACCEPTED, a 5xx SERVER_ERROR_ON_BAD_INPUT (only where the
 * server answers well-formed requests: a server failing everything is not
 * blaming the input). A credential refused, a missing route or a rate limit
 * judges nothing. An unknown
 * model name is recorded but not judged: single-model servers such as
 * llama.cpp ignore the name.
 */
#include "config.h"

#include <string.h>

#include "probe-env.h"

enum { E_MALFORMED, E_MISSING, E_MISSING_STREAM, E_UNKNOWN_MODEL, E_COUNT };
static const char *const labels[E_COUNT] = {
	"malformed_json", "missing_field", "missing_field_stream", "unknown_model",
};

static void
errors_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t each = (int64_t)(env->overhead_tokens + 16 * env->tpu_max);

	p->requests = env->prov->can_stream ? E_COUNT : E_COUNT - 1;
	/* Each request is a 16-word prompt (or half of one, or its body without it). */
	p->tokens_in = p->requests * (each > 100 ? each : 100);
	p->tokens_out = px_plan_tokens_out(env, 1);
}

static void
errors_run(struct probe_env *env, struct probe_outcome *out)
{
	struct px_req r[E_COUNT];
	char model[64];
	int n = 0, idx[E_COUNT], serves = 0, recorded_only = 0;
	struct px_tally t = { 0 };
	cJSON *d;

	memset(r, 0, sizeof r);
	snprintf(model, sizeof model, "aivet-no-such-model-");
	px_random_alnum(env, model + strlen(model), 12);
	for (int k = 0; k < E_COUNT; k++) {
		if (k == E_MISSING_STREAM && !env->prov->can_stream)
			continue;
		idx[n] = k;
		r[n].units = 16;
		r[n].kind = k == E_MALFORMED ? PX_MALFORMED : k == E_UNKNOWN_MODEL ? PX_CHAT :
		    PX_MISSING_FIELD;
		r[n].stream = k == E_MISSING_STREAM;
		r[n].model = k == E_UNKNOWN_MODEL ? model : NULL;
		n++;
	}
	if (px_send(env, r, (size_t)n, 0) != 0) {
		px_free(r, (size_t)n);
		return;
	}
	out->details = d = cJSON_CreateObject();
	/* A 5xx blames the bad input only where the server answers good input: some answer in
	 * the run, or a 4xx for the unknown model's well-formed request. */
	for (int i = 0; i < n; i++)
		if (idx[i] == E_UNKNOWN_MODEL && (r[i].cls == PXC_ANSWERED || r[i].cls == PXC_REFUSED_OTHER))
			serves = 1;
	serves |= env->answered > 0;
	for (int i = 0; i < n; i++) {
		cJSON *p = cJSON_AddObjectToObject(d, labels[idx[i]]);
		enum prov_refusal why = r[i].res.refusal;
		int judged;

		if (r[i].status > 0)
			cJSON_AddNumberToObject(p, "status", (double)r[i].status);
		else
			cJSON_AddNullToObject(p, "status");
		cJSON_AddStringToObject(p, "class", px_class_name(r[i].cls));
		cJSON_AddNumberToObject(p, "evidence", (double)r[i].evidence_id);
		if (!r[i].sent)
			continue;
		px_judge_common(env, out, &r[i], 0);
		if (idx[i] == E_UNKNOWN_MODEL) {
			/* Sent and recorded, never judged: many servers serve one model whatever
			 * the name. */
			px_tally_add(&t, &r[i], 0);
			recorded_only++;
			continue;
		}
		/* A bad request is judged by an answer, a refusal that blames the request, or a
		 * server error; a credential, a missing route or a rate limit says nothing. */
		judged = r[i].cls == PXC_ANSWERED || (r[i].cls == PXC_SERVER_ERROR && serves) ||
		    r[i].cls == PXC_REFUSED_SIZE || (r[i].cls == PXC_REFUSED_OTHER &&
		    why != PREF_AUTH && why != PREF_NOT_FOUND);
		px_tally_add(&t, &r[i], judged);
		if (r[i].cls == PXC_ANSWERED)
			outcome_finding(out, F_MALFORMED_ACCEPTED, r[i].evidence_id,
			    "a request with %s was accepted with HTTP %ld",
			    idx[i] == E_MALFORMED ? "malformed JSON" : "no messages", r[i].status);
		else if (r[i].cls == PXC_SERVER_ERROR && r[i].status >= 500 && serves)
			outcome_finding(out, F_SERVER_ERROR_ON_BAD_INPUT, r[i].evidence_id,
			    "a request with %s got HTTP %ld, a server error for a client's mistake",
			    idx[i] == E_MALFORMED ? "malformed JSON" : "no messages", r[i].status);
	}
	px_tally_json(&t, d);
	if (out->nf > 0)
		;   /* the findings are the verdict */
	else if (t.judged < t.sent - recorded_only || t.sent == recorded_only)
		px_set_unjudged(env, out, &t, NULL);
	else
		outcome_set(out, "pass", "bad requests were refused with 4xx (%d of %d judged)", t.judged,
		    t.sent - recorded_only);
	px_free(r, (size_t)n);
}

const struct probe probe_errors = {
	"errors", "malformed and incomplete requests must get a 4xx", errors_plan, errors_run,
	PROBE_NO_CALIBRATION, 5, 2,
};
