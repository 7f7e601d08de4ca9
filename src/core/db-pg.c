/*
 * db-pg.c: the query layer on a PostgreSQL server, through libpq, for a team
 * that shares one database. Statements are written once in the SQL both
 * stores accept and sent as written; only their "?" placeholders become $n
 * (binding: pg_sql). What differs in functions is provided on the server by
 * the migrations in db/pg/ (json_extract, group_concat, severity_rank, ...);
 * what differs otherwise is a member of pg_ops, the backend's table.
 * Parameters go as text with their types, blobs as binary bytea; rows come back
 * as text and are read the way SQLite's column calls read them.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <strings.h>

#include "db-impl.h"

#define CONN(db) ((PGconn *)(db)->h)
static const struct db_ops pg_ops;

/* Type OIDs from PostgreSQL's catalog (pg_type.dat), stable across versions. */
enum {
	OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26,
	OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700
};

struct pg_stmt {
	char *sql;        /* with $n placeholders */
	char *orig;       /* as written, for messages */
	int nparams;      /* the $n the server is sent */
	int nargs;        /* the caller's numbering: the largest ?N */
	int *argmap;      /* ?N -> $n, 0 for an N the statement does not use; NULL when the same */
	char **vals;
	int *lens, *fmts;
	Oid *types;
	PGresult *res;
	int row, nrows, ran;
	/* The current row's values as SQLite would give them, made on first read. */
	char **text;
	unsigned char **blob;
	size_t *bloblen;
	int ncols;
};

#define PS(st) ((struct pg_stmt *)(st)->h)

static void
set_msg(struct db *db, const char *msg, const char *state)
{
	size_t n;

	free(db->msg);
	free(db->sqlstate);
	db->msg = xstrdup(msg ? msg : "unknown error");
	/* libpq's messages end in a newline and may add DETAIL lines: keep the first. */
	n = strcspn(db->msg, "\n");
	db->msg[n] = '\0';
	db->sqlstate = xstrdup(state ? state : "");
}

static void
set_result_msg(struct db *db, const PGresult *res)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (m == NULL)
		m = PQerrorMessage(CONN(db));
	set_msg(db, m, res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL);
}

static void
quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* The session's settings go with the connection request, not in a statement
 * after it (a round trip fewer on every command): text as UTF-8 (aivet writes
 * it so; times are ISO text aivet makes itself), notices quiet, and
 * aivet.writing (the incident triggers let aivet's sessions change facts,
 * db/pg/006). Options the URI gives come first; ours win over them. */
static PGconn *
pg_connect(const char *uri)
{
	static const char ours[] = "-c client_min_messages=warning -c aivet.writing=on";
	PQconninfoOption *info = PQconninfoParse(uri, NULL);
	const char *theirs = NULL;
	char *opts;
	PGconn *c;

	for (PQconninfoOption *o = info; o != NULL && o->keyword != NULL; o++)
		if (strcmp(o->keyword, "options") == 0 && o->val != NULL && o->val[0] != '\0')
			theirs = o->val;
	opts = theirs != NULL ? xasprintf("%s %s", theirs, ours) : xstrdup(ours);
	{
		const char *const keys[] = { "dbname", "client_encoding", "options", NULL };
		const char *const vals[] = { uri, "UTF8", opts, NULL };

		c = PQconnectdbParams(keys, vals, 1);
	}
	free(opts);
	if (info != NULL)
		PQconninfoFree(info);
	return c;
}

int
pgb_open(const char *uri, struct db **out, struct aerr *err)
{
	PGconn *c = pg_connect(uri);
	struct db *db;

	*out = NULL;
	if (c == NULL)
		return aerr_set(err, AV_RUNTIME, "cannot open database: out of memory");
	if (PQstatus(c) != CONNECTION_OK) {
		char *m = xstrdup(PQerrorMessage(c));

		m[strcspn(m, "\n")] = '\0';
		PQfinish(c);
		aerr_set(err, AV_RUNTIME, "cannot open database: %s", m);
		free(m);
		return AV_RUNTIME;
	}
	PQsetNoticeProcessor(c, quiet_notices, NULL);
	db = xcalloc(1, sizeof *db);
	db->ops = &pg_ops;
	db->h = c;
	db->msg = xstrdup("");
	db->sqlstate = xstrdup("");
	*out = db;
	return 0;
}

