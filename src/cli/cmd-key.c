/*
 * cmd-key.c: "aivet key" — generate, import, list and show the Ed25519
 * signing keys that sign report bundles, sign a single file, and trust
 * other signers' public keys. Keys are minisign's own files under
 * $XDG_CONFIG_HOME/aivet/keys/ (NAME.key, 0600, and NAME.pub), so minisign
 * and aivet can use each other's keys; trusted signers are public keys
 * under $XDG_CONFIG_HOME/aivet/trusted/NAME.pub.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "cli.h"
#include "aivet/minisign.h"
#include "aivet/approval.h"

#define DEFAULT_KEY "aivet"

static void
print_key_created(const char *verb, const char *name, const struct minisign_pub *pub, int encrypted)
{
	struct buf b;

	buf_init(&b);
	keystore_created_text(verb, name, pub, encrypted, &b);
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
}

static int
key_generate(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = args_has(args, 'n') ? args_get(args, 'n') : DEFAULT_KEY;
	const char *kdf = args_get(args, 'k');
	int nopw = args_has(args, 'N');
	enum minisign_kdf_cost cost = KDF_SENSITIVE;
	struct minisign_pub pub;

	if (kdf != NULL && strcmp(kdf, "interactive") == 0)
		cost = KDF_INTERACTIVE;
	else if (kdf != NULL && strcmp(kdf, "sensitive") != 0)
		return usage_error(av, err, "--kdf-cost: '%s' is not sensitive or interactive", kdf);
	if (keystore_generate(name, !nopw, cost, &pub, err) != 0)
		return err->code;
	print_key_created("generated", name, &pub, !nopw);
	return 0;
}

static int
key_import(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = args_has(args, 'n') ? args_get(args, 'n') : DEFAULT_KEY, *file = args->word[0];
	int enc, rc;
	struct secbuf kb;
	struct minisign_sec *sec;
	struct minisign_pub pub;
	char *pw = NULL;
	size_t pwlen = 0;

	(void)av;
	if (keystore_name_check(name, err) != 0)
		return err->code;
	if (secbuf_read_file(file, &kb, err) != 0)
		return err->code;
	rc = minisign_seckey_is_encrypted(kb.data, kb.len, file, &enc, err);
	/* Decrypting proves the passphrase and yields the public half to store beside it. */
	if (rc == 0 && enc)
		rc = key_password("passphrase of the key to import: ", 0, &pw, &pwlen, err);
	if (rc == 0)
		rc = minisign_seckey_parse(kb.data, kb.len, file, pw, pwlen, &sec, err);
	credref_free(pw, pwlen);
	if (rc == 0) {
		minisign_sec_to_pub(sec, &pub);
		minisign_sec_free(sec);
		/* The file is kept as it was: its encryption (or lack of it) is the owner's choice. */
		rc = keystore_store(name, kb.data, kb.len, &pub, err);
	}
	secbuf_free(&kb);
	if (rc == 0)
		print_key_created("imported", name, &pub, enc);
	return rc;
}

static int
key_list(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct key_info_list l;
	int json = args_has(args, 'j');

	(void)av, (void)err;
	key_info_list_load(&l);
	if (json) {
		cJSON *arr = cJSON_CreateArray();

		for (size_t i = 0; i < l.n; i++)
			if (l.items[i].error == NULL)
				cJSON_AddItemToArray(arr, key_info_to_json(&l.items[i]));
		json_emit(arr);
		key_info_list_free(&l);
		return 0;
	}
	term_printf(stdout, "%-24s %-8s %-16s %-56s %s\n", "NAME", "TRUST", "KEY ID", "PUBLIC KEY", "SECRET KEY");
	for (size_t i = 0; i < l.n; i++) {
		const struct key_info *k = &l.items[i];

		if (k->error != NULL)
			term_printf(stdout, "%-24s %-8s %-16s %-56s %s\n", k->name, k->trust, "-", "-", k->error);
		else
			term_printf(stdout, "%-24s %-8s %-16s %-56s %s\n", k->name, k->trust, k->key_id, k->public_key,
			    strcmp(k->trust, "own") != 0 ? "-" : k->secret_key_file == NULL ? "none (public only)" :
			    k->encrypted == 1 ? "encrypted" : k->encrypted == 0 ? "NOT encrypted" : "unreadable");
	}
	key_info_list_free(&l);
	return 0;
}

