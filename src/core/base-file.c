/*
 * base-file.c: files as the base handles them: directories made whole,
 * regular files opened without following links, read whole within a bound,
 * written atomically (or below a root, never outside it), hashed as they are
 * read, aivet's own data and config directories, and an output directory
 * built beside its place and renamed into it. Part of the base: libc and
 * libsodium only.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "base.h"

int
mkdir_p(const char *path, unsigned mode, struct aerr *err)
{
	char *tmp = xstrdup(path);

	for (char *p = tmp + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(tmp, (mode_t)mode) != 0 && errno != EEXIST) {
				aerr_set(err, AV_RUNTIME, "cannot create directory %s: %s", tmp, strerror(errno));
				free(tmp);
				return AV_RUNTIME;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	free(tmp);
	return 0;
}

int
open_regular(const char *path, int nofollow, struct aerr *err)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO for reading must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	int fl;

	if (fd < 0 && nofollow && errno == ELOOP)
		return aerr_set(err, AV_USAGE, "%s: a symbolic link, not followed here", path), -1;
	if (fd < 0)
		return aerr_set(err, AV_USAGE, "%s: %s", path, strerror(errno)), -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return aerr_set(err, AV_USAGE, "%s: not a regular file", path), -1;
	}
	/* A regular file never blocks, but reads should not see EAGAIN either. */
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		close(fd);
		return aerr_set(err, AV_RUNTIME, "%s: %s", path, strerror(errno)), -1;
	}
	return fd;
}

int
read_file(const char *path, size_t max, struct buf *out, struct aerr *err)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd = open_regular(path, 0, err);

	buf_init(out);
	if (fd < 0)
		return err->code;
	if (fstat(fd, &st) != 0 || (uintmax_t)st.st_size > (uintmax_t)max) {
		close(fd);
		return aerr_set(err, AV_USAGE, "%s: larger than %zu bytes", path, max);
	}
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* The file may grow after fstat: the cap holds while reading too. */
		if (out->len + (size_t)n > max) {
			close(fd);
			buf_free(out);
			return aerr_set(err, AV_USAGE, "%s: larger than %zu bytes", path, max);
		}
		buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	if (n < 0) {
		buf_free(out);
		return aerr_set(err, AV_RUNTIME, "%s: read error", path);
	}
	if (out->data == NULL)
		buf_add(out, "", 0);
	return 0;
}

static int write_all(int fd, const void *data, size_t len);

int
write_file_atomic(const char *path, const void *data, size_t len, unsigned mode, struct aerr *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);

	if (fd < 0) {
		aerr_set(err, AV_RUNTIME, "cannot write %s: %s", path, strerror(errno));
		free(tmp);
		return AV_RUNTIME;
	}
	if (write_all(fd, data, len) != 0)
		goto fail;
	if (fchmod(fd, (mode_t)mode) != 0 || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	aerr_set(err, AV_RUNTIME, "cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return AV_RUNTIME;
}

/* Writes all of data to fd. */
static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int
write_file_below(const char *root, const char *rel, const void *data, size_t len, unsigned mode,
    struct aerr *err)
{
	char *copy = xstrdup(rel), *name = copy, *slash;
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1, rc = 0;

	if (dfd < 0) {
		rc = aerr_set(err, AV_RUNTIME, "cannot open %s: %s", root, strerror(errno));
		goto out;
	}
	for (;;) {
		slash = strchr(name, '/');
		if (slash != NULL)
			*slash = '\0';
		if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			rc = aerr_set(err, AV_RUNTIME, "%s/%s: not a plain relative path", root, rel);
			goto out;
		}
		if (slash == NULL)
			break;
		/* Each directory is made here or must be a directory already, never a link. */
		if (mkdirat(dfd, name, 0755) != 0 && errno != EEXIST) {
			rc = aerr_set(err, AV_RUNTIME, "cannot create %s/%s: %s", root, rel, strerror(errno));
			goto out;
		}
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = aerr_set(err, AV_RUNTIME, "cannot open %s/%s: %s", root, rel, strerror(errno));
			goto out;
		}
		close(dfd);
		dfd = fd, fd = -1;
		name = slash + 1;
	}
	/* O_EXCL with O_NOFOLLOW: a name planted in advance (a link above all) is refused. */
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	if (fd < 0 || write_all(fd, data, len) != 0 || fchmod(fd, (mode_t)mode) != 0 || fsync(fd) != 0)
		rc = aerr_set(err, AV_RUNTIME, "cannot write %s/%s: %s", root, rel, strerror(errno));
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = aerr_set(err, AV_RUNTIME, "cannot write %s/%s: %s", root, rel, strerror(errno));
out:
	if (dfd >= 0)
		close(dfd);
	free(copy);
	return rc;
}

