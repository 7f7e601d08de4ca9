/*
 * aivet/credref.h: credential references (credref.c, the vendors layer):
 * "env:VAR" or "file:PATH", resolved into memory that is wiped on free.
 */
#ifndef AIVET_CREDREF_H
#define AIVET_CREDREF_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "db.h"

/* ---- credentials (credref.c) ---- */

/* A credential reference is "env:VAR" or "file:PATH"; never the secret itself. */
int credref_check(const char *ref, struct aerr *err);
/* Resolves the reference into sodium_malloc'ed memory; free with credref_free. */
int credref_resolve(const char *ref, char **secret, size_t *len, struct aerr *err);
/* As credref_resolve, for a probe run by runner of the endpoint's credential
 * label: refused (AV_USAGE, naming who set it and the setting that would
 * allow it) unless runner set that reference or allows it in
 * CONFIG/credentials-allowed. */
int credref_read(struct db *db, const char *runner, int64_t endpoint_id, const char *label,
    const char *ref, char **secret, size_t *len, struct aerr *err);
void credref_free(char *secret, size_t len);

#endif
