/*
 * cmd-vendor.c: "aivet vendor" — add, list, show, edit and archive the
 * vendors under review. Archiving hides a vendor from lists but keeps it and
 * everything that refers to it.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"

extern const struct cmd_entry cmd_vendor_entry;

static int
parse_vendor_opts(int argc, char **argv, const char *usage, struct vendor_input *f,
    int allow_rename, int *json, struct aerr *err)
{
	static const struct option opts[] = {
		{ "criticality", required_argument, NULL, 'c' },
		{ "contact", required_argument, NULL, 'C' },
		{ "notes", required_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_int_opt("--criticality", optarg, 0, 4, &f->criticality, err) != 0)
				return err->code;
			f->set_crit = 1;
			break;
		case 'C':
			f->contact = optarg, f->set_contact = 1;
			break;
		case 'n':
			f->notes = optarg, f->set_notes = 1;
			break;
		case 'N':
			if (!allow_rename)
				return usage_error(err, usage, "--name is not an option here");
			f->name = optarg, f->set_name = 1;
			break;
		case 'j':
			if (json == NULL)
				return usage_error(err, usage, "--json is not an option here");
			*json = 1;
			break;
		case ':':
			return usage_error(err, usage, "%s needs a value", argv[optind - 1]);
		default:
			return usage_error(err, usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

static const char add_usage[] = "vendor add NAME [--criticality 0-4] [--contact TEXT] [--notes TEXT]";

static int
cmd_vendor_add(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { .criticality = 2 };
	struct db *db;
	int64_t id;

	if (parse_vendor_opts(argc, argv, add_usage, &f, 0, NULL, err) != 0)
		return err->code;
	if (optind != argc - 1)
		return usage_error(err, add_usage, "vendor add needs exactly one NAME");
	f.name = argv[optind];
	if (name_check("vendor", f.name, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_add(db, av->actor, &f, &id, err) != 0)
		return err->code;
	printf("vendor %s added (id %lld)\n", f.name, (long long)id);
	return 0;
}

static const char list_usage[] = "vendor list [--all] [--json]";

static int
vendor_list(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c, all = 0, json = 0;
	struct db *db;
	cJSON *arr, *o;
	struct json_stream js;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'a')
			all = 1;
		else if (c == 'j')
			json = 1;
		else
			return usage_error(err, list_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind != argc)
		return usage_error(err, list_usage, "unexpected argument '%s'", argv[optind]);
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_list_json(db, all, &arr, err) != 0)
		return err->code;
	if (json) {
		json_stream_begin(&js);
		while (cJSON_GetArraySize(arr) > 0)
			json_stream_item(&js, cJSON_DetachItemFromArray(arr, 0));
		json_stream_end(&js);
	} else {
		printf("%-5s %-32s %-4s %-9s %-8s %s\n", "ID", "NAME", "CRIT", "ENDPOINTS", "STATUS",
		    "INCIDENTS");
		cJSON_ArrayForEach(o, arr)
			printf("%-5lld %-32s %-4d %-9d %-8s %d\n",
			    (long long)cJSON_GetObjectItem(o, "id")->valuedouble, json_get_str(o, "name"),
			    cJSON_GetObjectItem(o, "criticality")->valueint,
			    cJSON_GetObjectItem(o, "endpoints")->valueint, json_get_str(o, "status"),
			    cJSON_GetObjectItem(o, "open_incidents")->valueint);
	}
	cJSON_Delete(arr);
	return 0;
}

static const char show_usage[] = "vendor show NAME|ID [--json]";

static int
vendor_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { 0 };
	int json = 0;
	int64_t id;
	struct db *db;
	struct db_stmt *st;
	cJSON *o, *eps;

	if (parse_vendor_opts(argc, argv, show_usage, &f, 0, &json, err) != 0)
		return err->code;
	if (f.set_crit || f.set_contact || f.set_notes)
		return usage_error(err, show_usage, "vendor show takes no field options");
	if (optind != argc - 1)
		return usage_error(err, show_usage, "vendor show needs exactly one NAME or ID");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_lookup(db, argv[optind], &id, err) != 0 || vendor_json(db, id, &o, err) != 0)
		return err->code;
	eps = cJSON_AddArrayToObject(o, "endpoint_list");
	st = db_prepare(db, err, "SELECT id FROM endpoint WHERE vendor_id = ? ORDER BY name", "i", id);
	if (st == NULL) {
		cJSON_Delete(o);
		return err->code;
	}
	while (db_step(st) == DB_ROW) {
		cJSON *e;

		if (endpoint_json(db, db_col_int64(st, 0), &e, err) == 0)
			cJSON_AddItemToArray(eps, e);
	}
	db_finalize(st);
	if (json) {
		json_emit(o);
		return 0;
	}
	printf("vendor %s (id %d)\n", cJSON_GetObjectItem(o, "name")->valuestring,
	    cJSON_GetObjectItem(o, "id")->valueint);
	printf("  criticality  %d\n", cJSON_GetObjectItem(o, "criticality")->valueint);
	printf("  status       %s\n", cJSON_GetObjectItem(o, "status")->valuestring);
	printf("  contact      %s\n", cJSON_IsString(cJSON_GetObjectItem(o, "contact")) ?
	    cJSON_GetObjectItem(o, "contact")->valuestring : "-");
	printf("  notes        %s\n", cJSON_IsString(cJSON_GetObjectItem(o, "notes")) ?
	    cJSON_GetObjectItem(o, "notes")->valuestring : "-");
	printf("  created      %s\n", cJSON_GetObjectItem(o, "created_at")->valuestring);
	printf("  endpoints\n");
	{
		cJSON *e;

		cJSON_ArrayForEach(e, eps)
			printf("    %-24s %-12s %-10s %s (%s)\n", cJSON_GetObjectItem(e, "name")->valuestring,
			    cJSON_GetObjectItem(e, "api")->valuestring,
			    cJSON_GetObjectItem(e, "status")->valuestring,
			    cJSON_GetObjectItem(e, "url")->valuestring,
			    cJSON_GetObjectItem(e, "model")->valuestring);
	}
	cJSON_Delete(o);
	return 0;
}

static const char edit_usage[] =
    "vendor edit NAME|ID [--name NEW] [--criticality 0-4] [--contact TEXT] [--notes TEXT]";

static int
cmd_vendor_edit(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { 0 };
	struct db *db;

	if (parse_vendor_opts(argc, argv, edit_usage, &f, 1, NULL, err) != 0)
		return err->code;
	if (optind != argc - 1)
		return usage_error(err, edit_usage, "vendor edit needs exactly one NAME or ID");
	if (!f.set_name && !f.set_crit && !f.set_contact && !f.set_notes)
		return usage_error(err, edit_usage, "vendor edit: nothing to change");
	if (f.set_name && name_check("vendor", f.name, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_edit(db, av->actor, argv[optind], &f, err) != 0)
		return err->code;
	printf("vendor %s updated\n", f.set_name ? f.name : argv[optind]);
	return 0;
}

static const char archive_usage[] = "vendor archive NAME|ID";

static int
cmd_vendor_archive(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *db;

	if (argc != 2 || argv[1][0] == '-')
		return usage_error(err, archive_usage, "vendor archive needs exactly one NAME or ID");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_archive(db, av->actor, argv[1], err) != 0)
		return err->code;
	printf("vendor %s archived\n", argv[1]);
	return 0;
}

static const struct subcmd vendor_subs[] = {
	{ "add", add_usage, "add a vendor", cmd_vendor_add },
	{ "list", list_usage, "list vendors (archived ones with --all)", vendor_list },
	{ "show", show_usage, "show a vendor and its endpoints", vendor_show },
	{ "edit", edit_usage, "change a vendor's fields", cmd_vendor_edit },
	{ "archive", archive_usage, "archive a vendor and its endpoints (nothing is deleted)", cmd_vendor_archive },
	{ NULL, NULL, NULL, NULL }
};

static int
cmd_vendor_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_vendor_entry, vendor_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_vendor_entry = {
	"vendor", "vendor add|list|show|edit|archive ...", "manage the vendors under review",
	cmd_vendor_exec
};
