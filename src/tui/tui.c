/*
 * tui/tui.c: the terminal UI's core — the input loop, the view stack, the
 * frame (title bar, hint line, status line), the list widget, dialogs,
 * the ':' command line and background jobs. Screens live in tui-*.c.
 * The terminal is restored on every exit path, including fatal signals.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/wait.h>
#include <wordexp.h>
#include <form.h>

#include "tui.h"

#define IDLE_RELOAD_MS 2000
/* Keys closer together than this are one burst of typing. */
#define BURST_MS 500
/* A long status takes at most this share of the screen's rows. */
#define STATUS_MAX_ROWS(lines) ((lines) / 4 > 1 ? (lines) / 4 : 1)

static volatile sig_atomic_t got_term;
static int curses_active;

/* ---- drawing helpers ---- */

void
tui_put(WINDOW *w, int y, int x, int maxw, const char *s)
{
	wchar_t wbuf[1024];
	size_t n;
	int width = 0, i;

	if (maxw <= 0)
		return;
	n = mbstowcs(wbuf, s, sizeof wbuf / sizeof wbuf[0] - 1);
	if (n == (size_t)-1) {
		/* Not valid in this locale: show bytes as '?' rather than garbage. */
		for (n = 0; s[n] && n < sizeof wbuf / sizeof wbuf[0] - 1; n++)
			wbuf[n] = (unsigned char)s[n] < 0x80 ? (wchar_t)s[n] : L'?';
	}
	wbuf[n] = L'\0';
	for (i = 0; wbuf[i]; i++) {
		int cw = wcwidth(wbuf[i]);

		if (cw < 0)
			wbuf[i] = L'?', cw = 1;
		if (width + cw > maxw)
			break;
		width += cw;
	}
	wbuf[i] = L'\0';
	mvwaddwstr(w, y, x, wbuf);
}

int
tui_wrap(const char *text, int width, char ***lines)
{
	size_t len = strlen(text);
	wchar_t *w = xcalloc(len + 1, sizeof *w);
	size_t n = mbstowcs(w, text, len + 1);
	int count = 0, cap = 0;
	size_t start = 0;

	if (n == (size_t)-1) {
		for (n = 0; n < len; n++)
			w[n] = (unsigned char)text[n] < 0x80 ? (wchar_t)text[n] : L'?';
		w[n] = L'\0';
	}
	if (width < 1)
		width = 1;
	*lines = NULL;
	while (start < n || count == 0) {
		size_t i = start, brk = 0, next;
		int col = 0;

		/* Find where this line ends: a newline, or the last space that fits. */
		while (i < n && w[i] != L'\n') {
			int cw = wcwidth(w[i]);

			if (cw < 0)
				w[i] = L'?', cw = 1;
			if (col + cw > width)
				break;
			if (w[i] == L' ')
				brk = i;
			col += cw;
			i++;
		}
		if (i < n && w[i] != L'\n' && brk > start) {
			next = brk + 1;
			i = brk;
		} else {
			next = i < n && w[i] == L'\n' ? i + 1 : i;
			if (next == start && i < n)
				next = i = start + 1;   /* one character wider than the line */
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 4;
			*lines = xrealloc(*lines, sizeof **lines * (size_t)cap);
		}
		{
			wchar_t saved = w[i];
			size_t bytes;

			w[i] = L'\0';
			bytes = wcstombs(NULL, w + start, 0);
			(*lines)[count] = xcalloc(bytes == (size_t)-1 ? 1 : bytes + 1, 1);
			if (bytes != (size_t)-1)
				wcstombs((*lines)[count], w + start, bytes + 1);
			w[i] = saved;
		}
		count++;
		start = next;
		if (start >= n)
			break;
	}
	free(w);
	return count;
}

void
tui_wrap_free(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

int
tui_attr(struct tui *t, int mark)
{
	switch (mark) {
	case TUI_MARK_GOOD:
		return t->color ? COLOR_PAIR(1) : A_NORMAL;
	case TUI_MARK_WARN:
		return t->color ? COLOR_PAIR(2) | A_BOLD : A_BOLD;
	case TUI_MARK_BAD:
		return t->color ? COLOR_PAIR(3) | A_BOLD : A_BOLD;
	case TUI_MARK_DIM:
		return A_DIM;
	}
	return A_NORMAL;
}

/* ---- the list widget ---- */

static void
list_refilter(struct tui_list *l)
{
	l->vis = xrealloc(l->vis, sizeof *l->vis * (size_t)(l->n ? l->n : 1));
	l->nvis = 0;
	for (int i = 0; i < l->n; i++)
		if (l->filter[0] == '\0' || strcasestr(l->rows[i], l->filter) != NULL)
			l->vis[l->nvis++] = i;
	if (l->sel >= l->nvis)
		l->sel = l->nvis ? l->nvis - 1 : 0;
	if (l->sel < 0)
		l->sel = 0;
}

void
tui_list_clear(struct tui_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->rows[i]);
	l->n = 0;
	l->nvis = 0;
}

