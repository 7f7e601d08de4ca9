/*
 * probe-run.c: running probes from the command line, with one Ctrl-C handler
 * and one confirmation for both ways of running. One endpoint runs with a
 * progress bar on a terminal (probe_run_cli: "probe run", "aivet demo").
 * "probe run --all [--vendor V]" runs every active endpoint (of one vendor,
 * or of all), one run each, for scheduled verification.
 * Every endpoint is planned first, so a missing credential stops the whole
 * thing before anything is sent. Runs then go in parallel (--parallel, each
 * with its own database connection) under one global limit of requests in
 * flight (--concurrency is shared out among them) and a per-vendor rate
 * limit (--rate-limit requests per minute, shared by that vendor's runs).
 * A summary table closes the output; the exit status is the worst of the
 * runs'.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "evidence-key.h"
#include "probe.h"
#include "run-format.h"

#define DEFAULT_PARALLEL 2
#define DEFAULT_CONCURRENCY 4
#define MAX_ENDPOINTS 4096

/* One vendor's request pacing, shared by the threads running its endpoints. */
struct pacer {
	int64_t vendor_id;
	pthread_mutex_t mu;
	double interval_ms;           /* 0: no limit */
	double next_ms;               /* monotonic time the next request may go */
};

struct target {
	int64_t endpoint_id, vendor_id;
	char *ref;                    /* VENDOR/ENDPOINT */
	struct pacer *pacer;
	int64_t run_id;
	int rc;
	struct aerr err;
};

struct pool {
	struct aivet *av;
	const struct probe_opts *po;
	struct target *t;
	size_t n, next;
	pthread_mutex_t mu;
	int tty;
};

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

