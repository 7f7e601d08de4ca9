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

int
endpoint_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	const char *slash = strchr(ref, '/');
	char *vname;
	int64_t vid;
	int rc;

	if (slash == NULL || slash == ref || slash[1] == '\0')
		return aerr_set(err, AV_USAGE, "endpoint '%s' must be written VENDOR/NAME", ref);
	vname = strndup(ref, (size_t)(slash - ref));
	rc = vendor_lookup(db, vname, &vid, err);
	free(vname);
	if (rc != 0)
		return rc;
	rc = db_int(db, id, err, "SELECT id FROM endpoint WHERE vendor_id = ? AND name = ?",
	    "it", vid, slash + 1);
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "unknown endpoint '%s' (see 'aivet endpoint list')", ref);
	return rc < 0 ? AV_RUNTIME : 0;
}

static void
add_text_or_null(cJSON *o, const char *k, struct db_stmt *st, int i)
{
	if (db_col_type(st, i) == DB_NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, col_text(st, i));
}

static void
add_real_or_null(cJSON *o, const char *k, struct db_stmt *st, int i)
{
	if (db_col_type(st, i) == DB_NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, db_col_double(st, i));
}

cJSON *
vendor_row_json(struct db_stmt *st)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
	cJSON_AddStringToObject(o, "name", col_text(st, 1));
	cJSON_AddNumberToObject(o, "criticality", db_col_int(st, 2));
	add_text_or_null(o, "contact", st, 3);
	add_text_or_null(o, "notes", st, 4);
	cJSON_AddStringToObject(o, "status", col_text(st, 5));
	cJSON_AddStringToObject(o, "created_at", col_text(st, 6));
	cJSON_AddStringToObject(o, "updated_at", col_text(st, 7));
	cJSON_AddNumberToObject(o, "endpoints", db_col_int(st, 8));
	cJSON_AddNumberToObject(o, "open_incidents", db_col_int(st, 9));
	return o;
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
vendor_json(struct db *db, int64_t id, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, VENDOR_SELECT " WHERE v.id = ?", "i", id);

	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown vendor id %lld", (long long)id);
	}
	*out = vendor_row_json(st);
	db_finalize(st);
	return 0;
}

int
endpoint_json(struct db *db, int64_t id, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT e.id, v.name, e.name, e.api, e.url, e.model, "
	    "e.context_tokens, e.allow_insecure_http, e.price_in_per_mtok, e.price_out_per_mtok, "
	    "e.options, e.status, e.created_at, e.updated_at FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.id = ?", "i", id);
	cJSON *o, *creds, *opt;

	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown endpoint id %lld", (long long)id);
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
	cJSON_AddStringToObject(o, "vendor", col_text(st, 1));
	cJSON_AddStringToObject(o, "name", col_text(st, 2));
	json_add_endpoint_ref(o, "ref", st, 1, 2);
	cJSON_AddStringToObject(o, "api", col_text(st, 3));
	cJSON_AddStringToObject(o, "url", col_text(st, 4));
	cJSON_AddStringToObject(o, "model", col_text(st, 5));
	cJSON_AddNumberToObject(o, "context_tokens", (double)db_col_int64(st, 6));
	cJSON_AddBoolToObject(o, "allow_insecure_http", db_col_int(st, 7));
	add_real_or_null(o, "price_in_per_mtok", st, 8);
	add_real_or_null(o, "price_out_per_mtok", st, 9);
	opt = db_col_type(st, 10) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 10));
	cJSON_AddItemToObject(o, "options", opt ? opt : cJSON_CreateObject());
	cJSON_AddStringToObject(o, "status", col_text(st, 11));
	cJSON_AddStringToObject(o, "created_at", col_text(st, 12));
	cJSON_AddStringToObject(o, "updated_at", col_text(st, 13));
	db_finalize(st);

	creds = cJSON_AddArrayToObject(o, "credentials");
	st = db_prepare(db, err, "SELECT label, ref, org FROM credential WHERE endpoint_id = ? "
	    "ORDER BY label", "i", id);
	if (st == NULL) {
		cJSON_Delete(o);
		return AV_RUNTIME;
	}
	while (db_step(st) == DB_ROW) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "label", col_text(st, 0));
		cJSON_AddStringToObject(c, "ref", col_text(st, 1));
		if (db_col_type(st, 2) == DB_NULL)
			cJSON_AddNullToObject(c, "org");
		else
			cJSON_AddStringToObject(c, "org", col_text(st, 2));
		cJSON_AddItemToArray(creds, c);
	}
	db_finalize(st);
	*out = o;
	return 0;
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
vendor_list_json(struct db *db, int all, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, VENDOR_SELECT " WHERE ? OR v.status = 'active' "
	    "ORDER BY v.name", "i", (int64_t)all);

	if (st == NULL)
		return err->code;
	*out = cJSON_CreateArray();
	while (db_step(st) == DB_ROW)
		cJSON_AddItemToArray(*out, vendor_row_json(st));
	db_finalize(st);
	return 0;
}

int
endpoint_list_json(struct db *db, int64_t vendor_id, int all, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT e.id FROM endpoint e JOIN vendor v ON "
	    "v.id = e.vendor_id WHERE (? = 0 OR e.vendor_id = ?) AND (? OR e.status = 'active') "
	    "ORDER BY v.name, e.name", "iii", vendor_id, vendor_id, (int64_t)all);

	if (st == NULL)
		return err->code;
	*out = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *e;

		if (endpoint_json(db, db_col_int64(st, 0), &e, err) != 0) {
			db_finalize(st);
			cJSON_Delete(*out);
			*out = NULL;
			return err->code;
		}
		cJSON_AddItemToArray(*out, e);
	}
	db_finalize(st);
	return 0;
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
