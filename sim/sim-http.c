/*
 * sim-http.c: aivet-sim's HTTP front, on libmicrohttpd with a thread per
 * connection (a slow stream never holds up another tenant). A request goes
 * through fixed stages, in order: vendor-wide faults that ignore the request
 * (redirect), routing, body size, authentication to a tenant, rate limiting,
 * JSON parsing, then the route's handler. Responses, errors and streams are
 * shaped by sim-api.c; the per-response faults (stream-error, huge-response,
 * close-mid-body, ...) are applied where the response is built.
 */
#include "config.h"

#include <netdb.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <microhttpd.h>

#include "sim.h"
#include "sim-hostile.h"
#include "sim-neighbour.h"

struct sim_server {
	struct sim_config *cfg;
	struct sim_engine eng;
	struct MHD_Daemon *daemon;
	atomic_ullong nrequests;
	atomic_llong ninference;    /* inference requests seen, for the rate-limit fault */
	atomic_llong nstreams;      /* streamed requests seen, for fault streams-fail-after */
	atomic_int inflight;        /* requests in the handler now (--log-timing) */
	struct sim_neighbour nb;    /* fault noisy-neighbour (without --tenants everyone is index 0) */
};

/* What a connection's request accumulates while its body arrives. */
struct sim_req {
	struct buf body;
	int too_big;
};

/* One request being answered. */
struct ctx {
	struct sim_server *srv;
	const struct sim_config *cfg;
	struct MHD_Connection *conn;
	const struct route *route;
	const char *method, *url;
	const char *tenant;
	int tenant_idx;
	unsigned long long n;
	char request_id[64];
	long long prompt_tokens;     /* for the log line; -1 when not a generation */
	long long at_ms;             /* --log-timing: when it came */
	int inflight;                /* --log-timing: requests in the handler then, itself included */
};

struct route {
	const char *method, *path;
	enum sim_api api;
	int inference;               /* counts for the rate-limit fault, gets body faults */
	int needs_body;
	int counting;                /* a token-count route: 404 with --no-count */
	enum MHD_Result (*serve)(struct ctx *x, const cJSON *body);
};

static const char json_type[] = "application/json";

/* ---- responses ---- */

static void
log_request(const struct ctx *x, int status)
{
	char timing[64] = "";

	if (x->cfg->log_timing)
		snprintf(timing, sizeof timing, " at=%lld inflight=%d", x->at_ms, x->inflight);
	if (x->prompt_tokens >= 0)
		fprintf(stderr, "aivet-sim: #%llu %s %s tenant=%s status=%d prompt_tokens=%lld%s\n",
		    x->n, x->method, x->url, x->tenant ? x->tenant : "-", status, x->prompt_tokens, timing);
	else
		fprintf(stderr, "aivet-sim: #%llu %s %s tenant=%s status=%d%s\n",
		    x->n, x->method, x->url, x->tenant ? x->tenant : "-", status, timing);
}

static enum MHD_Result
queue(struct ctx *x, int status, struct MHD_Response *resp, const char *type)
{
	enum MHD_Result ret;

	if (type != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "x-request-id", x->request_id);
	ret = MHD_queue_response(x->conn, (unsigned)status, resp);
	MHD_destroy_response(resp);
	log_request(x, status);
	return ret;
}

static char *
print_json(cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);

	if (s == NULL)
		die("out of memory");
	cJSON_Delete(v);
	return s;
}

static enum MHD_Result
respond_json(struct ctx *x, int status, cJSON *v)
{
	char *s = print_json(v);

	return queue(x, status, MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE),
	    json_type);
}

static enum MHD_Result
respond_error(struct ctx *x, const struct sim_error *e)
{
	return respond_json(x, e->status, api_error_body(x->route ? x->route->api : API_OPENAI, e,
	    x->request_id));
}

/* A 429 with Retry-After: 1 and the API's rate-limit headers, given as
 * NAME, VALUE, ..., NULL. */
static enum MHD_Result
respond_rate_limit(struct ctx *x, const struct sim_error *e, ...)
{
	char *s = print_json(api_error_body(x->route->api, e, x->request_id));
	struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
	const char *name;
	va_list ap;

	MHD_add_response_header(resp, "Retry-After", "1");
	va_start(ap, e);
	while ((name = va_arg(ap, const char *)) != NULL)
		MHD_add_response_header(resp, name, va_arg(ap, const char *));
	va_end(ap);
	return queue(x, 429, resp, json_type);
}

/* A body served piece by piece: head, `pad` bytes of 'x', tail. With cut_at
 * below the total, the connection is closed after cut_at bytes. */
struct shaped_body {
	char *head;
	size_t headlen, pad;
	const char *tail;
	size_t taillen, total, cut_at;
};

