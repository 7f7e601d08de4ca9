/*
 * cmd-verify.c: "aivet verify" — checks a report bundle: the signature on
 * SHA256SUMS by a trusted signer (a key given with --key or --pubkey, or the
 * keyring key with the signature's key id, compared byte for byte; the
 * bundle's own aivet.pub only says who claims to have signed), every file's
 * hash, that nothing is missing or extra, and the structure of report.json.
 * Names every problem; exit 0 or 1.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "minisign.h"
#include "report.h"

extern const struct cmd_entry cmd_verify_entry;

static const char verify_usage[] = "verify DIR [--key NAME | --pubkey FILE] [--json]";

static int
cmd_verify_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "pubkey", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	const char *key = NULL, *pubfile = NULL;
	struct minisign_pub pub;
	struct verify_result res;
	int c, json = 0;

	(void)av;
	if (want_help(argc, argv, verify_usage, cmd_verify_entry.summary))
		return 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'k')
			key = optarg;
		else if (c == 'p')
			pubfile = optarg;
		else if (c == 'j')
			json = 1;
		else if (c == ':')
			return usage_error(err, verify_usage, "%s needs a value", argv[optind - 1]);
		else
			return usage_error(err, verify_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind != argc - 1)
		return usage_error(err, verify_usage, "verify needs exactly one DIR");
	if (key != NULL && pubfile != NULL)
		return usage_error(err, verify_usage, "--key and --pubkey exclude each other");
	if ((key != NULL || pubfile != NULL) && signer_load(key, pubfile, &pub, err) != 0)
		return err->code;
	if (bundle_verify(argv[optind], key || pubfile ? &pub : NULL, key ? "key" : "pubkey",
	    key ? key : pubfile, &res, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cJSON_CreateObject(), *p;

		cJSON_AddBoolToObject(o, "ok", res.ok);
		json_add_str(o, "key_id", res.key_id[0] ? res.key_id : NULL);
		json_add_str(o, "signer_public_key", res.signer_public_key[0] ? res.signer_public_key : NULL);
		cJSON_AddBoolToObject(o, "signer_trusted", res.signer_trusted);
		if (res.signer_trusted) {
			cJSON *t = cJSON_AddObjectToObject(o, "trust");

			cJSON_AddStringToObject(t, "source", res.trust_source);
			cJSON_AddStringToObject(t, "name", res.trust_name);
		} else {
			cJSON_AddNullToObject(o, "trust");
		}
		json_add_str(o, "report_id", res.report_id[0] ? res.report_id : NULL);
		json_add_str(o, "trusted_comment", res.trusted_comment[0] ? res.trusted_comment : NULL);
		cJSON_AddNumberToObject(o, "files_checked", (double)res.files_checked);
		p = cJSON_AddArrayToObject(o, "problems");
		for (size_t i = 0; i < res.nproblems; i++)
			cJSON_AddItemToArray(p, cJSON_CreateString(res.problems[i]));
		json_emit(o);
	} else {
		struct buf text;

		buf_init(&text);
		verify_result_text(argv[optind], &res, &text);
		fwrite(text.data, 1, text.len, stdout);
		buf_free(&text);
	}
	if (!res.ok)
		aerr_set(err, AV_FINDINGS, "%s: verification failed (%zu problem%s)", argv[optind],
		    res.nproblems, res.nproblems == 1 ? "" : "s");
	verify_result_free(&res);
	return err->code;
}

const struct cmd_entry cmd_verify_entry = {
	"verify", verify_usage, "verify a signed report bundle", cmd_verify_exec
};