void
tui_list_add(struct tui_list *l, int64_t id, int mark, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->rows = xrealloc(l->rows, sizeof *l->rows * (size_t)l->cap);
		l->ids = xrealloc(l->ids, sizeof *l->ids * (size_t)l->cap);
		l->marks = xrealloc(l->marks, sizeof *l->marks * (size_t)l->cap);
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	l->rows[l->n] = s;
	l->ids[l->n] = id;
	l->marks[l->n] = mark;
	l->n++;
	list_refilter(l);
}

void
tui_list_free(struct tui_list *l)
{
	tui_list_clear(l);
	free(l->rows);
	free(l->ids);
	free(l->marks);
	free(l->vis);
	memset(l, 0, sizeof *l);
}

void
tui_list_restore(struct tui_list *l, int64_t id)
{
	list_refilter(l);
	for (int i = 0; i < l->nvis; i++)
		if (l->ids[l->vis[i]] == id) {
			l->sel = i;
			return;
		}
}

int64_t
tui_list_selected_id(const struct tui_list *l)
{
	return l->nvis > 0 ? l->ids[l->vis[l->sel]] : -1;
}

void
tui_list_draw(struct tui_list *l, struct tui *t, WINDOW *w, int y, int rows, int cols)
{
	if (l->header[0] != '\0') {
		wattron(w, A_BOLD | A_UNDERLINE);
		tui_put(w, y, 2, cols - 2, l->header);
		wattroff(w, A_BOLD | A_UNDERLINE);
		y++;
		rows--;
	}
	if (rows <= 0)
		return;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + rows)
		l->top = l->sel - rows + 1;
	if (l->top > 0 && l->nvis - l->top < rows)
		l->top = l->nvis > rows ? l->nvis - rows : 0;
	if (l->nvis == 0) {
		wattron(w, A_DIM);
		tui_put(w, y, 2, cols - 2, l->filter[0] ? "(nothing matches the filter)" : "(empty)");
		wattroff(w, A_DIM);
		return;
	}
	for (int i = 0; i < rows && l->top + i < l->nvis; i++) {
		int idx = l->vis[l->top + i], cur = l->top + i == l->sel;
		int attr = tui_attr(t, l->marks[idx]) | (cur ? (l->blur ? A_DIM : A_REVERSE) : 0);

		wattron(w, attr);
		if (cur && !l->blur)
			mvwhline(w, y + i, 0, ' ', cols);
		mvwaddstr(w, y + i, 0, cur && !l->blur ? ">" : " ");
		tui_put(w, y + i, 2, cols - 2, l->rows[idx]);
		wattroff(w, attr);
	}
}

int
tui_list_request(struct tui_list *l, struct tui *t, enum request req, int rows)
{
	char text[128];

	switch (req) {
	case REQ_UP:
		if (l->sel > 0)
			l->sel--;
		return 1;
	case REQ_DOWN:
		if (l->sel + 1 < l->nvis)
			l->sel++;
		return 1;
	case REQ_PAGE_UP:
		l->sel = l->sel > rows ? l->sel - rows : 0;
		return 1;
	case REQ_PAGE_DOWN:
		l->sel = l->sel + rows < l->nvis ? l->sel + rows : (l->nvis ? l->nvis - 1 : 0);
		return 1;
	case REQ_HOME:
		l->sel = 0;
		return 1;
	case REQ_END:
		l->sel = l->nvis ? l->nvis - 1 : 0;
		return 1;
	case REQ_SEARCH:
		if (tui_search_prompt(t, l->filter, text, sizeof text)) {
			int64_t id = tui_list_selected_id(l);

			snprintf(l->filter, sizeof l->filter, "%s", text);
			tui_list_restore(l, id);
			if (tui_list_selected_id(l) != id)
				l->sel = 0;   /* the selected row does not match: the first match */
			if (l->filter[0])
				tui_status(t, 0, "filter: %s (%d of %d rows; n/N next/previous match; / then "
				    "Enter on empty text clears)", l->filter, l->nvis, l->n);
			else
				tui_status(t, 0, "filter cleared");
		}
		return 1;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		/* Every row shown matches the filter: the next match is the next row, round the end. */
		if (l->filter[0] == '\0')
			tui_status(t, 0, "n and N step through the matches of a / search; nothing is searched");
		else if (l->nvis == 0)
			tui_status(t, 0, "nothing matches '%s'", l->filter);
		else {
			l->sel = (l->sel + (req == REQ_FIND_NEXT ? 1 : l->nvis - 1)) % l->nvis;
			tui_status(t, 0, "'%s': match %d of %d", l->filter, l->sel + 1, l->nvis);
		}
		return 1;
	default:
		return 0;
	}
}

