/*
 * sim-engine.c: admission, prefill, decode and the toy model of aivet-sim.
 * Admission decides from token counts alone, before any page is touched.
 * Prefill writes the prompt into KV pages; decode reads the context back
 * from those pages, so whatever the pages hold is what the model "saw": a
 * correct run echoes the caller's own identifiers, a run over stale pages
 * echoes someone else's. Nothing about a leak is scripted here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

const char *const sim_fault_names[FAULT_COUNT] = {
	[FAULT_NONE] = "none",
	[FAULT_DISAGG_PLACEHOLDER] = "disagg-placeholder",
	[FAULT_TRUNCATE_HEAD] = "truncate-head",
	[FAULT_ERROR_200] = "error-200",
	[FAULT_STREAM_ERROR] = "stream-error",
	[FAULT_NO_USAGE] = "no-usage",
	[FAULT_STREAM_AS_JSON] = "stream-as-json",
	[FAULT_RATE_LIMIT] = "rate-limit",
	[FAULT_REDIRECT] = "redirect",
	[FAULT_HUGE_RESPONSE] = "huge-response",
	[FAULT_CLOSE_MID_BODY] = "close-mid-body",
	[FAULT_MALFORMED_500] = "malformed-500",
	[FAULT_USAGE_ONE] = "usage-one",
	[FAULT_NOISY_NEIGHBOUR] = "noisy-neighbour",
};

/* The special token the disaggregated prefill side sends when it aborts. */
#define PLACEHOLDER_TOKEN ((sim_tok)'<' | (sim_tok)'p' << 8 | (sim_tok)'h' << 16 | (sim_tok)'>' << 24)

int
sim_faults_parse(const char *list, sim_faults *set, struct aerr *err)
{
	char *copy = xstrdup(list), *save = NULL, *name;
	sim_faults add = 0;

	for (name = strtok_r(copy, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < FAULT_COUNT; i++)
			if (strcmp(sim_fault_names[i], name) == 0)
				break;
		if (i == FAULT_COUNT) {
			aerr_set(err, AV_USAGE, "--fault: unknown fault '%s' (see aivet-sim --help)", name);
			free(copy);
			return err->code;
		}
		if (i != FAULT_NONE)
			add |= FAULT_BIT(i);
	}
	free(copy);
	*set |= add;
	return 0;
}

void
sim_faults_format(sim_faults set, char *out, size_t outsz)
{
	size_t len = 0;

	snprintf(out, outsz, "none");
	for (int i = 1; i < FAULT_COUNT; i++) {
		if (!sim_has_fault(set, (enum sim_fault)i))
			continue;
		len += (size_t)snprintf(out + len, len < outsz ? outsz - len : 0, "%s%s",
		    len ? "," : "", sim_fault_names[i]);
		if (len >= outsz)
			len = outsz - 1;
	}
}

void
sim_admit(sim_faults faults, size_t context, size_t capacity, size_t n, struct sim_admit *out)
{
	size_t limit = context < capacity ? context : capacity;

	out->limit = limit;
	out->keep = n;
	out->kind = ADMIT_OK;
	if (n <= limit)
		return;
	if (sim_has_fault(faults, FAULT_DISAGG_PLACEHOLDER)) {
		/* The context check passes; only the KV admission on the prefill side aborts. */
		out->kind = n > context ? ADMIT_REJECT : ADMIT_PLACEHOLDER;
		out->limit = context;
	} else if (sim_has_fault(faults, FAULT_TRUNCATE_HEAD)) {
		out->kind = ADMIT_TRUNCATE;
		out->keep = limit;
	} else if (sim_has_fault(faults, FAULT_ERROR_200)) {
		out->kind = ADMIT_ERROR_200;
	} else {
		out->kind = ADMIT_REJECT;
	}
}

static void
answer_add_word(struct buf *out, struct buf *word)
{
	if (word->len >= 12) {
		if (out->len > 0)
			buf_add(out, " ", 1);
		buf_add(out, word->data, word->len);
	}
	word->len = 0;
}