int
probe_confirm(const char *question)
{
	char line[16];

	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (fgets(line, sizeof line, stdin) == NULL)
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
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

/* Which diagnose run a verify finding calls for: the sweep locates a boundary a
 * prompt crossed (its findings, and the canary's streamed top point, which stands
 * for the sweep's); the canary looks further at isolation. NULL: none. */
static const char *
next_probe(const struct finding *f, const char *probe, const char **does)
{
	const struct finding_info *fi = finding_lookup(f->code);
	enum finding_code c = fi != NULL ? fi->id : F_COUNT;

	if (strcmp(probe, "sweep") == 0 || c == F_CAPACITY_BELOW_ADVERTISED || c == F_SILENT_TRUNCATION) {
		*does = "locates the boundary";
		return "sweep";
	}
	if (strcmp(probe, "canary") == 0 && (c == F_LEAK_CROSS_TENANT || c == F_LEAK_CROSS_REQUEST ||
	    c == F_PLACEHOLDER_SUBSTITUTION || c == F_LOAD_BREAKS_OTHER_TENANT)) {
		*does = "looks further, with twice the canary rounds";
		return "canary";
	}
	return NULL;
}

void
probe_next_steps(struct aivet *av, const struct probe_run *run, struct buf *out)
{
	const char *want[2] = { NULL, NULL }, *does[2] = { NULL, NULL };
	char *word = shell_word(run->endpoint);

	if (run->depth != NULL && strcmp(run->depth, "diagnose") == 0) {
		free(word);
		return;
	}
	for (size_t i = 0; i < run->nprobes; i++)
		for (size_t k = 0; k < run->probes[i].nfindings; k++) {
			const char *d, *p = next_probe(&run->probes[i].findings[k], run->probes[i].name, &d);
			int slot = p == NULL ? -1 : strcmp(p, "sweep") == 0 ? 0 : 1;

			if (slot >= 0 && want[slot] == NULL)
				want[slot] = p, does[slot] = d;
		}
	for (int s = 0; s < 2; s++) {
		struct probe_opts o = { .probes = want[s], .depth = PROBE_DIAGNOSE };
		struct aerr e = { 0 };
		struct run_plan rp;
		cJSON *plan;
		char a[32], b[32], c[32];

		if (want[s] == NULL)
			continue;
		buf_printf(out, "next: aivet probe run %s --probe %s --depth diagnose %s", word, want[s], does[s]);
		/* Planned now, as its --dry-run plans it: the same figures, never a stale record. */
		if (probe_plan_endpoint(av, run->endpoint_id, &o, &plan, &e) != 0) {
			buf_printf(out, " (no plan: %s)\n", e.msg);
			continue;
		}
		run_plan_read(plan, &rp);
		buf_printf(out, ": %s requests, at most %s tokens in and %s out", thousands(rp.requests, a),
		    thousands(rp.tokens_in, b), thousands(rp.tokens_out, c));
		if (rp.has_most_usd)
			buf_printf(out, " (about USD %.2f)", rp.most_usd);
		buf_adds(out, ", as its --dry-run plans it\n");
		run_plan_free(&rp);
		cJSON_Delete(plan);
	}
	free(word);
}

void
probe_print_next_steps(struct aivet *av, const struct probe_run *run)
{
	struct buf b;

	buf_init(&b);
	probe_next_steps(av, run, &b);
	if (b.len > 0)
		term_write(stdout, b.data);
	buf_free(&b);
}

/* Runs with Ctrl-C handling and a progress bar; prints the result; returns the exit status. */
int
probe_run_cli(struct aivet *av, int64_t endpoint_id, const struct probe_opts *po, int json,
    const char *fail_on, int64_t *run_id, struct aerr *err)
{
	struct probe_opts o = *po;
	unsigned char seal_pk[32];
	struct sigaction old;
	struct bar bar = { isatty(STDERR_FILENO), 0 };
	struct probe_run run;
	int rc, exit_rc;

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
	if (rc != 0)
		return rc;
	exit_rc = probe_run_exit(av->db, *run_id, fail_on, err);
	if (exit_rc == AV_RUNTIME && err->msg[0] == '\0')
		aerr_set(err, AV_RUNTIME, "run %lld: a probe ended in error", (long long)*run_id);
	else if (exit_rc == AV_FINDINGS)
		err->code = AV_FINDINGS;   /* findings are the answer, not an error message */
	return exit_rc;
}

int
probe_all_option(struct probe_all_opts *a, const char *opt, const char *val, struct aerr *err)
{
	int64_t v;

	if (strcmp(opt, "--all") == 0)
		a->all = 1;
	else if (strcmp(opt, "--vendor") == 0)
		a->vendor = val;
	else if (strcmp(opt, "--parallel") == 0) {
		if (parse_int_opt(opt, val, 1, 64, &v, err) != 0)
			return err->code;
		a->parallel = (int)v;
	} else {
		if (parse_int_opt(opt, val, 1, 600000, &v, err) != 0)
			return err->code;
		a->per_minute = (int)v;
	}
	return 0;
}

static double
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Waits for the vendor's next slot: requests of all its runs together stay
 * at or under the rate. */
static void
pace(void *arg)
{
	struct pacer *p = arg;
	double now, at;

	if (p->interval_ms <= 0)
		return;
	pthread_mutex_lock(&p->mu);
	now = mono_ms();
	at = p->next_ms > now ? p->next_ms : now;
	p->next_ms = at + p->interval_ms;
	pthread_mutex_unlock(&p->mu);
	while (at > now && !interrupted) {
		double wait = at - now < 200 ? at - now : 200;   /* short naps: Ctrl-C stays prompt */
		struct timespec ts = { (time_t)(wait / 1000), (long)((wait - (double)(long)(wait / 1000) *
		    1000) * 1e6) };

		nanosleep(&ts, NULL);
		now = mono_ms();
	}
}

static void *
worker(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		struct target *t;
		struct aivet wav;
		struct probe_opts o;

		pthread_mutex_lock(&pl->mu);
		t = pl->next < pl->n && !interrupted ? &pl->t[pl->next++] : NULL;
		pthread_mutex_unlock(&pl->mu);
		if (t == NULL)
			return NULL;
		/* Each run its own connection: SQLite serialises the writers (WAL, busy timeout). */
		wav = *pl->av;
		wav.db = NULL;
		o = *pl->po;
		o.pace = pace;
		o.pace_arg = t->pacer;
		o.cancel = &interrupted;
		o.progress = NULL;
		if (pl->tty)
			fprintf(stderr, "%s: running\n", t->ref);
		t->rc = probe_run_endpoint(&wav, t->endpoint_id, &o, &t->run_id, &t->err);
		if (t->rc != 0 && t->err.msg[0] == '\0')
			aerr_set(&t->err, t->rc, "the run did not complete");
		if (pl->tty)
			fprintf(stderr, "%s: run %lld %s\n", t->ref, (long long)t->run_id,
			    t->rc == 0 ? "finished" : "stopped");
		av_close(&wav);
	}
}

