/*
 * sim-main.c: aivet-sim's entry point. Reads the options into a struct
 * sim_config, starts the server, prints "listening on http://HOST:PORT" as
 * the first line of stdout (scripts and tests wait for it) and serves until
 * SIGTERM or SIGINT. See aivet-sim(1).
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim-hostile.h"

static const char usage[] =
    "usage: aivet-sim [--host ADDR] [--port N] [--context TOKENS] [--pool TOKENS]\n"
    "                 [--page-size TOKENS] [--tenants LABEL=KEY,...] [--fault NAME[,NAME...]]\n"
    "                 [--revoked LABEL[,LABEL...]] [--failing LABEL[,LABEL...]]\n"
    "                 [--tpm-limit TOKENS] [--no-count] [--fail-after N] [--fleet N]\n"
    "                 [--prefix-cache off|tenant|org|global] [--prefix-cache-newest]\n"
    "                 [--prefix-cache-slots N] [--prefix-cache-max TOKENS]\n"
    "                 [--prefix-cache-displace] [--prefix-cache-mask-digits]\n"
    "                 [--prefill-us-per-token N]\n"
    "                 [--decode-us-per-token N] [--max-body BYTES] [--seed N] [--model NAME]\n"
    "                 [--rate-limit-count N] [--redirect-to URL] [--huge-bytes N]\n"
    "                 [--neighbour-hold-ms N] [--neighbour-victims N] [--log-timing]\n"
    "                 [--tokenizer pieces|words]\n"
    "                 [--model-behaviour echo|paraphrase] [--engine-version V]\n"
    "                 [--engine-mode null|prefill|decode] [--engine-key KEY]\n"
    "                 [--engine-model-context]\n"
    "       aivet-sim --help | --version\n";

static void
print_help(void)
{
	fputs(usage, stdout);
	puts("\nA simulated multi-tenant inference vendor with a shared, paged KV cache.\n"
	    "\n  --host ADDR                 address to bind (default 127.0.0.1)"
	    "\n  --port N                    port, 0 picks a free one (default 0)"
	    "\n  --context TOKENS            advertised context length (default 131072)"
	    "\n  --pool TOKENS               KV pool size shared by all tenants (default 131072)"
	    "\n  --page-size TOKENS          tokens per KV page, the block the prefix cache and its"
	    "\n                              cached counts go by (default 16)"
	    "\n  --tenants LABEL[@ORG]=KEY,... API keys and their tenants (default: any key, tenant"
	    "\n                              default); ORG, the tenant's organisation"
	    "\n  --fault NAME[,NAME...]      none, disagg-placeholder, truncate-head, error-200,"
	    "\n                              stream-error, no-usage, stream-as-json, rate-limit,"
	    "\n                              redirect, huge-response, close-mid-body, malformed-500,"
	    "\n                              usage-one, noisy-neighbour, usage-collapse,"
	    "\n                              stale-decode, placeholder-blank, lose-middle,"
	    "\n                              accept-oversize, streams-fail-after,"
	    "\n                              bad-request-404, unknown-model-404, no-cached-usage,"
	    "\n                              keep-end-under-context, engine-unreadable,"
	    "\n                              mixed-fleet, oversize-forbidden;"
	    "\n                              repeat or list to combine"
	    "\n                              (default none)"
	    "\n  --revoked LABEL[,LABEL...]  these tenants' keys get 401 on every route"
	    "\n  --failing LABEL[,LABEL...]  these tenants' chat requests get 500"
	    "\n  --tpm-limit TOKENS          prompts over TOKENS get 429 (tokens per minute)"
	    "\n  --no-count                  the token-count routes answer 404"
	    "\n  --tokenizer KIND            pieces (up to 4 bytes a token) or words (about one"
	    "\n                              token a word) (default pieces)"
	    "\n  --model-behaviour KIND      echo (repeats the prompt's identifiers) or paraphrase"
	    "\n                              (cannot repeat text) (default echo)"
	    "\n  --engine-version V          the version GET /get_server_info reports (default 0.5.23)"
	    "\n  --engine-mode MODE          its disaggregation_mode: null, prefill or decode"
	    "\n                              (default decode under disagg-placeholder, else null)"
	    "\n  --engine-key KEY            GET /get_server_info asks for Bearer KEY"
	    "\n  --engine-model-context      its context_length null: the model's own (--context), as by default"
	    "\n  --prefix-cache MODE         off, tenant, org (a tenant's LABEL@ORG) or global"
	    "\n                              (default off)"
	    "\n  --prefix-cache-newest       each scope keeps only its newest prompt"
	    "\n  --prefix-cache-slots N      as llama.cpp's server: N slots each keeping its last"
	    "\n                              prompt and a prompt cache of earlier ones, counted to"
	    "\n                              the token (needs --prefix-cache global)"
	    "\n  --prefix-cache-max TOKENS   the cache serves at most TOKENS of a prompt"
	    "\n  --prefix-cache-displace     a tenant's prompt displaces the cached prompts of the"
	    "\n                              other tenants"
	    "\n  --prefix-cache-mask-digits  pages match whatever their digits, as a cache that"
	    "\n                              normalises numbers does (pieces tokenizer)"
	    "\n  --fleet N                   fault mixed-fleet: backends, the first short of KV"
	    "\n                              (default 4)"
	    "\n  --prefill-us-per-token N    prefill time per token not served from cache (default 0)"
	    "\n  --decode-us-per-token N     decode time per generated token (default 0)"
	    "\n  --ttft-noise-ms N           each prompt waits a further 0 to N ms, uniform, seeded"
	    "\n  --ttft-load-ms N            and a load delay of 0 to N ms, drawn every --load-block"
	    "\n                              prompts and interpolated between"
	    "\n  --load-block K              prompts between two draws of the load (default 20)"
	    "\n  --max-body BYTES            largest request body (default 33554432)"
	    "\n  --seed N                    seeds response ids and prefix-cache hashing (default 0)"
	    "\n  --model NAME                model name in /v1/models (default aivet-sim-1)"
	    "\n  --rate-limit-count N        fault rate-limit: requests refused first (default 2)"
	    "\n  --redirect-to URL           fault redirect: where every request is sent"
	    "\n  --huge-bytes N              fault huge-response: body size (default 8388608)"
	    "\n  --fail-after N              fault streams-fail-after: streamed requests served"
	    "\n                              before every further one gets 500 (default 0)"
	    "\n  --neighbour-hold-ms N       fault noisy-neighbour: a large request's wait after"
	    "\n                              prefill (default 500)"
	    "\n  --log-timing                each request's log line adds at=MS (its arrival, ms since"
	    "\n                              the epoch) and inflight=N (requests being answered then,"
	    "\n                              itself included): the counters a fleet's limits are checked by"
	    "\n  --neighbour-victims N       fault noisy-neighbour: a large request holds until N"
	    "\n                              requests of other tenants met it, at most"
	    "\n                              --neighbour-hold-ms (the overlap on demand)"
	    "\n  --neighbour-wait-ms N       with --neighbour-victims: a request that is not large"
	    "\n                              waits up to N ms for another tenant's large one, so"
	    "\n                              the overlap does not hang on which thread ran first"
	    "\n  --hostile MODE              answer every request with an attack: gzip-bomb,"
	    "\n                              endless-sse, slow-drip, invalid-utf8, deep-json,"
	    "\n                              huge-header, redirect-loop, redirect-origin, empty-200,"
	    "\n                              length-long, length-short, nul-bytes,"
	    "\n                              terminal-escapes (see aivet-sim(1))"
	    "\n  --tls-cert FILE --tls-key FILE  serve https with this PEM certificate and key"
	    "\n\nSee aivet-sim(1).");
}

static int
parse_tenants(const char *arg, struct sim_config *cfg, struct aerr *err)
{
	char *copy = xstrdup(arg), *save = NULL, *item, *org;

	for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		if (eq == NULL || eq == item || eq[1] == '\0') {
			aerr_set(err, AV_USAGE, "--tenants: '%s' is not LABEL=KEY", item);
			free(copy);
			return err->code;
		}
		*eq = '\0';
		/* LABEL@ORG: the tenant's organisation, the cache's scope under --prefix-cache org. */
		org = strchr(item, '@');
		if (org != NULL)
			*org++ = '\0';
		if (org != NULL && (*org == '\0' || *item == '\0')) {
			aerr_set(err, AV_USAGE, "--tenants: '%s@%s' is not LABEL@ORG=KEY", item, org);
			free(copy);
			return err->code;
		}
		for (size_t i = 0; i < cfg->ntenants; i++) {
			if (strcmp(cfg->tenants[i].label, item) == 0 || strcmp(cfg->tenants[i].key, eq + 1) == 0) {
				aerr_set(err, AV_USAGE, "--tenants: tenant '%s' repeats a label or a key", item);
				free(copy);
				return err->code;
			}
		}
		cfg->tenants = xrealloc(cfg->tenants, (cfg->ntenants + 1) * sizeof *cfg->tenants);
		/* Every flag (revoked, failing) starts clear: a new field needs no line here. */
		memset(&cfg->tenants[cfg->ntenants], 0, sizeof cfg->tenants[cfg->ntenants]);
		cfg->tenants[cfg->ntenants].label = xstrdup(item);
		cfg->tenants[cfg->ntenants].key = xstrdup(eq + 1);
		cfg->tenants[cfg->ntenants].org = org != NULL ? xstrdup(org) : NULL;
		cfg->ntenants++;
	}
	free(copy);
	if (cfg->ntenants == 0)
		return aerr_set(err, AV_USAGE, "--tenants: no LABEL=KEY given");
	return 0;
}

