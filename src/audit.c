/*
 * audit.c: the append-only, hash-chained audit log. Every change to the
 * database appends one entry in the same transaction as the change. Each
 * entry's hash covers its fields and the previous entry's hash, so an edit
 * made behind aivet's back (even with the triggers dropped) breaks the chain.
 * An entry about an evidentiary row (a finding, a probe result or run, an
 * exchange's evidence, an assessment with its answers, an incident entry, a
 * report) also seals that row: row_hash, computed here from the row itself,
 * so every writer keeps its one audit_append() call.
 *
 * Canonical encoding (documented in aivet(1)): the fields seq, at, actor,
 * action, object_type, object_id, details, prev_hash, in that order, then
 * row_hash when the entry seals a row, each as a netstring
 * "<decimal length>:<bytes>,"; entry_hash is the lower-case hex SHA-256 of
 * their concatenation. The first entry's prev_hash is 64 zeros.
 *
 * row_hash: SHA-256 over the netstrings of the object type and id, then for
 * each part of the seal below (the row, then its child rows in their order)
 * the part's table name, and each row's columns in the listed order, a
 * column as a netstring of its SQLite text or "~" for NULL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet.h"

static const char genesis[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

static void
netstring(crypto_hash_sha256_state *h, const char *s)
{
	char len[32];
	size_t n = strlen(s);

	snprintf(len, sizeof len, "%zu:", n);
	crypto_hash_sha256_update(h, (const unsigned char *)len, strlen(len));
	crypto_hash_sha256_update(h, (const unsigned char *)s, n);
	crypto_hash_sha256_update(h, (const unsigned char *)",", 1);
}

/* What each sealed object type covers: its row, then child rows that are written
 * with no audit entry of their own (an exchange with its evidence row, a finding's
 * evidence links, an assessment's answers). The column lists are canonical. */
struct seal_part {
	const char *type;
	const char *label;     /* names the object in problems */
	const char *table;
	const char *cols;
	const char *where;     /* ?1 is the object id */
	const char *order;
};

static const struct seal_part seal_parts[] = {
	{ "finding", "finding", "finding", "id, run_id, probe, code, severity, message, details",
	  "id = ?1", "id" },
	{ "finding", NULL, "finding_evidence", "finding_id, evidence_id", "finding_id = ?1", "evidence_id" },
	{ "probe_result", "probe result", "probe_result", "id, run_id, probe, verdict, reason, requests, "
	  "details", "id = ?1", "id" },
	{ "probe_run", "probe run", "probe_run", "id, endpoint_id, status, probes, options, plan, "
	  "calibration, tokens_in, tokens_out, actor, pid, started_at, finished_at", "id = ?1", "id" },
	{ "evidence", "evidence", "evidence", "id, kind, sha256, original_name, media_type, size, "
	  "effective_date, added_by, added_at", "id = ?1", "id" },
	{ "evidence", NULL, "exchange", "id, evidence_id, run_id, probe, seq, tenant, streaming, method, "
	  "url, request_headers, request_sha256, request_size, request_blob, request_recipe, "
	  "response_status, response_headers, response_sha256, response_size, response_blob, "
	  "response_truncated, error, timings, started_at", "evidence_id = ?1", "id" },
	{ "assessment", "assessment", "assessment", "id, vendor_id, questionnaire_id, round, parent_id, "
	  "status, created_by, created_at, submitted_at, approved_at, reviewer", "id = ?1", "id" },
	{ "assessment", NULL, "answer", "assessment_id, question_id, value, note, actor, updated_at",
	  "assessment_id = ?1", "question_id" },
	{ "assessment", NULL, "answer_evidence", "assessment_id, question_id, evidence_id",
	  "assessment_id = ?1", "question_id, evidence_id" },
	{ "assessment", NULL, "answer_history", "id, assessment_id, question_id, value, note, actor, at",
	  "assessment_id = ?1", "id" },
	{ "incident_entry", "incident entry", "incident_entry", "id, incident_id, kind, at, at_utc, actor, "
	  "text, details, recorded_at", "id = ?1", "id" },
	{ "report", "report", "report", "id, report_uuid, vendor_id, out_dir, options, key_id, "
	  "sums_sha256, generated_at", "id = ?1", "id" },
};
#define NSEAL (sizeof seal_parts / sizeof seal_parts[0])

