/*
 * redact.c: a sealed response (leaked content, a planted secret's answer) as
 * a report bundle carries it: the text a model generated is hidden, and what
 * the probes' judgement reads of the response is kept, so that "verify
 * --rejudge" judges it as the run did. Kept: the JSON (or SSE) structure and
 * every value but generated text, byte for byte (usage, status fields, error
 * messages, finish reasons); in generated text (the values of "content",
 * "text", "reasoning_content", "reasoning", "thinking", "refusal",
 * "partial_json"), aivet's planted tokens (AIVET and 19 letters or digits,
 * found across the pieces of a stream) at their positions. Every other byte
 * of generated text becomes '*': the body keeps its length in bytes and stays
 * valid JSON and UTF-8, and no word of another customer's text remains.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "canary.h"
#include "report-doc.h"

static const char *const text_keys[] = { "content", "text", "reasoning_content", "reasoning",
	"thinking", "refusal", "partial_json", NULL };

/* The bytes of generated text: spans of the body inside string values of text keys. */
struct spans {
	size_t *at;                   /* body offsets of the generated text's bytes, in order */
	size_t n;
};

static int
text_key(const char *s, size_t len)
{
	for (int i = 0; text_keys[i] != NULL; i++)
		if (strlen(text_keys[i]) == len && memcmp(text_keys[i], s, len) == 0)
			return 1;
	return 0;
}

/* Walks the body's JSON strings; a string followed by ':' is a key, and the
 * string after a text key's colon is generated text, collected in sp. */
static void
collect(const char *b, size_t len, struct spans *sp)
{
	size_t i = 0, key_at = 0, key_len = 0;
	int want = 0;                 /* the next string is a text key's value */

	while (i < len) {
		size_t start, j;

		if (b[i] != '"') {
			if (b[i] != ':' && !isspace((unsigned char)b[i]))
				want = 0;
			i++;
			continue;
		}
		start = ++i;
		while (i < len && b[i] != '"')
			i += b[i] == '\\' ? 2 : 1;
		j = i + 1;
		while (j < len && isspace((unsigned char)b[j]))
			j++;
		if (j < len && b[j] == ':') {
			key_at = start, key_len = (i < len ? i : len) - start;
			want = text_key(b + key_at, key_len);
			i = j + 1;
			continue;
		}
		if (want)
			for (size_t k = start; k < i && k < len; k++) {
				sp->at = xrealloc(sp->at, (sp->n + 1) * sizeof *sp->at);
				sp->at[sp->n++] = k;
			}
		want = 0;
		i++;
	}
}

void
leak_redact(const char *body, size_t len, struct buf *out)
{
	struct spans sp = { 0 };
	char *keep;

	buf_init(out);
	buf_add(out, body, len);
	collect(body, len, &sp);
	keep = xcalloc(sp.n + 1, 1);
	/* Planted tokens in the generated text read as one, across a stream's pieces. */
	for (size_t i = 0; i + NONCE_LEN <= sp.n; i++) {
		size_t k;

		for (k = 0; k < NONCE_LEN; k++) {
			char c = body[sp.at[i + k]];

			if (k < NONCE_PREFIX_LEN ? c != NONCE_PREFIX[k] : !isalnum((unsigned char)c))
				break;
		}
		if (k == NONCE_LEN)
			memset(keep + i, 1, NONCE_LEN);
	}
	for (size_t i = 0; i < sp.n; i++)
		if (!keep[i])
			out->data[sp.at[i]] = '*';
	free(keep);
	free(sp.at);
}
