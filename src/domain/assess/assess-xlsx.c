/*
 * assess-xlsx.c: the vendor sheet as an Excel workbook, for vendors whose
 * security teams answer questionnaires in a spreadsheet program. Export
 * writes it with libxlsxwriter: an Instructions sheet, an Answers sheet
 * (one row per question; dropdowns for choices, typed number and date
 * cells, the question columns locked) and a hidden "aivet" sheet naming the
 * assessment and the questionnaire version and text it was made from. Import
 * reads it with xlsx-read.c, turns each row's cells into text as the CSV
 * import has them and hands the rows to the same checks (sheet_plan_rows),
 * so both formats accept and refuse the same answers, all or nothing.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xlsxwriter.h>

#include "assess.h"
#include "xlsx-read.h"

#define META_SHEET "aivet"
#define ANSWERS_SHEET "Answers"
#define META_FORMAT 1
#define LIST_ROW0 8   /* dropdown lists too long to inline start on this row of the meta sheet */

enum { COL_SECTION, COL_ID, COL_QUESTION, COL_GUIDANCE, COL_ANSWER, COL_NOTE, NCOLS };

static const char *const col_names[NCOLS] = { "Section", "Question ID", "Question", "Guidance",
	"Answer", "Note" };

/* ---- writing ---- */

struct xw {
	lxw_workbook *wb;
	lxw_worksheet *ins, *ans, *meta;
	lxw_format *head, *wrap, *open, *open_date, *open_num, *title, *label;
	int nlists;
	lxw_error lerr;   /* the first error libxlsxwriter returned */
};

static void
xw_check(struct xw *w, lxw_error e)
{
	if (e != LXW_NO_ERROR && w->lerr == LXW_NO_ERROR)
		w->lerr = e;
}

/* What a dropdown shows for a choice: its label, or its value without one. */
static const char *
choice_shown(const struct q_choice *c)
{
	return c->label != NULL && *c->label != '\0' ? c->label : c->value;
}

static char *
guidance(const struct questionnaire *q, const struct q_question *qq)
{
	struct buf b;
	char *allowed;

	buf_init(&b);
	if (qq->help != NULL && *qq->help != '\0')
		buf_printf(&b, "%s\n", qq->help);
	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		buf_adds(&b, "Pick one from the list.");
		break;
	case QT_MULTI:
		buf_adds(&b, "Any of: ");
		for (int i = 0; i < qq->nchoices; i++) {
			buf_printf(&b, "%s%s", i ? ", " : "", qq->choices[i].value);
			if (qq->choices[i].label != NULL && strcmp(qq->choices[i].label, qq->choices[i].value))
				buf_printf(&b, " (%s)", qq->choices[i].label);
		}
		buf_adds(&b, ". Separate several with a comma: a, b.");
		break;
	default:
		allowed = question_allowed(qq);
		buf_printf(&b, "Answer: %s.", allowed);
		free(allowed);
		break;
	}
	buf_adds(&b, qq->required ? " Required." : " Optional.");
	if (qq->dep >= 0) {
		char *vals = answer_to_text(NULL, qq->dep_values);

		buf_printf(&b, " Only when %s is one of %s.", q->questions[qq->dep].id, vals);
		free(vals);
	}
	return buf_steal(&b);
}

/* A dropdown of the choices: inline when short, else a row of the meta sheet. */
static void
choice_validation(struct xw *w, const struct q_question *qq, int row)
{
	lxw_data_validation dv = { 0 };
	const char **list = xcalloc((size_t)qq->nchoices + 1, sizeof *list);
	size_t total = 0;
	int inline_ok = 1;
	char *formula = NULL;

	for (int i = 0; i < qq->nchoices; i++) {
		list[i] = choice_shown(&qq->choices[i]);
		total += strlen(list[i]) + 1;
		inline_ok &= strpbrk(list[i], ",\"") == NULL;
	}
	if (inline_ok && total < 250) {
		dv.validate = LXW_VALIDATION_TYPE_LIST;
		dv.value_list = (char **)list;
	} else {
		int lrow = LIST_ROW0 + w->nlists++;
		char last[16];

		for (int i = 0; i < qq->nchoices; i++)
			xw_check(w, worksheet_write_string(w->meta, (lxw_row_t)lrow, (lxw_col_t)i, list[i], NULL));
		xlsx_ref(lrow, qq->nchoices - 1, last);
		formula = xasprintf("=" META_SHEET "!$A$%d:$%.*s$%d", lrow + 1,
		    (int)strcspn(last, "0123456789"), last, lrow + 1);
		dv.validate = LXW_VALIDATION_TYPE_LIST_FORMULA;
		dv.value_formula = formula;
	}
	dv.error_type = LXW_VALIDATION_ERROR_TYPE_STOP;
	dv.error_title = "Not one of the choices";
	dv.error_message = "Pick the answer from the list.";
	xw_check(w, worksheet_data_validation_cell(w->ans, (lxw_row_t)row, COL_ANSWER, &dv));
	free(formula);
	free(list);
}

