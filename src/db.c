/*
 * db.c: opening aivet's SQLite database, applying the embedded migrations,
 * and the small statement helpers every command uses. A TUI and a CLI may
 * share one file, so the database runs in WAL mode with a busy timeout and
 * writers take the lock up front (BEGIN IMMEDIATE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aivet.h"
#include "finding.h"

#define BUSY_TIMEOUT_MS 30000

int
db_err(sqlite3 *db, struct aerr *err, const char *what)
{
	return aerr_set(err, AV_RUNTIME, "database: %s: %s", what, sqlite3_errmsg(db));
}

static int
bind_args(sqlite3 *db, sqlite3_stmt *st, const char *fmt, va_list ap, struct aerr *err)
{
	int rc = SQLITE_OK, i = 1;

	/* A format that does not match the statement is a programming error. */
	if ((size_t)sqlite3_bind_parameter_count(st) != strlen(fmt ? fmt : ""))
		die("db: %d parameters but format \"%s\" in: %s", sqlite3_bind_parameter_count(st),
		    fmt ? fmt : "", sqlite3_sql(st));
	for (const char *f = fmt ? fmt : ""; *f; f++, i++) {
		switch (*f) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 't': {
			const char *s = va_arg(ap, const char *);

			rc = s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
			break;
		}
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);
			size_t n = va_arg(ap, size_t);

			rc = sqlite3_bind_blob64(st, i, p ? p : "", n, SQLITE_TRANSIENT);
			break;
		}
		case 'n':
			rc = sqlite3_bind_null(st, i);
			break;
		default:
			die("db: bad bind format '%c'", *f);
		}
		if (rc != SQLITE_OK)
			return db_err(db, err, "bind");
	}
	return 0;
}

static sqlite3_stmt *
prepare_v(sqlite3 *db, struct aerr *err, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_err(db, err, "prepare");
		return NULL;
	}
	if (bind_args(db, st, fmt, ap, err) != 0) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

sqlite3_stmt *
db_prepare(sqlite3 *db, struct aerr *err, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

int
db_exec(sqlite3 *db, struct aerr *err, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(db, err, "write");
	return 0;
}

int
db_int(sqlite3 *db, int64_t *out, struct aerr *err, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	db_err(db, err, "query");
	return -1;
}

const char *
col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

int
db_begin(sqlite3 *db, struct aerr *err)
{
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_err(db, err, "begin");
	return 0;
}

int
db_commit(sqlite3 *db, struct aerr *err)
{
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_err(db, err, "commit");
		db_rollback(db);
		return AV_RUNTIME;
	}
	return 0;
}

void
db_rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
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
db_migrate(sqlite3 *db, struct aerr *err)
{
	int64_t have = 0;
	int want = db_schema_version();

	if (db_int(db, &have, err, "PRAGMA user_version", NULL) < 0)
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
		if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, pragma, NULL, NULL, &msg) != SQLITE_OK) {
			aerr_set(err, AV_RUNTIME, "migration %s failed: %s", m->name, msg ? msg : "?");
			sqlite3_free(msg);
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
check_version(sqlite3 *db, const char *path, struct aerr *err)
{
	int64_t have = 0, tables = 0;

	if (db_int(db, &have, err, "PRAGMA user_version", NULL) < 0)
		return aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, sqlite3_errmsg(db));
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

/* severity_rank(TEXT) in SQL: the registry's order (finding.h), -1 for an unknown name,
 * so that queries sort findings the way the C code does. */
static void
sql_severity_rank(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_int(ctx, severity_rank((const char *)sqlite3_value_text(argv[0])));
}

int
db_open(const char *path, sqlite3 **out, struct aerr *err)
{
	sqlite3 *db = NULL;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat sb;
	int existed = stat(path, &sb) == 0;

	*out = NULL;
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_p(dir, 0700, err) != 0) {
			free(dir);
			return AV_RUNTIME;
		}
	}
	free(dir);
	if (!existed) {
		/* Create the file 0600 ourselves so the umask cannot widen it. */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0 && errno != EEXIST)
			return aerr_set(err, AV_RUNTIME, "cannot create database %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path,
		    db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return AV_RUNTIME;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	sqlite3_create_function(db, "severity_rank", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    sql_severity_rank, NULL, NULL);
	if (sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
		aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return AV_RUNTIME;
	}
	/* Check before anything writes: a newer or foreign database stays untouched. */
	if (check_version(db, path, err) != 0) {
		sqlite3_close(db);
		return err->code;
	}
	if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL) != SQLITE_OK) {
		aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return AV_RUNTIME;
	}
	if (db_migrate(db, err) != 0) {
		sqlite3_close(db);
		return err->code;
	}
	*out = db;
	return 0;
}

sqlite3 *
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
		sqlite3_close_v2(av->db);
		av->db = NULL;
	}
}
