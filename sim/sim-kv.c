/*
 * sim-kv.c: aivet-sim's KV cache, one pool of fixed-size pages shared by all
 * tenants, like GPU memory in a serving stack. Pages go back to the pool
 * when a request ends and are never cleared, so whoever takes a page next
 * finds what the last owner wrote. Full prompt pages may stay in a prefix
 * cache (keyed by a chained hash of the opening, per tenant or global) and
 * are evicted least recently used when the free stack runs dry; with
 * `newest` a scope keeps only its newest prompt's pages, as a cache with one
 * slot per tenant does, so a prompt must be sent again to be found again.
 * With `displace` a tenant's prompt drops the other tenants' cached pages
 * once served (as a slot the next tenant's request takes over): a tenant's
 * own repeats are found, another's prompt only right after it was sent.
 * With `mask_digits` pages match whatever digits they hold (a cache that
 * normalises numbers): its counts no longer tell one digit from another.
 *
 * With --prefix-cache-slots the count follows llama.cpp's server instead
 * (ggml-org/llama.cpp, tools/server/server-context.cpp get_available_slot()
 * and tools/server/server-task.cpp server_prompt_cache::load(), as of tag
 * b12074, commit dc02e1f8): one cache for every key; N slots each keep their
 * last prompt, a request goes to the idle slot whose prompt covers the largest
 * fraction of it (over 0.1, --slot-prompt-similarity's default), else to the
 * least recently used slot; when that slot would keep under half of its prompt
 * (or was taken by age) its prompt goes to the prompt cache, and a cached
 * prompt replaces it only when it beats it on both the kept fraction (the
 * common prefix over the cached prompt) and the similarity (over the new
 * prompt), and keeps a quarter of itself. The count is the common prefix with
 * the slot's prompt, to the token, less one when it is the whole prompt (the
 * server evaluates the last token again for its logits). Pages still hold the
 * tokens; they are not shared.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define NONE (-1)

int
pool_init(struct sim_pool *p, int64_t pool_tokens, int64_t page_size,
    enum sim_prefix_cache mode, int64_t seed, struct aerr *err)
{
	uint64_t s = (uint64_t)seed;

	memset(p, 0, sizeof *p);
	if (page_size < 1 || page_size > (1 << 20))
		return aerr_set(err, AV_USAGE, "--page-size: %lld is out of range (1 to 1048576)",
		    (long long)page_size);
	if (pool_tokens < page_size)
		return aerr_set(err, AV_USAGE, "--pool: %lld tokens do not hold one page of %lld tokens",
		    (long long)pool_tokens, (long long)page_size);
	if (pool_tokens / page_size > INT32_MAX)
		return aerr_set(err, AV_USAGE, "--pool: %lld tokens make too many pages",
		    (long long)pool_tokens);
	p->page_size = (uint32_t)page_size;
	p->npages = (uint32_t)(pool_tokens / page_size);
	p->mode = mode;
	/* calloc'd slots are mapped lazily: an unused pool costs no memory. */
	p->tok = xcalloc((size_t)p->npages * p->page_size, sizeof *p->tok);
	p->pg = xcalloc(p->npages, sizeof *p->pg);
	for (uint32_t i = 0; i < p->npages; i++) {
		p->pg[i].free_next = i + 1 < p->npages ? (int32_t)(i + 1) : NONE;
		p->pg[i].hash_next = p->pg[i].lru_prev = p->pg[i].lru_next = NONE;
	}
	p->free_top = 0;
	p->nfree = p->npages;
	for (p->nbuckets = 1; p->nbuckets < p->npages; p->nbuckets <<= 1)
		;
	p->bucket = xmalloc(p->nbuckets * sizeof *p->bucket);
	for (uint32_t i = 0; i < p->nbuckets; i++)
		p->bucket[i] = NONE;
	p->lru_head = p->lru_tail = NONE;
	crypto_generichash(p->key, sizeof p->key, (const unsigned char *)&s, sizeof s, NULL, 0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->freed, NULL);
	return 0;
}

void
pool_destroy(struct sim_pool *p)
{
	if (p->pg == NULL)
		return;
	for (size_t i = 0; i < p->nslots; i++)
		free(p->slot[i].v);
	for (size_t i = 0; i < p->nsaved; i++)
		free(p->saved[i].v);
	free(p->slot);
	free(p->saved);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->freed);
	free(p->tok);
	free(p->pg);
	free(p->bucket);
	memset(p, 0, sizeof *p);
}

