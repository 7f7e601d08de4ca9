/*
 * test-minisign.c: unit tests for the minisign formats (against files made
 * by the stock minisign tool in tests/data), the claims-vs-evidence table,
 * derived report identifiers, and the key store's questions to the front end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "assess.h"
#include "report.h"
#include "../lib/tap.h"

static char *
data_path(const char *name)
{
	const char *d = getenv("TESTS_SRCDIR");

	return xasprintf("%s/data/%s", d ? d : "tests", name);
}

static void
slurp(const char *name, struct buf *b)
{
	char *p = data_path(name);
	struct aerr e = { 0 };

	if (read_file(p, 1 << 20, b, &e) != 0)
		die("%s", e.msg);
	free(p);
}

static char tmpdir[] = "/tmp/aivet-test-minisign.XXXXXX";

static char *
tmp_write(const char *name, const char *text, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	struct aerr e = { 0 };

	if (write_file_atomic(p, text, len, 0600, &e) != 0)
		die("%s", e.msg);
	return p;
}

static void
test_keyid(void)
{
	static const unsigned char keynum[8] = { 0xbe, 0xa5, 0xe9, 0x8d, 0x1f, 0xb4, 0xe5, 0x67 };
	char id[17];

	minisign_keyid(keynum, id);
	is_str(id, "67E5B41F8DE9A5BE", "key id is the keynum as a little-endian uint64 in upper-case hex");
	{
		static const unsigned char small[8] = { 0x32, 0xd6, 0x19, 0x04, 0xa9, 0xfc, 0xce, 0x08 };

		minisign_keyid(small, id);
		is_str(id, "8CEFCA90419D632", "without leading zeros, as minisign prints it");
	}
}

static void
test_stock_files(void)
{
	struct buf pubt, sect, sigt;
	struct minisign_pub pub, derived;
	struct minisign_sec *sec = NULL;
	struct aerr e = { 0 };
	char id[17], tc[MINISIGN_COMMENT_MAX + 1], *msg = data_path("message.txt"), *copy;
	struct buf m;
	int rc;

	slurp("minisign-W.pub", &pubt);
	slurp("minisign-W.key", &sect);
	slurp("message.txt.minisig", &sigt);
	is_int(minisign_pubkey_parse(pubt.data, pubt.len, "minisign-W.pub", &pub, &e), 0,
	    "parses a public key made by minisign -G");
	minisign_keyid(pub.keynum, id);
	is_str(id, "F4105556315326CE", "its key id is the one minisign printed");
	is_int(minisign_seckey_parse(sect.data, sect.len, "minisign-W.key", NULL, 0, &sec, &e), 0,
	    "parses an unencrypted secret key made by minisign -G -W (all-zero checksum)");
	if (sec != NULL) {
		minisign_sec_to_pub(sec, &derived);
		ok(memcmp(&derived, &pub, sizeof pub) == 0, "the secret key's public half is the .pub file's key");
	}
	rc = minisign_verify_file(&pub, msg, sigt.data, sigt.len, "message.txt.minisig", tc, &e);
	is_int(rc, 0, "verifies a signature made by minisign -S");
	is_str(tc, "aivet test vector", "and returns its trusted comment");

	/* A byte changed in the signed file. */
	slurp("message.txt", &m);
	m.data[0] ^= 1;
	copy = tmp_write("message.txt", m.data, m.len);
	aerr_clear(&e);
	is_int(minisign_verify_file(&pub, copy, sigt.data, sigt.len, "message.txt.minisig", NULL, &e),
	    AV_FINDINGS, "a changed file fails verification");
	is_str(e.msg, "message.txt.minisig: signature does not match message.txt", "and says so");
	free(copy);
	buf_free(&m);

	/* An edited trusted comment. */
	{
		char *edited = xstrdup(sigt.data), *p = strstr(edited, "aivet test vector");

		p[0] = 'A';
		aerr_clear(&e);
		is_int(minisign_verify_file(&pub, msg, edited, strlen(edited), "x.minisig", NULL, &e),
		    AV_FINDINGS, "an edited trusted comment fails verification");
		is_str(e.msg, "x.minisig: the trusted comment was altered (global signature does not verify)",
		    "and says the trusted comment was altered");
		free(edited);
	}

	/* We sign with the key minisign made; the signature verifies with its public key. */
	if (sec != NULL) {
		struct buf sig;

		buf_init(&sig);
		is_int(minisign_sign_file(sec, msg, "ours", &sig, &e), 0, "signs with a minisign-made key");
		aerr_clear(&e);
		is_int(minisign_verify_file(&pub, msg, sig.data, sig.len, "ours.minisig", tc, &e), 0,
		    "our signature verifies");
		ok(strncmp(sig.data, "untrusted comment: ", 19) == 0 && strstr(sig.data, "\nRUTOJlMxVlUQ9") != NULL,
		    "signature line starts with 'ED' and the key number (base64 RUTOJlMxVlUQ9...)");
		buf_free(&sig);
	}
	minisign_sec_free(sec);
	free(msg);
	buf_free(&pubt);
	buf_free(&sect);
	buf_free(&sigt);
}

