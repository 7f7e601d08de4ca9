/*
 * evidence-key.c: the evidence key. An exchange behind a LEAK_* finding
 * holds another customer's data; its response is stored as a libsodium
 * sealed box to this key (blob_put's seal_pk), so the database alone never
 * discloses it. The key pair lives under $XDG_CONFIG_HOME/aivet/
 * (evidence.pub, and evidence.key 0600), apart from the database, made on
 * first use; whoever holds evidence.key can open the sealed content.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "evidence-key.h"

/* Reads a key file of exactly n bytes, hex-encoded on one line. */
static int
read_key(const char *path, unsigned char *out, size_t n, struct aerr *err)
{
	struct buf b;
	size_t len;
	int rc = 0;

	if (read_file(path, 4 * n + 16, &b, err) != 0)
		return err->code;
	len = b.len;
	while (len > 0 && (b.data[len - 1] == '\n' || b.data[len - 1] == '\r'))
		len--;
	if (sodium_hex2bin(out, n, b.data, len, NULL, &len, NULL) != 0 || len != n)
		rc = aerr_set(err, AV_USAGE, "%s: not an evidence key (%zu hex-encoded bytes)", path, n);
	sodium_memzero(b.data, b.cap);
	buf_free(&b);
	return rc;
}

static int
write_key(const char *path, const unsigned char *key, size_t n, unsigned mode, struct aerr *err)
{
	char *hex = sodium_malloc(2 * n + 2);
	int rc;

	if (hex == NULL)
		die("out of memory");
	sodium_bin2hex(hex, 2 * n + 1, key, n);
	hex[2 * n] = '\n';
	rc = write_file_atomic(path, hex, 2 * n + 1, mode, err);
	sodium_free(hex);
	return rc;
}

/* The pair as it is on disk, or a new one when there is none. Called under the
 * directory's lock when making one, so that processes starting together (a
 * host's workers) neither see a half-written pair nor write two. */
static int
key_pair_get(const char *pub, const char *sec, unsigned char pk[crypto_box_PUBLICKEYBYTES],
    int make, struct aerr *err)
{
	struct stat sb;
	unsigned char *sk;
	int rc;

	if (stat(pub, &sb) == 0)
		return read_key(pub, pk, crypto_box_PUBLICKEYBYTES, err);
	if (stat(sec, &sb) == 0)
		return aerr_set(err, AV_RUNTIME, "%s is missing but %s exists: restore the public key "
		    "rather than make a new pair", pub, sec);
	if (!make)
		return 1;
	if ((sk = sodium_malloc(crypto_box_SECRETKEYBYTES)) == NULL)
		die("out of memory");
	crypto_box_keypair(pk, sk);
	if ((rc = write_key(sec, sk, crypto_box_SECRETKEYBYTES, 0600, err)) == 0)
		rc = write_key(pub, pk, crypto_box_PUBLICKEYBYTES, 0644, err);
	sodium_free(sk);
	return rc;
}

int
evidence_key_public(unsigned char pk[crypto_box_PUBLICKEYBYTES], struct aerr *err)
{
	char *dir = aivet_dir(AIVET_CONFIG_DIR), *pub = xasprintf("%s/evidence.pub", dir);
	char *sec = xasprintf("%s/evidence.key", dir), *lock = xasprintf("%s/.evidence.lock", dir);
	int rc, fd;

	if ((rc = key_pair_get(pub, sec, pk, 0, err)) == 1 && (rc = mkdir_p(dir, 0700, err)) == 0) {
		if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 || flock(fd, LOCK_EX) != 0)
			rc = aerr_set(err, AV_RUNTIME, "%s: %s", lock, strerror(errno));
		else
			rc = key_pair_get(pub, sec, pk, 1, err);
		if (fd >= 0)
			close(fd);   /* releases the lock */
	}
	free(dir);
	free(pub);
	free(sec);
	free(lock);
	return rc;
}

int
evidence_open_sealed(const void *sealed, size_t len, struct buf *out, struct aerr *err)
{
	char *dir = aivet_dir(AIVET_CONFIG_DIR), *sec = xasprintf("%s/evidence.key", dir);
	unsigned char pk[crypto_box_PUBLICKEYBYTES], *sk = sodium_malloc(crypto_box_SECRETKEYBYTES);
	int rc;

	if (sk == NULL)
		die("out of memory");
	buf_init(out);
	rc = read_key(sec, sk, crypto_box_SECRETKEYBYTES, err);
	if (rc == 0 && len < crypto_box_SEALBYTES)
		rc = aerr_set(err, AV_RUNTIME, "sealed evidence is too short to be a sealed box");
	if (rc == 0) {
		crypto_scalarmult_base(pk, sk);
		buf_add(out, "", 0);
		out->data = xrealloc(out->data, len - crypto_box_SEALBYTES + 1);
		if (crypto_box_seal_open((unsigned char *)out->data, sealed, len, pk, sk) != 0)
			rc = aerr_set(err, AV_RUNTIME, "sealed evidence does not open with %s", sec);
		else
			out->len = len - crypto_box_SEALBYTES, out->data[out->len] = '\0';
	}
	if (rc != 0)
		buf_free(out);
	sodium_free(sk);
	free(dir);
	free(sec);
	return rc;
}
