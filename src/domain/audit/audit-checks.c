/*
 * audit-checks.c: the cross-checks "audit verify" runs once the chain is
 * intact. The table names the modules whose rows the chain protects; the
 * domain, above them all, hands it to the audit log (audit_verify_with), so
 * that the core names no module above it and the command line none below.
 */
#include "config.h"

#include <stddef.h>

#include "aivet/domain.h"

/* What "audit verify" checks besides the chain: every module whose rows the
 * chain protects, listed here where all of them may be named. */
const struct audit_check *const audit_checks[] = {
	&incident_audit_check,
	&finding_audit_check,
	NULL
};

int
audit_verify(struct db *db, struct audit_status *st, struct aerr *err)
{
	return audit_verify_with(db, audit_checks, st, err);
}