static int
key_show(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = NULL;
	int json = args_has(args, 'j');
	struct key_info k;

	(void)av;
	if (args->argc > 0)
		name = args->argv[0];
	if (key_info_get(name ? name : DEFAULT_KEY, &k, err) != 0)
		return err->code;
	if (json) {
		json_emit(key_info_to_json(&k));
		key_info_free(&k);
		return 0;
	}
	term_printf(stdout, "untrusted comment: minisign public key %s\n%s\n\n", k.key_id, k.public_key);
	term_printf(stdout, "key id %s; verify with:\nminisign -Vm <file> -P %s\n", k.key_id, k.public_key);
	key_info_free(&k);
	return 0;
}

static int
key_sign(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = args_has(args, 'k') ? args_get(args, 'k') : DEFAULT_KEY;
	const char *comment = args_get(args, 't'), *file = args->word[0], *base;
	struct minisign_sec *sec;
	struct buf sig;
	char *tc, *out;
	int rc;

	(void)av;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (access(file, R_OK) != 0)
		return aerr_set(err, AV_USAGE, "%s: cannot read it", file);
	if (keystore_load_sec(name, &sec, err) != 0)
		return err->code;
	/* The same default trusted comment minisign writes. */
	tc = comment ? xstrdup(comment) : xasprintf("timestamp:%lld\tfile:%s\thashed",
	    (long long)(now_ms() / 1000), base);
	buf_init(&sig);
	rc = minisign_sign_file(sec, file, tc, &sig, err);
	minisign_sec_free(sec);
	free(tc);
	out = xasprintf("%s.minisig", file);
	if (rc == 0 && (rc = write_file_atomic(out, sig.data, sig.len, 0644, err)) == 0)
		term_printf(stdout, "signature written to %s\n", out);
	free(out);
	buf_free(&sig);
	return rc;
}

/* Where a key trusted from a checkpoint came from, and what its name is worth. */
static void
checkpoint_source_print(const char *file, const char *reviewer, const char *id,
    const struct approval_trust_source *from)
{
	term_printf(stdout, "  from        checkpoint %s (registered in audit entry %lld of its %lld; "
	    "checkpoint signed by key %s, %s)\n", file, (long long)from->entry, (long long)from->entries,
	    from->signer_key_id, from->signer);
	if (from->self_declared)
		term_printf(stdout, "  names       self-declared: the database is SQLite, where anyone types "
		    "any name; %s is only the holder of key %s\n", reviewer, id);
}

/* A reviewer's key, trusted for the approvals signed in that name
 * (trusted/reviewers/NAME.pub): obtained from the reviewer, never from a
 * report. A report signer's key is not also a person's. */
static int
key_trust_reviewer(const char *reviewer, const char *file, const struct minisign_pub *pub,
    const struct approval_trust_source *from, struct aerr *err)
{
	char id[MINISIGN_KEYID_LEN + 1], *path, *dir;
	struct minisign_pub had;
	struct keyring_key *ring = NULL;
	size_t nring = 0;
	struct buf line, text;
	int found = 0, rc;

	if (keystore_name_check(reviewer, err) != 0 ||
	    approval_reviewer_key(reviewer, &had, &found, err) != 0)
		return err->code;
	minisign_keyid(pub->keynum, id);
	path = approval_reviewer_path(reviewer);
	buf_init(&line);
	minisign_pubkey_base64(pub, &line);
	keyring_load(&ring, &nring);
	for (size_t i = 0; i < nring; i++)
		if (!ring[i].own && minisign_pub_equal(&ring[i].pub, pub)) {
			rc = aerr_set(err, AV_USAGE, "%s: key %s is trusted here as a report signer "
			    "('%s'): a report signing key is not a person's", file, id, ring[i].name);
			goto out;
		}
	if (found) {
		rc = minisign_pub_equal(&had, pub) ? 0 : aerr_set(err, AV_USAGE, "a key of reviewer "
		    "%s is trusted already (%s): 'rm %s' first to replace it", reviewer, path, path);
		if (rc == 0)
			term_printf(stdout, "key %s is already trusted as reviewer %s's\n", id, reviewer);
		goto out;
	}
	dir = keyring_trusted_dir();
	rc = mkdir_p(dir, 0700, err);
	free(dir);
	dir = xasprintf("%.*s", (int)(strrchr(path, '/') - path), path);
	if (rc == 0)
		rc = mkdir_p(dir, 0700, err);
	free(dir);
	if (rc != 0)
		goto out;
	buf_init(&text);
	minisign_pubkey_format(pub, &text);
	rc = write_file_atomic(path, text.data, text.len, 0644, err);
	buf_free(&text);
	if (rc == 0)
		term_printf(stdout, "key %s trusted as reviewer %s's: their approvals are checked with it\n"
		    "  public key  %s\n  file        %s\n", id, reviewer, line.data, path);
	if (rc == 0 && from != NULL)
		checkpoint_source_print(file, reviewer, id, from);
out:
	keyring_free(ring, nring);
	buf_free(&line);
	free(path);
	return rc;
}

