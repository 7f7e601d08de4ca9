/*
 * xlsx-read.h: reads the cells of an .xlsx workbook as a spreadsheet program
 * saved them, with libzip and libxml2: every sheet by name (hidden or not),
 * each cell's stored value (shared, inline and rich-text strings, numbers,
 * booleans, errors) and whether a formula made it, and the workbook's date
 * system. Nothing is evaluated; styles are not read. The archive is checked
 * against caps on entries, total size and compression ratio before any part
 * is inflated, so a ZIP bomb is refused with a sentence, not a crash.
 * Text is capped too: a shared string is held once, however many cells
 * refer to it, and the text the book holds in all (each shared string once,
 * each other cell's own) is at most XLSX_MAX_TEXT, a cell's at most
 * XLSX_MAX_CELL characters (the spreadsheet programs' own limit).
 */
#ifndef AIVET_XLSX_READ_H
#define AIVET_XLSX_READ_H

#include "aivet/base.h"

enum xlsx_type { XLSX_EMPTY, XLSX_STRING, XLSX_NUMBER, XLSX_BOOL, XLSX_ERROR };

struct xlsx_cell {
	int row, col;        /* 0-based */
	int type;            /* enum xlsx_type */
	char *text;          /* strings and errors as stored; numbers and booleans as written
	                        (a shared string's text is the book's, held once) */
	double num;          /* numbers; booleans 0 or 1 */
	char *formula;       /* the formula that made the value, NULL for none */
	int shared;          /* text is a shared string's (the book frees it) */
};

struct xlsx_sheet {
	char *name;
	int hidden;
	struct xlsx_cell *cells;   /* in the order stored: by row, then column */
	size_t ncells, cap;
};

struct xlsx_book {
	int date1904;              /* dates count from 1904-01-01 (old Mac workbooks) */
	struct xlsx_sheet *sheets;
	int nsheets;
	char **sst;                /* the shared strings, which cells' text points into */
	size_t nsst;
};

/* The caps a workbook must keep within. */
#define XLSX_MAX_FILE ((size_t)64 << 20)
#define XLSX_MAX_ENTRIES 2000
#define XLSX_MAX_TOTAL ((uint64_t)256 << 20)
#define XLSX_MAX_RATIO 200          /* uncompressed : compressed, per entry over 1 MiB */
#define XLSX_MAX_TEXT ((size_t)16 << 20)   /* the text held, a shared string counted once */
#define XLSX_MAX_CELL 32767                /* characters in one cell, as in Excel */

/* Reads a workbook held in memory; name is how messages name it. */
int xlsx_read_mem(const char *name, const void *data, size_t len, struct xlsx_book **out,
    struct aerr *err);
/* Reads a workbook file. */
int xlsx_read(const char *path, struct xlsx_book **out, struct aerr *err);
void xlsx_free(struct xlsx_book *b);
const struct xlsx_sheet *xlsx_sheet(const struct xlsx_book *b, const char *name);
/* "E14" for row 13, column 4 (0-based); out holds at least 16 bytes. */
void xlsx_ref(int row, int col, char *out);
/* A date serial as YYYY-MM-DD in the book's date system; -1 when it is none. */
int xlsx_date(const struct xlsx_book *b, double serial, char out[11]);

#endif
