/*
 * prompt.c: probe prompts regenerated from their recipe (prompt.h): filler
 * words from a fixed generator around the recipe's three nonces, a piece at
 * a time for a streamed request body or whole for evidence and reports.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "prompt.h"

static const char *const filler_words[] = {
	"river", "stone", "lantern", "orchard", "meadow", "harbor", "signal", "copper",
	"window", "garden", "thunder", "marble", "valley", "pencil", "candle", "bridge",
	"forest", "silver", "engine", "canvas", "ladder", "mirror", "pepper", "saddle",
	"basket", "cotton", "dragon", "feather", "glacier", "helmet", "island", "jacket",
	"kettle", "lemon", "magnet", "needle", "ocean", "pillow", "quartz", "rocket",
	"sunset", "tunnel", "umbrella", "velvet", "walnut", "yellow", "zephyr", "anchor",
	"blossom", "cinder", "dolphin", "ember", "falcon", "granite", "hollow", "ivory",
	"jasmine", "kernel", "lagoon", "mosaic", "nectar", "opal", "prairie", "quiver",
};
#define N_WORDS (sizeof filler_words / sizeof filler_words[0])

/* splitmix64: a fixed, portable sequence, so a recipe regenerates the same bytes. */
static uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* At most this many filler words per piece: a piece stays a few KB however long the prompt. */
#define PIECE_WORDS 512

/* Appends up to PIECE_WORDS of the `words` filler words a step holds, counting
 * in *done: every 16th word ends a line. */
static void
add_filler(struct buf *out, uint64_t *state, int64_t words, int64_t *done)
{
	for (int64_t k = 0; k < PIECE_WORDS && *done < words; k++, (*done)++) {
		const char *w = filler_words[next_rand(state) % N_WORDS];

		buf_adds(out, w);
		buf_add(out, (*done + 1) % 16 == 0 ? "\n" : " ", 1);
	}
}

void
prompt_stream_init(struct prompt_stream *s, const struct prompt_recipe *r)
{
	memset(s, 0, sizeof *s);
	s->r = r;
	s->st = r->seed;
	s->shared = r->shared_seed;
}

/* The prompt in order: the shared opening (when there is one), the first nonce,
 * half the filler, the second nonce, the rest, the third nonce and the instruction. */
int
prompt_stream_next(struct prompt_stream *s, struct buf *out)
{
	const struct prompt_recipe *r = s->r;

	for (;;) {
		switch (s->step) {
		case 0:
			s->step++;
			if (r->shared_units > 0) {
				buf_adds(out, "Shared instructions follow.\n");
				return 1;
			}
			s->step = 3;
			break;
		case 1:
			if (s->done < r->shared_units) {
				add_filler(out, &s->shared, r->shared_units, &s->done);
				return 1;
			}
			s->step++;
			s->done = 0;
			break;
		case 2:
			s->step++;
			if (r->planted != NULL)
				buf_adds(out, r->planted);
			buf_adds(out, "\n");
			return 1;
		case 3:
			s->step++;
			buf_printf(out, "%s\n", r->nonces[0]);
			return 1;
		case 4:
		case 6:
			if (s->done < (s->step == 4 ? r->units / 2 : r->units - r->units / 2)) {
				add_filler(out, &s->st, s->step == 4 ? r->units / 2 : r->units - r->units / 2,
				    &s->done);
				return 1;
			}
			s->step++;
			s->done = 0;
			break;
		case 5:
			s->step++;
			buf_printf(out, "\n%s\n", r->nonces[1]);
			return 1;
		case 7:
			s->step++;
			buf_printf(out, "\n%s\n%s", r->nonces[2], PROMPT_INSTRUCTION);
			return 1;
		default:
			return 0;
		}
	}
}

void
prompt_filler(uint64_t seed, int64_t words, struct buf *out)
{
	for (int64_t k = 0; k < words; k++) {
		buf_add(out, " ", 1);
		buf_adds(out, filler_words[next_rand(&seed) % N_WORDS]);
	}
}

