/*
 * tui/assess.c: the assessment screen — sections on the left, their
 * questions on the right, the selected question in full below. Enter
 * answers (choices from a menu, other types in a field checked as typed),
 * n jumps to the next unanswered question, N edits the note, f attaches
 * evidence, H shows the history, S submits, V approves and U returns a round
 * in review to draft; E writes the
 * vendor's sheet (CSV or an Excel workbook) and I reads a filled-in one
 * back through the file picker. / searches the
 * questions' ids, texts, answers and notes; > and < step to its next and
 * previous match (n and N keep one meaning here: next unanswered, note). A final (or
 * in-review) assessment opens no dialog that could only be refused: the
 * keys that would change it say at once why not and what to do instead.
 * Every change calls the domain's assessment functions (assessment_answer,
 * assessment_submit, assessment_approve, ...), as the assess commands do.
 * State reads without colour: each question carries a symbol (! required
 * and unanswered, ? unanswered, - not asked) or its risk in words.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "aivet/assess.h"
#include "aivet/approval.h"
#include "aivet/rating.h"

/* ---- the assessment screen ---- */

struct assess_state {
	int64_t id;
	char idtext[24];
	struct assessment *a;
	int pane;           /* 0 sections, 1 questions */
	int sec, q, qtop;   /* selected section; selected question within it; first shown */
	char keep_q[80];    /* the selected question's id, kept across reloads */
	struct claim_list claims;   /* assessment_claims: what the evidence says of the answers */
	char search[128];   /* the / search, while one is set */
	int told;           /* the review's keys were named on opening */
};

static const enum request assess_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_LEFT, REQ_RIGHT,
	REQ_NEXT_PANE, REQ_ENTER, REQ_NEXT_UNANSWERED, REQ_NOTE, REQ_ATTACH, REQ_HISTORY,
	REQ_SUBMIT, REQ_APPROVE, REQ_RETURN, REQ_FIND, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_SHEET_EXPORT,
	REQ_SHEET_IMPORT, REQ_NONE
};

#define DETAIL_ROWS 6

static const struct q_section *
cur_section(const struct assess_state *s)
{
	return &s->a->q->sections[s->sec];
}

/* Index into questions[] of the selected question. */
static int
cur_question(const struct assess_state *s)
{
	return cur_section(s)->first + s->q;
}

static void
select_question(struct assess_state *s, int qi)
{
	s->sec = s->a->q->questions[qi].section;
	s->q = qi - cur_section(s)->first;
	snprintf(s->keep_q, sizeof s->keep_q, "%s", s->a->q->questions[qi].id);
}

static int
assess_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct assess_state *s = xcalloc(1, sizeof *s);

	s->id = *(const int64_t *)arg;
	snprintf(s->idtext, sizeof s->idtext, "%lld", (long long)s->id);
	v->state = s;
	return questionnaires_sync(t->av->db, t->av->actor, err);
}

/* A round in review opens with what the actor can do to it: approve (or why not,
 * before any question is asked) and return it to draft. */
static void
review_keys(struct tui *t, const struct assess_state *s)
{
	struct aerr why = { 0 };

	if (assessment_may_approve(t->av->db, t->av->actor, s->id, &why) == 0)
		tui_status(t, 0, "in review: V approves it as %s, U returns it to draft", t->av->actor);
	else
		tui_status(t, 0, "in review: U returns it to draft; V is refused: %s", why.msg);
}

static int
assess_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct assess_state *s = v->state;
	struct assessment *a;
	int qi;

	if (assessment_load(t->av->db, s->id, &a, err) != 0)
		return err->code;
	assessment_free(s->a);
	s->a = a;
	claim_list_free(&s->claims);
	if (assessment_claims(t->av->db, a, &s->claims, err) != 0)
		return err->code;
	qi = s->keep_q[0] ? questionnaire_find(a->q, s->keep_q) : -1;
	select_question(s, qi >= 0 ? qi : 0);
	if (!s->told && strcmp(a->status, "in_review") == 0)
		review_keys(t, s);
	s->told = 1;
	return 0;
}

