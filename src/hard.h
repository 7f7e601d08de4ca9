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

#endif
