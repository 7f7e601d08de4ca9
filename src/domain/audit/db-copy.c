/*
 * db-copy.c: "aivet db copy": moves a whole aivet database into an empty
 * one, SQLite or PostgreSQL either way (or SQLite to SQLite), keeping every
 * id, the stored content and the audit chain exactly, so that
 * 'aivet audit verify' gives the same head on both. The copy adds no audit
 * entry of its own: the destination holds the source's record, entry for
 * entry, and its chain proves that.
 *
 * Rows are read through the query layer and inserted with the type each
 * value had, table by table in the order their references need, all in one
 * transaction on the destination, which commits only when its chain
 * verifies to the source's head. Two guarantees of the schema would refuse
 * a plain copy, and are met rather than switched off:
 *  - a round in review or final takes no answers, history or evidence
 *    links: it is inserted as a draft, its rows follow, then it moves on
 *    through review to final as the workflow moves it (db/008-workflow.sql);
 *  - on PostgreSQL the audit log takes only entries by the login writing
 *    them and approval only by a reviewer: the copy sets aivet.restore for
 *    its transaction, which those triggers honour only for the database's
 *    owner (who owns the triggers and could drop them anyway), so it grants
 *    no one anything.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "db-admin.h"

/* Every table, parents before children; order is the key rows are copied in
 * (the audit log's seq must arrive in order, assessments before the rounds
 * that follow them). */
static const struct copy_table {
	const char *name;
	const char *order;
} copy_tables[] = {
	{ "vendor", "id" },
	{ "endpoint", "id" },
	{ "credential", "id" },
	{ "engine_node", "id" },
	{ "advisory", "id" },
	{ "questionnaire", "id" },
	{ "assessment", "id" },
	{ "answer", "assessment_id, question_id" },
	{ "answer_history", "id" },
	{ "blob", "sha256" },
	{ "blob_seal", "id" },
	{ "evidence", "id" },
	{ "answer_evidence", "assessment_id, question_id, evidence_id" },
	{ "probe_run", "id" },
	{ "probe_result", "id" },
	{ "exchange", "id" },
	{ "finding", "id" },
	{ "finding_evidence", "finding_id, evidence_id" },
	{ "incident", "id" },
	{ "incident_entry", "id" },
	{ "incident_task", "id" },
	{ "incident_link", "incident_id, object_type, object_id" },
	{ "report", "id" },
	{ "probe_schedule", "id" },
	{ "probe_queue", "id" },
	{ "probe_limit", "vendor_id" },
	{ "audit_log", "seq" },
};
#define NCOPY (sizeof copy_tables / sizeof copy_tables[0])

/* Tables aivet's migrations make for the stores' own use, not part of aivet's
 * record (the stores' internal tables db_tables() leaves out). */
static int
bookkeeping(const char *name)
{
	return strcmp(name, "aivet_schema") == 0 ||
	    strcmp(name, "aivet_op") == 0 || strcmp(name, "aivet_severity") == 0 ||
	    strcmp(name, "aivet_seal_part") == 0 ||
	    strcmp(name, "schema_version") == 0 || strcmp(name, "aivet_migration") == 0;
}

static const struct copy_table *
copy_lookup(const char *name)
{
	for (size_t i = 0; i < NCOPY; i++)
		if (strcmp(copy_tables[i].name, name) == 0)
			return &copy_tables[i];
	return NULL;
}

/* A table the source holds that this copy does not know would be left
 * behind: refuse rather than copy part of the record. */
static int
tables_known(struct db *db, const char *which, struct aerr *err)
{
	struct db_stmt *st = db_tables(db, err);
	int rc, bad = 0;

	if (st == NULL)
		return AV_RUNTIME;
	while (!bad && (rc = db_step(st)) == DB_ROW) {
		const char *t = col_text(st, 0);

		if (!bookkeeping(t) && copy_lookup(t) == NULL)
			bad = aerr_set(err, AV_RUNTIME, "the %s database has a table '%s' that db copy does not "
			    "know: nothing was copied", which, t);
	}
	if (!bad && rc != DB_DONE)
		bad = db_err(db, err, "tables");
	db_finalize(st);
	return bad;
}

