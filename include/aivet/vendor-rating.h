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

/* The vendors (active ones unless all, by name), each with its rating: the
 * TUI's vendor list. */
int vendor_list_rated(struct db *db, int all, struct vendor_list *out, struct aerr *err);

/* Calls each with every vendor (active ones unless all, by name), rated, one
 * at a time: the record and its rating are valid during the call only. What
 * "vendor list" streams. */
int vendor_each_rated(struct db *db, int all, void (*each)(const struct vendor *v, void *ctx),
    void *ctx, struct aerr *err);

/* The one JSON form of a vendor: its row, then endpoint_list when it has one,
 * then rating, rating_basis and draft when it is rated, then in_work. */
cJSON *vendor_to_json(const struct vendor *v);

/* One vendor with its endpoint_list (archived endpoints too) and its rating:
 * "vendor show" and the TUI's vendor screen. */
int vendor_show_load(struct db *db, int64_t id, struct vendor *out, struct aerr *err);

/* The SQL of the ids of the vendors with anything to rate (for IN and NOT IN). */
#define VENDOR_RATED_IDS "SELECT a.vendor_id FROM assessment a UNION SELECT e.vendor_id " \
	"FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id WHERE r.status = 'completed'"

#endif
