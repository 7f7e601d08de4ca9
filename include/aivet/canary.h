/*
 * canary.h: nonces and canaries. A nonce is "AIVET" followed by 19 random
 * characters of [A-Za-z0-9], unique per request (its format and the
 * prompts built around nonces are in prompt.h). A canary set finds every
 * registered nonce in a response in one pass over it, whatever the number
 * of nonces.
 */
#ifndef AIVET_CANARY_H
#define AIVET_CANARY_H

#include "core.h"
#include "prompt.h"

void nonce_new(char out[NONCE_LEN + 1]);

/* A new recipe of `units` filler words with three fresh nonces. */
void prompt_recipe_new(struct prompt_recipe *r, int64_t units);

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
