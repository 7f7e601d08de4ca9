/*
 * finding.h: the one registry of findings. Every finding aivet can raise has
 * an entry here: its code (a stable contract), severity, title, what it
 * means, what a vendor should do, the questionnaire answers it disproves and
 * the controls it bears on. Probes raise findings by entry; SARIF rules, the
 * report, OSCAL, the TUI and the man page's table are all read from it.
 * Severities are one ordered enum (severity.h).
 */
#ifndef AIVET_FINDING_H
#define AIVET_FINDING_H

#include "severity.h"

/* X(NAME) for every finding, worst first; the code string is NAME itself,
 * and its severity and text are in finding.c. */
#define FINDING_CODES(X) \
	X(LEAK_CROSS_TENANT) \
	X(PLACEHOLDER_SUBSTITUTION) \
	X(PREFIX_CACHE_CONTENT_RECOVERED) \
	X(LEAK_CROSS_REQUEST) \
	X(OVERSIZE_ACCEPTED) \
	X(SILENT_TRUNCATION) \
	X(KV_POOL_BELOW_CONTEXT) \
	X(ENGINE_VERSION_AFFECTED) \
	X(CLAIM_CONTRADICTED) \
	X(CAPACITY_BELOW_ADVERTISED) \
	X(ENGINE_NODES_DIFFER) \
	X(ERROR_IN_200) \
	X(MALFORMED_ACCEPTED) \
	X(PREFIX_CACHE_SHARED_ACROSS_TENANTS) \
	X(USAGE_ANOMALY) \
	X(LOAD_BREAKS_OTHER_TENANT) \
	X(STREAM_ERROR_AFTER_200) \
	X(SERVER_ERROR_ON_BAD_INPUT) \
	X(USAGE_MISSING)

enum finding_code {
#define FINDING_ENUM(name) F_##name,
	FINDING_CODES(FINDING_ENUM)
#undef FINDING_ENUM
	F_COUNT
};

struct finding_info {
	enum finding_code id;
	const char *code;             /* the code, spelt as its name in FINDING_CODES */
	enum severity severity;
	const char *title;            /* one line */
	const char *meaning;          /* what it shows about the vendor */
	const char *remedy;           /* what the vendor should do */
	/* Questionnaire answers the finding disproves, as "question_id" (any
	 * answer that claims the tested behaviour). NULL-terminated. */
	const char *const *contradicts;
	/* Controls: NIST SP 800-53 Rev. 5 ids ("SC-4"), HIPAA Security Rule
	 * sections ("164.312(a)(1)"), NIST AI RMF 1.0 subcategories ("MEASURE 2.7"). */
	const char *const *nist;
	const char *const *hipaa;
	const char *const *ai_rmf;
	/* The most a probe may raise it to, where what it found makes it worse
	 * (KV_POOL_BELOW_CONTEXT on a disaggregated node); below severity (unset):
	 * never raised. audit verify holds a stored severity within the two. */
	enum severity worst;
};

const struct finding_info *finding_info(enum finding_code c);
/* The entry of a code string, or NULL. */
const struct finding_info *finding_lookup(const char *code);
/* Whether the finding disproves an answer to question_id. */
int finding_contradicts(const struct finding_info *f, const char *question_id);
/* The most severe a finding of this code may be recorded as (its worst, or its
 * severity when it is never raised). */
enum severity finding_worst(const struct finding_info *f);

#endif
