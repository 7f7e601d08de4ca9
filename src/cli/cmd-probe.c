/*
 * cmd-probe.c: "aivet probe" — run probes against an endpoint or every
 * endpoint (plan first, confirmation on a terminal), list runs, show one and
 * compare two. The arguments are read here; the terminal's side of running
 * (Ctrl-C, progress, confirmation, printing) is probe-cli.c's, over the
 * engine's probe-run.c, run-format.c and probe-diff.c, which print nothing. The exit status of "probe run" is the
 * contract in aivet(1): 0 no finding at or above --fail-on, 1 one, 3 a probe
 * errored or the run was interrupted.
 */
#include "config.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/incident.h"
#include "aivet/probe.h"
#include "aivet/probe-queue.h"
#include "aivet/run-format.h"
#include "aivet/run-query.h"

enum { O_YES = 256, O_DRY, O_FAIL, O_JSON, O_FORMAT, O_COMPARE, O_ALL, O_VENDOR, O_PARALLEL, O_RATE,
	O_RUNS, O_PER_MINUTE };

int
probe_run_opt(const struct aivet *av, int c, const char *arg, struct probe_opts *po, struct aerr *err)
{
	int64_t v;

	switch (c) {
	case PO_PROBE:
		po->probes = arg;
		return 0;
	case PO_DEPTH:
		return probe_depth_parse(arg, &po->depth, err);
	case PO_CONC:
		if (parse_int_opt("--concurrency", arg, 1, 64, &v, err) != 0)
			return err->code;
		po->concurrency = (int)v;
		return 0;
	case PO_BUDGET:
		if (parse_int_opt("--budget-tokens", arg, 1, INT64_C(1) << 50, &v, err) != 0)
			return err->code;
		po->budget_tokens = v;
		return 0;
	case PO_BUDGET_USD: {
		char *end;

		errno = 0;
		po->budget_usd = strtod(arg, &end);
		if (errno != 0 || end == arg || *end != '\0' || !(po->budget_usd > 0) || po->budget_usd > 1e9)
			return usage_error(av, err, "--budget-usd: '%s' is not an amount in USD", arg);
		return 0;
	}
	case PO_MAXPROMPT:
		if (parse_int_opt("--max-prompt-tokens", arg, 256, INT64_C(1) << 40, &v, err) != 0)
			return err->code;
		po->max_prompt_tokens = v;
		return 0;
	case PO_MAXRESP:
		if (parse_int_opt("--max-response", arg, 1024, INT64_C(1) << 30, &v, err) != 0)
			return err->code;
		po->max_response = (size_t)v;
		return 0;
	case PO_TIMEOUT:
		if (parse_int_opt("--timeout", arg, 1, 86400, &v, err) != 0)
			return err->code;
		po->timeout_ms = (long)v * 1000;
		return 0;
	}
	return -1;
}

int
probe_targets(struct aivet *av, const struct cmd_args *a, int all, const char *vendor,
    int64_t vendor_id, int expand, struct probe_targets *t, struct aerr *err)
{
	struct db *db;

	memset(t, 0, sizeof *t);
	if (vendor != NULL && !all)
		return usage_error(av, err, "--vendor goes with --all");
	if (all == (a->argc > 0))
		return usage_error(av, err, all ? "%s --all takes no VENDOR/ENDPOINT" :
		    "%s needs VENDOR/ENDPOINT... or --all", cli_of(av)->cmd_path);
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	t->vendor_id = vendor_id;
	if (all && !expand)
		return 0;
	if (all) {
		if (probe_queue_targets(db, t->vendor_id, &t->ids, &t->n, err) != 0)
			return err->code;
		if (t->n == 0)
			return aerr_set(err, AV_USAGE, vendor ? "vendor '%s' has no active endpoints" :
			    "there are no active endpoints%s", vendor ? vendor : "");
		return 0;
	}
	t->ids = xcalloc((size_t)a->argc + 1, sizeof *t->ids);
	for (int i = 0; i < a->argc; i++)
		t->ids[t->n++] = a->ids[i];
	return 0;
}