static void
typed_validation(struct xw *w, const struct q_question *qq, int row)
{
	lxw_data_validation dv = { 0 };

	dv.criteria = LXW_VALIDATION_CRITERIA_BETWEEN;
	dv.error_type = LXW_VALIDATION_ERROR_TYPE_STOP;
	if (qq->type == QT_NUMBER) {
		dv.validate = LXW_VALIDATION_TYPE_DECIMAL;
		dv.minimum_number = 0;   /* as answer_check: a quantity, never below 0 */
		dv.maximum_number = 1e15;
		dv.error_title = "Not a number";
		dv.error_message = "Type a number, 0 or more.";
	} else {
		dv.validate = LXW_VALIDATION_TYPE_DATE;
		dv.minimum_datetime = (lxw_datetime){ 1900, 1, 1, 0, 0, 0 };
		dv.maximum_datetime = (lxw_datetime){ 9999, 12, 31, 0, 0, 0 };
		dv.error_title = "Not a date";
		dv.error_message = "Type a date (YYYY-MM-DD).";
	}
	xw_check(w, worksheet_data_validation_cell(w->ans, (lxw_row_t)row, COL_ANSWER, &dv));
}

/* The current answer in its cell: numbers and dates typed, the rest as text. */
static void
answer_cell(struct xw *w, const struct q_question *qq, const cJSON *value, int row)
{
	char *text = answer_to_text(qq, value);
	int y, m, d;

	if (value != NULL && qq->type == QT_NUMBER && cJSON_IsNumber(value)) {
		xw_check(w, worksheet_write_number(w->ans, (lxw_row_t)row, COL_ANSWER, value->valuedouble,
		    w->open_num));
	} else if (value != NULL && qq->type == QT_DATE && sscanf(text, "%4d-%2d-%2d", &y, &m, &d) == 3) {
		lxw_datetime dt = { y, (uint8_t)m, (uint8_t)d, 0, 0, 0 };

		xw_check(w, worksheet_write_datetime(w->ans, (lxw_row_t)row, COL_ANSWER, &dt, w->open_date));
	} else if (value != NULL && qq->type != QT_MULTI && qq->type != QT_TEXT &&
	    qq->type != QT_DURATION) {
		/* A choice shows as the dropdown shows it. */
		const char *shown = text;

		for (int i = 0; i < qq->nchoices; i++)
			if (strcmp(qq->choices[i].value, text) == 0)
				shown = choice_shown(&qq->choices[i]);
		xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_ANSWER, shown, w->open));
	} else if (value != NULL) {
		xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_ANSWER, text, w->open));
	}
	free(text);
}

