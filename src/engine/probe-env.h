/*
 * probe-env.h: a run's environment as the engine and its probes (probes/)
 * share it: the endpoint, its tenants with their credentials' secrets, the
 * calibration, the budget's counters. Private to the engine: it holds
 * tenant secrets, so no public header defines it (probe.h declares it only)
 * and no front end includes it (tests/unit/public-headers.sh).
 */
#ifndef AIVET_PROBE_ENV_H
#define AIVET_PROBE_ENV_H

#include "probe.h"

struct probe_env {
	struct aivet *av;
	struct db *db;
	const struct probe_opts *opts;
	struct endpoint ep;
	const struct provider *prov;
	int ntenants;                 /* >= 1 (an endpoint without credentials: one, unauthenticated) */
	char *tenant_label[PROBE_MAX_TENANTS];
	char *tenant_org[PROBE_MAX_TENANTS]; /* the credential's organisation, NULL: its own */
	char *tenant_secret[PROBE_MAX_TENANTS];
	size_t tenant_secret_len[PROBE_MAX_TENANTS];
	int64_t run_id;
	struct http_engine *http;
	struct http_opts hopts;
	struct canary_set *canaries;
	int64_t *seq_evidence;        /* exchange seq -> evidence id */
	size_t nseq_evidence;
	/* Calibration: tokens = overhead + units * tokens_per_unit. */
	double tokens_per_unit, overhead_tokens;
	char calib_method[16];
	int usage_seen;               /* some response carried usage */
	/* The echo baseline: -1 unknown, 0 the model does not echo, 1 it does. Only the
	 * engine writes it (from the calibration, then from the result a probe with
	 * PROBE_MAKES_ECHO_BASELINE declares); probes read it through px_echoes(). */
	int echo_ok;
	int64_t seq;
	int64_t tokens_in, tokens_out, reserved;
	int64_t billed_in, billed_out;/* what the vendor's usage says it billed (a refusal: nothing) */
	/* Verify depth with sweep and canary both run: the canary's near-limit pressure
	 * prompt is streamed at the sweep's top size and stands for the sweep's streamed
	 * top point; top_plain_intact (-1 unknown) is what the sweep's plain one showed. */
	int top_shared, top_plain_intact;
	/* Verify depth: how often the sweep sends the top of the context, PX_TOP_REPEATS or
	 * more where a budget covers them (make_plan() chooses, px_top_confidence()). */
	int top_repeats;
	int budget_hit;         /* which budget stopped the run: 0 none, BUDGET_HIT_TOKENS, BUDGET_HIT_USD */
	int interrupted;
	const char *probe_name;       /* the probe sending now */
	int probe_index, probe_count;
	int64_t requests_done, requests_planned;
	int max_tokens;               /* output allowance of an echo */
	int64_t max_prompt_tokens;    /* --max-prompt-tokens: no prompt above it; 0: none */
	/* How sure the sizes are. With a usable count (usage or a count endpoint,
	 * plausible and consistent between samples) tokens_per_unit is measured;
	 * without, sizes are bounded: a prompt that must exceed the context is
	 * sized by tpu_min (the most compact tokenizer), one that must fit by
	 * tpu_max (the least compact). */
	int bounded;
	double tpu_min, tpu_max;
	/* Per tenant: exchanges refused for authentication, and those that got any
	 * other answer. A tenant with refusals and nothing else sends no more. */
	int tenant_auth_refused[PROBE_MAX_TENANTS], tenant_other[PROBE_MAX_TENANTS];
	char tenant_auth_msg[PROBE_MAX_TENANTS][200];
	/* A prompt refused with a 429 that says it is larger than the per-minute token
	 * limit stays refused whatever the wait: prompts at least its size are not sent. */
	int64_t rate_ceiling;         /* 0: none */
	int64_t answered;             /* exchanges of the run answered: the server works */
	struct aerr fatal;            /* evidence could not be recorded: the run stops */
	int limit_switched;           /* the output-limit field was switched (once a run) */
	cJSON *limit_switch;          /* what was switched and why, for the calibration, or NULL */
	cJSON *size_follow;           /* how sizes followed the vendor's counts, for the calibration */
	/* Every random value a probe draws (nonces, prompt seeds, planted secrets,
	 * orders) comes from this seed, kept in the run's options, so that a
	 * rejudge draws the same ones (px_random(), probe-replay.c). */
	unsigned char seed[32];
	uint64_t draws;
	/* Completions the engine has handed over so far; each exchange records how
	 * many preceded its sending, so that a replay sends in the same order. */
	int64_t completions;
	int64_t sending_seq;          /* the request prepare() last let go */
	struct replay *replay;        /* a rejudge: answers come from the record, or NULL */
	int replay_concurrency;
	int replay_keyed;             /* a rejudge: the run's tenants sent credentials */
};

#endif
