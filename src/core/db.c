/*
 * db.c: the query layer every command uses (db.h): binding "?" parameters
 * from a format, stepping rows and reading columns, transactions and writes.
 * Each call goes to the backend the database runs on: db-sqlite.c for an
 * SQLite file, db-pg.c for a PostgreSQL server; db-open.c opens it and
 * applies its migrations.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "aivet/core.h"
#include "db-impl.h"

#define OPS(st) ((st)->db->ops)

int
db_has(const struct db *db, enum db_feature f)
{
	return (db->ops->features & (unsigned)f) != 0;
}

const char *
db_backend_name(const struct db *db)
{
	return db->ops->name;
}

const char *
db_now_sql(const struct db *db)
{
	return db->ops->now_sql;
}

const char *
db_now_ms_sql(const struct db *db)
{
	return db->ops->now_ms_sql;
}

const char *
db_errmsg(struct db *db)
{
	return db->ops->errmsg(db);
}

const char *
db_sqlstate(struct db *db)
{
	return db->ops->sqlstate(db);
}

/* A PostgreSQL refusal for want of a privilege is the user's to fix (a role
 * to be granted), not trouble with the database: exit 2, naming the role that
 * grants it (db/pg/005-roles.sql). Reading needs aivet_auditor; writing, which
 * is done in a transaction, aivet_assessor. A refusal that names its role
 * already, or one of aivet's own rules (SQLSTATE AVR01, the triggers of
 * 005-roles.sql), is shown as the server worded it. */
int
db_err(struct db *db, struct aerr *err, const char *what)
{
	const char *state = db_sqlstate(db), *msg = db_errmsg(db);
	int reading = db_autocommit(db);

	if (strcmp(state, "AVR01") == 0 || (strcmp(state, "42501") == 0 && strstr(msg, "aivet_") != NULL))
		return aerr_set(err, AV_USAGE, "%s", msg);
	if (strcmp(state, "42501") == 0)
		return aerr_set(err, AV_USAGE, "%s needs the %s role (%s: %s)", reading ? "reading" : "writing",
		    reading ? "aivet_auditor" : "aivet_assessor", what, msg);
	return aerr_set(err, AV_RUNTIME, "database: %s: %s", what, msg);
}

int
db_prepare_raw(struct db *db, const char *sql, struct db_stmt **out)
{
	return db->ops->prepare(db, sql, out);
}

int
db_script(struct db *db, const char *sql, char **msg)
{
	return db->ops->script(db, sql, msg);
}

int
db_step(struct db_stmt *st)
{
	return OPS(st)->step(st);
}

void
db_reset(struct db_stmt *st)
{
	OPS(st)->reset(st);
}

int
db_col_count(struct db_stmt *st)
{
	return OPS(st)->col_count(st);
}

const char *
db_col_name(struct db_stmt *st, int i)
{
	return OPS(st)->col_name(st, i);
}

int
db_col_type(struct db_stmt *st, int i)
{
	return OPS(st)->col_type(st, i);
}

int64_t
db_col_int64(struct db_stmt *st, int i)
{
	return OPS(st)->col_int64(st, i);
}

int
db_col_int(struct db_stmt *st, int i)
{
	return (int)db_col_int64(st, i);
}

double
db_col_double(struct db_stmt *st, int i)
{
	return OPS(st)->col_double(st, i);
}

const char *
db_col_text(struct db_stmt *st, int i)
{
	return OPS(st)->col_text(st, i);
}

const void *
db_col_blob(struct db_stmt *st, int i)
{
	return OPS(st)->col_blob(st, i);
}

int
db_col_bytes(struct db_stmt *st, int i)
{
	return OPS(st)->col_bytes(st, i);
}


int
db_changes(struct db *db)
{
	return db->ops->changes(db);
}

int
db_autocommit(struct db *db)
{
	return db->ops->autocommit(db);
}

static int
bind_one(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n)
{
	return OPS(st)->bind(st, i, type, iv, dv, p, n);
}

int
db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	return bind_one(st, i, 'i', v, 0, NULL, 0);
}

