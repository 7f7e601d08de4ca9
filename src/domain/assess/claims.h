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

/*
 * The evidence claims are judged on: runs as JSON, oldest first, each
 * {id, endpoint, status, results [{probe, verdict, reason, details}],
 * findings [{id, probe, code, severity, message, evidence}]}, and the
 * endpoints [{endpoint, tenants}] (an endpoint without credentials is one
 * tenant). Only completed runs count; for each probe
 * the newest completed result on the endpoint is the one judged.
 */
int claims_evidence_load(struct db *db, int64_t vendor_id, cJSON **runs, cJSON **endpoints,
    struct aerr *err);

/*
 * Every claim of one assessment: answers is {question_id: value}. One claim
 * per testable answered question and endpoint (endpoint null when the vendor
 * has none). Each claim: {question_id, question, answer, endpoint, status
 * (confirmed|contradicted|consistent|untested), reason, probes [{probe,
 * run_id, verdict}], contradicting [{code, finding_id, run_id, probe, message,
 * evidence}], measure {probe, value, measured, accepted_up_to, tolerance} or
 * null, and for a number the endpoint records (the advertised context)
 * endpoint_record and record_mismatch}. Consistent: the evidence agrees but
 * does not cover the claim (a pass outside its scope, a size accepted but not
 * intact). endpoints may give each one's context (its record).
 */
cJSON *claims_judge(const struct questionnaire *q, const cJSON *answers, const cJSON *runs,
    const cJSON *endpoints);

/*
 * The findings still open in runs (as claims_evidence_load gives them, or a
 * report's probe_runs): those of the newest completed result of each probe on
 * each endpoint, a later run of the same probe closing what an earlier one
 * found. Returns the worst severity (SEV_*, -1 for none) and copies its code;
 * *probed is 1 when any run completed.
 */
int claims_open_findings(const cJSON *runs, char *code, size_t code_len, int *probed);

/* The open findings of runs counted by severity (SEV_*): the counts the
 * rating reads, for every surface that shows a count. */
void claims_open_counts(const cJSON *runs, int counts[SEV_COUNT]);

/* Marks each finding of runs {open: bool, superseded_by_run: id or null}. */
void claims_mark_open(cJSON *runs);

#endif
