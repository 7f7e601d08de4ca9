/*
 * probe-engine.h: what the files of the probe engine share among themselves
 * (probe-engine.c names them): its limits and the steps one file hands
 * another. Not for use outside the engine; probe.h is its interface.
 */
#ifndef AIVET_PROBE_ENGINE_H
#define AIVET_PROBE_ENGINE_H

#include "probe-env.h"

/* Request bodies up to this size are stored; larger ones by recipe and hash. */
#define STORE_BODY_MAX ((size_t)32 << 10)
#define CALIB_SMALL 100
#define CALIB_LARGE 1100
/* Tokens per filler word: a count outside this range does not describe the
 * prompt. The words are common English of 3 to 8 letters: the most compact
 * tokenizers in use take one token each, byte-level ones under eight. */
#define TPU_PLAUSIBLE_MIN 0.75
#define TPU_PLAUSIBLE_MAX 8.0
#define OVERHEAD_PLAUSIBLE_MAX 2000.0
/* Usage under half a token per word contradicts the bytes sent. */
#define USAGE_MIN_PER_WORD 0.5
/* Without a usable count, sizes are bounded by the most and least compact
 * tokenizers in use today for these words. */
#define TPU_BOUND_MIN 1.0
#define TPU_BOUND_MAX 4.0
/* The plan's "at most" is made before the calibration: it sizes prompts given in
 * words at the least compact tokenizer's rate and allows each request a chat
 * template and instruction of this many tokens, so that what a run counts stays
 * within it whatever the calibration then finds (a test holds it across every
 * fault of aivet-sim). */
#define PLAN_OVERHEAD_MAX 256.0

int64_t est_tokens(const struct probe_env *env, const struct prompt_recipe *r, double tpu);
int64_t px_size(const struct probe_env *env, struct px_req *q);
enum px_class px_classify(long status, const struct prov_result *res, int no_body_to_judge);
int build_body(const struct endpoint *ep, const struct provider *prov, const struct px_req *r,
    struct http_req *req, struct aerr *err);
int record_exchange(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const struct http_resp *resp, enum px_class cls, int leaked, int64_t *evidence_id,
    struct aerr *err);
void outcome_free(struct probe_outcome *o);
/* A probe's outcome judged into its verdict and reason (probe-results.c); a
 * function of its own so that tests/unit/test-judge.c reaches every branch. */
void probe_judge(struct probe_env *env, struct probe_outcome *out);
void report_progress(struct probe_env *env);
void env_free(struct probe_env *env);
void env_defaults(struct probe_env *env, struct aivet *av, const struct probe_opts *o);
int env_init(struct probe_env *env, struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int resolve, struct aerr *err);
int select_probes(const struct probe_opts *o, const struct probe **sel, int *n, struct aerr *err);
void drop_engineless(const struct probe_opts *o, const struct endpoint *ep,
    const struct probe **sel, int *n);
int needs_calibration(const struct probe **sel, int n);
void order_for_budget(const struct probe_opts *o, const struct probe **sel, int n);
cJSON *make_plan(struct probe_env *env, const struct probe **sel, int n);
cJSON *calibrate(struct probe_env *env);

#endif
