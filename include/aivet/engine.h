/*
 * aivet/engine.h: the engine's public headers: probing an endpoint (probe.h),
 * the canaries, the registry of findings, the formats a run prints in, the
 * advisories (OSV) engine versions are checked against and the
 * outline a free-form document is shown as.
 * It calls the vendors layer and the core.
 */
#ifndef AIVET_ENGINE_H
#define AIVET_ENGINE_H

#include "vendors.h"
#include "finding.h"
#include "canary.h"
#include "probe-record.h"
#include "probe.h"
#include "run-format.h"
#include "outline.h"
#include "advisory.h"
#include "probe-queue.h"

#endif
