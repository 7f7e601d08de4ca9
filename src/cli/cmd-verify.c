/*
 * cmd-verify.c: "aivet verify" — checks a report bundle: the signature on
 * SHA256SUMS by a trusted signer (a key given with --key or --pubkey, or the
 * keyring key with the signature's key id, compared byte for byte; the
 * bundle's own aivet.pub only says who claims to have signed), every file's
 * hash, that nothing is missing or extra, the structure of report.json, and
 * the RFC 3161 time-stamp over SHA256SUMS when the bundle has one (tsa.c),
 * and each approval's statement with the reviewer key this user trusts
 * (an approval not verifiable so is named, and does not fail the bundle).
 * Names every problem; exit 0 or 1. With --rejudge, a bundle that verified
 * has every probe run's verdicts, findings and measured numbers derived
 * again from its exchanges alone (rejudge.c), each difference named.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/minisign.h"
#include "aivet/report.h"

/* The verdicts derived again, after the bundle verified: only then are its
 * exchanges the signer's. Its lines printed, or in JSON {"ok", "differences",
 * "lines"} under "rejudge". */
static void
verify_rejudge(struct aivet *av, const char *dir, cJSON *json, struct aerr *err)
{
	struct buf out;
	int differences = 0;

	buf_init(&out);
	if (bundle_rejudge(av, dir, &out, &differences, err) == 0 && differences > 0)
		aerr_set(err, AV_FINDINGS, "%s: %d difference%s between the bundle's results and its "
		    "exchanges", dir, differences, differences == 1 ? "" : "s");
	if (json != NULL) {
		cJSON *r = cJSON_AddObjectToObject(json, "rejudge"), *lines;

		cJSON_AddBoolToObject(r, "ok", err->code == 0);
		cJSON_AddNumberToObject(r, "differences", differences);
		lines = cJSON_AddArrayToObject(r, "lines");
		for (char *s = out.data, *nl; s != NULL && *s != '\0'; s = nl + 1) {
			if ((nl = strchr(s, '\n')) == NULL)
				break;
			*nl = '\0';
			cJSON_AddItemToArray(lines, cJSON_CreateString(s));
		}
	} else {
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
	}
	buf_free(&out);
}

static int
cmd_verify_exec(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *key = args_get(args, 'k'), *pubfile = args_get(args, 'p');
	const char *tsa_cert = args_get(args, 'c'), *dir = args->argv[0];
	struct minisign_pub pub;
	struct verify_result res;
	int json = args_has(args, 'j'), rejudge = args_has(args, 'r');

	if (key != NULL && pubfile != NULL)
		return usage_error(av, err, "--key and --pubkey exclude each other");
	if ((key != NULL || pubfile != NULL) && signer_load(key, pubfile, &pub, err) != 0)
		return err->code;
	if (bundle_verify(dir, key || pubfile ? &pub : NULL, key ? "key" : "pubkey",
	    key ? key : pubfile, tsa_cert, &res, err) != 0)
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
		json_add_str(o, "generated_at", res.generated_at[0] ? res.generated_at : NULL);
		cJSON_AddItemToObject(o, "time_stamp", tsa_status_json(&res.tsa));
		p = cJSON_AddObjectToObject(o, "parts");
		cJSON_AddStringToObject(p, "signature", verify_part_word(res.signature_ok));
		cJSON_AddStringToObject(p, "hashes", verify_part_word(res.hashes_ok));
		cJSON_AddStringToObject(p, "report", verify_part_word(res.report_ok));
		cJSON_AddStringToObject(p, "time_stamp", verify_time_word(&res));
		cJSON_AddNumberToObject(o, "files_checked", (double)res.files_checked);
		json_add_str(o, "approvals_signed", res.approvals[0] ? res.approvals : NULL);
		json_add_str(o, "approvals_not_verified", res.approvals_unverified[0] ?
		    res.approvals_unverified : NULL);
		p = cJSON_AddArrayToObject(o, "problems");
		for (size_t i = 0; i < res.nproblems; i++)
			cJSON_AddItemToArray(p, cJSON_CreateString(res.problems[i]));
		if (rejudge && res.ok)
			verify_rejudge(av, dir, o, err);
		json_emit(o);
	} else {
		struct buf text;

		buf_init(&text);
		verify_result_text(dir, &res, &text);
		fwrite(text.data, 1, text.len, stdout);
		buf_free(&text);
		if (rejudge && res.ok)
			verify_rejudge(av, dir, NULL, err);
	}
	if (!res.ok)
		aerr_set(err, AV_FINDINGS, "%s: verification failed (%zu problem%s)", dir,
		    res.nproblems, res.nproblems == 1 ? "" : "s");
	verify_result_free(&res);
	return err->code;
}

static const struct opt verify_opts[] = {
	{ .name = "key", .id = 'k', .arg = "NAME",
	  .help = "the signer must be this key of the keyring" },
	{ .name = "pubkey", .id = 'p', .arg = "FILE",
	  .help = "the signer must be this minisign public key", .flags = OPT_OR },
	{ .name = "tsa-cert", .id = 'c', .arg = "FILE",
	  .help = "also trust the TSA certificates in FILE (PEM) for the time-stamp" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ .name = "rejudge", .id = 'r',
	  .help = "also derive every probe verdict, finding and measured number again from the "
	  "bundle's exchanges, offline" },
	{ 0 }
};

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.targets = "DIR",
	.opts = verify_opts,
	.summary = "verify a signed report bundle",
	.exec = cmd_verify_exec,
	.args = ARGS({ TARGET_WORD, 0 }),
};