static ssize_t
shaped_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct shaped_body *b = cls;
	size_t n = 0, end = b->cut_at < b->total ? b->cut_at : b->total;

	if (pos >= end)
		return pos >= b->total ? MHD_CONTENT_READER_END_OF_STREAM :
		    MHD_CONTENT_READER_END_WITH_ERROR;
	if (max > end - pos)
		max = end - (size_t)pos;
	while (n < max) {
		size_t p = (size_t)pos + n, k;

		if (p < b->headlen) {
			k = b->headlen - p < max - n ? b->headlen - p : max - n;
			memcpy(out + n, b->head + p, k);
		} else if (p < b->headlen + b->pad) {
			k = b->headlen + b->pad - p < max - n ? b->headlen + b->pad - p : max - n;
			memset(out + n, 'x', k);
		} else {
			k = max - n;
			memcpy(out + n, b->tail + (p - b->headlen - b->pad), k);
		}
		n += k;
	}
	return (ssize_t)n;
}

static void
shaped_free(void *cls)
{
	struct shaped_body *b = cls;

	free(b->head);
	free(b);
}

/* A successful generation's JSON body, with the body faults applied. */
static enum MHD_Result
respond_generation(struct ctx *x, cJSON *v)
{
	sim_faults f = x->cfg->faults;
	struct shaped_body *b;
	char *s;

	if (!sim_has_fault(f, FAULT_HUGE_RESPONSE) && !sim_has_fault(f, FAULT_CLOSE_MID_BODY))
		return respond_json(x, 200, v);
	s = print_json(v);
	b = xcalloc(1, sizeof *b);
	b->head = s;
	b->headlen = strlen(s);
	b->tail = "";
	if (sim_has_fault(f, FAULT_HUGE_RESPONSE)) {
		static const char pad_open[] = ",\"x_padding\":\"";
		size_t want = (size_t)x->cfg->huge_bytes;

		/* Still valid JSON: the object gets one more member holding the padding. */
		b->head = xrealloc(b->head, b->headlen + sizeof pad_open);
		memcpy(b->head + b->headlen - 1, pad_open, sizeof pad_open);
		b->headlen += sizeof pad_open - 2;
		b->tail = "\"}";
		b->taillen = 2;
		b->pad = want > b->headlen + b->taillen ? want - b->headlen - b->taillen : 0;
	}
	b->total = b->headlen + b->pad + b->taillen;
	b->cut_at = sim_has_fault(f, FAULT_CLOSE_MID_BODY) ? b->total / 2 : b->total;
	return queue(x, 200, MHD_create_response_from_callback(b->total, 64 * 1024, shaped_read, b,
	    shaped_free), json_type);
}

/* The API's answer for a path it does not know. */
static void
not_found_error(const struct ctx *x, struct sim_error *e)
{
	if (x->route != NULL && x->route->api == API_ANTHROPIC)
		sim_error_set(e, 404, "not_found_error", NULL, NULL, "Not Found");
	else
		sim_error_set(e, 404, "invalid_request_error", NULL, NULL, "Invalid URL (%.16s %.200s)",
		    x->method, x->url);
}

/* A request the API cannot use: its 400, or with fault bad-request-404 the
 * 404 of a gateway that routes by the body and finds nothing to route to. */
static enum MHD_Result
respond_bad_request(struct ctx *x, struct sim_error *e)
{
	if (sim_has_fault(x->cfg->faults, FAULT_BAD_REQUEST_404))
		not_found_error(x, e);
	return respond_error(x, e);
}

/* --failing: a tenant whose every inference request gets a server error,
 * before its body is read; with no body (NULL) only that is asked. Fault
 * streams-fail-after: the streamed requests after the first N get one too
 * (plain ones are served, so a probe's plain requests are judged). */
static int
server_failing(struct ctx *x, const cJSON *body)
{
	if (body == NULL)
		return x->tenant_idx >= 0 && (size_t)x->tenant_idx < x->cfg->ntenants &&
		    x->cfg->tenants[x->tenant_idx].failing;
	return sim_has_fault(x->cfg->faults, FAULT_STREAMS_FAIL_AFTER) &&
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "stream")) &&
	    atomic_fetch_add(&x->srv->nstreams, 1) >= x->cfg->fail_after;
}

static enum MHD_Result
respond_server_error(struct ctx *x)
{
	struct sim_error e;

	sim_error_set(&e, 500, x->route->api == API_ANTHROPIC ? "api_error" : "server_error", NULL,
	    NULL, "The server had an error while processing your request.");
	return respond_error(x, &e);
}

/* Fault unknown-model-404: 0, or -1 with the API's 404 for a model it does not serve in e. */
static int
model_unknown(const struct ctx *x, const struct sim_chat *c, struct sim_error *e)
{
	if (!sim_has_fault(x->cfg->faults, FAULT_UNKNOWN_MODEL_404) || strcmp(c->model, x->cfg->model) == 0)
		return 0;
	if (x->route->api == API_ANTHROPIC)
		sim_error_set(e, 404, "not_found_error", NULL, NULL, "model: %.100s", c->model);
	else
		sim_error_set(e, 404, "invalid_request_error", "model_not_found", "model",
		    "The model `%.100s` does not exist or you do not have access to it.", c->model);
	return -1;
}

/* ---- generation: the chat routes of both APIs ---- */

