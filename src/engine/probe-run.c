/*
 * probe-run.c: the engine's side of running probes for the command line:
 * the next steps a run's findings call for, and every active endpoint at once
 * ("probe run --all [--vendor V]", for scheduled verification). It asks
 * nothing and prints nothing: the front end (src/cli/probe-cli.c) confirms,
 * draws progress, catches Ctrl-C (setting the run's cancel flag) and prints.
 * Every endpoint is planned first, so a missing credential stops the whole
 * thing before anything is sent. Runs then go in parallel (--parallel, each
 * with its own database connection) under one global limit of requests in
 * flight (--concurrency is shared out among them) and a per-vendor rate
 * limit (--rate-limit requests per minute, shared by that vendor's runs).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>

#include "probe.h"
#include "run-format.h"

#define DEFAULT_PARALLEL 2
#define DEFAULT_CONCURRENCY 4
#define MAX_ENDPOINTS 4096

/* One vendor's request pacing, shared by the threads running its endpoints. */
struct probe_pacer {
	int64_t vendor_id;
	pthread_mutex_t mu;
	double interval_ms;           /* 0: no limit */
	double next_ms;               /* monotonic time the next request may go */
	volatile sig_atomic_t *cancel;
};

struct pool {
	struct aivet *av;
	struct probe_all_set *s;
	size_t next;
	pthread_mutex_t mu;
	void (*on_event)(void *arg, const struct probe_all_target *t, int done);
	void *arg;
};

static int
cancelled(volatile sig_atomic_t *cancel)
{
	return cancel != NULL && *cancel;
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
	struct probe_pacer *p = arg;
	double now, at;

	if (p->interval_ms <= 0)
		return;
	pthread_mutex_lock(&p->mu);
	now = mono_ms();
	at = p->next_ms > now ? p->next_ms : now;
	p->next_ms = at + p->interval_ms;
	pthread_mutex_unlock(&p->mu);
	while (at > now && !cancelled(p->cancel)) {
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
	volatile sig_atomic_t *cancel = pl->s->po.cancel;

	for (;;) {
		struct probe_all_target *t;
		struct aivet wav;
		struct probe_opts o;

		pthread_mutex_lock(&pl->mu);
		t = pl->next < pl->s->n && !cancelled(cancel) ? &pl->s->t[pl->next++] : NULL;
		pthread_mutex_unlock(&pl->mu);
		if (t == NULL)
			return NULL;
		/* Each run its own connection: SQLite serialises the writers (WAL, busy timeout). */
		wav = *pl->av;
		wav.db = NULL;
		o = pl->s->po;
		o.pace = pace;
		o.pace_arg = t->pacer;
		o.progress = NULL;
		if (pl->on_event != NULL)
			pl->on_event(pl->arg, t, 0);
		t->rc = probe_run_endpoint(&wav, t->endpoint_id, &o, &t->run_id, &t->err);
		if (t->rc != 0 && t->err.msg[0] == '\0')
			aerr_set(&t->err, t->rc, "the run did not complete");
		if (pl->on_event != NULL)
			pl->on_event(pl->arg, t, 1);
		av_close(&wav);
	}
}

static int
list_targets(struct db *db, int64_t vid, struct probe_all_set *s, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT e.id, v.id, v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.status = 'active' AND v.status = 'active' AND "
	    "(? = 0 OR v.id = ?) ORDER BY v.name, e.name", "ii", vid, vid);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW && s->n < MAX_ENDPOINTS) {
		struct probe_all_target *t;

		s->t = xrealloc(s->t, (s->n + 1) * sizeof *s->t);
		t = &s->t[s->n++];
		memset(t, 0, sizeof *t);
		t->endpoint_id = db_col_int64(st, 0);
		t->vendor_id = db_col_int64(st, 1);
		t->ref = xstrdup(col_text(st, 2));
	}
	db_finalize(st);
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

