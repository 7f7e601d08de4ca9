/*
 * cmd-endpoint.c: "aivet endpoint" — the APIs a vendor serves, addressed as
 * VENDOR/NAME. Each endpoint holds credential references (one per tenant
 * label), never secrets; its URL must be https unless it is loopback or the
 * endpoint was added with --allow-insecure-http.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

enum { O_NAME = 1, O_API, O_URL, O_MODEL, O_CONTEXT, O_CRED, O_CREDORG, O_RMCRED, O_INSECURE,
	O_SECURE, O_PIN, O_POUT, O_OPTION, O_JSON, O_ALL, O_ENGINE, O_ENGINE_URL, O_ENGINE_CRED,
	O_RMENGINE };

#define O_PRICES \
	{ .name = "price-in", .id = O_PIN, .arg = "USD", \
	  .help = "price of a million input tokens, for the probe plan's cost" }, \
	{ .name = "price-out", .id = O_POUT, .arg = "USD", \
	  .help = "price of a million output tokens" }, \
	{ .name = "option", .id = O_OPTION, .arg = "KEY=VALUE", \
	  .help = "a setting of the vendor API (api-version, region, ...)", .flags = OPT_MANY }

#define O_ENGINE_OPTS \
	{ .name = "engine", .id = O_ENGINE, .arg = "sglang|vllm|tgi|llama.cpp", \
	  .help = "the serving engine, read by the engine probe" }, \
	{ .name = "engine-url", .id = O_ENGINE_URL, .arg = "URL", \
	  .help = "the engine's status API on one node (once per node)", .flags = OPT_MANY }, \
	{ .name = "engine-credential", .id = O_ENGINE_CRED, .arg = "env:VAR|file:PATH", \
	  .help = "the engine admin API's credential reference" }

static const struct opt add_opts[] = {
	{ .name = "name", .id = O_NAME, .arg = "NAME",
	  .help = "the endpoint's name, unique for its vendor", .flags = OPT_REQUIRED },
	{ .name = "api", .id = O_API,
	  .arg = "openai|anthropic|azure-openai|gemini|bedrock|cloudflare",
	  .help = "the vendor API it speaks", .flags = OPT_REQUIRED },
	{ .name = "url", .id = O_URL, .arg = "BASE_URL",
	  .help = "the API's base URL (https unless loopback)", .flags = OPT_REQUIRED },
	{ .name = "model", .id = O_MODEL, .arg = "MODEL",
	  .help = "the model name sent with each request", .flags = OPT_REQUIRED },
	{ .name = "context", .id = O_CONTEXT, .arg = "TOKENS",
	  .help = "the context window the vendor states", .flags = OPT_REQUIRED },
	{ .name = "credential", .id = O_CRED, .arg = "LABEL=env:VAR|file:PATH",
	  .help = "a tenant's credential reference (never the secret itself)", .flags = OPT_MANY },
	{ .name = "credential-org", .id = O_CREDORG, .arg = "LABEL=ORG",
	  .help = "the organisation (account) the credential belongs to", .flags = OPT_MANY },
	{ .name = "allow-insecure-http", .id = O_INSECURE,
	  .help = "accept a plain http URL that is not loopback" },
	O_PRICES,
	O_ENGINE_OPTS,
	{ 0 }
};
static const struct opt list_opts[] = {
	{ .name = "all", .id = O_ALL, .help = "archived endpoints too" },
	{ .name = "json", .id = O_JSON, .help = "print JSON (an array of endpoints)" },
	{ 0 }
};
static const struct opt show_opts[] = {
	{ .name = "json", .id = O_JSON,
	  .help = "print JSON (the endpoint, credential labels and references)" },
	{ 0 }
};
static const struct opt edit_opts[] = {
	{ .name = "name", .id = O_NAME, .arg = "NEW", .help = "rename the endpoint" },
	{ .name = "api", .id = O_API, .arg = "API", .help = "the vendor API it speaks" },
	{ .name = "url", .id = O_URL, .arg = "URL", .help = "the API's base URL" },
	{ .name = "model", .id = O_MODEL, .arg = "MODEL",
	  .help = "the model name sent with each request" },
	{ .name = "context", .id = O_CONTEXT, .arg = "TOKENS",
	  .help = "the context window the vendor states" },
	{ .name = "credential", .id = O_CRED, .arg = "LABEL=REF",
	  .help = "add or replace a tenant's credential reference", .flags = OPT_MANY },
	{ .name = "credential-org", .id = O_CREDORG, .arg = "LABEL=ORG",
	  .help = "the organisation (account) the credential belongs to", .flags = OPT_MANY },
	{ .name = "remove-credential", .id = O_RMCRED, .arg = "LABEL",
	  .help = "drop a tenant's credential reference", .flags = OPT_MANY },
	{ .name = "allow-insecure-http", .id = O_INSECURE,
	  .help = "accept a plain http URL that is not loopback" },
	{ .name = "require-https", .id = O_SECURE, .help = "refuse plain http again",
	  .flags = OPT_OR },
	O_PRICES,
	O_ENGINE_OPTS,
	{ .name = "remove-engine", .id = O_RMENGINE, .help = "drop the engine and its nodes" },
	{ 0 }
};

/* --api: one of the APIs aivet speaks. */
static int
api_opt(struct endpoint_input *in, const char *a, struct aerr *err)
{
	int ok = 0;

	for (int i = 0; endpoint_apis[i]; i++)
		ok |= strcmp(endpoint_apis[i], a) == 0;
	if (!ok)
		return aerr_set(err, AV_USAGE, "--api: '%s' is not one of openai, anthropic, "
		    "azure-openai, gemini, bedrock, cloudflare", a);
	in->api = a, in->set_api = 1;
	return 0;
}

