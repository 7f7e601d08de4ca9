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

/* The dialog while it is open: libmenu's items over the names it shows, and
 * the windows it is drawn in. */
struct menu_box {
	struct tui_menu_item *items;
	int n, multi;
	ITEM **it;
	char **names;
	MENU *m;
	WINDOW *win, *sub;
	int width, height, namew;
};

/* The items and their names, and the width the names and labels need. */
static void
dialog_items(struct menu_box *b)
{
	int labelw = 0;

	b->it = xcalloc((size_t)b->n + 1, sizeof *b->it);
	b->names = xcalloc((size_t)b->n, sizeof *b->names);
	for (int i = 0; i < b->n; i++) {
		const char *label = b->items[i].label ? b->items[i].label : "";
		int w;

		/* The [x] is part of the name, so a choice reads as picked without colour. */
		b->names[i] = xasprintf("%s%s", b->multi ? (b->items[i].selected ? "[x] " : "[ ] ") :
		    "", b->items[i].value);
		b->it[i] = new_item(b->names[i], label);
		if ((int)strlen(b->names[i]) > b->namew)
			b->namew = (int)strlen(b->names[i]);
		w = (int)strlen(label);
		if (w > labelw)
			labelw = w;
	}
	if (b->namew + labelw + 9 > b->width)
		b->width = b->namew + labelw + 9;
}

static void
dialog_free_items(struct menu_box *b)
{
	for (int i = 0; i < b->n; i++) {
		free_item(b->it[i]);
		free(b->names[i]);
	}
	free(b->it);
	free(b->names);
}

/* The menu posted in its box, centred, with the title on the top border and
 * the keys' hint on the bottom one. */
static void
dialog_open(struct tui *t, struct menu_box *b, const char *title, const char *hint, int current)
{
	/* One-valued even with multi: libmenu marks a many-of menu's picked items with
	 * the cursor's "> " and its highlight, which read as more cursors. The [x] in
	 * the name says what is picked; "> " is only ever the current item. */
	b->m = new_menu(b->it);
	menu_opts_off(b->m, O_SHOWDESC);
	set_menu_mark(b->m, "> ");
	set_menu_format(b->m, b->height - 4, 1);
	tui_redraw(t);
	b->win = newwin(b->height, b->width, (LINES - b->height) / 2, (COLS - b->width) / 2);
	b->sub = derwin(b->win, b->height - 4, b->width - 4, 2, 2);
	keypad(b->win, TRUE);
	set_menu_win(b->m, b->win);
	set_menu_sub(b->m, b->sub);
	box(b->win, 0, 0);
	wattron(b->win, A_BOLD);
	tui_put(b->win, 0, 2, b->width - 4, title);
	wattroff(b->win, A_BOLD);
	wattron(b->win, A_DIM);
	tui_put(b->win, b->height - 1, 2, b->width - 4, hint);
	wattroff(b->win, A_DIM);
	post_menu(b->m);
	if (current > 0 && current < b->n)
		set_current_item(b->m, b->it[current]);
}

/* The labels: drawn by hand, libmenu's description column is too narrow. */
static void
dialog_labels(struct menu_box *b)
{
	for (int i = 0; i < b->height - 4 && top_row(b->m) + i < b->n; i++) {
		int k = top_row(b->m) + i, x = 2 + 2 + b->namew + 1;

		mvwhline(b->win, 2 + i, x, ' ', b->width - 1 - x);
		tui_put(b->win, 2 + i, x, b->width - 2 - x,
		    b->items[k].label ? b->items[k].label : "");
	}
}

/* Space in a many-of menu: the current item picked or not, its [x] changed. */
static void
dialog_toggle(struct menu_box *b)
{
	int top = top_row(b->m), i = item_index(current_item(b->m));

	b->items[i].selected = !b->items[i].selected;
	b->names[i][1] = b->items[i].selected ? 'x' : ' ';
	/* Posted again to redraw the changed name, where it was. */
	unpost_menu(b->m);
	post_menu(b->m);
	set_top_row(b->m, top);
	set_current_item(b->m, b->it[i]);
}

/* One key read by wget_wch (r its kind); 1 once the dialog closes, with *rc set
 * when a choice was made. */
static int
dialog_key(struct menu_box *b, int r, wint_t ch, int *rc)
{
	if (r == KEY_CODE_YES) {
		switch (ch) {
		case KEY_DOWN: menu_driver(b->m, REQ_DOWN_ITEM); break;
		case KEY_UP: menu_driver(b->m, REQ_UP_ITEM); break;
		case KEY_NPAGE: menu_driver(b->m, REQ_SCR_DPAGE); break;
		case KEY_PPAGE: menu_driver(b->m, REQ_SCR_UPAGE); break;
		case KEY_HOME: menu_driver(b->m, REQ_FIRST_ITEM); break;
		case KEY_END: menu_driver(b->m, REQ_LAST_ITEM); break;
		case KEY_ENTER: *rc = b->multi ? 0 : item_index(current_item(b->m)); return 1;
		}
		return 0;
	}
	switch (ch) {
	case 'j': menu_driver(b->m, REQ_DOWN_ITEM); break;
	case 'k': menu_driver(b->m, REQ_UP_ITEM); break;
	case 'g': menu_driver(b->m, REQ_FIRST_ITEM); break;
	case 'G': menu_driver(b->m, REQ_LAST_ITEM); break;
	case ' ':
		if (b->multi)
			dialog_toggle(b);
		break;
	case '\n':
	case '\r':
		*rc = b->multi ? 0 : item_index(current_item(b->m));
		return 1;
	case 27:
	case 'q':
		return 1;
	}
	return 0;
}

int
tui_menu(struct tui *t, const char *title, struct tui_menu_item *items, int n, int multi,
    int current)
{
	struct menu_box b = { .items = items, .n = n, .multi = multi,
		.width = (int)strlen(title) + 6 };
	int rc = -1, done = 0;
	const char *hint = multi ? "Space toggles, Enter accepts, Esc cancels" :
	    "Enter picks, Esc cancels";

	if (n <= 0)
		return -1;
	dialog_items(&b);
	if ((int)strlen(hint) + 6 > b.width)
		b.width = (int)strlen(hint) + 6;
	if (b.width > COLS - 2)
		b.width = COLS - 2;
	b.height = n + 4 > LINES - 2 ? LINES - 2 : n + 4;
	if (b.height < 5 || b.width < 10) {
		dialog_free_items(&b);
		return -1;
	}
	dialog_open(t, &b, title, hint, current);
	while (!done) {
		wint_t ch;
		int r;

		dialog_labels(&b);
		wrefresh(b.win);
		wtimeout(b.win, -1);
		r = wget_wch(b.win, &ch);
		if (r == ERR)
			break;   /* a signal: treat as cancel */
		done = dialog_key(&b, r, ch, &rc);
	}
	unpost_menu(b.m);
	free_menu(b.m);
	dialog_free_items(&b);
	delwin(b.sub);
	delwin(b.win);
	timeout(250);
	tui_dialog_closed(t);
	if (rc < 0)
		tui_status(t, 0, "cancelled");
	return rc;
}
