/*
 * prompt.h: probe prompts. A prompt is built from a recipe (filler seed,
 * sizes, three nonces) that regenerates the same bytes every time, so large
 * prompts are kept as evidence by recipe and SHA-256, and a provider streams
 * one into a request body a piece at a time (provider.c) without holding it
 * whole. Fresh recipes and the canaries that find their nonces in replies
 * are the engine's (canary.h).
 */
#ifndef AIVET_PROMPT_H
#define AIVET_PROMPT_H

#include <stdint.h>

#include "base.h"

/* A nonce is "AIVET" followed by 19 random characters of [A-Za-z0-9]. */
#define NONCE_PREFIX "AIVET"
#define NONCE_PREFIX_LEN 5
#define NONCE_LEN 24

/* The instruction that ends every probe prompt. */
#define PROMPT_INSTRUCTION "Repeat the three codes in this text that begin with " NONCE_PREFIX \
	", in order, separated by spaces. Reply with the codes only."

struct prompt_recipe {
	uint64_t seed;                /* of the filler words */
	int64_t units;                /* filler words of the prompt's own body */
	uint64_t shared_seed;         /* an opening shared across tenants ... */
	int64_t shared_units;         /* ... of this many words (0: none) */
	char nonces[3][NONCE_LEN + 1];/* placed at the start, middle and end */
	/* Text planted after the shared opening (cache-extract's secret), of
	 * planted_units words; never part of the recipe's JSON: a prompt that
	 * carries it is stored whole and sealed. NULL: none. */
	const char *planted;
	int64_t planted_units;
};
void prompt_build(const struct prompt_recipe *r, struct buf *out);
/* The same prompt a piece at a time (a few KB each), so a request body can be
 * streamed without holding the prompt whole. */
struct prompt_stream {
	const struct prompt_recipe *r;
	int step;
	int64_t done;                 /* filler words written in this step */
	uint64_t st, shared;          /* generator states */
};
void prompt_stream_init(struct prompt_stream *s, const struct prompt_recipe *r);
/* Appends the next piece to out; returns 0 (appending nothing) when the prompt is complete. */
int prompt_stream_next(struct prompt_stream *s, struct buf *out);
/* Appends `words` filler words of the generator seeded with seed, each after a
 * space: text a probe lays out itself (cache-extract's padding). */
void prompt_filler(uint64_t seed, int64_t words, struct buf *out);
cJSON *prompt_recipe_json(const struct prompt_recipe *r);
int prompt_recipe_parse(const cJSON *j, struct prompt_recipe *r, struct aerr *err);

#endif
