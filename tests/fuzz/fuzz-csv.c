/*
 * fuzz-csv.c: importing an answer sheet (assessment_import_csv) from
 * arbitrary bytes, into a real database holding a draft assessment of the
 * bundled llm-inference-isolation questionnaire. Bad sheets must be refused
 * whole: a refusal changes nothing, and the audit chain stays intact.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "questionnaire.h"
#include "assess.h"
#include "fuzz.h"

static struct db *db;
static struct assessment *asmt;
static char sheet_path[256];

static void
setup(void)
{
	const char *dir = fuzz_tmpdir("csv");
	char *path;
	struct aerr err = { 0 };
	/* Added as aivet adds it, so the vendor row is sealed and the chain verifies. */
	struct vendor_input vin = { .name = "Acme" };
	int64_t vendor, qrow, id;

	path = xasprintf("%s/aivet.db", dir);
	snprintf(sheet_path, sizeof sheet_path, "%s/sheet.csv", dir);
	if (db_open(path, &db, &err) != 0 || db_migrate(db, &err) != 0 ||
	    questionnaires_sync(db, "fuzz", &err) != 0 ||
	    db_exec(db, &err, "PRAGMA synchronous = OFF", "") != 0 ||
	    vendor_add(db, "fuzz", &vin, &vendor, &err) != 0 ||
	    questionnaire_lookup(db, "llm-inference-isolation", &qrow, &err) != 0 ||
	    assessment_start(db, "fuzz", vendor, qrow, &id, &err) != 0 ||
	    assessment_load(db, id, &asmt, &err) != 0)
		die("fuzz-csv: setup: %s", err.msg);
	free(path);
}

FUZZ_TARGET(csv)
{
	static int imports;
	struct aerr err = { 0 };
	struct buf problems;
	int64_t before, after;
	int changed = 0, rc;

	if (db == NULL)
		setup();
	fuzz_write_file(sheet_path, data, size);
	buf_init(&problems);
	if (db_int(db, &before, &err, "SELECT count(*) FROM audit_log", "") != 0)
		die("fuzz-csv: %s", err.msg);
	rc = assessment_import_csv(db, "fuzz", asmt, sheet_path, &problems, &changed, &err);
	if (db_int(db, &after, &err, "SELECT count(*) FROM audit_log", "") != 0)
		die("fuzz-csv: %s", err.msg);
	if (rc != 0) {
		FUZZ_ASSERT(err.msg[0] != '\0' && changed == 0 && after == before);
		FUZZ_ASSERT(strstr(err.msg, sheet_path) != NULL);
	} else {
		FUZZ_ASSERT(problems.len == 0 && (after > before) == (changed > 0));
	}
	/* The chain is checked now and then: it grows with every import. */
	if (changed > 0 && ++imports % 64 == 0) {
		struct audit_status st;

		FUZZ_ASSERT(audit_verify(db, &st, &err) == 0 && st.bad_seq == 0);
	}
	buf_free(&problems);
	return 0;
}
