/*
 * db-sqlite.c: the query layer on an SQLite file, aivet's embedded default.
 * A TUI and a CLI may share one file, so the database runs in WAL mode with a
 * busy timeout, and writers take the lock up front (BEGIN IMMEDIATE, in db.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db-impl.h"
#include "severity.h"

#define BUSY_TIMEOUT_MS 30000

#define LITE(db) ((sqlite3 *)(db)->h)
static const struct db_ops lite_ops;
#define STMT(st) ((sqlite3_stmt *)(st)->h)

/* aivet_writing() in SQL: true on aivet's own connections only. */
static void
sql_aivet_writing(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_int(ctx, 1);
}

/* severity_rank(TEXT) in SQL: the scale's order (severity.h), -1 for an unknown name,
 * so that queries sort findings the way the C code does. */
static void
sql_severity_rank(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int(ctx, severity_rank((const char *)sqlite3_value_text(argv[0])));
}

/* convert_from(BLOB, 'UTF8') in SQL, PostgreSQL's name for stored bytes read
 * as text (a JSON blob given to json_extract): SQLite gives the bytes as they
 * are, where a CAST to TEXT of PostgreSQL's bytea would give its escaped form.
 * The one encoding aivet stores is UTF-8. */
static void
sql_convert_from(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *enc = (const char *)sqlite3_value_text(argv[1]), *p;

	(void)argc;
	if (enc == NULL || strcasecmp(enc, "UTF8") != 0) {
		sqlite3_result_error(ctx, "convert_from: only UTF8", -1);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	p = sqlite3_value_blob(argv[0]);
	sqlite3_result_text(ctx, p != NULL ? p : "", sqlite3_value_bytes(argv[0]), SQLITE_TRANSIENT);
}

/* Connections this process holds open. SQLite's locks are POSIX locks, which
 * a process drops on a file as soon as it closes any descriptor of that file:
 * reading a database's header or -shm with open()/close() while a connection
 * is open would leave that connection unlocked, and another process could then
 * checkpoint and unlink the -wal it is still writing. Counted atomically: the
 * TUI's jobs and the probe workers open connections from threads of their own. */
static int lite_connections;

static struct db *
wrap(sqlite3 *h)
{
	struct db *db = xcalloc(1, sizeof *db);

	__atomic_add_fetch(&lite_connections, 1, __ATOMIC_SEQ_CST);

	db->ops = &lite_ops;
	db->h = h;
	return db;
}

int
lite_open_raw(const char *path, struct db **out)
{
	sqlite3 *h = NULL;
	int rc = sqlite3_open(path, &h);

	*out = wrap(h);
	return rc;
}

static int
fail_close(sqlite3 *h, const char *path, struct aerr *err)
{
	aerr_set(err, AV_RUNTIME, "cannot open database %s: %s", path, h ? sqlite3_errmsg(h) : "out of memory");
	sqlite3_close(h);
	return AV_RUNTIME;
}

/*
 * A database in WAL mode keeps its latest commits in PATH-wal until they are
 * copied back (a checkpoint); PATH-shm indexes that log. A file copied
 * without its -wal reads as it was before those commits, and SQLite would
 * silently start a new log. When the -shm copied with it says the log held
 * frames not yet copied back (mxFrame past nBackfill in the WAL index), the
 * database is named as incomplete instead of answering "unknown assessment".
 */
static int
wal_missing(const char *path, struct aerr *err)
{
	unsigned char head[20], shm[136];
	char *wal = xasprintf("%s-wal", path), *idx = xasprintf("%s-shm", path);
	uint32_t mx_frame, backfilled;
	struct stat sb;
	int fd, rc = 0;
	ssize_t got;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	got = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
	if (fd >= 0)
		close(fd);
	/* Bytes 18 and 19 of the header are 2 in WAL mode. */
	if (got != (ssize_t)sizeof head || head[18] != 2 || head[19] != 2 || stat(wal, &sb) == 0 ||
	    errno != ENOENT)
		goto out;
	fd = open(idx, O_RDONLY | O_CLOEXEC);
	got = fd >= 0 ? pread(fd, shm, sizeof shm, 0) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof shm)
		goto out;
	/* The WAL index is in the writer's byte order: mxFrame at 16, nBackfill at 96. */
	memcpy(&mx_frame, shm + 16, sizeof mx_frame);
	memcpy(&backfilled, shm + 96, sizeof backfilled);
	if (mx_frame > backfilled)
		rc = aerr_set(err, AV_RUNTIME, "database %s: its write-ahead log %s is missing (the file "
		    "was copied without it?): %u page%s of changes it held never reached the file; copy the "
		    "-wal file with it, or copy a database with 'sqlite3 DB .backup COPY'", path, wal,
		    (unsigned)(mx_frame - backfilled), mx_frame - backfilled == 1 ? "" : "s");
out:
	free(wal);
	free(idx);
	return rc;
}

