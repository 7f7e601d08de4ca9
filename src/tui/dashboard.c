/*
 * tui/dashboard.c: the first screen once there is data — every notification
 * clock overdue (worst first) or due soon, vendors by rating, open incidents
 * with their nearest deadline, recent probe runs with their worst finding,
 * and assessments waiting for review, as dashboard_load() reads them. Each
 * row opens the record behind it. On a wide terminal the sections stand in
 * two columns.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "aivet/assess.h"
#include "aivet/dashboard.h"
#include "aivet/finding.h"
#include "aivet/zone.h"
#include "aivet/incident.h"
#include "aivet/rating.h"

enum { OBJ_VENDOR = 1, OBJ_INCIDENT, OBJ_RUN, OBJ_ASSESSMENT };
#define OBJ(type, id) (((int64_t)(type) << 40) | (id))
#define OBJ_TYPE(x) ((int)((x) >> 40))
#define OBJ_ID(x) ((x) & ((INT64_C(1) << 40) - 1))
#define SECTION_ROWS 12

struct dash_state {
	struct tui_list left, right;   /* right is empty on a narrow terminal */
	int focus_right;
	int wide;
	int cols;                      /* the width the rows were made for */
};

static const enum request dash_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH, REQ_ENTER,
	REQ_NEXT_PANE, REQ_VENDORS, REQ_INCIDENT, REQ_ADD, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
dash_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	v->state = xcalloc(1, sizeof(struct dash_state));
	(void)t, (void)arg, (void)err;
	return 0;
}

static void
section(struct tui_list *l, const char *title)
{
	if (l->n > 0)
		tui_list_add(l, 0, TUI_MARK_NONE, "%s", "");
	tui_list_add(l, 0, TUI_MARK_NONE, "== %s ==", title);
}

/* The width of a column that gives way to the rest of a row of width cols:
 * at most want, at least least, and what the row's fixed part leaves. */
static int
give_way(int cols, int fixed, int want, int least)
{
	int w = cols - fixed;

	return w > want ? want : w < least ? least : w;
}

/* cols: the pane's width. The name gives way (cut with an ellipsis), so that
 * the rating, the score and a draft's rating after it are whole. */
static void
show_vendors(const struct dashboard *d, struct tui_list *l, int cols)
{
	char tail[200], name[160];
	int tailw = 0, namew, longest = 8;

	section(l, "Vendors by rating");
	for (int i = 0; i < d->nvendors; i++) {
		vendor_verdict_short(&d->vendors[i].v, tail, sizeof tail);
		if ((int)strlen(tail) > tailw)
			tailw = (int)strlen(tail);
		if ((int)strlen(d->vendors[i].name) > longest)
			longest = (int)strlen(d->vendors[i].name);
	}
	/* The list draws from column 2; a row is "?  NAME RATING TAIL". */
	namew = give_way(cols - 2, 3 + 1 + 12 + 1 + tailw, longest, 12);
	for (int i = 0; i < d->nvendors; i++) {
		const struct dash_vendor *v = &d->vendors[i];
		int r = v->v.rating;

		vendor_verdict_short(&v->v, tail, sizeof tail);
		tui_list_add(l, OBJ(OBJ_VENDOR, v->id), r == RATING_UNACCEPTABLE ? TUI_MARK_BAD :
		    r == RATING_CONCERNS ? TUI_MARK_WARN : TUI_MARK_NONE, "%s %s %-12s %s",
		    tui_rating_marker(r, 0), tui_fit_mid(name, sizeof name, v->name, namew),
		    rating_name(r), tail);
	}
}

/* Every clock overdue, worst first, then those due soon: one line each, naming
 * the incident, the clock and how long overdue or left. Only when there is one.
 * cols: the pane's width. The title gives way (cut with an ellipsis and a space),
 * so that the clock and the time overdue or left are whole. */