static void
pgb_close(struct db *db)
{
	PQfinish(CONN(db));
	free(db->msg);
	free(db->sqlstate);
	free(db);
}

static const char *
pgb_errmsg(struct db *db)
{
	return db->msg;
}

/* The user the connection request named and the server authenticated: the
 * session's session_user, which only SET SESSION AUTHORIZATION would change
 * and aivet sends none (db_session_user asks no statement for it). */
static const char *
pgb_login(struct db *db)
{
	return PQuser(CONN(db));
}

static const char *
pgb_sqlstate(struct db *db)
{
	return db->sqlstate;
}

/* ---- binding: "?" placeholders numbered as PostgreSQL's $n ---- */

/* Copies a quoted run ('...' or "...", doubled quotes inside) and returns its end. */
static const char *
copy_quoted(struct buf *b, const char *p)
{
	char q = *p;

	buf_add(b, p++, 1);
	while (*p) {
		if (*p == q && p[1] == q) {
			buf_add(b, p, 2);
			p += 2;
			continue;
		}
		buf_add(b, p, 1);
		if (*p++ == q)
			break;
	}
	return p;
}

/* Writes the $n of each placeholder marked "\x01N" by pg_sql (N the caller's
 * number, mapped by argmap when given); frees sql. */
static char *
number_params(char *sql, const int *argmap)
{
	struct buf b = { 0 };
	const char *p = sql;

	while (*p) {
		size_t n = strcspn(p, "\x01");
		char num[16];

		buf_add(&b, p, n);
		p += n;
		if (*p == '\x01') {
			int k = (int)strtol(p + 1, (char **)&p, 10);

			snprintf(num, sizeof num, "$%d", argmap ? argmap[k] : k);
			buf_add(&b, num, strlen(num));
		}
	}
	buf_add(&b, "", 1);
	free(sql);
	return (char *)b.data;
}

/* The placeholder at p ("?" or "?NNN", after "?"), marked "\x01N" into b
 * with N as SQLite numbers it (a bare "?" one past the largest so far); the
 * end of it is returned, *max and used[] kept. */
static const char *
mark_param(struct buf *b, const char *p, const char *sql, int *max, int *used, int nused)
{
	char num[16];
	int k;

	if (isdigit((unsigned char)*p)) {
		k = (int)strtol(p, (char **)&p, 10);
		if (k < 1 || k >= nused)
			die("db: parameter ?%d out of range in: %s", k, sql);
	} else if ((k = *max + 1) >= nused) {
		die("db: too many parameters in: %s", sql);
	}
	if (k > *max)
		*max = k;
	used[k] = 1;
	snprintf(num, sizeof num, "\x01%d", k);
	buf_add(b, num, strlen(num));
	return p;
}

/*
 * Binds, not dialect: the statement is sent as written but for its
 * placeholders, which SQLite writes "?" and "?NNN" and PostgreSQL $n (quotes
 * and comments left alone), and counts the parameters. The server must know
 * the type of every $n it is sent, so a ?N the statement leaves out (a write
 * whose SQLite form binds the actor and whose function takes it from the
 * login) is not sent: *argmap then maps the caller's N to the $n sent (0 for
 * none).
 */
static char *
pg_sql(const char *sql, int *nparams, int *nargs, int **argmap)
{
	struct buf b = { 0 };
	const char *p = sql;
	int max = 0, used[100] = { 0 }, gaps = 0;

	while (*p) {
		if (*p == '\'' || *p == '"') {
			p = copy_quoted(&b, p);
		} else if (p[0] == '-' && p[1] == '-') {
			size_t n = strcspn(p, "\n");

			buf_add(&b, p, n);
			p += n;
		} else if (*p == '?') {
			p = mark_param(&b, p + 1, sql, &max, used, (int)(sizeof used / sizeof used[0]));
		} else {
			buf_add(&b, p++, 1);
		}
	}
	buf_add(&b, "", 1);
	*nargs = max;
	*argmap = NULL;
	for (int k = 1; k <= max; k++)
		gaps += !used[k];
	if (gaps > 0) {
		*argmap = xcalloc((size_t)max + 1, sizeof **argmap);
		for (int k = 1, n = 0; k <= max; k++)
			(*argmap)[k] = used[k] ? ++n : 0;
	}
	*nparams = max - gaps;
	return number_params((char *)b.data, *argmap);
}

/* ---- statements ---- */