static int
dst_empty(struct db *dst, struct aerr *err)
{
	struct buf why;
	int rc = 0;

	buf_init(&why);
	for (size_t i = 0; i < NCOPY; i++) {
		char *sql = xasprintf("SELECT count(*) FROM %s", copy_tables[i].name);
		int64_t n = 0;

		if (db_int(dst, &n, err, sql, NULL) < 0)
			rc = err->code;
		free(sql);
		if (rc != 0)
			break;
		if (n > 0)
			buf_printf(&why, "%s%lld %s", why.len ? ", " : "", (long long)n, copy_tables[i].name);
	}
	if (rc == 0 && why.len > 0)
		rc = aerr_set(err, AV_USAGE, "the destination is not empty (%s): db copy only fills an empty "
		    "database; nothing was copied", why.data);
	buf_free(&why);
	return rc;
}

/* The INSERT for the columns the source's rows have, in their order. */
static char *
insert_sql(const char *table, struct db_stmt *src)
{
	struct buf b;
	int n = db_col_count(src);

	buf_init(&b);
	buf_printf(&b, "INSERT INTO %s (", table);
	for (int c = 0; c < n; c++)
		buf_printf(&b, "%s%s", c ? ", " : "", db_col_name(src, c));
	buf_printf(&b, ") VALUES (");
	for (int c = 0; c < n; c++)
		buf_printf(&b, "%s?", c ? ", " : "");
	buf_printf(&b, ")");
	return buf_steal(&b);
}

/* Binds column c of the source's row as parameter c+1, with the value's own type;
 * the status of a round in review or final goes in as draft (see the top of the file). */
static int
bind_value(struct db_stmt *ins, struct db_stmt *src, int c, int draft)
{
	switch (draft ? DB_TEXT : db_col_type(src, c)) {
	case DB_INTEGER:
		return db_bind(ins, c + 1, DB_INTEGER, db_col_int64(src, c), 0, NULL, 0);
	case DB_FLOAT:
		return db_bind(ins, c + 1, DB_FLOAT, 0, db_col_double(src, c), NULL, 0);
	case DB_TEXT: {
		const char *s = draft ? "draft" : db_col_text(src, c);

		return db_bind(ins, c + 1, DB_TEXT, 0, 0, s, strlen(s));
	}
	case DB_BLOB:
		return db_bind(ins, c + 1, DB_BLOB, 0, 0, db_col_blob(src, c), (size_t)db_col_bytes(src, c));
	default:
		return db_bind(ins, c + 1, DB_NULL, 0, 0, NULL, 0);
	}
}

struct finals {
	int64_t *ids;
	int *final;
	size_t n, cap;
};

/* One table, row by row. Rounds in review or final are noted in *fin, to move
 * on after their rows are in. */
static int
copy_table(struct db *src, struct db *dst, const struct copy_table *t, struct finals *fin,
    int64_t *rows, struct aerr *err)
{
	char *sql = xasprintf("SELECT * FROM %s ORDER BY %s", t->name, t->order);
	struct db_stmt *st = db_prepare(src, err, sql, NULL), *ins = NULL;
	int rc = 0, r, status_col = -1;

	free(sql);
	if (st == NULL)
		return AV_RUNTIME;
	*rows = 0;
	while (rc == 0 && (r = db_step(st)) == DB_ROW) {
		int draft_col = -1;

		if (ins == NULL) {
			sql = insert_sql(t->name, st);
			if (db_prepare_raw(dst, sql, &ins) != DB_OK)
				rc = aerr_set(err, AV_RUNTIME, "database: %s: %s", sql, db_errmsg(dst));
			free(sql);
			for (int c = 0; c < db_col_count(st); c++)
				if (strcmp(t->name, "assessment") == 0 && strcmp(db_col_name(st, c), "status") == 0)
					status_col = c;
			if (rc != 0)
				break;
		}
		if (status_col >= 0 && strcmp(col_text(st, status_col), "draft") != 0) {
			draft_col = status_col;
			if (fin->n == fin->cap) {
				fin->cap = fin->cap ? fin->cap * 2 : 16;
				fin->ids = xrealloc(fin->ids, fin->cap * sizeof *fin->ids);
				fin->final = xrealloc(fin->final, fin->cap * sizeof *fin->final);
			}
			fin->final[fin->n] = strcmp(col_text(st, status_col), "final") == 0;
			fin->ids[fin->n++] = db_col_int64(st, 0);
		}
		db_reset(ins);
		for (int c = 0; rc == 0 && c < db_col_count(st); c++)
			if (bind_value(ins, st, c, c == draft_col) != DB_OK)
				rc = db_err(dst, err, t->name);
		if (rc == 0 && db_step(ins) != DB_DONE)
			rc = db_err(dst, err, t->name);
		(*rows)++;
	}
	if (rc == 0 && r != DB_DONE)
		rc = db_err(src, err, t->name);
	db_finalize(ins);
	db_finalize(st);
	return rc;
}