static void
write_answers(struct xw *w, const struct questionnaire *q, const struct assessment *a)
{
	static const double widths[NCOLS] = { 16, 22, 50, 40, 24, 40 };
	lxw_protection prot = { 0 };
	int row = 1;

	for (int c = 0; c < NCOLS; c++) {
		xw_check(w, worksheet_set_column(w->ans, (lxw_col_t)c, (lxw_col_t)c, widths[c],
		    c == COL_ANSWER || c == COL_NOTE ? w->open : w->wrap));
		xw_check(w, worksheet_write_string(w->ans, 0, (lxw_col_t)c, col_names[c], w->head));
	}
	for (int s = 0; s < q->nsections; s++) {
		const struct q_section *sec = &q->sections[s];

		for (int i = sec->first; i < sec->first + sec->count; i++, row++) {
			const struct q_question *qq = &q->questions[i];
			char *g = guidance(q, qq);

			xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_SECTION, sec->title, w->wrap));
			xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_ID, qq->id, w->wrap));
			xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_QUESTION, qq->text, w->wrap));
			xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_GUIDANCE, g, w->wrap));
			free(g);
			if (qq->type == QT_YES_NO || qq->type == QT_SINGLE)
				choice_validation(w, qq, row);
			else if (qq->type == QT_NUMBER || qq->type == QT_DATE)
				typed_validation(w, qq, row);
			xw_check(w, worksheet_write_blank(w->ans, (lxw_row_t)row, COL_ANSWER,
			    qq->type == QT_DATE ? w->open_date : qq->type == QT_NUMBER ? w->open_num : w->open));
			xw_check(w, worksheet_write_blank(w->ans, (lxw_row_t)row, COL_NOTE, w->open));
			if (a != NULL) {
				answer_cell(w, qq, a->answers[i].value, row);
				if (a->answers[i].note != NULL)
					xw_check(w, worksheet_write_string(w->ans, (lxw_row_t)row, COL_NOTE,
					    a->answers[i].note, w->open));
			}
		}
	}
	worksheet_freeze_panes(w->ans, 1, 0);
	xw_check(w, worksheet_autofilter(w->ans, 0, 0, (lxw_row_t)(row - 1), NCOLS - 1));
	/* Paper: landscape, one page wide, the header on every page. */
	worksheet_set_landscape(w->ans);
	worksheet_set_paper(w->ans, 9);   /* A4 */
	worksheet_fit_to_pages(w->ans, 1, 0);
	xw_check(w, worksheet_repeat_rows(w->ans, 0, 0));
	worksheet_gridlines(w->ans, LXW_SHOW_ALL_GRIDLINES);
	xw_check(w, worksheet_set_footer(w->ans, "&L&A&RPage &P of &N"));
	/* The question columns are locked; columns may be hidden, resized and filtered. */
	prot.format_columns = 1;
	prot.format_rows = 1;
	prot.autofilter = 1;
	prot.sort = 1;
	worksheet_protect(w->ans, NULL, &prot);
	worksheet_activate(w->ans);
}

static void
info_row(struct xw *w, int *row, const char *label, const char *value)
{
	xw_check(w, worksheet_write_string(w->ins, (lxw_row_t)*row, 0, label, w->label));
	xw_check(w, worksheet_write_string(w->ins, (lxw_row_t)*row, 1, value, w->wrap));
	(*row)++;
}

static void
write_instructions(struct xw *w, const struct questionnaire *q, const struct assessment *a,
    const struct sheet_xlsx_info *info)
{
	char ver[32], round[32], id[32], at[32];
	int row = 2;

	snprintf(ver, sizeof ver, "%lld", (long long)q->version);
	snprintf(round, sizeof round, "%lld", a ? (long long)a->round : 1LL);
	snprintf(id, sizeof id, "%lld", a ? (long long)a->id : 0LL);
	now_iso(at);
	xw_check(w, worksheet_set_column(w->ins, 0, 0, 22, NULL));
	xw_check(w, worksheet_set_column(w->ins, 1, 1, 90, NULL));
	xw_check(w, worksheet_write_string(w->ins, 0, 0, q->title, w->title));
	info_row(w, &row, "Vendor", a ? a->vendor : "(not yet in aivet)");
	info_row(w, &row, "Questionnaire", q->qid);
	info_row(w, &row, "Version", ver);
	info_row(w, &row, "Title", q->title);
	info_row(w, &row, "Assessment", a ? id : "none yet: a blank template");
	info_row(w, &row, "Round", round);
	info_row(w, &row, "Sent by", info->sender ? info->sender : "");
	info_row(w, &row, "Sent at", at);
	info_row(w, &row, "Answer due", info->due && *info->due ? info->due : "not set");
	row++;
	info_row(w, &row, "How to fill it",
	    "Answer on the Answers sheet: one row per question. Fill only the Answer and Note "
	    "columns; the question columns are locked.\n"
	    "Yes/no and single-choice answers: pick from the cell's dropdown.\n"
	    "Multiple choices: type the values named in Guidance, separated by commas (a, b).\n"
	    "Numbers and dates: type them as numbers and dates (dates as YYYY-MM-DD).\n"
	    "Durations: a number and a unit, such as 24h or 5d (units m, h, d, w).\n"
	    "Leave an answer empty when you cannot answer yet. Type values, not formulas: "
	    "cells holding a formula are refused.\n"
	    "You may hide, widen or reorder columns; keep the header row and the hidden sheet. "
	    "Save as .xlsx and send the file back.");
	worksheet_set_portrait(w->ins);
	worksheet_set_paper(w->ins, 9);
	worksheet_fit_to_pages(w->ins, 1, 1);
}

