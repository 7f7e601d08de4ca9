/*
 * probe-replay.h: what the engine's replay (probe-replay.c) and the rejudge
 * that drives it (probe-rejudge.c) share: a run's recorded exchanges in the
 * order they were answered, and the outcomes judged again from them. Private
 * to the engine.
 */
#ifndef AIVET_PROBE_REPLAY_H
#define AIVET_PROBE_REPLAY_H

#include "probe-env.h"

/* The judging rules' version, kept in each run's options and carried by its
 * bundles: a change to what any probe concludes from the same exchanges gives
 * it a new number, and a rejudge judges only runs of the rules it has (2:
 * prefix-timing judges A's own repeats paired; 3: its halves drifted only
 * when they differ at 0.002 and one's saving is under half the other's; 4: it
 * looks for half the opening's prefill as the trials' paired differences bound
 * it from below at 0.95, not as the groups' medians differ). */
#define PROBE_RULES_VERSION "4"

/* One recorded exchange: what the request was, and the response as it came. */
struct replay_exchange {
	int64_t evidence_id, seq, after;
	char *probe, *method, *url, *request_sha256, *recipe, *error, *started_at;
	long status;
	cJSON *headers;
	struct buf body;
	int truncated, curl_code, sealed;  /* sealed: its response is not in the record */
	double connect_ms, ttfb_ms, total_ms, first_byte_ms;
};

/* One probe's outcome judged again. */
struct replay_outcome {
	char *probe, *verdict, *reason;
	int64_t requests;
	cJSON *details;               /* or NULL */
	cJSON *findings;              /* [{code, severity, message, evidence:[ids]}] */
};

struct replay {
	struct replay_exchange *x;
	size_t n, next;
	const struct replay_exchange *current;  /* the exchange being answered */
	int missing, mismatch;
	struct replay_outcome *out;
	size_t nout;
};

int px_http_run(struct probe_env *env, size_t n, http_prepare_fn prepare, http_done_fn done,
    void *user, int concurrency, struct aerr *err);
/* In a replay, record_exchange() checks the request against the record instead
 * of storing it, and gives the recorded exchange's evidence id. */
int replay_check_request(struct probe_env *env, const struct px_req *r, const struct http_req *req,
    const char *recipe, int64_t *evidence_id, struct aerr *err);
/* In a replay, a probe's result is kept for comparison instead of written. */
void replay_keep_result(struct probe_env *env, const char *probe, const struct probe_outcome *out);
void replay_free(struct replay *rp);
/* A finding's evidence ids, ascending: a set, as the report lists it. */
cJSON *ids_sorted(const cJSON *ids);
/* Whether the run kept request seq of the probe sending by its recipe. */
int replay_kept_by_recipe(const struct probe_env *env, int64_t seq);
cJSON *replay_endpoint_json(const struct probe_env *env);
int replay_env_init(struct probe_env *env, struct aivet *av, const cJSON *snap,
    const struct probe_opts *o, struct aerr *err);
int rejudge_probes(struct probe_env *env, const struct probe **sel, int n, cJSON **cal,
    struct aerr *err);

#endif