static int
list_targets(struct db *db, int64_t vid, struct target **out, size_t *n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT e.id, v.id, v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.status = 'active' AND v.status = 'active' AND "
	    "(? = 0 OR v.id = ?) ORDER BY v.name, e.name", "ii", vid, vid);
	struct target *t = NULL;

	*n = 0;
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW && *n < MAX_ENDPOINTS) {
		t = xrealloc(t, (*n + 1) * sizeof *t);
		memset(&t[*n], 0, sizeof *t);
		t[*n].endpoint_id = db_col_int64(st, 0);
		t[*n].vendor_id = db_col_int64(st, 1);
		t[*n].ref = xstrdup(col_text(st, 2));
		(*n)++;
	}
	db_finalize(st);
	*out = t;
	return 0;
}

/* Every credential of the endpoint resolves: checked for all endpoints before
 * any is probed, so that a missing key cannot leave the suite half run. */
int
probe_credentials_ready(struct db *db, const char *runner, int64_t endpoint_id, struct aerr *err)
{
	struct endpoint e;
	int rc = 0;

	if (endpoint_get(db, endpoint_id, &e, err) != 0)
		return err->code;
	for (size_t i = 0; rc == 0 && i < e.ncredentials; i++) {
		char *secret;
		size_t len;

		if ((rc = credref_read(db, runner, endpoint_id, e.url, e.credentials[i].label,
		    e.credentials[i].ref, &secret, &len, err)) != 0)
			aerr_prefix(err, "tenant '%s'", e.credentials[i].label);
		else
			credref_free(secret, len);
	}
	endpoint_free(&e);
	return rc;
}

static void
summary_row(FILE *f, const struct target *t, struct db *db)
{
	struct db_stmt *st;
	int v[4] = { 0 };
	int64_t nf = 0;
	char worst[16] = "-", status[32] = "";

	if (t->run_id == 0) {
		fprintf(f, "%5s  %-28s %s\n", "-", t->ref, t->err.msg);
		return;
	}
	st = db_prepare(db, NULL, "SELECT r.status, "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'pass'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'fail'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'inconclusive'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'error'), "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1) FROM probe_run r WHERE r.id = ?", "i", t->run_id);
	if (st != NULL && db_step(st) == DB_ROW) {
		snprintf(status, sizeof status, "%s", col_text(st, 0));
		for (int i = 0; i < 4; i++)
			v[i] = db_col_int(st, 1 + i);
		nf = db_col_int64(st, 5);
		if (db_col_type(st, 6) != DB_NULL)
			snprintf(worst, sizeof worst, "%s", col_text(st, 6));
	}
	db_finalize(st);
	fprintf(f, "%5lld  %-28s %-17s %4d %4d %4d %4d %8lld  %s\n", (long long)t->run_id, t->ref, status,
	    v[0], v[1], v[2], v[3], (long long)nf, worst);
}

/* Plans every endpoint before anything is sent, so a bad credential stops the
 * lot, prints the plans and asks. Returns 0 to go on; with *stop set (a dry
 * run) nothing more is to be done. */
static int
plan_all(struct aivet *av, struct db *db, const struct probe_opts *po, struct target *t, size_t n,
    const struct probe_all_opts *a, int parallel, int fmt, int yes, int dry, int *stop,
    struct aerr *err)
{
	FILE *info = fmt == RUN_FMT_TEXT ? stdout : stderr, *f = dry ? stdout : info;
	cJSON *plans = cJSON_CreateArray();
	const cJSON *o;