static int
pgb_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	struct pg_stmt *ps = xcalloc(1, sizeof *ps);

	ps->sql = pg_sql(sql, &ps->nparams, &ps->nargs, &ps->argmap);
	ps->orig = xstrdup(sql);
	if (ps->nparams > 0) {
		ps->vals = xcalloc((size_t)ps->nparams, sizeof *ps->vals);
		ps->lens = xcalloc((size_t)ps->nparams, sizeof *ps->lens);
		ps->fmts = xcalloc((size_t)ps->nparams, sizeof *ps->fmts);
		ps->types = xcalloc((size_t)ps->nparams, sizeof *ps->types);
	}
	*out = xcalloc(1, sizeof **out);
	(*out)->db = db;
	(*out)->h = ps;
	return DB_OK;
}

static int
pgb_param_count(struct db_stmt *st)
{
	return PS(st)->nargs;
}

static const char *
pgb_sql(struct db_stmt *st)
{
	return PS(st)->orig;
}

/*
 * Text that is not UTF-8. A vendor's header, a redirect's Location or a reason
 * quoting them may hold any byte, and SQLite keeps such text as it came, while
 * PostgreSQL refuses it in a text column: the exchange, its evidence and the
 * run would be lost. So such text is stored escaped and read back as it came,
 * the same bytes on both stores (and through the audit seal, which hashes
 * them): each byte that is no part of a UTF-8 character becomes ESC followed
 * by U+F700 + the byte, and ESC itself (U+FDD0, a noncharacter no text
 * carries) is doubled. Valid text without ESC, all text aivet writes itself,
 * is stored unchanged, so SQL compares and searches it as before.
 */
#define TEXT_ESC "\xef\xb7\x90"   /* U+FDD0 */

/* text as PostgreSQL can hold it (malloc'ed). */
static char *
text_to_server(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), i = 0;
	struct buf b;

	if (utf8_valid(s, n) && strstr(text, TEXT_ESC) == NULL)
		return xstrdup(text);
	buf_init(&b);
	while (i < n) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);   /* PostgreSQL's rules: see base.c */

		if (k == 3 && memcmp(s + i, TEXT_ESC, 3) == 0) {
			buf_add(&b, TEXT_ESC TEXT_ESC, 6);
		} else if (k > 0) {
			buf_add(&b, s + i, k);
		} else {
			/* U+F700 + byte, the byte 0x80..0xff: EF 9E/9F xx. */
			unsigned char e[3] = { 0xef, (unsigned char)(0x9c | (s[i] >> 6)),
			    (unsigned char)(0x80 | (s[i] & 0x3f)) };

			buf_add(&b, TEXT_ESC, 3);
			buf_add(&b, e, 3);
			k = 1;
		}
		i += k;
	}
	buf_add(&b, "", 1);
	return (char *)b.data;
}

/* The text as it came, from what text_to_server stored (malloc'ed), or NULL
 * when v holds no ESC and reads as it is. */
static char *
text_from_server(const char *v)
{
	const char *p = strstr(v, TEXT_ESC), *q;
	struct buf b;

	if (p == NULL)
		return NULL;
	buf_init(&b);
	for (; p != NULL; v = q, p = strstr(v, TEXT_ESC)) {
		const unsigned char *e = (const unsigned char *)p + 3;

		buf_add(&b, v, (size_t)(p - v));
		q = p + 3;
		if (memcmp(e, TEXT_ESC, 3) == 0) {
			buf_add(&b, TEXT_ESC, 3);
			q += 3;
		} else if (e[0] == 0xef && (e[1] == 0x9e || e[1] == 0x9f) && (e[2] & 0xc0) == 0x80) {
			unsigned char c = (unsigned char)(((e[1] & 0x03) << 6) | (e[2] & 0x3f));

			buf_add(&b, &c, 1);
			q += 3;
		} else {
			buf_add(&b, TEXT_ESC, 3);   /* written by someone else: kept as it is */
		}
	}
	buf_add(&b, v, strlen(v) + 1);
	return (char *)b.data;
}

