/*
 * tui/dialog.c: the yes/no question (tui_confirm) and what every dialog calls
 * as it closes (tui_dialog_closed), so keys typed ahead for a dialog never
 * reach the screen below it. The form and prompt are in form.c, the menu in
 * menu.c, the file picker in files.c.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "tui.h"

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
			if (tui_input_lost())
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
