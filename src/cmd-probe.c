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

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "incident.h"
#include "probe.h"
#include "evidence-key.h"
#include "run-format.h"

extern const struct cmd_entry cmd_probe_entry;


static const char run_usage[] =
    "probe run VENDOR/ENDPOINT [--probe NAME,...|all] [--depth verify|diagnose] [--concurrency N] [--budget-tokens N] [--budget-usd USD] "
    "[--max-prompt-tokens N] [--yes] [--dry-run] [--fail-on SEVERITY] [--max-response BYTES] [--timeout SECONDS] [--json] "
    "[--format text|json|junit|sarif] [--compare-last] "
    "| probe run --all [--vendor VENDOR] [--parallel N] [--rate-limit PER_MINUTE] [options]";

static int
probe_run(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	enum { O_PROBE = 256, O_CONC, O_BUDGET, O_YES, O_DRY, O_FAIL, O_MAXRESP, O_TIMEOUT, O_JSON,
		O_FORMAT, O_COMPARE, O_ALL, O_VENDOR, O_PARALLEL, O_RATE, O_MAXPROMPT, O_DEPTH, O_BUDGET_USD };
	static const struct option opts[] = {
		{ "probe", required_argument, NULL, O_PROBE },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "concurrency", required_argument, NULL, O_CONC },
		{ "budget-tokens", required_argument, NULL, O_BUDGET },
		{ "budget-usd", required_argument, NULL, O_BUDGET_USD },
		{ "yes", no_argument, NULL, O_YES },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "fail-on", required_argument, NULL, O_FAIL },
		{ "max-response", required_argument, NULL, O_MAXRESP },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "json", no_argument, NULL, O_JSON },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "compare-last", no_argument, NULL, O_COMPARE },
		{ "all", no_argument, NULL, O_ALL },
		{ "vendor", required_argument, NULL, O_VENDOR },
		{ "parallel", required_argument, NULL, O_PARALLEL },
		{ "rate-limit", required_argument, NULL, O_RATE },
		{ "max-prompt-tokens", required_argument, NULL, O_MAXPROMPT },
		{ NULL, 0, NULL, 0 }
	};
	struct probe_opts po = { 0 };
	struct probe_all_opts all = { 0 };
	const char *fail_on = "high";
	int yes = 0, dry = 0, json = 0, c;
	int64_t v, eid, run_id;
	struct db *db;
	cJSON *plan;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_PROBE:
			po.probes = optarg;
			break;
		case O_DEPTH:
			if (probe_depth_parse(optarg, &po.depth, err) != 0)
				return err->code;
			break;
		case O_CONC:
			if (parse_int_opt("--concurrency", optarg, 1, 64, &v, err) != 0)
				return err->code;
			po.concurrency = (int)v;
			break;
		case O_BUDGET:
			if (parse_int_opt("--budget-tokens", optarg, 1, INT64_C(1) << 50, &v, err) != 0)
				return err->code;
			po.budget_tokens = v;
			break;
		case O_BUDGET_USD: {
			char *end;

			errno = 0;
			po.budget_usd = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' || !(po.budget_usd > 0) ||
			    po.budget_usd > 1e9)
				return usage_error(err, run_usage, "--budget-usd: '%s' is not an amount in USD",
				    optarg);
			break;
		}
		case O_MAXPROMPT:
			if (parse_int_opt("--max-prompt-tokens", optarg, 256, INT64_C(1) << 40, &v, err) != 0)
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
			if (severity_rank(optarg) < 0)
				return aerr_set(err, AV_USAGE, "--fail-on: '%s' is not one of info, low, medium, "
				    "high, critical", optarg);
			fail_on = optarg;
			break;
		case O_MAXRESP:
			if (parse_int_opt("--max-response", optarg, 1024, INT64_C(1) << 30, &v, err) != 0)
				return err->code;
			po.max_response = (size_t)v;
			break;
		case O_TIMEOUT:
			if (parse_int_opt("--timeout", optarg, 1, 86400, &v, err) != 0)
				return err->code;
			po.timeout_ms = (long)v * 1000;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_FORMAT:   /* json holds a run_format from here on */
			if (run_format_parse(optarg, &json, err) != 0)
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
			    c == O_PARALLEL ? "--parallel" : "--rate-limit", optarg, err) != 0)
				return err->code;
			break;
		case ':':
			return usage_error(err, run_usage, "%s needs a value", argv[optind - 1]);
		default:
			return usage_error(err, run_usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (all.all || all.vendor != NULL || all.parallel || all.per_minute) {
		if (!all.all)
			return usage_error(err, run_usage, "--vendor, --parallel and --rate-limit go with --all");
		if (optind != argc)
			return usage_error(err, run_usage, "probe run --all takes no VENDOR/ENDPOINT");
		return probe_run_all(av, &po, &all, json, fail_on, yes, dry, err);
	}
	if (optind != argc - 1)
		return usage_error(err, run_usage, "probe run needs exactly one VENDOR/ENDPOINT");
	if ((db = av_db(av, err)) == NULL || endpoint_lookup(db, argv[optind], &eid, err) != 0)
		return err->code;
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

		snprintf(q, sizeof q, "send these requests to %s?", argv[optind]);
		if (!probe_confirm(q)) {
			cJSON_Delete(plan);
			return aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
		}
	}
	cJSON_Delete(plan);
	fflush(stdout);
	return probe_run_cli(av, eid, &po, json, fail_on, &run_id, err);
}

