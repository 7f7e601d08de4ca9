/*
 * base.c: small shared helpers — errors as values, memory, a byte buffer,
 * UTC time formatting and parsing, atomic file writes, hashing, random
 * identifiers, whole-number options and cJSON members. Anything used by
 * more than one file lives here. It is the base aivet-sim shares with
 * aivet, so it may use libc, libsodium and cJSON and nothing else.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

#include "base.h"

int
aerr_set(struct aerr *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}

void
aerr_clear(struct aerr *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}

int
aerr_prefix(struct aerr *err, const char *fmt, ...)
{
	char pre[512], old[sizeof err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	{
		char *joined = xasprintf("%s: %s", pre, old);
		size_t n = strlen(joined);

		if (n >= sizeof err->msg)
			n = sizeof err->msg - 1;
		memcpy(err->msg, joined, n);
		err->msg[n] = '\0';
		free(joined);
	}
	return err->code;
}

/* The front end's reporter, and the last message kept for a debugger
 * (the core file holds it) when there is none. */
static void (*die_report)(const char *msg);
static char die_message[512];

void
die_report_set(void (*report)(const char *msg))
{
	die_report = report;
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(die_message, sizeof die_message, fmt, ap);
	va_end(ap);
	if (die_report != NULL)
		die_report(die_message);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *
xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

static void
buf_grow(struct buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;

	if (b->len + need + 1 <= b->cap)
		return;
	while (cap < b->len + need + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_shell_word(struct buf *b, const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	    "_./:-";

	if (*s != '\0' && strspn(s, plain) == strlen(s)) {
		buf_adds(b, s);
		return;
	}
	buf_adds(b, "'");
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_add(b, s, 1);
	}
	buf_adds(b, "'");
}

char *
shell_word(const char *s)
{
	struct buf b;

	buf_init(&b);
	buf_shell_word(&b, s);
	return b.data;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("buf_printf: bad format");
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
buf_steal(struct buf *b)
{
	char *s;

	if (b->data == NULL)
		buf_grow(b, 0), b->data[0] = '\0';
	s = b->data;
	buf_init(b);
	return s;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

static int parse_iso_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err);

int64_t
now_ms(void)
{
	struct timespec ts;
	const char *fixed = getenv("AIVET_NOW");
	int64_t ms;
	int off;

	/* AIVET_NOW pins the clock for reproducible tests and reports (ISO only:
	 * a relative AIVET_NOW would count from itself). */
	if (fixed != NULL && *fixed != '\0' && parse_iso_zone(fixed, &ms, &off, NULL) == 0)
		return ms;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
fmt_time_ms(int64_t ms, char out[32])
{
	time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)secs * 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	/* Four-digit years always: strftime's %Y would write year 999 as "999",
	 * which parse_time (rightly) refuses to read back. */
	snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

void
fmt_time_offset(int64_t ms, int offset_min, char out[40])
{
	int64_t local = ms + (int64_t)offset_min * 60000;
	time_t secs = (time_t)(local >= 0 ? local / 1000 : (local - 999) / 1000);
	struct tm tm;
	size_t n;
	int a = offset_min < 0 ? -offset_min : offset_min;

	gmtime_r(&secs, &tm);
	strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	n = strlen(out);
	if (offset_min == 0)
		snprintf(out + n, 40 - n, "Z");
	else
		snprintf(out + n, 40 - n, "%c%02d:%02d", offset_min < 0 ? '-' : '+', a / 60, a % 60);
}

void
now_iso(char out[32])
{
	fmt_time_ms(now_ms(), out);
}

static int
digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm). */
static int64_t
days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int y, int m)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 ? 28 + leap : dm[m - 1];
}

int
parse_time(const char *s, int64_t *ms, struct aerr *err)
{
	int off;

	return parse_time_zone(s, ms, &off, err);
}

static int
parse_iso_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err)
{
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, se = 0, frac = 0, off = 0;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
	    digits(&p, 2, &d))
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		goto bad;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			goto bad;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &se))
				goto bad;
			if (*p == '.') {
				int n = 0, scale = 100;

				p++;
				while (*p >= '0' && *p <= '9') {
					if (n++ < 3)
						frac += (*p - '0') * scale, scale /= 10;
					p++;
				}
				if (n == 0)
					goto bad;
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			goto bad;
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1, oh, om;

			if (digits(&p, 2, &oh))
				goto bad;
			if (*p == ':')
				p++;
			if (digits(&p, 2, &om) || oh > 23 || om > 59)
				goto bad;
			off = sign * (oh * 60 + om);
		} else {
			goto bad;   /* a time without a zone is ambiguous */
		}
	}
	if (*p != '\0')
		goto bad;
	*ms = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) - off * 60) * 1000 + frac;
	*offset_min = off;
	return 0;
