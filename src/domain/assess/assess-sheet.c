/*
 * assess-sheet.c: the vendor round trip. An assessment exports as a sheet
 * the vendor fills in (CSV for spreadsheets, Markdown for reading), one row
 * per question with its allowed values, current answer and note; the CSV
 * comes back through import, which checks every row first and reports all
 * refused cells with their line before changing anything. CSV is read and
 * written with libcsv.
 */
#include "config.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "assess.h"

#define MAX_SHEET ((size_t)16 << 20)

static const char *const sheet_columns[] = { "question_id", "section", "question", "type",
	"required", "allowed_values", "asked_when", "answer", "note", NULL };

/* OWASP's rule for CSV injection: a cell a spreadsheet would read as a
 * formula (=, +, -, @, or a tab or CR before one) gets a leading single
 * quote. So that import can take exactly that quote off again, a cell that
 * already starts with a quote before one of those (or before another
 * quote) is guarded too. */
static int
csv_needs_guard(const char *s)
{
	static const char formula[] = "=+-@\t\r";

	return (*s != '\0' && strchr(formula, *s) != NULL) ||
	    (s[0] == '\'' && s[1] != '\0' && (s[1] == '\'' || strchr(formula, s[1]) != NULL));
}

/* Undoes csv_needs_guard on a cell read back, in place. */
static void
csv_unguard(char *s)
{
	if (s[0] == '\'' && csv_needs_guard(s + 1))
		memmove(s, s + 1, strlen(s));
}

static void
csv_cell(struct buf *b, const char *s, int last)
{
	char *g = csv_needs_guard(s) ? xasprintf("'%s", s) : xstrdup(s);
	size_t n = strlen(g), cap = 2 * n + 2;
	char *tmp = xmalloc(cap);

	buf_add(b, tmp, csv_write(tmp, cap, g, n));
	free(g);
	buf_adds(b, last ? "\n" : ",");
	free(tmp);
}

static char *
asked_when(const struct assessment *a, const struct q_question *qq)
{
	char *vals, *s;

	if (qq->dep < 0)
		return xstrdup("");
	vals = answer_to_text(NULL, qq->dep_values);
	s = xasprintf("%s is one of %s", a->q->questions[qq->dep].id, vals);
	free(vals);
	return s;
}

/* Markdown table cells: no pipes or line breaks may escape the cell. */
static void
md_cell(struct buf *b, const char *s)
{
	buf_adds(b, " ");
	md_escape(b, s, "<br>");
	buf_adds(b, " |");
}

int
assessment_export(const struct assessment *a, const char *format, struct buf *out, struct aerr *err)
{
	int csv = strcmp(format, "csv") == 0;

	if (!csv && strcmp(format, "md") != 0)
		return aerr_set(err, AV_USAGE, "--format: '%s' is not csv or md", format);
	if (csv) {
		for (int i = 0; sheet_columns[i] != NULL; i++)
			csv_cell(out, sheet_columns[i], sheet_columns[i + 1] == NULL);
	} else {
		buf_printf(out, "# %s: %s\n\nAssessment %lld, round %lld (%s), questionnaire %s version "
		    "%lld.\nAnswer each question with one of the allowed values.\n", a->q->title, a->vendor,
		    (long long)a->id, (long long)a->round, a->status, a->q->qid, (long long)a->q->version);
	}
	for (int s = 0; s < a->q->nsections; s++) {
		const struct q_section *sec = &a->q->sections[s];

		if (!csv)
			buf_printf(out, "\n## %s\n\n| Question | Allowed values | Answer | Note |\n"
			    "| --- | --- | --- | --- |\n", sec->title);
		for (int i = sec->first; i < sec->first + sec->count; i++) {
			const struct q_question *qq = &a->q->questions[i];
			char *allowed = question_allowed(qq), *when = asked_when(a, qq);
			char *value = answer_to_text(qq, a->answers[i].value);
			const char *note = a->answers[i].note ? a->answers[i].note : "";

			if (csv) {
				csv_cell(out, qq->id, 0);
				csv_cell(out, sec->id, 0);
				csv_cell(out, qq->text, 0);
				csv_cell(out, q_type_name(qq->type), 0);
				csv_cell(out, qq->required ? "yes" : "no", 0);
				csv_cell(out, allowed, 0);
				csv_cell(out, when, 0);
				csv_cell(out, value, 0);
				csv_cell(out, note, 1);
			} else {
				char *q = xasprintf("%s%s: %s%s%s", qq->id, qq->required ? " (required)" : "",
				    qq->text, *when ? "\nOnly when " : "", when);

				buf_adds(out, "|");
				md_cell(out, q);
				md_cell(out, allowed);
				md_cell(out, value);
				md_cell(out, note);
				buf_adds(out, "\n");
				free(q);
			}
			free(allowed);
			free(when);
			free(value);
		}
	}
	return 0;
}

