/*
 * probe.h: the probe engine and the interface every probe implements. A
 * probe (probes/NAME.c) exports one struct probe; it plans its requests,
 * sends them through px_send() (which sizes prompts from the calibration,
 * enforces the budget, records every exchange as evidence and scans every
 * response for every canary of the run) and judges what came back by its
 * content, raising findings with stable codes. probe_run_endpoint() runs a
 * set of probes against an endpoint for the CLI, the TUI and incident
 * verification alike.
 */
#ifndef AIVET_PROBE_H
#define AIVET_PROBE_H

#include <signal.h>

#include "core.h"
#include "credref.h"
#include "url.h"
#include "probe-record.h"
#include "canary.h"
#include "finding.h"
#include "http.h"
#include "provider.h"

/* ---- running probes: the public entry points ---- */

struct probe_progress {
	const char *probe;            /* the probe running now, or "calibration" */
	int probe_index, probe_count;
	int64_t requests_done, requests_planned;
	int64_t tokens_used;
};

/* How deep a run looks. verify (the default) checks each invariant where it
 * breaks, at the top of the advertised context and just over it; diagnose adds
 * what locates a failure: the fractions and the two boundary searches. */
enum probe_depth { PROBE_VERIFY = 0, PROBE_DIAGNOSE = 1 };
const char *probe_depth_name(enum probe_depth d);
/* "verify" or "diagnose" -> 0, else AV_USAGE. */
int probe_depth_parse(const char *s, enum probe_depth *out, struct aerr *err);

struct probe_opts {
	const char *probes;           /* "echo,sweep", "all" or NULL for all */
	enum probe_depth depth;
	int concurrency;              /* default 4 */
	int64_t budget_tokens;        /* 0: no limit */
	double budget_usd;            /* 0: no limit; needs the endpoint's prices */
	int64_t max_prompt_tokens;    /* no prompt above this many tokens; 0: no cap */
	size_t max_response;          /* response cap, bytes; 0: default (8 MiB) */
	long timeout_ms;              /* per request; 0: default */
	void (*progress)(void *arg, const struct probe_progress *p);
	void *progress_arg;
	volatile sig_atomic_t *cancel;/* set (from a signal handler or a UI thread) to stop */
	/* When set, exchanges behind LEAK_* findings are stored sealed to this
	 * crypto_box public key instead of in plain text. */
	const unsigned char *leak_seal_pk;
	/* Continuous verification (run-format.h, probe-run.c): print the drift from the
	 * endpoint's previous run; pace(pace_arg) is called before each request is sent
	 * and may sleep, for per-vendor rate limits across runs. */
	int compare_last;
	void (*pace)(void *arg);
	void *pace_arg;
	/* Called inside the transaction that opens the run, with its id, on the
	 * run's own connection: a queued run names its run there (probe-queue.c),
	 * so that no run of a taken entry exists unnamed. Non-zero refuses the run:
	 * nothing is written or sent. */
	int (*on_start)(void *arg, struct db *db, int64_t run_id, struct aerr *err);
	void *on_start_arg;
};

/* Runs the probes; *run_id is set as soon as the run exists (also on error).
 * Returns 0 when the run completed (findings or not), AV_RUNTIME when it was
 * interrupted or failed, AV_USAGE for bad options. */
int probe_run_endpoint(struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int64_t *run_id, struct aerr *err);
/* Judges the recorded run again from its exchanges alone (nothing is sent or
 * written) and compares with its stored results and findings: a line per
 * probe in out, "re-derived" or each difference, counted in *differences.
 * Fails (AV_USAGE) for a run that cannot be re-derived (other judging rules,
 * none recorded, a sealed exchange) and (AV_RUNTIME) when the probes asked for
 * an exchange the record lacks or sent one other than recorded. */
int probe_rejudge_run(struct aivet *av, int64_t run_id, struct buf *out, int *differences,
    struct aerr *err);
/* The same for a run as a report bundle carries it: run is its entry of
 * report.json's probe_runs (probes, options, results, findings), exchanges its
 * exchanges' evidence files, parsed. */
int probe_rejudge_doc(struct aivet *av, const cJSON *run, const cJSON *exchanges, struct buf *out,
    int *differences, struct aerr *err);
