/*
 * rating.h: the one rating scale, the same words in the CLI, the TUI and
 * every report. An assessment is rated from its answers' risks; a vendor's
 * overall rating in a signed report combines its assessments with the
 * findings (claims that the evidence contradicts are findings too). Each
 * rule is also a sentence, printed where the rating is shown.
 */
#ifndef AIVET_RATING_H
#define AIVET_RATING_H

/* In order of concern: a vendor's overall rating is its worst. */
enum rating {
	RATING_NOT_ASSESSED,          /* nothing to rate: no assessment, no run */
	RATING_ACCEPTABLE,
	RATING_INCOMPLETE,            /* required answers missing, nothing worse known */
	RATING_CONCERNS,
	RATING_UNACCEPTABLE,
	RATING_COUNT
};

const char *rating_name(enum rating r);
/* The rating of a name, or -1. */
int rating_parse(const char *name);

/* worst_risk: the worst risk of the answered questions (RISK_NONE..RISK_CRITICAL,
 * questionnaire.h); answered and unanswered_required as in assessment_score. */
enum rating assessment_rating(int worst_risk, int answered, int unanswered_required);
extern const char assessment_rating_rule[];

/* worst_assessment: the worst rating of the vendor's assessments
 * (RATING_NOT_ASSESSED for none); worst_finding: the worst severity of its
 * findings (SEV_*, finding.h) or -1; probed: whether any run is included. */
enum rating vendor_rating(enum rating worst_assessment, int worst_finding, int probed);
extern const char vendor_rating_rule[];

#endif
