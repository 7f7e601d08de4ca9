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
#include "run-query.h"

struct probe_opts;

/* Output formats of "probe run" and "probe show"; RUN_FMT_JSON is --json. */
enum run_format { RUN_FMT_TEXT = 0, RUN_FMT_JSON = 1, RUN_FMT_JUNIT, RUN_FMT_SARIF };

int run_format_parse(const char *s, int *fmt, struct aerr *err);
/* A SARIF log with one SARIF run per probe run of runs[0..n). */
cJSON *runs_sarif(const struct probe_run *runs, size_t n);
/* A JUnit XML document with one <testsuite> per probe run. */
char *runs_junit(const struct probe_run *runs, size_t n);
/* Prints runs[0..n) in fmt: in JSON one object when one is set (n is 1), else
 * an array, each with compare[i] as its "compare_last" when compare and it
 * are not NULL. */
void run_format_emit(FILE *f, const struct probe_run *runs, size_t n, int one, cJSON *const *compare,
    int fmt);

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
/* "probe run --all": plans every active endpoint, runs them, prints each run
 * in fmt and a summary table; returns the worst exit status. */
int probe_run_all(struct aivet *av, const struct probe_opts *po, const struct probe_all_opts *a,
    int fmt, const char *fail_on, int yes, int dry, struct aerr *err);

/* ---- drift between two runs (probe-diff.c) ---- */

/* What changed from run a to run b: {"a", "b", "changed", "findings": {"new",
 * "resolved"}, "verdicts", "boundaries", "calibration", "error_shapes":
 * {"new", "gone"}}. Runs of different endpoints may be compared. *changed (when
 * not NULL) is the document's "changed" as a value, so that a caller deciding its
 * exit status reads no key of it. */
int probe_diff_json(struct db *db, int64_t a, int64_t b, cJSON **out, int *changed, struct aerr *err);
void probe_diff_print(FILE *f, const cJSON *diff);
/* The run before `run` on the same endpoint; 1 when there is none. */
int probe_previous_run(struct db *db, int64_t run, int64_t *prev, struct aerr *err);
/* The drift from the endpoint's previous completed run: a diff object, JSON
 * null when there is none, NULL on error. */
cJSON *probe_compare_last(struct db *db, int64_t run_id, struct aerr *err);
void probe_compare_print(FILE *f, int64_t run_id, const cJSON *cmp);
/* Prints a finished run in fmt; with compare_last, also the
 * drift from the previous run: in the JSON as "compare_last", after the text,
 * or on stderr for JUnit and SARIF. */
int probe_emit_run(struct db *db, const struct probe_run *run, int fmt, int compare_last,
    struct aerr *err);

#endif
