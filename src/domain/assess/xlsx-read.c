/*
 * xlsx-read.c: the workbook reader behind xlsx-read.h. A workbook is a ZIP
 * archive of XML parts: _rels/.rels names the workbook part, the workbook
 * names its sheets and, through its own .rels, their parts and the shared
 * strings. libzip opens the archive from memory (after the caps are checked
 * against the central directory) and libxml2's streaming reader walks each
 * part, so a large sheet costs no tree. Element names are matched by local
 * name: writers differ in the prefixes they use, not in the names.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>
#include <zip.h>

#include "xlsx-read.h"

/* ---- the archive ---- */

struct book_ctx {
	const char *name;          /* the file, as messages name it */
	zip_t *zip;
	struct xlsx_book *book;
	size_t capsst;             /* room in book->sst */
	size_t text;               /* bytes of text held: each shared string once, other cells' own */
};

/*
 * Counts a string the book is to hold against the caps: one cell's length
 * and the whole book's text. what names it in the part ("shared string 7",
 * "Answers!E2"). A shared string is counted here once, when read: cells
 * refer to it without a copy, so 2,000 cells of one 8 MiB string cost 8 MiB
 * (and are refused, being over a cell's length), not 16 GB.
 */
static int
text_count(struct book_ctx *c, const char *part, const char *what, const char *s,
    struct aerr *err)
{
	size_t len = strlen(s), chars = 0;

	for (size_t i = 0; i < len; i++)
		chars += ((unsigned char)s[i] & 0xc0) != 0x80;
	if (chars > XLSX_MAX_CELL)
		return aerr_set(err, AV_USAGE, "%s: %s: %s holds %zu characters (a cell holds at most %d): "
		    "refused", c->name, part, what, chars, XLSX_MAX_CELL);
	c->text += len;
	if (c->text > XLSX_MAX_TEXT)
		return aerr_set(err, AV_USAGE, "%s: %s: at %s the workbook's text exceeds %zu MiB "
		    "(each shared string counted once): refused", c->name, part, what,
		    XLSX_MAX_TEXT >> 20);
	return 0;
}

/* Checks the caps on every entry the central directory declares. */
static int
zip_caps(struct book_ctx *c, struct aerr *err)
{
	zip_int64_t n = zip_get_num_entries(c->zip, 0);
	uint64_t total = 0;

	if (n > XLSX_MAX_ENTRIES)
		return aerr_set(err, AV_USAGE, "%s: the workbook holds %lld entries (at most %d are read): "
		    "refused", c->name, (long long)n, XLSX_MAX_ENTRIES);
	for (zip_int64_t i = 0; i < n; i++) {
		zip_stat_t st;

		zip_stat_init(&st);
		if (zip_stat_index(c->zip, (zip_uint64_t)i, 0, &st) != 0)
			return aerr_set(err, AV_USAGE, "%s: entry %lld of the archive is unreadable: %s",
			    c->name, (long long)i, zip_strerror(c->zip));
		if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE))
			return aerr_set(err, AV_USAGE, "%s: entry %lld declares no size", c->name, (long long)i);
		total += st.size;
		if (total > XLSX_MAX_TOTAL)
			return aerr_set(err, AV_USAGE, "%s: the workbook inflates to more than %llu MiB: "
			    "refused as a ZIP bomb", c->name, (unsigned long long)(XLSX_MAX_TOTAL >> 20));
		if (st.size > ((uint64_t)1 << 20) &&
		    st.size / (st.comp_size > 0 ? st.comp_size : 1) > XLSX_MAX_RATIO)
			return aerr_set(err, AV_USAGE, "%s: entry %s inflates %llu times (at most %d): "
			    "refused as a ZIP bomb", c->name, st.name ? st.name : "?",
			    (unsigned long long)(st.size / (st.comp_size > 0 ? st.comp_size : 1)),
			    XLSX_MAX_RATIO);
	}
	return 0;
}