bad:
	return aerr_set(err, AV_USAGE, "bad time '%s': expected ISO 8601 such as "
	    "2026-11-30 or 2026-11-30T14:05:00Z (a time needs Z or an offset)", s);
}

/*
 * Dates as people type them: "today", "tomorrow", "yesterday" are that UTC
 * date, read as "2026-11-30" is; "now"; "+3d", "-2w", "+4h", "+30m" count
 * from now. Returns 1 when s is one of these.
 */
static int
relative_time(const char *s, int64_t *ms)
{
	static const struct {
		const char *word;
		int days;
	} words[] = { { "today", 0 }, { "tomorrow", 1 }, { "yesterday", -1 } };
	const int64_t day = INT64_C(86400000);
	int64_t now, n = 0;
	const char *p;

	if (strcmp(s, "now") != 0 && strcmp(s, "today") != 0 && strcmp(s, "tomorrow") != 0 &&
	    strcmp(s, "yesterday") != 0 && !((s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9'))
		return 0;
	now = now_ms();
	if (strcmp(s, "now") == 0) {
		*ms = now;
		return 1;
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(s, words[i].word) == 0) {
			*ms = (now >= 0 ? now / day : (now - day + 1) / day) * day + words[i].days * day;
			return 1;
		}
	for (p = s + 1; *p >= '0' && *p <= '9' && n < INT64_C(1000000); p++)
		n = n * 10 + (*p - '0');
	if (p[0] == '\0' || p[1] != '\0' || n >= INT64_C(1000000))
		return 0;
	switch (*p) {
	case 'm': n *= 60000; break;
	case 'h': n *= 3600000; break;
	case 'd': n *= day; break;
	case 'w': n *= 7 * day; break;
	default: return 0;
	}
	*ms = now + (s[0] == '-' ? -n : n);
	return 1;
}

int
parse_time_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err)
{
	if (relative_time(s, ms)) {
		*offset_min = 0;
		return 0;
	}
	return parse_iso_zone(s, ms, offset_min, err);
}

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

void
hex_encode(const unsigned char *in, size_t n, char *out)
{
	sodium_bin2hex(out, n * 2 + 1, in, n);
}

void
sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, data, len);
	hex_encode(h, sizeof h, out);
}

