/*
 * cmd-assess.c: "aivet assess" — start an assessment of a vendor against a
 * questionnaire, answer it (with notes and evidence), show, list and trace
 * the history of answers, move it through draft -> in_review -> final and
 * into a new round, and exchange it with the vendor as a CSV or Markdown
 * sheet.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "rating.h"

extern const struct cmd_entry cmd_assess_entry;

static struct db *
db_ready(struct aivet *av, struct aerr *err)
{
	struct db *db = av_db(av, err);

	if (db != NULL && questionnaires_sync(db, av->actor, err) != 0)
		return NULL;
	return db;
}

/* Commands taking only an ASSESSMENT and maybe --json. */
static int
parse_id_json(int argc, char **argv, const char *usage, int nargs, const char *what, int *json,
    struct aerr *err)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'j' && json != NULL)
			*json = 1;
		else
			return usage_error(err, usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != nargs)
		return usage_error(err, usage, "assess %s needs %s", argv[0], what);
	return 0;
}

static const char start_usage[] = "assess start VENDOR QUESTIONNAIRE[@VERSION]";

static int
assess_start(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct db *db;
	int64_t vendor, qrow, id;
	struct assessment *a;

	if (parse_id_json(argc, argv, start_usage, 2, "a VENDOR and a QUESTIONNAIRE", NULL, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL ||
	    vendor_lookup(db, argv[optind], &vendor, err) != 0 ||
	    questionnaire_lookup(db, argv[optind + 1], &qrow, err) != 0 ||
	    assessment_start(db, av->actor, vendor, qrow, &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	printf("assessment %lld started: vendor %s, questionnaire %s version %lld, %d questions (draft)\n",
	    (long long)id, a->vendor, a->q->qid, (long long)a->q->version, a->q->nquestions);
	assessment_free(a);
	return 0;
}

static const char answer_usage[] = "assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] "
    "[--evidence FILE]... [--effective DATE] [--clear]";

static int
assess_answer(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "note", required_argument, NULL, 'n' },
		{ "evidence", required_argument, NULL, 'e' },
		{ "effective", required_argument, NULL, 'E' },
		{ "clear", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	char **files = xcalloc((size_t)argc, sizeof *files);
	const char *note = NULL, *effective = NULL;
	int c, nfiles = 0, set_note = 0, clear = 0, rc = 0;
	struct assessment_answer_input in;
	struct assessment_answer_result res = { 0 };
	struct db *db;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			note = optarg, set_note = 1;
			break;
		case 'e':
			files[nfiles++] = optarg;
			break;
		case 'E':
			effective = optarg;
			break;
		case 'c':
			clear = 1;
			break;
		case ':':
			rc = usage_error(err, answer_usage, "%s needs a value", argv[optind - 1]);
			goto out;
		default:
			rc = usage_error(err, answer_usage, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (argc - optind < 2 || argc - optind > 3) {
		rc = usage_error(err, answer_usage, "assess answer needs an ASSESSMENT, a QUESTION and a VALUE");
		goto out;
	}
	if (clear && (argc - optind == 3 || set_note || nfiles > 0)) {
		rc = usage_error(err, answer_usage, "--clear takes no VALUE, --note or --evidence");
		goto out;
	}
	if (effective != NULL && nfiles == 0) {
		rc = usage_error(err, answer_usage, "--effective dates an --evidence file; none was given");
		goto out;
	}
	if ((db = db_ready(av, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	in = (struct assessment_answer_input){
		.ref = argv[optind], .question = argv[optind + 1],
		.value = argc - optind == 3 ? argv[optind + 2] : NULL, .note = note,
		.effective = effective, .set_note = set_note, .clear = clear,
		.files = files, .nfiles = nfiles,
	};
	if ((rc = assessment_answer(db, av->actor, &in, &res, err)) != 0) {
		if (res.form_error) {
			char *msg = xstrdup(err->msg);

			usage_error(err, answer_usage, "%s", msg);
			free(msg);
		}
		goto out;
	}
	printf("%s\n", res.message);
	free(res.message);
out:
	free(files);
	return rc;
}

static void
print_assessment(const struct assessment *a, const cJSON *claims)
{
	struct buf b;

	buf_init(&b);
	assessment_text(a, claims, &b);
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
}

static const char show_usage[] = "assess show ASSESSMENT [--json]";

static int
assess_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct assessment *a;
	int json = 0;
	int64_t id;
	struct db *db;
	cJSON *o;

	if (parse_id_json(argc, argv, show_usage, 1, "exactly one ASSESSMENT", &json, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	if (assessment_json(db, a, &o, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	if (json) {
		json_emit(o);
	} else {
		print_assessment(a, cJSON_GetObjectItem(o, "claims"));
		cJSON_Delete(o);
	}
	assessment_free(a);
	return 0;
}

static const char list_usage[] = "assess list [VENDOR] [--json]";

static int
assess_list(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	int json = 0, c;
	int64_t vendor = 0;
	struct db *db;
	int64_t *ids;
	size_t nids;
	cJSON *arr;

	while ((c = getopt_long(argc, argv, ":", (const struct option[]){ { "json", no_argument,
	    NULL, 'j' }, { NULL, 0, NULL, 0 } }, NULL)) != -1) {
		if (c != 'j')
			return usage_error(err, list_usage, "unknown option '%s'", argv[optind - 1]);
		json = 1;
	}
	if (argc - optind > 1)
		return usage_error(err, list_usage, "unexpected argument '%s'", argv[optind + 1]);
	if ((db = db_ready(av, err)) == NULL)
		return err->code;
	if (argc - optind == 1 && vendor_lookup(db, argv[optind], &vendor, err) != 0)
		return err->code;
	if (assessment_ids(db, vendor, &ids, &nids, err) != 0)
		return err->code;
	arr = cJSON_CreateArray();
	if (!json)
		printf("%-5s %-20s %-32s %-5s %-9s %-12s %-6s %s\n", "ID", "VENDOR", "QUESTIONNAIRE", "ROUND",
		    "STATUS", "RATING", "SCORE", "MISSING");
	for (size_t i = 0; i < nids; i++) {
		struct assessment *a;
		struct assessment_score s;

		if (assessment_load(db, ids[i], &a, err) != 0) {
			free(ids);
			cJSON_Delete(arr);
			return err->code;
		}
		assessment_score(a, &s);
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
			cJSON_AddStringToObject(o, "created_at", a->created_at);
			cJSON_AddItemToArray(arr, o);
		} else {
			char *qv = xasprintf("%s@%lld", a->q->qid, (long long)a->q->version);

			printf("%-5lld %-20s %-32s %-5lld %-9s %-12s %-6.1f %d\n", (long long)a->id, a->vendor,
			    qv, (long long)a->round, a->status, rating_name(s.rating), s.risk_score,
			    s.unanswered_required);
			free(qv);
		}
		assessment_free(a);
	}
	free(ids);
	if (json)
		json_emit(arr);
	else
		cJSON_Delete(arr);
	return 0;
}

static const char history_usage[] = "assess history ASSESSMENT QUESTION [--json]";

static int
assess_history(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct assessment *a;
	int json = 0, qi;
	int64_t id;
	struct db *db;
	cJSON *arr;

	if (parse_id_json(argc, argv, history_usage, 2, "an ASSESSMENT and a QUESTION", &json, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	if (assessment_question(a, argv[optind + 1], &qi, err) != 0 ||
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
		fwrite(out.data, 1, out.len, stdout);
		buf_free(&out);
		cJSON_Delete(arr);
	}
	assessment_free(a);
	return 0;
}

static const char submit_usage[] = "assess submit ASSESSMENT";

static int
assess_submit(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	int64_t id;
	struct db *db;

	if (parse_id_json(argc, argv, submit_usage, 1, "exactly one ASSESSMENT", NULL, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_submit(db, av->actor, id, err) != 0)
		return err->code;
	printf("assessment %lld submitted for review\n", (long long)id);
	return 0;
}

static const char approve_usage[] = "assess approve ASSESSMENT --reviewer NAME";

static int
assess_approve(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "reviewer", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char *reviewer = NULL;
	int64_t id;
	struct db *db;
	int c;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'r')
			reviewer = optarg;
		else if (c == ':')
			return usage_error(err, approve_usage, "%s needs a value", argv[optind - 1]);
		else
			return usage_error(err, approve_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 1)
		return usage_error(err, approve_usage, "assess approve needs exactly one ASSESSMENT");
	if (reviewer == NULL || *reviewer == '\0')
		return usage_error(err, approve_usage, "assess approve needs --reviewer NAME");
	if (safe_text_check("--reviewer", reviewer, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_approve(db, av->actor, id, reviewer, err) != 0)
		return err->code;
	printf("assessment %lld approved by %s (final)\n", (long long)id, reviewer);
	return 0;
}

static const char reopen_usage[] = "assess reopen ASSESSMENT";

static int
assess_reopen(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	int64_t id, new_id;
	struct db *db;

	if (parse_id_json(argc, argv, reopen_usage, 1, "exactly one ASSESSMENT", NULL, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_reopen(db, av->actor, id, &new_id, err) != 0)
		return err->code;
	if (new_id == id)
		printf("assessment %lld returned to draft\n", (long long)id);
	else
		printf("assessment %lld reopened as assessment %lld (new round, draft)\n", (long long)id,
		    (long long)new_id);
	return 0;
}

static const char export_usage[] = "assess export ASSESSMENT --format csv|md [--output FILE]";

static int
assess_export(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	const char *format = NULL, *output = NULL;
	struct assessment *a;
	struct buf b;
	int64_t id;
	struct db *db;
	int c, rc;

	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == ':')
			return usage_error(err, export_usage, "%s needs a value", argv[optind - 1]);
		else
			return usage_error(err, export_usage, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 1)
		return usage_error(err, export_usage, "assess export needs exactly one ASSESSMENT");
	if (format == NULL)
		return usage_error(err, export_usage, "assess export needs --format csv or --format md");
	if (strcmp(format, "csv") != 0 && strcmp(format, "md") != 0)
		return usage_error(err, export_usage, "--format: '%s' is not csv or md", format);
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
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

static const char import_usage[] = "assess import ASSESSMENT FILE.csv";

static int
assess_import(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct assessment *a;
	struct buf problems;
	int64_t id;
	struct db *db;
	int changed = 0, rc;

	if (parse_id_json(argc, argv, import_usage, 2, "an ASSESSMENT and a FILE", NULL, err) != 0)
		return err->code;
	if ((db = db_ready(av, err)) == NULL || assessment_lookup(db, argv[optind], &id, err) != 0 ||
	    assessment_load(db, id, &a, err) != 0)
		return err->code;
	buf_init(&problems);
	rc = assessment_import_csv(db, av->actor, a, argv[optind + 1], &problems, &changed, err);
	if (problems.len > 0)
		fputs(problems.data, stderr);
	buf_free(&problems);
	if (rc == 0)
		printf("assessment %lld: %d answer%s changed from %s\n", (long long)id, changed,
		    changed == 1 ? "" : "s", argv[optind + 1]);
	assessment_free(a);
	return rc;
}

static const struct subcmd assess_subs[] = {
	{ "start", start_usage, "start an assessment of a vendor (draft)", assess_start },
	{ "answer", answer_usage, "answer a question, with a note and evidence", assess_answer },
	{ "show", show_usage, "show answers, risk, score and probe-checked claims", assess_show },
	{ "list", list_usage, "list assessments", assess_list },
	{ "history", history_usage, "every change to one answer", assess_history },
	{ "submit", submit_usage, "send a draft for review (answers lock)", assess_submit },
	{ "approve", approve_usage, "approve an assessment in review (final)", assess_approve },
	{ "reopen", reopen_usage, "return a review to draft, or start a new round of a final one",
	  assess_reopen },
	{ "export", export_usage, "the sheet a vendor fills in", assess_export },
	{ "import", import_usage, "read a filled-in CSV sheet back", assess_import },
	{ NULL, NULL, NULL, NULL }
};

static int
cmd_assess_exec(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	return subcmd_dispatch(&cmd_assess_entry, assess_subs, av, argc, argv, err);
}

const struct cmd_entry cmd_assess_entry = {
	"assess", "assess start|answer|show|list|history|submit|approve|reopen|export|import ...",
	"vendor assessments: questionnaires answered, scored and reviewed", cmd_assess_exec
};