static int
pgb_bind(struct db_stmt *st, int i, char type, int64_t iv, double dv, const void *p, size_t n)
{
	struct pg_stmt *ps = PS(st);
	char num[64];

	if (i < 1 || i > ps->nargs)
		return DB_ERROR;
	if (ps->argmap != NULL && (i = ps->argmap[i]) == 0)
		return DB_OK;   /* not used by the statement */
	i--;
	free(ps->vals[i]);
	ps->vals[i] = NULL;
	ps->lens[i] = 0;
	ps->fmts[i] = 0;
	/* Text goes untyped so the server takes the type its context needs, as SQLite would. */
	ps->types[i] = 0;
	switch (type) {
	case 'i':
		/* Untyped too: an integer serves as a number, or as a condition ("WHERE ? OR ..."),
		 * as SQLite lets it. */
		snprintf(num, sizeof num, "%lld", (long long)iv);
		ps->vals[i] = xstrdup(num);
		break;
	case 'd':
		snprintf(num, sizeof num, "%.17g", dv);
		ps->vals[i] = xstrdup(num);
		ps->types[i] = OID_FLOAT8;
		break;
	case 't':
		ps->vals[i] = text_to_server(p);
		break;
	case 'b':
		ps->vals[i] = xmalloc(n ? n : 1);
		if (n)
			memcpy(ps->vals[i], p, n);
		ps->lens[i] = (int)n;
		ps->fmts[i] = 1;
		ps->types[i] = OID_BYTEA;
		break;
	default:
		break;
	}
	return DB_OK;
}

static void
clear_row(struct pg_stmt *ps)
{
	for (int c = 0; c < ps->ncols; c++) {
		free(ps->text ? ps->text[c] : NULL);
		free(ps->blob ? ps->blob[c] : NULL);
		if (ps->text)
			ps->text[c] = NULL;
		if (ps->blob)
			ps->blob[c] = NULL;
	}
}

static void
pgb_reset(struct db_stmt *st)
{
	struct pg_stmt *ps = PS(st);

	clear_row(ps);
	PQclear(ps->res);
	ps->res = NULL;
	ps->ran = 0;
	ps->row = ps->nrows = 0;
}

static void
pgb_finalize(struct db_stmt *st)
{
	struct pg_stmt *ps = PS(st);

	pgb_reset(st);
	for (int i = 0; i < ps->nparams; i++)
		free(ps->vals[i]);
	free(ps->vals);
	free(ps->lens);
	free(ps->fmts);
	free(ps->types);
	free(ps->argmap);
	free(ps->text);
	free(ps->blob);
	free(ps->bloblen);
	free(ps->sql);
	free(ps->orig);
	free(ps);
	free(st);
}

static int
run(struct db_stmt *st)
{
	struct pg_stmt *ps = PS(st);
	struct db *db = st->db;
	ExecStatusType s;

	ps->res = PQexecParams(CONN(db), ps->sql, ps->nparams, ps->types, (const char *const *)ps->vals,
	    ps->lens, ps->fmts, 0);
	ps->ran = 1;
	s = PQresultStatus(ps->res);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		set_result_msg(db, ps->res);
		PQclear(ps->res);
		ps->res = NULL;
		return DB_ERROR;
	}
	db->changes = atoi(PQcmdTuples(ps->res));
	ps->nrows = PQntuples(ps->res);
	ps->row = -1;
	ps->ncols = PQnfields(ps->res);
	free(ps->text);
	free(ps->blob);
	free(ps->bloblen);
	ps->text = xcalloc((size_t)ps->ncols + 1, sizeof *ps->text);
	ps->blob = xcalloc((size_t)ps->ncols + 1, sizeof *ps->blob);
	ps->bloblen = xcalloc((size_t)ps->ncols + 1, sizeof *ps->bloblen);
	return DB_OK;
}

static int
pgb_step(struct db_stmt *st)
{
	struct pg_stmt *ps = PS(st);

	if (!ps->ran && run(st) != DB_OK)
		return DB_ERROR;
	if (ps->res == NULL)
		return DB_ERROR;
	clear_row(ps);
	if (ps->row + 1 >= ps->nrows) {
		ps->row = ps->nrows;
		return DB_DONE;
	}
	ps->row++;
	return DB_ROW;
}

static int
have_value(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);

	return ps->res != NULL && ps->row >= 0 && ps->row < ps->nrows && i >= 0 && i < ps->ncols &&
	    !PQgetisnull(ps->res, ps->row, i);
}

static int
pgb_col_count(struct db_stmt *st)
{
	return PS(st)->res ? PQnfields(PS(st)->res) : 0;
}

static const char *
pgb_col_name(struct db_stmt *st, int i)
{
	return PS(st)->res ? PQfname(PS(st)->res, i) : NULL;
}

