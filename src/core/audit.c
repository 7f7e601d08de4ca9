/*
 * audit.c: the append-only, hash-chained audit log. Every change to the
 * database appends one entry in the same transaction as the change. Each
 * entry's hash covers its fields and the previous entry's hash, so an edit
 * made behind aivet's back (even with the triggers dropped) breaks the chain.
 * An entry about an evidentiary row (a finding, a probe result or run, an
 * exchange's evidence, an assessment with its answers, an incident entry, a
 * report) also seals that row: row_hash, computed here from the row itself
 * (on PostgreSQL by the server, from the same parts), so every writer keeps
 * its one audit_append() call. A row written once is sealed once, by the
 * entry that created it; a mutable one by its newest entry, whose action
 * must edit it (seal_kinds[]). Since schema 017 such an entry also holds the
 * row's full content (audit-content.h), which the row hash ties to it: verify
 * replays the entries, comparing what each says of its row with the content
 * and each change with what its entry names or its action writes, and an
 * append that would re-seal a row changed behind aivet's back is refused.
 *
 * Canonical encoding (documented in aivet(1)): the fields seq, at, actor,
 * action, object_type, object_id, details, prev_hash, in that order, then
 * row_hash when the entry seals a row, each as a netstring
 * "<decimal length>:<bytes>,"; entry_hash is the lower-case hex SHA-256 of
 * their concatenation. The first entry's prev_hash is 64 zeros.
 *
 * row_hash: SHA-256 over the netstrings of the object type and id, then for
 * each part of the seal (seal-parts.h: the row, then its child rows in their order)
 * the part's table name, and each row's columns in the listed order, a
 * column as a netstring of its SQLite text or "~" for NULL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet/core.h"
#include "audit-content.h"

static const char genesis[] =
    "0000000000000000000000000000000000000000000000000000000000000000";






/* A SHA-256 as aivet writes it (64 lower-case hex digits, nothing after) into its
 * bytes; 0 when s is anything else, which then matches no hash. */
static int
hash_decode(const char *s, unsigned char md[crypto_hash_sha256_BYTES])
{
	/* Each byte's value as a lower-case hex digit, plus one; 0 for any other byte. */
	static const unsigned char digit[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
		['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
		['e'] = 15, ['f'] = 16,
	};
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < crypto_hash_sha256_BYTES; i++) {
		unsigned hi = digit[p[2 * i]], lo;

		/* A NUL (or any other byte) ends the decoding before the next is read. */
		if (hi == 0 || (lo = digit[p[2 * i + 1]]) == 0)
			return 0;
		md[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
	}
	return p[2 * crypto_hash_sha256_BYTES] == '\0';
}

#define NSEAL (sizeof seal_parts / sizeof seal_parts[0])

/* Who may seal each object type. An evidentiary row is sealed once, by the
 * entry that created it (edits NULL): a later entry about it is a break,
 * whatever it carries. A mutable row (a vendor, an endpoint, an assessment's
 * status and answers, a run while it runs, an incident's facts) is re-sealed
 * only by the actions that edit it; its newest entry seals it. Any other
 * action about a sealed type is a break. since006: sealed since schema 006
 * (the others since 004); see seal_onset(). */
struct seal_kind {
	const char *type;
	const char *creates;   /* actions, space-separated */
	const char *edits;     /* NULL: sealed once */
	int since006;
};

static const struct seal_kind seal_kinds[] = {
	{ "finding", "probe.finding", NULL, 0 },
	{ "probe_result", "probe.result", NULL, 0 },
	{ "probe_run", "probe.start", "probe.calibrate probe.finish probe.interrupted", 0 },
	{ "evidence", "probe.exchange evidence.add", NULL, 0 },
	{ "assessment", "assessment.start assessment.reopen", "answer.set answer.clear answer.note "
	  "answer.import answer.evidence assessment.submit assessment.approve assessment.return", 0 },
	{ "incident_entry", "incident.entry", NULL, 0 },
	{ "report", "report.export", NULL, 0 },
	{ "questionnaire", "questionnaire.load", NULL, 1 },
	{ "vendor", "vendor.add", "vendor.edit vendor.archive", 1 },
	{ "endpoint", "endpoint.add", "endpoint.edit endpoint.archive endpoint.confirm", 1 },
	{ "incident", "incident.open", "incident.status incident.edit incident.link", 1 },
	{ "incident_task", "incident.task.add", "incident.task.done", 1 },
	{ "blob_seal", "blob.seal", NULL, 1 },
	{ "advisory", "advisory.import", NULL, 1 },
};
#define NKIND (sizeof seal_kinds / sizeof seal_kinds[0])

/* A sealed type seal_kinds[] does not name: no action may write it, so every
 * entry about it is named, saying where the type is missing. */
static const struct seal_kind unnamed_kind = {
	"type that seal_kinds[] in src/core/audit.c does not name", "", NULL, 0
};

static const struct seal_kind *
kind_lookup(const char *type)
{
	for (size_t i = 0; i < NKIND; i++)
		if (strcmp(seal_kinds[i].type, type) == 0)
			return &seal_kinds[i];
	return &unnamed_kind;
}


/* What an action is to a sealed type's rows. */
enum seal_role { SEAL_CREATES, SEAL_EDITS, SEAL_NONE };

static enum seal_role
seal_role(const struct seal_kind *k, const char *action)
{
	if (word_in(k->creates, action))
		return SEAL_CREATES;
	return word_in(k->edits, action) ? SEAL_EDITS : SEAL_NONE;
}

/* The table registry: every table of aivet's schema and what keeps its rows
 * honest. A table that a verdict, rating, claim, clock or report reads is
 * sealed (an audit entry carries the hash of the row as written; audit verify
 * recomputes it) or derived (rebuilt from sealed rows: none today). 'audit
 * verify' refuses a database holding a table this list does not name, so a
 * migration that adds one must say here what it is. */
static const struct audit_table audit_tables_list[] = {
	{ "vendor", AUDIT_TABLE_SEALED, "vendor" },
	{ "endpoint", AUDIT_TABLE_SEALED, "endpoint" },
	{ "credential", AUDIT_TABLE_SEALED, "endpoint" },
	{ "engine_node", AUDIT_TABLE_SEALED, "endpoint" },
	{ "advisory", AUDIT_TABLE_SEALED, "advisory" },
	{ "questionnaire", AUDIT_TABLE_SEALED, "questionnaire" },
	{ "assessment", AUDIT_TABLE_SEALED, "assessment" },
	{ "answer", AUDIT_TABLE_SEALED, "assessment" },
	{ "answer_history", AUDIT_TABLE_SEALED, "assessment" },
	{ "answer_evidence", AUDIT_TABLE_SEALED, "assessment" },
	{ "evidence", AUDIT_TABLE_SEALED, "evidence" },
	{ "exchange", AUDIT_TABLE_SEALED, "evidence" },
	{ "probe_run", AUDIT_TABLE_SEALED, "probe_run" },
	{ "probe_result", AUDIT_TABLE_SEALED, "probe_result" },
	{ "finding", AUDIT_TABLE_SEALED, "finding" },
	{ "finding_evidence", AUDIT_TABLE_SEALED, "finding" },
	{ "incident", AUDIT_TABLE_SEALED, "incident" },
	{ "incident_link", AUDIT_TABLE_SEALED, "incident" },
	{ "incident_entry", AUDIT_TABLE_SEALED, "incident_entry" },
	{ "incident_task", AUDIT_TABLE_SEALED, "incident_task" },
	{ "report", AUDIT_TABLE_SEALED, "report" },
	{ "blob_seal", AUDIT_TABLE_SEALED, "blob_seal" },
	/* Named by its SHA-256: plaintext must hash to its name; a sealed box must be
	 * the one its blob_seal row recorded. */
	{ "blob", AUDIT_TABLE_CONTENT, NULL },
	{ "audit_log", AUDIT_TABLE_LOG, NULL },
	/* PostgreSQL's schema version (SQLite keeps it in the file header). */
	{ "aivet_schema", AUDIT_TABLE_SCHEMA, NULL },
	/* PostgreSQL's operations of the current transaction, which the write
	 * functions record and the commit check reads (db/pg/008-workflow.sql). */
	{ "aivet_op", AUDIT_TABLE_SCHEMA, NULL },
	/* PostgreSQL's copy of the severity order, filled by aivet from severity.h
	 * at migration (SQLite's severity_rank() is a registered function). */
	{ "aivet_severity", AUDIT_TABLE_SCHEMA, NULL },
	/* PostgreSQL's copy of seal-parts.h, filled by aivet at migration, from
	 * which the server computes row hashes (db/pg/012-server-seals.sql). */
	{ "aivet_seal_part", AUDIT_TABLE_SCHEMA, NULL },
	/* Probe runs queued for workers, their schedules and the fleet's limits
	 * (db/014-queue.sql): a lease changes every few seconds, so rows are not
	 * sealed; queueing, schedules, limits and requeueing have their audit
	 * entries, and a queued run's evidence is its sealed probe_run. */
	{ "probe_queue", AUDIT_TABLE_WORK, NULL },
	{ "probe_schedule", AUDIT_TABLE_WORK, NULL },
	{ "probe_limit", AUDIT_TABLE_WORK, NULL },
	{ NULL, 0, NULL }
};
const struct audit_table *const audit_tables = audit_tables_list;

const char *
audit_table_kind_name(enum audit_table_kind k)
{
	static const char *const names[] = { "sealed", "derived", "content", "log", "schema", "work" };

	return names[k];
}

const struct audit_table *
audit_table_lookup(const char *name)
{
	for (const struct audit_table *t = audit_tables_list; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

cJSON *
audit_registry_json(void)
{
	cJSON *o = cJSON_CreateObject(), *tables = cJSON_AddArrayToObject(o, "tables");
	cJSON *seals = cJSON_AddArrayToObject(o, "seals"), *parts = NULL;

	for (const struct audit_table *t = audit_tables_list; t->name != NULL; t++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "table", t->name);
		cJSON_AddStringToObject(e, "kind", audit_table_kind_name(t->kind));
		json_add_str(e, "sealed_by", t->sealed_by);
		cJSON_AddItemToArray(tables, e);
	}
	for (size_t i = 0; i < NSEAL; i++) {
		const struct seal_part *p = &seal_parts[i];
		cJSON *e;

		if (i == 0 || strcmp(p->type, seal_parts[i - 1].type) != 0) {
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "object_type", p->type);
			cJSON_AddStringToObject(e, "label", p->label);
			cJSON_AddStringToObject(e, "creates", kind_lookup(p->type)->creates);
			json_add_str(e, "edits", kind_lookup(p->type)->edits);
			parts = cJSON_AddArrayToObject(e, "parts");
			cJSON_AddItemToArray(seals, e);
		}
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "table", p->table);
		cJSON_AddStringToObject(e, "key", p->key);
		cJSON_AddStringToObject(e, "columns", p->cols);
		cJSON_AddStringToObject(e, "order", p->order);
		json_add_str(e, "where", p->cond);
		cJSON_AddBoolToObject(e, "only_when_rows", p->late);
		cJSON_AddItemToArray(parts, e);
	}
	return o;
}