static void
write_meta(struct xw *w, const struct questionnaire *q, const struct assessment *a)
{
	static const char *const labels[] = { "assessment", "questionnaire", "version", "sha256",
		"format" };

	for (int i = 0; i < 5; i++)
		xw_check(w, worksheet_write_string(w->meta, (lxw_row_t)i, 0, labels[i], NULL));
	xw_check(w, worksheet_write_number(w->meta, 0, 1, a ? (double)a->id : 0, NULL));
	xw_check(w, worksheet_write_string(w->meta, 1, 1, q->qid, NULL));
	xw_check(w, worksheet_write_number(w->meta, 2, 1, (double)q->version, NULL));
	xw_check(w, worksheet_write_string(w->meta, 3, 1, q->sha256, NULL));
	xw_check(w, worksheet_write_number(w->meta, 4, 1, META_FORMAT, NULL));
	worksheet_hide(w->meta);
	worksheet_protect(w->meta, NULL, NULL);
}

static void
make_formats(struct xw *w)
{
	w->head = workbook_add_format(w->wb);
	format_set_bold(w->head);
	format_set_bg_color(w->head, 0xD9E1F2);
	format_set_border(w->head, LXW_BORDER_THIN);
	format_set_text_wrap(w->head);
	w->wrap = workbook_add_format(w->wb);
	format_set_text_wrap(w->wrap);
	format_set_align(w->wrap, LXW_ALIGN_VERTICAL_TOP);
	w->open = workbook_add_format(w->wb);
	format_set_text_wrap(w->open);
	format_set_align(w->open, LXW_ALIGN_VERTICAL_TOP);
	format_set_unlocked(w->open);
	format_set_bg_color(w->open, 0xFFF9E5);
	w->open_date = workbook_add_format(w->wb);
	format_set_num_format(w->open_date, "yyyy-mm-dd");
	format_set_align(w->open_date, LXW_ALIGN_VERTICAL_TOP);
	format_set_unlocked(w->open_date);
	format_set_bg_color(w->open_date, 0xFFF9E5);
	w->open_num = workbook_add_format(w->wb);
	format_set_num_format(w->open_num, "General");
	format_set_align(w->open_num, LXW_ALIGN_VERTICAL_TOP);
	format_set_unlocked(w->open_num);
	format_set_bg_color(w->open_num, 0xFFF9E5);
	w->title = workbook_add_format(w->wb);
	format_set_bold(w->title);
	format_set_font_size(w->title, 14);
	w->label = workbook_add_format(w->wb);
	format_set_bold(w->label);
	format_set_align(w->label, LXW_ALIGN_VERTICAL_TOP);
}

int
sheet_export_xlsx(const struct questionnaire *q, const struct assessment *a,
    const struct sheet_xlsx_info *info, const char *path, struct aerr *err)
{
	struct xw w = { 0 };
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	lxw_error e;

	/* Written beside the target and renamed, so a reader never sees half a workbook. */
	if ((w.wb = workbook_new(tmp)) == NULL) {
		free(tmp);
		return aerr_set(err, AV_RUNTIME, "%s: cannot start the workbook", path);
	}
	make_formats(&w);
	w.ins = workbook_add_worksheet(w.wb, "Instructions");
	w.ans = workbook_add_worksheet(w.wb, ANSWERS_SHEET);
	w.meta = workbook_add_worksheet(w.wb, META_SHEET);
	write_instructions(&w, q, a, info);
	write_meta(&w, q, a);
	write_answers(&w, q, a);
	e = workbook_close(w.wb);
	if (w.lerr != LXW_NO_ERROR || e != LXW_NO_ERROR) {
		unlink(tmp);
		free(tmp);
		return aerr_set(err, AV_RUNTIME, "%s: cannot write the workbook: %s", path,
		    lxw_strerror(w.lerr != LXW_NO_ERROR ? w.lerr : e));
	}
	if (rename(tmp, path) != 0) {
		int rc = aerr_set(err, AV_RUNTIME, "%s: %s", path, strerror(errno));

		unlink(tmp);
		free(tmp);
		return rc;
	}
	free(tmp);
	return 0;
}

