/*
 * sim-hostile.c: the hostile vendor behind aivet-sim --hostile MODE. Every
 * request, whatever its route, gets the mode's answer, so that any probe
 * meets it. Each answer attacks one limit a client must have (decompressed
 * size, stream length, read speed, text validity, parser depth, header
 * size, redirects, body framing, the reader's terminal); aivet must end
 * each with a clean error or finding, in bounded time and memory, and show
 * the vendor's text escaped. The log line says whether the
 * request carried a credential, so a test can prove none crossed to
 * another origin.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "sim-hostile.h"

const char *const sim_hostile_names[HOSTILE_COUNT] = {
	[HOSTILE_NONE] = "none",
	[HOSTILE_GZIP_BOMB] = "gzip-bomb",
	[HOSTILE_ENDLESS_SSE] = "endless-sse",
	[HOSTILE_SLOW_DRIP] = "slow-drip",
	[HOSTILE_INVALID_UTF8] = "invalid-utf8",
	[HOSTILE_DEEP_JSON] = "deep-json",
	[HOSTILE_HUGE_HEADER] = "huge-header",
	[HOSTILE_REDIRECT_LOOP] = "redirect-loop",
	[HOSTILE_REDIRECT_ORIGIN] = "redirect-origin",
	[HOSTILE_EMPTY_200] = "empty-200",
	[HOSTILE_LENGTH_LONG] = "length-long",
	[HOSTILE_LENGTH_SHORT] = "length-short",
	[HOSTILE_NUL_BYTES] = "nul-bytes",
	[HOSTILE_TERMINAL] = "terminal-escapes",
};

#define BOMB_BYTES ((size_t)256 << 20)
#define DEEP 100000
#define HUGE_HEADER ((size_t)10 << 20)
#define DRIP_SECONDS 10

static unsigned char *bomb;
static size_t bomb_len;
static atomic_int stopping;

static const char completion[] = "{\"id\":\"chatcmpl-hostile\",\"object\":\"chat.completion\","
    "\"model\":\"aivet-sim-1\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
    "\"content\":\"hello\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,"
    "\"completion_tokens\":1,\"total_tokens\":6}}";

int
sim_hostile_parse(const char *name, int *out)
{
	for (int i = 0; i < HOSTILE_COUNT; i++)
		if (strcmp(sim_hostile_names[i], name) == 0) {
			*out = i;
			return 0;
		}
	return -1;
}

/* A completion whose content is 256 MiB of 'A', gzip-compressed with zlib. */
static int
make_bomb(struct aerr *err)
{
	static const char head[] = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"";
	static const char tail[] = "\"}}]}";
	unsigned char *chunk = xmalloc(1 << 20);
	z_stream z;
	size_t left = BOMB_BYTES;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_RLE) != Z_OK) {
		free(chunk);
		return aerr_set(err, AV_RUNTIME, "--hostile gzip-bomb: deflateInit2 failed");
	}
	bomb_len = 0;
	bomb = xmalloc(deflateBound(&z, BOMB_BYTES + sizeof head + sizeof tail));
	z.next_out = bomb;
	z.avail_out = (uInt)deflateBound(&z, BOMB_BYTES + sizeof head + sizeof tail);
	z.next_in = (unsigned char *)head;
	z.avail_in = sizeof head - 1;
	deflate(&z, Z_NO_FLUSH);
	memset(chunk, 'A', 1 << 20);
	while (left > 0) {
		z.next_in = chunk;
		z.avail_in = 1 << 20;
		left -= 1 << 20;
		deflate(&z, Z_NO_FLUSH);
	}
	z.next_in = (unsigned char *)tail;
	z.avail_in = sizeof tail - 1;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(chunk);
		return aerr_set(err, AV_RUNTIME, "--hostile gzip-bomb: deflate failed");
	}
	bomb_len = z.total_out;
	deflateEnd(&z);
	free(chunk);
	return 0;
}

int
sim_hostile_prepare(const struct sim_config *cfg, struct aerr *err)
{
	if (cfg->hostile == HOSTILE_REDIRECT_ORIGIN && cfg->redirect_to == NULL)
		return aerr_set(err, AV_USAGE, "--hostile redirect-origin needs --redirect-to URL");
	if (cfg->hostile == HOSTILE_GZIP_BOMB && bomb == NULL)
		return make_bomb(err);
	return 0;
}

