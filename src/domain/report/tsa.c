/*
 * tsa.c: RFC 3161 time-stamps on bundles and checkpoints (see tsa.h). The
 * request, the response and the token are built, parsed and checked with
 * OpenSSL's TS and X509 APIs; the request goes out through aivet's HTTP
 * engine (libcurl: no redirects, a size cap, timeouts). A token is only
 * believed when its imprint is the file's SHA-256, its signer's certificate
 * is for time-stamping and was valid at the attested time, that certificate
 * chains to one the verifier trusts, and the signature holds: each failure is
 * named on its own, so a reader knows which rule broke. The trusted
 * certificates and the default TSA are kept by tsa-trust.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/ts.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "aivet/domain.h"
#include "http.h"
#include "tsa.h"
#include "tsa-trust.h"

#define TSA_TIMEOUT_MS 30000L

/* ---- asking a TSA ---- */

struct exchange {
	const char *url;
	const unsigned char *req;
	size_t req_len;
	int answered;
	long status;
	struct buf body;
	int truncated, curl_code;
	char location[512];
};

static int
exchange_prepare(void *user, size_t i, struct http_req *r)
{
	struct exchange *x = user;

	(void)i;
	r->url = xstrdup(x->url);
	r->body = xmalloc(x->req_len);
	memcpy(r->body, x->req, x->req_len);
	r->body_len = x->req_len;
	http_req_header(r, "Content-Type", "application/timestamp-query", 0);
	http_req_header(r, "Accept", "application/timestamp-reply", 0);
	return 0;
}

static void
exchange_done(void *user, size_t i, const struct http_req *req, const struct http_resp *resp,
    int will_retry)
{
	struct exchange *x = user;
	const char *loc = http_resp_header(resp, "location");

	(void)i;
	(void)req;
	(void)will_retry;
	x->answered = 1;
	x->status = resp->status;
	x->truncated = resp->truncated;
	x->curl_code = resp->curl_code;
	buf_free(&x->body);
	buf_init(&x->body);
	buf_add(&x->body, resp->body.data ? resp->body.data : "", resp->body.len);
	snprintf(x->location, sizeof x->location, "%s", loc ? loc : "");
}

/* POSTs the request; on success x->body holds a 200 answer of at most the cap. */
static int
exchange_run(struct exchange *x, struct aerr *err)
{
	struct http_opts o;
	struct http_engine *e;
	int rc;

	http_opts_default(&o);
	o.concurrency = 1;
	o.max_retries = 0;
	o.connect_timeout_ms = 10000;
	o.timeout_ms = TSA_TIMEOUT_MS;
	o.low_speed_secs = 10;
	o.max_response = TSA_RESPONSE_MAX;
	e = http_engine_new(&o);
	buf_init(&x->body);
	rc = http_run(e, 1, exchange_prepare, exchange_done, x, err);
	http_engine_free(e);
	if (rc != 0)
		return rc;
	if (x->truncated)
		return aerr_set(err, AV_RUNTIME, "TSA %s: the answer exceeded the %zu-byte cap (not read "
		    "further)", x->url, TSA_RESPONSE_MAX);
	if (!x->answered || x->curl_code != 0)
		return aerr_set(err, AV_RUNTIME, "TSA %s: cannot reach it: %s", x->url,
		    curl_easy_strerror((CURLcode)x->curl_code));
	if (x->status >= 300 && x->status < 400)
		return aerr_set(err, AV_RUNTIME, "TSA %s: answered HTTP %ld, a redirect%s%s, which is not "
		    "followed", x->url, x->status, x->location[0] ? " to " : "", x->location);
	if (x->status != 200)
		return aerr_set(err, AV_RUNTIME, "TSA %s: answered HTTP %ld", x->url, x->status);
	return 0;
}

/* A DER TimeStampResp that is exactly the bytes given, or NULL. */
static TS_RESP *
resp_parse(const void *data, size_t len)
{
	const unsigned char *p = data;
	TS_RESP *r = d2i_TS_RESP(NULL, &p, (long)len);

	if (r != NULL && p != (const unsigned char *)data + len) {
		TS_RESP_free(r);
		r = NULL;
	}
	ERR_clear_error();
	return r;
}

