/*
 * sim.h: the parts of aivet-sim, a simulated multi-tenant inference vendor.
 * The tokenizer, the paged KV pool with its prefix cache, admission and the
 * toy model know nothing of HTTP and are unit-tested on their own; sim-api.c
 * speaks the OpenAI and Anthropic wire shapes and sim-http.c serves them with
 * libmicrohttpd.
 */
#ifndef AIVET_SIM_H
#define AIVET_SIM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sodium.h>

#include "aivet/base.h"

/* ---- configuration (sim-main.c fills it from the command line) ---- */

/* The ways the vendor misbehaves. A server has a set of them (sim_faults,
 * one bit per fault); the empty set is a correct server. */
enum sim_fault {
	FAULT_NONE,
	FAULT_DISAGG_PLACEHOLDER, /* the incident: oversize prompt becomes a placeholder, decode reads stale pages */
	FAULT_TRUNCATE_HEAD,      /* over capacity: keep the last tokens silently */
	FAULT_ERROR_200,          /* over capacity: HTTP 200 carrying an error object */
	FAULT_STREAM_ERROR,       /* streams end in an error event instead of finishing */
	FAULT_NO_USAGE,           /* usage omitted everywhere */
	FAULT_STREAM_AS_JSON,     /* stream:true answered with plain JSON */
	FAULT_RATE_LIMIT,         /* the first --rate-limit-count requests get 429 */
	FAULT_REDIRECT,           /* every request gets 307 to --redirect-to */
	FAULT_HUGE_RESPONSE,      /* 200 with a JSON body padded to --huge-bytes */
	FAULT_CLOSE_MID_BODY,     /* headers and part of the body, then the connection closes */
	FAULT_MALFORMED_500,      /* a body that is not JSON gets a 500 (as llama.cpp's server does) */
	FAULT_USAGE_ONE,          /* usage always says 1 prompt token */
	FAULT_NOISY_NEIGHBOUR,    /* a tenant's large prompt makes other tenants' requests fail */
	/* Faults that each show one signal alone, so that every judging rule has a
	 * vendor exercising it without the others. */
	FAULT_USAGE_COLLAPSE,     /* prompts over half the context report 1 token; answers are whole */
	FAULT_STALE_DECODE,       /* over the pool: decode reads stale pages; usage stays honest */
	FAULT_PLACEHOLDER_BLANK,  /* over the pool: a 1-token placeholder over blank pages */
	FAULT_LOSE_MIDDLE,        /* prompts over half the context: the middle third goes unread */
	FAULT_ACCEPT_OVERSIZE,    /* prompts over the context are served, up to the pool */
	FAULT_STREAMS_FAIL_AFTER,         /* streamed requests after the first --fail-after N get 500 */
	FAULT_BAD_REQUEST_404,    /* malformed or incomplete requests get 404; valid ones are served */
	FAULT_UNKNOWN_MODEL_404,  /* a request naming another model than --model gets 404 */
	FAULT_NO_CACHED_USAGE,    /* usage says nothing of the prompt cache (no cached counts) */
	FAULT_KEEP_END_UNDER_CONTEXT, /* prompts over half the pool but within the context: keep
	                           * their last half-pool tokens silently (HTTP 200, usage of what
	                           * was kept); over the context: 400 */
	FAULT_ENGINE_UNREADABLE,  /* the engine's status (/get_server_info) answers 500 */
	FAULT_MIXED_FLEET,        /* a load balancer over --fleet N backends, round robin: the first
	                           * has half the pool and answers a prompt over it from a 1-token
	                           * placeholder (as placeholder-blank); the others are correct */
	FAULT_OVERSIZE_FORBIDDEN, /* prompts over the context get 403 (a policy refusal, not one for
	                           * size); the others are served */
	FAULT_COUNT
};
extern const char *const sim_fault_names[FAULT_COUNT];