/* Prepared statements for one append. */
struct sealer {
	struct db_stmt *st[NSEAL];
};

static void
sealer_free(struct sealer *s)
{
	for (size_t i = 0; i < NSEAL; i++)
		db_finalize(s->st[i]);
	memset(s, 0, sizeof *s);
}

static const struct seal_part *
seal_lookup(const char *type)
{
	for (size_t i = 0; i < NSEAL; i++)
		if (strcmp(seal_parts[i].type, type) == 0)
			return &seal_parts[i];
	return NULL;
}

/* One row's columns from column first on, each a netstring of its text or "~"
 * (a NULL column has no text: one call per column). */
static void
hash_row(struct seal_hash *h, struct db_stmt *st, int first)
{
	for (int c = first, n = db_col_count(st); c < n; c++) {
		const char *t = db_col_text(st, c);

		if (t == NULL)
			sh_add(h, "~", 1);
		else
			netstring(h, t);
	}
}


static void
hash_end(struct seal_hash *h, char out[65])
{
	unsigned char md[crypto_hash_sha256_BYTES];

	sh_final(h, md);
	hex_encode(md, sizeof md, out);
}

/* One row as a member of an entry's content: each column by its name, its
 * text or null (audit-content.h). */
static cJSON *
content_row_json(struct db_stmt *st)
{
	cJSON *o = cJSON_CreateObject();

	for (int c = 0, n = db_col_count(st); c < n; c++) {
		const char *t = db_col_text(st, c);

		cJSON_AddItemToObject(o, db_col_name(st, c), t ? cJSON_CreateString(t) : cJSON_CreateNull());
	}
	return o;
}

/* The hash of the object's rows as they are now; *present says whether its own
 * row exists; content (an array, or NULL) gets each part's rows as the entry's
 * full content. Returns 0 or an error; types that are not sealed give out "". */
static int
row_hash(struct db *db, struct sealer *s, const char *type, int64_t id, char out[65], int *present,
    cJSON *content, struct aerr *err)
{
	const struct seal_part *first = seal_lookup(type);
	struct seal_hash h;

	out[0] = '\0';
	*present = 0;
	if (first == NULL)
		return 0;
	hash_begin(&h, type, id);
	for (size_t i = (size_t)(first - seal_parts); i < NSEAL && strcmp(seal_parts[i].type, type) == 0;
	    i++) {
		const struct seal_part *p = &seal_parts[i];
		struct db_stmt *st = s->st[i];
		cJSON *part = NULL, *rows_json = NULL;
		int rc, rows = 0;

		if (st == NULL) {
			char *sql = xasprintf("SELECT %s FROM %s WHERE %s = ?1%s%s ORDER BY %s", p->cols,
			    p->table, p->key, p->cond ? " AND " : "", p->cond ? p->cond : "", p->order);

			/* Bound per object below, so prepared without db_prepare's binding. */
			rc = db_prepare_raw(db, sql, &s->st[i]);
			free(sql);
			if (rc != DB_OK)
				return db_err(db, err, p->table);
			st = s->st[i];
		}
		db_reset(st);
		db_bind_int64(st, 1, id);
		if (!p->late)
			netstring(&h, p->table);
		if (content != NULL) {
			part = cJSON_CreateObject();
			cJSON_AddStringToObject(part, "table", p->table);
			rows_json = cJSON_AddArrayToObject(part, "rows");
			cJSON_AddItemToArray(content, part);
		}
		while ((rc = db_step(st)) == DB_ROW) {
			if (p->label != NULL)
				*present = 1;
			if (p->late && rows == 0)
				netstring(&h, p->table);
			rows++;
			hash_row(&h, st, 0);
			if (rows_json != NULL)
				cJSON_AddItemToArray(rows_json, content_row_json(st));
		}
		if (rc != DB_DONE)
			return db_err(db, err, p->table);
	}
	hash_end(&h, out);
	return 0;
}

