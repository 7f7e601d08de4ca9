/*
 * canary.c: nonce generation, deterministic probe prompts, and the canary
 * scanner. The scanner finds each "AIVET" in a response (memmem, linear)
 * and looks the 19 characters after it up in a hash table keyed with
 * SipHash (libsodium's crypto_shorthash, keyed at random so a response
 * cannot be crafted to collide), so one pass over a response checks it
 * against every canary of the run.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "canary.h"

#define KEY_LEN (NONCE_LEN - NONCE_PREFIX_LEN)

void
nonce_new(char out[NONCE_LEN + 1])
{
	memcpy(out, NONCE_PREFIX, NONCE_PREFIX_LEN);
	random_alnum(out + NONCE_PREFIX_LEN, KEY_LEN);
}

/* ---- prompts (their text is prompt.c's) ---- */

void
prompt_recipe_new(struct prompt_recipe *r, int64_t units)
{
	memset(r, 0, sizeof *r);
	randombytes_buf(&r->seed, sizeof r->seed);
	r->units = units;
	for (int i = 0; i < 3; i++)
		nonce_new(r->nonces[i]);
}

/* ---- the canary set: open addressing on SipHash ---- */

struct canary {
	char key[KEY_LEN];
	int used;
	int tenant;
	int64_t owner;
};

struct canary_set {
	struct canary *slots;
	size_t cap, n;
	unsigned char hkey[crypto_shorthash_KEYBYTES];
};

struct canary_set *
canary_set_new(void)
{
	struct canary_set *s = xcalloc(1, sizeof *s);

	s->cap = 256;
	s->slots = xcalloc(s->cap, sizeof *s->slots);
	crypto_shorthash_keygen(s->hkey);
	return s;
}

void
canary_set_free(struct canary_set *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s);
}

size_t
canary_count(const struct canary_set *s)
{
	return s->n;
}

static size_t
slot_of(const struct canary_set *s, const char *key)
{
	unsigned char h[crypto_shorthash_BYTES];
	uint64_t v;

	crypto_shorthash(h, (const unsigned char *)key, KEY_LEN, s->hkey);
	memcpy(&v, h, sizeof v);
	return (size_t)(v & (s->cap - 1));
}

static void
insert(struct canary_set *s, const struct canary *c)
{
	size_t i = slot_of(s, c->key);

	while (s->slots[i].used) {
		if (memcmp(s->slots[i].key, c->key, KEY_LEN) == 0)
			return;   /* already registered: the first owner stays */
		i = (i + 1) & (s->cap - 1);
	}
	s->slots[i] = *c;
	s->n++;
}

void
canary_add(struct canary_set *s, const char *nonce, int64_t owner, int tenant)
{
	struct canary c = { .used = 1, .tenant = tenant, .owner = owner };

	if (strncmp(nonce, NONCE_PREFIX, NONCE_PREFIX_LEN) != 0 || strlen(nonce) != NONCE_LEN)
		die("canary_add: malformed nonce");
	if ((s->n + 1) * 2 > s->cap) {
		struct canary *old = s->slots;
		size_t oldcap = s->cap;

		s->cap *= 2;
		s->slots = xcalloc(s->cap, sizeof *s->slots);
		s->n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				insert(s, &old[i]);
		free(old);
	}
	memcpy(c.key, nonce + NONCE_PREFIX_LEN, KEY_LEN);
	insert(s, &c);
}

size_t
canary_scan(const struct canary_set *s, const char *text, size_t len, canary_hit_fn fn, void *arg)
{
	const char *p = text, *end = text + len;
	size_t hits = 0;

	while ((size_t)(end - p) >= NONCE_LEN) {
		const char *at = memmem(p, (size_t)(end - p), NONCE_PREFIX, NONCE_PREFIX_LEN);
		size_t i;

		if (at == NULL || (size_t)(end - at) < NONCE_LEN)
			break;
		i = slot_of(s, at + NONCE_PREFIX_LEN);
		while (s->slots[i].used) {
			if (memcmp(s->slots[i].key, at + NONCE_PREFIX_LEN, KEY_LEN) == 0) {
				char nonce[NONCE_LEN + 1];

				memcpy(nonce, at, NONCE_LEN);
				nonce[NONCE_LEN] = '\0';
				hits++;
				if (fn != NULL)
					fn(arg, nonce, s->slots[i].owner, s->slots[i].tenant);
				break;
			}
			i = (i + 1) & (s->cap - 1);
		}
		p = at + 1;
	}
	return hits;
}
