/*
 * db.h: aivet's query layer. Every module reaches the database through these
 * calls, never through a database library's own API, so that one aivet runs on
 * an SQLite file (the embedded default) or on a PostgreSQL server. Statements
 * use "?" parameters bound from a format string (db_exec, db_prepare, db_int);
 * rows are stepped and read by column as SQLite's API does, with the same
 * result and type codes. Statements are written in the SQL both stores
 * accept and run as written (PostgreSQL's backend only numbers the
 * placeholders); what differs between the stores (a statement, a feature, a
 * function) is a member of struct db_ops (db-impl.h), which each backend
 * fills and which the calls below reach: no caller asks which store it is on.
 */
#ifndef AIVET_DB_H
#define AIVET_DB_H

#include <stdint.h>

#include "base.h"

struct db;        /* an open database (SQLite or PostgreSQL) */
struct db_stmt;   /* a prepared statement and its current row */

/* What db_step (and db_prepare_raw, db_script) return; any other value is an error. */
enum { DB_OK = 0, DB_ERROR = 1, DB_ROW = 100, DB_DONE = 101 };
/* A column's type in the current row (db_col_type). */
enum { DB_INTEGER = 1, DB_FLOAT = 2, DB_TEXT = 3, DB_BLOB = 4, DB_NULL = 5 };
/* What a store does itself rather than leave to aivet (db_has), each named
 * for what it means to the caller, as curl's backends declare what they
 * support: a store sets every bit that holds for it (PostgreSQL all four,
 * an SQLite file none), and a caller asks the one it rests on. */
enum db_feature {
	/* The actor is the login the server authenticated: --actor speaks for
	 * no one else, and a name an approval signs was established by the
	 * server, not typed. Without it the actor is whatever name is given. */
	DB_ACTOR_IS_LOGIN = 1 << 0,
	/* The server holds aivet's roles: owners, grants and who may do what
	 * are its; without it whoever can write the store can do anything. */
	DB_ROLES = 1 << 1,
	/* The store computes seals and hashes itself: it reads the audit
	 * chain's head and seals an entry or an evidence row as it writes it,
	 * so aivet sends none, and a row with its entry is one call. */
	DB_STORE_SEALS = 1 << 2,
	/* The server checks the workflow: evidentiary writes go through its
	 * functions (db_write's server form), which refuse a step the workflow
	 * does not allow, whoever connects. */
	DB_CHECKS_WORKFLOW = 1 << 3,
};

/* Opens, creating and migrating, the database SPEC names: "postgresql://..." or
 * "postgres://..." (a libpq URI) is a PostgreSQL server, "sqlite:PATH" or a plain
 * path an SQLite file. */
int db_open(const char *spec, struct db **out, struct aerr *err);
/* Opens an SQLite file as it is: no schema check, no migration (tools and tests). */
int db_open_raw(const char *path, struct db **out);
void db_close(struct db *db);
int db_has(const struct db *db, enum db_feature f);
/* The store's name as aivet shows it: "sqlite" or "postgresql". */
const char *db_backend_name(const struct db *db);
/* True when SPEC names a PostgreSQL server rather than an SQLite file. */
int db_spec_is_pg(const char *spec);
int db_migrate(struct db *db, struct aerr *err);
int db_schema_version(void);   /* newest migration this binary carries */
/* The schema version the open database records. */
int db_user_version(struct db *db, int64_t *out, struct aerr *err);
/* The first way the database's schema objects (tables, columns, triggers,
 * views, indexes) differ from what aivet's migrations create, in words, into
 * problem; "" when they do not (db-schema.c). */
int db_schema_check(struct db *db, char *problem, size_t n, struct aerr *err);

/* Write transactions. SQLite: BEGIN IMMEDIATE, so the busy timeout applies up
 * front. PostgreSQL: BEGIN and the audit chain's advisory lock, so one writer
 * appends at a time. */
int db_begin(struct db *db, struct aerr *err);
int db_commit(struct db *db, struct aerr *err);
void db_rollback(struct db *db);
int db_autocommit(struct db *db);   /* true outside a transaction */

/* Runs sql with "?" parameters bound from a format: 'i' int64, 't' text (NULL ok),
 * 'd' double, 'b' blob (ptr, size_t), 'n' NULL (no argument). 0 or AV_RUNTIME. */
int db_exec(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...);
/* Prepares sql and binds as db_exec; caller steps and finalizes. NULL on error. */
struct db_stmt *db_prepare(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...);
/* The same for a statement run again and again (one per row of a list):
 * on SQLite it stays prepared, and db_finalize only resets it for the next
 * call with the same sql; a call while it is still in use prepares another. */
struct db_stmt *db_prepare_kept(struct db *db, struct aerr *err, const char *sql, const char *fmt, ...);
/* Prepares without binding (the caller binds with db_bind_int64, may db_reset and rebind). */
int db_prepare_raw(struct db *db, const char *sql, struct db_stmt **out);
/* Runs one or more statements without parameters; *msg (may be NULL) gets a
 * malloc'ed message on error. DB_OK or an error code. */
int db_script(struct db *db, const char *sql, char **msg);
/* Sets err from the database's last error: AV_RUNTIME, or AV_USAGE for a
 * privilege PostgreSQL refused (SQLSTATE 42501). */
