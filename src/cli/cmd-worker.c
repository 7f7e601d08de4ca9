/*
 * cmd-worker.c: "aivet worker" — takes runs from the database's queue and
 * runs them on this host, without a terminal, until stopped (or, with
 * --once, until nothing is left to take). The work is the engine's
 * (probe-worker.c); this reads the options, catches SIGINT and SIGTERM (the
 * flag the engine reads as its stop), ignores SIGPIPE (a log reader going
 * away ends no run) and prints the worker's lines.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "aivet/probe-queue.h"

enum { O_ONCE = 256, O_CONC, O_LEASE, O_NAME, O_POLL };

static volatile sig_atomic_t stopping;

static void
on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* A line of the worker's, escaped for the terminal (a schedule's reason may quote a vendor). */
static void
say(void *arg, const char *line)
{
	(void)arg;
	term_printf(stdout, "%s\n", line);
	fflush(stdout);
}

/* Runs the worker with SIGINT and SIGTERM stopping it cleanly, and its lines
 * lost rather than the worker when what reads them closes: the library leaves
 * the process's signals to the program. */
static int
run_worker(struct aivet *av, struct worker_opts *w, struct aerr *err)
{
	struct sigaction sa, old_int, old_term, old_pipe;
	int rc;

	stopping = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	w->stop = &stopping;
	w->say = say;
	rc = probe_worker(av, w, err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return rc;
}

static int
worker_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct worker_opts w = { 0 };
	int64_t v;

	/* Checked in the order given, so the first bad one is named. */
	for (int i = 0; i < args->nopt; i++) {
		const char *arg = args->opt[i].arg;

		switch (args->opt[i].id) {
		case O_ONCE:
			w.once = 1;
			break;
		case O_CONC:
			if (parse_int_opt("--concurrency", arg, 1, 64, &v, err) != 0)
				return err->code;
			w.concurrency = (int)v;
			break;
		case O_LEASE:
			if (parse_int_opt("--lease", arg, 3, 86400, &v, err) != 0)
				return err->code;
			w.lease_s = (int)v;
			break;
		case O_NAME:
			if (arg[0] == '\0' || strlen(arg) > 100)
				return usage_error(av, err, "--name: a name of 1 to 100 characters");
			w.name = arg;
			break;
		case O_POLL:
			if (parse_int_opt("--poll", arg, 1, 3600000, &v, err) != 0)
				return err->code;
			w.poll_ms = (int)v;
			break;
		}
	}
	return run_worker(av, &w, err);
}

static const struct opt worker_opts[] = {
	{ .name = "once", .id = O_ONCE, .help = "exit when nothing is left to take" },
	{ .name = "concurrency", .id = O_CONC, .arg = "N",
	  .help = "runs at once on this worker (default 1)" },
	{ .name = "lease", .id = O_LEASE, .arg = "SECONDS",
	  .help = "a run's lease, renewed every third of it (default 60)" },
	{ .name = "name", .id = O_NAME, .arg = "NAME",
	  .help = "the name recorded on each run it takes (default HOST:PID)" },
	{ .name = "poll", .id = O_POLL, .arg = "MS",
	  .help = "how often an idle worker looks for work (default 1000)" },
	{ 0 }
};

const struct cmd_entry cmd_worker_entry = {
	.name = "worker",
	.opts = worker_opts,
	.summary = "run queued probe runs (probe queue, schedule) on this host",
	.exec = worker_cmd,
	.args = ARGS_NONE,
};
