/*
 * cmd-demo.c: "aivet demo" — the incident, reproduced and measured from
 * outside. It starts aivet-sim (found beside the aivet binary, else on
 * PATH) on a free loopback port with two tenants and the incident's fault:
 * 1,048,576 tokens advertised, a KV pool of 681,280, oversize prompts
 * swapped for a placeholder that decodes stale pages of other requests.
 * It registers the vendor in a separate demo database (unless --db or
 * AIVET_DB names one), with the simulator's SGLang status API as the engine: first the
 * engine probe reads the pool against the context from the running engine,
 * with no prompt; then the other probes confirm it from outside; the demo
 * states both, then runs every probe again against the fixed configuration,
 * where everything passes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "aivet/probe.h"
#include "aivet/run-query.h"

#define DEMO_CONTEXT INT64_C(1048576)
#define DEMO_POOL INT64_C(681280)
#define QUICK_SCALE 16

struct sim {
	pid_t pid;
	char url[128];
};

static char *
find_sim(void)
{
	char self[PATH_MAX], *slash, *path, *dir, *save = NULL, *cand;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			cand = xasprintf("%s/aivet-sim", self);
			if (access(cand, X_OK) == 0)
				return cand;
			free(cand);
		}
	}
	path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
		cand = xasprintf("%s/aivet-sim", *dir ? dir : ".");
		if (access(cand, X_OK) == 0) {
			free(path);
			return cand;
		}
		free(cand);
	}
	free(path);
	return NULL;
}

static int
sim_start(const char *bin, char *const extra[], struct sim *s, struct aerr *err)
{
	int out[2];
	char line[256];
	size_t len = 0;
	int64_t deadline = now_ms() + 10000;

	memset(s, 0, sizeof *s);
	if (pipe(out) != 0)
		return aerr_set(err, AV_RUNTIME, "pipe: %s", strerror(errno));
	if ((s->pid = fork()) < 0)
		return aerr_set(err, AV_RUNTIME, "fork: %s", strerror(errno));
	if (s->pid == 0) {
		char *argv[32];
		int a = 0;

		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		argv[a++] = (char *)bin;
		argv[a++] = "--host";
		argv[a++] = "127.0.0.1";
		argv[a++] = "--port";
		argv[a++] = "0";
		for (int i = 0; extra[i] != NULL && a < 31; i++)
			argv[a++] = extra[i];
		argv[a] = NULL;
		execv(bin, argv);
		_exit(127);
	}
	close(out[1]);
	/* Its first line says where it listens. */
	while (len < sizeof line - 1) {
		struct pollfd p = { out[0], POLLIN, 0 };
		int64_t left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		if ((r = read(out[0], line + len, 1)) <= 0)
			break;
		if (line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
	close(out[0]);
	if (strncmp(line, "listening on ", 13) != 0 || len - 13 >= sizeof s->url) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		return aerr_set(err, AV_RUNTIME, "%s did not start (its first line: '%s')", bin, line);
	}
	snprintf(s->url, sizeof s->url, "%.127s", line + 13);
	return 0;
}