/* ---- reading ---- */

/* The cell of a sheet at (row, col), or NULL; cells are in row order. */
static const struct xlsx_cell *
cell_at(const struct xlsx_sheet *sh, int row, int col)
{
	for (size_t i = 0; i < sh->ncells; i++)
		if (sh->cells[i].row == row && sh->cells[i].col == col)
			return &sh->cells[i];
	return NULL;
}

/* The meta sheet's value for a label in column A, with its reference. */
static const struct xlsx_cell *
meta_value(const struct xlsx_sheet *sh, const char *label, char ref[16])
{
	for (size_t i = 0; i < sh->ncells; i++)
		if (sh->cells[i].col == 0 && strcmp(sh->cells[i].text, label) == 0) {
			xlsx_ref(sh->cells[i].row, 1, ref);
			return cell_at(sh, sh->cells[i].row, 1);
		}
	xlsx_ref(0, 1, ref);
	return NULL;
}

static const char *
meta_text(const struct xlsx_sheet *sh, const char *label, char ref[16])
{
	const struct xlsx_cell *c = meta_value(sh, label, ref);

	return c != NULL && c->formula == NULL ? c->text : "";
}

/*
 * Checks the hidden sheet: the workbook was made for this questionnaire
 * version and text, and for this assessment (or as a blank template,
 * assessment 0). a NULL: any assessment will do (a new one is started).
 */
static int
check_meta(const char *path, const struct xlsx_book *b, const struct questionnaire *q,
    const struct assessment *a, struct aerr *err)
{
	const struct xlsx_sheet *m = xlsx_sheet(b, META_SHEET);
	char ref[16];
	const char *v;

	if (m == NULL)
		return aerr_set(err, AV_USAGE, "%s: the workbook has no '" META_SHEET "' sheet: it was not "
		    "made by 'aivet assess export --format xlsx' or 'aivet questionnaire export'", path);
	v = meta_text(m, "questionnaire", ref);
	if (strcmp(v, q->qid) != 0)
		return aerr_set(err, AV_USAGE, "%s: " META_SHEET "!%s: the workbook is for questionnaire "
		    "'%s', not %s", path, ref, v, q->qid);
	v = meta_text(m, "version", ref);
	if (strtoll(v, NULL, 10) != q->version || *v == '\0')
		return aerr_set(err, AV_USAGE, "%s: " META_SHEET "!%s: the workbook is for %s version '%s', "
		    "not version %lld", path, ref, q->qid, v, (long long)q->version);
	v = meta_text(m, "sha256", ref);
	if (strcmp(v, q->sha256) != 0)
		return aerr_set(err, AV_USAGE, "%s: " META_SHEET "!%s: the workbook was made from another "
		    "text of %s version %lld (its SHA-256 differs)", path, ref, q->qid,
		    (long long)q->version);
	v = meta_text(m, "assessment", ref);
	if (a != NULL && strtoll(v, NULL, 10) != 0 && strtoll(v, NULL, 10) != a->id)
		return aerr_set(err, AV_USAGE, "%s: " META_SHEET "!%s: the workbook is for assessment %s, "
		    "not %lld", path, ref, v, (long long)a->id);
	return 0;
}

static int
header_is(const char *h, const char *name, const char *csv_name)
{
	size_t n = strlen(h);

	while (n > 0 && (h[n - 1] == ' ' || h[n - 1] == '\n'))
		n--;
	return (strlen(name) == n && strncasecmp(h, name, n) == 0) ||
	    (strlen(csv_name) == n && strncmp(h, csv_name, n) == 0);
}

/* Finds the header row (the first row with cells) and the columns in it: Question ID,
 * Answer, Note and Question (the locked text, compared with the questionnaire's). */
