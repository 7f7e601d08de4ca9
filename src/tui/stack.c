/*
 * tui/stack.c: the view stack. A screen is pushed (opened and loaded, or
 * nothing is pushed) and popped (closed); tui_changed() marks every view for
 * reload after a write. The text pager opens through tui_show_text() here.
 */
#include "config.h"

#include <string.h>

#include "tui.h"

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

int
tui_show_text(struct tui *t, const char *title, const char *text, struct aerr *err)
{
	const char *arg[2] = { title, text };

	return tui_push(t, &tui_text_view, arg, err);
}