static int
pgb_col_type(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);
	const char *v;

	if (!have_value(st, i))
		return DB_NULL;
	switch (PQftype(ps->res, i)) {
	case OID_BOOL:
	case OID_INT2:
	case OID_INT4:
	case OID_INT8:
	case OID_OID:
		return DB_INTEGER;
	case OID_FLOAT4:
	case OID_FLOAT8:
		return DB_FLOAT;
	case OID_NUMERIC:
		/* sum() and friends: whole numbers are integers, as SQLite gives them. */
		v = PQgetvalue(ps->res, ps->row, i);
		return strpbrk(v, ".eEN") ? DB_FLOAT : DB_INTEGER;
	case OID_BYTEA:
		return DB_BLOB;
	default:
		return DB_TEXT;
	}
}

/* A REAL as SQLite prints it: 15 significant digits, and always a decimal point. */
static char *
sqlite_real_text(const char *v)
{
	char out[64];
	double d = strtod(v, NULL);

	snprintf(out, sizeof out, "%.15g", d);
	if (strpbrk(out, ".eIn") == NULL)
		strcat(out, ".0");
	return xstrdup(out);
}

static void
load_blob(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);

	if (ps->blob[i] == NULL) {
		size_t n = 0;
		unsigned char *raw = PQunescapeBytea((const unsigned char *)PQgetvalue(ps->res, ps->row, i), &n);

		if (raw == NULL)
			die("out of memory");

		/* Room for a terminating NUL, so the bytes also read as text. */
		ps->blob[i] = xmalloc(n + 1);
		memcpy(ps->blob[i], raw, n);
		ps->blob[i][n] = '\0';
		ps->bloblen[i] = n;
		PQfreemem(raw);
	}
}

static const char *
pgb_col_text(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);
	const char *v;

	if (!have_value(st, i))
		return NULL;
	v = PQgetvalue(ps->res, ps->row, i);
	switch (PQftype(ps->res, i)) {
	case OID_BOOL:
		return strcmp(v, "t") == 0 ? "1" : "0";
	case OID_FLOAT4:
	case OID_FLOAT8:
		if (ps->text[i] == NULL)
			ps->text[i] = sqlite_real_text(v);
		return ps->text[i];
	case OID_BYTEA:
		load_blob(st, i);
		return (const char *)ps->blob[i];
	default:
		if (ps->text[i] == NULL)
			ps->text[i] = text_from_server(v);
		return ps->text[i] ? ps->text[i] : v;
	}
}

static const void *
pgb_col_blob(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);

	if (!have_value(st, i))
		return NULL;
	if (PQftype(ps->res, i) == OID_BYTEA) {
		load_blob(st, i);
		return ps->blob[i];
	}
	return pgb_col_text(st, i);
}

static int
pgb_col_bytes(struct db_stmt *st, int i)
{
	struct pg_stmt *ps = PS(st);

	if (!have_value(st, i))
		return 0;
	if (PQftype(ps->res, i) == OID_BYTEA) {
		load_blob(st, i);
		return (int)ps->bloblen[i];
	}
	return (int)strlen(pgb_col_text(st, i));
}

static int64_t
pgb_col_int64(struct db_stmt *st, int i)
{
	const char *v = pgb_col_text(st, i);

	if (v == NULL)
		return 0;
	if (strpbrk(v, ".eE"))
		return (int64_t)strtod(v, NULL);
	return strtoll(v, NULL, 10);
}

static double
pgb_col_double(struct db_stmt *st, int i)
{
	const char *v = pgb_col_text(st, i);

	return v ? strtod(v, NULL) : 0.0;
}

/* ---- the connection ---- */

static int
pgb_script(struct db *db, const char *sql, char **msg)
{
	/* Run as written: scripts are migrations and statements without
	 * parameters, so nothing is numbered (a function body's $n are its own). */
	PGresult *r = PQexec(CONN(db), sql);
	ExecStatusType s = PQresultStatus(r);

	if (msg != NULL)
		*msg = NULL;
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_EMPTY_QUERY) {
		set_result_msg(db, r);
		if (msg != NULL)
			*msg = xstrdup(db->msg);
		PQclear(r);
		return DB_ERROR;
	}
	db->changes = atoi(PQcmdTuples(r));
	PQclear(r);
	return DB_OK;
}

static int
pgb_changes(struct db *db)
{
	return db->changes;
}

