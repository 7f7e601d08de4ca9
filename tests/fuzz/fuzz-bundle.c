/*
 * fuzz-bundle.c: `aivet verify`'s bundle reader (bundle_verify) on bundles
 * an adversary assembled. The input is a directory written as sections
 * "--- NAME\n" followed by that file's bytes (see bundle-pack in this
 * directory for making seeds from a real bundle); names are kept to a safe
 * alphabet so the target writes only inside its scratch directory. Verify
 * must never crash, and says ok exactly when it lists no problem.
 */
#include "config.h"

#include <ftw.h>
#include <string.h>
#include <sys/stat.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "report.h"
#include "fuzz.h"

static const char *root;

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static int
safe_name(const char *s, size_t n)
{
	int depth = 0;

	if (n == 0 || n > 64 || s[0] == '/' || s[n - 1] == '/')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '/') {
			if (++depth > 2 || s[i + 1] == '/')
				return 0;
		} else if (!(c == '.' || c == '-' || c == '_' || (c >= '0' && c <= '9') ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			return 0;
		}
	}
	return strstr(s, "..") == NULL;
}

static void
write_one(const char *name, const uint8_t *data, size_t n)
{
	char *path = xasprintf("%s/%s", root, name), *slash;

	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	fuzz_write_file(path, data, n);
	free(path);
}

FUZZ_TARGET(bundle)
{
	struct verify_result res;
	struct aerr err = { 0 };
	const uint8_t *p = data, *end = data + size;

	if (root == NULL)
		root = fuzz_tmpdir("bundle");
	nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	/* Sections: "--- NAME\n" then bytes up to the next "\n--- " or the end. */
	while (end - p >= 5 && memcmp(p, "--- ", 4) == 0) {
		const uint8_t *nl = memchr(p + 4, '\n', (size_t)(end - p - 4)), *next, *body;
		char name[80];
		size_t nlen;

		if (nl == NULL)
			break;
		nlen = (size_t)(nl - (p + 4));
		body = nl + 1;
		next = body;
		while (next < end && !(end - next >= 5 && next[0] == '\n' && memcmp(next + 1, "--- ", 4) == 0))
			next++;
		if (nlen < sizeof name) {
			memcpy(name, p + 4, nlen);
			name[nlen] = '\0';
			if (safe_name(name, nlen))
				write_one(name, body, (size_t)(next - body));
		}
		p = next < end ? next + 1 : end;
	}
	if (bundle_verify(root, NULL, NULL, NULL, NULL, &res, &err) == 0) {
		FUZZ_ASSERT(res.ok == (res.nproblems == 0));
		for (size_t i = 0; i < res.nproblems; i++)
			FUZZ_ASSERT(res.problems[i] != NULL && res.problems[i][0] != '\0');
		verify_result_free(&res);
	} else {
		FUZZ_ASSERT(err.msg[0] != '\0');
	}
	return 0;
}