static void
show_clocks(const struct dashboard *d, struct tui_list *l, int cols)
{
	int duew = 0, titlew, longest = 8;
	char title[160];

	if (d->clocks.n == 0)
		return;
	section(l, "Notification clocks");
	for (size_t i = 0; i < d->clocks.n; i++) {
		const struct due_clock *c = &d->clocks.clocks[i];
		int over = strcmp(c->state, "overdue") == 0;
		int w = (int)strlen(over ? "OVERDUE by " : "due in ") + (int)strlen(over ? c->overdue_by : c->time_left);

		if (w > duew)
			duew = w;
		if ((int)strlen(c->title) > longest)
			longest = (int)strlen(c->title);
	}
	/* The list draws from column 2; a row is "!! #NNN TITLE CLOCK DUE": the title
	 * takes the room there is, up to its whole length. */
	titlew = give_way(cols - 2, 8 + 1 + 27 + 1 + duew, longest, 8);
	for (size_t i = 0; i < d->clocks.n; i++) {
		const struct due_clock *c = &d->clocks.clocks[i];
		int over = strcmp(c->state, "overdue") == 0;

		tui_list_add(l, OBJ(OBJ_INCIDENT, c->incident), over ? TUI_MARK_BAD : TUI_MARK_WARN,
		    "%s #%-3lld %s %-27.27s %s %s", over ? "!!" : "! ", (long long)c->incident,
		    tui_fit(title, sizeof title, c->title, titlew), c->clock_name, over ? "OVERDUE by" : "due in",
		    over ? c->overdue_by : c->time_left);
	}
	/* A deadline that ends a day ends it in the organisation's zone: say when that is assumed. */
	if (org_zone() == NULL)
		tui_list_add(l, 0, TUI_MARK_DIM, "   no organisation zone: days end in UTC (aivet db timezone ZONE)");
}

/* When an incident's nearest clock is due, or how many are overdue, into when;
 * its number of overdue clocks. */
static int
incident_when(const struct incident *i, int64_t now, char *when, size_t n)
{
	const struct incident_clock *next, *overdue[CLOCK_COUNT];
	int nover;

	snprintf(when, n, "no running clock");
	next = incident_next_due(i, overdue, &nover);
	if (nover > 1) {
		snprintf(when, n, "%d clocks OVERDUE", nover);
	} else if (next != NULL) {
		char left[32];

		fmt_duration(nover ? now - next->due_ms : next->due_ms - now, left, sizeof left);
		snprintf(when, n, "%s %s %s", next->id, nover ? "OVERDUE by" : "due in", left);
	}
	return nover;
}

/* cols: the pane's width. The title gives way (cut with an ellipsis and a space),
 * so that the state and when the next clock is due are whole; the vendor, last,
 * is cut at the edge as every list line is. */