/* 0 granted (or granted with modifications), else the status. */
static long
resp_status(TS_RESP *r)
{
	long s = ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(r)));

	return s == TS_STATUS_GRANTED || s == TS_STATUS_GRANTED_WITH_MODS ? 0 : s < 0 ? 99 : s;
}

/* Whether the token's imprint is SHA-256 over digest. */
static int
imprint_is(TS_TST_INFO *tst, const unsigned char digest[32])
{
	TS_MSG_IMPRINT *mi = TS_TST_INFO_get_msg_imprint(tst);
	const ASN1_OBJECT *obj = NULL;
	ASN1_OCTET_STRING *m;

	if (mi == NULL)
		return 0;
	X509_ALGOR_get0(&obj, NULL, NULL, TS_MSG_IMPRINT_get_algo(mi));
	m = TS_MSG_IMPRINT_get_msg(mi);
	return obj != NULL && OBJ_obj2nid(obj) == NID_sha256 && m != NULL &&
	    ASN1_STRING_length(m) == 32 && memcmp(ASN1_STRING_get0_data(m), digest, 32) == 0;
}

/* The certificates the token carries (may be NULL). */
static STACK_OF(X509) *
token_certs(TS_RESP *r)
{
	PKCS7 *p7 = TS_RESP_get_token(r);

	return p7 != NULL && PKCS7_type_is_signed(p7) && p7->d.sign != NULL ? p7->d.sign->cert : NULL;
}

/* The token's signer among its own certificates and extra; NULL when absent. */
static X509 *
token_signer(TS_RESP *r, STACK_OF(X509) *extra)
{
	STACK_OF(X509) *s = PKCS7_get0_signers(TS_RESP_get_token(r), extra, 0);
	X509 *x = s != NULL && sk_X509_num(s) == 1 ? sk_X509_value(s, 0) : NULL;

	sk_X509_free(s);
	ERR_clear_error();
	return x;
}

static TS_REQ *
request_make(const unsigned char digest[32], ASN1_INTEGER **nonce_out)
{
	TS_REQ *req = TS_REQ_new();
	TS_MSG_IMPRINT *mi = TS_MSG_IMPRINT_new();
	X509_ALGOR *alg = X509_ALGOR_new();
	unsigned char rnd[16];
	BIGNUM *bn;

	if (req == NULL || mi == NULL || alg == NULL)
		die("out of memory");
	randombytes_buf(rnd, sizeof rnd);
	rnd[0] |= 0x40;   /* 127 bits that always take 16 bytes: no leading zero to trim */
	rnd[0] &= 0x7f;
	if ((bn = BN_bin2bn(rnd, sizeof rnd, NULL)) == NULL ||
	    (*nonce_out = BN_to_ASN1_INTEGER(bn, NULL)) == NULL)
		die("out of memory");
	BN_free(bn);
	X509_ALGOR_set0(alg, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL);
	if (TS_REQ_set_version(req, 1) != 1 || TS_MSG_IMPRINT_set_algo(mi, alg) != 1 ||
	    TS_MSG_IMPRINT_set_msg(mi, (unsigned char *)digest, 32) != 1 ||
	    TS_REQ_set_msg_imprint(req, mi) != 1 || TS_REQ_set_nonce(req, *nonce_out) != 1 ||
	    TS_REQ_set_cert_req(req, 1) != 1)
		die("cannot build a time-stamp request");
	X509_ALGOR_free(alg);
	TS_MSG_IMPRINT_free(mi);
	return req;
}

static int signer_rules(const char *name, X509 *signer, time_t at, struct tsa_status *st);

/* The answer against the request: granted, same nonce, same imprint, a
 * certificate, and the certificate rules verify applies. */
