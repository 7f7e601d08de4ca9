/*
 * tui/incidents.c: the incident list — every incident (or one vendor's)
 * with its status and the clock due next. A row with an overdue clock is
 * marked and says OVERDUE in words, so colour is never the only signal.
 * Opening an incident calls incident_open, as "incident open" does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/incident.h"
#include "tui.h"

#define SOON_MS ((int64_t)7 * 24 * 3600 * 1000)

struct incidents_state {
	int64_t vendor_id;        /* 0: all vendors */
	char vendor[128];
	struct tui_list list;
	int overdue;
};

static const enum request incidents_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_ADD, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
incidents_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct incidents_state *s = xcalloc(1, sizeof *s);

	v->state = s;
	if (arg != NULL) {
		s->vendor_id = *(const int64_t *)arg;
		if (vendor_name(t->av->db, s->vendor_id, s->vendor, sizeof s->vendor, err) != 0)
			return err->code;
	}
	return 0;
}

/* One incident's row: its clocks say how urgent it is. */
static void
add_row(struct incidents_state *s, const struct incident *r, int64_t now)
{
	const struct incident_clock *next, *over[CLOCK_COUNT];
	char clocks[160] = "";
	int mark = TUI_MARK_NONE, nover;

	next = incident_next_due(r, over, &nover);
	for (int i = 0; i < nover; i++) {
		size_t n = strlen(clocks);

		snprintf(clocks + n, sizeof clocks - n, "%s%s", i ? "," : "OVERDUE ", over[i]->id);
	}
	if (nover == 0 && next != NULL) {
		if (next->due_ms - now < SOON_MS)
			mark = TUI_MARK_WARN;
		/* As the rule states it: a date-only deadline as a date, an instant with its zone. */
		snprintf(clocks, sizeof clocks, "%s due %s", next->id, next->due_text);
	} else if (nover == 0) {
		snprintf(clocks, sizeof clocks, "-");
	}
	if (nover) {
		mark = TUI_MARK_BAD;
		s->overdue++;
	} else if (strcmp(r->status, "closed") == 0) {
		mark = TUI_MARK_DIM;
	}
	tui_list_add(&s->list, r->id, mark, "%-4lld %-13s %-16.16s %-36.36s %s", (long long)r->id,
	    r->status, r->vendor, clocks, r->title);
}

static int
incidents_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct incidents_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->list), now = now_ms();
	struct incident_list l;

	if (incident_list_load(t->av->db, s->vendor_id, 0, now, &l, err) != 0)
		return err->code;
	tui_list_clear(&s->list);
	s->overdue = 0;
	snprintf(s->list.header, sizeof s->list.header, "%-4s %-13s %-16s %-36s %s", "ID", "STATUS",
	    "VENDOR", "CLOCKS", "TITLE");
	/* Open incidents first, newest first; the closed ones after them. */
	for (int closed = 0; closed < 2; closed++)
		for (size_t i = l.n; i-- > 0;)
			if ((strcmp(l.items[i].status, "closed") == 0) == closed)
				add_row(s, &l.items[i], now);
	incident_list_free(&l);
	tui_list_restore(&s->list, keep);
	return 0;
}

static void
incidents_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct incidents_state *s = v->state;

	if (s->list.n == 0 && s->list.filter[0] == '\0') {
		tui_put(w, 1, 2, cols - 2, "No incidents. Press a to open one.");
		return;
	}
	tui_list_draw(&s->list, t, w, 0, rows, cols);
}

struct open_ctx {
	struct tui *t;
};


static int
check_phi(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0 || strcmp(value, "unknown") == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "yes, no or unknown");
}

static int
open_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct open_ctx *c = p;
	struct incident_open_input in = {
		.vendor = f[0].value, .title = f[1].value, .phi = f[4].value,
		.endpoint = f[2].value[0] ? f[2].value : NULL,
		.discovered = f[3].value[0] ? f[3].value : NULL,
		.individuals = f[5].value[0] ? f[5].value : NULL,
	};
	int64_t id;
	struct incident_opened opened;

	(void)n;
	if (incident_open(c->t->av, &in, &id, &opened, err) != 0)
		return err->code;
	tui_changed(c->t);
	tui_status(c->t, 0, "incident %lld opened for vendor %s (discovered %s)", (long long)id,
	    in.vendor, opened.discovered);
	return 0;
}

static int
open_form(struct tui *t, struct incidents_state *s)
{
	struct tui_field f[6] = {
		{ .label = "Vendor", .width = 32, .hint = "the vendor's name" },
		{ .label = "Title", .width = 50, .hint = "what happened, in a line" },
		{ .label = "Endpoint", .width = 40, .hint = "VENDOR/NAME (optional)" },
		{ .label = "Discovered", .width = 26, .check = tui_check_time,
		  .hint = "ISO 8601 with a zone, e.g. 2026-03-04T09:12:00-05:00; empty: now" },
		{ .label = "PHI", .width = 8, .check = check_phi, .hint = "yes, no or unknown" },
		{ .label = "Individuals", .width = 10, .hint = "how many people (optional)" },
	};
	struct open_ctx c = { t };

	snprintf(f[0].value, sizeof f[0].value, "%s", s->vendor);
	snprintf(f[4].value, sizeof f[4].value, "unknown");
	tui_form(t, "Open incident", f, 6, open_submit, &c);
	return 0;
}

static int
incidents_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct incidents_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);

	if (tui_list_request(&s->list, t, req, v->content_rows - 1))
		return 0;
	switch (req) {
	case REQ_ADD:
		return open_form(t, s);
	case REQ_ENTER:
		if (id < 0)
			return 0;
		return tui_push(t, &tui_incident_view, &id, err);
	default:
		return 0;
	}
}

static void
incidents_close(struct view *v)
{
	struct incidents_state *s = v->state;

	tui_list_free(&s->list);
	free(s);
}

static void
incidents_title(struct view *v, char *buf, size_t n)
{
	struct incidents_state *s = v->state;

	snprintf(buf, n, "Incidents%s%s (%d, %d overdue)%s%s", s->vendor[0] ? " of " : "", s->vendor,
	    s->list.n, s->overdue, s->list.filter[0] ? "  filter: " : "", s->list.filter);
}

static void
incidents_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct incidents_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->list, row);
	if (dbl && incidents_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_incidents_view = {
	"incidents", incidents_requests, incidents_open, incidents_load, incidents_draw,
	incidents_request, incidents_close, incidents_title, incidents_click, NULL
};