static void
show_incidents(const struct dashboard *d, int64_t now, struct tui_list *l, int cols)
{
	char when[64], title[160];
	int whenw = 0, titlew, longest = 8;

	section(l, "Open incidents");
	for (size_t k = 0; k < d->incidents.n; k++) {
		incident_when(&d->incidents.items[k], now, when, sizeof when);
		if ((int)strlen(when) > whenw)
			whenw = (int)strlen(when);
		if ((int)strlen(d->incidents.items[k].title) > longest)
			longest = (int)strlen(d->incidents.items[k].title);
	}
	/* The list draws from column 2; a row is "!! #NNN TITLE STATUS WHEN  [VENDOR]". */
	titlew = give_way(cols - 2, 8 + 1 + 13 + 1 + whenw, longest, 8);
	for (size_t k = 0; k < d->incidents.n; k++) {
		const struct incident *i = &d->incidents.items[k];
		int nover = incident_when(i, now, when, sizeof when);

		tui_list_add(l, OBJ(OBJ_INCIDENT, i->id), nover ? TUI_MARK_BAD : TUI_MARK_WARN,
		    "%s #%-3lld %s %-13s %s  [%s]", nover ? "!!" : "! ", (long long)i->id,
		    tui_fit(title, sizeof title, i->title, titlew), i->status, when, i->vendor);
	}
	if (d->incidents.n == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none");
}

/* cols: the pane's width. The endpoint, what tells runs apart, takes the room
 * the rest leaves: the vendor's name gives way first (tui_fit_ref). */
static void
show_runs(const struct dashboard *d, struct tui_list *l, int cols)
{
	int longest = 12, worstw = 16, namew;   /* "NN/NN inconclusive" at least */
	char name[200];

	section(l, "Recent probe runs");
	for (size_t i = 0; i < d->runs.n; i++) {
		if ((int)strlen(d->runs.items[i].endpoint) > longest)
			longest = (int)strlen(d->runs.items[i].endpoint);
		if (d->runs.items[i].worst != NULL && (int)strlen(d->runs.items[i].worst) > worstw)
			worstw = (int)strlen(d->runs.items[i].worst);
	}
	/* The list draws from column 2; a row is "!! run NNNN ENDPOINT STATUS STARTED  WORST". */
	namew = give_way(cols - 2, 2 + 1 + 3 + 1 + 4 + 1 + 1 + 11 + 1 + 16 + 2 + worstw, longest, 12);
	for (size_t i = 0; i < d->runs.n; i++) {
		const struct probe_run *r = &d->runs.items[i];
		char sum[160];
		/* Never "ok" while a probe is inconclusive: the run's outcome, as every list gives it. */
		enum run_outcome o = probe_run_outcome(r, sum, sizeof sum);

		if (o == RUN_OUTCOME_UNSURE && r->unjudged > 0)   /* short enough for 80 columns */
			snprintf(sum, sizeof sum, "%lld/%lld inconclusive", (long long)r->unjudged,
			    (long long)r->results);
		tui_list_add(l, OBJ(OBJ_RUN, r->id), o == RUN_OUTCOME_BAD ? TUI_MARK_BAD :
		    o == RUN_OUTCOME_OK ? TUI_MARK_GOOD : TUI_MARK_WARN,
		    "%s run %-4d %s %-11s %.16s  %s", o == RUN_OUTCOME_BAD ? "!!" :
		    o == RUN_OUTCOME_WARN ? "! " : o == RUN_OUTCOME_UNSURE ? "? " : "ok", (int)r->id,
		    tui_fit_ref(name, sizeof name, r->endpoint, namew), r->status, r->started_at,
		    o == RUN_OUTCOME_OK || o == RUN_OUTCOME_UNSURE ? sum : r->worst);
	}
	if (d->runs.n == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none yet (r on an endpoint runs probes)");
}

/* The vendor and questionnaire give way (with an ellipsis) to the round and
 * the time it has waited since. */
static void
show_reviews(const struct dashboard *d, struct tui_list *l, int cols)
{
	int room = cols - 2 - 9 - 2 - (int)strlen(" round 99  since 2026-11-30T00:00");
	int vendorw = room >= 44 ? 20 : give_way(room * 20 / 44, 0, 20, 8);
	int qnw = give_way(room - vendorw, 0, 24, 8);

	section(l, "Assessments waiting for review");
	for (int i = 0; i < d->nreviews; i++) {
		char vendor[160], qn[100];

		tui_list_add(l, OBJ(OBJ_ASSESSMENT, d->reviews[i].id), TUI_MARK_WARN,
		    "?  #%-4lld %s %s round %d  since %.16s", (long long)d->reviews[i].id,
		    tui_fit(vendor, sizeof vendor, d->reviews[i].vendor, vendorw),
		    tui_fit(qn, sizeof qn, d->reviews[i].questionnaire, qnw), d->reviews[i].round,
		    d->reviews[i].submitted_at);
	}
	if (d->nreviews == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none");
}

static void
skip_headers(struct tui_list *l, int dir)
{
	/* Section titles and blanks (id 0) are not selectable. */
	for (int guard = 0; guard < l->nvis && l->nvis > 0 && l->ids[l->vis[l->sel]] == 0; guard++) {
		if (l->sel + dir < 0 || l->sel + dir >= l->nvis)
			dir = -dir;
		l->sel += dir;
	}
}

static int
dash_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct dash_state *s = v->state;
	int64_t keep_l = tui_list_selected_id(&s->left), keep_r = tui_list_selected_id(&s->right);
	int64_t now = now_ms();
	struct dashboard d;
	struct tui_list *r;
	int rc;

	s->wide = COLS >= 160;
	s->cols = COLS;
	r = s->wide ? &s->right : &s->left;
	tui_list_clear(&s->left);
	tui_list_clear(&s->right);
	if ((rc = dashboard_load(t->av->db, now, SECTION_ROWS, &d, err)) == 0) {
		/* Deadlines first: an overdue notice is what most needs someone now. */
		show_clocks(&d, r, s->wide ? COLS - COLS / 2 : COLS);
		show_vendors(&d, &s->left, s->wide ? COLS / 2 - 1 : COLS);
		show_reviews(&d, &s->left, s->wide ? COLS / 2 - 1 : COLS);
		show_incidents(&d, now, r, s->wide ? COLS - COLS / 2 : COLS);
		show_runs(&d, r, s->wide ? COLS - COLS / 2 : COLS);
	}
	dashboard_free(&d);
	tui_list_restore(&s->left, keep_l);
	tui_list_restore(&s->right, keep_r);
	skip_headers(&s->left, 1);
	skip_headers(&s->right, 1);
	if (!s->wide)
		s->focus_right = 0;
	return rc;
}

static void
dash_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct dash_state *s = v->state;

	if (s->wide != (cols >= 160) || s->cols != cols) {
		struct aerr err = { 0 };

		dash_load(v, t, &err);   /* the terminal was resized: the rows fit the new width */
	}
	if (!s->wide) {
		tui_list_draw(&s->left, t, w, 0, rows, cols);
		return;
	}
	{
		int half = cols / 2;
		WINDOW *l = derwin(w, rows, half - 1, 0, 0), *r = derwin(w, rows, cols - half, 0, half);

		if (l && r) {
			struct tui_list *blur = s->focus_right ? &s->left : &s->right;
			int saved = blur->sel;

			s->left.blur = s->focus_right;
			s->right.blur = !s->focus_right;
			tui_list_draw(&s->left, t, l, 0, rows, half - 1);
			tui_list_draw(&s->right, t, r, 0, rows, cols - half);
			mvwvline(w, 0, half - 1, ACS_VLINE, rows);
			blur->sel = saved;
		}
		if (l)
			delwin(l);
		if (r)
			delwin(r);
	}
}

static int
open_object(struct tui *t, int64_t obj, struct aerr *err)
{
	int64_t id = OBJ_ID(obj);

	switch (OBJ_TYPE(obj)) {
	case OBJ_VENDOR:
		return tui_push(t, &tui_vendor_view, &id, err);
	case OBJ_INCIDENT:
		return tui_push(t, &tui_incident_view, &id, err);
	case OBJ_RUN:
		return tui_push(t, &tui_probe_run_view, &id, err);
	case OBJ_ASSESSMENT:
		/* A round waiting for review opens where it is reviewed: V approves, U returns. */
		return tui_push(t, &tui_assess_view, &id, err);
	default:
		return 0;
	}
}

/* Tab: the selection goes to the next section; past a pane's last section it
 * goes to the other pane (on a wide terminal) or back to the first. */
static void
next_section(struct dash_state *s, struct tui *t)
{
	struct tui_list *l = s->focus_right ? &s->right : &s->left;

	for (int i = l->sel + 1; i < l->nvis; i++)
		if (l->ids[l->vis[i]] == 0 && strncmp(l->rows[l->vis[i]], "== ", 3) == 0) {
			l->sel = i;
			skip_headers(l, 1);
			if (l->sel > i) {
				tui_status(t, 0, "%s", l->rows[l->vis[i]]);
				return;
			}
			break;
		}
	if (s->wide)
		s->focus_right = !s->focus_right;
	l = s->focus_right ? &s->right : &s->left;
	l->sel = 0;
	skip_headers(l, 1);
	tui_status(t, 0, "%s", l->nvis > 0 ? l->rows[l->vis[0]] : "");
}

static int
dash_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct dash_state *s = v->state;
	struct tui_list *l = s->focus_right ? &s->right : &s->left;

	switch (req) {
	case REQ_NEXT_PANE:
		next_section(s, t);
		return 0;
	case REQ_ENTER:
		return tui_list_selected_id(l) > 0 ? open_object(t, tui_list_selected_id(l), err) : 0;
	case REQ_VENDORS:
		return tui_push(t, &tui_vendors_view, NULL, err);
	case REQ_INCIDENT:
		return tui_push(t, &tui_incidents_view, NULL, err);
	case REQ_ADD:
		return tui_push(t, &tui_vendors_view, NULL, err) ||
		    tui_top(t)->ops->request(tui_top(t), t, REQ_ADD, err);
	default:
		break;
	}
	if (tui_list_request(l, t, req, v->content_rows)) {
		skip_headers(l, req == REQ_UP || req == REQ_PAGE_UP || req == REQ_END ||
		    req == REQ_FIND_PREV ? -1 : 1);
		return 0;
	}
	return 0;
}

static void
dash_close(struct view *v)
{
	struct dash_state *s = v->state;

	tui_list_free(&s->left);
	tui_list_free(&s->right);
	free(s);
}

static void
dash_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "Dashboard");
}

static void
dash_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct dash_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(s->focus_right ? &s->right : &s->left, row);
	if (dbl && dash_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_dashboard_view = {
	"dashboard", dash_requests, dash_open, dash_load, dash_draw, dash_request, dash_close,
	dash_title, dash_click, NULL
};