/* Prepared statements for one pass (an append or a verification). */
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

static void netstring(crypto_hash_sha256_state *h, const char *s);

/* The hash of the object's rows as they are now; *present says whether its own
 * row exists. Returns 0 or an error; types that are not sealed give out "". */
static int
row_hash(struct db *db, struct sealer *s, const char *type, int64_t id, char out[65], int *present,
    struct aerr *err)
{
	const struct seal_part *first = seal_lookup(type);
	crypto_hash_sha256_state h;
	unsigned char md[crypto_hash_sha256_BYTES];
	char num[32];

	out[0] = '\0';
	*present = 0;
	if (first == NULL)
		return 0;
	crypto_hash_sha256_init(&h);
	netstring(&h, type);
	snprintf(num, sizeof num, "%lld", (long long)id);
	netstring(&h, num);
	for (size_t i = (size_t)(first - seal_parts); i < NSEAL && strcmp(seal_parts[i].type, type) == 0;
	    i++) {
		const struct seal_part *p = &seal_parts[i];
		struct db_stmt *st = s->st[i];
		int rc;

		if (st == NULL) {
			char *sql = xasprintf("SELECT %s FROM %s WHERE %s ORDER BY %s", p->cols, p->table,
			    p->where, p->order);

			/* Bound per object below, so prepared without db_prepare's binding. */
			rc = db_prepare_raw(db, sql, &s->st[i]);
			free(sql);
			if (rc != DB_OK)
				return db_err(db, err, p->table);
			st = s->st[i];
		}
		db_reset(st);
		db_bind_int64(st, 1, id);
		netstring(&h, p->table);
		while ((rc = db_step(st)) == DB_ROW) {
			if (p->label != NULL)
				*present = 1;
			for (int c = 0; c < db_col_count(st); c++) {
				if (db_col_type(st, c) == DB_NULL)
					crypto_hash_sha256_update(&h, (const unsigned char *)"~", 1);
				else
					netstring(&h, col_text(st, c));
			}
		}
		if (rc != DB_DONE)
			return db_err(db, err, p->table);
	}
	crypto_hash_sha256_final(&h, md);
	hex_encode(md, sizeof md, out);
	return 0;
}

