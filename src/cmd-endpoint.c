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

static const char *const apis[] = {
	"openai", "anthropic", "azure-openai", "gemini", "bedrock", "cloudflare", NULL
};

#define MAX_CREDS 16

struct endpoint_fields {
	const char *name, *api, *url, *model;
	int64_t context;
	double price_in, price_out;
	int insecure;
	int set_name, set_api, set_url, set_model, set_context, set_price_in, set_price_out, set_insecure;
	char *cred_label[MAX_CREDS];
	const char *cred_ref[MAX_CREDS];
	int ncreds;
	const char *remove[MAX_CREDS];
	int nremove;
	cJSON *options;   /* --option KEY=VALUE */
	int json, all;
};

static void
fields_free(struct endpoint_fields *f)
{
	for (int i = 0; i < f->ncreds; i++)
		free(f->cred_label[i]);
	cJSON_Delete(f->options);
}

static int
label_check(const char *label, struct aerr *err)
{
	size_t n = strlen(label);

	if (n == 0 || n > 64)
		return aerr_set(err, AV_USAGE, "--credential: a label of 1 to 64 characters is needed "
		    "before '='");
	for (const char *p = label; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') {
			char *shown = text_escape(label, n, 0);

			aerr_set(err, AV_USAGE, "--credential: label '%s' may use only letters, "
			    "digits, '-', '_' and '.'", shown);
			free(shown);
			return AV_USAGE;
		}
	return 0;
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
			f->name = optarg, f->set_name = 1;
			break;
		case O_API: {
			int ok = 0;

			for (int i = 0; apis[i]; i++)
				ok |= strcmp(apis[i], optarg) == 0;
			if (!ok)
				return aerr_set(err, AV_USAGE, "--api: '%s' is not one of openai, anthropic, "
				    "azure-openai, gemini, bedrock, cloudflare", optarg);
			f->api = optarg, f->set_api = 1;
			break;
		}
		case O_URL:
			f->url = optarg, f->set_url = 1;
			break;
		case O_MODEL:
			if (*optarg == '\0')
				return aerr_set(err, AV_USAGE, "--model must not be empty");
			f->model = optarg, f->set_model = 1;
			break;
		case O_CONTEXT:
			if (parse_int_opt("--context", optarg, 1, INT64_C(1) << 40, &f->context, err) != 0)
				return err->code;
			f->set_context = 1;
			break;
		case O_CRED: {
			const char *eq = strchr(optarg, '=');

			if (f->ncreds == MAX_CREDS)
				return aerr_set(err, AV_USAGE, "--credential: at most %d per endpoint", MAX_CREDS);
			if (eq == NULL)
				return aerr_set(err, AV_USAGE, "--credential must be LABEL=env:VAR or "
				    "LABEL=file:PATH");
			f->cred_label[f->ncreds] = strndup(optarg, (size_t)(eq - optarg));
			f->cred_ref[f->ncreds] = eq + 1;
			f->ncreds++;
			if (label_check(f->cred_label[f->ncreds - 1], err) != 0)
				return err->code;
			if (credref_check(eq + 1, err) != 0)
				return aerr_prefix(err, "--credential %s", f->cred_label[f->ncreds - 1]);
			for (int i = 0; i < f->ncreds - 1; i++)
				if (strcmp(f->cred_label[i], f->cred_label[f->ncreds - 1]) == 0)
					return aerr_set(err, AV_USAGE, "--credential: label '%s' given twice",
					    f->cred_label[i]);
			break;
		}
		case O_RMCRED:
			if (f->nremove == MAX_CREDS)
				return aerr_set(err, AV_USAGE, "--remove-credential: too many");
			f->remove[f->nremove++] = optarg;
			break;
		case O_INSECURE:
		case O_SECURE:
			f->insecure = c == O_INSECURE, f->set_insecure = 1;
			break;
		case O_PIN:
			if (parse_price("--price-in", optarg, &f->price_in, err) != 0)
				return err->code;
			f->set_price_in = 1;
			break;
		case O_POUT:
			if (parse_price("--price-out", optarg, &f->price_out, err) != 0)
				return err->code;
			f->set_price_out = 1;
			break;
		case O_OPTION: {
			const char *eq = strchr(optarg, '=');
			char *k;

			if (eq == NULL || eq == optarg)
				return aerr_set(err, AV_USAGE, "--option must be KEY=VALUE");
			if (f->options == NULL)
				f->options = cJSON_CreateObject();
			k = strndup(optarg, (size_t)(eq - optarg));
			cJSON_DeleteItemFromObject(f->options, k);
			cJSON_AddStringToObject(f->options, k, eq + 1);
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

/* Writes the credential changes of f for endpoint id, inside the caller's transaction. */
static int
apply_credentials(sqlite3 *db, int64_t id, const struct endpoint_fields *f, const char *at,
    cJSON *details, struct aerr *err)
{
	cJSON *added = NULL, *removed = NULL;

	for (int i = 0; i < f->nremove; i++) {
		int64_t cid;

		if (db_int(db, &cid, err, "SELECT id FROM credential WHERE endpoint_id = ? AND label = ?",
		    "it", id, f->remove[i]) != 0)
			return err->code ? err->code : aerr_set(err, AV_USAGE,
			    "--remove-credential: the endpoint has no credential labelled '%s'", f->remove[i]);
		if (db_exec(db, err, "DELETE FROM credential WHERE id = ?", "i", cid) != 0)
			return err->code;
		if (removed == NULL)
			removed = cJSON_AddArrayToObject(details, "credentials_removed");
		cJSON_AddItemToArray(removed, cJSON_CreateString(f->remove[i]));
	}
	for (int i = 0; i < f->ncreds; i++) {
		if (db_exec(db, err, "INSERT INTO credential (endpoint_id, label, ref, created_at) "
		    "VALUES (?,?,?,?) ON CONFLICT (endpoint_id, label) DO UPDATE SET ref = excluded.ref",
		    "ittt", id, f->cred_label[i], f->cred_ref[i], at) != 0)
			return err->code;
		if (added == NULL)
			added = cJSON_AddObjectToObject(details, "credentials");
		cJSON_AddStringToObject(added, f->cred_label[i], f->cred_ref[i]);
	}
	return 0;
}

static int
apply_prices(sqlite3 *db, int64_t id, const struct endpoint_fields *f, struct aerr *err)
{
	if (f->set_price_in && db_exec(db, err, "UPDATE endpoint SET price_in_per_mtok = ? WHERE id = ?",
	    "di", f->price_in, id) != 0)
		return err->code;
	if (f->set_price_out && db_exec(db, err, "UPDATE endpoint SET price_out_per_mtok = ? WHERE id = ?",
	    "di", f->price_out, id) != 0)
		return err->code;
	return 0;
}

static const char add_usage[] =
    "endpoint add VENDOR --name NAME --api openai|anthropic|azure-openai|gemini|bedrock|cloudflare "
    "--url BASE_URL --model MODEL --context TOKENS [--credential LABEL=env:VAR|file:PATH]... "
    "[--allow-insecure-http] [--price-in USD] [--price-out USD] [--option KEY=VALUE]...";

static int
endpoint_add(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	sqlite3 *db = NULL;
	int64_t vid, id, archived;
	char at[32], *opts = NULL;
	cJSON *d = NULL;
	int rc;

	if (parse_endpoint_opts(argc, argv, add_usage, &f, err) != 0)
		goto out;
	if (optind != argc - 1) {
		usage_error(err, add_usage, "endpoint add needs exactly one VENDOR");
		goto out;
	}
	if (!f.set_name || !f.set_api || !f.set_url || !f.set_model || !f.set_context) {
		usage_error(err, add_usage, "endpoint add needs --name, --api, --url, --model and --context");
		goto out;
	}
	if (f.nremove > 0 || f.json || f.all) {
		usage_error(err, add_usage, "endpoint add: --remove-credential, --json and --all do not apply");
		goto out;
	}
	if (name_check("endpoint", f.name, err) != 0 || url_check(f.url, f.insecure, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL || db_begin(db, err) != 0)
		goto out;
	if (vendor_lookup(db, argv[optind], &vid, err) != 0)
		goto fail;
	if (db_int(db, &archived, err, "SELECT status = 'archived' FROM vendor WHERE id = ?", "i", vid) < 0)
		goto fail;
	if (archived) {
		aerr_set(err, AV_USAGE, "vendor '%s' is archived", argv[optind]);
		goto fail;
	}
	if (db_int(db, &id, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND name = ?", "it",
	    vid, f.name) == 0) {
		aerr_set(err, AV_USAGE, "endpoint '%s/%s' already exists", argv[optind], f.name);
		goto fail;
	}
	now_iso(at);
	opts = f.options ? cJSON_PrintUnformatted(f.options) : NULL;
	if (db_exec(db, err, "INSERT INTO endpoint (vendor_id, name, api, url, model, context_tokens, "
	    "allow_insecure_http, price_in_per_mtok, price_out_per_mtok, options, created_at, updated_at) "
	    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", "ittttiinnttt", vid, f.name, f.api, f.url,
	    f.model, f.context, (int64_t)f.insecure, opts, at, at) != 0)
		goto fail;
	id = sqlite3_last_insert_rowid(db);
	if (apply_prices(db, id, &f, err) != 0)
		goto fail;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "vendor", argv[optind]);
	cJSON_AddStringToObject(d, "name", f.name);
	cJSON_AddStringToObject(d, "api", f.api);
	cJSON_AddStringToObject(d, "url", f.url);
	cJSON_AddStringToObject(d, "model", f.model);
	cJSON_AddNumberToObject(d, "context_tokens", (double)f.context);
	if (apply_credentials(db, id, &f, at, d, err) != 0 ||
	    audit_append(db, av->actor, "endpoint.add", "endpoint", id, d, err) != 0)
		goto fail;
	if (db_commit(db, err) != 0)
		goto out;
	printf("endpoint %s/%s added (id %lld, %d credential%s)\n", argv[optind], f.name,
	    (long long)id, f.ncreds, f.ncreds == 1 ? "" : "s");
	err->code = 0;
	goto out;
fail:
	db_rollback(db);
out:
	rc = err->code;
	cJSON_Delete(d);
	free(opts);
	fields_free(&f);
	return rc;
}

static const char list_usage[] = "endpoint list [VENDOR] [--all] [--json]";

static int
endpoint_list(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	sqlite3 *db;
	sqlite3_stmt *st;
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
	st = db_prepare(db, err, "SELECT e.id FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE (? = 0 OR e.vendor_id = ?) AND (? OR e.status = 'active') ORDER BY v.name, e.name",
	    "iii", vid, vid, (int64_t)f.all);
	if (st == NULL)
		return err->code;
	arr = cJSON_CreateArray();
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *e;

		if (endpoint_json(db, sqlite3_column_int64(st, 0), &e, err) != 0) {
			sqlite3_finalize(st);
			cJSON_Delete(arr);
			return err->code;
		}
		cJSON_AddItemToArray(arr, e);
	}
	sqlite3_finalize(st);
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
	sqlite3 *db;
	int64_t id;
	cJSON *e, *c;

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
	printf("endpoint %s (id %d)\n", cJSON_GetObjectItem(e, "ref")->valuestring,
	    cJSON_GetObjectItem(e, "id")->valueint);
	printf("  api          %s\n", cJSON_GetObjectItem(e, "api")->valuestring);
	printf("  url          %s\n", cJSON_GetObjectItem(e, "url")->valuestring);
	printf("  model        %s\n", cJSON_GetObjectItem(e, "model")->valuestring);
	printf("  context      %.0f tokens\n", cJSON_GetObjectItem(e, "context_tokens")->valuedouble);
	printf("  status       %s\n", cJSON_GetObjectItem(e, "status")->valuestring);
	if (cJSON_IsTrue(cJSON_GetObjectItem(e, "allow_insecure_http")))
		printf("  insecure     plain http allowed\n");
	printf("  credentials\n");
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(e, "credentials"))
		printf("    %-16s %s\n", cJSON_GetObjectItem(c, "label")->valuestring,
		    cJSON_GetObjectItem(c, "ref")->valuestring);
	cJSON_Delete(e);
	return 0;
}

