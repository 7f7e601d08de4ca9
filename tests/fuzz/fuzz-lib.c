/*
 * fuzz-lib.c: helpers shared by the fuzz targets (see fuzz.h).
 */
#include "config.h"

#include <string.h>

#include "aivet.h"
#include "fuzz.h"

char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