/* A streamed generation; MHD pulls events from stream_read as the client reads. */
struct stream {
	struct sim_server *srv;
	enum sim_api api;
	struct sim_gen gen;
	struct sim_result r;
	char model[128];
	enum { ST_OPEN, ST_TOKENS, ST_END } phase;
	struct buf pending;
	size_t off;
	int busy;                  /* noisy-neighbour victim: an error after the first piece */
	int holder;                /* a large request: tenant index + 1 while it holds the server */
};

static void
stream_done(struct stream *st)
{
	sim_generate_end(&st->srv->eng, &st->gen);
	if (st->holder) {
		nb_hold(&st->srv->nb, st->holder - 1, -1);
		st->holder = 0;
	}
}

static void
stream_next(struct stream *st, struct buf *out)
{
	struct sim_engine *e = &st->srv->eng;
	int fail = sim_has_fault(st->srv->cfg->faults, FAULT_STREAM_ERROR) || st->busy;
	char scratch[4];
	const char *text;
	size_t n;
	sim_tok t;

	switch (st->phase) {
	case ST_OPEN:
		api_stream_open(st->api, &st->r, out);
		st->phase = ST_TOKENS;
		return;
	case ST_TOKENS:
		if (fail && (st->gen.emitted > 0 || !sim_generate_step(e, &st->gen, &t))) {
			if (st->busy)
				api_stream_busy(st->api, out);
			else
				api_stream_error(st->api, out);
			break;
		}
		if (fail || sim_generate_step(e, &st->gen, &t)) {
			text = tok_text(&e->tok, t, scratch, &n);
			api_stream_token(st->api, &st->r, text, n, out);
			return;
		}
		st->r.completion_tokens = st->gen.emitted;
		st->r.cut = sim_generate_cut(&st->gen);
		api_stream_close(st->api, &st->r, out);
		break;
	case ST_END:
		return;
	}
	/* Done: give the pages back now, not when the connection goes. */
	stream_done(st);
	st->phase = ST_END;
}

static ssize_t
stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *st = cls;
	size_t n;

	(void)pos;
	while (st->off == st->pending.len) {
		if (st->phase == ST_END)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (sim_has_fault(st->srv->cfg->faults, FAULT_CLOSE_MID_BODY) && st->gen.emitted > 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		st->pending.len = st->off = 0;
		stream_next(st, &st->pending);
	}
	n = st->pending.len - st->off;
	n = n < max ? n : max;
	memcpy(out, st->pending.data + st->off, n);
	st->off += n;
	return (ssize_t)n;
}

static void
stream_free(void *cls)
{
	struct stream *st = cls;

	stream_done(st);
	buf_free(&st->pending);
	free(st);
}

static void
result_init(struct ctx *x, struct sim_result *r, const struct sim_chat *c, const struct sim_gen *g)
{
	memset(r, 0, sizeof *r);
	if (x->route->api == API_ANTHROPIC)
		snprintf(r->id, sizeof r->id, "msg_sim%llx_%llu", (long long)x->cfg->seed, x->n);
	else
		snprintf(r->id, sizeof r->id, "chatcmpl-sim%llx-%llu", (long long)x->cfg->seed, x->n);
	r->created = (int64_t)time(NULL);
	r->prompt_tokens = g->prompt_tokens;
	r->cached_tokens = g->cached_tokens;
	if (sim_has_fault(x->cfg->faults, FAULT_USAGE_ONE)) {
		/* Wrong accounting only: the answer still came from the whole prompt. */
		r->prompt_tokens = 1;
		r->cached_tokens = 0;
	}
	if (sim_has_fault(x->cfg->faults, FAULT_USAGE_COLLAPSE) &&
	    g->prompt_tokens > (size_t)x->cfg->context / 2) {
		/* The same wrong accounting, on large prompts only: calibration stays honest. */
		r->prompt_tokens = 1;
		r->cached_tokens = 0;
	}
	r->usage = !sim_has_fault(x->cfg->faults, FAULT_NO_USAGE);
	r->usage_cached = !sim_has_fault(x->cfg->faults, FAULT_NO_CACHED_USAGE);
	r->include_usage = c->include_usage;
}

/* Tokens-per-minute: an account limit, checked before the engine sees the
 * prompt. Only the request's own size counts (no window across requests),
 * so the answer depends on the prompt alone. */
static enum MHD_Result
tpm_limited(struct ctx *x, const char *model, size_t n)
{
	long long limit = (long long)x->cfg->tpm_limit;
	struct sim_error e;
	char lim[32];

	snprintf(lim, sizeof lim, "%lld", limit);
	if (x->route->api == API_ANTHROPIC) {
		sim_error_set(&e, 429, "rate_limit_error", NULL, NULL,
		    "This request would exceed the rate limit for your organization of %lld input "
		    "tokens per minute.", limit);
		return respond_rate_limit(x, &e, "anthropic-ratelimit-input-tokens-limit", lim,
		    (char *)NULL);
	}
	sim_error_set(&e, 429, "tokens", "rate_limit_exceeded", NULL,
	    "Request too large for %.100s in organization org-sim on tokens per min (TPM): Limit %lld, "
	    "Requested %zu. The input or output tokens must be reduced in order to run successfully.",
	    model, limit, n);
	return respond_rate_limit(x, &e, "x-ratelimit-limit-tokens", lim, (char *)NULL);
}

