/*
 * cmd-db.c: "aivet db" — the database as a whole: who you are on it and
 * with which role (whoami), the logins holding aivet's roles (roles),
 * granting and revoking them (grant, revoke; PostgreSQL, by the database's
 * owner), and copying a whole database into an empty one, SQLite and
 * PostgreSQL either way (copy). The work is in db-roles.c and db-copy.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "aivet/db-admin.h"

extern const struct cmd_entry cmd_db_entry;


static const char *
may_text(const struct db_login *l)
{
	if (l->can[DB_ROLE_REVIEWER])
		return "read, verify, write, approve";
	if (l->can[DB_ROLE_ASSESSOR])
		return "read, verify, write (approving needs aivet_reviewer)";
	if (l->can[DB_ROLE_AUDITOR])
		return "read, verify (writing needs aivet_assessor)";
	return "nothing (reading needs aivet_auditor)";
}

static cJSON *
login_json(const struct db_login *l)
{
	cJSON *o = cJSON_CreateObject(), *roles = cJSON_AddArrayToObject(o, "roles");

	cJSON_AddStringToObject(o, "login", l->name);
	cJSON_AddBoolToObject(o, "owner", l->owner);
	for (int r = 0; r < DB_ROLE_COUNT; r++)
		if (l->roles[r])
			cJSON_AddItemToArray(roles, cJSON_CreateString(db_role_name((enum db_role)r)));
	cJSON_AddBoolToObject(o, "read", l->can[DB_ROLE_AUDITOR]);
	cJSON_AddBoolToObject(o, "write", l->can[DB_ROLE_ASSESSOR]);
	cJSON_AddBoolToObject(o, "approve", l->can[DB_ROLE_REVIEWER]);
	return o;
}

static void
roles_text(const struct db_login *l, char *out, size_t n)
{
	size_t used = 0;

	out[0] = '\0';
	for (int r = 0; r < DB_ROLE_COUNT; r++)
		if (l->roles[r] && used < n)
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "",
			    db_role_name((enum db_role)r));
	if (used == 0)
		snprintf(out, n, "-");
}


static int
db_whoami_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *db;
	struct db_login me;
	char roles[128];
	int json = args_has(args, 'j');

	if ((db = av_db(av, err)) == NULL || db_whoami(db, av->actor, &me, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = login_json(&me);

		cJSON_AddStringToObject(o, "backend", db_backend_name(db));
		json_emit(o);
		return 0;
	}
	roles_text(&me, roles, sizeof roles);
	if (db_has(db, DB_ROLES))
		term_printf(stdout, "login     %s\nbackend   %s\nowner     %s\nroles     %s\nmay       %s\n", me.name,
		    db_backend_name(db), me.owner ? "yes" : "no", roles, me.owner ? "everything (owner)" : may_text(&me));
	else
		term_printf(stdout, "actor     %s\nbackend   %s\nroles     none: whoever can write the file can do "
		    "anything\n", me.name, db_backend_name(db));
	return 0;
}


static int
db_roles_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *db;
	struct db_login *l = NULL;
	int json = args_has(args, 'j'), n = 0;

	if ((db = av_db(av, err)) == NULL || db_logins(db, &l, &n, err) != 0) {
		free(l);
		return err->code;
	}
	if (json) {
		cJSON *arr = cJSON_CreateArray();

		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, login_json(&l[i]));
		json_emit(arr);
	} else {
		term_printf(stdout, "%-24s %-5s %-26s %s\n", "LOGIN", "OWNER", "ROLES", "MAY");
		for (int i = 0; i < n; i++) {
			char roles[128];

			roles_text(&l[i], roles, sizeof roles);
			term_printf(stdout, "%-24s %-5s %-26s %s\n", l[i].name, l[i].owner ? "yes" : "", roles,
			    l[i].owner ? "everything (owner)" : may_text(&l[i]));
		}
	}
	free(l);
	return 0;
}


static int
grant_or_revoke(struct aivet *av, const struct cmd_args *args, int revoke, struct aerr *err)
{
	struct db *db;
	enum db_role role;

	if (db_role_parse(args->argv[1], &role) != 0)
		return usage_error(av, err, "'%s' is not a role: assessor, reviewer or auditor",
		    args->argv[1]);
	if ((db = av_db(av, err)) == NULL ||
	    db_role_grant(db, args->argv[0], role, revoke, err) != 0)
		return err->code;
	term_printf(stdout, revoke ? "revoked aivet_%s from %s\n" : "granted aivet_%s to %s\n", db_role_name(role),
	    args->argv[0]);
	return 0;
}

static int
db_grant_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	return grant_or_revoke(av, args, 0, err);
}

static int
db_revoke_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	return grant_or_revoke(av, args, 1, err);
}


/* An SQLite source must exist: opening would create an empty one. */
static int
source_exists(const char *spec, struct aerr *err)
{
	const char *path = strncmp(spec, "sqlite:", 7) == 0 ? spec + 7 : spec;
	struct stat sb;

	if (db_spec_is_pg(spec) || stat(path, &sb) == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "db copy: no database at %s", spec);
}

static int64_t
audit_rows(const struct db_copy_result *r)
{
	for (int i = 0; i < r->ntables; i++)
		if (strcmp(r->tables[i].name, "audit_log") == 0)
			return r->tables[i].rows;
	return 0;
}