/* The symbol a question is marked with: never colour alone. */
static const char *
question_mark(const struct assessment *a, const struct claim_list *claims, int qi, int *attr_mark)
{
	const struct q_question *qq = &a->q->questions[qi];
	int r;

	if (!a->asked[qi]) {
		*attr_mark = TUI_MARK_DIM;
		return "-";
	}
	if (a->answers[qi].value == NULL) {
		*attr_mark = qq->required ? TUI_MARK_WARN : TUI_MARK_NONE;
		return qq->required ? "!" : "?";
	}
	r = assessment_answer_risk(a, qi, claims);
	*attr_mark = r >= RISK_HIGH ? TUI_MARK_BAD : r == RISK_MEDIUM ? TUI_MARK_WARN : TUI_MARK_GOOD;
	return risk_name(r);
}

/* Word-wraps text into at most maxlines lines of width w, drawn from row y. */
static int
draw_wrapped(WINDOW *win, int y, int x, int w, int maxlines, const char *text)
{
	const char *p = text;
	int lines = 0;

	while (*p && lines < maxlines && w > 4) {
		size_t n = strlen(p), cut = n;
		char line[1024];

		if ((int)n > w) {
			cut = (size_t)w;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (size_t)w;
		}
		if (cut >= sizeof line)
			cut = sizeof line - 1;
		memcpy(line, p, cut);
		line[cut] = '\0';
		tui_put(win, y + lines++, x, w, line);
		p += cut;
		while (*p == ' ')
			p++;
	}
	return lines;
}

/* Does question qi match the search: its id, text, answer or note? */
static int
search_match(const struct assess_state *s, int qi)
{
	const struct q_question *qq = &s->a->q->questions[qi];
	char *val;
	int hit;

	if (strcasestr(qq->id, s->search) || strcasestr(qq->text, s->search) ||
	    (s->a->answers[qi].note && strcasestr(s->a->answers[qi].note, s->search)))
		return 1;
	val = answer_to_text(qq, s->a->answers[qi].value);
	hit = strcasestr(val, s->search) != NULL;
	free(val);
	return hit;
}

/* How many questions match; *at is the selected one's place among them (0 if not one). */
static int
search_count(const struct assess_state *s, int *at)
{
	int n = 0, cur = cur_question(s);

	*at = 0;
	for (int qi = 0; qi < s->a->q->nquestions; qi++)
		if (search_match(s, qi)) {
			n++;
			if (qi == cur)
				*at = n;
		}
	return n;
}

/* Moves to the next (dir 1) or previous (-1) match, from the selected question
 * (which counts itself when from_here); 0 when nothing matches. */
static int
search_step(struct tui *t, struct assess_state *s, int dir, int from_here)
{
	int n = s->a->q->nquestions, from = cur_question(s), at, total;

	for (int step = from_here ? 0 : 1; step <= n; step++) {
		int qi = ((from + dir * step) % n + n) % n;

		if (search_match(s, qi)) {
			select_question(s, qi);
			s->pane = 1;
			total = search_count(s, &at);
			tui_status(t, 0, "/%s: match %d of %d; >/< next/previous, / Enter on empty text "
			    "ends it", s->search, at, total);
			return 1;
		}
	}
	tui_status(t, 0, "no question matches '%s'", s->search);
	return 0;
}

/* The rows of the pane that shows the selected question in full: at least
 * DETAIL_ROWS, and every row the lists above leave empty (as many as the
 * longest of them, the sections or a section's questions, so that the pane
 * does not move as the selection does). */
static int
detail_rows(const struct assessment *a, int rows)
{
	int need = a->q->nsections, detail;

	for (int i = 0; i < a->q->nsections; i++)
		if (a->q->sections[i].count > need)
			need = a->q->sections[i].count;
	detail = rows - 3 - need;
	return detail > DETAIL_ROWS ? detail : DETAIL_ROWS;
}

/* The round's summary line and the two column titles (the search's place among
 * its matches while one is set). */
static void
draw_header(struct assess_state *s, WINDOW *w, int cols, int left)
{
	struct assessment *a = s->a;
	struct assessment_score sc;
	char line[1200];

	assessment_score(a, &s->claims, &sc);
	/* What the round says first, so a narrow terminal cuts only the names after it. */
	snprintf(line, sizeof line, "%s (score %.1f)  %s  %d/%d answered  %d required open  "
	    "%s  %s@%lld  round %lld", rating_name(sc.rating), sc.risk_score, a->status, sc.answered,
	    sc.asked, sc.unanswered_required, a->vendor, a->q->qid, (long long)a->q->version,
	    (long long)a->round);
	wattron(w, A_BOLD);
	tui_put(w, 0, 1, cols - 2, line);
	wattroff(w, A_BOLD);
	wattron(w, A_DIM);
	tui_put(w, 1, 1, left - 1, "SECTIONS");
	if (s->search[0] != '\0') {
		int at, n = search_count(s, &at);

		snprintf(line, sizeof line, "QUESTIONS  /%s: %d of %d, >/< next/previous", s->search,
		    at, n);
		tui_put(w, 1, left + 1, cols - left - 2, line);
	} else {
		tui_put(w, 1, left + 1, cols - left - 2, "QUESTIONS");
	}
	wattroff(w, A_DIM);
}

