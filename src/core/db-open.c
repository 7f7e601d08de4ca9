/*
 * db-open.c: opening the database a spec names and bringing it to this
 * aivet's schema. The spec picks the backend (an SQLite file, or a
 * postgresql:// URL); the embedded migrations (db/ for SQLite, db/pg/ for
 * PostgreSQL) are applied in order, each in its own transaction with its
 * version bump, after a check that leaves a newer or foreign database
 * untouched; on PostgreSQL each migration also refills the tables aivet keeps
 * from its own lists (the severities, the seals' parts). db-schema.c applies
 * the same migrations to an in-memory database to know SQLite's schema.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/core.h"
#include "db-impl.h"
#include "severity.h"
#include "seal-parts.h"

static const struct embedded_file *
migrations(const struct db *db)
{
	return db != NULL ? db->ops->migrations : embedded_migrations;
}

static int
count_migrations(const struct embedded_file *m)
{
	int n = 0;

	while (m[n].name != NULL)
		n++;
	return n;
}

int
db_schema_version(void)
{
	return count_migrations(embedded_migrations);
}

static int
migration_number(const char *name)
{
	return atoi(name);
}

/* SQLite keeps the version in the file header (user_version); PostgreSQL in
 * aivet_schema, a one-row table the first migration creates. */
int
db_user_version(struct db *db, int64_t *out, struct aerr *err)
{
	int64_t exists = 1;

	*out = 0;
	if (db->ops->version_exists_sql != NULL && db_int(db, &exists, err, db->ops->version_exists_sql,
	    NULL) < 0)
		return AV_RUNTIME;
	if (exists && db_int(db, out, err, db->ops->version_sql, NULL) < 0)
		return AV_RUNTIME;
	return 0;
}

/* PostgreSQL's severity_rank() reads the table aivet_severity
 * (db/pg/010-severity.sql), which holds the order of severity.h: each
 * migration aivet applies refills it in its own transaction, so the server
 * sorts findings as the C code does. (SQLite's is a function db-sqlite.c
 * registers.) A change to the order therefore comes with a migration. */
/* Empties a table of PostgreSQL's that aivet fills from its own lists at each
 * migration: 1 when there is one to fill, 0 when this store or this schema
 * version has none, -1 on an error. */
static int
pg_refill(struct db *db, const char *table, struct aerr *err)
{
	int64_t exists = 0;
	char *del;
	int rc;

	if (db->ops->server_table_sql == NULL)
		return 0;
	if (db_int(db, &exists, err, db->ops->server_table_sql, "t", table) < 0)
		return -1;
	if (!exists)
		return 0;
	del = xasprintf("DELETE FROM %s", table);
	rc = db_exec(db, err, del, NULL);
	free(del);
	return rc != 0 ? -1 : 1;
}

static int
severity_fill(struct db *db, struct aerr *err)
{
#define SEV_NAME(id, name) name,
	static const char *const names[] = { SEVERITIES(SEV_NAME) };
#undef SEV_NAME
	int rc = pg_refill(db, "aivet_severity", err);

	if (rc <= 0)
		return rc < 0 ? err->code : 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (db_exec(db, err, "INSERT INTO aivet_severity (rank, name) VALUES (?, ?)", "it", (int64_t)i,
		    names[i]) != 0)
			return err->code;
	return 0;
}

/* PostgreSQL seals rows by the parts in the table aivet_seal_part
 * (db/pg/012-server-seals.sql), which each migration aivet applies refills
 * from seal-parts.h, as severity_fill does the severities. The parts go in
 * with one statement: from 019 on, each statement that writes the table
 * rewrites aivet_seal_rows(), the function the server seals rows with. */
