/*
 * db-schema.c: the schema is evidence. A trigger dropped or planted, a view
 * or index added, a column altered: each changes what the database does with
 * the rows the audit chain seals, without touching a sealed row. What aivet's
 * migrations create is the only schema aivet vouches for, so 'audit verify'
 * compares the database's schema objects with it and names the first
 * difference. On SQLite the expectation is made, not kept: the embedded
 * migrations applied to an in-memory database, whose sqlite_master is
 * compared with the file's (whitespace runs folded, so only what SQLite
 * parses counts). A migration added to the tree is part of it at once.
 * On PostgreSQL, whose auditor may create nothing to apply them to, the
 * expectation is kept in the tree: db/pg/schema-fingerprint.sql turns the
 * schema's catalogue into lines free of the schema's and owner's names, and
 * db/pg/schema.expect holds those lines for a database the migrations made
 * (tests/pg/pg-schema.sh regenerates it from the tree and fails when it is
 * stale); both are built into aivet.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/core.h"
#include "aivet/embedded.h"
#include "db-impl.h"

/* Every schema object of an SQLite database but SQLite's own (its autoindexes
 * follow from the tables' text), in one order. */
static const char objects_sql[] =
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_' "
    "ORDER BY type, name";

/* A schema object: "type name" and its SQL, whitespace runs folded to a space. */
struct schema_obj {
	char *key, *table, *sql;
};
struct schema {
	struct schema_obj *v;
	size_t n;
};

static char *
fold_space(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s)) {
			if (o != out && o[-1] != ' ')
				*o++ = ' ';
			continue;
		}
		*o++ = *s;
	}
	while (o != out && o[-1] == ' ')
		o--;
	*o = '\0';
	return out;
}

static void
schema_free(struct schema *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		free(s->v[i].table);
		free(s->v[i].sql);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int
schema_read(struct db *db, struct schema *s, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, objects_sql, NULL);
	size_t cap = 0;
	int rc;

	memset(s, 0, sizeof *s);
	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		if (s->n == cap) {
			cap = cap ? 2 * cap : 128;
			s->v = xrealloc(s->v, cap * sizeof *s->v);
		}
		s->v[s->n].key = xasprintf("%s %s", col_text(q, 0), col_text(q, 1));
		s->v[s->n].table = xstrdup(col_text(q, 2));
		s->v[s->n].sql = fold_space(col_text(q, 3));
		s->n++;
	}
	db_finalize(q);
	return rc == DB_DONE ? 0 : db_err(db, err, "schema");
}

/* What aivet's migrations create on SQLite: applied to an in-memory database. */
static int
schema_expected(struct schema *s, struct aerr *err)
{
	struct db *mem = NULL;
	int rc;

	if (lite_open_raw(":memory:", &mem) != DB_OK) {
		db_close(mem);
		return aerr_set(err, AV_RUNTIME, "cannot open an in-memory database for the schema check");
	}
	rc = db_migrate(mem, err);
	if (rc == 0)
		rc = schema_read(mem, s, err);
	db_close(mem);
	return rc;
}

/* The first difference between the two sorted lists, into problem. */
static void
schema_compare(const struct schema *want, const struct schema *have, char *problem, size_t n)
{
	size_t i = 0, j = 0;

	problem[0] = '\0';
	while (i < want->n || j < have->n) {
		int c = i == want->n ? 1 : j == have->n ? -1 : strcmp(want->v[i].key, have->v[j].key);

		if (c < 0) {
			snprintf(problem, n, "%s (on %s) of aivet's schema is missing: dropped behind aivet's "
			    "back", want->v[i].key, want->v[i].table);
			return;
		}
		if (c > 0) {
			snprintf(problem, n, "%s (on %s) is not in aivet's schema (its migrations create no "
			    "such object): made behind aivet's back", have->v[j].key, have->v[j].table);
			return;
		}
		if (strcmp(want->v[i].sql, have->v[j].sql) != 0 ||
		    strcmp(want->v[i].table, have->v[j].table) != 0) {
			snprintf(problem, n, "%s is not as aivet's migrations create it: changed behind "
			    "aivet's back", want->v[i].key);
			return;
		}
		i++;
		j++;
	}
}

/* Compares line (len bytes) with the expected line at *w, as PostgreSQL's "C"
 * collation orders them: bytes, a prefix first. */
static int
line_cmp(const char *w, size_t wl, const char *line, size_t len)
{
	int c = memcmp(w, line, wl < len ? wl : len);

	return c != 0 ? c : wl < len ? -1 : wl > len;
}

/* A store whose expectation is kept (PostgreSQL): the fingerprint's lines,
 * in order, against schema.expect's. */
static int
schema_check_kept(struct db *db, char *problem, size_t n, struct aerr *err)
{
	const struct embedded_file *q = &db->ops->schema_kept[0], *want = &db->ops->schema_kept[1];
	const char *w = (const char *)want->data, *end = w + want->len;
	char *sql = xmalloc(q->len + 1);
	struct db_stmt *st;
	int rc;

	memcpy(sql, q->data, q->len);
	sql[q->len] = '\0';
	st = db_prepare(db, err, sql, NULL);
	free(sql);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW) {
		const char *line = col_text(st, 0), *nl = memchr(w, '\n', (size_t)(end - w));
		size_t wl = (size_t)((nl ? nl : end) - w);
		int c = w == end ? 1 : line_cmp(w, wl, line, strlen(line));

		if (c == 0) {
			w += wl + (nl != NULL);
			continue;
		}
		if (c < 0)
			snprintf(problem, n, "%.*s ... of aivet's schema is missing or changed: changed behind "
			    "aivet's back", (int)(wl < 120 ? wl : 120), w);
		else
			snprintf(problem, n, "%.120s ... is not in aivet's schema (its migrations make no such "
			    "object): made or changed behind aivet's back", line);
		break;
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_err(db, err, "schema");
	if (rc == DB_DONE && w != end) {
		const char *nl = memchr(w, '\n', (size_t)(end - w));
		size_t wl = (size_t)((nl ? nl : end) - w);

		snprintf(problem, n, "%.*s ... of aivet's schema is missing or changed: changed behind "
		    "aivet's back", (int)(wl < 120 ? wl : 120), w);
	}
	return 0;
}

int
db_schema_check(struct db *db, char *problem, size_t n, struct aerr *err)
{
	struct schema want, have;
	int rc;

	problem[0] = '\0';
	if (db->ops->schema_kept != NULL)
		return schema_check_kept(db, problem, n, err);
	if ((rc = schema_expected(&want, err)) != 0)
		return rc;
	if ((rc = schema_read(db, &have, err)) == 0)
		schema_compare(&want, &have, problem, n);
	schema_free(&want);
	schema_free(&have);
	return rc;
}
