/*
 * fuzz-questionnaire.c: questionnaire files (questionnaire_check) as a
 * stranger might write them. A file is either refused with at least one
 * problem line "NAME:LINE:COL: ..." or parsed; for a parsed one every
 * question's allowed values, a typed answer and its risk are exercised, and
 * an answer the parser made must pass answer_check and type back.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "questionnaire.h"
#include "fuzz.h"

static void
try_answer(const struct q_question *qq, const char *text)
{
	struct aerr err = { 0 };
	cJSON *v = NULL;

	if (answer_from_text(qq, text, &v, &err) == 0) {
		char *back;

		FUZZ_ASSERT(v != NULL);
		FUZZ_ASSERT(answer_check(qq, v, &err) == 0);
		back = answer_to_text(qq, v);
		FUZZ_ASSERT(back != NULL);
		(void)answer_risk(qq, v);
		free(back);
		cJSON_Delete(v);
	} else {
		FUZZ_ASSERT(err.code == AV_USAGE && err.msg[0] != '\0');
	}
}

FUZZ_TARGET(questionnaire)
{
	static const char *const answers[] = { "yes", "no", "3", "24h", "2026-11-30", "a,b", "" };
	struct buf problems;
	struct questionnaire *q = NULL;
	int n;

	buf_init(&problems);
	n = questionnaire_check("q.json", (const char *)data, size, &problems, &q);
	if (n > 0) {
		FUZZ_ASSERT(q == NULL);
		FUZZ_ASSERT(strncmp(problems.data, "q.json:", 7) == 0);
		FUZZ_ASSERT(problems.len > 0 && problems.data[problems.len - 1] == '\n');
	} else {
		FUZZ_ASSERT(n == 0 && q != NULL && problems.len == 0);
		for (int i = 0; i < q->nquestions; i++) {
			const struct q_question *qq = &q->questions[i];
			char *allowed = question_allowed(qq);

			FUZZ_ASSERT(allowed != NULL);
			free(allowed);
			FUZZ_ASSERT(questionnaire_find(q, qq->id) == i);
			for (size_t a = 0; a < sizeof answers / sizeof answers[0]; a++)
				try_answer(qq, answers[a]);
			for (int c = 0; c < qq->nchoices; c++)
				try_answer(qq, qq->choices[c].value);
		}
		questionnaire_free(q);
	}
	buf_free(&problems);
	return 0;
}
