/*
 * tui/help.c: two read-only screens — the ? help, generated from the key
 * table and the requests the screen below handles, with a legend of the
 * markers the lists use, and a text pager for command output and long
 * texts. Both search as less does: / finds, n and N go to the next and
 * previous match, and every match on screen is highlighted. The pager wraps
 * long lines at the screen's width (again when it changes), so nothing is
 * cut at the edge.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

void tui_keys_for(enum request req, const enum request *handled, char *buf, size_t n);

struct text_state {
	struct tui_list lines;
	char title[256];
	char *text;        /* the pager's text, wrapped into lines at wrapped_at columns */
	int wrapped_at;
	char find[128];           /* what / looks for, case-insensitively */
};

static const enum request text_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_FIND, REQ_FIND_NEXT,
	REQ_FIND_PREV, REQ_NONE
};

/* The markers lists put before a row, and where: a symbol always says what a
 * colour says, so the legend is the whole meaning. One entry a marker, wrapped
 * to the screen's width when the help opens, continuations under its text. */
static const char *const legend[] = {
	">      the selected row; in a pane without the focus it is only dim, with no >",
	"!!     worst first: a vendor rated unacceptable (dashboard, vendors) or with "
	    "open incidents (vendors), an incident with a clock overdue, a probe run with a "
	    "high or critical finding (dashboard)",
	"!      needs attention: a required question unanswered, a section with one open "
	    "(assessment); an incident with a clock running, a vendor of concern (dashboard, "
	    "vendors), a run with findings (dashboard); a probe that could not run (probe "
	    "run)",
	"?      not known yet: an optional question unanswered (assessment); a vendor "
	    "not assessed or incompletely (dashboard, vendors); an assessment waiting for "
	    "review (dashboard); a probe with no verdict (probe run)",
	"-      a question not asked, as earlier answers ruled it out (assessment); no "
	    "value",
	"ok     a probe run without findings (dashboard)",
	"\xe2\x9c\x93 \xe2\x9c\x97    a probe passed, failed (probe run)",
	"low .. an answered question's risk: low, medium, high, critical (assessment)",
	">>x<<  a marker from another tenant in a response: a leak (evidence)",
	"[x]    a choice picked in a multiple-choice list",
	"name/  a directory (file picker)",
	"OVERDUE, LEAK and other words in capitals say in words what red says in colour.",
	NULL
};

/* Adds one line, wrapped at width columns (bytes: a multibyte character only makes
 * a line shorter than it could be); continuations keep the line's indent plus two. */
static void
add_hanging(struct tui_list *l, const char *s, int width, int hang)
{
	int indent = (int)strspn(s, " "), first = 1;

	if (width < 20)
		width = 20;
	if (indent > width / 2)
		indent = width / 2;
	while (first || *s) {
		int room = first ? width : width - (hang >= 0 ? hang : indent + 2), len = (int)strlen(s);
		int cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && s[cut] != ' '; cut--)
				;
			if (cut <= (first ? indent : 0))
				for (cut = room; cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80; cut--)
					;
			if (cut <= 0)
				cut = room;   /* not UTF-8 at all: cut anywhere rather than never */
		}
		tui_list_add(l, l->n, TUI_MARK_NONE, "%*s%.*s", first ? 0 : hang >= 0 ? hang : indent + 2,
		    "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		first = 0;
	}
}

static void
add_wrapped(struct tui_list *l, const char *s, int width)
{
	add_hanging(l, s, width, -1);
}

static void
add_lines(struct tui_list *l, const char *text, int width)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		struct buf line;

		buf_init(&line);
		for (int i = 0; i < len; i++) {
			if (p[i] == '\t')
				do
					buf_add(&line, " ", 1);
				while (line.len % 4);
			else
				buf_add(&line, p + i, 1);
		}
		add_wrapped(l, line.data ? line.data : "", width);
		buf_free(&line);
		p += len + (nl != NULL);
	}
}

static int
help_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	const struct view *below = arg;
	struct text_state *s = xcalloc(1, sizeof *s);
	static const enum request globals[] = {
		REQ_HELP, REQ_BACK, REQ_CANCEL, REQ_REFRESH, REQ_COMMAND, REQ_CANCEL_JOB, REQ_QUIT, REQ_NONE
	};
	char keys[64];

	snprintf(s->title, sizeof s->title, "Keys: %s", below->ops->name);
	tui_list_add(&s->lines, 0, TUI_MARK_NONE, "Keys on this screen (%s):", below->ops->name);
	for (const enum request *r = below->ops->requests; r && *r != REQ_NONE; r++) {
		const struct request_info *ri = tui_request_info(*r);

		tui_keys_for(*r, below->ops->requests, keys, sizeof keys);
		if (ri != NULL && tui_view_offers(below, *r))
			tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "  %-14s %s", keys, ri->help);
	}
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s", "");
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "Keys on every screen:");
	for (const enum request *r = globals; *r != REQ_NONE; r++) {
		const struct request_info *ri = tui_request_info(*r);

		tui_keys_for(*r, globals, keys, sizeof keys);
		tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "  %-14s %s", keys, ri->help);
	}
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s", "");
	/* Wrapped to the screen, so that 80 columns cut no sentence. */
	add_hanging(&s->lines, "In dialogs: Tab/Down next field, Up previous, Enter save, Esc cancel, ^U "
	    "clear; a field entered with a value has it selected: typing replaces it, arrows keep it.",
	    COLS - 3, 2);
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s",
	    "In this help and in texts: / finds, n next match, N previous match.");
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s", "");
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "Markers:");
	for (const char *const *l = legend; *l != NULL; l++) {
		char *entry = xasprintf("  %s", *l);

		add_hanging(&s->lines, entry, COLS - 3, 9);
		free(entry);
	}
	s->lines.sel = 0;
	v->state = s;
	(void)t;
	(void)err;
	return 0;
}

