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
	{ .name = "criticality", .id = O_CRIT, .arg = "0-4", \
	  .help = "how much patient care depends on the vendor (4 most)" }, \
	{ .name = "contact", .id = O_CONTACT, .arg = "TEXT", \
	  .help = "who to call at the vendor" }, \
	{ .name = "notes", .id = O_NOTES, .arg = "TEXT", \
	  .help = "free text kept with the vendor" }

static const struct opt add_opts[] = { VENDOR_FIELD_OPTS, { 0 } };
static const struct opt edit_opts[] = {
	{ .name = "name", .id = O_NAME, .arg = "NEW", .help = "rename the vendor" },
	VENDOR_FIELD_OPTS,
	{ 0 }
};
static const struct opt list_opts[] = {
	{ .name = "all", .id = O_ALL, .help = "archived vendors too" },
	{ .name = "json", .id = O_JSON, .help = "print JSON (an array of vendors)" },
	{ 0 }
};
static const struct opt show_opts[] = {
	{ .name = "json", .id = O_JSON, .help = "print JSON (the vendor with its endpoint_list)" },
	{ 0 }
};

/* The vendor's fields from the options given. */
static int
vendor_fields(const struct cmd_args *a, struct vendor_input *f, struct aerr *err)
{
	if (args_has(a, O_CRIT)) {
		if (parse_int_opt("--criticality", args_get(a, O_CRIT), 0, 4, &f->criticality, err) != 0)
			return err->code;
		f->set_crit = 1;
	}
	if (args_has(a, O_CONTACT))
		f->contact = args_get(a, O_CONTACT), f->set_contact = 1;
	if (args_has(a, O_NOTES))
		f->notes = args_get(a, O_NOTES), f->set_notes = 1;
	if (args_has(a, O_NAME))
		f->name = args_get(a, O_NAME), f->set_name = 1;
	return 0;
}

static int
cmd_vendor_add(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct vendor_input f = { .criticality = 2 };
	struct db *db;
	int64_t id;

	if (vendor_fields(a, &f, err) != 0)
		return err->code;
	f.name = a->word[0];
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
list_json_item(const struct vendor *v, void *ctx)
{
	json_stream_item(ctx, vendor_to_json(v));
}

static void
list_text_item(const struct vendor *v, void *ctx)
{
	(void)ctx;
	term_printf(stdout, "%-5lld %-32s %-4d %-9d %-8s %-9d %s\n", (long long)v->id, v->name,
	    (int)v->criticality, (int)v->endpoints, v->status, (int)v->open_incidents,
	    rating_name(v->rating->rating));
}

static int
vendor_list(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int all = args_has(a, O_ALL), json = args_has(a, O_JSON), rc;
	struct db *db;
	struct json_stream js;

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (json) {
		json_stream_begin(&js);
		rc = vendor_each_rated(db, all, list_json_item, &js, err);
		json_stream_end(&js);
		return rc;
	}
	term_printf(stdout, "%-5s %-32s %-4s %-9s %-8s %-9s %s\n", "ID", "NAME", "CRIT", "ENDPOINTS", "STATUS",
	    "INCIDENTS", "RATING");
	return vendor_each_rated(db, all, list_text_item, NULL, err);
}

static int
vendor_show(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int json = args_has(a, O_JSON);
	struct db *db;
	struct vendor v;
	const struct vendor_verdict *r;
	char basis[1024], counts[128];

	if ((db = av_db(av, err)) == NULL || vendor_show_load(db, a->target[0], &v, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = vendor_to_json(&v);

		json_emit(o);
		vendor_free(&v);
		return 0;
	}
	r = v.rating;
	vendor_verdict_basis(r, basis, sizeof basis);
	term_printf(stdout, "vendor %s (id %d)\n", v.name, (int)v.id);
	term_printf(stdout, "  rating       %s: %s\n", rating_name(r->rating), basis);
	vendor_verdict_counts(r, counts, sizeof counts);
	term_printf(stdout, "  findings     open: %s\n", counts);
	if (r->draft_id != 0)
		term_printf(stdout, "  in work      %s round %d: %s, score %.1f (not rated until final)\n",
		    assessment_status_name(r->draft_status), (int)r->draft_round, rating_name(r->draft_rating),
		    r->draft_score);
	/* Every round in work, not only the newest one the rating shows beside it. */
	for (size_t i = 0; i < v.nin_work; i++) {
		char round[160];

		vendor_round_text(&v.in_work[i], round, sizeof round);
		term_printf(stdout, "  round        %s\n", round);
	}
	term_printf(stdout, "  criticality  %d\n", (int)v.criticality);
	term_printf(stdout, "  status       %s\n", v.status);
	term_printf(stdout, "  contact      %s\n", v.contact ? v.contact : "-");
	term_printf(stdout, "  notes        %s\n", v.notes ? v.notes : "-");
	term_printf(stdout, "  created      %s\n", v.created_at);
	term_printf(stdout, "  endpoints\n");
	for (size_t i = 0; i < v.endpoint_list.n; i++) {
		const struct endpoint *e = &v.endpoint_list.items[i];

		term_printf(stdout, "    %-24s %-12s %-10s %s (%s)\n", e->name, e->api, e->status, e->url,
		    e->model);
	}
	vendor_free(&v);
	return 0;
}

static int
cmd_vendor_edit(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct vendor_input f = { 0 };
	struct db *db;

	if (vendor_fields(a, &f, err) != 0)
		return err->code;
	if (!f.set_name && !f.set_crit && !f.set_contact && !f.set_notes)
		return usage_error(av, err, "vendor edit: nothing to change");
	if (f.set_name && name_check("vendor", f.name, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_edit(db, av->actor, a->word[0], &f, err) != 0)
		return err->code;
	term_printf(stdout, "vendor %s updated\n", f.set_name ? f.name : a->word[0]);
	return 0;
}

static int
cmd_vendor_archive(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct db *db;

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (vendor_archive(db, av->actor, a->word[0], err) != 0)
		return err->code;
	term_printf(stdout, "vendor %s archived\n", a->word[0]);
	return 0;
}

static const struct cmd_entry vendor_subs[] = {
	{ .name = "add", .targets = "NAME", .opts = add_opts, .summary = "add a vendor",
	  .exec = cmd_vendor_add, .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "list", .opts = list_opts, .summary = "list vendors (archived ones with --all)",
	  .exec = vendor_list, .args = ARGS_NONE },
	{ .name = "show", .targets = "NAME|ID", .opts = show_opts,
	  .summary = "show a vendor and its endpoints", .exec = vendor_show,
	  .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ .name = "edit", .targets = "NAME|ID", .opts = edit_opts,
	  .summary = "change a vendor's fields", .exec = cmd_vendor_edit,
	  .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ .name = "archive", .targets = "NAME|ID",
	  .summary = "archive a vendor and its endpoints (nothing is deleted)",
	  .exec = cmd_vendor_archive, .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_vendor_entry = {
	.name = "vendor",
	.summary = "manage the vendors under review",
	.subs = vendor_subs,
};