/* The canonical encoding of an entry, hashed (the digest's bytes). */
static void
entry_digest(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, const char *row_hash, unsigned char md[crypto_hash_sha256_BYTES])
{
	struct seal_hash h;

	sh_init(&h);
	netstring_int(&h, seq);
	netstring(&h, at);
	netstring(&h, actor);
	netstring(&h, action);
	netstring(&h, object_type);
	netstring_int(&h, object_id);
	netstring(&h, details);
	netstring(&h, prev_hash);
	if (row_hash != NULL)
		netstring(&h, row_hash);
	sh_final(&h, md);
}

void
audit_entry_hash_sealed(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, const char *row_hash, char out[65])
{
	unsigned char md[crypto_hash_sha256_BYTES];

	entry_digest(seq, at, actor, action, object_type, object_id, details, prev_hash, row_hash, md);
	hex_encode(md, sizeof md, out);
}

void
audit_entry_hash(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, char out[65])
{
	audit_entry_hash_sealed(seq, at, actor, action, object_type, object_id, details, prev_hash,
	    NULL, out);
}

/* On PostgreSQL the function takes the seq and the head, computes the row hash
 * and the entry hash itself, writes the login as the actor and checks that an
 * entry about a sealed type follows its operation (db/pg/012-server-seals.sql):
 * what this side computes is not sent. */
static const struct db_write append_entry = {
	{ "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, "
	  "entry_hash, row_hash, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)" },
	"SELECT aivet_audit_append(?2, ?4, ?5, ?6, ?7)", 0
};

