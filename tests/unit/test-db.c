/*
 * test-db.c: unit tests of the database layer on real SQLite files —
 * migrations and schema version, refusal of newer and foreign databases
 * (left byte-for-byte untouched), file modes, and the audit chain,
 * including rows tampered with behind aivet's back; and SQL's severity_rank()
 * agrees with the C registry's order (on a PostgreSQL server too when run as
 * "test-db severity URL", which tests/pg/pg-severity.sh does), as does the
 * SQL both stores accept as written; a piece of
 * evidence read back as its typed record and written by its one JSON writer.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "finding.h"
#include "../lib/tap.h"

static char dir[] = "/tmp/aivet-testdb-XXXXXX";

static char *
path(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static char *
file_hash(const char *p)
{
	struct buf b;
	struct aerr err;
	char *h = xmalloc(65);

	if (read_file(p, 1 << 26, &b, &err) != 0)
		return strcpy(h, "missing");
	sha256_hex(b.data, b.len, h);
	buf_free(&b);
	return h;
}

static void
test_migrations(void)
{
	char *p = path("sub/dir/a.db");
	struct db *db;
	struct aerr err = { 0 };
	int64_t v = -1, n = 0;
	struct stat sb;

	ok(db_open(p, &db, &err) == 0, "db_open creates a new database: %s", err.msg);
	db_int(db, &v, &err, "PRAGMA user_version", NULL);
	is_int(v, db_schema_version(), "user_version is the newest migration");
	ok(db_schema_version() >= 1, "at least one migration is embedded");
	db_int(db, &n, &err, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
	    "('vendor','endpoint','credential','questionnaire','assessment','answer','answer_history',"
	    "'blob','evidence','probe_run','probe_result','exchange','finding','incident',"
	    "'incident_entry','incident_task','report','audit_log')", NULL);
	is_int(n, 18, "the product's tables exist");
	db_int(db, &v, &err, "PRAGMA foreign_keys", NULL);
	is_int(v, 1, "foreign keys are enforced");
	{
		struct db_stmt *st = db_prepare(db, &err, "PRAGMA journal_mode", NULL);

		db_step(st);
		is_str(col_text(st, 0), "wal", "WAL mode");
		db_finalize(st);
	}
	db_close(db);
	ok(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600, "database file is 0600");
	{
		char *d = path("sub/dir");

		ok(stat(d, &sb) == 0 && (sb.st_mode & 0777) == 0700, "database directory is 0700");
		free(d);
	}
	/* Reopening applies nothing twice. */
	ok(db_open(p, &db, &err) == 0, "reopen");
	db_close(db);

	/* A database from a newer aivet is refused and left untouched. */
	{
		struct db *raw;
		char *before, *after, *want;

		db_open_raw(p, &raw);
		db_script(raw, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 999", NULL);
		db_close(raw);
		before = file_hash(p);
		is_int(db_open(p, &db, &err), AV_RUNTIME, "newer database refused");
		want = xasprintf("database %s has schema version 999, newer than this aivet understands "
		    "(%d): upgrade aivet; the database was left untouched", p, db_schema_version());
		is_str(err.msg, want, "newer database message");
		after = file_hash(p);
		is_str(after, before, "newer database bytes unchanged");
		free(before), free(after), free(want);
	}
	/* Someone else's SQLite file is not taken over. */
	{
		char *q = path("other.db");
		struct db *raw;
		char *before, *after;

		db_open_raw(q, &raw);
		db_script(raw, "PRAGMA journal_mode = DELETE; CREATE TABLE t(x); INSERT INTO t VALUES (1)", NULL);
		db_close(raw);
		before = file_hash(q);
		is_int(db_open(q, &db, &err), AV_USAGE, "foreign SQLite database refused");
		after = file_hash(q);
		is_str(after, before, "foreign database bytes unchanged");
		free(before), free(after), free(q);
	}
	/* Not a database at all. */
	{
		char *q = path("junk.db");
		FILE *f = fopen(q, "w");

		fputs("this is not sqlite, just text long enough to be read as a header......\n", f);
		fclose(f);
		is_int(db_open(q, &db, &err), AV_RUNTIME, "a non-database file is refused");
		ok(strstr(err.msg, q) != NULL, "message names the file: %s", err.msg);
		free(q);
	}
	free(p);
}

static int64_t
append(struct db *db, const char *action, int64_t id)
{
	struct aerr err;
	cJSON *d = cJSON_CreateObject();
	int rc;

	cJSON_AddNumberToObject(d, "n", (double)id);
	db_begin(db, &err);
	rc = audit_append(db, "tester", action, "note", id, d, &err);   /* the chain alone: no row sealed */
	db_commit(db, &err);
	cJSON_Delete(d);
	return rc;
}