/* Inflates one part; 1 when the archive has no such part. */
static int
zip_part(struct book_ctx *c, const char *part, struct buf *out, struct aerr *err)
{
	zip_int64_t idx = zip_name_locate(c->zip, part, 0);
	zip_stat_t st;
	zip_file_t *f;
	zip_int64_t got;

	buf_init(out);
	if (idx < 0)
		return 1;
	zip_stat_init(&st);
	if (zip_stat_index(c->zip, (zip_uint64_t)idx, 0, &st) != 0 ||
	    (f = zip_fopen_index(c->zip, (zip_uint64_t)idx, 0)) == NULL)
		return aerr_set(err, AV_USAGE, "%s: %s: unreadable: %s", c->name, part,
		    zip_strerror(c->zip));
	out->data = xmalloc((size_t)st.size + 1);
	out->cap = (size_t)st.size + 1;
	got = zip_fread(f, out->data, st.size);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		aerr_set(err, AV_USAGE, "%s: %s: the compressed data is damaged: %s", c->name, part,
		    zip_file_strerror(f));
		zip_fclose(f);
		buf_free(out);
		return AV_USAGE;
	}
	out->len = (size_t)got;
	out->data[out->len] = '\0';
	if (zip_fclose(f) != 0) {
		buf_free(out);
		return aerr_set(err, AV_USAGE, "%s: %s: the compressed data is damaged (checksum)", c->name,
		    part);
	}
	return 0;
}

/* ---- XML parts ---- */

struct xr {
	xmlTextReaderPtr r;
	const char *book, *part;
	const char *sheet;         /* the sheet a worksheet part holds, for naming cells */
	int failed, line;
	char msg[200];
};

static void
xr_error(void *ctx, xmlErrorPtr e)
{
	struct xr *x = ctx;
	size_t n;

	if (x->failed || e == NULL || e->level < XML_ERR_ERROR)
		return;
	x->failed = 1;
	x->line = e->line;
	snprintf(x->msg, sizeof x->msg, "%s", e->message ? e->message : "malformed");
	x->msg[strcspn(x->msg, "\n")] = '\0';   /* one line: libxml2 adds the bytes on a second */
	n = strlen(x->msg);
	while (n > 0 && (x->msg[n - 1] == '\n' || x->msg[n - 1] == ' '))
		x->msg[--n] = '\0';
}