int
audit_org_timezone(struct db *db, struct org_timezone *out, struct aerr *err)
{
	/* On a server only the owner's entry counts: an entry another login slipped
	 * in through the audit function moves no deadline (newest first, the first
	 * the owner made). Read on every open: the object's index finds it, never
	 * a scan of the log. */
	struct db_stmt *st = db_prepare(db, err, "SELECT details, actor, at FROM audit_log WHERE "
	    "object_type = 'database' AND object_id = 1 AND action = 'db.timezone' ORDER BY seq DESC", NULL);
	int rc = DB_DONE, owner = 0;

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return AV_RUNTIME;
	while (!owner && (rc = db_step(st)) == DB_ROW)
		if (db_login_is_owner(db, col_text(st, 1), &owner, err) != 0) {
			db_finalize(st);
			return err->code;
		}
	if (owner) {
		cJSON *d = cJSON_Parse(col_text(st, 0));
		const cJSON *z = cJSON_GetObjectItem(d, "timezone");

		snprintf(out->zone, sizeof out->zone, "%s", cJSON_IsString(z) ? z->valuestring : "");
		snprintf(out->by, sizeof out->by, "%s", col_text(st, 1));
		snprintf(out->at, sizeof out->at, "%s", col_text(st, 2));
		cJSON_Delete(d);
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_err(db, err, "the organisation's time zone");
	return 0;
}

/* A row whose changes are replayed (change_beyond()): a vendor or endpoint
 * edited by name (edit_kinds[]: action, the row's select, the fields an edit
 * names), or another mutable row (replay_kinds[]: type only). */
struct edit_kind {
	const char *action, *type, *select;
	const char *cols[10];
};

static const struct edit_kind *replay_kind(const char *type);

/* How an entry changed a row beyond what it may (change_beyond()). */
enum beyond { BEYOND_NONE, BEYOND_UNNAMED, BEYOND_ACTION, BEYOND_ANSWER };

/* What an entry about a row of kind k (its action and details) changed between
 * the row's contents prev and cur beyond what it may: a vendor's or an
 * endpoint's field it does not name, a column or child part its action does
 * not write, an answer to a question it does not name. *col: which. */
static enum beyond
change_beyond(const struct edit_kind *k, const char *action, const cJSON *details, const cJSON *prev,
    const cJSON *cur, const char **col)
{
	if (k->cols[0] != NULL)
		return (*col = content_unnamed_change(prev, cur, k->cols, details)) ? BEYOND_UNNAMED : BEYOND_NONE;
	if ((*col = content_action_overreach(action, prev, cur)) != NULL)
		return BEYOND_ACTION;
	if (strcmp(k->type, "assessment") == 0 && (*col = content_answers_unnamed(prev, cur, details)) != NULL)
		return BEYOND_ANSWER;
	return BEYOND_NONE;
}

/* An entry that changes a row changes only what it names or its action
 * writes: the row as the caller just wrote it (content) against the previous
 * entry's content of it (change_beyond()). Anything else was changed behind
 * aivet's back, and this entry would re-seal it: refused, naming the field and
 * the entry. An object whose previous entry holds no content (written before
 * entries held it) has nothing to compare. */
static int
append_edit_check(struct db *db, const char *action, const char *type, int64_t id,
    const cJSON *details, const cJSON *content, struct aerr *err)
{
	const struct edit_kind *k = replay_kind(type);
	const char *col = NULL;
	enum beyond why = BEYOND_NONE;
	struct db_stmt *st;
	int64_t seq = 0;
	cJSON *prev = NULL;
	int rc;

	if (k == NULL || seal_role(kind_lookup(type), action) == SEAL_CREATES)
		return 0;
	st = db_prepare(db, err, "SELECT seq, content FROM audit_log WHERE object_type = ? AND object_id = ? "
	    "ORDER BY seq DESC LIMIT 1", "ti", type, id);
	if (st == NULL)
		return err->code;
	if ((rc = db_step(st)) == DB_ROW && db_col_type(st, 1) != DB_NULL) {
		seq = db_col_int64(st, 0);
		prev = cJSON_Parse(col_text(st, 1));
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_err(db, err, "audit log");
	/* col may point into prev: the error is made before prev goes. */
	if (prev != NULL)
		why = change_beyond(k, action, details, prev, content, &col);
	rc = 0;
	if (why == BEYOND_ANSWER)
		rc = aerr_set(err, AV_USAGE, "assessment %lld's answer to %s is not what audit entry %lld "
		    "recorded, and this %s does not name it: it was changed behind aivet's back; not re-sealed",
		    (long long)id, col, (long long)seq, action);
	else if (why != BEYOND_NONE)
		rc = aerr_set(err, AV_USAGE, "%s %lld's %s is not what audit entry %lld recorded, and this %s "
		    "does not %s it: it was changed behind aivet's back; not re-sealed", type, (long long)id,
		    col, (long long)seq, action, why == BEYOND_ACTION ? "change" : "name");
	cJSON_Delete(prev);
	return rc;
}

int
audit_append(struct db *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err)
{
	struct db_stmt *st;
	char prev[65], hash[65], at[32], rh[65];
	int64_t seq = 1;
	char *dj, *cj;
	int rc, present;
	struct sealer s = { 0 };
	cJSON *content;

	if (db_autocommit(db))
		die("audit_append outside a transaction (%s)", action);
	dj = details ? cJSON_PrintUnformatted(details) : xstrdup("{}");
	if (dj == NULL)
		die("out of memory");
	now_iso(at);
	/* A server's function reads the chain's head and seals the entry itself
	 * (append_entry's server form takes neither): reading the head here would
	 * cost a round trip for every entry, one per exchange of a probe run. */
	if (db_has(db, DB_STORE_SEALS)) {
		rc = db_write(db, err, &append_entry, NULL, "ittttittttt", (int64_t)0, at, actor, action,
		    object_type, object_id, dj, "", "", NULL, NULL);
		free(dj);
		return rc;
	}
	st = db_prepare(db, err, "SELECT seq, entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1", NULL);
	if (st == NULL) {
		free(dj);
		return AV_RUNTIME;
	}
	rc = db_step(st);
	if (rc == DB_ROW) {
		seq = db_col_int64(st, 0) + 1;
		snprintf(prev, sizeof prev, "%s", col_text(st, 1));
	} else if (rc == DB_DONE) {
		memcpy(prev, genesis, sizeof prev);
	} else {
		db_finalize(st);
		free(dj);
		return db_err(db, err, "audit log");
	}
	db_finalize(st);
	/* The row as the caller just wrote it, in this transaction, and its full content. */
	rh[0] = '\0';
	content = cJSON_CreateArray();
	rc = row_hash(db, &s, object_type, object_id, rh, &present, content, err);
	sealer_free(&s);
	if (rc == 0 && rh[0] != '\0')
		rc = append_edit_check(db, action, object_type, object_id, details, content, err);
	cj = rc == 0 && rh[0] != '\0' ? cJSON_PrintUnformatted(content) : NULL;
	cJSON_Delete(content);
	if (rc != 0) {
		free(dj);
		return rc;
	}
	audit_entry_hash_sealed(seq, at, actor, action, object_type, object_id, dj, prev,
	    rh[0] ? rh : NULL, hash);
	rc = db_write(db, err, &append_entry, NULL, "ittttittttt", seq, at, actor, action, object_type,
	    object_id, dj, prev, hash, rh[0] ? rh : NULL, cj);
	free(dj);
	free(cj);
	return rc;
}

/* Keeps the earliest problem: the one a reader of the chain meets first. Rows no
 * entry recorded are placed past the chain's end, so any entry's problem wins. */
void
audit_status_keep(struct audit_status *st, int64_t seq, const char *fmt, ...)
{
	va_list ap;

	if (st->bad_seq != 0 && st->bad_seq <= seq)
		return;
	st->bad_seq = seq;
	va_start(ap, fmt);
	vsnprintf(st->problem, sizeof st->problem, fmt, ap);
	va_end(ap);
}

/* A table read in the order of the object ids it belongs to. */
struct cursor {
	struct db_stmt *st;
	int rc;            /* DB_ROW: a row is current; DB_DONE: none left */
	int64_t key;
};

static int
cursor_next(struct db *db, struct cursor *c, const char *what, struct aerr *err)
{
	c->rc = db_step(c->st);
	if (c->rc == DB_ROW)
		c->key = db_col_int64(c->st, 0);
	else if (c->rc != DB_DONE)
		return db_err(db, err, what);
	return 0;
}

/* Every entry about a sealed object, gathered while the chain is read (so the log
 * is read once): per object type, its object id, seq and row_hash. */
struct sealed_entry {
	int64_t id, seq;
	int state;                  /* 0: no row_hash; 1: rh holds it; 2: not a hash */
	enum seal_role role;
	unsigned char rh[crypto_hash_sha256_BYTES];
};
struct seal_index {
	struct sealed_entry *v;
	size_t n, cap;
	const struct seal_kind *kind;
	int64_t first_hashed;       /* the type's first entry with a row_hash, 0: none */
};

/* Every entry about a sealed type carries its row's hash once sealing began:
 * for the type, at its first entry with a row_hash; for every type, at the
 * first entry with one about a type sealed since schema 006 (from then on
 * aivet seals all of them). Entries before that were written by an aivet that
 * sealed nothing of the kind. 0: not yet. */
static int64_t
seal_onset(const struct seal_index *x, int64_t onset006)
{
	if (x->first_hashed == 0 || (onset006 != 0 && onset006 < x->first_hashed))
		return onset006;
	return x->first_hashed;
}

static void
index_add(struct seal_index ix[NSEAL], const char *type, int64_t id, int64_t seq, const char *action,
    const char *rh, int64_t *onset006)
{
	struct seal_index *x = NULL;
	struct sealed_entry *e;

	for (size_t i = 0; i < NSEAL && x == NULL; i++)
		if (seal_parts[i].label != NULL && seal_parts[i].type[0] == type[0] &&
		    strcmp(seal_parts[i].type, type) == 0)
			x = &ix[i];
	if (x == NULL)
		return;
	if (x->kind == NULL)
		x->kind = kind_lookup(type);
	if (rh != NULL && x->first_hashed == 0) {
		x->first_hashed = seq;
		if (x->kind->since006 && *onset006 == 0)
			*onset006 = seq;
	}
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 1024;
		x->v = xrealloc(x->v, x->cap * sizeof *x->v);
	}
	e = &x->v[x->n++];
	e->id = id;
	e->seq = seq;
	/* Lower-case hex, as audit_append writes it; anything else never matches. */
	e->state = rh == NULL ? 0 : hash_decode(rh, e->rh) ? 1 : 2;
	e->role = seal_role(x->kind, action);
}

static void
index_free(struct seal_index ix[NSEAL])
{
	for (size_t i = 0; i < NSEAL; i++)
		free(ix[i].v);
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct sealed_entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The entry that seals the object whose entries start at ix->v[*k] (the next
 * object's, after): its first for a row sealed once, else its newest. Names an
 * entry that may not seal it: one whose action neither creates nor edits the
 * type, a first one that does not create it, a second about a row sealed once,
 * one without a row_hash once sealing began. */
static const struct sealed_entry *
object_seal(const char *label, const struct seal_index *ix, size_t *k, int64_t onset,
    struct audit_status *out)
{
	const struct sealed_entry *first = &ix->v[*k], *e = first;
	const char *type = ix->kind->type;

	for (; *k < ix->n && ix->v[*k].id == first->id; ++*k) {
		e = &ix->v[*k];
		if (e->state == 0 && onset != 0 && e->seq > onset)
			audit_status_keep(out, e->seq, "audit entry %lld about %s %lld carries no row hash: every "
			    "entry about a %s seals what it records", (long long)e->seq, label,
			    (long long)e->id, type);
		if (e->role == SEAL_NONE || (e == first && e->role != SEAL_CREATES))
			audit_status_keep(out, e->seq, "audit entry %lld about %s %lld is not an action that %s "
			    "a %s (%s)", (long long)e->seq, label, (long long)e->id,
			    e == first ? "creates" : "edits", type, e == first ? ix->kind->creates :
			    ix->kind->edits ? ix->kind->edits : "none: it is sealed once");
		else if (e != first && ix->kind->edits == NULL)
			audit_status_keep(out, e->seq, "audit entry %lld records %s %lld again: it was sealed once, "
			    "by entry %lld", (long long)e->seq, label, (long long)e->id, (long long)first->seq);
	}
	return ix->kind->edits == NULL ? first : e;
}

/* The hash of object id from the parts' cursors, each advanced past it. */
static int
stream_hash(struct db *db, const struct seal_part *parts, size_t n, struct cursor *cur, int64_t id,
    unsigned char md[crypto_hash_sha256_BYTES], struct aerr *err)
{
	struct seal_hash h;

	hash_begin(&h, parts[0].type, id);
	for (size_t k = 0; k < n; k++) {
		const struct seal_part *p = &parts[k];
		int rows = 0;

		while (cur[k].rc == DB_ROW && cur[k].key < id)
			if (cursor_next(db, &cur[k], p->table, err) != 0)
				return err->code;
		if (!p->late)
			netstring(&h, p->table);
		while (cur[k].rc == DB_ROW && cur[k].key == id) {
			if (p->late && rows == 0)
				netstring(&h, p->table);
			rows++;
			hash_row(&h, cur[k].st, 1);
			if (cursor_next(db, &cur[k], p->table, err) != 0)
				return err->code;
		}
	}
	sh_final(&h, md);
	return 0;
}

/* One object type in one pass: its newest entries in object order, merged with
 * its tables read in the same order. */
static int
type_check(struct db *db, const struct seal_part *parts, size_t n, struct seal_index *ix, int64_t onset,
    struct audit_status *out, struct aerr *err)
{
	struct cursor cur[NSEAL] = { { 0 } };
	size_t k = 0;
	int rc = 0;

	if (ix->n > 0)
		qsort(ix->v, ix->n, sizeof *ix->v, entry_cmp);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct seal_part *p = &parts[i];
		char *sql = xasprintf("SELECT %s, %s FROM %s%s%s ORDER BY %s, %s", p->key, p->cols, p->table,
		    p->cond ? " WHERE " : "", p->cond ? p->cond : "", p->key, p->order);

		cur[i].st = db_prepare(db, err, sql, NULL);
		free(sql);
		rc = cur[i].st == NULL ? AV_RUNTIME : cursor_next(db, &cur[i], p->table, err);
	}
	while (rc == 0 && (k < ix->n || cur[0].rc == DB_ROW)) {
		int64_t row = cur[0].rc == DB_ROW ? cur[0].key : INT64_MAX;
		const struct sealed_entry *e;
		unsigned char now[crypto_hash_sha256_BYTES];

		if (k == ix->n || row < ix->v[k].id) {
			/* Not in the chain at all: name the row, and point past the chain's end. */
			audit_status_keep(out, out->entries + 1, "%s %lld has no audit entry: added behind aivet's back",
			    parts[0].label, (long long)row);
			rc = cursor_next(db, &cur[0], parts[0].table, err);
			continue;
		}
		e = object_seal(parts[0].label, ix, &k, onset, out);
		if (e->id < row) {
			audit_status_keep(out, e->seq, "%s %lld (audit entry %lld) is missing: removed after it "
			    "was recorded", parts[0].label, (long long)e->id, (long long)e->seq);
		} else if (e->state == 0) {
			/* Entries written before rows were sealed carry no row_hash. */
			rc = cursor_next(db, &cur[0], parts[0].table, err);
		} else if ((rc = stream_hash(db, parts, n, cur, e->id, now, err)) == 0 &&
		    (e->state != 1 || memcmp(now, e->rh, sizeof now) != 0)) {
			audit_status_keep(out, e->seq, "%s %lld does not match audit entry %lld: edited after it was "
			    "recorded", parts[0].label, (long long)e->id, (long long)e->seq);
		}
	}
	for (size_t i = 0; i < n; i++)
		db_finalize(cur[i].st);
	return rc;
}

/* Every sealed row against the newest entry that recorded it, and every sealed
 * row that no entry recorded: one pass per object type. */
static int
rows_check(struct db *db, struct seal_index ix[NSEAL], int64_t onset006, struct audit_status *out,
    struct aerr *err)
{
	for (size_t i = 0, j; i < NSEAL; i = j) {
		for (j = i + 1; j < NSEAL && strcmp(seal_parts[j].type, seal_parts[i].type) == 0; j++)
			;
		if (type_check(db, &seal_parts[i], j - i, &ix[i], seal_onset(&ix[i], onset006), out, err) != 0)
			return err->code;
	}
	return 0;
}

/* A questionnaire's text must still be what was loaded (the hash its load entry
 * recorded) and what its assessments were started against. The load entry is
 * the first: a questionnaire is sealed once, and a later entry (one without a
 * sha256 in its details, say) must not stand in for it. */
static int
questionnaires_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, "SELECT q.id, q.qid, q.version, q.source, q.sha256, "
	    "a.seq, json_extract(a.details, '$.sha256') FROM questionnaire q LEFT JOIN audit_log a "
	    "ON a.seq = (SELECT min(l.seq) FROM audit_log l WHERE l.object_type = 'questionnaire' "
	    "AND l.object_id = q.id AND l.action = 'questionnaire.load') ORDER BY q.id", NULL);
	int rc;

	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		const char *src = col_text(q, 3);
		int64_t seq = db_col_type(q, 5) == DB_NULL ? out->entries + 1 : db_col_int64(q, 5);
		char h[65];

		sha256_hex(src, strlen(src), h);
		if (strcmp(h, col_text(q, 4)) != 0 || (db_col_type(q, 6) != DB_NULL &&
		    strcmp(h, col_text(q, 6)) != 0))
			audit_status_keep(out, seq, "questionnaire %lld (%s@%lld) does not match audit entry %lld: its "
			    "text was edited after it was loaded", (long long)db_col_int64(q, 0), col_text(q, 1),
			    (long long)db_col_int64(q, 2), (long long)seq);
	}
	db_finalize(q);
	if (rc != DB_DONE)
		return db_err(db, err, "questionnaire");
	q = db_prepare(db, err, "SELECT a.id, q.id, (SELECT max(l.seq) FROM audit_log l WHERE "
	    "l.object_type = 'assessment' AND l.object_id = a.id) FROM assessment a JOIN questionnaire q "
	    "ON q.id = a.questionnaire_id WHERE a.questionnaire_sha256 IS NOT NULL "
	    "AND a.questionnaire_sha256 <> q.sha256 ORDER BY a.id", NULL);
	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		int64_t seq = db_col_type(q, 2) == DB_NULL ? out->entries + 1 : db_col_int64(q, 2);

		audit_status_keep(out, seq, "assessment %lld was answered against another text of questionnaire "
		    "%lld (audit entry %lld): the questionnaire was edited", (long long)db_col_int64(q, 0),
		    (long long)db_col_int64(q, 1), (long long)seq);
	}
	db_finalize(q);
	return rc == DB_DONE ? 0 : db_err(db, err, "assessment");
}

