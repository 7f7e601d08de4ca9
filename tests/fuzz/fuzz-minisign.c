/*
 * fuzz-minisign.c: minisign public key, secret key and signature files, as
 * found in a bundle someone sends or a key someone hands over. The first
 * byte chooses the file type, the rest is its text. A public key that parses
 * formats back to the same key; a signature is checked over a fixed file
 * and must be refused unless it verifies.
 */
#include "config.h"

#include <string.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "fuzz.h"

static char message_path[256];

static void
setup(void)
{
	const char *dir = fuzz_tmpdir("minisign");
	struct aerr err = { 0 };

	snprintf(message_path, sizeof message_path, "%s/SHA256SUMS", dir);
	if (write_file_atomic(message_path, "hello\n", 6, 0600, &err) != 0)
		die("fuzz-minisign: %s", err.msg);
}

FUZZ_TARGET(minisign)
{
	struct aerr err = { 0 };
	struct minisign_pub pub, again;
	struct minisign_sec *sec = NULL;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	int enc;

	if (message_path[0] == '\0')
		setup();
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		if (minisign_pubkey_parse(text, len, "k.pub", &pub, &err) == 0) {
			struct buf b;

			buf_init(&b);
			minisign_pubkey_format(&pub, &b);
			FUZZ_ASSERT(minisign_pubkey_parse(b.data, b.len, "again", &again, &err) == 0);
			FUZZ_ASSERT(memcmp(&pub, &again, sizeof pub) == 0);
			buf_free(&b);
		} else {
			FUZZ_ASSERT(strncmp(err.msg, "k.pub", 5) == 0);
		}
		break;
	case 1:
		if (minisign_seckey_is_encrypted(text, len, "k.key", &enc, &err) != 0) {
			FUZZ_ASSERT(strncmp(err.msg, "k.key", 5) == 0);
			break;
		}
		/* No passphrase: an encrypted key is refused before any scrypt work. */
		if (minisign_seckey_parse(text, len, "k.key", NULL, 0, &sec, &err) == 0) {
			FUZZ_ASSERT(!enc && sec != NULL);
			minisign_sec_to_pub(sec, &pub);
			minisign_sec_free(sec);
		} else {
			FUZZ_ASSERT(sec == NULL && err.msg[0] != '\0');
		}
		break;
	default: {
		/* A fixed key: any signature that verifies under it would be a forgery. */
		static const unsigned char pk_seed[32] = { 1 };
		unsigned char sk[64];
		char trusted[MINISIGN_COMMENT_MAX + 1];
		int rc;

		crypto_sign_seed_keypair(pub.pk, sk, pk_seed);
		memset(pub.keynum, 7, sizeof pub.keynum);
		rc = minisign_verify_file(&pub, message_path, text, len, "s.minisig", trusted, &err);
		FUZZ_ASSERT(rc == AV_FINDINGS || rc == AV_USAGE);
		FUZZ_ASSERT(strstr(err.msg, "s.minisig") != NULL);
		break;
	}
	}
	return 0;
}