/* --option KEY=VALUE: the last value given for a key counts. */
static int
option_opt(struct endpoint_input *in, const char *a, struct aerr *err)
{
	const char *eq = strchr(a, '=');
	char *k;

	if (eq == NULL || eq == a)
		return aerr_set(err, AV_USAGE, "--option must be KEY=VALUE");
	if (in->options == NULL)
		in->options = cJSON_CreateObject();
	k = strndup(a, (size_t)(eq - a));
	cJSON_DeleteItemFromObject(in->options, k);
	cJSON_AddStringToObject(in->options, k, eq + 1);
	free(k);
	return 0;
}

/* One option (c, with its value a) into the fields, checked as it is read. */
static int
endpoint_opt(int c, const char *a, struct endpoint_fields *f, struct aerr *err)
{
	switch (c) {
	case O_NAME:
		f->in.name = a, f->in.set_name = 1;
		return 0;
	case O_API:
		return api_opt(&f->in, a, err);
	case O_URL:
		f->in.url = a, f->in.set_url = 1;
		return 0;
	case O_MODEL:
		if (*a == '\0')
			return aerr_set(err, AV_USAGE, "--model must not be empty");
		f->in.model = a, f->in.set_model = 1;
		return 0;
	case O_CONTEXT:
		if (parse_int_opt("--context", a, 1, INT64_C(1) << 40, &f->in.context, err) != 0)
			return err->code;
		f->in.set_context = 1;
		return 0;
	case O_CRED:
		return endpoint_input_credential(&f->in, a, err) != 0 ? err->code : 0;
	case O_CREDORG:
		return endpoint_input_credential_org(&f->in, a, err) != 0 ? err->code : 0;
	case O_RMCRED:
		if (f->in.nremove == ENDPOINT_MAX_CREDS)
			return aerr_set(err, AV_USAGE, "--remove-credential: too many");
		f->in.remove[f->in.nremove++] = a;
		return 0;
	case O_INSECURE:
	case O_SECURE:
		f->in.insecure = c == O_INSECURE, f->in.set_insecure = 1;
		return 0;
	case O_PIN:
		if (endpoint_price_parse("--price-in", a, &f->in.price_in, err) != 0)
			return err->code;
		f->in.set_price_in = 1;
		return 0;
	case O_POUT:
		if (endpoint_price_parse("--price-out", a, &f->in.price_out, err) != 0)
			return err->code;
		f->in.set_price_out = 1;
		return 0;
	case O_OPTION:
		return option_opt(&f->in, a, err);
	case O_ENGINE:
		if (endpoint_engine_check(a, err) != 0)
			return err->code;
		f->in.engine = a, f->in.set_engine = 1;
		return 0;
	case O_ENGINE_URL:
		return endpoint_input_engine_url(&f->in, a, err) != 0 ? err->code : 0;
	case O_ENGINE_CRED:
		if (credref_check(a, err) != 0)
			return aerr_prefix(err, "--engine-credential");
		f->in.engine_cred = a, f->in.set_engine_cred = 1;
		return 0;
	case O_RMENGINE:
		f->in.remove_engine = 1;
		return 0;
	case O_JSON:
		f->json = 1;
		return 0;
	case O_ALL:
		f->all = 1;
		return 0;
	}
	return 0;
}

