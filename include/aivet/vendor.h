/*
 * aivet/vendor.h: vendors and reading endpoints (vendor.c, the domain):
 * names and their checks, lookups, listings and writes.
 */
#ifndef AIVET_VENDOR_H
#define AIVET_VENDOR_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"

/* ---- vendors and endpoints (vendor.c) ---- */

/* The active vendors' names (or, with endpoints, the active endpoints as
 * VENDOR/NAME) that start with prefix, sorted, each handed to fn: what shell
 * completion offers, in one query. */
int vendor_names_from(struct db *db, int endpoints, const char *prefix,
    void (*fn)(const char *name, void *ctx), void *ctx, struct aerr *err);

/* 0 for text fit to show, 1 when it is not valid UTF-8, 2 when it holds a
 * control character or a bidirectional override (unsafe_codepoint). */
int text_unsafe(const char *s);
/* Refuses unsafe text for a name-like value (an actor, a reviewer), echoing
 * it escaped: "WHAT 'x\u202e' may not contain ...". */
int safe_text_check(const char *what, const char *s, struct aerr *err);
/* Names of vendors and endpoints: non-empty, no '/', not all digits, and safe_text_check's rules. */
int name_check(const char *what, const char *name, struct aerr *err);
/* Resolves NAME or numeric ID to an active-or-archived vendor id. */
int vendor_lookup(struct db *db, const char *name_or_id, int64_t *id, struct aerr *err);
/* Resolves "VENDOR/NAME" to an endpoint id. */
int endpoint_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err);
/* The columns vendor_row_json reads, in order; append WHERE/ORDER BY. */
#define VENDOR_SELECT "SELECT v.id, v.name, v.criticality, v.contact, v.notes, v.status, " \
	"v.created_at, v.updated_at, " \
	"(SELECT count(*) FROM endpoint e WHERE e.vendor_id = v.id AND e.status = 'active'), " \
	"(SELECT count(*) FROM incident i WHERE i.vendor_id = v.id AND i.status <> 'closed') " \
	"FROM vendor v"
cJSON *vendor_row_json(struct db_stmt *st);
/* Adds "VENDOR/NAME" from two columns of a row, or null when the name column is NULL. */
void json_add_endpoint_ref(cJSON *o, const char *key, struct db_stmt *st, int vendor_col, int name_col);
/* Archives one vendor or endpoint row (table "vendor" or "endpoint") with its audit
 * entry, inside the caller's transaction; refuses one archived already. */
int record_archive(struct db *db, const char *actor, const char *table, int64_t id, const char *shown,
    struct aerr *err);
int vendor_json(struct db *db, int64_t id, cJSON **out, struct aerr *err);
/* A vendor's name and an endpoint's "VENDOR/NAME" by id; "" when there is no such row. */
int vendor_name(struct db *db, int64_t id, char *out, size_t n, struct aerr *err);
int endpoint_ref(struct db *db, int64_t id, char *out, size_t n, struct aerr *err);
/* The vendors by name (active ones, every one with all), as vendor_row_json gives them. */
int vendor_list_json(struct db *db, int all, cJSON **out, struct aerr *err);
/* Whether there is any vendor, archived or not: 1 or 0, -1 on error (err set).
 * One row is looked at, so a big database answers at once. */
int vendor_any(struct db *db, struct aerr *err);
/* The endpoints (of one vendor unless vendor_id is 0; active ones, every one with
 * all) by vendor and name, as endpoint_json gives them. */
int endpoint_list_json(struct db *db, int64_t vendor_id, int all, cJSON **out, struct aerr *err);
/* A vendor's fields as the CLI's options and the TUI's form give them; a
 * set_* flag says the field was given (an edit changes only those). */
struct vendor_input {
	const char *name, *contact, *notes;
	int64_t criticality;   /* 0-4; 2 when adding without set_crit */
	int set_name, set_crit, set_contact, set_notes;
};
/* Each validates, writes in one transaction with its audit entry, and prints nothing. */
int vendor_add(struct db *db, const char *actor, const struct vendor_input *in, int64_t *id,
    struct aerr *err);
int vendor_edit(struct db *db, const char *actor, const char *ref, const struct vendor_input *in,
    struct aerr *err);
/* Archives the vendor named by ref (NAME or ID) and its active endpoints. */
int vendor_archive(struct db *db, const char *actor, const char *ref, struct aerr *err);
int endpoint_json(struct db *db, int64_t id, cJSON **out, struct aerr *err);

#endif
