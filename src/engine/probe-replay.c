/*
 * probe-replay.c: judgement re-derived from what a run recorded. A run's
 * random values all come from one seed kept in its options (px_random), so
 * the same probe code, given the same answers, sends the same requests and
 * judges them the same way. A rejudge runs the probes again with the HTTP
 * engine replaced by the record (replay_http_run): each request the probe
 * lets go is checked against the exchange recorded for it (probe, sequence
 * number, method, URL and body digest or recipe) and answered with the
 * recorded response, in the order the run received them; nothing is sent
 * and nothing is written. The outcomes are kept here and then compared with
 * the run's stored results and findings (probe-rejudge.c). Part of the probe
 * engine.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

/* ---- the run's random values ---- */

void
px_random(struct probe_env *env, void *out, size_t n)
{
	unsigned char key[randombytes_SEEDBYTES], in[sizeof env->seed + 8];

	/* Draw k is keyed by the seed and k: independent of how much earlier draws took. */
	memcpy(in, env->seed, sizeof env->seed);
	for (int i = 0; i < 8; i++)
		in[sizeof env->seed + (size_t)i] = (unsigned char)(env->draws >> (8 * i));
	env->draws++;
	crypto_generichash(key, sizeof key, in, sizeof in, NULL, 0);
	randombytes_buf_deterministic(out, n, key);
	sodium_memzero(key, sizeof key);
}

uint32_t
px_uniform(struct probe_env *env, uint32_t upper)
{
	/* Rejection sampling as randombytes_uniform() does: no bias toward small values. */
	uint32_t min, v;

	if (upper < 2)
		return 0;
	min = (1U + ~upper) % upper;
	do
		px_random(env, &v, sizeof v);
	while (v < min);
	return v % upper;
}

