/*
 * rating.c: the rating scale and its two rules (rating.h). A known high or
 * critical risk is never hidden behind "incomplete": unacceptable comes
 * first, then missing answers, then medium risks.
 */
#include "config.h"

#include <string.h>

#include "finding.h"
#include "questionnaire.h"
#include "rating.h"

static const char *const names[RATING_COUNT] = {
	"not-assessed", "acceptable", "incomplete", "concerns", "unacceptable",
};

const char assessment_rating_rule[] =
    "unacceptable when an answer carries high or critical risk; otherwise incomplete while a "
    "required question is unanswered; otherwise concerns when an answer carries medium risk; "
    "otherwise acceptable. The score (0 to 100) is the weighted mean risk of the answers: it ranks "
    "assessments with the same rating.";

const char vendor_rating_rule[] =
    "the worst of: each assessment's rating; unacceptable for a high or critical finding (a claim "
    "the evidence contradicts is a high finding); concerns for a medium finding; acceptable when "
    "probes ran and found nothing above low. Not assessed when there is neither an assessment nor "
    "a probe run.";

const char *
rating_name(enum rating r)
{
	return (unsigned)r < RATING_COUNT ? names[r] : "unknown";
}

int
rating_parse(const char *name)
{
	for (int i = 0; name != NULL && i < RATING_COUNT; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

enum rating
assessment_rating(int worst_risk, int answered, int unanswered_required)
{
	if (worst_risk >= RISK_HIGH)
		return RATING_UNACCEPTABLE;
	if (unanswered_required > 0 || answered == 0)
		return RATING_INCOMPLETE;
	if (worst_risk == RISK_MEDIUM)
		return RATING_CONCERNS;
	return RATING_ACCEPTABLE;
}

enum rating
vendor_rating(enum rating worst_assessment, int worst_finding, int probed)
{
	enum rating r = worst_assessment;
	enum rating f = worst_finding >= SEV_HIGH ? RATING_UNACCEPTABLE : worst_finding == SEV_MEDIUM ?
	    RATING_CONCERNS : probed ? RATING_ACCEPTABLE : RATING_NOT_ASSESSED;

	return f > r ? f : r;
}