/* Every table of the database is in the registry: one nothing seals cannot
 * hold what a report reads. */
static int
tables_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct db_stmt *q = db_tables(db, err);
	int rc;

	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW)
		if (audit_table_lookup(col_text(q, 0)) == NULL)
			audit_status_keep(out, out->entries + 1, "table %s is in no kind of aivet's table registry "
			    "(src/core/audit.c): nothing seals its rows", col_text(q, 0));
	db_finalize(q);
	return rc == DB_DONE ? 0 : db_err(db, err, "tables");
}

/* The schema is evidence: a trigger dropped or planted changes what the sealed
 * rows say without touching one. Named past the chain's end. */
static int
schema_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	char problem[sizeof out->problem - 32];

	if (db_schema_check(db, problem, sizeof problem, err) != 0)
		return err->code;
	if (problem[0] != '\0')
		audit_status_keep(out, out->entries + 1, "the schema: %s", problem);
	return 0;
}

/* The first evidence entry that relies on stored content, or past the chain's end. */
static int
content_entry(struct db *db, const char *sha, int64_t entries, int64_t *seq, struct aerr *err)
{
	if (db_int(db, seq, err, "SELECT min(a.seq) FROM audit_log a WHERE a.object_type = 'evidence' "
	    "AND a.object_id IN (SELECT id FROM evidence WHERE sha256 = ?1 UNION SELECT evidence_id "
	    "FROM exchange WHERE request_blob = ?1 OR response_blob = ?1)", "t", sha) < 0)
		return err->code;
	if (*seq <= 0)
		*seq = entries + 1;
	return 0;
}

