/*
 * cmd-vendor.c: "aivet vendor" — add, list, show, edit and archive the
 * vendors under review. Archiving hides a vendor from lists but keeps it and
 * everything that refers to it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/vendor-rating.h"

enum { O_CRIT = 1, O_CONTACT, O_NOTES, O_NAME, O_JSON, O_ALL };

#define VENDOR_FIELD_OPTS \
	{ "criticality", O_CRIT, "0-4", "how much patient care depends on the vendor (4 most)", 0 }, \
	{ "contact", O_CONTACT, "TEXT", "who to call at the vendor", 0 }, \
	{ "notes", O_NOTES, "TEXT", "free text kept with the vendor", 0 }

static const struct opt add_opts[] = { VENDOR_FIELD_OPTS, { NULL, 0, NULL, NULL, 0 } };
static const struct opt edit_opts[] = {
	{ "name", O_NAME, "NEW", "rename the vendor", 0 },
	VENDOR_FIELD_OPTS,
	{ NULL, 0, NULL, NULL, 0 }
};
static const struct opt list_opts[] = {
	{ "all", O_ALL, NULL, "archived vendors too", 0 },
	{ "json", O_JSON, NULL, "print JSON (an array of vendors)", 0 },
	{ NULL, 0, NULL, NULL, 0 }
};
static const struct opt show_opts[] = {
	{ "json", O_JSON, NULL, "print JSON (the vendor with its endpoint_list)", 0 },
	{ NULL, 0, NULL, NULL, 0 }
};

/* The vendor's fields from the options; positionals follow at p->ind. */
static int
parse_vendor_opts(struct opt_parser *p, struct vendor_input *f, int *json, struct aerr *err)
{
	int c;

	while ((c = opt_next(p, err)) > 0) {
		switch (c) {
		case O_CRIT:
			if (parse_int_opt("--criticality", p->arg, 0, 4, &f->criticality, err) != 0)
				return err->code;
			f->set_crit = 1;
			break;
		case O_CONTACT:
			f->contact = p->arg, f->set_contact = 1;
			break;
		case O_NOTES:
			f->notes = p->arg, f->set_notes = 1;
			break;
		case O_NAME:
			f->name = p->arg, f->set_name = 1;
			break;
		case O_JSON:
			*json = 1;
			break;
		}
	}
	return c < 0 ? err->code : 0;
}

