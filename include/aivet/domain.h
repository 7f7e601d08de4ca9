/*
 * aivet/domain.h: the domain's public headers: vendors and endpoints,
 * questionnaires and assessments, ratings, incidents, reports and their
 * signatures and time-stamps, the dashboard, probe runs as records, and the
 * database as a whole. It calls the engine, the vendors layer and the core;
 * the two front ends (src/cli/, src/tui/) call it.
 */
#ifndef AIVET_DOMAIN_H
#define AIVET_DOMAIN_H

#include "engine.h"
#include "vendor.h"
#include "endpoint.h"
#include "evidence-json.h"
#include "questionnaire.h"
#include "assess.h"
#include "rating.h"
#include "vendor-rating.h"
#include "incident.h"
#include "report.h"
#include "tsa.h"
#include "minisign.h"
#include "approval.h"
#include "dashboard.h"
#include "run-query.h"
#include "run-settle.h"
#include "db-admin.h"

#endif