void
probe_ids_print(const int64_t *ids, size_t n, int json)
{
	cJSON *a;

	if (!json) {
		for (size_t i = 0; i < n; i++)
			printf("%lld\n", (long long)ids[i]);
		return;
	}
	a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)ids[i]));
	json_emit(a);
}

static int
probe_run(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct probe_opts po = { 0 };
	struct probe_all_opts all = { 0 };
	const char *fail_on = "high";
	int yes = 0, dry = 0, json = 0;
	int64_t eid, run_id;
	cJSON *plan;

	/* In the order given: the first bad value is the one named, and the last
	 * of --json and --format counts. */
	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;
		const char *arg = args->opt[i].arg;

		switch (c) {
		case O_YES:
			yes = 1;
			break;
		case O_DRY:
			dry = 1;
			break;
		case O_FAIL:
			if (severity_rank(arg) < 0)
				return aerr_set(err, AV_USAGE, "--fail-on: '%s' is not one of info, low, medium, "
				    "high, critical", arg);
			fail_on = arg;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_FORMAT:   /* json holds a run_format from here on */
			if (run_format_parse(arg, &json, err) != 0)
				return err->code;
			break;
		case O_COMPARE:
			po.compare_last = 1;
			break;
		case O_ALL:
		case O_VENDOR:
		case O_PARALLEL:
		case O_RATE:
			if (probe_all_option(&all, c == O_ALL ? "--all" : c == O_VENDOR ? "--vendor" :
			    c == O_PARALLEL ? "--parallel" : "--rate-limit", arg, err) != 0)
				return err->code;
			break;
		default:
			if (probe_run_opt(av, c, arg, &po, err) > 0)
				return err->code;
		}
	}
	if (all.all || all.vendor != NULL || all.parallel || all.per_minute) {
		if (!all.all)
			return usage_error(av, err, "--vendor, --parallel and --rate-limit go with --all");
		if (args->target[0] != 0)
			return usage_error(av, err, "probe run --all takes no VENDOR/ENDPOINT");
		all.vendor_id = args_target(args, O_VENDOR);
		return probe_run_all(av, &po, &all, json, fail_on, yes, dry, err);
	}
	/* Declared optional for --all; without it the one endpoint is needed. */
	if ((eid = args->target[0]) == 0)
		return usage_error(av, err, "probe run needs exactly one VENDOR/ENDPOINT");
	if (probe_plan_endpoint(av, eid, &po, &plan, err) != 0)
		return err->code;
	if (dry) {
		if (json == RUN_FMT_JSON)
			json_emit(plan);
		else {
			probe_print_plan(stdout, plan);
			cJSON_Delete(plan);
		}
		return 0;
	}
	probe_print_plan(json ? stderr : stdout, plan);
	{
		char q[128];

		snprintf(q, sizeof q, "send these requests to %s?", args->word[0]);
		if (!probe_confirm_tty(yes, q)) {
			cJSON_Delete(plan);
			return aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
		}
	}
	cJSON_Delete(plan);
	fflush(stdout);
	return probe_run_cli(av, eid, &po, json, fail_on, &run_id, err);
}

static int
probe_diff_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int json = args_has(args, 'j'), changed;
	struct db *db;
	struct probe_diff d;

	if ((db = av_db(av, err)) == NULL ||
	    probe_diff_runs(db, args->target[0], args->target[1], &d, err) != 0)
		return err->code;
	if (json)
		json_emit(probe_diff_to_json(&d));
	else
		probe_print_diff(stdout, &d);
	changed = d.changed;
	probe_diff_free(&d);
	if (changed)
		err->code = AV_FINDINGS;   /* like diff(1): 1 means "they differ", not an error */
	return changed ? AV_FINDINGS : 0;
}