static void
test_roundtrip(void)
{
	struct minisign_sec *sec, *back = NULL;
	struct minisign_pub pub;
	struct secbuf t;
	struct aerr e = { 0 };
	int enc = -1;

	is_int(minisign_generate(&sec, &pub, &e), 0, "generates a key");
	is_int(minisign_seckey_format(sec, NULL, 0, KDF_INTERACTIVE, &t, &e), 0, "writes it unencrypted");
	minisign_seckey_is_encrypted(t.data, t.len, "k", &enc, &e);
	is_int(enc, 0, "unencrypted key has kdf 00 00");
	is_int(minisign_seckey_parse(t.data, t.len, "k", NULL, 0, &back, &e), 0, "reads it back");
	ok(back != NULL && minisign_sec_equal(back, sec),
	    "same key number and secret key");
	minisign_sec_free(back);
	back = NULL;
	secbuf_free(&t);

	is_int(minisign_seckey_format(sec, "correct horse", 13, KDF_INTERACTIVE, &t, &e), 0,
	    "writes it encrypted (interactive scrypt cost)");
	minisign_seckey_is_encrypted(t.data, t.len, "k", &enc, &e);
	is_int(enc, 1, "encrypted key has kdf Sc");
	ok(strncmp(t.data, "untrusted comment: minisign encrypted secret key\n", 49) == 0,
	    "with minisign's comment");
	is_int(minisign_seckey_parse(t.data, t.len, "k", "correct horse", 13, &back, &e), 0,
	    "decrypts with the passphrase");
	ok(back != NULL && minisign_sec_equal(back, sec), "to the same secret key");
	minisign_sec_free(back);
	back = NULL;
	aerr_clear(&e);
	is_int(minisign_seckey_parse(t.data, t.len, "k", "wrong", 5, &back, &e), AV_USAGE,
	    "a wrong passphrase is refused");
	is_str(e.msg, "k: wrong passphrase (or the key file is corrupt)", "with a clear message");
	aerr_clear(&e);
	is_int(minisign_seckey_parse(t.data, t.len, "k", NULL, 0, &back, &e), AV_USAGE,
	    "an encrypted key without a passphrase is refused");
	secbuf_free(&t);
	minisign_sec_free(sec);
}

