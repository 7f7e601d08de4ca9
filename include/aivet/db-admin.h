/*
 * db-admin.h: what "aivet db" does to a database as a whole: copy it into an
 * empty one on either backend (db-copy.c), and the team's roles on
 * PostgreSQL: who may write, approve or only read (db-roles.c).
 */
#ifndef AIVET_DB_ADMIN_H
#define AIVET_DB_ADMIN_H

#include "core.h"

/* ---- db-copy.c ---- */
struct db_copy_table {
	const char *name;
	int64_t rows;
};

struct db_copy_result {
	struct db_copy_table tables[32];
	int ntables;
	int64_t rows;                 /* all tables */
	struct audit_status src;      /* the source's chain before the copy */
	struct audit_status dst;      /* the destination's, checked before commit */
};

/* Copies every row of src into dst, which must hold no rows (AV_USAGE
 * otherwise), in one transaction on dst, keeping ids, stored content and the
 * audit chain; commits only when dst's chain verifies to src's head. */
int db_copy(struct db *src, struct db *dst, struct db_copy_result *res, struct aerr *err);

/* ---- db-roles.c ---- */
enum db_role { DB_ROLE_AUDITOR, DB_ROLE_ASSESSOR, DB_ROLE_REVIEWER, DB_ROLE_COUNT };

/* "auditor", "assessor", "reviewer"; the group role on the server is "aivet_" NAME. */
const char *db_role_name(enum db_role r);
int db_role_parse(const char *s, enum db_role *out);

struct db_login {
	char name[64];
	int roles[DB_ROLE_COUNT];     /* granted directly */
	int can[DB_ROLE_COUNT];       /* held, directly or through a higher role */
	int owner;                    /* owns the database */
};

/* Who this connection acts as: on PostgreSQL the login (session_user) and its
 * roles; on SQLite the actor given, with no roles (anyone who can write the
 * file can do anything). */
int db_whoami(struct db *db, const char *actor, struct db_login *out, struct aerr *err);
/* 0 when this connection holds the role (always on SQLite); else AV_USAGE: "WHAT
 * needs the aivet_ROLE role (LOGIN does not have it)". The server enforces the
 * role itself; asking first lets the refusal name it. */
int db_require_role(struct db *db, enum db_role role, const char *what, struct aerr *err);
/* Every login holding one of aivet's roles, by name. PostgreSQL only. */
int db_logins(struct db *db, struct db_login **out, int *n, struct aerr *err);
/* Grants (or revokes) the role to a login and records it in the audit log.
 * Run by the database owner; AV_USAGE on SQLite or for an unknown login. */
int db_role_grant(struct db *db, const char *login, enum db_role role, int revoke, struct aerr *err);

/* Sets the organisation's time zone (an IANA name), the one every end-of-day
 * deadline ends in: an audited act ("db.timezone"), the owner's on PostgreSQL.
 * The old zone and the new one are in the entry. */
int db_set_timezone(struct db *db, const char *actor, const char *zone, struct aerr *err);

#endif