static int
find_columns(const char *path, const struct xlsx_sheet *sh, int *hrow, int cols[4],
    struct aerr *err)
{
	static const char *const names[4][2] = { { "Question ID", "question_id" },
		{ "Answer", "answer" }, { "Note", "note" }, { "Question", "question" } };
	char ref[16], ref2[16];

	cols[0] = cols[1] = cols[2] = cols[3] = -1;
	if (sh->ncells == 0)
		return aerr_set(err, AV_USAGE, "%s: sheet %s is empty", path, sh->name);
	*hrow = sh->cells[0].row;
	for (size_t i = 0; i < sh->ncells && sh->cells[i].row == *hrow; i++)
		for (int k = 0; k < 4; k++) {
			if (sh->cells[i].type != XLSX_STRING ||
			    !header_is(sh->cells[i].text, names[k][0], names[k][1]))
				continue;
			if (cols[k] >= 0) {
				xlsx_ref(*hrow, cols[k], ref);
				xlsx_ref(*hrow, sh->cells[i].col, ref2);
				return aerr_set(err, AV_USAGE, "%s: %s!%s: the header names column '%s' twice "
				    "(also %s)", path, sh->name, ref2, names[k][0], ref);
			}
			cols[k] = sh->cells[i].col;
		}
	if (cols[0] < 0 || cols[1] < 0)
		return aerr_set(err, AV_USAGE, "%s: %s!%d: the header row needs the columns Question ID and "
		    "Answer (see 'aivet assess export --format xlsx')", path, sh->name, *hrow + 1);
	return 0;
}

/* A number as the shortest text that reads back the same. */
static char *
number_text(double d)
{
	char *s = xasprintf("%.15g", d);

	if (strtod(s, NULL) != d) {
		free(s);
		s = xasprintf("%.17g", d);
	}
	return s;
}

/*
 * One cell as the text the checks read, or a problem naming it. A choice's
 * label (what the dropdown shows) becomes its value; a date serial a date
 * in the book's date system; a boolean yes or no. A string is the book's
 * own text, not a copy (one shared string may fill every row); text made
 * here is put in *own for the caller to free.
 */
static const char *
cell_text_of(const struct xlsx_book *b, const char *sheet, const struct xlsx_cell *c,
    const struct q_question *qq, char **problem, char **own)
{
	char ref[16], day[11];

	*own = NULL;
	if (c == NULL)
		return "";
	xlsx_ref(c->row, c->col, ref);
	if (c->formula != NULL) {
		*problem = xasprintf("%s!%s: the cell holds a formula (=%s); aivet reads no formulas: "
		    "type the value", sheet, ref, c->formula);
		return "";
	}
	switch (c->type) {
	case XLSX_ERROR:
		*problem = xasprintf("%s!%s: the cell holds the error %s", sheet, ref, c->text);
		return "";
	case XLSX_BOOL:
		if (qq != NULL && qq->type == QT_YES_NO)
			return c->num != 0 ? "yes" : "no";
		return c->num != 0 ? "true" : "false";
	case XLSX_NUMBER:
		if (qq != NULL && qq->type == QT_DATE) {
			if (xlsx_date(b, c->num, day) != 0) {
				*problem = xasprintf("%s!%s: %s is not a date", sheet, ref, c->text);
				return "";
			}
			return *own = xstrdup(day);
		}
		return *own = number_text(c->num);
	default:
		break;
	}
	if ((*problem = text_c0_problem(c->text)) != NULL) {
		char *p = *problem;

		*problem = xasprintf("%s!%s: %s", sheet, ref, p);
		free(p);
		return "";
	}
	if (qq != NULL && (qq->type == QT_YES_NO || qq->type == QT_SINGLE))
		for (int i = 0; i < qq->nchoices; i++)
			if (strcasecmp(c->text, choice_shown(&qq->choices[i])) == 0)
				return qq->choices[i].value;
	if (qq != NULL && qq->type == QT_DATE && strlen(c->text) > 10 && c->text[10] == 'T')
		return *own = xasprintf("%.10s", c->text);   /* an ISO date-time cell (t="d") */
	return c->text;
}

