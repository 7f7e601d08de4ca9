/*
 * claims.h: a vendor's answers checked against what its endpoints did. A
 * claim is an answer that asserts a behaviour a probe can test. It is
 * confirmed only when every probe that tests it completed with judged
 * evidence (and enough credentials for tenant isolation) and nothing
 * contradicts it; contradicted when a finding that disproves it was raised
 * (the registry in finding.c says which) or a measurement falls short;
 * untested otherwise, with the reason. assess show and the signed report
 * call the same judgement, so they always agree.
 */
#ifndef AIVET_CLAIMS_H
#define AIVET_CLAIMS_H

#include "aivet/core.h"
#include "aivet/severity.h"
#include "questionnaire.h"
#include "aivet/assess.h"
#include "aivet/run-query.h"

/*
 * The evidence claims are judged on (struct claim_evidence, assess.h): the
 * vendor's completed runs, oldest first, each with its results and, under
 * each result, the findings its probe raised; and its active endpoints by
 * name with the credentials they have (tenants, at least 1) and the context
 * they advertise. Only completed runs count; for each probe the newest
 * completed result on the endpoint is the one judged. claim_evidence_free
 * releases it.
 */
int claims_evidence_load(struct db *db, int64_t vendor_id, struct claim_evidence *ev,
    struct aerr *err);

/*
 * Every claim of one assessment: values[i] is the answer to q->questions[i]
 * (NULL: unanswered). One claim per testable answered question and endpoint
 * (endpoint NULL when the vendor has none; ev may be NULL then). Each claim
 * (struct claim, assess.h) has its status (enum claim_status: confirmed,
 * contradicted, consistent or untested) and reason, the probes that test it with their
 * newest results, the findings that contradict it, what its probe measured,
 * and for a number the endpoint records (the advertised context) that
 * record. Consistent: the evidence agrees but does not cover the claim (a
 * pass outside its scope, a size accepted but not intact).
 */
void claims_judge(const struct questionnaire *q, const cJSON *const *values,
    const struct claim_evidence *ev, struct claim_list *out);

/*
 * The findings still open in runs: those of the newest completed result of
 * each probe on each endpoint, a later run of the same probe closing what an
 * earlier one found. Returns the worst severity (SEV_*, -1 for none) and
 * copies its code (the first raised of that severity); *probed is 1 when any
 * run completed.
 */
int claims_open_findings(const struct probe_run_list *runs, char *code, size_t code_len, int *probed);

/* The open findings of runs counted by severity (SEV_*): the counts the
 * rating reads, for every surface that shows a count. */
void claims_open_counts(const struct probe_run_list *runs, int counts[SEV_COUNT]);

/* Whether a finding of probe in runs->items[i] is open; when it is not, *by
 * is the run whose result of that probe replaced it (0: none did). */
int claims_finding_open(const struct probe_run_list *runs, size_t i, const char *probe, int64_t *by);

/* A run's plan depth ("verify", "diagnose"), newly allocated, or NULL. */
char *claims_plan_depth(const cJSON *plan);

#endif