void
tui_list_click(struct tui_list *l, int row)
{
	int hdr = l->header[0] != '\0';

	if (row - hdr >= 0 && l->top + row - hdr < l->nvis)
		l->sel = l->top + row - hdr;
}

/* ---- the view stack ---- */

struct view *
tui_top(struct tui *t)
{
	return t->depth ? &t->stack[t->depth - 1] : NULL;
}

int
tui_push(struct tui *t, const struct view_ops *ops, const void *arg, struct aerr *err)
{
	struct view *v;

	if (t->depth == TUI_MAX_DEPTH)
		return aerr_set(err, AV_USAGE, "too many screens open; go back with q");
	v = &t->stack[t->depth];
	memset(v, 0, sizeof *v);
	v->ops = ops;
	v->content_rows = LINES - 3;
	v->content_cols = COLS;
	if (ops->open != NULL && ops->open(v, t, arg, err) != 0)
		return err->code;
	if (ops->load != NULL && ops->load(v, t, err) != 0) {
		if (ops->close)
			ops->close(v);
		return err->code;
	}
	t->depth++;
	t->last_load_ms = now_ms();
	return 0;
}

void
tui_pop(struct tui *t)
{
	struct view *v = tui_top(t);

	if (v == NULL)
		return;
	if (v->ops->close)
		v->ops->close(v);
	t->depth--;
	t->dirty = 1;   /* what the closed view changed shows below */
}

void
tui_changed(struct tui *t)
{
	t->dirty = 1;
}

void
tui_status(struct tui *t, int error, const char *fmt, ...)
{
	va_list ap;

	char *shown;

	va_start(ap, fmt);
	vsnprintf(t->status, sizeof t->status, fmt, ap);
	va_end(ap);
	/* Messages may quote a vendor's reply or a refused name: shown escaped. */
	shown = text_escape(t->status, strlen(t->status), 0);
	snprintf(t->status, sizeof t->status, "%s", shown);
	free(shown);
	t->status_error = error;
	t->dropped = 0;
	if (error)
		t->refusals++;
}

/* The status as shown: a refusal says so, and says when keys that followed it were dropped. */
static void
status_text(const struct tui *t, char *line, size_t n)
{
	snprintf(line, n, "%s%s", t->status_error ? "error: " : "", t->status);
	if (t->dropped > 0) {
		size_t len = strlen(line);

		snprintf(line + len, n - len, " (%d key%s typed after it ignored)", t->dropped,
		    t->dropped == 1 ? "" : "s");
	}
}

/* Rows the status line needs: a long message wraps rather than being cut. */
static int
status_rows(const struct tui *t)
{
	char line[700];
	char **lines;
	int n;

	if (t->job != NULL || t->status[0] == '\0')
		return 1;
	status_text(t, line, sizeof line);
	line[strcspn(line, "\n")] = '\0';   /* a usage text after the message stays in the CLI */
	n = tui_wrap(line, COLS, &lines);
	tui_wrap_free(lines, n);
	if (n > STATUS_MAX_ROWS(LINES))
		n = STATUS_MAX_ROWS(LINES);
	return n < 1 ? 1 : n;
}

static int
view_handles(const struct view *v, enum request req)
{
	for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++)
		if (*r == req)
			return 1;
	return 0;
}

/* The hint line: the screen's own keys, then "? help  q back", which are
 * never pushed off. Where not all fit, a key's rank in the request table says
 * which go first (3, the less used), so a screen keeps its primary actions;
 * those shown keep the screen's order. */
static void
draw_hints(struct tui *t, struct view *v, int y)
{
	static const enum request globals[] = { REQ_HELP, REQ_BACK, REQ_NONE };
	char line[512] = "", tail[64] = "", key[16];
	unsigned char shown[REQ__COUNT] = { 0 };
	size_t used = 0, room;

	for (const enum request *r = globals; *r != REQ_NONE; r++) {
		char item[40];

		snprintf(item, sizeof item, "  %s %s", tui_key_name_for(*r, key), tui_request_info(*r)->name);
		if (strlen(tail) + strlen(item) < (size_t)COLS)
			strcat(tail, item);
	}
	room = strlen(tail) < (size_t)COLS ? (size_t)COLS - strlen(tail) : 0;
	/* Which fit, best rank first: each item takes its key, name and two spaces. */
	for (int rank = 1; rank <= 3; rank++)
		for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++) {
			const struct request_info *ri = tui_request_info(*r);
			size_t w;

			if (ri == NULL || ri->rank != rank || shown[*r])
				continue;
			w = strlen(tui_key_name_for(*r, key)) + 1 + strlen(ri->name) + (used ? 2 : 0);
			if (used + w > room || used + w >= sizeof line - 1)
				continue;
			shown[*r] = 1;
			used += w;
		}
	used = 0;
	for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++) {
		char item[64];

		if (!shown[*r])
			continue;
		shown[*r] = 0;   /* a request listed twice shows once */
		snprintf(item, sizeof item, "%s%s %s", used ? "  " : "", tui_key_name_for(*r, key),
		    tui_request_info(*r)->name);
		strcat(line, item);
		used += strlen(item);
	}
	snprintf(line + used, sizeof line - used, "%s", used ? tail : tail + 2);
	move(y, 0);
	clrtoeol();
	attron(A_DIM);
	tui_put(stdscr, y, 0, COLS, line);
	attroff(A_DIM);
	(void)t;
}