static int
seal_parts_fill(struct db *db, struct aerr *err)
{
	cJSON *parts;
	char *json;
	int rc = pg_refill(db, "aivet_seal_part", err);

	if (rc <= 0)
		return rc < 0 ? err->code : 0;
	parts = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof seal_parts / sizeof seal_parts[0]; i++) {
		const struct seal_part *p = &seal_parts[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "ord", (double)i);
		json_add_str(o, "object_type", p->type);
		json_add_str(o, "tbl", p->table);
		json_add_str(o, "cols", p->cols);
		json_add_str(o, "key", p->key);
		json_add_str(o, "order_by", p->order);
		json_add_str(o, "cond", p->cond);
		cJSON_AddNumberToObject(o, "late", p->late);
		cJSON_AddItemToArray(parts, o);
	}
	json = cJSON_PrintUnformatted(parts);
	cJSON_Delete(parts);
	if (json == NULL)
		die("out of memory");
	rc = db_exec(db, err, "INSERT INTO aivet_seal_part (ord, object_type, tbl, cols, key, order_by, cond, late) "
	    "SELECT ord, object_type, tbl, cols, key, order_by, cond, late "
	    "FROM json_populate_recordset(NULL::aivet_seal_part, ?::json)", "t", json);
	free(json);
	return rc != 0 ? err->code : 0;
}

static int
apply_migration(struct db *db, const struct embedded_file *m, int version, struct aerr *err)
{
	char *sql = xmalloc(m->len + 1), *bump, *msg = NULL;
	int64_t have = 0;
	int rc = 0;

	memcpy(sql, m->data, m->len);
	sql[m->len] = '\0';
	bump = xasprintf("%s%d", db->ops->version_set, version);
	/* One migration, one transaction, version bump included: never half-applied.
	 * Another process may have applied it while this one waited for the lock. */
	if (db_begin(db, err) != 0 || db_user_version(db, &have, err) != 0) {
		db_rollback(db);
		rc = AV_RUNTIME;
	} else if (have >= version) {
		db_rollback(db);
	} else if (db_script(db, sql, &msg) != DB_OK || db_script(db, bump, &msg) != DB_OK) {
		rc = aerr_set(err, AV_RUNTIME, "migration %s failed: %s", m->name, msg ? msg : "?");
		free(msg);
		db_rollback(db);
	} else if (severity_fill(db, err) != 0 || seal_parts_fill(db, err) != 0) {
		char why[sizeof err->msg];

		snprintf(why, sizeof why, "%s", err->msg);
		rc = aerr_set(err, AV_RUNTIME, "migration %s failed: %s", m->name, why);
		db_rollback(db);
	} else {
		rc = db_commit(db, err);
	}
	free(sql);
	free(bump);
	return rc;
}

/* Applies the migrations after version have, as read just before. */
static int
migrate_from(struct db *db, int64_t have, struct aerr *err)
{
	const struct embedded_file *all = migrations(db);
	int want = count_migrations(all);

	/* The version is the count applied; the files' numbers only rise (work
	 * done side by side takes numbers apart and is renumbered when merged). */
	for (int i = (int)have; i < want; i++) {
		if (i > 0 && migration_number(all[i].name) <= migration_number(all[i - 1].name))
			die("migration %s is out of sequence (after %s)", all[i].name, all[i - 1].name);
		if (apply_migration(db, &all[i], i + 1, err) != 0)
			return AV_RUNTIME;
	}
	return 0;
}

int
db_migrate(struct db *db, struct aerr *err)
{
	int64_t have = 0;

	if (db_user_version(db, &have, err) != 0)
		return AV_RUNTIME;
	return migrate_from(db, have, err);
}

/* The schema version in *have, checked before anything writes: a newer or
 * foreign database stays untouched. Opening then migrates from it (each
 * migration reads the version again inside its transaction), so that the
 * version is read once: two round trips on a server, for every command. */
/* The version as opening reads it, outside any transaction: one statement,
 * where a missing version table (a database aivet has not made) is version
 * 0. Inside a migration's transaction, which an error would end,
 * db_user_version asks whether the table exists first. */
