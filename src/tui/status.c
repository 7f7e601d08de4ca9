/*
 * tui/status.c: the status line, the bottom row of every screen. A message
 * (an error says so) is escaped, wraps over up to a quarter of the rows rather
 * than being cut, and counts the keys dropped after a refusal; while a job
 * runs the line shows its progress instead.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* A long status takes at most this share of the screen's rows. */
#define STATUS_MAX_ROWS(lines) ((lines) / 4 > 1 ? (lines) / 4 : 1)

void
tui_status(struct tui *t, int error, const char *fmt, ...)
{
	va_list ap;

	char *shown;

	va_start(ap, fmt);
	vsnprintf(t->status, sizeof t->status, fmt, ap);
	va_end(ap);
	/* Messages may quote a vendor's reply or a refused name: shown escaped. */
	shown = text_escape(t->status, strlen(t->status), 0);
	snprintf(t->status, sizeof t->status, "%s", shown);
	free(shown);
	t->status_error = error;
	t->statuses++;
	t->dropped = 0;
	if (error)
		t->refusals++;
}

/* The status as shown: a refusal says so, and says when keys that followed it were dropped. */
static void
status_text(const struct tui *t, char *line, size_t n)
{
	snprintf(line, n, "%s%s", t->status_error ? "error: " : "", t->status);
	if (t->dropped > 0) {
		size_t len = strlen(line);

		snprintf(line + len, n - len, " (%d key%s typed after it ignored)", t->dropped,
		    t->dropped == 1 ? "" : "s");
	}
}

/* Rows the status line needs: a long message wraps rather than being cut. */
int
tui_status_rows(const struct tui *t)
{
	char line[700];
	char **lines;
	int n;

	if (t->job != NULL || t->status[0] == '\0')
		return 1;
	status_text(t, line, sizeof line);
	line[strcspn(line, "\n")] = '\0';   /* a usage text after the message stays in the CLI */
	n = tui_wrap(line, COLS, &lines);
	tui_wrap_free(lines, n);
	if (n > STATUS_MAX_ROWS(LINES))
		n = STATUS_MAX_ROWS(LINES);
	return n < 1 ? 1 : n;
}

/* The bottom line: a running job's progress bar, else the status, wrapped
 * over the srows rows tui_status_rows() kept. */
void
tui_status_draw(struct tui *t, int srows)
{
	move(LINES - 1, 0);
	clrtoeol();
	if (t->job != NULL) {
		struct tui_job *j = t->job;
		char line[400];

		pthread_mutex_lock(&j->lock);
		if (j->fraction >= 0) {
			char bar[21];
			int fill = (int)(j->fraction * 20 + 0.5);

			for (int i = 0; i < 20; i++)
				bar[i] = i < fill ? '#' : '.';
			bar[20] = '\0';
			snprintf(line, sizeof line, "[%s] %3d%% (x stops) %s", bar,
			    (int)(j->fraction * 100 + 0.5), j->progress);
		} else {
			snprintf(line, sizeof line, "[working] (x stops) %s", j->progress);
		}
		pthread_mutex_unlock(&j->lock);
		attron(A_BOLD);
		tui_put(stdscr, LINES - 1, 0, COLS, line);
		attroff(A_BOLD);
	} else if (t->status[0]) {
		char line[700], **lines;
		int n;

		status_text(t, line, sizeof line);
		line[strcspn(line, "\n")] = '\0';   /* a usage text after the message stays in the CLI */
		n = tui_wrap(line, COLS, &lines);
		attron(tui_attr(t, t->status_error ? TUI_MARK_BAD : TUI_MARK_NONE));
		/* Wrapped over the rows tui_status_rows() kept; if it is longer still, its end shows. */
		for (int i = 0; i < srows && i < n; i++)
			tui_put(stdscr, LINES - srows + i, 0, COLS, lines[n > srows ? n - srows + i : i]);
		attroff(tui_attr(t, t->status_error ? TUI_MARK_BAD : TUI_MARK_NONE));
		tui_wrap_free(lines, n);
	}

}
