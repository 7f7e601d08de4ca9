/*
 * minisign.h: Ed25519 keys and signatures in minisign's own file formats,
 * so that the stock minisign tool verifies what aivet signs, signs with keys
 * aivet made, and aivet uses keys minisign made. Secret keys live in
 * sodium_malloc'ed memory and are wiped when freed. Also the on-disk key
 * store under $XDG_CONFIG_HOME/aivet/keys/ and how it asks for a passphrase.
 */
#ifndef AIVET_MINISIGN_H
#define AIVET_MINISIGN_H

#include "core.h"

#define MINISIGN_KEYNUM_BYTES 8
#define MINISIGN_PK_BYTES 32
#define MINISIGN_SK_BYTES 64
#define MINISIGN_SIG_BYTES 64
#define MINISIGN_COMMENT_MAX 1024
#define MINISIGN_KEYID_LEN 16

struct minisign_pub {
	unsigned char keynum[MINISIGN_KEYNUM_BYTES];
	unsigned char pk[MINISIGN_PK_BYTES];
};

/* A secret key, opaque: its bytes stay in minisign.c, in sodium_malloc'ed
 * memory (minisign_generate, minisign_seckey_parse), wiped by
 * minisign_sec_free; the rest of aivet holds a pointer. */
struct minisign_sec;

/* Text that holds secret-key material: in sodium_malloc'ed memory of a fixed
 * size (never reallocated, so no copy is left behind), wiped when freed. */
struct secbuf {
	char *data;
	size_t len;
};
#define SECBUF_CAP 4096
/* Reads a key file (at most SECBUF_CAP - 1 bytes) into a secbuf. */
int secbuf_read_file(const char *path, struct secbuf *out, struct aerr *err);
void secbuf_free(struct secbuf *b);

/* The scrypt cost a new encrypted key is written with. */
enum minisign_kdf_cost { KDF_SENSITIVE, KDF_INTERACTIVE };

/* Key id as minisign prints it: keynum as a little-endian uint64, upper-case hex,
 * without leading zeros. */
void minisign_keyid(const unsigned char keynum[MINISIGN_KEYNUM_BYTES], char out[MINISIGN_KEYID_LEN + 1]);

int minisign_generate(struct minisign_sec **sec, struct minisign_pub *pub, struct aerr *err);
void minisign_sec_free(struct minisign_sec *sec);
void minisign_sec_to_pub(const struct minisign_sec *sec, struct minisign_pub *pub);
/* Whether two secret keys are the same key (id and bytes), compared in constant time. */
int minisign_sec_equal(const struct minisign_sec *a, const struct minisign_sec *b);

/* Public key: "untrusted comment: ...\n<base64>\n". what names the file in errors. */
int minisign_pubkey_parse(const char *text, size_t len, const char *what, struct minisign_pub *pub,
    struct aerr *err);
void minisign_pubkey_format(const struct minisign_pub *pub, struct buf *out);
/* The base64 line alone (what "minisign -P" takes). */
void minisign_pubkey_base64(const struct minisign_pub *pub, struct buf *out);

/* Secret key. is_encrypted tells whether a passphrase is needed (before asking for one). */
int minisign_seckey_is_encrypted(const char *text, size_t len, const char *what, int *is_encrypted,
    struct aerr *err);
int minisign_seckey_parse(const char *text, size_t len, const char *what, const char *password,
    size_t pwlen, struct minisign_sec **sec, struct aerr *err);
/* password NULL writes an unencrypted key (kdf 00 00). */
int minisign_seckey_format(const struct minisign_sec *sec, const char *password, size_t pwlen,
    enum minisign_kdf_cost cost, struct secbuf *out, struct aerr *err);

/* Signs the file at path in prehashed (ED) mode; out receives the 4-line .minisig text. */
int minisign_sign_file(const struct minisign_sec *sec, const char *path, const char *trusted_comment,
    struct buf *out, struct aerr *err);
/* Verifies sigtext over the file at path. trusted (optional, MINISIGN_COMMENT_MAX+1 bytes)
 * receives the trusted comment. Errors: AV_FINDINGS when the signature does not verify,
 * AV_USAGE when the signature file is malformed. */
int minisign_verify_file(const struct minisign_pub *pub, const char *path, const char *sigtext,
    size_t siglen, const char *what, char *trusted, struct aerr *err);

/* The same for content in memory: what "minisign -Vm FILE" verifies once the
 * content is written to FILE. */
int minisign_sign_data(const struct minisign_sec *sec, const void *data, size_t len,
    const char *trusted_comment, struct buf *out, struct aerr *err);
int minisign_verify_data(const struct minisign_pub *pub, const void *data, size_t len,
    const char *sigtext, size_t siglen, const char *what, char *trusted, struct aerr *err);

/* ---- key store ---- */

/* $XDG_CONFIG_HOME/aivet/keys (or ~/.config/aivet/keys); caller frees. */
char *keystore_dir(void);
int keystore_name_check(const char *name, struct aerr *err);
/* Loads NAME's public key. */
int keystore_load_pub(const char *name, struct minisign_pub *pub, struct aerr *err);
/* The signer a command was given: --key NAME (a key in the store) or --pubkey
 * FILE (a minisign .pub file); exactly one of them is non-NULL. */
