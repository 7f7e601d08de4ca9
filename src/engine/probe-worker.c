/*
 * probe-worker.c: "aivet worker", which runs queued probe runs on this host
 * without a terminal. It takes an entry with a lease (on PostgreSQL, FOR
 * UPDATE SKIP LOCKED in aivet_queue_take(); on SQLite the file's write lock),
 * runs it on a thread with its own connection, renews the leases of the runs
 * it holds every third of the lease, and marks each done when its run ends.
 * A lease that runs out (the worker was killed, or stalled past it) is
 * found by any worker: the run is interrupted, its exchanges kept, and the
 * endpoint queued again. A worker that finds its lease gone stops its run.
 * Stopped (the front end sets its stop flag on SIGINT or SIGTERM): runs in
 * hand stop and go back to the queue. It prints nothing: each line of what it
 * does goes to the front end's say callback.
 * Per-vendor limits: runs at once are counted when taking; requests a
 * minute are paced through the vendor's slot in the database, which every
 * request of every worker moves on.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <sodium.h>

#include "evidence-key.h"
#include "probe.h"
#include "probe-queue.h"
#include "queue-impl.h"

#define MAX_CONCURRENCY 64

struct worker;

/* One run in hand. */
struct job {
	struct worker *w;
	int64_t queue_id, endpoint_id, vendor_id, run_id;
	char claim[33];
	cJSON *opts;
	volatile sig_atomic_t cancel;
	int lost;                     /* the lease was found gone */
	int per_minute;
	struct aivet pav;             /* the pacing connection, when per_minute */
	pthread_mutex_t pace_mu;
	pthread_t th;
	int finished;                 /* set by the thread, under w->mu */
	int rc;
	struct aerr err;
};

struct worker {
	struct aivet *av;
	const struct worker_opts *o;
	char name[128];
	unsigned char seal_pk[32];
	pthread_mutex_t mu;
	struct job *jobs[MAX_CONCURRENCY];
	int njobs;
	/* Entries this worker took that ended without a run: the first one's
	 * number and why, for the error --once ends with. */
	int not_started;
	int64_t first_not_started;
	char why_not_started[256];
};

/* The front end's stop flag (its SIGINT and SIGTERM handler sets it). */
static int
stopping(const struct worker *w)
{
	return w->o->stop != NULL && *w->o->stop;
}

/* One line of what the worker does, to the front end (nothing when it does not
 * listen); the line is the caller's xasprintf, freed here. */
static void
say(const struct worker *w, char *line)
{
	if (w->o->say != NULL)
		w->o->say(w->o->say_arg, line);
	free(line);
}

static const struct db_write take_row = {
	{ "UPDATE probe_queue SET status = 'taken', worker = ?1, login = ?2, claim = ?3, "
	  "taken_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
	  "lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || ?4 || ' seconds') "
	  "WHERE id = (SELECT q.id FROM probe_queue q JOIN endpoint e ON e.id = q.endpoint_id "
	  "WHERE q.status = 'queued' AND NOT EXISTS (SELECT 1 FROM probe_queue o WHERE "
	  "o.endpoint_id = q.endpoint_id AND o.status = 'taken') AND coalesce((SELECT l.max_runs FROM "
	  "probe_limit l WHERE l.vendor_id = e.vendor_id), 1000000000) > (SELECT count(*) FROM probe_queue o "
	  "JOIN endpoint oe ON oe.id = o.endpoint_id WHERE o.status = 'taken' AND oe.vendor_id = e.vendor_id) "
	  "ORDER BY q.id LIMIT 1)" },
	"SELECT aivet_queue_take(?1, ?3, ?4)", 0
};

static const struct db_write renew_row = {
	{ "UPDATE probe_queue SET lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || ?3 || "
	  "' seconds') WHERE id = ?1 AND claim = ?2 AND status = 'taken'" },
	"SELECT aivet_queue_renew(?1, ?2, ?3)", 0
};

static const struct db_write started_row = {
	{ "UPDATE probe_queue SET run_id = ?3 WHERE id = ?1 AND claim = ?2 AND status = 'taken' AND "
	  "run_id IS NULL AND endpoint_id = (SELECT r.endpoint_id FROM probe_run r WHERE r.id = ?3)" },
	"SELECT aivet_queue_started(?1, ?2, ?3)", 0
};

