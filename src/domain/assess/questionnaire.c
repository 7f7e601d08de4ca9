/*
 * questionnaire.c: a questionnaire's in-memory form (struct questionnaire,
 * the format is questionnaires/FORMAT.md) freed, and a question found by id
 * through the form's index. The form is filled as a file is checked
 * (questionnaire-check.c); everything that reads a questionnaire asks it here.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "finding.h"
#include "probe.h"
#include "questionnaire.h"
#include "vendor.h"
#include "jsonpos.h"

void
questionnaire_free(struct questionnaire *q)
{
	if (q == NULL)
		return;
	for (int i = 0; i < q->nquestions; i++) {
		free(q->questions[i].choices);
		free(q->questions[i].by_value);
		free(q->questions[i].bands);
		free(q->questions[i].checks);
		free(q->questions[i].references);
	}
	free(q->questions);
	free(q->by_id);
	free(q->sections);
	cJSON_Delete(q->root);
	free(q);
}

int
questionnaire_find(const struct questionnaire *q, const char *question_id)
{
	int lo = 0, hi;

	if (q == NULL)
		return -1;
	if (q->by_id == NULL) {
		for (int i = 0; i < q->nquestions; i++)
			if (strcmp(q->questions[i].id, question_id) == 0)
				return i;
		return -1;
	}
	/* The first of equal ids: the leftmost match in the sorted index. */
	hi = q->nquestions;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(q->questions[q->by_id[mid]].id, question_id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < q->nquestions && strcmp(q->questions[q->by_id[lo]].id, question_id) == 0 ?
	    q->by_id[lo] : -1;
}
