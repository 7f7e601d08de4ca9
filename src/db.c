/*
 * db.c: the query layer every command uses (db.h): opening the database a
 * spec names, applying the embedded migrations, binding "?" parameters from a
 * format, stepping rows and reading columns. Each call goes to the backend the
 * database runs on: db-sqlite.c for an SQLite file, db-pg.c for a PostgreSQL
 * server.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "db-impl.h"

#define IS_PG(db) ((db)->kind == DB_KIND_PG)

enum db_kind
db_kind(const struct db *db)
{
	return db->kind;
}

const char *
db_errmsg(struct db *db)
{
	return lite_errmsg(db);
}

int
db_err(struct db *db, struct aerr *err, const char *what)
{
	return aerr_set(err, AV_RUNTIME, "database: %s: %s", what, db_errmsg(db));
}

int
db_prepare_raw(struct db *db, const char *sql, struct db_stmt **out)
{
	return lite_prepare(db, sql, out);
}

int
db_script(struct db *db, const char *sql, char **msg)
{
	return lite_script(db, sql, msg);
}

int db_step(struct db_stmt *st) { return lite_step(st); }
void db_reset(struct db_stmt *st) { lite_reset(st); }
int db_col_count(struct db_stmt *st) { return lite_col_count(st); }
const char *db_col_name(struct db_stmt *st, int i) { return lite_col_name(st, i); }
int db_col_type(struct db_stmt *st, int i) { return lite_col_type(st, i); }
int64_t db_col_int64(struct db_stmt *st, int i) { return lite_col_int64(st, i); }
int db_col_int(struct db_stmt *st, int i) { return (int)db_col_int64(st, i); }
double db_col_double(struct db_stmt *st, int i) { return lite_col_double(st, i); }
const char *db_col_text(struct db_stmt *st, int i) { return lite_col_text(st, i); }
const void *db_col_blob(struct db_stmt *st, int i) { return lite_col_blob(st, i); }
int db_col_bytes(struct db_stmt *st, int i) { return lite_col_bytes(st, i); }
int64_t db_insert_id(struct db *db) { return lite_insert_id(db); }
int db_changes(struct db *db) { return lite_changes(db); }
int db_autocommit(struct db *db) { return lite_autocommit(db); }

int
db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	return lite_bind(st, i, 'i', v, 0, NULL, 0);
}

void
db_finalize(struct db_stmt *st)
{
	if (st != NULL)
		lite_finalize(st);
}

const char *
col_text(struct db_stmt *st, int i)
{
	const char *s = db_col_text(st, i);

	return s ? s : "";
}

static int
param_count(struct db_stmt *st)
{
	return lite_param_count(st);
}

static const char *
stmt_sql(struct db_stmt *st)
{
	return lite_sql(st);
}

static int
bind_one(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n)
{
	return lite_bind(st, i, type, iv, dv, p, n);
}

static int
bind_args(struct db *db, struct db_stmt *st, const char *fmt, va_list ap, struct aerr *err)
{
	int rc = DB_OK, i = 1;

	/* A format that does not match the statement is a programming error. */
	if ((size_t)param_count(st) != strlen(fmt ? fmt : ""))
		die("db: %d parameters but format \"%s\" in: %s", param_count(st), fmt ? fmt : "",
		    stmt_sql(st));
	for (const char *f = fmt ? fmt : ""; *f; f++, i++) {
		switch (*f) {
		case 'i':
			rc = bind_one(st, i, 'i', va_arg(ap, int64_t), 0, NULL, 0);
			break;
		case 't': {
			const char *s = va_arg(ap, const char *);

			rc = bind_one(st, i, s ? 't' : 'n', 0, 0, s, 0);
			break;
		}
		case 'd':
			rc = bind_one(st, i, 'd', 0, va_arg(ap, double), NULL, 0);
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);
			size_t n = va_arg(ap, size_t);

			rc = bind_one(st, i, 'b', 0, 0, p, n);
			break;
		}
		case 'n':
			rc = bind_one(st, i, 'n', 0, 0, NULL, 0);
			break;
		default:
			die("db: bad bind format '%c'", *f);
		}
		if (rc != DB_OK)
			return db_err(db, err, "bind");
	}
	return 0;
}

static struct db_stmt *
prepare_v(struct db *db, struct aerr *err, const char *sql, const char *fmt, va_list ap)
{
	struct db_stmt *st = NULL;

	if (db_prepare_raw(db, sql, &st) != DB_OK) {
		db_err(db, err, "prepare");
		return NULL;
	}
	if (bind_args(db, st, fmt, ap, err) != 0) {
		db_finalize(st);
		return NULL;
	}
	return st;
}

struct db_stmt *
db_prepare(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

int
db_exec(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW)
		;
	if (rc != DB_DONE) {
		db_err(db, err, "write");
		db_finalize(st);
		return AV_RUNTIME;
	}
	db_finalize(st);
	return 0;
}