static void
test_bad_files(void)
{
	static const struct { const char *text, *msg; } pubs[] = {
		{ "", "p: not a minisign key file (line 1 must be 'untrusted comment: ...', line 2 the key)" },
		{ "RWTOJlMxVlUQ9O2T8VyVRFWTFAs82m1KzVPqMiVn4328kYL6d71z1/tk\n",
		  "p: not a minisign key file (line 1 must be 'untrusted comment: ...', line 2 the key)" },
		{ "untrusted comment: x\nRWTOJlMxVlUQ9O2T8VyVRFWTFAs82m1KzVPqMiVn4328kYL6d71z1/t\n",
		  "p: line 2: not the base64 of a 42-byte minisign key" },
		{ "untrusted comment: x\nRWTOJlMxVlUQ9O2T8VyVRFWTFAs82m1KzVPqMiVn4328kYL6d71z1/tk=\n",
		  "p: line 2: not the base64 of a 42-byte minisign key" },
		{ "untrusted comment: x\nRXTOJlMxVlUQ9O2T8VyVRFWTFAs82m1KzVPqMiVn4328kYL6d71z1/tk\n",
		  "p: unsupported signature algorithm (want Ed25519 'Ed')" },
		{ "untrusted comment: x\nRWTOJlMxVlUQ9O2T8VyVRFWTFAs82m1KzVPqMiVn4328kYL6d71z1/tk\nextra\n",
		  "p: line 3: unexpected content after the key" },
	};
	struct minisign_pub pub;
	struct minisign_sec *sec = NULL;
	struct buf k;
	struct aerr e;

	for (size_t i = 0; i < sizeof pubs / sizeof pubs[0]; i++) {
		aerr_clear(&e);
		is_int(minisign_pubkey_parse(pubs[i].text, strlen(pubs[i].text), "p", &pub, &e), AV_USAGE,
		    "bad public key %zu refused", i);
		is_str(e.msg, pubs[i].msg, "bad public key %zu: message", i);
	}
	/* A secret key whose checksum is neither right nor all zero. */
	slurp("minisign-W.key", &k);
	{
		unsigned char raw[158];
		size_t n;
		char *nl = strchr(k.data, '\n') + 1, enc[256];

		sodium_base642bin(raw, sizeof raw, nl, strcspn(nl, "\n"), NULL, &n, NULL,
		    sodium_base64_VARIANT_ORIGINAL);
		raw[157] ^= 1;
		sodium_bin2base64(enc, sizeof enc, raw, sizeof raw, sodium_base64_VARIANT_ORIGINAL);
		{
			char *text = xasprintf("untrusted comment: x\n%s\n", enc);

			aerr_clear(&e);
			is_int(minisign_seckey_parse(text, strlen(text), "s", NULL, 0, &sec, &e), AV_USAGE,
			    "a corrupt checksum is refused");
			is_str(e.msg, "s: checksum mismatch: the key file is corrupt", "and named");
			free(text);
		}
		raw[157] ^= 1;
		raw[100] ^= 1;   /* inside sk: the public half no longer matches the seed */
		sodium_bin2base64(enc, sizeof enc, raw, sizeof raw, sodium_base64_VARIANT_ORIGINAL);
		{
			char *text = xasprintf("untrusted comment: x\n%s\n", enc);

			aerr_clear(&e);
			is_int(minisign_seckey_parse(text, strlen(text), "s", NULL, 0, &sec, &e), AV_USAGE,
			    "a secret key with a damaged public half is refused");
			is_str(e.msg, "s: the public half does not match the secret seed", "and named");
			free(text);
		}
	}
	buf_free(&k);
}

static void
test_uuid(void)
{
	char a[37], b[37], c[37];

	derived_uuid("seed", "report", a);
	derived_uuid("seed", "report", b);
	derived_uuid("seed", "other", c);
	is_str(a, b, "derived UUIDs are stable");
	ok(strcmp(a, c) != 0, "and differ by name");
	ok(strlen(a) == 36 && a[14] == '5' && strchr("89ab", a[19]) != NULL,
	    "version-5 layout with the RFC 4122 variant (%s)", a);
}

