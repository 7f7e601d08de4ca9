/*
 * bundle-files.h: what writing a bundle (bundle-write.c) and verifying one
 * (bundle.c) share: a list of the bundle's file names, kept sorted for
 * lookups, and the names of the signed list and its signature. Private to
 * the report's room.
 */
#ifndef AIVET_BUNDLE_FILES_H
#define AIVET_BUNDLE_FILES_H

#include <stddef.h>
#include <openssl/evp.h>

struct names {
	char **v;
	size_t n, cap;
};

void bundle_names_add(struct names *ns, const char *s);
void bundle_names_free(struct names *ns);
/* strcmp for qsort and bsearch over an array of char *. */
int bundle_str_cmp(const void *a, const void *b);
/* SHA-256 of the files below one directory, each opened relative to it. */
struct hasher {
	int dirfd;
	unsigned char *buf;
	EVP_MD *md;
	EVP_MD_CTX *ctx;
};

/* 0, or -1 when DIR cannot be opened. */
int hasher_open(struct hasher *hs, const char *dir);
void hasher_close(struct hasher *hs);
/* SHA-256 as hex of the regular file REL below the directory; -1 when it
 * cannot be read or is not a regular file (a link or a FIFO is refused). */
int sha256_at(const struct hasher *hs, const char *rel, char out[65]);

/* The signature's trusted comment: the report id, its time and the audit
 * checkpoint, bound to SHA256SUMS (bundle.c). */
char *bundle_trusted_comment(const char *report_id, const char *generated_at, long long audit_entries,
    const char *audit_head);

#endif
