/*
 * vendor.c: the vendor and endpoint records shared by the CLI, the TUI and
 * reports — name rules, lookups by name or id, and their JSON form (the
 * field names are a documented contract).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"

int
text_unsafe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; ) {
		uint32_t cp;
		size_t len = utf8_decode(p + i, n - i, &cp);

		if (len == 0)
			return 1;
		if (unsafe_codepoint(cp))
			return 2;
		i += len;
	}
	return 0;
}

int
safe_text_check(const char *what, const char *s, struct aerr *err)
{
	int bad = text_unsafe(s);
	char *shown;

	if (bad == 0)
		return 0;
	shown = text_escape(s, strlen(s), 0);
	aerr_set(err, AV_USAGE, bad == 1 ? "%s '%s' is not valid UTF-8" :
	    "%s '%s' may not contain control characters or bidirectional overrides", what, shown);
	free(shown);
	return AV_USAGE;
}

int
name_check(const char *what, const char *name, struct aerr *err)
{
	size_t n = strlen(name);
	int bad;

	if (n == 0)
		return aerr_set(err, AV_USAGE, "%s name must not be empty", what);
	if (n > 100)
		return aerr_set(err, AV_USAGE, "%s name is longer than 100 characters", what);
	/* A name is shown on terminals, in reports and spreadsheets: it must be
	 * UTF-8 without controls or bidirectional overrides that reorder what an
	 * auditor reads. The refused name is echoed escaped, never raw. */
	if ((bad = text_unsafe(name)) != 0 || strchr(name, '/') != NULL) {
		char *shown = text_escape(name, n, 0);

		aerr_set(err, AV_USAGE, bad == 1 ? "%s name '%s' is not valid UTF-8" :
		    "%s name '%s' may not contain '/', control characters or bidirectional "
		    "overrides", what, shown);
		free(shown);
		return AV_USAGE;
	}
	if (strspn(name, "0123456789") == n)
		return aerr_set(err, AV_USAGE, "%s name '%s' is all digits, which reads as an id; "
		    "choose another", what, name);
	if (isspace((unsigned char)name[0]) || isspace((unsigned char)name[n - 1]))
		return aerr_set(err, AV_USAGE, "%s name '%s' may not start or end with a space", what, name);
	return 0;
}

int
vendor_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	int rc;

	if (*ref != '\0' && strspn(ref, "0123456789") == strlen(ref))
		rc = db_int(db, id, err, "SELECT id FROM vendor WHERE id = ?", "i", (int64_t)atoll(ref));
	else
		rc = db_int(db, id, err, "SELECT id FROM vendor WHERE name = ?", "t", ref);
	if (rc == 1) {
		struct aerr e = { 0 };
		char near[256];

		if (db_suggest(db_prepare(db, &e, "SELECT name FROM vendor WHERE status = 'active' "
		    "ORDER BY name", NULL), ref, near, sizeof near) != NULL)
			return aerr_set(err, AV_USAGE, "unknown vendor '%s'; did you mean %s? (see 'aivet "
			    "vendor list')", ref, near);
		return aerr_set(err, AV_USAGE, "unknown vendor '%s' (see 'aivet vendor list')", ref);
	}
	return rc < 0 ? AV_RUNTIME : 0;
}

/* The active endpoint a mistyped "VENDOR/NAME" most likely meant (name_suggest
 * over every active endpoint's ref), copied into near; NULL when none is near. */
static const char *
endpoint_suggest(struct db *db, const char *ref, char *near, size_t n)
{
	struct aerr e = { 0 };

	return db_suggest(db_prepare(db, &e, "SELECT v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.status = 'active' AND v.status = 'active' "
	    "ORDER BY v.name, e.name", NULL), ref, near, n);
}