/* Fault oversize-forbidden: a prompt over the context refused by policy (403), as a
 * gateway in front of the model might, which says nothing of the context. */
static enum MHD_Result
oversize_forbidden(struct ctx *x)
{
	struct sim_error e;

	if (x->route->api == API_ANTHROPIC)
		sim_error_set(&e, 403, "permission_error", NULL, NULL,
		    "This request is not permitted by your organization's policy.");
	else
		sim_error_set(&e, 403, "invalid_request_error", "policy_violation", NULL,
		    "This request is not permitted by your organization's policy.");
	return respond_error(x, &e);
}

/* Whose cached pages a request may reuse: its tenant's, or under --prefix-cache org
 * its organisation's (a tenant without one is an organisation of its own). */
static const char *
cache_scope(const struct ctx *x)
{
	if (x->cfg->prefix_cache == PREFIX_ORG && x->tenant_idx >= 0 &&
	    x->cfg->tenants[x->tenant_idx].org != NULL)
		return x->cfg->tenants[x->tenant_idx].org;
	return x->tenant;
}

/* The answer as a stream: its generation goes on in stream_read, as MHD asks
 * for more; holder says which tenant's large request it ends (0: none). */
static enum MHD_Result
serve_stream(struct ctx *x, const struct sim_chat *c, const struct sim_gen *g,
    const struct sim_result *r, int busy, int holder)
{
	struct stream *st = xcalloc(1, sizeof *st);
	struct MHD_Response *resp;

	st->srv = x->srv;
	st->api = x->route->api;
	st->gen = *g;
	st->r = *r;
	st->busy = busy;
	st->holder = holder;
	snprintf(st->model, sizeof st->model, "%s", c->model);
	st->r.model = st->model;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, st,
	    stream_free);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	return queue(x, 200, resp, "text/event-stream");
}

/* The answer whole, generated here; a large request's hold ends with it. */
static enum MHD_Result
serve_whole(struct ctx *x, const struct sim_chat *c, struct sim_gen *g, struct sim_result *r,
    int large)
{
	struct sim_engine *e = &x->srv->eng;
	struct buf text;
	sim_tok t;
	cJSON *body;

	buf_init(&text);
	while (sim_generate_step(e, g, &t)) {
		char scratch[4];
		size_t n;
		const char *piece = tok_text(&e->tok, t, scratch, &n);

		buf_add(&text, piece, n);
	}
	r->completion_tokens = g->emitted;
	r->cut = sim_generate_cut(g);
	sim_generate_end(e, g);
	if (large)
		nb_hold(&x->srv->nb, x->tenant_idx, -1);
	r->model = c->model;
	r->text = text.data ? text.data : "";
	body = api_completion_body(x->route->api, r);
	buf_free(&text);
	return respond_generation(x, body);
}

/* A generation the engine would not start: shutting down, or the prompt
 * refused as the admission fault in force says (error-200 with status 200). */
static enum MHD_Result
refuse_generation(struct ctx *x, const struct sim_gen *g, size_t prompt_tokens)
{
	struct sim_error err;

	if (g->admit.kind == ADMIT_CLOSING)
		sim_error_set(&err, 503, x->route->api == API_ANTHROPIC ? "api_error" : "server_error",
		    NULL, NULL, "The server is shutting down.");
	else
		api_context_error(x->route->api, prompt_tokens, g->admit.limit, &err);
	if (g->admit.kind == ADMIT_ERROR_200)
		err.status = 200;
	return respond_error(x, &err);
}

