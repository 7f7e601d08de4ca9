/*
 * endpoint.c: writing a vendor's endpoints — adding, editing and archiving
 * one, with its credential references and prices — for the CLI's "aivet
 * endpoint" and the TUI's vendor screen alike. Each write validates, runs in
 * one transaction with its audit entry and prints nothing; endpoint_describe
 * is the plain-text view both show.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"

const char *const endpoint_apis[] = {
	"openai", "anthropic", "azure-openai", "gemini", "bedrock", "cloudflare", NULL
};

static int
api_check(const char *api, struct aerr *err)
{
	for (int i = 0; endpoint_apis[i]; i++)
		if (strcmp(endpoint_apis[i], api) == 0)
			return 0;
	return aerr_set(err, AV_USAGE, "--api: '%s' is not one of openai, anthropic, "
	    "azure-openai, gemini, bedrock, cloudflare", api);
}

void
endpoint_input_free(struct endpoint_input *f)
{
	for (int i = 0; i < f->ncreds; i++)
		free(f->cred_label[i]);
	for (int i = 0; i < f->norgs; i++)
		free(f->org_label[i]);
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

int
endpoint_input_credential(struct endpoint_input *f, const char *spec, struct aerr *err)
{
	const char *eq = strchr(spec, '=');

	if (f->ncreds == ENDPOINT_MAX_CREDS)
		return aerr_set(err, AV_USAGE, "--credential: at most %d per endpoint", ENDPOINT_MAX_CREDS);
	if (eq == NULL)
		return aerr_set(err, AV_USAGE, "--credential must be LABEL=env:VAR or "
		    "LABEL=file:PATH");
	f->cred_label[f->ncreds] = strndup(spec, (size_t)(eq - spec));
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
	return 0;
}

int
endpoint_input_credential_org(struct endpoint_input *f, const char *spec, struct aerr *err)
{
	const char *eq = strchr(spec, '=');

	if (f->norgs == ENDPOINT_MAX_CREDS)
		return aerr_set(err, AV_USAGE, "--credential-org: at most %d per endpoint",
		    ENDPOINT_MAX_CREDS);
	if (eq == NULL || eq[1] == '\0' || strlen(eq + 1) > 64)
		return aerr_set(err, AV_USAGE, "--credential-org must be LABEL=ORG (an organisation "
		    "of 1 to 64 characters)");
	f->org_label[f->norgs] = strndup(spec, (size_t)(eq - spec));
	f->org[f->norgs] = eq + 1;
	f->norgs++;
	if (label_check(f->org_label[f->norgs - 1], err) != 0)
		return aerr_prefix(err, "--credential-org");
	for (const char *p = eq + 1; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return aerr_set(err, AV_USAGE, "--credential-org %s: the organisation must not "
			    "hold control characters", f->org_label[f->norgs - 1]);
	return 0;
}

/* Writes the credential changes of f for endpoint id, inside the caller's transaction. */
static int
apply_credentials(struct db *db, int64_t id, const struct endpoint_input *f, const char *at,
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
	for (int i = 0; i < f->norgs; i++) {
		int64_t cid;
		cJSON *orgs = cJSON_GetObjectItem(details, "credential_orgs");

		if (db_int(db, &cid, err, "SELECT id FROM credential WHERE endpoint_id = ? AND label = ?",
		    "it", id, f->org_label[i]) != 0)
			return err->code ? err->code : aerr_set(err, AV_USAGE,
			    "--credential-org: the endpoint has no credential labelled '%s'", f->org_label[i]);
		if (db_exec(db, err, "UPDATE credential SET org = ? WHERE id = ?", "ti", f->org[i],
		    cid) != 0)
			return err->code;
		if (orgs == NULL)
			orgs = cJSON_AddObjectToObject(details, "credential_orgs");
		cJSON_AddStringToObject(orgs, f->org_label[i], f->org[i]);
	}
	return 0;
}

int
endpoint_engine_check(const char *engine, struct aerr *err)
{
	for (int i = 0; engine_kinds[i]; i++)
		if (strcmp(engine_kinds[i], engine) == 0)
			return 0;
	return aerr_set(err, AV_USAGE, "--engine: '%s' is not one of sglang, vllm, tgi, llama.cpp",
	    engine);
}

int
endpoint_input_engine_url(struct endpoint_input *f, const char *url, struct aerr *err)
{
	if (f->nengine_urls == ENGINE_MAX_NODES)
		return aerr_set(err, AV_USAGE, "--engine-url: at most %d nodes per endpoint",
		    ENGINE_MAX_NODES);
	for (int i = 0; i < f->nengine_urls; i++)
		if (strcmp(f->engine_url[i], url) == 0)
			return aerr_set(err, AV_USAGE, "--engine-url: %s given twice", url);
	f->engine_url[f->nengine_urls++] = url;
	return 0;
}

