/*
 * sim-api.c: the wire shapes aivet-sim copies from the real APIs (see
 * vendor-apis.md in the project's reference notes): OpenAI chat completions
 * and Anthropic messages requests, their response and usage fields, their
 * server-sent event sequences and their error bodies. Everything here is
 * built and read with cJSON; nothing here knows about HTTP or KV pages.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void
sim_error_set(struct sim_error *e, int status, const char *type, const char *code,
    const char *param, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	snprintf(e->type, sizeof e->type, "%s", type);
	snprintf(e->code, sizeof e->code, "%s", code ? code : "");
	snprintf(e->param, sizeof e->param, "%s", param ? param : "");
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
}

cJSON *
api_error_body(enum sim_api api, const struct sim_error *e, const char *request_id)
{
	cJSON *root = cJSON_CreateObject(), *err;

	if (api == API_ANTHROPIC) {
		cJSON_AddStringToObject(root, "type", "error");
		err = cJSON_AddObjectToObject(root, "error");
		cJSON_AddStringToObject(err, "type", e->type);
		cJSON_AddStringToObject(err, "message", e->message);
		if (request_id != NULL)
			cJSON_AddStringToObject(root, "request_id", request_id);
		return root;
	}
	err = cJSON_AddObjectToObject(root, "error");
	cJSON_AddStringToObject(err, "message", e->message);
	cJSON_AddStringToObject(err, "type", e->type);
	json_add_str(err, "param", e->param[0] ? e->param : NULL);
	json_add_str(err, "code", e->code[0] ? e->code : NULL);
	return root;
}

void
api_context_error(enum sim_api api, size_t n, size_t limit, struct sim_error *e)
{
	if (api == API_ANTHROPIC)
		sim_error_set(e, 400, "invalid_request_error", NULL, NULL,
		    "prompt is too long: %zu tokens > %zu maximum", n, limit);
	else
		sim_error_set(e, 400, "invalid_request_error", "context_length_exceeded", "messages",
		    "This model's maximum context length is %zu tokens. However, your messages "
		    "resulted in %zu tokens. Please reduce the length of the messages.", limit, n);
}

void
sim_chat_free(struct sim_chat *c)
{
	buf_free(&c->prompt);
}

/* "a string", "an array", ... as OpenAI's invalid_type messages say it. */
static const char *
json_kind(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	return "null";
}

static int
is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble == (double)(int64_t)v->valuedouble;
}

/* Appends a message's content: a string, or an array of {"type":"text","text":...}
 * blocks (other block types carry no text here). Returns -1 for anything else. */
static int
add_content(struct buf *out, const cJSON *content)
{
	const cJSON *part;

	if (cJSON_IsString(content)) {
		buf_adds(out, content->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(content))
		return -1;
	cJSON_ArrayForEach(part, content) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(part, "type");
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");

		if (!cJSON_IsString(type))
			return -1;
		if (strcmp(type->valuestring, "text") != 0)
			continue;
		if (!cJSON_IsString(text))
			return -1;
		buf_adds(out, text->valuestring);
	}
	return 0;
}

/* The chat template both APIs share: "ROLE: CONTENT\n" per message. */
static void
template_open(struct buf *out, const char *role)
{
	buf_adds(out, role);
	buf_add(out, ": ", 2);
}

