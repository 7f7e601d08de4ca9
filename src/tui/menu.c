/*
 * tui/menu.c: the menu dialog (tui_menu, tui.h), one of the framework's
 * dialogs beside tui_form, tui_prompt and tui_confirm (tui.c) and the file
 * picker (files.c). It is built on libmenu: a one-of or many-of choice with
 * a label beside each item, [x] marking the picked ones so that they read
 * without colour, and it calls tui_dialog_closed() as it closes.
 */
#include "config.h"

#include <menu.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

int
tui_menu(struct tui *t, const char *title, struct tui_menu_item *items, int n, int multi,
    int current)
{
	ITEM **it;
	char **names;
	MENU *m;
	WINDOW *win, *sub;
	int width = (int)strlen(title) + 6, height, rc = -1, done = 0, namew = 0, labelw = 0;
	const char *hint = multi ? "Space toggles, Enter accepts, Esc cancels" :
	    "Enter picks, Esc cancels";

	if (n <= 0)
		return -1;
	it = xcalloc((size_t)n + 1, sizeof *it);
	names = xcalloc((size_t)n, sizeof *names);
	for (int i = 0; i < n; i++) {
		int w;

		/* The [x] is part of the name, so a choice reads as picked without colour. */
		names[i] = xasprintf("%s%s", multi ? (items[i].selected ? "[x] " : "[ ] ") : "",
		    items[i].value);
		it[i] = new_item(names[i], items[i].label ? items[i].label : "");
		if ((int)strlen(names[i]) > namew)
			namew = (int)strlen(names[i]);
		w = (int)strlen(items[i].label ? items[i].label : "");
		if (w > labelw)
			labelw = w;
	}
	if (namew + labelw + 9 > width)
		width = namew + labelw + 9;
	if ((int)strlen(hint) + 6 > width)
		width = (int)strlen(hint) + 6;
	if (width > COLS - 2)
		width = COLS - 2;
	height = n + 4 > LINES - 2 ? LINES - 2 : n + 4;
	if (height < 5 || width < 10) {
		for (int i = 0; i < n; i++)
			free_item(it[i]), free(names[i]);
		free(it);
		free(names);
		return -1;
	}
	/* One-valued even with multi: libmenu marks a many-of menu's picked items with
	 * the cursor's "> " and its highlight, which read as more cursors. The [x] in
	 * the name says what is picked; "> " is only ever the current item. */
	m = new_menu(it);
	menu_opts_off(m, O_SHOWDESC);
	set_menu_mark(m, "> ");
	set_menu_format(m, height - 4, 1);
	tui_redraw(t);
	win = newwin(height, width, (LINES - height) / 2, (COLS - width) / 2);
	sub = derwin(win, height - 4, width - 4, 2, 2);
	keypad(win, TRUE);
	set_menu_win(m, win);
	set_menu_sub(m, sub);
	box(win, 0, 0);
	wattron(win, A_BOLD);
	tui_put(win, 0, 2, width - 4, title);
	wattroff(win, A_BOLD);
	wattron(win, A_DIM);
	tui_put(win, height - 1, 2, width - 4, hint);
	wattroff(win, A_DIM);
	post_menu(m);
	if (current > 0 && current < n)
		set_current_item(m, it[current]);
	while (!done) {
		wint_t ch;
		int r, i;

		/* The labels: drawn by hand, libmenu's description column is too narrow. */
		for (i = 0; i < height - 4 && top_row(m) + i < n; i++) {
			int k = top_row(m) + i, x = 2 + 2 + namew + 1;

			mvwhline(win, 2 + i, x, ' ', width - 1 - x);
			tui_put(win, 2 + i, x, width - 2 - x, items[k].label ? items[k].label : "");
		}
		wrefresh(win);
		wtimeout(win, -1);
		r = wget_wch(win, &ch);
		if (r == ERR)
			break;   /* a signal: treat as cancel */
		if (r == KEY_CODE_YES) {
			switch (ch) {
			case KEY_DOWN: menu_driver(m, REQ_DOWN_ITEM); break;
			case KEY_UP: menu_driver(m, REQ_UP_ITEM); break;
			case KEY_NPAGE: menu_driver(m, REQ_SCR_DPAGE); break;
			case KEY_PPAGE: menu_driver(m, REQ_SCR_UPAGE); break;
			case KEY_HOME: menu_driver(m, REQ_FIRST_ITEM); break;
			case KEY_END: menu_driver(m, REQ_LAST_ITEM); break;
			case KEY_ENTER: rc = multi ? 0 : item_index(current_item(m)); done = 1; break;
			}
			continue;
		}
		switch (ch) {
		case 'j': menu_driver(m, REQ_DOWN_ITEM); break;
		case 'k': menu_driver(m, REQ_UP_ITEM); break;
		case 'g': menu_driver(m, REQ_FIRST_ITEM); break;
		case 'G': menu_driver(m, REQ_LAST_ITEM); break;
		case ' ':
			if (multi) {
				int top = top_row(m);

				i = item_index(current_item(m));
				items[i].selected = !items[i].selected;
				names[i][1] = items[i].selected ? 'x' : ' ';
				/* Posted again to redraw the changed name, where it was. */
				unpost_menu(m);
				post_menu(m);
				set_top_row(m, top);
				set_current_item(m, it[i]);
			}
			break;
		case '\n':
		case '\r':
			rc = multi ? 0 : item_index(current_item(m));
			done = 1;
			break;
		case 27:
		case 'q':
			done = 1;
			break;
		}
	}
	unpost_menu(m);
	free_menu(m);
	for (int i = 0; i < n; i++) {
		free_item(it[i]);
		free(names[i]);
	}
	free(it);
	free(names);
	delwin(sub);
	delwin(win);
	timeout(250);
	tui_dialog_closed(t);
	if (rc < 0)
		tui_status(t, 0, "cancelled");
	return rc;
}
