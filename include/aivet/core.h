/*
 * aivet/core.h: the core layer's public headers: the base (errors, memory,
 * buffers, time, files, text, JSON members), the query layer (db.h), the
 * invocation (av.h), the audit log, the evidence store and its key, the
 * severity order, JSON positions, time zones and the embedded files. The
 * core calls no other layer.
 */
#ifndef AIVET_CORE_H
#define AIVET_CORE_H

#include "base.h"
#include "db.h"
#include "av.h"
#include "audit.h"
#include "evidence.h"
#include "evidence-key.h"
#include "severity.h"
#include "jsonpos.h"
#include "zone.h"
#include "embedded.h"

#endif