WINDOW *
tui_modal(struct tui *t, WINDOW *win, int h, int w)
{
	if (win != NULL && getmaxy(win) == h && getmaxx(win) == w)
		return win;
	if (win != NULL)
		delwin(win);
	tui_redraw(t);
	if ((win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2)) != NULL) {
		keypad(win, TRUE);
		wtimeout(win, 250);
	}
	return win;
}

void
tui_redraw(struct tui *t)
{
	struct view *v = tui_top(t);
	char title[256] = "";
	WINDOW *content;
	int srows = status_rows(t), rows = LINES - 2 - srows;

	erase();
	if (v == NULL)
		return;
	if (v->ops->title)
		v->ops->title(v, title, sizeof title);
	else
		snprintf(title, sizeof title, "%s", v->ops->name);
	attron(A_REVERSE | A_BOLD);
	mvhline(0, 0, ' ', COLS);
	{
		char bar[512], who[160];
		wchar_t wwho[160];
		size_t n;
		int ww = 0;

		snprintf(bar, sizeof bar, "aivet | %s", title);
		/* Who is logged in (on PostgreSQL the login; on SQLite the actor), at the
		 * right, when the title leaves room for it. */
		snprintf(who, sizeof who, "as %s", t->av->actor);
		n = mbstowcs(wwho, who, sizeof wwho / sizeof wwho[0] - 1);
		if (n != (size_t)-1) {
			wwho[n] = L'\0';
			ww = wcswidth(wwho, n);
		}
		if (ww > 0 && (int)strlen(bar) + ww + 4 <= COLS) {
			tui_put(stdscr, 0, 1, COLS - ww - 4, bar);
			tui_put(stdscr, 0, COLS - ww - 1, ww, who);
		} else {
			tui_put(stdscr, 0, 1, COLS - 2, bar);
		}
	}
	attroff(A_REVERSE | A_BOLD);
	if (rows > 0) {
		content = derwin(stdscr, rows, COLS, 1, 0);
		if (content != NULL) {
			v->content_rows = rows;
			v->content_cols = COLS;
			v->ops->draw(v, t, content, rows, COLS);
			delwin(content);
		}
	}
	draw_hints(t, v, LINES - 1 - srows);
	move(LINES - 1, 0);
	clrtoeol();
	if (t->job != NULL) {
		struct tui_job *j = t->job;
		char line[400];

		pthread_mutex_lock(&j->lock);
		if (j->fraction >= 0) {
			char bar[21];
			int fill = (int)(j->fraction * 20 + 0.5);

			for (int i = 0; i < 20; i++)
				bar[i] = i < fill ? '#' : '.';
			bar[20] = '\0';
			snprintf(line, sizeof line, "[%s] %3d%% (x stops) %s", bar,
			    (int)(j->fraction * 100 + 0.5), j->progress);
		} else {
			snprintf(line, sizeof line, "[working] (x stops) %s", j->progress);
		}
		pthread_mutex_unlock(&j->lock);
		attron(A_BOLD);
		tui_put(stdscr, LINES - 1, 0, COLS, line);
		attroff(A_BOLD);
	} else if (t->status[0]) {
		char line[700], **lines;
		int n;

		status_text(t, line, sizeof line);
		line[strcspn(line, "\n")] = '\0';   /* a usage text after the message stays in the CLI */
		n = tui_wrap(line, COLS, &lines);
		attron(tui_attr(t, t->status_error ? TUI_MARK_BAD : TUI_MARK_NONE));
		/* Wrapped over the rows status_rows() kept; if it is longer still, its end shows. */
		for (int i = 0; i < srows && i < n; i++)
			tui_put(stdscr, LINES - srows + i, 0, COLS, lines[n > srows ? n - srows + i : i]);
		attroff(tui_attr(t, t->status_error ? TUI_MARK_BAD : TUI_MARK_NONE));
		tui_wrap_free(lines, n);
	}
	refresh();
}

/* ---- dialogs ---- */

