/*
 * tui/jobs.c: background jobs. Long work (a probe run, an export) runs in a
 * thread of its own and reports its progress under a lock, so the input loop
 * never waits; x asks it to stop, and when it ends its message becomes the
 * status.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui.h"

int
tui_job_progress(struct tui_job *job, double fraction, const char *fmt, ...)
{
	va_list ap;
	int cancel;

	pthread_mutex_lock(&job->lock);
	job->fraction = fraction;
	va_start(ap, fmt);
	vsnprintf(job->progress, sizeof job->progress, fmt, ap);
	va_end(ap);
	cancel = job->cancel;
	pthread_mutex_unlock(&job->lock);
	return cancel;
}

static void *
job_main(void *p)
{
	struct tui_job *job = p;
	struct aerr err = { 0 };
	int rc = job->work(job, job->arg, &err);

	pthread_mutex_lock(&job->lock);
	job->rc = rc;
	job->err = err;
	job->done = 1;
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

int
tui_job_start(struct tui *t, struct tui_job *job,
    int (*work)(struct tui_job *, void *, struct aerr *), void *arg, struct aerr *err)
{
	if (t->job != NULL)
		return aerr_set(err, AV_USAGE, "another job is running; wait for it or stop it with x");
	memset(job, 0, sizeof *job);
	pthread_mutex_init(&job->lock, NULL);
	job->work = work;
	job->arg = arg;
	job->fraction = -1;
	job->running = 1;
	if (pthread_create(&job->thread, NULL, job_main, job) != 0) {
		pthread_mutex_destroy(&job->lock);
		return aerr_set(err, AV_RUNTIME, "cannot start a worker thread");
	}
	t->job = job;
	return 0;
}

void
tui_job_wait(struct tui_job *job)
{
	if (job->running) {
		pthread_join(job->thread, NULL);
		job->running = 0;
		pthread_mutex_destroy(&job->lock);
	}
}

/* Called by the input loop: a finished job is joined and its result becomes the status. */
void
tui_job_poll(struct tui *t)
{
	struct tui_job *j = t->job;
	int done;

	if (j == NULL)
		return;
	pthread_mutex_lock(&j->lock);
	done = j->done;
	pthread_mutex_unlock(&j->lock);
	if (!done)
		return;
	tui_job_wait(j);
	t->job = NULL;
	if (j->rc != 0 && j->rc != AV_FINDINGS)
		tui_status(t, 1, "%s", j->err.msg[0] ? j->err.msg : "the job failed");
	else
		tui_status(t, 0, "%s", j->err.msg[0] ? j->err.msg : j->progress);
	tui_changed(t);
}
