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
/* Who wrote an endpoint's credential reference and where it may go, from the
 * endpoint's audit entries: writer, who set the reference now stored (NULL:
 * no entry set it); origin_url, the URL it is bound to (the endpoint's URL
 * when the writer set it, moved with the writer's own URL changes, or one the
 * writer confirmed); url, url_actor and url_at, the URL the log last set, by
 * whom and when (NULL: none). */
struct credref_binding {
	char *writer, *origin_url, *url, *url_actor, *url_at;
	int url_by_writer;   /* the URL (or nodes) now set was set or confirmed by the writer */
};
int credref_binding_load(struct db *db, int64_t endpoint_id, const char *label, const char *ref,
    struct credref_binding *b, struct aerr *err);
void credref_binding_free(struct credref_binding *b);
/* As credref_resolve, for a probe run by runner of the endpoint's credential
 * label, to be sent to url: refused (AV_USAGE, nothing read) when url is not
 * the one the audit log last set or lies outside the reference's origin
 * (naming who moved it, when, and the confirmation), or unless runner set
 * that reference or allows it in CONFIG/credentials-allowed as set by its
 * writer, who also set or confirmed the URL (naming who set it and the
 * setting that would allow it). */
int credref_read(struct db *db, const char *runner, int64_t endpoint_id, const char *url,
    const char *label, const char *ref, char **secret, size_t *len, struct aerr *err);
void credref_free(char *secret, size_t len);

/* One credential reference of an endpoint (never the secret): its row. */
struct credential {
	int64_t id;           /* the row's id: the order the credentials were added in */
	char *label, *ref;
	char *org;            /* NULL: null (no organisation named) */
};
/* The one reader of an endpoint's credentials (references, never secrets),
 * by label: the endpoint record (endpoint_get), the probe's tenants and the
 * confirmation of a moved URL all read them here. *out NULL when none. */
int credential_list_load(struct db *db, int64_t endpoint_id, struct credential **out, size_t *n,
    struct aerr *err);
void credential_list_free(struct credential *c, size_t n);

#endif