/* The sections, each with its answered/asked count and ! while a required one is open. */
static void
draw_sections(const struct assess_state *s, WINDOW *w, int left, int list_rows)
{
	const struct assessment *a = s->a;
	char line[1200];

	for (int i = 0; i < a->q->nsections && i < list_rows; i++) {
		const struct q_section *x = &a->q->sections[i];
		int asked = 0, answered = 0, open = 0, attr;

		for (int k = x->first; k < x->first + x->count; k++) {
			asked += a->asked[k];
			answered += a->asked[k] && a->answers[k].value != NULL;
			open += a->asked[k] && a->answers[k].value == NULL && a->q->questions[k].required;
		}
		snprintf(line, sizeof line, "%s %-*.*s %d/%d", open ? "!" : " ", left - 10, left - 10,
		    x->title, answered, asked);
		attr = i == s->sec ? (s->pane == 0 ? A_REVERSE : A_BOLD) : A_NORMAL;
		wattron(w, attr);
		tui_put(w, 2 + i, 1, left - 1, line);
		wattroff(w, attr);
	}
}

/* One question's row: its mark, id, answer and the claim's status (cs, or NULL).
 * The risk and the claim's status are never cut: the id's column narrows and the
 * answer is cut to leave them room; any_claim gives every row room for
 * "  contradicted" wherever a claim is judged, so that the rows line up. */
static void
question_row(const struct assessment *a, int qi, const char *sym, const char *val,
    const char *cs, int width, int any_claim, char *line, size_t size)
{
	const char *shown = a->answers[qi].value ? val : a->asked[qi] ? "" : "(not asked)";
	int cw = any_claim ? 14 : 0;
	int idw = width - 9 - cw - 11 < 30 ? width - 9 - cw - 11 : 30;
	int vw;

	if (idw < 12)
		idw = 12;
	vw = width - 9 - idw - 1 - cw;
	if (vw < 0)
		vw = 0;
	snprintf(line, size, "%-8s %-*.*s %.*s%s%s", sym, idw, idw, a->q->questions[qi].id,
	    cw ? vw : (int)strlen(shown), shown, cs ? "  " : "", cs ? cs : "");
}

/* The selected section's questions, scrolled to keep the selected one shown. */
static void
draw_questions(struct assess_state *s, struct tui *t, WINDOW *w, int cols, int left,
    int list_rows)
{
	const struct assessment *a = s->a;
	const struct q_section *sec = cur_section(s);
	int any_claim = 0;
	char line[1200];

	for (int qi = 0; qi < a->q->nquestions && !any_claim; qi++)
		any_claim = assessment_claim_status(&s->claims, a->q->questions[qi].id) != CLAIM_NONE;
	mvwvline(w, 1, left, ACS_VLINE, list_rows + 1);
	if (s->q < s->qtop)
		s->qtop = s->q;
	if (s->q >= s->qtop + list_rows)
		s->qtop = s->q - list_rows + 1;
	for (int i = 0; i < list_rows && s->qtop + i < sec->count; i++) {
		int qi = sec->first + s->qtop + i, mark, attr;
		const char *sym = question_mark(a, &s->claims, qi, &mark);
		char *val = answer_to_text(&a->q->questions[qi], a->answers[qi].value);

		/* The claim's status in assess show's words (the one function both call). */
		enum claim_status cs = assessment_claim_status(&s->claims, a->q->questions[qi].id);

		question_row(a, qi, sym, val, claim_status_name(cs), cols - left - 3, any_claim, line,
		    sizeof line);
		free(val);
		if (cs == CLAIM_CONTRADICTED)
			mark = TUI_MARK_BAD;
		attr = tui_attr(t, mark) | (s->qtop + i == s->q ? (s->pane == 1 ? A_REVERSE : A_BOLD) : 0) |
		    (s->search[0] != '\0' && search_match(s, qi) ? A_UNDERLINE : 0);   /* a match */
		wattron(w, attr);
		tui_put(w, 2 + i, left + 2, cols - left - 3, line);
		wattroff(w, attr);
	}
}

