/*
 * test-sim.c: unit tests of aivet-sim's parts that know nothing of HTTP:
 * the tokenizer, the KV pages and prefix cache, admission, and the toy
 * model reading its context back from the pages (including the incident:
 * a placeholder sequence reading another request's stale pages).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/tap.h"

/* ---- tokenizer ---- */

static const struct {
	const char *text;
	const char *pieces;   /* the expected pieces joined by '|' */
} tok_vectors[] = {
	{ "", "" },
	{ "hello world", "hell|o| |worl|d" },
	{ "identifier", "iden|tifi|er" },
	{ "CANARY_ab-12", "CANA|RY_a|b-12" },
	{ "a,b", "a|,|b" },
	{ "  \n\n  x", "  \n\n|  |x" },
	{ "user: hi\n", "user|:| |hi|\n" },
	{ "h\xc3\xa9llo", "h|\xc3\xa9|llo" },
	{ "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5|\xe6\x9c\xac" },
	{ "\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80|!" },
	{ "\xff\xfe", "\xff|\xfe" },          /* stray bytes: one token each */
	{ "\xe6\x97x", "\xe6\x97|x" },        /* truncated sequence */
};

static const struct sim_tokenizer pieces = { TOKENIZER_PIECES, NULL };

static void
test_tokenizer(void)
{
	for (size_t i = 0; i < sizeof tok_vectors / sizeof tok_vectors[0]; i++) {
		const char *text = tok_vectors[i].text;
		struct tokvec tv = { 0 };
		struct buf joined, whole;

		buf_init(&joined);
		buf_init(&whole);
		tok_encode(&pieces, text, strlen(text), &tv);
		for (size_t k = 0; k < tv.n; k++) {
			char scratch[4];
			size_t n;
			const char *piece = tok_text(&pieces, tv.v[k], scratch, &n);

			if (k > 0)
				buf_add(&joined, "|", 1);
			buf_add(&joined, piece, n);
			buf_add(&whole, piece, n);
		}
		is_str(joined.data ? joined.data : "", tok_vectors[i].pieces, "tokenize vector %zu", i);
		is_str(whole.data ? whole.data : "", text, "pieces of vector %zu give the text back", i);
		buf_free(&joined);
		buf_free(&whole);
		tokvec_free(&tv);
	}
	{
		struct tokvec tv = { 0 };

		tok_encode(&pieces, "abcd", 4, &tv);
		is_int(tv.n, 1, "'abcd' is one token");
		is_int(tv.v[0], 0x64636261, "a token's id is its bytes, little-endian");
		tokvec_free(&tv);
	}
}

/* The words tokenizer: about one token per word. */
static const struct {
	const char *text;
	const char *tokens;   /* the expected tokens joined by '|' */
	size_t n;
} words_vectors[] = {
	{ "", "", 0 },
	{ "hello world", "hello| world", 2 },
	{ "identifier", "identifier", 1 },
	{ "CANARY_ab-12", "CANARY_ab-12", 1 },
	{ "a,b", "a|,|b", 3 },
	{ "a  , b", "a|  ,| b", 3 },
	{ "  \n\n  x", "  \n\n  x", 1 },
	{ "x \n", "x| \n", 2 },                     /* whitespace ending the text is a token */
	{ "user: hi\n", "user|:| hi|\n", 4 },
	{ "The quick brown fox, it said.", "The| quick| brown| fox|,| it| said|.", 8 },
	{ "h\xc3\xa9llo", "h|\xc3\xa9|llo", 3 },
	{ "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5|\xe6\x9c\xac", 2 },
	{ "\xff\xfe", "\xff|\xfe", 2 },
	{ "supercalifragilisticexpialidocious_0123456789 end",
	    "supercalifragilisticexpialidocious_0123456789| end", 2 },
};

