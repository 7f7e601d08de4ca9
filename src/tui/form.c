/*
 * tui/form.c: the form dialog (tui_form), on libform: labelled fields, each
 * checked as it is typed, a box as wide as its fields and hints need; and the
 * one-line prompt at the bottom (tui_prompt, and the / prompt
 * tui_search_prompt) that runs on the same engine.
 */
#include "config.h"

#include <form.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

/* Reads a field's text without the padding libform adds. */
static void
field_text(FIELD *f, char *out, size_t n)
{
	const char *b = field_buffer(f, 0);
	size_t len = b ? strlen(b) : 0;

	while (len > 0 && b[len - 1] == ' ')
		len--;
	if (len >= n)
		len = n - 1;
	if (len)
		memcpy(out, b, len);
	out[len] = '\0';
}

/* The shared engine of tui_form and tui_prompt. */
/* Where a form sits: a dialog box in the middle, or the bottom line. */
struct form_box {
	int labelw, fieldw, h, w, y, x;
	int trows;                /* rows of the title, which wraps too: the first is in the border */
	int gap;                  /* rows from one field to the next: 2, or 1 when 2 would not fit */
	int msgrows;              /* rows under the fields for the hint or message */
};

#define FORM_HINT "Tab next field, Enter save, Esc cancel"

static int
wrapped_rows(const char *s, int width)
{
	char **lines;
	int n = tui_wrap(s, width, &lines);

	tui_wrap_free(lines, n);
	return n;
}

/* A dialog takes the width its fields, title and hints need, up to the
 * terminal's width less a margin; a hint that is wider still wraps. */
static void
form_place(const char *title, const struct tui_field *fields, int n, int bottom_line,
    struct form_box *b)
{
	int want, maxw = COLS > 12 ? COLS - 4 : COLS;

	b->labelw = b->fieldw = 0;
	b->gap = 2;
	b->msgrows = b->trows = 1;
	for (int i = 0; i < n; i++) {
		int lw = (int)strlen(fields[i].label);

		if (lw > b->labelw)
			b->labelw = lw;
		if (fields[i].width > b->fieldw)
			b->fieldw = fields[i].width;
	}
	if (bottom_line) {
		b->h = 1, b->w = COLS, b->y = LINES - 1, b->x = 0;
		b->fieldw = COLS - b->labelw - 1;
		return;
	}
	if (b->fieldw < 20)
		b->fieldw = 20;
	want = b->labelw + b->fieldw + 6;
	if (tui_text_cols(title) + 6 > want)
		want = tui_text_cols(title) + 6;
	if (tui_text_cols(FORM_HINT) + 4 > want)
		want = tui_text_cols(FORM_HINT) + 4;
	for (int i = 0; i < n; i++)
		if (fields[i].hint != NULL && tui_text_cols(fields[i].hint) + 4 > want)
			want = tui_text_cols(fields[i].hint) + 4;
	b->w = want > maxw ? maxw : want;
	b->fieldw = b->w - b->labelw - 6;
	for (int i = 0; i < n; i++)
		if (fields[i].hint != NULL && wrapped_rows(fields[i].hint, b->w - 4) > b->msgrows)
			b->msgrows = wrapped_rows(fields[i].hint, b->w - 4);
	b->trows = wrapped_rows(title, b->w - 4);
	if (b->trows > 4)
		b->trows = 4;
	/* A blank row between fields while they fit; a long form (an endpoint's, at 24
	 * rows) closes them up rather than lose its last fields below the screen. */
	b->gap = b->trows + n * 2 + 3 + b->msgrows > LINES ? 1 : 2;
	b->h = b->trows + n * b->gap + 3 + b->msgrows;
	if (b->h > LINES)
		b->h = LINES;
	b->y = (LINES - b->h) / 2, b->x = (COLS - b->w) / 2;
}

/* The text under the fields: the message, else the field's hint. */
static const char *
form_text(const struct tui_field *fields, int cur, const char *msg)
{
	return msg[0] ? msg : fields[cur].hint ? fields[cur].hint : FORM_HINT;
}