/* What the evidence says of the question's answer, coloured by the claim's status;
 * returns the rows drawn. */
static int
draw_claim(const struct assess_state *s, struct tui *t, WINDOW *w, int y, int cols, int maxlines,
    const struct q_question *qq)
{
	enum claim_status cs = assessment_claim_status(&s->claims, qq->id);
	int mk = cs == CLAIM_CONTRADICTED ? TUI_MARK_BAD : cs == CLAIM_CONFIRMED ? TUI_MARK_GOOD :
	    TUI_MARK_NONE;
	struct buf b;
	int drawn = 0;

	buf_init(&b);
	assessment_claim_text(&s->claims, qq->id, &b);
	if (b.len > 0) {
		wattron(w, tui_attr(t, mk));
		drawn = draw_wrapped(w, y, 1, cols - 2, maxlines, b.data);
		wattroff(w, tui_attr(t, mk));
	}
	buf_free(&b);
	return drawn;
}

/* The selected question in full, in the detail rows at the foot of the screen. */
static void
draw_detail(const struct assess_state *s, struct tui *t, WINDOW *w, int rows, int cols, int detail)
{
	const struct assessment *a = s->a;
	int qi = cur_question(s), y = rows - detail, mark;
	const struct q_question *qq = &a->q->questions[qi];
	char *allowed = question_allowed(qq);
	const char *sym = question_mark(a, &s->claims, qi, &mark);
	char line[1200];

	mvwhline(w, y - 1, 0, ACS_HLINE, cols);
	snprintf(line, sizeof line, "%s%s: %s", qq->id, qq->required ? " (required)" : "", qq->text);
	y += draw_wrapped(w, y, 1, cols - 2, detail > DETAIL_ROWS ? 4 : 2, line);
	snprintf(line, sizeof line, "Answer: %s   [%s]", allowed, sym);
	tui_put(w, y++, 1, cols - 2, line);
	y += draw_claim(s, t, w, y, cols, detail > DETAIL_ROWS ? 3 : 1, qq);
	if (a->answers[qi].note != NULL) {
		snprintf(line, sizeof line, "Note: %s", a->answers[qi].note);
		tui_put(w, y++, 1, cols - 2, line);
	}
	if (a->answers[qi].nfiles > 0) {
		struct buf b;

		buf_init(&b);
		for (int k = 0; k < a->answers[qi].nfiles; k++)
			buf_printf(&b, "%s%s (%lld bytes, sha256 %.12s)", k ? ", " : "Evidence: ",
			    a->answers[qi].files[k].name, (long long)a->answers[qi].files[k].size,
			    a->answers[qi].files[k].sha256);
		tui_put(w, y++, 1, cols - 2, b.data);
		buf_free(&b);
	}
	if (!a->asked[qi] && qq->dep >= 0) {
		char *vals = answer_to_text(NULL, qq->dep_values);

		snprintf(line, sizeof line, "Asked only when %s is %s", a->q->questions[qq->dep].id, vals);
		tui_put(w, y++, 1, cols - 2, line);
		free(vals);
	} else if (qq->help != NULL && y < rows) {
		draw_wrapped(w, y, 1, cols - 2, rows - y, qq->help);
	}
	free(allowed);
}

static void
assess_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct assess_state *s = v->state;
	int left = cols / 3 > 34 ? 34 : cols / 3, detail = detail_rows(s->a, rows);
	int list_rows = rows - 3 - detail;

	draw_header(s, w, cols, left);
	if (list_rows < 1)
		return;
	draw_sections(s, w, left, list_rows);
	draw_questions(s, t, w, cols, left, list_rows);
	draw_detail(s, t, w, rows, cols, detail);
}

static int
check_answer(const char *value, void *ctx, struct aerr *err)
{
	cJSON *v = NULL;
	int rc = answer_from_text(ctx, value, &v, err);

	cJSON_Delete(v);
	return rc;
}