static void
test_words_tokenizer(void)
{
	struct sim_tokenizer tk;
	struct tokvec tv = { 0 }, tv2 = { 0 };
	struct buf text;
	size_t count = 0;

	tokenizer_init(&tk, TOKENIZER_WORDS);
	for (size_t i = 0; i < sizeof words_vectors / sizeof words_vectors[0]; i++) {
		const char *t = words_vectors[i].text;
		struct buf joined, whole;

		buf_init(&joined);
		buf_init(&whole);
		tv.n = 0;
		tok_encode(&tk, t, strlen(t), &tv);
		for (size_t k = 0; k < tv.n; k++) {
			char scratch[4];
			size_t n;
			const char *piece = tok_text(&tk, tv.v[k], scratch, &n);

			if (k > 0)
				buf_add(&joined, "|", 1);
			buf_add(&joined, piece, n);
			buf_add(&whole, piece, n);
		}
		is_int(tv.n, words_vectors[i].n, "words: vector %zu is %zu tokens", i, words_vectors[i].n);
		is_str(joined.data ? joined.data : "", words_vectors[i].tokens, "words: vector %zu's tokens", i);
		is_str(whole.data ? whole.data : "", t, "words: vector %zu's tokens give the text back", i);
		buf_free(&joined);
		buf_free(&whole);
	}
	tv.n = 0;
	tok_encode(&tk, "hi identifier hi identifier", 27, &tv);
	ok(tv.n == 4 && tv.v[0] == 0x6968 && tv.v[1] == tv.v[3] && tv.v[1] >= TOK_VOCAB_BASE,
	    "words: up to 3 bytes are packed, a longer token has one vocabulary id");
	tok_encode(&tk, "identifiers", 11, &tv2);
	ok(tv2.n == 1 && tv2.v[0] != tv.v[1], "words: another word, another id");
	tokvec_free(&tv2);

	/* A 1,048,576-token prompt of distinct words: the vocabulary grows to
	 * hold them all and every one reads back. */
	buf_init(&text);
	for (unsigned i = 0; i < 1048576; i++)
		buf_printf(&text, i ? " w%07u" : "w%07u", i);
	tv.n = 0;
	tok_encode(&tk, text.data, text.len, &tv);
	is_int(tv.n, 1048576, "words: 1,048,576 distinct words are 1,048,576 tokens");
	for (size_t k = 0; k < tv.n; k++) {
		char scratch[4];
		size_t n;
		const char *piece = tok_text(&tk, tv.v[k], scratch, &n);

		count += n;
		if (k == 1048575)
			ok(n == 9 && memcmp(piece, " w1048575", 9) == 0, "words: the last one reads back");
	}
	is_int(count, text.len, "words: all of them read back to the text's length");
	buf_free(&text);
	tokvec_free(&tv);
	tokenizer_free(&tk);

	/* The bound: 4 entries ("<ph>", "<unk>" and two words), then "<unk>". */
	tokenizer_init_bounded(&tk, TOKENIZER_WORDS, 4, 1 << 20);
	tok_encode(&tk, "alpha bravo charlie alpha bravo delta hi", 40, &tv);
	{
		struct buf back;

		buf_init(&back);
		for (size_t k = 0; k < tv.n; k++) {
			char scratch[4];
			size_t n;
			const char *piece = tok_text(&tk, tv.v[k], scratch, &n);

			buf_add(&back, piece, n);
			buf_add(&back, "|", 1);
		}
		/* " alpha", with its space, is a token of its own: a new one. */
		is_str(back.data, "alpha| bravo|<unk>|<unk>| bravo|<unk>| hi|",
		    "words: past the vocabulary's bound, new long tokens read back as <unk>");
		buf_free(&back);
	}
	tokvec_free(&tv);
	tokenizer_free(&tk);
	tokenizer_init_bounded(&tk, TOKENIZER_WORDS, 100, 20);
	tok_encode(&tk, "alpha bravo charlie delta", 25, &tv);
	ok(tv.n == 4 && tv.v[3] == tv.v[2] && tv.v[1] != tv.v[2],
	    "words: the text bound (20 bytes: <ph>, <unk>, alpha, \" bravo\") holds too");
	tokvec_free(&tv);
	tokenizer_free(&tk);
}

