/*
 * fuzz-time.c: parse_time() on arbitrary text. Whatever it accepts must
 * format back (fmt_time_ms) to a time that parses to the same instant, so
 * that a time read from a file and written into evidence is never shifted.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "fuzz.h"

/* fmt_time_ms writes four-digit years only: 0000-01-01 .. 9999-12-31. */
#define MIN_MS (-62167219200000LL)
#define MAX_MS (253402300799999LL)

FUZZ_TARGET(time)
{
	char *s = fuzz_cstr(data, size);
	struct aerr err;
	int64_t ms, again;
	char out[32];

	aerr_clear(&err);
	if (parse_time(s, &ms, &err) == 0) {
		FUZZ_ASSERT(err.code == 0);
		if (ms >= MIN_MS && ms <= MAX_MS) {
			fmt_time_ms(ms, out);
			FUZZ_ASSERT(strlen(out) == 24);
			FUZZ_ASSERT(parse_time(out, &again, &err) == 0);
			FUZZ_ASSERT(again == ms);
		}
	} else {
		FUZZ_ASSERT(err.code == AV_USAGE && err.msg[0] != '\0');
	}
	free(s);
	return 0;
}