int
tui_confirm(struct tui *t, const char *fmt, ...)
{
	char q[300];
	va_list ap;
	wint_t ch;
	int answer = -1;

	va_start(ap, fmt);
	vsnprintf(q, sizeof q, fmt, ap);
	va_end(ap);
	while (answer < 0) {
		char line[320], **lines;
		int total, nl;

		/* A question wider than the terminal takes the rows above the status line. */
		snprintf(line, sizeof line, "%s (y/n) ", q);
		total = tui_wrap(line, COLS, &lines);
		nl = total > LINES - 1 ? LINES - 1 : total;
		tui_redraw(t);
		attron(A_BOLD);
		for (int i = 0; i < nl; i++) {
			move(LINES - nl + i, 0);
			clrtoeol();
			tui_put(stdscr, LINES - nl + i, 0, COLS, lines[i]);
		}
		attroff(A_BOLD);
		tui_wrap_free(lines, total);
		refresh();
		timeout(-1);
		if (get_wch(&ch) == ERR) {
			if (got_term)
				answer = 0;
			continue;
		}
		if (ch == 'y' || ch == 'Y')
			answer = 1;
		else if (ch == 'n' || ch == 'N' || ch == 27 || ch == 'q')
			answer = 0;
	}
	timeout(250);
	tui_dialog_closed(t);
	tui_status(t, 0, "%s", answer ? "" : "cancelled");
	return answer;
}

void
tui_dialog_closed(struct tui *t)
{
	flushinp();
	t->dialogs++;
}

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
	int msgrows;              /* rows under the fields for the hint or message */
};

#define FORM_HINT "Tab next field, Enter save, Esc cancel"

static int
text_cols(const char *s)
{
	wchar_t w[1024];
	size_t n = mbstowcs(w, s, sizeof w / sizeof w[0] - 1);
	int cols = 0;

	if (n == (size_t)-1)
		return (int)strlen(s);
	w[n] = L'\0';
	for (size_t i = 0; i < n; i++)
		cols += wcwidth(w[i]) > 0 ? wcwidth(w[i]) : 1;
	return cols;
}

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
	if (text_cols(title) + 6 > want)
		want = text_cols(title) + 6;
	if (text_cols(FORM_HINT) + 4 > want)
		want = text_cols(FORM_HINT) + 4;
	for (int i = 0; i < n; i++)
		if (fields[i].hint != NULL && text_cols(fields[i].hint) + 4 > want)
			want = text_cols(fields[i].hint) + 4;
	b->w = want > maxw ? maxw : want;
	b->fieldw = b->w - b->labelw - 6;
	for (int i = 0; i < n; i++)
		if (fields[i].hint != NULL && wrapped_rows(fields[i].hint, b->w - 4) > b->msgrows)
			b->msgrows = wrapped_rows(fields[i].hint, b->w - 4);
	b->trows = wrapped_rows(title, b->w - 4);
	if (b->trows > 4)
		b->trows = 4;
	b->h = b->trows + n * 2 + 3 + b->msgrows;
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
	int maxw = COLS > 12 ? COLS - 4 : COLS, w = text_cols(text) + 4, h;

	if (w > maxw)
		w = maxw;
	if (w < b->w)
		w = b->w;
	h = b->trows + n * 2 + 3 + wrapped_rows(text, w - 4);
	if (h > LINES)
		h = LINES;
	if (h < b->h)
		h = b->h;
	if (w == b->w && h == b->h)
		return 0;
	b->w = w, b->h = h, b->msgrows = h - b->trows - n * 2 - 3;
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
	int mattr, top = b->trows + n * 2 + 2, nl, tl;
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
		tui_put(win, b->trows + 1 + i * 2, 2, b->labelw, fields[i].label);
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
	    : derwin(*win, n * 2, b->fieldw, b->trows + 1, b->labelw + 4);
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
		f[i] = new_field(1, b.fieldw, bottom_line ? 0 : i * 2, 0, 0, 0);
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
			if (got_term)
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

/* ---- the ':' command line ---- */

/* The command runs in a child process (this same binary, same database and
 * actor), so nothing a CLI command sets (getopt state, a one-call flag, an
 * open transaction, a stray printf) can reach the TUI's own state. Its
 * stdout and stderr come back separately: the error that main() prints last
 * becomes the status line, the rest is shown as text. */
