/*
 * fuzz-lib.c: helpers shared by the fuzz targets (see fuzz.h).
 */
#include "config.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "fuzz.h"

char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static char *scratch[8];

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

static void
remove_scratch(void)
{
	for (size_t i = 0; i < sizeof scratch / sizeof scratch[0] && scratch[i] != NULL; i++)
		nftw(scratch[i], rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

const char *
fuzz_tmpdir(const char *name)
{
	size_t i = 0;

	while (i < sizeof scratch / sizeof scratch[0] && scratch[i] != NULL)
		i++;
	if (i == sizeof scratch / sizeof scratch[0] || sodium_init() < 0)
		die("fuzz_tmpdir: setup");
	scratch[i] = xasprintf("%s/aivet-fuzz-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	if (mkdtemp(scratch[i]) == NULL)
		die("fuzz_tmpdir: %s: cannot create", scratch[i]);
	if (i == 0)
		atexit(remove_scratch);
	return scratch[i];
}

void
fuzz_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return;   /* e.g. a directory of that name: the input decides */
	if (len > 0 && fwrite(data, 1, len, f) != len)
		die("fuzz_write_file: %s: short write", path);
	fclose(f);
}