	*stop = 0;
	for (size_t i = 0; i < n; i++) {
		cJSON *plan, *x;

		if (probe_credentials_ready(db, av->actor, t[i].endpoint_id, err) != 0 ||
		    probe_plan_endpoint(av, t[i].endpoint_id, po, &plan, err) != 0) {
			cJSON_Delete(plans);
			return aerr_prefix(err, "%s", t[i].ref);
		}
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "endpoint", t[i].ref);
		cJSON_AddItemToObject(x, "plan", plan);
		cJSON_AddItemToArray(plans, x);
	}
	if (dry && fmt == RUN_FMT_JSON) {
		json_emit(plans);
		*stop = 1;
		return 0;
	}
	cJSON_ArrayForEach(o, plans) {
		fprintf(f, "%s: ", cJSON_GetObjectItem(o, "endpoint")->valuestring);
		probe_print_plan(f, cJSON_GetObjectItem(o, "plan"));
	}
	cJSON_Delete(plans);
	fprintf(f, "%zu endpoint%s, %d at a time, %d request%s in flight each%s\n",
	    n, n == 1 ? "" : "s", parallel, po->concurrency, po->concurrency == 1 ? "" : "s",
	    a->per_minute ? ", rate-limited per vendor" : "");
	if (dry) {
		*stop = 1;
		return 0;
	}
	if (!yes && isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		char q[64];

		snprintf(q, sizeof q, "send these requests to %zu endpoint%s?", n, n == 1 ? "" : "s");
		if (!probe_confirm(q))
			return aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
	}
	fflush(stdout);
	return 0;
}

/* Runs every target, `parallel` at a time, each vendor's paced by its own pacer;
 * Ctrl-C stops them all. A target never started says so in its error. */
static void
run_targets(struct aivet *av, const struct probe_opts *po, struct target *t, size_t n,
    const struct probe_all_opts *a, int parallel)
{
	struct pacer *pacers = xcalloc(n, sizeof *pacers);
	size_t npacers = 0;
	struct sigaction old;
	pthread_t *th;
	struct pool pl;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < npacers && pacers[k].vendor_id != t[i].vendor_id; k++)
			;
		if (k == npacers) {
			pacers[k].vendor_id = t[i].vendor_id;
			pthread_mutex_init(&pacers[k].mu, NULL);
			pacers[k].interval_ms = a->per_minute ? 60000.0 / a->per_minute : 0;
			npacers++;
		}
		t[i].pacer = &pacers[k];
	}
	/* libcurl's global state must exist before threads make handles. */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	catch_sigint(&old);
	memset(&pl, 0, sizeof pl);
	pl.av = av, pl.po = po, pl.t = t, pl.n = n, pl.tty = isatty(STDERR_FILENO);
	pthread_mutex_init(&pl.mu, NULL);
	th = xcalloc((size_t)parallel, sizeof *th);
	for (int i = 0; i < parallel; i++)
		if (pthread_create(&th[i], NULL, worker, &pl) != 0)
			die("cannot start a thread");
	for (int i = 0; i < parallel; i++)
		pthread_join(th[i], NULL);
	sigaction(SIGINT, &old, NULL);
	pthread_mutex_destroy(&pl.mu);
	free(th);
	for (size_t i = 0; i < n; i++)
		t[i].pacer = NULL;
	for (size_t i = 0; i < npacers; i++)
		pthread_mutex_destroy(&pacers[i].mu);
	free(pacers);
	for (size_t i = 0; i < n; i++)
		if (t[i].run_id == 0 && t[i].err.msg[0] == '\0')
			aerr_set(&t[i].err, AV_RUNTIME, "not started: interrupted");
}

/* Prints the runs in the order of the endpoints (with their drift when asked) and
 * the summary table; returns the worst exit status. */
