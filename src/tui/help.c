/*
 * tui/help.c: two read-only screens — the ? help, generated from the key
 * table and the requests the screen below handles, and a text pager for
 * command output and long texts. The pager wraps long lines at the screen's
 * width (again when it changes), so nothing is cut at the edge.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"

void tui_keys_for(enum request req, char *buf, size_t n);

struct text_state {
	struct tui_list lines;
	char title[256];
	char *text;        /* the pager's text, wrapped into lines at wrapped_at columns */
	int wrapped_at;
};

static const enum request text_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH, REQ_SEARCH_NEXT, REQ_SEARCH_PREV, REQ_NONE
};

/* Adds one line, wrapped at width columns (bytes: a multibyte character only makes
 * a line shorter than it could be); continuations keep the line's indent plus two. */
static void
add_wrapped(struct tui_list *l, const char *s, int width)
{
	int indent = (int)strspn(s, " "), first = 1;

	if (width < 20)
		width = 20;
	if (indent > width / 2)
		indent = width / 2;
	while (first || *s) {
		int room = first ? width : width - indent - 2, len = (int)strlen(s), cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && s[cut] != ' '; cut--)
				;
			if (cut <= (first ? indent : 0))
				for (cut = room; cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80; cut--)
					;
			if (cut <= 0)
				cut = room;   /* not UTF-8 at all: cut anywhere rather than never */
		}
		tui_list_add(l, l->n, TUI_MARK_NONE, "%*s%.*s", first ? 0 : indent + 2, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		first = 0;
	}
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

		tui_keys_for(*r, keys, sizeof keys);
		if (ri != NULL)
			tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "  %-14s %s", keys, ri->help);
	}
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s", "");
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "Keys on every screen:");
	for (const enum request *r = globals; *r != REQ_NONE; r++) {
		const struct request_info *ri = tui_request_info(*r);

		tui_keys_for(*r, keys, sizeof keys);
		tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "  %-14s %s", keys, ri->help);
	}
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_NONE, "%s", "");
	tui_list_add(&s->lines, s->lines.n, TUI_MARK_DIM,
	    "In dialogs: Tab/Down next field, Up previous, Enter save, Esc cancel, ^U clear.");
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
}

static int
text_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct text_state *s = v->state;

	tui_list_request(&s->lines, t, req, v->content_rows);
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
	text_click
};

const struct view_ops tui_text_view = {
	"text", text_requests, text_open, NULL, text_draw, text_request, text_close, text_title,
	text_click
};
