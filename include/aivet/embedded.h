/*
 * aivet/embedded.h: the files built into aivet (db/ migrations for both
 * stores, the bundled questionnaires), generated at build into the core.
 */
#ifndef AIVET_EMBEDDED_H
#define AIVET_EMBEDDED_H

#include <stddef.h>

/* ---- embedded files (generated embedded.c) ---- */
struct embedded_file {
	const char *name;
	const unsigned char *data;
	size_t len;
};
extern const struct embedded_file embedded_migrations[];
extern const struct embedded_file embedded_pg_migrations[];   /* db/pg/ */
extern const struct embedded_file embedded_questionnaires[];
/* db/pg/schema-fingerprint.sql, then db/pg/schema.expect (db-schema.c). */
extern const struct embedded_file embedded_pg_schema[];
extern const struct embedded_file embedded_advisories[];   /* advisories/, OSV */

#endif
