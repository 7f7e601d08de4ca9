/*
 * db-impl.h: what db.c, the query layer, shares with its two backends
 * (db-sqlite.c, db-pg.c). Each backend fills one struct db_ops with its
 * operations and every handle it opens points at it, so db.c calls through
 * the table and never asks which backend it holds; a backend calls nothing of
 * db.c, so the layers stay one-way.
 */
#ifndef AIVET_DB_IMPL_H
#define AIVET_DB_IMPL_H

#include "db.h"
#include "embedded.h"

/*
 * One backend's operations. Statements use "?" parameters (SQLite's
 * numbering); results and types are SQLite's codes (DB_ROW, DB_TEXT, ...).
 * A bind's type is 'i' int64 (iv), 'd' double (dv), 't' text (p), 'b' blob
 * (p, n) or 'n' NULL.
 */
struct db_ops {
	const char *name;        /* db_backend_name: "sqlite", "postgresql" */
	const char *described;   /* in a message: "an SQLite", "a PostgreSQL" */
	unsigned features;       /* enum db_feature bits */
	int reads_pg;            /* runs a db_read's pg form (PostgreSQL's planner) */
	const struct embedded_file *migrations;   /* db/ or db/pg/ */
	/* The schema's expectation kept in the tree: the fingerprint query and
	 * the lines it gives (db-schema.c); NULL where it is made from the
	 * migrations (SQLite). */
	const struct embedded_file *schema_kept;
	void (*close)(struct db *db);
	const char *(*errmsg)(struct db *db);
	const char *(*sqlstate)(struct db *db);   /* "" when the backend has none */
	/* The login the connection authenticated as, where the store has logins
	 * (the server's session_user, known without asking); NULL: none. */
	const char *(*login)(struct db *db);
	int (*prepare)(struct db *db, const char *sql, struct db_stmt **out);
	int (*script)(struct db *db, const char *sql, char **msg);
	/* The new row's id after an INSERT, read from the connection (SQLite's
	 * last rowid); NULL for a backend that has the INSERT return it
	 * (insert_returning: PostgreSQL's RETURNING). */
	int64_t (*insert_id)(struct db *db);
	const char *insert_returning;
	int (*changes)(struct db *db);
	int (*autocommit)(struct db *db);
	/* True when a statement failed inside the open transaction, which the
	 * backend then will not commit (PostgreSQL); NULL when it goes on. */
	int (*failed_transaction)(struct db *db);
	/* Waits up to ms for a notification on a channel the connection LISTENs
	 * to (PostgreSQL); NULL for a backend without them (db_wait_notify sleeps). */
	void (*wait_notify)(struct db *db, int ms);
	/* What begins a write transaction (a script: it may take a lock too). */
	const char *begin_sql;
	/* Statements kept prepared by db_prepare_kept (SQLite: parsing costs more
	 * than a few rows); 0 prepares each anew. */
	int keep_prepared;

	/* Per-backend statements, run as written. The schema version: read
	 * (version_sql), once version_exists_sql (NULL: always) says where it is
	 * kept exists; set (version_set, the version appended). Opening, outside
	 * any transaction, reads it with version_sql alone and takes an error of
	 * SQLSTATE version_missing (where not NULL) for a database with none. */
	const char *version_sql, *version_exists_sql, *version_set, *version_missing;
	/* The database's tables, one name a row in order, the store's own left out. */
	const char *tables_sql;
	/* The clock now, as aivet writes time (db_now_sql) and in milliseconds
	 * since 1970 (db_now_ms_sql). */
	const char *now_sql, *now_ms_sql;
	/* Whether ?1, a table aivet refills at each migration for the server's
	 * functions (aivet_severity, aivet_seal_part), exists; NULL for a
	 * backend whose functions are C (SQLite registers them). */
	const char *server_table_sql;
	/* Moves a table's id sequence past its ids: the two parts go either side
	 * of the table's name, and ?1 is bound to it; NULL when ids follow by
	 * themselves. */
	const char *ids_follow[2];
	/* One row, 1 when login ?1 may do what the owner does; NULL: anyone may. */
	const char *owner_sql;
	/* Restore mode on, off (db_restore_mode); NULL for none. */
	const char *restore_on_sql, *restore_off_sql;
	/* Gathers the planner's statistics after a bulk load; NULL: the store
	 * plans without them (SQLite's ANALYZE would add a table to its schema). */
	const char *analyze_sql;
	/* Run before a whole read of the database (db_read_all); NULL for none. */
	const char *read_all_sql;

	int (*param_count)(struct db_stmt *st);
	const char *(*sql)(struct db_stmt *st);
	int (*bind)(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n);
	int (*step)(struct db_stmt *st);
	void (*reset)(struct db_stmt *st);
	void (*finalize)(struct db_stmt *st);
	int (*col_count)(struct db_stmt *st);
	const char *(*col_name)(struct db_stmt *st, int i);
	int (*col_type)(struct db_stmt *st, int i);
	int64_t (*col_int64)(struct db_stmt *st, int i);
	double (*col_double)(struct db_stmt *st, int i);
	const char *(*col_text)(struct db_stmt *st, int i);
	const void *(*col_blob)(struct db_stmt *st, int i);
	int (*col_bytes)(struct db_stmt *st, int i);
};

struct db {
	const struct db_ops *ops;
	void *h;          /* sqlite3 * or PGconn * */
	char *msg;        /* the last error (PostgreSQL) */
	char *sqlstate;   /* its SQLSTATE, "" when none */
	int changes;      /* rows the last statement changed (PostgreSQL) */
	/* Statements db_prepare_kept keeps prepared for the next call with the same
	 * SQL (SQLite), each idle or lent out; finalized by db_close. */
	struct db_stmt **kept;
	size_t nkept;
};

struct db_stmt {
	struct db *db;
	void *h;          /* sqlite3_stmt *, or a db-pg.c's struct pg_stmt * */
	char *kept_sql;   /* non-NULL: kept by the db; db_finalize resets it instead */
	int lent;         /* a kept statement now in a caller's hands */
};

/* Opening makes the handle, so it comes before the table. */
int lite_open(const char *path, struct db **out, struct aerr *err);   /* db-sqlite.c */
int lite_open_raw(const char *path, struct db **out);
int pgb_open(const char *uri, struct db **out, struct aerr *err);      /* db-pg.c */

#endif