/* Marks the tenants named in the comma-separated list as revoked (or, with
 * failing set, as failing); opt names the option in errors. */
static int
apply_revoked(const char *list, struct sim_config *cfg, const char *opt, int failing,
    struct aerr *err)
{
	char *copy = xstrdup(list), *save = NULL, *label;
	size_t i;

	for (label = strtok_r(copy, ",", &save); label != NULL; label = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < cfg->ntenants; i++)
			if (strcmp(cfg->tenants[i].label, label) == 0)
				break;
		if (i == cfg->ntenants) {
			aerr_set(err, AV_USAGE, "%s: no tenant '%s' in --tenants", opt, label);
			free(copy);
			return err->code;
		}
		if (failing)
			cfg->tenants[i].failing = 1;
		else
			cfg->tenants[i].revoked = 1;
	}
	free(copy);
	return 0;
}

/* The options aivet-sim takes (see aivet-sim(1)). */
enum { O_HOST = 256, O_PORT, O_CONTEXT, O_POOL, O_PAGE, O_TENANTS, O_FAULT, O_PREFIX,
	O_PREFILL, O_DECODE, O_MAXBODY, O_SEED, O_MODEL, O_RLCOUNT, O_REDIRECT, O_HUGE,
	O_HOSTILE, O_TLS_CERT, O_TLS_KEY, O_REVOKED, O_TPM, O_NOCOUNT, O_HOLD, O_LOG_TIMING, O_VICTIMS, O_NB_WAIT,
	O_TOKENIZER, O_BEHAVIOUR, O_ENGINE_VERSION, O_ENGINE_MODE, O_ENGINE_KEY, O_ENGINE_MODEL_CTX,
	O_FAILING, O_FAIL_AFTER, O_NEWEST, O_FLEET, O_NOISE, O_LOAD, O_LOAD_BLOCK,
	O_SLOTS, O_CACHE_MAX, O_DISPLACE, O_MASK_DIGITS,
	O_HELP, O_VERSION };
