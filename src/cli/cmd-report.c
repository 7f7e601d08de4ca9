/*
 * cmd-report.c: "aivet report" — collects a vendor's assessments, probe
 * runs, findings, claims and incidents from the database and writes a
 * signed bundle an auditor can verify with stock tools. The export itself
 * is recorded (report table and audit log) in the same transaction that
 * read the data, so the audit checkpoint in the report is exact. With a TSA
 * (--tsa, or the configured one) SHA256SUMS is time-stamped too (tsa.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/minisign.h"
#include "aivet/report.h"

static int
cmd_report_exec(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct report_opts o = { .retain_years = 6 };
	const char *out = NULL, *key = "aivet";
	struct report_export_result res;
	struct db *db;
	char *conf_tsa = tsa_url_from_config();
	int json = 0;

	/* In the order given: the first bad value is the one named. */
	for (int i = 0; i < args->nopt; i++) {
		char *arg = args->opt[i].arg;

		switch (args->opt[i].id) {
		case 'o': out = arg; break;
		case 'a':
			if (parse_int_opt("--assessment", arg, 1, INT64_MAX, &o.assessment_id, err) != 0)
				goto done;
			break;
		case 'r':
			free(o.run_ids);
			if (report_parse_runs(arg, &o.run_ids, &o.nrun_ids, err) != 0)
				goto done;
			break;
		case 's': o.since = arg; break;
		case 'i':
			if (parse_int_opt("--incident", arg, 1, INT64_MAX, &o.incident_id, err) != 0)
				goto done;
			break;
		case 'k': key = arg; break;
		case 't': o.at = arg; break;
		case 'y':
			if (parse_int_opt("--retain-years", arg, 1, 100, &o.retain_years, err) != 0)
				goto done;
			break;
		case 'j': json = 1; break;
		case 'L': o.include_leaked = 1; break;
		case 'B': o.allow_broken = 1; break;
		case 'T': o.tsa_url = arg; break;
		case 'O': o.tsa_optional = 1; break;
		}
	}
	o.vendor = args->word[0];
	if (out == NULL) {
		usage_error(av, err, "--out DIR is required");
		goto done;
	}
	if (o.run_ids != NULL && o.since != NULL) {
		usage_error(av, err, "--runs and --since exclude each other");
		goto done;
	}
	/* --tsa, else the configured TSA; "--tsa none" asks none. */
	if (o.tsa_url == NULL)
		o.tsa_url = conf_tsa;
	else if (strcmp(o.tsa_url, "none") == 0)
		o.tsa_url = NULL;
	if (o.tsa_url != NULL && tsa_url_check(o.tsa_url == conf_tsa ? "the config file 'tsa-url':" :
	    "--tsa", o.tsa_url, err) != 0)
		goto done;
	if (o.tsa_optional && o.tsa_url == NULL) {
		usage_error(av, err, "--tsa-optional needs a TSA (--tsa URL or 'aivet tsa url URL')");
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
		cJSON_AddItemToObject(d, "time_stamp", tsa_status_json(&res.tsa));
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
	free(conf_tsa);
	return err->code;
}

static const struct opt report_opts[] = {
	{ .name = "out", .id = 'o', .arg = "DIR",
	  .help = "the bundle's directory (must not exist, or be empty)", .flags = OPT_REQUIRED },
	{ .name = "assessment", .id = 'a', .arg = "ID",
	  .help = "one assessment and the rounds before it (default all)" },
	{ .name = "runs", .id = 'r', .arg = "RUN,...", .help = "these probe runs (default all)" },
	{ .name = "since", .id = 's', .arg = "DATE",
	  .help = "the probe runs started at or after DATE", .flags = OPT_OR },
	{ .name = "incident", .id = 'i', .arg = "ID",
	  .help = "add an incident in full, with its runs and files" },
	{ .name = "key", .id = 'k', .arg = "NAME", .help = "the signing key (default aivet)" },
	{ .name = "at", .id = 't', .arg = "TIME", .help = "pin generated_at" },
	{ .name = "retain-years", .id = 'y', .arg = "N",
	  .help = "retention_until, N years after generated_at (default 6)" },
	{ .name = "include-leaked-content", .id = 'L',
	  .help = "put another tenant's leaked text in the bundle in clear (audited)" },
	{ .name = "allow-broken-chain", .id = 'B',
	  .help = "write the report of a database that fails its audit, opening with the failure" },
	{ .name = "tsa", .id = 'T', .arg = "URL",
	  .help = "time-stamp SHA256SUMS at this RFC 3161 TSA (default: 'aivet tsa url'; none)" },
	{ .name = "tsa-optional", .id = 'O',
	  .help = "write the bundle, time not attested, when the TSA fails" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.targets = "VENDOR",
	.opts = report_opts,
	.summary = "write a signed report bundle for a vendor",
	.exec = cmd_report_exec,
	.args = ARGS({ TARGET_VENDOR, 0 }),
};
