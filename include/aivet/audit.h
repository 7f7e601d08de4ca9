/*
 * aivet/audit.h: the hash-chained audit log every write appends to inside
 * its transaction, and the registry of the schema's tables and their kinds
 * (audit.c, the core).
 */
#ifndef AIVET_AUDIT_H
#define AIVET_AUDIT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "db.h"

/* ---- audit log (audit.c) ---- */

/* Appends an entry inside the caller's open transaction. details may be NULL. */
int audit_append(struct db *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err);
struct audit_status {
	int64_t entries;
	char head[65];
	int64_t bad_seq;      /* first bad entry, 0 when intact */
	char problem[256];
	int64_t content_from; /* every entry from this one on that seals a row holds
	                       * its full content; the ones before were written by
	                       * an aivet that kept none (schema 017) */
};
struct audit_check;
/* Verifies the chain, the rows it sealed and the schema, and runs checks (an
 * array ending in NULL; NULL: none), the cross-checks of the modules above the
 * core, which hand them in: the domain's audit_verify (audit-checks.h) is the
 * one every caller uses. */
int audit_verify_with(struct db *db, const struct audit_check *const *checks,
    struct audit_status *st, struct aerr *err);
/* Records a problem at entry seq unless one at an earlier entry is recorded
 * (a problem of no entry goes at st->entries + 1, past the chain's end). */
void audit_status_keep(struct audit_status *st, int64_t seq, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The organisation's time zone as the database records it: the newest
 * "db.timezone" entry of the audit log (on PostgreSQL, the newest the
 * database's owner wrote). zone "" when none was set; by and at who set it and when. */
struct org_timezone {
	char zone[64], by[128], at[32];
};
int audit_org_timezone(struct db *db, struct org_timezone *out, struct aerr *err);
/* The table registry (audit.c): every table of the schema and its kind. */
enum audit_table_kind {
	AUDIT_TABLE_SEALED,   /* each row's hash is in the audit entry that wrote it */
	AUDIT_TABLE_DERIVED,  /* rebuilt from sealed rows */
	AUDIT_TABLE_CONTENT,  /* named by the SHA-256 of its bytes (blob) */
	AUDIT_TABLE_LOG,      /* the hash-chained audit log itself */
	AUDIT_TABLE_SCHEMA,   /* the store's own bookkeeping (schema version) */
	AUDIT_TABLE_WORK,     /* work to do (the queue, schedules, limits): each change a person
	                       * makes is audited; what the work did is sealed in its run */
};
struct audit_table {
	const char *name;
	enum audit_table_kind kind;
	const char *sealed_by;  /* sealed: the object type whose entries seal its rows */
};
extern const struct audit_table *const audit_tables;   /* ends with a NULL name */
const struct audit_table *audit_table_lookup(const char *name);
const char *audit_table_kind_name(enum audit_table_kind k);
/* The registry and the seals' parts as 'aivet audit tables --json' prints them. */
cJSON *audit_registry_json(void);
/* A cross-check audit_verify_with runs once the chain is intact: a module whose
 * rows the chain protects provides one (setting st->bad_seq and st->problem
 * on a mismatch). The domain assembles the table and hands it in, so the
 * audit log names none of those modules. */
struct audit_check {
	const char *name;
	int (*check)(struct db *db, struct audit_status *st, struct aerr *err);
};
/* The canonical encoding hashed into entry_hash (documented in aivet(1)). */
void audit_entry_hash(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, char out[65]);
/* The same with row_hash, the seal of the recorded row (NULL: the entry seals none). */
void audit_entry_hash_sealed(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, const char *row_hash, char out[65]);
/* One entry of the log as 'audit log' prints it. */
struct audit_entry {
	int64_t seq, object_id;
	const char *at, *actor, *action, *object_type, *details, *entry_hash;
};
/* The one JSON writer of an entry: an element of 'audit log --json'. */
cJSON *audit_entry_to_json(const struct audit_entry *e);
/* A checkpoint of the chain ('audit checkpoint'), as its file holds it. */
#define AUDIT_CHECKPOINT_FORMAT "aivet-audit-checkpoint-1"
struct audit_checkpoint {
	int64_t entries;
	char head[65];
	char *at, *signer_key_id;
	char *signer_public_key;   /* a minisign public key's base64 line; NULL: none claimed */
};
/* The checkpoint file's JSON ("format" first). */
cJSON *audit_checkpoint_to_json(const struct audit_checkpoint *c);
/* Reads a checkpoint file's text: 0 with *out filled, -1 when it is not an
 * aivet audit checkpoint. Only format and signer_public_key are read: the
 * position and head that count are the signed ones. */
int audit_checkpoint_parse(const char *text, size_t len, struct audit_checkpoint *out);
void audit_checkpoint_free(struct audit_checkpoint *c);
/* The newest limit entries, oldest first, each handed to fn (valid during the call). */
int audit_log_newest(struct db *db, int64_t limit, void (*fn)(const struct audit_entry *e, void *ctx),
    void *ctx, struct aerr *err);
/* The last entry's number (0: the log is empty). */
int audit_last_seq(struct db *db, int64_t *seq, struct aerr *err);
/* Whether entry seq's hash is hash: 0 it is, 1 it is not (or there is no such entry). */
int audit_hash_is(struct db *db, int64_t seq, const char *hash, struct aerr *err);

#endif
