/*
 * tap.h: a minimal TAP producer for aivet's C unit tests, read by
 * Automake's tap-driver.sh. Each check prints one "ok"/"not ok" line.
 */
#ifndef AIVET_TAP_H
#define AIVET_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

/* The library prints no fatal message itself (die() hands it to the
 * program's reporter): a test that dies says why, as TAP's bail-out. */
void die_report_set(void (*report)(const char *msg));
static void
tap_die_report(const char *msg)
{
	printf("Bail out! fatal: %s\n", msg);
	fflush(stdout);
}
__attribute__((constructor)) static void
tap_report_deaths(void)
{
	die_report_set(tap_die_report);
}

#define ok(cond, ...) do { \
	int ok_c_ = (cond) ? 1 : 0; \
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!ok_c_) { \
		tap_failed++; \
		printf("# failed at %s:%d\n", __FILE__, __LINE__); \
	} \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int m_ = g_ != NULL && w_ != NULL ? strcmp(g_, w_) == 0 : g_ == w_; \
	ok(m_, __VA_ARGS__); \
	if (!m_) \
		printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	ok(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) \
		printf("#   got:  %lld\n#   want: %lld\n", g_, w_); \
} while (0)

/* n checks that cannot run here, each reported "ok # SKIP why". */
#define skip(n, ...) do { \
	for (int s_ = 0; s_ < (n); s_++) { \
		printf("ok %d # SKIP ", ++tap_n); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