int
endpoint_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	const char *slash = strchr(ref, '/');
	char *vname, near[256];
	int64_t vid;
	int rc;

	/* The id 'endpoint list' prints names the endpoint as well as its name does. */
	if (*ref != '\0' && strspn(ref, "0123456789") == strlen(ref)) {
		rc = db_int(db, id, err, "SELECT id FROM endpoint WHERE id = ?", "i", (int64_t)atoll(ref));
		if (rc == 1)
			return aerr_set(err, AV_USAGE, "unknown endpoint id %s (see 'aivet endpoint list')", ref);
		return rc < 0 ? AV_RUNTIME : 0;
	}
	if (slash == NULL || slash == ref || slash[1] == '\0')
		return aerr_set(err, AV_USAGE, "endpoint '%s' must be written VENDOR/NAME or its id", ref);
	vname = strndup(ref, (size_t)(slash - ref));
	rc = vendor_lookup(db, vname, &vid, err);
	free(vname);
	/* A mistyped vendor is most often a mistyped endpoint: name the endpoint meant. */
	if (rc == AV_USAGE && endpoint_suggest(db, ref, near, sizeof near) != NULL)
		return aerr_set(err, AV_USAGE, "unknown endpoint '%s'; did you mean %s? (see 'aivet "
		    "endpoint list')", ref, near);
	if (rc != 0)
		return rc;
	rc = db_int(db, id, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND name = ?",
	    "it", vid, slash + 1);
	if (rc == 1) {
		if (endpoint_suggest(db, ref, near, sizeof near) != NULL)
			return aerr_set(err, AV_USAGE, "unknown endpoint '%s'; did you mean %s? (see "
			    "'aivet endpoint list')", ref, near);
		return aerr_set(err, AV_USAGE, "unknown endpoint '%s' (see 'aivet endpoint list')", ref);
	}
	return rc < 0 ? AV_RUNTIME : 0;
}

void
json_add_endpoint_ref(cJSON *o, const char *key, struct db_stmt *st, int vendor_col, int name_col)
{
	char *ref;

	if (db_col_type(st, name_col) == DB_NULL) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	ref = xasprintf("%s/%s", col_text(st, vendor_col), col_text(st, name_col));
	cJSON_AddStringToObject(o, key, ref);
	free(ref);
}

int
record_archive(struct db *db, const char *actor, const char *table, int64_t id, const char *shown,
    struct aerr *err)
{
	char *sql = xasprintf("SELECT status = 'archived' FROM %s WHERE id = ?", table);
	char *upd = xasprintf("UPDATE %s SET status = 'archived', updated_at = ? WHERE id = ?", table);
	char *action = xasprintf("%s.archive", table);
	char at[32];
	int64_t archived = 0;
	int rc;

	if ((rc = db_int(db, &archived, err, sql, "i", id)) < 0)
		rc = AV_RUNTIME;
	else if (archived)
		rc = aerr_set(err, AV_USAGE, "%s '%s' is already archived", table, shown);
	else {
		now_iso(at);
		rc = db_exec(db, err, upd, "ti", at, id);
		if (rc == 0)
			rc = audit_append(db, actor, action, table, id, NULL, err);
	}
	free(sql);
	free(upd);
	free(action);
	return rc;
}

/* ---- writes: the CLI and the TUI both call these ---- */

int
vendor_add(struct db *db, const char *actor, const struct vendor_input *in, int64_t *id,
    struct aerr *err)
{
	int64_t exists, criticality = in->set_crit ? in->criticality : 2;
	char at[32];
	cJSON *d;

	if (name_check("vendor", in->name, err) != 0)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (db_int(db, &exists, err, "SELECT id FROM vendor WHERE name = ?", "t", in->name) == 0) {
		db_rollback(db);
		return aerr_set(err, AV_USAGE, "vendor '%s' already exists (id %lld)", in->name,
		    (long long)exists);
	}
	now_iso(at);
	if (db_insert(db, id, err, "INSERT INTO vendor (name, criticality, contact, notes, created_at, "
	    "updated_at) VALUES (?,?,?,?,?,?)", "titttt", in->name, criticality, in->contact,
	    in->notes, at, at) != 0)
		goto fail;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "name", in->name);
	cJSON_AddNumberToObject(d, "criticality", (double)criticality);
	json_add_str(d, "contact", in->contact);
	json_add_str(d, "notes", in->notes);
	if (audit_append(db, actor, "vendor.add", "vendor", *id, d, err) != 0) {
		cJSON_Delete(d);
		goto fail;
	}
	cJSON_Delete(d);
	return db_commit(db, err) != 0 ? err->code : 0;
fail:
	db_rollback(db);
	return err->code;
}

int
vendor_edit(struct db *db, const char *actor, const char *ref, const struct vendor_input *in,
    struct aerr *err)
{
	int64_t id, other;
	char at[32];
	cJSON *d;

