/*
 * base.c: the smallest shared helpers: errors as values and the fatal
 * message, memory, a byte buffer, hashing and random identifiers,
 * whole-number options and cJSON members. Time is base-time.c's, files
 * base-file.c's, text base-text.c's. The base is what aivet-sim shares with
 * aivet, so it may use libc, libsodium and cJSON and nothing else.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "base.h"

int
aerr_set(struct aerr *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}

void
aerr_clear(struct aerr *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}

int
aerr_prefix(struct aerr *err, const char *fmt, ...)
{
	char pre[512], old[sizeof err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	{
		char *joined = xasprintf("%s: %s", pre, old);
		size_t n = strlen(joined);

		if (n >= sizeof err->msg)
			n = sizeof err->msg - 1;
		memcpy(err->msg, joined, n);
		err->msg[n] = '\0';
		free(joined);
	}
	return err->code;
}

/* The front end's reporter, and the last message kept for a debugger
 * (the core file holds it) when there is none. */
static void (*die_report)(const char *msg);
static char die_message[512];

void
die_report_set(void (*report)(const char *msg))
{
	die_report = report;
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(die_message, sizeof die_message, fmt, ap);
	va_end(ap);
	if (die_report != NULL)
		die_report(die_message);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *
xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

static void
buf_grow(struct buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;

	if (b->len + need + 1 <= b->cap)
		return;
	while (cap < b->len + need + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_shell_word(struct buf *b, const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	    "_./:-";

	if (*s != '\0' && strspn(s, plain) == strlen(s)) {
		buf_adds(b, s);
		return;
	}
	buf_adds(b, "'");
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_add(b, s, 1);
	}
	buf_adds(b, "'");
}

char *
shell_word(const char *s)
{
	struct buf b;

	buf_init(&b);
	buf_shell_word(&b, s);
	return b.data;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("buf_printf: bad format");
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
buf_steal(struct buf *b)
{
	char *s;

	if (b->data == NULL)
		buf_grow(b, 0), b->data[0] = '\0';
	s = b->data;
	buf_init(b);
	return s;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void
hex_encode(const unsigned char *in, size_t n, char *out)
{
	sodium_bin2hex(out, n * 2 + 1, in, n);
}

void
sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, data, len);
	hex_encode(h, sizeof h, out);
}

void
random_alnum(char *out, size_t n)
{
	static const char set[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (size_t i = 0; i < n; i++)
		out[i] = set[randombytes_uniform(sizeof set - 1)];
	out[n] = '\0';
}

int
parse_int_opt(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out, struct aerr *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return aerr_set(err, AV_USAGE, "%s: '%s' is not a whole number", opt, s);
	if (v < lo || v > hi)
		return aerr_set(err, AV_USAGE, "%s: %lld is out of range (%lld to %lld)", opt, v,
		    (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

const char *
json_get_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
json_add_str(cJSON *o, const char *k, const char *v)
{
	if (v == NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, v);
}

/* cJSON prints every number with "%1.15g", then reads it back with sscanf to
 * see whether 17 digits are needed: most of the time of a long list of rows
 * (ten numbers a vendor) went there. A whole number below 1e15 prints as its
 * digits under "%1.15g" too, so such a number becomes a raw item holding
 * them, which the printer copies: the same text, without the float
 * formatting. Only for a document about to be printed and freed. */
static void
number_to_raw(cJSON *c)
{
	double d = c->valuedouble;
	char digits[24], *p = digits + sizeof digits;
	long long n = (long long)d;
	unsigned long long u;
	size_t len;

	/* (-0 prints as "-0" under %g: left to cJSON.) */
	if (c->valuestring != NULL || !(d > -1e15 && d < 1e15) || d != (double)n || (d == 0 && 1 / d < 0))
		return;
	/* The digits by hand: snprintf's own parsing cost as much as the rest. */
	u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (n < 0)
		*--p = '-';
	len = (size_t)(digits + sizeof digits - p);
	c->valuestring = xmalloc(len + 1);
	memcpy(c->valuestring, p, len);
	c->valuestring[len] = '\0';
	c->type = cJSON_Raw | (c->type & ~0xFF);
}

void
json_print_prepare(cJSON *v)
{
	if (v == NULL)
		return;
	if ((v->type & 0xFF) == cJSON_Number) {
		number_to_raw(v);
		return;
	}
	if (v->type & cJSON_IsReference)
		return;   /* another document's members: not ours to change */
	for (cJSON *c = v->child; c != NULL; c = c->next)
		json_print_prepare(c);
}