/* Whether the box must grow for text (wider, up to the terminal less a margin,
 * then taller): 1 with b changed, else 0. */
static int
form_grow(const char *text, int n, struct form_box *b)
{
	int maxw = COLS > 12 ? COLS - 4 : COLS, w = tui_text_cols(text) + 4, h;

	if (w > maxw)
		w = maxw;
	if (w < b->w)
		w = b->w;
	h = b->trows + n * b->gap + 3 + wrapped_rows(text, w - 4);
	if (h > LINES)
		h = LINES;
	if (h < b->h)
		h = b->h;
	if (w == b->w && h == b->h)
		return 0;
	b->w = w, b->h = h, b->msgrows = h - b->trows - n * b->gap - 3;
	b->y = (LINES - h) / 2, b->x = (COLS - w) / 2;
	return 1;
}

/* Only the frame around the fields is drawn here: libform keeps the current
 * field's text in its window, so that must never be erased. */
static void
form_frame(struct tui *t, WINDOW *win, const struct form_box *b, const char *title,
    const struct tui_field *fields, int n, int bottom_line, int cur, const char *msg)
{
	const char *text = form_text(fields, cur, msg);
	int mattr, top = b->trows + n * b->gap + 2, nl, tl;
	char **lines, **tlines;

	if (bottom_line) {
		wattron(win, A_BOLD);
		mvwaddstr(win, 0, 0, title);
		wattroff(win, A_BOLD);
		return;
	}
	nl = tui_wrap(text, b->w - 4, &lines);
	mattr = tui_attr(t, msg[0] ? TUI_MARK_BAD : TUI_MARK_DIM);
	for (int r = top - 1; r < b->h - 1; r++)
		mvwhline(win, r, 1, ' ', b->w - 2);
	box(win, 0, 0);
	tl = tui_wrap(title, b->w - 4, &tlines);
	wattron(win, A_BOLD);
	for (int i = 0; i < tl && i < b->trows; i++)
		tui_put(win, i, 2, b->w - 4, tlines[i]);
	wattroff(win, A_BOLD);
	tui_wrap_free(tlines, tl);
	for (int i = 0; i < n; i++)
		tui_put(win, b->trows + 1 + i * b->gap, 2, b->labelw, fields[i].label);
	wattron(win, mattr);
	for (int i = 0; i < nl && i < b->msgrows; i++)
		tui_put(win, top + i, 2, b->w - 4, lines[i]);
	wattroff(win, mattr);
	if (msg[0])
		mvwaddstr(win, top, 1, "!");
	tui_wrap_free(lines, nl);
}

/* Enter: every field checked, then submit; 1 when the form is done, else 0
 * with the reason in msg and the cursor on the field at fault. */
static int
form_enter(FORM *form, FIELD **f, struct tui_field *fields, int n,
    int (*submit)(struct tui_field *, int, void *, struct aerr *), void *ctx, char *msg, size_t msgn)
{
	struct aerr err = { 0 };

	form_driver(form, REQ_VALIDATION);
	for (int i = 0; i < n; i++) {
		field_text(f[i], fields[i].value, sizeof fields[i].value);
		aerr_clear(&err);
		if (fields[i].check && fields[i].check(fields[i].value, fields[i].ctx, &err) != 0) {
			snprintf(msg, msgn, "%s: %s", fields[i].label, err.msg);
			set_current_field(form, f[i]);
			return 0;
		}
	}
	aerr_clear(&err);
	if (submit != NULL && submit(fields, n, ctx, &err) != 0) {
		snprintf(msg, msgn, "%s", err.msg);
		return 0;
	}
	return 1;
}

/* What a key does to a field whose value is selected (entered with a value):
 * 0 leaves it selected (the key moves on or closes), 1 ends the selection and
 * the key then acts (a printable key first clears the value it replaces), 2
 * ends it and the key is spent (Backspace and Delete clear the value). */
