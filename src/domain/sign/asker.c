/*
 * asker.c: the passphrase a secret key needs and the key derivation's progress,
 * through the callbacks the front end sets (key_asker_set): the command line
 * reads the terminal without echo, the terminal UI shows a box. The library
 * reads no terminal itself; AIVET_KEY_PASSWORD_FILE gives the passphrase
 * without asking anyone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "sign-impl.h"

/* The front end's way of asking for a passphrase and of showing the key
 * derivation: none until key_asker_set. */
static struct key_asker asker;

void
key_asker_set(const struct key_asker *a, struct key_asker *old)
{
	if (old != NULL)
		*old = asker;
	if (a != NULL)
		asker = *a;
	else
		memset(&asker, 0, sizeof asker);
}

void
key_kdf_tell(enum key_kdf_step step, uint64_t mem)
{
	if (asker.kdf != NULL)
		asker.kdf(asker.arg, step, (unsigned long long)(mem >> 20));
}

#define PASSWORD_MAX 1024

/* One passphrase from the front end, NUL-terminated in pw (cap bytes). */
static int
ask_password(const char *prompt, char *pw, size_t cap, size_t *len, struct aerr *err)
{
	int rc;

	*len = 0;
	if (asker.ask == NULL)
		return aerr_set(err, AV_USAGE, "a passphrase is needed: set AIVET_KEY_PASSWORD_FILE "
		    "or run on a terminal");
	rc = asker.ask(asker.arg, prompt, pw, cap, len, err);
	if (rc == 0 && *len >= cap)
		rc = aerr_set(err, AV_RUNTIME, "the passphrase overran its buffer");
	if (rc != 0)
		*len = 0;
	pw[*len] = '\0';
	return rc;
}

int
key_password(const char *prompt, int confirm, char **out, size_t *outlen, struct aerr *err)
{
	const char *file = getenv("AIVET_KEY_PASSWORD_FILE");
	char *pw = sodium_malloc(PASSWORD_MAX);
	size_t len = 0;

	if (pw == NULL)
		die("out of secure memory");
	if (file != NULL && *file != '\0') {
		int fd = open_regular(file, 0, err);
		ssize_t r;

		if (fd < 0) {
			sodium_free(pw);
			return aerr_prefix(err, "AIVET_KEY_PASSWORD_FILE");   /* names the file too */
		}
		while ((r = read(fd, pw + len, PASSWORD_MAX - 1 - len)) > 0)
			len += (size_t)r;
		close(fd);
		if (r < 0) {
			sodium_free(pw);
			return aerr_set(err, AV_RUNTIME, "AIVET_KEY_PASSWORD_FILE %s: read error", file);
		}
		pw[len] = '\0';
		len = strcspn(pw, "\r\n");   /* the first line is the passphrase */
		pw[len] = '\0';
	} else {
		if (ask_password(prompt, pw, PASSWORD_MAX, &len, err) != 0) {
			sodium_free(pw);
			return err->code;
		}
		if (confirm) {
			char *again = sodium_malloc(PASSWORD_MAX);
			size_t alen = 0;
			int same;

			if (again == NULL)
				die("out of secure memory");
			if (ask_password("passphrase again: ", again, PASSWORD_MAX, &alen, err) != 0) {
				sodium_free(again);
				sodium_free(pw);
				return err->code;
			}
			same = alen == len && sodium_memcmp(again, pw, len) == 0;
			sodium_free(again);
			if (!same) {
				sodium_free(pw);
				return aerr_set(err, AV_USAGE, "the passphrases do not match");
			}
		}
	}
	if (len == 0) {
		sodium_free(pw);
		return aerr_set(err, AV_USAGE, "empty passphrase (use --no-password for an unencrypted key)");
	}
	*out = pw;
	*outlen = len;
	return 0;
}

/* ---- creating keys: "aivet key" and the export dialog ---- */
