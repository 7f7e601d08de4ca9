/*
 * aivet/url.h: the checks on a vendor's URL (url.c, the vendors layer): no
 * secret in it, and plain HTTP only when allowed.
 */
#ifndef AIVET_URL_H
#define AIVET_URL_H

#include "base.h"

/* ---- URLs (url.c) ---- */
int url_check(const char *url, int allow_insecure_http, struct aerr *err);
/* The same, its messages naming the option opt gave the URL (url_check: "--url"). */
int url_check_as(const char *opt, const char *url, int allow_insecure_http, struct aerr *err);
int url_is_loopback_host(const char *host);
/* True when the URL carries a credential (user:password@, ?key=...): such a
 * URL, stored before aivet refused them, must not be copied anywhere. */
int url_has_credential(const char *url);
/* True when url lies within the origin of bound: the same scheme, host and
 * port, and a path under bound's path (a credential's origin, credref.c). */
int url_within_origin(const char *url, const char *bound);

#endif
