/*
 * aivet/domain-incident.h: the incidents room (src/domain/incident/): incidents, their
 * timelines and notification clocks, the due list and a timeline's verification.
 */
#ifndef AIVET_DOMAIN_INCIDENT_H
#define AIVET_DOMAIN_INCIDENT_H

#include "incident.h"

#endif