typedef uint64_t sim_faults;
#define FAULT_BIT(f) ((sim_faults)1 << (f))
static inline int
sim_has_fault(sim_faults set, enum sim_fault f)
{
	return (set & FAULT_BIT(f)) != 0;
}
/* Adds the faults of a comma-separated list to *set; "none" adds nothing.
 * Returns 0, or AV_USAGE naming the unknown fault. */
int sim_faults_parse(const char *list, sim_faults *set, struct aerr *err);
/* The set as a comma-separated list of names, "none" when empty. */
void sim_faults_format(sim_faults set, char *out, size_t outsz);
/* The faults that decide what happens to an oversize prompt; a set holds at most one. */
#define FAULTS_ADMISSION (FAULT_BIT(FAULT_DISAGG_PLACEHOLDER) | FAULT_BIT(FAULT_TRUNCATE_HEAD) | \
	FAULT_BIT(FAULT_ERROR_200) | FAULT_BIT(FAULT_STALE_DECODE) | FAULT_BIT(FAULT_PLACEHOLDER_BLANK) | \
	FAULT_BIT(FAULT_ACCEPT_OVERSIZE) | FAULT_BIT(FAULT_KEEP_END_UNDER_CONTEXT))

/* PREFIX_ORG scopes the cache by the tenant's organisation (LABEL@ORG in --tenants),
 * as OpenAI documents its own: keys of one organisation share it. */
enum sim_prefix_cache { PREFIX_OFF, PREFIX_TENANT, PREFIX_GLOBAL, PREFIX_ORG };

/* --tokenizer: 4-byte pieces, or about one token per word. */
enum sim_tokenizer_kind { TOKENIZER_PIECES, TOKENIZER_WORDS };
/* --model-behaviour: the toy model repeats identifiers, or cannot repeat text. */
enum sim_behaviour { BEHAVIOUR_ECHO, BEHAVIOUR_PARAPHRASE };

struct sim_tenant {
	char *label;
	char *key;
	int revoked;              /* --revoked: the key gets 401 everywhere */
	int failing;              /* --failing: the tenant's inference requests get 500 */
	char *org;                /* --tenants LABEL@ORG=KEY: its organisation, or NULL */
};

struct sim_config {
	char *host;
	int64_t port;
	int64_t context;          /* advertised context length, tokens */
	int64_t pool_tokens;      /* KV pool size, tokens */
	int64_t page_size;        /* tokens per KV page */
	struct sim_tenant *tenants;
	size_t ntenants;          /* 0: one tenant "default", any key accepted */
	sim_faults faults;
	enum sim_prefix_cache prefix_cache;
	int prefix_newest;        /* --prefix-cache-newest: each scope keeps only its newest prompt */
	int64_t prefix_slots;     /* --prefix-cache-slots: llama.cpp's server's slots, 0: pages */
	int64_t prefix_max;       /* --prefix-cache-max: tokens of a prompt the cache serves, 0: all */
	int prefix_displace;      /* --prefix-cache-displace: a tenant's prompt displaces others' */
	int prefix_mask_digits;   /* --prefix-cache-mask-digits: pages match whatever their digits */
	int64_t prefill_us;       /* per prompt token not served from the prefix cache */
	int64_t decode_us;        /* per generated token */
	int64_t ttft_noise_ms;    /* each prompt waits a further 0..N ms (sim-noise.c) */
	int64_t ttft_load_ms;     /* ... and a load of 0..N ms, drawn every load_block prompts */
	int64_t load_block;       /* 0: 20 */
	int64_t max_body;         /* request body limit, bytes */
	int64_t seed;
	char *model;
	int64_t rate_limit_count;
	char *redirect_to;
	int64_t huge_bytes;
	int64_t tpm_limit;        /* prompts over this many tokens get 429; 0: no limit */
	int no_count;             /* the token-count routes answer 404 */
	int64_t neighbour_hold_ms; /* fault noisy-neighbour: a large request waits this long after prefill */
	int log_timing;           /* each request's log line says when it came and how many were in hand */
	int64_t neighbour_victims; /* ... or, when above 0, until this many other-tenant requests met it
	                            * (the overlap on demand; neighbour_hold_ms is then the cap) */
	int64_t neighbour_wait_ms; /* on demand, a request that is not large waits this long at most
	                            * for another tenant's large one (0: not at all) */
	int64_t fail_after;       /* fault streams-fail-after: streams served before the 500s */
	int64_t fleet;            /* fault mixed-fleet: backends behind the balancer */
	enum sim_tokenizer_kind tokenizer;
	enum sim_behaviour behaviour;
	int hostile;              /* enum sim_hostile (sim-hostile.h); 0: not hostile */
	char *tls_cert, *tls_key; /* PEM text: serve https with this certificate */
	/* The engine's own status, as SGLang's /get_server_info serves it: its pool
	 * and context are the two above; its version, its disaggregation mode ("null",
	 * "prefill", "decode"; NULL: decode under fault disagg-placeholder, else null)
	 * and the admin key it asks for (NULL: none). */
	char *engine_version, *engine_mode, *engine_key;
	int engine_model_context;  /* context_length null: the model's own, SGLang's default */
};
/* GET /get_server_info's body for cfg (sim-engine.c). */
cJSON *sim_server_info(const struct sim_config *cfg);

