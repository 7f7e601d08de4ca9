/*
 * db-roles.c: the team's roles on a PostgreSQL database. aivet's migrations
 * create three group roles, cluster-wide: aivet_auditor (reads and
 * verifies), aivet_assessor (also writes vendors, endpoints, answers, probe
 * runs, evidence and incidents) and aivet_reviewer (also approves), each a
 * member of the one below. The server enforces them: table privileges, and
 * for the evidentiary tables the functions of db/pg/008-workflow.sql, the only
 * way the roles write them (approval among them). Here the owner grants them to logins, and anyone
 * can ask who they are. On SQLite there are no roles: whoever can write the
 * file can do anything, and the actor is the name given.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "db-admin.h"
#include "aivet/zone.h"

static const char *const role_names[DB_ROLE_COUNT] = { "auditor", "assessor", "reviewer" };

const char *
db_role_name(enum db_role r)
{
	return r < DB_ROLE_COUNT ? role_names[r] : "?";
}

int
db_role_parse(const char *s, enum db_role *out)
{
	for (int r = 0; r < DB_ROLE_COUNT; r++)
		if (strcmp(s, role_names[r]) == 0 || (strncmp(s, "aivet_", 6) == 0 && strcmp(s + 6, role_names[r]) == 0)) {
			*out = (enum db_role)r;
			return 0;
		}
	return -1;
}

/* A higher role holds every lower one; the owner holds them all. */
static void
login_fill_can(struct db_login *l)
{
	for (int r = 0; r < DB_ROLE_COUNT; r++) {
		l->can[r] = l->owner;
		for (int h = r; h < DB_ROLE_COUNT; h++)
			l->can[r] |= l->roles[h];
	}
}

/* The roles granted directly to a login (by name), from the catalog. */
static int
login_roles(struct db *db, struct db_login *l, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT g.rolname FROM pg_auth_members m "
	    "JOIN pg_roles u ON u.oid = m.member JOIN pg_roles g ON g.oid = m.roleid "
	    "WHERE u.rolname = ? AND g.rolname IN ('aivet_auditor', 'aivet_assessor', 'aivet_reviewer')",
	    "t", l->name);
	int rc;
	enum db_role r;

	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW)
		if (db_role_parse(col_text(st, 0), &r) == 0)
			l->roles[r] = 1;
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "roles");
	return 0;
}

/* pg_has_role() for one of aivet's roles, false when the role does not exist. */
#define HAS_ROLE(r) "CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" r "') " \
	"THEN pg_has_role(session_user, '" r "', 'MEMBER') ELSE false END::int"

int
db_whoami(struct db *db, const char *actor, struct db_login *out, struct aerr *err)
{
	struct db_stmt *st;
	int rc;

	memset(out, 0, sizeof *out);
	if (!db_has(db, DB_ROLES)) {
		snprintf(out->name, sizeof out->name, "%s", actor);
		out->owner = 1;
		login_fill_can(out);
		return 0;
	}
	/* Superusers and members of the owning role may do what the owner does; a
	 * role may be held through another group role, so held is asked of the server. */
	st = db_prepare(db, err, "SELECT session_user, pg_has_role(session_user, d.datdba, 'MEMBER')::int, "
	    HAS_ROLE("aivet_auditor") ", " HAS_ROLE("aivet_assessor") ", " HAS_ROLE("aivet_reviewer")
	    " FROM pg_database d WHERE d.datname = current_database()", NULL);
	if (st == NULL)
		return AV_RUNTIME;
	rc = db_step(st);
	if (rc == DB_ROW) {
		snprintf(out->name, sizeof out->name, "%s", col_text(st, 0));
		out->owner = db_col_int(st, 1) == 1;
		for (int r = 0; r < DB_ROLE_COUNT; r++)
			out->can[r] = out->owner || db_col_int(st, 2 + r) == 1;
	}
	db_finalize(st);
	if (rc != DB_ROW)
		return db_err(db, err, "session_user");
	return login_roles(db, out, err);
}

int
db_require_role(struct db *db, enum db_role role, const char *what, struct aerr *err)
{
	struct db_login me;

	if (!db_has(db, DB_ROLES))
		return 0;
	if (db_whoami(db, "", &me, err) != 0)
		return err->code;
	if (me.can[role])
		return 0;
	return aerr_set(err, AV_USAGE, "%s needs the aivet_%s role (%s does not have it)", what,
	    db_role_name(role), me.name);
}

int
db_logins(struct db *db, struct db_login **out, int *n, struct aerr *err)
{
	struct db_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if (!db_has(db, DB_ROLES))
		return aerr_set(err, AV_USAGE, "roles live on a PostgreSQL database; on an SQLite file "
		    "whoever can write the file can do anything");
	/* The owner, then every login granted one of aivet's roles. */
	st = db_prepare(db, err, "SELECT u.rolname, (u.oid = d.datdba)::int FROM pg_roles u, pg_database d "
	    "WHERE d.datname = current_database() AND u.rolcanlogin AND (u.oid = d.datdba OR EXISTS "
	    "(SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = u.oid "
	    "AND g.rolname IN ('aivet_auditor', 'aivet_assessor', 'aivet_reviewer'))) ORDER BY 2 DESC, 1",
	    NULL);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW) {
		struct db_login *l;

		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		l = &(*out)[(*n)++];
		memset(l, 0, sizeof *l);
		snprintf(l->name, sizeof l->name, "%s", col_text(st, 0));
		l->owner = db_col_int(st, 1) == 1;
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "logins");
	for (int i = 0; i < *n; i++) {
		if (login_roles(db, &(*out)[i], err) != 0)
			return err->code;
		login_fill_can(&(*out)[i]);
	}
	return 0;
}