void
audit_entry_hash_sealed(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, const char *row_hash, char out[65])
{
	crypto_hash_sha256_state h;
	unsigned char md[crypto_hash_sha256_BYTES];
	char num[32];

	crypto_hash_sha256_init(&h);
	snprintf(num, sizeof num, "%lld", (long long)seq);
	netstring(&h, num);
	netstring(&h, at);
	netstring(&h, actor);
	netstring(&h, action);
	netstring(&h, object_type);
	snprintf(num, sizeof num, "%lld", (long long)object_id);
	netstring(&h, num);
	netstring(&h, details);
	netstring(&h, prev_hash);
	if (row_hash != NULL)
		netstring(&h, row_hash);
	crypto_hash_sha256_final(&h, md);
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

/* On PostgreSQL the function writes the login as the actor, checks the hash
 * and that an entry for an operation follows that operation (db/pg/006-workflow.sql). */
static const struct db_write append_entry = {
	{ "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, "
	  "entry_hash, row_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)" },
	"SELECT aivet_audit_append(?1, ?2, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", 0
};

int
audit_append(struct db *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err)
{
	struct db_stmt *st;
	char prev[65], hash[65], at[32], rh[65];
	int64_t seq = 1;
	char *dj;
	int rc, present;
	struct sealer s = { 0 };

	if (db_autocommit(db))
		die("audit_append outside a transaction (%s)", action);
	st = db_prepare(db, err, "SELECT seq, entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1", NULL);
	if (st == NULL)
		return AV_RUNTIME;
	rc = db_step(st);
	if (rc == DB_ROW) {
		seq = db_col_int64(st, 0) + 1;
		snprintf(prev, sizeof prev, "%s", col_text(st, 1));
	} else if (rc == DB_DONE) {
		memcpy(prev, genesis, sizeof prev);
	} else {
		db_finalize(st);
		return db_err(db, err, "audit log");
	}
	db_finalize(st);
	/* The row as the caller just wrote it, in this transaction. */
	rc = row_hash(db, &s, object_type, object_id, rh, &present, err);
	sealer_free(&s);
	if (rc != 0)
		return rc;
	dj = details ? cJSON_PrintUnformatted(details) : xstrdup("{}");
	if (dj == NULL)
		die("out of memory");
	now_iso(at);
	audit_entry_hash_sealed(seq, at, actor, action, object_type, object_id, dj, prev,
	    rh[0] ? rh : NULL, hash);
	rc = db_write(db, err, &append_entry, NULL, "ittttitttt", seq, at, actor, action, object_type,
	    object_id, dj, prev, hash, rh[0] ? rh : NULL);
	free(dj);
	return rc;
}

static void
status_fail(struct audit_status *st, int64_t seq, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
status_fail(struct audit_status *st, int64_t seq, const char *fmt, ...)
{
	va_list ap;

	st->bad_seq = seq;
	va_start(ap, fmt);
	vsnprintf(st->problem, sizeof st->problem, fmt, ap);
	va_end(ap);
}

/* Every sealed row against the newest entry that recorded it, in the order of those
 * entries; then every sealed row that no entry recorded. */
static int
rows_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct sealer s = { 0 };
	struct db_stmt *q;
	int rc;

	/* Each object's newest entry. */
	q = db_prepare(db, err, "SELECT a.object_type, a.object_id, a.seq, a.row_hash FROM audit_log a "
	    "JOIN (SELECT max(seq) AS seq FROM audit_log GROUP BY object_type, object_id) m "
	    "ON m.seq = a.seq ORDER BY a.seq", NULL);
	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		const char *type = col_text(q, 0);
		const struct seal_part *p = seal_lookup(type);
		int64_t id = db_col_int64(q, 1), seq = db_col_int64(q, 2);
		char now[65];
		int present;

		/* Entries written before rows were sealed carry no row_hash. */
		if (p == NULL || db_col_type(q, 3) == DB_NULL)
			continue;
		if (row_hash(db, &s, type, id, now, &present, err) != 0) {
			db_finalize(q);
			sealer_free(&s);
			return err->code;
		}
		if (!present) {
			status_fail(out, seq, "%s %lld (audit entry %lld) is missing: removed after it was "
			    "recorded", p->label, (long long)id, (long long)seq);
			break;
		}
		if (strcmp(now, col_text(q, 3)) != 0) {
			status_fail(out, seq, "%s %lld does not match audit entry %lld: edited after it was "
			    "recorded", p->label, (long long)id, (long long)seq);
			break;
		}
	}
	sealer_free(&s);
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(q);
		return db_err(db, err, "audit log");
	}
	db_finalize(q);
	for (size_t i = 0; out->bad_seq == 0 && i < NSEAL; i++) {
		const struct seal_part *p = &seal_parts[i];
		char *sql;

		if (p->label == NULL)
			continue;
		sql = xasprintf("SELECT t.id FROM %s t WHERE NOT EXISTS (SELECT 1 FROM audit_log a "
		    "WHERE a.object_type = ?1 AND a.object_id = t.id) ORDER BY t.id LIMIT 1", p->table);
		q = db_prepare(db, err, sql, "t", p->type);
		free(sql);
		if (q == NULL)
			return AV_RUNTIME;
		if (db_step(q) == DB_ROW)
			/* Not in the chain at all: name the row, and point past the chain's end. */
			status_fail(out, out->entries + 1, "%s %lld has no audit entry: added behind "
			    "aivet's back", p->label, (long long)db_col_int64(q, 0));
		db_finalize(q);
	}
	return 0;
}

