/*
 * cmd-probe.c: "aivet probe" — run probes against an endpoint or every
 * endpoint (plan first, confirmation on a terminal), list runs, show one and
 * compare two. The arguments are read here; running is the probe-run module's
 * (probe-run.c: Ctrl-C, progress, confirmation) and output the formats
 * module's (run-format.c, probe-diff.c). The exit status of "probe run" is the
 * contract in aivet(1): 0 no finding at or above --fail-on, 1 one, 3 a probe
 * errored or the run was interrupted.
 */
#include "config.h"

#include <errno.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "aivet/incident.h"
#include "aivet/probe.h"
#include "aivet/evidence-key.h"
#include "aivet/run-format.h"
#include "aivet/run-query.h"

enum { O_PROBE = 256, O_CONC, O_BUDGET, O_YES, O_DRY, O_FAIL, O_MAXRESP, O_TIMEOUT, O_JSON,
	O_FORMAT, O_COMPARE, O_ALL, O_VENDOR, O_PARALLEL, O_RATE, O_MAXPROMPT, O_DEPTH, O_BUDGET_USD };

static int
probe_run(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	struct probe_opts po = { 0 };
	struct probe_all_opts all = { 0 };
	const char *fail_on = "high";
	int yes = 0, dry = 0, json = 0, c;
	int64_t v, eid, run_id;
	struct db *db;
	cJSON *plan;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0) {
		switch (c) {
		case O_PROBE:
			po.probes = p.arg;
			break;
		case O_DEPTH:
			if (probe_depth_parse(p.arg, &po.depth, err) != 0)
				return err->code;
			break;
		case O_CONC:
			if (parse_int_opt("--concurrency", p.arg, 1, 64, &v, err) != 0)
				return err->code;
			po.concurrency = (int)v;
			break;
		case O_BUDGET:
			if (parse_int_opt("--budget-tokens", p.arg, 1, INT64_C(1) << 50, &v, err) != 0)
				return err->code;
			po.budget_tokens = v;
			break;
		case O_BUDGET_USD: {
			char *end;

			errno = 0;
			po.budget_usd = strtod(p.arg, &end);
			if (errno != 0 || end == p.arg || *end != '\0' || !(po.budget_usd > 0) ||
			    po.budget_usd > 1e9)
				return usage_error(av, err, "--budget-usd: '%s' is not an amount in USD",
				    p.arg);
			break;
		}
		case O_MAXPROMPT:
			if (parse_int_opt("--max-prompt-tokens", p.arg, 256, INT64_C(1) << 40, &v, err) != 0)
				return err->code;
			po.max_prompt_tokens = v;
			break;
		case O_YES:
			yes = 1;
			break;
		case O_DRY:
			dry = 1;
			break;
		case O_FAIL:
			if (severity_rank(p.arg) < 0)
				return aerr_set(err, AV_USAGE, "--fail-on: '%s' is not one of info, low, medium, "
				    "high, critical", p.arg);
			fail_on = p.arg;
			break;
		case O_MAXRESP:
			if (parse_int_opt("--max-response", p.arg, 1024, INT64_C(1) << 30, &v, err) != 0)
				return err->code;
			po.max_response = (size_t)v;
			break;
		case O_TIMEOUT:
			if (parse_int_opt("--timeout", p.arg, 1, 86400, &v, err) != 0)
				return err->code;
			po.timeout_ms = (long)v * 1000;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_FORMAT:   /* json holds a run_format from here on */
			if (run_format_parse(p.arg, &json, err) != 0)
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
			    c == O_PARALLEL ? "--parallel" : "--rate-limit", p.arg, err) != 0)
				return err->code;
			break;
		}
	}
	if (c < 0)
		return err->code;
	if (all.all || all.vendor != NULL || all.parallel || all.per_minute) {
		if (!all.all)
			return usage_error(av, err, "--vendor, --parallel and --rate-limit go with --all");
		if (p.target[0] != 0)
			return usage_error(av, err, "probe run --all takes no VENDOR/ENDPOINT");
		if (all.vendor != NULL && ((db = av_db(av, err)) == NULL ||
		    target_resolve(db, TARGET_VENDOR, all.vendor, &all.vendor_id, err) != 0))
			return err->code;
		return probe_run_all(av, &po, &all, json, fail_on, yes, dry, err);
	}
	/* Declared optional for --all; without it the one endpoint is needed. */
	if ((eid = p.target[0]) == 0)
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
	if (!yes && isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		char q[128];

		snprintf(q, sizeof q, "send these requests to %s?", argv[p.ind]);
		if (!probe_confirm(q)) {
			cJSON_Delete(plan);
			return aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
		}
	}
	cJSON_Delete(plan);
	fflush(stdout);
	return probe_run_cli(av, eid, &po, json, fail_on, &run_id, err);
}

static int
probe_diff_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	int json = 0, changed, c;
	struct db *db;
	cJSON *d;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0)
		json |= c == 'j';
	if (c < 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL || probe_diff_json(db, p.target[0], p.target[1], &d, &changed, err) != 0)
		return err->code;
	if (json)
		json_emit(d);
	else {
		probe_diff_print(stdout, d);
		cJSON_Delete(d);
	}
	if (changed)
		err->code = AV_FINDINGS;   /* like diff(1): 1 means "they differ", not an error */
	return changed ? AV_FINDINGS : 0;
}

