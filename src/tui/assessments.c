/*
 * tui/assessments.c: one vendor's assessments, reached with s from the
 * vendor screen. Enter opens an assessment; a starts a new one against a
 * questionnaire picked from a menu, through assessment_start, as "assess
 * start" does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "aivet/assess.h"
#include "aivet/rating.h"

struct assessments_state {
	int64_t vendor_id;
	char vendor[128];
	struct tui_list list;
	int64_t select_next;   /* a just-started assessment, selected on the next load */
};

static const enum request assessments_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_ADD, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
assessments_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct assessments_state *s = xcalloc(1, sizeof *s);

	s->vendor_id = *(const int64_t *)arg;
	v->state = s;
	if (vendor_name(t->av->db, s->vendor_id, s->vendor, sizeof s->vendor, err) != 0)
		return err->code;
	return questionnaires_sync(t->av->db, t->av->actor, err);
}

static int
assessments_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct assessments_state *s = v->state;
	int64_t keep = s->select_next > 0 ? s->select_next : tui_list_selected_id(&s->list);
	int64_t *ids;
	size_t n;

	if (assessment_ids(t->av->db, s->vendor_id, &ids, &n, err) != 0)
		return err->code;
	tui_list_clear(&s->list);
	snprintf(s->list.header, sizeof s->list.header, "%-5s %-32s %-5s %-9s %-12s %-6s %s", "ID",
	    "QUESTIONNAIRE", "ROUND", "STATUS", "RATING", "SCORE", "REQUIRED OPEN");
	/* Newest first. */
	for (size_t i = n; i-- > 0; ) {
		struct assessment *a;
		struct assessment_score sc;
		char qv[96];

		if (assessment_load(t->av->db, ids[i], &a, err) != 0) {
			free(ids);
			return err->code;
		}
		if (assessment_rate(t->av->db, a, &sc, NULL, err) != 0) {
			assessment_free(a);
			free(ids);
			return err->code;
		}
		snprintf(qv, sizeof qv, "%s@%lld", a->q->qid, (long long)a->q->version);
		tui_list_add(&s->list, a->id, sc.rating == RATING_UNACCEPTABLE ? TUI_MARK_BAD :
		    sc.rating == RATING_CONCERNS ? TUI_MARK_WARN : TUI_MARK_NONE,
		    "%-5lld %-32s %-5lld %-9s %-12s %-6.1f %d", (long long)a->id, qv, (long long)a->round,
		    a->status, rating_name(sc.rating), sc.risk_score, sc.unanswered_required);
		assessment_free(a);
	}
	free(ids);
	tui_list_restore(&s->list, keep);
	s->select_next = 0;
	return 0;
}

static void
assessments_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct assessments_state *s = v->state;
	char key[16];

	if (s->list.n == 0) {
		char line[200];

		snprintf(line, sizeof line, "No assessments of %s yet. Press %s to start one.", s->vendor,
		    tui_key_name_for(REQ_ADD, key));
		tui_put(w, 1, 2, cols - 2, line);
		return;
	}
	tui_list_draw(&s->list, t, w, 0, rows, cols);
}

static int
assessments_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct assessments_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);

	if (tui_list_request(&s->list, t, req, v->content_rows - 1))
		return 0;
	switch (req) {
	case REQ_ENTER:
		if (id < 0)
			return 0;
		return tui_push(t, &tui_assess_view, &id, err);
	case REQ_ADD: {
		struct tui_menu_item items[32];
		int64_t *qids;
		size_t nq;
		int n = 0, pick;

		/* The newest version of each questionnaire, as "questionnaire list" shows them. */
		if (questionnaire_ids(t->av->db, 0, &qids, &nq, err) != 0)
			return err->code;
		for (size_t i = 0; i < nq && n < 32; i++) {
			struct questionnaire *q;

			if (questionnaire_load(t->av->db, qids[i], &q, err) != 0) {
				for (int k = 0; k < n; k++)
					free(items[k].value), free(items[k].label);
				free(qids);
				return err->code;
			}
			items[n].value = xstrdup(q->qid);
			items[n].label = xasprintf("%s (version %lld)", q->title, (long long)q->version);
			items[n++].selected = 0;
			questionnaire_free(q);
		}
		free(qids);
		pick = tui_menu(t, "Start an assessment against", items, n, 0, 0);
		if (pick >= 0) {
			int64_t qrow;
			struct assessment *a;
			int rc = 0;

			if (questionnaire_lookup(t->av->db, items[pick].value, &qrow, err) != 0 ||
			    assessment_start(t->av->db, t->av->actor, s->vendor_id, qrow, &id, err) != 0 ||
			    assessment_load(t->av->db, id, &a, err) != 0) {
				rc = err->code;
			} else {
				tui_changed(t);
				tui_status(t, 0, "assessment %lld started: vendor %s, questionnaire %s "
				    "version %lld, %d questions (draft)", (long long)id, a->vendor, a->q->qid,
				    (long long)a->q->version, a->q->nquestions);
				assessment_free(a);
				s->select_next = id;
			}
			for (int i = 0; i < n; i++)
				free(items[i].value), free(items[i].label);
			return rc;
		}
		for (int i = 0; i < n; i++)
			free(items[i].value), free(items[i].label);
		return 0;
	}
	default:
		return 0;
	}
}

static void
assessments_close(struct view *v)
{
	struct assessments_state *s = v->state;

	tui_list_free(&s->list);
	free(s);
}

static void
assessments_title(struct view *v, char *buf, size_t n)
{
	struct assessments_state *s = v->state;

	snprintf(buf, n, "Assessments of %s", s->vendor);
}

static void
assessments_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct assessments_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->list, row);
	if (dbl && assessments_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_assessments_view = {
	"assessments", assessments_requests, assessments_open, assessments_load, assessments_draw,
	assessments_request, assessments_close, assessments_title, assessments_click, NULL
};
