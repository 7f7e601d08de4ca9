/*
 * severity.h: the severity scale, one ordered enum from info to critical.
 * Findings carry it (finding.h), and the query layer gives its order to SQL
 * as severity_rank(), so it sits in the core with the database.
 */
#ifndef AIVET_SEVERITY_H
#define AIVET_SEVERITY_H

enum severity { SEV_INFO, SEV_LOW, SEV_MEDIUM, SEV_HIGH, SEV_CRITICAL, SEV_COUNT };

/* "info".."critical"; "unknown" outside the range. */
const char *severity_name(enum severity s);
/* The severity of a name, or -1 for an unknown one. */
int severity_rank(const char *name);

#endif