void
prompt_build(const struct prompt_recipe *r, struct buf *out)
{
	struct prompt_stream s;
	/* About 7.5 bytes per word: reserve once instead of doubling through. */
	size_t guess = (size_t)(r->units + r->shared_units + r->planted_units) * 8 + 512;

	buf_init(out);
	out->data = xmalloc(guess);
	out->cap = guess;
	out->data[0] = '\0';
	prompt_stream_init(&s, r);
	while (prompt_stream_next(&s, out))
		;
}

cJSON *
prompt_recipe_json(const struct prompt_recipe *r)
{
	cJSON *j = cJSON_CreateObject(), *n = cJSON_AddArrayToObject(j, "nonces");
	char hex[32];

	/* 64-bit seeds as hex text: JSON numbers would lose bits. */
	cJSON_AddStringToObject(j, "generator", "aivet-filler-1");
	snprintf(hex, sizeof hex, "%016" PRIx64, r->seed);
	cJSON_AddStringToObject(j, "seed", hex);
	cJSON_AddNumberToObject(j, "units", (double)r->units);
	if (r->shared_units > 0) {
		snprintf(hex, sizeof hex, "%016" PRIx64, r->shared_seed);
		cJSON_AddStringToObject(j, "shared_seed", hex);
		cJSON_AddNumberToObject(j, "shared_units", (double)r->shared_units);
	}
	for (int i = 0; i < 3; i++)
		cJSON_AddItemToArray(n, cJSON_CreateString(r->nonces[i]));
	return j;
}

static int
parse_seed(const cJSON *j, const char *k, uint64_t *out, struct aerr *err)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	char *end;

	if (!cJSON_IsString(v) || strlen(v->valuestring) != 16)
		return aerr_set(err, AV_USAGE, "recipe: %s must be 16 hex digits", k);
	*out = strtoull(v->valuestring, &end, 16);
	if (*end != '\0')
		return aerr_set(err, AV_USAGE, "recipe: %s must be 16 hex digits", k);
	return 0;
}

int
prompt_recipe_parse(const cJSON *j, struct prompt_recipe *r, struct aerr *err)
{
	cJSON *units = cJSON_GetObjectItemCaseSensitive(j, "units");
	cJSON *su = cJSON_GetObjectItemCaseSensitive(j, "shared_units");
	cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "nonces");
	cJSON *gen = cJSON_GetObjectItemCaseSensitive(j, "generator");

	memset(r, 0, sizeof *r);
	if (!cJSON_IsString(gen) || strcmp(gen->valuestring, "aivet-filler-1") != 0)
		return aerr_set(err, AV_USAGE, "recipe: unknown generator");
	if (parse_seed(j, "seed", &r->seed, err) != 0)
		return err->code;
	if (!cJSON_IsNumber(units) || units->valuedouble < 0 || units->valuedouble > 1e9)
		return aerr_set(err, AV_USAGE, "recipe: units must be a number of words");
	r->units = (int64_t)units->valuedouble;
	if (su != NULL) {
		if (!cJSON_IsNumber(su) || su->valuedouble < 0 || su->valuedouble > 1e9)
			return aerr_set(err, AV_USAGE, "recipe: shared_units must be a number of words");
		r->shared_units = (int64_t)su->valuedouble;
		if (parse_seed(j, "shared_seed", &r->shared_seed, err) != 0)
			return err->code;
	}
	if (cJSON_GetArraySize(n) != 3)
		return aerr_set(err, AV_USAGE, "recipe: nonces must hold three strings");
	for (int i = 0; i < 3; i++) {
		cJSON *s = cJSON_GetArrayItem(n, i);

		if (!cJSON_IsString(s) || strlen(s->valuestring) != NONCE_LEN)
			return aerr_set(err, AV_USAGE, "recipe: nonce %d is not a %d-character nonce",
			    i + 1, NONCE_LEN);
		memcpy(r->nonces[i], s->valuestring, NONCE_LEN + 1);
	}
	return 0;
}
