/*
 * engine.c: the engine probe. It sends no prompt: it reads the serving
 * engine's own status API on every node of the endpoint (one GET per node per
 * status path, each kept as evidence) and computes what one request can hold
 * there (the KV cache pool, the per-slot context, the maximum total tokens)
 * against the context the endpoint advertises. A limit below it is
 * KV_POOL_BELOW_CONTEXT, critical on a node running disaggregated
 * prefill/decode; nodes of one role (prefill, decode, or neither) that disagree
 * on a figure, or any two nodes on the version, are ENGINE_NODES_DIFFER; a version
 * in an advisory's affected range is ENGINE_VERSION_AFFECTED. A node that cannot
 * be read (no answer, a refusal, a body without the fields, a field its version
 * does not serve) is an error for that node naming the field, never a pass: the
 * probe passes only when every node was read.
 *
 * Each figure is read with the meaning the engine's own code gives it (aivet(1),
 * "Engine fields", names the upstream files):
 *   sglang     GET /get_server_info (/server_info when that is 404): server
 *              args and scheduler info flat: max_total_num_tokens (the pool),
 *              context_length (null: the model's own, GET /v1/models max_model_len
 *              on those nodes, else max_req_input_len + 6, SGLang's
 *              min(context_len - 1, pool - 1) - 5 undone; judged too where it is
 *              tighter than pool and context),
 *              disaggregation_mode, page_size, chunked_prefill_size, version
 *   vllm       GET /metrics (vllm:cache_config_info, one line per engine: the
 *              pool is kv_cache_size_tokens, else num_gpu_blocks, the sum over the
 *              engines, divided by the lines, x block_size), /v1/models (max_model_len),
 *              /version (version)
 *   tgi        GET /info: max_total_tokens (the window: the context), the input
 *              limit (max_input_tokens, below the window by construction: said),
 *              max_batch_total_tokens (the pool, before 2.3.0 only), version
 *   llama.cpp  GET /props (default_generation_settings.n_ctx per slot,
 *              total_slots, build_info), /slots (the smallest slot's n_ctx),
 *              /v1/models (meta.n_ctx_train caps it)
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe-env.h"
#include "advisory.h"

#define MAX_PATHS 3

/* What a node's status says, each figure with the field it came from. */
struct engine_node {
	const char *url;
	int read;                     /* every path answered and the fields were there */
	char why[320];                /* why not, when not */
	int64_t pool, context, max_total;   /* -1: not served by this engine */
	const char *pool_field, *context_field, *max_total_field;
	int64_t input;                /* TGI's input limit: said, not judged (below the window by construction) */
	const char *input_field;
	int64_t engines;              /* vLLM: the engines behind the front end (data parallel) */
	char version[64], mode[32];   /* "" when not said */
	int64_t slots, page_size, chunked_prefill;
	int64_t evidence[MAX_PATHS];
	int nevidence;
	unsigned skipped;             /* optional paths the node did not serve */
};

struct engine_kind {
	const char *name, *package;   /* the package advisories name */
	const char *paths[MAX_PATHS];
	/* Paths a node may leave unserved (bit j for paths[j]: llama.cpp's --no-slots,
	 * vLLM's /version): said in the node's details, the node read without them. */
	unsigned optional;
	int (*read)(struct engine_node *n, cJSON *const *docs, const struct buf *const *bodies);
};

static int64_t
num_at(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e15 ?
	    (int64_t)v->valuedouble : -1;
}

static void
str_at(const cJSON *o, const char *key, char *out, size_t n)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));

	snprintf(out, n, "%s", s ? s : "");
}

static int
missing(struct engine_node *n, const char *path, const char *field)
{
	snprintf(n->why, sizeof n->why, "%s answered without %s", path, field);
	return -1;
}

/* SGLang's scheduler computes max_req_input_len = min(context_len - 1, pool - 1) - 5
 * (python/sglang/srt/managers/tp_worker.py; newer versions put the token pool's size
 * in place of max_total_num_tokens), so max_req_input_len + 6 is the least of the
 * model's context and the pool: the context one request may hold, in the same units
 * as the advertised context. */
#define SGLANG_INPUT_MARGIN 6