int
endpoint_engine_url_check(const char *url, int insecure, struct aerr *err)
{
	return url_check_as("--engine-url", url, insecure, err);
}

/* The engine's nodes as f changes them, over what the endpoint had: checked
 * (a kind needs a node and a node a kind; each URL as the endpoint's is), then
 * written in place of the old ones, inside the caller's transaction. The
 * credential is recorded under ENGINE_CRED_LABEL among the entry's credentials,
 * where credref_read() looks for who set it. */
static int
apply_engine(struct db *db, int64_t id, const struct endpoint_input *f, int insecure,
    const char *at, cJSON *details, struct aerr *err)
{
	struct engine_conf old;
	const char *kind, *cred, *urls[ENGINE_MAX_NODES];
	int n, rc = 0;
	cJSON *e, *nodes, *creds;

	if (!f->set_engine && f->nengine_urls == 0 && !f->set_engine_cred && !f->remove_engine)
		return 0;
	if (f->remove_engine && (f->set_engine || f->nengine_urls || f->set_engine_cred))
		return aerr_set(err, AV_USAGE, "--remove-engine drops the engine: it takes no --engine, "
		    "--engine-url or --engine-credential");
	if (engine_conf_load(db, id, &old, err) != 0)
		return err->code;
	kind = f->set_engine ? f->engine : old.engine;
	cred = f->set_engine_cred ? f->engine_cred : old.credential_ref;
	n = f->nengine_urls ? f->nengine_urls : old.n;
	for (int i = 0; i < n; i++)
		urls[i] = f->nengine_urls ? f->engine_url[i] : old.url[i];
	if (f->remove_engine)
		n = 0, kind = NULL, cred = NULL;
	else if (kind == NULL)
		rc = aerr_set(err, AV_USAGE, "--engine-url needs --engine sglang|vllm|tgi|llama.cpp");
	else if (n == 0)
		rc = aerr_set(err, AV_USAGE, "--engine needs at least one --engine-url (one per node)");
	for (int i = 0; i < n && rc == 0; i++)
		rc = endpoint_engine_url_check(urls[i], insecure, err);
	if (rc == 0 && cred != NULL && credref_check(cred, err) != 0)
		rc = aerr_prefix(err, "--engine-credential");
	if (rc == 0)
		rc = db_exec(db, err, "DELETE FROM engine_node WHERE endpoint_id = ?", "i", id);
	for (int i = 0; i < n && rc == 0; i++)
		rc = db_exec(db, err, "INSERT INTO engine_node (endpoint_id, position, engine, url, "
		    "credential_ref, created_at) VALUES (?,?,?,?,?,?)", "iittt" "t", id, (int64_t)(i + 1),
		    kind, urls[i], cred, at);
	if (rc == 0) {
		e = cJSON_AddObjectToObject(details, "engine");
		json_add_str(e, "kind", kind);
		nodes = cJSON_AddArrayToObject(e, "nodes");
		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(nodes, cJSON_CreateString(urls[i]));
		if (f->set_engine_cred) {
			if ((creds = cJSON_GetObjectItem(details, "credentials")) == NULL)
				creds = cJSON_AddObjectToObject(details, "credentials");
			cJSON_AddStringToObject(creds, ENGINE_CRED_LABEL, cred);
		}
	}
	engine_conf_free(&old);
	return rc;
}

int
endpoint_price_parse(const char *what, const char *s, double *out, struct aerr *err)
{
	char *end;

	*out = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(*out >= 0 && *out <= 1e6))
		return aerr_set(err, AV_USAGE, "%s: '%s' is not a price (USD per million tokens)", what, s);
	return 0;
}

static int
apply_prices(struct db *db, int64_t id, const struct endpoint_input *f, struct aerr *err)
{
	if (f->set_price_in && db_exec(db, err, "UPDATE endpoint SET price_in_per_mtok = ? WHERE id = ?",
	    "di", f->price_in, id) != 0)
		return err->code;
	if (f->set_price_out && db_exec(db, err, "UPDATE endpoint SET price_out_per_mtok = ? WHERE id = ?",
	    "di", f->price_out, id) != 0)
		return err->code;
	return 0;
}

