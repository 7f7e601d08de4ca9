/*
 * aivet/domain-audit.h: the audit and evidence room (src/domain/audit/): the audit checks,
 * evidence as JSON, probe runs as records and their settling, the database as a
 * whole (copy, roles).
 */
#ifndef AIVET_DOMAIN_AUDIT_H
#define AIVET_DOMAIN_AUDIT_H

#include "audit-checks.h"
#include "evidence-json.h"
#include "run-query.h"
#include "run-settle.h"
#include "db-admin.h"

#endif