static int
spawn_cli(struct tui *t, char **words, size_t nwords, struct buf *out, struct buf *errs,
    int *status, struct aerr *err)
{
	extern char **environ;
	char **argv = xcalloc(nwords + 6, sizeof *argv);
	posix_spawn_file_actions_t fa;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc = 0, wst;
	size_t a = 0;
	pid_t pid;

	buf_init(out);
	buf_init(errs);
	argv[a++] = (char *)"aivet";
	argv[a++] = (char *)"--db";
	argv[a++] = (char *)t->av->db_path;
	argv[a++] = (char *)"--actor";
	argv[a++] = t->av->actor;
	for (size_t i = 0; i < nwords; i++)
		argv[a++] = words[i];
	argv[a] = NULL;
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		rc = aerr_set(err, AV_RUNTIME, "cannot run the command: %s", strerror(errno));
		goto done;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
	rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (rc != 0) {
		rc = aerr_set(err, AV_RUNTIME, "cannot run the command: %s", strerror(rc));
		goto done;
	}
	for (;;) {
		struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		char chunk[8192];
		int open = 0;

		for (int i = 0; i < 2; i++)
			open += pf[i].fd >= 0;
		if (open == 0)
			break;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			struct buf *b = i == 0 ? out : errs;
			int *fd = i == 0 ? &po[0] : &pe[0];
			ssize_t r;

			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			r = read(*fd, chunk, sizeof chunk);
			if (r > 0 && b->len < (8u << 20))
				buf_add(b, chunk, (size_t)r);
			else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
				close(*fd);
				*fd = -1;
			}
		}
	}
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + (WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
done:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	buf_add(out, "", 0);
	buf_add(errs, "", 0);
	out->len = strlen(out->data);
	errs->len = strlen(errs->data);
	free(argv);
	return rc;
}

int
tui_run_command(struct tui *t, const char *line, struct aerr *err)
{
	wordexp_t we;
	struct buf out, errs, shown;
	char *title, *msg = NULL;
	int rc, status = 0;

	while (*line == ' ')
		line++;
	if (strncmp(line, "aivet ", 6) == 0)
		line += 6;
	if (*line == '\0')
		return 0;
	if (wordexp(line, &we, WRDE_NOCMD) != 0)
		return aerr_set(err, AV_USAGE, "cannot parse the command line (unbalanced quotes, or $( ) which is not allowed)");
	if (we.we_wordc == 0) {
		wordfree(&we);
		return 0;
	}
	if (strcmp(we.we_wordv[0], "tui") == 0 || strcmp(we.we_wordv[0], "demo") == 0) {
		wordfree(&we);
		return aerr_set(err, AV_USAGE, "'%s' cannot run inside the terminal UI", line);
	}
	rc = spawn_cli(t, we.we_wordv, we.we_wordc, &out, &errs, &status, err);
	wordfree(&we);
	tui_changed(t);
	if (rc != 0) {
		buf_free(&out);
		buf_free(&errs);
		return rc;
	}
	if (status != 0) {
		/* main() prints the error last, as "aivet: MESSAGE" (possibly over
		 * several lines, e.g. a usage line): that is the status. */
		char *p = errs.data;

		for (char *q = errs.data; (q = strstr(q, "aivet: ")) != NULL; q++)
			if (q == errs.data || q[-1] == '\n')
				p = q;
		if (strncmp(p, "aivet: ", 7) == 0) {
			size_t n = strlen(p + 7);

			msg = xstrdup(p + 7);
			while (n > 0 && msg[n - 1] == '\n')
				msg[--n] = '\0';
			*p = '\0';
			errs.len = (size_t)(p - errs.data);
		}
	}
	buf_init(&shown);
	buf_add(&shown, out.data, out.len);
	buf_add(&shown, errs.data, errs.len);
	buf_add(&shown, "", 0);
	if (shown.len > 0) {
		title = xasprintf(":%s", line);
		tui_show_text(t, title, shown.data, err);
		free(title);
	}
	buf_free(&shown);
	buf_free(&out);
	buf_free(&errs);
	if (status != 0) {
		if (msg != NULL)
			tui_status(t, 1, "%s", msg);
		else
			tui_status(t, 1, "command failed (exit %d)", status);
		free(msg);
		return 0;
	}
	tui_status(t, 0, "done: %s", line);
	return 0;
}

/* ---- background jobs ---- */

int
tui_job_progress(struct tui_job *job, double fraction, const char *fmt, ...)
{
	va_list ap;
	int cancel;

	pthread_mutex_lock(&job->lock);
	job->fraction = fraction;
	va_start(ap, fmt);
	vsnprintf(job->progress, sizeof job->progress, fmt, ap);
	va_end(ap);
	cancel = job->cancel;
	pthread_mutex_unlock(&job->lock);
	return cancel;
}