int
endpoint_add(struct db *db, const char *actor, const char *vendor, const struct endpoint_input *in,
    int64_t *idp, struct aerr *err)
{
	const struct endpoint_input f = *in;
	int64_t vid, id, archived;
	char at[32], *opts = NULL;
	cJSON *d = NULL;
	int rc;

	if (name_check("endpoint", f.name, err) != 0 || api_check(f.api, err) != 0 ||
	    url_check(f.url, f.insecure, err) != 0)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (vendor_lookup(db, vendor, &vid, err) != 0)
		goto fail;
	if (db_int(db, &archived, err, "SELECT status = 'archived' FROM vendor WHERE id = ?", "i", vid) < 0)
		goto fail;
	if (archived) {
		aerr_set(err, AV_USAGE, "vendor '%s' is archived", vendor);
		goto fail;
	}
	if (db_int(db, &id, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND name = ?", "it",
	    vid, f.name) == 0) {
		aerr_set(err, AV_USAGE, "endpoint '%s/%s' already exists", vendor, f.name);
		goto fail;
	}
	now_iso(at);
	opts = f.options ? cJSON_PrintUnformatted(f.options) : NULL;
	if (db_insert(db, &id, err, "INSERT INTO endpoint (vendor_id, name, api, url, model, context_tokens, "
	    "allow_insecure_http, price_in_per_mtok, price_out_per_mtok, options, created_at, updated_at) "
	    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", "ittttiinnttt", vid, f.name, f.api, f.url,
	    f.model, f.context, (int64_t)f.insecure, opts, at, at) != 0)
		goto fail;
	if (apply_prices(db, id, &f, err) != 0)
		goto fail;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "vendor", vendor);
	cJSON_AddStringToObject(d, "name", f.name);
	cJSON_AddStringToObject(d, "api", f.api);
	cJSON_AddStringToObject(d, "url", f.url);
	cJSON_AddStringToObject(d, "model", f.model);
	cJSON_AddNumberToObject(d, "context_tokens", (double)f.context);
	if (apply_credentials(db, id, &f, at, d, err) != 0 ||
	    apply_engine(db, id, &f, f.insecure, at, d, err) != 0 ||
	    audit_append(db, actor, "endpoint.add", "endpoint", id, d, err) != 0)
		goto fail;
	if (db_commit(db, err) != 0)
		goto out;
	*idp = id;
	err->code = 0;
	goto out;
fail:
	db_rollback(db);
out:
	rc = err->code;
	cJSON_Delete(d);
	free(opts);
	return rc;
}

int
endpoint_edit(struct db *db, const char *actor, const char *ref, const struct endpoint_input *in,
    struct aerr *err)
{
	const struct endpoint_input f = *in;
	struct db_stmt *st;
	int64_t id, other, vid, insecure;
	char at[32], *url = NULL, *opts = NULL;
	cJSON *d = NULL, *old_opts = NULL;
	int rc;

	if ((f.set_name && name_check("endpoint", f.name, err) != 0) ||
	    (f.set_api && api_check(f.api, err) != 0))
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (endpoint_lookup(db, ref, &id, err) != 0)
		goto fail;
	st = db_prepare(db, err, "SELECT vendor_id, url, allow_insecure_http, options FROM endpoint "
	    "WHERE id = ?", "i", id);
	if (st == NULL || db_step(st) != DB_ROW) {
		db_finalize(st);
		db_err(db, err, "endpoint");
		goto fail;
	}
	vid = db_col_int64(st, 0);
	url = xstrdup(f.set_url ? f.url : col_text(st, 1));
	insecure = f.set_insecure ? f.insecure : db_col_int(st, 2);
	old_opts = cJSON_Parse(col_text(st, 3));
	db_finalize(st);
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
	    apply_engine(db, id, &f, (int)insecure, at, d, err) != 0)
		goto fail;
	/* An edit's entry names the fields it changed (audit verify requires it). */
	if (d->child == NULL) {
		aerr_set(err, AV_USAGE, "endpoint edit: nothing to change");
		goto fail;
	}
	if (audit_append(db, actor, "endpoint.edit", "endpoint", id, d, err) != 0)
		goto fail;
	if (db_commit(db, err) != 0)
		goto out;
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
	return rc;
}

/* The labels of endpoint id whose reference actor wrote, into a JSON array;
 * the other labels' writers into others ("t2 (rita)"), for the refusal. */
static int
labels_written_by(struct db *db, int64_t id, const char *actor, cJSON *mine, struct buf *others,
    struct aerr *err)
{
	struct credential *c;
	size_t n;
	int rc = 0;

	if (credential_list_load(db, id, &c, &n, err) != 0)
		return err->code;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct credref_binding b;

		if ((rc = credref_binding_load(db, id, c[i].label, c[i].ref, &b, err)) != 0)
			break;
		if (b.writer != NULL && strcmp(b.writer, actor) == 0)
			cJSON_AddItemToArray(mine, cJSON_CreateString(c[i].label));
		else
			buf_printf(others, "%s%s (%s)", others->len ? ", " : "", c[i].label,
			    b.writer != NULL ? b.writer : "no audited writer");
		credref_binding_free(&b);
	}
	credential_list_free(c, n);
	return rc != 0 ? err->code : 0;
}