static enum MHD_Result
serve_generation(struct ctx *x, struct sim_chat *c)
{
	struct sim_engine *e = &x->srv->eng;
	sim_faults f = x->cfg->faults;
	int streaming = c->stream && !sim_has_fault(f, FAULT_STREAM_AS_JSON) &&
	    !sim_has_fault(f, FAULT_HUGE_RESPONSE);
	struct tokvec prompt = { 0 };
	struct sim_result r;
	struct sim_gen g;
	int busy, large;
	unsigned long victims;

	tok_encode(&e->tok, c->prompt.data ? c->prompt.data : "", c->prompt.len, &prompt);
	x->prompt_tokens = (long long)prompt.n;
	if (x->cfg->tpm_limit > 0 && prompt.n > (size_t)x->cfg->tpm_limit) {
		tokvec_free(&prompt);
		return tpm_limited(x, c->model, x->prompt_tokens);
	}
	if (sim_has_fault(f, FAULT_OVERSIZE_FORBIDDEN) && prompt.n > (size_t)x->cfg->context) {
		tokvec_free(&prompt);
		return oversize_forbidden(x);
	}
	/* Sized: a large request is in flight from here, and one that is not
	 * waits for another tenant's, on demand. A request that comes while another
	 * tenant's large one is in flight fails, whenever that one ends. */
	large = nb_is_large(&x->srv->nb, pool_capacity(&e->pool), prompt.n);
	victims = nb_victims(&x->srv->nb);
	if (large) {
		nb_hold(&x->srv->nb, x->tenant_idx, +1);
	} else if (nb_waits(&x->srv->nb)) {
		fprintf(stderr, "aivet-sim: #%llu tenant=%s waiting for another tenant's large request, "
		    "at most %lld ms\n", x->n, x->tenant, (long long)x->cfg->neighbour_wait_ms);
		nb_settle(&x->srv->nb, x->tenant_idx);
	}
	busy = nb_busy(&x->srv->nb, x->tenant_idx);
	if (busy) {   /* tests tell from this line that the overlap they need happened */
		fprintf(stderr, "aivet-sim: #%llu tenant=%s busy: another tenant's large request is in "
		    "flight\n", x->n, x->tenant);
		nb_met(&x->srv->nb);
	}
	if (busy && !streaming) {
		if (large)
			nb_hold(&x->srv->nb, x->tenant_idx, -1);
		tokvec_free(&prompt);
		return respond_json(x, 500, api_busy_body(x->route->api, x->request_id));
	}
	/* A streamed victim only ever sends one piece: it reserves room for no more,
	 * so it does not wait for the pages the large request holds. */
	if (sim_generate_start(e, cache_scope(x), &prompt, c->max_tokens,
	    busy ? 1 : c->max_tokens, &g) != 0) {
		size_t n = prompt.n;

		if (large)
			nb_hold(&x->srv->nb, x->tenant_idx, -1);
		tokvec_free(&prompt);
		return refuse_generation(x, &g, n);
	}
	tokvec_free(&prompt);
	if (large) {
		if (x->cfg->neighbour_victims > 0)
			fprintf(stderr, "aivet-sim: #%llu tenant=%s holding prompt_tokens=%lld until %lld other "
			    "tenants' requests met it, at most %lld ms\n", x->n, x->tenant, x->prompt_tokens,
			    (long long)x->cfg->neighbour_victims, (long long)x->cfg->neighbour_hold_ms);
		else
			fprintf(stderr, "aivet-sim: #%llu tenant=%s holding prompt_tokens=%lld for %lld ms\n",
			    x->n, x->tenant, x->prompt_tokens, (long long)x->cfg->neighbour_hold_ms);
		nb_wait(&x->srv->nb, victims);
	}
	result_init(x, &r, c, &g);
	if (streaming)
		return serve_stream(x, c, &g, &r, busy, large ? x->tenant_idx + 1 : 0);
	return serve_whole(x, c, &g, &r, large);
}

static enum MHD_Result
serve_chat(struct ctx *x, const cJSON *body)
{
	struct sim_chat c;
	struct sim_error e;
	enum MHD_Result ret;

	if (api_parse_openai(body, &c, &e) != 0)
		return respond_bad_request(x, &e);
	ret = model_unknown(x, &c, &e) != 0 ? respond_error(x, &e) : serve_generation(x, &c);
	sim_chat_free(&c);
	return ret;
}

static enum MHD_Result
serve_messages(struct ctx *x, const cJSON *body)
{
	struct sim_chat c;
	struct sim_error e;
	enum MHD_Result ret;

	if (api_parse_anthropic(body, 0, &c, &e) != 0)
		return respond_bad_request(x, &e);
	ret = model_unknown(x, &c, &e) != 0 ? respond_error(x, &e) : serve_generation(x, &c);
	sim_chat_free(&c);
	return ret;
}

/* ---- counting routes ---- */

static size_t
count_tokens(struct ctx *x, const struct sim_chat *c, struct tokvec *keep)
{
	struct tokvec tv = { 0 };
	size_t n;

	tok_encode(&x->srv->eng.tok, c->prompt.data ? c->prompt.data : "", c->prompt.len, &tv);
	n = tv.n;
	if (keep != NULL)
		*keep = tv;
	else
		tokvec_free(&tv);
	return n;
}

static enum MHD_Result
serve_count_tokens(struct ctx *x, const cJSON *body)
{
	struct sim_chat c;
	struct sim_error e;
	cJSON *o;

	if (api_parse_anthropic(body, 1, &c, &e) != 0)
		return respond_error(x, &e);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "input_tokens", (double)count_tokens(x, &c, NULL));
	sim_chat_free(&c);
	return respond_json(x, 200, o);
}

