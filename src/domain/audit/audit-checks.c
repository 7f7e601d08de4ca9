/*
 * audit-checks.c: the cross-checks "audit verify" runs once the chain is
 * intact. The table names the domain modules whose rows the chain protects;
 * it sits at the top of the library, which every program links, so that the
 * audit log (the core) runs them without naming any module above it, and
 * without the command line.
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
