/*
 * cmd-tsa.c: "aivet tsa" — the Time-Stamping Authorities this installation
 * works with: the certificates a verifier trusts to attest when a bundle or
 * checkpoint existed ('trust', kept under $XDG_CONFIG_HOME/aivet/tsa-trusted/),
 * their list, and the default TSA that 'aivet report', 'aivet audit
 * checkpoint' and the TUI's export ask ('url', kept in
 * $XDG_CONFIG_HOME/aivet/tsa-url).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/tsa.h"

static cJSON *
cert_json(const struct tsa_cert_info *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "subject", c->subject);
	cJSON_AddStringToObject(o, "issuer", c->issuer);
	cJSON_AddStringToObject(o, "sha256", c->fingerprint);
	cJSON_AddStringToObject(o, "not_after", c->not_after);
	cJSON_AddBoolToObject(o, "timestamping", c->timestamping);
	cJSON_AddBoolToObject(o, "ca", c->ca);
	return o;
}

static const char *
cert_kind(const struct tsa_cert_info *c)
{
	return c->ca ? "CA" : c->timestamping ? "TSA" : "other";
}

static int
tsa_trust_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct tsa_cert_info info;
	int json = args_has(args, 'j'), added;

	(void)av;
	if (tsa_trust_add(args->argv[0], &info, &added, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cert_json(&info);

		cJSON_AddBoolToObject(o, "added", added);
		json_emit(o);
		return 0;
	}
	printf("%s TSA certificate %s\n  issuer       %s\n  SHA-256      %s\n  valid until  %s\n"
	    "  kind         %s\n", added ? "trusted" : "already trusted:", info.subject, info.issuer,
	    info.fingerprint, info.not_after, cert_kind(&info));
	if (!info.ca && !info.timestamping)
		printf("note: neither a CA nor a time-stamping certificate; no token chains to it "
		    "as a TSA\n");
	return 0;
}

static int
tsa_untrust_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct tsa_cert_info info;
	int json = args_has(args, 'j');

	(void)av;
	if (tsa_trust_remove(args->argv[0], &info, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cert_json(&info);

		cJSON_AddBoolToObject(o, "removed", 1);
		json_emit(o);
		return 0;
	}
	printf("no longer trusted: TSA certificate %s\n  issuer       %s\n  SHA-256      %s\n"
	    "  kind         %s\n", info.subject, info.issuer, info.fingerprint, cert_kind(&info));
	return 0;
}

static int
tsa_list_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct tsa_cert_info *v = NULL;
	size_t n = 0;
	char *url = NULL;
	int json = args_has(args, 'j');

	(void)av;
	if (tsa_trust_list(&v, &n, err) != 0)
		return err->code;
	url = tsa_url_from_config();
	if (json) {
		cJSON *o = cJSON_CreateObject(), *arr;

		json_add_str(o, "default_url", url);
		arr = cJSON_AddArrayToObject(o, "trusted");
		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, cert_json(&v[i]));
		json_emit(o);
	} else {
		printf("default TSA  %s\n", url ? url : "(none: 'aivet tsa url URL' sets one)");
		if (n == 0)
			printf("no trusted TSA certificates ('aivet tsa trust CERT')\n");
		else
			printf("%-5s %-20s %-16s %s\n", "KIND", "VALID UNTIL", "SHA-256", "SUBJECT");
		for (size_t i = 0; i < n; i++)
			printf("%-5s %-20s %.16s %s\n", cert_kind(&v[i]), v[i].not_after, v[i].fingerprint,
			    v[i].subject);
	}
	free(v);
	free(url);
	return 0;
}

static int
tsa_url_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int unset = args_has(args, 'u');
	char *url;

	if (unset && args->word[0] != NULL)
		return usage_error(av, err, "give a URL or --unset, not both");
	if (unset || args->word[0] != NULL) {
		if (tsa_url_config_set(args->word[0], err) != 0)
			return err->code;
		if (unset)
			printf("no default TSA\n");
		else
			printf("default TSA %s\n", args->word[0]);
		return 0;
	}
	url = tsa_url_from_config();
	printf("%s\n", url ? url : "(none)");
	free(url);
	return 0;
}

static const struct opt url_opts[] = {
	{ .name = "unset", .id = 'u', .help = "remove the default TSA" },
	{ 0 }
};

static const struct cmd_entry tsa_subs[] = {
	{ .name = "trust", .targets = "CERT", .opts = opt_json_only,
	  .summary = "trust a TSA's certificate (or its CA's) to attest times",
	  .exec = tsa_trust_cmd, .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "untrust", .targets = "SHA256|CERT", .opts = opt_json_only,
	  .summary = "stop trusting a TSA certificate (by its SHA-256, or the certificate file)",
	  .exec = tsa_untrust_cmd, .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "list", .opts = opt_json_only,
	  .summary = "list the trusted TSA certificates and the default TSA",
	  .exec = tsa_list_cmd, .args = ARGS_NONE },
	{ .name = "url", .targets = "[URL]", .opts = url_opts,
	  .summary = "show or set the TSA that report and audit checkpoint ask",
	  .exec = tsa_url_cmd, .args = ARGS({ TARGET_WORD, 1 }) },
	{ 0 }
};

const struct cmd_entry cmd_tsa_entry = {
	.name = "tsa",
	.summary = "manage the time-stamping authorities that attest when a bundle existed",
	.subs = tsa_subs,
};
