/*
 * minisign.c: minisign-compatible Ed25519 keys and signatures on top of
 * libsodium (Ed25519, scrypt, BLAKE2b, base64 all come from it). Formats,
 * byte for byte as minisign 0.11 reads and writes them:
 *   public key  "Ed" | keynum[8] | pk[32]
 *   secret key  "Ed" | kdf "Sc" or 00 00 | "B2" | salt[32] | ops LE[8] | mem LE[8] |
 *               keynum[8] | sk[64] | chk[32], where keynum..chk is XORed with an
 *               scrypt stream when encrypted and chk = BLAKE2b-256("Ed"|keynum|sk)
 *   signature   "ED" | keynum[8] | Ed25519(BLAKE2b-512(file)), then the trusted
 *               comment and a global signature over sig[64] | trusted comment.
 * The key store that keeps keys on disk is keystore.c; the front end's
 * passphrase and progress callbacks are asker.c's.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "sign-impl.h"

/* Allocated with sodium_malloc by minisign_generate/minisign_seckey_parse. */
struct minisign_sec {
	unsigned char keynum[MINISIGN_KEYNUM_BYTES];
	unsigned char sk[MINISIGN_SK_BYTES];   /* libsodium's seed || public key */
};

#define PUB_BYTES (2 + MINISIGN_KEYNUM_BYTES + MINISIGN_PK_BYTES)              /* 42 */
#define SEC_ENC_BYTES (MINISIGN_KEYNUM_BYTES + MINISIGN_SK_BYTES + 32)       /* 104 */
#define SEC_BYTES (2 + 2 + 2 + 32 + 8 + 8 + SEC_ENC_BYTES)                   /* 158 */
#define SIG_BYTES (2 + MINISIGN_KEYNUM_BYTES + MINISIGN_SIG_BYTES)            /* 74 */

void
minisign_keyid(const unsigned char keynum[MINISIGN_KEYNUM_BYTES], char out[MINISIGN_KEYID_LEN + 1])
{
	uint64_t v = 0;

	for (int i = MINISIGN_KEYNUM_BYTES - 1; i >= 0; i--)
		v = v << 8 | keynum[i];
	/* As minisign prints it: no leading zeros. */
	snprintf(out, MINISIGN_KEYID_LEN + 1, "%llX", (unsigned long long)v);
}

static struct minisign_sec *
sec_alloc(void)
{
	struct minisign_sec *sec = sodium_malloc(sizeof *sec);

	if (sec == NULL)
		die("out of secure memory");
	return sec;
}

void
minisign_sec_free(struct minisign_sec *sec)
{
	if (sec != NULL)
		sodium_free(sec);   /* wipes before unmapping */
}

int
secbuf_read_file(const char *path, struct secbuf *out, struct aerr *err)
{
	int fd = open_regular(path, 0, err), too_big = 0;
	ssize_t r;

	out->data = NULL;
	out->len = 0;
	if (fd < 0)
		return err->code;
	if ((out->data = sodium_malloc(SECBUF_CAP)) == NULL)
		die("out of secure memory");
	for (;;) {
		if (out->len == SECBUF_CAP - 1) {
			char extra;

			r = read(fd, &extra, 1);
			too_big = r > 0;
			break;
		}
		r = read(fd, out->data + out->len, SECBUF_CAP - 1 - out->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		out->len += (size_t)r;
	}
	close(fd);
	if (too_big || r < 0) {
		secbuf_free(out);
		return too_big ? aerr_set(err, AV_USAGE, "%s: larger than a key file can be", path)
		    : aerr_set(err, AV_RUNTIME, "%s: read error", path);
	}
	out->data[out->len] = '\0';
	return 0;
}

void
secbuf_free(struct secbuf *b)
{
	if (b->data != NULL)
		sodium_free(b->data);   /* wipes */
	b->data = NULL;
	b->len = 0;
}

int
minisign_generate(struct minisign_sec **out, struct minisign_pub *pub, struct aerr *err)
{
	struct minisign_sec *sec = sec_alloc();
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];

	randombytes_buf(sec->keynum, sizeof sec->keynum);
	if (crypto_sign_keypair(pk, sec->sk) != 0) {
		minisign_sec_free(sec);
		return aerr_set(err, AV_RUNTIME, "key generation failed");
	}
	minisign_sec_to_pub(sec, pub);
	*out = sec;
	return 0;
}