static int
response_check(const char *url, const char *name, TS_RESP *r, const ASN1_INTEGER *nonce,
    const unsigned char digest[32], struct tsa_status *st, struct aerr *err)
{
	TS_TST_INFO *tst = TS_RESP_get_tst_info(r);
	const ASN1_INTEGER *n;
	X509 *signer;
	time_t at = 0;
	long s;

	if ((s = resp_status(r)) != 0)
		return aerr_set(err, AV_RUNTIME, "TSA %s: did not grant the time-stamp (status %ld)", url, s);
	if (tst == NULL)
		return aerr_set(err, AV_RUNTIME, "TSA %s: the answer is not an RFC 3161 time-stamp "
		    "response", url);
	n = TS_TST_INFO_get_nonce(tst);
	if (n == NULL || ASN1_INTEGER_cmp(n, nonce) != 0)
		return aerr_set(err, AV_RUNTIME, "TSA %s: the response's nonce is not the request's",
		    url);
	if (!imprint_is(tst, digest))
		return aerr_set(err, AV_RUNTIME, "TSA %s: the token is for another imprint than the "
		    "SHA-256 of %s", url, name);
	if ((signer = token_signer(r, NULL)) == NULL)
		return aerr_set(err, AV_RUNTIME, "TSA %s: the token carries no signing certificate, "
		    "although the request asked for it", url);
	tsa_time_text(TS_TST_INFO_get_time(tst), st->time, &at);
	tsa_name_text(X509_get_subject_name(signer), st->tsa, sizeof st->tsa);
	/* verify's certificate rules, before anything is written: a token verify
	 * would fail (a certificate expired, or not for time-stamping) is no stamp. */
	if (signer_rules(name, signer, at, st) != 0)
		return aerr_set(err, AV_RUNTIME, "TSA %s: %s", url, st->problem);
	return 0;
}

/* The certificates the TSA sent, as PEM. */
static void
certs_pem(STACK_OF(X509) *sk, struct buf *b)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p = NULL;
	long l;

	if (bio == NULL)
		die("out of memory");
	for (int i = 0; i < sk_X509_num(sk); i++)
		PEM_write_bio_X509(bio, sk_X509_value(sk, i));
	l = BIO_get_mem_data(bio, &p);
	buf_add(b, p ? p : "", (size_t)(l > 0 ? l : 0));
	BIO_free(bio);
}

int
tsa_stamp(const char *url, const char *data_path, const char *name, struct tsa_status *st,
    struct aerr *err)
{
	unsigned char digest[32], *der = NULL;
	struct exchange x = { .url = url };
	ASN1_INTEGER *nonce = NULL;
	TS_REQ *req;
	TS_RESP *r = NULL;
	struct buf pem;
	char *tsr = xasprintf("%s%s", data_path, TSA_TOKEN_SUFFIX);
	char *chain = xasprintf("%s%s", data_path, TSA_CHAIN_SUFFIX);
	int len, rc;

	memset(st, 0, sizeof *st);
	st->requested = 1;
	snprintf(st->url, sizeof st->url, "%s", url);
	buf_init(&pem);
	if ((rc = file_digest(data_path, DIGEST_SHA256, digest, err)) != 0)
		goto done;
	req = request_make(digest, &nonce);
	len = i2d_TS_REQ(req, &der);
	TS_REQ_free(req);
	if (len <= 0)
		die("cannot encode a time-stamp request");
	x.req = der;
	x.req_len = (size_t)len;
	if ((rc = exchange_run(&x, err)) != 0)
		goto done;
	if ((r = resp_parse(x.body.data, x.body.len)) == NULL) {
		rc = aerr_set(err, AV_RUNTIME, "TSA %s: the answer is not an RFC 3161 time-stamp response",
		    url);
		goto done;
	}
	if ((rc = response_check(url, name, r, nonce, digest, st, err)) != 0)
		goto done;
	certs_pem(token_certs(r), &pem);
	if ((rc = write_file_atomic(tsr, x.body.data, x.body.len, 0644, err)) == 0 &&
	    (rc = write_file_atomic(chain, pem.data ? pem.data : "", pem.len, 0644, err)) != 0)
		unlink(tsr);
	if (rc == 0)
		st->attested = 1;
done:
	if (rc != 0) {
		snprintf(st->problem, sizeof st->problem, "%s", err->msg);
		st->time[0] = st->tsa[0] = '\0';
	}
	TS_RESP_free(r);
	ASN1_INTEGER_free(nonce);
	OPENSSL_free(der);
	buf_free(&x.body);
	buf_free(&pem);
	free(tsr);
	free(chain);
	return rc;
}

/* ---- verifying a token ---- */

static int
st_problem(struct tsa_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
st_problem(struct tsa_status *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->problem, sizeof st->problem, fmt, ap);
	va_end(ap);
	st->attested = 0;
	return 0;
}