/* ---- pages ---- */

static void
test_pages(void)
{
	struct sim_pool p;
	struct sim_seq s = { 0 }, s2 = { 0 };
	struct aerr err = { 0 };
	sim_tok toks[40];

	is_int(pool_init(&p, 10, 16, PREFIX_OFF, 0, &err), AV_USAGE, "pool smaller than a page");
	is_str(err.msg, "--pool: 10 tokens do not hold one page of 16 tokens", "names the option");
	aerr_clear(&err);
	is_int(pool_init(&p, 70, 16, PREFIX_OFF, 0, &err), 0, "pool of 70 tokens in pages of 16");
	is_int(pool_capacity(&p), 64, "capacity counts whole pages only");
	is_int(pool_free_pages(&p), 4, "4 pages free");

	for (int i = 0; i < 40; i++)
		toks[i] = (sim_tok)(1000 + i);
	is_int(pool_prefill(&p, &s, NULL, toks, 20, 0), 0, "prefill 20 tokens, none cached");
	is_int(s.npages, 2, "20 tokens take 2 pages");
	is_int(s.len, 20, "sequence length 20");
	is_int(pool_free_pages(&p), 2, "2 pages left");
	is_int(pool_get(&p, &s, 0), 1000, "position 0 reads back");
	is_int(pool_get(&p, &s, 19), 1019, "position 19 reads back");
	is_int(pool_append(&p, &s, 7), 0, "decode appends a token");
	is_int(pool_get(&p, &s, 20), 7, "appended token at position 20");
	pool_release(&p, &s);
	is_int(pool_free_pages(&p), 4, "release frees both pages");

	is_int(pool_reserve(&p, &s2, 1000), 64, "a reservation is clamped to the capacity");
	is_int(s2.npages, 4, "reservation takes all 4 pages");
	is_int(pool_get(&p, &s2, 0), 1000, "pages are never cleared: position 0 still holds 1000");
	is_int(pool_get(&p, &s2, 20), 7, "the freed sequence's decode token is still there");
	is_int(pool_get(&p, &s2, 40), 0, "a never-written slot reads 0");
	s2.len = 64;
	is_int(pool_append(&p, &s2, 1), -1, "no page left for decode");
	pool_release(&p, &s2);

	is_int(pool_prefill(&p, &s, NULL, toks, 20, 30), 0, "prefill 20 tokens reserving 30 more");
	is_int(s.npages, 4, "50 positions take 4 pages");
	is_int(pool_free_pages(&p), 0, "none left");
	s.len = 50;
	is_int(pool_append(&p, &s, 1), 0, "decode writes into the reserved pages");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, NULL, toks, 20, 1000), 0, "a reservation past the pool");
	is_int(s.npages, 4, "is clamped to the pool");
	pool_release(&p, &s);
	pool_destroy(&p);
}

