/*
 * sim-tok.c: aivet-sim's tokenizers. Both are deterministic. "pieces", the
 * default, is deliberately not one token per word: text splits into runs of
 * word characters, runs of whitespace and single other characters, and runs
 * into pieces of up to four bytes ("identifier" = "iden" "tifi" "er"); a
 * token's id is its bytes packed into 32 bits, so KV pages hold the text
 * itself and decode can read it back. "words" is as compact as real
 * tokenizers get on prose, about one token per word; its long tokens do not
 * fit in an id, so a vocabulary shared by all requests maps ids to text
 * (stale pages must still read back as what their owner wrote).
 */
#include "config.h"

#include <pthread.h>
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

static void
encode_pieces(const unsigned char *s, size_t len, struct tokvec *tv)
{
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

/* ---- the words tokenizer's vocabulary ---- */

#define BLOCK_ENTRIES 65536
#define NBLOCKS (TOK_VOCAB_MAX / BLOCK_ENTRIES)
#define CHUNK_BYTES ((size_t)1 << 20)
#define ENTRY_PLACEHOLDER 0
#define ENTRY_UNK 1

struct vocab_entry {
	const char *s;
	size_t len;
};

/* Entries live in fixed blocks that never move, so tok_text reads them
 * without the lock: an id only reaches a reader (through a KV page) after
 * its entry was written. The lookup table is touched under the lock only. */
struct sim_vocab {
	pthread_mutex_t mu;
	struct vocab_entry *block[NBLOCKS];
	uint32_t n;
	uint32_t *slot;               /* open addressing: entry + 1, 0 empty */
	size_t nslots;
	char **chunk;                 /* the text, in chunks never moved */
	size_t nchunks;
	char *cur;                    /* the chunk short tokens go to */
	size_t cur_left;
	size_t text_bytes;
	uint32_t max_entries;
	size_t max_text;
	unsigned char key[crypto_shorthash_KEYBYTES];
};

static uint64_t
vocab_hash(const struct sim_vocab *v, const unsigned char *s, size_t len)
{
	unsigned char h[crypto_shorthash_BYTES];
	uint64_t x;

	crypto_shorthash(h, s, len, v->key);
	memcpy(&x, h, sizeof x);
	return x;
}

static struct vocab_entry *
vocab_entry(const struct sim_vocab *v, uint32_t i)
{
	return &v->block[i / BLOCK_ENTRIES][i % BLOCK_ENTRIES];
}

static const char *
vocab_store(struct sim_vocab *v, const unsigned char *s, size_t len)
{
	/* A long token gets a chunk of its own; the current one stays open. */
	int own = len > CHUNK_BYTES / 16;
	char *dst;

	if (own || v->cur_left < len) {
		v->chunk = xrealloc(v->chunk, (v->nchunks + 1) * sizeof *v->chunk);
		dst = v->chunk[v->nchunks++] = xmalloc(own ? len : CHUNK_BYTES);
		if (!own) {
			v->cur = dst;
			v->cur_left = CHUNK_BYTES;
		}
	}
	if (!own) {
		dst = v->cur + (CHUNK_BYTES - v->cur_left);
		v->cur_left -= len;
	}
	memcpy(dst, s, len);
	v->text_bytes += len;
	return dst;
}

static void
vocab_grow(struct sim_vocab *v)
{
	size_t n = v->nslots ? v->nslots * 2 : 4096;
	uint32_t *slot = xcalloc(n, sizeof *slot);

	for (size_t i = 0; i < v->nslots; i++) {
		const struct vocab_entry *e;
		size_t k;

		if (v->slot[i] == 0)
			continue;
		e = vocab_entry(v, v->slot[i] - 1);
		for (k = vocab_hash(v, (const unsigned char *)e->s, e->len) & (n - 1); slot[k] != 0;
		    k = (k + 1) & (n - 1))
			;
		slot[k] = v->slot[i];
	}
	free(v->slot);
	v->slot = slot;
	v->nslots = n;
}

/* The entry for s, added when new; ENTRY_UNK once the vocabulary is full. Under v->mu. */
static uint32_t
vocab_intern(struct sim_vocab *v, const unsigned char *s, size_t len)
{
	size_t k;

	if (2 * (size_t)(v->n + 1) > v->nslots)
		vocab_grow(v);
	for (k = vocab_hash(v, s, len) & (v->nslots - 1); v->slot[k] != 0; k = (k + 1) & (v->nslots - 1)) {
		const struct vocab_entry *e = vocab_entry(v, v->slot[k] - 1);

		if (e->len == len && memcmp(e->s, s, len) == 0)
			return v->slot[k] - 1;
	}
	if (v->n == v->max_entries || v->text_bytes + len > v->max_text)
		return ENTRY_UNK;
	if (v->block[v->n / BLOCK_ENTRIES] == NULL)
		v->block[v->n / BLOCK_ENTRIES] = xcalloc(BLOCK_ENTRIES, sizeof(struct vocab_entry));
	vocab_entry(v, v->n)->s = vocab_store(v, s, len);
	vocab_entry(v, v->n)->len = len;
	v->slot[k] = v->n + 1;
	return v->n++;
}

void
tokenizer_init(struct sim_tokenizer *tk, enum sim_tokenizer_kind kind)
{
	tokenizer_init_bounded(tk, kind, TOK_VOCAB_MAX, TOK_VOCAB_TEXT_MAX);
}

void
tokenizer_init_bounded(struct sim_tokenizer *tk, enum sim_tokenizer_kind kind,
    uint32_t max_entries, size_t max_text)
{
	struct sim_vocab *v;

	memset(tk, 0, sizeof *tk);
	tk->kind = kind;
	if (kind != TOKENIZER_WORDS)
		return;
	v = tk->vocab = xcalloc(1, sizeof *v);
	pthread_mutex_init(&v->mu, NULL);
	v->max_entries = max_entries < 2 ? 2 : max_entries > TOK_VOCAB_MAX ? TOK_VOCAB_MAX : max_entries;
	v->max_text = max_text;
	memset(v->key, 0x5a, sizeof v->key);
	vocab_intern(v, (const unsigned char *)"<ph>", 4);      /* ENTRY_PLACEHOLDER */
	vocab_intern(v, (const unsigned char *)"<unk>", 5);     /* ENTRY_UNK */
}

void
tokenizer_free(struct sim_tokenizer *tk)
{
	struct sim_vocab *v = tk->vocab;

	if (v != NULL) {
		for (size_t i = 0; i < NBLOCKS; i++)
			free(v->block[i]);
		for (size_t i = 0; i < v->nchunks; i++)
			free(v->chunk[i]);
		free(v->chunk);
		free(v->slot);
		pthread_mutex_destroy(&v->mu);
		free(v);
	}
	memset(tk, 0, sizeof *tk);
}

static void
encode_words(struct sim_vocab *v, const unsigned char *s, size_t len, struct tokvec *tv)
{
	size_t i = 0, j;

	pthread_mutex_lock(&v->mu);
	while (i < len) {
		j = i;
		while (j < len && is_space(s[j]))
			j++;
		if (j < len) {
			unsigned char c = s[j];

			if (tok_is_word_char(c)) {
				while (j < len && tok_is_word_char(s[j]))
					j++;
			} else {
				size_t k = j + 1, want = c >= 0x80 ? utf8_len(c) : 1;

				while (k < len && k - j < want && (s[k] & 0xC0) == 0x80)
					k++;
				j = k;
			}
		}
		if (j - i <= 3)
			tokvec_push(tv, pack(s + i, j - i));
		else
			tokvec_push(tv, TOK_VOCAB_BASE + vocab_intern(v, s + i, j - i));
		i = j;
	}
	pthread_mutex_unlock(&v->mu);
}

void
tok_encode(const struct sim_tokenizer *tk, const char *text, size_t len, struct tokvec *tv)
{
	if (tk->kind == TOKENIZER_WORDS)
		encode_words(tk->vocab, (const unsigned char *)text, len, tv);
	else
		encode_pieces((const unsigned char *)text, len, tv);
}

const char *
tok_text(const struct sim_tokenizer *tk, sim_tok t, char scratch[4], size_t *len)
{
	size_t n = 0;

	if (tk->kind == TOKENIZER_WORDS && t >= TOK_VOCAB_BASE) {
		uint32_t i = t - TOK_VOCAB_BASE;
		const struct vocab_entry *e;

		*len = 0;
		if (i >= TOK_VOCAB_MAX || tk->vocab->block[i / BLOCK_ENTRIES] == NULL)
			return scratch;
		e = vocab_entry(tk->vocab, i);
		if (e->s == NULL)
			return scratch;
		*len = e->len;
		return e->s;
	}
	/* Text never holds NUL (JSON strings reach us as C strings), so a zero byte ends the piece. */
	while (n < 4 && (t >> (8 * n)) & 0xFF) {
		scratch[n] = (char)((t >> (8 * n)) & 0xFF);
		n++;
	}
	*len = n;
	return scratch;
}

sim_tok
tok_placeholder(const struct sim_tokenizer *tk)
{
	if (tk->kind == TOKENIZER_WORDS)
		return TOK_VOCAB_BASE + ENTRY_PLACEHOLDER;
	return pack((const unsigned char *)"<ph>", 4);
}
