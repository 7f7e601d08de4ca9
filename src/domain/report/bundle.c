/*
 * bundle.c: the signed report bundle on disk. Writing: report.json, its
 * HTML, Markdown and OSCAL renderings, evidence/, aivet.pub and VERIFY.txt,
 * then SHA256SUMS over all of them (sha256sum -c format) and its minisign
 * signature whose trusted comment binds the report id, its time and the
 * audit checkpoint. Verifying: the signature, every hash, no missing or
 * extra file, and report.json's structure and bindings, each problem named.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "rating.h"
#include "report.h"

#define SUMS "SHA256SUMS"
#define SUMS_SIG "SHA256SUMS.minisig"
#define SUMS_MAX ((size_t)16 << 20)
#define REPORT_JSON_MAX ((size_t)512 << 20)

/* The files every bundle has besides evidence/ (SHA256SUMS and its signature aside). */
static const char *const fixed_files[] = { "report.json", "report.html", "report.md",
	"oscal-assessment-results.json", "aivet.pub", "VERIFY.txt", NULL };

/* SHA-256 of a file as hex, as SHA256SUMS lists it. */
static int
sha256_file(const char *path, char out[65], struct aerr *err)
{
	unsigned char h[crypto_hash_sha256_BYTES];

	if (file_digest(path, DIGEST_SHA256, h, err) != 0)
		return err->code;
	hex_encode(h, sizeof h, out);
	return 0;
}

/* Verifying a bundle of many small files: each is opened relative to the bundle's
 * directory, opened once, and read into one buffer for all, so a file costs
 * little more than hashing it does (an open, an fstat, its reads and a close). */
#define HASH_CHUNK ((size_t)1 << 16)
/* The files are hashed with OpenSSL's SHA-256 (linked for the time-stamps),
 * which uses the processor's SHA instructions where it has them: a bundle of
 * 80,000 small files spent two fifths of verify in libsodium's portable one. */
struct hasher {
	int dirfd;
	unsigned char *buf;
	EVP_MD *md;
	EVP_MD_CTX *ctx;
};

static int
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

static void
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
static int
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

struct names {
	char **v;
	size_t n, cap;
};

static void
names_add(struct names *ns, const char *s)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->v = xrealloc(ns->v, ns->cap * sizeof *ns->v);
	}
	ns->v[ns->n++] = xstrdup(s);
}

static void
names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->cap = 0;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* qsort, unless the array is in order already (as the lists aivet writes are):
 * then one pass of comparisons instead of a sort's n log n. */
static void
sort_once(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = base;

	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0) {
			qsort(base, n, size, cmp);
			return;
		}
}

/* ns must be sorted (str_cmp). */
static int
names_has(const struct names *ns, const char *s)
{
	return ns->n > 0 && bsearch(&s, ns->v, ns->n, sizeof *ns->v, str_cmp) != NULL;
}

static const char *
jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
put(const char *root, const char *rel, const void *data, size_t len, struct names *written,
    struct aerr *err)
{
	int rc = write_file_below(root, rel, data, len, 0644, err);

	if (rc == 0 && written != NULL)
		names_add(written, rel);
	return rc;
}

/* VERIFY.txt on approvals/: what each statement binds, the stock minisign
 * command for each with the reviewer's own key, and the rounds approved
 * without a signature. */
static void
approvals_text(struct buf *b, const cJSON *rep)
{
	const cJSON *a;
	int head = 0, self = 0;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(rep, "assessments")) {
		const cJSON *o = cJSON_GetObjectItem(a, "approval_signature");
		const char *st = jstr(a, "status"), *who = jstr(a, "reviewer") ? jstr(a, "reviewer") : "?";
		long long id = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(a, "id"));

		if (o == NULL && (st == NULL || strcmp(st, "final") != 0))
			continue;
		if (!head++)
			buf_adds(b, "\nApprovals\n=========\n\n"
			    "approvals/ holds, for each approved round whose approval was signed, the\n"
			    "statement the reviewer signed (approvals/assessment-ID.txt: the round, its\n"
			    "vendor, the SHA-256 of its questionnaire and of the answers as report.json\n"
			    "shows them, who approved and when) and its minisign signature (.minisig).\n"
			    "The signature is the reviewer's own, not the report signer's: check it with\n"
			    "the reviewer's public key as you obtained it from the reviewer, never with\n"
			    "the registered_public_key report.json names (the report signer writes it).\n"
			    "An audit checkpoint you already hold ('aivet audit checkpoint'), once it\n"
			    "verifies with a key you trust (minisign -Vm CHECKPOINT -P \"$KEY\"), gives\n"
			    "each key registered by its position: reviewer_keys[].public_key of the person.\n"
			    "With REVIEWER_KEY set to that key, in this directory:\n\n");
		if (o == NULL) {
			buf_printf(b, "    # assessment %lld: approved by %s, signature missing: nothing here\n"
			    "    # proves who approved it\n", id, who);
			continue;
		}
		buf_printf(b, "    minisign -Vm %s -P \"$REVIEWER_KEY\"   # assessment %lld, %s, key id %s\n",
		    jstr(o, "statement_file") ? jstr(o, "statement_file") : "?", id, who,
		    jstr(o, "key_id") ? jstr(o, "key_id") : "?");
		self |= jstr(o, "names") != NULL && strcmp(jstr(o, "names"), APPROVAL_NAMES_SELF) == 0;
	}
	if (!head)
		return;
	buf_adds(b, "\nWith aivet: 'aivet key trust --reviewer NAME FILE' once for each reviewer\n"
	    "(FILE: their public key), or 'aivet key trust --reviewer NAME CHECKPOINT'\n"
	    "(the key registered to NAME that a checkpoint signed by a key you trust\n"
	    "records), then 'aivet verify DIR' checks each signature with\n"
	    "that key, and recomputes the content hash from report.json and compares the\n"
	    "round, vendor, reviewer and time; an approval signed with a key you have not\n"
	    "trusted for its reviewer is \"signed by a key this verifier does not trust\",\n"
	    "a final round without a signature \"approved, signature missing\".\n");
	if (self)
		buf_adds(b, "\nThe reviewers' names here are self-declared: the database is SQLite, where\n"
		    "anyone can type any name. A name means only \"the holder of the key registered\n"
		    "to it\"; that is why the reviewer's key must come from the reviewer.\n");
}