int db_err(struct db *db, struct aerr *err, const char *what);
const char *db_errmsg(struct db *db);
const char *db_sqlstate(struct db *db);   /* PostgreSQL's SQLSTATE of the last error; "" else */
/*
 * One step of a domain operation that writes evidentiary rows, named once:
 * the backend chooses its form. On SQLite the statements in sqlite[] run in
 * order; on a store that checks the workflow (DB_CHECKS_WORKFLOW: PostgreSQL) the one call pg, a
 * SECURITY DEFINER function of db/pg/008-workflow.sql that checks the
 * workflow's rules, takes the actor from the login and computes the seals
 * (the roles cannot write those tables themselves). All are bound from one argument list, "?N" naming
 * argument N, so a form may leave arguments out (the function takes no actor).
 * The new row's id, when id is given: on SQLite the one the statement
 * sqlite[id_from - 1] inserted (with id_from 0, the rows the last statement
 * changed), on PostgreSQL what the function returns.
 */
struct db_write {
	const char *sqlite[5];
	const char *pg;
	int id_from;
};
int db_write(struct db *db, struct aerr *err, const struct db_write *w, int64_t *id,
    const char *fmt, ...);
/* A read written for each store's planner where one form does not suit both:
 * sql as SQLite runs it, pg as PostgreSQL does (NULL: sql). Both return the
 * same columns and rows. */
struct db_read {
	const char *sql;
	const char *pg;
};
struct db_stmt *db_prepare_read(struct db *db, struct aerr *err, const struct db_read *r,
    const char *fmt, ...);
/* First column of the first row as int64; returns 0 on success, 1 when no row, -1 on error. */
int db_int(struct db *db, int64_t *out, struct aerr *err, const char *sql, const char *fmt, ...);
/* The first column of each row of st as an id list (*ids the caller's to free,
 * NULL when none), then finalizes st; a NULL st (a failed db_prepare) returns err->code. */
int db_ids(struct db_stmt *st, int64_t **ids, size_t *n, struct aerr *err);
/* The name among the first column of st's rows that typed most likely meant
 * (name_suggest), copied into out; NULL when none. Finalizes st (NULL is fine). */
const char *db_suggest(struct db_stmt *st, const char *typed, char *out, size_t n);
/* Runs an INSERT of one row ("INSERT INTO t (...) VALUES (...)", bound as
 * db_exec) and gives the id of that row: SQLite's rowid, PostgreSQL's
 * "RETURNING id", never another row's that a trigger inserted. 0 or AV_RUNTIME. */
int db_insert(struct db *db, int64_t *id, struct aerr *err, const char *sql, const char *fmt, ...);
int db_changes(struct db *db);   /* rows the last statement changed */
/* The login a PostgreSQL connection acts as (session_user), into out. */
int db_session_user(struct db *db, char *out, size_t n, struct aerr *err);
/* Waits up to ms, less when a notification comes on a channel the connection
 * LISTENs to (PostgreSQL's LISTEN/NOTIFY: a worker idle until work is queued);
 * on SQLite, which has none, it sleeps ms. */
void db_wait_notify(struct db *db, int ms);
/* The connection LISTENs to channel (an identifier of aivet's own); nothing on SQLite. */
int db_listen(struct db *db, const char *channel, struct aerr *err);
/* Moves the table's id sequence past the ids it holds (after a copy); nothing on SQLite. */
int db_ids_follow(struct db *db, const char *table, struct aerr *err);
/* Prepares the statement that lists the database's tables, one name a row in
 * order, the store's own internal ones (sqlite_*) left out; step it as any. */
struct db_stmt *db_tables(struct db *db, struct aerr *err);
/* An SQL expression for the store's clock now, as aivet writes time (UTC ISO
 * 8601 with milliseconds and Z), to compare with in a statement. */
const char *db_now_sql(const struct db *db);
/* The same clock as milliseconds since 1970 (an integer). */
const char *db_now_ms_sql(const struct db *db);
/* Whether login may do what the database's owner does (its owner, a member of
 * the owning role, a superuser); on a store without logins anyone may. */
int db_login_is_owner(struct db *db, const char *login, int *owner, struct aerr *err);
/* Inside a transaction: the store takes the rows a copy inserts as they were,
 * sealed and timed elsewhere (PostgreSQL's aivet.restore), until turned off. */
int db_restore_mode(struct db *db, int on, struct aerr *err);
/* After a bulk load, outside a transaction: the planner's statistics gathered
 * (PostgreSQL's ANALYZE), so that the first commands on a copy plan as later
 * ones will; nothing on a store that plans without them. */
int db_analyze(struct db *db, struct aerr *err);
/* A read of the whole database follows (audit verify): SQLite maps the file. */
void db_read_all(struct db *db);

int db_step(struct db_stmt *st);   /* DB_ROW, DB_DONE or an error */
void db_reset(struct db_stmt *st);
int db_bind_int64(struct db_stmt *st, int i, int64_t v);
/* Binds parameter i (from 1) by type: DB_INTEGER iv, DB_FLOAT dv, DB_TEXT p (NULL
 * binds NULL), DB_BLOB p and n, DB_NULL. */
int db_bind(struct db_stmt *st, int i, int type, int64_t iv, double dv, const void *p, size_t n);
void db_finalize(struct db_stmt *st);   /* NULL is fine */
int db_col_count(struct db_stmt *st);
const char *db_col_name(struct db_stmt *st, int i);
int db_col_type(struct db_stmt *st, int i);
int64_t db_col_int64(struct db_stmt *st, int i);
int db_col_int(struct db_stmt *st, int i);
double db_col_double(struct db_stmt *st, int i);
const char *db_col_text(struct db_stmt *st, int i);   /* NULL for NULL */
const void *db_col_blob(struct db_stmt *st, int i);
int db_col_bytes(struct db_stmt *st, int i);
const char *col_text(struct db_stmt *st, int i); /* "" for NULL */

#endif