/* One answer change through the assessment module; its message is the status line. */
static int
answer(struct tui *t, const struct assessment_answer_input *in, struct aerr *err)
{
	struct assessment_answer_result res = { 0 };

	if (assessment_answer(t->av->db, t->av->actor, in, &res, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "%s", res.message);
	free(res.message);
	return 0;
}

/* Attaches the picked file and says which file went where, by name, size and
 * digest, or that this very file is on the answer already. */
static int
attach(struct tui *t, struct assess_state *s, const struct assessment_answer_input *in,
    struct aerr *err)
{
	struct assessment_answer_result res = { 0 };
	const char *path = in->files[0], *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const struct answer *an = &s->a->answers[cur_question(s)];
	struct buf b;
	char sha[65];
	int had = 0;

	if (read_file(path, EVIDENCE_FILE_MAX, &b, err) != 0)
		return aerr_prefix(err, "evidence file");
	sha256_hex(b.data, b.len, sha);
	for (int k = 0; k < an->nfiles; k++)
		had |= strcmp(an->files[k].sha256, sha) == 0;
	if (assessment_answer(t->av->db, t->av->actor, in, &res, err) != 0) {
		buf_free(&b);
		return err->code;
	}
	free(res.message);
	tui_changed(t);
	if (had)
		tui_status(t, 0, "%s is attached to %s already (sha256 %.12s)", base, in->question, sha);
	else
		tui_status(t, 0, "attached %s (%zu bytes, sha256 %.12s) to %s", base, b.len, sha,
		    in->question);
	buf_free(&b);
	return 0;
}

static int
answer_question(struct tui *t, struct assess_state *s, struct aerr *err)
{
	int qi = cur_question(s);
	const struct q_question *qq = &s->a->q->questions[qi];
	const cJSON *cur = s->a->answers[qi].value;
	char *value = NULL, title[160];
	int rc = 0;

	/* Refused before a dialog opens, in assess answer's words. */
	if (assessment_asked(s->a, qi, err) != 0)
		return err->code;
	snprintf(title, sizeof title, "%s: %s", qq->id, qq->text);
	if (qq->type == QT_YES_NO || qq->type == QT_SINGLE || qq->type == QT_MULTI) {
		struct tui_menu_item *items = xcalloc((size_t)qq->nchoices, sizeof *items);
		int current = 0, pick;

		for (int i = 0; i < qq->nchoices; i++) {
			int chosen = answer_chose(cur, qq->choices[i].value);

			items[i].value = (char *)qq->choices[i].value;
			items[i].label = xasprintf("%-8s %s", risk_name(qq->choices[i].risk), qq->choices[i].label);
			/* A many-of answer marks its choices; a one-of answer puts the cursor on its own. */
			if (qq->type == QT_MULTI)
				items[i].selected = chosen;
			else if (chosen)
				current = i;
		}
		pick = tui_menu(t, title, items, qq->nchoices, qq->type == QT_MULTI, current);
		if (pick >= 0 && qq->type == QT_MULTI) {
			struct buf b;

			buf_init(&b);
			buf_add(&b, "", 0);
			for (int i = 0; i < qq->nchoices; i++)
				if (items[i].selected)
					buf_printf(&b, "%s%s", b.len ? "," : "", items[i].value);
			value = buf_steal(&b);
		} else if (pick >= 0) {
			value = xstrdup(items[pick].value);
		}
		for (int i = 0; i < qq->nchoices; i++)
			free(items[i].label);
		free(items);
	} else {
		struct tui_field f = { .label = "Answer", .width = 50, .check = check_answer,
			.ctx = (void *)qq };
		char *hint = question_allowed(qq), *now = answer_to_text(qq, cur);

		f.hint = hint;
		snprintf(f.value, sizeof f.value, "%s", now);
		if (tui_form(t, title, &f, 1, NULL, NULL))
			value = xstrdup(f.value);
		free(hint);
		free(now);
	}
	if (value != NULL) {
		struct assessment_answer_input in = { .ref = s->idtext, .question = qq->id, .value = value };

		rc = answer(t, &in, err);
		free(value);
	}
	return rc;
}

struct note_ctx {
	struct tui *t;
	struct assess_state *s;
};

/* The note dialog saves through the assessment module; a refusal shows in the
 * dialog, which stays open with the text as typed. */
static int
note_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct note_ctx *c = p;
	struct assessment_answer_input in = { .ref = c->s->idtext,
		.question = c->s->a->q->questions[cur_question(c->s)].id, .note = f[0].value,
		.set_note = 1 };

	(void)n;
	return answer(c->t, &in, err);
}

