/*
 * db-impl.h: what db.c, the query layer, shares with its two backends
 * (db-sqlite.c, db-pg.c). db.c dispatches each call on the database's kind;
 * a backend calls nothing of db.c, so the layers stay one-way.
 */
#ifndef AIVET_DB_IMPL_H
#define AIVET_DB_IMPL_H

#include "db.h"

struct db {
	enum db_kind kind;
	void *h;          /* sqlite3 * or PGconn * */
	char *msg;        /* the last error (PostgreSQL) */
	char *sqlstate;   /* its SQLSTATE, "" when none */
	int changes;      /* rows the last statement changed (PostgreSQL) */
	/* Statements db_prepare_kept keeps prepared for the next call with the same
	 * SQL (SQLite), each idle or lent out; finalized by db_close. */
	struct db_stmt **kept;
	size_t nkept;
};

struct pg_stmt;
struct db_stmt {
	struct db *db;
	void *h;          /* sqlite3_stmt *, or a struct pg_stmt * */
	char *kept_sql;   /* non-NULL: kept by the db; db_finalize resets it instead */
	int lent;         /* a kept statement now in a caller's hands */
};

/* ---- SQLite (db-sqlite.c) ---- */
int lite_open(const char *path, struct db **out, struct aerr *err);
int lite_open_raw(const char *path, struct db **out);
void lite_close(struct db *db);
const char *lite_errmsg(struct db *db);
int lite_prepare(struct db *db, const char *sql, struct db_stmt **out);
int lite_script(struct db *db, const char *sql, char **msg);
int lite_param_count(struct db_stmt *st);
const char *lite_sql(struct db_stmt *st);
int lite_bind(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n);
int lite_step(struct db_stmt *st);
void lite_reset(struct db_stmt *st);
void lite_finalize(struct db_stmt *st);
int lite_col_count(struct db_stmt *st);
const char *lite_col_name(struct db_stmt *st, int i);
int lite_col_type(struct db_stmt *st, int i);
int64_t lite_col_int64(struct db_stmt *st, int i);
double lite_col_double(struct db_stmt *st, int i);
const char *lite_col_text(struct db_stmt *st, int i);
const void *lite_col_blob(struct db_stmt *st, int i);
int lite_col_bytes(struct db_stmt *st, int i);
int64_t lite_insert_id(struct db *db);
int lite_changes(struct db *db);
int lite_autocommit(struct db *db);

/* ---- PostgreSQL (db-pg.c) ---- */
int pgb_open(const char *uri, struct db **out, struct aerr *err);
void pgb_close(struct db *db);
const char *pgb_errmsg(struct db *db);
const char *pgb_sqlstate(struct db *db);
int pgb_prepare(struct db *db, const char *sql, struct db_stmt **out);
int pgb_script(struct db *db, const char *sql, char **msg);
int pgb_param_count(struct db_stmt *st);
const char *pgb_sql(struct db_stmt *st);
int pgb_bind(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n);
int pgb_step(struct db_stmt *st);
void pgb_reset(struct db_stmt *st);
void pgb_finalize(struct db_stmt *st);
int pgb_col_count(struct db_stmt *st);
const char *pgb_col_name(struct db_stmt *st, int i);
int pgb_col_type(struct db_stmt *st, int i);
int64_t pgb_col_int64(struct db_stmt *st, int i);
double pgb_col_double(struct db_stmt *st, int i);
const char *pgb_col_text(struct db_stmt *st, int i);
const void *pgb_col_blob(struct db_stmt *st, int i);
int pgb_col_bytes(struct db_stmt *st, int i);
int64_t pgb_insert_id(struct db *db);
int pgb_changes(struct db *db);
int pgb_autocommit(struct db *db);
int pgb_failed_transaction(struct db *db);   /* a statement failed inside the open transaction */

#endif