static void
test_prefix_cache(void)
{
	struct sim_pool p;
	struct sim_seq s = { 0 };
	struct aerr err = { 0 };
	sim_tok a[40], b[64];

	for (int i = 0; i < 40; i++)
		a[i] = (sim_tok)(5000 + i);
	for (int i = 0; i < 64; i++)
		b[i] = (sim_tok)(9000 + i);

	pool_init(&p, 128, 16, PREFIX_TENANT, 7, &err);
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 0, "tenant cache: first prefill misses");
	pool_release(&p, &s);
	is_int(pool_free_pages(&p), 8, "idle cached pages count as free");
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 32, "same tenant, same opening: 2 full pages cached");
	is_int(pool_get(&p, &s, 39), 5039, "the uncached tail is written");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "B", a, 40, 0), 0, "another tenant gets no hit");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 33, 0), 32, "a longer prompt's opening still hits");
	pool_release(&p, &s);
	pool_destroy(&p);

	pool_init(&p, 64, 16, PREFIX_GLOBAL, 7, &err);
	pool_prefill(&p, &s, "A", a, 40, 0);
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "B", a, 40, 0), 32, "global cache: another tenant hits");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "B", b, 64, 0), 0, "a different prompt misses");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 0, "filling the pool evicted the old opening");
	pool_release(&p, &s);
	pool_destroy(&p);

	/* Newest only: another prompt of the scope evicts the one before; other scopes keep theirs. */
	pool_init(&p, 512, 16, PREFIX_TENANT, 7, &err);
	p.newest = 1;
	pool_prefill(&p, &s, "A", a, 40, 0);
	pool_release(&p, &s);
	pool_prefill(&p, &s, "C", a, 40, 0);
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 32, "newest only: the newest prompt hits");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", b, 64, 0), 0, "newest only: another prompt misses");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 0, "newest only: and evicted the one before");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "C", a, 40, 0), 32, "newest only: another tenant's newest stays");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 24, 0), 16, "newest only: a shorter prompt reuses the opening");
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, "A", a, 40, 0), 16, "newest only: and keeps only what it held");
	pool_release(&p, &s);
	is_int(pool_free_pages(&p), 32, "newest only: evicted pages are free again");
	pool_destroy(&p);

	pool_init(&p, 64, 16, PREFIX_OFF, 7, &err);
	pool_prefill(&p, &s, NULL, a, 40, 0);
	pool_release(&p, &s);
	is_int(pool_prefill(&p, &s, NULL, a, 40, 0), 0, "cache off: no hit");
	pool_release(&p, &s);
	pool_destroy(&p);
}

/* ---- admission ---- */

static const struct {
	enum sim_fault fault;
	size_t context, capacity, n;
	enum sim_admit_kind kind;
	size_t limit, keep;
} admit_vectors[] = {
	{ FAULT_NONE, 1024, 256, 256, ADMIT_OK, 256, 256 },
	{ FAULT_NONE, 1024, 256, 257, ADMIT_REJECT, 256, 257 },
	{ FAULT_NONE, 1024, 256, 5000, ADMIT_REJECT, 256, 5000 },
	{ FAULT_NONE, 128, 256, 129, ADMIT_REJECT, 128, 129 },
	{ FAULT_NONE, 1048576, 681280, 681280, ADMIT_OK, 681280, 681280 },
	{ FAULT_NONE, 1048576, 681280, 681281, ADMIT_REJECT, 681280, 681281 },
	{ FAULT_NONE, 1048576, 681280, 1048576, ADMIT_REJECT, 681280, 1048576 },
	{ FAULT_DISAGG_PLACEHOLDER, 1024, 256, 256, ADMIT_OK, 256, 256 },
	{ FAULT_DISAGG_PLACEHOLDER, 1024, 256, 257, ADMIT_PLACEHOLDER, 1024, 257 },
	{ FAULT_DISAGG_PLACEHOLDER, 1024, 256, 1024, ADMIT_PLACEHOLDER, 1024, 1024 },
	{ FAULT_DISAGG_PLACEHOLDER, 1024, 256, 1025, ADMIT_REJECT, 1024, 1025 },
	{ FAULT_DISAGG_PLACEHOLDER, 1048576, 681280, 1048576, ADMIT_PLACEHOLDER, 1048576, 1048576 },
	{ FAULT_TRUNCATE_HEAD, 1024, 256, 300, ADMIT_TRUNCATE, 256, 256 },
	{ FAULT_TRUNCATE_HEAD, 1024, 256, 5000, ADMIT_TRUNCATE, 256, 256 },
	{ FAULT_TRUNCATE_HEAD, 1024, 256, 100, ADMIT_OK, 256, 100 },
	{ FAULT_ERROR_200, 1024, 256, 300, ADMIT_ERROR_200, 256, 300 },
	{ FAULT_STREAM_ERROR, 1024, 256, 300, ADMIT_REJECT, 256, 300 },
	{ FAULT_NO_USAGE, 1024, 256, 300, ADMIT_REJECT, 256, 300 },
	{ FAULT_STALE_DECODE, 1024, 256, 257, ADMIT_PLACEHOLDER, 1024, 257 },
	{ FAULT_STALE_DECODE, 1024, 256, 1025, ADMIT_REJECT, 1024, 1025 },
	{ FAULT_PLACEHOLDER_BLANK, 1024, 256, 1024, ADMIT_PLACEHOLDER, 1024, 1024 },
	{ FAULT_ACCEPT_OVERSIZE, 1024, 4096, 2048, ADMIT_OK, 4096, 2048 },
	{ FAULT_ACCEPT_OVERSIZE, 1024, 4096, 4097, ADMIT_REJECT, 4096, 4097 },
	{ FAULT_LOSE_MIDDLE, 1024, 256, 300, ADMIT_REJECT, 256, 300 },
};