/* The plan without sending anything: {"depth", "probes":[{name, requests, tokens_in,
 * tokens_in_expected, tokens_out}], "requests", "tokens_in", "tokens_in_expected",
 * "tokens_out", "cost_usd"|null, "tokens_in_cached_expected", "cost_usd_expected"|null}
 * (the last two with prices; cached input at the endpoint's price-cached-in option). tokens_in is at most
 * (every request billed); the expected figures are those of a vendor that behaves
 * as advertised (prompts over the context refused, and not billed). */
int probe_plan_endpoint(struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    cJSON **plan, struct aerr *err);
/* Every credential of the endpoint resolves for runner (the guard a run passes
 * before anything is asked or sent); the error names the tenant. */
int probe_credentials_ready(struct db *db, const char *runner, int64_t endpoint_id,
    struct aerr *err);
/* A run named by its id ("12"): *id, or the one wording for an unknown run. */
int probe_run_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err);
/* A run as JSON (the contract of "probe show --json"): probe_run_get, then
 * probe_run_to_json (probe-record.h). */
int probe_run_json(struct db *db, int64_t run_id, cJSON **out, struct aerr *err);
/* The exit status for a finished run: 1 when a finding reaches fail_on,
 * else 3 when a probe errored, else 0. */
int probe_run_exit(struct db *db, int64_t run_id, const char *fail_on, struct aerr *err);

/* ---- what the front ends show (run-format.c, probe-run.c); nothing here prints ---- */
/* A plan's text appended to b (the command line prints it, the TUI's runs screen shows it). */
void probe_plan_text(struct buf *b, const cJSON *plan);
struct probe_run;
/* "billed by the vendor: N tokens in, M out, USD x.xx" from a run's record, as
 * "probe show" prints it and the TUI shows it; 0 when the run has no billed figure. */
int probe_billed_text(const struct probe_run *run, char *out, size_t n);
/* The next commands a verify run's findings call for (the diagnose run that locates a
 * boundary or looks further at isolation), each with its plan computed now by the
 * planner --dry-run uses: advice shown, never recorded. Nothing for a diagnose run. */
struct buf;
void probe_next_steps(struct aivet *av, const struct probe_run *run, struct buf *out);
/* 1234567 -> "1,234,567" (run-format.c) */
const char *thousands(int64_t v, char out[32]);

/* ---- what a probe sees ---- */

#define PROBE_MAX_TENANTS 16
#define PROBE_MAX_FINDINGS 16

enum { BUDGET_HIT_TOKENS = 1, BUDGET_HIT_USD = 2 };

/* A run's environment: the endpoint, its tenants (their credentials' secrets
 * among them), the calibration, the counters. Private to the engine and its
 * probes (src/engine/probe-env.h): no front end sees a tenant's secret. */
struct probe_env;

struct raised_finding {   /* a finding as a probe raises it, before it is stored */
	const struct finding_info *info; /* the registry's entry: code, severity, text */
	char *message;                /* the distinct messages, "; " between them */
	int nmessages, more;          /* messages kept; distinct ones beyond FINDING_MESSAGES */
	cJSON *evidence;              /* array of evidence ids */
	/* Worse than the registry's, where the probe saw what makes it so (a pool below the
	 * context on a disaggregated node); the worse of the two counts. */
	enum severity raised;
};
/* A raised finding's severity: the registry's, or what the probe raised it to. */
enum severity raised_severity(const struct raised_finding *f);

struct probe_outcome {
	const char *verdict;          /* NULL until judged: pass unless findings or a reason says otherwise */
	char reason[512];
	int64_t requests;
	cJSON *details;
	struct raised_finding f[PROBE_MAX_FINDINGS];
	int nf;
	/* A probe with PROBE_MAKES_ECHO_BASELINE: what it found (1 the model repeats its
	 * nonces, 0 it does not); -1 (the default) leaves the baseline as it was. */
	int echo_baseline;
};

/* Adds a finding (by its registry entry, finding.h: the code and severity are
 * the registry's), or the evidence to the finding with the same code. */
