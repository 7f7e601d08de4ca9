/*
 * provider.c: the table of provider adapters and what they share: loading
 * an endpoint's engine nodes, joining URLs, serialising bodies, reading a response that
 * may be JSON or a stream of server-sent events (or JSON where a stream was
 * asked for), and reading numbers at a path in a JSON tree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "provider.h"

extern const struct provider provider_openai, provider_anthropic, provider_azure,
    provider_gemini, provider_bedrock, provider_cloudflare;

const struct provider *const provider_table[] = {
	&provider_openai,
	&provider_anthropic,
	&provider_azure,
	&provider_gemini,
	&provider_bedrock,
	&provider_cloudflare,
	NULL
};

const struct provider *
provider_find(const char *api)
{
	for (int i = 0; provider_table[i] != NULL; i++)
		if (strcmp(provider_table[i]->api, api) == 0)
			return provider_table[i];
	return NULL;
}

const char *const engine_kinds[] = { "sglang", "vllm", "tgi", "llama.cpp", NULL };

void
engine_conf_free(struct engine_conf *c)
{
	free(c->engine);
	free(c->credential_ref);
	for (int i = 0; i < c->n; i++)
		free(c->url[i]);
	memset(c, 0, sizeof *c);
}

int
engine_conf_load(struct db *db, int64_t endpoint_id, struct engine_conf *c, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT engine, url, credential_ref FROM engine_node "
	    "WHERE endpoint_id = ? ORDER BY position", "i", endpoint_id);
	int rc;

	memset(c, 0, sizeof *c);
	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW && c->n < ENGINE_MAX_NODES) {
		if (c->engine == NULL) {
			c->engine = xstrdup(col_text(st, 0));
			if (db_col_type(st, 2) != DB_NULL)
				c->credential_ref = xstrdup(col_text(st, 2));
		}
		c->url[c->n++] = xstrdup(col_text(st, 1));
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE) {
		engine_conf_free(c);
		return db_err(db, err, "engine_node");
	}
	return 0;
}

void
prov_result_init(struct prov_result *r)
{
	memset(r, 0, sizeof *r);
	buf_init(&r->text);
	r->usage.in = r->usage.cached_in = r->usage.cache_write_in = -1;
	r->usage.out = r->usage.reasoning = -1;
	r->size_tokens = -1;
}

int64_t
prov_size_from_message(const char *msg)
{
	/* What precedes the count in each API's words. */
	static const char *const before[] = {
		"resulted in ",             /* OpenAI, Azure: "your messages resulted in M tokens" */
		"request has ",             /* vLLM: "your request has M input tokens" */
		"prompt (length ",          /* vLLM: "The decoder prompt (length M) is longer" */
		"prompt is too long: ",     /* Anthropic: "prompt is too long: M tokens > N maximum" */
		"request (",                /* llama.cpp: "request (M tokens) exceeds the available" */
		"given: ",                  /* TGI: "Given: M `inputs` tokens and K `max_new_tokens`" */
		"the input (",              /* SGLang: "The input (M tokens) is longer than" */
		"input length (",           /* SGLang: "Input length (M tokens) exceeds" */
		"input token count (",      /* Gemini: "The input token count (M) exceeds" */
		"you requested ",           /* Workers AI: "However, you requested M tokens." */
	};

	if (msg == NULL)
		return -1;
	for (size_t i = 0; i < sizeof before / sizeof *before; i++) {
		const char *at = strcasestr(msg, before[i]);
		char *end;
		long long v;

		if (at == NULL)
			continue;
		at += strlen(before[i]);
		if (*at < '0' || *at > '9')
			continue;
		v = strtoll(at, &end, 10);
		if (v > 0 && end != at)
			return (int64_t)v;
	}
	return -1;
}

void
prov_result_free(struct prov_result *r)
{
	buf_free(&r->text);
	cJSON_Delete(r->usage.raw);
	r->usage.raw = NULL;
}

/* The sum of the members present, or -1 when none is. */
static int64_t
usage_sum(cJSON *raw, const char *const *paths, size_t n)
{
	int64_t sum = -1;

	for (size_t i = 0; i < n; i++) {
		int64_t v = paths[i] != NULL ? json_path_int(raw, paths[i]) : -1;

		if (v >= 0)
			sum = (sum < 0 ? 0 : sum) + v;
	}
	return sum;
}

