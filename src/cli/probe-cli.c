/*
 * probe-cli.c: the terminal's side of running probes, for "probe run",
 * "probe run --all", "aivet demo" and "incident verify". The engine asks
 * nothing and prints nothing (probe-run.c, run-format.c, probe-diff.c); here
 * are the y/N question, the progress bar (only when standard error is a
 * terminal), the one Ctrl-C handler, which sets the flag the engine reads as
 * its cancel, and the printing of plans, runs, drift and the summary table.
 * The exit status is the worst of the runs'.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "aivet/evidence-key.h"
#include "aivet/probe.h"
#include "aivet/run-format.h"
#include "aivet/run-query.h"

/* Ctrl-C stops a run cleanly: one flag, read by the engine as its cancel. */
static volatile sig_atomic_t interrupted;

static void
on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void
catch_sigint(struct sigaction *old)
{
	struct sigaction sa;

	interrupted = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

/* "QUESTION [y/N]" on stderr, the answer from stdin: 1 for yes. */
static int
probe_confirm(const char *question)
{
	char line[16];

	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (fgets(line, sizeof line, stdin) == NULL)
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

int
probe_confirm_tty(int yes, const char *question)
{
	if (yes || !isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return 1;
	return probe_confirm(question);
}

struct bar {
	int tty;
	int drawn;
};

static void
progress_bar(void *arg, const struct probe_progress *p)
{
	struct bar *b = arg;
	int width = 30, fill;
	char t[32];

	if (!b->tty)
		return;
	fill = p->requests_planned > 0 ? (int)(width * p->requests_done / p->requests_planned) : 0;
	if (fill > width)
		fill = width;
	fprintf(stderr, "\r\033[K%-12s [%.*s%*s] %lld/%lld requests, %s tokens", p->probe, fill,
	    "##############################", width - fill, "", (long long)p->requests_done,
	    (long long)p->requests_planned, thousands(p->tokens_used, t));
	fflush(stderr);
	b->drawn = 1;
}

/* Prints b through term_write (the engine's text may quote a vendor) and frees it. */
static void
print_buf(FILE *f, struct buf *b)
{
	if (b->len > 0)
		term_write(f, b->data);
	buf_free(b);
}

void
probe_print_plan(FILE *f, const cJSON *plan)
{
	struct buf b;

	buf_init(&b);
	probe_plan_text(&b, plan);
	print_buf(f, &b);
}

void
probe_print_next_steps(struct aivet *av, const struct probe_run *run)
{
	struct buf b;

	buf_init(&b);
	probe_next_steps(av, run, &b);
	print_buf(stdout, &b);
}

void
probe_print_runs(const struct probe_run *runs, size_t n, int one, cJSON *const *compare, int fmt)
{
	struct buf b;

	buf_init(&b);
	run_format_render(&b, runs, n, one, compare, fmt);
	/* Rendered safe for a terminal (the text) or as a document (JSON, XML): as it is. */
	if (b.len > 0)
		fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
}

void
probe_print_diff(FILE *f, const struct probe_diff *d)
{
	struct buf b;

	buf_init(&b);
	probe_diff_text(&b, d);
	print_buf(f, &b);
}

/* Prints a finished run in fmt; with compare_last, also the drift from the
 * previous run: in the JSON as "compare_last", after the text, or on stderr for
 * JUnit and SARIF. */
static int
probe_emit_run(struct db *db, const struct probe_run *run, int fmt, int compare_last, struct aerr *err)
{
	struct probe_diff cmp;
	cJSON *json = NULL;

	if (!compare_last) {
		probe_print_runs(run, 1, 1, NULL, fmt);
		return 0;
	}
	if (probe_compare_last(db, run->id, &cmp, err) != 0)
		return err->code;
	if (fmt == RUN_FMT_JSON)
		json = probe_diff_to_json(&cmp);
	probe_print_runs(run, 1, 1, json != NULL ? &json : NULL, fmt);
	if (fmt != RUN_FMT_JSON) {
		/* After the text; on stderr for JUnit and SARIF, so stdout stays one document. */
		fflush(stdout);
		probe_print_diff(fmt == RUN_FMT_TEXT ? stdout : stderr, &cmp);
	}
	cJSON_Delete(json);
	probe_diff_free(&cmp);
	return 0;
}

/* The run's exit status once it is printed: findings at fail_on, an errored probe. */
static int
run_exit(struct db *db, int rc, int64_t run_id, const char *fail_on, struct aerr *err)
{
	int exit_rc;

	if (rc != 0)
		return rc;
	exit_rc = probe_run_exit(db, run_id, fail_on, err);
	if (exit_rc == AV_RUNTIME && err->msg[0] == '\0')
		aerr_set(err, AV_RUNTIME, "run %lld: a probe ended in error", (long long)run_id);
	else if (exit_rc == AV_FINDINGS)
		err->code = AV_FINDINGS;   /* findings are the answer, not an error message */
	return exit_rc;
}

int
probe_run_cli(struct aivet *av, int64_t endpoint_id, const struct probe_opts *po, int json,
    const char *fail_on, int64_t *run_id, struct aerr *err)
{
	struct probe_opts o = *po;
	unsigned char seal_pk[32];
	struct sigaction old;
	struct bar bar = { isatty(STDERR_FILENO), 0 };
	struct probe_run run;
	int rc;

	/* Leaked content is another customer's data: sealed at rest from the first byte. */
	if (o.leak_seal_pk == NULL) {
		if (evidence_key_public(seal_pk, err) != 0)
			return aerr_prefix(err, "evidence key");
		o.leak_seal_pk = seal_pk;
	}
	catch_sigint(&old);
	o.cancel = &interrupted;
	o.progress = progress_bar;
	o.progress_arg = &bar;
	rc = probe_run_endpoint(av, endpoint_id, &o, run_id, err);
	sigaction(SIGINT, &old, NULL);
	if (bar.drawn)
		fprintf(stderr, "\r\033[K");
	if (*run_id == 0)
		return rc;
	if (probe_run_get(av->db, *run_id, &run, err) != 0)
		return err->code;
	/* json is a run_format: 0 text, 1 JSON, or JUnit / SARIF (run-format.h). */
	if (probe_emit_run(av->db, &run, json, po->compare_last, err) != 0) {
		probe_run_free(&run);
		return err->code;
	}
	if (json == RUN_FMT_TEXT)
		probe_print_next_steps(av, &run);
	probe_run_free(&run);
	return run_exit(av->db, rc, *run_id, fail_on, err);
}

/* ---- every endpoint at once ---- */

/* Prints the plans (on stdout for a dry run or text, else stderr) and asks. 0 to go on. */
static int
all_confirm(const struct probe_all_set *s, const struct probe_all_opts *a, int fmt, int yes, int dry,
    struct aerr *err)
{
	FILE *f = dry || fmt == RUN_FMT_TEXT ? stdout : stderr;
	char q[64];

	for (size_t i = 0; i < s->n; i++) {
		term_printf(f, "%s: ", s->t[i].ref);
		probe_print_plan(f, s->t[i].plan);
	}
	fprintf(f, "%zu endpoint%s, %d at a time, %d request%s in flight each%s\n",
	    s->n, s->n == 1 ? "" : "s", s->parallel, s->po.concurrency, s->po.concurrency == 1 ? "" : "s",
	    a->per_minute ? ", rate-limited per vendor" : "");
	if (dry)
		return 0;
	snprintf(q, sizeof q, "send these requests to %zu endpoint%s?", s->n, s->n == 1 ? "" : "s");
	if (!probe_confirm_tty(yes, q))
		return aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
	fflush(stdout);
	return 0;
}

/* "REF: running", "REF: run N finished": only on a terminal. */
static void
all_event(void *arg, const struct probe_all_target *t, int done)
{
	(void)arg;
	if (!done)
		term_printf(stderr, "%s: running\n", t->ref);
	else
		term_printf(stderr, "%s: run %lld %s\n", t->ref, (long long)t->run_id,
		    t->rc == 0 ? "finished" : "stopped");
}

static void
summary_table(FILE *f, struct db *db, const struct probe_all_set *s)
{
	fprintf(f, "%5s  %-28s %-17s %4s %4s %4s %4s %8s  %s\n", "run", "endpoint", "status", "pass",
	    "fail", "inc", "err", "findings", "worst");
	for (size_t i = 0; i < s->n; i++) {
		const struct probe_all_target *t = &s->t[i];
		struct probe_run_summary sum;

		if (t->run_id == 0) {
			term_printf(f, "%5s  %-28s %s\n", "-", t->ref, t->err.msg);
			continue;
		}
		probe_run_summary(db, t->run_id, &sum);
		term_printf(f, "%5lld  %-28s %-17s %4d %4d %4d %4d %8lld  %s\n", (long long)t->run_id, t->ref,
		    sum.status, sum.pass, sum.fail, sum.inconclusive, sum.error, (long long)sum.findings,
		    sum.worst);
	}
}

/* The runs in fmt, in the order of the endpoints, with their drift when asked. */
static void
all_print_runs(const struct probe_run_list *runs, struct probe_diff *const *cmps, int fmt)
{
	cJSON **json;

	if (fmt == RUN_FMT_TEXT) {
		for (size_t i = 0; i < runs->n; i++) {
			probe_print_runs(&runs->items[i], 1, 1, NULL, fmt);
			if (cmps[i] != NULL)
				probe_print_diff(stdout, cmps[i]);
			fputc('\n', stdout);
		}
		return;
	}
	json = xcalloc(runs->n + 1, sizeof *json);
	for (size_t i = 0; fmt == RUN_FMT_JSON && i < runs->n; i++)
		json[i] = cmps[i] != NULL ? probe_diff_to_json(cmps[i]) : NULL;
	probe_print_runs(runs->items, runs->n, 0, fmt == RUN_FMT_JSON ? json : NULL, fmt);
	for (size_t i = 0; i < runs->n; i++)
		cJSON_Delete(json[i]);
	free(json);
	fflush(stdout);
	/* JUnit and SARIF carry no drift: it goes to stderr, so stdout stays one document. */
	if (fmt != RUN_FMT_JSON)
		for (size_t i = 0; i < runs->n; i++)
			if (cmps[i] != NULL)
				probe_print_diff(stderr, cmps[i]);
}

/* The worst exit status of the runs, with the error that says why. */
static int
all_worst(const struct probe_all_set *s, int worst, struct aerr *err)
{
	if (worst == AV_FINDINGS)
		err->code = AV_FINDINGS;   /* findings are the answer, not an error message */
	else if (worst == AV_RUNTIME) {
		for (size_t i = 0; i < s->n; i++)
			if (s->t[i].rc != 0 || s->t[i].run_id == 0) {
				aerr_set(err, AV_RUNTIME, "%s: %s", s->t[i].ref, s->t[i].err.msg);
				break;
			}
		if (err->msg[0] == '\0')
			aerr_set(err, AV_RUNTIME, "a probe ended in error");
	}
	return worst;
}

/* Prints the runs and the summary table; returns the worst exit status. */
static int
all_report(struct db *db, const struct probe_all_set *s, int fmt, const char *fail_on, struct aerr *err)
{
	struct probe_run_list runs = { xcalloc(s->n + 1, sizeof *runs.items), 0 };
	struct probe_diff **cmps = xcalloc(s->n + 1, sizeof *cmps);
	int rc = 0, worst = 0;

	for (size_t i = 0; i < s->n && rc == 0; i++) {
		const struct probe_all_target *t = &s->t[i];
		struct probe_diff *cmp = s->po.compare_last ? xcalloc(1, sizeof *cmp) : NULL;
		int e;

		if (t->run_id == 0) {
			free(cmp);
			worst = worst == AV_FINDINGS ? worst : AV_RUNTIME;
			continue;
		}
		if (probe_run_get(db, t->run_id, &runs.items[runs.n], err) != 0 || (cmp != NULL &&
		    probe_compare_last(db, t->run_id, cmp, err) != 0)) {
			if (runs.items[runs.n].id != 0)
				runs.n++;
			free(cmp);
			rc = err->code;
			break;
		}
		cmps[runs.n++] = cmp;
		e = t->rc != 0 ? AV_RUNTIME : probe_run_exit(db, t->run_id, fail_on, err);
		aerr_clear(err);
		if (e == AV_FINDINGS || (e == AV_RUNTIME && worst == 0))
			worst = e;
	}
	if (rc == 0) {
		all_print_runs(&runs, cmps, fmt);
		summary_table(fmt == RUN_FMT_TEXT ? stdout : stderr, db, s);
		rc = all_worst(s, worst, err);
	}
	for (size_t i = 0; i < runs.n; i++)
		if (cmps[i] != NULL) {
			probe_diff_free(cmps[i]);
			free(cmps[i]);
		}
	free(cmps);
	probe_run_list_free(&runs);
	return rc;
}

int
probe_run_all(struct aivet *av, const struct probe_opts *po, const struct probe_all_opts *a, int fmt,
    const char *fail_on, int yes, int dry, struct aerr *err)
{
	struct probe_all_set s;
	struct sigaction old;
	int rc;

	if ((rc = probe_all_plan(av, po, a, &s, err)) != 0)
		goto out;
	if (dry && fmt == RUN_FMT_JSON) {
		cJSON *plans = cJSON_CreateArray();

		for (size_t i = 0; i < s.n; i++) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddStringToObject(x, "endpoint", s.t[i].ref);
			cJSON_AddItemToObject(x, "plan", s.t[i].plan);
			s.t[i].plan = NULL;
			cJSON_AddItemToArray(plans, x);
		}
		json_emit(plans);
		goto out;
	}
	if ((rc = all_confirm(&s, a, fmt, yes, dry, err)) != 0 || dry)
		goto out;
	catch_sigint(&old);
	s.po.cancel = &interrupted;
	probe_all_run(av, &s, a, isatty(STDERR_FILENO) ? all_event : NULL, NULL);
	sigaction(SIGINT, &old, NULL);
	rc = all_report(av->db, &s, fmt, fail_on, err);
out:
	probe_all_free(&s);
	return rc;
}
