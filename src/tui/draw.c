/*
 * tui/draw.c: putting text on the screen. tui_put() writes a string cut to a
 * width counted in terminal columns (wide characters count two, bytes the
 * locale cannot read show as '?'); tui_wrap() breaks text into lines of a
 * width at spaces and newlines; tui_attr() gives each mark an attribute that
 * reads without colour too; tui_fit() sizes a cell of a row to a column,
 * marking a cut with an ellipsis. Every other file of the TUI draws through these.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"
#include "aivet/rating.h"

void
tui_put(WINDOW *w, int y, int x, int maxw, const char *s)
{
	wchar_t wbuf[1024];
	size_t n;
	int width = 0, i;

	if (maxw <= 0)
		return;
	n = mbstowcs(wbuf, s, sizeof wbuf / sizeof wbuf[0] - 1);
	if (n == (size_t)-1) {
		/* Not valid in this locale: show bytes as '?' rather than garbage. */
		for (n = 0; s[n] && n < sizeof wbuf / sizeof wbuf[0] - 1; n++)
			wbuf[n] = (unsigned char)s[n] < 0x80 ? (wchar_t)s[n] : L'?';
	}
	wbuf[n] = L'\0';
	for (i = 0; wbuf[i]; i++) {
		int cw = wcwidth(wbuf[i]);

		if (cw < 0)
			wbuf[i] = L'?', cw = 1;
		if (width + cw > maxw)
			break;
		width += cw;
	}
	wbuf[i] = L'\0';
	mvwaddwstr(w, y, x, wbuf);
}

int
tui_wrap(const char *text, int width, char ***lines)
{
	size_t len = strlen(text);
	wchar_t *w = xcalloc(len + 1, sizeof *w);
	size_t n = mbstowcs(w, text, len + 1);
	int count = 0, cap = 0;
	size_t start = 0;

	if (n == (size_t)-1) {
		for (n = 0; n < len; n++)
			w[n] = (unsigned char)text[n] < 0x80 ? (wchar_t)text[n] : L'?';
		w[n] = L'\0';
	}
	if (width < 1)
		width = 1;
	*lines = NULL;
	while (start < n || count == 0) {
		size_t i = start, brk = 0, next;
		int col = 0;

		/* Find where this line ends: a newline, or the last space that fits. */
		while (i < n && w[i] != L'\n') {
			int cw = wcwidth(w[i]);

			if (cw < 0)
				w[i] = L'?', cw = 1;
			if (col + cw > width)
				break;
			if (w[i] == L' ')
				brk = i;
			col += cw;
			i++;
		}
		if (i < n && w[i] != L'\n' && brk > start) {
			next = brk + 1;
			i = brk;
		} else {
			next = i < n && w[i] == L'\n' ? i + 1 : i;
			if (next == start && i < n)
				next = i = start + 1;   /* one character wider than the line */
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 4;
			*lines = xrealloc(*lines, sizeof **lines * (size_t)cap);
		}
		{
			wchar_t saved = w[i];
			size_t bytes;

			w[i] = L'\0';
			bytes = wcstombs(NULL, w + start, 0);
			(*lines)[count] = xcalloc(bytes == (size_t)-1 ? 1 : bytes + 1, 1);
			if (bytes != (size_t)-1)
				wcstombs((*lines)[count], w + start, bytes + 1);
			w[i] = saved;
		}
		count++;
		start = next;
		if (start >= n)
			break;
	}
	free(w);
	return count;
}