/* cell_text_of, keeping a row's first problem and what the text needs freed. */
static const char *
cell_text(const struct xlsx_book *b, const char *sheet, const struct xlsx_cell *c,
    const struct q_question *qq, char **problem, char **own)
{
	char *p = NULL;
	const char *t = cell_text_of(b, sheet, c, qq, &p, own);

	if (p != NULL && *problem == NULL)
		*problem = p;
	else
		free(p);
	return t;
}

/*
 * The Question column is locked in the workbook aivet writes: its text is the
 * questionnaire's. A vendor who unprotects the sheet and rewords a question
 * answers another question than the one recorded, so the row is refused.
 */
static char *
question_edited(const char *sheet, const struct xlsx_cell *c, const struct q_question *qq)
{
	char ref[16], *shown, *p;
	size_t n;

	if (c == NULL || c->type != XLSX_STRING || strcmp(c->text, qq->text) == 0)
		return NULL;
	xlsx_ref(c->row, c->col, ref);
	n = strlen(c->text) > 120 ? 120 : strlen(c->text);
	shown = text_escape(c->text, n, 0);
	p = xasprintf("%s!%s: the text of question %s was edited (the column is locked): it reads "
	    "'%s%s', the questionnaire asks '%s'", sheet, ref, qq->id, shown,
	    n < strlen(c->text) ? "..." : "", qq->text);
	free(shown);
	return p;
}

struct xrows {
	struct sheet_answer *rows;
	char **texts;   /* what rows point at that is not the book's (NULL when it is) */
	int n, ntexts;
};

static void
xrows_free(struct xrows *x)
{
	for (int i = 0; i < x->n; i++) {
		free(x->rows[i].where);
		free(x->rows[i].answer_where);
		free(x->rows[i].seen);
		free(x->rows[i].problem);
	}
	for (int i = 0; i < x->ntexts; i++)
		free(x->texts[i]);
	free(x->rows);
	free(x->texts);
}

/* The Answers sheet's rows below the header, each as the checks take it. */
static void
sheet_rows(const struct xlsx_book *b, const struct xlsx_sheet *sh, const struct questionnaire *q,
    int hrow, const int cols[4], struct xrows *out)
{
	size_t i = 0;
	int cap = 0;

	memset(out, 0, sizeof *out);
	while (i < sh->ncells && sh->cells[i].row <= hrow)
		i++;
	while (i < sh->ncells) {
		int row = sh->cells[i].row, qi;
		const struct xlsx_cell *cq = NULL, *ca = NULL, *cn = NULL, *ct = NULL;
		struct sheet_answer *sa;
		char ref[16], *problem = NULL;

		for (; i < sh->ncells && sh->cells[i].row == row; i++) {
			cq = sh->cells[i].col == cols[0] ? &sh->cells[i] : cq;
			ca = sh->cells[i].col == cols[1] ? &sh->cells[i] : ca;
			cn = sh->cells[i].col == cols[2] ? &sh->cells[i] : cn;
			ct = sh->cells[i].col == cols[3] ? &sh->cells[i] : ct;
		}
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			out->rows = xrealloc(out->rows, (size_t)cap * sizeof *out->rows);
			out->texts = xrealloc(out->texts, (size_t)cap * 3 * sizeof *out->texts);
		}
		sa = &out->rows[out->n++];
		memset(sa, 0, sizeof *sa);
		sa->qid = cell_text(b, sh->name, cq, NULL, &problem, &out->texts[out->ntexts++]);
		qi = questionnaire_find(q, sa->qid);
		sa->answer = cell_text(b, sh->name, ca, qi >= 0 ? &q->questions[qi] : NULL, &problem,
		    &out->texts[out->ntexts++]);
		sa->note = cell_text(b, sh->name, cn, NULL, &problem, &out->texts[out->ntexts++]);
		if (problem == NULL && qi >= 0)
			problem = question_edited(sh->name, ct, &q->questions[qi]);
		if (cols[2] < 0)
			sa->note = NULL;
		sa->problem = problem;
		xlsx_ref(row, cols[0], ref);
		sa->where = xasprintf("%s!%s", sh->name, ref);
		sa->seen = xasprintf("at %s!%s", sh->name, ref);
		xlsx_ref(row, cols[1], ref);
		sa->answer_where = xasprintf("%s!%s", sh->name, ref);
	}
}