static void
test_audit_chain(void)
{
	char *p = path("audit.db");
	struct db *db;
	struct aerr err = { 0 };
	struct audit_status st;
	char head[65];

	db_open(p, &db, &err);
	ok(audit_verify(db, &st, &err) == 0 && st.entries == 0 && st.bad_seq == 0,
	    "an empty log verifies");
	is_str(st.head, "0000000000000000000000000000000000000000000000000000000000000000",
	    "empty head is the genesis hash");
	for (int64_t i = 1; i <= 5; i++)
		is_int(append(db, "vendor.add", i), 0, "append entry %lld", (long long)i);
	ok(audit_verify(db, &st, &err) == 0 && st.entries == 5 && st.bad_seq == 0, "5 entries intact");
	memcpy(head, st.head, sizeof head);
	{
		struct db_stmt *s = db_prepare(db, &err, "SELECT prev_hash FROM audit_log WHERE seq = 1", NULL);

		db_step(s);
		is_str(col_text(s, 0), "0000000000000000000000000000000000000000000000000000000000000000",
		    "first entry chains from 64 zeros");
		db_finalize(s);
	}
	/* The triggers refuse edits. */
	ok(db_script(db, "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2", NULL)
	    != DB_OK, "UPDATE on the log is refused");
	ok(strstr(db_errmsg(db), "append-only") != NULL, "trigger says why: %s", db_errmsg(db));
	ok(db_script(db, "DELETE FROM audit_log WHERE seq = 5", NULL) != DB_OK,
	    "DELETE on the log is refused");
	/* Behind aivet's back: drop the triggers, edit a row. */
	db_script(db, "DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete", NULL);
	db_script(db, "UPDATE audit_log SET details = '{\"n\":99}' WHERE seq = 3", NULL);
	ok(audit_verify(db, &st, &err) == 0, "verify runs");
	is_int(st.bad_seq, 3, "the edited entry is named");
	is_str(st.problem, "entry 3: contents do not match its entry_hash (edited after it was written)",
	    "problem text");
	is_int(st.entries, 2, "entries before it are intact");
	/* Recomputing the edited row's own hash still breaks the link to the next. */
	{
		struct db_stmt *s = db_prepare(db, &err, "SELECT seq, at, actor, action, object_type, "
		    "object_id, details, prev_hash FROM audit_log WHERE seq = 3", NULL);
		char h[65];

		db_step(s);
		audit_entry_hash(3, col_text(s, 1), col_text(s, 2), col_text(s, 3), col_text(s, 4),
		    db_col_int64(s, 5), col_text(s, 6), col_text(s, 7), h);
		db_finalize(s);
		db_exec(db, &err, "UPDATE audit_log SET entry_hash = ? WHERE seq = 3", "t", h);
		audit_verify(db, &st, &err);
		is_int(st.bad_seq, 4, "a re-hashed entry breaks the next link");
		is_str(st.problem, "entry 4: prev_hash does not match the hash of entry 3", "link problem text");
	}
	/* A deleted row in the middle. */
	db_script(db, "DELETE FROM audit_log WHERE seq = 2", NULL);
	audit_verify(db, &st, &err);
	is_int(st.bad_seq, 2, "a removed entry is named");
	is_str(st.problem, "entry 2 is missing (next entry is 3)", "missing entry text");
	db_close(db);
	free(p);
}

static void
test_transactions(void)
{
	char *p = path("tx.db");
	struct db *db;
	struct aerr err = { 0 };
	int64_t n = -1;

	db_open(p, &db, &err);
	/* A failed write inside a transaction leaves neither the row nor its audit entry. */
	db_begin(db, &err);
	db_exec(db, &err, "INSERT INTO vendor (name, created_at, updated_at) VALUES ('A','t','t')", NULL);
	audit_append(db, "tester", "vendor.add", "vendor", 1, NULL, &err);
	is_int(db_exec(db, &err, "INSERT INTO vendor (name, created_at, updated_at) VALUES ('A','t','t')",
	    NULL), AV_RUNTIME, "duplicate insert fails");
	db_rollback(db);
	db_int(db, &n, &err, "SELECT (SELECT count(*) FROM vendor) + (SELECT count(*) FROM audit_log)", NULL);
	is_int(n, 0, "rollback leaves nothing behind");
	/* Criticality is checked by the schema too. */
	is_int(db_exec(db, &err, "INSERT INTO vendor (name, criticality, created_at, updated_at) "
	    "VALUES ('B', 9, 't', 't')", NULL), AV_RUNTIME, "schema refuses criticality 9");
	/* Blobs are stored once. */
	{
		char a[65], b[65];

		db_begin(db, &err);
		blob_put(db, "same bytes", 10, a, &err);
		blob_put(db, "same bytes", 10, b, &err);
		db_commit(db, &err);
		is_str(a, b, "same content, same hash");
		db_int(db, &n, &err, "SELECT count(*) FROM blob", NULL);
		is_int(n, 1, "stored once");
	}
	db_close(db);
	free(p);
}