static const struct db_write done_row = {
	{ "UPDATE probe_queue SET status = 'done', error = ?3, finished_at = ?4, lease_until = NULL "
	  "WHERE id = ?1 AND claim = ?2 AND status = 'taken' AND (run_id IS NULL OR "
	  "(SELECT r.status FROM probe_run r WHERE r.id = run_id) <> 'running')" },
	"SELECT aivet_queue_done(?1, ?2, ?3, ?4)", 0
};

/* Back to the queue: by its taker (claim), or by anyone once the lease ran out. */
#define REQUEUE_COND "status = 'taken' AND (claim = ?2 OR lease_until < " \
	"strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
static const struct db_write requeue_row = {
	{ "UPDATE probe_run SET status = 'interrupted', finished_at = COALESCE((SELECT max(started_at) "
	  "FROM exchange WHERE run_id = probe_run.id), started_at) WHERE status = 'running' AND "
	  "id = (SELECT run_id FROM probe_queue WHERE id = ?1 AND " REQUEUE_COND ")",
	  "INSERT INTO probe_queue (endpoint_id, options, plan, schedule_id, requeued_from, actor, queued_at) "
	  "SELECT endpoint_id, options, plan, schedule_id, id, actor, ?3 FROM probe_queue WHERE id = ?1 AND "
	  REQUEUE_COND,
	  "UPDATE probe_queue SET status = 'requeued', finished_at = ?3 WHERE id = ?1 AND " REQUEUE_COND },
	"SELECT aivet_queue_requeue(?1, ?2, ?3)", 0
};

/* The fleet's request slot of a vendor moves on by one request, never to
 * before now on the database's clock: when it may go. */
static int
slot_advance(struct db *db, int64_t vendor_id, struct aerr *err)
{
	const char *now = db_now_ms_sql(db);
	char *sql = xasprintf("UPDATE probe_limit SET slot_ms = CASE WHEN slot_ms + 60000 / per_minute > %s "
	    "THEN slot_ms + 60000 / per_minute ELSE %s END WHERE vendor_id = ? AND per_minute IS NOT NULL",
	    now, now);
	int rc = db_exec(db, err, sql, "i", vendor_id);

	free(sql);
	return rc;
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Requeues entry qid (claim NULL: one whose lease ran out), with the audit
 * entries: the run interrupted when it was still running, and the new entry.
 * *did (may be NULL): 1 when this call requeued it. */
static int
requeue(struct aivet *av, int64_t qid, const char *claim, const char *why, int *did, struct aerr *err)
{
	struct db *db = av->db;
	int64_t run_id = 0, was_running = 0, new_id = 0, moved = 0;
	char at[32];
	cJSON *a;
	int rc;

	if (did != NULL)
		*did = 0;
	if (db_begin(db, err) != 0)
		return err->code;
	now_iso(at);
	if (db_int(db, &run_id, err, "SELECT coalesce(run_id, 0) FROM probe_queue WHERE id = ?", "i", qid) < 0 ||
	    (run_id != 0 && db_int(db, &was_running, err, "SELECT count(*) FROM probe_run WHERE id = ? AND "
	    "status = 'running'", "i", run_id) < 0) ||
	    db_write(db, err, &requeue_row, &moved, "itt", qid, claim, at) != 0 ||
	    db_int(db, &new_id, err, "SELECT coalesce(max(id), 0) FROM probe_queue WHERE requeued_from = ?",
	    "i", qid) < 0)
		goto fail;
	/* Moved here, by this call (PostgreSQL: the new entry's id; SQLite: the rows
	 * marked requeued), or not ours: another worker did first, or the lease holds. */
	if (moved == 0 || new_id == 0) {
		db_rollback(db);
		return 0;
	}
	rc = 0;
	if (run_id != 0 && was_running) {
		a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "status", "interrupted");
		cJSON_AddStringToObject(a, "reason", why);
		rc = audit_append(db, av->actor, "probe.interrupted", "probe_run", run_id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0) {
		a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "requeued_from", (double)qid);
		if (run_id != 0)
			cJSON_AddNumberToObject(a, "run", (double)run_id);
		cJSON_AddStringToObject(a, "reason", why);
		rc = audit_append(db, av->actor, "probe.requeue", "probe_queue", new_id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0 && db_commit(db, err) == 0) {
		if (did != NULL)
			*did = 1;
		return 0;
	}
	if (rc != 0)
		goto fail;
	return err->code;
fail:
	db_rollback(db);
	return err->code;
}

/* Every entry whose lease ran out, on the database's clock. */
static int
reap_expired(struct worker *w, struct aerr *err)
{
	struct db *db = w->av->db;
	char *sql = xasprintf("SELECT id FROM probe_queue WHERE status = 'taken' AND lease_until < %s "
	    "ORDER BY id", queue_now_sql(db));
	int64_t *ids;
	size_t n;
	int rc = db_ids(db_prepare(db, err, sql, ""), &ids, &n, err);

	free(sql);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int did;

		rc = requeue(w->av, ids[i], NULL, "its worker's lease ran out: the worker ended or stalled "
		    "without finishing it", &did, err);
		if (rc == 0 && did)
			say(w, xasprintf("entry %lld: lease ran out, queued again", (long long)ids[i]));
	}
	free(ids);
	return rc;
}