static int
edit_note(struct tui *t, struct assess_state *s)
{
	const char *now = s->a->answers[cur_question(s)].note;
	struct tui_field f = { .label = "Note", .width = 60,
		.hint = "Enter saves (the question may be unanswered); empty removes it" };
	struct note_ctx c = { t, s };
	char title[160];

	snprintf(title, sizeof title, "Note on %s", s->a->q->questions[cur_question(s)].id);
	snprintf(f.value, sizeof f.value, "%s", now ? now : "");
	tui_form(t, title, &f, 1, note_submit, &c);
	return 0;
}

static void
next_unanswered(struct tui *t, struct assess_state *s)
{
	int n = s->a->q->nquestions, from = cur_question(s);

	for (int step = 1; step <= n; step++) {
		int qi = (from + step) % n;

		if (s->a->asked[qi] && s->a->answers[qi].value == NULL) {
			select_question(s, qi);
			s->pane = 1;
			return;
		}
	}
	tui_status(t, 0, "every question asked is answered");
}

static void
move_by(struct assess_state *s, int delta)
{
	if (s->pane == 0) {
		s->sec += delta;
		if (s->sec < 0)
			s->sec = 0;
		if (s->sec >= s->a->q->nsections)
			s->sec = s->a->q->nsections - 1;
		s->q = 0;
		s->qtop = 0;
	} else {
		s->q += delta;
		if (s->q < 0)
			s->q = 0;
		if (s->q >= cur_section(s)->count)
			s->q = cur_section(s)->count - 1;
	}
	snprintf(s->keep_q, sizeof s->keep_q, "%s", s->a->q->questions[cur_question(s)].id);
}

/* Enter on the sections pane only moves to the questions. */
static int
pane_enter(const struct assess_state *s, enum request req)
{
	return req == REQ_ENTER && s->pane == 0;
}

/* A final or in-review assessment refuses changes: said before any dialog opens, in
 * full (the status line is one line: it fits 80 columns), with the way to change it. */
static int
refused(const struct assess_state *s, enum request req, int moves_only, struct aerr *err)
{
	const char *st = s->a->status;
	int edit = (req == REQ_ENTER && !moves_only) || req == REQ_NOTE || req == REQ_ATTACH ||
	    req == REQ_SHEET_IMPORT;

	if (strcmp(st, "final") == 0 && (edit || req == REQ_SUBMIT || req == REQ_APPROVE))
		return aerr_set(err, AV_USAGE, "final and read-only: :assess reopen %lld starts a new "
		    "round to change it", (long long)s->id);
	if (strcmp(st, "in_review") == 0 && edit)
		return aerr_set(err, AV_USAGE, "in review, answers locked: U returns it to draft");
	if (strcmp(st, "in_review") == 0 && req == REQ_SUBMIT)
		return aerr_set(err, AV_USAGE, "already in review: V approves it, U returns it to draft");
	if (strcmp(st, "draft") == 0 && (req == REQ_APPROVE || req == REQ_RETURN))
		return aerr_set(err, AV_USAGE, "a draft: S submits it for review, then V approves it");
	if (strcmp(st, "final") == 0 && req == REQ_RETURN)
		return aerr_set(err, AV_USAGE, "final and read-only: :assess reopen %lld starts a new "
		    "round to change it", (long long)s->id);
	return 0;
}

/* E: the vendor's sheet in the format picked, to a file named in a prompt. */
static int
sheet_export(struct tui *t, struct assess_state *s, struct aerr *err)
{
	struct tui_menu_item items[] = {
		{ "xlsx", "Excel workbook: dropdowns, typed cells, locked questions", 0 },
		{ "csv", "CSV, one row per question", 0 },
		{ "md", "Markdown, for reading", 0 },
	};
	char initial[64], path[512];
	struct sheet_xlsx_info info = { t->av->actor, NULL };
	struct buf b;
	int k, rc;

	if ((k = tui_menu(t, "Write the vendor's sheet as", items, 3, 0, 0)) < 0)
		return 0;
	snprintf(initial, sizeof initial, "assessment-%lld.%s", (long long)s->id, items[k].value);
	if (!tui_prompt(t, "Write to:", initial, path, sizeof path) || path[0] == '\0')
		return 0;
	if (k == 0) {
		rc = sheet_export_xlsx(s->a->q, s->a, &info, path, err);
	} else {
		buf_init(&b);
		rc = assessment_export(s->a, items[k].value, &b, err);
		if (rc == 0)
			rc = write_file_atomic(path, b.data, b.len, 0644, err);
		buf_free(&b);
	}
	if (rc != 0)
		return rc;
	tui_status(t, 0, "assessment %lld: %s sheet written to %s", (long long)s->id, items[k].value,
	    path);
	return 0;
}

