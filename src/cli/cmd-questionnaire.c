/*
 * cmd-questionnaire.c: "aivet questionnaire" — list and show the
 * questionnaires in the database (the bundled ones load on first use),
 * validate a questionnaire file, import one, and export a blank workbook
 * of one to send to a vendor before anything about it is in aivet. Every version ever loaded
 * stays, so old assessments keep the questions they were answered against.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/assess.h"

#define MAX_QUESTIONNAIRE_FILE ((size_t)4 << 20)

/* Reads and checks a file; every problem goes to stderr, the error only counts them. */
static int
check_file(const char *path, const char *consequence, struct buf *text, struct questionnaire **q,
    struct aerr *err)
{
	struct buf problems;
	int n;

	*q = NULL;
	if (read_file(path, MAX_QUESTIONNAIRE_FILE, text, err) != 0)
		return err->code;
	buf_init(&problems);
	n = questionnaire_check(path, text->data, text->len, &problems, q);
	if (n > 0) {
		fputs(problems.data, stderr);
		aerr_set(err, AV_USAGE, "%s: %d problem%s%s", path, n, n == 1 ? "" : "s", consequence);
		buf_free(text);
	}
	buf_free(&problems);
	return n > 0 ? AV_USAGE : 0;
}

static struct db *
db_with_questionnaires(struct aivet *av, struct aerr *err)
{
	struct db *db = av_db(av, err);

	if (db != NULL && questionnaires_sync(db, av->actor, err) != 0)
		return NULL;
	return db;
}

static int
q_list(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int json = args_has(a, 'j'), all = args_has(a, 'a');
	struct db *db;
	int64_t *ids;
	size_t nids;
	cJSON *arr;

	if ((db = db_with_questionnaires(av, err)) == NULL)
		return err->code;
	if (questionnaire_ids(db, all, &ids, &nids, err) != 0)
		return err->code;
	arr = cJSON_CreateArray();
	if (!json)
		term_printf(stdout, "%-28s %-7s %-9s %-7s %s\n", "QUESTIONNAIRE", "VERSION", "QUESTIONS", "BUNDLED",
		    "TITLE");
	for (size_t i = 0; i < nids; i++) {
		struct questionnaire *q;
		char loaded[40];

		if (questionnaire_load(db, ids[i], &q, err) != 0) {
			free(ids);
			cJSON_Delete(arr);
			return err->code;
		}
		if (json) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "id", q->qid);
			cJSON_AddNumberToObject(o, "version", (double)q->version);
			cJSON_AddStringToObject(o, "title", q->title);
			cJSON_AddNumberToObject(o, "sections", q->nsections);
			cJSON_AddNumberToObject(o, "questions", q->nquestions);
			cJSON_AddBoolToObject(o, "bundled", q->bundled);
			cJSON_AddStringToObject(o, "sha256", q->sha256);
			if (questionnaire_loaded_at(db, q->row_id, loaded, sizeof loaded, err) == 0)
				cJSON_AddStringToObject(o, "loaded_at", loaded);
			cJSON_AddItemToArray(arr, o);
		} else {
			term_printf(stdout, "%-28s %-7lld %-9d %-7s %s\n", q->qid, (long long)q->version, q->nquestions,
			    q->bundled ? "yes" : "no", q->title);
		}
		questionnaire_free(q);
	}
	free(ids);
	if (json)
		json_emit(arr);
	else
		cJSON_Delete(arr);
	return 0;
}

static void
print_question(const struct questionnaire *q, const struct q_question *qq)
{
	char *allowed = question_allowed(qq);

	term_printf(stdout, "  %s%s (%s)\n    %s\n", qq->id, qq->required ? " [required]" : "", q_type_name(qq->type),
	    qq->text);
	if (qq->help != NULL)
		term_printf(stdout, "    help: %s\n", qq->help);
	term_printf(stdout, "    answer: %s; weight %g\n", allowed, qq->weight);
	for (int i = 0; i < qq->nchoices; i++)
		term_printf(stdout, "      %-20s risk %-8s %s\n", qq->choices[i].value, risk_name(qq->choices[i].risk),
		    qq->choices[i].label);
	for (int i = 0; i < qq->nbands; i++) {
		if (qq->type == QT_DURATION)
			term_printf(stdout, "      up to %-14gs risk %s\n", qq->bands[i].max, risk_name(qq->bands[i].risk));
		else
			term_printf(stdout, "      up to %-15g risk %s\n", qq->bands[i].max, risk_name(qq->bands[i].risk));
	}
	if (qq->nbands > 0)
		term_printf(stdout, "      %-23s risk %s\n", "above", risk_name(qq->above));
	if (qq->dep >= 0) {
		char *vals = answer_to_text(NULL, qq->dep_values);

		term_printf(stdout, "    asked when %s is %s\n", q->questions[qq->dep].id, vals);
		free(vals);
	}
	for (int i = 0; i < qq->nreferences; i++)
		term_printf(stdout, "    reference: %s\n", qq->references[i]);
	for (int i = 0; i < qq->nchecks; i++) {
		char *c = cJSON_PrintUnformatted(qq->checks[i].confirms);

		term_printf(stdout, "    verified by probe %s (a pass confirms %s)\n", qq->checks[i].probe, c);
		free(c);
	}
	free(allowed);
}