static int
read_sglang(struct engine_node *n, cJSON *const *d, const struct buf *const *b)
{
	int64_t input;

	(void)b;
	if ((n->pool = num_at(d[0], "max_total_num_tokens")) < 0)
		return missing(n, "the server info", "max_total_num_tokens");
	n->pool_field = "max_total_num_tokens";
	if ((input = num_at(d[0], "max_req_input_len")) < 0)
		return missing(n, "the server info", "max_req_input_len");
	/* context_length is the server argument: null when the model's own is used, which
	 * /v1/models serves as max_model_len; without it, SGLang's own arithmetic on
	 * max_req_input_len gives the context back. */
	if ((n->context = num_at(d[0], "context_length")) >= 0) {
		n->context_field = "context_length";
	} else if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d[0], "context_length"))) {
		return missing(n, "the server info", "context_length (a number or null)");
	} else if (d[1] != NULL) {
		n->context = num_at(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d[1], "data"), 0),
		    "max_model_len");
		if (n->context < 0)
			return missing(n, "/v1/models", "data[0].max_model_len");
		n->context_field = "/v1/models max_model_len";
	} else {
		n->context = input + SGLANG_INPUT_MARGIN;
		n->context_field = "max_req_input_len + 6";
	}
	/* What the scheduler lets one request hold, where it is tighter than both the pool
	 * and the context (a token pool smaller than max_total_num_tokens). */
	if (input + SGLANG_INPUT_MARGIN < n->pool && input + SGLANG_INPUT_MARGIN < n->context) {
		n->max_total = input + SGLANG_INPUT_MARGIN;
		n->max_total_field = "max_req_input_len + 6";
	}
	str_at(d[0], "version", n->version, sizeof n->version);
	str_at(d[0], "disaggregation_mode", n->mode, sizeof n->mode);
	if (strcmp(n->mode, "null") == 0)
		n->mode[0] = '\0';
	n->page_size = num_at(d[0], "page_size");
	n->chunked_prefill = num_at(d[0], "chunked_prefill_size");
	return 0;
}

/* A label's value in one Prometheus sample line: name{a="1",b="2"} 1.0. */
static int64_t
prom_label(const char *line, const char *label)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof key, "%s=\"", label);
	for (p = strstr(line, key); p != NULL; p = strstr(p + 1, key))
		if (p[-1] == '{' || p[-1] == ',' || p[-1] == ' ')
			break;
	if (p == NULL || !isdigit((unsigned char)p[strlen(key)]))
		return -1;
	return strtoll(p + strlen(key), NULL, 10);
}

/* vLLM's front end sums num_gpu_blocks over the engines it started (the READY
 * handshake, vllm/v1/engine/utils.py) and writes one vllm:cache_config_info line
 * per engine, each with that sum (vllm/v1/metrics/loggers.py, log_metrics_info):
 * one engine's pool is the sum divided by the lines. kv_cache_size_tokens, where
 * the version has it, is one engine's already. */
static int
read_vllm_pool(struct engine_node *n, const char *m)
{
	int64_t blocks = -1, bs = -1, tokens = -1, engines = 0;

	for (const char *p = m; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *l;

		if (strncmp(p, "vllm:cache_config_info{", 23) != 0)
			continue;
		l = strndup(p, strcspn(p, "\n"));
		if (engines++ == 0) {
			blocks = prom_label(l, "num_gpu_blocks");
			bs = prom_label(l, "block_size");
			tokens = prom_label(l, "kv_cache_size_tokens");
		} else if (prom_label(l, "num_gpu_blocks") != blocks || prom_label(l, "block_size") != bs) {
			/* Every line carries the one front end's config: lines that differ are not
			 * a shape vLLM writes, and no sum or share of them is taken. */
			free(l);
			snprintf(n->why, sizeof n->why, "/metrics answered with vllm:cache_config_info "
			    "lines that differ in num_gpu_blocks or block_size, which one front end does "
			    "not write: a shape not known");
			return -1;
		}
		free(l);
	}
	if (engines == 0)
		return missing(n, "/metrics", "vllm:cache_config_info");
	n->engines = engines;
	if (tokens >= 0) {
		n->pool = tokens;
		n->pool_field = "vllm:cache_config_info kv_cache_size_tokens";
	} else if (blocks >= 0 && bs > 0 && blocks < INT64_MAX / bs) {
		n->pool = blocks / engines * bs;   /* the mean, should engines differ */
		n->pool_field = engines > 1 ? "vllm:cache_config_info num_gpu_blocks / engines x block_size" :
		    "vllm:cache_config_info num_gpu_blocks x block_size";
	} else {
		return missing(n, "/metrics", "num_gpu_blocks and block_size in vllm:cache_config_info");
	}
	return 0;
}