static const struct option sim_opts[] = {
	{ "host", required_argument, NULL, O_HOST },
	{ "port", required_argument, NULL, O_PORT },
	{ "context", required_argument, NULL, O_CONTEXT },
	{ "pool", required_argument, NULL, O_POOL },
	{ "page-size", required_argument, NULL, O_PAGE },
	{ "tenants", required_argument, NULL, O_TENANTS },
	{ "fault", required_argument, NULL, O_FAULT },
	{ "prefix-cache", required_argument, NULL, O_PREFIX },
	{ "prefix-cache-newest", no_argument, NULL, O_NEWEST },
	{ "prefix-cache-slots", required_argument, NULL, O_SLOTS },
	{ "prefix-cache-max", required_argument, NULL, O_CACHE_MAX },
	{ "prefix-cache-displace", no_argument, NULL, O_DISPLACE },
	{ "prefix-cache-mask-digits", no_argument, NULL, O_MASK_DIGITS },
	{ "prefill-us-per-token", required_argument, NULL, O_PREFILL },
	{ "decode-us-per-token", required_argument, NULL, O_DECODE },
	{ "ttft-noise-ms", required_argument, NULL, O_NOISE },
	{ "ttft-load-ms", required_argument, NULL, O_LOAD },
	{ "load-block", required_argument, NULL, O_LOAD_BLOCK },
	{ "max-body", required_argument, NULL, O_MAXBODY },
	{ "seed", required_argument, NULL, O_SEED },
	{ "model", required_argument, NULL, O_MODEL },
	{ "rate-limit-count", required_argument, NULL, O_RLCOUNT },
	{ "redirect-to", required_argument, NULL, O_REDIRECT },
	{ "huge-bytes", required_argument, NULL, O_HUGE },
	{ "hostile", required_argument, NULL, O_HOSTILE },
	{ "tls-cert", required_argument, NULL, O_TLS_CERT },
	{ "tls-key", required_argument, NULL, O_TLS_KEY },
	{ "revoked", required_argument, NULL, O_REVOKED },
	{ "failing", required_argument, NULL, O_FAILING },
	{ "fail-after", required_argument, NULL, O_FAIL_AFTER },
	{ "fleet", required_argument, NULL, O_FLEET },
	{ "tpm-limit", required_argument, NULL, O_TPM },
	{ "no-count", no_argument, NULL, O_NOCOUNT },
	{ "neighbour-hold-ms", required_argument, NULL, O_HOLD },
	{ "log-timing", no_argument, NULL, O_LOG_TIMING },
	{ "neighbour-victims", required_argument, NULL, O_VICTIMS },
	{ "neighbour-wait-ms", required_argument, NULL, O_NB_WAIT },
	{ "tokenizer", required_argument, NULL, O_TOKENIZER },
	{ "model-behaviour", required_argument, NULL, O_BEHAVIOUR },
	{ "engine-version", required_argument, NULL, O_ENGINE_VERSION },
	{ "engine-mode", required_argument, NULL, O_ENGINE_MODE },
	{ "engine-key", required_argument, NULL, O_ENGINE_KEY },
	{ "engine-model-context", no_argument, NULL, O_ENGINE_MODEL_CTX },
	{ "help", no_argument, NULL, O_HELP },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* What no single option can say: the ones that go together or exclude each
 * other, and the revoked tenants once --tenants, wherever it stood, is read. */
static int
config_check(struct sim_config *cfg, const struct buf *revoked, const struct buf *failing,
    struct aerr *err)
{
	if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL))
		return aerr_set(err, AV_USAGE, "--tls-cert and --tls-key go together");
	if (sim_hostile_prepare(cfg, err) != 0)
		return err->code;
	if (sim_has_fault(cfg->faults, FAULT_REDIRECT) && cfg->redirect_to == NULL)
		return aerr_set(err, AV_USAGE, "--fault redirect needs --redirect-to URL");
	{
		sim_faults adm = cfg->faults & FAULTS_ADMISSION;

		if (adm & (adm - 1))
			return aerr_set(err, AV_USAGE, "--fault: disagg-placeholder, truncate-head, "
			    "error-200, stale-decode, placeholder-blank, accept-oversize and keep-end-under-context each "
			    "decide what happens to an oversize prompt; give one of them");
	}
	if (revoked->len > 0) {
		if (cfg->ntenants == 0)
			return aerr_set(err, AV_USAGE, "--revoked needs --tenants");
		if (apply_revoked(revoked->data, cfg, "--revoked", 0, err) != 0)
			return err->code;
	}
	if (cfg->neighbour_wait_ms > 0 && cfg->neighbour_victims == 0)
		return aerr_set(err, AV_USAGE, "--neighbour-wait-ms needs --neighbour-victims");
	if (failing->len > 0) {
		if (cfg->ntenants == 0)
			return aerr_set(err, AV_USAGE, "--failing needs --tenants");
		if (apply_revoked(failing->data, cfg, "--failing", 1, err) != 0)
			return err->code;
	}
	if (cfg->pool_tokens < cfg->page_size)
		return aerr_set(err, AV_USAGE, "--pool: %lld tokens do not hold one page of %lld tokens",
		    (long long)cfg->pool_tokens, (long long)cfg->page_size);
	/* llama.cpp's server keeps one prompt cache for every key: slots have no scopes. */
	if (cfg->prefix_slots > 0 && (cfg->prefix_cache != PREFIX_GLOBAL || cfg->prefix_newest))
		return aerr_set(err, AV_USAGE, "--prefix-cache-slots needs --prefix-cache global "
		    "(and not --prefix-cache-newest)");
	if (cfg->prefix_mask_digits && cfg->tokenizer != TOKENIZER_PIECES)
		return aerr_set(err, AV_USAGE, "--prefix-cache-mask-digits needs the pieces tokenizer");
	return 0;
}