/* The key FILE gives for reviewer: a public key file, or an audit
 * checkpoint whose signature verifies with a key trusted here (the key
 * registered to reviewer by its position). */
static int
key_trust_reviewer_file(const char *reviewer, const char *file, struct aerr *err)
{
	struct approval_trust_source from;
	struct minisign_pub pub;
	struct buf b;
	int is_checkpoint, rc;

	if (keystore_name_check(reviewer, err) != 0 ||
	    approval_checkpoint_key(file, reviewer, &pub, &from, &is_checkpoint, err) != 0)
		return err->code;
	if (is_checkpoint)
		return key_trust_reviewer(reviewer, file, &pub, &from, err);
	if (read_file(file, 4096, &b, err) != 0)
		return err->code;
	rc = minisign_pubkey_parse(b.data, b.len, file, &pub, err);
	buf_free(&b);
	return rc != 0 ? rc : key_trust_reviewer(reviewer, file, &pub, NULL, err);
}

/* Trusting a key is trusting all 32 bytes of it, checked by whoever runs this against a
 * copy obtained out of band; the key id alone proves nothing. */
static int
key_trust(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = args_get(args, 'n'), *file = args->word[0], *reviewer = args_get(args, 'r');
	char id[MINISIGN_KEYID_LEN + 1], *dir = NULL, *path = NULL, *own = NULL;
	struct minisign_pub pub;
	struct keyring_key *ring = NULL;
	size_t nring = 0;
	struct buf b, line, text;
	int rc = 0;

	if (name != NULL && reviewer != NULL)
		return usage_error(av, err, "--name and --reviewer exclude each other");
	if (reviewer != NULL)
		return key_trust_reviewer_file(reviewer, file, err);
	if (read_file(file, 4096, &b, err) != 0)
		return err->code;
	rc = minisign_pubkey_parse(b.data, b.len, file, &pub, err);
	buf_free(&b);
	if (rc != 0)
		return rc;
	minisign_keyid(pub.keynum, id);
	if (name == NULL)
		name = id;
	if (keystore_name_check(name, err) != 0)
		return err->code;
	buf_init(&line);
	minisign_pubkey_base64(&pub, &line);
	keyring_load(&ring, &nring);
	for (size_t i = 0; i < nring; i++) {
		if (minisign_pub_equal(&ring[i].pub, &pub)) {
			term_printf(stdout, "key %s (%s) is already trusted: %s key '%s'\n", id, line.data,
			    ring[i].own ? "own" : "trusted", ring[i].name);
			goto out;
		}
		if (memcmp(ring[i].pub.keynum, pub.keynum, MINISIGN_KEYNUM_BYTES) == 0) {
			struct buf theirs;

			buf_init(&theirs);
			minisign_pubkey_base64(&ring[i].pub, &theirs);
			rc = aerr_set(err, AV_USAGE, "%s: key id %s belongs to %s key '%s' (%s), and this is a "
			    "different key with the same id (%s): refused, a key id names one key", file, id,
			    ring[i].own ? "own" : "trusted", ring[i].name, theirs.data, line.data);
			buf_free(&theirs);
			goto out;
		}
	}
	dir = keyring_trusted_dir();
	path = xasprintf("%s/%s.pub", dir, name);
	{
		char *kd = keystore_dir();

		own = xasprintf("%s/%s.pub", kd, name);
		free(kd);
	}
	if (access(path, F_OK) == 0 || access(own, F_OK) == 0) {
		rc = aerr_set(err, AV_USAGE, "a key named '%s' exists already (%s)", name,
		    access(path, F_OK) == 0 ? path : own);
		goto out;
	}
	if ((rc = mkdir_p(dir, 0700, err)) != 0)
		goto out;
	buf_init(&text);
	minisign_pubkey_format(&pub, &text);
	rc = write_file_atomic(path, text.data, text.len, 0644, err);
	buf_free(&text);
	if (rc == 0)
		term_printf(stdout, "key %s trusted (key id %s)\n  public key  %s\n  file        %s\n", name, id,
		    line.data, path);
out:
	keyring_free(ring, nring);
	buf_free(&line);
	free(dir);
	free(path);
	free(own);
	return rc;
}