/* An attached file read back as struct evidence_item: its fields, its JSON as
 * "evidence show --json" has always printed it, and a free that is safe twice. */
static void
test_evidence_record(void)
{
	char *p = path("ev.db"), *f = path("note 1.txt"), *text;
	struct evidence_item e;
	struct aerr err = { 0 };
	struct db *db;
	int64_t id = 0;
	cJSON *j;

	write_file_atomic(f, "hello", 5, 0644, &err);
	db_open(p, &db, &err);
	db_begin(db, &err);
	ok(evidence_add_file(db, "tester", f, "2026-01-02", &id, &err) == 0, "evidence_add_file: %s", err.msg);
	db_commit(db, &err);
	ok(evidence_get(db, id, 0, &e, &err) == 0, "evidence_get: %s", err.msg);
	is_str(e.kind, "file", "kind");
	is_str(e.original_name, "note 1.txt", "original_name");
	is_str(e.media_type, "text/plain", "media_type");
	is_int(e.size, 5, "size");
	is_str(e.file, "file-1-note_1.txt", "file: its name in a bundle's evidence/");
	ok(e.exchange == NULL && e.nfindings == 0, "a file has no exchange and no findings");
	j = evidence_item_to_json(&e);
	cJSON_DeleteItemFromObject(j, "added_at");
	text = cJSON_PrintUnformatted(j);
	is_str(text, "{\"id\":1,\"kind\":\"file\",\"sha256\":\"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\","
	    "\"original_name\":\"note 1.txt\",\"media_type\":\"text/plain\",\"size\":5,"
	    "\"effective_date\":\"2026-01-02\",\"added_by\":\"tester\",\"file\":\"file-1-note_1.txt\"}",
	    "evidence_item_to_json: the keys, their order and types");
	free(text);
	cJSON_Delete(j);
	evidence_item_free(&e);
	ok(e.kind == NULL && e.file == NULL, "evidence_item_free zeroes the record");
	evidence_item_free(&e);
	is_int(evidence_get(db, 99, 0, &e, &err), AV_USAGE, "no such evidence is a usage error");
	is_str(err.msg, "no evidence with id 99", "and names the id");
	evidence_item_free(&e);
	db_close(db);
	free(f);
	free(p);
}

/* SQL sorts and compares severities as C does: severity_rank() gives each
 * registry name its place, -1 for any other, and an ORDER BY on it lists the
 * registry's order. Fails when the two disagree. */
static void
test_severity_order(const char *spec, const char *where)
{
	struct db *db;
	struct aerr err = { 0 };
	struct buf want, got;
	struct db_stmt *st;
	int64_t r = 0;

	if (db_open(spec, &db, &err) != 0) {
		ok(0, "%s: open: %s", where, err.msg);
		return;
	}
	buf_init(&want);
	buf_init(&got);
	for (int s = 0; s < SEV_COUNT; s++) {
		r = -2;
		db_int(db, &r, &err, "SELECT severity_rank(?)", "t", severity_name((enum severity)s));
		is_int(r, s, "%s: severity_rank('%s') in SQL is its place in the registry", where,
		    severity_name((enum severity)s));
		buf_printf(&want, "%s%s", s ? " " : "", severity_name((enum severity)s));
	}
	db_int(db, &r, &err, "SELECT severity_rank('CRITICAL') + 10 * severity_rank('') + "
	    "100 * severity_rank(NULL)", NULL);
	is_int(r, -111, "%s: an unknown name ranks -1, as severity_rank() in C", where);
	/* The registry's names given in reverse, sorted back by SQL. */
	st = db_prepare(db, &err, "SELECT n FROM (SELECT 'critical' AS n UNION ALL SELECT 'high' "
	    "UNION ALL SELECT 'medium' UNION ALL SELECT 'low' UNION ALL SELECT 'info') x "
	    "ORDER BY severity_rank(n)", NULL);
	while (st != NULL && db_step(st) == DB_ROW)
		buf_printf(&got, "%s%s", got.len ? " " : "", col_text(st, 0));
	db_finalize(st);
	buf_add(&want, "", 1);
	buf_add(&got, "", 1);
	is_str((char *)got.data, (char *)want.data, "%s: ORDER BY severity_rank() is the registry's order", where);
	buf_free(&want);
	buf_free(&got);
	db_close(db);
}