/* A text option: the last one given counts. */
static void
set_text(char **field, const char *arg)
{
	free(*field);
	*field = xstrdup(arg);
}

/* The engine's status options: what GET /get_server_info reports and asks for. */
static int
engine_opt(int c, const char *arg, struct sim_config *cfg, struct aerr *err)
{
	char **field = c == O_ENGINE_VERSION ? &cfg->engine_version : c == O_ENGINE_MODE ?
	    &cfg->engine_mode : &cfg->engine_key;

	if (c == O_ENGINE_MODE && strcmp(arg, "null") != 0 && strcmp(arg, "prefill") != 0 &&
	    strcmp(arg, "decode") != 0)
		return aerr_set(err, AV_USAGE, "--engine-mode: '%s' is not null, prefill or decode", arg);
	set_text(field, arg);
	return 0;
}

/* The options that take one word of a few: --tokenizer, --model-behaviour, --prefix-cache. */
static int
word_opt(int c, const char *arg, struct sim_config *cfg, struct aerr *err)
{
	if (c == O_TOKENIZER) {
		if (strcmp(arg, "pieces") == 0)
			cfg->tokenizer = TOKENIZER_PIECES;
		else if (strcmp(arg, "words") == 0)
			cfg->tokenizer = TOKENIZER_WORDS;
		else
			return aerr_set(err, AV_USAGE, "--tokenizer: '%s' is not pieces or words", arg);
	} else if (c == O_BEHAVIOUR) {
		if (strcmp(arg, "echo") == 0)
			cfg->behaviour = BEHAVIOUR_ECHO;
		else if (strcmp(arg, "paraphrase") == 0)
			cfg->behaviour = BEHAVIOUR_PARAPHRASE;
		else
			return aerr_set(err, AV_USAGE, "--model-behaviour: '%s' is not echo or paraphrase", arg);
	} else if (strcmp(arg, "off") == 0) {
		cfg->prefix_cache = PREFIX_OFF;
	} else if (strcmp(arg, "tenant") == 0) {
		cfg->prefix_cache = PREFIX_TENANT;
	} else if (strcmp(arg, "global") == 0) {
		cfg->prefix_cache = PREFIX_GLOBAL;
	} else if (strcmp(arg, "org") == 0) {
		cfg->prefix_cache = PREFIX_ORG;
	} else {
		return aerr_set(err, AV_USAGE, "--prefix-cache: '%s' is not off, tenant, org or global", arg);
	}
	return 0;
}