void
model_answer(const struct sim_pool *p, const struct sim_seq *s, size_t ctx_len,
    size_t max_tokens, struct buf *out)
{
	/* A token is at most 4 bytes, so beyond this the answer is cut anyway. */
	size_t enough = max_tokens * 4 + 1;
	struct buf word;

	buf_init(&word);
	for (size_t pos = 0; pos < ctx_len && out->len <= enough; pos++) {
		char piece[4];
		size_t n = tok_piece(pool_get(p, s, pos), piece), i = 0;

		if (n == 0)   /* a slot nobody ever wrote */
			answer_add_word(out, &word);
		while (i < n) {
			size_t j = i;

			while (j < n && tok_is_word_char((unsigned char)piece[j]))
				j++;
			if (j > i && word.len <= enough)
				buf_add(&word, piece + i, j - i);
			if (j < n) {
				answer_add_word(out, &word);
				j++;
			}
			i = j;
		}
	}
	answer_add_word(out, &word);
	buf_free(&word);
	if (out->len == 0)
		buf_adds(out, MODEL_NOTHING_TO_SAY);
}

void
sim_sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	if (us == 0)
		return;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int
sim_generate_start(struct sim_engine *e, const char *tenant, const struct tokvec *prompt,
    size_t max_tokens, size_t reserve, struct sim_gen *g)
{
	struct sim_pool *p = &e->pool;
	const sim_tok *toks = prompt->v;
	size_t n = prompt->n, ctx_len = 0;
	struct buf text;

	memset(g, 0, sizeof *g);
	sim_admit(e->cfg->faults, (size_t)e->cfg->context, pool_capacity(p), n, &g->admit);
	switch (g->admit.kind) {
	case ADMIT_REJECT:
	case ADMIT_ERROR_200:
	case ADMIT_CLOSING:
		return -1;
	case ADMIT_PLACEHOLDER:
		/* The decode side already allocated KV for the original length; the
		 * transfer never fills it, and only the placeholder is written. */
		ctx_len = pool_reserve(p, &g->seq, n);
		if (ctx_len == POOL_CLOSED)
			break;
		pool_put(p, &g->seq, 0, PLACEHOLDER_TOKEN);
		g->seq.len = 1;
		g->prompt_tokens = 1;
		sim_sleep_us((uint64_t)e->cfg->prefill_us);
		break;
	case ADMIT_TRUNCATE:
		toks += n - g->admit.keep;
		n = g->admit.keep;
		/* fall through */
	case ADMIT_OK:
		/* Like a serving stack's admission, reserve room for max_tokens too. */
		g->cached_tokens = pool_prefill(p, &g->seq, tenant, toks, n, reserve);
		if (g->cached_tokens == POOL_CLOSED)
			break;
		g->prompt_tokens = ctx_len = n;
		sim_sleep_us((uint64_t)(n - g->cached_tokens) * (uint64_t)e->cfg->prefill_us);
		break;
	}
	if (g->cached_tokens == POOL_CLOSED || ctx_len == POOL_CLOSED) {
		g->cached_tokens = 0;
		g->admit.kind = ADMIT_CLOSING;
		return -1;
	}
	g->started = 1;
	buf_init(&text);
	model_answer(p, &g->seq, ctx_len, max_tokens, &text);
	tok_encode(text.data, text.len, &g->answer);
	buf_free(&text);
	if (g->answer.n > max_tokens) {
		g->answer.n = max_tokens;
		g->cut = 1;
	}
	return 0;
}

int
sim_generate_step(struct sim_engine *e, struct sim_gen *g, sim_tok *t)
{
	if (g->emitted >= g->answer.n)
		return 0;
	sim_sleep_us((uint64_t)e->cfg->decode_us);
	if (pool_append(&e->pool, &g->seq, g->answer.v[g->emitted]) != 0) {
		/* No page left for the next token: the sequence ends at the pool's limit. */
		g->answer.n = g->emitted;
		g->cut = 1;
		return 0;
	}
	*t = g->answer.v[g->emitted++];
	return 1;
}

int
sim_generate_cut(const struct sim_gen *g)
{
	return g->cut;
}

void
sim_generate_end(struct sim_engine *e, struct sim_gen *g)
{
	if (g->started)
		pool_release(&e->pool, &g->seq);
	tokvec_free(&g->answer);
	g->started = 0;
}