static int
openai_messages(const cJSON *body, struct sim_chat *c, struct sim_error *e)
{
	static const char *const roles[] = { "system", "developer", "user", "assistant", "tool",
		"function", NULL };
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m;
	int i = 0;

	if (msgs == NULL) {
		sim_error_set(e, 400, "invalid_request_error", "missing_required_parameter", "messages",
		    "Missing required parameter: 'messages'.");
		return -1;
	}
	if (!cJSON_IsArray(msgs)) {
		sim_error_set(e, 400, "invalid_request_error", "invalid_type", "messages",
		    "Invalid type for 'messages': expected an array, but got %s instead.", json_kind(msgs));
		return -1;
	}
	if (cJSON_GetArraySize(msgs) == 0) {
		sim_error_set(e, 400, "invalid_request_error", "empty_array", "messages",
		    "Invalid 'messages': empty array. Expected an array with minimum length 1, "
		    "but got an empty array instead.");
		return -1;
	}
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		char param[64];
		int known = 0;

		snprintf(param, sizeof param, "messages[%d].role", i);
		if (!cJSON_IsObject(m)) {
			snprintf(param, sizeof param, "messages[%d]", i);
			sim_error_set(e, 400, "invalid_request_error", "invalid_type", param,
			    "Invalid type for '%s': expected an object, but got %s instead.", param,
			    json_kind(m));
			return -1;
		}
		if (!cJSON_IsString(role)) {
			sim_error_set(e, 400, "invalid_request_error", "missing_required_parameter", param,
			    "Missing required parameter: '%s'.", param);
			return -1;
		}
		for (int r = 0; roles[r] != NULL; r++)
			known |= strcmp(roles[r], role->valuestring) == 0;
		if (!known) {
			sim_error_set(e, 400, "invalid_request_error", "invalid_value", param,
			    "Invalid value: '%.100s'. Supported values are: 'system', 'assistant', 'user', "
			    "'function', 'tool', and 'developer'.", role->valuestring);
			return -1;
		}
		snprintf(param, sizeof param, "messages[%d].content", i);
		if (content == NULL) {
			sim_error_set(e, 400, "invalid_request_error", "missing_required_parameter", param,
			    "Missing required parameter: '%s'.", param);
			return -1;
		}
		template_open(&c->prompt, role->valuestring);
		if (add_content(&c->prompt, content) != 0) {
			sim_error_set(e, 400, "invalid_request_error", "invalid_type", param,
			    "Invalid type for '%s': expected one of a string or array of objects, "
			    "but got %s instead.", param, json_kind(content));
			return -1;
		}
		buf_add(&c->prompt, "\n", 1);
		i++;
	}
	return 0;
}

int
api_parse_openai(const cJSON *body, struct sim_chat *c, struct sim_error *e)
{
	const cJSON *model, *v, *opts;
	const char *mt = "max_completion_tokens";

	memset(c, 0, sizeof *c);
	c->max_tokens = 4096;
	if (!cJSON_IsObject(body)) {
		sim_error_set(e, 400, "invalid_request_error", "invalid_type", NULL,
		    "Invalid type for request body: expected an object, but got %s instead.",
		    json_kind(body));
		return -1;
	}
	model = cJSON_GetObjectItemCaseSensitive(body, "model");
	if (model == NULL) {
		sim_error_set(e, 400, "invalid_request_error", NULL, NULL,
		    "you must provide a model parameter");
		return -1;
	}
	if (!cJSON_IsString(model)) {
		sim_error_set(e, 400, "invalid_request_error", "invalid_type", "model",
		    "Invalid type for 'model': expected a string, but got %s instead.", json_kind(model));
		return -1;
	}
	snprintf(c->model, sizeof c->model, "%s", model->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(body, mt);
	if (v == NULL)
		v = cJSON_GetObjectItemCaseSensitive(body, mt = "max_tokens");
	if (v != NULL && !cJSON_IsNull(v)) {
		if (!is_integer(v)) {
			sim_error_set(e, 400, "invalid_request_error", "invalid_type", mt,
			    "Invalid type for '%s': expected an integer, but got %s instead.", mt,
			    json_kind(v));
			return -1;
		}
		if (v->valuedouble < 1) {
			sim_error_set(e, 400, "invalid_request_error", "integer_below_min_value", mt,
			    "Invalid '%s': integer below minimum value. Expected a value >= 1, but got "
			    "%.0f instead.", mt, v->valuedouble);
			return -1;
		}
		c->max_tokens = v->valuedouble > 1e12 ? (size_t)1e12 : (size_t)v->valuedouble;
	}
	v = cJSON_GetObjectItemCaseSensitive(body, "stream");
	if (v != NULL && !cJSON_IsNull(v) && !cJSON_IsBool(v)) {
		sim_error_set(e, 400, "invalid_request_error", "invalid_type", "stream",
		    "Invalid type for 'stream': expected a boolean, but got %s instead.", json_kind(v));
		return -1;
	}
	c->stream = cJSON_IsTrue(v);
	opts = cJSON_GetObjectItemCaseSensitive(body, "stream_options");
	if (opts != NULL && !cJSON_IsNull(opts)) {
		if (!c->stream) {
			sim_error_set(e, 400, "invalid_request_error", NULL, "stream_options",
			    "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
			return -1;
		}
		c->include_usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opts, "include_usage"));
	}
	if (openai_messages(body, c, e) != 0) {
		sim_chat_free(c);
		return -1;
	}
	return 0;
}

