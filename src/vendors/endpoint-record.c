/*
 * endpoint-record.c: the one record of an endpoint (struct endpoint,
 * provider.h) and its one loader. The probes, the commands, the screens and
 * the report all read an endpoint through endpoint_get or endpoint_list_load,
 * which read a row with endpoint_row, the credentials with
 * credential_list_load (credref.c) and the engine with engine_conf_load: a
 * column added is added here once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provider.h"

void
endpoint_free(struct endpoint *e)
{
	free(e->vendor);
	free(e->name);
	free(e->ref);
	free(e->api);
	free(e->url);
	free(e->model);
	cJSON_Delete(e->options);
	free(e->status);
	free(e->created_at);
	free(e->updated_at);
	credential_list_free(e->credentials, e->ncredentials);
	engine_conf_free(&e->engine);
	memset(e, 0, sizeof *e);
}

void
endpoint_list_free(struct endpoint_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		endpoint_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* The endpoint columns endpoint_row reads, in order. */
#define ENDPOINT_SELECT "SELECT e.id, v.name, e.name, e.api, e.url, e.model, " \
	"e.context_tokens, e.allow_insecure_http, e.price_in_per_mtok, e.price_out_per_mtok, " \
	"e.options, e.status, e.created_at, e.updated_at FROM endpoint e " \
	"JOIN vendor v ON v.id = e.vendor_id"

static void
endpoint_row(struct db_stmt *st, struct endpoint *e)
{
	*e = (struct endpoint){
		.id = db_col_int64(st, 0), .vendor = xstrdup(col_text(st, 1)),
		.name = xstrdup(col_text(st, 2)),
		.ref = xasprintf("%s/%s", col_text(st, 1), col_text(st, 2)),
		.api = xstrdup(col_text(st, 3)), .url = xstrdup(col_text(st, 4)),
		.model = xstrdup(col_text(st, 5)), .context_tokens = db_col_int64(st, 6),
		.allow_insecure_http = db_col_int(st, 7) != 0,
		.has_price_in = db_col_type(st, 8) != DB_NULL, .price_in_per_mtok = db_col_double(st, 8),
		.has_price_out = db_col_type(st, 9) != DB_NULL, .price_out_per_mtok = db_col_double(st, 9),
		.options = db_col_type(st, 10) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 10)),
		.status = xstrdup(col_text(st, 11)),
		.created_at = xstrdup(col_text(st, 12)), .updated_at = xstrdup(col_text(st, 13)),
	};
}

/* What an endpoint's row does not hold: its credentials and its engine. */
static int
endpoint_parts(struct db *db, struct endpoint *e, struct aerr *err)
{
	if (credential_list_load(db, e->id, &e->credentials, &e->ncredentials, err) != 0)
		return err->code;
	return engine_conf_load(db, e->id, &e->engine, err) != 0 ? err->code : 0;
}

int
endpoint_get(struct db *db, int64_t id, struct endpoint *out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, ENDPOINT_SELECT " WHERE e.id = ?", "i", id);

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown endpoint id %lld", (long long)id);
	}
	endpoint_row(st, out);
	db_finalize(st);
	if (endpoint_parts(db, out, err) != 0) {
		endpoint_free(out);
		return err->code;
	}
	return 0;
}

int
endpoint_get_active(struct db *db, int64_t id, struct endpoint *out, struct aerr *err)
{
	if (endpoint_get(db, id, out, err) != 0)
		return err->code;
	if (strcmp(out->status, "active") != 0) {
		aerr_set(err, AV_USAGE, "endpoint '%s' is archived", out->ref);
		endpoint_free(out);
		return AV_USAGE;
	}
	return 0;
}

int
endpoint_list_load(struct db *db, int64_t vendor_id, int all, struct endpoint_list *out,
    struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, ENDPOINT_SELECT " WHERE (? = 0 OR e.vendor_id = ?) "
	    "AND (? OR e.status = 'active') ORDER BY v.name, e.name", "iii", vendor_id, vendor_id,
	    (int64_t)all);
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		if (out->n == cap) {
			cap = cap ? cap * 2 : 8;
			out->items = xrealloc(out->items, cap * sizeof *out->items);
		}
		endpoint_row(st, &out->items[out->n++]);
	}
	db_finalize(st);
	/* A list cut short by an error is no list: never fewer endpoints, said as all. */
	if (rc != DB_DONE) {
		endpoint_list_free(out);
		return db_err(db, err, "endpoint list");
	}
	for (size_t i = 0; i < out->n; i++)
		if (endpoint_parts(db, &out->items[i], err) != 0) {
			endpoint_list_free(out);
			return err->code;
		}
	return 0;
}

const char *
endpoint_option(const struct endpoint *ep, const char *key, const char *def)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(ep->options, key);

	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : def;
}