/* ---- tokenizer (sim-tok.c) ---- */

/* A token id. KV pages hold ids, and decode reads the text back from them.
 * pieces: a piece of up to 4 bytes packed little-endian; the id is the text.
 *   Pieces never cross a change between word characters ([A-Za-z0-9_-]),
 *   whitespace and other characters, and never split a UTF-8 sequence.
 * words: a token is an optional run of whitespace followed by a run of word
 *   characters (however long) or by one other character (a UTF-8 sequence or
 *   a stray byte); whitespace ending the text is a token of its own. A token
 *   of up to 3 bytes is packed as in pieces (an id below TOK_VOCAB_BASE); a
 *   longer one is entered in the tokenizer's vocabulary, id TOK_VOCAB_BASE +
 *   its entry. */
typedef uint32_t sim_tok;

#define TOK_VOCAB_BASE ((sim_tok)1 << 24)
/* The vocabulary's bounds: tokens met once it is full read back as "<unk>". */
#define TOK_VOCAB_MAX ((uint32_t)1 << 22)
#define TOK_VOCAB_TEXT_MAX ((size_t)256 << 20)

struct sim_vocab;
struct sim_tokenizer {
	enum sim_tokenizer_kind kind;
	struct sim_vocab *vocab;      /* words: made by tokenizer_init */
};
/* A zeroed struct is the pieces tokenizer; words needs tokenizer_init. */
void tokenizer_init(struct sim_tokenizer *tk, enum sim_tokenizer_kind kind);
/* The same with a smaller vocabulary (entries including "<ph>" and "<unk>",
 * bytes of text), so that its bound can be tested. */
void tokenizer_init_bounded(struct sim_tokenizer *tk, enum sim_tokenizer_kind kind,
    uint32_t max_entries, size_t max_text);
void tokenizer_free(struct sim_tokenizer *tk);

struct tokvec {
	sim_tok *v;
	size_t n, cap;
};
void tokvec_push(struct tokvec *tv, sim_tok t);
void tokvec_free(struct tokvec *tv);
/* Appends the tokens of s[0..len) to tv. Safe from several threads. */
void tok_encode(const struct sim_tokenizer *tk, const char *s, size_t len, struct tokvec *tv);
/* The token's text and its length (*len; 0 for a slot nobody wrote): in
 * scratch, or in the vocabulary, valid while the tokenizer lives. */
const char *tok_text(const struct sim_tokenizer *tk, sim_tok t, char scratch[4], size_t *len);
/* The special token "<ph>" a disaggregated prefill sends when it aborts. */
sim_tok tok_placeholder(const struct sim_tokenizer *tk);
/* True for the characters identifiers are made of: [A-Za-z0-9_-]. */
int tok_is_word_char(unsigned char c);