/* The keyring: own keys and trusted keys found by key id, compared byte for byte. */
static void
test_keyring(void)
{
	struct buf pubt, sigt, text;
	struct minisign_pub ms, twin;
	struct keyring_key *ring;
	const struct keyring_key *k;
	unsigned char keynum[MINISIGN_KEYNUM_BYTES];
	struct aerr e = { 0 };
	char *cfg = xasprintf("%s/config", tmpdir), *dir, *p;
	size_t n;

	setenv("XDG_CONFIG_HOME", cfg, 1);
	slurp("minisign-W.pub", &pubt);
	slurp("message.txt.minisig", &sigt);
	minisign_pubkey_parse(pubt.data, pubt.len, "minisign-W.pub", &ms, &e);
	is_int(minisign_sig_keynum(sigt.data, sigt.len, "m.minisig", keynum, &e), 0,
	    "the key id a signature names is read without a key");
	ok(memcmp(keynum, ms.keynum, sizeof keynum) == 0, "and is the signer's");
	is_int(minisign_sig_keynum("untrusted comment: x\nnot base64\n", 32, "bad.minisig", keynum, &e),
	    AV_USAGE, "a malformed signature has no key id");
	is_str(e.msg, "bad.minisig: line 2: not the base64 of a 74-byte signature", "and says why");

	keyring_load(&ring, &n);
	is_int((long long)n, 0, "no keys: an empty keyring");
	keyring_free(ring, n);

	dir = keyring_trusted_dir();
	p = xasprintf("%s/aivet/trusted", cfg);
	is_str(dir, p, "trusted keys live in $XDG_CONFIG_HOME/aivet/trusted");
	free(p);
	mkdir_p(dir, 0700, &e);
	p = xasprintf("%s/vendor-x.pub", dir);
	write_file_atomic(p, pubt.data, pubt.len, 0644, &e);
	free(p);
	p = xasprintf("%s/garbage.pub", dir);
	write_file_atomic(p, "not a key\n", 10, 0644, &e);
	free(p);
	free(dir);
	twin = ms;
	twin.pk[0] ^= 1;
	buf_init(&text);
	minisign_pubkey_format(&twin, &text);
	dir = keystore_dir();
	mkdir_p(dir, 0700, &e);
	p = xasprintf("%s/aivet.pub", dir);
	write_file_atomic(p, text.data, text.len, 0644, &e);
	free(p);
	free(dir);
	buf_free(&text);

	keyring_load(&ring, &n);
	is_int((long long)n, 2, "an own key and a trusted key; a file that is no key is skipped");
	if (n == 2) {
		is_str(ring[0].name, "aivet", "own keys first");
		is_int(ring[0].own, 1, "marked own");
		is_str(ring[1].name, "vendor-x", "then trusted keys");
		is_int(ring[1].own, 0, "marked trusted");
	}
	k = keyring_find_id(ring, n, ms.keynum);
	ok(k != NULL && k->own, "found by key id: the first key with that id");
	ok(k != NULL && !minisign_pub_equal(&k->pub, &ms), "rule: the same key id is not the same key");
	ok(minisign_pub_equal(&ring[n - 1].pub, &ms), "equal keys compare equal");
	twin.keynum[0] ^= 1;
	ok(keyring_find_id(ring, n, twin.keynum) == NULL, "an unknown key id finds nothing");
	keyring_free(ring, n);
	unsetenv("XDG_CONFIG_HOME");
	free(cfg);
	buf_free(&pubt);
	buf_free(&sigt);
}

/* ---- the front end's asker ---- */

struct asked {
	struct buf log;              /* "ask(PROMPT) " and "kdf(STEP,MIB) " as they came */
	const char *answers[2];
	int next;
};

static int
fake_ask(void *arg, const char *prompt, char *pw, size_t cap, size_t *len, struct aerr *err)
{
	struct asked *a = arg;
	const char *ans = a->next < 2 ? a->answers[a->next++] : NULL;

	buf_printf(&a->log, "ask(%s) ", prompt);
	if (ans == NULL)
		return aerr_set(err, AV_USAGE, "no answer");
	*len = strlen(ans) < cap ? strlen(ans) : cap - 1;
	memcpy(pw, ans, *len);
	return 0;
}

