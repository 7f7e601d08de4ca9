/*
 * probe-record.h: probe runs as typed records (probe-read.c, the engine):
 * one run with its results and their findings (probe_run_get), a plan as its
 * text and the screens show it, and the one JSON writer of each
 * (probe_run_to_json: "probe show --json"). The runs a list shows are the
 * domain's (run-query.h).
 */
#ifndef AIVET_PROBE_RECORD_H
#define AIVET_PROBE_RECORD_H

#include "core.h"

/* A finding of a probe result, as "probe show --json" writes it. */
struct finding {
	int64_t id;
	char *code, *severity, *message;
	int64_t *evidence;            /* the evidence ids behind it, ascending */
	size_t nevidence;
};

/* What the sweep's details say of the context, which the run's text, screen
 * and report show; present only on the sweep's result with details (an
 * object). The numbers are as recorded (has_ when recorded, a number); strings
 * NULL when absent. */
struct sweep_bounds {
	int present;
	int has_advertised, has_integrity_boundary, has_refusal_boundary;
	double advertised, integrity_boundary, refusal_boundary;
	char *change, *depth;
};

/* The prefix-timing probe's details (present on its result with details): each
 * group's times to first token (the numbers only) and median, the cross-tenant
 * test {p, cliffs_delta} (has_test), and the sequential test's alpha per look. */
struct timing_group {
	double *ttft_ms;
	size_t n;
	int has_median;
	double median_ms;
};
struct prefix_timing {
	int present;
	struct timing_group primed, control;
	int has_test;
	int paired;                   /* p is the paired test's (details "paired"), else Mann-Whitney's */
	double p, cliffs_delta;       /* NAN when not numbers */
	int has_alpha_per_look;
	double alpha_per_look, alpha, median_saving_ms;   /* alpha, saving: NAN when not numbers */
	int64_t trials;
};

/* A canary that reached a tenant, from the canary's details ("leaks"):
 * whose it was, who received it, and whether that was another tenant. */
struct canary_leak {
	char *owner_tenant, *found_by;   /* NULL: not recorded */
	int other_tenant;
	int64_t found_in;             /* the evidence (found_by's response) it was found in; 0: not recorded */
};

/* A node as the engine probe read it, from its details ("nodes"): figures -1
 * where the engine does not serve them or the node was not read; strings NULL
 * when not said. said: which of the figures the record has a member for (null
 * included), so that "probe diff" compares only what both runs say. */
enum { NODE_SAID_VERSION = 1, NODE_SAID_POOL = 2, NODE_SAID_CONTEXT = 4, NODE_SAID_MAX_TOTAL = 8,
	NODE_SAID_MODE = 16 };
struct engine_node_status {
	char *url;
	int read;                     /* the node was read (verdict "read") */
	int64_t pool, context, max_total;
	char *version, *mode;
	unsigned said;
};

/* A scalar member of a recorded document (a probe's details, a run's
 * calibration), in the document's order: its name and its value as recorded
 * (a number, a string, true, false or null; a detached copy). doc_scalar_find:
 * the value of the first member so named, or NULL. */
struct doc_scalar {
	char *name;
	cJSON *value;
};
const cJSON *doc_scalar_find(const struct doc_scalar *s, size_t n, const char *name);

/* A prompt size a probe sent, from its details' "points": what a boundary's
 * bracket is read from, what a claim's measure is judged by and what the
 * report charts. A number has its has_ flag (recorded, a number); tokens_sent
 * is also NAN when not recorded. accepted: the vendor took the prompt (true);
 * evidence: the point's exchange. */
struct size_point {
	double tokens_sent;
	int has_tokens_sent, has_status, has_accepted, has_nonces_echoed, has_nonces_total;
	int has_usage, has_evidence;
	double status, nonces_echoed, nonces_total;
	double usage_prompt_tokens;   /* the vendor's count of the prompt */
	int64_t evidence;
	int accepted, stream;
};

