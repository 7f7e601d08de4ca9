/*
 * aivet/domain-assess.h: the assessments room (src/domain/assess/): questionnaires, a vendor's
 * answers and their rounds, workbooks, claims checked against probe runs, ratings
 * and two-person approval.
 */
#ifndef AIVET_DOMAIN_ASSESS_H
#define AIVET_DOMAIN_ASSESS_H

#include "questionnaire.h"
#include "assess.h"
#include "rating.h"
#include "vendor-rating.h"
#include "approval.h"

#endif