static int
read_vllm(struct engine_node *n, cJSON *const *d, const struct buf *const *b)
{
	cJSON *first;

	if (read_vllm_pool(n, b[0]->data ? b[0]->data : "") != 0)
		return -1;
	first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d[1], "data"), 0);
	if ((n->context = num_at(first, "max_model_len")) < 0)
		return missing(n, "/v1/models", "data[0].max_model_len");
	n->context_field = "max_model_len";
	str_at(d[2], "version", n->version, sizeof n->version);
	return 0;
}

/* TGI's /info (router/src/lib.rs, struct Info): max_total_tokens is the window a
 * request's input and output share, the context to compare; the router refuses to
 * start unless max_input_tokens < max_total_tokens (backends/v3/src/main.rs), so
 * the input limit is below the window by construction and is said, not judged.
 * max_batch_total_tokens (the batch's pool) was served until 2.3.0. */
static int
read_tgi(struct engine_node *n, cJSON *const *d, const struct buf *const *b)
{
	int cmp = 0;

	(void)b;
	if ((n->context = num_at(d[0], "max_total_tokens")) < 0)
		return missing(n, "/info", "max_total_tokens");
	n->context_field = "max_total_tokens";
	if ((n->input = num_at(d[0], "max_input_tokens")) >= 0)
		n->input_field = "max_input_tokens";
	else if ((n->input = num_at(d[0], "max_input_length")) >= 0)
		n->input_field = "max_input_length";
	else
		return missing(n, "/info", "max_input_tokens or max_input_length");
	str_at(d[0], "version", n->version, sizeof n->version);
	if ((n->pool = num_at(d[0], "max_batch_total_tokens")) < 0)
		return 0;
	n->pool_field = "max_batch_total_tokens";
	/* A field the version does not serve is a shape not known here: not read as if it were. */
	if (n->version[0] == '\0' || osv_version_cmp(n->version, "2.3.0", &cmp) != 0) {
		snprintf(n->why, sizeof n->why, "/info answered with max_batch_total_tokens and a "
		    "version that cannot be placed before 2.3.0, which removed it (%s): a shape not known",
		    n->version[0] ? n->version : "no version");
		return -1;
	}
	if (cmp >= 0) {
		snprintf(n->why, sizeof n->why, "/info answered with max_batch_total_tokens, which "
		    "text-generation-inference %s does not serve (it was removed in 2.3.0): a shape "
		    "not known", n->version);
		return -1;
	}
	return 0;
}

/* llama.cpp's server gives each slot its share of -c, capped at the model's training
 * context (tools/server/server-context.cpp, load_model): what one request may hold is
 * the smallest slot's n_ctx, and never more than n_ctx_train where /v1/models says it. */
static int
read_llama(struct engine_node *n, cJSON *const *d, const struct buf *const *b)
{
	cJSON *s, *meta;
	int64_t train;

	(void)b;
	n->context = num_at(cJSON_GetObjectItemCaseSensitive(d[0], "default_generation_settings"),
	    "n_ctx");
	if (n->context < 0)
		return missing(n, "/props", "default_generation_settings.n_ctx");
	n->context_field = "default_generation_settings.n_ctx";
	n->slots = num_at(d[0], "total_slots");
	str_at(d[0], "build_info", n->version, sizeof n->version);
	/* Each slot holds its own context: the smallest is what a request may get (where
	 * /slots is served; without it, the default every slot is given). */
	if (d[1] != NULL && (!cJSON_IsArray(d[1]) || cJSON_GetArraySize(d[1]) == 0))
		return missing(n, "/slots", "a slot");
	cJSON_ArrayForEach(s, d[1]) {
		int64_t c = num_at(s, "n_ctx");

		if (c < 0)
			return missing(n, "/slots", "a slot's n_ctx");
		if (c < n->context) {
			n->context = c;
			n->context_field = "/slots n_ctx (the smallest slot)";
		}
	}
	if (d[2] == NULL)
		return 0;
	meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d[2],
	    "data"), 0), "meta");
	if (num_at(meta, "n_ctx") < 0)
		return missing(n, "/v1/models", "data[0].meta.n_ctx");
	if ((train = num_at(meta, "n_ctx_train")) < 0)
		return missing(n, "/v1/models", "data[0].meta.n_ctx_train");
	if (train < n->context) {
		n->context = train;
		n->context_field = "/v1/models meta.n_ctx_train";
	}
	return 0;
}