static void
copy_print(const char *src, const char *dst, const struct db_copy_result *r, int json)
{
	if (json) {
		cJSON *o = cJSON_CreateObject(), *t = cJSON_AddObjectToObject(o, "tables");

		cJSON_AddStringToObject(o, "source", src);
		cJSON_AddStringToObject(o, "destination", dst);
		cJSON_AddNumberToObject(o, "rows", (double)r->rows);
		for (int i = 0; i < r->ntables; i++)
			cJSON_AddNumberToObject(t, r->tables[i].name, (double)r->tables[i].rows);
		cJSON_AddNumberToObject(o, "audit_entries", (double)audit_rows(r));
		cJSON_AddBoolToObject(o, "audit_ok", r->dst.bad_seq == 0);
		if (r->dst.bad_seq == 0)
			cJSON_AddStringToObject(o, "audit_head", r->dst.head);
		else
			cJSON_AddStringToObject(o, "audit_problem", r->dst.problem);
		json_emit(o);
		return;
	}
	term_printf(stdout, "copied %lld rows from %s to %s\n", (long long)r->rows, src, dst);
	for (int i = 0; i < r->ntables; i++)
		if (r->tables[i].rows > 0)
			term_printf(stdout, "  %-18s %lld\n", r->tables[i].name, (long long)r->tables[i].rows);
	if (r->dst.bad_seq == 0)
		term_printf(stdout, "audit chain: %lld entries, head %s, the same on both\n", (long long)r->dst.entries,
		    r->dst.head);
	else
		term_printf(stdout, "audit chain: %lld entries, copied as they were; it does not verify, on either: %s\n",
		    (long long)audit_rows(r), r->dst.problem);
}

static int
db_copy_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *src = NULL, *dst = NULL;
	struct db_copy_result res;
	const char *s, *d;
	int json = args_has(args, 'j'), rc;

	(void)av;
	s = args->argv[0];
	d = args->argv[1];
	if (strcmp(s, d) == 0)
		return usage_error(av, err, "the source and the destination are the same database");
	if (source_exists(s, err) != 0)
		return err->code;
	if (db_open(s, &src, err) != 0)
		return aerr_prefix(err, "db copy: source");
	if (db_open(d, &dst, err) != 0) {
		db_close(src);
		return aerr_prefix(err, "db copy: destination");
	}
	rc = db_copy(src, dst, &res, err);
	db_close(src);
	db_close(dst);
	if (rc != 0)
		return rc;
	copy_print(s, d, &res, json);
	return res.dst.bad_seq != 0 ? AV_FINDINGS : 0;
}

/* The organisation's zone: shown, or set (the owner's act on PostgreSQL). */
static int
db_timezone_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *db;
	struct org_timezone tz;
	int json = args_has(args, 'j');

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (args->argc > 0 && db_set_timezone(db, av->actor, args->argv[0], err) != 0)
		return err->code;
	if (audit_org_timezone(db, &tz, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cJSON_CreateObject();

		json_add_str(o, "timezone", tz.zone[0] ? tz.zone : NULL);
		json_add_str(o, "set_by", tz.zone[0] ? tz.by : NULL);
		json_add_str(o, "set_at", tz.zone[0] ? tz.at : NULL);
		cJSON_AddStringToObject(o, "deadlines_in", tz.zone[0] ? tz.zone : "UTC");
		cJSON_AddBoolToObject(o, "assumed", tz.zone[0] == '\0');
		json_emit(o);
	} else if (tz.zone[0]) {
		term_printf(stdout, "organisation time zone %s (set by %s at %s): every end-of-day "
		    "deadline ends there\n", tz.zone, tz.by, tz.at);
	} else {
		term_printf(stdout, "no organisation time zone set: end-of-day deadlines assume UTC "
		    "(set one with: aivet db timezone ZONE)\n");
	}
	return 0;
}

static const struct cmd_entry db_subs[] = {
	{ .name = "whoami", .opts = opt_json_only,
	  .summary = "who this connection acts as, and what its role lets it do",
	  .exec = db_whoami_cmd, .args = ARGS_NONE },
	{ .name = "roles", .opts = opt_json_only,
	  .summary = "the logins holding aivet's roles (PostgreSQL)", .exec = db_roles_cmd,
	  .args = ARGS_NONE },
	{ .name = "grant", .targets = "LOGIN assessor|reviewer|auditor",
	  .summary = "give a login a role (PostgreSQL; the database's owner)",
	  .exec = db_grant_cmd, .args = ARGS({ TARGET_WORD, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "revoke", .targets = "LOGIN assessor|reviewer|auditor",
	  .summary = "take a role from a login (PostgreSQL; the database's owner)",
	  .exec = db_revoke_cmd, .args = ARGS({ TARGET_WORD, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "timezone", .targets = "[ZONE]", .opts = opt_json_only,
	  .summary = "show or set the organisation's IANA time zone, where every end-of-day "
	  "deadline ends (audited; the database's owner on PostgreSQL)",
	  .exec = db_timezone_cmd, .args = ARGS({ TARGET_WORD, 1 }) },
	{ .name = "copy", .targets = "SRC DST", .opts = opt_json_only,
	  .summary = "copy a whole database into an empty one, SQLite or PostgreSQL, keeping ids, "
	  "evidence and the audit chain", .exec = db_copy_cmd,
	  .args = ARGS({ TARGET_WORD, 0 }, { TARGET_WORD, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_db_entry = {
	.name = "db",
	.summary = "who you are and your role, granting roles (PostgreSQL), the organisation's "
	"time zone, copying a whole database",
	.subs = db_subs,
};
