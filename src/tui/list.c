/*
 * tui/list.c: the list widget most screens are built on (struct tui_list,
 * tui.h): rows with an id and a mark, a header, a selection that survives a
 * reload (by id), and the / filter with n and N stepping through matches.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui.h"

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