static void
verify_text(struct buf *b, const cJSON *rep, const char *keyid, const char *pubkey)
{
	const cJSON *id = cJSON_GetObjectItem(rep, "report_id"), *at = cJSON_GetObjectItem(rep,
	    "generated_at");

	buf_printf(b,
	    "How to verify this report bundle\n"
	    "================================\n"
	    "\n"
	    "This directory is a signed aivet report bundle: report %s, generated %s.\n"
	    "It is signed with this Ed25519 public key (minisign format, key id %s):\n"
	    "\n"
	    "    %s\n"
	    "\n"
	    "Compare that whole key, every character, with the signer's public key as the\n"
	    "organisation gave it to you through another channel (not from this directory).\n"
	    "aivet.pub here is only the key the bundle claims: whoever edits the bundle can\n"
	    "replace it and sign again, with a new key that even carries the same key id.\n"
	    "Verify with the key you obtained, never with aivet.pub; below it is PUBKEY.\n"
	    "\n"
	    "1. With minisign and coreutils, in this directory:\n"
	    "\n"
	    "    minisign -Vm SHA256SUMS -P \"$PUBKEY\"\n"
	    "    sha256sum -c SHA256SUMS\n"
	    "\n"
	    "The first checks the signature on the list of hashes and prints the trusted\n"
	    "comment, which binds the report id, its time and the audit-log checkpoint\n"
	    "(entry count and head hash) to the signature. The second checks every file\n"
	    "against the list. Both must succeed, and no file other than those listed,\n"
	    "SHA256SUMS and SHA256SUMS.minisig may be present%s. With aivet, once:\n"
	    "'aivet key trust FILE' (FILE: the public key you obtained), then\n"
	    "'aivet verify DIR' does all of this and checks the structure of report.json;\n"
	    "'aivet audit verify --against DIR' checks a database against this bundle.\n"
	    "\n"
	    "2. Without minisign, with OpenSSL 3 and a POSIX shell: set PUBKEY to the public\n"
	    "key you obtained and run these lines from this directory (they work in a\n"
	    "scratch directory and only read the bundle); each 'openssl pkeyutl' must print\n"
	    "'Signature Verified Successfully' and the last loop must print nothing.\n"
	    "\n"
	    "    B=${B:-$(pwd)}\n"
	    "    cd \"$(mktemp -d)\"\n"
	    "    printf '%%s\\n' \"${PUBKEY:?set PUBKEY to the public key obtained out of band}\" | openssl base64 -d -A | tail -c 32 > pk.raw\n"
	    "    { printf '\\060\\052\\060\\005\\006\\003\\053\\145\\160\\003\\041\\000'; cat pk.raw; } > pk.der\n"
	    "    sed -n 2p \"$B/SHA256SUMS.minisig\" | openssl base64 -d -A | tail -c 64 > sig.raw\n"
	    "    openssl dgst -blake2b512 -binary \"$B/SHA256SUMS\" > digest.raw\n"
	    "    openssl pkeyutl -verify -pubin -keyform DER -inkey pk.der -rawin -in digest.raw -sigfile sig.raw\n"
	    "    { cat sig.raw; sed -n 3p \"$B/SHA256SUMS.minisig\" | sed 's/^trusted comment: //' | tr -d '\\n'; } > global.raw\n"
	    "    sed -n 4p \"$B/SHA256SUMS.minisig\" | openssl base64 -d -A > gsig.raw\n"
	    "    openssl pkeyutl -verify -pubin -keyform DER -inkey pk.der -rawin -in global.raw -sigfile gsig.raw\n"
	    "    while read -r h f; do [ \"$(openssl dgst -sha256 -r \"$B/$f\" | cut -d' ' -f1)\" = \"$h\" ] || echo \"MISMATCH $f\"; done < \"$B/SHA256SUMS\"\n"
	    "\n"
	    "The DER prefix 302a300506032b6570032100 wraps the 32-byte Ed25519 public key\n"
	    "(the last 32 bytes of the decoded minisign key). The signature is minisign's\n"
	    "prehashed form: Ed25519 over the BLAKE2b-512 digest of SHA256SUMS; the global\n"
	    "signature covers the first signature followed by the trusted comment.\n",
	    cJSON_IsString(id) ? id->valuestring : "?", cJSON_IsString(at) ? at->valuestring : "?", keyid,
	    pubkey, json_get_str(cJSON_GetObjectItem(rep, "time_stamp"), "tsa_url") == NULL ? "" :
	    "\n(and the time-stamp's SHA256SUMS.tsr, SHA256SUMS.tsa.pem and TIMESTAMP.txt,\n"
	    "made after signing: see 3.)");
	if (json_get_str(cJSON_GetObjectItem(rep, "time_stamp"), "tsa_url") != NULL)
		tsa_verify_recipe(b, json_get_str(cJSON_GetObjectItem(rep, "time_stamp"), "tsa_url"));
	approvals_text(b, rep);
	rejudge_verify_text(b);
}

static char *
trusted_comment(const cJSON *rep)
{
	const cJSON *cp = cJSON_GetObjectItem(rep, "audit_checkpoint");

	return xasprintf("aivet-report:%s\tgenerated_at:%s\taudit_entries:%lld\taudit_head:%s\tfile:%s",
	    cJSON_GetObjectItem(rep, "report_id")->valuestring,
	    cJSON_GetObjectItem(rep, "generated_at")->valuestring,
	    (long long)cJSON_GetObjectItem(cp, "entries")->valuedouble,
	    cJSON_GetObjectItem(cp, "head")->valuestring, SUMS);
}