void
prov_read_usage(struct prov_result *r, cJSON *usage, const struct prov_usage_shape *shape)
{
	struct prov_usage *u = &r->usage;
	cJSON *m;

	if (!cJSON_IsObject(usage))
		return;
	/* A stream reports usage in parts (Anthropic: input at message_start, output at
	 * message_delta): a later member replaces the earlier one of the same name. */
	if (u->raw == NULL)
		u->raw = cJSON_CreateObject();
	cJSON_ArrayForEach(m, usage) {
		if (m->string == NULL || cJSON_IsNull(m))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(u->raw, m->string);
		cJSON_AddItemToObject(u->raw, m->string, cJSON_Duplicate(m, 1));
	}
	u->in = usage_sum(u->raw, shape->in, sizeof shape->in / sizeof *shape->in);
	u->out = usage_sum(u->raw, shape->out, sizeof shape->out / sizeof *shape->out);
	u->cached_in = shape->cached != NULL ? json_path_int(u->raw, shape->cached) : -1;
	u->cache_write_in = shape->cache_write != NULL ? json_path_int(u->raw, shape->cache_write) : -1;
	u->reasoning = shape->reasoning != NULL ? json_path_int(u->raw, shape->reasoning) : -1;
}

void
prov_set_error(struct prov_result *r, const char *msg)
{
	r->is_error = 1;
	if (r->error[0] == '\0')
		snprintf(r->error, sizeof r->error, "%s", msg && *msg ? msg : "(error without a message)");
}

int
prov_read_flat_error(cJSON *e, struct prov_result *r)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
	cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
	cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");

	if (!cJSON_IsString(m) && !cJSON_IsString(type) && !cJSON_IsNumber(code))
		return 0;
	prov_set_error(r, cJSON_IsString(m) ? m->valuestring : NULL);
	if (cJSON_IsString(type) && r->error_type[0] == '\0')
		snprintf(r->error_type, sizeof r->error_type, "%s", type->valuestring);
	if (cJSON_IsNumber(code) && code->valuedouble >= 100 && code->valuedouble < 600)
		r->error_code = (long)code->valuedouble;
	return 1;
}

/* An error event inside a stream that began with a 2xx is the stream failing,
 * classed by the event's own code and type as a response with that status
 * would be: a server error (5xx, server_error, overloaded) or a rate limit,
 * and a refusal for size only where a 4xx error says so (vLLM's length check
 * after the 200). It never reads as a refusal for policy or any other reason. */
static enum prov_refusal
stream_error_class(const struct prov_result *r)
{
	const char *type = r->error_type[0] ? r->error_type : NULL;
	enum prov_refusal why = r->refusal;

	if (r->error_code >= 500 || prov_refusal_guess(0, type, NULL) == PREF_SERVER)
		return PREF_SERVER;
	if (r->error_code == 429 || prov_refusal_guess(0, type, NULL) == PREF_RATE)
		return PREF_RATE;
	if (why == PREF_NONE && r->error_code >= 400)
		why = prov_refusal_guess(r->error_code, type, r->error);
	return why == PREF_SIZE || why == PREF_RATE ? why : PREF_SERVER;
}

static const char *const refusal_names[] = {
	"none", "size", "auth", "rate", "param", "not_found", "blocked", "server", "other",
};

const char *
prov_refusal_name(enum prov_refusal r)
{
	return (unsigned)r < sizeof refusal_names / sizeof *refusal_names ? refusal_names[r] : "other";
}

void
prov_set_refusal(struct prov_result *r, const char *type, enum prov_refusal why)
{
	if (type != NULL && r->error_type[0] == '\0')
		snprintf(r->error_type, sizeof r->error_type, "%s", type);
	r->refusal = why;
}

static int
contains_ci(const char *hay, const char *needle)
{
	return hay != NULL && strcasestr(hay, needle) != NULL;
}

enum prov_refusal
prov_refusal_guess(long status, const char *type, const char *message)
{
	static const char *const size_words[] = {
		"context_length", "context length", "context window", "too long", "too many tokens",
		"maximum context", "exceeds the context", "prompt is too long", "input is too long",
		"reduce the length", "max_model_len", "exceed_context_size", "maximum model length",
		"maximum number of tokens", "`inputs` tokens", NULL,
	};

	if (status == 413)
		return PREF_SIZE;
	if (status == 429 || contains_ci(type, "rate_limit") || contains_ci(type, "quota"))
		return PREF_RATE;
	if (status == 401 || status == 403 || contains_ci(type, "authentication") ||
	    contains_ci(type, "invalid_api_key") || contains_ci(type, "permission"))
		return PREF_AUTH;
	if (status == 404 || contains_ci(type, "not_found"))
		return PREF_NOT_FOUND;
	for (size_t i = 0; size_words[i] != NULL; i++)
		if (contains_ci(type, size_words[i]) || contains_ci(message, size_words[i]))
			return PREF_SIZE;
	if (status >= 500 || contains_ci(type, "overloaded") || contains_ci(type, "server_error"))
		return PREF_SERVER;
	if (contains_ci(type, "unsupported") || contains_ci(message, "unsupported parameter") ||
	    contains_ci(message, "not supported") ||
	    contains_ci(message, "unrecognized request argument") ||      /* Azure */
	    contains_ci(message, "extra inputs are not permitted") ||     /* pydantic servers */
	    contains_ci(message, "unknown parameter"))
		return PREF_PARAM;
	if (status >= 400 || type != NULL || message != NULL)
		return PREF_OTHER;
	return PREF_NONE;
}

