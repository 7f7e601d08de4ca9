/*
 * report-collect.h: how report_collect's files share the work of gathering
 * the record, private to the report's room: report.c reads the rows
 * (report-rows.c copies their columns), report-evidence.c turns exchanges and stored files into the bundle's
 * evidence/ files, report-judge.c judges the claims and rates the vendor
 * on what was gathered.
 */
#ifndef AIVET_REPORT_COLLECT_H
#define AIVET_REPORT_COLLECT_H

#include "aivet/db.h"
#include "report-doc.h"

/* ---- reading rows (report-rows.c) ---- */

/* A text column copied; NULL for NULL. */
char *report_col_dup(struct db_stmt *st, int i);
/* A column that holds a JSON document: parsed, kept as a string when it does
 * not parse, NULL for NULL. */
cJSON *report_col_json(struct db_stmt *st, int i);
/* The array V of N elements grown by one. */
void *report_grow(void *v, size_t n, size_t size);

/* ---- evidence files (report-evidence.c) ---- */

/* Adds a file to the bundle's list; the report owns PATH from then on. */
void report_file_add(struct report *r, char *path, const void *data, size_t len);
/* Copies a stored file (answer attachment, incident evidence) into evidence/. */
int report_file_evidence(struct db *db, struct report *r, int64_t evidence_id, struct report_evidence *out,
    struct aerr *err);
/* The run's exchanges, each written to evidence/ and cited by the run. */
int report_run_exchanges(struct db *db, struct report *r, struct report_run *run, struct aerr *err);

/* ---- judging (report-judge.c) ---- */

/* Claims and ratings judged once on the report's own runs, and each finding
 * open or superseded as the rating counts it. */
void report_judge(struct report_doc *d, struct assessment **loaded);
/* The summary: the findings and claims counted and the lists of the open
 * findings of high severity or worse and the contradicted claims. */
void report_summarise(struct report_doc *d);

#endif
