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
	[FAULT_USAGE_COLLAPSE] = "usage-collapse",
	[FAULT_STALE_DECODE] = "stale-decode",
	[FAULT_PLACEHOLDER_BLANK] = "placeholder-blank",
	[FAULT_LOSE_MIDDLE] = "lose-middle",
	[FAULT_ACCEPT_OVERSIZE] = "accept-oversize",
	[FAULT_STREAMS_FAIL_AFTER] = "streams-fail-after",
	[FAULT_BAD_REQUEST_404] = "bad-request-404",
	[FAULT_UNKNOWN_MODEL_404] = "unknown-model-404",
	[FAULT_NO_CACHED_USAGE] = "no-cached-usage",
	[FAULT_KEEP_END_UNDER_CONTEXT] = "keep-end-under-context",
	[FAULT_ENGINE_UNREADABLE] = "engine-unreadable",
	[FAULT_MIXED_FLEET] = "mixed-fleet",
	[FAULT_OVERSIZE_FORBIDDEN] = "oversize-forbidden",
};

/* SGLang's server info: its server arguments and the scheduler's info flat, with
 * the version (python/sglang/srt/entrypoints/http_server.py, get_server_info).
 * max_req_input_len as the scheduler computes it, min(context_len - 1, pool - 1) - 5
 * (python/sglang/srt/managers/tp_worker.py); context_length null when the model's
 * own context is used (--engine-model-context), SGLang's default. */