static int
text_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	const char *const *a = arg;   /* { title, text } */
	struct text_state *s = xcalloc(1, sizeof *s);

	snprintf(s->title, sizeof s->title, "%s", a[0]);
	s->text = xstrdup(a[1]);
	s->wrapped_at = v->content_cols - 2;
	add_lines(&s->lines, s->text, s->wrapped_at);
	v->state = s;
	(void)t;
	(void)err;
	return 0;
}

/* The display columns of the first n bytes of s. */
static int
prefix_cols(const char *s, size_t n)
{
	char *p = xcalloc(n + 1, 1);
	wchar_t *w = xcalloc(n + 1, sizeof *w);
	size_t k;

	memcpy(p, s, n);
	k = mbstowcs(w, p, n + 1);
	int cols = 0;

	if (k == (size_t)-1)
		cols = (int)n;
	else
		for (size_t i = 0; i < k; i++)
			cols += wcwidth(w[i]) > 0 ? wcwidth(w[i]) : 1;
	free(w);
	free(p);
	return cols;
}

/* Every match on screen stands out; on the selected (reversed) row it is the
 * other way round, so it still shows without colour. */
static void
highlight(struct text_state *s, WINDOW *w, int rows, int cols)
{
	struct tui_list *l = &s->lines;
	size_t flen = strlen(s->find);

	if (flen == 0)
		return;
	for (int i = 0; i < rows && l->top + i < l->nvis; i++) {
		const char *row = l->rows[l->vis[l->top + i]], *p = row;
		int cur = l->top + i == l->sel;

		while ((p = strcasestr(p, s->find)) != NULL) {
			int x = 2 + prefix_cols(row, (size_t)(p - row)), n = prefix_cols(p, flen);

			if (x >= cols)
				break;
			if (x + n > cols)
				n = cols - x;
			mvwchgat(w, i, x, n, cur ? A_BOLD | A_UNDERLINE : A_REVERSE | A_BOLD, 0, NULL);
			p += flen;
		}
	}
}

static void
text_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct text_state *s = v->state;

	if (s->text != NULL && s->wrapped_at != cols - 2) {
		/* Resized: wrap again, keeping the first line shown where it was in the text. */
		int top = s->lines.top, sel = s->lines.sel;

		tui_list_clear(&s->lines);
		s->wrapped_at = cols - 2;
		add_lines(&s->lines, s->text, s->wrapped_at);
		s->lines.top = top < s->lines.n ? top : 0;
		s->lines.sel = sel < s->lines.nvis ? sel : 0;
	}
	tui_list_draw(&s->lines, t, w, 0, rows, cols);
	highlight(s, w, rows, cols);
}

/* Moves to the next (dir 1) or previous (-1) line holding the text looked
 * for, from the selected line (inclusive when from_here), wrapping as less does. */
static void
find_move(struct text_state *s, struct tui *t, int dir, int from_here)
{
	struct tui_list *l = &s->lines;
	int nth = 0, total = 0, found = -1, wrapped;

	if (s->find[0] == '\0' || l->nvis == 0) {
		tui_status(t, 0, "nothing to find yet: / asks for the text");
		return;
	}
	for (int k = from_here ? 0 : 1; k <= l->nvis && found < 0; k++) {
		int i = ((l->sel + dir * k) % l->nvis + l->nvis) % l->nvis;

		if (strcasestr(l->rows[l->vis[i]], s->find) != NULL)
			found = i;
	}
	if (found < 0) {
		tui_status(t, 0, "'%s' not found", s->find);
		return;
	}
	for (int i = 0; i < l->nvis; i++)
		if (strcasestr(l->rows[l->vis[i]], s->find) != NULL) {
			total++;
			if (i <= found)
				nth++;
		}
	wrapped = (dir > 0 && found < l->sel) || (dir < 0 && found > l->sel);
	l->sel = found;
	tui_status(t, 0, "'%s': line %d of %d with it%s (n next, N previous)", s->find, nth, total,
	    wrapped ? ", wrapped" : "");
}

static int
text_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct text_state *s = v->state;
	char text[128];

	switch (req) {
	case REQ_FIND:
		if (tui_search_prompt(t, s->find, text, sizeof text) && text[0] != '\0') {
			snprintf(s->find, sizeof s->find, "%s", text);
			find_move(s, t, 1, 1);
		}
		break;
	case REQ_FIND_NEXT:
		find_move(s, t, 1, 0);
		break;
	case REQ_FIND_PREV:
		find_move(s, t, -1, 0);
		break;
	default:
		tui_list_request(&s->lines, t, req, v->content_rows);
		break;
	}
	(void)err;
	return 0;
}

static void
text_close(struct view *v)
{
	struct text_state *s = v->state;

	tui_list_free(&s->lines);
	free(s->text);
	free(s);
}

static void
text_title(struct view *v, char *buf, size_t n)
{
	struct text_state *s = v->state;

	snprintf(buf, n, "%s", s->title);
}

static void
text_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct text_state *s = v->state;

	tui_list_click(&s->lines, row);
	(void)t;
	(void)dbl;
}

const struct view_ops tui_help_view = {
	"help", text_requests, help_open, NULL, text_draw, text_request, text_close, text_title,
	text_click, NULL
};

const struct view_ops tui_text_view = {
	"text", text_requests, text_open, NULL, text_draw, text_request, text_close, text_title,
	text_click, NULL
};