static int
probe_runs(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int json = args_has(args, 'j');
	struct db *db;
	struct probe_run_list runs;

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (probe_run_list_load(db, &(struct run_query){ .vendor_id = args->target[0], .queued = 1 },
	    &runs, err) != 0)
		return err->code;
	if (json)
		json_emit(probe_run_list_to_json(&runs));
	else if (runs.n == 0)
		printf("no probe runs\n");
	for (size_t i = 0; !json && i < runs.n; i++) {
		const struct probe_run *r = &runs.items[i];
		char sum[160];

		if (r->id == 0) {   /* queued: no run yet */
			term_printf(stdout, "%4s  %-24s %-17s %s  entry %lld%s%s%s%s\n", "-", r->endpoint,
			    r->status, r->started_at, (long long)r->queue_id, r->worker ? ", worker " : "",
			    r->worker ? r->worker : "", r->queue_error ? ": " : "",
			    r->queue_error ? r->queue_error : "");
			continue;
		}
		probe_run_outcome(r, sum, sizeof sum);
		term_printf(stdout, "%4d  %-24s %-17s %s  %s%s%s%s%s\n", (int)r->id, r->endpoint, r->status,
		    r->started_at, sum, r->worker ? ", worker " : "", r->worker ? r->worker : "",
		    r->lease_until ? ", lease until " : "", r->lease_until ? r->lease_until : "");
	}
	probe_run_list_free(&runs);
	return 0;
}

static int
probe_show(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int fmt = 0, rc = 0, worst = 0;
	const char *fail_on = NULL;
	struct db *db;
	struct probe_run_list runs = { 0 };

	/* In the order given: the last of --json and --format counts. */
	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;
		const char *arg = args->opt[i].arg;

		if (c == 'j')
			fmt = RUN_FMT_JSON;
		else if (c == 'f') {
			if (run_format_parse(arg, &fmt, err) != 0)
				return err->code;
		} else if (c == O_FAIL) {
			if (severity_rank(arg) < 0)
				return aerr_set(err, AV_USAGE, "--fail-on: '%s' is not one of info, low, medium, "
				    "high, critical", arg);
			fail_on = arg;
		}
	}
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	/* Several runs (a night's --all) make one document: a JSON array, one SARIF log, one
	 * JUnit file. The framework has resolved every RUN. */
	runs.items = xcalloc((size_t)args->argc, sizeof *runs.items);
	for (int i = 0; i < args->argc && rc == 0; i++) {
		if (probe_run_get(db, args->ids[i], &runs.items[runs.n], err) != 0)
			rc = err->code;
		else
			runs.n++;
	}
	if (rc == 0)
		probe_print_runs(runs.items, runs.n, args->argc == 1, NULL, fmt);
	/* What to run next, planned now: shown with the text, never part of the record. */
	for (size_t i = 0; rc == 0 && fmt == RUN_FMT_TEXT && i < runs.n; i++)
		probe_print_next_steps(av, &runs.items[i]);
	/* With --fail-on, the exit status "probe run" would have given the runs. */
	for (size_t i = 0; rc == 0 && fail_on != NULL && i < runs.n; i++) {
		int e = probe_run_exit(db, runs.items[i].id, fail_on, err);

		aerr_clear(err);
		if (e == AV_FINDINGS || (e == AV_RUNTIME && worst == 0))
			worst = e;
	}
	probe_run_list_free(&runs);
	if (rc == 0 && worst == AV_FINDINGS)
		err->code = AV_FINDINGS;   /* findings are the answer, not an error message */
	else if (rc == 0 && worst == AV_RUNTIME)
		aerr_set(err, AV_RUNTIME, "a probe ended in error");
	return rc != 0 ? rc : worst;
}

