/*
 * aivet/domain.h: the domain's public headers: vendors and endpoints,
 * questionnaires and assessments, ratings, incidents, reports and their
 * signatures and time-stamps, the dashboard, probe runs as records, and the
 * database as a whole, one umbrella header per room (src/domain/sign, assess,
 * incident, report, audit; vendors, endpoints, a vendor's terms and the
 * dashboard sit at the top of the folder). The rooms call only down, in the
 * order of HACKING.md's "Who may call whom". It calls the engine, the vendors
 * layer and the core;
 * the two front ends (src/cli/, src/tui/) call it.
 */
#ifndef AIVET_DOMAIN_H
#define AIVET_DOMAIN_H

#include "engine.h"
#include "vendor.h"
#include "endpoint.h"
#include "dashboard.h"
#include "domain-sign.h"
#include "domain-assess.h"
#include "domain-incident.h"
#include "domain-report.h"
#include "domain-audit.h"

#endif
