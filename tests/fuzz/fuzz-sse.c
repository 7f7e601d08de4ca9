/*
 * fuzz-sse.c: the server-sent events reader (sse_parse). Every event it
 * delivers is a pair of strings, their number is what it returns, data
 * never holds a carriage return, and the way lines end (CRLF, LF, CR) does
 * not change what is read: the same bytes with every line end written as
 * LF give the same events.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "provider.h"
#include "fuzz.h"

struct seen {
	size_t n;
	struct buf all;   /* every event and data, each NUL-separated */
};

static void
on_event(void *arg, const char *event, const char *data)
{
	struct seen *s = arg;

	FUZZ_ASSERT(event != NULL && data != NULL);
	FUZZ_ASSERT(strchr(data, '\r') == NULL && strchr(event, '\n') == NULL);
	buf_add(&s->all, event, strlen(event) + 1);
	buf_add(&s->all, data, strlen(data) + 1);
	s->n++;
}

FUZZ_TARGET(sse)
{
	struct seen a = { 0 }, b = { 0 };
	char *lf = xmalloc(size + 1);
	size_t n = 0, na, nb;

	buf_init(&a.all);
	buf_init(&b.all);
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\r') {
			lf[n++] = '\n';
			if (i + 1 < size && data[i + 1] == '\n')
				i++;
		} else {
			lf[n++] = (char)data[i];
		}
	}
	na = sse_parse((const char *)data, size, on_event, &a);
	nb = sse_parse(lf, n, on_event, &b);
	FUZZ_ASSERT(na == a.n && nb == b.n && na == nb);
	FUZZ_ASSERT(a.all.len == b.all.len && (a.all.len == 0 || memcmp(a.all.data, b.all.data, a.all.len) == 0));
	buf_free(&a.all);
	buf_free(&b.all);
	free(lf);
	return 0;
}
