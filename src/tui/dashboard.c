/*
 * tui/dashboard.c: the first screen once there is data — vendors by
 * rating, open incidents with their nearest notification deadline, recent
 * probe runs with their worst finding, and assessments waiting for review.
 * Each row opens the record behind it. On a wide terminal the four
 * sections stand in two columns.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "assess.h"
#include "finding.h"
#include "incident.h"
#include "rating.h"

enum { OBJ_VENDOR = 1, OBJ_INCIDENT, OBJ_RUN, OBJ_ASSESSMENT };
#define OBJ(type, id) (((int64_t)(type) << 40) | (id))
#define OBJ_TYPE(x) ((int)((x) >> 40))
#define OBJ_ID(x) ((x) & ((INT64_C(1) << 40) - 1))
#define SECTION_ROWS 12

struct dash_state {
	struct tui_list left, right;   /* right is empty on a narrow terminal */
	int focus_right;
	int wide;
};

static const enum request dash_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH, REQ_ENTER,
	REQ_NEXT_PANE, REQ_VENDORS, REQ_INCIDENT, REQ_ADD, REQ_SEARCH_NEXT, REQ_SEARCH_PREV, REQ_NONE
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

static int
load_vendors(sqlite3 *db, struct tui_list *l, struct aerr *err)
{
	struct row { int64_t id; char name[101]; int rating; double score; char status[16]; } *rows = NULL;
	int n = 0, cap = 0;
	/* The newest assessment of each active vendor that has one. */
	sqlite3_stmt *st = db_prepare(db, err, "SELECT v.id, v.name, (SELECT a.id FROM assessment a "
	    "WHERE a.vendor_id = v.id ORDER BY a.created_at DESC, a.id DESC LIMIT 1) AS aid "
	    "FROM vendor v WHERE v.status = 'active' AND aid IS NOT NULL", NULL);

	if (st == NULL)
		return err->code;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct assessment *a;
		struct assessment_score s;

		if (assessment_load(db, sqlite3_column_int64(st, 2), &a, err) != 0)
			continue;
		assessment_score(a, &s);
		if (n == cap)
			rows = xrealloc(rows, sizeof *rows * (size_t)(cap = cap ? cap * 2 : 16));
		rows[n].id = sqlite3_column_int64(st, 0);
		snprintf(rows[n].name, sizeof rows[n].name, "%s", col_text(st, 1));
		rows[n].rating = s.rating;
		rows[n].score = s.risk_score;
		snprintf(rows[n].status, sizeof rows[n].status, "%s", a->status);
		n++;
		assessment_free(a);
	}
	sqlite3_finalize(st);
	/* Worst first; within a rating, the higher weighted score first. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && (rows[j].rating > rows[j - 1].rating ||
		    (rows[j].rating == rows[j - 1].rating && rows[j].score > rows[j - 1].score)); j--) {
			struct row tmp = rows[j];

			rows[j] = rows[j - 1];
			rows[j - 1] = tmp;
		}
	section(l, "Vendors by rating");
	for (int i = 0; i < n && i < SECTION_ROWS; i++)
		tui_list_add(l, OBJ(OBJ_VENDOR, rows[i].id),
		    rows[i].rating == RATING_UNACCEPTABLE ? TUI_MARK_BAD : rows[i].rating == RATING_CONCERNS ?
		    TUI_MARK_WARN : TUI_MARK_NONE, "%s %-24.24s %-12s score %5.1f  (%s)",
		    rows[i].rating == RATING_UNACCEPTABLE ? "!!" : rows[i].rating == RATING_CONCERNS ? "! " :
		    rows[i].rating == RATING_INCOMPLETE ? "? " : "  ",
		    rows[i].name, rating_name(rows[i].rating), rows[i].score, rows[i].status);
	free(rows);
	/* Vendors never assessed fill what room is left: not assessed is a rating too. */
	if (n < SECTION_ROWS) {
		st = db_prepare(db, err, "SELECT v.id, v.name FROM vendor v WHERE v.status = 'active' "
		    "AND NOT EXISTS (SELECT 1 FROM assessment a WHERE a.vendor_id = v.id) "
		    "ORDER BY v.name LIMIT ?", "i", (int64_t)(SECTION_ROWS - n));
		if (st == NULL)
			return err->code;
		while (sqlite3_step(st) == SQLITE_ROW)
			tui_list_add(l, OBJ(OBJ_VENDOR, sqlite3_column_int64(st, 0)), TUI_MARK_NONE,
			    "?  %-24.24s %-12s (no assessment yet)", col_text(st, 1),
			    rating_name(RATING_NOT_ASSESSED));
		sqlite3_finalize(st);
	}
	return 0;
}

static int
load_incidents(sqlite3 *db, struct tui_list *l, struct aerr *err)
{
	sqlite3_stmt *st = db_prepare(db, err, "SELECT i.id, i.title, i.status, v.name FROM incident i "
	    "JOIN vendor v ON v.id = i.vendor_id WHERE i.status <> 'closed' ORDER BY i.id DESC", NULL);
	int64_t now = now_ms();
	int n = 0;

	if (st == NULL)
		return err->code;
	section(l, "Open incidents");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct incident_facts f;
		struct incident_clock c[CLOCK_COUNT];
		int64_t id = sqlite3_column_int64(st, 0), due = INT64_MAX;
		const char *clock = NULL;
		char when[64] = "no running clock";
		int overdue = 0;

		if (n++ >= SECTION_ROWS)
			continue;
		if (incident_clocks(db, id, &f, c, err) == 0) {
			for (int k = 0; k < CLOCK_COUNT; k++)
				if (c[k].applies && c[k].stopped_ms < 0 && c[k].due_ms < due)
					due = c[k].due_ms, clock = c[k].id;
			if (clock != NULL) {
				char d[32];

				overdue = due < now;
				fmt_duration(overdue ? now - due : due - now, d, sizeof d);
				snprintf(when, sizeof when, "%s %s %s", clock, overdue ? "OVERDUE by" : "due in", d);
			}
		}
		tui_list_add(l, OBJ(OBJ_INCIDENT, id), overdue ? TUI_MARK_BAD : TUI_MARK_WARN,
		    "%s #%-3lld %-20.20s %-13s %s  [%s]", overdue ? "!!" : "! ", (long long)id,
		    col_text(st, 1), col_text(st, 2), when, col_text(st, 3));
	}
	sqlite3_finalize(st);
	if (n == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none");
	return 0;
}

