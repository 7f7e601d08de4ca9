/*
 * audit.c: the append-only, hash-chained audit log. Every change to the
 * database appends one entry in the same transaction as the change. Each
 * entry's hash covers its fields and the previous entry's hash, so an edit
 * made behind aivet's back (even with the triggers dropped) breaks the chain.
 *
 * Canonical encoding (documented in aivet(1)): the fields seq, at, actor,
 * action, object_type, object_id, details, prev_hash, in that order, each
 * as a netstring "<decimal length>:<bytes>,"; entry_hash is the lower-case
 * hex SHA-256 of their concatenation. The first entry's prev_hash is 64 zeros.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet.h"
#include "incident.h"

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

void
audit_entry_hash(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, char out[65])
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
	crypto_hash_sha256_final(&h, md);
	hex_encode(md, sizeof md, out);
}

int
audit_append(sqlite3 *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err)
{
	sqlite3_stmt *st;
	char prev[65], hash[65], at[32];
	int64_t seq = 1;
	char *dj;
	int rc;

	if (sqlite3_get_autocommit(db))
		die("audit_append outside a transaction (%s)", action);
	st = db_prepare(db, err, "SELECT seq, entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1", NULL);
	if (st == NULL)
		return AV_RUNTIME;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		seq = sqlite3_column_int64(st, 0) + 1;
		snprintf(prev, sizeof prev, "%s", col_text(st, 1));
	} else if (rc == SQLITE_DONE) {
		memcpy(prev, genesis, sizeof prev);
	} else {
		sqlite3_finalize(st);
		return db_err(db, err, "audit log");
	}
	sqlite3_finalize(st);
	dj = details ? cJSON_PrintUnformatted(details) : xstrdup("{}");
	if (dj == NULL)
		die("out of memory");
	now_iso(at);
	audit_entry_hash(seq, at, actor, action, object_type, object_id, dj, prev, hash);
	rc = db_exec(db, err, "INSERT INTO audit_log (seq, at, actor, action, object_type, "
	    "object_id, details, prev_hash, entry_hash) VALUES (?,?,?,?,?,?,?,?,?)",
	    "ittttittt", seq, at, actor, action, object_type,
	    object_id, dj, prev, hash);
	free(dj);
	return rc;
}

int
audit_verify(sqlite3 *db, struct audit_status *out, struct aerr *err)
{
	sqlite3_stmt *st;
	char prev[65], hash[65];
	int64_t expect = 1;
	int rc;

	memset(out, 0, sizeof *out);
	memcpy(prev, genesis, sizeof prev);
	st = db_prepare(db, err, "SELECT seq, at, actor, action, object_type, object_id, "
	    "details, prev_hash, entry_hash FROM audit_log ORDER BY seq", NULL);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);

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
		audit_entry_hash(seq, col_text(st, 1), col_text(st, 2), col_text(st, 3),
		    col_text(st, 4), sqlite3_column_int64(st, 5), col_text(st, 6), prev, hash);
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
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_err(db, err, "audit log");
	}
	sqlite3_finalize(st);
	memcpy(out->head, prev, sizeof out->head);
	/* Incident timeline entries are immutable: each must still match the content
	 * its audit entry recorded, which the chain protects. */
	if (out->bad_seq == 0)
		return incident_entries_check(db, out, err);
	return 0;
}