/* Stored content is addressed by the SHA-256 of its plaintext: a plaintext blob must
 * still hash to its name; a sealed one must be the box its blob_seal row recorded
 * (an audited row: sealing is an operation of its own). Evidence rows seal the
 * address; this finds bytes or flags changed under it. */
static int
blobs_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, "SELECT b.sha256, b.size, b.encrypted, b.data, s.id, "
	    "s.data_sha256 FROM blob b LEFT JOIN blob_seal s ON s.sha256 = b.sha256 ORDER BY b.sha256", NULL);
	int rc;

	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		const char *sha = col_text(q, 0), *why = NULL;
		int64_t size = db_col_int64(q, 1), seq = 0;
		int n = db_col_bytes(q, 3), sealed = db_col_type(q, 4) != DB_NULL;
		char h[65];

		sha256_hex(db_col_blob(q, 3), (size_t)n, h);
		if (db_col_int(q, 2)) {
			if (!sealed)
				why = "is a sealed box but no audit entry recorded its sealing: sealed behind aivet's back";
			else if ((int64_t)n != size + (int64_t)crypto_box_SEALBYTES ||
			    (db_col_type(q, 5) != DB_NULL && strcmp(h, col_text(q, 5)) != 0))
				why = "is not the sealed box its sealing recorded: edited after it was sealed";
		} else if (sealed) {
			why = "was sealed but is stored in clear: unsealed behind aivet's back";
		} else if ((int64_t)n != size || strcmp(h, sha) != 0) {
			why = "does not match its SHA-256 and size: edited after it was stored";
		}
		if (why == NULL)
			continue;
		if (content_entry(db, sha, out->entries, &seq, err) != 0) {
			db_finalize(q);
			return err->code;
		}
		audit_status_keep(out, seq, "stored content %.64s %s", sha, why);
		break;
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(q);
		return db_err(db, err, "blob");
	}
	db_finalize(q);
	return 0;
}

/* Mutable rows edited by name: an edit entry's details carry the fields it
 * changed (aivet's detail keys are the row's column names; others, such as an
 * endpoint's credentials or engine, are rows of their own), and the newest edit
 * of a row must agree with what the row holds. An edit that names nothing, or
 * names a value the row does not hold, was not written by the edit it claims. */
static const struct edit_kind edit_kinds[] = {
	{ "vendor.edit", "vendor", "SELECT name, criticality, contact, notes FROM vendor WHERE id = ?",
	  { "name", "criticality", "contact", "notes", NULL } },
	{ "endpoint.edit", "endpoint", "SELECT name, api, url, model, context_tokens, allow_insecure_http, "
	  "price_in_per_mtok, price_out_per_mtok, options FROM endpoint WHERE id = ?",
	  { "name", "api", "url", "model", "context_tokens", "allow_insecure_http", "price_in_per_mtok",
	    "price_out_per_mtok", "options", NULL } },
};
#define NEDIT (sizeof edit_kinds / sizeof edit_kinds[0])

/* The other rows whose changes are replayed: each action changes only what
 * it writes (content_action_overreach()), an assessment's answers and
 * evidence links only for the questions its entry names. */
static const struct edit_kind replay_kinds[] = {
	{ "", "assessment", NULL, { NULL } },
	{ "", "probe_run", NULL, { NULL } },
	{ "", "incident", NULL, { NULL } },
	{ "", "incident_task", NULL, { NULL } },
};

/* How a row of type is replayed; NULL when its changes are not. */
static const struct edit_kind *
replay_kind(const char *type)
{
	for (size_t i = 0; i < NEDIT; i++)
		if (strcmp(edit_kinds[i].type, type) == 0)
			return &edit_kinds[i];
	for (size_t i = 0; i < sizeof replay_kinds / sizeof replay_kinds[0]; i++)
		if (strcmp(replay_kinds[i].type, type) == 0)
			return &replay_kinds[i];
	return NULL;
}

struct edit_entry {
	int64_t id, seq;
	const struct edit_kind *kind;
	char *details;
};
struct edit_log {
	struct edit_entry *v;
	size_t n, cap;
};

static void
edit_add(struct edit_log *l, const char *action, const char *type, int64_t id, int64_t seq,
    const char *details)
{
	for (size_t i = 0; i < NEDIT; i++) {
		const struct edit_kind *k = &edit_kinds[i];

		/* An edit action about another type is named by object_seal(). */
		if (action[0] != k->action[0] || strcmp(action, k->action) != 0 || strcmp(type, k->type) != 0)
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->v = xrealloc(l->v, l->cap * sizeof *l->v);
		}
		l->v[l->n++] = (struct edit_entry){ id, seq, k, xstrdup(details) };
		return;
	}
}

static void
edit_free(struct edit_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].details);
	free(l->v);
}

/* By kind and object, the newest first. */
static int
edit_cmp(const void *a, const void *b)
{
	const struct edit_entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* Whether a detail's value is column i of the row as st holds it. */
static int
edit_value_is(const cJSON *v, struct db_stmt *st, int i)
{
	const cJSON *kv;
	cJSON *row;
	int same = 1;

	if (db_col_type(st, i) == DB_NULL || cJSON_IsNull(v))
		return db_col_type(st, i) == DB_NULL && cJSON_IsNull(v);
	if (cJSON_IsString(v))
		return strcmp(col_text(st, i), v->valuestring) == 0;
	if (cJSON_IsBool(v))
		return (db_col_int64(st, i) != 0) == (cJSON_IsTrue(v) != 0);
	if (cJSON_IsNumber(v))
		return db_col_double(st, i) == v->valuedouble;
	if (!cJSON_IsObject(v))
		return 0;
	/* options: the keys an edit sets, merged into the row's. */
	row = cJSON_Parse(col_text(st, i));
	cJSON_ArrayForEach(kv, v)
		same = same && cJSON_Compare(kv, cJSON_GetObjectItemCaseSensitive(row, kv->string), 1);
	cJSON_Delete(row);
	return same;
}

/* The newest edit of one row against the row. */
static int
edit_newest_check(struct db *db, const struct edit_entry *e, const cJSON *d, struct audit_status *out,
    struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, e->kind->select, "i", e->id);
	int rc;

	if (st == NULL)
		return AV_RUNTIME;
	/* A row gone is named by rows_check(). */
	if ((rc = db_step(st)) == DB_ROW) {
		for (int i = 0; e->kind->cols[i] != NULL; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, e->kind->cols[i]);

			if (v != NULL && !edit_value_is(v, st, i)) {
				audit_status_keep(out, e->seq, "%s %lld's %s is not what audit entry %lld (%s) "
				    "recorded: edited behind aivet's back", e->kind->type, (long long)e->id,
				    e->kind->cols[i], (long long)e->seq, e->kind->action);
				break;
			}
		}
	}
	db_finalize(st);
	return rc == DB_ROW || rc == DB_DONE ? 0 : db_err(db, err, e->kind->type);
}