/* Stays in L2 cache while it is hashed. */
#define DIGEST_CHUNK ((size_t)1 << 16)

int
file_digest(const char *path, enum file_digest_kind kind, unsigned char *out, struct aerr *err)
{
	crypto_hash_sha256_state sha;
	crypto_generichash_state b2;
	unsigned char *chunk;
	int fd = open_regular(path, 0, err);
	ssize_t n;

	if (fd < 0)
		return err->code;
	chunk = xmalloc(DIGEST_CHUNK);
	if (kind == DIGEST_SHA256)
		crypto_hash_sha256_init(&sha);
	else
		crypto_generichash_init(&b2, NULL, 0, crypto_generichash_BYTES_MAX);
	while ((n = read(fd, chunk, DIGEST_CHUNK)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			free(chunk);
			return aerr_set(err, AV_RUNTIME, "%s: read error: %s", path, strerror(errno));
		}
		if (kind == DIGEST_SHA256)
			crypto_hash_sha256_update(&sha, chunk, (unsigned long long)n);
		else
			crypto_generichash_update(&b2, chunk, (unsigned long long)n);
	}
	close(fd);
	free(chunk);
	if (kind == DIGEST_SHA256)
		crypto_hash_sha256_final(&sha, out);
	else
		crypto_generichash_final(&b2, out, crypto_generichash_BYTES_MAX);
	return 0;
}

char *
aivet_dir(enum aivet_dir_kind kind)
{
	const char *x = getenv(kind == AIVET_DATA_DIR ? "XDG_DATA_HOME" : "XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	/* The XDG spec: a relative value is invalid and ignored. */
	if (x != NULL && *x == '/')
		return xasprintf("%s/aivet", x);
	if (home == NULL || *home == '\0') {
		struct passwd *pw = getpwuid(getuid());

		home = pw != NULL ? pw->pw_dir : "/";
	}
	return xasprintf("%s/%s/aivet", home, kind == AIVET_DATA_DIR ? ".local/share" : ".config");
}

/* Removes name (relative to dfd) and, for a directory, what is inside it,
 * never following a symbolic link: a link is removed, not what it points to. */
static void
remove_at(int dfd, const char *name)
{
	int fd;
	DIR *d;
	struct dirent *de;

	if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			remove_at(fd, de->d_name);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

int
outdir_begin(const char *dir, char **tmp, struct aerr *err)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	int rc = 0;

	*tmp = NULL;
	if (slash != NULL && slash != parent) {
		*slash = '\0';
		rc = mkdir_p(parent, 0755, err);
	}
	free(parent);
	if (rc != 0)
		return rc;
	/* A fresh name nobody could have planted a link at: mkdtemp makes it, 0700. */
	*tmp = xasprintf("%s.partial.XXXXXX", dir);
	if (mkdtemp(*tmp) == NULL) {
		rc = aerr_set(err, AV_RUNTIME, "cannot create a directory beside %s: %s", dir,
		    strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return rc;
}

int
outdir_commit(const char *tmp, const char *dir, unsigned mode, struct aerr *err)
{
	if (chmod(tmp, (mode_t)mode) != 0)
		return aerr_set(err, AV_RUNTIME, "cannot set the mode of %s: %s", tmp, strerror(errno));
	rmdir(dir);   /* an empty target directory may exist */
	if (rename(tmp, dir) != 0)
		return aerr_set(err, AV_RUNTIME, "cannot move %s to %s: %s", tmp, dir, strerror(errno));
	return 0;
}

void
outdir_discard(const char *tmp)
{
	if (tmp != NULL)
		remove_at(AT_FDCWD, tmp);
}
