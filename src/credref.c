/*
 * credref.c: credential references. aivet stores where a key is
 * ("env:VAR" or "file:PATH"), never the key. Resolving one reads the secret
 * into sodium_malloc'ed memory that is wiped when freed.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet.h"

#define MAX_SECRET 65536

static int
valid_env_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

int
credref_check(const char *ref, struct aerr *err)
{
	if (strncmp(ref, "env:", 4) == 0) {
		if (!valid_env_name(ref + 4))
			return aerr_set(err, AV_USAGE, "credential reference 'env:...' needs an environment "
			    "variable name ([A-Za-z_][A-Za-z0-9_]*)");
		return 0;
	}
	if (strncmp(ref, "file:", 5) == 0) {
		if (ref[5] == '\0')
			return aerr_set(err, AV_USAGE, "credential reference 'file:' needs a path");
		return 0;
	}
	/* Do not echo the value: it may be the secret itself. */
	return aerr_set(err, AV_USAGE, "a credential must be a reference, env:VAR or file:PATH; "
	    "a literal secret is refused and was not stored");
}

int
credref_resolve(const char *ref, char **secret, size_t *len, struct aerr *err)
{
	const char *src;
	size_t n;
	struct buf b;

	*secret = NULL;
	*len = 0;
	if (credref_check(ref, err) != 0)
		return err->code;
	if (ref[0] == 'e') {
		src = getenv(ref + 4);
		if (src == NULL || *src == '\0')
			return aerr_set(err, AV_USAGE, "credential %s: the environment variable is not set", ref);
		n = strlen(src);
		*secret = sodium_malloc(n + 1);
		if (*secret == NULL)
			die("out of memory");
		memcpy(*secret, src, n + 1);
		*len = n;
		return 0;
	}
	if (read_file(ref + 5, MAX_SECRET, &b, err) != 0)
		return aerr_prefix(err, "credential %s", ref);
	n = b.len;
	while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' || b.data[n - 1] == ' '))
		n--;
	if (n == 0) {
		sodium_memzero(b.data, b.len);
		buf_free(&b);
		return aerr_set(err, AV_USAGE, "credential %s: the file is empty", ref);
	}
	*secret = sodium_malloc(n + 1);
	if (*secret == NULL)
		die("out of memory");
	memcpy(*secret, b.data, n);
	(*secret)[n] = '\0';
	*len = n;
	sodium_memzero(b.data, b.len);
	buf_free(&b);
	return 0;
}

void
credref_free(char *secret, size_t len)
{
	(void)len;
	if (secret != NULL)
		sodium_free(secret);   /* sodium_free wipes before releasing */
}
