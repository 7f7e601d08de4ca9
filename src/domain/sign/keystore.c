/*
 * keystore.c: where keys live: the user's own keys under
 * $XDG_CONFIG_HOME/aivet/keys/ (NAME.pub, NAME.key), the signers they trust
 * under trusted/, creating a key and storing it, and what "key show" and
 * "key list" tell of each. The file formats are minisign.c's; a passphrase
 * comes through asker.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "sign-impl.h"

char *
keystore_dir(void)
{
	char *conf = aivet_dir(AIVET_CONFIG_DIR), *keys = xasprintf("%s/keys", conf);

	free(conf);
	return keys;
}

int
keystore_name_check(const char *name, struct aerr *err)
{
	if (*name == '\0' || strlen(name) > 64 || name[0] == '.' || name[0] == '-')
		goto bad;
	for (const char *p = name; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '_' || *p == '.'))
			goto bad;
	return 0;
bad:
	return aerr_set(err, AV_USAGE, "key name '%s': use 1-64 letters, digits, '-', '_' or '.', "
	    "not starting with '.' or '-'", name);
}

int
keystore_load_pub(const char *name, struct minisign_pub *pub, struct aerr *err)
{
	char *dir = keystore_dir(), *path = xasprintf("%s/%s.pub", dir, name);
	struct buf b;
	int rc;

	free(dir);
	if (keystore_name_check(name, err) != 0 || access(path, F_OK) != 0) {
		if (err->code == 0)
			aerr_set(err, AV_USAGE, "no key named '%s' (%s); create one with 'aivet key generate'",
			    name, path);
		free(path);
		return err->code;
	}
	rc = read_file(path, KEYFILE_MAX, &b, err);
	if (rc == 0) {
		rc = minisign_pubkey_parse(b.data, b.len, path, pub, err);
		buf_free(&b);
	}
	free(path);
	return rc;
}

int
signer_load(const char *key, const char *pubfile, struct minisign_pub *pub, struct aerr *err)
{
	struct buf b;
	int rc;

	if (key != NULL)
		return keystore_load_pub(key, pub, err);
	if (read_file(pubfile, 4096, &b, err) != 0)
		return aerr_prefix(err, "--pubkey");
	rc = minisign_pubkey_parse(b.data, b.len, pubfile, pub, err);
	buf_free(&b);
	return rc;
}

int
keystore_load_sec(const char *name, struct minisign_sec **sec, struct aerr *err)
{
	char *dir = keystore_dir(), *path = xasprintf("%s/%s.key", dir, name);
	struct secbuf b;
	char *pw = NULL;
	size_t pwlen = 0;
	int enc, rc;

	free(dir);
	if (keystore_name_check(name, err) != 0 || access(path, F_OK) != 0) {
		if (err->code == 0)
			aerr_set(err, AV_USAGE, "no key named '%s' (%s); create one with 'aivet key generate'",
			    name, path);
		free(path);
		return err->code;
	}
	if ((rc = secbuf_read_file(path, &b, err)) != 0) {
		free(path);
		return rc;
	}
	rc = minisign_seckey_is_encrypted(b.data, b.len, path, &enc, err);
	if (rc == 0 && enc) {
		char *prompt = xasprintf("passphrase for key %s: ", name);

		rc = key_password(prompt, 0, &pw, &pwlen, err);
		free(prompt);
	}
	if (rc == 0)
		rc = minisign_seckey_parse(b.data, b.len, path, pw, pwlen, sec, err);
	if (pw != NULL)
		credref_free(pw, pwlen);
	secbuf_free(&b);
	free(path);
	return rc;
}

/* NAME's secret key file, read into secure memory; the path for messages. */
static int
keystore_read_sec(const char *name, struct secbuf *b, char **path, struct aerr *err)
{
	char *dir = keystore_dir();

	*path = xasprintf("%s/%s.key", dir, name);
	free(dir);
	if (keystore_name_check(name, err) != 0 || access(*path, F_OK) != 0) {
		if (err->code == 0)
			aerr_set(err, AV_USAGE, "no key named '%s' (%s); create one with 'aivet key generate'",
			    name, *path);
		free(*path);
		*path = NULL;
		return err->code;
	}
	if (secbuf_read_file(*path, b, err) != 0) {
		free(*path);
		*path = NULL;
		return err->code;
	}
	return 0;
}

int
keystore_sec_encrypted(const char *name, int *encrypted, struct aerr *err)
{
	struct secbuf b;
	char *path;
	int rc;

	if (keystore_read_sec(name, &b, &path, err) != 0)
		return err->code;
	rc = minisign_seckey_is_encrypted(b.data, b.len, path, encrypted, err);
	secbuf_free(&b);
	free(path);
	return rc;
}

int
keystore_open_sec(const char *name, const char *pw, size_t pwlen, struct minisign_sec **sec,
    struct aerr *err)
{
	struct secbuf b;
	char *path;
	int rc;

	if (keystore_read_sec(name, &b, &path, err) != 0)
		return err->code;
	rc = minisign_seckey_parse(b.data, b.len, path, pw, pwlen, sec, err);
	secbuf_free(&b);
	free(path);
	return rc;
}