void
sim_hostile_stop(void)
{
	atomic_store(&stopping, 1);
}

/* Endless stream: one chunk event after another, until the client gives up. */
static ssize_t
endless_read(void *cls, uint64_t pos, char *out, size_t max)
{
	static const char ev[] = "data: {\"id\":\"chatcmpl-hostile\",\"object\":\"chat.completion.chunk\","
	    "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more \"},\"finish_reason\":null}]}\n\n";
	size_t n = 0;

	(void)cls;
	if (atomic_load(&stopping))
		return MHD_CONTENT_READER_END_WITH_ERROR;
	while (n < max) {
		size_t off = (size_t)((pos + n) % (sizeof ev - 1)), k = sizeof ev - 1 - off;

		k = k < max - n ? k : max - n;
		memcpy(out + n, ev + off, k);
		n += k;
	}
	return (ssize_t)n;
}

/* One byte of a valid completion every DRIP_SECONDS (sleeping in short steps so
 * that a stopping server does not wait for the client). */
static ssize_t
drip_read(void *cls, uint64_t pos, char *out, size_t max)
{
	(void)cls;
	if (pos >= sizeof completion - 1)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (pos > 0 || max == 0) {
		for (int i = 0; i < DRIP_SECONDS * 10; i++) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			if (atomic_load(&stopping))
				return MHD_CONTENT_READER_END_WITH_ERROR;
			nanosleep(&ts, NULL);
		}
	}
	out[0] = completion[pos];
	return 1;
}

/* The completion, once, as a body of unknown size. */
static ssize_t
whole_read(void *cls, uint64_t pos, char *out, size_t max)
{
	size_t n = sizeof completion - 1;

	(void)cls;
	if (pos >= n)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n -= (size_t)pos;
	n = n < max ? n : max;
	memcpy(out, completion + pos, n);
	return (ssize_t)n;
}

static struct MHD_Response *
from_copy(const void *p, size_t n)
{
	return MHD_create_response_from_buffer(n, (void *)p, MHD_RESPMEM_MUST_COPY);
}

static struct MHD_Response *
from_owned(char *p, size_t n)
{
	return MHD_create_response_from_buffer(n, p, MHD_RESPMEM_MUST_FREE);
}

/* The bodies a client must not take as text as they come: bytes that are not
 * UTF-8, NUL bytes, and terminal escapes in an error. */
static struct MHD_Response *
bad_text(int mode, unsigned *status)
{
	struct MHD_Response *resp;

	if (mode == HOSTILE_INVALID_UTF8) {
		/* Lone continuation bytes, an overlong '/', a surrogate, 0xff: none is UTF-8. */
		static const char body[] = "{\"id\":\"chatcmpl-hostile\",\"object\":\"chat.completion\","
		    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"bad \x80\xbf "
		    "\xc0\xaf \xed\xa0\x80 \xff\xfe text\"},\"finish_reason\":\"stop\"}],"
		    "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9}}";

		return from_copy(body, sizeof body - 1);
	}
	if (mode == HOSTILE_NUL_BYTES) {
		/* NUL bytes, which no C string or PostgreSQL text holds, beside bytes
		 * that are not UTF-8, in the body and (but NUL) in a header; the header
		 * also holds U+FDD0 U+F7FF, which is how aivet's PostgreSQL layer
		 * escapes a stray 0xff, to be kept as it is. */
		static const char body[] = "{\"id\":\"chatcmpl-hostile\",\"object\":\"chat.completion\","
		    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"nul \0 "
		    "and \xff\xfe \x80 \0\0 end\"},\"finish_reason\":\"stop\"}],"
		    "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9}}\0";

		resp = from_copy(body, sizeof body - 1);
		MHD_add_response_header(resp, "x-hostile-text", "bad \xff\xfe \xc0\xaf \x80 \xef\xb7\x90\xef\x9f\xbf bytes");
		return resp;
	}
	{
		/* For whoever reads the error on a terminal: OSC 52 (sets the clipboard),
		 * CSI 2J (clears the screen) and U+202E (reorders the line), in the keys
		 * and the type and code a client keeps as the error's shape, and in the
		 * message it quotes. */
		static const char body[] = "{\"error\":{\"message\":\"bad \\u001b]52;c;ZXZpbA==\\u0007"
		    "request\\u001b[2J\\u202egpj.exe\",\"type\":\"\\u001b[2Jinvalid\","
		    "\"code\":\"\\u001b]52;c;ZXZpbA==\\u0007\"},\"\\u001b[2Jhint\":\"x\"}";

		*status = 400;
		return from_copy(body, sizeof body - 1);
	}
}

