/*
 * test-questionnaire-upgrade.c: a database made before a bundled
 * questionnaire changed meets the aivet that bundles the changed file. The
 * old database is built here as the older aivet built it: the old file
 * (tests/data/llm-inference-isolation-v1.json, a copy of what was bundled)
 * loaded as bundled, an assessment answered against it. The next sync loads
 * the bundled file as its new version beside the old; the old assessment
 * still points at the old version, with its answers as they were; a new one
 * starts on the new version; the audit chain stays intact. The versions are
 * read from the two files, not written here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "assess.h"
#include "audit-checks.h"
#include "vendor.h"
#include "../lib/tap.h"

static char dir[] = "/tmp/aivet-test-qupgrade.XXXXXX";

/* A file of the source tree, read whole, and its top-level "version". */
static void
read_source(const char *rel, struct buf *text, int64_t *version)
{
	const char *top = getenv("TESTS_SRCDIR") ? getenv("TESTS_SRCDIR") : "tests";
	char *path = xasprintf("%s/%s", top, rel);
	struct aerr err = { 0 };
	cJSON *root, *v;

	buf_init(text);
	if (read_file(path, 1 << 20, text, &err) != 0 || (root = cJSON_Parse(text->data)) == NULL ||
	    !cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "version"))) {
		printf("# setup: %s: %s\n", path, err.msg[0] ? err.msg : "no version");
		exit(99);
	}
	*version = (int64_t)v->valuedouble;
	cJSON_Delete(root);
	free(path);
}

/* The source and version of the loaded row (qid, version), "" / 0 when none. */
static void
stored(struct db *db, int64_t version, struct buf *source, int64_t *bundled)
{
	struct aerr err = { 0 };
	struct db_stmt *st = db_prepare(db, &err, "SELECT source, bundled FROM questionnaire "
	    "WHERE qid = 'llm-inference-isolation' AND version = ?", "i", version);

	buf_init(source);
	*bundled = -1;
	if (st != NULL && db_step(st) == DB_ROW) {
		buf_add(source, col_text(st, 0), strlen(col_text(st, 0)));
		*bundled = db_col_int(st, 1);
	}
	buf_add(source, "", 0);
	db_finalize(st);
}

/* The old database: the old file loaded as the bundled one was, and an
 * assessment with two answers. Returns the assessment's id. */
static int64_t
old_database(struct db *db, const struct buf *old)
{
	struct aerr err = { 0 };
	struct questionnaire *q;
	struct assessment_answer_result r = { 0 };
	struct assessment_answer_input in[] = {
		{ .question = "context_capacity_check", .value = "every_node_every_change" },
		{ .question = "kv_cache_scope", .value = "per_tenant", .note = "from the vendor's call",
		  .set_note = 1 },
	};
	struct vendor_input acme = { .name = "acme", .set_name = 1 };
	int64_t row, vid, id = 0;

	if (questionnaire_parse("llm-inference-isolation-v1.json", old->data, old->len, &q, &err) != 0 ||
	    vendor_add(db, "tester", &acme, &vid, &err) != 0 || db_begin(db, &err) != 0) {
		printf("# setup: %s\n", err.msg);
		exit(99);
	}
	q->bundled = 1;
	if (questionnaire_store(db, "tester", q, old->data, old->len, &row, &err) != 0 ||
	    db_commit(db, &err) != 0 || assessment_start(db, "tester", vid, row, &id, &err) != 0) {
		printf("# setup: %s\n", err.msg);
		exit(99);
	}
	questionnaire_free(q);
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		in[i].id = id;
		if (assessment_answer(db, "tester", &in[i], &r, &err) != 0) {
			printf("# setup: %s\n", err.msg);
			exit(99);
		}
		free(r.message);
	}
	return id;
}

/* The answers of assessment id as text, "QUESTION=VALUE[ note NOTE]" a line, in question order. */
static char *
answers_text(struct db *db, int64_t id, int64_t *version)
{
	struct aerr err = { 0 };
	struct assessment *a;
	struct buf b;

	buf_init(&b);
	*version = 0;
	if (assessment_load(db, id, &a, &err) != 0) {
		buf_printf(&b, "error: %s", err.msg);
		return buf_steal(&b);
	}
	*version = a->q->version;
	for (int i = 0; i < a->q->nquestions; i++) {
		char *v;

		if (a->answers[i].value == NULL)
			continue;
		v = cJSON_PrintUnformatted(a->answers[i].value);
		buf_printf(&b, "%s=%s%s%s\n", a->q->questions[i].id, v, a->answers[i].note ? " note " : "",
		    a->answers[i].note ? a->answers[i].note : "");
		free(v);
	}
	assessment_free(a);
	buf_add(&b, "", 0);
	return buf_steal(&b);
}