static void
pace(void *arg)
{
	struct job *j = arg;
	struct aerr err = { 0 };
	int64_t slot = 0;
	long wait;

	pthread_mutex_lock(&j->pace_mu);
	if (av_db(&j->pav, &err) == NULL || db_begin(j->pav.db, &err) != 0) {
		pthread_mutex_unlock(&j->pace_mu);
		return;
	}
	if (slot_advance(j->pav.db, j->vendor_id, &err) != 0 ||
	    db_int(j->pav.db, &slot, &err, "SELECT slot_ms FROM probe_limit WHERE vendor_id = ?", "i",
	    j->vendor_id) < 0 || db_commit(j->pav.db, &err) != 0)
		db_rollback(j->pav.db);
	pthread_mutex_unlock(&j->pace_mu);
	wait = (long)(slot - now_ms());
	/* Short naps: a lost lease or a stop is seen promptly. */
	while (wait > 0 && !j->cancel) {
		nap_ms(wait < 200 ? wait : 200);
		wait -= 200;
	}
}

static int
on_start(void *arg, struct db *db, int64_t run_id, struct aerr *err)
{
	struct job *j = arg;
	int64_t changed = 0;

	if (db_write(db, err, &started_row, &changed, "iti", j->queue_id, j->claim, run_id) != 0)
		return err->code;
	if (changed == 0)
		return aerr_set(err, AV_RUNTIME, "entry %lld is no longer this worker's: its lease ran out",
		    (long long)j->queue_id);
	j->run_id = run_id;
	return 0;
}