static void
test_admission(void)
{
	for (size_t i = 0; i < sizeof admit_vectors / sizeof admit_vectors[0]; i++) {
		struct sim_admit a;
		enum sim_fault f = admit_vectors[i].fault;

		sim_admit(f == FAULT_NONE ? 0 : FAULT_BIT(f), admit_vectors[i].context, admit_vectors[i].capacity,
		    admit_vectors[i].n, &a);
		ok(a.kind == admit_vectors[i].kind && a.limit == admit_vectors[i].limit &&
		    a.keep == admit_vectors[i].keep, "admission vector %zu (%s, n=%zu)", i,
		    sim_fault_names[admit_vectors[i].fault], admit_vectors[i].n);
		if (a.kind != admit_vectors[i].kind || a.limit != admit_vectors[i].limit)
			printf("#   got kind %d limit %zu keep %zu\n", a.kind, a.limit, a.keep);
	}
}

static void
test_fault_sets(void)
{
	struct aerr err = { 0 };
	sim_faults set = 0;
	struct sim_admit a;
	char names[256];

	is_int(sim_faults_parse("stream-error,no-usage", &set, &err), 0, "a list of faults parses");
	is_int(sim_faults_parse("usage-one", &set, &err), 0, "a second list adds to the set");
	is_int(set, FAULT_BIT(FAULT_STREAM_ERROR) | FAULT_BIT(FAULT_NO_USAGE) | FAULT_BIT(FAULT_USAGE_ONE),
	    "the set holds all three");
	sim_faults_format(set, names, sizeof names);
	is_str(names, "stream-error,no-usage,usage-one", "formatted in the faults' order");
	is_int(sim_faults_parse("none", &set, &err), 0, "none parses");
	is_int(set, FAULT_BIT(FAULT_STREAM_ERROR) | FAULT_BIT(FAULT_NO_USAGE) | FAULT_BIT(FAULT_USAGE_ONE),
	    "and adds nothing");
	set = 0;
	sim_faults_format(set, names, sizeof names);
	is_str(names, "none", "the empty set is none");
	is_int(sim_faults_parse("no-usage,noisy-neighbor", &set, &err), AV_USAGE, "an unknown name");
	is_str(err.msg, "--fault: unknown fault 'noisy-neighbor' (see aivet-sim --help)", "is named");
	is_int(set, 0, "and the set is unchanged");
	aerr_clear(&err);
	sim_admit(FAULT_BIT(FAULT_STREAM_ERROR) | FAULT_BIT(FAULT_TRUNCATE_HEAD), 1024, 256, 300, &a);
	ok(a.kind == ADMIT_TRUNCATE && a.keep == 256, "admission: truncate-head still applies beside stream-error");
	sim_admit(FAULT_BIT(FAULT_NOISY_NEIGHBOUR) | FAULT_BIT(FAULT_USAGE_ONE), 1024, 256, 300, &a);
	ok(a.kind == ADMIT_REJECT, "admission: faults that do not decide admission refuse visibly");
}

