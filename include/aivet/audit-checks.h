/*
 * aivet/audit-checks.h: "audit verify" as every caller runs it (audit-checks.c,
 * the domain): the core's chain check with the cross-checks of the modules
 * whose rows the chain protects, which the domain hands to the core.
 */
#ifndef AIVET_AUDIT_CHECKS_H
#define AIVET_AUDIT_CHECKS_H

#include "audit.h"

/* The cross-checks (incident entries, finding severities), ending in NULL. */
extern const struct audit_check *const audit_checks[];
/* audit_verify_with(db, audit_checks, st, err): the chain intact, the rows it
 * sealed unchanged, every module's cross-check, the schema. */
int audit_verify(struct db *db, struct audit_status *st, struct aerr *err);

#endif