size_t
pool_capacity(const struct sim_pool *p)
{
	return (size_t)p->npages * p->page_size;
}

size_t
pool_free_pages(struct sim_pool *p)
{
	size_t n;

	pthread_mutex_lock(&p->mu);
	n = (size_t)p->nfree + p->nidle;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static sim_tok *
slots(const struct sim_pool *p, uint32_t page)
{
	return p->tok + (size_t)page * p->page_size;
}

/* ---- prefix cache: hash chains and the LRU list of idle cached pages ---- */

static uint64_t
chain_hash(const struct sim_pool *p, uint64_t prev, const void *data, size_t len)
{
	crypto_generichash_state st;
	unsigned char h[crypto_generichash_BYTES_MIN];
	uint64_t v;

	crypto_generichash_init(&st, p->key, sizeof p->key, sizeof h);
	crypto_generichash_update(&st, (const unsigned char *)&prev, sizeof prev);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, h, sizeof h);
	memcpy(&v, h, sizeof v);
	return v;
}

/* A token as the cache compares it: with mask_digits a one-digit piece (its id is its byte)
 * is any digit. */
static sim_tok
tok_masked(const struct sim_pool *p, sim_tok t)
{
	return p->mask_digits && t >= '0' && t <= '9' ? '0' : t;
}

static int
page_equal(const struct sim_pool *p, const sim_tok *a, const sim_tok *b)
{
	for (uint32_t k = 0; k < p->page_size; k++)
		if (tok_masked(p, a[k]) != tok_masked(p, b[k]))
			return 0;
	return 1;
}

/* The chained hash of one page, of its tokens as the cache compares them. */
static uint64_t
page_hash(const struct sim_pool *p, uint64_t prev, const sim_tok *toks)
{
	sim_tok *m;
	uint64_t h;

	if (!p->mask_digits)
		return chain_hash(p, prev, toks, p->page_size * sizeof *toks);
	m = xmalloc(p->page_size * sizeof *m);
	for (uint32_t k = 0; k < p->page_size; k++)
		m[k] = tok_masked(p, toks[k]);
	h = chain_hash(p, prev, m, p->page_size * sizeof *m);
	free(m);
	return h;
}

static int32_t
cache_lookup(const struct sim_pool *p, uint64_t h, const sim_tok *toks)
{
	for (int32_t i = p->bucket[h & (p->nbuckets - 1)]; i != NONE; i = p->pg[i].hash_next)
		if (p->pg[i].hash == h && page_equal(p, slots(p, (uint32_t)i), toks))
			return i;
	return NONE;
}

static void
cache_insert(struct sim_pool *p, uint32_t page, uint64_t h)
{
	int32_t *b = &p->bucket[h & (p->nbuckets - 1)];

	p->pg[page].hash = h;
	p->pg[page].cached = 1;
	p->pg[page].hash_next = *b;
	*b = (int32_t)page;
}

static void
cache_remove(struct sim_pool *p, uint32_t page)
{
	int32_t *link = &p->bucket[p->pg[page].hash & (p->nbuckets - 1)];

	while (*link != (int32_t)page)
		link = &p->pg[*link].hash_next;
	*link = p->pg[page].hash_next;
	p->pg[page].hash_next = NONE;
	p->pg[page].cached = 0;
}

static void
lru_unlink(struct sim_pool *p, uint32_t page)
{
	struct sim_page *g = &p->pg[page];

	if (g->lru_prev != NONE)
		p->pg[g->lru_prev].lru_next = g->lru_next;
	else
		p->lru_head = g->lru_next;
	if (g->lru_next != NONE)
		p->pg[g->lru_next].lru_prev = g->lru_prev;
	else
		p->lru_tail = g->lru_prev;
	g->lru_prev = g->lru_next = NONE;
	p->nidle--;
}

static void
lru_append(struct sim_pool *p, uint32_t page)
{
	struct sim_page *g = &p->pg[page];

	g->lru_prev = p->lru_tail;
	g->lru_next = NONE;
	if (p->lru_tail != NONE)
		p->pg[p->lru_tail].lru_next = (int32_t)page;
	else
		p->lru_head = (int32_t)page;
	p->lru_tail = (int32_t)page;
	p->nidle++;
}

