/*
 * vendor-rating.h: a vendor's rating read from the database, the one answer
 * the dashboard, vendor list and show, the TUI's screens and the report give
 * (vendor-rating.c). The rule itself is rating.c's, on rounds rated as
 * assessment_score rates them (contradicted claims counted high).
 */
#ifndef AIVET_VENDOR_RATING_H
#define AIVET_VENDOR_RATING_H

#include "core.h"
#include "vendor.h"
#include "rating.h"

/* The verdict of one vendor. */
int vendor_rate(struct db *db, int64_t vendor_id, struct vendor_verdict *v, struct aerr *err);

/* The vendors that have anything to rate (an assessment or a completed probe
 * run), active ones unless all, by id; every other vendor is not assessed
 * without a look, which keeps a list of many vendors quick. */
struct vendor_rated {
	int64_t id;
	struct vendor_verdict v;
};
int vendor_rate_all(struct db *db, int all, struct vendor_rated **out, int *n, struct aerr *err);
/* The verdict of id in a vendor_rate_all list, or NULL (not assessed). */
const struct vendor_verdict *vendor_rated_find(const struct vendor_rated *r, int n, int64_t id);
/* A verdict for a vendor with nothing to rate. */
void vendor_verdict_none(struct vendor_verdict *v);

/* Adds to each vendor of a vendor_list_json array its rating (the word),
 * rating_basis and draft (vendor_verdict_add_json). */
int vendor_list_rate(struct db *db, int all, cJSON *list, struct aerr *err);

/* Calls each with every vendor (active ones unless all, by name) as
 * vendor_list_json gives it, rated as vendor_list_rate rates it, one at a
 * time: each takes the object. What "vendor list" streams. */
int vendor_list_rated_each(struct db *db, int all, void (*each)(cJSON *o, void *ctx), void *ctx,
    struct aerr *err);

/* The SQL of the ids of the vendors with anything to rate (for IN and NOT IN). */
#define VENDOR_RATED_IDS "SELECT a.vendor_id FROM assessment a UNION SELECT e.vendor_id " \
	"FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id WHERE r.status = 'completed'"

#endif