void
tui_wrap_free(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

int
tui_attr(struct tui *t, int mark)
{
	switch (mark) {
	case TUI_MARK_GOOD:
		return t->color ? COLOR_PAIR(1) : A_NORMAL;
	case TUI_MARK_WARN:
		return t->color ? COLOR_PAIR(2) | A_BOLD : A_BOLD;
	case TUI_MARK_BAD:
		return t->color ? COLOR_PAIR(3) | A_BOLD : A_BOLD;
	case TUI_MARK_DIM:
		return A_DIM;
	}
	return A_NORMAL;
}

const char *
tui_fit(char *out, size_t n, const char *s, int width)
{
	wchar_t wbuf[512];
	size_t len;
	int cols = 0, i, cut = 0;

	if (n == 0)
		return out;
	out[0] = '\0';
	if (width <= 0)
		return out;
	len = mbstowcs(wbuf, s, sizeof wbuf / sizeof wbuf[0] - 1);
	if (len == (size_t)-1) {
		for (len = 0; s[len] && len < sizeof wbuf / sizeof wbuf[0] - 1; len++)
			wbuf[len] = (unsigned char)s[len] < 0x80 ? (wchar_t)s[len] : L'?';
	}
	wbuf[len] = L'\0';
	for (i = 0; wbuf[i]; i++) {
		int cw = wcwidth(wbuf[i]);

		if (cw < 0)
			wbuf[i] = L'?', cw = 1;
		cols += cw;
	}
	if (cols > width) {
		/* Cut one column short of the width, for the ellipsis that says so. */
		cut = 1;
		cols = 0;
		for (i = 0; wbuf[i]; i++) {
			int cw = wcwidth(wbuf[i]);

			if (cols + cw > width - 1)
				break;
			cols += cw;
		}
		/* No space before the ellipsis: it ends the word it cuts. */
		while (i > 0 && wbuf[i - 1] == L' ')
			i--, cols--;
		wbuf[i] = L'\0';
		cols++;
	}
	if (wcstombs(out, wbuf, n) == (size_t)-1 || strlen(out) + 4 + (size_t)(width - cols) >= n) {
		snprintf(out, n, "%.*s", width, s);
		return out;
	}
	if (cut)
		strcat(out, MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~");   /* U+2026 */
	for (; cols < width; cols++)
		strcat(out, " ");
	return out;
}

int
tui_text_cols(const char *s)
{
	wchar_t wbuf[1024];
	size_t len = mbstowcs(wbuf, s, sizeof wbuf / sizeof wbuf[0] - 1);
	int cols = 0;

	if (len == (size_t)-1)
		return (int)strlen(s);
	for (size_t i = 0; i < len; i++)
		cols += wcwidth(wbuf[i]) > 0 ? wcwidth(wbuf[i]) : 1;
	return cols;
}

const char *
tui_fit_mid(char *out, size_t n, const char *s, int width)
{
	wchar_t wbuf[512], head[512], tail[512];
	size_t len;
	int hw = 0, tw = 0, h = 0, k;
	char tmp[1024];

	if (width < 5 || tui_text_cols(s) <= width ||
	    (len = mbstowcs(wbuf, s, sizeof wbuf / sizeof wbuf[0] - 1)) == (size_t)-1)
		return tui_fit(out, n, s, width);
	/* Half of the room for the head, the rest (less the ellipsis) for the tail. */
	for (; (size_t)h < len && hw + (wcwidth(wbuf[h]) > 0 ? wcwidth(wbuf[h]) : 1) <= (width - 1) / 2; h++) {
		hw += wcwidth(wbuf[h]) > 0 ? wcwidth(wbuf[h]) : 1;
		head[h] = wbuf[h];
	}
	head[h] = L'\0';
	for (k = (int)len; k > h && tw + (wcwidth(wbuf[k - 1]) > 0 ? wcwidth(wbuf[k - 1]) : 1) <=
	    width - 1 - hw; k--)
		tw += wcwidth(wbuf[k - 1]) > 0 ? wcwidth(wbuf[k - 1]) : 1;
	wmemcpy(tail, wbuf + k, len - (size_t)k);
	tail[len - (size_t)k] = L'\0';
	snprintf(tmp, sizeof tmp, "%ls%s%ls", head, MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~", tail);
	return tui_fit(out, n, tmp, width);
}

const char *
tui_fit_ref(char *out, size_t n, const char *s, int width)
{
	const char *slash = strrchr(s, '/');
	char vendor[512], tmp[1024];
	int ew;

	if (tui_text_cols(s) <= width || slash == NULL || (ew = tui_text_cols(slash)) > width - 4)
		return tui_fit_mid(out, n, s, width);
	snprintf(tmp, sizeof tmp, "%.*s", (int)(slash - s), s);
	tui_fit(vendor, sizeof vendor, tmp, width - ew);
	snprintf(tmp, sizeof tmp, "%s%s", vendor, slash);
	return tui_fit(out, n, tmp, width);
}

const char *
tui_fit_url(char *out, size_t n, const char *url, int width)
{
	const char *host = strstr(url, "://"), *path;
	char tmp[1024];

	if (tui_text_cols(url) <= width || host == NULL)
		return tui_fit_mid(out, n, url, width);
	host += 3;
	if (tui_text_cols(host) <= width)
		return tui_fit(out, n, host, width);
	path = strchr(host, '/');
	snprintf(tmp, sizeof tmp, "%.*s", path ? (int)(path - host) : (int)strlen(host), host);
	return tui_fit_mid(out, n, tmp, width);
}

const char *
tui_rating_marker(int rating, int bad)
{
	if (bad || rating == RATING_UNACCEPTABLE)
		return "!!";
	if (rating == RATING_CONCERNS)
		return "! ";
	return rating == RATING_INCOMPLETE || rating == RATING_NOT_ASSESSED ? "? " : "  ";
}