/* Anthropic's validation messages: "FIELD: PROBLEM". */
static int
anthropic_field_error(struct sim_error *e, const char *field, const char *problem)
{
	sim_error_set(e, 400, "invalid_request_error", NULL, NULL, "%s: %s", field, problem);
	return -1;
}

static int
anthropic_body(const cJSON *body, int count_only, struct sim_chat *c, struct sim_error *e)
{
	const cJSON *model, *v, *msgs, *m, *system;
	int i = 0;

	if (!cJSON_IsObject(body))
		return anthropic_field_error(e, "body", "Input should be a valid dictionary");
	model = cJSON_GetObjectItemCaseSensitive(body, "model");
	if (model == NULL)
		return anthropic_field_error(e, "model", "Field required");
	if (!cJSON_IsString(model))
		return anthropic_field_error(e, "model", "Input should be a valid string");
	snprintf(c->model, sizeof c->model, "%s", model->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(body, "max_tokens");
	if (v == NULL && !count_only)
		return anthropic_field_error(e, "max_tokens", "Field required");
	if (v != NULL) {
		if (!is_integer(v))
			return anthropic_field_error(e, "max_tokens", "Input should be a valid integer");
		if (v->valuedouble < 1)
			return anthropic_field_error(e, "max_tokens", "Input should be greater than or equal to 1");
		c->max_tokens = v->valuedouble > 1e12 ? (size_t)1e12 : (size_t)v->valuedouble;
	}
	v = cJSON_GetObjectItemCaseSensitive(body, "stream");
	if (v != NULL && !cJSON_IsBool(v))
		return anthropic_field_error(e, "stream", "Input should be a valid boolean");
	c->stream = cJSON_IsTrue(v);
	system = cJSON_GetObjectItemCaseSensitive(body, "system");
	if (system != NULL) {
		template_open(&c->prompt, "system");
		if (add_content(&c->prompt, system) != 0)
			return anthropic_field_error(e, "system", "Input should be a valid string or list");
		buf_add(&c->prompt, "\n", 1);
	}
	msgs = cJSON_GetObjectItemCaseSensitive(body, "messages");
	if (msgs == NULL)
		return anthropic_field_error(e, "messages", "Field required");
	if (!cJSON_IsArray(msgs))
		return anthropic_field_error(e, "messages", "Input should be a valid list");
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		char field[64];

		snprintf(field, sizeof field, "messages.%d", i);
		if (!cJSON_IsObject(m))
			return anthropic_field_error(e, field, "Input should be a valid dictionary");
		snprintf(field, sizeof field, "messages.%d.role", i);
		if (role == NULL)
			return anthropic_field_error(e, field, "Field required");
		if (!cJSON_IsString(role) || (strcmp(role->valuestring, "user") != 0 &&
		    strcmp(role->valuestring, "assistant") != 0))
			return anthropic_field_error(e, field, "Input should be 'user' or 'assistant'");
		snprintf(field, sizeof field, "messages.%d.content", i);
		if (content == NULL)
			return anthropic_field_error(e, field, "Field required");
		template_open(&c->prompt, role->valuestring);
		if (add_content(&c->prompt, content) != 0)
			return anthropic_field_error(e, field, "Input should be a valid string or list");
		buf_add(&c->prompt, "\n", 1);
		i++;
	}
	if (i == 0)
		return anthropic_field_error(e, "messages", "at least one message is required");
	return 0;
}

int
api_parse_anthropic(const cJSON *body, int count_only, struct sim_chat *c, struct sim_error *e)
{
	memset(c, 0, sizeof *c);
	if (anthropic_body(body, count_only, c, e) != 0) {
		sim_chat_free(c);
		return -1;
	}
	return 0;
}

int
api_parse_tokenize(const cJSON *body, struct sim_chat *c, struct sim_error *e)
{
	const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(body, "prompt");

	memset(c, 0, sizeof *c);
	if (cJSON_IsString(prompt)) {
		buf_adds(&c->prompt, prompt->valuestring);
		return 0;
	}
	if (prompt == NULL && cJSON_GetObjectItemCaseSensitive(body, "messages") != NULL) {
		if (openai_messages(body, c, e) == 0)
			return 0;
		sim_chat_free(c);
		return -1;
	}
	sim_error_set(e, 400, "BadRequestError", NULL, prompt ? "prompt" : NULL,
	    prompt ? "'prompt' must be a string" : "Either 'prompt' or 'messages' is required.");
	e->status = 400;
	return -1;
}

/* ---- responses ---- */