/* ---- page ownership (all under p->mu) ---- */

/* Takes a free page, else evicts the least recently used idle cached page. */
static uint32_t
take_page(struct sim_pool *p)
{
	uint32_t page;

	if (p->free_top != NONE) {
		page = (uint32_t)p->free_top;
		p->free_top = p->pg[page].free_next;
		p->nfree--;
	} else {
		page = (uint32_t)p->lru_head;
		lru_unlink(p, page);
		cache_remove(p, page);
	}
	p->pg[page].ref = 1;
	return page;
}

static void
seq_add_page(struct sim_seq *s, uint32_t page)
{
	if (s->npages == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->pages = xrealloc(s->pages, s->cap * sizeof *s->pages);
	}
	s->pages[s->npages++] = page;
}

/* A newest-only cache: the pages of scope root (others: of every owner but root) that are
 * not among keep[0, n) leave the cache (an idle one becomes free). Under p->mu. */
static void
cache_keep_only(struct sim_pool *p, uint64_t root, int others, const uint32_t *keep, size_t n)
{
	for (uint32_t i = 0; i < p->npages; i++) {
		size_t k;

		if (!p->pg[i].cached || (others ? p->pg[i].owner == root : p->pg[i].scope != root))
			continue;
		for (k = 0; k < n && keep[k] != i; k++)
			;
		if (k < n)
			continue;
		cache_remove(p, i);
		if (p->pg[i].ref == 0) {
			lru_unlink(p, i);
			p->pg[i].free_next = p->free_top;
			p->free_top = (int32_t)i;
			p->nfree++;
		}
	}
}

/* ---- llama.cpp's server: slots and a prompt cache (--prefix-cache-slots) ---- */

#define SLOT_SIMILARITY 0.1f      /* llama-server's --slot-prompt-similarity default */
#define SAVED_MAX 64              /* prompts the cache keeps; the server bounds it in bytes */

void
pool_slots_init(struct sim_pool *p, size_t nslots)
{
	p->nslots = nslots;
	p->slot = nslots > 0 ? xcalloc(nslots, sizeof *p->slot) : NULL;
	p->saved = nslots > 0 ? xcalloc(SAVED_MAX, sizeof *p->saved) : NULL;
}

static size_t
prompt_lcp(const struct sim_prompt *a, const sim_tok *toks, size_t n)
{
	size_t i = 0;

	while (i < a->n && i < n && a->v[i] == toks[i])
		i++;
	return i;
}

static void
prompt_set(struct sim_prompt *d, const sim_tok *toks, size_t n)
{
	d->v = xrealloc(d->v, (n > 0 ? n : 1) * sizeof *toks);
	memcpy(d->v, toks, n * sizeof *toks);
	d->n = n;
}

static void
saved_drop(struct sim_pool *p, size_t i)
{
	free(p->saved[i].v);
	memmove(&p->saved[i], &p->saved[i + 1], (p->nsaved - i - 1) * sizeof *p->saved);
	p->nsaved--;
}

/* The slot's prompt goes to the prompt cache, unless a cached one holds it whole; cached
 * prompts it holds whole leave, and the oldest when the cache is full. */
static void
saved_put(struct sim_pool *p, const struct sim_prompt *sl)
{
	for (size_t i = 0; i < p->nsaved; i++)
		if (prompt_lcp(&p->saved[i], sl->v, sl->n) == sl->n)
			return;
	for (size_t i = p->nsaved; i-- > 0;)
		if (prompt_lcp(&p->saved[i], sl->v, sl->n) == p->saved[i].n)
			saved_drop(p, i);
	if (p->nsaved == SAVED_MAX)
		saved_drop(p, 0);
	memset(&p->saved[p->nsaved], 0, sizeof *p->saved);
	prompt_set(&p->saved[p->nsaved++], sl->v, sl->n);
}

/* server_prompt_cache::load(): a cached prompt replaces the slot's only when it beats it on
 * both the kept fraction and the similarity, and keeps at least a quarter of itself. */
