/*
 * run-settle.h: settling the probe runs whose process died, which whoever
 * opens the database for a command calls (main.c), not the database layer.
 */
#ifndef AIVET_RUN_SETTLE_H
#define AIVET_RUN_SETTLE_H

#include "core.h"

/* Marks every run still 'running' whose process is gone as 'interrupted'
 * (one transaction, an audit entry per run); *settled counts them (may be NULL). */
int probe_runs_settle(struct db *db, const char *actor, int *settled, struct aerr *err);

#endif