/* libxml2 reports through the reader's handler; nothing may reach stderr. */
static void
xml_quiet(void *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

static int
xr_open(struct xr *x, const char *book, const char *part, const struct buf *text, struct aerr *err)
{
	memset(x, 0, sizeof *x);
	x->book = book;
	x->part = part;
	xmlSetGenericErrorFunc(NULL, xml_quiet);
	x->r = xmlReaderForMemory(text->data, (int)text->len, part, NULL, XML_PARSE_NONET);
	if (x->r == NULL)
		return aerr_set(err, AV_USAGE, "%s: %s: not readable as XML", book, part);
	xmlTextReaderSetStructuredErrorHandler(x->r, xr_error, x);
	return 0;
}

static void
xr_close(struct xr *x)
{
	if (x->r != NULL)
		xmlFreeTextReader(x->r);
	x->r = NULL;
}

/* The next node: 1, or 0 at the end, or an error naming the part and line. */
static int
xr_next(struct xr *x, struct aerr *err)
{
	int rc = xmlTextReaderRead(x->r);

	if (rc < 0 || x->failed)
		return -aerr_set(err, AV_USAGE, "%s: %s:%d: not well-formed XML: %s", x->book, x->part,
		    x->failed ? x->line : xmlTextReaderGetParserLineNumber(x->r),
		    x->failed ? x->msg : "malformed");
	if (rc == 1 && xmlTextReaderNodeType(x->r) == XML_READER_TYPE_DOCUMENT_TYPE)
		return -aerr_set(err, AV_USAGE, "%s: %s:%d: a DOCTYPE is not allowed in a workbook",
		    x->book, x->part, xmlTextReaderGetParserLineNumber(x->r));
	return rc;
}

static int
xr_start(struct xr *x, const char *name)
{
	return xmlTextReaderNodeType(x->r) == XML_READER_TYPE_ELEMENT &&
	    strcmp((const char *)xmlTextReaderConstLocalName(x->r), name) == 0;
}

static int
xr_end(struct xr *x, const char *name)
{
	return xmlTextReaderNodeType(x->r) == XML_READER_TYPE_END_ELEMENT &&
	    strcmp((const char *)xmlTextReaderConstLocalName(x->r), name) == 0;
}

/* An attribute by local name (any namespace), malloc'ed, or NULL. */
static char *
xr_attr(struct xr *x, const char *name)
{
	char *v = NULL;

	if (xmlTextReaderMoveToFirstAttribute(x->r) != 1)
		return NULL;
	do {
		if (strcmp((const char *)xmlTextReaderConstLocalName(x->r), name) == 0) {
			v = xstrdup((const char *)xmlTextReaderConstValue(x->r));
			break;
		}
	} while (xmlTextReaderMoveToNextAttribute(x->r) == 1);
	xmlTextReaderMoveToElement(x->r);
	return v;
}

/* The text of the current element (empty for an empty one), malloc'ed. */
static char *
xr_text(struct xr *x)
{
	xmlChar *s;
	char *t;

	if (xmlTextReaderIsEmptyElement(x->r))
		return xstrdup("");
	s = xmlTextReaderReadString(x->r);
	t = xstrdup(s ? (const char *)s : "");
	xmlFree(s);
	return t;
}

/* Undoes OOXML's _xHHHH_ escape (how control characters are stored), in place. */
static void
unescape_x(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		unsigned v;
		char hex[5];

		if (r[0] == '_' && r[1] == 'x' && strspn(r + 2, "0123456789abcdefABCDEF") >= 4 &&
		    r[6] == '_') {
			memcpy(hex, r + 2, 4);
			hex[4] = '\0';
			v = (unsigned)strtoul(hex, NULL, 16);
			if (v != 0 && v < 0x80) {
				*w++ = (char)v;
				r += 7;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* At <si> or <is>: the text of its runs, leaving out phonetic runs (<rPh>). */
static int
xr_rich(struct xr *x, const char *outer, char **out, struct aerr *err)
{
	struct buf b;
	int rc, in_rph = 0;

	buf_init(&b);
	buf_adds(&b, "");
	if (!xmlTextReaderIsEmptyElement(x->r))
		while ((rc = xr_next(x, err)) == 1 && !xr_end(x, outer)) {
			if (xr_start(x, "rPh") && !xmlTextReaderIsEmptyElement(x->r))
				in_rph = 1;
			else if (xr_end(x, "rPh"))
				in_rph = 0;
			else if (xr_start(x, "t") && !in_rph) {
				char *t = xr_text(x);

				buf_adds(&b, t);
				free(t);
			}
		}
	else
		rc = 1;
	if (rc != 1) {
		buf_free(&b);
		return rc < 0 ? -rc : aerr_set(err, AV_USAGE, "%s: %s: ends inside <%s>", x->book,
		    x->part, outer);
	}
	unescape_x(b.data);
	*out = b.data;
	return 0;
}

static int
part_open(struct book_ctx *c, struct xr *x, const char *part, struct buf *text, int optional,
    struct aerr *err)
{
	int rc = zip_part(c, part, text, err);

	if (rc == 1 && optional)
		return 1;
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "%s: not an .xlsx workbook: it has no %s", c->name, part);
	if (rc != 0)
		return rc;
	if ((rc = xr_open(x, c->name, part, text, err)) != 0)
		buf_free(text);
	return rc;
}

static void
part_close(struct xr *x, struct buf *text)
{
	xr_close(x);
	buf_free(text);
}

/* ---- relationships ---- */

struct rel {
	char *id, *type, *target;
};

static void
rels_free(struct rel *rels, int n)
{
	for (int i = 0; i < n; i++) {
		free(rels[i].id);
		free(rels[i].type);
		free(rels[i].target);
	}
	free(rels);
}

/* A target relative to the part's folder, or absolute from the root ("/xl/..."). */
static char *
rel_resolve(const char *dir, const char *target)
{
	if (target[0] == '/')
		return xstrdup(target + 1);
	while (strncmp(target, "./", 2) == 0)
		target += 2;
	return xasprintf("%s%s", dir, target);
}

static int
read_rels(struct book_ctx *c, const char *part, const char *dir, struct rel **out, int *nout,
    struct aerr *err)
{
	struct xr x;
	struct buf text;
	struct rel *rels = NULL;
	int n = 0, cap = 0, rc;

	*out = NULL;
	*nout = 0;
	if ((rc = part_open(c, &x, part, &text, 1, err)) == 1)
		return 0;
	if (rc != 0)
		return rc;
	while ((rc = xr_next(&x, err)) == 1)
		if (xr_start(&x, "Relationship")) {
			char *target = xr_attr(&x, "Target");

			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				rels = xrealloc(rels, (size_t)cap * sizeof *rels);
			}
			rels[n].id = xr_attr(&x, "Id");
			rels[n].type = xr_attr(&x, "Type");
			rels[n].target = target ? rel_resolve(dir, target) : NULL;
			free(target);
			n++;
		}
	part_close(&x, &text);
	if (rc < 0) {
		rels_free(rels, n);
		return -rc;
	}
	*out = rels;
	*nout = n;
	return 0;
}

static const char *
rel_by_type(const struct rel *rels, int n, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (int i = 0; i < n; i++)
		if (rels[i].type && rels[i].target && strlen(rels[i].type) >= sl &&
		    strcmp(rels[i].type + strlen(rels[i].type) - sl, suffix) == 0)
			return rels[i].target;
	return NULL;
}

/* ---- shared strings ---- */

static int
read_sst(struct book_ctx *c, const char *part, struct aerr *err)
{
	struct xr x;
	struct buf text;
	int rc;

	if ((rc = part_open(c, &x, part, &text, 1, err)) == 1)
		return 0;
	if (rc != 0)
		return rc;
	while ((rc = xr_next(&x, err)) == 1) {
		struct xlsx_book *b = c->book;
		char *s, what[40];

		if (!xr_start(&x, "si"))
			continue;
		if ((rc = -xr_rich(&x, "si", &s, err)) != 0)
			break;
		snprintf(what, sizeof what, "shared string %zu", b->nsst);
		if (b->nsst == c->capsst) {
			c->capsst = c->capsst ? 2 * c->capsst : 256;
			b->sst = xrealloc(b->sst, c->capsst * sizeof *b->sst);
		}
		b->sst[b->nsst++] = s;
		if ((rc = -text_count(c, part, what, s, err)) != 0)
			break;
	}
	part_close(&x, &text);
	return rc < 0 ? -rc : 0;
}

/* ---- sheets ---- */

void
xlsx_ref(int row, int col, char *out)
{
	char letters[8];
	int n = 0;

	col++;
	while (col > 0 && n < 7) {
		letters[n++] = (char)('A' + (col - 1) % 26);
		col = (col - 1) / 26;
	}
	for (int i = 0; i < n; i++)
		out[i] = letters[n - 1 - i];
	snprintf(out + n, 16 - (size_t)n, "%d", row + 1);
}

/* "E14" -> row 13, col 4; -1 when it is no cell reference. */
static int
parse_ref(const char *s, int *row, int *col)
{
	long c = 0, r = 0;
	const char *p = s;

	while (*p >= 'A' && *p <= 'Z' && c <= 16384)
		c = c * 26 + (*p++ - 'A' + 1);
	if (p == s || c > 16384 || *p < '1' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && r <= 1048576)
		r = r * 10 + (*p++ - '0');
	if (*p != '\0' || r > 1048576)
		return -1;
	*row = (int)r - 1;
	*col = (int)c - 1;
	return 0;
}

struct cell_read {
	char *t, *v, *f, *is;
	int has_f;
};

/* Reads the children of a <c>: its value, formula and inline string. */
static int
read_cell_body(struct xr *x, struct cell_read *cr, struct aerr *err)
{
	int rc;

	if (xmlTextReaderIsEmptyElement(x->r))
		return 0;
	while ((rc = xr_next(x, err)) == 1 && !xr_end(x, "c")) {
		if (xr_start(x, "v")) {
			free(cr->v);
			cr->v = xr_text(x);
		} else if (xr_start(x, "f")) {
			free(cr->f);
			cr->f = xr_text(x);
			cr->has_f = 1;
		} else if (xr_start(x, "is")) {
			/* A second <is> replaces the first; on an error the cell keeps none. */
			free(cr->is);
			cr->is = NULL;
			if ((rc = xr_rich(x, "is", &cr->is, err)) != 0)
				return rc;
		}
	}
	return rc < 0 ? -rc : 0;
}

/* Turns what a <c> held into a cell; 1 when it holds nothing to keep. */
static int
make_cell(struct book_ctx *c, struct xr *x, const struct cell_read *cr, const char *ref,
    struct xlsx_cell *cell, struct aerr *err)
{
	const char *t = cr->t ? cr->t : "n";

	if (strcmp(t, "inlineStr") == 0 && cr->is != NULL) {
		cell->type = XLSX_STRING;
		cell->text = xstrdup(cr->is);
	} else if (cr->v == NULL || (*cr->v == '\0' && cr->has_f)) {
		/* A formula never calculated has no value: it is still a formula. */
		if (!cr->has_f)
			return 1;
		cell->type = XLSX_EMPTY;
		cell->text = xstrdup("");
	} else if (strcmp(t, "s") == 0) {
		char *end;
		unsigned long i;

		errno = 0;
		i = strtoul(cr->v, &end, 10);
		if (*cr->v == '\0' || *end != '\0' || errno != 0 || i >= c->book->nsst)
			return aerr_set(err, AV_USAGE, "%s: %s!%s: shared string '%s' does not exist",
			    c->name, x->sheet, ref, cr->v);
		cell->type = XLSX_STRING;
		cell->text = c->book->sst[i];   /* counted once, when the strings were read */
		cell->shared = 1;
	} else if (strcmp(t, "str") == 0 || strcmp(t, "d") == 0 || strcmp(t, "inlineStr") == 0) {
		cell->type = XLSX_STRING;
		cell->text = xstrdup(cr->v);
		unescape_x(cell->text);
	} else if (strcmp(t, "b") == 0) {
		cell->type = XLSX_BOOL;
		cell->num = strcmp(cr->v, "1") == 0 || strcmp(cr->v, "true") == 0;
		cell->text = xstrdup(cell->num ? "TRUE" : "FALSE");
	} else if (strcmp(t, "e") == 0) {
		cell->type = XLSX_ERROR;
		cell->text = xstrdup(cr->v);
	} else {
		char *end;

		errno = 0;
		cell->num = strtod(cr->v, &end);
		if (*cr->v == '\0' || *end != '\0' || errno != 0 || !isfinite(cell->num))
			return aerr_set(err, AV_USAGE, "%s: %s!%s: '%s' is not a number", c->name,
			    x->sheet, ref, cr->v);
		cell->type = XLSX_NUMBER;
		cell->text = xstrdup(cr->v);
	}
	if (cr->has_f)
		cell->formula = xstrdup(*cr->f ? cr->f : "(shared)");
	return 0;
}

static int
read_cell(struct book_ctx *c, struct xr *x, struct xlsx_sheet *sh, int row, int *col,
    struct aerr *err)
{
	struct cell_read cr = { 0 };
	struct xlsx_cell cell = { 0 };
	char *r = xr_attr(x, "r"), ref[16];
	int rc;

	cr.t = xr_attr(x, "t");
	cell.row = row;
	cell.col = *col + 1;
	if (r != NULL && parse_ref(r, &cell.row, &cell.col) != 0)
		rc = aerr_set(err, AV_USAGE, "%s: %s: '%s' is not a cell reference", c->name, x->part, r);
	else if (cell.row != row || cell.col <= *col)
		rc = aerr_set(err, AV_USAGE, "%s: %s: cell %s is out of order", c->name, x->part, r);
	else
		rc = read_cell_body(x, &cr, err);
	xlsx_ref(cell.row, cell.col, ref);
	if (rc == 0 && (rc = make_cell(c, x, &cr, ref, &cell, err)) == 0) {
		char what[80];

		snprintf(what, sizeof what, "%s!%s", x->sheet, ref);
		if (!cell.shared && (rc = text_count(c, x->part, what, cell.text, err)) != 0) {
			free(cell.text);
			free(cell.formula);
			cell.text = cell.formula = NULL;
		}
	}
	if (rc == 0) {
		if (sh->ncells == sh->cap) {
			sh->cap = sh->cap ? 2 * sh->cap : 256;
			sh->cells = xrealloc(sh->cells, sh->cap * sizeof *sh->cells);
		}
		sh->cells[sh->ncells++] = cell;
	} else if (rc == 1) {
		rc = 0;
	}
	*col = cell.col;
	free(r);
	free(cr.t);
	free(cr.v);
	free(cr.f);
	free(cr.is);
	return rc;
}

static int
read_sheet(struct book_ctx *c, const char *part, struct xlsx_sheet *sh, struct aerr *err)
{
	struct xr x;
	struct buf text;
	int rc, row = -1, col = -1;

	if ((rc = part_open(c, &x, part, &text, 0, err)) != 0)
		return rc;
	x.sheet = sh->name;
	while ((rc = xr_next(&x, err)) == 1) {
		if (xr_start(&x, "row")) {
			char *r = xr_attr(&x, "r");
			long n = r ? strtol(r, NULL, 10) : row + 2;

			free(r);
			if (n <= row || n > 1048576) {
				rc = -aerr_set(err, AV_USAGE, "%s: %s: row %ld is out of order", c->name, part, n);
				break;
			}
			row = (int)n - 1;
			col = -1;
		} else if (xr_start(&x, "c")) {
			if (row < 0) {
				rc = -aerr_set(err, AV_USAGE, "%s: %s: a cell outside a row", c->name, part);
				break;
			}
			if ((rc = -read_cell(c, &x, sh, row, &col, err)) != 0)
				break;
		}
	}
	part_close(&x, &text);
	return rc < 0 ? -rc : 0;
}

/* ---- the workbook ---- */

/* The workbook part's sheets, in order, with their parts. */
static int
read_workbook(struct book_ctx *c, const char *part, struct aerr *err)
{
	struct xr x;
	struct buf text;
	struct rel *rels;
	int nrels, rc;
	const char *slash = strrchr(part, '/');
	char *dir = xasprintf("%.*s", slash ? (int)(slash - part) + 1 : 0, part);
	char *relpart = xasprintf("%s_rels/%s.rels", dir, slash ? slash + 1 : part);
	char **parts = NULL;

	rc = read_rels(c, relpart, dir, &rels, &nrels, err);
	free(relpart);
	free(dir);
	if (rc != 0)
		return rc;
	if ((rc = part_open(c, &x, part, &text, 0, err)) != 0) {
		rels_free(rels, nrels);
		return rc;
	}
	while ((rc = xr_next(&x, err)) == 1) {
		if (xr_start(&x, "workbookPr")) {
			char *d = xr_attr(&x, "date1904");

			c->book->date1904 = d && (strcmp(d, "1") == 0 || strcmp(d, "true") == 0);
			free(d);
		} else if (xr_start(&x, "sheet")) {
			struct xlsx_sheet *sh;
			char *state = xr_attr(&x, "state"), *id = xr_attr(&x, "id");
			const char *target = NULL;

			for (int i = 0; id && i < nrels; i++)
				if (rels[i].id && strcmp(rels[i].id, id) == 0)
					target = rels[i].target;
			c->book->sheets = xrealloc(c->book->sheets,
			    (size_t)(c->book->nsheets + 1) * sizeof *c->book->sheets);
			parts = xrealloc(parts, (size_t)(c->book->nsheets + 1) * sizeof *parts);
			sh = &c->book->sheets[c->book->nsheets];
			memset(sh, 0, sizeof *sh);
			sh->name = xr_attr(&x, "name");
			if (sh->name == NULL)
				sh->name = xstrdup("");
			sh->hidden = state != NULL && strcmp(state, "visible") != 0;
			parts[c->book->nsheets++] = target ? xstrdup(target) : NULL;
			free(state);
			free(id);
		}
	}
	part_close(&x, &text);
	if (rc == 0) {
		const char *sst = rel_by_type(rels, nrels, "/sharedStrings");

		rc = read_sst(c, sst ? sst : "xl/sharedStrings.xml", err);
	} else {
		rc = -rc;
	}
	for (int i = 0; i < c->book->nsheets; i++) {
		/* A sheet part that is missing is a chart sheet or a damaged book: no cells. */
		if (rc == 0 && parts[i] != NULL && zip_name_locate(c->zip, parts[i], 0) >= 0)
			rc = read_sheet(c, parts[i], &c->book->sheets[i], err);
		free(parts[i]);
	}
	free(parts);
	rels_free(rels, nrels);
	return rc;
}

int
xlsx_read_mem(const char *name, const void *data, size_t len, struct xlsx_book **out,
    struct aerr *err)
{
	struct book_ctx c = { .name = name };
	zip_error_t ze;
	zip_source_t *src;
	struct rel *rels;
	int nrels, rc;

	*out = NULL;
	zip_error_init(&ze);
	if ((src = zip_source_buffer_create(data, len, 0, &ze)) == NULL ||
	    (c.zip = zip_open_from_source(src, ZIP_RDONLY, &ze)) == NULL) {
		rc = aerr_set(err, AV_USAGE, "%s: not an .xlsx workbook (not a ZIP archive: %s)", name,
		    zip_error_strerror(&ze));
		if (src != NULL)
			zip_source_free(src);
		zip_error_fini(&ze);
		return rc;
	}
	zip_error_fini(&ze);
	c.book = xcalloc(1, sizeof *c.book);
	if ((rc = zip_caps(&c, err)) == 0 && (rc = read_rels(&c, "_rels/.rels", "", &rels, &nrels,
	    err)) == 0) {
		const char *wb = rel_by_type(rels, nrels, "/officeDocument");

		rc = read_workbook(&c, wb ? wb : "xl/workbook.xml", err);
		rels_free(rels, nrels);
	}
	zip_discard(c.zip);
	if (rc != 0) {
		xlsx_free(c.book);
		return rc;
	}
	*out = c.book;
	return 0;
}

int
xlsx_read(const char *path, struct xlsx_book **out, struct aerr *err)
{
	struct buf b;
	int rc;

	if (read_file(path, XLSX_MAX_FILE, &b, err) != 0)
		return err->code;
	rc = xlsx_read_mem(path, b.data, b.len, out, err);
	buf_free(&b);
	return rc;
}

void
xlsx_free(struct xlsx_book *b)
{
	if (b == NULL)
		return;
	for (int i = 0; i < b->nsheets; i++) {
		for (size_t j = 0; j < b->sheets[i].ncells; j++) {
			if (!b->sheets[i].cells[j].shared)
				free(b->sheets[i].cells[j].text);
			free(b->sheets[i].cells[j].formula);
		}
		free(b->sheets[i].cells);
		free(b->sheets[i].name);
	}
	free(b->sheets);
	for (size_t i = 0; i < b->nsst; i++)
		free(b->sst[i]);
	free(b->sst);
	free(b);
}

const struct xlsx_sheet *
xlsx_sheet(const struct xlsx_book *b, const char *name)
{
	for (int i = 0; i < b->nsheets; i++)
		if (strcmp(b->sheets[i].name, name) == 0)
			return &b->sheets[i];
	return NULL;
}

/* Days since 1970-01-01 -> civil date (Howard Hinnant's algorithm). */
static void
civil(long z, int *y, int *m, int *d)
{
	long era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

int
xlsx_date(const struct xlsx_book *b, double serial, char out[11])
{
	long s, z;
	int y, m, d;

	if (!isfinite(serial) || serial < 0 || serial > 2958466)
		return -1;
	s = (long)floor(serial);
	if (b->date1904)
		z = s - 24107;             /* 1904-01-01 is serial 0 */
	else if (s == 60 || s < 1)
		return -1;                 /* 1900-02-29 never was; serial 0 is 1900-01-00 */
	else
		z = s < 60 ? s - 25568 : s - 25569;   /* Lotus's leap year 1900 */
	civil(z, &y, &m, &d);
	if (y > 9999)
		return -1;
	snprintf(out, 11, "%04d-%02d-%02d", y, m, d);
	return 0;
}
