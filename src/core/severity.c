/*
 * severity.c: the names of the severity scale (severity.h), in order; a
 * severity's rank is its place in the list, in C and in SQL alike.
 */
#include "config.h"

#include <string.h>

#include "severity.h"

#define SEV_NAME(id, name) name,
static const char *const severity_names[SEV_COUNT] = { SEVERITIES(SEV_NAME) };
#undef SEV_NAME

const char *
severity_name(enum severity s)
{
	return (unsigned)s < SEV_COUNT ? severity_names[s] : "unknown";
}

int
severity_rank(const char *name)
{
	for (int i = 0; name != NULL && i < SEV_COUNT; i++)
		if (strcmp(name, severity_names[i]) == 0)
			return i;
	return -1;
}
