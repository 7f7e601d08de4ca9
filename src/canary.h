/*
 * canary.h: nonces and canaries. A nonce is "AIVET" followed by 19 random
 * characters of [A-Za-z0-9], unique per request. Probe prompts are built
 * from a recipe (filler seed, sizes, nonces) that regenerates the same
 * bytes every time, so large prompts are kept as evidence by recipe and
 * SHA-256. A canary set finds every registered nonce in a response in one
 * pass over it, whatever the number of nonces.
 */
#ifndef AIVET_CANARY_H
#define AIVET_CANARY_H

#include "aivet.h"

#define NONCE_PREFIX "AIVET"
#define NONCE_PREFIX_LEN 5
#define NONCE_LEN 24

void nonce_new(char out[NONCE_LEN + 1]);

/* The instruction that ends every probe prompt. */
#define PROMPT_INSTRUCTION "Repeat the three codes in this text that begin with " NONCE_PREFIX \
	", in order, separated by spaces. Reply with the codes only."

struct prompt_recipe {
	uint64_t seed;                /* of the filler words */
	int64_t units;                /* filler words of the prompt's own body */
	uint64_t shared_seed;         /* an opening shared across tenants ... */
	int64_t shared_units;         /* ... of this many words (0: none) */
	char nonces[3][NONCE_LEN + 1];/* placed at the start, middle and end */
};
void prompt_recipe_new(struct prompt_recipe *r, int64_t units);
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
cJSON *prompt_recipe_json(const struct prompt_recipe *r);
int prompt_recipe_parse(const cJSON *j, struct prompt_recipe *r, struct aerr *err);

struct canary_set;
struct canary_set *canary_set_new(void);
void canary_set_free(struct canary_set *s);
size_t canary_count(const struct canary_set *s);
/* Registers a nonce as belonging to request `owner` of tenant `tenant`. */
void canary_add(struct canary_set *s, const char *nonce, int64_t owner, int tenant);
typedef void (*canary_hit_fn)(void *arg, const char *nonce, int64_t owner, int tenant);
/* Calls fn for each occurrence of a registered nonce in text; returns the count. */
size_t canary_scan(const struct canary_set *s, const char *text, size_t len, canary_hit_fn fn,
    void *arg);

#endif
