/*
 * cmd-assess.c: "aivet assess" — start an assessment of a vendor against a
 * questionnaire, answer it (with notes and evidence), show, list and trace
 * the history of answers, move it through draft -> in_review -> final and
 * into a new round, and exchange it with the vendor as a CSV, Markdown or
 * Excel sheet.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/assess.h"
#include "aivet/rating.h"

static struct db *
db_ready(struct aivet *av, struct aerr *err)
{
	struct db *db = av_db(av, err);

	if (db != NULL && questionnaires_sync(db, av->actor, err) != 0)
		return NULL;
	return db;
}

static int
assess_start(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *db;
	int64_t vendor = args->target[0], qrow, id;
	struct assessment *a;

	if ((db = db_ready(av, err)) == NULL ||
	    questionnaire_lookup(db, args->word[1], &qrow, err) != 0 ||
	    assessment_start(db, av->actor, vendor, qrow, &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	term_printf(stdout, "assessment %lld started: vendor %s, questionnaire %s version %lld, %d questions (draft)\n",
	    (long long)id, a->vendor, a->q->qid, (long long)a->q->version, a->q->nquestions);
	assessment_free(a);
	return 0;
}

static int
assess_answer(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	char **files = xcalloc((size_t)args->nopt + 1, sizeof *files);
	const char *note = args_get(args, 'n'), *effective = args_get(args, 'E');
	int nfiles = 0, set_note = args_has(args, 'n'), clear = args_has(args, 'c'), rc = 0;
	struct assessment_answer_input in;
	struct assessment_answer_result res = { 0 };
	struct db *db;

	for (int i = 0; i < args->nopt; i++)
		if (args->opt[i].id == 'e')
			files[nfiles++] = args->opt[i].arg;
	if ((db = db_ready(av, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	in = (struct assessment_answer_input){
		.id = args->target[0], .ref = args->word[0], .question = args->word[1], .value = args->word[2],
		.note = note,
		.effective = effective, .set_note = set_note, .clear = clear,
		.files = files, .nfiles = nfiles,
	};
	if ((rc = assessment_answer(db, av->actor, &in, &res, err)) != 0) {
		if (res.form_error) {
			char *msg = xstrdup(err->msg);

			usage_error(av, err, "%s", msg);
			free(msg);
		}
		goto out;
	}
	term_printf(stdout, "%s\n", res.message);
	free(res.message);
out:
	free(files);
	return rc;
}

static void
print_assessment(const struct assessment *a, const struct claim_list *claims)
{
	struct buf b;

	buf_init(&b);
	assessment_text(a, claims, &b);
	term_write(stdout, b.data);
	buf_free(&b);
}

static int
assess_show(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct assessment *a;
	int json = args_has(args, 'j');
	int64_t id = args->target[0];
	struct db *db;
	struct claim_list claims;
	cJSON *o;

	if ((db = db_ready(av, err)) == NULL ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	/* The text reads the judged claims as the assessment screen does: assessment_claims. */
	if ((json ? assessment_json(db, a, &o, err) : assessment_claims(db, a, &claims, err)) != 0) {
		assessment_free(a);
		return err->code;
	}
	if (json) {
		json_emit(o);
	} else {
		print_assessment(a, &claims);
		claim_list_free(&claims);
	}
	assessment_free(a);
	return 0;
}

/* One row of the assess list table, kept until every row is known so that
 * each column is as wide as its widest cell and none runs into the next. */
struct list_row {
	char *cell[9];
};

static void
print_list_rows(struct list_row *rows, size_t n)
{
	static const char *const head[9] = { "ID", "VENDOR", "QUESTIONNAIRE", "ROUND", "STATUS",
		"RATING", "SCORE", "MISSING", "APPROVAL" };
	int w[9];

	for (int c = 0; c < 9; c++) {
		w[c] = (int)strlen(head[c]);
		for (size_t i = 0; i < n; i++)
			if ((int)strlen(rows[i].cell[c]) > w[c])
				w[c] = (int)strlen(rows[i].cell[c]);
	}
	for (size_t i = 0; i <= n; i++) {
		const char *const *cell = i == 0 ? head : (const char *const *)rows[i - 1].cell;

		term_printf(stdout, "%-*s %-*s %-*s %-*s %-*s %-*s %-*s %-*s %s\n", w[0], cell[0], w[1],
		    cell[1], w[2], cell[2], w[3], cell[3], w[4], cell[4], w[5], cell[5], w[6], cell[6],
		    w[7], cell[7], cell[8]);
	}
}

