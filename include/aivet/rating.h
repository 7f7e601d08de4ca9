/*
 * rating.h: the one rating scale, the same words in the CLI, the TUI and
 * every report. An assessment is rated from its answers' risks; a vendor's
 * overall rating in a signed report combines its assessments with the
 * findings (claims that the evidence contradicts are findings too). Each
 * rule is also a sentence, printed where the rating is shown.
 */
#ifndef AIVET_RATING_H
#define AIVET_RATING_H

#include <stddef.h>
#include <stdint.h>

#include "cJSON.h"
#include "severity.h"

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

/* What a final round was approved at: the rating and risk score the
 * approval entry recorded (known 0 when none was, or the round is no final). */
struct approval_at {
	int known;
	enum rating rating;
	double score;
};
/* The one sentence every surface shows of a final round beside what it was
 * approved at: "approved at concerns 8.6; now unacceptable 49.6: 3 claims
 * contradicted (kv_pages_cleared: LEAK_CROSS_TENANT on V/e)", "approved at
 * concerns 8.6; unchanged", or "" when nothing was recorded at approval. */
void rating_since_approval(const struct approval_at *at, enum rating now, double score,
    int contradicted, const char *contradicted_by, char *out, size_t n);

/* A round's status column as a value (its CHECK, db/001-init.sql);
 * ASSESS_STATUS_OTHER: a word this version does not know. */
enum assessment_status { ASSESS_DRAFT, ASSESS_IN_REVIEW, ASSESS_FINAL, ASSESS_STATUS_OTHER };
enum assessment_status assessment_status_of(const char *status);
/* The status column's word; "unknown" for ASSESS_STATUS_OTHER. */
const char *assessment_status_name(enum assessment_status s);
/* The same in a sentence: "in review" for ASSESS_IN_REVIEW. */
const char *assessment_status_words(enum assessment_status s);

/* One round of an assessment as its vendor's rating sees it, rated by
 * assessment_score (contradicted claims counted high). */
struct rated_round {
	int64_t id, round;
	const char *qid;              /* the questionnaire */
	enum assessment_status status;
	enum rating rating;
	double score;
	int contradicted;
	const char *contradicted_by;  /* assessment_score's finding, or NULL */
	struct approval_at approved;  /* a final round's rating at approval */
};

/* A vendor's rating and what it rests on: the one answer every surface shows. */
struct vendor_verdict {
	enum rating rating;
	/* The latest final round of each questionnaire; the worst of them. */
	int nfinal;
	enum rating assessed;         /* RATING_NOT_ASSESSED when no round is final */
	int64_t assessment_id, round;
	char qid[64];
	double score;                 /* that round's risk score */
	struct approval_at approved;  /* what that round was approved at */
	char since_approval[320];     /* rating_since_approval of that round, or "" */
	int contradicted;             /* contradicted claims in those rounds */
	char contradicted_by[160];
	/* The open findings (claims_open_findings) and whether any run completed. */
	int worst_finding;            /* SEV_*, -1 for none */
	char finding[48];
	int probed;
	int open[SEV_COUNT];          /* open findings by severity (claims_open_counts) */
	/* The newest round still in work (draft or in review) that is newer than
	 * its questionnaire's latest final: shown beside, never in its place. */
	int64_t draft_id, draft_round;
	enum assessment_status draft_status;
	enum rating draft_rating;
	double draft_score;
};

/* rounds: the vendor's assessments, oldest first; runs: its probe runs with
 * results and findings (claims.h). */
struct probe_run_list;
/* Whether round i of rounds (oldest first) is one the vendor's rating reads: the
 * latest final round of its questionnaire. The counts a report gives beside
 * the rating (its claims) are of these rounds alone. */
int verdict_reads(const struct rated_round *rounds, int n, int i);
void vendor_verdict(const struct rated_round *rounds, int n, const struct probe_run_list *runs,
    struct vendor_verdict *v);
/* What the rating rests on, in one line: "final round 1 of Q unacceptable
 * (score 59.1); critical finding LEAK_CROSS_TENANT; 11 contradicted claims". */
void vendor_verdict_basis(const struct vendor_verdict *v, char *out, size_t n);
/* The open findings counted, worst first: "1 critical, 2 high" ("none" for none). */
void vendor_verdict_counts(const struct vendor_verdict *v, char *out, size_t n);
/* The round beside it: "draft round 2: incomplete, score 0.0", or "" for none. */
void vendor_verdict_draft(const struct vendor_verdict *v, char *out, size_t n);
/* A list's column beside the rating word: "score 59.1" (then ", approved at
 * concerns 8.6" when the round was approved at another rating or score),
 * "critical LEAK_CROSS_TENANT" or "no final round", then "; draft round 2
 * incomplete" when a round is in work. */
void vendor_verdict_short(const struct vendor_verdict *v, char *out, size_t n);
/* Adds rating (the word), rating_basis (vendor_verdict_basis) and draft ({id,
 * round, status, rating, score} or null) to o: vendor list --json, vendor show
 * --json and the report's summary. */
void vendor_verdict_add_json(cJSON *o, const struct vendor_verdict *v);

#endif