static void
saved_load(struct sim_pool *p, struct sim_prompt *sl, const sim_tok *toks, size_t n)
{
	size_t lcp = prompt_lcp(sl, toks, n), best = p->nsaved;
	float keep_best = (float)lcp / (float)sl->n, sim_best = (float)lcp / (float)n;

	for (size_t i = 0; i < p->nsaved; i++) {
		size_t l = prompt_lcp(&p->saved[i], toks, n);
		float keep = (float)l / (float)p->saved[i].n, sim = (float)l / (float)n;

		if (keep < 0.25f)
			continue;
		if (keep_best < keep && sim_best < sim) {
			keep_best = keep;
			sim_best = sim;
			best = i;
		}
	}
	if (best == p->nsaved)
		return;
	free(sl->v);
	sl->v = p->saved[best].v;
	sl->n = p->saved[best].n;
	p->saved[best].v = NULL;
	saved_drop(p, best);
}

/* get_available_slot(): the slot a prompt of n tokens goes to, and what it is served from
 * cache; the slot then keeps the prompt and an answer of `answer` tokens, as a model that
 * writes to its max_tokens does (the answer's share of the slot decides whether the next
 * prompt sends it to the prompt cache). Requests are taken one at a time (every slot counts
 * as idle). Under p->mu. */
static size_t
slots_serve(struct sim_pool *p, const sim_tok *toks, size_t n, size_t answer)
{
	struct sim_prompt *sl = NULL;
	float sim_best = 0;
	size_t lcp;
	int update;

	for (size_t i = 0; i < p->nslots && n > 0; i++) {
		float sim;

		if (p->slot[i].n == 0)
			continue;
		sim = (float)prompt_lcp(&p->slot[i], toks, n) / (float)n;
		if (sim > sim_best && sim > SLOT_SIMILARITY) {
			sim_best = sim;
			sl = &p->slot[i];
		}
	}
	if (sl != NULL) {
		/* About to lose over half the slot's prompt: it goes to the prompt cache. */
		update = sim_best * (float)n / (float)sl->n < 0.5f;
	} else {
		for (size_t i = 0; i < p->nslots; i++)
			if (sl == NULL || p->slot[i].last_used <= sl->last_used)
				sl = &p->slot[i];
		update = 1;
	}
	if (update && sl->n > 0 && n > 0) {
		saved_put(p, sl);
		saved_load(p, sl, toks, n);
	}
	lcp = prompt_lcp(sl, toks, n);
	if (lcp == n && lcp > 0)
		lcp--;
	prompt_set(sl, toks, n);
	/* Answer tokens no prompt holds: a prompt's own ids are never all ones. */
	sl->v = xrealloc(sl->v, (n + answer > 0 ? n + answer : 1) * sizeof *sl->v);
	memset(sl->v + n, 0xff, answer * sizeof *sl->v);
	sl->n = n + answer;
	sl->last_used = ++p->clock;
	return lcp;
}