/* Registers the public half of one of the user's own keys as the actor's:
 * what an approval of theirs is signed with (approval.c). */
static int
key_register_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = DEFAULT_KEY;
	struct minisign_pub pub;
	struct db *db;
	char id[MINISIGN_KEYID_LEN + 1];

	if (args->argc > 0)
		name = args->argv[0];
	if (keystore_name_check(name, err) != 0 || keystore_load_pub(name, &pub, err) != 0 ||
	    (db = av_db(av, err)) == NULL || key_register(db, av->actor, &pub, err) != 0)
		return err->code;
	minisign_keyid(pub.keynum, id);
	term_printf(stdout, "key %s (key id %s) registered to %s: their approvals are signed with it\n",
	    name, id, av->actor);
	return 0;
}

/* Untrusting a reviewer removes the key trusted for their approvals. */
static int
key_untrust_reviewer(const char *reviewer, struct aerr *err)
{
	struct minisign_pub pub;
	char id[MINISIGN_KEYID_LEN + 1], *path;
	int found = 0;

	if (keystore_name_check(reviewer, err) != 0 ||
	    approval_reviewer_key(reviewer, &pub, &found, err) != 0)
		return err->code;
	if (!found)
		return aerr_set(err, AV_USAGE, "no key is trusted as reviewer %s's", reviewer);
	path = approval_reviewer_path(reviewer);
	if (unlink(path) != 0) {
		aerr_set(err, AV_RUNTIME, "%s: cannot remove: %s", path, strerror(errno));
		free(path);
		return err->code;
	}
	minisign_keyid(pub.keynum, id);
	term_printf(stdout, "key %s no longer trusted as reviewer %s's\n  removed     %s\n", id, reviewer,
	    path);
	free(path);
	return 0;
}

/* Untrusting removes a trusted signer's key; an own key is the keyring's, not a trust. */
static int
key_untrust(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *name = args->word[0];
	char *dir, *path = NULL, *kd, *own = NULL;
	char id[MINISIGN_KEYID_LEN + 1];
	struct minisign_pub pub;
	struct buf b, line;
	int rc;

	/* --reviewer NAME takes no positional; without it NAME is needed. */
	if (args_has(args, 'r'))
		return key_untrust_reviewer(args_get(args, 'r'), err);
	if (name == NULL)
		return usage_error(av, err, "key untrust needs exactly one NAME");
	dir = keyring_trusted_dir();
	kd = keystore_dir();
	buf_init(&line);
	if ((rc = keystore_name_check(name, err)) != 0)
		goto out;
	path = xasprintf("%s/%s.pub", dir, name);
	own = xasprintf("%s/%s.pub", kd, name);
	if (access(path, F_OK) != 0) {
		rc = access(own, F_OK) == 0 ?
		    aerr_set(err, AV_USAGE, "'%s' is an own signing key, not a trusted signer's: untrust "
		    "removes trusted keys only", name) :
		    aerr_set(err, AV_USAGE, "no trusted key '%s' (see 'aivet key list')", name);
		goto out;
	}
	if ((rc = read_file(path, 4096, &b, err)) != 0)
		goto out;
	rc = minisign_pubkey_parse(b.data, b.len, path, &pub, err);
	buf_free(&b);
	if (rc == 0) {
		minisign_keyid(pub.keynum, id);
		minisign_pubkey_base64(&pub, &line);
	}
	if (unlink(path) != 0) {
		rc = aerr_set(err, AV_RUNTIME, "%s: cannot remove: %s", path, strerror(errno));
		goto out;
	}
	/* A damaged file is removed all the same: it trusted nothing. */
	aerr_clear(err);
	if (rc == 0)
		term_printf(stdout, "key %s no longer trusted (key id %s)\n  public key  %s\n  removed     "
		    "%s\n", name, id, line.data, path);
	else
		term_printf(stdout, "key %s no longer trusted\n  removed     %s\n", name, path);
	rc = 0;
out:
	buf_free(&line);
	free(dir);
	free(path);
	free(kd);
	free(own);
	return rc;
}