static const struct engine_kind kinds[] = {
	{ "sglang", "sglang", { "/get_server_info" }, 0, read_sglang },
	{ "vllm", "vllm", { "/metrics", "/v1/models", "/version" }, 1u << 2, read_vllm },
	{ "tgi", "text-generation-inference", { "/info" }, 0, read_tgi },
	{ "llama.cpp", "llama.cpp", { "/props", "/slots", "/v1/models" }, 1u << 1 | 1u << 2, read_llama },
};

static const struct engine_kind *
kind_of(const char *name)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (name != NULL && strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

static int
npaths(const struct engine_kind *k)
{
	int n = 0;

	while (n < MAX_PATHS && k->paths[n] != NULL)
		n++;
	return n;
}

static void
engine_plan(const struct probe_env *env, struct probe_plan *p)
{
	const struct engine_kind *k = kind_of(env->ep.engine.engine);

	/* No prompt, no tokens: a GET per node per status path. */
	p->requests = k != NULL ? (int64_t)env->ep.engine.n * npaths(k) : 0;
	p->tokens_in = p->tokens_out = 0;
	p->tokens_in_expected = 0;
}

static char *
join_url(const char *base, const char *path)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, base, path);
}

/* The GETs of every node, path by path (g[i * np + j]); sglang's newer name for
 * its server info is asked where the older one was not found, appended after
 * them, and idx[i * np + j] says which GET stands for the node's path; extra[i]
 * is node i's GET of /v1/models where SGLang's context_length is null (-1: none). */
struct engine_gets {
	struct px_get g[ENGINE_MAX_NODES * MAX_PATHS + 2 * ENGINE_MAX_NODES];
	char *urls[ENGINE_MAX_NODES * MAX_PATHS + 2 * ENGINE_MAX_NODES];
	int idx[ENGINE_MAX_NODES * MAX_PATHS];
	int extra[ENGINE_MAX_NODES];
	int n, np;
};

/* The bit of engine_node.skipped for SGLang's /v1/models, after the kind's paths. */
#define EXTRA_SKIPPED (1u << MAX_PATHS)

/* SGLang with context_length null serves the model's own context as /v1/models'
 * max_model_len (python/sglang/srt/entrypoints/http_server.py, available_models):
 * asked of those nodes only, after their server info was read. */
static int
send_sglang_models(struct probe_env *env, const char *secret, struct engine_gets *x)
{
	int first = x->n;

	for (int i = 0; i < env->ep.engine.n; i++) {
		struct px_get *g = &x->g[x->idx[i * x->np]];
		cJSON *d;

		if (g->r.cls != PXC_ANSWERED || (d = cJSON_ParseWithLength(g->body.data, g->body.len)) == NULL)
			continue;
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "context_length"))) {
			x->extra[i] = x->n;
			x->urls[x->n] = join_url(env->ep.engine.url[i], "/v1/models");
			x->g[x->n].url = x->urls[x->n];
			x->n++;
		}
		cJSON_Delete(d);
	}
	return x->n > first ? px_get(env, &x->g[first], (size_t)(x->n - first), secret) : 0;
}

static int
send_gets(struct probe_env *env, const struct engine_kind *k, const char *secret,
    struct engine_gets *x)
{
	int nn = env->ep.engine.n, first;

	x->np = npaths(k);
	for (int i = 0; i < nn; i++)
		x->extra[i] = -1;
	for (int i = 0; i < nn; i++)
		for (int j = 0; j < x->np; j++) {
			x->idx[i * x->np + j] = x->n;
			x->urls[x->n] = join_url(env->ep.engine.url[i], k->paths[j]);
			x->g[x->n].url = x->urls[x->n];
			x->n++;
		}
	if (px_get(env, x->g, (size_t)x->n, secret) != 0)
		return -1;
	if (strcmp(k->name, "sglang") != 0)
		return 0;
	first = x->n;
	for (int i = 0; i < nn; i++)
		if (x->g[x->idx[i * x->np]].r.status == 404) {
			/* The 404 stays recorded; the node is read from the newer path. */
			x->idx[i * x->np] = x->n;
			x->urls[x->n] = join_url(env->ep.engine.url[i], "/server_info");
			x->g[x->n].url = x->urls[x->n];
			x->n++;
		}
	if (x->n > first && px_get(env, &x->g[first], (size_t)(x->n - first), secret) != 0)
		return -1;
	return send_sglang_models(env, secret, x);
}