static const char edit_usage[] =
    "endpoint edit VENDOR/NAME [--name NEW] [--api API] [--url URL] [--model MODEL] "
    "[--context TOKENS] [--credential LABEL=REF]... [--remove-credential LABEL]... "
    "[--allow-insecure-http|--require-https] [--price-in USD] [--price-out USD] [--option KEY=VALUE]...";

static int
endpoint_edit(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int64_t id, other, vid, insecure;
	char at[32], *url = NULL, *opts = NULL;
	cJSON *d = NULL, *old_opts = NULL;
	int rc;

	if (parse_endpoint_opts(argc, argv, edit_usage, &f, err) != 0)
		goto out;
	if (optind != argc - 1) {
		usage_error(err, edit_usage, "endpoint edit needs exactly one VENDOR/NAME");
		goto out;
	}
	if (!(f.set_name || f.set_api || f.set_url || f.set_model || f.set_context || f.ncreds ||
	    f.nremove || f.set_insecure || f.set_price_in || f.set_price_out || f.options)) {
		usage_error(err, edit_usage, "endpoint edit: nothing to change");
		goto out;
	}
	if (f.set_name && name_check("endpoint", f.name, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL || db_begin(db, err) != 0)
		goto out;
	if (endpoint_lookup(db, argv[optind], &id, err) != 0)
		goto fail;
	st = db_prepare(db, err, "SELECT vendor_id, url, allow_insecure_http, options FROM endpoint "
	    "WHERE id = ?", "i", id);
	if (st == NULL || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		db_err(db, err, "endpoint");
		goto fail;
	}
	vid = sqlite3_column_int64(st, 0);
	url = xstrdup(f.set_url ? f.url : col_text(st, 1));
	insecure = f.set_insecure ? f.insecure : sqlite3_column_int(st, 2);
	old_opts = cJSON_Parse(col_text(st, 3));
	sqlite3_finalize(st);
	/* The URL and the insecure flag are checked together, whichever changed. */
	if (url_check(url, (int)insecure, err) != 0)
		goto fail;
	if (f.set_name && db_int(db, &other, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND "
	    "name = ? AND id <> ?", "iti", vid, f.name, id) == 0) {
		aerr_set(err, AV_USAGE, "an endpoint named '%s' already exists for this vendor", f.name);
		goto fail;
	}
	if (f.options) {
		cJSON *kv;

		if (old_opts == NULL)
			old_opts = cJSON_CreateObject();
		cJSON_ArrayForEach(kv, f.options) {
			cJSON_DeleteItemFromObject(old_opts, kv->string);
			cJSON_AddStringToObject(old_opts, kv->string, kv->valuestring);
		}
		opts = cJSON_PrintUnformatted(old_opts);
	}
	now_iso(at);
	d = cJSON_CreateObject();
	if (f.set_name)
		cJSON_AddStringToObject(d, "name", f.name);
	if (f.set_api)
		cJSON_AddStringToObject(d, "api", f.api);
	if (f.set_url)
		cJSON_AddStringToObject(d, "url", f.url);
	if (f.set_model)
		cJSON_AddStringToObject(d, "model", f.model);
	if (f.set_context)
		cJSON_AddNumberToObject(d, "context_tokens", (double)f.context);
	if (f.set_insecure)
		cJSON_AddBoolToObject(d, "allow_insecure_http", f.insecure);
	if (f.set_price_in)
		cJSON_AddNumberToObject(d, "price_in_per_mtok", f.price_in);
	if (f.set_price_out)
		cJSON_AddNumberToObject(d, "price_out_per_mtok", f.price_out);
	if (f.options)
		cJSON_AddItemReferenceToObject(d, "options", f.options);
	if (db_exec(db, err, "UPDATE endpoint SET "
	    "name = coalesce(?, name), api = coalesce(?, api), url = ?, model = coalesce(?, model), "
	    "context_tokens = CASE WHEN ? THEN ? ELSE context_tokens END, allow_insecure_http = ?, "
	    "options = coalesce(?, options), updated_at = ? WHERE id = ?",
	    "ttttiiitti", f.set_name ? f.name : NULL,
	    f.set_api ? f.api : NULL, url, f.set_model ? f.model : NULL,
	    (int64_t)f.set_context, f.context, insecure, opts, at, id) != 0)
		goto fail;
	if (apply_prices(db, id, &f, err) != 0)
		goto fail;
	if (apply_credentials(db, id, &f, at, d, err) != 0 ||
	    audit_append(db, av->actor, "endpoint.edit", "endpoint", id, d, err) != 0)
		goto fail;
	if (db_commit(db, err) != 0)
		goto out;
	printf("endpoint %s updated\n", argv[optind]);
	err->code = 0;
	goto out;
fail:
	db_rollback(db);
out:
	rc = err->code;
	cJSON_Delete(d);
	cJSON_Delete(old_opts);
	free(url);
	free(opts);
	fields_free(&f);
	return rc;
}

static const char archive_usage[] = "endpoint archive VENDOR/NAME";

static int
endpoint_archive(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	sqlite3 *db;
	int64_t id;

	if (argc != 2 || argv[1][0] == '-')
		return usage_error(err, archive_usage, "endpoint archive needs exactly one VENDOR/NAME");
	if ((db = av_db(av, err)) == NULL || db_begin(db, err) != 0)
		return err->code;
	if (endpoint_lookup(db, argv[1], &id, err) != 0 ||
	    record_archive(db, av->actor, "endpoint", id, argv[1], err) != 0) {
		db_rollback(db);
		return err->code;
	}
	if (db_commit(db, err) != 0)
		return err->code;
	printf("endpoint %s archived\n", argv[1]);
	return 0;
}

static const struct subcmd endpoint_subs[] = {
	{ "add", add_usage, "add an endpoint to a vendor", endpoint_add },
	{ "list", list_usage, "list endpoints (archived ones with --all)", endpoint_list },
	{ "show", show_usage, "show an endpoint and its credential references", endpoint_show },
	{ "edit", edit_usage, "change an endpoint", endpoint_edit },
	{ "archive", archive_usage, "archive an endpoint (nothing is deleted)", endpoint_archive },
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
