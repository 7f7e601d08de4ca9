/*
 * replay.c: runs every fuzz target over its seed corpus
 * ($TESTS_SRCDIR/fuzz/corpus-NAME/) as a TAP test under `make check`, built
 * with the ordinary compiler (and its sanitizers when configured so). With
 * arguments "NAME FILE..." it replays single inputs, to reproduce a crash
 * that libFuzzer found without clang.
 */
#include "config.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "aivet/domain.h"
#include "fuzz.h"
#include "../lib/tap.h"

#define TARGET(name) int fuzz_##name(const uint8_t *data, size_t size);
#include "targets.h"
#undef TARGET

static const struct {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
} targets[] = {
#define TARGET(name) { #name, fuzz_##name },
#include "targets.h"
#undef TARGET
};

static int
run_file(int (*fn)(const uint8_t *, size_t), const char *path)
{
	struct buf b;
	struct aerr err;

	if (read_file(path, (size_t)64 << 20, &b, &err) != 0) {
		fprintf(stderr, "replay: %s\n", err.msg);
		return -1;
	}
	fn((const uint8_t *)b.data, b.len);
	buf_free(&b);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every file of DIR in name order; returns the count, -1 on trouble. */
static int
run_dir(int (*fn)(const uint8_t *, size_t), const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int count = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (count >= 0 && run_file(fn, names[i]) == 0)
			count++;
		else
			count = -1;
		free(names[i]);
	}
	free(names);
	return count;
}

int
main(int argc, char **argv)
{
	const char *src = getenv("TESTS_SRCDIR");
	size_t nt = sizeof targets / sizeof targets[0];

	if (argc >= 2) {
		for (size_t i = 0; i < nt; i++) {
			if (strcmp(targets[i].name, argv[1]) != 0)
				continue;
			for (int a = 2; a < argc; a++)
				if (run_file(targets[i].fn, argv[a]) != 0)
					return 1;
			return 0;
		}
		fprintf(stderr, "replay: no fuzz target '%s'\n", argv[1]);
		return 2;
	}
	if (src == NULL)
		src = "tests";
	for (size_t i = 0; i < nt; i++) {
		char *dir = xasprintf("%s/fuzz/corpus-%s", src, targets[i].name);
		int n = run_dir(targets[i].fn, dir);

		ok(n > 0, "fuzz target %s replays its %d seed inputs without a crash", targets[i].name, n);
		free(dir);
	}
	return tap_done();
}