void outcome_finding(struct probe_outcome *o, enum finding_code code, int64_t evidence_id,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int outcome_has(const struct probe_outcome *o, enum finding_code code);
void outcome_set(struct probe_outcome *o, const char *verdict, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct probe_plan {
	int64_t requests, tokens_in, tokens_out;
	int64_t tokens_in_expected;   /* against a vendor as advertised; -1: tokens_in */
	int64_t tokens_cached_expected; /* of those, served from the vendor's prompt cache */
};

/* What a probe declares about itself; the engine reads these, never a name. */
enum probe_trait {
	/* Runs only when named ("--probe all,prefix-timing"): costly or statistical
	 * probes stay out of "all", the default suite. */
	PROBE_OPT_IN = 1 << 0,
	/* Sends nothing sized from the calibration: a run of only such probes skips it. */
	PROBE_NO_CALIBRATION = 1 << 1,
	/* Produces the echo baseline (probe_outcome.echo_baseline). */
	PROBE_MAKES_ECHO_BASELINE = 1 << 2,
	/* Judges content by the echo baseline: runs after the probe that makes it. */
	PROBE_READS_ECHO_BASELINE = 1 << 3,
	/* Reads the endpoint's engine (--engine-url): in the default suite only when one is set. */
	PROBE_NEEDS_ENGINE = 1 << 4,
};

struct probe {
	const char *name;
	const char *summary;
	void (*plan)(const struct probe_env *env, struct probe_plan *p);
	void (*run)(struct probe_env *env, struct probe_outcome *out);
	unsigned traits;              /* enum probe_trait, or'ed */
	/* Probes run by ascending order; under a budget by ascending budget_order
	 * (the most informative requests first), ties in the usual order. */
	int order, budget_order;
};
extern const struct probe *const probe_table[];
/* audit verify's check that every finding's severity is its code's (probe-results.c). */
extern const struct audit_check finding_audit_check;
const struct probe *probe_find(const char *name);
/* Every probe's name, in the table's order, separated by sep, appended to b. */
void probe_names_text(struct buf *b, const char *sep);

/* ---- sending ---- */

enum px_kind {
	PX_CHAT,                      /* a probe prompt with three nonces */
	PX_MALFORMED,                 /* a chat body cut in half: not JSON */
	PX_MISSING_FIELD,             /* a chat body without its messages */
	PX_COUNT,                     /* the API's tokenize / count endpoint */
};

/* The outcome class of an exchange, decided once (px_done) before any probe
 * judges it. Only an answered exchange shows content; only a refusal for size
 * says anything about the context; the rest are not judged. */
enum px_class {
	PXC_UNSENT,                   /* skipped: budget, interrupt, a size bound, a refused credential */
	PXC_ANSWERED,                 /* a 2xx with the API's content shape and no error */
	PXC_REFUSED_SIZE,             /* too long for the context: 413, a size error (status or stream) */
	PXC_REFUSED_OTHER,            /* auth, not found, a field, a filter: unrelated to the question */
	PXC_RATE_LIMITED,             /* 429 or a rate/quota error, whatever the body */
	PXC_SERVER_ERROR,             /* 5xx, or a server error in the body or stream */
	PXC_TRANSPORT,                /* no response: connection, timeout, a redirect not followed */
	PXC_UNREADABLE,               /* a 2xx that is not the API's shape, cut, empty */
	PXC_COUNT
};
const char *px_class_name(enum px_class c);

/* A canary of another request found in a response: its nonce, the request
 * that sent it (its exchange's evidence through px_leak_evidence, known once
 * that exchange is recorded) and the tenant of that request. */
struct px_leak {
	char nonce[NONCE_LEN + 1];
	int64_t owner_seq;
	int owner_tenant;             /* index of the env's tenant that sent it */
	int other_tenant;             /* another tenant's, not the receiver's */
};

struct px_req {
	/* what to send */
	enum px_kind kind;
	int tenant, stream;
	const char *model;            /* NULL: the endpoint's */
	int64_t target_tokens;        /* prompt size; 0: `units` words as given */
	int must_exceed;              /* the prompt must be over target_tokens whatever the tokenizer */
	int64_t units;
	int64_t shared_units;         /* an opening shared across requests ... */
	uint64_t shared_seed;         /* ... generated from this seed */
	const char *planted;          /* text after the opening (prompt_recipe.planted) ... */
	int64_t planted_units;        /* ... of this many words; its exchange is stored sealed */
	int max_tokens;               /* 0: the echo allowance */
	const struct prompt_recipe *count_of; /* PX_COUNT: the prompt to count */
	/* what happened */
	struct prompt_recipe recipe;
	int64_t est_tokens;           /* the prompt's size by the calibration (a bound when sizes are bounded) */
	int64_t est_max;              /* the most it can be: by the least compact tokenizer when bounded */
	int64_t est_min;              /* the least it can be: by the most compact tokenizer when bounded */
	int sent;                     /* 0 when skipped (budget, interrupt) */
	int64_t seq, evidence_id;
	long status;                  /* 0 when no response */
	char transport_error[256];
	int truncated;
	struct prov_result res;
	int nonces_echoed;            /* own nonces found in the answer, 0..3 */
	unsigned nonce_mask;          /* which: bit k for the nonce at position k */
	int leaks_tenant, leaks_request; /* foreign canaries: of other tenants / own other requests */
	struct px_leak *leaked;       /* the foreign canaries, each once (px_done) */
	size_t nleaked;
	int64_t count_tokens;         /* PX_COUNT */
	enum px_class cls;            /* the outcome class */
	int capped;                   /* the prompt was cut to --max-prompt-tokens or its bound */
	int rate_skipped;             /* not sent: a smaller prompt stayed rate-limited (cls rate_limited) */
	int outside_url;              /* not sent: its URL is outside the endpoint's, with a credential */
	/* A prompt made to fit, refused for size by a vendor that counted it larger than
	 * aivet's estimate, is sent again at the size the vendor's count gives (once):
	 * what the first refusal said. */
	int resized;
	int64_t first_size_tokens, first_evidence_id;
	double ttft_ms;               /* time to the first body byte (first token when streaming) */
	int64_t after;                /* answers the run had had when it was sent (a replay's order) */
};

/* Sends n requests with the run's concurrency (or `concurrency` when > 0).
 * Returns 0 when all were sent or skipped for budget, AV_RUNTIME when interrupted. */
int px_send(struct probe_env *env, struct px_req *r, size_t n, int concurrency);
void px_free(struct px_req *r, size_t n);
/* The run's random values (probe-replay.c): n bytes, and a number below upper
 * (upper >= 1), drawn from the run's recorded seed, so a rejudge draws them
 * again; probes draw nothing from anywhere else. */
void px_random(struct probe_env *env, void *out, size_t n);
uint32_t px_uniform(struct probe_env *env, uint32_t upper);
void px_random_alnum(struct probe_env *env, char *out, size_t n);
/* Whether the run is a rejudge over its record (probe-replay.c). */
int px_replaying(const struct probe_env *env);
/* The evidence id of the exchange that sent the canary, 0 while not recorded (probe-judge.c). */
int64_t px_leak_evidence(const struct probe_env *env, const struct px_leak *l);
/* Words of filler that make a prompt of about `tokens` tokens. */
int64_t px_units_for(const struct probe_env *env, int64_t tokens);
/* No usable answer: a transport error, a body cut at the cap, or a redirect
 * (never followed); transport_error says which. */
int px_no_answer(const struct px_req *r);
/* 2xx with no error in the body or stream. */
int px_accepted(const struct px_req *r);
int px_is_2xx(const struct px_req *r);
/* The usage the response reported for the prompt is plausible for what was
 * sent (>= 75%): 1 yes, 0 no, -1 no usage. */
int px_usage_ok(const struct px_req *r);
/* The answer stopped for lack of room (max_tokens, or the vendor's capacity)
 * after repeating the first nonces in order (or the beginning of the first)
 * and nothing foreign: missing later nonces then say nothing about the prompt. */
int px_answer_cut_short(const struct px_req *r);
/* The usage reported contradicts the words sent: under half a token per word,
 * or more than any tokenizer makes of them. */
int px_usage_contradicts(const struct px_req *r);
/* A large prompt reported as a handful of tokens. */
int px_placeholder_usage(const struct px_req *r);
/* The answer shows the prompt was not what the model read: none of its nonces,
 * and either others' canaries in their place or (from a model known to
 * repeat) usage collapsed to a handful of tokens. */
int px_substituted(const struct probe_env *env, const struct px_req *r);
/* Findings every answer can show: leaks, errors in a 200, errors after a 200. */
void px_judge_common(struct probe_env *env, struct probe_outcome *o, const struct px_req *r,
    int stream_error_is_finding);
/* A point record for details: tokens_sent, status, accepted, nonces..., usage. */
cJSON *px_point_json(const struct px_req *r);
/* The top of the advertised context a prompt that must fit is sent at: 97%,
 * leaving room for the answer. */
int64_t px_top_tokens(const struct probe_env *env);
/* Takes n of the run's tokens into account for the plan. */
int64_t px_plan_tokens_out(const struct probe_env *env, int64_t requests);

/* What a probe judged: how many exchanges of each class, and the first of each. */
struct px_tally {
	int n[PXC_COUNT];
	int judged, sent;
	const struct px_req *first[PXC_COUNT];
};
/* Counts r (when sent); judged says whether the probe judged it. */
void px_tally_add(struct px_tally *t, const struct px_req *r, int judged);
/* Adds "judged", "sent" and "classes" {class: n} to details. */
void px_tally_json(const struct px_tally *t, cJSON *details);
/* The verdict of a probe that judged too little: "error" when the vendor
 * refused for a reason unrelated to the test (a credential, a missing route)
 * or never answered, else "inconclusive"; the reason says which class kept
 * the exchanges from being judged, and what to do about it. */
void px_set_unjudged(const struct probe_env *env, struct probe_outcome *o, const struct px_tally *t,
    const char *what);
/* Tenants a and b are keys of one organisation (both said so, the same one). */
int px_same_org(const struct probe_env *env, int a, int b);
/* Tenants a and b are taken as two organisations without a word for it: one or both
 * credentials have no --credential-org. Where that is so, what aivet concludes about
 * "another organisation" says the assumption, in PX_ORG_ASSUMED's words. */
int px_org_assumed(const struct probe_env *env, int a, int b);
#define PX_ORG_ASSUMED "tenants with no --credential-org are taken as separate organisations"
/* The tenants prefix-timing pairs with tenant 0: the first of another organisation
 * (*cross) and the first of its own (*same), each -1 when there is none. */
void px_cache_pairs(const struct probe_env *env, int *cross, int *same);
/* The tokens of the opening a prompt-cache probe shares: 1,280, above common caches'
 * 1,024-token minimum, or a quarter of a small context. */
int64_t px_cache_opening(const struct probe_env *env);
/* How often the sweep sends the top of the context, so that a fault on one request in
 * PX_TOP_ONE_IN (a balancer in front of a mixed fleet) shows on at least one with the
 * confidence px_top_confidence() gives: 1 - (1 - 1/k)^repeats. Verify sends the top
 * PX_TOP_REPEATS times, which keeps the default depth within 3x the context in expected
 * input tokens with one credential (bench/cost), and up to PX_TOP_REPEATS_MAX times where
 * a budget covers the whole plan with them (the planner's choice, the run's top_repeats);
 * diagnose sends its 97% point PX_TOP_REPEATS_DIAGNOSE times beside its fractions. */
#define PX_TOP_REPEATS 2
#define PX_TOP_REPEATS_MAX 8
#define PX_TOP_REPEATS_DIAGNOSE 4
#define PX_TOP_ONE_IN 4
double px_top_confidence(int repeats);
/* The plan's sentence for the run's repeats ("sweep sends the top of the context 2 times: ..."). */
const char *px_top_repeats_text(const struct probe_env *env, char *out, size_t n);
/* The sharing levels of a prompt cache the credentials can tell apart, in words. */
const char *px_cache_levels(const struct probe_env *env);
/* The echo baseline: -1 unknown, 0 the model does not repeat its nonces, 1 it does. */
int px_echoes(const struct probe_env *env);
/* A short description of why r was not judged ("HTTP 429: Request too large ..."). */
void px_describe(const struct px_req *r, char *out, size_t n);

/* ---- reading a serving engine's status API (probe-get.c) ---- */

/* One GET: url in; r out as a sent exchange is (seq, evidence_id, status, cls,
 * transport_error; tenant -1, recorded as none), with the body kept. */
struct px_get {
	const char *url;
	struct px_req r;
	struct buf body;
	double total_ms;
};
/* Sends the n GETs with the run's concurrency, "Authorization: Bearer SECRET"
 * (recorded redacted) when secret is set, and records each. AV_RUNTIME when
 * interrupted. Free with px_get_free. */
int px_get(struct probe_env *env, struct px_get *g, size_t n, const char *secret);
void px_get_free(struct px_get *g, size_t n);

/* Rebuilds a recorded request body from its recipe (exchange.request_recipe). */
int probe_rebuild_request(const char *recipe_json, struct buf *body, struct aerr *err);

#endif