/* The options that take a whole number: their bounds, and the field each sets. */
#define BIG (INT64_C(1) << 40)
static const struct int_opt {
	int opt;
	const char *name;
	int64_t lo, hi;
	size_t field;             /* offsetof an int64_t in struct sim_config */
} int_opts[] = {
	{ O_PORT, "--port", 0, 65535, offsetof(struct sim_config, port) },
	{ O_CONTEXT, "--context", 1, BIG, offsetof(struct sim_config, context) },
	{ O_POOL, "--pool", 1, BIG, offsetof(struct sim_config, pool_tokens) },
	{ O_PAGE, "--page-size", 1, 1 << 20, offsetof(struct sim_config, page_size) },
	{ O_FAIL_AFTER, "--fail-after", 0, BIG, offsetof(struct sim_config, fail_after) },
	{ O_TPM, "--tpm-limit", 1, BIG, offsetof(struct sim_config, tpm_limit) },
	{ O_HOLD, "--neighbour-hold-ms", 0, 3600000, offsetof(struct sim_config, neighbour_hold_ms) },
	{ O_FLEET, "--fleet", 1, 64, offsetof(struct sim_config, fleet) },
	{ O_SLOTS, "--prefix-cache-slots", 1, 64, offsetof(struct sim_config, prefix_slots) },
	{ O_CACHE_MAX, "--prefix-cache-max", 1, BIG, offsetof(struct sim_config, prefix_max) },
	{ O_VICTIMS, "--neighbour-victims", 1, 1000, offsetof(struct sim_config, neighbour_victims) },
	{ O_NB_WAIT, "--neighbour-wait-ms", 0, 3600000, offsetof(struct sim_config, neighbour_wait_ms) },
	{ O_PREFILL, "--prefill-us-per-token", 0, 10000000, offsetof(struct sim_config, prefill_us) },
	{ O_DECODE, "--decode-us-per-token", 0, 10000000, offsetof(struct sim_config, decode_us) },
	{ O_NOISE, "--ttft-noise-ms", 0, 60000, offsetof(struct sim_config, ttft_noise_ms) },
	{ O_LOAD, "--ttft-load-ms", 0, 60000, offsetof(struct sim_config, ttft_load_ms) },
	{ O_LOAD_BLOCK, "--load-block", 1, 1000000, offsetof(struct sim_config, load_block) },
	{ O_MAXBODY, "--max-body", 1, BIG, offsetof(struct sim_config, max_body) },
	{ O_SEED, "--seed", 0, INT64_MAX, offsetof(struct sim_config, seed) },
	{ O_RLCOUNT, "--rate-limit-count", 0, BIG, offsetof(struct sim_config, rate_limit_count) },
	{ O_HUGE, "--huge-bytes", 1, BIG, offsetof(struct sim_config, huge_bytes) },
};

