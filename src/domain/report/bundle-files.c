/*
 * bundle-files.c: the bundle's files as lists and hashes: a list of file
 * names, and the SHA-256 of each file below a bundle's directory, read the
 * way 'aivet verify' reads tens of thousands of them (one open each, one
 * buffer for all, the processor's SHA instructions where it has them).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "aivet/domain.h"
#include "bundle-files.h"

/* Verifying a bundle of many small files: each is opened relative to the bundle's
 * directory, opened once, and read into one buffer for all, so a file costs
 * little more than hashing it does (an open, an fstat, its reads and a close). */
#define HASH_CHUNK ((size_t)1 << 16)
/* The files are hashed with OpenSSL's SHA-256 (linked for the time-stamps),
 * which uses the processor's SHA instructions where it has them: a bundle of
 * 80,000 small files spent two fifths of verify in libsodium's portable one. */
int
hasher_open(struct hasher *hs, const char *dir)
{
	hs->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hs->buf = hs->dirfd >= 0 ? xmalloc(HASH_CHUNK) : NULL;
	hs->md = hs->dirfd >= 0 ? EVP_MD_fetch(NULL, "SHA256", NULL) : NULL;
	hs->ctx = hs->md != NULL ? EVP_MD_CTX_new() : NULL;
	if (hs->dirfd >= 0 && hs->ctx == NULL)
		die("OpenSSL: no SHA-256");
	return hs->dirfd >= 0 ? 0 : -1;
}

void
hasher_close(struct hasher *hs)
{
	if (hs->dirfd >= 0)
		close(hs->dirfd);
	free(hs->buf);
	EVP_MD_CTX_free(hs->ctx);
	EVP_MD_free(hs->md);
}

/* SHA-256 as hex of the regular file REL below the bundle's directory; -1 when it
 * cannot be read or is not a regular file. O_NOFOLLOW and O_NONBLOCK: a link or a
 * FIFO put in place of a listed file after the walk is refused, neither followed nor
 * waited on (a regular file's reads do not see O_NONBLOCK). */
int
sha256_at(const struct hasher *hs, const char *rel, char out[65])
{
	unsigned char h[EVP_MAX_MD_SIZE];
	unsigned int hlen = 0;
	struct stat sb;
	ssize_t n;
	off_t got = 0;
	int fd = openat(hs->dirfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -1;
	}
	if (EVP_DigestInit_ex(hs->ctx, hs->md, NULL) != 1) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, hs->buf, HASH_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		EVP_DigestUpdate(hs->ctx, hs->buf, (size_t)n);
		got += (off_t)n;
		/* A short read that reaches the size fstat gave is the end: no read for
		 * the EOF (most evidence files are one read). */
		if ((size_t)n < HASH_CHUNK && got == sb.st_size)
			break;
	}
	close(fd);
	if (EVP_DigestFinal_ex(hs->ctx, h, &hlen) != 1 || hlen != 32)
		return -1;
	hex_encode(h, hlen, out);
	return 0;
}

void
bundle_names_add(struct names *ns, const char *s)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->v = xrealloc(ns->v, ns->cap * sizeof *ns->v);
	}
	ns->v[ns->n++] = xstrdup(s);
}

void
bundle_names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->cap = 0;
}

int
bundle_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