int
minisign_sec_equal(const struct minisign_sec *a, const struct minisign_sec *b)
{
	return sodium_memcmp(a->keynum, b->keynum, sizeof a->keynum) == 0 &&
	    sodium_memcmp(a->sk, b->sk, sizeof a->sk) == 0;
}

void
minisign_sec_to_pub(const struct minisign_sec *sec, struct minisign_pub *pub)
{
	memcpy(pub->keynum, sec->keynum, sizeof pub->keynum);
	crypto_sign_ed25519_sk_to_pk(pub->pk, sec->sk);
}

/* Splits a minisign file into its lines (without CR/LF); returns the count, at most max. */
static int
split_lines(const char *text, size_t len, char **lines, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len && n < max) {
		size_t j = i;

		while (j < len && text[j] != '\n')
			j++;
		{
			size_t e = j;

			if (e > i && text[e - 1] == '\r')
				e--;
			lines[n] = xmalloc(e - i + 1);
			memcpy(lines[n], text + i, e - i);
			lines[n][e - i] = '\0';
			n++;
		}
		i = j + 1;
	}
	return n;
}

/* Lines may hold the base64 of a secret key: wiped before they are freed. */
static void
free_lines(char **lines, int n)
{
	for (int i = 0; i < n; i++) {
		sodium_memzero(lines[i], strlen(lines[i]));
		free(lines[i]);
	}
}

/* Decodes a base64 line into exactly want bytes. */
static int
b64_exact(const char *line, unsigned char *out, size_t want)
{
	size_t got;
	const char *end;

	if (sodium_base642bin(out, want, line, strlen(line), NULL, &got, &end,
	    sodium_base64_VARIANT_ORIGINAL) != 0)
		return -1;
	return got == want && *end == '\0' ? 0 : -1;
}

static void
b64_add(struct buf *out, const unsigned char *bin, size_t n)
{
	size_t cap = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL);
	char *s = xmalloc(cap);

	sodium_bin2base64(s, cap, bin, n, sodium_base64_VARIANT_ORIGINAL);
	buf_adds(out, s);
	free(s);
}

/* Reads a two-line key file: untrusted comment, base64 of want bytes. */
static int
keyfile_decode(const char *text, size_t len, const char *what, unsigned char *bin, size_t want,
    struct aerr *err)
{
	char *lines[3];
	int n = split_lines(text, len, lines, 3), rc = 0;

	if (n < 2 || strncmp(lines[0], "untrusted comment: ", 19) != 0)
		rc = aerr_set(err, AV_USAGE, "%s: not a minisign key file (line 1 must be "
		    "'untrusted comment: ...', line 2 the key)", what);
	else if (b64_exact(lines[1], bin, want) != 0)
		rc = aerr_set(err, AV_USAGE, "%s: line 2: not the base64 of a %zu-byte minisign key",
		    what, want);
	else if (n > 2 && lines[2][0] != '\0')
		rc = aerr_set(err, AV_USAGE, "%s: line 3: unexpected content after the key", what);
	free_lines(lines, n);
	return rc;
}

int
minisign_pubkey_parse(const char *text, size_t len, const char *what, struct minisign_pub *pub,
    struct aerr *err)
{
	unsigned char bin[PUB_BYTES];

	if (keyfile_decode(text, len, what, bin, sizeof bin, err) != 0)
		return err->code;
	if (memcmp(bin, "Ed", 2) != 0)
		return aerr_set(err, AV_USAGE, "%s: unsupported signature algorithm (want Ed25519 'Ed')", what);
	memcpy(pub->keynum, bin + 2, MINISIGN_KEYNUM_BYTES);
	memcpy(pub->pk, bin + 2 + MINISIGN_KEYNUM_BYTES, MINISIGN_PK_BYTES);
	return 0;
}

void
minisign_pubkey_base64(const struct minisign_pub *pub, struct buf *out)
{
	unsigned char bin[PUB_BYTES];

	memcpy(bin, "Ed", 2);
	memcpy(bin + 2, pub->keynum, MINISIGN_KEYNUM_BYTES);
	memcpy(bin + 2 + MINISIGN_KEYNUM_BYTES, pub->pk, MINISIGN_PK_BYTES);
	b64_add(out, bin, sizeof bin);
}