static const struct opt run_opts[] = {
	{ .name = "probe", .id = PO_PROBE, .arg = "NAME,...|all",
	  .help = "which probes (default all but the opt-in ones)" },
	{ .name = "depth", .id = PO_DEPTH, .arg = "verify|diagnose",
	  .help = "verify: does each invariant hold (default); diagnose: where it breaks" },
	{ .name = "concurrency", .id = PO_CONC, .arg = "N",
	  .help = "requests in flight at most (default 4)" },
	{ .name = "budget-tokens", .id = PO_BUDGET, .arg = "N",
	  .help = "never spend more tokens than N" },
	{ .name = "budget-usd", .id = PO_BUDGET_USD, .arg = "USD",
	  .help = "never spend more than USD at the endpoint's prices" },
	{ .name = "max-prompt-tokens", .id = PO_MAXPROMPT, .arg = "N",
	  .help = "cap every prompt at N tokens (at least 256)" },
	{ .name = "yes", .id = O_YES, .help = "run without asking to confirm the plan" },
	{ .name = "dry-run", .id = O_DRY, .help = "print the plan and send nothing" },
	{ .name = "fail-on", .id = O_FAIL, .arg = "SEVERITY",
	  .help = "exit 1 on a finding this severe or worse (default high)" },
	{ .name = "max-response", .id = PO_MAXRESP, .arg = "BYTES",
	  .help = "cut longer response bodies (default 8 MiB)" },
	{ .name = "timeout", .id = PO_TIMEOUT, .arg = "SECONDS",
	  .help = "give up on one request after SECONDS" },
	{ .name = "json", .id = O_JSON, .help = "print JSON" },
	{ .name = "format", .id = O_FORMAT, .arg = "text|json|junit|sarif",
	  .help = "the report's format (CI: junit, sarif)" },
	{ .name = "compare-last", .id = O_COMPARE,
	  .help = "say what changed since the endpoint's previous run" },
	{ .name = "all", .id = O_ALL, .help = "every active endpoint, one run each",
	  .flags = OPT_FORM },
	{ .name = "vendor", .id = O_VENDOR, .arg = "VENDOR",
	  .help = "with --all: only this vendor's endpoints" },
	{ .name = "parallel", .id = O_PARALLEL, .arg = "N",
	  .help = "with --all: endpoints probed at once" },
	{ .name = "rate-limit", .id = O_RATE, .arg = "PER_MINUTE",
	  .help = "with --all: requests per minute to one vendor" },
	{ 0 }
};
/* What was queued, an entry a line, in words: "queued run entry 3 for Acme/e1". */
static void
queued_print(struct aivet *av, const struct probe_targets *t, const int64_t *ids)
{
	struct aerr e = { 0 };
	char *name;

	for (size_t i = 0; i < t->n; i++) {
		name = probe_target_name(av->db, t->ids[i], &e);
		term_printf(stdout, "queued run entry %lld for %s\n", (long long)ids[i],
		    name != NULL ? name : "?");
		free(name);
	}
}

/* "probe queue": runs put in the database's queue for workers, each with its plan. */
static int
probe_queue_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct probe_opts po = { 0 };
	struct probe_targets t;
	int64_t *ids;
	int json = args_has(args, O_JSON);

	for (int i = 0; i < args->nopt; i++)
		if (probe_run_opt(av, args->opt[i].id, args->opt[i].arg, &po, err) > 0)
			return err->code;
	if (probe_targets(av, args, args_has(args, O_ALL), args_get(args, O_VENDOR),
	    args_target(args, O_VENDOR), 1, &t, err) == 0) {
		ids = xcalloc(t.n, sizeof *ids);
		if (probe_queue_add(av, t.ids, t.n, &po, ids, err) == 0 && json)
			probe_ids_print(ids, t.n, 1);
		else if (err->code == 0)
			queued_print(av, &t, ids);
		free(ids);
	}
	free(t.ids);
	return err->code;
}

/* "probe limit": a vendor's limits for the whole fleet of workers. */
static int
probe_limit_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int64_t runs = 0, per_minute = 0;

	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;
		const char *arg = args->opt[i].arg;

		if (c == O_RUNS && parse_int_opt("--runs", arg, 0, 4096, &runs, err) != 0)
			return err->code;
		if (c == O_PER_MINUTE && parse_int_opt("--per-minute", arg, 0, 600000, &per_minute, err) != 0)
			return err->code;
	}
	if (probe_limit_set(av, args->target[0], runs, per_minute, err) != 0)
		return err->code;
	if (runs)
		printf("%s: at most %lld run%s at once across all workers\n", args->word[0], (long long)runs,
		    runs == 1 ? "" : "s");
	else
		printf("%s: no limit of runs at once\n", args->word[0]);
	if (per_minute)
		printf("%s: at most %lld requests a minute across all workers\n", args->word[0],
		    (long long)per_minute);
	else
		printf("%s: no limit of requests a minute\n", args->word[0]);
	return 0;
}