	if (in->set_name && name_check("vendor", in->name, err) != 0)
		return err->code;
	/* An edit's entry names the fields it changed (audit verify requires it). */
	if (!in->set_name && !in->set_crit && !in->set_contact && !in->set_notes)
		return aerr_set(err, AV_USAGE, "vendor edit: nothing to change");
	if (db_begin(db, err) != 0)
		return err->code;
	if (vendor_lookup(db, ref, &id, err) != 0)
		goto fail;
	if (in->set_name && db_int(db, &other, err, "SELECT id FROM vendor WHERE name = ? AND id <> ?",
	    "ti", in->name, id) == 0) {
		aerr_set(err, AV_USAGE, "vendor '%s' already exists (id %lld)", in->name, (long long)other);
		goto fail;
	}
	now_iso(at);
	d = cJSON_CreateObject();
	if (in->set_name)
		cJSON_AddStringToObject(d, "name", in->name);
	if (in->set_crit)
		cJSON_AddNumberToObject(d, "criticality", (double)in->criticality);
	if (in->set_contact)
		cJSON_AddStringToObject(d, "contact", in->contact);
	if (in->set_notes)
		cJSON_AddStringToObject(d, "notes", in->notes);
	if (db_exec(db, err, "UPDATE vendor SET name = CASE WHEN ? THEN ? ELSE name END, "
	    "criticality = CASE WHEN ? THEN ? ELSE criticality END, "
	    "contact = CASE WHEN ? THEN ? ELSE contact END, "
	    "notes = CASE WHEN ? THEN ? ELSE notes END, updated_at = ? WHERE id = ?",
	    "itiiititti", (int64_t)in->set_name, in->name, (int64_t)in->set_crit, in->criticality,
	    (int64_t)in->set_contact, in->contact, (int64_t)in->set_notes, in->notes, at, id) != 0 ||
	    audit_append(db, actor, "vendor.edit", "vendor", id, d, err) != 0) {
		cJSON_Delete(d);
		goto fail;
	}
	cJSON_Delete(d);
	return db_commit(db, err) != 0 ? err->code : 0;
fail:
	db_rollback(db);
	return err->code;
}

int
vendor_archive(struct db *db, const char *actor, const char *ref, struct aerr *err)
{
	int64_t id;

	if (db_begin(db, err) != 0)
		return err->code;
	if (vendor_lookup(db, ref, &id, err) != 0 ||
	    record_archive(db, actor, "vendor", id, ref, err) != 0)
		goto fail;
	/* The vendor's endpoints go with it, each with its entry (endpoints are sealed);
	 * nothing is deleted. */
	{
		int64_t *eps = NULL;
		size_t n = 0;
		int rc = db_ids(db_prepare(db, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND "
		    "status = 'active' ORDER BY id", "i", id), &eps, &n, err);

		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = record_archive(db, actor, "endpoint", eps[i], ref, err);
		free(eps);
		if (rc != 0)
			goto fail;
	}
	return db_commit(db, err) != 0 ? err->code : 0;
fail:
	db_rollback(db);
	return err->code;
}

/* ---- read-only queries shared by the CLI and the TUI ---- */

int
vendor_name(struct db *db, int64_t id, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT name FROM vendor WHERE id = ?", "i", id);

	out[0] = '\0';
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW)
		snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	return 0;
}

int
endpoint_ref(struct db *db, int64_t id, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.id = ?", "i", id);

	out[0] = '\0';
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW)
		snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	return 0;
}

int
vendor_any(struct db *db, struct aerr *err)
{
	int64_t any;

	if (db_int(db, &any, err, "SELECT count(*) FROM (SELECT 1 FROM vendor LIMIT 1) AS one", NULL) < 0)
		return -1;
	return any > 0;
}

int
vendor_names_from(struct db *db, int endpoints, const char *prefix,
    void (*fn)(const char *name, void *ctx), void *ctx, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, endpoints ?
	    "SELECT v.name || '/' || e.name FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.status = 'active' AND v.status = 'active' AND "
	    "substr(v.name || '/' || e.name, 1, length(?1)) = ?1 ORDER BY v.name, e.name" :
	    "SELECT name FROM vendor WHERE status = 'active' AND substr(name, 1, length(?1)) = ?1 "
	    "ORDER BY name", "t", prefix);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW)
		fn(col_text(st, 0), ctx);
	db_finalize(st);
	return 0;
}