static int
load_runs(sqlite3 *db, struct tui_list *l, struct aerr *err)
{
	sqlite3_stmt *st = db_prepare(db, err, "SELECT r.id, v.name || '/' || e.name, r.status, "
	    "r.started_at, (SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1), (SELECT count(*) FROM finding f WHERE f.run_id = r.id) "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = "
	    "e.vendor_id ORDER BY r.id DESC LIMIT ?", "i", (int64_t)SECTION_ROWS);
	int n = 0;

	if (st == NULL)
		return err->code;
	section(l, "Recent probe runs");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *worst = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL : col_text(st, 4);
		int bad = severity_rank(worst) >= SEV_HIGH;

		n++;
		tui_list_add(l, OBJ(OBJ_RUN, sqlite3_column_int64(st, 0)),
		    bad ? TUI_MARK_BAD : worst ? TUI_MARK_WARN : TUI_MARK_GOOD,
		    "%s run %-4lld %-22.22s %-11s %.16s  %s", bad ? "!!" : worst ? "! " : "ok",
		    (long long)sqlite3_column_int64(st, 0), col_text(st, 1), col_text(st, 2),
		    col_text(st, 3), worst ? worst : "no findings");
	}
	sqlite3_finalize(st);
	if (n == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none yet (r on an endpoint runs probes)");
	return 0;
}

static int
load_reviews(sqlite3 *db, struct tui_list *l, struct aerr *err)
{
	sqlite3_stmt *st = db_prepare(db, err, "SELECT a.id, v.name, q.qid, a.round, a.submitted_at "
	    "FROM assessment a JOIN vendor v ON v.id = a.vendor_id JOIN questionnaire q ON "
	    "q.id = a.questionnaire_id WHERE a.status = 'in_review' ORDER BY a.submitted_at", NULL);
	int n = 0;

	if (st == NULL)
		return err->code;
	section(l, "Assessments waiting for review");
	while (sqlite3_step(st) == SQLITE_ROW && n++ < SECTION_ROWS)
		tui_list_add(l, OBJ(OBJ_ASSESSMENT, sqlite3_column_int64(st, 0)), TUI_MARK_WARN,
		    "?  #%-4lld %-20.20s %-24.24s round %d  since %.16s",
		    (long long)sqlite3_column_int64(st, 0), col_text(st, 1), col_text(st, 2),
		    sqlite3_column_int(st, 3), col_text(st, 4));
	sqlite3_finalize(st);
	if (n == 0)
		tui_list_add(l, 0, TUI_MARK_DIM, "   none");
	return 0;
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
	sqlite3 *db = t->av->db;
	int64_t keep_l = tui_list_selected_id(&s->left), keep_r = tui_list_selected_id(&s->right);
	int rc;

	s->wide = COLS >= 160;
	tui_list_clear(&s->left);
	tui_list_clear(&s->right);
	rc = load_vendors(db, &s->left, err);
	if (rc == 0)
		rc = load_reviews(db, &s->left, err);
	if (rc == 0)
		rc = load_incidents(db, s->wide ? &s->right : &s->left, err);
	if (rc == 0)
		rc = load_runs(db, s->wide ? &s->right : &s->left, err);
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

	if (s->wide != (cols >= 160)) {
		struct aerr err = { 0 };

		dash_load(v, t, &err);   /* the terminal was resized across the two layouts */
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
	struct assessment *a;
	struct buf out;
	char title[64];
	cJSON *o;
	int rc;

	switch (OBJ_TYPE(obj)) {
	case OBJ_VENDOR:
		return tui_push(t, &tui_vendor_view, &id, err);
	case OBJ_INCIDENT:
		return tui_push(t, &tui_incident_view, &id, err);
	case OBJ_RUN:
		return tui_push(t, &tui_probe_run_view, &id, err);
	case OBJ_ASSESSMENT:
		break;
	default:
		return 0;
	}
	if (assessment_load(t->av->db, id, &a, err) != 0)
		return err->code;
	if (assessment_json(t->av->db, a, &o, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	buf_init(&out);
	assessment_text(a, cJSON_GetObjectItem(o, "claims"), &out);
	buf_add(&out, "", 0);
	cJSON_Delete(o);
	assessment_free(a);
	snprintf(title, sizeof title, "assess show %lld", (long long)id);
	rc = tui_show_text(t, title, out.data, err);
	buf_free(&out);
	return rc;
}

static int
dash_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct dash_state *s = v->state;
	struct tui_list *l = s->focus_right ? &s->right : &s->left;

	switch (req) {
	case REQ_NEXT_PANE:
		if (s->wide)
			s->focus_right = !s->focus_right;
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
		    req == REQ_SEARCH_PREV ? -1 : 1);
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
	dash_title, dash_click
};