int
db_int(struct db *db, int64_t *out, struct aerr *err, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	if (st == NULL)
		return -1;
	rc = db_step(st);
	if (rc == DB_ROW) {
		*out = db_col_int64(st, 0);
		db_finalize(st);
		return 0;
	}
	if (rc == DB_DONE) {
		db_finalize(st);
		return 1;
	}
	db_err(db, err, "query");
	db_finalize(st);
	return -1;
}

int
db_begin(struct db *db, struct aerr *err)
{
	if (db_script(db, "BEGIN IMMEDIATE", NULL) != DB_OK)
		return db_err(db, err, "begin");
	return 0;
}

int
db_commit(struct db *db, struct aerr *err)
{
	if (db_script(db, "COMMIT", NULL) != DB_OK) {
		db_err(db, err, "commit");
		db_rollback(db);
		return AV_RUNTIME;
	}
	return 0;
}

void
db_rollback(struct db *db)
{
	if (!db_autocommit(db))
		db_script(db, "ROLLBACK", NULL);
}

int
db_schema_version(void)
{
	int n = 0;

	while (embedded_migrations[n].name != NULL)
		n++;
	return n;
}

static int
migration_number(const char *name)
{
	return atoi(name);
}

int
db_user_version(struct db *db, int64_t *out, struct aerr *err)
{
	*out = 0;
	return db_int(db, out, err, "PRAGMA user_version", NULL) < 0 ? AV_RUNTIME : 0;
}

int
db_migrate(struct db *db, struct aerr *err)
{
	int64_t have = 0;
	int want = db_schema_version();

	if (db_user_version(db, &have, err) != 0)
		return AV_RUNTIME;
	for (int i = (int)have; i < want; i++) {
		const struct embedded_file *m = &embedded_migrations[i];
		char *sql = xmalloc(m->len + 1), *pragma;
		char *msg = NULL;

		if (migration_number(m->name) != i + 1)
			die("migration %s is out of sequence (expected %03d)", m->name, i + 1);
		memcpy(sql, m->data, m->len);
		sql[m->len] = '\0';
		/* One migration, one transaction, version bump included: never half-applied. */
		if (db_begin(db, err) != 0) {
			free(sql);
			return AV_RUNTIME;
		}
		pragma = xasprintf("PRAGMA user_version = %d", i + 1);
		if (db_script(db, sql, &msg) != DB_OK || db_script(db, pragma, &msg) != DB_OK) {
			aerr_set(err, AV_RUNTIME, "migration %s failed: %s", m->name, msg ? msg : "?");
			free(msg);
			db_rollback(db);
			free(sql);
			free(pragma);
			return AV_RUNTIME;
		}
		free(sql);
		free(pragma);
		if (db_commit(db, err) != 0)
			return AV_RUNTIME;
	}
	return 0;
}

static int
check_version(struct db *db, const char *path, struct aerr *err)
{
	int64_t have = 0, tables = 0;

	if (db_user_version(db, &have, err) != 0)
		return aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, db_errmsg(db));
	if (have > db_schema_version())
		return aerr_set(err, AV_RUNTIME, "database %s has schema version %lld, newer than "
		    "this aivet understands (%d): upgrade aivet; the database was left untouched",
		    path, (long long)have, db_schema_version());
	if (have == 0) {
		if (db_int(db, &tables, err, "SELECT count(*) FROM sqlite_master", NULL) < 0)
			return AV_RUNTIME;
		if (tables > 0)
			return aerr_set(err, AV_USAGE, "%s is an SQLite database but not aivet's: "
			    "it was left untouched", path);
	}
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

void
db_close(struct db *db)
{
	if (db != NULL)
		lite_close(db);
}

int
db_open(const char *spec, struct db **out, struct aerr *err)
{
	struct db *db = NULL;
	const char *path = strncmp(spec, "sqlite:", 7) == 0 ? spec + 7 : spec;

	*out = NULL;
	if (lite_open(path, &db, err) != 0)
		return err->code;
	/* Check before anything writes: a newer or foreign database stays untouched. */
	if (check_version(db, path, err) != 0) {
		db_close(db);
		return err->code;
	}
	if (db_script(db, "PRAGMA journal_mode = WAL", NULL) != DB_OK ||
	    db_script(db, "PRAGMA synchronous = FULL", NULL) != DB_OK) {
		aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, db_errmsg(db));
		db_close(db);
		return AV_RUNTIME;
	}
	if (db_migrate(db, err) != 0) {
		db_close(db);
		return err->code;
	}
	*out = db;
	return 0;
}

struct db *
av_db(struct aivet *av, struct aerr *err)
{
	if (av->db == NULL) {
		if (db_open(av->db_path, &av->db, err) != 0)
			return NULL;
		if (av->on_open != NULL)
			av->on_open(av);
	}
	return av->db;
}

void
av_close(struct aivet *av)
{
	if (av->db != NULL) {
		db_close(av->db);
		av->db = NULL;
	}
}