static void
openai_usage(cJSON *o, const struct sim_result *r)
{
	cJSON *u = cJSON_AddObjectToObject(o, "usage"), *d;

	cJSON_AddNumberToObject(u, "prompt_tokens", (double)r->prompt_tokens);
	cJSON_AddNumberToObject(u, "completion_tokens", (double)r->completion_tokens);
	cJSON_AddNumberToObject(u, "total_tokens", (double)(r->prompt_tokens + r->completion_tokens));
	if (r->usage_cached) {
		d = cJSON_AddObjectToObject(u, "prompt_tokens_details");
		cJSON_AddNumberToObject(d, "cached_tokens", (double)r->cached_tokens);
	}
}

/* Anthropic's input_tokens leaves out what the prompt cache served, reported
 * beside it as cache_read_input_tokens (shown when the cache served any). */
static void
anthropic_input_usage(cJSON *u, const struct sim_result *r)
{
	int split = r->usage_cached && r->cached_tokens > 0;

	cJSON_AddNumberToObject(u, "input_tokens", (double)(r->prompt_tokens -
	    (split ? r->cached_tokens : 0)));
	if (split) {
		cJSON_AddNumberToObject(u, "cache_creation_input_tokens", 0);
		cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)r->cached_tokens);
	}
}

static cJSON *
openai_base(const struct sim_result *r, const char *object)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "object", object);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	cJSON_AddStringToObject(o, "model", r->model);
	return o;
}

static const char *
finish_reason(enum sim_api api, const struct sim_result *r)
{
	if (api == API_ANTHROPIC)
		return r->cut ? "max_tokens" : "end_turn";
	return r->cut ? "length" : "stop";
}

cJSON *
api_completion_body(enum sim_api api, const struct sim_result *r)
{
	cJSON *o, *a, *c, *m;

	if (api == API_ANTHROPIC) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "type", "message");
		cJSON_AddStringToObject(o, "role", "assistant");
		cJSON_AddStringToObject(o, "model", r->model);
		a = cJSON_AddArrayToObject(o, "content");
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "type", "text");
		cJSON_AddStringToObject(c, "text", r->text);
		cJSON_AddItemToArray(a, c);
		cJSON_AddStringToObject(o, "stop_reason", finish_reason(api, r));
		cJSON_AddNullToObject(o, "stop_sequence");
		if (r->usage) {
			m = cJSON_AddObjectToObject(o, "usage");
			anthropic_input_usage(m, r);
			cJSON_AddNumberToObject(m, "output_tokens", (double)r->completion_tokens);
		}
		return o;
	}
	o = openai_base(r, "chat.completion");
	a = cJSON_AddArrayToObject(o, "choices");
	c = cJSON_CreateObject();
	cJSON_AddNumberToObject(c, "index", 0);
	m = cJSON_AddObjectToObject(c, "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddStringToObject(m, "content", r->text);
	cJSON_AddStringToObject(c, "finish_reason", finish_reason(api, r));
	cJSON_AddItemToArray(a, c);
	if (r->usage)
		openai_usage(o, r);
	return o;
}

/* "event: NAME\n" (Anthropic only) then "data: JSON\n\n"; frees v. */
static void
sse(struct buf *out, const char *event, cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);

	if (s == NULL)
		die("out of memory");
	if (event != NULL)
		buf_printf(out, "event: %s\n", event);
	buf_printf(out, "data: %s\n\n", s);
	free(s);
	cJSON_Delete(v);
}

/* An OpenAI chunk with one choice holding delta; finish may be NULL. */
static void
openai_chunk(struct buf *out, const struct sim_result *r, cJSON *delta, const char *finish)
{
	cJSON *o = openai_base(r, "chat.completion.chunk");
	cJSON *a = cJSON_AddArrayToObject(o, "choices"), *c = cJSON_CreateObject();

	cJSON_AddNumberToObject(c, "index", 0);
	cJSON_AddItemToObject(c, "delta", delta);
	json_add_str(c, "finish_reason", finish);
	cJSON_AddItemToArray(a, c);
	if (r->include_usage && r->usage)
		cJSON_AddNullToObject(o, "usage");
	sse(out, NULL, o);
}

static cJSON *
typed(const char *type)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", type);
	return o;
}