/* One probe's result in a run. */
struct probe_result {
	char *name, *verdict;
	char *reason;                 /* NULL: none recorded (null) */
	int64_t requests;
	cJSON *details;               /* the probe's own document as recorded; NULL: null */
	struct sweep_bounds sweep;    /* from details, for the sweep */
	struct prefix_timing timing;  /* from details, for prefix timing */
	int has_capacity;             /* from details, for the engine probe: capacity_tokens */
	double capacity_tokens;
	struct canary_leak *leaks;    /* from details, for the canary */
	size_t nleaks;
	struct engine_node_status *nodes;   /* from details, for the engine probe */
	size_t nnodes;
	struct finding *findings;
	size_t nfindings;
	/* The details' scalar members and the sizes sent: what "probe diff" compares
	 * and a claim's measure is judged by. */
	struct doc_scalar *scalars;
	size_t nscalars;
	struct size_point *points;    /* NULL: the details have no "points" array */
	size_t npoints;
};

/* A sample prompt of a run's calibration (its units, the tokens counted for
 * them, its exchange, 0: none), and a count the calibration rejected. */
struct cal_sample {
	int has_units, has_tokens;
	double units, tokens;
	int64_t evidence;
};
struct cal_rejected {
	char *method, *reason;        /* NULL: absent */
};

/* How the run measured token counts (its calibration document, read once by
 * run_calibration_read for the text, "probe diff" and the report). */
struct run_calibration {
	int present;                  /* the run has a calibration object */
	char *method, *unit;          /* NULL: not recorded */
	int has_bounds;               /* bounded: no usable count (two members) */
	double bounds[2];             /* NAN where not a number */
	int has_tokens_per_unit, has_overhead;   /* the member is there (maybe null) */
	double tokens_per_unit, overhead_tokens; /* NAN when not numbers */
	struct cal_sample *samples;   /* as recorded */
	size_t nsamples;
	int has_rejected;             /* "rejected" is an array */
	struct cal_rejected *rejected;
	size_t nrejected;
	/* The scalar members, and the filler words of each sample (those with a
	 * positive number): what "probe diff" compares and judges by. */
	struct doc_scalar *scalars;
	size_t nscalars;
	double *sample_units;
	size_t nunits;
	/* Members other than the ones above, any value (a detached copy), in order. */
	struct doc_scalar *others;
	size_t nothers;
};

/* What the vendor's usage says it billed, and its USD at the plan's prices. */
struct run_billed {
	double tokens_in, tokens_out;
	int has_cost_usd;             /* 0: no prices (null) */
	double cost_usd;
};

/* Where a run stands: its status column as a value (db/009-run-failed.sql).
 * failed: the run could not go on (evidence could not be recorded, the
 * server never answered); RUN_OTHER: a status this version does not know. */
enum probe_run_state {
	RUN_PLANNED, RUN_RUNNING, RUN_COMPLETED, RUN_INTERRUPTED, RUN_BUDGET_EXHAUSTED, RUN_ERROR,
	RUN_FAILED, RUN_OTHER
};
enum probe_run_state run_state_of(const char *status);
/* The status column's word for a state; "unknown" for RUN_OTHER. */
const char *run_state_name(enum probe_run_state s);

/* A probe's verdict in a run: the result table's verdict column as a value
 * (its CHECK, db/001-init.sql); VERDICT_OTHER: a word this version does not know. */
enum probe_verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_INCONCLUSIVE, VERDICT_ERROR, VERDICT_OTHER };
enum probe_verdict probe_verdict_of(const char *verdict);
/* The verdict column's word; "unknown" for VERDICT_OTHER. */
const char *probe_verdict_name(enum probe_verdict v);

/*
 * A probe run. probe_run_get fills all but the list members; a row of
 * probe_run_list_load has id, endpoint, status, started_at, findings, worst
 * and verdicts only.
 */
struct probe_run {
	int64_t id;
	char *endpoint;               /* "VENDOR/NAME" */
	int64_t endpoint_id;
	char *endpoint_url;
	int64_t advertised_context;
	char *status;                 /* running, completed, interrupted, failed, ... */
	enum probe_run_state state;   /* status as a value */
	char *depth;                  /* the plan's depth (verify, diagnose); NULL: not recorded */
	char *started_at, *finished_at;   /* finished_at NULL while running (null) */
	char *actor;
	int64_t tokens_in, tokens_out;
	cJSON *calibration;           /* the calibration document as recorded; NULL: null */
	struct run_calibration calib; /* read from it (run_calibration_read) */
	cJSON *plan;                  /* the plan as recorded (probe_plan_text words it) */
	int has_billed;
	struct run_billed billed;
	struct probe_result *probes;
	size_t nprobes;
	/* List rows: how many findings, the worst severity (NULL: none), and with
	 * run_query.verdicts "probe:verdict ..." (NULL when not asked); how many
	 * probes have a result, and how many of them ended inconclusive or in error. */
	int64_t findings;
	char *worst, *verdicts;
	int64_t results, unjudged;
	/* A run a worker took from the queue: its name, and its lease while it
	 * runs (NULL otherwise). A queued entry not yet started is a row with id
	 * 0, its queue_id, status "queued" (or "taken", a worker starting it, or
	 * "not started" when its worker could not start it, queue_error saying why). */
	char *worker, *lease_until;
	int64_t queue_id;
	/* A queue entry that ended without a run (status "not started"): why. */
	char *queue_error;
};