/* I: a filled-in sheet, CSV or workbook, all or nothing; its problems shown in full. */
static int
sheet_import(struct tui *t, struct assess_state *s, struct aerr *err)
{
	char path[512];
	struct buf problems;
	int changed = 0, rc;

	if (!tui_pick_file(t, "Import a filled-in sheet (.xlsx or .csv)", path, sizeof path))
		return 0;
	buf_init(&problems);
	rc = assessment_import_sheet(t->av->db, t->av->actor, s->a, path, &problems, &changed, err);
	if (rc != 0 && problems.len > 0) {
		struct aerr shown = { 0 };

		buf_printf(&problems, "%s\n", err->msg);
		tui_show_text(t, "Sheet refused: nothing was imported", problems.data, &shown);
	}
	buf_free(&problems);
	if (rc != 0)
		return rc;
	tui_changed(t);
	tui_status(t, 0, "assessment %lld: %d answer%s changed from %s", (long long)s->id, changed,
	    changed == 1 ? "" : "s", path);
	return 0;
}

/* / asks for the text and moves to its first match; > and < step through the matches. */
static int
search_request(struct tui *t, struct assess_state *s, enum request req)
{
	char text[512];

	if (req == REQ_FIND) {
		if (!tui_search_prompt(t, s->search, text, sizeof text))
			return 0;
		snprintf(s->search, sizeof s->search, "%s", text);
		if (s->search[0] == '\0')
			tui_status(t, 0, "search ended");
		else if (!search_step(t, s, 1, 1))
			s->search[0] = '\0';
		return 0;
	}
	if (s->search[0] == '\0') {
		tui_status(t, 0, "> and < step through the matches of a / search; nothing is "
		    "searched");
		return 0;
	}
	search_step(t, s, req == REQ_FIND_NEXT ? 1 : -1, 0);
	return 0;
}

/* f: a file chosen in the picker becomes evidence for the selected answer. */
static int
attach_file(struct tui *t, struct assess_state *s, struct aerr *err)
{
	char text[512];
	char *files[1] = { text };
	struct assessment_answer_input in = { .ref = s->idtext,
		.question = s->a->q->questions[cur_question(s)].id, .files = files, .nfiles = 1 };

	if (!tui_pick_file(t, "Attach evidence to this answer", text, sizeof text))
		return 0;
	return attach(t, s, &in, err);
}

/* H: the selected question's history, in the text viewer. */
static int
show_history(struct tui *t, struct assess_state *s, struct aerr *err)
{
	struct buf out;
	char title[120];
	cJSON *h;
	int qi = cur_question(s), rc;

	if (assessment_history(t->av->db, s->a, qi, &h, err) != 0)
		return err->code;
	buf_init(&out);
	assessment_history_text(s->a, qi, h, &out);
	buf_add(&out, "", 0);
	cJSON_Delete(h);
	snprintf(title, sizeof title, "History of %s", s->a->q->questions[qi].id);
	rc = tui_show_text(t, title, out.data, err);
	buf_free(&out);
	return rc;
}

/* A round with required questions open is refused before any question, in the
 * words of assess submit. */
