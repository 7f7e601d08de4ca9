/*
 * tui/files.c: the file picker used to attach evidence. A modal list of a
 * directory's entries — directories first, marked with "/" — where Enter
 * opens a directory or picks a file, Backspace goes up, / filters and Esc
 * cancels. The picked path is absolute.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui.h"

static int
entry_cmp(const void *a, const void *b)
{
	const struct dirent *const *x = a, *const *y = b;

	return strcmp((*x)->d_name, (*y)->d_name);
}

/* Fills l with the directory's entries; ids: 1 directory, 2 file. */
static int
load_dir(struct tui_list *l, const char *dir, char *msg, size_t n)
{
	struct dirent **ents = NULL;
	int count = scandir(dir, &ents, NULL, NULL);

	tui_list_clear(l);
	l->filter[0] = '\0';
	l->sel = l->top = 0;
	if (count < 0) {
		snprintf(msg, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	qsort(ents, (size_t)count, sizeof *ents, entry_cmp);
	if (strcmp(dir, "/") != 0)
		tui_list_add(l, 1, TUI_MARK_NONE, "../");
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < count; i++) {
			char *p = xasprintf("%s/%s", dir, ents[i]->d_name);
			struct stat sb;
			int isdir = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);

			free(p);
			if (ents[i]->d_name[0] == '.' || isdir != (pass == 0))
				continue;
			if (isdir)
				tui_list_add(l, 1, TUI_MARK_NONE, "%s/", ents[i]->d_name);
			else
				tui_list_add(l, 2, TUI_MARK_NONE, "%-40s %10lld", ents[i]->d_name,
				    (long long)sb.st_size);
		}
	for (int i = 0; i < count; i++)
		free(ents[i]);
	free(ents);
	return 0;
}

/* The entry's name from its row (files carry a size column). */
static void
row_name(const char *row, char *out, size_t n)
{
	size_t len = strlen(row);

	if (len > 0 && row[len - 1] == '/') {
		snprintf(out, n, "%.*s", (int)(len - 1), row);
		return;
	}
	/* Strip the right-aligned size column and the padding before it. */
	while (len > 0 && row[len - 1] >= '0' && row[len - 1] <= '9')
		len--;
	while (len > 0 && row[len - 1] == ' ')
		len--;
	snprintf(out, n, "%.*s", (int)len, row);
}

/* The picker while it is open: the directory shown, its entries, and what
 * went wrong last (shown on the bottom row until the next key). */
struct picker {
	char dir[PATH_MAX];
	char msg[PATH_MAX + 64];
	struct tui_list l;
};

/* Shows dir (absolute): its entries replace the list. */
static void
picker_cd(struct picker *p, const char *dir)
{
	if (dir != p->dir)
		snprintf(p->dir, sizeof p->dir, "%s", dir);
	load_dir(&p->l, p->dir, p->msg, sizeof p->msg);
}

/* Backspace, and Enter on "..": the parent directory ("/" has none). */
static void
picker_up(struct picker *p)
{
	char *slash = strrchr(p->dir, '/');

	if (slash != NULL && slash != p->dir)
		*slash = '\0';
	else
		snprintf(p->dir, sizeof p->dir, "/");
	picker_cd(p, p->dir);
}

static void
picker_draw(struct picker *p, struct tui *t, WINDOW *win, int h, int w, const char *title)
{
	char line[PATH_MAX + 200];
	WINDOW *in;

	werase(win);
	box(win, 0, 0);
	snprintf(line, sizeof line, "%s: %s%s%s%s", title, p->dir, p->l.filter[0] ? "  [filter: " :
	    "", p->l.filter, p->l.filter[0] ? "]" : "");
	wattron(win, A_BOLD);
	tui_put(win, 0, 2, w - 4, line);
	wattroff(win, A_BOLD);
	in = derwin(win, h - 3, w - 2, 1, 1);
	if (in != NULL) {
		tui_list_draw(&p->l, t, in, 0, h - 3, w - 2);
		delwin(in);
	}
	wattron(win, tui_attr(t, p->msg[0] ? TUI_MARK_BAD : TUI_MARK_DIM));
	tui_put(win, h - 2, 2, w - 4, p->msg[0] ? p->msg :
	    "Enter open/pick  Backspace up  / filter  ~ home  Esc cancel");
	wattroff(win, tui_attr(t, p->msg[0] ? TUI_MARK_BAD : TUI_MARK_DIM));
	wrefresh(win);
}

/* Enter on the selected entry: a directory opens, a file is picked (its
 * absolute path in out); 1 when a file was picked. */
static int
picker_enter(struct picker *p, char *out, size_t n)
{
	char name[NAME_MAX + 1], *path;
	int picked = 0;

	row_name(p->l.rows[p->l.vis[p->l.sel]], name, sizeof name);
	if (strcmp(name, "..") == 0) {
		picker_up(p);
		return 0;
	}
	path = xasprintf("%s%s%s", p->dir, strcmp(p->dir, "/") ? "/" : "", name);
	if (tui_list_selected_id(&p->l) == 1) {
		picker_cd(p, path);
	} else {
		snprintf(out, n, "%s", path);
		picked = 1;
	}
	free(path);
	return picked;
}

int
tui_pick_file(struct tui *t, const char *title, char *out, size_t n)
{
	struct picker p = { .msg = "" };
	WINDOW *win = NULL;
	int picked = 0, done = 0;

	if (getcwd(p.dir, sizeof p.dir) == NULL)
		snprintf(p.dir, sizeof p.dir, "/");
	picker_cd(&p, p.dir);
	while (!done) {
		int h = LINES - 4 > 6 ? LINES - 4 : LINES, w = COLS - 4 > 20 ? COLS - 4 : COLS;
		enum request req;
		wint_t ch;
		int r;

		if ((win = tui_modal(t, win, h, w)) == NULL)
			break;
		picker_draw(&p, t, win, h, w, title);
		r = wget_wch(win, &ch);
		if (r == ERR) {
			if (tui_input_lost())
				done = 1;   /* closed, as by Escape */
			continue;
		}
		p.msg[0] = '\0';
		if (r == KEY_CODE_YES && ch == KEY_RESIZE)
			continue;   /* the window is remade at the new size */
		if (r == OK && ch == 27) {
			done = 1;
			continue;
		}
		if ((r == KEY_CODE_YES && (ch == KEY_BACKSPACE || ch == KEY_LEFT)) ||
		    (r == OK && (ch == 127 || ch == 8 || ch == 'h'))) {
			picker_up(&p);
			continue;
		}
		if (r == OK && ch == '~') {
			const char *home = getenv("HOME");

			picker_cd(&p, home && *home ? home : "/");
			continue;
		}
		if (r == OK && ch == '\r')
			ch = '\n';
		req = tui_key_request((int)ch);
		if (req == REQ_ENTER && p.l.nvis > 0) {
			picked = done = picker_enter(&p, out, n);
			continue;
		}
		if (req == REQ_SEARCH) {
			char text[128];

			if (tui_search_prompt(t, p.l.filter, text, sizeof text)) {
				snprintf(p.l.filter, sizeof p.l.filter, "%s", text);
				tui_list_restore(&p.l, -1);
			}
			touchwin(win);
		} else if (req != REQ_NONE) {
			tui_list_request(&p.l, t, req, h - 3);
		}
	}
	if (win != NULL)
		delwin(win);
	touchwin(stdscr);
	tui_list_free(&p.l);
	tui_dialog_closed(t);
	if (!picked)
		tui_status(t, 0, "cancelled");
	return picked;
}