/* Why a GET of a node was not answered: its URL and status, and the credential
 * missing where an admin API refused a request sent without one. */
static void
say_unanswered(const struct px_get *g, struct engine_node *n, int has_credential)
{
	char d[256];

	if (n->why[0] != '\0')
		return;
	px_describe(&g->r, d, sizeof d);
	snprintf(n->why, sizeof n->why, "%s: %s%s", g->url, d, !has_credential &&
	    (g->r.status == 401 || g->r.status == 403) ? "; the endpoint has no engine "
	    "credential (--engine-credential)" : "");
}

/* SGLang's /v1/models, asked after the server info: refused (404), it is said as not
 * served and the context is read from max_req_input_len alone. */
static void
read_extra(struct px_get *g, struct engine_node *n, cJSON **doc, int has_credential)
{
	if (n->nevidence < MAX_PATHS)
		n->evidence[n->nevidence++] = g->r.evidence_id;
	if (g->r.cls == PXC_REFUSED_OTHER) {
		n->skipped |= EXTRA_SKIPPED;
		return;
	}
	if (g->r.cls != PXC_ANSWERED) {
		say_unanswered(g, n, has_credential);
		return;
	}
	if ((*doc = cJSON_ParseWithLength(g->body.data, g->body.len)) == NULL && n->why[0] == '\0')
		snprintf(n->why, sizeof n->why, "%s: HTTP %ld with a body that is not JSON", g->url,
		    g->r.status);
}

/* Node i from its GETs: every path answered, each body in the engine's shape. */
static void
read_node(const struct engine_kind *k, struct engine_gets *x, int i, struct engine_node *n,
    int has_credential)
{
	cJSON *docs[MAX_PATHS] = { NULL };
	const struct buf *bodies[MAX_PATHS] = { NULL };

	n->pool = n->context = n->max_total = n->slots = n->page_size = n->chunked_prefill = -1;
	n->input = n->engines = -1;
	for (int j = 0; j < x->np; j++) {
		struct px_get *g = &x->g[x->idx[i * x->np + j]];

		n->evidence[n->nevidence++] = g->r.evidence_id;
		bodies[j] = &g->body;
		/* An optional path refused (404, 501) is left out; anything else is not. */
		if ((k->optional & 1u << j) && g->r.cls == PXC_REFUSED_OTHER) {
			n->skipped |= 1u << j;
			continue;
		}
		if (g->r.cls != PXC_ANSWERED)
			say_unanswered(g, n, has_credential);
		/* vLLM's /metrics is Prometheus text; everything else is JSON. */
		if (g->r.cls == PXC_ANSWERED && strcmp(k->paths[j], "/metrics") != 0 &&
		    (docs[j] = cJSON_ParseWithLength(g->body.data, g->body.len)) == NULL &&
		    n->why[0] == '\0')
			snprintf(n->why, sizeof n->why, "%s: HTTP %ld with a body that is not JSON", g->url,
			    g->r.status);
	}
	if (x->extra[i] >= 0)
		read_extra(&x->g[x->extra[i]], n, &docs[x->np], has_credential);
	if (n->why[0] == '\0' && k->read(n, docs, bodies) == 0)
		n->read = 1;
	for (int j = 0; j < MAX_PATHS; j++)
		cJSON_Delete(docs[j]);
}

static void
json_add_num_or_null(cJSON *o, const char *k, int64_t v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, (double)v);
}

static int
disaggregated(const struct engine_node *n)
{
	return strcmp(n->mode, "prefill") == 0 || strcmp(n->mode, "decode") == 0;
}

