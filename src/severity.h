/*
 * severity.h: the order of severities, written once. C takes its enum
 * (finding.h) and names (finding.c) from this list; SQL gets it from C:
 * SQLite's severity_rank() is a function aivet registers on each connection
 * (db-sqlite.c), PostgreSQL's reads the table aivet_severity, which aivet
 * fills from this list in each migration it applies (db.c). Lowest first; a
 * severity's rank is its place here.
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

#endif