/* Whether assessment id's questionnaire has the engine probe check the capacity answer. */
static int
engine_checked(struct db *db, int64_t id)
{
	struct aerr err = { 0 };
	struct assessment *a;
	int qi, found = 0;

	if (assessment_load(db, id, &a, &err) != 0)
		return -1;
	if ((qi = questionnaire_find(a->q, "context_capacity_check")) >= 0)
		for (int i = 0; i < a->q->questions[qi].nchecks; i++)
			found |= strcmp(a->q->questions[qi].checks[i].probe, "engine") == 0;
	assessment_free(a);
	return found;
}

int
main(void)
{
	struct aerr err = { 0 };
	struct audit_status st;
	struct buf old, cur, got;
	struct db *db;
	int64_t v_old, v_new, id, row, fresh, version, bundled, n;
	char *path, *before, *after;

	if (sodium_init() < 0 || mkdtemp(dir) == NULL)
		return 99;
	read_source("data/llm-inference-isolation-v1.json", &old, &v_old);
	read_source("../questionnaires/llm-inference-isolation.json", &cur, &v_new);
	ok(v_new > v_old, "the bundled file's version (%lld) is above the old one's (%lld)",
	    (long long)v_new, (long long)v_old);
	ok(strcmp(old.data, cur.data) != 0, "and the two files differ");

	path = xasprintf("%s/old.sqlite", dir);
	if (db_open(path, &db, &err) != 0) {
		printf("# setup: %s\n", err.msg);
		return 99;
	}
	id = old_database(db, &old);
	before = answers_text(db, id, &version);
	is_int(version, v_old, "the old assessment is on the old version");
	is_str(before, "kv_cache_scope=\"per_tenant\" note from the vendor's call\n"
	    "context_capacity_check=\"every_node_every_change\"\n", "with its two answers");

	/* The aivet of now opens it: the bundled questionnaires are synced. */
	is_int(questionnaires_sync(db, "tester", &err), 0, "sync runs (%s)", err.msg);
	stored(db, v_new, &got, &bundled);
	is_str(got.data, cur.data, "the new version is loaded from the bundled file, byte for byte");
	is_int(bundled, 1, "as bundled");
	buf_free(&got);
	stored(db, v_old, &got, &bundled);
	is_str(got.data, old.data, "the old version stays, its text untouched");
	buf_free(&got);
	db_int(db, &n, &err, "SELECT count(*) FROM questionnaire WHERE qid = 'llm-inference-isolation'",
	    NULL);
	is_int(n, 2, "two versions of the questionnaire, no more");

	after = answers_text(db, id, &version);
	is_int(version, v_old, "the old assessment still points at the old version");
	is_str(after, before, "its answers untouched");
	is_int(questionnaire_lookup(db, "llm-inference-isolation", &row, &err), 0, "the questionnaire is found");
	{
		struct vendor_input beta = { .name = "beta", .set_name = 1 };
		int64_t vid;

		is_int(vendor_add(db, "tester", &beta, &vid, &err), 0, "another vendor is added");
		is_int(assessment_start(db, "tester", vid, row, &fresh, &err), 0,
		    "a new assessment of it starts (%s)", err.msg);
	}
	free(answers_text(db, fresh, &version));
	is_int(version, v_new, "on the new version");
	is_int(engine_checked(db, fresh), 1, "whose capacity question the engine probe checks");
	is_int(engine_checked(db, id), 0, "which the old assessment's version does not say");

	/* A second sync loads nothing more. */
	is_int(questionnaires_sync(db, "tester", &err), 0, "a second sync runs");
	db_int(db, &n, &err, "SELECT count(*) FROM questionnaire WHERE qid = 'llm-inference-isolation'",
	    NULL);
	is_int(n, 2, "and loads nothing more");

	memset(&st, 0, sizeof st);
	is_int(audit_verify(db, &st, &err), 0, "audit verify runs (%s)", err.msg);
	is_int(st.bad_seq, 0, "the chain is intact (%s)", st.problem);
	ok(st.entries > 0, "over %lld entries", (long long)st.entries);

	free(before);
	free(after);
	buf_free(&old);
	buf_free(&cur);
	db_close(db);
	unlink(path);
	{
		char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);

		unlink(wal), unlink(shm);
		free(wal), free(shm);
	}
	free(path);
	rmdir(dir);
	return tap_done();
}