void
px_random_alnum(struct probe_env *env, char *out, size_t n)
{
	static const char set[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (size_t i = 0; i < n; i++)
		out[i] = set[px_uniform(env, sizeof set - 1)];
	out[n] = '\0';
}

/* ---- the HTTP engine, or the record in its place ---- */

int
px_replaying(const struct probe_env *env)
{
	return env->replay != NULL;
}

static struct replay_exchange *
cursor(struct replay *rp)
{
	return rp->next < rp->n ? &rp->x[rp->next] : NULL;
}

/* Whether the exchange after the cursor is another attempt of the same request. */
static int
retried(const struct replay *rp, size_t at)
{
	for (size_t k = at + 1; k < rp->n; k++)
		if (rp->x[k].seq == rp->x[at].seq && strcmp(rp->x[k].probe, rp->x[at].probe) == 0)
			return 1;
	return 0;
}

static void
replay_resp(const struct replay_exchange *x, struct http_resp *resp)
{
	memset(resp, 0, sizeof *resp);
	resp->status = x->status;
	resp->headers = x->headers != NULL ? cJSON_Duplicate(x->headers, 1) : cJSON_CreateObject();
	buf_init(&resp->body);
	buf_add(&resp->body, x->body.data ? x->body.data : "", x->body.len);
	resp->truncated = x->truncated;
	resp->curl_code = x->curl_code;
	snprintf(resp->error, sizeof resp->error, "%s", x->error ? x->error : "");
	resp->t_connect_ms = x->connect_ms;
	resp->t_ttfb_ms = x->ttfb_ms;
	resp->t_total_ms = x->total_ms;
	resp->t_first_byte_ms = x->first_byte_ms;
	snprintf(resp->started_at, sizeof resp->started_at, "%s", x->started_at ? x->started_at : "");
	resp->retry_after_ms = -1;
}

/* A request let go: sending (holding one of the concurrency's slots), or
 * waiting to be tried again (holding none, as in http_run()). */
enum { IDLE, SENDING, WAITING };
struct inflight {
	struct http_req req;
	int64_t seq;
	int state;
};

/* The first exchange ahead of the record that no request in flight answers: the
 * next request the run sent. */
static const struct replay_exchange *
next_sent(const struct replay *rp, const char *probe, const struct inflight *f, size_t n)
{
	for (size_t k = rp->next; k < rp->n; k++) {
		size_t i;

		if (strcmp(rp->x[k].probe, probe) != 0)
			return NULL;
		for (i = 0; i < n && !(f[i].state != IDLE && f[i].seq == rp->x[k].seq); i++)
			;
		if (i == n)
			return &rp->x[k];
	}
	return NULL;
}

/* Requests are let go as the run let them go: request k once as many answers had
 * come as its exchange records (after), and no more at once than the run's
 * concurrency; skipped ones where the run reached them. */
static void
replay_fill(struct probe_env *env, struct inflight *f, size_t n, size_t *next, int *active,
    int conc, http_prepare_fn prepare, void *user)
{
	struct replay *rp = env->replay;

	while (*active < conc && *next < n && env->fatal.code == 0) {
		const struct replay_exchange *x = next_sent(rp, env->probe_name, f, n);
		struct inflight *j = &f[*next];

		if (x != NULL && x->after > env->completions && *active > 0)
			return;
		memset(&j->req, 0, sizeof j->req);
		j->req.method = "POST";
		env->sending_seq = 0;
		if (prepare(user, *next, &j->req) != 0) {
			http_req_free(&j->req);
			(*next)++;
			continue;
		}
		j->seq = env->sending_seq;
		j->state = SENDING;
		(*active)++;
		(*next)++;
	}
}

/* http_run() with the record in place of the network: the requests the probe
 * lets go are answered, each by the next recorded exchange, in the order the
 * run got its answers (a 429 retried answers again, as its later attempt). A
 * request the record has no answer for, or an answer for no request in
 * flight, stops the replay (env->fatal): the judgement needs an exchange the
 * record lacks, or the record is not of what the probe sends. */
static int
replay_run(struct probe_env *env, size_t n, http_prepare_fn prepare, http_done_fn done,
    void *user)
{
	struct replay *rp = env->replay;
	struct inflight *f = xcalloc(n ? n : 1, sizeof *f);
	size_t next = 0;
	int active = 0, conc = env->replay_concurrency > 0 ? env->replay_concurrency :
	    env->hopts.concurrency;

	for (;;) {
		struct replay_exchange *x;
		struct http_resp resp;
		size_t i;
		int retry;

		replay_fill(env, f, n, &next, &active, conc, prepare, user);
		if (env->fatal.code != 0)
			break;
		for (i = 0; i < n && f[i].state == IDLE; i++)
			;
		if (i == n)
			break;
		x = cursor(rp);
		for (i = 0; x != NULL && i < n; i++)
			if (f[i].state != IDLE && f[i].seq == x->seq)
				break;
		if (x == NULL || i == n || strcmp(x->probe, env->probe_name) != 0) {
			for (i = 0; i < n && f[i].state == IDLE; i++)
				;
			aerr_set(&env->fatal, AV_RUNTIME, "%s: request %lld has no recorded exchange%s",
			    env->probe_name, (long long)f[i].seq, x == NULL ? "" : " (the record goes on "
			    "with another request)");
			rp->missing = 1;
			break;
		}
		if (f[i].state == WAITING) {
			f[i].state = SENDING;
			active++;
		}
		if (x->sealed) {
			aerr_set(&env->fatal, AV_RUNTIME, "%s: request %lld: the response (evidence %lld) "
			    "is leaked content the record does not carry", env->probe_name,
			    (long long)x->seq, (long long)x->evidence_id);
			rp->missing = 1;
			break;
		}
		retry = retried(rp, rp->next);
		replay_resp(x, &resp);
		rp->current = x;
		done(user, i, &f[i].req, &resp, retry);
		rp->current = NULL;
		rp->next++;
		http_resp_free(&resp);
		f[i].state = retry ? WAITING : IDLE;
		active--;
		if (!retry)
			http_req_free(&f[i].req);
	}
	for (size_t i = 0; i < n; i++)
		if (f[i].state != IDLE)
			http_req_free(&f[i].req);
	free(f);
	return env->fatal.code != 0 ? AV_RUNTIME : 0;
}

int
replay_kept_by_recipe(const struct probe_env *env, int64_t seq)
{
	const struct replay *rp = env->replay;

	for (size_t k = rp->next; k < rp->n; k++)
		if (rp->x[k].seq == seq && strcmp(rp->x[k].probe, env->probe_name) == 0)
			return rp->x[k].recipe != NULL;
	return 0;
}

int
px_http_run(struct probe_env *env, size_t n, http_prepare_fn prepare, http_done_fn done,
    void *user, int concurrency, struct aerr *err)
{
	if (env->replay != NULL) {
		env->replay_concurrency = concurrency;
		return replay_run(env, n, prepare, done, user);
	}
	if (env->http == NULL)
		env->http = http_engine_new(&env->hopts);
	http_engine_set_concurrency(env->http, concurrency > 0 ? concurrency : env->hopts.concurrency);
	return http_run(env->http, n, prepare, done, user, err);
}

/* Two JSON texts hold the same value (a server may store JSON reformatted). */
static int
same_json(const char *a, const char *b)
{
	cJSON *x, *y;
	int same;

	if (a == NULL || b == NULL)
		return 0;
	if (strcmp(a, b) == 0)
		return 1;
	x = cJSON_Parse(a);
	y = cJSON_Parse(b);
	same = x != NULL && y != NULL && cJSON_Compare(x, y, 1);
	cJSON_Delete(x);
	cJSON_Delete(y);
	return same;
}

/* The request the probe made again is the one the run recorded: the same
 * probe, sequence number, method and URL, and the same body (its digest, or
 * for a body kept by recipe, the recipe). */
int
replay_check_request(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const char *recipe, int64_t *evidence_id, struct aerr *err)
{
	const struct replay_exchange *x = env->replay->current;
	char sha[65] = "";

	if (x == NULL)
		return aerr_set(err, AV_RUNTIME, "%s: request %lld answered outside the record",
		    env->probe_name, (long long)r->seq);
	/* A body made from its recipe was hashed as it was made. */
	if (req->src == NULL && req->body_sha256[0] != '\0')
		memcpy(sha, req->body_sha256, sizeof sha);
	else if (req->src == NULL)
		sha256_hex(req->body ? req->body : "", req->body_len, sha);
	if (x->seq != r->seq || strcmp(x->probe, env->probe_name) != 0 ||
	    strcmp(x->method, req->method) != 0 || strcmp(x->url, req->url) != 0 ||
	    (req->src == NULL ? strcmp(x->request_sha256, sha) != 0 :
	    !same_json(recipe, x->recipe))) {
		env->replay->mismatch = 1;
		return aerr_set(err, AV_RUNTIME, "%s: request %lld is not the one recorded (evidence "
		    "%lld): the judgement did not send what the run sent", env->probe_name,
		    (long long)r->seq, (long long)x->evidence_id);
	}
	*evidence_id = x->evidence_id;
	return 0;
}

/* ---- outcomes kept for comparison ---- */

static int
id_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The evidence a finding cites, ascending: a set (the report lists it so). */
cJSON *
ids_sorted(const cJSON *ids)
{
	int n = cJSON_GetArraySize(ids), k = 0;
	double *v = xcalloc((size_t)n + 1, sizeof *v);
	const cJSON *e;
	cJSON *a = cJSON_CreateArray();

	cJSON_ArrayForEach(e, ids)
		v[k++] = cJSON_IsNumber(e) ? e->valuedouble : -1;
	qsort(v, (size_t)k, sizeof *v, id_cmp);
	for (int i = 0; i < k; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	free(v);
	return a;
}

void
replay_keep_result(struct probe_env *env, const char *probe, const struct probe_outcome *out)
{
	struct replay *rp = env->replay;
	struct replay_outcome *o;

	rp->out = xrealloc(rp->out, (rp->nout + 1) * sizeof *rp->out);
	o = &rp->out[rp->nout++];
	o->probe = xstrdup(probe);
	o->verdict = xstrdup(out->verdict);
	o->reason = xstrdup(out->reason);
	o->requests = out->requests;
	o->details = out->details != NULL ? cJSON_Duplicate(out->details, 1) : NULL;
	o->findings = cJSON_CreateArray();
	for (int i = 0; i < out->nf; i++) {
		const struct raised_finding *f = &out->f[i];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "code", f->info->code);
		cJSON_AddStringToObject(j, "severity", severity_name(raised_severity(f)));
		if (f->more > 0) {
			char *m = xasprintf("%s; and %d more", f->message, f->more);

			cJSON_AddStringToObject(j, "message", m);
			free(m);
		} else {
			cJSON_AddStringToObject(j, "message", f->message);
		}
		cJSON_AddItemToObject(j, "evidence", ids_sorted(f->evidence));
		cJSON_AddItemToArray(o->findings, j);
	}
}