const char *
prov_limit_field_refused(const struct prov_result *r, long status, const char *field)
{
	const char *other = strcmp(field, "max_tokens") == 0 ? "max_completion_tokens" : "max_tokens";
	const char *at, *at_other;

	if (status != 400 || !r->is_error || r->refusal != PREF_PARAM)
		return NULL;
	/* OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model.
	 * Use 'max_completion_tokens' instead." The field refused is named first. */
	at = strstr(r->error, field);
	at_other = strstr(r->error, other);
	return at != NULL && (at_other == NULL || at < at_other) ? other : NULL;
}

char *
url_join(const char *base, const char *path)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s%s", (int)n, base, *path == '/' ? "" : "/", path);
}

void
prov_set_json_body(struct http_req *req, cJSON *body)
{
	req->body = cJSON_PrintUnformatted(body);
	if (req->body == NULL)
		die("out of memory");
	req->body_len = strlen(req->body);
	cJSON_Delete(body);
	http_req_header(req, "Content-Type", "application/json", 0);
}

void
json_escape_append(struct buf *out, const char *s, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(out, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': buf_add(out, "\\\"", 2); break;
		case '\\': buf_add(out, "\\\\", 2); break;
		case '\b': buf_add(out, "\\b", 2); break;
		case '\f': buf_add(out, "\\f", 2); break;
		case '\n': buf_add(out, "\\n", 2); break;
		case '\r': buf_add(out, "\\r", 2); break;
		case '\t': buf_add(out, "\\t", 2); break;
		default:
			snprintf(esc, sizeof esc, "\\u%04x", c);
			buf_add(out, esc, 6);
		}
	}
	buf_add(out, s + run, n - run);
}

/* A body streamed from its recipe: the adapter's text around the prompt, in
 * parts, with the prompt generated and escaped between each two of them. */
struct recipe_body {
	char *text;                   /* the adapter's body, markers cut out */
	size_t *cut;                  /* part i is text[cut[i] .. cut[i + 1]) */
	size_t nparts;
	struct prompt_recipe recipe;
	struct prompt_stream ps;
	size_t part;                  /* the part being read, or the prompt after it */
	int in_prompt;
	size_t off;                   /* read offset in the current part or piece */
	struct buf piece, raw;        /* the current escaped prompt piece; its raw form */
	size_t limit, sent;           /* bytes to send in all; sent so far */
};

static void
rb_rewind(void *arg)
{
	struct recipe_body *b = arg;

	b->part = 0;
	b->in_prompt = 0;
	b->off = 0;
	b->sent = 0;
	b->piece.len = 0;
}

static size_t
rb_read(void *arg, char *dst, size_t n)
{
	struct recipe_body *b = arg;
	size_t done = 0;

	if (n > b->limit - b->sent)
		n = b->limit - b->sent;
	while (done < n && b->part < b->nparts) {
		const char *data = b->in_prompt ? b->piece.data : b->text + b->cut[b->part];
		size_t len = b->in_prompt ? b->piece.len : b->cut[b->part + 1] - b->cut[b->part];
		size_t k;

		if (b->off == len) {
			b->off = 0;
			if (!b->in_prompt) {
				/* A part done: the prompt follows every part but the last. */
				if (++b->part == b->nparts)
					break;
				b->in_prompt = 1;
				b->piece.len = 0;
				prompt_stream_init(&b->ps, &b->recipe);
				continue;
			}
			/* The next piece: generated, then escaped (the filler needs "\n" only). */
			b->raw.len = 0;
			b->piece.len = 0;
			if (prompt_stream_next(&b->ps, &b->raw))
				json_escape_append(&b->piece, b->raw.data, b->raw.len);
			else
				b->in_prompt = 0;
			continue;
		}
		k = len - b->off < n - done ? len - b->off : n - done;
		memcpy(dst + done, data + b->off, k);
		b->off += k;
		done += k;
	}
	b->sent += done;
	return done;
}

static void
rb_free(void *arg)
{
	struct recipe_body *b = arg;

	free(b->text);
	free(b->cut);
	buf_free(&b->piece);
	buf_free(&b->raw);
	free(b);
}