/* One limit of what a request can hold against the advertised context. */
static void
judge_limit(struct probe_env *env, struct probe_outcome *out, int i, const struct engine_node *n,
    int64_t limit, const char *field, const char *what)
{
	char a[32], b[32];

	if (limit < 0 || limit >= env->ep.context_tokens)
		return;
	outcome_finding(out, F_KV_POOL_BELOW_CONTEXT, n->evidence[0], "node %d (%s): %s %s (%s) is "
	    "below the advertised context of %s tokens%s%s", i + 1, n->url, field, thousands(limit, a),
	    what, thousands(env->ep.context_tokens, b), disaggregated(n) ? "; the node runs disaggregated, "
	    "mode " : "", disaggregated(n) ? n->mode : "");
	for (int e = 1; e < n->nevidence; e++)
		outcome_finding(out, F_KV_POOL_BELOW_CONTEXT, n->evidence[e], "%s", "");
	if (disaggregated(n))
		for (int f = 0; f < out->nf; f++)
			if (out->f[f].info->id == F_KV_POOL_BELOW_CONTEXT)
				out->f[f].raised = SEV_CRITICAL;
}

static void
judge_capacity(struct probe_env *env, struct probe_outcome *out, int i, const struct engine_node *n)
{
	judge_limit(env, out, i, n, n->pool, n->pool_field, "the KV cache pool");
	judge_limit(env, out, i, n, n->context, n->context_field, "the context one request may hold");
	judge_limit(env, out, i, n, n->max_total, n->max_total_field, "the most tokens of one request");
}

static void
differ(struct probe_outcome *out, const struct engine_node *a, int ia, const struct engine_node *b,
    int ib, const char *what, const char *va, const char *vb)
{
	if (strcmp(va, vb) == 0)
		return;
	outcome_finding(out, F_ENGINE_NODES_DIFFER, a->evidence[0], "%s: node %d (%s) %s, node %d "
	    "(%s) %s", what, ia + 1, a->url, va[0] ? va : "none", ib + 1, b->url, vb[0] ? vb : "none");
	outcome_finding(out, F_ENGINE_NODES_DIFFER, b->evidence[0], "%s", "");
}

static const char *
num_text(int64_t v, char out[32])
{
	if (v < 0)
		snprintf(out, 32, "%s", "not served");
	else
		thousands(v, out);
	return out;
}

/* The first node read before node i in the same role (disaggregation mode), -1 for none. */
static int
first_in_role(const struct engine_node *n, int i)
{
	for (int f = 0; f < i; f++)
		if (n[f].read && strcmp(n[f].mode, n[i].mode) == 0)
			return f;
	return -1;
}

/* Every node read against the first node read in its role: a prefill node and a
 * decode node differ in pool and limits by design, so figures are compared within a
 * role (prefill with prefill, decode with decode); the version across all nodes. */
static void
judge_nodes_differ(struct probe_outcome *out, const struct engine_node *n, int nn)
{
	int v = -1;
	char a[32], b[32];

	for (int i = 0; i < nn; i++) {
		int f;

		if (!n[i].read)
			continue;
		if (v < 0) {
			v = i;
			continue;
		}
		if ((f = first_in_role(n, i)) >= 0) {
			differ(out, &n[f], f, &n[i], i, "KV cache pool", num_text(n[f].pool, a),
			    num_text(n[i].pool, b));
			differ(out, &n[f], f, &n[i], i, "context", num_text(n[f].context, a),
			    num_text(n[i].context, b));
			differ(out, &n[f], f, &n[i], i, "maximum total tokens", num_text(n[f].max_total, a),
			    num_text(n[i].max_total, b));
		}
		differ(out, &n[v], v, &n[i], i, "version", n[v].version, n[i].version);
	}
}

/* A node's version against the advisories (bundled and imported); a version no
 * range can be compared with is said in the node's details, never taken as safe. */
static void
judge_version(struct probe_env *env, struct probe_outcome *out, const struct engine_kind *k,
    int i, const struct engine_node *n, cJSON *nd)
{
	struct aerr e = { 0 };
	cJSON *hits = NULL, *h;
	int comparable = 0;

	if (n->version[0] == '\0') {
		cJSON_AddStringToObject(nd, "advisories", "not checked: the node reports no version");
		return;
	}
	if (advisory_affecting(env->db, k->package, n->version, &hits, &comparable, &e) != 0) {
		cJSON_AddStringToObject(nd, "advisories", e.msg);
		return;
	}
	if (!comparable)
		cJSON_AddStringToObject(nd, "advisories", "not checked: the version is not one an "
		    "advisory's range can be compared with");
	else
		cJSON_AddItemToObject(nd, "advisories", cJSON_Duplicate(hits, 1));
	cJSON_ArrayForEach(h, hits)
		outcome_finding(out, F_ENGINE_VERSION_AFFECTED, n->evidence[0], "node %d (%s): %s %s is "
		    "affected by %s (%s)%s%s", i + 1, n->url, k->package, n->version,
		    json_get_str(h, "id"), json_get_str(h, "summary"), json_get_str(h, "fixed") ?
		    "; fixed in " : "", json_get_str(h, "fixed") ? json_get_str(h, "fixed") : "");
	cJSON_Delete(hits);
}