static void
free_list_rows(struct list_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 9; c++)
			free(rows[i].cell[c]);
	free(rows);
}

static int
assess_list(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int json = args_has(args, 'j');
	int64_t vendor = args->target[0];
	struct db *db;
	int64_t *ids;
	size_t nids;
	cJSON *arr;
	struct list_row *rows;

	if ((db = db_ready(av, err)) == NULL)
		return err->code;
	if (assessment_ids(db, vendor, &ids, &nids, err) != 0)
		return err->code;
	arr = cJSON_CreateArray();
	rows = xcalloc(nids + 1, sizeof *rows);
	for (size_t i = 0; i < nids; i++) {
		struct assessment *a = NULL;
		struct assessment_score s;

		if (assessment_load(db, ids[i], &a, err) != 0 ||
		    assessment_rate(db, a, &s, NULL, err) != 0) {
			assessment_free(a);
			free(ids);
			cJSON_Delete(arr);
			free_list_rows(rows, i);
			return err->code;
		}
		if (json) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "id", (double)a->id);
			cJSON_AddStringToObject(o, "vendor", a->vendor);
			cJSON_AddStringToObject(o, "questionnaire", a->q->qid);
			cJSON_AddNumberToObject(o, "version", (double)a->q->version);
			cJSON_AddNumberToObject(o, "round", (double)a->round);
			cJSON_AddStringToObject(o, "status", a->status);
			cJSON_AddStringToObject(o, "rating", rating_name(s.rating));
			cJSON_AddNumberToObject(o, "risk_score", s.risk_score);
			cJSON_AddNumberToObject(o, "answered", s.answered);
			cJSON_AddNumberToObject(o, "unanswered_required", s.unanswered_required);
			cJSON_AddNumberToObject(o, "contradicted_claims", s.contradicted);
			json_add_str(o, "contradicted_by", s.finding[0] ? s.finding : NULL);
			assessment_approved_json(o, a, &s);
			cJSON_AddStringToObject(o, "created_at", a->created_at);
			cJSON_AddItemToArray(arr, o);
		} else {
			char **cell = rows[i].cell;

			cell[0] = xasprintf("%lld", (long long)a->id);
			cell[1] = xstrdup(a->vendor);
			cell[2] = xasprintf("%s@%lld", a->q->qid, (long long)a->q->version);
			cell[3] = xasprintf("%lld", (long long)a->round);
			cell[4] = xstrdup(a->status);
			cell[5] = xstrdup(rating_name(s.rating));
			cell[6] = xasprintf("%.1f", s.risk_score);
			cell[7] = xasprintf("%d", s.unanswered_required);
			cell[8] = xmalloc(320);
			assessment_since_approval(a, &s, cell[8], 320);
			if (cell[8][0] == '\0')
				snprintf(cell[8], 320, "-");
		}
		assessment_free(a);
	}
	free(ids);
	if (json) {
		json_emit(arr);
	} else {
		cJSON_Delete(arr);
		print_list_rows(rows, nids);
	}
	free_list_rows(rows, json ? 0 : nids);
	return 0;
}

