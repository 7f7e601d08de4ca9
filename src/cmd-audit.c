/*
 * cmd-audit.c: "aivet audit" — verify the hash chain of the audit log, and
 * list its entries. Verification recomputes every hash, so an edit made
 * with the sqlite3 shell is found even when the triggers were dropped.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"

extern const struct cmd_entry cmd_audit_entry;

static const char verify_usage[] = "audit verify [--json]";

static int
audit_verify_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct audit_status st;
	sqlite3 *db;
	int json = argc == 2 && strcmp(argv[1], "--json") == 0;

	if (argc > 2 || (argc == 2 && !json))
		return usage_error(err, verify_usage, "unexpected argument '%s'", argv[1]);
	if ((db = av_db(av, err)) == NULL || audit_verify(db, &st, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddBoolToObject(o, "intact", st.bad_seq == 0);
		cJSON_AddNumberToObject(o, "entries", (double)st.entries);
		cJSON_AddStringToObject(o, "head", st.head);
		if (st.bad_seq) {
			cJSON_AddNumberToObject(o, "first_bad_entry", (double)st.bad_seq);
			cJSON_AddStringToObject(o, "problem", st.problem);
		}
		json_emit(o);
	}
	if (st.bad_seq)
		return aerr_set(err, AV_FINDINGS, "audit chain broken: %s", st.problem);
	if (!json)
		printf("audit chain intact: %lld entries, head %s\n", (long long)st.entries, st.head);
	return 0;
}

static const char log_usage[] = "audit log [--limit N] [--json]";

static int
audit_log_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int64_t limit = 50;
	int c, json = 0;
	sqlite3 *db;
	sqlite3_stmt *st;
	cJSON *arr;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'l') {
			if (parse_int_opt("--limit", optarg, 1, INT64_MAX, &limit, err) != 0)
				return err->code;
		} else if (c == 'j') {
			json = 1;
		} else {
			return usage_error(err, log_usage, "bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return usage_error(err, log_usage, "unexpected argument '%s'", argv[optind]);
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	st = db_prepare(db, err, "SELECT * FROM (SELECT seq, at, actor, action, object_type, "
	    "object_id, details, entry_hash FROM audit_log ORDER BY seq DESC LIMIT ?) ORDER BY seq",
	    "i", limit);
	if (st == NULL)
		return err->code;
	arr = cJSON_CreateArray();
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (json) {
			cJSON *o = cJSON_CreateObject(), *d = cJSON_Parse(col_text(st, 6));

			cJSON_AddNumberToObject(o, "seq", (double)sqlite3_column_int64(st, 0));
			cJSON_AddStringToObject(o, "at", col_text(st, 1));
			cJSON_AddStringToObject(o, "actor", col_text(st, 2));
			cJSON_AddStringToObject(o, "action", col_text(st, 3));
			cJSON_AddStringToObject(o, "object_type", col_text(st, 4));
			cJSON_AddNumberToObject(o, "object_id", (double)sqlite3_column_int64(st, 5));
			cJSON_AddItemToObject(o, "details", d ? d : cJSON_CreateNull());
			cJSON_AddStringToObject(o, "entry_hash", col_text(st, 7));
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%6lld %s %-12s %-22s %s %lld %s\n", (long long)sqlite3_column_int64(st, 0),
			    col_text(st, 1), col_text(st, 2), col_text(st, 3), col_text(st, 4),
			    (long long)sqlite3_column_int64(st, 5), col_text(st, 6));
		}
	}
	sqlite3_finalize(st);
	if (json)
		json_emit(arr);
	else
		cJSON_Delete(arr);
	return 0;
}

static const struct subcmd audit_subs[] = {
	{ "verify", verify_usage, "recompute the audit log's hash chain", audit_verify_cmd },
	{ "log", log_usage, "print the newest audit entries (50 unless --limit)", audit_log_cmd },
	{ NULL, NULL, NULL, NULL }
};

static int
cmd_audit_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_audit_entry, audit_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_audit_entry = {
	"audit", "audit verify|log ...", "verify and read the hash-chained audit log", cmd_audit_exec
};