static enum MHD_Result
serve_tokenize(struct ctx *x, const cJSON *body)
{
	struct sim_chat c;
	struct sim_error e;
	struct tokvec tv;
	struct buf ids;
	cJSON *o;

	if (api_parse_tokenize(body, &c, &e) != 0)
		return respond_error(x, &e);
	count_tokens(x, &c, &tv);
	sim_chat_free(&c);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "count", (double)tv.n);
	cJSON_AddNumberToObject(o, "max_model_len", (double)x->cfg->context);
	/* A million cJSON number nodes would cost ~100 MB: the id list goes in as
	 * one raw member, a bracketed list of decimal integers. */
	buf_init(&ids);
	buf_add(&ids, "[", 1);
	for (size_t i = 0; i < tv.n; i++)
		buf_printf(&ids, i ? ",%u" : "%u", (unsigned)tv.v[i]);
	buf_add(&ids, "]", 1);
	cJSON_AddRawToObject(o, "tokens", ids.data);
	buf_free(&ids);
	cJSON_AddNullToObject(o, "token_strs");
	tokvec_free(&tv);
	return respond_json(x, 200, o);
}

static enum MHD_Result
serve_models(struct ctx *x, const cJSON *body)
{
	cJSON *o = cJSON_CreateObject(), *a, *m;

	(void)body;
	cJSON_AddStringToObject(o, "object", "list");
	a = cJSON_AddArrayToObject(o, "data");
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "id", x->cfg->model);
	cJSON_AddStringToObject(m, "object", "model");
	cJSON_AddStringToObject(m, "type", "model");
	cJSON_AddNumberToObject(m, "created", 0);
	cJSON_AddStringToObject(m, "owned_by", "aivet-sim");
	cJSON_AddStringToObject(m, "display_name", x->cfg->model);
	cJSON_AddNumberToObject(m, "context_length", (double)x->cfg->context);
	cJSON_AddNumberToObject(m, "max_model_len", (double)x->cfg->context);
	cJSON_AddItemToArray(a, m);
	cJSON_AddBoolToObject(o, "has_more", 0);
	return respond_json(x, 200, o);
}

static const struct route routes[] = {
	{ "POST", "/v1/chat/completions", API_OPENAI, 1, 1, 0, serve_chat },
	{ "POST", "/v1/messages", API_ANTHROPIC, 1, 1, 0, serve_messages },
	{ "POST", "/v1/messages/count_tokens", API_ANTHROPIC, 0, 1, 1, serve_count_tokens },
	{ "POST", "/tokenize", API_OPENAI, 0, 1, 1, serve_tokenize },
	{ "GET", "/v1/models", API_OPENAI, 0, 0, 0, serve_models },
};

/* ---- the request stages ---- */

/* The index of the tenant a key belongs to, -1 for none. Without --tenants
 * every caller is tenant "default", index 0. */
static int
tenant_for(const struct sim_config *cfg, const char *key)
{
	if (cfg->ntenants == 0)
		return 0;
	if (key == NULL)
		return -1;
	for (size_t i = 0; i < cfg->ntenants; i++) {
		const char *k = cfg->tenants[i].key;

		if (strlen(k) == strlen(key) && sodium_memcmp(k, key, strlen(k)) == 0)
			return (int)i;
	}
	return -1;
}

/* Returns 0 with x->tenant set, or -1 with the API's 401 queued (*ret). */
static int
authenticate(struct ctx *x, enum MHD_Result *ret)
{
	const char *key = MHD_lookup_connection_value(x->conn, MHD_HEADER_KIND, "x-api-key");
	const char *auth = MHD_lookup_connection_value(x->conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION);
	struct sim_error e;

	if (x->route->api == API_OPENAI || key == NULL) {
		key = NULL;
		if (auth != NULL && strncasecmp(auth, "Bearer ", 7) == 0)
			key = auth + 7;
	}
	x->tenant_idx = tenant_for(x->cfg, key);
	if (x->cfg->ntenants == 0) {
		x->tenant = "default";
		return 0;
	}
	if (x->tenant_idx >= 0) {
		/* A revoked key is refused like an unknown one; the log names its tenant. */
		x->tenant = x->cfg->tenants[x->tenant_idx].label;
		if (!x->cfg->tenants[x->tenant_idx].revoked)
			return 0;
	}
	if (x->route->api == API_ANTHROPIC)
		sim_error_set(&e, 401, "authentication_error", NULL, NULL,
		    key == NULL ? "x-api-key header is required" : "invalid x-api-key");
	else if (key == NULL)
		sim_error_set(&e, 401, "invalid_request_error", NULL, NULL,
		    "You didn't provide an API key. You need to provide your API key in an "
		    "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). "
		    "You can obtain an API key from https://platform.openai.com/account/api-keys.");
	else
		sim_error_set(&e, 401, "invalid_request_error", "invalid_api_key", NULL,
		    "Incorrect API key provided. You can find your API key at "
		    "https://platform.openai.com/account/api-keys.");
	*ret = respond_error(x, &e);
	return -1;
}

static enum MHD_Result
rate_limited(struct ctx *x)
{
	struct sim_error e;

	if (x->route->api == API_ANTHROPIC) {
		sim_error_set(&e, 429, "rate_limit_error", NULL, NULL,
		    "Number of request tokens has exceeded your per-minute rate limit. Please try again later.");
		return respond_rate_limit(x, &e, "anthropic-ratelimit-requests-remaining", "0",
		    (char *)NULL);
	}
	sim_error_set(&e, 429, "requests", "rate_limit_exceeded", NULL,
	    "Rate limit reached for requests. Please try again in 1s.");
	return respond_rate_limit(x, &e, "x-ratelimit-remaining-requests", "0",
	    "x-ratelimit-reset-requests", "1s", (char *)NULL);
}