/* ---- reading a sheet back ---- */

struct sheet_row {
	char **cells;
	int n, line;
};

struct sheet {
	struct sheet_row *rows;
	int nrows, cap;
	struct sheet_row cur;
	int curcap, line;
	int nul_line;   /* the first line with a NUL byte in a cell, 0 for none */
	char *control;  /* the first cell with another control character, as a problem */
};

static void
on_field(void *s, size_t len, void *data)
{
	struct sheet *sh = data;
	char *cell = xmalloc(len + 1);

	if (len > 0)
		memcpy(cell, s, len);
	cell[len] = '\0';
	/* A NUL would cut the cell short without a word: refused, not truncated. */
	if (memchr(cell, '\0', len) != NULL && sh->nul_line == 0)
		sh->nul_line = sh->line;
	if (sh->control == NULL && (sh->control = text_c0_problem(cell)) != NULL) {
		char *p = sh->control;
		int line = sh->line;

		for (size_t i = 0; i < len; i++)
			line -= cell[i] == '\n';
		sh->control = xasprintf("%d: column %d %s", line, sh->cur.n + 1, p);
		free(p);
	}
	if (sh->cur.n == 0) {
		/* The field ends on the current line; it began as many lines up as it holds. */
		sh->cur.line = sh->line;
		for (size_t i = 0; i < len; i++)
			sh->cur.line -= cell[i] == '\n';
	}
	if (sh->cur.n == sh->curcap) {
		sh->curcap = sh->curcap ? 2 * sh->curcap : 16;
		sh->cur.cells = xrealloc(sh->cur.cells, (size_t)sh->curcap * sizeof *sh->cur.cells);
	}
	sh->cur.cells[sh->cur.n++] = cell;
}

static void
on_row(int c, void *data)
{
	struct sheet *sh = data;

	(void)c;
	if (sh->nrows == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 64;
		sh->rows = xrealloc(sh->rows, (size_t)sh->cap * sizeof *sh->rows);
	}
	sh->rows[sh->nrows++] = sh->cur;
	memset(&sh->cur, 0, sizeof sh->cur);
	sh->curcap = 0;
}

static void
sheet_free(struct sheet *sh)
{
	for (int r = 0; r <= sh->nrows; r++) {
		struct sheet_row *row = r < sh->nrows ? &sh->rows[r] : &sh->cur;

		for (int i = 0; i < row->n; i++)
			free(row->cells[i]);
		free(row->cells);
	}
	free(sh->rows);
	free(sh->control);
}

/* Parses CSV text line by line, so every row knows the line it starts on. */
static int
sheet_parse(const char *path, const char *text, size_t len, struct sheet *sh, struct aerr *err)
{
	struct csv_parser p;
	size_t off = 0;

	memset(sh, 0, sizeof *sh);
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		die("csv_init failed");
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		off = 3;   /* spreadsheets like to start UTF-8 files with a byte order mark */
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) + 1 : len - off;

		sh->line++;
		if (csv_parse(&p, text + off, n, on_field, on_row, sh) != n) {
			aerr_set(err, AV_USAGE, "%s:%d: not valid CSV: %s", path, sh->line,
			    csv_strerror(csv_error(&p)));
			csv_free(&p);
			return AV_USAGE;
		}
		off += n;
	}
	if (csv_fini(&p, on_field, on_row, sh) != 0) {
		aerr_set(err, AV_USAGE, "%s:%d: not valid CSV: %s", path, sh->line,
		    csv_strerror(csv_error(&p)));
		csv_free(&p);
		return AV_USAGE;
	}
	csv_free(&p);
	return 0;
}

static const char *
cell(const struct sheet_row *row, int col)
{
	return col >= 0 && col < row->n ? row->cells[col] : "";
}

static int
blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/* A row's answer, checked and waiting for the write; it owns its strings,
 * so the rows it came from may go first. */
struct planned {
	int qi;
	char *where;
	cJSON *value;      /* NULL: the answer was blanked, and clears the current one */
	char *note;
};

struct sheet_plan {
	struct planned *rows;
	int n, has_note;
};