static int
q_show(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int json = args_has(a, 'j');
	int64_t row;
	struct db *db;
	char loaded[40];
	struct questionnaire *q;

	if ((db = db_with_questionnaires(av, err)) == NULL)
		return err->code;
	if (questionnaire_lookup(db, a->argv[0], &row, err) != 0 ||
	    questionnaire_load(db, row, &q, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cJSON_Duplicate(q->root, 1);

		cJSON_AddStringToObject(o, "sha256", q->sha256);
		cJSON_AddBoolToObject(o, "bundled", q->bundled);
		if (questionnaire_loaded_at(db, row, loaded, sizeof loaded, err) == 0)
			cJSON_AddStringToObject(o, "loaded_at", loaded);
		json_emit(o);
		questionnaire_free(q);
		return 0;
	}
	term_printf(stdout, "%s version %lld: %s\n", q->qid, (long long)q->version, q->title);
	if (q->description != NULL)
		term_printf(stdout, "%s\n", q->description);
	term_printf(stdout, "sha256 %s%s\n", q->sha256, q->bundled ? " (bundled)" : "");
	for (int s = 0; s < q->nsections; s++) {
		term_printf(stdout, "\n%s: %s\n", q->sections[s].id, q->sections[s].title);
		for (int i = q->sections[s].first; i < q->sections[s].first + q->sections[s].count; i++)
			print_question(q, &q->questions[i]);
	}
	questionnaire_free(q);
	return 0;
}

static int
q_validate(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	struct questionnaire *q;
	struct buf b;

	(void)av;
	if (check_file(a->argv[0], "", &b, &q, err) != 0)
		return err->code;
	term_printf(stdout, "%s: valid: %s version %lld, %d sections, %d questions\n", a->argv[0], q->qid,
	    (long long)q->version, q->nsections, q->nquestions);
	questionnaire_free(q);
	buf_free(&b);
	return 0;
}

static int
q_import(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int already, rc;
	struct questionnaire *q = NULL;
	struct buf b;
	struct db *db;
	int64_t row;

	if (check_file(a->argv[0], "; nothing was imported", &b, &q, err) != 0)
		return err->code;
	if ((db = db_with_questionnaires(av, err)) == NULL)
		rc = err->code;
	else
		rc = questionnaire_import(db, av->actor, a->argv[0], q, b.data, b.len, &row, &already, err);
	if (rc == 0 && already)
		term_printf(stdout, "questionnaire %s version %lld is already loaded (id %lld)\n", q->qid,
		    (long long)q->version, (long long)row);
	else if (rc == 0)
		term_printf(stdout, "questionnaire %s version %lld imported (id %lld): %d questions\n", q->qid,
		    (long long)q->version, (long long)row, q->nquestions);
	buf_free(&b);
	questionnaire_free(q);
	return rc;
}

static const struct opt list_opts[] = {
	{ .name = "all", .id = 'a', .help = "every version, not only the newest" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

static int
q_export(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	const char *format = args_get(a, 'f'), *output = args_get(a, 'o'), *due = args_get(a, 'd');
	struct sheet_xlsx_info info;
	struct questionnaire *q;
	struct db *db;
	int64_t row;
	int rc;

	if (format == NULL || strcmp(format, "xlsx") != 0)
		return usage_error(av, err, "--format: '%s' is not xlsx", format ? format : "");
	if (output == NULL)
		return usage_error(av, err, "questionnaire export needs --output FILE");
	if ((db = db_with_questionnaires(av, err)) == NULL ||
	    questionnaire_lookup(db, a->argv[0], &row, err) != 0 ||
	    questionnaire_load(db, row, &q, err) != 0)
		return err->code;
	info = (struct sheet_xlsx_info){ av->actor, due };
	rc = sheet_export_xlsx(q, NULL, &info, output, err);
	questionnaire_free(q);
	return rc;
}

static const struct opt export_opts[] = {
	{ .name = "format", .id = 'f', .arg = "xlsx", .help = "the template's format",
	  .flags = OPT_REQUIRED },
	{ .name = "output", .id = 'o', .arg = "FILE", .help = "write the workbook to FILE",
	  .flags = OPT_REQUIRED },
	{ .name = "due", .id = 'd', .arg = "DATE",
	  .help = "when the vendor's answers are due (written in the workbook)" },
	{ 0 }
};

static const struct cmd_entry questionnaire_subs[] = {
	{ .name = "list", .opts = list_opts,
	  .summary = "list questionnaires (every version with --all)", .exec = q_list,
	  .args = ARGS_NONE },
	{ .name = "show", .targets = "QUESTIONNAIRE[@VERSION]", .opts = opt_json_only,
	  .summary = "show a questionnaire's questions", .exec = q_show,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "validate", .targets = "FILE",
	  .summary = "check a questionnaire file, naming every problem", .exec = q_validate,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "import", .targets = "FILE",
	  .summary = "load a questionnaire file into the database", .exec = q_import,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "export", .targets = "QUESTIONNAIRE[@VERSION]", .opts = export_opts,
	  .summary = "a blank workbook of a questionnaire to send to a vendor",
	  .exec = q_export, .args = ARGS({ TARGET_WORD, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_questionnaire_entry = {
	.name = "questionnaire",
	.summary = "the questionnaires assessments are answered against",
	.subs = questionnaire_subs,
};