static int
copy_rows(struct db *src, struct db *dst, struct db_copy_result *res, struct aerr *err)
{
	struct finals fin = { 0 };
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < NCOPY; i++) {
		struct db_copy_table *ct = &res->tables[res->ntables++];

		ct->name = copy_tables[i].name;
		rc = copy_table(src, dst, &copy_tables[i], &fin, &ct->rows, err);
		res->rows += ct->rows;
		/* Answers, history and evidence links are in: rounds go back in review, and final. */
		if (rc == 0 && strcmp(ct->name, "answer_evidence") == 0)
			for (size_t k = 0; rc == 0 && k < fin.n; k++) {
				rc = db_exec(dst, err, "UPDATE assessment SET status = 'in_review' WHERE id = ?", "i",
				    fin.ids[k]);
				if (rc == 0 && fin.final[k])
					rc = db_exec(dst, err, "UPDATE assessment SET status = 'final' WHERE id = ?",
					    "i", fin.ids[k]);
			}
		if (rc == 0 && ct->rows > 0 && strcmp(copy_tables[i].order, "id") == 0)
			rc = db_ids_follow(dst, ct->name, err);
	}
	free(fin.ids);
	free(fin.final);
	return rc;
}

int
db_copy(struct db *src, struct db *dst, struct db_copy_result *res, struct aerr *err)
{
	int rc;

	memset(res, 0, sizeof *res);
	if (db_has(dst, DB_ROLES)) {
		struct db_login me;

		if (db_whoami(dst, "", &me, err) != 0)
			return err->code;
		/* The copied entries name other logins: only the owner may restore them. */
		if (!me.owner)
			return aerr_set(err, AV_USAGE, "db copy into a PostgreSQL database is for its owner: %s "
			    "is not it; nothing was copied", me.name);
	}
	if (tables_known(src, "source", err) != 0 || tables_known(dst, "destination", err) != 0)
		return err->code;
	if (dst_empty(dst, err) != 0)
		return err->code;
	if (audit_verify(src, &res->src, err) != 0)
		return err->code;
	if (db_begin(dst, err) != 0)
		return err->code;
	rc = db_restore_mode(dst, 1, err);
	/* Checked again inside the transaction: another writer may have come first. */
	if (rc == 0)
		rc = dst_empty(dst, err);
	if (rc == 0)
		rc = copy_rows(src, dst, res, err);
	if (rc == 0)
		rc = db_restore_mode(dst, 0, err);
	if (rc == 0)
		rc = audit_verify(dst, &res->dst, err);
	if (rc == 0 && (res->dst.entries != res->src.entries || strcmp(res->dst.head, res->src.head) != 0 ||
	    res->dst.bad_seq != res->src.bad_seq))
		rc = aerr_set(err, AV_RUNTIME, "the copy's audit chain (%lld entries, head %s%s%s) is not "
		    "the source's (%lld entries, head %s): nothing was copied", (long long)res->dst.entries,
		    res->dst.head, res->dst.bad_seq ? "; " : "", res->dst.bad_seq ? res->dst.problem : "",
		    (long long)res->src.entries, res->src.head);
	if (rc != 0) {
		db_rollback(dst);
		return rc;
	}
	if (db_commit(dst, err) != 0)
		return err->code;
	if (db_analyze(dst, err) != 0)
		return aerr_prefix(err, "copied, but the destination's planner statistics were not gathered "
		    "(run ANALYZE there)");
	return 0;
}