/* ---- the records: loading, freeing, and their one JSON form ---- */

void
vendor_round_text(const struct vendor_round *r, char *out, size_t n)
{
	snprintf(out, n, "assessment %lld: %s round %lld, %s, %d of %d answered", (long long)r->id,
	    r->questionnaire, (long long)r->round,
	    strcmp(r->status, "in_review") == 0 ? "in review" : r->status, r->answered, r->asked);
}

void
vendor_free(struct vendor *v)
{
	free(v->name);
	free(v->contact);
	free(v->notes);
	free(v->status);
	free(v->created_at);
	free(v->updated_at);
	endpoint_list_free(&v->endpoint_list);
	free(v->rating);
	free(v->in_work);
	memset(v, 0, sizeof *v);
}

void
vendor_list_free(struct vendor_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		vendor_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* A VENDOR_SELECT row into v; the row's strings are only borrowed (the record
 * is handed on before the next step), so nothing is copied. */
static void
vendor_row_borrow(struct db_stmt *st, struct vendor *v)
{
	*v = (struct vendor){
		.id = db_col_int64(st, 0), .name = (char *)col_text(st, 1),
		.criticality = db_col_int64(st, 2),
		.contact = db_col_type(st, 3) == DB_NULL ? NULL : (char *)col_text(st, 3),
		.notes = db_col_type(st, 4) == DB_NULL ? NULL : (char *)col_text(st, 4),
		.status = (char *)col_text(st, 5), .created_at = (char *)col_text(st, 6),
		.updated_at = (char *)col_text(st, 7), .endpoints = db_col_int64(st, 8),
		.open_incidents = db_col_int64(st, 9),
	};
}

/* v with its own copies of the row's strings. */
static void
vendor_own(struct vendor *v)
{
	v->name = xstrdup(v->name);
	v->contact = v->contact ? xstrdup(v->contact) : NULL;
	v->notes = v->notes ? xstrdup(v->notes) : NULL;
	v->status = xstrdup(v->status);
	v->created_at = xstrdup(v->created_at);
	v->updated_at = xstrdup(v->updated_at);
}

int
vendor_get(struct db *db, int64_t id, struct vendor *out, struct aerr *err)
{
	static const struct db_read one = { VENDOR_SELECT " WHERE v.id = ?", VENDOR_SELECT_PG " WHERE v.id = ?" };
	struct db_stmt *st = db_prepare_read(db, err, &one, "i", id);

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown vendor id %lld", (long long)id);
	}
	vendor_row_borrow(st, out);
	vendor_own(out);
	db_finalize(st);
	return 0;
}

/* vendor_each's callback for vendor_list_load: a copy of each vendor appended. */
struct vendor_grow {
	struct vendor_list *l;
	size_t cap;
};

static void
vendor_append(const struct vendor *v, void *ctx)
{
	struct vendor_grow *g = ctx;

	if (g->l->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->l->items = xrealloc(g->l->items, g->cap * sizeof *g->l->items);
	}
	g->l->items[g->l->n] = *v;
	vendor_own(&g->l->items[g->l->n++]);
}

int
vendor_list_load(struct db *db, int all, struct vendor_list *out, struct aerr *err)
{
	struct vendor_grow g = { out, 0 };

	memset(out, 0, sizeof *out);
	if (vendor_each(db, all, vendor_append, &g, err) != 0) {
		vendor_list_free(out);
		return err->code;
	}
	return 0;
}

int
vendor_each(struct db *db, int all, void (*each)(const struct vendor *v, void *ctx), void *ctx,
    struct aerr *err)
{
	static const struct db_read list = {
		VENDOR_SELECT " WHERE ? OR v.status = 'active' ORDER BY v.name",
		VENDOR_SELECT_PG " WHERE ? OR v.status = 'active' ORDER BY v.name"
	};
	struct db_stmt *st = db_prepare_read(db, err, &list, "i", (int64_t)all);
	struct vendor v;
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		vendor_row_borrow(st, &v);
		each(&v, ctx);
	}
	db_finalize(st);
	/* A list cut short by an error is no list: the caller says so, never fewer vendors. */
	return rc == DB_DONE ? 0 : db_err(db, err, "vendor list");
}