/* ---- trusted signers ---- */

char *
keyring_trusted_dir(void)
{
	char *conf = aivet_dir(AIVET_CONFIG_DIR), *dir = xasprintf("%s/trusted", conf);

	free(conf);
	return dir;
}

static int
keyring_cmp(const void *a, const void *b)
{
	const struct keyring_key *x = a, *y = b;

	if (x->own != y->own)
		return y->own - x->own;
	return strcmp(x->name, y->name);
}

static void
keyring_add_dir(const char *dir, int own, struct keyring_key **keys, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		struct keyring_key k = { .own = own };
		struct aerr e = { 0 };
		struct buf b;

		if (l <= 4 || l - 4 >= sizeof k.name || strcmp(de->d_name + l - 4, ".pub") != 0)
			continue;
		memcpy(k.name, de->d_name, l - 4);
		k.name[l - 4] = '\0';
		if (keystore_name_check(k.name, &e) != 0)
			continue;
		k.path = xasprintf("%s/%s", dir, de->d_name);
		if (read_file(k.path, KEYFILE_MAX, &b, &e) != 0) {
			free(k.path);
			continue;
		}
		if (minisign_pubkey_parse(b.data, b.len, k.path, &k.pub, &e) != 0) {
			free(k.path);
		} else {
			*keys = xrealloc(*keys, (*n + 1) * sizeof **keys);
			(*keys)[(*n)++] = k;
		}
		buf_free(&b);
	}
	closedir(d);
}

void
keyring_load(struct keyring_key **keys, size_t *n)
{
	char *own = keystore_dir(), *trusted = keyring_trusted_dir();

	*keys = NULL;
	*n = 0;
	keyring_add_dir(own, 1, keys, n);
	keyring_add_dir(trusted, 0, keys, n);
	if (*n > 0)
		qsort(*keys, *n, sizeof **keys, keyring_cmp);
	free(own);
	free(trusted);
}

void
keyring_free(struct keyring_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i].path);
	free(keys);
}

const struct keyring_key *
keyring_find_id(const struct keyring_key *keys, size_t n, const unsigned char keynum[MINISIGN_KEYNUM_BYTES])
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(keys[i].pub.keynum, keynum, MINISIGN_KEYNUM_BYTES) == 0)
			return &keys[i];
	return NULL;
}

char *
keystore_path(const char *name, const char *ext)
{
	char *dir = keystore_dir(), *p = xasprintf("%s/%s.%s", dir, name, ext);

	free(dir);
	return p;
}

/* Writes NAME.key and NAME.pub, refusing to replace an existing key. */
int
keystore_store(const char *name, const char *sectext, size_t seclen,
    const struct minisign_pub *pub, struct aerr *err)
{
	char *dir = keystore_dir(), *kp = keystore_path(name, "key"), *pp = keystore_path(name, "pub");
	struct buf pb;
	int rc = 0;

	if (access(kp, F_OK) == 0 || access(pp, F_OK) == 0) {
		rc = aerr_set(err, AV_USAGE, "a key named '%s' exists already (%s)", name, kp);
		goto out;
	}
	if ((rc = mkdir_p(dir, 0700, err)) != 0)
		goto out;
	buf_init(&pb);
	minisign_pubkey_format(pub, &pb);
	rc = write_file_atomic(kp, sectext, seclen, 0600, err);
	if (rc == 0 && (rc = write_file_atomic(pp, pb.data, pb.len, 0644, err)) != 0)
		unlink(kp);
	buf_free(&pb);
out:
	free(dir);
	free(kp);
	free(pp);
	return rc;
}

void
keystore_created_text(const char *verb, const char *name, const struct minisign_pub *pub,
    int encrypted, struct buf *out)
{
	char id[MINISIGN_KEYID_LEN + 1], *kp = keystore_path(name, "key");
	char *pp = keystore_path(name, "pub");

	minisign_keyid(pub->keynum, id);
	buf_printf(out, "key %s %s (key id %s)\n", name, verb, id);
	buf_printf(out, "  public key  %s\n", pp);
	buf_printf(out, "  secret key  %s (%s)\n", kp, encrypted ? "encrypted" : "NOT encrypted");
	free(kp);
	free(pp);
}

/* A new key's name: well formed, and no key of that name yet. */
static int
keystore_name_free(const char *name, struct aerr *err)
{
	char *kp;
	int rc = 0;

	if (keystore_name_check(name, err) != 0)
		return err->code;
	kp = keystore_path(name, "key");
	if (access(kp, F_OK) == 0)
		rc = aerr_set(err, AV_USAGE, "a key named '%s' exists already (%s)", name, kp);
	free(kp);
	return rc;
}

int
keystore_generate(const char *name, int password, enum minisign_kdf_cost cost,
    struct minisign_pub *pub, struct aerr *err)
{
	struct minisign_sec *sec;
	char *pw = NULL;
	size_t pwlen = 0;
	int rc;