static cJSON *
node_json(const struct engine_kind *k, const struct engine_node *n, const struct px_get *first)
{
	cJSON *o = cJSON_CreateObject(), *ev;

	cJSON_AddStringToObject(o, "url", n->url);
	cJSON_AddStringToObject(o, "verdict", n->read ? "read" : "error");
	json_add_str(o, "reason", n->read ? NULL : n->why);
	if (n->read) {
		json_add_num_or_null(o, "pool_tokens", n->pool);
		json_add_str(o, "pool_field", n->pool >= 0 ? n->pool_field : NULL);
		json_add_num_or_null(o, "context_tokens", n->context);
		json_add_str(o, "context_field", n->context >= 0 ? n->context_field : NULL);
		json_add_num_or_null(o, "max_total_tokens", n->max_total);
		json_add_str(o, "max_total_field", n->max_total >= 0 ? n->max_total_field : NULL);
		json_add_str(o, "version", n->version[0] ? n->version : NULL);
		json_add_str(o, "mode", n->mode[0] ? n->mode : NULL);
		if (n->input >= 0) {
			cJSON_AddNumberToObject(o, "input_tokens", (double)n->input);
			cJSON_AddStringToObject(o, "input_field", n->input_field);
		}
		if (n->engines >= 0)
			cJSON_AddNumberToObject(o, "engines", (double)n->engines);
		json_add_num_or_null(o, "slots", n->slots);
		json_add_num_or_null(o, "page_size", n->page_size);
		json_add_num_or_null(o, "chunked_prefill_size", n->chunked_prefill);
	}
	if (n->skipped) {
		cJSON *sk = cJSON_AddArrayToObject(o, "not_served");

		for (int j = 0; j < MAX_PATHS; j++)
			if (n->skipped & 1u << j)
				cJSON_AddItemToArray(sk, cJSON_CreateString(k->paths[j]));
		if (n->skipped & EXTRA_SKIPPED)
			cJSON_AddItemToArray(sk, cJSON_CreateString("/v1/models"));
	}
	cJSON_AddNumberToObject(o, "ms", first->total_ms);
	ev = cJSON_AddArrayToObject(o, "evidence");
	for (int e = 0; e < n->nevidence; e++)
		cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)n->evidence[e]));
	return o;
}

/* The verdict when no finding is it: every node read passes; an unread node is
 * an error, named. */
static void
engine_verdict(struct probe_env *env, struct probe_outcome *out, const struct engine_node *n, int nn)
{
	int bad = 0, first = -1;
	char c[32];

	for (int i = 0; i < nn; i++)
		if (!n[i].read && bad++ == 0)
			first = i;
	if (out->nf > 0 && bad == 0)
		return;
	/* With findings too, the error for an unread node is kept in the reason beside them. */
	if (bad > 0)
		outcome_set(out, "error", "%d of %d node%s could not be read, so their capacity is "
		    "unknown: node %d (%s): %s", bad, nn, nn == 1 ? "" : "s", first + 1, n[first].url,
		    n[first].why);
	else
		outcome_set(out, "pass", "every node (%d) holds the advertised context of %s tokens in "
		    "one request, and the nodes agree; no prompt was sent", nn,
		    thousands(env->ep.context_tokens, c));
}

/* What one request can hold on the smallest node, the least of its pool, context
 * and maximum total: "capacity_tokens", null unless every node was read (a node
 * not read could hold less). Claims compare a vendor's stated context with it. */
static void
capacity_json(cJSON *d, const struct engine_node *n, int nn)
{
	int64_t cap = -1;

	for (int i = 0; i < nn; i++) {
		int64_t lim[3] = { n[i].pool, n[i].context, n[i].max_total };

		if (!n[i].read) {
			cap = -1;
			break;
		}
		for (int k = 0; k < 3; k++)
			if (lim[k] >= 0 && (cap < 0 || lim[k] < cap))
				cap = lim[k];
	}
	json_add_num_or_null(d, "capacity_tokens", cap);
}

