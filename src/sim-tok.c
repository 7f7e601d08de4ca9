/*
 * sim-tok.c: aivet-sim's tokenizer. Deterministic and deliberately not one
 * token per word: text splits into runs of word characters, runs of
 * whitespace and single other characters, and runs into pieces of up to four
 * bytes ("identifier" = "iden" "tifi" "er"). A token's id is its bytes packed
 * into 32 bits, so KV pages hold the text itself and decode can read it back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

void
tokvec_push(struct tokvec *tv, sim_tok t)
{
	if (tv->n == tv->cap) {
		tv->cap = tv->cap ? tv->cap * 2 : 256;
		tv->v = xrealloc(tv->v, tv->cap * sizeof *tv->v);
	}
	tv->v[tv->n++] = t;
}

void
tokvec_free(struct tokvec *tv)
{
	free(tv->v);
	memset(tv, 0, sizeof *tv);
}

int
tok_is_word_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-';
}

static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes in the UTF-8 sequence a lead byte opens; 1 for a stray byte. */
static size_t
utf8_len(unsigned char c)
{
	if (c >= 0xC0 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF7)
		return 4;
	return 1;
}

static sim_tok
pack(const unsigned char *p, size_t n)
{
	sim_tok t = 0;

	for (size_t i = 0; i < n; i++)
		t |= (sim_tok)p[i] << (8 * i);
	return t;
}

void
tok_encode(const char *text, size_t len, struct tokvec *tv)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, j;

	while (i < len) {
		unsigned char c = s[i];

		j = i + 1;
		if (tok_is_word_char(c)) {
			while (j < len && j - i < 4 && tok_is_word_char(s[j]))
				j++;
		} else if (is_space(c)) {
			while (j < len && j - i < 4 && is_space(s[j]))
				j++;
		} else if (c >= 0x80) {
			size_t want = utf8_len(c);

			while (j < len && j - i < want && (s[j] & 0xC0) == 0x80)
				j++;
		}
		tokvec_push(tv, pack(s + i, j - i));
		i = j;
	}
}

size_t
tok_piece(sim_tok t, char out[4])
{
	size_t n = 0;

	/* Text never holds NUL (JSON strings reach us as C strings), so a zero byte ends the piece. */
	while (n < 4 && (t >> (8 * n)) & 0xFF) {
		out[n] = (char)((t >> (8 * n)) & 0xFF);
		n++;
	}
	return n;
}