static int
dir_is_empty_or_absent(const char *dir, struct aerr *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (d == NULL) {
		if (errno == ENOENT)
			return 0;
		return aerr_set(err, AV_USAGE, "--out %s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty ? 0 : aerr_set(err, AV_USAGE, "--out %s: exists and is not empty", dir);
}

int
bundle_write(const char *dir, const struct report *r, const struct minisign_sec *sec,
    char sums_sha256[65], struct aerr *err)
{
	struct names written = { 0 };
	struct minisign_pub pub;
	struct buf b, sums, sig;
	char *tmp, *text, keyid[MINISIGN_KEYID_LEN + 1], *tc, *path;
	cJSON *oscal;
	int rc;

	if (dir_is_empty_or_absent(dir, err) != 0)
		return err->code;
	/* Everything is written beside the target first, so a failure leaves nothing behind. */
	if (outdir_begin(dir, &tmp, err) != 0)
		return err->code;
	minisign_sec_to_pub(sec, &pub);
	minisign_keyid(pub.keynum, keyid);
	text = report_json_text(r->json);
	rc = put(tmp, "report.json", text, strlen(text), &written, err);
	free(text);
	if (rc == 0) {
		text = report_html(r);
		rc = put(tmp, "report.html", text, strlen(text), &written, err);
		free(text);
	}
	if (rc == 0) {
		text = report_markdown(r);
		rc = put(tmp, "report.md", text, strlen(text), &written, err);
		free(text);
	}
	if (rc == 0) {
		oscal = report_oscal(r);
		text = report_json_text(oscal);
		cJSON_Delete(oscal);
		rc = put(tmp, "oscal-assessment-results.json", text, strlen(text), &written, err);
		free(text);
	}
	for (size_t i = 0; rc == 0 && i < r->nfiles; i++)
		rc = put(tmp, r->files[i].path, r->files[i].data.data, r->files[i].data.len, &written, err);
	if (rc == 0) {
		buf_init(&b);
		minisign_pubkey_format(&pub, &b);
		rc = put(tmp, "aivet.pub", b.data, b.len, &written, err);
		buf_free(&b);
	}
	if (rc == 0) {
		struct buf line;

		buf_init(&line);
		minisign_pubkey_base64(&pub, &line);
		buf_init(&b);
		verify_text(&b, r->json, keyid, line.data);
		buf_free(&line);
		rc = put(tmp, "VERIFY.txt", b.data, b.len, &written, err);
		buf_free(&b);
	}
	if (rc != 0)
		goto fail;
	qsort(written.v, written.n, sizeof *written.v, str_cmp);
	buf_init(&sums);
	for (size_t i = 0; i < written.n; i++) {
		char h[65];

		path = xasprintf("%s/%s", tmp, written.v[i]);
		rc = sha256_file(path, h, err);
		free(path);
		if (rc != 0) {
			buf_free(&sums);
			goto fail;
		}
		buf_printf(&sums, "%s  %s\n", h, written.v[i]);
	}
	sha256_hex(sums.data, sums.len, sums_sha256);
	rc = put(tmp, SUMS, sums.data, sums.len, NULL, err);
	buf_free(&sums);
	if (rc != 0)
		goto fail;
	tc = trusted_comment(r->json);
	buf_init(&sig);
	path = xasprintf("%s/%s", tmp, SUMS);
	rc = minisign_sign_file(sec, path, tc, &sig, err);
	free(path);
	free(tc);
	if (rc == 0)
		rc = put(tmp, SUMS_SIG, sig.data, sig.len, NULL, err);
	buf_free(&sig);
	/* The time-stamp comes last: it is over SHA256SUMS as signed. */
	if (rc == 0 && r->tsa_url != NULL)
		rc = tsa_stamp_bundle(tmp, r->tsa_url, r->tsa_optional, r->tsa, err);
	if (rc != 0)
		goto fail;
	if ((rc = outdir_commit(tmp, dir, 0755, err)) != 0)
		goto fail;
	names_free(&written);
	free(tmp);
	return 0;
fail:
	outdir_discard(tmp);
	names_free(&written);
	free(tmp);
	return err->code;
}

/* ---- verification ---- */

static void
problem(struct verify_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
problem(struct verify_result *res, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	res->problems = xrealloc(res->problems, (res->nproblems + 1) * sizeof *res->problems);
	res->problems[res->nproblems++] = s;
	res->ok = 0;
}

void
verify_result_free(struct verify_result *res)
{
	for (size_t i = 0; i < res->nproblems; i++)
		free(res->problems[i]);
	free(res->problems);
	res->problems = NULL;
	res->nproblems = 0;
}

/* Every entry under dir, relative; anything but a regular file or directory is a problem. */
static void
walk(const char *root, const char *rel, struct names *out, struct verify_result *res)
{
	char *path = rel[0] ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(path);
	struct dirent *de;

	if (d == NULL) {
		problem(res, "%s: cannot read the directory: %s", rel[0] ? rel : root, strerror(errno));
		free(path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char *r;
		struct stat sb;
		/* The entry's type as the directory gives it (no lstat per file), else lstat. */
		int type = de->d_type == DT_DIR ? S_IFDIR : de->d_type == DT_REG ? S_IFREG :
		    de->d_type == DT_UNKNOWN ? 0 : S_IFLNK;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = rel[0] ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		if (type == 0) {
			char *p = xasprintf("%s/%s", root, r);

			if (lstat(p, &sb) == 0)
				type = (int)(sb.st_mode & S_IFMT);
			else
				problem(res, "%s: %s", r, strerror(errno));
			free(p);
		}
		if (type == S_IFDIR)
			walk(root, r, out, res);
		else if (type == S_IFREG)
			names_add(out, r);
		else if (type != 0)
			problem(res, "%s: not a regular file", r);
		free(r);
	}
	closedir(d);
	free(path);
}

static int
hex64(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int
safe_relpath(const char *p)
{
	if (*p == '\0' || *p == '/' || strstr(p, "//") != NULL || strchr(p, '\\') != NULL)
		return 0;
	for (const char *s = p; s != NULL; s = strchr(s, '/')) {
		if (*s == '/')
			s++;
		if (strncmp(s, "..", 2) == 0 && (s[2] == '/' || s[2] == '\0'))
			return 0;
		if (s[0] == '.' && (s[1] == '/' || s[1] == '\0'))
			return 0;
	}
	return 1;
}

struct sums_entry {
	char hash[65];
	char *path;
	int lineno;
};

/* By path, then by line: a name listed twice sorts next to itself, first line first. */
static int
sums_cmp(const void *a, const void *b)
{
	const struct sums_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : (x->lineno > y->lineno) - (x->lineno < y->lineno);
}

/* e is sorted by path (sums_cmp) and holds each path once. */
static const char *
sums_hash(const struct sums_entry *e, size_t n, const char *path)
{
	struct sums_entry key = { .path = (char *)path, .lineno = 0 };
	size_t lo = 0, hi = n;

	/* The first entry not before key (lineno 0 sorts before every line). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sums_cmp(&e[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(e[lo].path, path) == 0 ? e[lo].hash : NULL;
}

/* Appends "; "-joined text to one of the approval lists of res. */
static void
approval_note(char *list, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
approval_note(char *list, size_t size, const char *fmt, ...)
{
	size_t n = strlen(list);
	va_list ap;

	if (n > 0 && n + 2 < size)
		memcpy(list + n, "; ", 3), n += 2;
	va_start(ap, fmt);
	vsnprintf(list + n, size - n, fmt, ap);
	va_end(ap);
}

/* What report.json says a round approves, its content hash recomputed from
 * the answers it shows (approval_content_sha256, as the signer computed it). */
static void
approval_expect_of(const cJSON *a, struct approval_expect *w, char sha[65], const cJSON *rep)
{
	const cJSON *q = cJSON_GetObjectItem(a, "questionnaire"), *x;
	const cJSON *ver = cJSON_GetObjectItem(q, "version"), *round = cJSON_GetObjectItem(a, "round");
	struct approval_answer *ans;
	size_t n = 0;

	ans = xcalloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(a, "answers")) + 1, sizeof *ans);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(a, "answers"))
		if (jstr(x, "question_id") != NULL && cJSON_GetObjectItem(x, "value") != NULL)
			ans[n++] = (struct approval_answer){ jstr(x, "question_id"),
			    cJSON_PrintUnformatted(cJSON_GetObjectItem(x, "value")), jstr(x, "note") };
	approval_content_sha256(jstr(q, "qid") ? jstr(q, "qid") : "", cJSON_IsNumber(ver) ?
	    (int64_t)ver->valuedouble : 0, jstr(q, "sha256") ? jstr(q, "sha256") : "", ans, n, sha);
	for (size_t i = 0; i < n; i++)
		free(ans[i].value);
	free(ans);
	*w = (struct approval_expect){ .round = cJSON_IsNumber(round) ? (int64_t)round->valuedouble : 0,
	    .vendor = jstr(cJSON_GetObjectItem(rep, "vendor"), "name"), .reviewer = jstr(a, "reviewer"),
	    .approved_at = jstr(a, "approved_at"), .content_sha256 = sha };
}

/* The key an approval is checked with: the reviewer key this verifier trusts
 * (trusted 1), else the key report.json names as registered (trusted 0: it
 * shows the bundle consistent, never who signed). */
static int
approval_key(const cJSON *a, const cJSON *o, struct minisign_pub *key, int *trusted, struct aerr *e)
{
	const char *line = jstr(o, "registered_public_key");
	char *text;
	int rc;

	if (approval_reviewer_key(jstr(a, "reviewer"), key, trusted, e) != 0 || *trusted)
		return e->code;
	text = xasprintf("untrusted comment: the key report.json names\n%s\n", line ? line : "");
	rc = minisign_pubkey_parse(text, strlen(text), "registered key", key, e);
	free(text);
	if (rc != 0)
		return aerr_set(e, AV_FINDINGS, "the key registered to %s is missing or malformed",
		    jstr(a, "reviewer") ? jstr(a, "reviewer") : "the reviewer");
	return 0;
}

/* An approval's signature: both files listed in SHA256SUMS, the statement
 * signed by the reviewer's key as this verifier trusts it, and of this
 * round, vendor, reviewer, time and the answers report.json shows. A final
 * round without a signature, or signed by a key not trusted here, is named,
 * not verified. */
static void
check_approval(const char *dir, const cJSON *rep, const cJSON *a, const struct sums_entry *se,
    size_t ns, struct verify_result *res)
{
	const cJSON *o = cJSON_GetObjectItem(a, "approval_signature");
	const char *sf = jstr(o, "statement_file"), *gf = jstr(o, "signature_file");
	const char *who = jstr(a, "reviewer") ? jstr(a, "reviewer") : "?", *status = jstr(a, "status");
	const cJSON *idv = cJSON_GetObjectItem(a, "id");
	struct approval_expect want;
	struct minisign_pub key = { 0 };
	struct buf st, sg;
	struct aerr e = { 0 };
	char sha[65], kid[MINISIGN_KEYID_LEN + 1], names[64] = "", *p;
	int trusted = 0, legacy = 0;

	if (o == NULL) {
		if (status != NULL && strcmp(status, "final") == 0)
			approval_note(res->approvals_unverified, sizeof res->approvals_unverified,
			    "assessment %lld by %s: approved, signature missing",
			    cJSON_IsNumber(idv) ? (long long)idv->valuedouble : 0, who);
		return;
	}
	approval_expect_of(a, &want, sha, rep);
	want.assessment_id = cJSON_IsNumber(idv) ? (int64_t)idv->valuedouble : 0;
	if (sf == NULL || gf == NULL || !safe_relpath(sf) || !safe_relpath(gf) ||
	    sums_hash(se, ns, sf) == NULL || sums_hash(se, ns, gf) == NULL) {
		problem(res, "report.json: assessment %lld: approval_signature: its statement and "
		    "signature files are not both in SHA256SUMS", (long long)want.assessment_id);
		return;
	}
	buf_init(&st);
	buf_init(&sg);
	p = xasprintf("%s/%s", dir, sf);
	if (read_file(p, 65536, &st, &e) == 0) {
		free(p);
		p = xasprintf("%s/%s", dir, gf);
		if (read_file(p, 65536, &sg, &e) == 0 && approval_key(a, o, &key, &trusted, &e) == 0 &&
		    approval_check(st.data, st.len, sg.data, sg.len, &key, &want, &legacy, &e) == 0)
			approval_statement_field(st.data, "names", names, sizeof names);
	}
	free(p);
	minisign_keyid(key.keynum, kid);
	if (e.code != 0)
		problem(res, "assessment %lld: the approval's signature: %s", (long long)want.assessment_id,
		    e.msg);
	else if (!trusted)
		approval_note(res->approvals_unverified, sizeof res->approvals_unverified, "assessment "
		    "%lld by %s: signed by a key this verifier does not trust (key id %s)",
		    (long long)want.assessment_id, who, kid);
	else if (legacy)
		approval_note(res->approvals_unverified, sizeof res->approvals_unverified, "assessment "
		    "%lld by %s: signed (key id %s) in format 1, whose answers cannot be checked against "
		    "report.json", (long long)want.assessment_id, who, kid);
	else
		approval_note(res->approvals, sizeof res->approvals, "assessment %lld by %s (key id %s%s)",
		    (long long)want.assessment_id, who, kid, strcmp(names, APPROVAL_NAMES_SELF) == 0 ?
		    ", name self-declared" : "");
	buf_free(&st);
	buf_free(&sg);
}

/* report.json's identity: its format, id and times, and the key it names
 * being the key that signed. */
static void
check_report_head(const cJSON *rep, struct verify_result *res)
{
	const char *s;
	int64_t ms;

	if ((s = jstr(rep, "format")) == NULL || strcmp(s, REPORT_FORMAT) != 0)
		problem(res, "report.json: format: want \"%s\"", REPORT_FORMAT);
	if ((s = jstr(rep, "report_id")) == NULL || strlen(s) != 36)
		problem(res, "report.json: report_id: missing or not a UUID");
	else
		snprintf(res->report_id, sizeof res->report_id, "%s", s);
	for (const char *const *k = (const char *const[]){ "generated_at", "retention_until", NULL }; *k; k++)
		if ((s = jstr(rep, *k)) == NULL || parse_time(s, &ms, NULL) != 0)
			problem(res, "report.json: %s: missing or not an ISO 8601 time", *k);
	snprintf(res->generated_at, sizeof res->generated_at, "%s", jstr(rep, "generated_at") ?
	    jstr(rep, "generated_at") : "");
	if ((s = jstr(rep, "signer_key_id")) == NULL)
		problem(res, "report.json: signer_key_id: missing");
	else if (res->key_id[0] != '\0' && strcmp(s, res->key_id) != 0)
		problem(res, "report.json: signer_key_id %s is not the key that signed (%s)", s, res->key_id);
	if ((s = jstr(rep, "signer_public_key")) != NULL && res->signer_public_key[0] != '\0' &&
	    strcmp(s, res->signer_public_key) != 0)
		problem(res, "report.json: signer_public_key is not the key that signed (%s)",
		    res->signer_public_key);
}

/* report.json's parts: an intact audit checkpoint, the vendor, the lists and a known rating. */
static void
check_report_parts(const cJSON *rep, struct verify_result *res)
{
	static const char *const arrays[] = { "endpoints", "assessments", "probe_runs", "claims",
		"findings", "incidents", "evidence_files", NULL };
	const cJSON *cp = cJSON_GetObjectItem(rep, "audit_checkpoint"), *sum;
	const char *s;

	if (!cJSON_IsObject(cp) || !cJSON_IsNumber(cJSON_GetObjectItem(cp, "entries")) ||
	    jstr(cp, "head") == NULL || !hex64(jstr(cp, "head")))
		problem(res, "report.json: audit_checkpoint: want {entries: number, head: 64 hex digits}");
	/* A report of a database that failed its audit is signed, but not sound. */
	else if (!cJSON_IsTrue(cJSON_GetObjectItem(cp, "intact")) || jstr(rep, "audit_failure") != NULL)
		problem(res, "report.json: %s", jstr(rep, "audit_failure") ? jstr(rep, "audit_failure") :
		    "audit_checkpoint.intact is not true: the database failed its audit");
	if (!cJSON_IsObject(cJSON_GetObjectItem(rep, "vendor")) ||
	    jstr(cJSON_GetObjectItem(rep, "vendor"), "name") == NULL)
		problem(res, "report.json: vendor: missing or without a name");
	for (int i = 0; arrays[i] != NULL; i++)
		if (!cJSON_IsArray(cJSON_GetObjectItem(rep, arrays[i])))
			problem(res, "report.json: %s: missing or not an array", arrays[i]);
	sum = cJSON_GetObjectItem(rep, "summary");
	s = cJSON_IsObject(sum) ? jstr(sum, "rating") : NULL;
	if (rating_parse(s) < 0)
		problem(res, "report.json: summary.rating: missing or unknown");
}

/* Evidence: every file listed in report.json is in SHA256SUMS with the same hash,
 * and every evidence/ file in SHA256SUMS is listed. */
static void
check_report_evidence(const cJSON *rep, const struct sums_entry *se, size_t ns,
    struct verify_result *res)
{
	struct names cited = { 0 };
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, "evidence_files")) {
		const char *p = jstr(f, "path"), *h = jstr(f, "sha256"), *sh;

		if (p == NULL || h == NULL) {
			problem(res, "report.json: evidence_files: an entry without path or sha256");
			continue;
		}
		if ((sh = sums_hash(se, ns, p)) == NULL)
			problem(res, "%s: listed in report.json but not in SHA256SUMS", p);
		else if (strcmp(sh, h) != 0)
			problem(res, "%s: report.json and SHA256SUMS give different SHA-256", p);
	}
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, "evidence_files"))
		if (jstr(f, "path") != NULL)
			names_add(&cited, jstr(f, "path"));
	if (cited.n > 0)
		sort_once(cited.v, cited.n, sizeof *cited.v, str_cmp);
	for (size_t i = 0; i < ns; i++)
		if (strncmp(se[i].path, "evidence/", 9) == 0 && !names_has(&cited, se[i].path))
			problem(res, "%s: in SHA256SUMS but not cited by report.json", se[i].path);
	names_free(&cited);
}

