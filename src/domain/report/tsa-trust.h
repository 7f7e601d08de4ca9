/*
 * tsa-trust.h: what tsa.c takes from tsa-trust.c to check a token: the
 * certificates read from a file or from the trusted store, and their names
 * and times as words. Private to the report's room.
 */
#ifndef AIVET_TSA_TRUST_H
#define AIVET_TSA_TRUST_H

#include <time.h>
#include <openssl/x509.h>

#include "tsa.h"

/* An X509 name on one line (RFC 2253, UTF-8 kept). */
void tsa_name_text(const X509_NAME *n, char *out, size_t len);
/* An ASN.1 time as ISO 8601 UTC to the second; *t receives it as time_t when not NULL. */
int tsa_time_text(const ASN1_TIME *a, char out[32], time_t *t);
/* Every certificate in a PEM file (or one DER certificate), appended to sk. */
int tsa_certs_read(const char *path, STACK_OF(X509) *sk, struct aerr *err);
/* The trusted certificates into sk (when not NULL) and their descriptions into out
 * (when not NULL). A missing directory is an empty list. */
int tsa_trusted_load(STACK_OF(X509) *sk, struct tsa_cert_info **out, size_t *n, struct aerr *err);

#endif
