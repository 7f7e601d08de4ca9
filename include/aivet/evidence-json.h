/*
 * aivet/evidence-json.h: a piece of evidence as JSON (evidence-json.c, the
 * domain), as "evidence show --json" prints it.
 */
#ifndef AIVET_EVIDENCE_JSON_H
#define AIVET_EVIDENCE_JSON_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"

/* ---- a piece of evidence as JSON (evidence-json.c) ---- */

/* As "evidence show --json" prints it; sealed content stays sealed. */
int evidence_json(struct db *db, int64_t id, cJSON **out, struct aerr *err);
/* The same, with sealed bodies opened by the evidence key when open_leaked
 * (--include-leaked-content, for this one call only). */
int evidence_build(struct db *db, int64_t id, int open_leaked, cJSON **out, struct aerr *err);

#endif