/* Each probe run's exchanges: held by the bundle with the hash the report gives. */
static void
check_report_exchanges(const cJSON *rep, const struct sums_entry *se, size_t ns,
    struct verify_result *res)
{
	const cJSON *run, *ex;

	cJSON_ArrayForEach(run, cJSON_GetObjectItem(rep, "probe_runs"))
		cJSON_ArrayForEach(ex, cJSON_GetObjectItem(run, "exchanges")) {
			const char *p = jstr(ex, "file"), *h = jstr(ex, "file_sha256"), *sh;

			if (p == NULL || (sh = sums_hash(se, ns, p)) == NULL || h == NULL || strcmp(sh, h) != 0)
				problem(res, "report.json: probe run %d cites exchange evidence %s that the "
				    "bundle does not hold with that hash", cJSON_GetObjectItem(run, "id") ?
				    cJSON_GetObjectItem(run, "id")->valueint : 0, p ? p : "(none)");
		}
}

/* The structural rules of report.json and its bindings to the signature and the list. */
static void
check_report(const char *dir, const char *tc, const struct sums_entry *se, size_t ns,
    struct verify_result *res)
{
	char *path = xasprintf("%s/report.json", dir), *want_tc;
	struct buf b;
	struct aerr e = { 0 };
	cJSON *rep, *f;
	size_t before = res->nproblems;