static int
cmd_vendor_add(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { .criticality = 2 };
	struct opt_parser p;
	struct db *db;
	int64_t id;

	opt_begin(&p, av, argc, argv);
	if (parse_vendor_opts(&p, &f, NULL, err) != 0)
		return err->code;
	f.name = argv[p.ind];
	if (name_check("vendor", f.name, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_add(db, av->actor, &f, &id, err) != 0)
		return err->code;
	term_printf(stdout, "vendor %s added (id %lld)\n", f.name, (long long)id);
	return 0;
}

static void
list_json_item(cJSON *o, void *ctx)
{
	json_stream_item(ctx, o);
}

static void
list_text_item(cJSON *o, void *ctx)
{
	(void)ctx;
	term_printf(stdout, "%-5lld %-32s %-4d %-9d %-8s %-9d %s\n",
	    (long long)cJSON_GetObjectItem(o, "id")->valuedouble, json_get_str(o, "name"),
	    cJSON_GetObjectItem(o, "criticality")->valueint,
	    cJSON_GetObjectItem(o, "endpoints")->valueint, json_get_str(o, "status"),
	    cJSON_GetObjectItem(o, "open_incidents")->valueint, json_get_str(o, "rating"));
	cJSON_Delete(o);
}

static int
vendor_list(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	int c, all = 0, json = 0, rc;
	struct db *db;
	struct json_stream js;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0) {
		if (c == O_ALL)
			all = 1;
		else if (c == O_JSON)
			json = 1;
	}
	if (c < 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (json) {
		json_stream_begin(&js);
		rc = vendor_list_rated_each(db, all, list_json_item, &js, err);
		json_stream_end(&js);
		return rc;
	}
	term_printf(stdout, "%-5s %-32s %-4s %-9s %-8s %-9s %s\n", "ID", "NAME", "CRIT", "ENDPOINTS", "STATUS",
	    "INCIDENTS", "RATING");
	return vendor_list_rated_each(db, all, list_text_item, NULL, err);
}

static int
vendor_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { 0 };
	struct opt_parser p;
	int json = 0;
	int64_t id;
	struct db *db;
	cJSON *o, *eps;

	opt_begin(&p, av, argc, argv);
	if (parse_vendor_opts(&p, &f, &json, err) != 0)
		return err->code;
	id = p.target[0];
	if ((db = av_db(av, err)) == NULL || vendor_json(db, id, &o, err) != 0)
		return err->code;
	/* Every endpoint of the vendor, archived ones too, by name. */
	if (endpoint_list_json(db, id, 1, &eps, err) != 0) {
		cJSON_Delete(o);
		return err->code;
	}
	cJSON_AddItemToObject(o, "endpoint_list", eps);
	{
		struct vendor_verdict v;

		if (vendor_rate(db, id, &v, err) != 0) {
			cJSON_Delete(o);
			return err->code;
		}
		vendor_verdict_add_json(o, &v);
	}
	if (json) {
		json_emit(o);
		return 0;
	}
	term_printf(stdout, "vendor %s (id %d)\n", cJSON_GetObjectItem(o, "name")->valuestring,
	    cJSON_GetObjectItem(o, "id")->valueint);
	term_printf(stdout, "  rating       %s: %s\n", json_get_str(o, "rating"), json_get_str(o, "rating_basis"));
	if (cJSON_IsObject(cJSON_GetObjectItem(o, "draft")))
		term_printf(stdout, "  in work      %s round %d: %s, score %.1f (not rated until final)\n",
		    json_get_str(cJSON_GetObjectItem(o, "draft"), "status"),
		    cJSON_GetObjectItem(cJSON_GetObjectItem(o, "draft"), "round")->valueint,
		    json_get_str(cJSON_GetObjectItem(o, "draft"), "rating"),
		    cJSON_GetObjectItem(cJSON_GetObjectItem(o, "draft"), "score")->valuedouble);
	term_printf(stdout, "  criticality  %d\n", cJSON_GetObjectItem(o, "criticality")->valueint);
	term_printf(stdout, "  status       %s\n", cJSON_GetObjectItem(o, "status")->valuestring);
	term_printf(stdout, "  contact      %s\n", cJSON_IsString(cJSON_GetObjectItem(o, "contact")) ?
	    cJSON_GetObjectItem(o, "contact")->valuestring : "-");
	term_printf(stdout, "  notes        %s\n", cJSON_IsString(cJSON_GetObjectItem(o, "notes")) ?
	    cJSON_GetObjectItem(o, "notes")->valuestring : "-");
	term_printf(stdout, "  created      %s\n", cJSON_GetObjectItem(o, "created_at")->valuestring);
	term_printf(stdout, "  endpoints\n");
	{
		cJSON *e;

		cJSON_ArrayForEach(e, eps)
			term_printf(stdout, "    %-24s %-12s %-10s %s (%s)\n", cJSON_GetObjectItem(e, "name")->valuestring,
			    cJSON_GetObjectItem(e, "api")->valuestring,
			    cJSON_GetObjectItem(e, "status")->valuestring,
			    cJSON_GetObjectItem(e, "url")->valuestring,
			    cJSON_GetObjectItem(e, "model")->valuestring);
	}
	cJSON_Delete(o);
	return 0;
}

static int
cmd_vendor_edit(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct vendor_input f = { 0 };
	struct opt_parser p;
	struct db *db;

	opt_begin(&p, av, argc, argv);
	if (parse_vendor_opts(&p, &f, NULL, err) != 0)
		return err->code;
	if (!f.set_name && !f.set_crit && !f.set_contact && !f.set_notes)
		return usage_error(av, err, "vendor edit: nothing to change");
	if (f.set_name && name_check("vendor", f.name, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_edit(db, av->actor, argv[p.ind], &f, err) != 0)
		return err->code;
	term_printf(stdout, "vendor %s updated\n", f.set_name ? f.name : argv[p.ind]);
	return 0;
}

static int
cmd_vendor_archive(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	struct db *db;
	int c;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0)
		;
	if (c < 0 || (db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_archive(db, av->actor, argv[p.ind], err) != 0)
		return err->code;
	term_printf(stdout, "vendor %s archived\n", argv[p.ind]);
	return 0;
}

static const struct cmd_entry vendor_subs[] = {
	{ "add", "NAME", add_opts, "add a vendor", cmd_vendor_add, NULL,
	  ARGS({ TARGET_WORD, 0 }) },
	{ "list", NULL, list_opts, "list vendors (archived ones with --all)", vendor_list, NULL,
	  ARGS_NONE },
	{ "show", "NAME|ID", show_opts, "show a vendor and its endpoints", vendor_show, NULL,
	  ARGS({ TARGET_VENDOR, 0 }) },
	{ "edit", "NAME|ID", edit_opts, "change a vendor's fields", cmd_vendor_edit, NULL,
	  ARGS({ TARGET_VENDOR, 0 }) },
	{ "archive", "NAME|ID", NULL, "archive a vendor and its endpoints (nothing is deleted)",
	  cmd_vendor_archive, NULL, ARGS({ TARGET_VENDOR, 0 }) },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL }
};

const struct cmd_entry cmd_vendor_entry = {
	"vendor", NULL, NULL, "manage the vendors under review", NULL, vendor_subs, NULL
};
