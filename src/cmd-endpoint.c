/*
 * cmd-endpoint.c: "aivet endpoint" — the APIs a vendor serves, addressed as
 * VENDOR/NAME. Each endpoint holds credential references (one per tenant
 * label), never secrets; its URL must be https unless it is loopback or the
 * endpoint was added with --allow-insecure-http.
 */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"

extern const struct cmd_entry cmd_endpoint_entry;

/* The options of every subcommand; --json and --all only where they apply. */
struct endpoint_fields {
	struct endpoint_input in;
	int json, all;
};

static void
fields_free(struct endpoint_fields *f)
{
	endpoint_input_free(&f->in);
}

static int
parse_price(const char *opt, const char *s, double *out, struct aerr *err)
{
	char *end;

	*out = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || *out < 0 || *out > 1e6)
		return aerr_set(err, AV_USAGE, "%s: '%s' is not a price (USD per million tokens)", opt, s);
	return 0;
}

static int
parse_endpoint_opts(int argc, char **argv, const char *usage, struct endpoint_fields *f,
    struct aerr *err)
{
	enum { O_NAME = 256, O_API, O_URL, O_MODEL, O_CONTEXT, O_CRED, O_RMCRED, O_INSECURE,
		O_SECURE, O_PIN, O_POUT, O_OPTION, O_JSON, O_ALL };
	static const struct option opts[] = {
		{ "name", required_argument, NULL, O_NAME },
		{ "api", required_argument, NULL, O_API },
		{ "url", required_argument, NULL, O_URL },
		{ "model", required_argument, NULL, O_MODEL },
		{ "context", required_argument, NULL, O_CONTEXT },
		{ "credential", required_argument, NULL, O_CRED },
		{ "remove-credential", required_argument, NULL, O_RMCRED },
		{ "allow-insecure-http", no_argument, NULL, O_INSECURE },
		{ "require-https", no_argument, NULL, O_SECURE },
		{ "price-in", required_argument, NULL, O_PIN },
		{ "price-out", required_argument, NULL, O_POUT },
		{ "option", required_argument, NULL, O_OPTION },
		{ "json", no_argument, NULL, O_JSON },
		{ "all", no_argument, NULL, O_ALL },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_NAME:
			f->in.name = optarg, f->in.set_name = 1;
			break;
		case O_API: {
			int ok = 0;

			for (int i = 0; endpoint_apis[i]; i++)
				ok |= strcmp(endpoint_apis[i], optarg) == 0;
			if (!ok)
				return aerr_set(err, AV_USAGE, "--api: '%s' is not one of openai, anthropic, "
				    "azure-openai, gemini, bedrock, cloudflare", optarg);
			f->in.api = optarg, f->in.set_api = 1;
			break;
		}
		case O_URL:
			f->in.url = optarg, f->in.set_url = 1;
			break;
		case O_MODEL:
			if (*optarg == '\0')
				return aerr_set(err, AV_USAGE, "--model must not be empty");
			f->in.model = optarg, f->in.set_model = 1;
			break;
		case O_CONTEXT:
			if (parse_int_opt("--context", optarg, 1, INT64_C(1) << 40, &f->in.context, err) != 0)
				return err->code;
			f->in.set_context = 1;
			break;
		case O_CRED:
			if (endpoint_input_credential(&f->in, optarg, err) != 0)
				return err->code;
			break;
		case O_RMCRED:
			if (f->in.nremove == ENDPOINT_MAX_CREDS)
				return aerr_set(err, AV_USAGE, "--remove-credential: too many");
			f->in.remove[f->in.nremove++] = optarg;
			break;
		case O_INSECURE:
		case O_SECURE:
			f->in.insecure = c == O_INSECURE, f->in.set_insecure = 1;
			break;
		case O_PIN:
			if (parse_price("--price-in", optarg, &f->in.price_in, err) != 0)
				return err->code;
			f->in.set_price_in = 1;
			break;
		case O_POUT:
			if (parse_price("--price-out", optarg, &f->in.price_out, err) != 0)
				return err->code;
			f->in.set_price_out = 1;
			break;
		case O_OPTION: {
			const char *eq = strchr(optarg, '=');
			char *k;

			if (eq == NULL || eq == optarg)
				return aerr_set(err, AV_USAGE, "--option must be KEY=VALUE");
			if (f->in.options == NULL)
				f->in.options = cJSON_CreateObject();
			k = strndup(optarg, (size_t)(eq - optarg));
			cJSON_DeleteItemFromObject(f->in.options, k);
			cJSON_AddStringToObject(f->in.options, k, eq + 1);
			free(k);
			break;
		}
		case O_JSON:
			f->json = 1;
			break;
		case O_ALL:
			f->all = 1;
			break;
		case ':':
			return usage_error(err, usage, "%s needs a value", argv[optind - 1]);
		default:
			return usage_error(err, usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

static const char add_usage[] =
    "endpoint add VENDOR --name NAME --api openai|anthropic|azure-openai|gemini|bedrock|cloudflare "
    "--url BASE_URL --model MODEL --context TOKENS [--credential LABEL=env:VAR|file:PATH]... "
    "[--allow-insecure-http] [--price-in USD] [--price-out USD] [--option KEY=VALUE]...";

static int
cmd_endpoint_add(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db = NULL;
	int64_t id;
	int rc;

	if (parse_endpoint_opts(argc, argv, add_usage, &f, err) != 0)
		goto out;
	if (optind != argc - 1) {
		usage_error(err, add_usage, "endpoint add needs exactly one VENDOR");
		goto out;
	}
	if (!f.in.set_name || !f.in.set_api || !f.in.set_url || !f.in.set_model || !f.in.set_context) {
		usage_error(err, add_usage, "endpoint add needs --name, --api, --url, --model and --context");
		goto out;
	}
	if (f.in.nremove > 0 || f.json || f.all) {
		usage_error(err, add_usage, "endpoint add: --remove-credential, --json and --all do not apply");
		goto out;
	}
	if (name_check("endpoint", f.in.name, err) != 0 || url_check(f.in.url, f.in.insecure, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL ||
	    endpoint_add(db, av->actor, argv[optind], &f.in, &id, err) != 0)
		goto out;
	printf("endpoint %s/%s added (id %lld, %d credential%s)\n", argv[optind], f.in.name,
	    (long long)id, f.in.ncreds, f.in.ncreds == 1 ? "" : "s");
	err->code = 0;
out:
	rc = err->code;
	fields_free(&f);
	return rc;
}

static const char list_usage[] = "endpoint list [VENDOR] [--all] [--json]";

static int
endpoint_list(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db;
	int64_t vid = 0;
	cJSON *arr;

	if (parse_endpoint_opts(argc, argv, list_usage, &f, err) != 0) {
		fields_free(&f);
		return err->code;
	}
	fields_free(&f);
	if (argc - optind > 1)
		return usage_error(err, list_usage, "endpoint list takes at most one VENDOR");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (optind < argc && vendor_lookup(db, argv[optind], &vid, err) != 0)
		return err->code;
	if (endpoint_list_json(db, vid, f.all, &arr, err) != 0)
		return err->code;
	if (f.json) {
		json_emit(arr);
		return 0;
	}
	printf("%-5s %-36s %-12s %-10s %-9s %s\n", "ID", "ENDPOINT", "API", "CONTEXT", "STATUS", "URL");
	{
		cJSON *e;

		cJSON_ArrayForEach(e, arr)
			printf("%-5d %-36s %-12s %-10.0f %-9s %s\n", cJSON_GetObjectItem(e, "id")->valueint,
			    cJSON_GetObjectItem(e, "ref")->valuestring,
			    cJSON_GetObjectItem(e, "api")->valuestring,
			    cJSON_GetObjectItem(e, "context_tokens")->valuedouble,
			    cJSON_GetObjectItem(e, "status")->valuestring,
			    cJSON_GetObjectItem(e, "url")->valuestring);
	}
	cJSON_Delete(arr);
	return 0;
}

static const char show_usage[] = "endpoint show VENDOR/NAME [--json]";

static int
endpoint_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db;
	int64_t id;
	cJSON *e;
	struct buf out;

	if (parse_endpoint_opts(argc, argv, show_usage, &f, err) != 0) {
		fields_free(&f);
		return err->code;
	}
	fields_free(&f);
	if (optind != argc - 1)
		return usage_error(err, show_usage, "endpoint show needs exactly one VENDOR/NAME");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (endpoint_lookup(db, argv[optind], &id, err) != 0 || endpoint_json(db, id, &e, err) != 0)
		return err->code;
	if (f.json) {
		json_emit(e);
		return 0;
	}
	buf_init(&out);
	endpoint_describe(e, &out);
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	cJSON_Delete(e);
	return 0;
}

static const char edit_usage[] =
    "endpoint edit VENDOR/NAME [--name NEW] [--api API] [--url URL] [--model MODEL] "
    "[--context TOKENS] [--credential LABEL=REF]... [--remove-credential LABEL]... "
    "[--allow-insecure-http|--require-https] [--price-in USD] [--price-out USD] [--option KEY=VALUE]...";

static int
cmd_endpoint_edit(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	const struct endpoint_input *in = &f.in;
	struct db *db = NULL;
	int rc;

	if (parse_endpoint_opts(argc, argv, edit_usage, &f, err) != 0)
		goto out;
	if (optind != argc - 1) {
		usage_error(err, edit_usage, "endpoint edit needs exactly one VENDOR/NAME");
		goto out;
	}
	if (!(in->set_name || in->set_api || in->set_url || in->set_model || in->set_context ||
	    in->ncreds || in->nremove || in->set_insecure || in->set_price_in || in->set_price_out ||
	    in->options)) {
		usage_error(err, edit_usage, "endpoint edit: nothing to change");
		goto out;
	}
	if (in->set_name && name_check("endpoint", in->name, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL || endpoint_edit(db, av->actor, argv[optind], in, err) != 0)
		goto out;
	printf("endpoint %s updated\n", argv[optind]);
	err->code = 0;
out:
	rc = err->code;
	fields_free(&f);
	return rc;
}

static const char archive_usage[] = "endpoint archive VENDOR/NAME";

static int
cmd_endpoint_archive(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *db;

	if (argc != 2 || argv[1][0] == '-')
		return usage_error(err, archive_usage, "endpoint archive needs exactly one VENDOR/NAME");
	if ((db = av_db(av, err)) == NULL || endpoint_archive(db, av->actor, argv[1], err) != 0)
		return err->code;
	printf("endpoint %s archived\n", argv[1]);
	return 0;
}

static const struct subcmd endpoint_subs[] = {
	{ "add", add_usage, "add an endpoint to a vendor", cmd_endpoint_add },
	{ "list", list_usage, "list endpoints (archived ones with --all)", endpoint_list },
	{ "show", show_usage, "show an endpoint and its credential references", endpoint_show },
	{ "edit", edit_usage, "change an endpoint", cmd_endpoint_edit },
	{ "archive", archive_usage, "archive an endpoint (nothing is deleted)", cmd_endpoint_archive },
	{ NULL, NULL, NULL, NULL }
};

static int
cmd_endpoint_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_endpoint_entry, endpoint_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_endpoint_entry = {
	"endpoint", "endpoint add|list|show|edit|archive ...",
	"manage a vendor's API endpoints and their credential references", cmd_endpoint_exec
};