cJSON *
sim_server_info(const struct sim_config *cfg)
{
	cJSON *o = cJSON_CreateObject();
	const char *mode = cfg->engine_mode ? cfg->engine_mode :
	    sim_has_fault(cfg->faults, FAULT_DISAGG_PLACEHOLDER) ? "decode" : "null";

	cJSON_AddStringToObject(o, "model_path", cfg->model);
	if (cfg->engine_model_context)
		cJSON_AddNullToObject(o, "context_length");
	else
		cJSON_AddNumberToObject(o, "context_length", (double)cfg->context);
	cJSON_AddNumberToObject(o, "page_size", (double)cfg->page_size);
	cJSON_AddNumberToObject(o, "chunked_prefill_size", 8192);
	cJSON_AddNullToObject(o, "max_total_tokens");
	cJSON_AddStringToObject(o, "disaggregation_mode", mode);
	cJSON_AddStringToObject(o, "disaggregation_transfer_backend", "mooncake");
	cJSON_AddNumberToObject(o, "tp_size", 8);
	cJSON_AddNumberToObject(o, "dp_size", 1);
	cJSON_AddStringToObject(o, "status", "ready");
	cJSON_AddNumberToObject(o, "max_total_num_tokens", (double)cfg->pool_tokens);
	cJSON_AddNumberToObject(o, "max_req_input_len", (double)(cfg->context < cfg->pool_tokens ?
	    cfg->context : cfg->pool_tokens) - 1 - 5);
	cJSON_AddItemToObject(o, "internal_states", cJSON_CreateArray());
	cJSON_AddStringToObject(o, "version", cfg->engine_version ? cfg->engine_version : "0.5.23");
	return o;
}

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

	/* accept-oversize: the context is never checked, only what the pool holds. */
	if (sim_has_fault(faults, FAULT_ACCEPT_OVERSIZE))
		limit = capacity;
	out->limit = limit;
	out->keep = n;
	out->kind = ADMIT_OK;
	if (sim_has_fault(faults, FAULT_KEEP_END_UNDER_CONTEXT)) {
		/* The context check is honest; past half the pool (room kept for the answer)
		 * only the end of the prompt is kept, silently. */
		if (n > context) {
			out->kind = ADMIT_REJECT;
			out->limit = context;
		} else if (n > capacity / 2) {
			out->kind = ADMIT_TRUNCATE;
			out->keep = capacity / 2;
			out->limit = capacity / 2;
		}
		return;
	}
	if (n <= limit)
		return;
	if (sim_has_fault(faults, FAULT_DISAGG_PLACEHOLDER) || sim_has_fault(faults, FAULT_STALE_DECODE) ||
	    sim_has_fault(faults, FAULT_PLACEHOLDER_BLANK)) {
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

/* Adds the word to the answer when it looks like an identifier; returns 1 then. */
static int
answer_add_word(struct buf *out, struct buf *word)
{
	int added = word->len >= 12;

	if (added) {
		if (out->len > 0)
			buf_add(out, " ", 1);
		buf_add(out, word->data, word->len);
	}
	word->len = 0;
	return added;
}

/* The identifiers of positions [from, to) of the sequence, appended to out. */
static void
answer_span(const struct sim_tokenizer *tk, const struct sim_pool *p, const struct sim_seq *s,
    size_t from, size_t to, size_t max_tokens, struct buf *out)
{
	/* A piece is at most 4 bytes, and every word is at least one token:
	 * beyond either bound the answer is cut anyway. */
	size_t enough = tk->kind == TOKENIZER_PIECES ? max_tokens * 4 + 1 : SIZE_MAX;
	size_t nwords = 0;
	struct buf word;

	buf_init(&word);
	for (size_t pos = from; pos < to && out->len <= enough && nwords <= max_tokens; pos++) {
		char scratch[4];
		size_t n, i = 0;
		const char *piece = tok_text(tk, pool_get(p, s, pos), scratch, &n);

		if (n == 0)   /* a slot nobody ever wrote */
			nwords += answer_add_word(out, &word);
		while (i < n) {
			size_t j = i;

			while (j < n && tok_is_word_char((unsigned char)piece[j]))
				j++;
			if (j > i && word.len <= enough)
				buf_add(&word, piece + i, j - i);
			if (j < n) {
				nwords += answer_add_word(out, &word);
				j++;
			}
			i = j;
		}
	}
	answer_add_word(out, &word);
	buf_free(&word);
}

void
model_answer(const struct sim_tokenizer *tk, const struct sim_pool *p, const struct sim_seq *s,
    size_t ctx_len, size_t max_tokens, struct buf *out)
{
	answer_span(tk, p, s, 0, ctx_len, max_tokens, out);
	if (out->len == 0)
		buf_adds(out, MODEL_NOTHING_TO_SAY);
}

/* Fault lose-middle: the model reads the first and last thirds only. */
static void
model_answer_ends(const struct sim_tokenizer *tk, const struct sim_pool *p, const struct sim_seq *s,
    size_t ctx_len, size_t max_tokens, struct buf *out)
{
	answer_span(tk, p, s, 0, ctx_len / 3, max_tokens, out);
	answer_span(tk, p, s, ctx_len - ctx_len / 3, ctx_len, max_tokens, out);
	if (out->len == 0)
		buf_adds(out, MODEL_NOTHING_TO_SAY);
}

/* ---- the model that cannot repeat text ---- */

/* Short, common words: none is an identifier, none is as long as the window. */
static const char *const para_vocab[] = {
	"the", "a", "this", "that", "it", "we", "you", "they", "can", "will", "may", "might",
	"seems", "looks", "reads", "feels", "fine", "clear", "short", "plain", "simple", "quiet",
	"note", "point", "idea", "reply", "answer", "story", "here", "there", "now", "then",
	"also", "still", "quite", "rather", "well", "good", "kind", "part", "whole", "main",
	"first", "last", "next", "some", "many", "few", "more", "less", "about", "with", "from",
	"for", "and", "but", "so", "of", "to", "in", "on", "at", "by", "after", "before", "over",
	"under", "again", "today", "soon", "later", "often", "rarely", "gently", "slowly",
};
#define PARA_NVOCAB (sizeof para_vocab / sizeof para_vocab[0])

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* A Bloom filter of every PARAPHRASE_WINDOW-byte window of the context, two
 * bit positions each. A false positive only rules out a harmless word; a
 * window of the context is never missed. */
struct windows {
	uint64_t *bits;
	unsigned shift;       /* 64 - log2(bit count) */
};

static void
windows_pos(const struct windows *w, uint64_t win, size_t pos[2])
{
	pos[0] = (size_t)((win * UINT64_C(0x9E3779B97F4A7C15)) >> w->shift);
	pos[1] = (size_t)(((win ^ (win >> 29)) * UINT64_C(0xBF58476D1CE4E5B9)) >> w->shift);
}

static int
windows_has(const struct windows *w, uint64_t win)
{
	size_t pos[2];

	windows_pos(w, win, pos);
	return (w->bits[pos[0] / 64] >> (pos[0] % 64) & 1) && (w->bits[pos[1] / 64] >> (pos[1] % 64) & 1);
}

static void
windows_fill(struct windows *w, const struct sim_tokenizer *tk, const struct sim_pool *p,
    const struct sim_seq *s, size_t ctx_len)
{
	size_t bytes = 0, seen = 0, nbits = (size_t)1 << 15;
	unsigned lg = 15;
	uint64_t win = 0;

	for (size_t pos = 0; pos < ctx_len; pos++) {
		char scratch[4];
		size_t n;

		tok_text(tk, pool_get(p, s, pos), scratch, &n);
		bytes += n;
	}
	/* About 16 bits a window keeps false positives near 1%; at most 32 MiB. */
	while (nbits < bytes * 16 && lg < 28) {
		nbits <<= 1;
		lg++;
	}
	w->bits = xcalloc(nbits / 64, sizeof *w->bits);
	w->shift = 64 - lg;
	for (size_t pos = 0; pos < ctx_len; pos++) {
		char scratch[4];
		size_t n, ip[2];
		const char *t = tok_text(tk, pool_get(p, s, pos), scratch, &n);

		for (size_t i = 0; i < n; i++) {
			win = win << 8 | (unsigned char)t[i];
			if (++seen < PARAPHRASE_WINDOW)
				continue;
			windows_pos(w, win, ip);
			w->bits[ip[0] / 64] |= UINT64_C(1) << (ip[0] % 64);
			w->bits[ip[1] / 64] |= UINT64_C(1) << (ip[1] % 64);
		}
	}
}

/* Appends add to out unless a window ending in it is one of the context's. */
static int
para_append(struct buf *out, const struct windows *w, const char *add)
{
	size_t old = out->len, n = strlen(add);
	uint64_t win = 0;
	size_t from = old >= PARAPHRASE_WINDOW - 1 ? old - (PARAPHRASE_WINDOW - 1) : 0;

	buf_add(out, add, n);
	for (size_t i = from; i < out->len; i++) {
		win = win << 8 | (unsigned char)out->data[i];
		if (i + 1 >= PARAPHRASE_WINDOW && i >= old && i + 1 - from >= PARAPHRASE_WINDOW &&
		    windows_has(w, win)) {
			out->len = old;
			out->data[old] = '\0';
			return 0;
		}
	}
	return 1;
}

void
model_paraphrase(const struct sim_tokenizer *tk, const struct sim_pool *p, const struct sim_seq *s,
    size_t ctx_len, struct buf *out)
{
	uint64_t state = (uint64_t)ctx_len;
	struct windows w;
	size_t base = out->len;

	windows_fill(&w, tk, p, s, ctx_len);
	for (int sentence = 0; sentence < 2; sentence++) {
		size_t nwords = 6 + (size_t)(splitmix64(&state) % 4);

		for (size_t k = 0; k < nwords; k++) {
			size_t first = (size_t)(splitmix64(&state) % PARA_NVOCAB), tried;

			for (tried = 0; tried < PARA_NVOCAB; tried++) {
				const char *word = para_vocab[(first + tried) % PARA_NVOCAB];
				char cand[16];

				snprintf(cand, sizeof cand, "%s%s", out->len > base ? " " : "", word);
				if (k == 0)
					cand[out->len > base] = (char)(cand[out->len > base] - 'a' + 'A');
				if (para_append(out, &w, cand))
					break;
			}
			if (tried == PARA_NVOCAB)
				goto done;
		}
		if (!para_append(out, &w, "."))
			goto done;
	}
done:
	free(w.bits);
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

	sim_faults faults = e->cfg->faults;
	size_t capacity = pool_capacity(p);

	memset(g, 0, sizeof *g);
	/* mixed-fleet: one backend in --fleet, round robin, is short of KV and substitutes. */
	if (sim_has_fault(faults, FAULT_MIXED_FLEET) &&
	    __atomic_fetch_add(&e->fleet_next, 1, __ATOMIC_RELAXED) % (uint64_t)e->cfg->fleet == 0) {
		faults |= FAULT_BIT(FAULT_PLACEHOLDER_BLANK);
		capacity /= 2;
	}
	sim_admit(faults, (size_t)e->cfg->context, capacity, n, &g->admit);
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
		pool_put(p, &g->seq, 0, tok_placeholder(&e->tok));
		g->seq.len = 1;
		g->prompt_tokens = 1;
		/* stale-decode: the same stale read, with usage that counts the prompt sent;
		 * placeholder-blank: the decode reads the placeholder alone. */
		if (sim_has_fault(faults, FAULT_STALE_DECODE))
			g->prompt_tokens = n;
		if (sim_has_fault(faults, FAULT_PLACEHOLDER_BLANK))
			ctx_len = 1;
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
		sim_sleep_us((uint64_t)(n - g->cached_tokens) * (uint64_t)e->cfg->prefill_us +
		    sim_noise_us(e->cfg));
		break;
	}
	if (g->cached_tokens == POOL_CLOSED || ctx_len == POOL_CLOSED) {
		g->cached_tokens = 0;
		g->admit.kind = ADMIT_CLOSING;
		return -1;
	}
	g->started = 1;
	buf_init(&text);
	if (e->cfg->behaviour == BEHAVIOUR_PARAPHRASE)
		model_paraphrase(&e->tok, p, &g->seq, ctx_len, &text);
	else if (sim_has_fault(e->cfg->faults, FAULT_LOSE_MIDDLE) &&
	    g->admit.kind == ADMIT_OK && n > (size_t)e->cfg->context / 2)
		model_answer_ends(&e->tok, p, &g->seq, ctx_len, max_tokens, &text);
	else
		model_answer(&e->tok, p, &g->seq, ctx_len, max_tokens, &text);
	tok_encode(&e->tok, text.data ? text.data : "", text.len, &g->answer);
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