/* ---- KV pool (sim-kv.c) ---- */

/* Per-page bookkeeping. A page is exactly one of: free (on the free stack),
 * in use (ref > 0, maybe also in the prefix cache), or cached and idle
 * (ref == 0, in the cache and on the LRU list, evictable). */
struct sim_page {
	uint32_t ref;
	int32_t free_next;
	int32_t hash_next;
	int32_t lru_prev, lru_next;
	uint8_t cached;
	uint64_t hash;
	uint64_t scope;           /* the hash of the cache scope its prompt was cached under */
	uint64_t owner;           /* the hash of the tenant whose prompt cached it */
};

/* A prompt a slot or the prompt cache keeps (--prefix-cache-slots). */
struct sim_prompt {
	sim_tok *v;
	size_t n;
	int64_t last_used;
};

struct sim_pool {
	pthread_mutex_t mu;
	pthread_cond_t freed;
	uint32_t page_size;
	uint32_t npages;
	sim_tok *tok;             /* npages * page_size token slots, never cleared */
	struct sim_page *pg;
	int32_t free_top;
	uint32_t nfree;
	int32_t *bucket;          /* prefix cache: hash chains */
	uint32_t nbuckets;
	int32_t lru_head, lru_tail;
	uint32_t nidle;           /* cached pages with ref == 0 */
	enum sim_prefix_cache mode;
	int newest;               /* a scope keeps only the pages of its newest prompt */
	size_t max_cached;        /* at most this many tokens of a prompt are served, 0: no bound */
	int displace;             /* a tenant's prompt displaces the cached prompts of the others */
	int mask_digits;          /* pages match whatever their digits (pieces tokenizer) */
	/* --prefix-cache-slots: slots each keeping its last prompt, and a prompt cache of earlier
	 * ones, as llama.cpp's server keeps them (sim-kv.c); nslots 0 when off. */
	struct sim_prompt *slot, *saved;
	size_t nslots, nsaved;
	int64_t clock;
	unsigned char key[crypto_shorthash_KEYBYTES];
	int closing;              /* set by pool_close: waiters give up */
};

/* A sequence's page table: logical token position p lives in slot p % page_size
 * of page pages[p / page_size]. */
struct sim_seq {
	uint32_t *pages;
	size_t npages, cap;
	size_t len;               /* next position decode writes */
};

int pool_init(struct sim_pool *p, int64_t pool_tokens, int64_t page_size,
    enum sim_prefix_cache mode, int64_t seed, struct aerr *err);
void pool_destroy(struct sim_pool *p);
/* Caches prompts in nslots slots and a prompt cache as llama.cpp's server does, instead of
 * by pages (--prefix-cache-slots). */
void pool_slots_init(struct sim_pool *p, size_t nslots);
/* Tokens the pool can ever hold for one sequence: whole pages only. */
size_t pool_capacity(const struct sim_pool *p);
size_t pool_free_pages(struct sim_pool *p);   /* free plus idle cached pages */
/* Writes a prompt into pages, reusing cached pages of a matching opening
 * (scope: the tenant label; ignored by the global cache), and reserves pages
 * for `extra` more positions (the answer), as far as the pool holds. Waits
 * until all those pages are free at once, so no sequence ever waits while
 * holding pages. n must be <= pool_capacity(). Returns tokens served from cache. */
size_t pool_prefill(struct sim_pool *p, struct sim_seq *s, const char *scope,
    const sim_tok *toks, size_t n, size_t extra);
/* What pool_prefill and pool_reserve return when the pool closed while they waited. */
#define POOL_CLOSED ((size_t)-1)
/* Wakes every waiter with POOL_CLOSED, so a server can stop. */
void pool_close(struct sim_pool *p);
/* Takes pages for n positions without writing them (they keep what they hold).
 * Waits until enough pages are free; n is clamped to pool_capacity(). */