	if (read_file(path, REPORT_JSON_MAX, &b, &e) != 0) {
		free(path);
		return;   /* already reported as missing */
	}
	free(path);
	rep = cJSON_ParseWithLength(b.data, b.len);
	buf_free(&b);
	if (!cJSON_IsObject(rep)) {
		problem(res, "report.json: not a JSON object");
		cJSON_Delete(rep);
		return;
	}
	check_report_head(rep, res);
	check_report_parts(rep, res);
	/* The trusted comment binds report id, time and audit checkpoint. */
	if (res->nproblems == before && tc != NULL) {
		want_tc = trusted_comment(rep);
		if (strcmp(want_tc, tc) != 0)
			problem(res, "report.json: does not match the signed trusted comment "
			    "(report id, generated_at or audit checkpoint differ)");
		free(want_tc);
	}
	check_report_evidence(rep, se, ns, res);
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, "assessments"))
		check_approval(dir, rep, f, se, ns, res);
	check_report_exchanges(rep, se, ns, res);
	cJSON_Delete(rep);
}

static void
trust_label(const char *source, const char *name, char *out, size_t n)
{
	if (strcmp(source, "own-key") == 0)
		snprintf(out, n, "own key '%s'", name);
	else if (strcmp(source, "trusted-key") == 0)
		snprintf(out, n, "trusted key '%s'", name);
	else
		snprintf(out, n, "--%s %s", source, name);
}