static void
fake_kdf(void *arg, enum key_kdf_step step, unsigned long long mib)
{
	struct asked *a = arg;

	buf_printf(&a->log, "kdf(%s,%llu) ", step == KEY_KDF_START ? "start" : step == KEY_KDF_DONE ?
	    "done" : "failed", mib);
}

static void
test_asker(void)
{
	struct asked a = { .answers = { "correct horse", "correct horse" } };
	struct key_asker fake = { fake_ask, fake_kdf, &a }, old;
	struct minisign_sec *sec, *back = NULL;
	struct minisign_pub pub;
	struct secbuf t;
	struct aerr e = { 0 };
	char *pw = NULL, *file;
	size_t len = 0;

	buf_init(&a.log);
	buf_adds(&a.log, "");
	unsetenv("AIVET_KEY_PASSWORD_FILE");
	key_asker_set(NULL, NULL);
	is_int(key_password("p: ", 0, &pw, &len, &e), AV_USAGE, "no asker: no passphrase");
	is_str(e.msg, "a passphrase is needed: set AIVET_KEY_PASSWORD_FILE or run on a terminal",
	    "and the way to give one");
	aerr_clear(&e);

	key_asker_set(&fake, NULL);
	is_int(key_password("passphrase for the new key: ", 1, &pw, &len, &e), 0,
	    "the asker answers, twice for a new key");
	ok(pw != NULL && len == 13 && strcmp(pw, "correct horse") == 0, "with its passphrase");
	is_str(a.log.data, "ask(passphrase for the new key: ) ask(passphrase again: ) ",
	    "asked with the prompt, then to confirm");
	credref_free(pw, len);

	a.next = 0;
	a.answers[1] = "correct horses";
	buf_free(&a.log);
	buf_adds(&a.log, "");
	is_int(key_password("new: ", 1, &pw, &len, &e), AV_USAGE, "two different answers");
	is_str(e.msg, "the passphrases do not match", "do not match");
	aerr_clear(&e);

	file = tmp_write("pw", "from the file\nnot this\n", 23);
	setenv("AIVET_KEY_PASSWORD_FILE", file, 1);
	a.next = 0;
	buf_free(&a.log);
	buf_adds(&a.log, "");
	is_int(key_password("p: ", 0, &pw, &len, &e), 0, "AIVET_KEY_PASSWORD_FILE first");
	ok(pw != NULL && strcmp(pw, "from the file") == 0, "its first line");
	is_str(a.log.data, "", "the asker not asked");
	credref_free(pw, len);
	unsetenv("AIVET_KEY_PASSWORD_FILE");
	free(file);

	/* scrypt's interactive cost is 16 MiB: told as it starts and as it ends. */
	minisign_generate(&sec, &pub, &e);
	is_int(minisign_seckey_format(sec, "correct horse", 13, KDF_INTERACTIVE, &t, &e), 0,
	    "an encrypted key written");
	is_int(minisign_seckey_parse(t.data, t.len, "k", "correct horse", 13, &back, &e), 0,
	    "and read back");
	is_str(a.log.data, "kdf(start,16) kdf(done,16) kdf(start,16) kdf(done,16) ",
	    "each derivation told to the front end, with its MiB");
	minisign_sec_free(back);
	minisign_sec_free(sec);
	secbuf_free(&t);

	key_asker_set(NULL, &old);
	ok(old.ask == fake_ask && old.kdf == fake_kdf && old.arg == &a, "the asker set is handed back");
	buf_free(&a.log);
}

int
main(void)
{
	if (sodium_init() < 0 || mkdtemp(tmpdir) == NULL)
		die("setup");
	test_keyid();
	test_stock_files();
	test_roundtrip();
	test_bad_files();
	test_uuid();
	test_keyring();
	test_asker();
	{
		char *p = xasprintf("rm -rf '%s'", tmpdir);

		if (system(p) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(p);
	}
	return tap_done();
}
