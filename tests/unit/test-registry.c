/*
 * test-registry.c: the registry of findings (src/engine/finding.c) is complete, its
 * severities are ordered once, every answer it says a finding disproves is
 * a question of a bundled questionnaire, and aivet(1)'s table of findings is
 * exactly the registry's (AIVET_PRINT_MAN_TABLE=1 prints the table to paste).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "finding.h"
#include "questionnaire.h"
#include "rating.h"
#include "../lib/tap.h"

static void
join(struct buf *b, const char *prefix, const char *const *ids)
{
	for (size_t i = 0; ids[i] != NULL; i++)
		buf_printf(b, "%s%s", i == 0 ? prefix : ", ", ids[i]);
}

/* The mdoc block aivet(1) must hold for the registry. */
static void
man_table(struct buf *b)
{
	buf_adds(b, ".Bl -tag -width PLACEHOLDER_SUBSTITUTION\n");
	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *f = finding_info((enum finding_code)i);

		buf_printf(b, ".It Li %s\n%s: %s.\n", f->code, severity_name(f->severity), f->title);
		join(b, "Controls: NIST SP 800-53 ", f->nist);
		join(b, "; HIPAA ", f->hipaa);
		join(b, "; NIST AI RMF ", f->ai_rmf);
		buf_adds(b, ".\n");
	}
	buf_adds(b, ".El\n");
}

static void
test_entries(void)
{
	int ordered = 1;

	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *f = finding_info((enum finding_code)i);

		ok(f != NULL && f->code != NULL && (int)f->id == i, "entry %d is filled and in its place", i);
		if (f == NULL || f->code == NULL)
			continue;
		ok(f->title[0] && f->meaning[0] && f->remedy[0], "%s: title, meaning and remedy", f->code);
		ok(f->nist[0] && f->hipaa[0] && f->ai_rmf[0], "%s: NIST, HIPAA and AI RMF references",
		    f->code);
		ok(finding_lookup(f->code) == f, "%s: found by its code", f->code);
		if (i > 0 && f->severity > finding_info((enum finding_code)(i - 1))->severity)
			ordered = 0;
	}
	ok(ordered, "the registry lists findings worst first");
	ok(finding_lookup("NOT_A_CODE") == NULL && finding_lookup(NULL) == NULL, "unknown codes are NULL");
	for (int s = 0; s < SEV_COUNT; s++)
		is_int(severity_rank(severity_name((enum severity)s)), s, "severity %s round trip",
		    severity_name((enum severity)s));
	ok(severity_rank("high") > severity_rank("medium") && severity_rank("critical") > severity_rank("high") &&
	    severity_rank("low") > severity_rank("info"), "severities in order: info low medium high critical");
	is_int(severity_rank("CRITICAL"), -1, "names are exact");
	for (int r = 0; r < RATING_COUNT; r++)
		is_int(rating_parse(rating_name((enum rating)r)), r, "rating %s round trip",
		    rating_name((enum rating)r));
}

/* Every question a finding disproves exists in a bundled questionnaire, or in
 * an earlier version of one (a copy in tests/data: assessments on it keep its
 * ids, and the registry judges them too). */
static void
test_contradicts(void)
{
	static const char *const earlier[] = { "llm-inference-isolation-v2.json", NULL };
	const char *srcdir = getenv("TESTS_SRCDIR") ? getenv("TESTS_SRCDIR") : "tests";
	struct questionnaire *qs[8];
	int nq = 0;

	for (const struct embedded_file *e = embedded_questionnaires; e->name != NULL && nq < 8; e++) {
		struct aerr err = { 0 };

		if (questionnaire_parse(e->name, (const char *)e->data, e->len, &qs[nq], &err) == 0)
			nq++;
	}
	for (int i = 0; earlier[i] != NULL && nq < 8; i++) {
		char *path = xasprintf("%s/data/%s", srcdir, earlier[i]);
		struct aerr err = { 0 };
		struct buf text;

		buf_init(&text);
		if (read_file(path, 1 << 20, &text, &err) == 0 &&
		    questionnaire_parse(earlier[i], text.data, text.len, &qs[nq], &err) == 0)
			nq++;
		else
			printf("# %s: %s\n", path, err.msg);
		buf_free(&text);
		free(path);
	}
	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *f = finding_info((enum finding_code)i);

		for (size_t k = 0; f->contradicts[k] != NULL; k++) {
			int found = 0;

			for (int j = 0; j < nq; j++)
				found |= questionnaire_find(qs[j], f->contradicts[k]) >= 0;
			ok(found, "%s disproves %s, a bundled question", f->code, f->contradicts[k]);
		}
	}
	for (int j = 0; j < nq; j++)
		questionnaire_free(qs[j]);
}

static void
test_man(void)
{
	const char *srcdir = getenv("TESTS_SRCDIR") ? getenv("TESTS_SRCDIR") : "tests";
	char *path = xasprintf("%s/../man/aivet.1", srcdir);
	struct buf want, man;
	struct aerr err = { 0 };
	const char *start, *end;

	buf_init(&want);
	man_table(&want);
	if (getenv("AIVET_PRINT_MAN_TABLE") != NULL)
		fputs(want.data, stderr);
	buf_init(&man);
	if (read_file(path, 4 << 20, &man, &err) != 0) {
		ok(0, "aivet(1) read: %s", err.msg);
	} else {
		start = strstr(man.data, ".Bl -tag -width PLACEHOLDER_SUBSTITUTION\n");
		end = start ? strstr(start, "\n.El\n") : NULL;
		ok(start != NULL && end != NULL, "aivet(1) has the table of findings");
		if (start != NULL && end != NULL) {
			size_t n = (size_t)(end - start) + 5;
			int same = n == want.len && memcmp(start, want.data, n) == 0;

			ok(same, "aivet(1)'s table of findings is the registry's");
			if (!same)
				printf("# run with AIVET_PRINT_MAN_TABLE=1 for the table to paste\n");
		}
	}
	buf_free(&want);
	buf_free(&man);
	free(path);
}

int
main(void)
{
	if (sodium_init() < 0)
		die("sodium");
	test_entries();
	test_contradicts();
	test_man();
	return tap_done();
}