/* The engine's status, as SGLang serves it: its admin key when one is set (401
 * without it, as SGLang's API-key middleware answers), a 500 under fault
 * engine-unreadable. */
static enum MHD_Result
serve_server_info(struct ctx *x)
{
	const char *auth = MHD_lookup_connection_value(x->conn, MHD_HEADER_KIND, "Authorization");
	cJSON *e;

	if (x->cfg->engine_key != NULL && (auth == NULL || strncmp(auth, "Bearer ", 7) != 0 ||
	    strcmp(auth + 7, x->cfg->engine_key) != 0)) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "error", "Unauthorized");
		return respond_json(x, 401, e);
	}
	if (sim_has_fault(x->cfg->faults, FAULT_ENGINE_UNREADABLE)) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "object", "error");
		cJSON_AddStringToObject(e, "message", "internal server error");
		return respond_json(x, 500, e);
	}
	return respond_json(x, 200, sim_server_info(x->cfg));
}

static enum MHD_Result
handle(struct sim_server *srv, struct MHD_Connection *conn, struct sim_req *req,
    const char *method, const char *url)
{
	const struct sim_config *cfg = srv->cfg;
	struct ctx x = { .srv = srv, .cfg = cfg, .conn = conn, .method = method, .url = url,
		.prompt_tokens = -1 };
	struct sim_error e;
	cJSON *body = NULL;
	enum MHD_Result ret;

	x.n = atomic_fetch_add(&srv->nrequests, 1) + 1;
	x.at_ms = (long long)now_ms();
	x.inflight = atomic_load(&srv->inflight);
	snprintf(x.request_id, sizeof x.request_id, "req_sim%llx_%llu", (long long)cfg->seed, x.n);
	if (cfg->hostile != HOSTILE_NONE)
		return sim_hostile_respond(cfg, conn, method, url, x.n);
	if (sim_has_fault(cfg->faults, FAULT_REDIRECT)) {
		struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"",
		    MHD_RESPMEM_PERSISTENT);

		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, cfg->redirect_to);
		return queue(&x, 307, resp, NULL);
	}
	if (strcmp(url, "/get_server_info") == 0 && strcmp(method, "GET") == 0)
		return serve_server_info(&x);
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (strcmp(routes[i].path, url) == 0 && strcmp(routes[i].method, method) == 0)
			x.route = &routes[i];
	if (x.route == NULL) {
		sim_error_set(&e, 404, "invalid_request_error", NULL, NULL, "Invalid URL (%.16s %.200s)",
		    method, url);
		return respond_error(&x, &e);
	}
	if (x.route->counting && cfg->no_count) {
		/* A vendor without a count endpoint: its API's answer for an unknown path. */
		not_found_error(&x, &e);
		return respond_error(&x, &e);
	}
	if (req->too_big) {
		if (x.route->api == API_ANTHROPIC)
			sim_error_set(&e, 413, "request_too_large", NULL, NULL,
			    "Request exceeds the maximum allowed number of bytes.");
		else
			sim_error_set(&e, 413, "invalid_request_error", "request_too_large", NULL,
			    "Request body is larger than the limit of %lld bytes.",
			    (long long)cfg->max_body);
		return respond_error(&x, &e);
	}
	if (authenticate(&x, &ret) != 0)
		return ret;
	if (x.route->inference && sim_has_fault(cfg->faults, FAULT_RATE_LIMIT) &&
	    atomic_fetch_add(&srv->ninference, 1) < cfg->rate_limit_count)
		return rate_limited(&x);
	if (x.route->inference && server_failing(&x, NULL))
		return respond_server_error(&x);
	if (x.route->needs_body) {
		body = cJSON_ParseWithLength(req->body.data ? req->body.data : "", req->body.len);
		if (body == NULL) {
			if (sim_has_fault(cfg->faults, FAULT_MALFORMED_500))
				sim_error_set(&e, 500, "server_error", NULL, NULL,
				    "The server had an error while processing your request.");
			else if (sim_has_fault(cfg->faults, FAULT_BAD_REQUEST_404))
				not_found_error(&x, &e);
			else if (x.route->api == API_ANTHROPIC)
				sim_error_set(&e, 400, "invalid_request_error", NULL, NULL,
				    "There was an error parsing the body of your request: invalid JSON");
			else
				sim_error_set(&e, 400, "invalid_request_error", NULL, NULL,
				    "We could not parse the JSON body of your request. (HINT: This likely "
				    "means you aren't using your HTTP library correctly. The OpenAI API "
				    "expects a JSON payload, but what was sent was not valid JSON.)");
			return respond_error(&x, &e);
		}
	}
	if (x.route->inference && body != NULL && server_failing(&x, body))
		ret = respond_server_error(&x);
	else
		ret = x.route->serve(&x, body);
	cJSON_Delete(body);
	return ret;
}