/* Stored content is addressed by the SHA-256 of its plaintext: a plaintext blob must
 * still hash to its name, and a sealed one must still be a sealed box of its size.
 * Evidence rows seal the address; this finds bytes changed under it. */
static int
blobs_check(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, "SELECT sha256, size, encrypted, data FROM blob ORDER BY sha256",
	    NULL);
	int rc;

	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		const char *sha = col_text(q, 0);
		int64_t size = db_col_int64(q, 1), seq = 0;
		int n = db_col_bytes(q, 3), same;
		char h[65];

		if (db_col_int(q, 2)) {
			same = (int64_t)n == size + (int64_t)crypto_box_SEALBYTES;
		} else {
			sha256_hex(db_col_blob(q, 3), (size_t)n, h);
			same = (int64_t)n == size && strcmp(h, sha) == 0;
		}
		if (same)
			continue;
		/* Name the first evidence entry that relies on it. */
		if (db_int(db, &seq, err, "SELECT min(a.seq) FROM audit_log a WHERE a.object_type = 'evidence' "
		    "AND a.object_id IN (SELECT id FROM evidence WHERE sha256 = ?1 UNION SELECT evidence_id "
		    "FROM exchange WHERE request_blob = ?1 OR response_blob = ?1)", "t", sha) < 0) {
			db_finalize(q);
			return err->code;
		}
		status_fail(out, seq > 0 ? seq : out->entries + 1, "stored content %.64s does not match its "
		    "SHA-256 and size: edited after it was stored", sha);
		break;
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(q);
		return db_err(db, err, "blob");
	}
	db_finalize(q);
	return 0;
}

int
audit_verify(struct db *db, struct audit_status *out, struct aerr *err)
{
	struct db_stmt *st;
	char prev[65], hash[65];
	int64_t expect = 1;
	int rc;

	memset(out, 0, sizeof *out);
	memcpy(prev, genesis, sizeof prev);
	st = db_prepare(db, err, "SELECT seq, at, actor, action, object_type, object_id, "
	    "details, prev_hash, entry_hash, row_hash FROM audit_log ORDER BY seq", NULL);
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
		audit_entry_hash_sealed(seq, col_text(st, 1), col_text(st, 2), col_text(st, 3),
		    col_text(st, 4), db_col_int64(st, 5), col_text(st, 6), prev,
		    db_col_type(st, 9) == DB_NULL ? NULL : col_text(st, 9), hash);
		if (strcmp(hash, col_text(st, 8)) != 0) {
			out->bad_seq = seq;
			snprintf(out->problem, sizeof out->problem,
			    "entry %lld: contents do not match its entry_hash (edited after it was written)",
			    (long long)seq);
			break;
		}
		memcpy(prev, hash, sizeof prev);
		out->entries = seq;
		expect++;
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(st);
		return db_err(db, err, "audit log");
	}
	db_finalize(st);
	memcpy(out->head, prev, sizeof out->head);
	/* Rows the chain sealed must still match what it recorded; then each
	 * module's own cross-check (incident timelines, ...). */
	if (out->bad_seq == 0 && rows_check(db, out, err) != 0)
		return err->code;
	if (out->bad_seq == 0 && blobs_check(db, out, err) != 0)
		return err->code;
	for (int i = 0; audit_checks[i] != NULL && out->bad_seq == 0; i++)
		if (audit_checks[i]->check(db, out, err) != 0)
			return err->code;
	return 0;
}