static int
form_unselect(FORM *form, int r, wint_t ch)
{
	if (r == KEY_CODE_YES) {
		switch (ch) {
		case KEY_DOWN: case KEY_UP: case KEY_BTAB: case KEY_ENTER: case KEY_RESIZE:
			return 0;
		case KEY_BACKSPACE: case KEY_DC:
			form_driver(form, REQ_CLR_FIELD);
			return 2;
		}
		return 1;
	}
	switch (ch) {
	case 27: case '\t': case '\n': case '\r':
		return 0;
	case 127: case 8:
		form_driver(form, REQ_CLR_FIELD);
		return 2;
	}
	if (ch >= 32)
		form_driver(form, REQ_CLR_FIELD);
	return 1;
}

/* One key in a form: 1 when the form is done, -1 when cancelled, else 0. */
static int
form_key(FORM *form, FIELD **f, struct tui_field *fields, int n, int r, wint_t ch,
    int (*submit)(struct tui_field *, int, void *, struct aerr *), void *ctx, char *msg, size_t msgn)
{
	if (r == KEY_CODE_YES) {
		switch (ch) {
		case KEY_DOWN: form_driver(form, REQ_NEXT_FIELD); form_driver(form, REQ_END_LINE); break;
		case KEY_UP:
			/* A one-line prompt has no field above: Up offers the text used last. */
			if (n == 1 && fields[0].recall != NULL) {
				set_field_buffer(f[0], 0, fields[0].recall);
				form_driver(form, REQ_END_LINE);
				break;
			}
			/* FALLTHROUGH */
		case KEY_BTAB: form_driver(form, REQ_PREV_FIELD); form_driver(form, REQ_END_LINE); break;
		case KEY_LEFT: form_driver(form, REQ_PREV_CHAR); break;
		case KEY_RIGHT: form_driver(form, REQ_NEXT_CHAR); break;
		case KEY_BACKSPACE: form_driver(form, REQ_DEL_PREV); break;
		case KEY_DC: form_driver(form, REQ_DEL_CHAR); break;
		case KEY_HOME: form_driver(form, REQ_BEG_LINE); break;
		case KEY_END: form_driver(form, REQ_END_LINE); break;
		case KEY_ENTER: return form_enter(form, f, fields, n, submit, ctx, msg, msgn);
		case KEY_RESIZE: break;
		}
		return 0;
	}
	switch (ch) {
	case 27:
		return -1;
	case '\t':
		form_driver(form, REQ_NEXT_FIELD);
		form_driver(form, REQ_END_LINE);
		break;
	case 127: case 8:
		form_driver(form, REQ_DEL_PREV);
		break;
	case 21:   /* ^U */
		form_driver(form, REQ_CLR_FIELD);
		break;
	case '\n': case '\r':
		return form_enter(form, f, fields, n, submit, ctx, msg, msgn);
	default:
		form_driver_w(form, OK, (wchar_t)ch);
		break;
	}
	return 0;
}

/* Puts the form in a (new) box of b's size; what was typed stays in the fields. */
static void
form_show(FORM *form, const struct form_box *b, int n, int bottom_line, WINDOW **win, WINDOW **sub)
{
	FIELD *cur = current_field(form);

	if (*win != NULL) {
		unpost_form(form);
		delwin(*sub);
		delwin(*win);
		touchwin(stdscr);
		wnoutrefresh(stdscr);
	}
	*win = newwin(b->h, b->w, b->y, b->x);
	keypad(*win, TRUE);
	wtimeout(*win, 250);
	*sub = bottom_line ? derwin(*win, 1, b->fieldw, 0, b->labelw + 1)
	    : derwin(*win, n * b->gap, b->fieldw, b->trows + 1, b->labelw + 4);
	set_form_win(form, *win);
	set_form_sub(form, *sub);
	post_form(form);
	if (cur != NULL)
		set_current_field(form, cur);
	form_driver(form, REQ_END_LINE);
}