static const char probe_diff_usage[] = "probe diff RUN_A RUN_B [--json]";

static int
probe_diff_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 } };
	int json = 0, c, changed;
	int64_t a, b;
	struct db *db;
	cJSON *d;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return usage_error(err, probe_diff_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2)
		return usage_error(err, probe_diff_usage, "probe diff needs two runs, RUN_A and RUN_B");
	if (parse_int_opt("RUN_A", argv[optind], 1, INT64_MAX, &a, err) != 0 ||
	    parse_int_opt("RUN_B", argv[optind + 1], 1, INT64_MAX, &b, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL || probe_diff_json(db, a, b, &d, err) != 0)
		return err->code;
	changed = cJSON_IsTrue(cJSON_GetObjectItem(d, "changed"));
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

static const char runs_usage[] = "probe runs [VENDOR] [--json]";

static int
probe_runs(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 } };
	int json = 0, c;
	int64_t vid = 0;
	struct db *db;
	struct db_stmt *st;
	cJSON *arr;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return usage_error(err, runs_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind > 1)
		return usage_error(err, runs_usage, "probe runs takes at most one VENDOR");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (optind < argc && vendor_lookup(db, argv[optind], &vid, err) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.status, r.started_at, "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1) FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE ? = 0 OR v.id = ? ORDER BY r.id", "ii", vid, vid);
	if (st == NULL)
		return err->code;
	arr = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
		cJSON_AddStringToObject(o, "endpoint", col_text(st, 1));
		cJSON_AddStringToObject(o, "status", col_text(st, 2));
		cJSON_AddStringToObject(o, "started_at", col_text(st, 3));
		cJSON_AddNumberToObject(o, "findings", (double)db_col_int64(st, 4));
		json_add_str(o, "worst", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
		cJSON_AddItemToArray(arr, o);
	}
	db_finalize(st);
	if (json) {
		json_emit(arr);
		return 0;
	}
	{
		cJSON *o;

		if (cJSON_GetArraySize(arr) == 0)
			printf("no probe runs\n");
		cJSON_ArrayForEach(o, arr)
			printf("%4d  %-24s %-17s %s  %d finding%s%s%s\n", cJSON_GetObjectItem(o, "id")->valueint,
			    cJSON_GetObjectItem(o, "endpoint")->valuestring,
			    cJSON_GetObjectItem(o, "status")->valuestring,
			    cJSON_GetObjectItem(o, "started_at")->valuestring,
			    cJSON_GetObjectItem(o, "findings")->valueint,
			    cJSON_GetObjectItem(o, "findings")->valueint == 1 ? "" : "s",
			    cJSON_IsString(cJSON_GetObjectItem(o, "worst")) ? ", worst " : "",
			    cJSON_IsString(cJSON_GetObjectItem(o, "worst")) ?
			    cJSON_GetObjectItem(o, "worst")->valuestring : "");
	}
	cJSON_Delete(arr);
	return 0;
}

static const char show_usage[] = "probe show RUN [RUN...] [--json] [--format text|json|junit|sarif]";

static int
probe_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 } };
	int json = 0, c;
	int64_t id;
	struct db *db;
	cJSON *run, *runs;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'f') {
			if (run_format_parse(optarg, &json, err) != 0)
				return err->code;
		} else if (c == ':')
			return usage_error(err, show_usage, "%s needs a value", argv[optind - 1]);
		else
			return usage_error(err, show_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind == argc)
		return usage_error(err, show_usage, "probe show needs a RUN");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	/* Several runs (a night's --all) make one document: a JSON array, one SARIF log, one JUnit file. */
	runs = cJSON_CreateArray();
	for (int i = optind; i < argc; i++) {
		if (parse_int_opt("RUN", argv[i], 1, INT64_MAX, &id, err) != 0 ||
		    probe_run_json(db, id, &run, err) != 0) {
			cJSON_Delete(runs);
			return err->code;
		}
		cJSON_AddItemToArray(runs, run);
	}
	if (argc - optind == 1) {
		run = cJSON_DetachItemFromArray(runs, 0);
		cJSON_Delete(runs);
		runs = run;
	}
	run_format_emit(stdout, runs, json);
	return 0;
}

static const struct subcmd probe_subs[] = {
	{ "run", run_usage, "run probes against an endpoint", probe_run },
	{ "runs", runs_usage, "list probe runs", probe_runs },
	{ "show", show_usage, "show a probe run: verdicts, findings, evidence ids", probe_show },
	{ "diff", probe_diff_usage, "drift between two runs: findings, boundaries, calibration, "
	  "error shapes", probe_diff_cmd },
	{ NULL, NULL, NULL, NULL }
};

static int
cmd_probe_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_probe_entry, probe_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_probe_entry = {
	"probe", "probe run|runs|show|diff ...",
	"send live tests to an endpoint and judge the answers by their content", cmd_probe_exec
};
