/*
 * cmd-report.c: "aivet report" — collects a vendor's assessments, probe
 * runs, findings, claims and incidents from the database and writes a
 * signed bundle an auditor can verify with stock tools. The export itself
 * is recorded (report table and audit log) in the same transaction that
 * read the data, so the audit checkpoint in the report is exact.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "minisign.h"
#include "report.h"

extern const struct cmd_entry cmd_report_entry;

static const char report_usage[] =
    "report VENDOR --out DIR [--assessment ID] [--runs RUN,...|--since DATE] [--incident ID] "
    "[--key NAME] [--at TIME] [--retain-years N] [--include-leaked-content] [--json]";

static int
cmd_report_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "assessment", required_argument, NULL, 'a' },
		{ "runs", required_argument, NULL, 'r' },
		{ "since", required_argument, NULL, 's' },
		{ "incident", required_argument, NULL, 'i' },
		{ "key", required_argument, NULL, 'k' },
		{ "at", required_argument, NULL, 't' },
		{ "retain-years", required_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'j' },
		{ "include-leaked-content", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_opts o = { .retain_years = 6 };
	const char *out = NULL, *key = "aivet";
	struct report_export_result res;
	struct db *db;
	int c, json = 0;

	if (want_help(argc, argv, report_usage, cmd_report_entry.summary))
		return 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'a':
			if (parse_int_opt("--assessment", optarg, 1, INT64_MAX, &o.assessment_id, err) != 0)
				goto done;
			break;
		case 'r':
			free(o.run_ids);
			if (report_parse_runs(optarg, &o.run_ids, &o.nrun_ids, err) != 0)
				goto done;
			break;
		case 's': o.since = optarg; break;
		case 'i':
			if (parse_int_opt("--incident", optarg, 1, INT64_MAX, &o.incident_id, err) != 0)
				goto done;
			break;
		case 'k': key = optarg; break;
		case 't': o.at = optarg; break;
		case 'y':
			if (parse_int_opt("--retain-years", optarg, 1, 100, &o.retain_years, err) != 0)
				goto done;
			break;
		case 'j': json = 1; break;
		case 'L': o.include_leaked = 1; break;
		case ':':
			usage_error(err, report_usage, "%s needs a value", argv[optind - 1]);
			goto done;
		default:
			usage_error(err, report_usage, "unknown option '%s'", argv[optind - 1]);
			goto done;
		}
	}
	if (optind != argc - 1) {
		usage_error(err, report_usage, "report needs exactly one VENDOR");
		goto done;
	}
	o.vendor = argv[optind];
	if (out == NULL) {
		usage_error(err, report_usage, "--out DIR is required");
		goto done;
	}
	if (o.run_ids != NULL && o.since != NULL) {
		usage_error(err, report_usage, "--runs and --since exclude each other");
		goto done;
	}
	if ((db = av_db(av, err)) == NULL ||
	    report_export(db, av->actor, &o, out, key, &res, err) != 0)
		goto done;
	if (json) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "report_id", res.report_id);
		cJSON_AddStringToObject(d, "out_dir", out);
		cJSON_AddStringToObject(d, "key_id", res.key_id);
		cJSON_AddStringToObject(d, "sums_sha256", res.sums);
		cJSON_AddNumberToObject(d, "id", (double)res.id);
		cJSON_AddStringToObject(d, "rating", res.rating);
		cJSON_AddNumberToObject(d, "evidence_files", (double)res.evidence_files);
		json_emit(d);
	} else {
		struct buf text;

		buf_init(&text);
		report_export_text(out, &res, &text);
		fwrite(text.data, 1, text.len, stdout);
		buf_free(&text);
	}
done:
	free(o.run_ids);
	return err->code;
}

const struct cmd_entry cmd_report_entry = {
	"report", report_usage, "write a signed report bundle for a vendor", cmd_report_exec
};