static int
edits_check(struct db *db, struct edit_log *l, struct audit_status *out, struct aerr *err)
{
	int rc = 0;

	if (l->n > 0)
		qsort(l->v, l->n, sizeof *l->v, edit_cmp);
	for (size_t i = 0; rc == 0 && i < l->n; i++) {
		const struct edit_entry *e = &l->v[i];
		cJSON *d = cJSON_Parse(e->details);

		if (!cJSON_IsObject(d) || d->child == NULL)
			audit_status_keep(out, e->seq, "audit entry %lld (%s) about %s %lld names no field it "
			    "changed: an edit's details carry the fields it changed", (long long)e->seq,
			    e->kind->action, e->kind->type, (long long)e->id);
		else if (i == 0 || l->v[i - 1].kind != e->kind || l->v[i - 1].id != e->id)
			rc = edit_newest_check(db, e, d, out, err);
		cJSON_Delete(d);
	}
	return rc;
}

/* The entries about rows edited by name that hold full content, replayed after
 * the chain is read: each change from one content to the next must be named.
 * An entry's details field holds its content, details and action, each ended
 * by a NUL, so that each travels with its entry through the sort. */
static void
content_log_add(struct edit_log *l, const char *type, int64_t id, int64_t seq, const char *action,
    const char *details, const char *content)
{
	const struct edit_kind *k = replay_kind(type);

	if (k == NULL)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct edit_entry){ id, seq, k, xasprintf("%s%c%s%c%s", content, '\0', details, '\0',
	    action) };
}

/* By kind and object, oldest first. */
static int
content_cmp(const void *a, const void *b)
{
	const struct edit_entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each entry's content against its object's previous one: what changed must
 * be what the entry names, with the value it now holds, or what its action
 * writes (change_beyond()). */
static void
content_replay(struct edit_log *l, struct audit_status *out)
{
	cJSON *prev = NULL;

	if (l->n > 0)
		qsort(l->v, l->n, sizeof *l->v, content_cmp);
	for (size_t i = 0; i < l->n; i++) {
		const struct edit_entry *e = &l->v[i];
		const char *content = e->details, *details = content + strlen(content) + 1;
		const char *action = details + strlen(details) + 1, *col;
		cJSON *cur = cJSON_Parse(content), *d;
		enum beyond why;

		if (i > 0 && l->v[i - 1].kind == e->kind && l->v[i - 1].id == e->id && prev != NULL) {
			d = cJSON_Parse(details);
			why = change_beyond(e->kind, action, d, prev, cur, &col);
			if (why == BEYOND_ANSWER)
				audit_status_keep(out, e->seq, "audit entry %lld (%s) changed assessment %lld's "
				    "answer to %s from what audit entry %lld recorded without naming it: an "
				    "entry names each answer it changes", (long long)e->seq, action,
				    (long long)e->id, col, (long long)l->v[i - 1].seq);
			else if (why == BEYOND_ACTION)
				audit_status_keep(out, e->seq, "audit entry %lld (%s) changed %s %lld's %s from what "
				    "audit entry %lld recorded: that action does not change it", (long long)e->seq,
				    action, e->kind->type, (long long)e->id, col, (long long)l->v[i - 1].seq);
			else if (why == BEYOND_UNNAMED)
				audit_status_keep(out, e->seq, "audit entry %lld (%s) changed %s %lld's %s from what "
				    "audit entry %lld recorded without naming it: an entry names each field it "
				    "changes", (long long)e->seq, action, e->kind->type, (long long)e->id, col,
				    (long long)l->v[i - 1].seq);
			cJSON_Delete(d);
		}
		cJSON_Delete(prev);
		prev = cur;
	}
	cJSON_Delete(prev);
}

/* An entry's full content: it must hash to the entry's row hash (which the
 * entry hash covers, so the content is what the entry recorded), and what a
 * creating entry's details say of its row, or an answer entry's of the answer
 * it wrote, must be what the content holds (into created: named after the
 * modules' checks, whose words for the same entry say more, such as a
 * severity its code never has). */
static void
content_check(const char *action, const char *type, int64_t id, int64_t seq, const char *details,
    const char *content, const char *rh, struct edit_log *log, struct audit_status *out,
    struct audit_status *created)
{
	const struct seal_part *first = seal_lookup(type);
	unsigned char md[crypto_hash_sha256_BYTES], want[crypto_hash_sha256_BYTES];
	cJSON *c, *d;
	size_t n = 0;
	const char *key, *col, *text = NULL;

	if (first == NULL)
		return;
	while (first + n < seal_parts + NSEAL && strcmp(first[n].type, type) == 0)
		n++;
	c = cJSON_Parse(content);
	if (rh == NULL || !hash_decode(rh, want) || content_hash(first, n, id, c, md) != 0 ||
	    memcmp(md, want, sizeof md) != 0) {
		audit_status_keep(out, seq, "audit entry %lld's content is not the %s %lld it sealed: it does "
		    "not hash to the entry's row hash", (long long)seq, first->label, (long long)id);
	} else if (strncmp(action, "probe.", 6) == 0 && seal_role(kind_lookup(type), action) == SEAL_CREATES) {
		d = cJSON_Parse(details);
		if ((key = content_creation_mismatch(action, d, c, &col, &text)) != NULL)
			audit_status_keep(created, seq, "%s %lld's %s is %s where audit entry %lld (%s) that created it "
			    "says %s is %s: the row was rewritten as it was written", first->label, (long long)id,
			    col, text ? text : "null", (long long)seq, action, key,
			    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, key)) ?
			    cJSON_GetObjectItemCaseSensitive(d, key)->valuestring : "another value");
		else if (content_links_mismatch(action, d, c))
			audit_status_keep(created, seq, "%s %lld's evidence links are not the evidence audit entry %lld "
			    "(%s) that created it names: they were rewritten as they were written", first->label,
			    (long long)id, (long long)seq, action);
		cJSON_Delete(d);
	} else if (strncmp(action, "answer.", 7) == 0 && strcmp(type, "assessment") == 0) {
		d = cJSON_Parse(details);
		if ((key = content_answer_mismatch(action, d, c, &text)) != NULL)
			audit_status_keep(created, seq, "assessment %lld's answer to %s: its %s is not what audit "
			    "entry %lld (%s) says: the row was rewritten as it was written", (long long)id, text,
			    key, (long long)seq, action);
		cJSON_Delete(d);
	}
	cJSON_Delete(c);
	content_log_add(log, type, id, seq, action, details, content);
}

/* The entry st holds (audit_verify_with()'s columns): entries hold full
 * content from the first that does on (schema 017), *onset; each is checked
 * (content_check()); one before it that seals a row moves content_from on. */
static void
entry_content(struct db_stmt *st, int64_t seq, const char *row_hash, int64_t *onset, struct edit_log *contents,
    struct audit_status *out, struct audit_status *created)
{
	if (db_col_type(st, 10) != DB_NULL) {
		if (*onset == 0)
			*onset = seq;
		content_check(col_text(st, 3), col_text(st, 4), db_col_int64(st, 5), seq, col_text(st, 6),
		    col_text(st, 10), row_hash, contents, out, created);
	} else if (row_hash != NULL && *onset != 0) {
		audit_status_keep(out, seq, "audit entry %lld about %s %lld carries no content: every entry "
		    "that seals a row since entry %lld holds the row's full content", (long long)seq,
		    col_text(st, 4), (long long)db_col_int64(st, 5), (long long)*onset);
	} else if (row_hash != NULL) {
		out->content_from = seq + 1;
	}
}

