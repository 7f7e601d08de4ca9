/*
 * severity.h: the order of severities, written once. C takes its enum and
 * names (severity.c) from this list; SQL gets it from C: SQLite's
 * severity_rank() is a function aivet registers on each connection
 * (db-sqlite.c), PostgreSQL's reads the table aivet_severity, which aivet
 * fills from this list in each migration it applies (db.c). Lowest first; a
 * severity's rank is its place here. Findings carry it (finding.h), and the
 * query layer gives its order to SQL, so it sits in the core with the database.
 */
#ifndef AIVET_SEVERITY_H
#define AIVET_SEVERITY_H

/* X(ENUM, "name") for each severity, lowest first. */
#define SEVERITIES(X) \
	X(SEV_INFO, "info") \
	X(SEV_LOW, "low") \
	X(SEV_MEDIUM, "medium") \
	X(SEV_HIGH, "high") \
	X(SEV_CRITICAL, "critical")

#define SEV_ENUM(id, name) id,
enum severity { SEVERITIES(SEV_ENUM) SEV_COUNT };
#undef SEV_ENUM

/* "info".."critical"; "unknown" outside the range. */
const char *severity_name(enum severity s);
/* The severity of a name, or -1 for an unknown one. */
int severity_rank(const char *name);

#endif