/* ---- the engine: toy model over pages ---- */

static char *
run_gen(struct sim_engine *e, const char *tenant, const char *text, size_t max_tokens,
    struct sim_gen *g, int *rc)
{
	struct tokvec tv = { 0 };
	struct buf out;
	sim_tok t;

	buf_init(&out);
	tok_encode(&e->tok, text, strlen(text), &tv);
	*rc = sim_generate_start(e, tenant, &tv, max_tokens, max_tokens, g);
	tokvec_free(&tv);
	if (*rc != 0)
		return buf_steal(&out);
	while (sim_generate_step(e, g, &t)) {
		char scratch[4];
		size_t n;
		const char *piece = tok_text(&e->tok, t, scratch, &n);

		buf_add(&out, piece, n);
	}
	sim_generate_end(e, g);
	return buf_steal(&out);
}

static char *
filler(size_t words)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < words; i++)
		buf_adds(&b, "lorem ipsum dolor ");
	return buf_steal(&b);
}

static void
test_engine(void)
{
	struct sim_config cfg = { .context = 1024, .pool_tokens = 256, .page_size = 16 };
	struct sim_engine e = { .cfg = &cfg };
	struct aerr err = { 0 };
	struct sim_gen g;
	char *ans, *big = filler(60), *snap;
	size_t free_before;
	int rc;

	pool_init(&e.pool, cfg.pool_tokens, cfg.page_size, PREFIX_OFF, 0, &err);

	ans = run_gen(&e, "A", "user: keep CANARY_one_abcdef and short and CANARY_two_ghijkl\n", 100, &g, &rc);
	is_int(rc, 0, "a fitting prompt runs");
	is_str(ans, "CANARY_one_abcdef CANARY_two_ghijkl", "the model echoes its own identifiers in order");
	is_int(g.prompt_tokens, 24, "prompt tokens");
	is_int(g.emitted, 11, "completion tokens");
	is_int(sim_generate_cut(&g), 0, "not cut");
	free(ans);

	ans = run_gen(&e, "A", "user: keep CANARY_one_abcdef\n", 3, &g, &rc);
	is_str(ans, "CANARY_one_a", "max_tokens 3 cuts the answer after 3 tokens");
	is_int(sim_generate_cut(&g), 1, "cut by max_tokens");
	free(ans);

	ans = run_gen(&e, "A", "user: nothing long here\n", 100, &g, &rc);
	is_str(ans, MODEL_NOTHING_TO_SAY, "no identifiers: the fixed sentence");
	free(ans);

	/* fault none: over capacity is refused before any page is touched */
	free_before = pool_free_pages(&e.pool);
	snap = xmalloc(pool_capacity(&e.pool) * sizeof(sim_tok));
	memcpy(snap, e.pool.tok, pool_capacity(&e.pool) * sizeof(sim_tok));
	ans = run_gen(&e, "B", big, 100, &g, &rc);
	is_int(rc, -1, "fault none: over the pool is refused");
	is_int(g.admit.kind, ADMIT_REJECT, "as a rejection");
	is_int(g.admit.limit, 256, "at the pool's capacity, below the context");
	is_int(pool_free_pages(&e.pool), free_before, "no page taken");
	ok(memcmp(snap, e.pool.tok, pool_capacity(&e.pool) * sizeof(sim_tok)) == 0,
	    "no page written");
	free(ans);
	free(snap);

	/* the incident */
	cfg.faults = FAULT_BIT(FAULT_DISAGG_PLACEHOLDER);
	ans = run_gen(&e, "A", "user: record CANARY_A_secret_0001 and CANARY_A_secret_0002\n", 100, &g, &rc);
	is_str(ans, "CANARY_A_secret_0001 CANARY_A_secret_0002", "tenant A's answer");
	free(ans);
	ans = run_gen(&e, "B", big, 8, &g, &rc);
	is_int(rc, 0, "disagg-placeholder: B's oversize prompt runs");
	is_int(g.admit.kind, ADMIT_PLACEHOLDER, "as a placeholder");
	is_int(g.prompt_tokens, 1, "usage says 1 prompt token");
	is_str(ans, "CANARY_A_secret_0001 CANARY_A", "B reads A's canary from stale pages");
	is_int(sim_generate_cut(&g), 1, "and runs to max_tokens");
	free(ans);

	/* truncate-head keeps the tail */
	cfg.faults = FAULT_BIT(FAULT_TRUNCATE_HEAD);
	cfg.context = 200;   /* below the pool, so decode has pages left */
	{
		char *text = xasprintf("user: CANARY_head_000001 %s CANARY_tail_000002\n", big);

		ans = run_gen(&e, "B", text, 100, &g, &rc);
		is_int(rc, 0, "truncate-head: runs");
		is_int(g.prompt_tokens, 200, "usage reports the kept tokens");
		is_str(ans, "CANARY_tail_000002", "only the tail was kept");
		free(ans);
		free(text);
	}

	cfg.context = 1024;
	cfg.faults = FAULT_BIT(FAULT_ERROR_200);
	ans = run_gen(&e, "B", big, 100, &g, &rc);
	is_int(rc, -1, "error-200: refused");
	is_int(g.admit.kind, ADMIT_ERROR_200, "as an error in a 200");
	free(ans);

	free(big);
	pool_destroy(&e.pool);
}