static int
report_all(struct db *db, const struct probe_opts *po, struct target *t, size_t n, int fmt,
    const char *fail_on, struct aerr *err)
{
	FILE *info = fmt == RUN_FMT_TEXT ? stdout : stderr;
	struct probe_run_list runs = { xcalloc(n + 1, sizeof *runs.items), 0 };
	cJSON **cmps = xcalloc(n + 1, sizeof *cmps);
	int rc, worst = 0;

	for (size_t i = 0; i < n; i++) {
		cJSON *cmp = NULL;
		int e;

		if (t[i].run_id == 0) {
			worst = worst == AV_FINDINGS ? worst : AV_RUNTIME;
			continue;
		}
		if (probe_run_get(db, t[i].run_id, &runs.items[runs.n], err) != 0 || (po->compare_last &&
		    (cmp = probe_compare_last(db, t[i].run_id, err)) == NULL)) {
			if (runs.items[runs.n].id != 0)
				runs.n++;
			rc = err->code;
			goto out;
		}
		cmps[runs.n++] = cmp;
		e = t[i].rc != 0 ? AV_RUNTIME : probe_run_exit(db, t[i].run_id, fail_on, err);
		aerr_clear(err);
		if (e == AV_FINDINGS || (e == AV_RUNTIME && worst == 0))
			worst = e;
	}
	if (fmt == RUN_FMT_TEXT) {
		for (size_t i = 0; i < runs.n; i++) {
			probe_print_run(stdout, &runs.items[i]);
			if (cmps[i] != NULL)
				probe_compare_print(stdout, runs.items[i].id, cmps[i]);
			fputc('\n', stdout);
		}
	} else {
		run_format_emit(stdout, runs.items, runs.n, 0, fmt == RUN_FMT_JSON ? cmps : NULL, fmt);
		fflush(stdout);
		/* JUnit and SARIF carry no drift: it goes to stderr, so stdout stays one document. */
		if (fmt != RUN_FMT_JSON)
			for (size_t i = 0; i < runs.n; i++)
				if (cmps[i] != NULL)
					probe_compare_print(stderr, runs.items[i].id, cmps[i]);
	}
	fprintf(info, "%5s  %-28s %-17s %4s %4s %4s %4s %8s  %s\n", "run", "endpoint", "status", "pass",
	    "fail", "inc", "err", "findings", "worst");
	for (size_t i = 0; i < n; i++)
		summary_row(info, &t[i], db);
	rc = worst;
	if (rc == AV_FINDINGS)
		err->code = AV_FINDINGS;   /* findings are the answer, not an error message */
	else if (rc == AV_RUNTIME) {
		for (size_t i = 0; i < n; i++)
			if (t[i].rc != 0 || t[i].run_id == 0) {
				aerr_set(err, AV_RUNTIME, "%s: %s", t[i].ref, t[i].err.msg);
				break;
			}
		if (err->msg[0] == '\0')
			aerr_set(err, AV_RUNTIME, "a probe ended in error");
	}
out:
	for (size_t i = 0; i < runs.n; i++)
		cJSON_Delete(cmps[i]);
	free(cmps);
	probe_run_list_free(&runs);
	return rc;
}

int
probe_run_all(struct aivet *av, const struct probe_opts *po_in, const struct probe_all_opts *a,
    int fmt, const char *fail_on, int yes, int dry, struct aerr *err)
{
	struct probe_opts po = *po_in;
	struct target *t = NULL;
	size_t n = 0;
	struct db *db;
	int parallel, total, stop, rc;

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (list_targets(db, a->vendor != NULL ? a->vendor_id : 0, &t, &n, err) != 0)
		return err->code;
	if (n == 0) {
		rc = a->vendor ? aerr_set(err, AV_USAGE, "vendor '%s' has no active endpoints", a->vendor) :
		    aerr_set(err, AV_USAGE, "there are no active endpoints to probe");
		goto out;
	}
	parallel = a->parallel > 0 ? a->parallel : DEFAULT_PARALLEL;
	if ((size_t)parallel > n)
		parallel = (int)n;
	total = po.concurrency > 0 ? po.concurrency : DEFAULT_CONCURRENCY;
	/* The global limit: runs at once times requests in flight per run stays within it. */
	if (parallel > total)
		parallel = total;
	po.concurrency = total / parallel;

	if ((rc = plan_all(av, db, &po, t, n, a, parallel, fmt, yes, dry, &stop, err)) != 0 || stop)
		goto out;
	run_targets(av, &po, t, n, a, parallel);
	rc = report_all(db, &po, t, n, fmt, fail_on, err);
out:
	for (size_t i = 0; i < n; i++)
		free(t[i].ref);
	free(t);
	return rc;
}