/* The certificate rules before the chain: time-stamping purpose, valid at the time. */
static int
signer_rules(const char *name, X509 *signer, time_t at, struct tsa_status *st)
{
	char nb[32], na[32];

	if (X509_check_purpose(signer, X509_PURPOSE_TIMESTAMP_SIGN, 0) != 1) {
		ERR_clear_error();
		return st_problem(st, "%s%s: the TSA certificate %s is not for time-stamping "
		    "(extendedKeyUsage timeStamping, critical)", name, TSA_TOKEN_SUFFIX, st->tsa), -1;
	}
	tsa_time_text(X509_get0_notBefore(signer), nb, NULL);
	tsa_time_text(X509_get0_notAfter(signer), na, NULL);
	if (X509_cmp_time(X509_get0_notBefore(signer), &at) > 0 ||
	    X509_cmp_time(X509_get0_notAfter(signer), &at) < 0)
		return st_problem(st, "%s%s: the TSA certificate %s was not valid at the attested time "
		    "%s (valid from %s to %s)", name, TSA_TOKEN_SUFFIX, st->tsa, st->time, nb, na), -1;
	return 0;
}

/* Whether a chain fails only for want of a trusted certificate at its end. */
static int
trust_error(int e)
{
	return e == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT || e == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
	    e == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT || e == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
	    e == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE;
}

/* The chain from signer to a trusted certificate, at the attested time: 0, or
 * -1 when it ends in no trusted certificate, -2 when it is broken otherwise. */
static int
chain_check(const char *name, X509_STORE *store, X509 *signer, STACK_OF(X509) *untrusted,
    struct tsa_status *st)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	STACK_OF(X509) *chain;
	int ok;

	if (ctx == NULL || X509_STORE_CTX_init(ctx, store, signer, untrusted) != 1)
		die("out of memory");
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_TIMESTAMP_SIGN);
	ok = X509_verify_cert(ctx) == 1;
	if (!ok && !trust_error(X509_STORE_CTX_get_error(ctx)))
		ok = -2;
	else if (!ok)
		ok = -1;
	if (ok < 0) {
		st_problem(st, "%s%s: the TSA %s is not trusted: %s", name, TSA_TOKEN_SUFFIX, st->tsa,
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
	} else if ((chain = X509_STORE_CTX_get0_chain(ctx)) != NULL && sk_X509_num(chain) > 0) {
		tsa_name_text(X509_get_subject_name(sk_X509_value(chain, sk_X509_num(chain) - 1)),
		    st->trusted_as, sizeof st->trusted_as);
	}
	X509_STORE_CTX_free(ctx);
	ERR_clear_error();
	return ok == 1 ? 0 : ok;
}

/* The TSA's signature over the token (and its ESS binding to the certificate). */
static int
signature_check(const char *name, TS_RESP *r, X509_STORE *store, STACK_OF(X509) *untrusted,
    struct tsa_status *st)
{
	TS_VERIFY_CTX *vc = TS_VERIFY_CTX_new();
	int ok;

	if (vc == NULL || X509_STORE_up_ref(store) != 1)
		die("out of memory");
	TS_VERIFY_CTX_set_flags(vc, TS_VFY_SIGNATURE | TS_VFY_VERSION);
	TS_VERIFY_CTX_set_store(vc, store);   /* the context frees its reference */
	TS_VERIFY_CTS_set_certs(vc, X509_chain_up_ref(untrusted));
	ok = TS_RESP_verify_response(vc, r) == 1;
	TS_VERIFY_CTX_free(vc);
	ERR_clear_error();
	if (!ok)
		st_problem(st, "%s%s: the TSA's signature on the token does not verify", name,
		    TSA_TOKEN_SUFFIX);
	return ok ? 0 : -1;
}

/* The store of trusted certificates, checking at time at. */
static X509_STORE *
store_make(STACK_OF(X509) *trusted, time_t at)
{
	X509_STORE *s = X509_STORE_new();
	X509_VERIFY_PARAM *vp;

	if (s == NULL)
		die("out of memory");
	for (int i = 0; i < sk_X509_num(trusted); i++)
		X509_STORE_add_cert(s, sk_X509_value(trusted, i));
	vp = X509_STORE_get0_param(s);
	X509_VERIFY_PARAM_set_time(vp, at);
	/* A trusted TSA certificate may be the TSA's own, not only its CA's. */
	X509_VERIFY_PARAM_set_flags(vp, X509_V_FLAG_PARTIAL_CHAIN);
	return s;
}

