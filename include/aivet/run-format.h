/*
 * run-format.h: probe runs in the formats CI systems read. A run is its
 * record (struct probe_run, probe_run_get); these turn one or several
 * of them into SARIF 2.1.0 (rule ids are finding codes) or JUnit XML (a
 * test suite per run, a test case per probe), and compare two runs for
 * drift (probe-diff.c).
 */
#ifndef AIVET_RUN_FORMAT_H
#define AIVET_RUN_FORMAT_H

#include "core.h"
#include "probe-record.h"
#include "probe.h"

struct probe_opts;

/* Output formats of "probe run" and "probe show"; RUN_FMT_JSON is --json. */
enum run_format { RUN_FMT_TEXT = 0, RUN_FMT_JSON = 1, RUN_FMT_JUNIT, RUN_FMT_SARIF };

int run_format_parse(const char *s, int *fmt, struct aerr *err);
/* A SARIF log with one SARIF run per probe run of runs[0..n). */
cJSON *runs_sarif(const struct probe_run *runs, size_t n);
/* A JUnit XML document with one <testsuite> per probe run. */
char *runs_junit(const struct probe_run *runs, size_t n);
/* Appends runs[0..n) in fmt to b: in JSON one object when one is set (n is 1),
 * else an array, each with compare[i] as its "compare_last" when compare and it
 * are not NULL. The text is escaped for a terminal (as term_write escapes): the
 * front end prints b as it is. */
void run_format_render(struct buf *b, const struct probe_run *runs, size_t n, int one,
    cJSON *const *compare, int fmt);

/* The command that opens an incident from a finding, quoted for a shell, from
 * the finding's endpoint ("VENDOR/NAME"), code and id (incident_open_command()
 * looks them up); newly allocated. */
char *incident_open_command_text(const char *endpoint_ref, const char *code, int64_t finding_id);

/* ---- every endpoint at once (probe-run.c) ---- */

struct probe_all_opts {
	int all;
	const char *vendor;           /* only this vendor's endpoints */
	int64_t vendor_id;            /* ... its id, which the caller resolves */
	int parallel;                 /* runs at once; 0: 2 */
	int per_minute;               /* requests per minute per vendor; 0: no limit */
};
/* Parses --all, --vendor, --parallel, --rate-limit. */
int probe_all_option(struct probe_all_opts *a, const char *opt, const char *val, struct aerr *err);
/* One endpoint of "probe run --all": its plan, then its run. */
struct probe_pacer;
struct probe_all_target {
	int64_t endpoint_id, vendor_id;
	char *ref;                    /* VENDOR/ENDPOINT */
	cJSON *plan;                  /* probe_plan_endpoint's document */
	int64_t run_id;               /* 0: never started */
	int rc;                       /* probe_run_endpoint's return */
	struct aerr err;
	struct probe_pacer *pacer;    /* its vendor's request pacing, while it runs */
};
struct probe_all_set {
	struct probe_all_target *t;
	size_t n;
	int parallel;                 /* runs at once */
	struct probe_opts po;         /* what each run gets: the concurrency shared out; the
	                               * caller sets po.cancel (its Ctrl-C flag) to stop them */
};
/* Lists the active endpoints (of a->vendor_id when a->vendor is set), shares
 * the limits out, checks every credential and plans each endpoint; the error
 * names the endpoint, and nothing has been sent. Free with probe_all_free. */
int probe_all_plan(struct aivet *av, const struct probe_opts *po, const struct probe_all_opts *a,
    struct probe_all_set *s, struct aerr *err);
/* Runs them, s->parallel at a time, each vendor's requests at most a->per_minute
 * a minute; stops starting and sending once *s->po.cancel is set. on_event (may be
 * NULL) is called from the running threads as a target starts (done 0) and ends
 * (done 1). A target never started says so in its err. */
void probe_all_run(struct aivet *av, struct probe_all_set *s, const struct probe_all_opts *a,
    void (*on_event)(void *arg, const struct probe_all_target *t, int done), void *arg);
void probe_all_free(struct probe_all_set *s);
/* A run's row of the summary table: its status, its results by verdict, how
 * many findings and the worst severity ("-": none). AV_RUNTIME when unread. */
struct probe_run_summary {
	char status[32];
	int pass, fail, inconclusive, error;
	int64_t findings;
	char worst[16];
};
int probe_run_summary(struct db *db, int64_t run_id, struct probe_run_summary *s);

/* ---- drift between two runs (probe-diff.c) ---- */

/* A value that changed: probe (NULL for the run's calibration and engine),
 * field, and the values as recorded (NULL: none; written as JSON null). */
struct diff_change {
	char *probe, *field;
	cJSON *a, *b;
};
struct diff_changes {
	struct diff_change *v;
	size_t n;
};
/* A finding new in run b (or resolved since run a): its probe, and the finding
 * as the run's record holds it (in probe_diff.rb, or ra). */
struct diff_finding {
	const char *probe;
	const struct finding *f;
};
struct diff_findings {
	struct diff_finding *v;
	size_t n;
};
/* An error response's shape: status and JSON structure, identifier fields kept. */
struct diff_shape {
	char *probe, *shape;
	int64_t status, evidence;
};
struct diff_shapes {
	struct diff_shape *v;
	size_t n;
};
/* What changed from run a to run b. Runs of different endpoints may be compared. */
struct probe_diff {
	int none;                     /* probe_compare_last: no earlier completed run (rb.id is the run) */
	struct probe_run ra, rb;
	int same_endpoint, changed;
	struct diff_findings new_findings, resolved_findings;
	struct diff_changes verdicts, boundaries, calibration, engine;
	struct diff_shapes new_shapes, gone_shapes;
	/* The probes run b ran and run a did not: not compared, their findings
	 * neither new nor resolved (names borrowed from rb). */
	const char **not_compared;
	size_t nnot_compared;
};
int probe_diff_runs(struct db *db, int64_t a, int64_t b, struct probe_diff *out, struct aerr *err);
void probe_diff_free(struct probe_diff *d);
/* The document of "probe diff --json" and of "compare_last": {"a", "b", "same_endpoint",
 * "findings": {"new", "resolved"}, "verdicts", "boundaries", "calibration", "engine",
 * "error_shapes": {"new", "gone"}, "not_compared", "changed"}; JSON null for a diff that is none. */
cJSON *probe_diff_to_json(const struct probe_diff *d);
/* Its text appended to b, the vendor's words escaped to one line each; the caller
 * prints it through term_write. */
void probe_diff_text(struct buf *b, const struct probe_diff *d);
/* The run before `run` on the same endpoint; 1 when there is none. */
int probe_previous_run(struct db *db, int64_t run, int64_t *prev, struct aerr *err);
/* The drift from the endpoint's last completed run that ran every probe this
 * one did (none set when there is none). */
int probe_compare_last(struct db *db, int64_t run_id, struct probe_diff *out, struct aerr *err);

#endif