static void *
job_main(void *arg)
{
	struct job *j = arg;
	struct worker *w = j->w;
	struct aivet jav = *w->av;
	struct probe_opts o;

	jav.db = NULL;
	queue_opts_from_json(j->opts, &o);
	o.cancel = &j->cancel;
	o.leak_seal_pk = w->seal_pk;
	o.on_start = on_start;
	o.on_start_arg = j;
	if (j->per_minute > 0) {
		o.pace = pace;
		o.pace_arg = j;
	}
	j->rc = probe_run_endpoint(&jav, j->endpoint_id, &o, &j->run_id, &j->err);
	av_close(&jav);
	pthread_mutex_lock(&w->mu);
	j->finished = 1;
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Takes one entry; *j NULL when there is none to take. */
static int
take(struct worker *w, struct job **out, struct aerr *err)
{
	struct db *db = w->av->db;
	unsigned char r[16];
	char claim[33], *opts = NULL;
	int64_t ignored, qid = 0;
	struct db_stmt *st;
	struct job *j;

	*out = NULL;
	randombytes_buf(r, sizeof r);
	hex_encode(r, sizeof r, claim);
	if (db_write(db, err, &take_row, &ignored, "ttti", w->name, w->av->actor, claim,
	    (int64_t)w->o->lease_s) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT q.id, q.endpoint_id, e.vendor_id, q.options, coalesce((SELECT "
	    "l.per_minute FROM probe_limit l WHERE l.vendor_id = e.vendor_id), 0) FROM probe_queue q "
	    "JOIN endpoint e ON e.id = q.endpoint_id WHERE q.claim = ? AND q.status = 'taken'", "t", claim);
	if (st == NULL)
		return err->code;
	j = xcalloc(1, sizeof *j);
	if (db_step(st) == DB_ROW) {
		qid = db_col_int64(st, 0);
		j->endpoint_id = db_col_int64(st, 1);
		j->vendor_id = db_col_int64(st, 2);
		opts = xstrdup(col_text(st, 3));
		j->per_minute = db_col_int(st, 4);
	}
	db_finalize(st);
	if (qid == 0) {
		free(j);
		return 0;
	}
	j->w = w;
	j->queue_id = qid;
	memcpy(j->claim, claim, sizeof claim);
	j->opts = cJSON_Parse(opts);
	free(opts);
	if (j->opts == NULL)
		j->opts = cJSON_CreateObject();
	j->pav = *w->av;
	j->pav.db = NULL;
	j->pav.on_open = NULL;
	pthread_mutex_init(&j->pace_mu, NULL);
	*out = j;
	return 0;
}

/* A run's end: the entry done, or back in the queue when the worker stops it. */
static int
job_end(struct worker *w, struct job *j, struct aerr *err)
{
	char at[32], line[400];
	int64_t changed = 0;
	int rc = 0;

	pthread_join(j->th, NULL);
	now_iso(at);
	if (j->lost)
		snprintf(line, sizeof line, "lost its lease; queued again by another worker");
	else if (j->cancel) {
		rc = requeue(w->av, j->queue_id, j->claim, "its worker stopped", NULL, err);
		snprintf(line, sizeof line, "stopped; queued again");
	} else {
		/* A run that never began says why on its entry. */
		const char *why = j->err.msg[0] ? j->err.msg : "the run did not start";

		rc = db_write(w->av->db, err, &done_row, &changed, "itt" "t", j->queue_id, j->claim,
		    j->run_id != 0 ? NULL : why, at);
		snprintf(line, sizeof line, "%s", j->rc == 0 ? "finished" : j->err.msg);
		if (j->run_id == 0 && w->not_started++ == 0) {
			w->first_not_started = j->queue_id;
			snprintf(w->why_not_started, sizeof w->why_not_started, "%s", why);
		}
	}
	say(w, xasprintf("entry %lld: run %lld %s", (long long)j->queue_id, (long long)j->run_id, line));
	av_close(&j->pav);
	pthread_mutex_destroy(&j->pace_mu);
	cJSON_Delete(j->opts);
	free(j);
	return rc;
}

/* Renews the lease of every run in hand; a lease found gone stops its run. */
static int
renew_all(struct worker *w, struct aerr *err)
{
	for (int i = 0; i < w->njobs; i++) {
		struct job *j = w->jobs[i];
		int64_t changed = 0;

		if (j->lost)
			continue;
		if (db_write(w->av->db, err, &renew_row, &changed, "iti", j->queue_id, j->claim,
		    (int64_t)w->o->lease_s) != 0)
			return err->code;
		if (changed == 0)
			j->lost = 1, j->cancel = 1;
	}
	return 0;
}

/* Ends the runs that finished; 0 or the first error. */
static int
collect(struct worker *w, struct aerr *err)
{
	int rc = 0;

	for (int i = 0; i < w->njobs; ) {
		struct job *j = w->jobs[i];
		int fin;

		pthread_mutex_lock(&w->mu);
		fin = j->finished;
		pthread_mutex_unlock(&w->mu);
		if (!fin) {
			i++;
			continue;
		}
		w->jobs[i] = w->jobs[--w->njobs];
		if (job_end(w, j, err) != 0 && rc == 0)
			rc = err->code;
	}
	return rc;
}

/* Queues what is due and takes what this worker has room for. *left: the runs
 * taken, or when none, the entries still queued (waiting for an endpoint or a
 * vendor's limit another worker holds), which a worker with --once waits for. */
static int
fill(struct worker *w, int64_t *left, struct aerr *err)
{
	struct schedules_due d;
	int took = 0;

	*left = 0;
	if (reap_expired(w, err) != 0 || probe_schedules_due(w->av, &d, err) != 0)
		return err->code;
	if (d.queued > 0)
		say(w, xasprintf("schedules: %d run%s queued", d.queued, d.queued == 1 ? "" : "s"));
	if (d.raced > 0)
		say(w, xasprintf("schedules: %d due, queued first by another worker", d.raced));
	if (d.skipped > 0)
		say(w, xasprintf("schedules: %d endpoint%s left out: %s", d.skipped, d.skipped == 1 ? "" : "s",
		    d.why));
	while (w->njobs < w->o->concurrency) {
		struct job *j;

		if (take(w, &j, err) != 0)
			return err->code;
		if (j == NULL)
			break;
		if (pthread_create(&j->th, NULL, job_main, j) != 0)
			die("cannot start a thread");
		w->jobs[w->njobs++] = j;
		took++;
		say(w, xasprintf("entry %lld: taken by %s", (long long)j->queue_id, w->name));
	}
	if (took > 0) {
		*left = took;
		return 0;
	}
	return db_int(w->av->db, left, err, "SELECT count(*) FROM probe_queue WHERE status = 'queued'", "") < 0 ?
	    err->code : 0;
}

static int
worker_loop(struct worker *w, struct aerr *err)
{
	int64_t renewed = now_ms(), left = 0;
	int rc = 0;

	for (;;) {
		if (stopping(w) || rc != 0)
			for (int i = 0; i < w->njobs; i++)
				w->jobs[i]->cancel = 1;
		if (collect(w, err) != 0 && rc == 0)
			rc = err->code;
		if (!stopping(w) && rc == 0 && fill(w, &left, err) != 0)
			rc = err->code;
		if (w->njobs == 0 && (stopping(w) || rc != 0 || (w->o->once && left == 0)))
			return rc;
		if (rc == 0 && now_ms() - renewed >= (int64_t)w->o->lease_s * 1000 / 3) {
			if (renew_all(w, err) != 0)
				rc = err->code;
			renewed = now_ms();
		}
		/* Idle, a worker wakes when work is queued (PostgreSQL's NOTIFY) or at the poll. */
		if (w->njobs > 0)
			nap_ms(100);
		else
			db_wait_notify(w->av->db, w->o->poll_ms);
	}
}

int
probe_worker(struct aivet *av, const struct worker_opts *o, struct aerr *err)
{
	struct worker_opts wo = *o;
	struct worker w;
	int rc;

	memset(&w, 0, sizeof w);
	if (wo.concurrency <= 0)
		wo.concurrency = 1;
	if (wo.concurrency > MAX_CONCURRENCY)
		wo.concurrency = MAX_CONCURRENCY;
	if (wo.lease_s <= 0)
		wo.lease_s = 60;
	if (wo.poll_ms <= 0)
		wo.poll_ms = 1000;
	w.av = av;
	w.o = &wo;
	if (wo.name != NULL)
		snprintf(w.name, sizeof w.name, "%s", wo.name);
	else {
		char host[64] = "";

		gethostname(host, sizeof host - 1);
		snprintf(w.name, sizeof w.name, "%s:%ld", host, (long)getpid());
	}
	if (av_db(av, err) == NULL || db_listen(av->db, "aivet_queue", err) != 0)
		return err->code;
	/* Leaked content is another customer's data: sealed at rest from the first byte. */
	if (evidence_key_public(w.seal_pk, err) != 0)
		return aerr_prefix(err, "evidence key");
	pthread_mutex_init(&w.mu, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = worker_loop(&w, err);
	pthread_mutex_destroy(&w.mu);
	/* A queued run that never began is a failure of what was asked, not a
	 * quiet end: the entry keeps why, and the worker's status says it. */
	if (rc == 0 && wo.once && w.not_started > 0)
		rc = aerr_set(err, AV_RUNTIME, "%d queued run%s did not start (entry %lld: %s); see "
		    "'aivet probe runs'", w.not_started, w.not_started == 1 ? "" : "s",
		    (long long)w.first_not_started, w.why_not_started);
	return rc;
}