static const struct opt generate_opts[] = {
	{ .name = "name", .id = 'n', .arg = "NAME",
	  .help = "the key's name in the keyring (default aivet)" },
	{ .name = "no-password", .id = 'N', .help = "leave the secret key unencrypted (for CI)" },
	{ .name = "kdf-cost", .id = 'k', .arg = "sensitive|interactive",
	  .help = "how hard the passphrase's key derivation is" },
	{ 0 }
};
static const struct opt name_opts[] = {
	{ .name = "name", .id = 'n', .arg = "NAME", .help = "its name in the keyring" },
	{ 0 }
};
static const struct opt trust_opts[] = {
	{ .name = "name", .id = 'n', .arg = "NAME", .help = "its name in the keyring" },
	{ .name = "reviewer", .id = 'r', .arg = "NAME",
	  .help = "trust it as reviewer NAME's key, for the approvals they sign (FILE: their "
	  "public key, or an audit checkpoint signed by a key trusted here)" },
	{ 0 }
};
static const struct opt untrust_opts[] = {
	{ .name = "reviewer", .id = 'r', .arg = "NAME",
	  .help = "the key trusted as reviewer NAME's" },
	{ 0 }
};
static const struct opt sign_opts[] = {
	{ .name = "key", .id = 'k', .arg = "NAME", .help = "the signing key (default aivet)" },
	{ .name = "trusted-comment", .id = 't', .arg = "TEXT",
	  .help = "the signed comment in FILE.minisig" },
	{ 0 }
};

static const struct cmd_entry key_subs[] = {
	{ .name = "generate", .opts = generate_opts,
	  .summary = "create a signing key pair (minisign format)", .exec = key_generate,
	  .args = ARGS_NONE },
	{ .name = "import", .targets = "SECRET-KEY-FILE", .opts = name_opts,
	  .summary = "import a minisign secret key", .exec = key_import,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "list", .opts = opt_json_only,
	  .summary = "list own signing keys and trusted signers' keys", .exec = key_list,
	  .args = ARGS_NONE },
	{ .name = "trust", .targets = "PUBLIC-KEY-FILE", .opts = trust_opts,
	  .summary = "trust a signer's public key (minisign .pub) for verify",
	  .exec = key_trust, .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "untrust", .targets = "NAME", .opts = untrust_opts,
	  .summary = "stop trusting a signer's key (its NAME in 'key list'), or a reviewer's",
	  .exec = key_untrust, .args = ARGS({ TARGET_WORD, 1 }) },
	{ .name = "show", .targets = "[NAME]", .opts = opt_json_only,
	  .summary = "print a public key and its key id", .exec = key_show,
	  .args = ARGS({ TARGET_WORD, 1 }) },
	{ .name = "sign", .targets = "FILE", .opts = sign_opts,
	  .summary = "sign one file, writing FILE.minisig", .exec = key_sign,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "register", .targets = "[NAME]",
	  .summary = "register your key's public half to you in the database, for signing your "
	  "approvals", .exec = key_register_cmd, .args = ARGS({ TARGET_WORD, 1 }) },
	{ 0 }
};

const struct cmd_entry cmd_key_entry = {
	.name = "key",
	.summary = "manage the keys that sign report bundles and the signers trusted to verify "
	"them",
	.subs = key_subs,
};