cJSON *
vendor_row_to_json(const struct vendor *v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)v->id);
	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddNumberToObject(o, "criticality", (double)v->criticality);
	json_add_str(o, "contact", v->contact);
	json_add_str(o, "notes", v->notes);
	cJSON_AddStringToObject(o, "status", v->status);
	cJSON_AddStringToObject(o, "created_at", v->created_at);
	cJSON_AddStringToObject(o, "updated_at", v->updated_at);
	cJSON_AddNumberToObject(o, "endpoints", (double)v->endpoints);
	cJSON_AddNumberToObject(o, "open_incidents", (double)v->open_incidents);
	if (v->has_endpoint_list)
		cJSON_AddItemToObject(o, "endpoint_list", endpoint_list_to_json(&v->endpoint_list));
	return o;
}

void
vendor_in_work_add_json(cJSON *o, const struct vendor *v)
{
	if (v->has_in_work) {
		cJSON *w = cJSON_AddArrayToObject(o, "in_work");

		for (size_t i = 0; i < v->nin_work; i++) {
			cJSON *r = cJSON_CreateObject();

			cJSON_AddNumberToObject(r, "id", (double)v->in_work[i].id);
			cJSON_AddStringToObject(r, "questionnaire", v->in_work[i].questionnaire);
			cJSON_AddNumberToObject(r, "round", (double)v->in_work[i].round);
			cJSON_AddStringToObject(r, "status", v->in_work[i].status);
			cJSON_AddNumberToObject(r, "answered", v->in_work[i].answered);
			cJSON_AddNumberToObject(r, "asked", v->in_work[i].asked);
			cJSON_AddItemToArray(w, r);
		}
	}
}

cJSON *
endpoint_to_json(const struct endpoint *e)
{
	cJSON *o = cJSON_CreateObject(), *opt, *creds;

	cJSON_AddNumberToObject(o, "id", (double)e->id);
	cJSON_AddStringToObject(o, "vendor", e->vendor);
	cJSON_AddStringToObject(o, "name", e->name);
	cJSON_AddStringToObject(o, "ref", e->ref);
	cJSON_AddStringToObject(o, "api", e->api);
	cJSON_AddStringToObject(o, "url", e->url);
	cJSON_AddStringToObject(o, "model", e->model);
	cJSON_AddNumberToObject(o, "context_tokens", (double)e->context_tokens);
	cJSON_AddBoolToObject(o, "allow_insecure_http", e->allow_insecure_http);
	if (e->has_price_in)
		cJSON_AddNumberToObject(o, "price_in_per_mtok", e->price_in_per_mtok);
	else
		cJSON_AddNullToObject(o, "price_in_per_mtok");
	if (e->has_price_out)
		cJSON_AddNumberToObject(o, "price_out_per_mtok", e->price_out_per_mtok);
	else
		cJSON_AddNullToObject(o, "price_out_per_mtok");
	opt = e->options != NULL ? cJSON_Duplicate(e->options, 1) : NULL;
	cJSON_AddItemToObject(o, "options", opt ? opt : cJSON_CreateObject());
	cJSON_AddStringToObject(o, "status", e->status);
	cJSON_AddStringToObject(o, "created_at", e->created_at);
	cJSON_AddStringToObject(o, "updated_at", e->updated_at);
	creds = cJSON_AddArrayToObject(o, "credentials");
	for (size_t i = 0; i < e->ncredentials; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "label", e->credentials[i].label);
		cJSON_AddStringToObject(c, "ref", e->credentials[i].ref);
		json_add_str(c, "org", e->credentials[i].org);
		cJSON_AddItemToArray(creds, c);
	}
	cJSON_AddItemToObject(o, "engine", engine_conf_to_json(&e->engine));
	return o;
}

cJSON *
engine_conf_to_json(const struct engine_conf *c)
{
	cJSON *o, *nodes;

	if (c->n == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", c->engine);
	nodes = cJSON_AddArrayToObject(o, "nodes");
	for (int i = 0; i < c->n; i++)
		cJSON_AddItemToArray(nodes, cJSON_CreateString(c->url[i]));
	json_add_str(o, "credential", c->credential_ref);
	return o;
}

cJSON *
endpoint_list_to_json(const struct endpoint_list *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, endpoint_to_json(&l->items[i]));
	return a;
}