void
verify_trust_label(const struct verify_result *res, char *out, size_t n)
{
	if (!res->signer_trusted)
		snprintf(out, n, "not trusted");
	else
		trust_label(res->trust_source, res->trust_name, out, n);
}

/* The signature sig_path (named sig_name) over data_path (data_name), and whether its
 * signer is trusted; claimed is the key the signed material says it is from (a bundle's
 * aivet.pub), or NULL. Returns the trusted comment (caller frees) when the signature
 * itself is good, else NULL; every problem goes to res. */
static char *
check_signature(const char *data_path, const char *data_name, const char *sig_path,
    const char *sig_name, const struct minisign_pub *claimed, const char *claimed_name,
    const struct minisign_pub *given, const char *given_source, const char *given_name,
    struct verify_result *res)
{
	struct minisign_pub expect;
	struct keyring_key *ring = NULL;
	const struct keyring_key *known = NULL;
	size_t nring = 0;
	struct buf b, line;
	struct aerr e = { 0 };
	unsigned char keynum[MINISIGN_KEYNUM_BYTES];
	char *tc = NULL;
	int have_expect = 0;

	if (read_file(sig_path, 8192, &b, &e) != 0) {
		problem(res, "%s: missing or unreadable", sig_name);
		return NULL;
	}
	if (given != NULL) {
		expect = *given;
		have_expect = 1;
	} else if (minisign_sig_keynum(b.data, b.len, sig_name, keynum, &e) == 0) {
		/* The signature names a key id; only the keyring's key with that id is trusted. */
		keyring_load(&ring, &nring);
		if ((known = keyring_find_id(ring, nring, keynum)) != NULL) {
			expect = known->pub;
			have_expect = 1;
		}
	}
	if (!have_expect && claimed == NULL) {
		aerr_clear(&e);
		if (given == NULL && minisign_sig_keynum(b.data, b.len, sig_name, keynum, &e) != 0)
			problem(res, "%s", e.msg);
		else
			problem(res, "%s: missing or not a public key, and no trusted key has the "
			    "signature's key id", claimed_name);
		goto out;
	}
	tc = xmalloc(MINISIGN_COMMENT_MAX + 1);
	aerr_clear(&e);
	if (access(data_path, F_OK) != 0) {
		problem(res, "%s: missing", data_name);
	} else if (minisign_verify_file(have_expect ? &expect : claimed, data_path, b.data, b.len, sig_name,
	    tc, &e) != 0) {
		/* Same key id as the trusted key, other key bytes: made to pass for it. */
		if (have_expect && claimed != NULL && memcmp(claimed->keynum, expect.keynum,
		    MINISIGN_KEYNUM_BYTES) == 0 && !minisign_pub_equal(claimed, &expect) &&
		    minisign_verify_file(claimed, data_path, b.data, b.len, sig_name, NULL, &e) == 0) {
			struct buf theirs;
			char id[MINISIGN_KEYID_LEN + 1], label[1100];

			buf_init(&line);
			buf_init(&theirs);
			minisign_pubkey_base64(&expect, &line);
			minisign_pubkey_base64(claimed, &theirs);
			minisign_keyid(expect.keynum, id);
			trust_label(given != NULL ? given_source : known->own ? "own-key" : "trusted-key",
			    given != NULL ? given_name : known->name, label, sizeof label);
			problem(res, "FORGERY: signed by key %s, which claims key id %s but is not the "
			    "trusted key with that id (%s: %s)", theirs.data, id, label, line.data);
			buf_free(&line);
			buf_free(&theirs);
		} else {
			problem(res, "%s", e.msg);
		}
	} else {
		const struct minisign_pub *signer = have_expect ? &expect : claimed;

		minisign_keyid(signer->keynum, res->key_id);
		snprintf(res->trusted_comment, sizeof res->trusted_comment, "%s", tc);
		buf_init(&line);
		minisign_pubkey_base64(signer, &line);
		snprintf(res->signer_public_key, sizeof res->signer_public_key, "%s", line.data);
		buf_free(&line);
		if (have_expect) {
			res->signer_trusted = 1;
			snprintf(res->trust_source, sizeof res->trust_source, "%s", given != NULL ?
			    given_source : known->own ? "own-key" : "trusted-key");
			snprintf(res->trust_name, sizeof res->trust_name, "%s", given != NULL ? given_name :
			    known->name);
			if (claimed != NULL && !minisign_pub_equal(claimed, &expect))
				problem(res, "%s: not the key that signed %s", claimed_name, data_name);
		} else {
			problem(res, "signature valid, signer not trusted: %s", res->signer_public_key);
		}
		keyring_free(ring, nring);
		buf_free(&b);
		return tc;
	}
out:
	free(tc);
	keyring_free(ring, nring);
	buf_free(&b);
	return NULL;
}

