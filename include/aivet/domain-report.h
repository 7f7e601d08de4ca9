/*
 * aivet/domain-report.h: the reports room (src/domain/report/): the report and its
 * renderers, signed bundles, their verification and RFC 3161 time-stamps
 * (the signatures themselves are the signing room's, domain-sign.h).
 */
#ifndef AIVET_DOMAIN_REPORT_H
#define AIVET_DOMAIN_REPORT_H

#include "report.h"
#include "tsa.h"

#endif
