/*
 * tsa-trust.c: which TSA aivet asks and which TSAs it believes: the default
 * TSA's URL in aivet's configuration, and the store of trusted TSA
 * certificates (added, listed, removed) that tsa.c checks a token's chain
 * against. A certificate is named by its subject, issuer and validity, as
 * 'aivet tsa trust' lists it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "aivet/domain.h"
#include "tsa.h"
#include "tsa-trust.h"

#define TSA_CERTS_MAX ((size_t)1 << 20)

/* ---- configuration: the default TSA and the trusted certificates ---- */

static char *
config_path(const char *name)
{
	char *dir = aivet_dir(AIVET_CONFIG_DIR), *p = xasprintf("%s/%s", dir, name);

	free(dir);
	return p;
}

char *
tsa_url_from_config(void)
{
	char *path = config_path("tsa-url"), *out = NULL;
	struct buf b = { 0 };
	struct aerr ignored = { 0 };

	/* A missing or unreadable file is no URL set. */
	if (read_file(path, 64 * 1024, &b, &ignored) == 0 && b.data != NULL) {
		b.data[strcspn(b.data, " \t\r\n")] = '\0';
		if (b.data[0] != '\0')
			out = xstrdup(b.data);
	}
	buf_free(&b);
	free(path);
	return out;
}

int
tsa_url_check(const char *opt, const char *url, struct aerr *err)
{
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return aerr_set(err, AV_USAGE, "%s %s: want an http:// or https:// URL", opt, url);
	if (strlen(url) >= sizeof ((struct tsa_status *)0)->url)
		return aerr_set(err, AV_USAGE, "%s: the URL is too long", opt);
	if (url_has_credential(url))
		return aerr_set(err, AV_USAGE, "%s %s: a TSA URL must not carry a credential (it is "
		    "written into the report)", opt, url);
	return 0;
}

int
tsa_url_config_set(const char *url, struct aerr *err)
{
	char *dir = aivet_dir(AIVET_CONFIG_DIR), *path = config_path("tsa-url"), *line;
	int rc;

	if (url == NULL) {
		rc = unlink(path) == 0 || errno == ENOENT ? 0 :
		    aerr_set(err, AV_RUNTIME, "%s: %s", path, strerror(errno));
		free(dir);
		free(path);
		return rc;
	}
	line = xasprintf("%s\n", url);
	if ((rc = tsa_url_check("URL", url, err)) == 0 && (rc = mkdir_p(dir, 0700, err)) == 0)
		rc = write_file_atomic(path, line, strlen(line), 0644, err);
	free(line);
	free(dir);
	free(path);
	return rc;
}

/* An X509 name on one line (RFC 2253, UTF-8 kept). */
void
tsa_name_text(const X509_NAME *n, char *out, size_t len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p = NULL;
	long l;

	if (b == NULL)
		die("out of memory");
	X509_NAME_print_ex(b, n, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
	l = BIO_get_mem_data(b, &p);
	snprintf(out, len, "%.*s", (int)(l > 0 ? l : 0), p ? p : "");
	BIO_free(b);
}

/* An ASN.1 time as ISO 8601 UTC to the second; *t receives it as time_t when not NULL. */
int
tsa_time_text(const ASN1_TIME *a, char out[32], time_t *t)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	if (a == NULL || ASN1_TIME_to_tm(a, &tm) != 1) {
		snprintf(out, 32, "?");
		return -1;
	}
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (t != NULL)
		*t = timegm(&tm);
	return 0;
}

/* Every certificate in a PEM file (or one DER certificate), appended to sk. */
int
tsa_certs_read(const char *path, STACK_OF(X509) *sk, struct aerr *err)
{
	struct buf b;
	BIO *bio;
	X509 *x;
	int n = 0;

	if (read_file(path, TSA_CERTS_MAX, &b, err) != 0)
		return err->code;
	if ((bio = BIO_new_mem_buf(b.data, (int)b.len)) == NULL)
		die("out of memory");
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		sk_X509_push(sk, x);
		n++;
	}
	BIO_free(bio);
	ERR_clear_error();
	if (n == 0) {
		const unsigned char *p = (const unsigned char *)b.data;

		if ((x = d2i_X509(NULL, &p, (long)b.len)) != NULL) {
			sk_X509_push(sk, x);
			n++;
		}
		ERR_clear_error();
	}
	buf_free(&b);
	return n > 0 ? 0 : aerr_set(err, AV_USAGE, "%s: no X.509 certificate in it (PEM or DER)", path);
}

static void
cert_info(X509 *x, struct tsa_cert_info *info)
{
	unsigned char *der = NULL;
	int len = i2d_X509(x, &der);

	memset(info, 0, sizeof *info);
	if (len > 0)
		sha256_hex(der, (size_t)len, info->fingerprint);
	OPENSSL_free(der);
	tsa_name_text(X509_get_subject_name(x), info->subject, sizeof info->subject);
	tsa_name_text(X509_get_issuer_name(x), info->issuer, sizeof info->issuer);
	tsa_time_text(X509_get0_notAfter(x), info->not_after, NULL);
	info->timestamping = X509_check_purpose(x, X509_PURPOSE_TIMESTAMP_SIGN, 0) == 1;
	info->ca = X509_check_ca(x) > 0;
	ERR_clear_error();
}