static void
sim_stop(struct sim *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

/* Runs an aivet command line quietly (its confirmation lines are not the demo's story). */
static int
run_quiet(struct aivet *av, char **argv, struct aerr *err)
{
	int argc = 0, saved, devnull, rc;

	while (argv[argc] != NULL)
		argc++;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, STDOUT_FILENO);
	close(devnull);
	rc = cmd_run(cli_of(av), argc, argv, err);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

static int
register_endpoint(struct aivet *av, const char *url, int64_t context, int64_t *eid,
    struct aerr *err)
{
	char ctx[32], *base = xasprintf("%s/v1", url);
	int64_t id;
	int rc;

	snprintf(ctx, sizeof ctx, "%lld", (long long)context);
	if (vendor_lookup(av_db(av, err), "demo-vendor", &id, err) != 0) {
		char *argv[] = { "vendor", "add", "demo-vendor", "--criticality", "4", "--notes",
			"simulated inference vendor of aivet demo", NULL };

		aerr_clear(err);
		if (run_quiet(av, argv, err) != 0)
			goto out;
	}
	if (endpoint_lookup(av->db, "demo-vendor/chat", &id, err) != 0) {
		char *argv[] = { "endpoint", "add", "demo-vendor", "--name", "chat", "--api", "openai",
			"--url", base, "--model", "aivet-sim-1", "--context", ctx,
			"--credential", "alice=env:AIVET_DEMO_KEY_ALICE",
			"--credential", "bob=env:AIVET_DEMO_KEY_BOB", "--engine", "sglang",
			"--engine-url", (char *)url, NULL };

		aerr_clear(err);
		if (run_quiet(av, argv, err) != 0)
			goto out;
	} else {
		char *argv[] = { "endpoint", "edit", "demo-vendor/chat", "--url", base, "--context", ctx,
			"--engine-url", (char *)url, NULL };

		if (run_quiet(av, argv, err) != 0)
			goto out;
	}
	rc = endpoint_lookup(av->db, "demo-vendor/chat", eid, err);
	free(base);
	return rc;
out:
	free(base);
	return err->code;
}

static int
count_code(const struct probe_run *run, enum finding_code which, int64_t *first_evidence)
{
	const char *code = finding_info(which)->code;
	int n = 0;

	for (size_t i = 0; i < run->nprobes; i++)
		for (size_t k = 0; k < run->probes[i].nfindings; k++) {
			const struct finding *f = &run->probes[i].findings[k];

			if (strcmp(f->code, code) == 0 && n++ == 0 && first_evidence != NULL)
				*first_evidence = f->nevidence > 0 ? f->evidence[0] : 0;
		}
	return n;
}

/* What the engine said of itself, with no prompt: the first node read's pool
 * against the advertised context. Returns that pool, 0 when the run read no node. */
static int64_t
explain_engine(const struct probe_run *eng, int64_t advertised)
{
	const struct probe_result *e = probe_run_result(eng, "engine");
	int64_t ev = 0;
	char a[32], b[32];

	for (size_t i = 0; e != NULL && i < e->nnodes; i++) {
		const struct engine_node_status *n = &e->nodes[i];

		if (!n->read || n->pool < 0)
			continue;
		count_code(eng, F_KV_POOL_BELOW_CONTEXT, &ev);
		/* The node's mode is the vendor's word: escaped for the terminal. */
		term_printf(stdout, "\nWhat the engine says of itself, with no prompt (run %d, %lld tokens):\n"
		    "  Its KV pool holds %s tokens; the advertised context is %s tokens%s%s%s.\n",
		    (int)eng->id, (long long)(eng->tokens_in + eng->tokens_out), thousands(n->pool, a),
		    thousands(advertised, b), n->mode ? " (a " : "", n->mode ? n->mode : "",
		    n->mode ? " node: disaggregated)" : "");
		if (ev > 0)
			printf("  One request of the advertised size cannot fit: KV_POOL_BELOW_CONTEXT "
			    "(evidence %lld, the engine's own response).\n", (long long)ev);
		return n->pool;
	}
	return 0;
}

static void
explain(const struct probe_run *eng, const struct probe_run *run, int64_t advertised, int64_t pool,
    const char *db_path)
{
	const struct probe_result *sweep = probe_run_result(run, "sweep");
	int64_t ev = 0;
	char a[32], b[32], c[32], *dbw = shell_word(db_path);
	int64_t engine_pool = explain_engine(eng, advertised);

	printf("\nWhat was found, from outside:\n");
	if (sweep != NULL && sweep->sweep.has_integrity_boundary)
		printf("  Content integrity broke at %s tokens; the advertised context is %s tokens.\n"
		    "  (The simulated vendor's KV pool holds %s tokens: %.2f%% off.)\n",
		    thousands((int64_t)sweep->sweep.integrity_boundary, a), thousands(advertised, b), thousands(pool, c),
		    100.0 * ((double)pool - (double)(int64_t)sweep->sweep.integrity_boundary) / (double)pool);
	/* Whether the two agree is measured, not assumed: within 1% of the engine's pool. */
	if (engine_pool > 0 && sweep != NULL && sweep->sweep.has_integrity_boundary) {
		double off = 100.0 * fabs((double)engine_pool - (double)(int64_t)sweep->sweep.integrity_boundary) /
		    (double)engine_pool;

		printf("  %s: the engine's pool, read with no prompt, and where the content broke\n"
		    "  from outside, after %s tokens were sent, are %.2f%% apart.\n", off <= 1.0 ?
		    "Both say the same" : "They disagree", thousands(run->tokens_in, c), off);
	}
	if (count_code(run, F_PLACEHOLDER_SUBSTITUTION, &ev))
		printf("  Above it, prompts were accepted with HTTP 200, reported as a handful of tokens,\n"
		    "  and answered from content they did not contain (evidence %lld).\n", (long long)ev);
	if (count_code(run, F_LEAK_CROSS_TENANT, &ev)) {
		/* The direction as the canary probe attributed it, each way it ran, citing
		 * the response the other tenant's canary came back in (not the request
		 * that planted it). */
		const struct probe_result *canary = probe_run_result(run, "canary");
		char seen[4][64];
		int nseen = 0;

		for (size_t i = 0; canary != NULL && i < canary->nleaks; i++) {
			const struct canary_leak *l = &canary->leaks[i];
			char pair[64];
			int dup = 0;

			if (!l->other_tenant || l->owner_tenant == NULL || l->found_by == NULL)
				continue;
			snprintf(pair, sizeof pair, "%.30s>%.30s", l->owner_tenant, l->found_by);
			for (int j = 0; j < nseen; j++)
				dup |= strcmp(seen[j], pair) == 0;
			if (dup || nseen == 4)
				continue;
			snprintf(seen[nseen++], sizeof seen[0], "%s", pair);
			if (nseen == 1 && l->found_in > 0)
				ev = l->found_in;
			printf("  Tenant %s received canaries that only tenant %s had sent (evidence %lld).\n",
			    l->found_by, l->owner_tenant, (long long)l->found_in);
		}
		printf("  Each is another customer's prompt, returned in an HTTP 200.\n");
	}
	printf("\nWhy it matters: a 200 is not a pass. Nothing in the status codes showed this;\n"
	    "only the content did. A vendor must fail closed at its real capacity, and tenant\n"
	    "isolation lives in configuration the customer cannot see, so it has to be tested.\n"
	    "Inspect it: aivet --db %s probe show %d; aivet --db %s evidence show %lld\n",
	    dbw, (int)run->id, dbw, (long long)ev);
	free(dbw);
}

/* What the demo's two acts share. */
struct demo {
	struct aivet *av;
	char *sim_bin, *db_path;
	char ctx_s[32], pool_s[32], tenants[160];
	int64_t context, pool;
	struct sim s;
	struct probe_opts po;
	int64_t run[3];               /* the engine's run, the faulty vendor's, the fixed one's */
	int rc[3];
};

/* The database the demo writes: the one named (--db PATH or AIVET_DB), else a
 * fresh demo.db beside aivet.db. */
static int
demo_db(const char *db_opt, char **path, struct aerr *err)
{
	char *dir;

	if (db_opt != NULL) {
		*path = xstrdup(db_opt);
		return 0;
	}
	dir = aivet_dir(AIVET_DATA_DIR);
	if (mkdir_p(dir, 0700, err) != 0) {
		free(dir);
		return err->code;
	}
	*path = xasprintf("%s/demo.db", dir);
	free(dir);
	for (const char *suffix = ""; suffix != NULL; suffix = *suffix ? NULL : "-wal") {
		char *f = xasprintf("%s%s", *path, suffix);

		unlink(f);
		free(f);
	}
	return 0;
}

/* Two tenants' keys, fresh each time, in the environment the endpoint's credentials name. */
static void
demo_tenants(struct demo *d)
{
	char key_a[33], key_b[33];

	random_alnum(key_a, 32);
	random_alnum(key_b, 32);
	setenv("AIVET_DEMO_KEY_ALICE", key_a, 1);
	setenv("AIVET_DEMO_KEY_BOB", key_b, 1);
	snprintf(d->tenants, sizeof d->tenants, "alice=%s,bob=%s", key_a, key_b);
	snprintf(d->ctx_s, sizeof d->ctx_s, "%lld", (long long)d->context);
	snprintf(d->pool_s, sizeof d->pool_s, "%lld", (long long)d->pool);
}

/* [1/2]: the engine's own status, then the probes from outside, then what they showed. */
static int
demo_fault(struct demo *d, struct aerr *err)
{
	char *extra[] = { "--context", d->ctx_s, "--pool", d->pool_s, "--tenants", d->tenants,
		"--fault", "disagg-placeholder", NULL };
	struct probe_run run = { 0 }, eng = { 0 };
	int64_t eid;

	if (sim_start(d->sim_bin, extra, &d->s, err) != 0)
		return err->code;
	printf("[1/2] the vendor as it was: %s, tenants alice and bob\n", d->s.url);
	fflush(stdout);
	if (register_endpoint(d->av, d->s.url, d->context, &eid, err) != 0)
		return err->code;
	d->po.concurrency = 2;
	/* First the engine itself: one GET, no prompt. */
	printf("  first the engine's own status (no prompt):\n");
	d->po.probes = "engine";
	d->rc[0] = probe_run_cli(d->av, eid, &d->po, 0, "high", &d->run[0], err);
	if (d->run[0] == 0)
		return err->code;
	aerr_clear(err);
	/* Then from outside. The demo shows where the incident's boundary lies: that takes
	 * the searches. */
	printf("\n  then from outside, as any customer can:\n");
	d->po.probes = "echo,oversize,sweep,canary,errors";
	d->po.depth = PROBE_DIAGNOSE;
	d->rc[1] = probe_run_cli(d->av, eid, &d->po, 0, "high", &d->run[1], err);
	sim_stop(&d->s);
	if (d->run[1] == 0)
		return err->code;
	if (probe_run_get(d->av->db, d->run[0], &eng, err) == 0 &&
	    probe_run_get(d->av->db, d->run[1], &run, err) == 0) {
		explain(&eng, &run, d->context, d->pool, d->db_path);
		aerr_clear(err);
	}
	probe_run_free(&run);
	probe_run_free(&eng);
	return err->code;
}

/* [2/2]: the fix, failing closed at the real capacity and advertising it; every probe again. */
static int
demo_fixed(struct demo *d, struct aerr *err)
{
	char *extra[] = { "--context", d->pool_s, "--pool", d->pool_s, "--tenants", d->tenants,
		"--fault", "none", NULL };
	int64_t eid;

	d->po.probes = NULL;
	printf("\n[2/2] the fixed configuration: refuses what does not fit, advertises %lld tokens\n",
	    (long long)d->pool);
	if (sim_start(d->sim_bin, extra, &d->s, err) != 0 ||
	    register_endpoint(d->av, d->s.url, d->pool, &eid, err) != 0)
		return err->code;
	d->rc[2] = probe_run_cli(d->av, eid, &d->po, 0, "low", &d->run[2], err);
	sim_stop(&d->s);
	if (d->run[2] == 0)
		return err->code;
	aerr_clear(err);
	return 0;
}

static int
cmd_demo_exec(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int quick = args_has(args, 'q'), rc;
	/* --db PATH, else --db or AIVET_DB as the global options read them */
	const char *db_opt = args_has(args, 'd') ? args_get(args, 'd') : av->db_named ? av->db_path : NULL;
	struct demo d = { .av = av, .context = DEMO_CONTEXT, .pool = DEMO_POOL };
	int64_t t0 = now_ms();

	if (quick)
		d.context /= QUICK_SCALE, d.pool /= QUICK_SCALE;
	if ((d.sim_bin = find_sim()) == NULL)
		return aerr_set(err, AV_RUNTIME, "aivet-sim was found neither beside aivet nor on PATH");
	/* A separate database, fresh each time, unless one was named. */
	if (demo_db(db_opt, &d.db_path, err) != 0)
		goto out;
	av_close(av);
	av->db_path = d.db_path;
	av->is_demo = 1;
	demo_tenants(&d);
	printf("aivet demo: the incident, measured from the engine and from outside%s.\n\n"
	    "A vendor advertises a %lld-token context. The simulated server behind it holds %lld\n"
	    "tokens in its KV pool, and swaps a prompt that does not fit for a one-token\n"
	    "placeholder. aivet is told the advertised number and where the engine's status is.\n\n",
	    quick ? " (scaled down 16x: --quick)" : "", (long long)d.context, (long long)d.pool);
	if (demo_fault(&d, err) != 0 || demo_fixed(&d, err) != 0)
		goto out;
	printf("\n%s (%.1f s). Evidence: %s\n", d.rc[2] == 0 ?
	    "Fixed: every probe passes, no findings" : "The fixed configuration still has findings",
	    (double)(now_ms() - t0) / 1000.0, d.db_path);
	if (d.rc[0] != AV_FINDINGS || d.rc[1] != AV_FINDINGS || d.rc[2] != 0)
		aerr_set(err, AV_RUNTIME, "the demo did not come out as expected (runs %lld, %lld and %lld)",
		    (long long)d.run[0], (long long)d.run[1], (long long)d.run[2]);
out:
	rc = err->code;
	sim_stop(&d.s);
	free(d.sim_bin);
	av_close(av);
	av->db_path = NULL;
	free(d.db_path);
	return rc;
}

static const struct opt demo_opts[] = {
	{ .name = "quick", .id = 'q',
	  .help = "scale the sizes down 16 times: the same story, faster" },
	{ .name = "db", .id = 'd', .arg = "PATH",
	  .help = "the database to use (default a fresh demo.db beside aivet.db)" },
	{ 0 }
};

const struct cmd_entry cmd_demo_entry = {
	.name = "demo",
	.opts = demo_opts,
	.summary = "reproduce the context-overflow incident against a simulator and show what "
	"aivet finds",
	.exec = cmd_demo_exec,
	.args = ARGS_NONE,
};
