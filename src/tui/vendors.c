/*
 * tui/vendors.c: the vendor list — the first screen until the dashboard
 * has data to show. Adding, editing and archiving call the domain's
 * vendor_add, vendor_edit and vendor_archive, as the vendor commands do, so
 * the screen and the CLI validate alike; the screen words its own status line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "aivet/vendor-rating.h"

struct vendors_state {
	struct tui_list list;
	int show_archived;
};

static const enum request vendors_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_ADD, REQ_EDIT, REQ_ARCHIVE, REQ_INCIDENT, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
vendors_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	v->state = xcalloc(1, sizeof(struct vendors_state));
	(void)t, (void)arg, (void)err;
	return 0;
}

static int
vendors_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct vendors_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->list);
	struct vendor_list l;
	char name[160];

	if (vendor_list_rated(t->av->db, 0, &l, err) != 0)
		return err->code;
	tui_list_clear(&s->list);
	snprintf(s->list.header, sizeof s->list.header, "%-2s %-24s %-12s %-4s %-9s %s", "!!", "VENDOR",
	    "RATING", "CRIT", "ENDPOINTS", "OPEN INCIDENTS");
	for (size_t i = 0; i < l.n; i++) {
		const struct vendor *o = &l.items[i];
		int incidents = (int)o->open_incidents;
		enum rating r = o->rating->rating;

		tui_list_add(&s->list, o->id,
		    incidents || r == RATING_UNACCEPTABLE ? TUI_MARK_BAD : r == RATING_CONCERNS ?
		    TUI_MARK_WARN : TUI_MARK_NONE, "%s %s %-12s %-4d %-9d %d",
		    tui_rating_marker(r, incidents), tui_fit_mid(name, sizeof name, o->name, 24),
		    rating_name(r), (int)o->criticality, (int)o->endpoints, incidents);
	}
	vendor_list_free(&l);
	tui_list_restore(&s->list, keep);
	return 0;
}

static void
vendors_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct vendors_state *s = v->state;

	if (s->list.n == 0 && s->list.filter[0] == '\0') {
		tui_put(w, 1, 2, cols - 2, "No vendors yet. Press a to add the first one.");
		return;
	}
	tui_list_draw(&s->list, t, w, 0, rows, cols);
}

/* Field checks, run as the user types. */
static int
check_vendor_name(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return name_check("vendor", value, err);
}

static int
check_criticality(const char *value, void *ctx, struct aerr *err)
{
	int64_t c;

	(void)ctx;
	return parse_int_opt("criticality", value, 0, 4, &c, err);
}

struct vendor_form_ctx {
	struct tui *t;
	int64_t id;   /* 0 when adding */
};

static int
vendor_form_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct vendor_form_ctx *c = p;
	struct vendor_input in = { .name = f[0].value, .set_name = 1, .set_crit = 1 };
	char ref[32];
	struct db *db;
	int64_t id;

	(void)n;
	if (parse_int_opt("--criticality", f[1].value, 0, 4, &in.criticality, err) != 0)
		return err->code;
	/* An empty optional field is left unset when adding, cleared when editing. */
	if (c->id || f[2].value[0])
		in.contact = f[2].value, in.set_contact = 1;
	if (c->id || f[3].value[0])
		in.notes = f[3].value, in.set_notes = 1;
	if ((db = av_db(c->t->av, err)) == NULL)
		return err->code;
	if (c->id == 0) {
		if (vendor_add(db, c->t->av->actor, &in, &id, err) != 0)
			return err->code;
		tui_changed(c->t);
		tui_status(c->t, 0, "vendor %s added (id %lld)", in.name, (long long)id);
		return 0;
	}
	snprintf(ref, sizeof ref, "%lld", (long long)c->id);
	if (vendor_edit(db, c->t->av->actor, ref, &in, err) != 0)
		return err->code;
	tui_changed(c->t);
	tui_status(c->t, 0, "vendor %s updated", in.name);
	return 0;
}

static int
vendor_form(struct tui *t, int64_t id, struct aerr *err)
{
	struct tui_field f[4] = {
		{ .label = "Name", .width = 40, .check = check_vendor_name,
		  .hint = "the vendor's name; unique, no '/'" },
		{ .label = "Criticality", .width = 4, .check = check_criticality,
		  .hint = "0 (none) to 4 (critical to patient care)" },
		{ .label = "Contact", .width = 40, .hint = "security contact (optional)" },
		{ .label = "Notes", .width = 40, .hint = "notes (optional)" },
	};
	struct vendor_form_ctx c = { t, id };
	struct vendor o;

	snprintf(f[1].value, sizeof f[1].value, "2");
	if (id != 0) {
		if (vendor_get(t->av->db, id, &o, err) != 0)
			return err->code;
		snprintf(f[0].value, sizeof f[0].value, "%s", o.name);
		snprintf(f[1].value, sizeof f[1].value, "%d", (int)o.criticality);
		if (o.contact != NULL)
			snprintf(f[2].value, sizeof f[2].value, "%s", o.contact);
		if (o.notes != NULL)
			snprintf(f[3].value, sizeof f[3].value, "%s", o.notes);
		vendor_free(&o);
	}
	tui_form(t, id ? "Edit vendor" : "Add vendor", f, 4, vendor_form_submit, &c);
	return 0;
}

static int
vendors_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct vendors_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);
	char ids[32], name[256];

	if (tui_list_request(&s->list, t, req, v->content_rows - 1))
		return 0;
	switch (req) {
	case REQ_ADD:
		return vendor_form(t, 0, err);
	case REQ_EDIT:
		if (id < 0)
			return aerr_set(err, AV_USAGE, "no vendor selected");
		return vendor_form(t, id, err);
	case REQ_ARCHIVE:
		if (id < 0)
			return aerr_set(err, AV_USAGE, "no vendor selected");
		snprintf(ids, sizeof ids, "%lld", (long long)id);
		if (vendor_name(t->av->db, id, name, sizeof name, err) != 0)
			return err->code;
		if (!tui_confirm(t, "Archive vendor %s and its endpoints? Nothing is deleted.", name))
			return 0;
		if (vendor_archive(t->av->db, t->av->actor, ids, err) != 0)
			return err->code;
		tui_changed(t);
		tui_status(t, 0, "vendor %s archived", ids);
		return 0;
	case REQ_ENTER:
		if (id < 0)
			return 0;
		return tui_push(t, &tui_vendor_view, &id, err);
	case REQ_INCIDENT:
		return tui_push(t, &tui_incidents_view, NULL, err);
	default:
		return 0;
	}
}

static void
vendors_close(struct view *v)
{
	struct vendors_state *s = v->state;

	tui_list_free(&s->list);
	free(s);
}

static void
vendors_title(struct view *v, char *buf, size_t n)
{
	struct vendors_state *s = v->state;

	snprintf(buf, n, "Vendors (%d)%s%s", s->list.n, s->list.filter[0] ? "  filter: " : "",
	    s->list.filter);
}

static void
vendors_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct vendors_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->list, row);
	if (dbl && vendors_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_vendors_view = {
	"vendors", vendors_requests, vendors_open, vendors_load, vendors_draw, vendors_request,
	vendors_close, vendors_title, vendors_click, NULL
};