int
db_bind(struct db_stmt *st, int i, int type, int64_t iv, double dv, const void *p, size_t n)
{
	switch (type) {
	case DB_INTEGER:
		return bind_one(st, i, 'i', iv, 0, NULL, 0);
	case DB_FLOAT:
		return bind_one(st, i, 'd', 0, dv, NULL, 0);
	case DB_TEXT:
		return bind_one(st, i, p ? 't' : 'n', 0, 0, p, 0);
	case DB_BLOB:
		return bind_one(st, i, 'b', 0, 0, p, n);
	default:
		return bind_one(st, i, 'n', 0, 0, NULL, 0);
	}
}

void
db_finalize(struct db_stmt *st)
{
	if (st == NULL)
		return;
	if (st->kept_sql != NULL) {
		db_reset(st);
		st->lent = 0;
		return;
	}
	OPS(st)->finalize(st);
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
	return OPS(st)->param_count(st);
}

static const char *
stmt_sql(struct db_stmt *st)
{
	return OPS(st)->sql(st);
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

struct db_stmt *
db_prepare_read(struct db *db, struct aerr *err, const struct db_read *r, const char *fmt, ...)
{
	const char *sql = r->pg != NULL && db->ops->reads_pg ? r->pg : r->sql;
	struct db_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = prepare_v(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

/* Parsing and planning a statement costs more than running it on a few rows:
 * a list that reads each row's details (clocks of 2,000 incidents) keeps its
 * statements rather than preparing each again per row. */
struct db_stmt *
db_prepare_kept(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st = NULL;
	va_list ap;

	for (size_t i = 0; i < db->nkept && db->ops->keep_prepared; i++)
		if (!db->kept[i]->lent && strcmp(db->kept[i]->kept_sql, sql) == 0) {
			st = db->kept[i];
			break;
		}
	if (st == NULL && db->ops->keep_prepared) {
		if (db_prepare_raw(db, sql, &st) != DB_OK) {
			db_err(db, err, "prepare");
			return NULL;
		}
		st->kept_sql = xstrdup(sql);
		db->kept = xrealloc(db->kept, (db->nkept + 1) * sizeof *db->kept);
		db->kept[db->nkept++] = st;
	} else if (st == NULL && db_prepare_raw(db, sql, &st) != DB_OK) {
		db_err(db, err, "prepare");
		return NULL;
	}
	st->lent = 1;
	va_start(ap, fmt);
	if (bind_args(db, st, fmt, ap, err) != 0) {
		va_end(ap);
		db_finalize(st);
		return NULL;
	}
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

/* The id comes back with the row where the backend can say it (PostgreSQL's
 * RETURNING: lastval() would give the id of whatever a trigger inserted last);
 * otherwise the connection gives the last row it inserted (SQLite's rowid,
 * which a trigger's own inserts leave as it was). */
int
db_insert(struct db *db, int64_t *id, struct aerr *err, const char *sql, const char *fmt, ...)
{
	const char *ret = db->ops->insert_returning;
	char *q = ret != NULL ? xasprintf("%s%s", sql, ret) : NULL;
	struct db_stmt *st;
	va_list ap;
	int rc;

	if (strncasecmp(sql, "INSERT INTO ", 12) != 0)
		die("db: db_insert needs a plain INSERT: %s", sql);
	*id = 0;
	va_start(ap, fmt);
	st = prepare_v(db, err, q != NULL ? q : sql, fmt, ap);
	va_end(ap);
	free(q);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW)
		*id = db_col_int64(st, 0);
	if (rc != DB_DONE) {
		db_err(db, err, "write");
		db_finalize(st);
		return AV_RUNTIME;
	}
	db_finalize(st);
	if (ret == NULL)
		*id = db->ops->insert_id(db);
	return 0;
}

/* One bound argument of db_write, kept so each statement binds what it names. */
struct write_arg {
	char type;
	int64_t iv;
	double dv;
	const void *p;
	size_t n;
};

/* Runs one statement of a write with the arguments it names; its first column
 * (a function's result) into *first when given. */
static int
write_one(struct db *db, struct aerr *err, const char *sql, const struct write_arg *args, int nargs,
    int64_t *first)
{
	struct db_stmt *st = NULL;
	int rc, n;

	if (db_prepare_raw(db, sql, &st) != DB_OK)
		return db_err(db, err, "prepare");
	n = param_count(st);
	if (n > nargs)
		die("db: %d parameters but %d arguments in: %s", n, nargs, sql);
	for (int i = 0; i < n; i++)
		if (bind_one(st, i + 1, args[i].type, args[i].iv, args[i].dv, args[i].p, args[i].n) != DB_OK) {
			db_finalize(st);
			return db_err(db, err, "bind");
		}
	while ((rc = db_step(st)) == DB_ROW)
		if (first != NULL)
			*first = db_col_int64(st, 0), first = NULL;
	if (rc != DB_DONE)
		db_err(db, err, "write");
	db_finalize(st);
	return rc == DB_DONE ? 0 : err->code;
}

int
db_write(struct db *db, struct aerr *err, const struct db_write *w, int64_t *id, const char *fmt, ...)
{
	struct write_arg args[32];
	int nargs = 0, rc = 0;
	va_list ap;

	va_start(ap, fmt);
	for (const char *f = fmt ? fmt : ""; *f; f++, nargs++) {
		struct write_arg *a = &args[nargs];

		if (nargs == (int)(sizeof args / sizeof args[0]))
			die("db: too many arguments for a write");
		memset(a, 0, sizeof *a);
		a->type = *f;
		switch (*f) {
		case 'i':
			a->iv = va_arg(ap, int64_t);
			break;
		case 't':
			a->p = va_arg(ap, const char *);
			if (a->p == NULL)
				a->type = 'n';
			break;
		case 'd':
			a->dv = va_arg(ap, double);
			break;
		case 'b':
			a->p = va_arg(ap, const void *);
			a->n = va_arg(ap, size_t);
			break;
		case 'n':
			break;
		default:
			die("db: bad bind format '%c'", *f);
		}
	}
	va_end(ap);
	if (db_has(db, DB_CHECKS_WORKFLOW))
		return write_one(db, err, w->pg, args, nargs, id);
	for (int i = 0; rc == 0 && i < 5 && w->sqlite[i] != NULL; i++) {
		rc = write_one(db, err, w->sqlite[i], args, nargs, NULL);
		if (rc == 0 && id != NULL && i + 1 == w->id_from)
			*id = db->ops->insert_id(db);   /* SQLite: the statement's row */
		else if (rc == 0 && id != NULL && w->id_from == 0)
			*id = db_changes(db);
	}
	return rc;
}

void
db_wait_notify(struct db *db, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (db->ops->wait_notify != NULL)
		db->ops->wait_notify(db, ms);
	else
		nanosleep(&ts, NULL);
}

int
db_listen(struct db *db, const char *channel, struct aerr *err)
{
	char *sql;
	int rc;

	if (db->ops->wait_notify == NULL)
		return 0;
	sql = xasprintf("LISTEN %s", channel);
	rc = db_exec(db, err, sql, "");
	free(sql);
	return rc;
}

int
db_ids(struct db_stmt *st, int64_t **ids, size_t *n, struct aerr *err)
{
	struct db *db;
	int rc;

	*ids = NULL;
	*n = 0;
	if (st == NULL)
		return err->code;
	db = st->db;
	while ((rc = db_step(st)) == DB_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = db_col_int64(st, 0);
	}
	db_finalize(st);
	/* Ids cut short by an error are no answer: never fewer rows said as all. */
	if (rc != DB_DONE) {   /* db_ids */
		free(*ids);
		*ids = NULL;
		*n = 0;
		return db_err(db, err, "reading ids");
	}
	return 0;
}

const char *
db_suggest(struct db_stmt *st, const char *typed, char *out, size_t n)
{
	char **names = NULL;
	size_t count = 0;
	const char *near;

	if (st == NULL)
		return NULL;
	while (db_step(st) == DB_ROW) {
		names = xrealloc(names, (count + 1) * sizeof *names);
		names[count++] = xstrdup(col_text(st, 0));
	}
	db_finalize(st);
	near = name_suggest(typed, (const char *const *)names, count);
	if (near != NULL)
		snprintf(out, n, "%s", near);
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return near != NULL ? out : NULL;
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
	if (db_script(db, db->ops->begin_sql, NULL) != DB_OK) {
		db_err(db, err, "begin");
		db_rollback(db);   /* begun, perhaps, and its lock not taken */
		return err->code;
	}
	return 0;
}

int
db_commit(struct db *db, struct aerr *err)
{
	/* PostgreSQL abandons a transaction at its first failed statement, where
	 * SQLite goes on: COMMIT would then quietly roll it all back. */
	if (db->ops->failed_transaction != NULL && db->ops->failed_transaction(db)) {
		db_rollback(db);
		return aerr_set(err, AV_RUNTIME, "database: commit: a statement of the transaction "
		    "failed (%s); nothing was written", db_errmsg(db));
	}
	if (db_script(db, "COMMIT", NULL) != DB_OK) {
		db_err(db, err, "commit");
		db_rollback(db);
		return err->code;
	}
	return 0;
}

void
db_rollback(struct db *db)
{
	if (!db_autocommit(db))
		db_script(db, "ROLLBACK", NULL);
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	for (size_t i = 0; i < db->nkept; i++) {
		free(db->kept[i]->kept_sql);
		db->kept[i]->kept_sql = NULL;
		db_finalize(db->kept[i]);
	}
	free(db->kept);
	db->kept = NULL;
	db->nkept = 0;
	db->ops->close(db);
}

/* A server's address as messages show it: the URI without its password. */
/* The login this connection acts as (PostgreSQL's session_user). */
int
db_session_user(struct db *db, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st;
	int rc;

	if (db->ops->login != NULL && db->ops->login(db) != NULL) {
		snprintf(out, n, "%s", db->ops->login(db));
		return 0;
	}
	if ((st = db_prepare(db, err, "SELECT session_user", NULL)) == NULL)
		return err->code;
	if ((rc = db_step(st)) == DB_ROW)
		snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	if (rc != DB_ROW)
		return db_err(db, err, "session_user");
	return 0;
}

/* After rows were inserted with their ids given (a copy), the ids the database
 * hands out next must come after them: SQLite's INTEGER PRIMARY KEY does so by
 * itself; a PostgreSQL identity column's sequence is moved past the largest. */
int
db_ids_follow(struct db *db, const char *table, struct aerr *err)
{
	char *sql;
	int rc;

	if (db->ops->ids_follow[0] == NULL)
		return 0;
	sql = xasprintf("%s%s%s", db->ops->ids_follow[0], table, db->ops->ids_follow[1]);
	rc = db_exec(db, err, sql, "t", table);
	free(sql);
	return rc;
}

struct db_stmt *
db_tables(struct db *db, struct aerr *err)
{
	return db_prepare(db, err, db->ops->tables_sql, NULL);
}

int
db_login_is_owner(struct db *db, const char *login, int *owner, struct aerr *err)
{
	int64_t v = 0;
	int rc;

	*owner = 1;
	if (db->ops->owner_sql == NULL)
		return 0;
	rc = db_int(db, &v, err, db->ops->owner_sql, "t", login);
	if (rc < 0)
		return err->code;
	*owner = rc == 0 && v == 1;
	return 0;
}

int
db_restore_mode(struct db *db, int on, struct aerr *err)
{
	const char *sql = on ? db->ops->restore_on_sql : db->ops->restore_off_sql;

	return sql != NULL ? db_exec(db, err, sql, NULL) : 0;
}

int
db_analyze(struct db *db, struct aerr *err)
{
	return db->ops->analyze_sql != NULL ? db_exec(db, err, db->ops->analyze_sql, NULL) : 0;
}

void
db_read_all(struct db *db)
{
	/* Only a hint: a store that cannot take it reads as before. */
	if (db->ops->read_all_sql != NULL)
		db_script(db, db->ops->read_all_sql, NULL);
}
