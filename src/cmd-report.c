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
parse_runs(const char *s, int64_t **ids, size_t *n, struct aerr *err)
{
	char *copy = xstrdup(s), *tok, *save = NULL;

	*ids = NULL;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		int64_t v;

		if (parse_int_opt("--runs", tok, 1, INT64_MAX, &v, err) != 0) {
			free(copy);
			free(*ids);
			*ids = NULL;
			return err->code;
		}
		*ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = v;
	}
	free(copy);
	if (*n == 0)
		return aerr_set(err, AV_USAGE, "--runs: give one or more run ids separated by commas");
	return 0;
}


/* An endpoint stored before URLs with credentials were refused must not
 * carry its secret into a signed bundle: the report is refused until the
 * URL is fixed. */
static int
endpoints_clean(const struct report *r, struct aerr *err)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(r->json, "endpoints")) {
		const cJSON *url = cJSON_GetObjectItem(e, "url"), *name = cJSON_GetObjectItem(e, "ref");

		if (cJSON_IsString(url) && url_has_credential(url->valuestring))
			return aerr_set(err, AV_USAGE, "endpoint %s: its URL carries a credential, which the "
			    "report would copy; set a URL without it ('aivet endpoint edit %s --url URL') "
			    "and give the key with --credential", cJSON_IsString(name) ? name->valuestring : "?",
			    cJSON_IsString(name) ? name->valuestring : "?");
	}
	return 0;
}

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
	char keyid[MINISIGN_KEYID_LEN + 1], sums[65];
	struct minisign_sec *sec = NULL;
	struct minisign_pub pub;
	struct report r = { 0 };
	struct buf publine = { 0 };
	sqlite3 *db;
	int c, json = 0, rc;

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
			if (parse_runs(optarg, &o.run_ids, &o.nrun_ids, err) != 0)
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
	if ((db = av_db(av, err)) == NULL)
		goto done;
	/* The key first: a wrong passphrase should cost nothing. */
	if (keystore_load_sec(key, &sec, err) != 0)
		goto done;
	minisign_sec_to_pub(sec, &pub);
	minisign_keyid(pub.keynum, keyid);
	o.key_id = keyid;
	minisign_pubkey_base64(&pub, &publine);
	o.public_key = publine.data;
	if (db_begin(db, err) != 0)
		goto done;
	if (report_collect(db, &o, &r, err) != 0 || endpoints_clean(&r, err) != 0 ||
	    bundle_write(out, &r, sec, sums, err) != 0)
		goto fail;
	{
		const char *rid = cJSON_GetObjectItem(r.json, "report_id")->valuestring;
		const char *gen = cJSON_GetObjectItem(r.json, "generated_at")->valuestring;
		char *optstr = cJSON_PrintUnformatted(cJSON_GetObjectItem(r.json, "options"));
		cJSON *d = cJSON_CreateObject();
		int64_t id;

		rc = db_exec(db, err, "INSERT INTO report (report_uuid, vendor_id, out_dir, options, key_id, "
		    "sums_sha256, generated_at) VALUES (?,?,?,?,?,?,?)", "tittttt", rid, r.vendor_id, out,
		    optstr, keyid, sums, gen);
		id = sqlite3_last_insert_rowid(db);
		cJSON_AddStringToObject(d, "report_id", rid);
		cJSON_AddStringToObject(d, "out_dir", out);
		cJSON_AddStringToObject(d, "key_id", keyid);
		cJSON_AddStringToObject(d, "sums_sha256", sums);
		if (rc == 0)
			rc = audit_append(db, av->actor, "report.export", "report", id, d, err);
		free(optstr);
		if (rc != 0 || db_commit(db, err) != 0) {
			cJSON_Delete(d);
			goto fail;
		}
		if (json) {
			cJSON_AddNumberToObject(d, "id", (double)id);
			cJSON_AddStringToObject(d, "rating", cJSON_GetObjectItem(cJSON_GetObjectItem(r.json,
			    "summary"), "rating")->valuestring);
			cJSON_AddNumberToObject(d, "evidence_files", (double)r.nfiles);
			json_emit(d);
		} else {
			printf("report %s written to %s\n", rid, out);
			printf("  rating       %s\n", cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "summary"),
			    "rating")->valuestring);
			printf("  signed by    key id %s\n", keyid);
			printf("  public key   %s (auditors compare it with the key they obtained out of band)\n",
			    publine.data);
			printf("  SHA256SUMS   %s\n", sums);
			printf("  verify with  aivet verify %s  (or see %s/VERIFY.txt)\n", out, out);
			cJSON_Delete(d);
		}
	}
	goto done;
fail:
	db_rollback(db);
done:
	report_free(&r);
	buf_free(&publine);
	minisign_sec_free(sec);
	free(o.run_ids);
	return err->code;
}

const struct cmd_entry cmd_report_entry = {
	"report", report_usage, "write a signed report bundle for a vendor", cmd_report_exec
};