static int
assess_history(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct assessment *a;
	int json = args_has(args, 'j'), qi;
	int64_t id = args->target[0];
	struct db *db;
	cJSON *arr;

	if ((db = db_ready(av, err)) == NULL ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	if (assessment_question(a, args->word[1], &qi, err) != 0 ||
	    assessment_history(db, a, qi, &arr, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	if (json) {
		json_emit(arr);
	} else {
		struct buf out;

		buf_init(&out);
		assessment_history_text(a, qi, arr, &out);
		term_write(stdout, out.data);
		buf_free(&out);
		cJSON_Delete(arr);
	}
	assessment_free(a);
	return 0;
}

static int
assess_submit(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int64_t id = args->target[0];
	struct db *db;

	if ((db = db_ready(av, err)) == NULL ||
	    assessment_submit(db, av->actor, id, err) != 0)
		return err->code;
	term_printf(stdout, "assessment %lld submitted for review\n", (long long)id);
	return 0;
}

static const struct opt approve_opts[] = {
	{ .name = "key", .id = 'k', .arg = "NAME",
	  .help = "your key in the key store (default: the one registered to you)" },
	{ .name = "reviewer", .id = 'R', .arg = "NAME",
	  .help = "refused by name: the reviewer is who runs aivet", .flags = OPT_HIDDEN },
	{ 0 }
};

static int
assess_approve(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int64_t id = args->target[0];
	struct db *db;
	struct minisign_sec *sec = NULL;
	const char *key = args_get(args, 'k');
	int rc, signed_;

	/* --reviewer is refused by name: the reviewer is the actor, never a typed name. */
	if (args_has(args, 'R'))
		return usage_error(av, err, "assess approve takes no --reviewer: the reviewer is "
		    "who runs aivet (now %s), signing with their own key", av->actor);
	if ((db = db_ready(av, err)) == NULL ||
	    (key != NULL && keystore_name_check(key, err) != 0) ||
	    approval_key_load(db, av->actor, key, 1, &sec, err) != 0)
		return err->code;
	signed_ = sec != NULL;
	rc = assessment_approve(db, av->actor, id, sec, err);
	minisign_sec_free(sec);
	if (rc != 0)
		return rc;
	term_printf(stdout, "assessment %lld approved by %s (final)%s\n", (long long)id, av->actor,
	    signed_ ? ", signed with their key" : "");
	return 0;
}

static int
assess_reopen(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int64_t id = args->target[0], new_id;
	struct db *db;

	if ((db = db_ready(av, err)) == NULL ||
	    assessment_reopen(db, av->actor, id, &new_id, err) != 0)
		return err->code;
	if (new_id == id)
		term_printf(stdout, "assessment %lld returned to draft\n", (long long)id);
	else
		term_printf(stdout, "assessment %lld reopened as assessment %lld (new round, draft)\n", (long long)id,
		    (long long)new_id);
	return 0;
}

static int
assess_export(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *format = args_get(args, 'f'), *output = args_get(args, 'o');
	const char *due = args_get(args, 'd');
	struct assessment *a;
	struct buf b;
	int64_t id = args->target[0];
	struct db *db;
	int rc;

	if (format == NULL)
		return usage_error(av, err, "assess export needs --format csv, md or xlsx");
	if (strcmp(format, "csv") != 0 && strcmp(format, "md") != 0 && strcmp(format, "xlsx") != 0)
		return usage_error(av, err, "--format: '%s' is not csv, md or xlsx", format);
	if (strcmp(format, "xlsx") == 0 && output == NULL)
		return usage_error(av, err, "--format xlsx needs --output FILE (a workbook is no text)");
	if (due != NULL && strcmp(format, "xlsx") != 0)
		return usage_error(av, err, "--due is written in a workbook: it needs --format xlsx");
	if ((db = db_ready(av, err)) == NULL || assessment_load(db, id, &a, err) != 0)
		return err->code;
	if (strcmp(format, "xlsx") == 0) {
		struct sheet_xlsx_info info = { av->actor, due };

		rc = sheet_export_xlsx(a->q, a, &info, output, err);
		assessment_free(a);
		return rc;
	}
	buf_init(&b);
	rc = assessment_export(a, format, &b, err);
	if (rc == 0 && output != NULL)
		rc = write_file_atomic(output, b.data, b.len, 0644, err);
	else if (rc == 0)
		fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
	assessment_free(a);
	return rc;
}

/* assess import --start VENDOR FILE.xlsx: a new assessment from a workbook
 * for vendor vid (the framework resolved --start). */
static int
import_start(struct aivet *av, struct db *db, int64_t vid, const char *path, struct buf *problems,
    struct aerr *err)
{
	int64_t id;
	int changed = 0;

	if (assessment_import_xlsx_start(db, av->actor, vid, path, problems, &id, &changed, err) != 0)
		return err->code;
	printf("assessment %lld started from %s: %d answer%s\n", (long long)id, path, changed,
	    changed == 1 ? "" : "s");
	return 0;
}

static int
assess_import(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *start = args_get(args, 's'), *path;
	struct assessment *a;
	struct buf problems;
	int64_t id;
	struct db *db;
	int changed = 0, rc;

	if ((start != NULL) == (args->word[0] != NULL))
		return usage_error(av, err, start ? "assess import --start takes no ASSESSMENT: it starts one" :
		    "assess import needs an ASSESSMENT (or --start VENDOR for a new one)");
	path = args->word[1];
	if (start != NULL && !sheet_is_workbook(path))
		return usage_error(av, err, "--start needs a workbook (.xlsx) made by 'aivet questionnaire "
		    "export' or 'aivet assess export': it names its questionnaire");
	if ((db = db_ready(av, err)) == NULL)
		return err->code;
	buf_init(&problems);
	if (start != NULL) {
		rc = import_start(av, db, args_target(args, 's'), path, &problems, err);
	} else if ((rc = assessment_load(db, id = args->target[0], &a, err)) == 0) {
		rc = assessment_import_sheet(db, av->actor, a, path, &problems, &changed, err);
		if (rc == 0)
			term_printf(stdout, "assessment %lld: %d answer%s changed from %s\n", (long long)id, changed,
			    changed == 1 ? "" : "s", path);
		assessment_free(a);
	}
	if (problems.len > 0)
		fputs(problems.data, stderr);
	buf_free(&problems);
	return rc;
}

static const struct opt answer_opts[] = {
	{ .name = "note", .id = 'n', .arg = "TEXT", .help = "a note kept with the answer" },
	{ .name = "evidence", .id = 'e', .arg = "FILE",
	  .help = "attach a file as evidence for the answer", .flags = OPT_MANY },
	{ .name = "effective", .id = 'E', .arg = "DATE",
	  .help = "the date the evidence speaks for" },
	{ .name = "clear", .id = 'c', .help = "remove the answer (back to unanswered)" },
	{ 0 }
};
static const struct opt export_opts[] = {
	{ .name = "format", .id = 'f', .arg = "csv|md|xlsx", .help = "the sheet's format",
	  .flags = OPT_REQUIRED },
	{ .name = "output", .id = 'o', .arg = "FILE",
	  .help = "write it to FILE (default standard output; xlsx needs it)" },
	{ .name = "due", .id = 'd', .arg = "DATE",
	  .help = "when the vendor's answers are due (written in the workbook)" },
	{ 0 }
};
static const struct opt import_opts[] = {
	{ .name = "start", .id = 's', .arg = "VENDOR",
	  .help = "start a new assessment of VENDOR from a workbook (no ASSESSMENT)" },
	{ 0 }
};

static const struct cmd_entry assess_subs[] = {
	{ .name = "start", .targets = "VENDOR QUESTIONNAIRE[@VERSION]",
	  .summary = "start an assessment of a vendor (draft)", .exec = assess_start,
	  .args = ARGS({ TARGET_VENDOR, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "answer", .targets = "ASSESSMENT QUESTION [VALUE]", .opts = answer_opts,
	  .summary = "answer a question, with a note and evidence", .exec = assess_answer,
	  .args = ARGS({ TARGET_ASSESSMENT, 0 }, { TARGET_WORD, 0 }, { TARGET_WORD, 1 }) },
	{ .name = "show", .targets = "ASSESSMENT", .opts = opt_json_only,
	  .summary = "show answers, risk, score and probe-checked claims",
	  .exec = assess_show, .args = ARGS({ TARGET_ASSESSMENT, 0 }) },
	{ .name = "list", .targets = "[VENDOR]", .opts = opt_json_only,
	  .summary = "list assessments", .exec = assess_list,
	  .args = ARGS({ TARGET_VENDOR, 1 }) },
	{ .name = "history", .targets = "ASSESSMENT QUESTION", .opts = opt_json_only,
	  .summary = "every change to one answer", .exec = assess_history,
	  .args = ARGS({ TARGET_ASSESSMENT, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "submit", .targets = "ASSESSMENT",
	  .summary = "send a draft for review (answers lock)", .exec = assess_submit,
	  .args = ARGS({ TARGET_ASSESSMENT, 0 }) },
	{ .name = "approve", .targets = "ASSESSMENT", .opts = approve_opts,
	  .summary = "approve an assessment in review (final), signed with your own registered key",
	  .exec = assess_approve, .args = ARGS({ TARGET_ASSESSMENT, 0 }) },
	{ .name = "reopen", .targets = "ASSESSMENT",
	  .summary = "return a review to draft, or start a new round of a final one",
	  .exec = assess_reopen, .args = ARGS({ TARGET_ASSESSMENT, 0 }) },
	{ .name = "export", .targets = "ASSESSMENT", .opts = export_opts,
	  .summary = "the sheet a vendor fills in", .exec = assess_export,
	  .args = ARGS({ TARGET_ASSESSMENT, 0 }) },
	{ .name = "import", .targets = "[ASSESSMENT] FILE", .opts = import_opts,
	  .summary = "read a filled-in sheet back (CSV or .xlsx)", .exec = assess_import,
	  .args = ARGS({ TARGET_ASSESSMENT, 1 }, { TARGET_WORD, 0 }),
	  .target = { 's', TARGET_VENDOR } },
	{ 0 }
};

const struct cmd_entry cmd_assess_entry = {
	.name = "assess",
	.summary = "vendor assessments: questionnaires answered, scored and reviewed",
	.subs = assess_subs,
};