static int
pgb_autocommit(struct db *db)
{
	return PQtransactionStatus(CONN(db)) == PQTRANS_IDLE;
}

static int
pgb_failed_transaction(struct db *db)
{
	return PQtransactionStatus(CONN(db)) == PQTRANS_INERROR;
}

/* A notification already read with another result counts; else the socket is
 * polled for one. What it says does not matter: the caller looks again. */
static void
pgb_wait_notify(struct db *db, int ms)
{
	struct pollfd pfd = { PQsocket(CONN(db)), POLLIN, 0 };
	PGnotify *n;
	int got = 0;

	while ((n = PQnotifies(CONN(db))) != NULL) {
		PQfreemem(n);
		got = 1;
	}
	if (got || pfd.fd < 0)
		return;
	if (poll(&pfd, 1, ms) > 0 && PQconsumeInput(CONN(db)))
		while ((n = PQnotifies(CONN(db))) != NULL)
			PQfreemem(n);
}

static const struct db_ops pg_ops = {
	.name = "postgresql",
	.described = "a PostgreSQL",
	.features = DB_ACTOR_IS_LOGIN | DB_ROLES | DB_STORE_SEALS | DB_CHECKS_WORKFLOW,
	.reads_pg = 1,
	.migrations = embedded_pg_migrations,
	.schema_kept = embedded_pg_schema,
	.close = pgb_close,
	.errmsg = pgb_errmsg,
	.sqlstate = pgb_sqlstate,
	.login = pgb_login,
	.prepare = pgb_prepare,
	.script = pgb_script,
	/* The row says its id: a sequence's lastval() may be a trigger's row's. */
	.insert_returning = " RETURNING id",
	.changes = pgb_changes,
	.autocommit = pgb_autocommit,
	.failed_transaction = pgb_failed_transaction,
	.wait_notify = pgb_wait_notify,
	/* The audit chain's advisory lock: one writer at a time appends to it (its
	 * head is read, then the next entry written), as SQLite's one write lock gives.
	 * Sent with the BEGIN, one round trip: a probe run begins one transaction per
	 * exchange. The lock is a statement of its own, so that every statement after
	 * it sees what the previous holder committed. */
	.begin_sql = "BEGIN; SELECT pg_advisory_xact_lock(1634301541)",
	/* aivet_schema, a one-row table the first migration creates. */
	.version_sql = "SELECT version FROM aivet_schema",
	.version_exists_sql = "SELECT to_regclass('aivet_schema') IS NOT NULL",
	.version_missing = "42P01",   /* undefined_table: a database aivet has not made yet */
	.version_set = "UPDATE aivet_schema SET version = ",
	.tables_sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
	    "AND table_type = 'BASE TABLE' ORDER BY table_name",
	.now_sql = "aivet_clock(0)",   /* db/pg/014-queue.sql */
	.now_ms_sql = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint",
	.server_table_sql = "SELECT to_regclass(?) IS NOT NULL",
	/* An identity column's sequence; a table without one is left alone. */
	.ids_follow = { "SELECT setval(pg_get_serial_sequence(?1, 'id'), max(id)) FROM ",
	    " HAVING max(id) IS NOT NULL AND pg_get_serial_sequence(?1, 'id') IS NOT NULL" },
	/* Superusers and members of the owning role may do what the owner does. */
	.owner_sql = "SELECT (r.rolsuper OR pg_has_role(r.oid, d.datdba, 'MEMBER'))::int FROM pg_roles r, "
	    "pg_database d WHERE r.rolname = ? AND d.datname = current_database()",
	/* The triggers of db/pg/ take copied rows as they are while it is set,
	 * for this transaction only. */
	.restore_on_sql = "SELECT set_config('aivet.restore', 'on', true)",
	.analyze_sql = "ANALYZE",
	.restore_off_sql = "SELECT set_config('aivet.restore', '', true)",
	.param_count = pgb_param_count,
	.sql = pgb_sql,
	.bind = pgb_bind,
	.step = pgb_step,
	.reset = pgb_reset,
	.finalize = pgb_finalize,
	.col_count = pgb_col_count,
	.col_name = pgb_col_name,
	.col_type = pgb_col_type,
	.col_int64 = pgb_col_int64,
	.col_double = pgb_col_double,
	.col_text = pgb_col_text,
	.col_blob = pgb_col_blob,
	.col_bytes = pgb_col_bytes,
};