/* A confirmation changes no row, so nothing else would tie its entry to an
 * endpoint that exists: on PostgreSQL the server's function checks that it
 * does and that the login wrote the references confirmed
 * (db/pg/018-no-change.sql), and the entry may follow only that. On SQLite
 * nothing runs: endpoint_confirm() looked the endpoint up and read its
 * references' writers from the log in this transaction, as the function does. */
static int
confirm_record(struct db *db, int64_t id, const cJSON *d, struct aerr *err)
{
	static const struct db_write confirmation = {
		{ NULL }, "SELECT aivet_endpoint_confirm(?1, ?2)", 0
	};
	char *text = cJSON_PrintUnformatted(d);
	int rc = db_write(db, err, &confirmation, NULL, "it", id, text);

	free(text);
	return rc;
}

int
endpoint_confirm(struct db *db, const char *actor, const char *ref, const char *url,
    char **labels, struct aerr *err)
{
	int64_t id, same;
	cJSON *d = cJSON_CreateObject(), *mine = cJSON_AddArrayToObject(d, "credentials");
	struct buf others;

	*labels = NULL;
	buf_init(&others);
	cJSON_AddStringToObject(d, "origin_url", url);
	if (db_begin(db, err) != 0)
		goto out;
	if (endpoint_lookup(db, ref, &id, err) != 0 ||
	    db_int(db, &same, err, "SELECT url = ? FROM endpoint WHERE id = ?", "ti", url, id) != 0)
		goto fail;
	if (!same) {
		aerr_set(err, AV_USAGE, "--url: endpoint %s's URL is not %s; confirm the URL it has "
		    "(aivet endpoint show %s)", ref, url, ref);
		goto fail;
	}
	if (labels_written_by(db, id, actor, mine, &others, err) != 0)
		goto fail;
	if (cJSON_GetArraySize(mine) == 0) {
		aerr_set(err, AV_USAGE, "endpoint %s: you (%s) wrote none of its credential references "
		    "(%s); where a secret may go is confirmed by whoever wrote its reference", ref, actor,
		    others.len ? others.data : "it has none");
		goto fail;
	}
	if (confirm_record(db, id, d, err) != 0 ||
	    audit_append(db, actor, "endpoint.confirm", "endpoint", id, d, err) != 0 ||
	    db_commit(db, err) != 0)
		goto fail;
	{
		const cJSON *l;
		struct buf b;

		buf_init(&b);
		cJSON_ArrayForEach(l, mine)
			buf_printf(&b, "%s%s", b.len ? " " : "", l->valuestring);
		*labels = xstrdup(b.data ? b.data : "");
		buf_free(&b);
	}
	err->code = 0;
	goto out;
fail:
	db_rollback(db);
out:
	buf_free(&others);
	cJSON_Delete(d);
	return err->code;
}

int
endpoint_archive(struct db *db, const char *actor, const char *ref, struct aerr *err)
{
	int64_t id;

	if (db_begin(db, err) != 0)
		return err->code;
	if (endpoint_lookup(db, ref, &id, err) != 0 ||
	    record_archive(db, actor, "endpoint", id, ref, err) != 0) {
		db_rollback(db);
		return err->code;
	}
	return db_commit(db, err) != 0 ? err->code : 0;
}

void
endpoint_describe(const struct endpoint *e, struct buf *out)
{
	buf_printf(out, "endpoint %s (id %d)\n", e->ref, (int)e->id);
	buf_printf(out, "  api          %s\n", e->api);
	buf_printf(out, "  url          %s\n", e->url);
	buf_printf(out, "  model        %s\n", e->model);
	buf_printf(out, "  context      %.0f tokens\n", (double)e->context_tokens);
	buf_printf(out, "  status       %s\n", e->status);
	if (e->allow_insecure_http)
		buf_printf(out, "  insecure     plain http allowed\n");
	buf_printf(out, "  credentials\n");
	for (size_t i = 0; i < e->ncredentials; i++) {
		const struct credential *c = &e->credentials[i];

		buf_printf(out, "    %-16s %s", c->label, c->ref);
		if (c->org != NULL)
			buf_printf(out, "  (organisation %s)", c->org);
		buf_printf(out, "\n");
	}
	if (e->engine.n > 0) {
		buf_printf(out, "  engine       %s, %d node%s%s%s\n", e->engine.engine, e->engine.n,
		    e->engine.n == 1 ? "" : "s", e->engine.credential_ref ? ", credential " : "",
		    e->engine.credential_ref ? e->engine.credential_ref : "");
		for (int i = 0; i < e->engine.n; i++)
			buf_printf(out, "    node %-2d      %s\n", i + 1, e->engine.url[i]);
	}
}
