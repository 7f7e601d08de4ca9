/*
 * cmd-db.c: "aivet db" — the database as a whole: who you are on it and
 * with which role (whoami), the logins holding aivet's roles (roles),
 * granting and revoking them (grant, revoke; PostgreSQL, by the database's
 * owner), and copying a whole database into an empty one, SQLite and
 * PostgreSQL either way (copy). The work is in db-roles.c and db-copy.c.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aivet.h"
#include "db-admin.h"

extern const struct cmd_entry cmd_db_entry;

/* --json and no other option, then exactly nargs arguments. */
static int
parse_json_only(int argc, char **argv, const char *usage, int nargs, int *json, struct aerr *err)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*json = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'j')
			*json = 1;
		else
			return usage_error(err, usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind < nargs)
		return usage_error(err, usage, "%d argument%s needed", nargs, nargs == 1 ? " is" : "s are");
	if (argc - optind > nargs)
		return usage_error(err, usage, "unexpected argument '%s'", argv[optind + nargs]);
	return 0;
}

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

static const char whoami_usage[] = "db whoami [--json]";

static int
db_whoami_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *db;
	struct db_login me;
	char roles[128];
	int json, pg;

	if (parse_json_only(argc, argv, whoami_usage, 0, &json, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL || db_whoami(db, av->actor, &me, err) != 0)
		return err->code;
	pg = db_kind(db) == DB_KIND_PG;
	if (json) {
		cJSON *o = login_json(&me);

		cJSON_AddStringToObject(o, "backend", pg ? "postgresql" : "sqlite");
		json_emit(o);
		return 0;
	}
	roles_text(&me, roles, sizeof roles);
	if (pg)
		printf("login     %s\nbackend   postgresql\nowner     %s\nroles     %s\nmay       %s\n", me.name,
		    me.owner ? "yes" : "no", roles, me.owner ? "everything (owner)" : may_text(&me));
	else
		printf("actor     %s\nbackend   sqlite\nroles     none: whoever can write the file can do "
		    "anything\n", me.name);
	return 0;
}

static const char roles_usage[] = "db roles [--json]";

static int
db_roles_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *db;
	struct db_login *l = NULL;
	int json, n = 0;

	if (parse_json_only(argc, argv, roles_usage, 0, &json, err) != 0)
		return err->code;
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
		printf("%-24s %-5s %-26s %s\n", "LOGIN", "OWNER", "ROLES", "MAY");
		for (int i = 0; i < n; i++) {
			char roles[128];

			roles_text(&l[i], roles, sizeof roles);
			printf("%-24s %-5s %-26s %s\n", l[i].name, l[i].owner ? "yes" : "", roles,
			    l[i].owner ? "everything (owner)" : may_text(&l[i]));
		}
	}
	free(l);
	return 0;
}

static const char grant_usage[] = "db grant LOGIN assessor|reviewer|auditor";
static const char revoke_usage[] = "db revoke LOGIN assessor|reviewer|auditor";

static int
grant_or_revoke(struct aivet *av, int argc, char **argv, int revoke, struct aerr *err)
{
	const char *usage = revoke ? revoke_usage : grant_usage;
	struct db *db;
	enum db_role role;
	int json;

	if (parse_json_only(argc, argv, usage, 2, &json, err) != 0)
		return err->code;
	if (db_role_parse(argv[optind + 1], &role) != 0)
		return usage_error(err, usage, "'%s' is not a role: assessor, reviewer or auditor",
		    argv[optind + 1]);
	if ((db = av_db(av, err)) == NULL ||
	    db_role_grant(db, argv[optind], role, revoke, err) != 0)
		return err->code;
	printf(revoke ? "revoked aivet_%s from %s\n" : "granted aivet_%s to %s\n", db_role_name(role),
	    argv[optind]);
	return 0;
}

static int
db_grant_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return grant_or_revoke(av, argc, argv, 0, err);
}

static int
db_revoke_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return grant_or_revoke(av, argc, argv, 1, err);
}

static const char copy_usage[] = "db copy SRC DST [--json]";

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
	printf("copied %lld rows from %s to %s\n", (long long)r->rows, src, dst);
	for (int i = 0; i < r->ntables; i++)
		if (r->tables[i].rows > 0)
			printf("  %-18s %lld\n", r->tables[i].name, (long long)r->tables[i].rows);
	if (r->dst.bad_seq == 0)
		printf("audit chain: %lld entries, head %s, the same on both\n", (long long)r->dst.entries,
		    r->dst.head);
	else
		printf("audit chain: %lld entries, copied as they were; it does not verify, on either: %s\n",
		    (long long)audit_rows(r), r->dst.problem);
}

static int
db_copy_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *src = NULL, *dst = NULL;
	struct db_copy_result res;
	const char *s, *d;
	int json, rc;

	(void)av;
	if (parse_json_only(argc, argv, copy_usage, 2, &json, err) != 0)
		return err->code;
	s = argv[optind];
	d = argv[optind + 1];
	if (strcmp(s, d) == 0)
		return usage_error(err, copy_usage, "the source and the destination are the same database");
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

static const struct subcmd db_subs[] = {
	{ "whoami", whoami_usage, "who this connection acts as, and what its role lets it do", db_whoami_cmd },
	{ "roles", roles_usage, "the logins holding aivet's roles (PostgreSQL)", db_roles_cmd },
	{ "grant", grant_usage, "give a login a role (PostgreSQL; the database's owner)", db_grant_cmd },
	{ "revoke", revoke_usage, "take a role from a login (PostgreSQL; the database's owner)",
	  db_revoke_cmd },
	{ "copy", copy_usage, "copy a whole database into an empty one, SQLite or PostgreSQL, keeping ids, "
	  "evidence and the audit chain", db_copy_cmd },
	{ NULL, NULL, NULL, NULL }
};

static int
db_exec_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_db_entry, db_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_db_entry = {
	"db", "db whoami|roles|grant|revoke|copy ...",
	"who you are and your role, granting roles (PostgreSQL), copying a whole database",
	db_exec_cmd
};