/* --tls-cert and --tls-key: the PEM file's content, read now. */
static int
tls_opt(int c, const char *arg, struct sim_config *cfg, struct aerr *err)
{
	struct buf pem;

	if (read_file(arg, 1 << 20, &pem, err) != 0)
		return aerr_prefix(err, "%s", c == O_TLS_CERT ? "--tls-cert" : "--tls-key");
	free(c == O_TLS_CERT ? cfg->tls_cert : cfg->tls_key);
	*(c == O_TLS_CERT ? &cfg->tls_cert : &cfg->tls_key) = buf_steal(&pem);
	return 0;
}

/* One option that is not a whole number (getopt's c and optarg). */
static int
other_opt(int c, char **argv, struct sim_config *cfg, struct buf *revoked, struct buf *failing,
    struct aerr *err)
{
	switch (c) {
	case O_HOST: set_text(&cfg->host, optarg); return 0;
	case O_MODEL: set_text(&cfg->model, optarg); return 0;
	case O_REDIRECT: set_text(&cfg->redirect_to, optarg); return 0;
	case O_NOCOUNT: cfg->no_count = 1; return 0;
	case O_LOG_TIMING: cfg->log_timing = 1; return 0;
	case O_NEWEST: cfg->prefix_newest = 1; return 0;
	case O_DISPLACE: cfg->prefix_displace = 1; return 0;
	case O_MASK_DIGITS: cfg->prefix_mask_digits = 1; return 0;
	case O_TENANTS:
		return parse_tenants(optarg, cfg, err);
	case O_FAULT:
		return sim_faults_parse(optarg, &cfg->faults, err);
	case O_REVOKED:
		/* Labels are checked once --tenants, wherever it stands, is read. */
		buf_printf(revoked, "%s%s", revoked->len ? "," : "", optarg);
		return 0;
	case O_FAILING:
		buf_printf(failing, "%s%s", failing->len ? "," : "", optarg);
		return 0;
	case O_TOKENIZER:
	case O_BEHAVIOUR:
	case O_PREFIX:
		return word_opt(c, optarg, cfg, err);
	case O_ENGINE_VERSION:
	case O_ENGINE_MODE:
	case O_ENGINE_KEY:
		return engine_opt(c, optarg, cfg, err);
	case O_ENGINE_MODEL_CTX:
		cfg->engine_model_context = 1;
		return 0;
	case O_HOSTILE:
		if (sim_hostile_parse(optarg, &cfg->hostile) != 0)
			return aerr_set(err, AV_USAGE, "--hostile: unknown mode '%s' (see aivet-sim --help)",
			    optarg);
		return 0;
	case O_TLS_CERT:
	case O_TLS_KEY:
		return tls_opt(c, optarg, cfg, err);
	case O_HELP:
		print_help();
		exit(0);
	case O_VERSION:
		printf("aivet-sim %s\n", PACKAGE_VERSION);
		exit(0);
	case ':':
		return aerr_set(err, AV_USAGE, "%s needs a value\n%s", argv[optind - 1], usage);
	default:
		return aerr_set(err, AV_USAGE, "unknown option '%s'\n%s", argv[optind - 1], usage);
	}
}

