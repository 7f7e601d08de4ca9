/*
 * aivet/evidence.h: the evidence store (evidence.c, the core): content kept
 * once by its SHA-256, evidence rows, and the names evidence goes by.
 */
#ifndef AIVET_EVIDENCE_H
#define AIVET_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "db.h"

/* ---- evidence store (evidence.c) ---- */

/* Stores bytes once by SHA-256 (inside the caller's transaction). */
int blob_put(struct db *db, const void *data, size_t len, char sha[65], struct aerr *err);
/* Stores what probe run run is receiving as a sealed box to seal_pk (a crypto_box
 * public key), replacing a plaintext copy; the sealing is recorded under actor in
 * blob_seal and the audit log. Content an evidence item names, or a finished run
 * recorded, is never sealed (the triggers and PostgreSQL's function refuse it). */
int blob_put_sealed(struct db *db, const char *actor, int64_t run, const void *data, size_t len,
    const unsigned char *seal_pk, char sha[65], struct aerr *err);
int blob_get(struct db *db, const char *sha, struct buf *out, int *encrypted, struct aerr *err);
const char *media_type_for(const char *name);
/* The largest file kept as evidence; a larger one is refused before it is read. */
#define EVIDENCE_FILE_MAX ((size_t)1 << 30)
/* An evidence row for stored content (kind "file" or "exchange"), its new id in *id. */
int evidence_insert(struct db *db, const char *actor, const char *kind, const char *sha,
    const char *name, const char *media_type, size_t size, const char *effective_date,
    int64_t *id, struct aerr *err);
/* Copies a file into the store and adds an evidence row plus its audit entry. */
int evidence_add_file(struct db *db, const char *actor, const char *path, const char *effective_date,
    int64_t *id, struct aerr *err);
/* The evidence a probe finding cites, by id, and the finding as "CODE (severity):
 * message" (summary "" when there is no such finding); *ids is the caller's to free. */
int finding_evidence_ids(struct db *db, int64_t finding_id, char *summary, size_t n, int64_t **ids,
    size_t *nids, struct aerr *err);
/* The newest exchange a finding cites whose response held other tenants'
 * canaries (readable, not sealed), or 0 when none did. */
int finding_leak_evidence(struct db *db, int64_t finding_id, int64_t *id, struct aerr *err);
/* The name of a piece of evidence wherever it is shown, as in a report
 * bundle's evidence/: "exchange-ID.json" for an exchange (kind "exchange" or
 * NULL), "file-ID-NAME" for a file (NAME: original_name with path separators
 * and blanks as '_', at most 79 bytes). ID is the evidence id. */
#define EVIDENCE_NAME_MAX 128
void evidence_file_name(int64_t id, const char *kind, const char *original_name, char *out, size_t n);

#endif