void
sheet_plan_free(struct sheet_plan *plan)
{
	if (plan == NULL)
		return;
	for (int i = 0; i < plan->n; i++) {
		cJSON_Delete(plan->rows[i].value);
		free(plan->rows[i].where);
		free(plan->rows[i].note);
	}
	free(plan->rows);
	free(plan);
}

/* Whether every cell of a row is blank: such a row is skipped. */
static int
row_blank(const struct sheet_answer *r)
{
	return blank(r->qid) && blank(r->answer) && (r->note == NULL || blank(r->note)) &&
	    r->problem == NULL && !r->other;
}

int
sheet_plan_rows(const struct questionnaire *q, const char *source, const struct sheet_answer *rows,
    int nrows, int has_note, struct buf *problems, struct sheet_plan **out, struct aerr *err)
{
	struct sheet_plan *plan = xcalloc(1, sizeof *plan);
	const struct sheet_answer **seen = xcalloc((size_t)q->nquestions, sizeof *seen);
	int nproblems = 0;

	*out = NULL;
	plan->rows = xcalloc((size_t)nrows + 1, sizeof *plan->rows);
	plan->has_note = has_note;
	for (int r = 0; r < nrows; r++) {
		const struct sheet_answer *row = &rows[r];
		struct planned *p = &plan->rows[plan->n];
		struct aerr e = { 0 };
		int qi;

		if (row_blank(row))
			continue;
		if (row->problem != NULL) {
			buf_printf(problems, "%s\n", row->problem);
			nproblems++;
			continue;
		}
		if ((qi = questionnaire_find(q, row->qid)) < 0) {
			/* An id is at most 64 characters: a longer cell is quoted in part, so that
			 * many rows of one long string cannot make the message as long as them all. */
			size_t n = strlen(row->qid) > 80 ? 80 : strlen(row->qid);
			char *shown = text_escape(row->qid, n, 0);

			buf_printf(problems, "%s: unknown question '%s%s'\n", row->where, shown,
			    n < strlen(row->qid) ? "..." : "");
			free(shown);
			nproblems++;
			continue;
		}
		if (seen[qi] != NULL) {
			buf_printf(problems, "%s: question %s appears twice (first %s)\n", row->where,
			    row->qid, seen[qi]->seen);
			nproblems++;
			continue;
		}
		seen[qi] = row;
		/* A blanked answer clears the current one (one never given stays unanswered). */
		if (!blank(row->answer) &&
		    answer_from_text(&q->questions[qi], row->answer, &p->value, &e) != 0) {
			buf_printf(problems, "%s: question %s: %s\n", row->answer_where, row->qid, e.msg);
			nproblems++;
			continue;
		}
		p->qi = qi;
		p->where = xstrdup(row->answer_where);
		p->note = has_note && row->note != NULL && !blank(row->note) ? xstrdup(row->note) : NULL;
		plan->n++;
	}
	free(seen);
	if (nproblems > 0) {
		sheet_plan_free(plan);
		return aerr_set(err, AV_USAGE, "%s: %d cell%s refused; nothing was imported", source,
		    nproblems, nproblems == 1 ? "" : "s");
	}
	*out = plan;
	return 0;
}

int
sheet_plan_apply(struct db *db, const char *actor, struct assessment *a,
    const struct sheet_plan *plan, const char *source, int *changed, struct aerr *err)
{
	int rc = 0;

	/* One audit entry for the sheet: each entry seals the assessment with all
	 * its answers, so one per answer would cost the square of a sheet's size.
	 * Every change still has its answer_history row. */
	a->batch = cJSON_CreateArray();
	for (int i = 0; i < plan->n && rc == 0; i++) {
		const struct planned *p = &plan->rows[i];
		int n = 0;

		if (p->value != NULL || a->answers[p->qi].value != NULL)
			rc = assessment_set_answer(db, actor, a, p->qi, p->value,
			    p->value != NULL && plan->has_note, p->note, NULL, 0, NULL, &n, err);
		*changed += n;
		n = 0;
		/* Cleared, with a note the sheet still gives: the note stays, alone. */
		if (rc == 0 && p->value == NULL && plan->has_note && p->note != NULL)
			rc = assessment_set_answer(db, actor, a, p->qi, NULL, 1, p->note, NULL, 0, NULL,
			    &n, err);
		if (rc != 0)
			aerr_prefix(err, "%s", plan->rows[i].where);
		*changed += n;
	}
	if (rc == 0 && cJSON_GetArraySize(a->batch) > 0) {
		cJSON *d = cJSON_CreateObject();
		const char *base = strrchr(source, '/');

		/* The sheet's file name: where it was on the importer's machine says nothing. */
		cJSON_AddStringToObject(d, "file", base != NULL ? base + 1 : source);
		cJSON_AddItemToObject(d, "changes", a->batch);
		a->batch = NULL;
		rc = audit_append(db, actor, "answer.import", "assessment", a->id, d, err);
		cJSON_Delete(d);
	}
	cJSON_Delete(a->batch);
	a->batch = NULL;
	assessment_update_asked(a);
	return rc;
}