static int
parse_args(int argc, char **argv, struct sim_config *cfg, struct buf *revoked, struct buf *failing,
    struct aerr *err)
{
	int c, rc = 0;

	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "", sim_opts, NULL)) != -1) {
		size_t i = 0, n = sizeof int_opts / sizeof int_opts[0];

		while (i < n && int_opts[i].opt != c)
			i++;
		if (i < n)
			rc = parse_int_opt(int_opts[i].name, optarg, int_opts[i].lo, int_opts[i].hi,
			    (int64_t *)((char *)cfg + int_opts[i].field), err);
		else
			rc = other_opt(c, argv, cfg, revoked, failing, err);
	}
	if (rc != 0)
		return rc;
	if (optind < argc)
		return aerr_set(err, AV_USAGE, "unexpected argument '%s'\n%s", argv[optind], usage);
	return config_check(cfg, revoked, failing, err);
}

static void
config_free(struct sim_config *cfg)
{
	for (size_t i = 0; i < cfg->ntenants; i++) {
		free(cfg->tenants[i].label);
		free(cfg->tenants[i].key);
		free(cfg->tenants[i].org);
	}
	free(cfg->tenants);
	free(cfg->host);
	free(cfg->model);
	free(cfg->redirect_to);
	free(cfg->tls_cert);
	free(cfg->tls_key);
	free(cfg->engine_version);
	free(cfg->engine_mode);
	free(cfg->engine_key);
}

/* The library prints nothing: the fatal message is said here. */
static void
fatal_report(const char *msg)
{
	fprintf(stderr, "aivet-sim: fatal: %s\n", msg);
}

int
main(int argc, char **argv)
{
	struct sim_config cfg = {
		.port = 0, .context = 131072, .pool_tokens = 131072, .page_size = 16,
		.faults = 0, .prefix_cache = PREFIX_OFF, .max_body = 32 << 20,
		.rate_limit_count = 2, .huge_bytes = 8 << 20, .neighbour_hold_ms = 500, .fleet = 4,
	};
	struct buf revoked, failing;
	char faults[512];
	struct sim_server *srv;
	struct aerr err = { 0 };
	char url[128];
	sigset_t stop;
	int sig, rc;

	die_report_set(fatal_report);
	if (sodium_init() < 0)
		die("cannot initialise libsodium");
	cfg.host = xstrdup("127.0.0.1");
	cfg.model = xstrdup("aivet-sim-1");
	buf_init(&revoked);
	buf_init(&failing);
	rc = parse_args(argc, argv, &cfg, &revoked, &failing, &err);
	buf_free(&revoked);
	buf_free(&failing);
	if (rc != 0) {
		fprintf(stderr, "aivet-sim: %s\n", err.msg);
		config_free(&cfg);
		return err.code;
	}
	/* Block the stop signals before any thread starts, so only sigwait sees them. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sim_server_start(&cfg, &srv, url, sizeof url, &err) != 0) {
		fprintf(stderr, "aivet-sim: %s\n", err.msg);
		config_free(&cfg);
		return err.code;
	}
	printf("listening on %s\n", url);
	fflush(stdout);
	sim_faults_format(cfg.faults, faults, sizeof faults);
	fprintf(stderr, "aivet-sim: context %lld tokens, pool %lld tokens in pages of %lld, "
	    "fault %s\n", (long long)cfg.context, (long long)cfg.pool_tokens,
	    (long long)cfg.page_size, faults);
	sigwait(&stop, &sig);
	sim_server_stop(srv);
	config_free(&cfg);
	return 0;
}