static int
probe_runs(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	int json = 0, c;
	struct db *db;
	struct probe_run_list runs;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0)
		json |= c == 'j';
	if (c < 0 || (db = av_db(av, err)) == NULL)
		return err->code;
	if (probe_run_list_load(db, &(struct run_query){ .vendor_id = p.target[0] }, &runs, err) != 0)
		return err->code;
	if (json)
		json_emit(probe_run_list_to_json(&runs));
	else if (runs.n == 0)
		printf("no probe runs\n");
	for (size_t i = 0; !json && i < runs.n; i++) {
		const struct probe_run *r = &runs.items[i];
		char sum[160];

		probe_run_outcome(r, sum, sizeof sum);
		term_printf(stdout, "%4d  %-24s %-17s %s  %s\n", (int)r->id, r->endpoint, r->status,
		    r->started_at, sum);
	}
	probe_run_list_free(&runs);
	return 0;
}

static int
probe_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	int fmt = 0, c, rc = 0;
	struct db *db;
	struct probe_run_list runs = { 0 };

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0) {
		if (c == 'j')
			fmt = RUN_FMT_JSON;
		else if (c == 'f') {
			if (run_format_parse(p.arg, &fmt, err) != 0)
				return err->code;
		}
	}
	if (c < 0 || (db = av_db(av, err)) == NULL)
		return err->code;
	/* Several runs (a night's --all) make one document: a JSON array, one SARIF log, one
	 * JUnit file. The parser has checked every RUN; beyond its first CMD_ARGS_MAX the ids
	 * are read again here. */
	runs.items = xcalloc((size_t)(argc - p.ind), sizeof *runs.items);
	for (int i = p.ind; i < argc && rc == 0; i++) {
		int64_t id = i - p.ind < CMD_ARGS_MAX ? p.target[i - p.ind] : 0;

		if ((id == 0 && target_resolve(db, TARGET_RUN, argv[i], &id, err) != 0) ||
		    probe_run_get(db, id, &runs.items[runs.n], err) != 0)
			rc = err->code;
		else
			runs.n++;
	}
	if (rc == 0)
		run_format_emit(stdout, runs.items, runs.n, argc - p.ind == 1, NULL, fmt);
	/* What to run next, planned now: shown with the text, never part of the record. */
	for (size_t i = 0; rc == 0 && fmt == RUN_FMT_TEXT && i < runs.n; i++)
		probe_print_next_steps(av, &runs.items[i]);
	probe_run_list_free(&runs);
	return rc;
}

static const struct opt run_opts[] = {
	{ "probe", O_PROBE, "NAME,...|all", "which probes (default all but the opt-in ones)", 0 },
	{ "depth", O_DEPTH, "verify|diagnose",
	  "verify: does each invariant hold (default); diagnose: where it breaks", 0 },
	{ "concurrency", O_CONC, "N", "requests in flight at most (default 4)", 0 },
	{ "budget-tokens", O_BUDGET, "N", "never spend more tokens than N", 0 },
	{ "budget-usd", O_BUDGET_USD, "USD", "never spend more than USD at the endpoint's prices", 0 },
	{ "max-prompt-tokens", O_MAXPROMPT, "N", "cap every prompt at N tokens (at least 256)", 0 },
	{ "yes", O_YES, NULL, "run without asking to confirm the plan", 0 },
	{ "dry-run", O_DRY, NULL, "print the plan and send nothing", 0 },
	{ "fail-on", O_FAIL, "SEVERITY", "exit 1 on a finding this severe or worse (default high)",
	  0 },
	{ "max-response", O_MAXRESP, "BYTES", "cut longer response bodies (default 8 MiB)", 0 },
	{ "timeout", O_TIMEOUT, "SECONDS", "give up on one request after SECONDS", 0 },
	{ "json", O_JSON, NULL, "print JSON", 0 },
	{ "format", O_FORMAT, "text|json|junit|sarif", "the report's format (CI: junit, sarif)", 0 },
	{ "compare-last", O_COMPARE, NULL, "say what changed since the endpoint's previous run", 0 },
	{ "all", O_ALL, NULL, "every active endpoint, one run each", OPT_FORM },
	{ "vendor", O_VENDOR, "VENDOR", "with --all: only this vendor's endpoints", 0 },
	{ "parallel", O_PARALLEL, "N", "with --all: endpoints probed at once", 0 },
	{ "rate-limit", O_RATE, "PER_MINUTE", "with --all: requests per minute to one vendor", 0 },
	{ NULL, 0, NULL, NULL, 0 }
};
static const struct opt show_opts[] = {
	{ "json", 'j', NULL, "print JSON", 0 },
	{ "format", 'f', "text|json|junit|sarif", "the report's format (several runs: one document)",
	  0 },
	{ NULL, 0, NULL, NULL, 0 }
};

static const struct cmd_entry probe_subs[] = {
	{ "run", "VENDOR/ENDPOINT", run_opts, "run probes against an endpoint", probe_run, NULL,
	  ARGS({ TARGET_ENDPOINT, 1 }) },
	{ "runs", "[VENDOR]", opt_json_only, "list probe runs", probe_runs, NULL,
	  ARGS({ TARGET_VENDOR, 1 }) },
	{ "show", "RUN [RUN...]", show_opts, "show a probe run: verdicts, findings, evidence ids",
	  probe_show, NULL, ARGS({ TARGET_RUN, ARG_MANY }) },
	{ "diff", "RUN_A RUN_B", opt_json_only, "drift between two runs: findings, boundaries, "
	  "calibration, error shapes", probe_diff_cmd, NULL,
	  ARGS({ TARGET_RUN, 0 }, { TARGET_RUN, 0 }) },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL }
};

const struct cmd_entry cmd_probe_entry = {
	"probe", NULL, NULL, "send live tests to an endpoint and judge the answers by their content",
	NULL, probe_subs, NULL
};