/* The options in the order given: a later --option KEY=VALUE replaces an earlier one. */
static int
endpoint_fields_read(const struct cmd_args *a, struct endpoint_fields *f, struct aerr *err)
{
	for (int i = 0; i < a->nopt; i++)
		if (endpoint_opt(a->opt[i].id, a->opt[i].arg, f, err) != 0)
			return err->code;
	return 0;
}

static int
cmd_endpoint_add(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db = NULL;
	int64_t id;
	int rc;

	if (endpoint_fields_read(a, &f, err) != 0)
		goto out;
	if (!f.in.set_name || !f.in.set_api || !f.in.set_url || !f.in.set_model || !f.in.set_context) {
		usage_error(av, err, "endpoint add needs --name, --api, --url, --model and --context");
		goto out;
	}
	if (name_check("endpoint", f.in.name, err) != 0 || url_check(f.in.url, f.in.insecure, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL ||
	    endpoint_add(db, av->actor, a->word[0], &f.in, &id, err) != 0)
		goto out;
	term_printf(stdout, "endpoint %s/%s added (id %lld, %d credential%s)\n", a->word[0], f.in.name,
	    (long long)id, f.in.ncreds, f.in.ncreds == 1 ? "" : "s");
	err->code = 0;
out:
	rc = err->code;
	fields_free(&f);
	return rc;
}

static int
endpoint_list(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db;
	struct endpoint_list l;
	struct table t;

	if (endpoint_fields_read(a, &f, err) != 0) {
		fields_free(&f);
		return err->code;
	}
	fields_free(&f);
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (endpoint_list_load(db, a->target[0], f.all, &l, err) != 0)
		return err->code;
	if (f.json) {
		json_emit(endpoint_list_to_json(&l));
		endpoint_list_free(&l);
		return 0;
	}
	table_init(&t, 6, "ID", "ENDPOINT", "API", "CONTEXT", "STATUS", "URL");
	for (size_t i = 0; i < l.n; i++) {
		const struct endpoint *e = &l.items[i];
		char id[24], ctx[24];

		snprintf(id, sizeof id, "%lld", (long long)e->id);
		snprintf(ctx, sizeof ctx, "%lld", (long long)e->context_tokens);
		table_row(&t, id, e->ref, e->api, ctx, e->status, e->url);
	}
	table_print(&t, stdout);
	table_free(&t);
	endpoint_list_free(&l);
	return 0;
}

static int
endpoint_show(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	struct db *db;
	struct endpoint e;
	struct buf out;

	if (endpoint_fields_read(a, &f, err) != 0) {
		fields_free(&f);
		return err->code;
	}
	fields_free(&f);
	if ((db = av_db(av, err)) == NULL || endpoint_get(db, a->target[0], &e, err) != 0)
		return err->code;
	if (f.json) {
		json_emit(endpoint_to_json(&e));
		endpoint_free(&e);
		return 0;
	}
	buf_init(&out);
	endpoint_describe(&e, &out);
	term_write(stdout, out.data);
	buf_free(&out);
	endpoint_free(&e);
	return 0;
}

static int
cmd_endpoint_edit(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct endpoint_fields f = { 0 };
	const struct endpoint_input *in = &f.in;
	struct db *db = NULL;
	int rc;

	if (endpoint_fields_read(a, &f, err) != 0)
		goto out;
	if (!(in->set_name || in->set_api || in->set_url || in->set_model || in->set_context ||
	    in->ncreds || in->norgs || in->nremove || in->set_insecure || in->set_price_in ||
	    in->set_price_out || in->options || in->set_engine || in->nengine_urls ||
	    in->set_engine_cred || in->remove_engine)) {
		usage_error(av, err, "endpoint edit: nothing to change");
		goto out;
	}
	if (in->set_name && name_check("endpoint", in->name, err) != 0)
		goto out;
	if ((db = av_db(av, err)) == NULL || endpoint_edit(db, av->actor, a->word[0], in, err) != 0)
		goto out;
	term_printf(stdout, "endpoint %s updated\n", a->word[0]);
	err->code = 0;
out:
	rc = err->code;
	fields_free(&f);
	return rc;
}

static int
cmd_endpoint_archive(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct db *db;

	if ((db = av_db(av, err)) == NULL ||
	    endpoint_archive(db, av->actor, a->word[0], err) != 0)
		return err->code;
	term_printf(stdout, "endpoint %s archived\n", a->word[0]);
	return 0;
}

static const struct opt confirm_opts[] = {
	{ .name = "url", .id = O_URL, .arg = "URL",
	  .help = "the endpoint's URL as it is now, which your credentials may go to",
	  .flags = OPT_REQUIRED },
	{ 0 }
};

static int
cmd_endpoint_confirm(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct db *db;
	const char *url = args_get(a, O_URL);
	char *labels;

	if ((db = av_db(av, err)) == NULL ||
	    endpoint_confirm(db, av->actor, a->word[0], url, &labels, err) != 0)
		return err->code;
	term_printf(stdout, "endpoint %s: %s's credentials %s may go to %s\n", a->word[0], av->actor,
	    labels, url);
	free(labels);
	return 0;
}

static const struct cmd_entry endpoint_subs[] = {
	{ .name = "add", .targets = "VENDOR", .opts = add_opts,
	  .summary = "add an endpoint to a vendor", .exec = cmd_endpoint_add,
	  .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ .name = "list", .targets = "[VENDOR]", .opts = list_opts,
	  .summary = "list endpoints (archived ones with --all)", .exec = endpoint_list,
	  .args = ARGS({ TARGET_VENDOR, 1 }) },
	{ .name = "show", .targets = "VENDOR/NAME", .opts = show_opts,
	  .summary = "show an endpoint and its credential references", .exec = endpoint_show,
	  .args = ARGS({ TARGET_ENDPOINT, 0 }) },
	{ .name = "edit", .targets = "VENDOR/NAME", .opts = edit_opts,
	  .summary = "change an endpoint", .exec = cmd_endpoint_edit,
	  .args = ARGS({ TARGET_ENDPOINT, 0 }) },
	{ .name = "confirm", .targets = "VENDOR/NAME", .opts = confirm_opts,
	  .summary = "confirm that the credentials you wrote may go to the endpoint's URL, after "
	  "someone else changed it", .exec = cmd_endpoint_confirm,
	  .args = ARGS({ TARGET_ENDPOINT, 0 }) },
	{ .name = "archive", .targets = "VENDOR/NAME",
	  .summary = "archive an endpoint (nothing is deleted)", .exec = cmd_endpoint_archive,
	  .args = ARGS({ TARGET_ENDPOINT, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_endpoint_entry = {
	.name = "endpoint",
	.summary = "manage a vendor's API endpoints and their credential references",
	.subs = endpoint_subs,
};