/*
 * A token whose TSA no trusted certificate vouches for (st->problem says
 * why): its signature is still checked against the certificate it names, so
 * that "time not verified" (trust the TSA to verify it) never covers a
 * token that is forged or broken whoever trusts it.
 */
static void
untrusted_signature(const char *name, TS_RESP *r, X509 *signer, time_t at,
    STACK_OF(X509) *untrusted, struct tsa_status *st)
{
	STACK_OF(X509) *self = sk_X509_new_null();
	char why[sizeof st->problem];
	X509_STORE *store;

	snprintf(why, sizeof why, "%s", st->problem);
	if (self == NULL || X509_up_ref(signer) != 1 || sk_X509_push(self, signer) <= 0)
		die("out of memory");
	store = store_make(self, at);
	if (signature_check(name, r, store, untrusted, st) == 0) {
		snprintf(st->problem, sizeof st->problem, "%s", why);
		st->untrusted = 1;
	}
	X509_STORE_free(store);
	sk_X509_pop_free(self, X509_free);
}

/* The rules in order, on a parsed response; the first that fails is st->problem. */
static void
token_check(const char *data_path, const char *name, const char *extra_certs, TS_RESP *r,
    struct tsa_status *st)
{
	STACK_OF(X509) *untrusted = sk_X509_new_null(), *trusted = sk_X509_new_null(), *tc;
	char *chain = xasprintf("%s%s", data_path, TSA_CHAIN_SUFFIX);
	unsigned char digest[32];
	TS_TST_INFO *tst = TS_RESP_get_tst_info(r);
	X509_STORE *store = NULL;
	struct aerr e = { 0 };
	X509 *signer;
	time_t at = 0;
	int chained = 0;

	if (resp_status(r) != 0 || tst == NULL) {
		st_problem(st, "%s%s: the TSA did not grant a time-stamp (status %ld)", name,
		    TSA_TOKEN_SUFFIX, resp_status(r));
		goto done;
	}
	if (file_digest(data_path, DIGEST_SHA256, digest, &e) != 0 || !imprint_is(tst, digest)) {
		st_problem(st, "%s%s: the token is for another imprint than the SHA-256 of %s", name,
		    TSA_TOKEN_SUFFIX, name);
		goto done;
	}
	tsa_time_text(TS_TST_INFO_get_time(tst), st->time, &at);
	if ((tc = token_certs(r)) != NULL)
		for (int i = 0; i < sk_X509_num(tc); i++)
			if (X509_up_ref(sk_X509_value(tc, i)) == 1)
				sk_X509_push(untrusted, sk_X509_value(tc, i));
	if (access(chain, F_OK) == 0)
		tsa_certs_read(chain, untrusted, &e);
	if ((signer = token_signer(r, untrusted)) == NULL) {
		st_problem(st, "%s%s: the TSA's certificate is neither in the token nor in %s%s", name,
		    TSA_TOKEN_SUFFIX, name, TSA_CHAIN_SUFFIX);
		goto done;
	}
	tsa_name_text(X509_get_subject_name(signer), st->tsa, sizeof st->tsa);
	if (signer_rules(name, signer, at, st) != 0)
		goto done;
	aerr_clear(&e);
	if (tsa_trusted_load(trusted, NULL, NULL, &e) != 0 ||
	    (extra_certs != NULL && tsa_certs_read(extra_certs, trusted, &e) != 0)) {
		st_problem(st, "%s%s: %s", name, TSA_TOKEN_SUFFIX, e.msg);
		goto done;
	}
	if (sk_X509_num(trusted) == 0)
		st_problem(st, "%s%s: no trusted TSA certificate ('aivet tsa trust CERT', or --tsa-cert "
		    "FILE)", name, TSA_TOKEN_SUFFIX);
	if (sk_X509_num(trusted) == 0 || (store = store_make(trusted, at),
	    (chained = chain_check(name, store, signer, untrusted, st)) == -1)) {
		untrusted_signature(name, r, signer, at, untrusted, st);
		goto done;
	}
	if (chained != 0)
		goto done;
	if (signature_check(name, r, store, untrusted, st) != 0)
		goto done;
	st->attested = 1;
	st->problem[0] = '\0';
done:
	if (!st->attested)
		st->trusted_as[0] = '\0';
	X509_STORE_free(store);
	sk_X509_pop_free(untrusted, X509_free);
	sk_X509_pop_free(trusted, X509_free);
	free(chain);
}