static int
run_form(struct tui *t, const char *title, struct tui_field *fields, int n, int bottom_line,
    int (*submit)(struct tui_field *, int, void *, struct aerr *), void *ctx)
{
	FIELD *f[33];
	FORM *form;
	WINDOW *win = NULL, *sub = NULL;
	struct form_box b;
	int cur, done = 0, entered = -1, selected = -1;
	char msg[600] = "";
	struct aerr err = { 0 };

	if (n > 32)
		n = 32;
	form_place(title, fields, n, bottom_line, &b);
	if (b.fieldw < 4)
		return 0;
	for (int i = 0; i < n; i++) {
		f[i] = new_field(1, b.fieldw, bottom_line ? 0 : i * b.gap, 0, 0, 0);
		set_field_back(f[i], A_UNDERLINE);
		field_opts_off(f[i], O_AUTOSKIP | O_STATIC | O_BLANK);
		set_max_field(f[i], (int)sizeof fields[i].value - 1);
		set_field_buffer(f[i], 0, fields[i].value);
	}
	f[n] = NULL;
	form = new_form(f);
	curs_set(1);
	form_show(form, &b, n, bottom_line, &win, &sub);
	while (!done) {
		FIELD *cf = current_field(form);
		wint_t ch;
		int r;

		cur = field_index(cf);
		/* Live validation of the field being edited. */
		form_driver(form, REQ_VALIDATION);
		field_text(cf, fields[cur].value, sizeof fields[cur].value);
		if (cur != entered) {
			/* Entered with a value: the value is selected, as a browser's field is. */
			if (selected >= 0)
				set_field_back(f[selected], A_UNDERLINE);
			entered = cur;
			selected = fields[cur].value[0] != '\0' ? cur : -1;
			if (selected >= 0)
				set_field_back(f[cur], A_REVERSE);
		}
		if (msg[0] == '\0' && fields[cur].check != NULL) {
			aerr_clear(&err);
			if (fields[cur].check(fields[cur].value, fields[cur].ctx, &err) != 0 &&
			    fields[cur].value[0] != '\0')
				snprintf(msg, sizeof msg, "%s", err.msg);
		}
		if (!bottom_line && form_grow(form_text(fields, cur, msg), n, &b))
			form_show(form, &b, n, bottom_line, &win, &sub);
		form_frame(t, win, &b, title, fields, n, bottom_line, cur, msg);
		pos_form_cursor(form);
		wrefresh(win);
		r = wget_wch(win, &ch);
		if (r == ERR) {
			if (tui_input_lost())
				done = -1;
			continue;
		}
		msg[0] = '\0';
		if (selected >= 0) {
			int u = form_unselect(form, r, ch);

			if (u != 0) {
				set_field_back(f[selected], A_UNDERLINE);
				selected = -1;
			}
			if (u == 2)
				continue;
		}
		done = form_key(form, f, fields, n, r, ch, submit, ctx, msg, sizeof msg);
	}
	unpost_form(form);
	free_form(form);
	for (int i = 0; i < n; i++)
		free_field(f[i]);
	delwin(sub);
	delwin(win);
	curs_set(0);
	touchwin(stdscr);
	tui_dialog_closed(t);
	return done == 1;
}

int
tui_form(struct tui *t, const char *title, struct tui_field *fields, int n,
    int (*submit)(struct tui_field *, int, void *, struct aerr *), void *ctx)
{
	int rc;

	tui_redraw(t);
	rc = run_form(t, title, fields, n, 0, submit, ctx);
	if (!rc)
		tui_status(t, 0, "cancelled");
	return rc;
}

int
tui_prompt(struct tui *t, const char *label, const char *initial, char *out, size_t n)
{
	struct tui_field f = { .label = label };
	int rc;

	snprintf(f.value, sizeof f.value, "%s", initial ? initial : "");
	tui_redraw(t);
	rc = run_form(t, label, &f, 1, 1, NULL, NULL);
	if (rc)
		snprintf(out, n, "%s", f.value);
	return rc;
}

int
tui_search_prompt(struct tui *t, const char *last, char *out, size_t n)
{
	struct tui_field f = { .label = "/", .recall = last && last[0] ? last : NULL };
	int rc;

	tui_redraw(t);
	rc = run_form(t, "/", &f, 1, 1, NULL, NULL);
	if (rc)
		snprintf(out, n, "%s", f.value);
	return rc;
}