/* "name" with any double quote doubled: an identifier for GRANT, which takes no parameters. */
static char *
quote_ident(const char *s)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			buf_adds(&b, "\"");
		buf_add(&b, s, 1);
	}
	buf_adds(&b, "\"");
	return buf_steal(&b);
}

/* A grant, a revocation and the organisation's zone change none of aivet's
 * rows: on PostgreSQL their entries follow only the server's functions, which
 * check the login or database exists and that the owner is the one acting
 * (db/pg/018-no-change.sql). On SQLite nothing runs. granted, for a role:
 * 1 granted, 0 revoked; -1 for the zone, whose function takes no such word. */
static int
no_change_record(struct db *db, const char *fn, int64_t oid, const cJSON *d, int granted,
    struct aerr *err)
{
	struct db_write w = { { NULL }, NULL, 0 };
	char *text = cJSON_PrintUnformatted(d);
	int rc;

	w.pg = fn;
	rc = granted < 0 ? db_write(db, err, &w, NULL, "it", oid, text) :
	    db_write(db, err, &w, NULL, "iti", oid, text, (int64_t)granted);
	free(text);
	return rc;
}

int
db_role_grant(struct db *db, const char *login, enum db_role role, int revoke, struct aerr *err)
{
	struct db_stmt *st;
	int64_t oid = 0;
	int rc, canlogin = 0;
	char *sql, *q;
	cJSON *d;
	struct db_login me;

	if (!db_has(db, DB_ROLES))
		return aerr_set(err, AV_USAGE, "roles live on a PostgreSQL database; on an SQLite file "
		    "whoever can write the file can do anything");
	if (login == NULL || *login == '\0' || strncmp(login, "aivet_", 6) == 0)
		return aerr_set(err, AV_USAGE, "'%s' is not a login: name a login to %s", login ? login : "",
		    revoke ? "revoke from" : "grant to");
	st = db_prepare(db, err, "SELECT oid, rolcanlogin::int FROM pg_roles WHERE rolname = ?", "t", login);
	if (st == NULL)
		return AV_RUNTIME;
	if ((rc = db_step(st)) == DB_ROW) {
		oid = db_col_int64(st, 0);
		canlogin = db_col_int(st, 1) == 1;
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_err(db, err, "logins");
	if (rc == DB_DONE)
		return aerr_set(err, AV_USAGE, "no login '%s' on this server (create it first, e.g. "
		    "CREATE ROLE %s LOGIN)", login, login);
	if (!canlogin)
		return aerr_set(err, AV_USAGE, "'%s' cannot log in: grant roles to logins", login);
	if (db_whoami(db, "", &me, err) != 0)
		return err->code;
	if (!me.owner)
		return aerr_set(err, AV_USAGE, "granting roles is for the database's owner: %s is not it",
		    me.name);
	q = quote_ident(login);
	sql = xasprintf(revoke ? "REVOKE aivet_%s FROM %s" : "GRANT aivet_%s TO %s", db_role_name(role), q);
	free(q);
	if (db_begin(db, err) != 0) {
		free(sql);
		return err->code;
	}
	rc = db_exec(db, err, sql, NULL);
	free(sql);
	if (rc == 0) {
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "login", login);
		cJSON_AddStringToObject(d, "role", db_role_name(role));
		rc = no_change_record(db, "SELECT aivet_db_role(?1, ?2, ?3 <> 0)", oid, d, !revoke, err);
		if (rc == 0)
			rc = audit_append(db, me.name, revoke ? "db.revoke" : "db.grant", "login", oid, d,
			    err);
		cJSON_Delete(d);
	}
	if (rc != 0) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db, err);
}

int
db_set_timezone(struct db *db, const char *actor, const char *zone, struct aerr *err)
{
	struct db_login me;
	struct org_timezone old;
	cJSON *d;
	int rc;

	if (zone_check(zone, err) != 0)
		return err->code;
	if (db_whoami(db, actor, &me, err) != 0 || audit_org_timezone(db, &old, err) != 0)
		return err->code;
	if (!me.owner)
		return aerr_set(err, AV_USAGE, "setting the organisation's time zone is for the database's "
		    "owner: %s is not it", me.name);
	if (db_begin(db, err) != 0)
		return err->code;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "timezone", zone);
	json_add_str(d, "previous", old.zone[0] ? old.zone : NULL);
	rc = no_change_record(db, "SELECT aivet_db_timezone(?1, ?2)", 1, d, -1, err);
	if (rc == 0)
		rc = audit_append(db, me.name, "db.timezone", "database", 1, d, err);
	cJSON_Delete(d);
	if (rc != 0) {
		db_rollback(db);
		return rc;
	}
	if (db_commit(db, err) != 0)
		return err->code;
	return org_zone_set(zone, err);
}