int
tsa_check(const char *data_path, const char *name, const char *extra_certs, struct tsa_status *st)
{
	char *tsr = xasprintf("%s%s", data_path, TSA_TOKEN_SUFFIX);
	struct aerr e = { 0 };
	struct buf b;
	TS_RESP *r;

	memset(st, 0, sizeof *st);
	if (access(tsr, F_OK) != 0) {
		free(tsr);
		return 0;
	}
	st->requested = 1;
	if (read_file(tsr, TSA_RESPONSE_MAX, &b, &e) != 0) {
		st_problem(st, "%s%s: unreadable or over %zu bytes", name, TSA_TOKEN_SUFFIX, TSA_RESPONSE_MAX);
	} else {
		if ((r = resp_parse(b.data, b.len)) == NULL)
			st_problem(st, "%s%s: not an RFC 3161 time-stamp response", name, TSA_TOKEN_SUFFIX);
		else
			token_check(data_path, name, extra_certs, r, st);
		TS_RESP_free(r);
		buf_free(&b);
	}
	free(tsr);
	return 0;
}

/* ---- a report bundle ---- */

#define BUNDLE_SUMS "SHA256SUMS"

int
tsa_stamp_bundle(const char *dir, const char *url, int optional, struct tsa_status *st,
    struct aerr *err)
{
	char *sums = xasprintf("%s/%s", dir, BUNDLE_SUMS), *path = xasprintf("%s/%s", dir, TSA_STATEMENT);
	struct buf b;
	int rc = tsa_stamp(url, sums, BUNDLE_SUMS, st, err);

	if (rc != 0 && optional) {
		aerr_clear(err);
		rc = 0;
	}
	if (rc == 0) {
		buf_init(&b);
		tsa_statement(st, &b);
		rc = write_file_atomic(path, b.data, b.len, 0644, err);
		buf_free(&b);
	}
	free(sums);
	free(path);
	return rc;
}

int
tsa_bundle_file(const char *name)
{
	return strcmp(name, BUNDLE_SUMS TSA_TOKEN_SUFFIX) == 0 ||
	    strcmp(name, BUNDLE_SUMS TSA_CHAIN_SUFFIX) == 0 || strcmp(name, TSA_STATEMENT) == 0;
}

char *
tsa_bundle_check(const char *dir, const char *extra_certs, struct tsa_status *st)
{
	char *sums = xasprintf("%s/%s", dir, BUNDLE_SUMS);

	tsa_check(sums, BUNDLE_SUMS, extra_certs, st);
	free(sums);
	if (st->requested && !st->attested && !st->untrusted)
		return xstrdup(st->problem);
	return tsa_statement_check(dir, st);
}

/* ---- words ---- */

void
tsa_status_words(const struct tsa_status *st, struct buf *b)
{
	if (st->attested)
		buf_printf(b, "time attested by TSA %s at %s", st->tsa, st->time);
	else if (st->requested && st->untrusted)
		buf_printf(b, "time not verified: %s", st->problem);
	else if (st->requested && st->problem[0] != '\0')
		buf_printf(b, "time not attested: %s", st->problem);
	else
		buf_adds(b, "time not attested");
}

cJSON *
tsa_status_json(const struct tsa_status *st)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddBoolToObject(o, "attested", st->attested);
	json_add_str(o, "time", st->attested ? st->time : NULL);
	json_add_str(o, "tsa", st->attested ? st->tsa : NULL);
	json_add_str(o, "trusted_as", st->trusted_as[0] ? st->trusted_as : NULL);
	json_add_str(o, "problem", st->problem[0] ? st->problem : NULL);
	/* "attested", "not verified" (the TSA is not trusted), "failed" or "none" */
	cJSON_AddStringToObject(o, "state", st->attested ? "attested" : !st->requested ? "none" :
	    st->untrusted ? "not verified" : "failed");
	return o;
}