/* Opens the file (created 0600 in a 0700 directory) with its connection settings;
 * the schema check and the migrations are db.c's. */
int
lite_open(const char *path, struct db **out, struct aerr *err)
{
	sqlite3 *h = NULL;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat sb;
	int existed = stat(path, &sb) == 0;

	*out = NULL;
	/* A FIFO or device would hang or feed SQLite nonsense: a database is a file. */
	if (existed && !S_ISREG(sb.st_mode)) {
		free(dir);
		return aerr_set(err, AV_USAGE, "database %s: not a regular file", path);
	}
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_p(dir, 0700, err) != 0) {
			free(dir);
			return AV_RUNTIME;
		}
	}
	free(dir);
	/* Only before this process holds a connection (lite_connections): the check
	 * reads the files with descriptors of its own. */
	if (existed && __atomic_load_n(&lite_connections, __ATOMIC_SEQ_CST) == 0 &&
	    wal_missing(path, err) != 0)
		return err->code;
	if (!existed) {
		/* Create the file 0600 ourselves so the umask cannot widen it. */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0 && errno != EEXIST)
			return aerr_set(err, AV_RUNTIME, "cannot create database %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		return fail_close(h, path, err);
	sqlite3_busy_timeout(h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(h, 1);
	sqlite3_create_function(h, "severity_rank", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    sql_severity_rank, NULL, NULL);
	/* Named by the triggers that let only aivet change incident facts (db/006): a
	 * connection without it (the sqlite3 shell) cannot prepare such an UPDATE. */
	sqlite3_create_function(h, "convert_from", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    sql_convert_from, NULL, NULL);
	sqlite3_create_function(h, "aivet_writing", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    sql_aivet_writing, NULL, NULL);
	if (sqlite3_exec(h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
		return fail_close(h, path, err);
	*out = wrap(h);
	return 0;
}

static void
lite_close(struct db *db)
{
	sqlite3_close_v2(LITE(db));
	__atomic_sub_fetch(&lite_connections, 1, __ATOMIC_SEQ_CST);
	free(db);
}

static const char *
lite_errmsg(struct db *db)
{
	return sqlite3_errmsg(LITE(db));
}

static int
lite_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	sqlite3_stmt *h = NULL;
	int rc = sqlite3_prepare_v2(LITE(db), sql, -1, &h, NULL);

	*out = NULL;
	if (rc != SQLITE_OK)
		return rc;
	*out = xcalloc(1, sizeof **out);
	(*out)->db = db;
	(*out)->h = h;
	return DB_OK;
}

static int
lite_script(struct db *db, const char *sql, char **msg)
{
	char *m = NULL;
	int rc = sqlite3_exec(LITE(db), sql, NULL, NULL, msg ? &m : NULL);

	if (msg != NULL)
		*msg = m ? xstrdup(m) : NULL;
	sqlite3_free(m);
	return rc;
}

static int
lite_param_count(struct db_stmt *st)
{
	return sqlite3_bind_parameter_count(STMT(st));
}

static const char *
lite_sql(struct db_stmt *st)
{
	return sqlite3_sql(STMT(st));
}

static int
lite_bind(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n)
{
	switch (type) {
	case 'i':
		return sqlite3_bind_int64(STMT(st), i, iv);
	case 'd':
		return sqlite3_bind_double(STMT(st), i, dv);
	case 't':
		return sqlite3_bind_text(STMT(st), i, p, -1, SQLITE_TRANSIENT);
	case 'b':
		return sqlite3_bind_blob64(STMT(st), i, p ? p : "", n, SQLITE_TRANSIENT);
	default:
		return sqlite3_bind_null(STMT(st), i);
	}
}

static int
lite_step(struct db_stmt *st)
{
	return sqlite3_step(STMT(st));
}

static void
lite_reset(struct db_stmt *st)
{
	sqlite3_reset(STMT(st));
}

static int
lite_col_count(struct db_stmt *st)
{
	return sqlite3_column_count(STMT(st));
}

static const char *
lite_col_name(struct db_stmt *st, int i)
{
	return sqlite3_column_name(STMT(st), i);
}

static int
lite_col_type(struct db_stmt *st, int i)
{
	return sqlite3_column_type(STMT(st), i);
}

static int64_t
lite_col_int64(struct db_stmt *st, int i)
{
	return sqlite3_column_int64(STMT(st), i);
}

static double
lite_col_double(struct db_stmt *st, int i)
{
	return sqlite3_column_double(STMT(st), i);
}

static const void *
lite_col_blob(struct db_stmt *st, int i)
{
	return sqlite3_column_blob(STMT(st), i);
}

static int
lite_col_bytes(struct db_stmt *st, int i)
{
	return sqlite3_column_bytes(STMT(st), i);
}

static int64_t
lite_insert_id(struct db *db)
{
	return sqlite3_last_insert_rowid(LITE(db));
}

static int
lite_changes(struct db *db)
{
	return sqlite3_changes(LITE(db));
}

static const char *
lite_sqlstate(struct db *db)
{
	(void)db;
	return "";
}

static int
lite_autocommit(struct db *db)
{
	return sqlite3_get_autocommit(LITE(db));
}

static const char *
lite_col_text(struct db_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(STMT(st), i);
}

static void
lite_finalize(struct db_stmt *st)
{
	sqlite3_finalize(STMT(st));
	free(st);
}

static const struct db_ops lite_ops = {
	.name = "sqlite",
	.described = "an SQLite",
	/* No logins, no server: the file's writer is the actor, aivet seals. */
	.features = 0,
	.migrations = embedded_migrations,
	.close = lite_close,
	.errmsg = lite_errmsg,
	.sqlstate = lite_sqlstate,
	.prepare = lite_prepare,
	.script = lite_script,
	.insert_id = lite_insert_id,
	.changes = lite_changes,
	.autocommit = lite_autocommit,
	/* The write lock up front, so the busy timeout applies before anything is read. */
	.begin_sql = "BEGIN IMMEDIATE",
	.keep_prepared = 1,
	/* The version in the file's header. */
	.version_sql = "PRAGMA user_version",
	.version_set = "PRAGMA user_version = ",
	.tables_sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' "
	    "ORDER BY name",
	.now_sql = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
	.now_ms_sql = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
	/* Verify reads the whole file: mapped, SQLite reads its pages without a read() each. */
	.read_all_sql = "PRAGMA mmap_size = 1073741824",
	.param_count = lite_param_count,
	.sql = lite_sql,
	.bind = lite_bind,
	.step = lite_step,
	.reset = lite_reset,
	.finalize = lite_finalize,
	.col_count = lite_col_count,
	.col_name = lite_col_name,
	.col_type = lite_col_type,
	.col_int64 = lite_col_int64,
	.col_double = lite_col_double,
	.col_text = lite_col_text,
	.col_blob = lite_col_blob,
	.col_bytes = lite_col_bytes,
};