static int
opening_version(struct db *db, int64_t *out, struct aerr *err)
{
	*out = 0;
	if (db->ops->version_missing == NULL)
		return db_user_version(db, out, err);
	if (db_int(db, out, err, db->ops->version_sql, NULL) >= 0)
		return 0;
	if (strcmp(db_sqlstate(db), db->ops->version_missing) != 0)
		return AV_RUNTIME;
	*out = 0;
	aerr_clear(err);
	return 0;
}

static int
check_version(struct db *db, const char *path, int64_t *have_out, struct aerr *err)
{
	int64_t have = 0, tables = 0;
	int want = count_migrations(migrations(db));

	*have_out = 0;
	if (opening_version(db, &have, err) != 0) {
		/* A login the server lets in but that holds none of aivet's roles. */
		if (strcmp(db_sqlstate(db), "42501") == 0)
			return aerr_set(err, AV_USAGE, "reading needs the aivet_auditor role (cannot open "
			    "database %s: %s)", path, db_errmsg(db));
		return aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, db_errmsg(db));
	}
	if (have > want)
		return aerr_set(err, AV_RUNTIME, "database %s has schema version %lld, newer than "
		    "this aivet understands (%d): upgrade aivet; the database was left untouched",
		    path, (long long)have, want);
	if (have == 0) {
		char *count = xasprintf("SELECT count(*) FROM (%s) AS t", db->ops->tables_sql);
		int rc = db_int(db, &tables, err, count, NULL);

		free(count);
		if (rc < 0)
			return AV_RUNTIME;
		if (tables > 0)
			return aerr_set(err, AV_USAGE, "%s is %s database but not aivet's: "
			    "it was left untouched", path, db->ops->described);
	}
	*have_out = have;
	return 0;
}

int
db_spec_is_pg(const char *spec)
{
	return strncmp(spec, "postgresql://", 13) == 0 || strncmp(spec, "postgres://", 11) == 0;
}

int
db_open_raw(const char *path, struct db **out)
{
	return lite_open_raw(path, out);
}

static char *
shown_spec(const char *spec)
{
	const char *at = strchr(spec, '@'), *scheme = strstr(spec, "://");
	const char *colon = scheme ? strchr(scheme + 3, ':') : NULL;

	if (at != NULL && colon != NULL && colon < at)
		return xasprintf("%.*s:***%s", (int)(colon - spec), spec, at);
	return xstrdup(spec);
}

static int
open_pg(const char *spec, struct db **out, struct aerr *err)
{
	struct db *db = NULL;
	char *shown = shown_spec(spec);
	int64_t have;
	int rc;

	if (pgb_open(spec, &db, err) != 0) {
		free(shown);
		return err->code;
	}
	rc = check_version(db, shown, &have, err);
	if (rc == 0)
		rc = migrate_from(db, have, err);
	free(shown);
	if (rc != 0) {
		db_close(db);
		return err->code;
	}
	*out = db;
	return 0;
}

int
db_open(const char *spec, struct db **out, struct aerr *err)
{
	struct db *db = NULL;
	const char *path = strncmp(spec, "sqlite:", 7) == 0 ? spec + 7 : spec;
	int64_t have;

	*out = NULL;
	if (db_spec_is_pg(spec))
		return open_pg(spec, out, err);
	if (lite_open(path, &db, err) != 0)
		return err->code;
	if (check_version(db, path, &have, err) != 0) {
		db_close(db);
		return err->code;
	}
	if (db_script(db, "PRAGMA journal_mode = WAL", NULL) != DB_OK ||
	    db_script(db, "PRAGMA synchronous = FULL", NULL) != DB_OK) {
		aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, db_errmsg(db));
		db_close(db);
		return AV_RUNTIME;
	}
	if (migrate_from(db, have, err) != 0) {
		db_close(db);
		return err->code;
	}
	*out = db;
	return 0;
}