/* The figures of the summary table's row for a run. */
int
probe_run_summary(struct db *db, int64_t run_id, struct probe_run_summary *sum)
{
	struct db_stmt *st;
	int rc = AV_RUNTIME;

	memset(sum, 0, sizeof *sum);
	snprintf(sum->worst, sizeof sum->worst, "-");
	st = db_prepare(db, NULL, "SELECT r.status, "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'pass'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'fail'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'inconclusive'), "
	    "(SELECT count(*) FROM probe_result p WHERE p.run_id = r.id AND p.verdict = 'error'), "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1) FROM probe_run r WHERE r.id = ?", "i", run_id);
	if (st != NULL && db_step(st) == DB_ROW) {
		snprintf(sum->status, sizeof sum->status, "%s", col_text(st, 0));
		sum->pass = db_col_int(st, 1);
		sum->fail = db_col_int(st, 2);
		sum->inconclusive = db_col_int(st, 3);
		sum->error = db_col_int(st, 4);
		sum->findings = db_col_int64(st, 5);
		if (db_col_type(st, 6) != DB_NULL)
			snprintf(sum->worst, sizeof sum->worst, "%s", col_text(st, 6));
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

/* Each target's credentials and plan; the first that fails stops the lot. */
static int
plan_targets(struct aivet *av, struct db *db, struct probe_all_set *s, struct aerr *err)
{
	for (size_t i = 0; i < s->n; i++)
		if (probe_credentials_ready(db, av->actor, s->t[i].endpoint_id, err) != 0 ||
		    probe_plan_endpoint(av, s->t[i].endpoint_id, &s->po, &s->t[i].plan, err) != 0)
			return aerr_prefix(err, "%s", s->t[i].ref);
	return 0;
}

int
probe_all_plan(struct aivet *av, const struct probe_opts *po, const struct probe_all_opts *a,
    struct probe_all_set *s, struct aerr *err)
{
	struct db *db;
	int total;

	memset(s, 0, sizeof *s);
	s->po = *po;
	if ((db = av_db(av, err)) == NULL ||
	    list_targets(db, a->vendor != NULL ? a->vendor_id : 0, s, err) != 0)
		return err->code;
	if (s->n == 0)
		return a->vendor ? aerr_set(err, AV_USAGE, "vendor '%s' has no active endpoints", a->vendor) :
		    aerr_set(err, AV_USAGE, "there are no active endpoints to probe");
	s->parallel = a->parallel > 0 ? a->parallel : DEFAULT_PARALLEL;
	if ((size_t)s->parallel > s->n)
		s->parallel = (int)s->n;
	total = po->concurrency > 0 ? po->concurrency : DEFAULT_CONCURRENCY;
	/* The global limit: runs at once times requests in flight per run stays within it. */
	if (s->parallel > total)
		s->parallel = total;
	s->po.concurrency = total / s->parallel;
	return plan_targets(av, db, s, err);
}

/* One pacer per vendor, shared by that vendor's targets. */
static struct probe_pacer *
pacers_make(struct probe_all_set *s, const struct probe_all_opts *a, size_t *npacers)
{
	struct probe_pacer *pacers = xcalloc(s->n, sizeof *pacers);

	*npacers = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t k;

		for (k = 0; k < *npacers && pacers[k].vendor_id != s->t[i].vendor_id; k++)
			;
		if (k == *npacers) {
			pacers[k].vendor_id = s->t[i].vendor_id;
			pthread_mutex_init(&pacers[k].mu, NULL);
			pacers[k].interval_ms = a->per_minute ? 60000.0 / a->per_minute : 0;
			pacers[k].cancel = s->po.cancel;
			(*npacers)++;
		}
		s->t[i].pacer = &pacers[k];
	}
	return pacers;
}

void
probe_all_run(struct aivet *av, struct probe_all_set *s, const struct probe_all_opts *a,
    void (*on_event)(void *arg, const struct probe_all_target *t, int done), void *arg)
{
	size_t npacers;
	struct probe_pacer *pacers = pacers_make(s, a, &npacers);
	pthread_t *th;
	struct pool pl;

	/* libcurl's global state must exist before threads make handles. */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	memset(&pl, 0, sizeof pl);
	pl.av = av, pl.s = s, pl.on_event = on_event, pl.arg = arg;
	pthread_mutex_init(&pl.mu, NULL);
	th = xcalloc((size_t)s->parallel, sizeof *th);
	for (int i = 0; i < s->parallel; i++)
		if (pthread_create(&th[i], NULL, worker, &pl) != 0)
			die("cannot start a thread");
	for (int i = 0; i < s->parallel; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&pl.mu);
	free(th);
	for (size_t i = 0; i < s->n; i++)
		s->t[i].pacer = NULL;
	for (size_t i = 0; i < npacers; i++)
		pthread_mutex_destroy(&pacers[i].mu);
	free(pacers);
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].run_id == 0 && s->t[i].err.msg[0] == '\0')
			aerr_set(&s->t[i].err, AV_RUNTIME, "not started: interrupted");
}

void
probe_all_free(struct probe_all_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->t[i].ref);
		cJSON_Delete(s->t[i].plan);
	}
	free(s->t);
	memset(s, 0, sizeof *s);
}