void
random_alnum(char *out, size_t n)
{
	static const char set[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (size_t i = 0; i < n; i++)
		out[i] = set[randombytes_uniform(sizeof set - 1)];
	out[n] = '\0';
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

int
utf8_valid(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		unsigned char lo = 0x80, hi = 0xbf;   /* the range of the second byte */

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		else
			return 0;
		if (n - i <= k || s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (size_t j = 2; j <= k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

size_t
utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, c = p[0] & 0x1f, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, c = p[0] & 0x0f, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, c = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int
unsafe_codepoint(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

char *
text_c0_problem(const char *s)
{
	static const char *const names[32] = { "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK",
		"BEL", "BS", "TAB", "LF", "VT", "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3",
		"DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US" };
	size_t chars = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		chars += (*p & 0xc0) != 0x80;
		if (*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')
			continue;
		return xasprintf("holds the control character U+%04X (%s) at character %zu: only tab and "
		    "line breaks are allowed in imported text", *p, names[*p], chars);
	}
	return NULL;
}

char *
text_escape(const char *s, size_t n, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n; ) {
		uint32_t cp;
		size_t len = utf8_decode(p + i, n - i, &cp);

		if (len == 0) {
			buf_printf(&b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (!unsafe_codepoint(cp) || (keep_lines && (cp == '\n' || cp == '\t')))
			buf_add(&b, p + i, len);
		else if (cp == '\n')
			buf_adds(&b, "\\n");
		else if (cp == '\r')
			buf_adds(&b, "\\r");
		else if (cp == '\t')
			buf_adds(&b, "\\t");
		else if (cp < 0x80)
			buf_printf(&b, "\\x%02x", (unsigned)cp);
		else
			buf_printf(&b, "\\u%04x", (unsigned)cp);
		i += len;
	}
	if (b.data == NULL)
		buf_add(&b, "", 0);
	return buf_steal(&b);
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

int
parse_int_opt(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out, struct aerr *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return aerr_set(err, AV_USAGE, "%s: '%s' is not a whole number", opt, s);
	if (v < lo || v > hi)
		return aerr_set(err, AV_USAGE, "%s: %lld is out of range (%lld to %lld)", opt, v,
		    (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

const char *
json_get_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
json_add_str(cJSON *o, const char *k, const char *v)
{
	if (v == NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, v);
}

/* cJSON prints every number with "%1.15g", then reads it back with sscanf to
 * see whether 17 digits are needed: most of the time of a long list of rows
 * (ten numbers a vendor) went there. A whole number below 1e15 prints as its
 * digits under "%1.15g" too, so such a number becomes a raw item holding
 * them, which the printer copies: the same text, without the float
 * formatting. Only for a document about to be printed and freed. */
static void
number_to_raw(cJSON *c)
{
	double d = c->valuedouble;
	char digits[24], *p = digits + sizeof digits;
	long long n = (long long)d;
	unsigned long long u;
	size_t len;

	/* (-0 prints as "-0" under %g: left to cJSON.) */
	if (c->valuestring != NULL || !(d > -1e15 && d < 1e15) || d != (double)n || (d == 0 && 1 / d < 0))
		return;
	/* The digits by hand: snprintf's own parsing cost as much as the rest. */
	u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (n < 0)
		*--p = '-';
	len = (size_t)(digits + sizeof digits - p);
	c->valuestring = xmalloc(len + 1);
	memcpy(c->valuestring, p, len);
	c->valuestring[len] = '\0';
	c->type = cJSON_Raw | (c->type & ~0xFF);
}

void
json_print_prepare(cJSON *v)
{
	if (v == NULL)
		return;
	if ((v->type & 0xFF) == cJSON_Number) {
		number_to_raw(v);
		return;
	}
	if (v->type & cJSON_IsReference)
		return;   /* another document's members: not ours to change */
	for (cJSON *c = v->child; c != NULL; c = c->next)
		json_print_prepare(c);
}

/* ---- suggestions for a mistyped name ---- */

/* Optimal string alignment distance: a swapped pair of letters costs one, as
 * a typo does. Words are short (commands, options, ids); longer ones are simply far. */
int
typo_distance(const char *a, const char *b)
{
	enum { MAXW = 64 };
	int d[MAXW + 1][MAXW + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAXW || lb > MAXW)
		return MAXW;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Whether every word of typed (split at '-', '_' and spaces) appears in name,
 * in order: "llm-isolation" in "llm-inference-isolation". */
static int
words_in(const char *typed, const char *name)
{
	const char *p = typed, *at = name;

	while (*p != '\0') {
		size_t n = strcspn(p, "-_ ");
		char word[64];
		const char *hit;

		if (n > 0) {
			if (n >= sizeof word)
				return 0;
			memcpy(word, p, n);
			word[n] = '\0';
			if ((hit = strstr(at, word)) == NULL)
				return 0;
			at = hit + n;
		}
		p += n;
		p += *p != '\0';
	}
	return 1;
}

const char *
name_suggest(const char *typed, const char *const *names, size_t n)
{
	const char *best = NULL, *holds = NULL;
	int bestd = 3, nholds = 0;

	for (size_t i = 0; i < n; i++) {
		int dist = typo_distance(typed, names[i]);

		/* One edit for a word of up to four letters, two for a longer one. */
		if (dist <= (strlen(typed) <= 4 ? 1 : 2) && dist < bestd) {
			best = names[i];
			bestd = dist;
		}
		if (strlen(typed) >= 3 && words_in(typed, names[i]) && nholds++ == 0)
			holds = names[i];
	}
	/* Failing a typo, the one name that holds what was typed (two would be a guess). */
	return best != NULL ? best : nholds == 1 ? holds : NULL;
}