size_t
pool_prefill(struct sim_pool *p, struct sim_seq *s, const char *scope,
    const sim_tok *toks, size_t n, size_t extra)
{
	size_t ps = p->page_size, nfull = n / ps, hits, total;
	size_t want = extra < pool_capacity(p) - n ? n + extra : pool_capacity(p);
	uint64_t *h = NULL, root = 0, owner = chain_hash(p, 0, scope ? scope : "",
	    scope ? strlen(scope) : 0);

	total = (want + ps - 1) / ps;

	if (p->mode == PREFIX_GLOBAL)
		scope = NULL;
	if (p->mode != PREFIX_OFF && p->nslots == 0 && nfull > 0) {
		uint64_t prev = chain_hash(p, 0, scope ? scope : "", scope ? strlen(scope) : 0);

		root = prev;
		h = xmalloc(nfull * sizeof *h);
		for (size_t i = 0; i < nfull; i++)
			prev = h[i] = page_hash(p, prev, toks + i * ps);
	}
	pthread_mutex_lock(&p->mu);
	for (;;) {
		size_t idle_hits = 0;

		s->npages = 0;
		for (hits = 0; h != NULL && hits < nfull; hits++) {
			int32_t page = cache_lookup(p, h[hits], toks + hits * ps);

			if (page == NONE)
				break;
			idle_hits += p->pg[page].ref == 0;
			seq_add_page(s, (uint32_t)page);
		}
		/* All or nothing, so no sequence waits while holding pages. */
		if (total - hits <= (size_t)p->nfree + p->nidle - idle_hits)
			break;
		if (p->closing) {
			pthread_mutex_unlock(&p->mu);
			free(s->pages);
			memset(s, 0, sizeof *s);
			free(h);
			return POOL_CLOSED;
		}
		pthread_cond_wait(&p->freed, &p->mu);
	}
	for (size_t i = 0; i < hits; i++)
		if (p->pg[s->pages[i]].ref++ == 0)
			lru_unlink(p, s->pages[i]);
	for (size_t i = hits; i < total; i++)
		seq_add_page(s, take_page(p));
	pthread_mutex_unlock(&p->mu);

	/* The new pages are ours alone: write them without the lock. */
	for (size_t i = hits; i * ps < n; i++) {
		size_t k = n - i * ps < ps ? n - i * ps : ps;

		memcpy(slots(p, s->pages[i]), toks + i * ps, k * sizeof *toks);
	}
	s->len = n;
	if (p->nslots > 0) {
		pthread_mutex_lock(&p->mu);
		hits = slots_serve(p, toks, n, extra);
		pthread_mutex_unlock(&p->mu);
		return p->max_cached > 0 && hits > p->max_cached ? p->max_cached : hits;
	}
	if (h != NULL) {
		pthread_mutex_lock(&p->mu);
		/* Newest only: the scope forgets every prompt but the opening this one reused. */
		if (p->newest)
			cache_keep_only(p, root, 0, s->pages, hits);
		if (p->displace)
			cache_keep_only(p, owner, 1, s->pages, hits);
		for (size_t i = hits; i < nfull; i++)
			if (cache_lookup(p, h[i], toks + i * ps) == NONE) {
				cache_insert(p, s->pages[i], h[i]);
				p->pg[s->pages[i]].scope = root;
				p->pg[s->pages[i]].owner = owner;
			}
		pthread_mutex_unlock(&p->mu);
		free(h);
	}
	/* --prefix-cache-max: only the opening is served, in whole pages. */
	if (p->max_cached > 0 && hits * ps > p->max_cached)
		return p->max_cached / ps * ps;
	return hits * ps;
}

size_t
pool_reserve(struct sim_pool *p, struct sim_seq *s, size_t n)
{
	size_t ps = p->page_size, total;

	if (n > pool_capacity(p))
		n = pool_capacity(p);
	total = (n + ps - 1) / ps;
	pthread_mutex_lock(&p->mu);
	while (total > (size_t)p->nfree + p->nidle) {
		if (p->closing) {
			pthread_mutex_unlock(&p->mu);
			return POOL_CLOSED;
		}
		pthread_cond_wait(&p->freed, &p->mu);
	}
	for (size_t i = 0; i < total; i++)
		seq_add_page(s, take_page(p));
	pthread_mutex_unlock(&p->mu);
	s->len = 0;
	return n;
}

void
pool_close(struct sim_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->closing = 1;
	pthread_cond_broadcast(&p->freed);
	pthread_mutex_unlock(&p->mu);
}

void
pool_put(struct sim_pool *p, struct sim_seq *s, size_t pos, sim_tok t)
{
	slots(p, s->pages[pos / p->page_size])[pos % p->page_size] = t;
}

sim_tok
pool_get(const struct sim_pool *p, const struct sim_seq *s, size_t pos)
{
	return slots(p, s->pages[pos / p->page_size])[pos % p->page_size];
}

int
pool_append(struct sim_pool *p, struct sim_seq *s, sim_tok t)
{
	if (s->len == s->npages * p->page_size) {
		pthread_mutex_lock(&p->mu);
		if (p->nfree + p->nidle == 0) {
			pthread_mutex_unlock(&p->mu);
			return -1;
		}
		seq_add_page(s, take_page(p));
		pthread_mutex_unlock(&p->mu);
	}
	pool_put(p, s, s->len++, t);
	return 0;
}

void
pool_release(struct sim_pool *p, struct sim_seq *s)
{
	pthread_mutex_lock(&p->mu);
	/* In reverse, so the next taker pops them in this sequence's order. */
	for (size_t i = s->npages; i-- > 0;) {
		uint32_t page = s->pages[i];

		if (--p->pg[page].ref > 0)
			continue;
		if (p->pg[page].cached) {
			lru_append(p, page);
		} else {
			p->pg[page].free_next = p->free_top;
			p->free_top = (int32_t)page;
			p->nfree++;
		}
	}
	pthread_cond_broadcast(&p->freed);
	pthread_mutex_unlock(&p->mu);
	free(s->pages);
	memset(s, 0, sizeof *s);
}