int
signed_file_verify(const char *path, const struct minisign_pub *claimed, const struct minisign_pub *given,
    const char *given_source, const char *given_name, struct verify_result *res)
{
	char *sig = xasprintf("%s.minisig", path), *tc;

	memset(res, 0, sizeof *res);
	res->ok = 1;
	tc = check_signature(path, path, sig, sig, claimed, "the claimed signer", given, given_source,
	    given_name, res);
	free(sig);
	free(tc);
	return 0;
}

/* A sorted list with each name once: a name listed twice is a problem, kept once. */
static size_t
sums_dedupe(struct sums_entry *se, size_t ns, struct verify_result *res)
{
	size_t kept = 0;

	for (size_t i = 0; i < ns; i++) {
		if (kept > 0 && strcmp(se[kept - 1].path, se[i].path) == 0) {
			problem(res, "%s: line %d: %s listed twice or not allowed", SUMS, se[i].lineno,
			    se[i].path);
			free(se[i].path);
			continue;
		}
		se[kept++] = se[i];
	}
	return kept;
}

/* Step 1, with the bundle's aivet.pub as the key it claims: the signed
 * trusted comment, or NULL when the signature does not verify. */
static char *
verify_sums_signature(const char *dir, const struct minisign_pub *given, const char *given_source,
    const char *given_name, struct verify_result *res)
{
	struct minisign_pub bundled;
	int have_bundled = 0;
	char *sums_path = xasprintf("%s/%s", dir, SUMS), *sig_path = xasprintf("%s/%s", dir, SUMS_SIG);
	char *path = xasprintf("%s/aivet.pub", dir), *tc;
	struct aerr e = { 0 };
	struct buf b;

	if (read_file(path, 4096, &b, &e) == 0) {
		have_bundled = minisign_pubkey_parse(b.data, b.len, "aivet.pub", &bundled, &e) == 0;
		buf_free(&b);
	}
	free(path);
	tc = check_signature(sums_path, SUMS, sig_path, SUMS_SIG, have_bundled ? &bundled : NULL,
	    "aivet.pub", given, given_source, given_name, res);
	free(sums_path);
	free(sig_path);
	return tc;
}

/* Step 2, the list: SHA256SUMS in its strict format ('<sha256>  <file>' a line),
 * safe names, neither of its own two files. The entries, sorted by path and
 * each path once, in *out; their number returned. */
static size_t
read_sums(const char *dir, int sig_ok, struct sums_entry **out, struct verify_result *res)
{
	char *path = xasprintf("%s/%s", dir, SUMS);
	struct sums_entry *se = NULL;
	size_t ns = 0, cap = 0;
	struct aerr e = { 0 };
	struct buf b;

	if (read_file(path, SUMS_MAX, &b, &e) == 0) {
		char *line = b.data, *nl;
		int lineno = 0;

		for (; *line != '\0'; line = nl + 1) {
			char *name;

			lineno++;
			if ((nl = strchr(line, '\n')) == NULL) {
				problem(res, "%s: line %d: no newline at the end", SUMS, lineno);
				break;
			}
			*nl = '\0';
			if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ') {
				problem(res, "%s: line %d: want '<sha256>  <file>'", SUMS, lineno);
				continue;
			}
			line[64] = '\0';
			name = line + 66;
			if (!hex64(line) || !safe_relpath(name)) {
				problem(res, "%s: line %d: bad hash or file name", SUMS, lineno);
				continue;
			}
			if (strcmp(name, SUMS) == 0 || strcmp(name, SUMS_SIG) == 0) {
				problem(res, "%s: line %d: %s listed twice or not allowed", SUMS, lineno, name);
				continue;
			}
			if (ns == cap) {
				cap = cap ? 2 * cap : 64;
				se = xrealloc(se, cap * sizeof *se);
			}
			memcpy(se[ns].hash, line, 65);
			se[ns].lineno = lineno;
			se[ns++].path = xstrdup(name);
		}
		buf_free(&b);
		/* Sorted once, every later lookup is a binary search: O(n log n) in all. */
		if (ns > 0)
			sort_once(se, ns, sizeof *se, sums_cmp);
		ns = sums_dedupe(se, ns, res);
	} else if (sig_ok || access(path, F_OK) == 0) {
		problem(res, "%s: unreadable", SUMS);
	}
	free(path);
	*out = se;
	return ns;
}

/* Step 2, the files: every listed file present, with its hash. present (by
 * value: the sorted names found) and the list in the same order: each listed
 * file, when present, is at a cursor that only moves forward (no search per file). */
static void
check_listed(const char *dir, const struct sums_entry *se, size_t ns, struct names present,
    struct verify_result *res)
{
	struct hasher hs;