/* Reads the workbook and checks it as far as it can without the database's answers. */
static int
read_checked(const char *path, const struct questionnaire *q, const struct assessment *a,
    struct buf *problems, struct sheet_plan **plan, struct aerr *err)
{
	struct xlsx_book *b;
	const struct xlsx_sheet *sh;
	struct xrows rows;
	int hrow = 0, cols[4], rc;

	if (xlsx_read(path, &b, err) != 0)
		return err->code;
	if ((rc = check_meta(path, b, q, a, err)) != 0) {
		xlsx_free(b);
		return rc;
	}
	if ((sh = xlsx_sheet(b, ANSWERS_SHEET)) == NULL) {
		xlsx_free(b);
		return aerr_set(err, AV_USAGE, "%s: the workbook has no sheet '" ANSWERS_SHEET "'", path);
	}
	if ((rc = find_columns(path, sh, &hrow, cols, err)) != 0) {
		xlsx_free(b);
		return rc;
	}
	sheet_rows(b, sh, q, hrow, cols, &rows);
	rc = sheet_plan_rows(q, path, rows.rows, rows.n, cols[2] >= 0, problems, plan, err);
	xrows_free(&rows);
	xlsx_free(b);
	return rc;
}

int
assessment_import_xlsx(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err)
{
	struct sheet_plan *plan;
	int rc;

	*changed = 0;
	if (assessment_editable(a, err) != 0)
		return err->code;
	if ((rc = read_checked(path, a->q, a, problems, &plan, err)) != 0)
		return rc;
	rc = sheet_plan_write(db, actor, a, plan, path, changed, err);
	sheet_plan_free(plan);
	return rc;
}

/* The questionnaire a workbook was made from, by the hidden sheet's id and version. */
static int
workbook_questionnaire(struct db *db, const char *path, int64_t *qrow, struct aerr *err)
{
	struct xlsx_book *b;
	const struct xlsx_sheet *m;
	char ref[16], *qref;
	int rc;

	if (xlsx_read(path, &b, err) != 0)
		return err->code;
	if ((m = xlsx_sheet(b, META_SHEET)) == NULL) {
		xlsx_free(b);
		return aerr_set(err, AV_USAGE, "%s: the workbook has no '" META_SHEET "' sheet: it was not "
		    "made by 'aivet assess export --format xlsx' or 'aivet questionnaire export'", path);
	}
	qref = xasprintf("%s@%s", meta_text(m, "questionnaire", ref), meta_text(m, "version", ref));
	rc = questionnaire_lookup(db, qref, qrow, err);
	if (rc != 0)
		aerr_prefix(err, "%s: " META_SHEET "!B2", path);
	free(qref);
	xlsx_free(b);
	return rc;
}

int
assessment_import_xlsx_start(struct db *db, const char *actor, int64_t vendor_id, const char *path,
    struct buf *problems, int64_t *id, int *changed, struct aerr *err)
{
	struct questionnaire *q;
	struct sheet_plan *plan;
	struct assessment *a;
	int64_t qrow;
	int rc;

	*changed = 0;
	if (workbook_questionnaire(db, path, &qrow, err) != 0 ||
	    questionnaire_load(db, qrow, &q, err) != 0)
		return err->code;
	rc = read_checked(path, q, NULL, problems, &plan, err);
	questionnaire_free(q);
	if (rc != 0)
		return rc;
	if ((rc = db_begin(db, err)) == 0) {
		if ((rc = assessment_start_in(db, actor, vendor_id, qrow, id, err)) == 0 &&
		    (rc = assessment_load(db, *id, &a, err)) == 0) {
			rc = sheet_plan_apply(db, actor, a, plan, path, changed, err);
			assessment_free(a);
		}
		if (rc == 0)
			rc = db_commit(db, err);
		else
			db_rollback(db);
	}
	sheet_plan_free(plan);
	return rc;
}

int
sheet_is_workbook(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char magic[4] = { 0 };
	struct stat st;
	ssize_t n = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, magic, sizeof magic);
	close(fd);
	return n == 4 && memcmp(magic, "PK\3\4", 4) == 0;
}

int
assessment_import_sheet(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err)
{
	if (sheet_is_workbook(path))
		return assessment_import_xlsx(db, actor, a, path, problems, changed, err);
	return assessment_import_csv(db, actor, a, path, problems, changed, err);
}
