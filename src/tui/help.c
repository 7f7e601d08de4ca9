/*
 * tui/help.c: two read-only screens — the ? help, generated from the key
 * table and the requests the screen below handles, and a text pager for
 * command output and long texts.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"

void tui_keys_for(enum request req, char *buf, size_t n);

struct text_state {
	struct tui_list lines;
	char title[256];
};

static const enum request text_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH, REQ_NONE
};

static void
add_lines(struct tui_list *l, const char *text)
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
		tui_list_add(l, l->n, TUI_MARK_NONE, "%s", line.data ? line.data : "");
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
	add_lines(&s->lines, a[1]);
	v->state = s;
	(void)t;
	(void)err;
	return 0;
}

static void
text_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct text_state *s = v->state;

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