void
api_stream_open(enum sim_api api, const struct sim_result *r, struct buf *out)
{
	cJSON *o, *m, *u, *b;

	if (api == API_OPENAI) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "role", "assistant");
		cJSON_AddStringToObject(o, "content", "");
		openai_chunk(out, r, o, NULL);
		return;
	}
	o = typed("message_start");
	m = cJSON_AddObjectToObject(o, "message");
	cJSON_AddStringToObject(m, "id", r->id);
	cJSON_AddStringToObject(m, "type", "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddStringToObject(m, "model", r->model);
	cJSON_AddArrayToObject(m, "content");
	cJSON_AddNullToObject(m, "stop_reason");
	cJSON_AddNullToObject(m, "stop_sequence");
	if (r->usage) {
		u = cJSON_AddObjectToObject(m, "usage");
		anthropic_input_usage(u, r);
		cJSON_AddNumberToObject(u, "output_tokens", 1);
	}
	sse(out, "message_start", o);
	o = typed("content_block_start");
	cJSON_AddNumberToObject(o, "index", 0);
	b = cJSON_AddObjectToObject(o, "content_block");
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", "");
	sse(out, "content_block_start", o);
	sse(out, "ping", typed("ping"));
}

void
api_stream_token(enum sim_api api, const struct sim_result *r, const char *piece, size_t n,
    struct buf *out)
{
	char *text = xmalloc(n + 1);
	cJSON *o, *d;

	memcpy(text, piece, n);
	text[n] = '\0';
	if (api == API_OPENAI) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "content", text);
		openai_chunk(out, r, o, NULL);
	} else {
		o = typed("content_block_delta");
		cJSON_AddNumberToObject(o, "index", 0);
		d = cJSON_AddObjectToObject(o, "delta");
		cJSON_AddStringToObject(d, "type", "text_delta");
		cJSON_AddStringToObject(d, "text", text);
		sse(out, "content_block_delta", o);
	}
	free(text);
}

void
api_stream_close(enum sim_api api, const struct sim_result *r, struct buf *out)
{
	cJSON *o, *d, *u;

	if (api == API_OPENAI) {
		openai_chunk(out, r, cJSON_CreateObject(), finish_reason(api, r));
		if (r->include_usage && r->usage) {
			o = openai_base(r, "chat.completion.chunk");
			cJSON_AddArrayToObject(o, "choices");
			openai_usage(o, r);
			sse(out, NULL, o);
		}
		buf_adds(out, "data: [DONE]\n\n");
		return;
	}
	o = typed("content_block_stop");
	cJSON_AddNumberToObject(o, "index", 0);
	sse(out, "content_block_stop", o);
	o = typed("message_delta");
	d = cJSON_AddObjectToObject(o, "delta");
	cJSON_AddStringToObject(d, "stop_reason", finish_reason(api, r));
	cJSON_AddNullToObject(d, "stop_sequence");
	if (r->usage) {
		u = cJSON_AddObjectToObject(o, "usage");
		cJSON_AddNumberToObject(u, "output_tokens", (double)r->completion_tokens);
	}
	sse(out, "message_delta", o);
	sse(out, "message_stop", typed("message_stop"));
}

void
api_stream_error(enum sim_api api, struct buf *out)
{
	struct sim_error e;

	if (api == API_ANTHROPIC) {
		sim_error_set(&e, 529, "overloaded_error", NULL, NULL, "Overloaded");
		sse(out, "error", api_error_body(api, &e, NULL));
		return;
	}
	sim_error_set(&e, 500, "server_error", NULL, NULL,
	    "The server had an error while processing your request. Sorry about that!");
	sse(out, NULL, api_error_body(api, &e, NULL));
}

/* llama.cpp's server reports a failed slot as {"error":{"code":500,...}}, a
 * numeric code and no param; Anthropic's 500 is an api_error. */
cJSON *
api_busy_body(enum sim_api api, const char *request_id)
{
	struct sim_error e;
	cJSON *root, *err;

	if (api == API_ANTHROPIC) {
		sim_error_set(&e, 500, "api_error", NULL, NULL, "%s", SIM_BUSY_MESSAGE);
		return api_error_body(api, &e, request_id);
	}
	root = cJSON_CreateObject();
	err = cJSON_AddObjectToObject(root, "error");
	cJSON_AddNumberToObject(err, "code", 500);
	cJSON_AddStringToObject(err, "message", SIM_BUSY_MESSAGE);
	cJSON_AddStringToObject(err, "type", "server_error");
	return root;
}

void
api_stream_busy(enum sim_api api, struct buf *out)
{
	sse(out, api == API_ANTHROPIC ? "error" : NULL, api_busy_body(api, NULL));
}