/* The SQL both stores accept where SQLite and PostgreSQL once needed a
 * rewrite: nothing is translated at prepare, so each statement runs as written
 * on SQLite and (as "test-db severity URL") on a PostgreSQL server. */
/* A row list that fails after its first row is an error, not a list of one. */
static void
test_ids_cut_short(struct db *db, const char *where)
{
	struct aerr err = { 0 };
	int64_t *ids = NULL;
	size_t n = 9;
	int rc;

	/* The second row overflows a 64-bit integer, on either store, as it is stepped to. */
	rc = db_ids(db_prepare(db, &err, "SELECT 1 UNION ALL SELECT abs(-9223372036854775807 - 1)", NULL),
	    &ids, &n, &err);
	is_int(rc != 0 && ids == NULL && n == 0 && err.msg[0] != '\0', 1,
	    "%s: db_ids: an error after the first row is an error, no ids (rc %d, %zu ids: %s)", where, rc,
	    n, err.msg);
	free(ids);
}

static void
test_portable_sql(const char *spec, const char *where)
{
	static const char json[] = "{\"foreign_canaries\":3,\"n\":\"\xc3\xa9\"}";
	struct db *db;
	struct aerr err = { 0 };
	struct db_stmt *st;
	int64_t r = -1;

	if (db_open(spec, &db, &err) != 0) {
		ok(0, "%s: open: %s", where, err.msg);
		return;
	}
	st = db_prepare(db, &err, "SELECT convert_from(?, 'UTF8')", "b", json, strlen(json));
	is_str(st != NULL && db_step(st) == DB_ROW ? col_text(st, 0) : err.msg, json,
	    "%s: convert_from(bytes, 'UTF8') reads stored bytes as the text they hold", where);
	db_finalize(st);
	db_int(db, &r, &err, "SELECT CAST(json_extract(convert_from(?, 'UTF8'), '$.foreign_canaries') AS INTEGER)",
	    "b", json, strlen(json));
	is_int(r, 3, "%s: json_extract of those bytes", where);
	r = -1;
	db_int(db, &r, &err, "SELECT CASE WHEN NULL IS DISTINCT FROM 'x' THEN 1 ELSE 0 END + "
	    "CASE WHEN 'x' IS DISTINCT FROM 'x' THEN 2 ELSE 0 END + "
	    "CASE WHEN NULL IS NOT DISTINCT FROM NULL THEN 4 ELSE 0 END", NULL);
	is_int(r, 5, "%s: IS [NOT] DISTINCT FROM compares NULL as a value", where);
	r = -1;
	if (db_exec(db, &err, "CREATE TEMP TABLE portable (a INTEGER PRIMARY KEY)", NULL) == 0 &&
	    db_exec(db, &err, "INSERT INTO portable (a) VALUES (?) ON CONFLICT DO NOTHING", "i", (int64_t)7) == 0 &&
	    db_exec(db, &err, "INSERT INTO portable (a) VALUES (?) ON CONFLICT DO NOTHING", "i", (int64_t)7) == 0)
		r = db_changes(db) * 10;
	if (r >= 0)
		db_int(db, &r, &err, "SELECT ? + count(*) FROM portable", "i", r);
	is_int(r, 1, "%s: INSERT ... ON CONFLICT DO NOTHING keeps one row, changes none the second time (%s)",
	    where, err.msg);
	test_ids_cut_short(db, where);
	db_close(db);
}

int
main(int argc, char **argv)
{
	if (sodium_init() < 0)
		return 99;
	if (argc == 3 && strcmp(argv[1], "severity") == 0) {
		test_severity_order(argv[2], "PostgreSQL");
		test_portable_sql(argv[2], "PostgreSQL");
		return tap_done();
	}
	if (mkdtemp(dir) == NULL)
		return 99;
	test_migrations();
	test_audit_chain();
	test_transactions();
	test_evidence_record();
	{
		char *p = path("severity.db");

		test_severity_order(p, "SQLite");
		test_portable_sql(p, "SQLite");
		free(p);
	}
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		if (system(cmd) != 0)
			ok(0, "cleanup");
		free(cmd);
	}
	return tap_done();
}