/* A request is in hand from the handler's start until its answer is queued
 * (a prefill's wait included), which is what --log-timing counts. */
static enum MHD_Result
handle_counted(struct sim_server *srv, struct MHD_Connection *conn, struct sim_req *req,
    const char *method, const char *url)
{
	enum MHD_Result ret;

	atomic_fetch_add(&srv->inflight, 1);
	ret = handle(srv, conn, req, method, url);
	atomic_fetch_sub(&srv->inflight, 1);
	return ret;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct sim_server *srv = cls;
	struct sim_req *req = *con_cls;

	(void)version;
	if (req == NULL) {
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);

		req = xcalloc(1, sizeof *req);
		*con_cls = req;
		/* A declared body over the limit is refused before it is read; MHD
		 * discards the rest and closes the connection after the answer. */
		if (cl != NULL && strtoull(cl, NULL, 10) > (unsigned long long)srv->cfg->max_body) {
			req->too_big = 1;
			return handle_counted(srv, conn, req, method, url);
		}
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (!req->too_big && req->body.len + *upload_size > (size_t)srv->cfg->max_body) {
			req->too_big = 1;
			buf_free(&req->body);
		}
		if (!req->too_big)
			buf_add(&req->body, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	return handle_counted(srv, conn, req, method, url);
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct sim_req *req = *con_cls;

	(void)cls, (void)conn, (void)toe;
	if (req == NULL)
		return;
	buf_free(&req->body);
	free(req);
	*con_cls = NULL;
}

static void
server_free(struct sim_server *srv)
{
	pool_destroy(&srv->eng.pool);
	tokenizer_free(&srv->eng.tok);
	nb_free(&srv->nb);
	free(srv);
}

int
sim_server_start(struct sim_config *cfg, struct sim_server **out, char *url, size_t urlsz,
    struct aerr *err)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	struct sim_server *srv;
	const union MHD_DaemonInfo *info;
	char host[NI_MAXHOST];
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_ERROR_LOG;
	int rc;

	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(cfg->host, NULL, &hints, &ai);
	if (rc != 0)
		return aerr_set(err, AV_USAGE, "--host: %s: %s", cfg->host, gai_strerror(rc));
	if (ai->ai_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons((uint16_t)cfg->port);
	} else {
		((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)cfg->port);
	}
	getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof host, NULL, 0, NI_NUMERICHOST);

	srv = xcalloc(1, sizeof *srv);
	srv->cfg = cfg;
	srv->eng.cfg = cfg;
	if (pool_init(&srv->eng.pool, cfg->pool_tokens, cfg->page_size, cfg->prefix_cache,
	    cfg->seed, err) != 0) {
		freeaddrinfo(ai);
		free(srv);
		return err->code;
	}
	srv->eng.pool.newest = cfg->prefix_newest;
	srv->eng.pool.max_cached = (size_t)cfg->prefix_max;
	srv->eng.pool.displace = cfg->prefix_displace;
	srv->eng.pool.mask_digits = cfg->prefix_mask_digits;
	pool_slots_init(&srv->eng.pool, (size_t)cfg->prefix_slots);
	tokenizer_init(&srv->eng.tok, cfg->tokenizer);
	nb_init(&srv->nb, cfg);
	{
		/* TLS and the hostile modes' larger connection memory (a 10 MB header
		 * must fit in it) are options only some servers take. */
		struct MHD_OptionItem extra[] = {
			{ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			    cfg->hostile == HOSTILE_HUGE_HEADER ? (intptr_t)24 << 20 : 32 * 1024, NULL },
			{ cfg->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, cfg->tls_cert },
			{ cfg->tls_key ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, cfg->tls_key },
			{ MHD_OPTION_END, 0, NULL },
		};

		if (cfg->tls_cert != NULL) {
			if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
				freeaddrinfo(ai);
				server_free(srv);
				return aerr_set(err, AV_USAGE, "--tls-cert: this libmicrohttpd was built "
				    "without TLS");
			}
			flags |= MHD_USE_TLS;
		}
		srv->daemon = MHD_start_daemon(flags, (uint16_t)cfg->port, NULL, NULL, on_request, srv,
		    MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		    MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300,
		    MHD_OPTION_ARRAY, extra,
		    MHD_OPTION_END);
	}
	freeaddrinfo(ai);
	if (srv->daemon == NULL) {
		server_free(srv);
		return aerr_set(err, AV_RUNTIME, "cannot listen on %s port %lld", host,
		    (long long)cfg->port);
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(url, urlsz, strchr(host, ':') ? "%s://[%s]:%u" : "%s://%s:%u",
	    cfg->tls_cert ? "https" : "http", host, info ? (unsigned)info->port : (unsigned)cfg->port);
	*out = srv;
	return 0;
}

void
sim_server_stop(struct sim_server *srv)
{
	sim_hostile_stop();
	/* Requests waiting for pages would keep their threads, and MHD joins them. */
	pool_close(&srv->eng.pool);
	MHD_stop_daemon(srv->daemon);
	server_free(srv);
}
