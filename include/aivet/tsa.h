/*
 * tsa.h: RFC 3161 time-stamps — when, not only who. A signature says who
 * signed a bundle or an audit checkpoint; a token from a Time-Stamping
 * Authority says the file existed at a time the signer cannot move. This
 * module asks a TSA over HTTP(S) for a token over a file's SHA-256, checks
 * the answer, stores it beside the file (FILE.tsr, and the certificates the
 * TSA sent as FILE.tsa.pem), and verifies such a token against the TSA
 * certificates the verifier trusts. Everything ASN.1 goes through OpenSSL's
 * TS API; nothing prints.
 */
#ifndef AIVET_TSA_H
#define AIVET_TSA_H

#include "core.h"

#define TSA_TOKEN_SUFFIX ".tsr"        /* the DER TimeStampResp beside the stamped file */
#define TSA_CHAIN_SUFFIX ".tsa.pem"    /* the certificates the TSA sent, PEM */
#define TSA_STATEMENT "TIMESTAMP.txt"  /* a bundle's statement, written after stamping */
#define TSA_RESPONSE_MAX ((size_t)1 << 20)

struct tsa_status {
	int requested;               /* a token was asked for (stamping) or is present (verifying) */
	int attested;                /* a good token: time and tsa are set */
	char time[32];               /* the attested time (genTime), ISO 8601 UTC */
	char tsa[512];               /* the TSA certificate's subject (RFC 2253) */
	char trusted_as[600];        /* the trusted certificate the chain ends in (verifying) */
	char url[1024];              /* the TSA asked (stamping) */
	char problem[1200];          /* why not attested, when requested and not attested */
	int untrusted;               /* not attested only because no trusted TSA certificate
	                                vouches for the TSA: the token is intact and signed by
	                                the certificate it names ("time not verified") */
};

/* The default TSA: the first line of $XDG_CONFIG_HOME/aivet/tsa-url, or NULL. */
char *tsa_url_from_config(void);
/* Sets (url not NULL) or removes (NULL) the default TSA. */
int tsa_url_config_set(const char *url, struct aerr *err);
/* An http:// or https:// URL without credentials, named opt in the error. */
int tsa_url_check(const char *opt, const char *url, struct aerr *err);

/* Asks the TSA at url for a token over the SHA-256 of data_path (a fresh nonce,
 * the certificate requested), checks the answer (HTTP 200, status granted, the
 * nonce and the imprint are the request's, a signing certificate sent) and writes
 * data_path.tsr and data_path.tsa.pem (name: how messages call the file). st tells the time and the TSA. Errors are
 * AV_RUNTIME (3) and name the URL; nothing is written then. */
int tsa_stamp(const char *url, const char *data_path, const char *name, struct tsa_status *st,
    struct aerr *err);

/* Verifies data_path.tsr over data_path (name: how messages call the file): the
 * imprint is the file's SHA-256, the TSA certificate is for time-stamping and was
 * valid at the attested time, it chains to a trusted TSA certificate (the ones
 * 'aivet tsa trust' keeps, and those in extra_certs, a PEM file, when not NULL)
 * and its signature on the token holds. No token: st->requested is 0. Fills st;
 * returns 0. */
int tsa_check(const char *data_path, const char *name, const char *extra_certs, struct tsa_status *st);

/* "time attested by TSA SUBJECT at TIME", "time not attested", "time not
 * attested: WHY" or, for a token intact but from a TSA not trusted, "time
 * not verified: WHY". */
void tsa_status_words(const struct tsa_status *st, struct buf *b);
/* The status as JSON: {attested, time, tsa, trusted_as, problem}. */
cJSON *tsa_status_json(const struct tsa_status *st);
/* A bundle's TIMESTAMP.txt, once stamping is over. */
void tsa_statement(const struct tsa_status *st, struct buf *b);
/* Checks dir/TIMESTAMP.txt against the verified status; returns a problem
 * (caller frees) or NULL. */
char *tsa_statement_check(const char *dir, const struct tsa_status *st);
/* VERIFY.txt's section on the token (stock openssl ts -verify). */
void tsa_verify_recipe(struct buf *b, const char *url);
/* What report.md and report.html say of the time, from the TSA asked of
 * (the record's time_stamp; NULL: none). */
void tsa_request_words(const char *url, struct buf *b);

/* ---- a report bundle's token: SHA256SUMS.tsr, SHA256SUMS.tsa.pem, TIMESTAMP.txt ---- */

/* Stamps dir/SHA256SUMS and writes dir/TIMESTAMP.txt. A TSA that fails is an error,
 * unless optional: then st says why and TIMESTAMP.txt that the time is not attested. */
int tsa_stamp_bundle(const char *dir, const char *url, int optional, struct tsa_status *st,
    struct aerr *err);
/* Whether a bundle's file name is one of the time-stamp's (outside SHA256SUMS). */
int tsa_bundle_file(const char *name);
/* Verifies the bundle's token (if any) and TIMESTAMP.txt into st; returns the
 * problem (caller frees), or NULL. */
char *tsa_bundle_check(const char *dir, const char *extra_certs, struct tsa_status *st);

/* The trusted TSA certificates ($XDG_CONFIG_HOME/aivet/tsa-trusted/SHA256.pem). */
struct tsa_cert_info {
	char fingerprint[65];        /* SHA-256 of the DER certificate */
	char subject[512];
	char issuer[512];
	char not_after[32];
	int timestamping;            /* extendedKeyUsage timeStamping, critical */
	int ca;
};
/* Trusts the certificate in path (PEM or DER); info describes it; *added is 0
 * when it was trusted already. */
int tsa_trust_add(const char *path, struct tsa_cert_info *info, int *added, struct aerr *err);
/* Stops trusting a certificate: what is its SHA-256 fingerprint (or the first 8
 * or more hex digits of it, naming one) or a certificate file; info describes the
 * certificate removed. */
int tsa_trust_remove(const char *what, struct tsa_cert_info *info, struct aerr *err);
/* The trusted certificates, sorted by subject. */
int tsa_trust_list(struct tsa_cert_info **out, size_t *n, struct aerr *err);

#endif