/* "probe rejudge": the run's verdicts and findings derived again from its
 * recorded exchanges, offline; exit 1 on any difference. */
static int
probe_rejudge_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct buf out;
	int differences = 0;

	buf_init(&out);
	if (probe_rejudge_run(av, args->target[0], &out, &differences, err) == 0 && differences > 0)
		aerr_set(err, AV_FINDINGS, "run %lld: %d difference%s between its results and its "
		    "exchanges", (long long)args->target[0], differences, differences == 1 ? "" : "s");
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	buf_free(&out);
	return err->code;
}

static const struct opt queue_opts[] = {
	PROBE_RUN_OPTS,
	{ .name = "all", .id = O_ALL, .help = "every active endpoint, one run each",
	  .flags = OPT_FORM },
	{ .name = "vendor", .id = O_VENDOR, .arg = "VENDOR",
	  .help = "with --all: only this vendor's endpoints" },
	{ .name = "json", .id = O_JSON, .help = "print the queued entries' ids as a JSON array" },
	{ 0 }
};
static const struct opt limit_opts[] = {
	{ .name = "runs", .id = O_RUNS, .arg = "N",
	  .help = "runs of this vendor at once across all workers (0: no limit)" },
	{ .name = "per-minute", .id = O_PER_MINUTE, .arg = "N",
	  .help = "requests a minute to this vendor across all workers (0: no limit)" },
	{ 0 }
};
static const struct opt show_opts[] = {
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ .name = "format", .id = 'f', .arg = "text|json|junit|sarif",
	  .help = "the report's format (several runs: one document)" },
	{ .name = "fail-on", .id = O_FAIL, .arg = "SEVERITY",
	  .help = "exit 1 on a finding this severe or worse, 3 on a probe ended in error, as "
	  "probe run" },
	{ 0 }
};

static const struct cmd_entry probe_subs[] = {
	{ .name = "run", .targets = "VENDOR/ENDPOINT", .opts = run_opts,
	  .summary = "run probes against an endpoint", .exec = probe_run,
	  .args = ARGS({ TARGET_ENDPOINT, 1 }), .target = { O_VENDOR, TARGET_VENDOR } },
	{ .name = "queue", .targets = "VENDOR/ENDPOINT...", .opts = queue_opts,
	  .summary = "queue runs for the workers (aivet worker)", .exec = probe_queue_cmd,
	  .args = ARGS({ TARGET_ENDPOINT, ARG_ANY }), .target = { O_VENDOR, TARGET_VENDOR } },
	{ .name = "limit", .targets = "VENDOR", .opts = limit_opts,
	  .summary = "limit a vendor's runs at once and requests a minute across workers",
	  .exec = probe_limit_cmd, .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ .name = "runs", .targets = "[VENDOR]", .opts = opt_json_only,
	  .summary = "list probe runs", .exec = probe_runs, .args = ARGS({ TARGET_VENDOR, 1 }) },
	{ .name = "show", .targets = "RUN [RUN...]", .opts = show_opts,
	  .summary = "show a probe run: verdicts, findings, evidence ids", .exec = probe_show,
	  .args = ARGS({ TARGET_RUN, ARG_MANY }) },
	{ .name = "rejudge", .targets = "RUN", .summary = "judge a run again from its recorded exchanges "
	  "alone and compare with its results", .exec = probe_rejudge_cmd,
	  .args = ARGS({ TARGET_RUN, 0 }) },
	{ .name = "diff", .targets = "RUN_A RUN_B", .opts = opt_json_only,
	  .summary = "drift between two runs: findings, boundaries, calibration, error shapes",
	  .exec = probe_diff_cmd, .args = ARGS({ TARGET_RUN, 0 }, { TARGET_RUN, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_probe_entry = {
	.name = "probe",
	.summary = "send live tests to an endpoint and judge the answers by their content",
	.subs = probe_subs,
};