	if (hasher_open(&hs, dir) != 0)
		problem(res, "%s: cannot open the directory: %s", dir, strerror(errno));
	for (size_t i = 0, j = 0; i < ns; i++) {
		char h[65];

		while (j < present.n && strcmp(present.v[j], se[i].path) < 0)
			j++;
		if (j == present.n || strcmp(present.v[j], se[i].path) != 0) {
			problem(res, "%s: missing (listed in %s)", se[i].path, SUMS);
			continue;
		}
		if (hs.dirfd < 0 || sha256_at(&hs, se[i].path, h) != 0)
			problem(res, "%s: unreadable", se[i].path);
		else if (strcmp(h, se[i].hash) != 0)
			problem(res, "%s: SHA-256 does not match %s", se[i].path, SUMS);
		else
			res->files_checked++;
	}
	hasher_close(&hs);
}

/* Step 2, the rest: no file present that the list leaves out (bar the list,
 * its signature and the time-stamp's files), and none of the fixed files
 * missing. present by value, as in check_listed. */
static void
check_unlisted(const struct sums_entry *se, size_t ns, struct names present,
    struct verify_result *res)
{
	for (size_t i = 0, j = 0; i < present.n; i++) {
		while (j < ns && strcmp(se[j].path, present.v[i]) < 0)
			j++;
		if ((j == ns || strcmp(se[j].path, present.v[i]) != 0) && strcmp(present.v[i], SUMS) != 0 &&
		    strcmp(present.v[i], SUMS_SIG) != 0 && !tsa_bundle_file(present.v[i]))
			problem(res, "%s: extra file, not listed in %s", present.v[i], SUMS);
	}
	for (int i = 0; fixed_files[i] != NULL; i++)
		if (ns > 0 && sums_hash(se, ns, fixed_files[i]) == NULL && names_has(&present, fixed_files[i]) == 0)
			problem(res, "%s: missing from the bundle", fixed_files[i]);
}

/* Step 4: what the time-stamp token and TIMESTAMP.txt say, a problem if wrong. */
static void
check_timestamp(const char *dir, const char *tsa_cert, struct verify_result *res)
{
	char *why = tsa_bundle_check(dir, tsa_cert, &res->tsa);

	if (why != NULL)
		problem(res, "%s", why);
	free(why);
}

int
bundle_verify(const char *dir, const struct minisign_pub *given, const char *given_source,
    const char *given_name, const char *tsa_cert, struct verify_result *res, struct aerr *err)
{
	struct names present = { 0 };
	struct sums_entry *se = NULL;
	size_t ns, nbefore;
	struct stat sb;
	char *tc;

	memset(res, 0, sizeof *res);
	res->ok = 1;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return aerr_set(err, AV_USAGE, "%s: not a directory", dir);

	/* 1. The signature over SHA256SUMS, by a trusted key. */
	tc = verify_sums_signature(dir, given, given_source, given_name, res);
	res->signature_ok = res->nproblems == 0;
	nbefore = res->nproblems;

	/* 2. SHA256SUMS: strict format, safe names, every hash. */
	ns = read_sums(dir, tc != NULL, &se, res);
	walk(dir, "", &present, res);
	sort_once(present.v, present.n, sizeof *present.v, str_cmp);
	check_listed(dir, se, ns, present, res);
	check_unlisted(se, ns, present, res);
	res->hashes_ok = res->nproblems == nbefore;
	nbefore = res->nproblems;

	/* 3. report.json: a signed list without it vouches for nothing. */
	if (sums_hash(se, ns, "report.json") == NULL)
		problem(res, "report.json: not listed in %s: a bundle without its report never verifies", SUMS);
	else if (names_has(&present, "report.json"))
		check_report(dir, tc, se, ns, res);
	res->report_ok = res->nproblems == nbefore;

	/* 4. The time-stamp token over SHA256SUMS, and what TIMESTAMP.txt says of it. */
	check_timestamp(dir, tsa_cert, res);
	for (size_t i = 0; i < ns; i++)
		free(se[i].path);
	free(se);
	names_free(&present);
	free(tc);
	return 0;
}

const char *
verify_part_word(int ok)
{
	return ok ? "verified" : "failed";
}

const char *
verify_time_word(const struct verify_result *res)
{
	if (res->tsa.attested)
		return "attested";
	if (!res->tsa.requested)
		return "none";
	return res->tsa.untrusted ? "not verified" : "failed";
}

void
verify_result_text(const char *dir, const struct verify_result *res, struct buf *out)
{
	if (res->ok) {
		char why[1100];

		verify_trust_label(res, why, sizeof why);
		/* A token whose TSA is not trusted leaves the rest verified: said so, not failed. */
		if (res->tsa.requested && !res->tsa.attested)
			buf_printf(out, "bundle %s: signature and hashes verified; time not verified\n", dir);
		else
			buf_printf(out, "bundle %s verified\n", dir);
		buf_printf(out, "  signature    good, key id %s\n", res->key_id);
		buf_printf(out, "  signer       %s\n", res->signer_public_key);
		buf_printf(out, "  trusted as   %s\n", why);
		buf_printf(out, "  report       %s\n", res->report_id);
		buf_printf(out, "  files        %zu match SHA256SUMS, none missing or extra\n",
		    res->files_checked);
		buf_printf(out, "  generated    %s (as the signer says)\n  time-stamp   ", res->generated_at);
		tsa_status_words(&res->tsa, out);
		buf_adds(out, "\n");
		if (res->approvals[0])
			buf_printf(out, "  approvals    signed: %s\n", res->approvals);
		if (res->approvals_unverified[0])
			buf_printf(out, "  approvals    not verified: %s\n", res->approvals_unverified);
		return;
	}
	buf_printf(out, "bundle %s FAILED verification\n", dir);
	buf_printf(out, "  parts        signature %s, hashes %s, report %s, time-stamp %s\n",
	    verify_part_word(res->signature_ok), verify_part_word(res->hashes_ok),
	    verify_part_word(res->report_ok), verify_time_word(res));
	for (size_t i = 0; i < res->nproblems; i++)
		buf_printf(out, "  %s\n", res->problems[i]);
	if (res->signer_public_key[0] != '\0' && !res->signer_trusted)
		buf_printf(out, "Compare that key with the signer's public key obtained out of band (not "
		    "from the bundle); if they are the same, 'aivet key trust FILE' or 'aivet verify DIR "
		    "--pubkey FILE'.\n");
}