int
audit_verify_with(struct db *db, const struct audit_check *const *checks, struct audit_status *out,
    struct aerr *err)
{
	struct db_stmt *st;
	char prev[65];
	unsigned char md[crypto_hash_sha256_BYTES], stored[crypto_hash_sha256_BYTES];
	const char *row_hash;
	int64_t expect = 1, onset006 = 0, content_onset = 0;
	struct seal_index ix[NSEAL];
	struct edit_log edits = { 0 };
	struct edit_log contents = { 0 };
	struct audit_status created = { 0 };
	int rc;

	memset(out, 0, sizeof *out);
	out->content_from = 1;
	memset(ix, 0, sizeof ix);
	memcpy(prev, genesis, sizeof prev);
	/* Verify reads the whole file: mapped, SQLite reads its pages without a read() each. */
	db_read_all(db);
	st = db_prepare(db, err, "SELECT seq, at, actor, action, object_type, object_id, "
	    "details, prev_hash, entry_hash, row_hash, content FROM audit_log ORDER BY seq", NULL);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t seq = db_col_int64(st, 0);

		if (seq != expect) {
			out->bad_seq = expect;
			snprintf(out->problem, sizeof out->problem,
			    "entry %lld is missing (next entry is %lld)", (long long)expect, (long long)seq);
			break;
		}
		if (strcmp(col_text(st, 7), prev) != 0) {
			out->bad_seq = seq;
			snprintf(out->problem, sizeof out->problem,
			    "entry %lld: prev_hash does not match the hash of entry %lld",
			    (long long)seq, (long long)seq - 1);
			break;
		}
		row_hash = db_col_text(st, 9);
		entry_digest(seq, col_text(st, 1), col_text(st, 2), col_text(st, 3), col_text(st, 4),
		    db_col_int64(st, 5), col_text(st, 6), prev, row_hash, md);
		if (!hash_decode(col_text(st, 8), stored) || memcmp(md, stored, sizeof md) != 0) {
			out->bad_seq = seq;
			snprintf(out->problem, sizeof out->problem,
			    "entry %lld: contents do not match its entry_hash (edited after it was written)",
			    (long long)seq);
			break;
		}
		index_add(ix, col_text(st, 4), db_col_int64(st, 5), seq, col_text(st, 3), row_hash, &onset006);
		edit_add(&edits, col_text(st, 3), col_text(st, 4), db_col_int64(st, 5), seq, col_text(st, 6));
		entry_content(st, seq, row_hash, &content_onset, &contents, out, &created);
		/* The stored text of a hash that matched: 64 hex digits. */
		memcpy(prev, col_text(st, 8), sizeof prev);
		out->entries = seq;
		expect++;
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(st);
		index_free(ix);
		edit_free(&edits);
		edit_free(&contents);
		return db_err(db, err, "audit log");
	}
	db_finalize(st);
	memcpy(out->head, prev, sizeof out->head);
	/* Rows the chain sealed must still match what it recorded; then each
	 * module's own cross-check (incident timelines, ...). */
	if (out->bad_seq == 0) {
		rc = rows_check(db, ix, onset006, out, err);
		if (rc == 0)
			rc = edits_check(db, &edits, out, err);
		content_replay(&contents, out);
	} else {
		rc = 0;
	}
	index_free(ix);
	edit_free(&edits);
	edit_free(&contents);
	if (rc != 0)
		return err->code;
	if (out->bad_seq == 0 && blobs_check(db, out, err) != 0)
		return err->code;
	if (out->bad_seq == 0 && questionnaires_check(db, out, err) != 0)
		return err->code;
	if (out->bad_seq == 0 && tables_check(db, out, err) != 0)
		return err->code;
	for (int i = 0; checks != NULL && checks[i] != NULL && out->bad_seq == 0; i++)
		if (checks[i]->check(db, out, err) != 0)
			return err->code;
	if (created.bad_seq != 0)
		audit_status_keep(out, created.bad_seq, "%s", created.problem);
	/* Last: what a changed schema did to the rows is named first. */
	if (out->bad_seq == 0 && schema_check(db, out, err) != 0)
		return err->code;
	return 0;
}

int
audit_log_newest(struct db *db, int64_t limit, void (*fn)(const struct audit_entry *e, void *ctx),
    void *ctx, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT * FROM (SELECT seq, at, actor, action, "
	    "object_type, object_id, details, entry_hash FROM audit_log ORDER BY seq DESC LIMIT ?) "
	    "AS newest ORDER BY seq", "i", limit);

	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct audit_entry e = {
			.seq = db_col_int64(st, 0), .at = col_text(st, 1), .actor = col_text(st, 2),
			.action = col_text(st, 3), .object_type = col_text(st, 4),
			.object_id = db_col_int64(st, 5), .details = col_text(st, 6),
			.entry_hash = col_text(st, 7),
		};

		fn(&e, ctx);
	}
	db_finalize(st);
	return 0;
}

int
audit_last_seq(struct db *db, int64_t *seq, struct aerr *err)
{
	*seq = 0;
	return db_int(db, seq, err, "SELECT coalesce(max(seq), 0) FROM audit_log", NULL) < 0 ?
	    err->code : 0;
}

int
audit_hash_is(struct db *db, int64_t seq, const char *hash, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, "SELECT entry_hash FROM audit_log WHERE seq = ?", "i",
	    seq);
	int same;

	if (q == NULL)
		return -1;
	same = db_step(q) == DB_ROW && strcmp(col_text(q, 0), hash) == 0;
	db_finalize(q);
	return same ? 0 : 1;
}

cJSON *
audit_entry_to_json(const struct audit_entry *e)
{
	cJSON *o = cJSON_CreateObject(), *d = cJSON_Parse(e->details);

	cJSON_AddNumberToObject(o, "seq", (double)e->seq);
	cJSON_AddStringToObject(o, "at", e->at);
	cJSON_AddStringToObject(o, "actor", e->actor);
	cJSON_AddStringToObject(o, "action", e->action);
	cJSON_AddStringToObject(o, "object_type", e->object_type);
	cJSON_AddNumberToObject(o, "object_id", (double)e->object_id);
	cJSON_AddItemToObject(o, "details", d ? d : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "entry_hash", e->entry_hash);
	return o;
}

cJSON *
audit_checkpoint_to_json(const struct audit_checkpoint *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "format", AUDIT_CHECKPOINT_FORMAT);
	cJSON_AddNumberToObject(o, "entries", (double)c->entries);
	cJSON_AddStringToObject(o, "head", c->head);
	json_add_str(o, "at", c->at);
	json_add_str(o, "signer_key_id", c->signer_key_id);
	json_add_str(o, "signer_public_key", c->signer_public_key);
	return o;
}

int
audit_checkpoint_parse(const char *text, size_t len, struct audit_checkpoint *out)
{
	cJSON *j = cJSON_ParseWithLength(text, len);
	const cJSON *f = cJSON_GetObjectItem(j, "format"), *k = cJSON_GetObjectItem(j, "signer_public_key");

	memset(out, 0, sizeof *out);
	if (!cJSON_IsObject(j) || !cJSON_IsString(f) || strcmp(f->valuestring, AUDIT_CHECKPOINT_FORMAT) != 0) {
		cJSON_Delete(j);
		return -1;
	}
	if (cJSON_IsString(k))
		out->signer_public_key = xstrdup(k->valuestring);
	cJSON_Delete(j);
	return 0;
}

void
audit_checkpoint_free(struct audit_checkpoint *c)
{
	free(c->at);
	free(c->signer_key_id);
	free(c->signer_public_key);
	memset(c, 0, sizeof *c);
}
