/*
 * tui/frame.c: drawing the whole screen. tui_redraw() puts the title bar
 * (with who is logged in), lets the top view draw its rows, then the hint and
 * status lines; tui_modal() gives a dialog its centred window over that.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

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
	int srows = tui_status_rows(t), rows = LINES - 2 - srows;

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
	tui_draw_hints(t, v, LINES - 1 - srows);
	tui_status_draw(t, srows);
	refresh();
}