size_t pool_reserve(struct sim_pool *p, struct sim_seq *s, size_t n);
/* Writes one token at s->len, taking a page when the reserved ones are full;
 * -1 when none is free (the sequence has reached the pool's limit). */
int pool_append(struct sim_pool *p, struct sim_seq *s, sim_tok t);
void pool_put(struct sim_pool *p, struct sim_seq *s, size_t pos, sim_tok t);
sim_tok pool_get(const struct sim_pool *p, const struct sim_seq *s, size_t pos);
/* Returns the sequence's pages: cached ones become idle, the rest free. */
void pool_release(struct sim_pool *p, struct sim_seq *s);

/* ---- admission and the toy model (sim-engine.c) ---- */

enum sim_admit_kind {
	ADMIT_OK,
	ADMIT_REJECT,        /* the API's 400 */
	ADMIT_PLACEHOLDER,   /* disagg-placeholder: run a one-token placeholder */
	ADMIT_TRUNCATE,      /* truncate-head: keep the last `keep` tokens */
	ADMIT_ERROR_200,     /* error-200: an error object in a 200 */
	ADMIT_CLOSING,       /* the server stopped while the request waited for pages */
};

struct sim_admit {
	enum sim_admit_kind kind;
	size_t limit;        /* the limit that was applied, tokens */
	size_t keep;         /* ADMIT_TRUNCATE: tokens kept */
};

/* Decides what happens to a prompt of n tokens; pure, touches no page. */
void sim_admit(sim_faults faults, size_t context, size_t capacity, size_t n,
    struct sim_admit *out);

struct sim_engine {
	const struct sim_config *cfg;
	struct sim_pool pool;
	struct sim_tokenizer tok;
	uint64_t fleet_next;      /* fault mixed-fleet: the backend the next generation goes to */
};

/* One generation, from prefill to the last emitted token. */
struct sim_gen {
	struct sim_seq seq;
	struct sim_admit admit;
	size_t prompt_tokens;     /* as reported in usage */
	size_t cached_tokens;     /* served from the prefix cache */
	struct tokvec answer;     /* the planned answer, already cut to max_tokens */
	size_t emitted;           /* answer tokens written to the KV so far */
	int cut;                  /* answer cut by max_tokens or by the pool */
	int started;              /* holds pages */
};

/* The toy model: every identifier-like word (>= 12 word characters) in
 * positions [0, ctx_len) of the sequence, read from its pages, in order,
 * joined by spaces; a fixed sentence when there is none. Stops reading once
 * the answer can no longer fit max_tokens. */
void model_answer(const struct sim_tokenizer *tk, const struct sim_pool *p,
    const struct sim_seq *s, size_t ctx_len, size_t max_tokens, struct buf *out);
#define MODEL_NOTHING_TO_SAY "I found nothing to repeat in this conversation."
/* The model that cannot repeat text: prose from a fixed vocabulary of short
 * words, seeded by ctx_len, in which no PARAPHRASE_WINDOW bytes in a row
 * appear anywhere in the context it read. */
void model_paraphrase(const struct sim_tokenizer *tk, const struct sim_pool *p,
    const struct sim_seq *s, size_t ctx_len, struct buf *out);
#define PARAPHRASE_WINDOW 8

/* Sleeps us microseconds (the simulated compute time). */
void sim_sleep_us(uint64_t us);
/* The injected noise of the next prompt, in us (sim-noise.c): 0 unless
 * --ttft-noise-ms or --ttft-load-ms. */
uint64_t sim_noise_us(const struct sim_config *cfg);

/* Admission, then prefill and reading the context. Pages for `reserve`
 * answer positions are taken with the prompt's (max_tokens, unless the
 * caller knows the answer will be cut short). Returns 0 when the generation
 * runs (g->admit.kind is OK, PLACEHOLDER or TRUNCATE); otherwise g->admit
 * says why and no page was touched. */