void
tsa_statement(const struct tsa_status *st, struct buf *b)
{
	tsa_status_words(st, b);
	buf_adds(b, "\n");
	if (st->attested)
		buf_printf(b, "\nThe token is SHA256SUMS%s (RFC 3161, over the SHA-256 of SHA256SUMS),\n"
		    "asked of %s once the bundle was signed; the certificates the\n"
		    "TSA sent are SHA256SUMS%s. This file is not in SHA256SUMS (it could\n"
		    "not be): 'aivet verify DIR' checks it against the token, and VERIFY.txt\n"
		    "gives the stock 'openssl ts -verify' check.\n", TSA_TOKEN_SUFFIX, st->url,
		    TSA_CHAIN_SUFFIX);
}

char *
tsa_statement_check(const char *dir, const struct tsa_status *st)
{
	char *path = xasprintf("%s/%s", dir, TSA_STATEMENT), *out = NULL;
	struct aerr e = { 0 };
	struct buf b, want;

	if (read_file(path, 65536, &b, &e) != 0) {
		free(path);
		return NULL;
	}
	free(path);
	buf_init(&want);
	if (st->attested || st->untrusted) {
		/* What the token says, trusted or not: the statement must say it too. */
		buf_printf(&want, "time attested by TSA %s at %s\n", st->tsa, st->time);
		if (b.len < want.len || memcmp(b.data, want.data, want.len) != 0)
			out = xasprintf("%s: does not say what the token attests (%.*s)", TSA_STATEMENT,
			    (int)want.len - 1, want.data);
	} else if (b.len >= 13 && memcmp(b.data, "time attested", 13) == 0) {
		out = xasprintf("%s: claims an attested time that no good token backs", TSA_STATEMENT);
	}
	buf_free(&want);
	buf_free(&b);
	return out;
}

void
tsa_verify_recipe(struct buf *b, const char *url)
{
	buf_printf(b,
	    "\n"
	    "3. When the report was made (RFC 3161 time-stamp). A time-stamp token over\n"
	    "SHA256SUMS was asked of the Time-Stamping Authority at %s\n"
	    "once the bundle was signed: SHA256SUMS%s is the TSA's response, SHA256SUMS%s\n"
	    "the certificates it sent and %s says what it attests (neither is in\n"
	    "SHA256SUMS: they came after it). Obtain the TSA's CA certificate out of band\n"
	    "(TSA-CA.pem below) and run, in this directory:\n"
	    "\n"
	    "    openssl ts -verify -data SHA256SUMS -in SHA256SUMS%s -CAfile TSA-CA.pem -untrusted SHA256SUMS%s\n"
	    "    openssl ts -reply -in SHA256SUMS%s -text\n"
	    "    openssl ts -reply -in SHA256SUMS%s -token_out | openssl pkcs7 -inform DER -print_certs -noout\n"
	    "\n"
	    "The first must print 'Verification: OK'; the second shows the attested time\n"
	    "(Time stamp:). Its 'TSA:' line is the name the token carries, and RFC 3161\n"
	    "leaves that optional: many TSAs leave it 'unspecified'. Who stamped is the\n"
	    "subject of the certificate that signed the token, which the first command\n"
	    "checked; the third lists the certificates the token carries, and TIMESTAMP.txt\n"
	    "names the signer. openssl checks the certificates at the present time;\n"
	    "add '-attime SECONDS' (the attested time, in seconds since 1970) for a TSA\n"
	    "certificate that has expired since. With aivet, once: 'aivet tsa trust\n"
	    "TSA-CA.pem'; then 'aivet verify DIR' checks the token too and prints the\n"
	    "attested time beside generated_at.\n",
	    url, TSA_TOKEN_SUFFIX, TSA_CHAIN_SUFFIX, TSA_STATEMENT, TSA_TOKEN_SUFFIX, TSA_CHAIN_SUFFIX,
	    TSA_TOKEN_SUFFIX, TSA_TOKEN_SUFFIX);
}

void
tsa_request_words(const char *url, struct buf *b)
{
	if (url == NULL)
		buf_adds(b, "time not attested (no time-stamp was requested for this bundle)");
	else
		buf_printf(b, "time attested by TSA %s at the time its token says: the token over "
		    "SHA256SUMS (SHA256SUMS%s) is made once this report is signed, so it cannot be "
		    "written here; %s and 'aivet verify' give the attested time, or say "
		    "\"time not attested\" when there is no good token", url, TSA_TOKEN_SUFFIX,
		    TSA_STATEMENT);
}
