/*
 * cli/table.c: the command line's text tables (endpoint list, incident list):
 * each column as wide as its widest cell, so that a long vendor name or URL
 * moves the columns after it instead of pushing its own row out of line.
 * Cells are escaped for the terminal when added (a vendor's text may hold
 * control characters) and measured in characters as the terminal shows them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"

void
table_init(struct table *t, size_t ncols, ...)
{
	va_list ap;

	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	va_start(ap, ncols);
	table_vrow(t, ap);
	va_end(ap);
}

void
table_row(struct table *t, ...)
{
	va_list ap;

	va_start(ap, t);
	table_vrow(t, ap);
	va_end(ap);
}

void
table_vrow(struct table *t, va_list ap)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
	}
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = va_arg(ap, const char *);

		t->cells[t->nrows * t->ncols + c] = text_escape(s ? s : "-", strlen(s ? s : "-"), 0);
	}
	t->nrows++;
}

/* Columns a cell takes on a terminal: a character each (two for a wide one). */
static size_t
cell_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), w = 0;

	for (size_t i = 0; i < n; ) {
		uint32_t cp;
		size_t len = utf8_decode(p + i, n - i, &cp);
		int cw = wcwidth((wchar_t)cp);

		w += cw > 0 ? (size_t)cw : cp >= 0x20 ? 1 : 0;
		i += len ? len : 1;
	}
	return w;
}

void
table_print(struct table *t, FILE *f)
{
	size_t *width = xcalloc(t->ncols, sizeof *width);

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = cell_width(t->cells[r * t->ncols + c]);

			if (w > width[c])
				width[c] = w;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];

			fputs(s, f);
			if (c + 1 < t->ncols)
				fprintf(f, "%*s", (int)(width[c] - cell_width(s) + 2), "");
		}
		fputc('\n', f);
	}
	free(width);
}

void
table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof *t);
}
