/*
 * hard.h: what keeps evidence trustworthy when things go wrong: runs whose
 * process died are settled as interrupted, and the evidence key that seals
 * leaked content at rest.
 */
#ifndef AIVET_HARD_H
#define AIVET_HARD_H

#include "aivet.h"

/* Marks every run still 'running' whose process is gone as 'interrupted'
 * (one transaction, an audit entry per run); *settled counts them (may be NULL). */
int probe_runs_settle(sqlite3 *db, const char *actor, int *settled, struct aerr *err);

/* Whether s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
int utf8_valid(const void *s, size_t n);

/* The evidence key's public half ($XDG_CONFIG_HOME/aivet/evidence.pub),
 * making the pair on first use; 32 bytes, a crypto_box public key. */
int evidence_key_public(unsigned char pk[32], struct aerr *err);
/* Opens a blob sealed to the evidence key with evidence.key. */
int evidence_open_sealed(const void *sealed, size_t len, struct buf *out, struct aerr *err);

#endif