void
minisign_pubkey_format(const struct minisign_pub *pub, struct buf *out)
{
	char id[MINISIGN_KEYID_LEN + 1];

	minisign_keyid(pub->keynum, id);
	buf_printf(out, "untrusted comment: minisign public key %s\n", id);
	minisign_pubkey_base64(pub, out);
	buf_adds(out, "\n");
}

/* BLAKE2b-256 of "Ed" | keynum | sk, minisign's secret-key checksum. */
static void
seckey_checksum(const unsigned char *keynum, const unsigned char *sk, unsigned char chk[32])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, 32);
	crypto_generichash_update(&st, (const unsigned char *)"Ed", 2);
	crypto_generichash_update(&st, keynum, MINISIGN_KEYNUM_BYTES);
	crypto_generichash_update(&st, sk, MINISIGN_SK_BYTES);
	crypto_generichash_final(&st, chk, 32);
	sodium_memzero(&st, sizeof st);
}

static uint64_t
le64_load(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
le64_store(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* XORs the encrypted part with the scrypt stream derived from the passphrase.
 * A sensitive cost takes seconds: the front end is told what the wait is for. */
static int
kdf_xor(unsigned char *enc, const char *password, size_t pwlen, const unsigned char *salt,
    uint64_t ops, uint64_t mem, struct aerr *err)
{
	unsigned char *stream = sodium_malloc(SEC_ENC_BYTES);

	if (stream == NULL)
		die("out of secure memory");
	key_kdf_tell(KEY_KDF_START, mem);
	if (crypto_pwhash_scryptsalsa208sha256(stream, SEC_ENC_BYTES, password, pwlen, salt,
	    (unsigned long long)ops, (size_t)mem) != 0) {
		sodium_free(stream);
		key_kdf_tell(KEY_KDF_FAILED, mem);
		return aerr_set(err, AV_RUNTIME, "scrypt key derivation failed (out of memory? "
		    "the key asks for %llu MiB)", (unsigned long long)(mem >> 20));
	}
	key_kdf_tell(KEY_KDF_DONE, mem);
	for (size_t i = 0; i < SEC_ENC_BYTES; i++)
		enc[i] ^= stream[i];
	sodium_free(stream);
	return 0;
}

/* Decodes a secret-key file into raw (sodium_malloc'ed, SEC_BYTES) and checks its header. */
static int
seckey_decode(const char *text, size_t len, const char *what, unsigned char **raw, int *encrypted,
    struct aerr *err)
{
	unsigned char *bin = sodium_malloc(SEC_BYTES);

	if (bin == NULL)
		die("out of secure memory");
	if (keyfile_decode(text, len, what, bin, SEC_BYTES, err) != 0)
		goto fail;
	if (memcmp(bin, "Ed", 2) != 0) {
		aerr_set(err, AV_USAGE, "%s: unsupported signature algorithm (want Ed25519 'Ed')", what);
		goto fail;
	}
	if (memcmp(bin + 2, "Sc", 2) == 0) {
		*encrypted = 1;
	} else if (bin[2] == 0 && bin[3] == 0) {
		*encrypted = 0;
	} else {
		aerr_set(err, AV_USAGE, "%s: unsupported key derivation function", what);
		goto fail;
	}
	if (memcmp(bin + 4, "B2", 2) != 0) {
		aerr_set(err, AV_USAGE, "%s: unsupported checksum algorithm (want BLAKE2b 'B2')", what);
		goto fail;
	}
	*raw = bin;
	return 0;
fail:
	sodium_free(bin);
	return err->code;
}

int
minisign_seckey_is_encrypted(const char *text, size_t len, const char *what, int *is_encrypted,
    struct aerr *err)
{
	unsigned char *raw;

	if (seckey_decode(text, len, what, &raw, is_encrypted, err) != 0)
		return err->code;
	sodium_free(raw);
	return 0;
}

int
minisign_seckey_parse(const char *text, size_t len, const char *what, const char *password,
    size_t pwlen, struct minisign_sec **out, struct aerr *err)
{
	unsigned char *raw, chk[32], pk[crypto_sign_PUBLICKEYBYTES], *enc;
	struct minisign_sec *sec;
	int encrypted;
	static const unsigned char zero[32];

	if (seckey_decode(text, len, what, &raw, &encrypted, err) != 0)
		return err->code;
	enc = raw + 2 + 2 + 2 + 32 + 8 + 8;
	if (encrypted) {
		uint64_t ops = le64_load(raw + 38), mem = le64_load(raw + 46);

		if (password == NULL) {
			sodium_free(raw);
			return aerr_set(err, AV_USAGE, "%s: the key is encrypted and no passphrase was given", what);
		}
		/* Refuse absurd costs from a hostile file before allocating anything. */
		if (ops < crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_MIN ||
		    ops > ((uint64_t)1 << 36) || mem < crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_MIN ||
		    mem > ((uint64_t)4 << 30)) {
			sodium_free(raw);
			return aerr_set(err, AV_USAGE, "%s: scrypt limits out of range (ops %llu, mem %llu)",
			    what, (unsigned long long)ops, (unsigned long long)mem);
		}
		if (kdf_xor(enc, password, pwlen, raw + 6, ops, mem, err) != 0) {
			sodium_free(raw);
			return err->code;
		}
	}
	sec = sec_alloc();
	memcpy(sec->keynum, enc, MINISIGN_KEYNUM_BYTES);
	memcpy(sec->sk, enc + MINISIGN_KEYNUM_BYTES, MINISIGN_SK_BYTES);
	seckey_checksum(sec->keynum, sec->sk, chk);
	/* minisign 0.11 writes an all-zero checksum for unencrypted (-W) keys. */
	if (sodium_memcmp(chk, enc + MINISIGN_KEYNUM_BYTES + MINISIGN_SK_BYTES, 32) != 0 &&
	    (encrypted || sodium_memcmp(zero, enc + MINISIGN_KEYNUM_BYTES + MINISIGN_SK_BYTES, 32) != 0)) {
		sodium_free(raw);
		minisign_sec_free(sec);
		return aerr_set(err, AV_USAGE, encrypted ? "%s: wrong passphrase (or the key file is corrupt)"
		    : "%s: checksum mismatch: the key file is corrupt", what);
	}
	sodium_free(raw);
	/* The public half stored in sk must belong to its seed. */
	{
		unsigned char *check_sk = sodium_malloc(crypto_sign_SECRETKEYBYTES);

		if (check_sk == NULL)
			die("out of secure memory");
		crypto_sign_seed_keypair(pk, check_sk, sec->sk);
		sodium_free(check_sk);
	}
	if (memcmp(pk, sec->sk + 32, 32) != 0) {
		minisign_sec_free(sec);
		return aerr_set(err, AV_USAGE, "%s: the public half does not match the secret seed", what);
	}
	*out = sec;
	return 0;
}

int
minisign_seckey_format(const struct minisign_sec *sec, const char *password, size_t pwlen,
    enum minisign_kdf_cost cost, struct secbuf *out, struct aerr *err)
{
	unsigned char *raw = sodium_malloc(SEC_BYTES), *enc;
	size_t b64len = sodium_base64_ENCODED_LEN(SEC_BYTES, sodium_base64_VARIANT_ORIGINAL);
	char *b64 = sodium_malloc(b64len);

	if (raw == NULL || b64 == NULL || (out->data = sodium_malloc(SECBUF_CAP)) == NULL)
		die("out of secure memory");
	memset(raw, 0, SEC_BYTES);
	memcpy(raw, "Ed", 2);
	memcpy(raw + 4, "B2", 2);
	enc = raw + 54;
	memcpy(enc, sec->keynum, MINISIGN_KEYNUM_BYTES);
	memcpy(enc + MINISIGN_KEYNUM_BYTES, sec->sk, MINISIGN_SK_BYTES);
	seckey_checksum(sec->keynum, sec->sk, enc + MINISIGN_KEYNUM_BYTES + MINISIGN_SK_BYTES);
	if (password != NULL) {
		uint64_t ops = cost == KDF_INTERACTIVE ? crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_INTERACTIVE
		    : crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_SENSITIVE;
		uint64_t mem = cost == KDF_INTERACTIVE ? crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_INTERACTIVE
		    : crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_SENSITIVE;

		memcpy(raw + 2, "Sc", 2);
		randombytes_buf(raw + 6, 32);
		le64_store(raw + 38, ops);
		le64_store(raw + 46, mem);
		if (kdf_xor(enc, password, pwlen, raw + 6, ops, mem, err) != 0) {
			sodium_free(raw);
			sodium_free(b64);
			secbuf_free(out);
			return err->code;
		}
	}
	sodium_bin2base64(b64, b64len, raw, SEC_BYTES, sodium_base64_VARIANT_ORIGINAL);
	out->len = (size_t)snprintf(out->data, SECBUF_CAP, "untrusted comment: %s\n%s\n",
	    password != NULL ? "minisign encrypted secret key" : "minisign secret key (unencrypted)", b64);
	sodium_free(raw);
	sodium_free(b64);
	return 0;
}

static int
comment_check(const char *c, struct aerr *err)
{
	if (strlen(c) > MINISIGN_COMMENT_MAX)
		return aerr_set(err, AV_USAGE, "trusted comment longer than %d bytes", MINISIGN_COMMENT_MAX);
	if (strpbrk(c, "\r\n") != NULL)
		return aerr_set(err, AV_USAGE, "trusted comment must be one line");
	return 0;
}

/* The signature lines over h, the BLAKE2b-512 of the signed content (ED mode). */
static void
sign_digest(const struct minisign_sec *sec, const unsigned char h[crypto_generichash_BYTES_MAX],
    const char *trusted_comment, struct buf *out)
{
	unsigned char sig[SIG_BYTES], gsig[crypto_sign_BYTES];
	unsigned char *gmsg;
	size_t tlen = strlen(trusted_comment);
	char id[MINISIGN_KEYID_LEN + 1];

	memcpy(sig, "ED", 2);
	memcpy(sig + 2, sec->keynum, MINISIGN_KEYNUM_BYTES);
	crypto_sign_detached(sig + 10, NULL, h, crypto_generichash_BYTES_MAX, sec->sk);
	gmsg = xmalloc(MINISIGN_SIG_BYTES + tlen);
	memcpy(gmsg, sig + 10, MINISIGN_SIG_BYTES);
	memcpy(gmsg + MINISIGN_SIG_BYTES, trusted_comment, tlen);
	crypto_sign_detached(gsig, NULL, gmsg, MINISIGN_SIG_BYTES + tlen, sec->sk);
	free(gmsg);
	minisign_keyid(sec->keynum, id);
	buf_printf(out, "untrusted comment: signature from aivet secret key %s\n", id);
	b64_add(out, sig, sizeof sig);
	buf_printf(out, "\ntrusted comment: %s\n", trusted_comment);
	b64_add(out, gsig, sizeof gsig);
	buf_adds(out, "\n");
}

int
minisign_sign_file(const struct minisign_sec *sec, const char *path, const char *trusted_comment,
    struct buf *out, struct aerr *err)
{
	unsigned char h[crypto_generichash_BYTES_MAX];

	if (comment_check(trusted_comment, err) != 0 || file_digest(path, DIGEST_BLAKE2B512, h, err) != 0)
		return err->code;
	sign_digest(sec, h, trusted_comment, out);
	return 0;
}

int
minisign_sign_data(const struct minisign_sec *sec, const void *data, size_t len,
    const char *trusted_comment, struct buf *out, struct aerr *err)
{
	unsigned char h[crypto_generichash_BYTES_MAX];

	if (comment_check(trusted_comment, err) != 0)
		return err->code;
	crypto_generichash(h, sizeof h, data, len, NULL, 0);
	sign_digest(sec, h, trusted_comment, out);
	return 0;
}

static int verify_digest(const struct minisign_pub *pub, const char *path, const void *data,
    size_t len, const char *sigtext, size_t siglen, const char *what, char *trusted,
    struct aerr *err);

int
minisign_verify_file(const struct minisign_pub *pub, const char *path, const char *sigtext,
    size_t siglen, const char *what, char *trusted, struct aerr *err)
{
	return verify_digest(pub, path, NULL, 0, sigtext, siglen, what, trusted, err);
}

int
minisign_verify_data(const struct minisign_pub *pub, const void *data, size_t len,
    const char *sigtext, size_t siglen, const char *what, char *trusted, struct aerr *err)
{
	return verify_digest(pub, NULL, data, len, sigtext, siglen, what, trusted, err);
}

/* Verifies sigtext over the file at path or, path NULL, over data. */
static int
verify_digest(const struct minisign_pub *pub, const char *path, const void *data, size_t len,
    const char *sigtext, size_t siglen, const char *what, char *trusted, struct aerr *err)
{
	char *lines[5], want[MINISIGN_KEYID_LEN + 1], got[MINISIGN_KEYID_LEN + 1];
	unsigned char sig[SIG_BYTES], gsig[crypto_sign_BYTES], h[crypto_generichash_BYTES_MAX];
	unsigned char *gmsg;
	const char *tc;
	size_t tlen;
	int n = split_lines(sigtext, siglen, lines, 5), rc = 0;

	if (n < 4 || strncmp(lines[0], "untrusted comment: ", 19) != 0 ||
	    strncmp(lines[2], "trusted comment: ", 17) != 0) {
		rc = aerr_set(err, AV_USAGE, "%s: not a minisign signature file (want 4 lines: untrusted "
		    "comment, signature, trusted comment, global signature)", what);
		goto out;
	}
	if (n > 4 && lines[4][0] != '\0') {
		rc = aerr_set(err, AV_USAGE, "%s: line 5: unexpected content after the signature", what);
		goto out;
	}
	if (b64_exact(lines[1], sig, sizeof sig) != 0) {
		rc = aerr_set(err, AV_USAGE, "%s: line 2: not the base64 of a 74-byte signature", what);
		goto out;
	}
	if (b64_exact(lines[3], gsig, sizeof gsig) != 0) {
		rc = aerr_set(err, AV_USAGE, "%s: line 4: not the base64 of a 64-byte global signature", what);
		goto out;
	}
	if (memcmp(sig, "ED", 2) != 0) {
		rc = aerr_set(err, AV_USAGE, "%s: only prehashed (ED) signatures are accepted", what);
		goto out;
	}
	if (memcmp(sig + 2, pub->keynum, MINISIGN_KEYNUM_BYTES) != 0) {
		minisign_keyid(sig + 2, got);
		minisign_keyid(pub->keynum, want);
		rc = aerr_set(err, AV_FINDINGS, "%s: signed by key %s, not by the expected key %s", what,
		    got, want);
		goto out;
	}
	if (path == NULL)
		crypto_generichash(h, sizeof h, data, len, NULL, 0);
	else if (file_digest(path, DIGEST_BLAKE2B512, h, err) != 0) {
		rc = err->code;
		goto out;
	}
	if (crypto_sign_verify_detached(sig + 10, h, sizeof h, pub->pk) != 0) {
		rc = aerr_set(err, AV_FINDINGS, "%s: signature does not match %s", what, path == NULL ?
		    "what it signs" : strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		goto out;
	}
	tc = lines[2] + 17;
	tlen = strlen(tc);
	gmsg = xmalloc(MINISIGN_SIG_BYTES + tlen);
	memcpy(gmsg, sig + 10, MINISIGN_SIG_BYTES);
	memcpy(gmsg + MINISIGN_SIG_BYTES, tc, tlen);
	if (crypto_sign_verify_detached(gsig, gmsg, MINISIGN_SIG_BYTES + tlen, pub->pk) != 0)
		rc = aerr_set(err, AV_FINDINGS, "%s: the trusted comment was altered (global signature "
		    "does not verify)", what);
	free(gmsg);
	if (rc == 0 && trusted != NULL)
		snprintf(trusted, MINISIGN_COMMENT_MAX + 1, "%s", tc);
out:
	free_lines(lines, n);
	return rc;
}


int
minisign_pub_equal(const struct minisign_pub *a, const struct minisign_pub *b)
{
	return memcmp(a->keynum, b->keynum, sizeof a->keynum) == 0 && memcmp(a->pk, b->pk, sizeof a->pk) == 0;
}

int
minisign_sig_keynum(const char *sigtext, size_t siglen, const char *what,
    unsigned char keynum[MINISIGN_KEYNUM_BYTES], struct aerr *err)
{
	char *lines[2];
	unsigned char sig[SIG_BYTES];
	int n = split_lines(sigtext, siglen, lines, 2), rc = 0;

	if (n < 2 || b64_exact(lines[1], sig, sizeof sig) != 0)
		rc = aerr_set(err, AV_USAGE, "%s: line 2: not the base64 of a 74-byte signature", what);
	else
		memcpy(keynum, sig + 2, MINISIGN_KEYNUM_BYTES);
	free_lines(lines, n);
	return rc;
}