	if (keystore_name_free(name, err) != 0)
		return err->code;
	if (password && key_password("passphrase for the new key: ", 1, &pw, &pwlen, err) != 0)
		return err->code;
	rc = keystore_generate_sec(name, pw, pwlen, cost, pub, &sec, err);
	minisign_sec_free(sec);
	credref_free(pw, pwlen);
	return rc;
}

int
keystore_generate_sec(const char *name, const char *pw, size_t pwlen,
    enum minisign_kdf_cost cost, struct minisign_pub *pub, struct minisign_sec **sec,
    struct aerr *err)
{
	struct secbuf kb = { 0 };
	int rc;

	*sec = NULL;
	if (keystore_name_free(name, err) != 0)
		return err->code;
	if (minisign_generate(sec, pub, err) != 0)
		return err->code;
	rc = minisign_seckey_format(*sec, pw, pwlen, cost, &kb, err);
	if (rc == 0)
		rc = keystore_store(name, kb.data, kb.len, pub, err);
	secbuf_free(&kb);
	if (rc != 0) {
		minisign_sec_free(*sec);
		*sec = NULL;
	}
	return rc;
}

int
key_info_get(const char *name, struct key_info *k, struct aerr *err)
{
	struct minisign_pub pub;
	struct secbuf sb;
	struct buf line;

	memset(k, 0, sizeof *k);
	if (keystore_load_pub(name, &pub, err) != 0)
		return err->code;
	k->name = xstrdup(name);
	k->trust = "own";
	k->public_key_file = keystore_path(name, "pub");
	k->secret_key_file = keystore_path(name, "key");
	k->encrypted = -1;
	if (access(k->secret_key_file, F_OK) != 0) {
		free(k->secret_key_file);
		k->secret_key_file = NULL;
	} else if (secbuf_read_file(k->secret_key_file, &sb, err) == 0) {
		int enc = 0;

		if (minisign_seckey_is_encrypted(sb.data, sb.len, k->secret_key_file, &enc, err) != 0)
			aerr_clear(err);
		else
			k->encrypted = enc;
		secbuf_free(&sb);
	} else {
		/* a secret key file that cannot be read has always been listed as not encrypted */
		k->encrypted = 0;
		aerr_clear(err);
	}
	minisign_keyid(pub.keynum, k->key_id);
	buf_init(&line);
	minisign_pubkey_base64(&pub, &line);
	k->public_key = xstrdup(line.data);
	buf_free(&line);
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct key_info *
key_info_add(struct key_info_list *l)
{
	l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	memset(&l->items[l->n], 0, sizeof *l->items);
	return &l->items[l->n++];
}

void
key_info_list_load(struct key_info_list *out)
{
	char *dir = keystore_dir(), **names = NULL;
	struct keyring_key *ring;
	size_t n = 0, nring;
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof *out);
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t l = strlen(de->d_name);

			if (l > 4 && strcmp(de->d_name + l - 4, ".pub") == 0) {
				names = xrealloc(names, (n + 1) * sizeof *names);
				names[n] = xstrdup(de->d_name);
				names[n++][l - 4] = '\0';
			}
		}
		closedir(d);
	}
	if (n > 0)   /* no keys yet: qsort must not get NULL */
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct key_info *k = key_info_add(out);
		struct aerr e = { 0 };

		if (key_info_get(names[i], k, &e) != 0) {
			k->name = xstrdup(names[i]);
			k->trust = "own";
			k->encrypted = -1;
			k->error = xstrdup(e.msg);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	keyring_load(&ring, &nring);
	for (size_t i = 0; i < nring; i++) {
		struct key_info *k;
		struct buf line;

		if (ring[i].own)
			continue;
		k = key_info_add(out);
		k->name = xstrdup(ring[i].name);
		k->trust = "trusted";
		minisign_keyid(ring[i].pub.keynum, k->key_id);
		buf_init(&line);
		minisign_pubkey_base64(&ring[i].pub, &line);
		k->public_key = xstrdup(line.data);
		buf_free(&line);
		k->public_key_file = xstrdup(ring[i].path);
		k->encrypted = -1;
	}
	keyring_free(ring, nring);
}

void
key_info_free(struct key_info *k)
{
	free(k->name);
	free(k->public_key);
	free(k->public_key_file);
	free(k->secret_key_file);
	free(k->error);
	memset(k, 0, sizeof *k);
}

void
key_info_list_free(struct key_info_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		key_info_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

cJSON *
key_info_to_json(const struct key_info *k)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", k->name);
	cJSON_AddStringToObject(o, "trust", k->trust);
	cJSON_AddStringToObject(o, "key_id", k->key_id);
	cJSON_AddStringToObject(o, "public_key", k->public_key);
	cJSON_AddStringToObject(o, "public_key_file", k->public_key_file);
	json_add_str(o, "secret_key_file", k->secret_key_file);
	if (k->encrypted >= 0)
		cJSON_AddBoolToObject(o, "encrypted", k->encrypted);
	else
		cJSON_AddNullToObject(o, "encrypted");
	return o;
}