/* The engine admin API's credential, read as a tenant's is (credref_read: only
 * when the runner set it or allows it). */
static int
engine_secret(struct probe_env *env, const char *node_url, struct probe_outcome *out, char **secret,
    size_t *len)
{
	struct aerr e = { 0 };

	*secret = NULL;
	*len = 0;
	if (env->ep.engine.credential_ref == NULL)
		return 0;
	/* A rejudge sends nothing and holds no secret: the header it would carry is not
	 * part of what is judged. */
	if (px_replaying(env)) {
		*len = strlen("[replay]");
		if ((*secret = sodium_malloc(*len + 1)) == NULL)
			die("out of memory");
		memcpy(*secret, "[replay]", *len + 1);
		return 0;
	}
	if (credref_read(env->db, env->av->actor, env->ep.id, node_url, ENGINE_CRED_LABEL,
	    env->ep.engine.credential_ref, secret, len, &e) != 0) {
		outcome_set(out, "error", "the engine's credential: %s", e.msg);
		return -1;
	}
	return 0;
}

static void
engine_run(struct probe_env *env, struct probe_outcome *out)
{
	const struct engine_kind *k = kind_of(env->ep.engine.engine);
	struct engine_gets *x;
	struct engine_node *n;
	struct px_tally t = { 0 };
	int nn = env->ep.engine.n;
	char *secret = NULL;
	size_t slen = 0;
	cJSON *nodes;

	if (k == NULL || nn == 0) {
		outcome_set(out, "error", "no engine is set for this endpoint: give it one with 'aivet "
		    "endpoint edit %s/%s --engine sglang|vllm|tgi|llama.cpp --engine-url URL'",
		    env->ep.vendor, env->ep.name);
		return;
	}
	/* Read once, but only where its writer sent it: every node's URL is checked. */
	for (int i = 0; i < nn; i++) {
		char *s1;
		size_t l1;

		if (engine_secret(env, env->ep.engine.url[i], out, &s1, &l1) != 0) {
			if (i > 0)
				credref_free(secret, slen);
			return;
		}
		if (i == 0)
			secret = s1, slen = l1;
		else
			credref_free(s1, l1);
	}
	x = xcalloc(1, sizeof *x);
	n = xcalloc((size_t)nn, sizeof *n);
	if (send_gets(env, k, secret, x) == 0) {
		out->details = cJSON_CreateObject();
		cJSON_AddStringToObject(out->details, "engine", k->name);
		cJSON_AddNumberToObject(out->details, "advertised_context", (double)env->ep.context_tokens);
		cJSON_AddNumberToObject(out->details, "prompts_sent", 0);
		nodes = cJSON_AddArrayToObject(out->details, "nodes");
		for (int i = 0; i < nn; i++) {
			n[i].url = env->ep.engine.url[i];
			read_node(k, x, i, &n[i], env->ep.engine.credential_ref != NULL);
			if (n[i].read)
				judge_capacity(env, out, i, &n[i]);
			cJSON_AddItemToArray(nodes, node_json(k, &n[i], &x->g[x->idx[i * x->np]]));
		}
		judge_nodes_differ(out, n, nn);
		for (int i = 0; i < nn; i++)
			if (n[i].read)
				judge_version(env, out, k, i, &n[i], cJSON_GetArrayItem(nodes, i));
		for (int j = 0; j < x->n; j++) {
			int node = -1;

			for (int q = 0; q < nn * x->np && node < 0; q++)
				if (x->idx[q] == j)
					node = q / x->np;
			for (int q = 0; q < nn && node < 0; q++)
				if (x->extra[q] == j)
					node = q;
			px_tally_add(&t, &x->g[j].r, node >= 0 && n[node].read);
		}
		px_tally_json(&t, out->details);
		capacity_json(out->details, n, nn);
		engine_verdict(env, out, n, nn);
	}
	credref_free(secret, slen);
	px_get_free(x->g, (size_t)x->n);
	for (int j = 0; j < x->n; j++)
		free(x->urls[j]);
	free(x);
	free(n);
}

const struct probe probe_engine = {
	"engine", "the running engine: KV pool and context against the advertised context, every "
	"node, no prompt", engine_plan, engine_run, PROBE_NO_CALIBRATION | PROBE_NEEDS_ENGINE, 0, 0,
};