int
tsa_trust_add(const char *path, struct tsa_cert_info *info, int *added, struct aerr *err)
{
	STACK_OF(X509) *sk = sk_X509_new_null();
	char *dir = config_path("tsa-trusted"), *dest = NULL;
	BIO *out;
	char *pem = NULL;
	long len;
	int rc;

	*added = 0;
	if ((rc = tsa_certs_read(path, sk, err)) != 0)
		goto done;
	if (sk_X509_num(sk) != 1) {
		rc = aerr_set(err, AV_USAGE, "%s: holds %d certificates; trust them one file each", path,
		    sk_X509_num(sk));
		goto done;
	}
	cert_info(sk_X509_value(sk, 0), info);
	dest = xasprintf("%s/%s.pem", dir, info->fingerprint);
	if (access(dest, F_OK) == 0)
		goto done;
	if ((out = BIO_new(BIO_s_mem())) == NULL)
		die("out of memory");
	PEM_write_bio_X509(out, sk_X509_value(sk, 0));
	len = BIO_get_mem_data(out, &pem);
	if ((rc = mkdir_p(dir, 0700, err)) == 0 &&
	    (rc = write_file_atomic(dest, pem, (size_t)len, 0644, err)) == 0)
		*added = 1;
	BIO_free(out);
done:
	sk_X509_pop_free(sk, X509_free);
	free(dir);
	free(dest);
	return rc;
}

static int
info_cmp(const void *a, const void *b)
{
	const struct tsa_cert_info *x = a, *y = b;
	int c = strcmp(x->subject, y->subject);

	return c != 0 ? c : strcmp(x->fingerprint, y->fingerprint);
}

/* The trusted certificates into sk (when not NULL) and their descriptions into out
 * (when not NULL). A missing directory is an empty list. */
int
tsa_trusted_load(STACK_OF(X509) *sk, struct tsa_cert_info **out, size_t *n, struct aerr *err)
{
	char *dir = config_path("tsa-trusted");
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (out != NULL) {
		*out = NULL;
		*n = 0;
	}
	if (d == NULL) {
		free(dir);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		STACK_OF(X509) *one;
		char *p;

		if (l < 5 || strcmp(de->d_name + l - 4, ".pem") != 0)
			continue;
		one = sk_X509_new_null();
		p = xasprintf("%s/%s", dir, de->d_name);
		if ((rc = tsa_certs_read(p, one, err)) == 0) {
			for (int i = 0; i < sk_X509_num(one); i++) {
				X509 *x = sk_X509_value(one, i);

				if (out != NULL) {
					*out = xrealloc(*out, (*n + 1) * sizeof **out);
					cert_info(x, &(*out)[(*n)++]);
				}
				if (sk != NULL && X509_up_ref(x) == 1)
					sk_X509_push(sk, x);
			}
		}
		sk_X509_pop_free(one, X509_free);
		free(p);
	}
	closedir(d);
	free(dir);
	if (out != NULL && *n > 1)
		qsort(*out, *n, sizeof **out, info_cmp);
	return rc;
}

int
tsa_trust_list(struct tsa_cert_info **out, size_t *n, struct aerr *err)
{
	return tsa_trusted_load(NULL, out, n, err);
}

int
tsa_trust_remove(const char *what, struct tsa_cert_info *info, struct aerr *err)
{
	struct tsa_cert_info *v = NULL, *hit = NULL;
	size_t n = 0, lw = strlen(what), nhit = 0;
	char *dir, *path;
	int rc;

	if (lw < 8 || strspn(what, "0123456789abcdefABCDEF") != lw) {
		/* Not a fingerprint: a certificate file, described as 'tsa trust' would. */
		STACK_OF(X509) *sk = sk_X509_new_null();

		if ((rc = tsa_certs_read(what, sk, err)) == 0 && sk_X509_num(sk) != 1)
			rc = aerr_set(err, AV_USAGE, "%s: holds %d certificates; name one by its SHA-256",
			    what, sk_X509_num(sk));
		if (rc == 0)
			cert_info(sk_X509_value(sk, 0), info);
		sk_X509_pop_free(sk, X509_free);
		if (rc != 0)
			return rc;
		what = info->fingerprint;
		lw = strlen(what);
	}
	if ((rc = tsa_trusted_load(NULL, &v, &n, err)) != 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (strncasecmp(v[i].fingerprint, what, lw) == 0 && nhit++ == 0)
			hit = &v[i];
	if (nhit != 1) {
		rc = aerr_set(err, AV_USAGE, nhit == 0 ? "no trusted TSA certificate %s (see 'aivet tsa "
		    "list')" : "%s names %zu trusted TSA certificates: give more of the SHA-256", what,
		    nhit);
		free(v);
		return rc;
	}
	*info = *hit;
	free(v);
	dir = config_path("tsa-trusted");
	path = xasprintf("%s/%s.pem", dir, info->fingerprint);
	if (unlink(path) != 0)
		rc = aerr_set(err, AV_RUNTIME, "%s: cannot remove: %s", path, strerror(errno));
	free(path);
	free(dir);
	return rc;
}