static void *
job_main(void *p)
{
	struct tui_job *job = p;
	struct aerr err = { 0 };
	int rc = job->work(job, job->arg, &err);

	pthread_mutex_lock(&job->lock);
	job->rc = rc;
	job->err = err;
	job->done = 1;
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

int
tui_job_start(struct tui *t, struct tui_job *job,
    int (*work)(struct tui_job *, void *, struct aerr *), void *arg, struct aerr *err)
{
	if (t->job != NULL)
		return aerr_set(err, AV_USAGE, "another job is running; wait for it or stop it with x");
	memset(job, 0, sizeof *job);
	pthread_mutex_init(&job->lock, NULL);
	job->work = work;
	job->arg = arg;
	job->fraction = -1;
	job->running = 1;
	if (pthread_create(&job->thread, NULL, job_main, job) != 0) {
		pthread_mutex_destroy(&job->lock);
		return aerr_set(err, AV_RUNTIME, "cannot start a worker thread");
	}
	t->job = job;
	return 0;
}

void
tui_job_wait(struct tui_job *job)
{
	if (job->running) {
		pthread_join(job->thread, NULL);
		job->running = 0;
		pthread_mutex_destroy(&job->lock);
	}
}

static void
job_poll(struct tui *t)
{
	struct tui_job *j = t->job;
	int done;

	if (j == NULL)
		return;
	pthread_mutex_lock(&j->lock);
	done = j->done;
	pthread_mutex_unlock(&j->lock);
	if (!done)
		return;
	tui_job_wait(j);
	t->job = NULL;
	if (j->rc != 0 && j->rc != AV_FINDINGS)
		tui_status(t, 1, "%s", j->err.msg[0] ? j->err.msg : "the job failed");
	else
		tui_status(t, 0, "%s", j->err.msg[0] ? j->err.msg : j->progress);
	tui_changed(t);
}

/* ---- terminal state ---- */

static void
on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static void
on_fatal(int sig)
{
	/* Give the terminal back before dying, whatever the cause. */
	if (curses_active)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
restore_at_exit(void)
{
	if (curses_active) {
		endwin();
		curses_active = 0;
	}
}

static void
handle_mouse(struct tui *t, struct view *v)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED) {
		v->ops->request(v, t, REQ_UP, NULL);
		v->ops->request(v, t, REQ_UP, NULL);
		v->ops->request(v, t, REQ_UP, NULL);
	}
#ifdef BUTTON5_PRESSED
	else if (me.bstate & BUTTON5_PRESSED) {
		v->ops->request(v, t, REQ_DOWN, NULL);
		v->ops->request(v, t, REQ_DOWN, NULL);
		v->ops->request(v, t, REQ_DOWN, NULL);
	}
#endif
	else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)) {
		if (me.y >= 1 && me.y < LINES - 2 && v->ops->click)
			v->ops->click(v, t, me.y - 1, (me.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
	}
}

static void
reload_top(struct tui *t)
{
	struct view *v = tui_top(t);
	struct aerr err = { 0 };

	t->dirty = 0;
	t->last_load_ms = now_ms();
	if (v != NULL && v->ops->load != NULL && v->ops->load(v, t, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

static void
global_request(struct tui *t, enum request req)
{
	struct aerr err = { 0 };
	char line[512];

	switch (req) {
	case REQ_BACK:
		tui_pop(t);
		break;
	case REQ_QUIT:
		t->quit = 1;
		break;
	case REQ_HELP:
		if (tui_top(t)->ops != &tui_help_view && tui_push(t, &tui_help_view, tui_top(t), &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_REFRESH:
		reload_top(t);
		tui_status(t, 0, "reloaded");
		break;
	case REQ_COMMAND:
		if (tui_prompt(t, ":", "", line, sizeof line) && tui_run_command(t, line, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_CANCEL_JOB:
		if (t->job) {
			pthread_mutex_lock(&t->job->lock);
			t->job->cancel = 1;
			pthread_mutex_unlock(&t->job->lock);
			tui_status(t, 0, "stopping...");
		}
		break;
	case REQ_CANCEL:
		t->status[0] = '\0';
		break;
	case REQ_DASHBOARD:
		while (t->depth > 1)
			tui_pop(t);
		if (tui_top(t)->ops != &tui_dashboard_view && tui_push(t, &tui_dashboard_view, NULL, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_VENDORS:
		if (tui_push(t, &tui_vendors_view, NULL, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_SEARCH:
		/* Whatever is typed after / goes into the prompt, never into commands. */
		tui_search_prompt(t, NULL, line, sizeof line);
		tui_status(t, 0, "this screen shows no list or text to search");
		break;
	case REQ_NONE:
		break;
	default: {
		char key[16];
		const struct request_info *ri = tui_request_info(req);

		/* A refusal: what follows it in the same burst of typing is dropped. */
		tui_status(t, 1, "%s is not on this screen (%s lists the keys)", ri ? ri->name : "that key",
		    tui_key_name_for(REQ_HELP, key));
		break;
	}
	}
}

/* Time between keys is measured by the machine's clock, never now_ms(): a
 * pinned AIVET_NOW would make every pause look like no pause at all. */
static int64_t
key_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* After a refused action the rest of what was being typed (a date meant for a
 * dialog that did not open, say) must not run as commands: keys that follow
 * one another within BURST_MS are dropped until the typing pauses. Esc and q,
 * which only go back, end the burst and act. Returns 1 when the key is dropped. */
static int
guard_drops(struct tui *t, int r, wint_t ch)
{
	int64_t now = key_clock_ms();

	if (!t->guarding)
		return 0;
	if (r == KEY_CODE_YES && (ch == KEY_RESIZE || ch == KEY_MOUSE))
		return 0;
	if (now - t->guard_ms >= BURST_MS || (r == OK && (ch == 27 || ch == 'q' || ch == 'Q'))) {
		t->guarding = 0;
		return 0;
	}
	t->guard_ms = now;
	t->dropped++;
	return 1;
}

int
tui_show_text(struct tui *t, const char *title, const char *text, struct aerr *err)
{
	const char *arg[2] = { title, text };

	return tui_push(t, &tui_text_view, arg, err);
}

/* The first screen: the dashboard once there is data, else the (empty) vendor list. */
static const struct view_ops *
first_view(struct aivet *av)
{
	struct aerr err = { 0 };

	/* Not the whole list: listing every vendor here made a big database slow to open. */
	return vendor_any(av->db, &err) > 0 ? &tui_dashboard_view : &tui_vendors_view;
}

int
tui_main(struct aivet *av, struct aerr *err)
{
	struct tui t = { .av = av };
	struct sigaction sa;
	/* AIVET_TUI_TIMING=FILE: the time from here to the first complete draw
	 * is written to FILE (for bench/db: the first screen of a big database). */
	const char *timing = getenv("AIVET_TUI_TIMING");
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	setlocale(LC_ALL, "");
	/* In a UTF-8 locale draw lines with Unicode box characters rather than the
	 * VT100 alternate character set, which some terminals (and multiplexers)
	 * show as plain letters. */
	setenv("NCURSES_NO_UTF8_ACS", "1", 0);
	if (av_db(av, err) == NULL)
		return err->code;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGSEGV, on_fatal);
	signal(SIGABRT, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGFPE, on_fatal);
	atexit(restore_at_exit);
	if (newterm(NULL, stdout, stdin) == NULL)
		return aerr_set(err, AV_USAGE, "cannot use this terminal (TERM=%s)",
		    getenv("TERM") ? getenv("TERM") : "");
	curses_active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	timeout(250);
	mousemask(ALL_MOUSE_EVENTS, NULL);
	mouseinterval(200);
	if (has_colors() && getenv("NO_COLOR") == NULL) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_RED, -1);
		t.color = 1;
	}
	if (tui_push(&t, first_view(av), NULL, err) != 0) {
		endwin();
		curses_active = 0;
		return err->code;
	}
	while (t.depth > 0 && !t.quit && !got_term) {
		struct view *v;
		wint_t ch;
		int r;
		unsigned refusals, dialogs;
		enum request req;

		job_poll(&t);
		if (t.dirty || (now_ms() - t.last_load_ms > IDLE_RELOAD_MS && t.job == NULL))
			reload_top(&t);
		else if (t.job != NULL && now_ms() - t.last_load_ms > 500)
			reload_top(&t);   /* show a job's results as they land */
		tui_redraw(&t);
		if (timing != NULL && *timing != '\0') {
			struct timespec t1;
			char line[64];
			struct aerr ignored;

			clock_gettime(CLOCK_MONOTONIC, &t1);
			snprintf(line, sizeof line, "first_draw_ms %.3f\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
			(void)write_file_atomic(timing, line, strlen(line), 0600, &ignored);
			timing = NULL;   /* the first draw only */
		}
		r = get_wch(&ch);
		if (r == ERR || guard_drops(&t, r, ch))
			continue;
		v = tui_top(&t);
		if (r == KEY_CODE_YES && ch == KEY_RESIZE)
			continue;   /* the next redraw uses the new LINES and COLS */
		if (r == KEY_CODE_YES && ch == KEY_MOUSE) {
			handle_mouse(&t, v);
			continue;
		}
		if (r == OK && ch == '\r')
			ch = '\n';
		req = tui_key_request_for((int)ch, v->ops->requests);
		if (req == REQ_NONE)
			continue;
		refusals = t.refusals, dialogs = t.dialogs;
		/* Stopping a job, quitting, help and ':' work the same on every screen. */
		if (req != REQ_CANCEL_JOB && req != REQ_QUIT && req != REQ_HELP && req != REQ_COMMAND &&
		    view_handles(v, req)) {
			aerr_clear(err);
			if (v->ops->request(v, &t, req, err) != 0)
				tui_status(&t, 1, "%s", err->msg);
		} else {
			global_request(&t, req);
		}
		/* Refused at once, no dialog shown: the keys typed after it were meant
		 * for what did not open. (After a dialog, what it read was its own.) */
		if (t.refusals != refusals && t.dialogs == dialogs) {
			flushinp();
			t.guarding = 1;
			t.guard_ms = key_clock_ms();
		}
	}
	while (t.depth > 0)
		tui_pop(&t);
	if (t.job != NULL) {
		t.job->cancel = 1;
		tui_job_wait(t.job);
	}
	endwin();
	curses_active = 0;
	aerr_clear(err);
	return 0;
}
