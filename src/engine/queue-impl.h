/*
 * queue-impl.h: what the queue (probe-queue.c) and the worker
 * (probe-worker.c) share: the probe options a queued run keeps, as JSON and
 * back, and the database's clock for leases.
 */
#ifndef AIVET_QUEUE_IMPL_H
#define AIVET_QUEUE_IMPL_H

#include "probe.h"

/* The options a queued run is sent with (budget included), as a JSON object. */
cJSON *queue_opts_to_json(const struct probe_opts *po);
/* Back into *po; strings point into o, which must outlive po. */
void queue_opts_from_json(const cJSON *o, struct probe_opts *po);
/* SQL for the database's clock now, as aivet writes time (leases are read against it). */
const char *queue_now_sql(struct db *db);

#endif