static int
submit_round(struct tui *t, struct assess_state *s, struct aerr *err)
{
	if (assessment_may_submit(t->av->db, s->id, err) != 0)
		return err->code;
	if (!tui_confirm(t, "Submit assessment %s for review? Its answers lock.", s->idtext))
		return 0;
	if (assessment_submit(t->av->db, t->av->actor, s->id, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "assessment %lld submitted for review", (long long)s->id);
	return 0;
}

/* The reviewer is the actor; nobody types a name in. One who may not approve
 * (the author, a login without the reviewer role) is told so before any question. */
static int
approve_round(struct tui *t, struct assess_state *s, struct aerr *err)
{
	struct minisign_sec *sec;
	int rc;

	if (assessment_may_approve(t->av->db, t->av->actor, s->id, err) != 0)
		return err->code;
	if (!tui_confirm(t, "Approve assessment %s as %s? It becomes final.", s->idtext,
	    t->av->actor))
		return 0;
	rc = approval_key_load(t->av->db, t->av->actor, NULL, 0, &sec, err);
	if (rc == 0)
		rc = assessment_approve(t->av->db, t->av->actor, s->id, sec, err);
	minisign_sec_free(sec);
	if (rc != 0)
		return rc;
	tui_changed(t);
	tui_status(t, 0, "assessment %lld approved by %s (final)", (long long)s->id, t->av->actor);
	return 0;
}

static int
return_round(struct tui *t, struct assess_state *s, struct aerr *err)
{
	int64_t same;

	if (!tui_confirm(t, "Return assessment %s to draft? Its answers unlock for changes.",
	    s->idtext))
		return 0;
	if (assessment_reopen(t->av->db, t->av->actor, s->id, &same, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "assessment %lld returned to draft by %s", (long long)s->id, t->av->actor);
	return 0;
}

static int
assess_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct assess_state *s = v->state;
	int page = v->content_rows - 3 - detail_rows(s->a, v->content_rows);

	if (refused(s, req, pane_enter(s, req), err) != 0)
		return err->code;
	switch (req) {
	case REQ_FIND:
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		return search_request(t, s, req);
	case REQ_UP: move_by(s, -1); return 0;
	case REQ_DOWN: move_by(s, 1); return 0;
	case REQ_PAGE_UP: move_by(s, -(page > 1 ? page : 1)); return 0;
	case REQ_PAGE_DOWN: move_by(s, page > 1 ? page : 1); return 0;
	case REQ_HOME: move_by(s, -100000); return 0;
	case REQ_END: move_by(s, 100000); return 0;
	case REQ_LEFT: s->pane = 0; return 0;
	case REQ_RIGHT: s->pane = 1; return 0;
	case REQ_NEXT_PANE: s->pane = !s->pane; return 0;
	case REQ_ENTER:
		if (s->pane == 0) {
			s->pane = 1;
			return 0;
		}
		return answer_question(t, s, err);
	case REQ_NEXT_UNANSWERED:
		next_unanswered(t, s);
		return 0;
	case REQ_NOTE:
		return edit_note(t, s);
	case REQ_ATTACH:
		return attach_file(t, s, err);
	case REQ_HISTORY:
		return show_history(t, s, err);
	case REQ_SHEET_EXPORT:
		return sheet_export(t, s, err);
	case REQ_SHEET_IMPORT:
		return sheet_import(t, s, err);
	case REQ_SUBMIT:
		return submit_round(t, s, err);
	case REQ_APPROVE:
		return approve_round(t, s, err);
	case REQ_RETURN:
		return return_round(t, s, err);
	default:
		return 0;
	}
}

static void
assess_close(struct view *v)
{
	struct assess_state *s = v->state;

	assessment_free(s->a);
	claim_list_free(&s->claims);
	free(s);
}

static void
assess_title(struct view *v, char *buf, size_t n)
{
	struct assess_state *s = v->state;

	snprintf(buf, n, "Assessment %lld (%s)", (long long)s->id, s->a ? s->a->status : "");
}

static void
assess_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct assess_state *s = v->state;
	struct aerr err = { 0 };

	/* The click's column is not passed on: a click picks a row in the focused pane. */
	if (row < 2 || row >= v->content_rows - 1 - detail_rows(s->a, v->content_rows))
		return;
	if (s->pane == 0 && row - 2 < s->a->q->nsections) {
		s->sec = row - 2;
		s->q = s->qtop = 0;
	} else if (s->pane == 1 && s->qtop + row - 2 < cur_section(s)->count) {
		s->q = s->qtop + row - 2;
		if (dbl && (refused(s, REQ_ENTER, 0, &err) != 0 || answer_question(t, s, &err) != 0))
			tui_status(t, 1, "%s", err.msg);
	}
	snprintf(s->keep_q, sizeof s->keep_q, "%s", s->a->q->questions[cur_question(s)].id);
}

/* What the round's status refuses is not offered: a final round offers no submit,
 * approve, return, note, attachment or import, a round in review no submit or change;
 * the refusal stays for a typed key. Where answers are locked, the next unanswered
 * question is none to answer: its place on the hint line goes to what applies. */
static int
assess_offers(const struct view *v, enum request req)
{
	const struct assess_state *s = v->state;
	struct aerr err = { 0 };

	if (s == NULL || s->a == NULL || req == REQ_ENTER)
		return 1;
	if (req == REQ_NEXT_UNANSWERED)
		return strcmp(s->a->status, "draft") == 0;
	return refused(s, req, 0, &err) == 0;
}

const struct view_ops tui_assess_view = {
	"assessment", assess_requests, assess_open, assess_load, assess_draw, assess_request,
	assess_close, assess_title, assess_click, assess_offers
};