int sim_generate_start(struct sim_engine *e, const char *tenant, const struct tokvec *prompt,
    size_t max_tokens, size_t reserve, struct sim_gen *g);
/* Emits the next answer token (decode latency, KV write). Returns 1 with *t
 * set, 0 when the answer is complete. */
int sim_generate_step(struct sim_engine *e, struct sim_gen *g, sim_tok *t);
/* "stop" or "length" once the answer is complete. */
int sim_generate_cut(const struct sim_gen *g);
void sim_generate_end(struct sim_engine *e, struct sim_gen *g);

/* ---- the APIs' wire shapes (sim-api.c) ---- */

enum sim_api { API_OPENAI, API_ANTHROPIC };

/* An error as the API reports it; empty code/param print as null. */
struct sim_error {
	int status;
	char type[48];
	char code[48];
	char param[64];
	char message[512];
};
void sim_error_set(struct sim_error *e, int status, const char *type, const char *code,
    const char *param, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* {"error":{...}} for OpenAI, {"type":"error","error":{...},"request_id":...} for Anthropic. */
cJSON *api_error_body(enum sim_api api, const struct sim_error *e, const char *request_id);
/* The error for an admission that refused a prompt of n tokens. */
void api_context_error(enum sim_api api, size_t n, size_t limit, struct sim_error *e);

/* A chat request reduced to what the engine needs. */
struct sim_chat {
	struct buf prompt;        /* the messages rendered through the chat template */
	size_t max_tokens;
	int stream;
	int include_usage;        /* OpenAI stream_options.include_usage */
	char model[128];
};
void sim_chat_free(struct sim_chat *c);
/* Each returns 0, or -1 with e set to the API's 400. */
int api_parse_openai(const cJSON *body, struct sim_chat *c, struct sim_error *e);
/* count_only: for count_tokens, where max_tokens is not required. */
int api_parse_anthropic(const cJSON *body, int count_only, struct sim_chat *c, struct sim_error *e);
/* vLLM's /tokenize: {"prompt": ...} or {"messages": [...]} (chat template as OpenAI). */
int api_parse_tokenize(const cJSON *body, struct sim_chat *c, struct sim_error *e);

/* A finished or running generation as the APIs report it. */
struct sim_result {
	char id[64];
	const char *model;
	int64_t created;          /* seconds since the epoch */
	size_t prompt_tokens, completion_tokens, cached_tokens;
	int cut;                  /* finish_reason "length" / stop_reason "max_tokens" */
	int usage;                /* report usage at all (fault no-usage: 0) */
	int usage_cached;         /* report the cached part (fault no-cached-usage: 0) */
	int include_usage;        /* OpenAI streams: the final usage chunk */
	const char *text;         /* the whole answer, for non-streaming bodies */
};
cJSON *api_completion_body(enum sim_api api, const struct sim_result *r);
/* Server-sent events: what comes before the first token, one token, the
 * finishing events, and an error event that ends a stream early. */
void api_stream_open(enum sim_api api, const struct sim_result *r, struct buf *out);
void api_stream_token(enum sim_api api, const struct sim_result *r, const char *text, size_t n,
    struct buf *out);
void api_stream_close(enum sim_api api, const struct sim_result *r, struct buf *out);
void api_stream_error(enum sim_api api, struct buf *out);
/* Fault noisy-neighbour: the 500 body (llama.cpp's shape for OpenAI, api_error
 * for Anthropic) and the same error as an event that ends a stream. */
#define SIM_BUSY_MESSAGE "slot unavailable: the server is busy with another request"
cJSON *api_busy_body(enum sim_api api, const char *request_id);
void api_stream_busy(enum sim_api api, struct buf *out);

/* ---- the HTTP server (sim-http.c) ---- */

struct sim_server;
int sim_server_start(struct sim_config *cfg, struct sim_server **out, char *url, size_t urlsz,
    struct aerr *err);
void sim_server_stop(struct sim_server *srv);

#endif