int
sheet_plan_write(struct db *db, const char *actor, struct assessment *a,
    const struct sheet_plan *plan, const char *source, int *changed, struct aerr *err)
{
	int rc;

	if (db_begin(db, err) != 0)
		return err->code;
	if ((rc = sheet_plan_apply(db, actor, a, plan, source, changed, err)) == 0)
		return db_commit(db, err);
	db_rollback(db);
	return rc;
}

/* The CSV header's columns, or an error naming what is wrong with it. */
static int
csv_columns(const char *path, const struct sheet_row *hdr, int *col_q, int *col_a, int *col_n,
    struct aerr *err)
{
	int rc;

	*col_q = *col_a = *col_n = -1;
	for (int i = 0; i < hdr->n; i++) {
		const char *h = hdr->cells[i];

		for (int j = 0; j < i && *h != '\0'; j++)
			if (strcmp(h, hdr->cells[j]) == 0) {
				char *shown = text_escape(h, strlen(h), 0);

				rc = aerr_set(err, AV_USAGE, "%s:%d: the header names column '%s' twice "
				    "(columns %d and %d)", path, hdr->line, shown, j + 1, i + 1);
				free(shown);
				return rc;
			}
		if (strcmp(h, "question_id") == 0)
			*col_q = i;
		else if (strcmp(h, "answer") == 0)
			*col_a = i;
		else if (strcmp(h, "note") == 0)
			*col_n = i;
	}
	if (*col_q < 0 || *col_a < 0)
		return aerr_set(err, AV_USAGE, "%s:%d: the header needs the columns question_id and answer "
		    "(see 'aivet assess export')", path, hdr->line);
	return 0;
}

int
assessment_import_csv(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err)
{
	struct buf text;
	struct sheet sh;
	struct sheet_answer *rows;
	struct sheet_plan *plan = NULL;
	int col_q, col_a, col_n, rc = 0;

	*changed = 0;
	if (assessment_editable(a, err) != 0)
		return err->code;
	if (read_file(path, MAX_SHEET, &text, err) != 0)
		return err->code;
	rc = sheet_parse(path, text.data, text.len, &sh, err);
	buf_free(&text);
	if (rc == 0 && sh.nul_line != 0)
		rc = aerr_set(err, AV_USAGE, "%s:%d: a cell holds a NUL byte", path, sh.nul_line);
	if (rc == 0 && sh.control != NULL)
		rc = aerr_set(err, AV_USAGE, "%s:%s", path, sh.control);
	if (rc == 0 && sh.nrows == 0)
		rc = aerr_set(err, AV_USAGE, "%s: the sheet is empty", path);
	if (rc == 0)
		rc = csv_columns(path, &sh.rows[0], &col_q, &col_a, &col_n, err);
	if (rc != 0) {
		sheet_free(&sh);
		return rc;
	}
	rows = xcalloc((size_t)sh.nrows, sizeof *rows);
	for (int r = 1; r < sh.nrows; r++) {
		const struct sheet_row *row = &sh.rows[r];
		struct sheet_answer *sa = &rows[r - 1];

		for (int i = 0; i < row->n; i++) {
			csv_unguard(row->cells[i]);
			sa->other |= i != col_q && i != col_a && i != col_n && !blank(row->cells[i]);
		}
		sa->qid = cell(row, col_q);
		sa->answer = cell(row, col_a);
		sa->note = col_n >= 0 ? cell(row, col_n) : NULL;
		sa->where = sa->answer_where = xasprintf("%s:%d", path, row->line);
		sa->seen = xasprintf("on line %d", row->line);
	}
	rc = sheet_plan_rows(a->q, path, rows, sh.nrows - 1, col_n >= 0, problems, &plan, err);
	if (rc == 0)
		rc = sheet_plan_write(db, actor, a, plan, path, changed, err);
	sheet_plan_free(plan);
	for (int r = 0; r < sh.nrows - 1; r++) {
		free(rows[r].where);
		free(rows[r].seen);
	}
	free(rows);
	sheet_free(&sh);
	return rc;
}