/* JSON nested deeper than a parser should follow, or a header larger than a
 * client should hold. */
static struct MHD_Response *
too_big(int mode)
{
	struct MHD_Response *resp;
	char *v;

	if (mode == HOSTILE_DEEP_JSON) {
		char *b = xmalloc(2 * DEEP);

		memset(b, '[', DEEP);
		memset(b + DEEP, ']', DEEP);
		return from_owned(b, 2 * DEEP);
	}
	v = xmalloc(HUGE_HEADER + 1);
	memset(v, 'a', HUGE_HEADER);
	v[HUGE_HEADER] = '\0';
	resp = from_copy(completion, sizeof completion - 1);
	MHD_add_response_header(resp, "x-hostile-padding", v);
	free(v);
	return resp;
}

/* A Content-Length that lies, ten times the body or a third of it. A body of
 * unknown size gets no Content-Length of MHD's own; the insanity flag lets
 * this one, a lie, stand. */
static struct MHD_Response *
lying_length(int mode)
{
	struct MHD_Response *resp;
	char len[32];
	size_t real = sizeof completion - 1;

	snprintf(len, sizeof len, "%zu", mode == HOSTILE_LENGTH_LONG ? real * 10 : real / 3);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, whole_read, NULL, NULL);
	MHD_set_response_options(resp, MHD_RF_INSANITY_HEADER_CONTENT_LENGTH | MHD_RF_HTTP_1_0_SERVER,
	    MHD_RO_END);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_LENGTH, len);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	return resp;
}

/* A redirect: to this same URL again (a loop), or to another origin. */
static struct MHD_Response *
redirect(const struct sim_config *cfg, const char *host, const char *url, unsigned *status)
{
	struct MHD_Response *resp = from_copy("", 0);

	if (cfg->hostile == HOSTILE_REDIRECT_LOOP) {
		char *to = xasprintf("http://%s%s", host ? host : "127.0.0.1", url);

		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, to);
		free(to);
		*status = 302;
	} else {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, cfg->redirect_to);
		*status = 307;
	}
	return resp;
}

enum MHD_Result
sim_hostile_respond(const struct sim_config *cfg, struct MHD_Connection *conn, const char *method,
    const char *url, unsigned long long n)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *xkey = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "x-api-key");
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	struct MHD_Response *resp = NULL;
	unsigned status = 200;
	const char *type = "application/json";
	enum MHD_Result ret;

	switch ((enum sim_hostile)cfg->hostile) {
	case HOSTILE_GZIP_BOMB:
		resp = from_copy(bomb, bomb_len);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
		break;
	case HOSTILE_ENDLESS_SSE:
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, endless_read, NULL, NULL);
		type = "text/event-stream";
		break;
	case HOSTILE_SLOW_DRIP:
		resp = MHD_create_response_from_callback(sizeof completion - 1, 1, drip_read, NULL, NULL);
		break;
	case HOSTILE_INVALID_UTF8:
	case HOSTILE_NUL_BYTES:
	case HOSTILE_TERMINAL:
		resp = bad_text(cfg->hostile, &status);
		break;
	case HOSTILE_DEEP_JSON:
	case HOSTILE_HUGE_HEADER:
		resp = too_big(cfg->hostile);
		break;
	case HOSTILE_REDIRECT_LOOP:
	case HOSTILE_REDIRECT_ORIGIN:
		resp = redirect(cfg, host, url, &status);
		type = NULL;
		break;
	case HOSTILE_EMPTY_200:
		resp = from_copy("", 0);
		break;
	case HOSTILE_LENGTH_LONG:
	case HOSTILE_LENGTH_SHORT:
		resp = lying_length(cfg->hostile);
		break;
	case HOSTILE_NONE:
	case HOSTILE_COUNT:
		return MHD_NO;
	}
	if (type != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	fprintf(stderr, "aivet-sim: #%llu %s %s hostile=%s status=%u credential=%s\n", n, method, url,
	    sim_hostile_names[cfg->hostile], status, auth != NULL || xkey != NULL ? "present" : "none");
	return ret;
}