int signer_load(const char *key, const char *pubfile, struct minisign_pub *pub, struct aerr *err);
/* Loads NAME's secret key, asking for the passphrase when it is encrypted. */
int keystore_load_sec(const char *name, struct minisign_sec **sec, struct aerr *err);
/* Whether NAME's secret key is encrypted, so a passphrase must be had first. */
int keystore_sec_encrypted(const char *name, int *encrypted, struct aerr *err);
/* Opens NAME's secret key with a passphrase read already (pw NULL for an
 * unencrypted key): for a caller that asks for it in its own way. */
int keystore_open_sec(const char *name, const char *pw, size_t pwlen, struct minisign_sec **sec,
    struct aerr *err);

/* NAME.EXT in the key store; caller frees. */
char *keystore_path(const char *name, const char *ext);
/* Writes NAME.key and NAME.pub, refusing to replace an existing key. */
int keystore_store(const char *name, const char *sectext, size_t seclen,
    const struct minisign_pub *pub, struct aerr *err);
/* Generates NAME, asking for its passphrase (twice) unless password is 0. */
int keystore_generate(const char *name, int password, enum minisign_kdf_cost cost,
    struct minisign_pub *pub, struct aerr *err);
/* Generates NAME encrypted with pw (NULL: not encrypted) and keeps its secret
 * key in *sec, so what the new key signs next needs no passphrase again. */
int keystore_generate_sec(const char *name, const char *pw, size_t pwlen,
    enum minisign_kdf_cost cost, struct minisign_pub *pub, struct minisign_sec **sec,
    struct aerr *err);
/* "key NAME generated (key id ...)" and where its two files are. */
void keystore_created_text(const char *verb, const char *name, const struct minisign_pub *pub,
    int encrypted, struct buf *out);

/* A key as "key show" and "key list" print it: one of the user's own keys
 * (keys/NAME.pub, perhaps with NAME.key) or a trusted signer's. */
struct key_info {
	char *name;
	const char *trust;          /* "own" or "trusted" */
	char key_id[MINISIGN_KEYID_LEN + 1];
	char *public_key;           /* the base64 line */
	char *public_key_file, *secret_key_file;   /* secret_key_file NULL: none */
	int encrypted;              /* the secret key is: 1, 0, or -1 none or unreadable (null) */
	char *error;                /* "key list": why an own key's public key does not load, else NULL */
};
struct key_info_list {
	struct key_info *items;
	size_t n;
};
/* Own key NAME. */
int key_info_get(const char *name, struct key_info *out, struct aerr *err);
/* Every own key by name (one that does not load with its error), then every
 * trusted signer by name. */
void key_info_list_load(struct key_info_list *out);
void key_info_free(struct key_info *k);
void key_info_list_free(struct key_info_list *l);
/* The one JSON writer of a key ("key show --json", an element of "key list --json"). */
cJSON *key_info_to_json(const struct key_info *k);

/* ---- trusted signers ----
 * Trust is a whole public key, never a key id (anyone can give a new key any id).
 * The keyring is the user's own keys (keys/NAME.pub) and the signers they chose to
 * trust (trusted/NAME.pub, written by 'aivet key trust'), both in the config dir. */

struct keyring_key {
	char name[65];
	int own;                  /* 1: keys/NAME.pub, 0: trusted/NAME.pub */
	char *path;
	struct minisign_pub pub;
};

/* $XDG_CONFIG_HOME/aivet/trusted (or ~/.config/aivet/trusted); caller frees. */
char *keyring_trusted_dir(void);
/* Every readable key, own first, each group by name; files that do not parse are skipped. */
void keyring_load(struct keyring_key **keys, size_t *n);
void keyring_free(struct keyring_key *keys, size_t n);
/* The key with this key id, or NULL. */
const struct keyring_key *keyring_find_id(const struct keyring_key *keys, size_t n,
    const unsigned char keynum[MINISIGN_KEYNUM_BYTES]);
/* The key id a signature file names (line 2), without verifying anything. */
int minisign_sig_keynum(const char *sigtext, size_t siglen, const char *what,
    unsigned char keynum[MINISIGN_KEYNUM_BYTES], struct aerr *err);
/* Same key id and the same 32 public-key bytes. */
int minisign_pub_equal(const struct minisign_pub *a, const struct minisign_pub *b);

/* ---- asking the user: the front end's part ----
 * The library reads no terminal and writes on none. When a key needs a
 * passphrase that AIVET_KEY_PASSWORD_FILE does not give, the key store asks
 * the program's front end through ask (the command line reads the terminal
 * without echo, the terminal UI shows a box); while scrypt derives a key
 * (seconds at the sensitive cost) kdf tells it the step and the MiB the
 * derivation takes. */
enum key_kdf_step { KEY_KDF_START, KEY_KDF_DONE, KEY_KDF_FAILED };
struct key_asker {
	/* Shows prompt and reads one passphrase into pw (cap bytes, at most cap - 1
	 * of them read), its length in *len. 0, or the error in err. */
	int (*ask)(void *arg, const char *prompt, char *pw, size_t cap, size_t *len,
	    struct aerr *err);
	void (*kdf)(void *arg, enum key_kdf_step step, unsigned long long mib);   /* may be NULL */
	void *arg;
};
/* Sets the process's asker (copied; NULL: none, so a passphrase can only come
 * from AIVET_KEY_PASSWORD_FILE), the one set before in *old unless old is NULL. */
void key_asker_set(const struct key_asker *a, struct key_asker *old);

/* Passphrase from AIVET_KEY_PASSWORD_FILE (first line), else from the
 * asker (key_asker_set); returned in sodium_malloc'ed memory, free with
 * credref_free(). */
int key_password(const char *prompt, int confirm, char **pw, size_t *len, struct aerr *err);

#endif