/* The first window of PARAPHRASE_WINDOW bytes of answer found in text, or NULL. */
static char *
shared_window(const char *answer, const char *text)
{
	size_t n = strlen(answer);

	for (size_t i = 0; i + PARAPHRASE_WINDOW <= n; i++) {
		char w[PARAPHRASE_WINDOW + 1];

		memcpy(w, answer + i, PARAPHRASE_WINDOW);
		w[PARAPHRASE_WINDOW] = '\0';
		if (strstr(text, w) != NULL)
			return xstrdup(w);
	}
	return NULL;
}

static void
no_shared_window(const char *answer, const char *text, const char *what)
{
	char *w = shared_window(answer, text);

	ok(w == NULL && strlen(answer) > 0, "paraphrase: %s shares no %d bytes with what it read", what,
	    PARAPHRASE_WINDOW);
	if (w != NULL)
		printf("#   shared \"%s\" in \"%s\"\n", w, answer);
	free(w);
}

static void
test_paraphrase(void)
{
	struct sim_config cfg = { .context = 1024, .pool_tokens = 256, .page_size = 16,
		.behaviour = BEHAVIOUR_PARAPHRASE };
	struct sim_engine e = { .cfg = &cfg };
	struct aerr err = { 0 };
	struct sim_gen g;
	const char *canary = "user: keep CANARY_one_abcdef and short and CANARY_two_ghijkl\n";
	char *ans, *again, *prose, *echoed, *big = filler(60);
	struct buf b;
	int rc;

	pool_init(&e.pool, cfg.pool_tokens, cfg.page_size, PREFIX_OFF, 0, &err);
	ans = run_gen(&e, "A", canary, 100, &g, &rc);
	is_int(rc, 0, "paraphrase: a fitting prompt runs");
	no_shared_window(ans, canary, "the answer to a canary prompt");
	ok(strstr(ans, "CANARY") == NULL, "paraphrase: no nonce comes back");
	is_int(g.prompt_tokens, 24, "paraphrase: usage stays honest");
	{
		struct tokvec tv = { 0 };

		tok_encode(&pieces, ans, strlen(ans), &tv);
		is_int(g.emitted, tv.n, "paraphrase: completion tokens are the answer's");
		tokvec_free(&tv);
	}
	printf("# paraphrase: %s\n", ans);
	again = run_gen(&e, "A", canary, 100, &g, &rc);
	is_str(again, ans, "paraphrase: the same prompt gets the same answer");
	free(again);

	/* Prose made of the model's own words, and its previous answer quoted
	 * back: it still finds words that share no window with them. */
	buf_init(&b);
	buf_printf(&b, "user: %s\nassistant: %s\nuser: the idea seems fine and the point is clear so we "
	    "can reply with a short note about it, then later the story reads well and the main part "
	    "looks good today; you may also note that it will rarely feel rather quiet\n", ans, ans);
	prose = buf_steal(&b);
	again = run_gen(&e, "A", prose, 200, &g, &rc);
	no_shared_window(again, prose, "the answer to its own words");
	free(again);
	free(prose);
	free(ans);

	ans = run_gen(&e, "A", canary, 3, &g, &rc);
	is_int(g.emitted, 3, "paraphrase: max_tokens still cuts the answer");
	free(ans);

	/* The incident with a model that repeats nothing: B's placeholder run
	 * reads A's stale pages and says nothing of them. */
	cfg.faults = FAULT_BIT(FAULT_DISAGG_PLACEHOLDER);
	free(run_gen(&e, "A", "user: record CANARY_A_secret_0001 and CANARY_A_secret_0002\n", 100, &g, &rc));
	ans = run_gen(&e, "B", big, 100, &g, &rc);
	is_int(g.admit.kind, ADMIT_PLACEHOLDER, "paraphrase: disagg-placeholder still runs a placeholder");
	is_int(g.prompt_tokens, 1, "paraphrase: and usage says 1 prompt token");
	no_shared_window(ans, "user: record CANARY_A_secret_0001 and CANARY_A_secret_0002\n",
	    "the placeholder's answer over A's stale pages");
	no_shared_window(ans, big, "the placeholder's answer over B's own filler");
	cfg.behaviour = BEHAVIOUR_ECHO;
	echoed = run_gen(&e, "B", big, 100, &g, &rc);
	ok(strstr(echoed, "CANARY_A_secret_0002") != NULL,
	    "for contrast, echo over the same stale pages repeats A's canary");
	free(echoed);
	free(ans);
	pool_destroy(&e.pool);

	/* The words tokenizer under the engine: a 1,048,576-token prompt fits a
	 * pool that holds it, and the answer reads its last word. */
	cfg = (struct sim_config){ .context = 1048576 + 64, .pool_tokens = 1048576 + 64,
		.page_size = 16 };
	e = (struct sim_engine){ .cfg = &cfg };
	tokenizer_init(&e.tok, TOKENIZER_WORDS);
	pool_init(&e.pool, cfg.pool_tokens, cfg.page_size, PREFIX_OFF, 0, &err);
	buf_init(&b);
	for (size_t i = 0; i < 1048575; i++)
		buf_adds(&b, i ? " lorem" : "lorem");
	buf_adds(&b, " CANARY_words_end_01");
	prose = buf_steal(&b);
	ans = run_gen(&e, "A", prose, 10, &g, &rc);
	is_int(g.prompt_tokens, 1048576, "words: a 1,048,576-token prompt runs");
	is_str(ans, "CANARY_words_end_01", "words: echo reads back its last word");
	free(ans);
	cfg.behaviour = BEHAVIOUR_PARAPHRASE;
	ans = run_gen(&e, "A", prose, 100, &g, &rc);
	no_shared_window(ans, prose, "the words tokenizer's 1,048,576-token prompt");
	free(ans);
	free(prose);
	pool_destroy(&e.pool);
	tokenizer_free(&e.tok);
	free(big);
}

int
main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_tokenizer();
	test_words_tokenizer();
	test_pages();
	test_prefix_cache();
	test_admission();
	test_fault_sets();
	test_engine();
	test_paraphrase();
	return tap_done();
}