struct probe_run_list {
	struct probe_run *items;
	size_t n;
};
void probe_run_list_free(struct probe_run_list *l);

/* A probe's line of a plan. */
struct plan_probe {
	char *name;
	int64_t requests, tokens_in, tokens_out;
};

/* The prices a plan is made at, USD per million tokens (cached_in: the endpoint's
 * price-cached-in, else in), and what tokens cost at them: plan_usd() is the one
 * computation of a plan's USD figures, in its document and on each of its lines. */
struct plan_prices {
	int has_in, has_out;
	double in, out, cached_in;
};
double plan_usd(const struct plan_prices *p, int64_t tokens_in, int64_t cached_in, int64_t tokens_out);

/* What a plan (probe_plan_endpoint's document, also a run's "plan") says, as
 * its text and the screens show it; has_x for a member the plan may leave out. */
struct run_plan {
	char *depth;                  /* NULL: not recorded (verify) */
	struct plan_probe *probes;
	size_t nprobes;
	int64_t requests, tokens_in, tokens_out;
	int has_cost_usd, has_tokens_in_expected, has_cost_usd_expected;
	double cost_usd, cost_usd_expected;
	int64_t tokens_in_expected;
	char *cache_sharing_levels;   /* NULL: not said */
	char *sweep_repeats;          /* how often the sweep repeats the top, and what it catches */
	int has_max_prompt_tokens, has_largest_prompt_tokens;
	int64_t max_prompt_tokens, largest_prompt_tokens;
	/* The budgets the plan was made under (0: none), and what they make of it:
	 * capped is 1 when a budget is below the whole plan, most_usd the most the
	 * run can spend (the budget then; has_most_usd 0 without prices),
	 * expected_usd what it is expected to spend (the expected plan's cost, or the
	 * budget where that stops it first) and budget_tokens_usd the price of
	 * --budget-tokens at the plan's mix of input and output (has_: priced). */
	struct plan_prices prices;
	double budget_usd;
	int64_t budget_tokens;
	int capped, has_most_usd, has_budget_tokens_usd;
	double most_usd, expected_usd, budget_tokens_usd;
};

/* Reads a plan document into *out (probe-read.c); run_plan_free releases it. */
void run_plan_read(const cJSON *plan, struct run_plan *out);
void run_plan_free(struct run_plan *p);

/* A run with its results and findings (probe-read.c); the one wording for an unknown run. */
int probe_run_get(struct db *db, int64_t run_id, struct probe_run *out, struct aerr *err);
void probe_run_free(struct probe_run *r);
/*
 * The one reader of the documents a run records: a result's details into its
 * typed members (p->name and p->details set; sweep, timing, capacity, leaks,
 * nodes, scalars, points), and a calibration document into *out. Each has its
 * release, which leaves the document itself alone.
 */
void probe_result_details_read(struct probe_result *p);
void probe_result_details_free(struct probe_result *p);
void run_calibration_read(const cJSON *cal, struct run_calibration *out);
void run_calibration_free(struct run_calibration *c);
/* The run as "probe show --json" prints it, and the finding and result as their parts. */
cJSON *probe_run_to_json(const struct probe_run *r);
cJSON *probe_result_to_json(const struct probe_result *p);
cJSON *finding_to_json(const struct finding *f);
/* The worst finding of a result (by severity, the first of equals), or NULL. */
const struct finding *probe_result_worst(const struct probe_result *p);
/* The finding with this id in the run, or NULL. */
const struct finding *probe_run_finding(const struct probe_run *r, int64_t id);
/* The result of the probe so named in the run, or NULL. */
const struct probe_result *probe_run_result(const struct probe_run *r, const char *name);

#endif