int
prov_body_from_recipe(struct http_req *req, const char *marker, const struct prompt_recipe *r,
    int half, size_t keep, struct aerr *err)
{
	size_t mlen = strlen(marker), total = 0, n, k = 0;
	struct recipe_body *b;
	crypto_hash_sha256_state st;
	unsigned char h[crypto_hash_sha256_BYTES];
	char chunk[16384];
	const char *p;

	(void)err;
	if (req->body == NULL || strstr(req->body, marker) == NULL) {
		if (half && req->body != NULL)
			req->body_len /= 2, req->body[req->body_len] = '\0';
		return 0;
	}
	b = xcalloc(1, sizeof *b);
	b->text = xmalloc(req->body_len + 1);
	b->cut = xcalloc(req->body_len / mlen + 2, sizeof *b->cut);
	/* The body's text without its markers; cut[] marks where each marker was. */
	for (p = req->body;; p += mlen) {
		const char *at = strstr(p, marker);
		size_t len = at ? (size_t)(at - p) : strlen(p);

		memcpy(b->text + k, p, len);
		k += len;
		b->cut[++b->nparts] = k;
		if (at == NULL)
			break;
		p = at;
	}
	b->recipe = *r;
	buf_init(&b->piece);
	buf_init(&b->raw);
	b->limit = SIZE_MAX;
	req->src = xcalloc(1, sizeof *req->src);
	*req->src = (struct http_body_src){ rb_read, rb_rewind, rb_free, b };
	free(req->body);
	req->body = NULL;
	if (req->by_recipe) {
		req->body_len = 0;
		return 0;
	}
	/* One pass for the length (and the hash of a whole body), one more for half a body. */
	for (int pass = 0; pass < 1 + (half != 0); pass++) {
		crypto_hash_sha256_init(&st);
		rb_rewind(b);
		total = 0;
		while ((n = rb_read(b, chunk, sizeof chunk)) > 0) {
			crypto_hash_sha256_update(&st, (const unsigned char *)chunk, n);
			total += n;
		}
		if (half && pass == 0)
			b->limit = total / 2;
	}
	crypto_hash_sha256_final(&st, h);
	sodium_bin2hex(req->body_sha256, sizeof req->body_sha256, h, sizeof h);
	req->body_len = total;
	rb_rewind(b);
	if (total <= keep)
		http_req_materialize(req);
	return 0;
}

cJSON *
prov_user_messages(const struct prov_chat *c)
{
	cJSON *msgs = cJSON_CreateArray(), *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddItemToObject(m, "content", cJSON_CreateStringReference(c->prompt));
	cJSON_AddItemToArray(msgs, m);
	return msgs;
}

cJSON *
json_path(cJSON *o, const char *path)
{
	char key[64];

	while (o != NULL && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (cJSON_IsArray(o) && key[0] >= '0' && key[0] <= '9')
			o = cJSON_GetArrayItem(o, atoi(key));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += n + (path[n] == '.');
	}
	return o;
}

int64_t
json_path_int(cJSON *o, const char *path)
{
	cJSON *v = json_path(o, path);

	/* A vendor may send any number: one no token count can be (negative, or
	 * beyond 2^53 where a double stops counting) is no count at all, and
	 * converting it to an integer would be undefined. */
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0 ?
	    (int64_t)v->valuedouble : -1;
}

struct stream_ctx {
	const struct provider *p;
	struct prov_result *r;
	int events;
};

static void
on_event(void *arg, const char *event, const char *data)
{
	struct stream_ctx *s = arg;

	s->events++;
	s->p->stream_event(event, data, s->r);
}

static int
looks_like_sse(const char *body, size_t len)
{
	size_t i = 0;

	while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
		i++;
	return i < len && body[i] != '{' && body[i] != '[';
}

void
provider_read(const struct provider *p, int stream, const char *body, size_t len, long status,
    struct prov_result *r)
{
	cJSON *j;

	if (stream && p->can_stream && looks_like_sse(body, len)) {
		struct stream_ctx s = { p, r, 0 };

		sse_parse(body, len, on_event, &s);
		r->parsed = s.events > 0;
		if (r->stream_error && status >= 200 && status < 300) {
			r->is_error = 1;
			r->refusal = stream_error_class(r);
		}
	} else if ((j = cJSON_ParseWithLength(body, len)) != NULL) {
		if (stream)
			r->stream_as_json = 1;
		p->parse(j, status, r);
		cJSON_Delete(j);
	}
	if (r->refusal == PREF_NONE && (r->is_error || status < 200 || status >= 300))
		r->refusal = prov_refusal_guess(status, r->error_type[0] ? r->error_type : NULL,
		    r->is_error ? r->error : NULL);
	if (r->refusal == PREF_SIZE && r->size_tokens < 0)
		r->size_tokens = prov_size_from_message(r->error);
}
