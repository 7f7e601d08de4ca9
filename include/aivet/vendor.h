/*
 * aivet/vendor.h: vendors and reading endpoints (vendor.c, the domain):
 * names and their checks, lookups, listings and writes; and a vendor's terms
 * (vendor-terms.c): durations as answers give them and the notification
 * time the vendor committed to.
 */
#ifndef AIVET_VENDOR_H
#define AIVET_VENDOR_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"
#include "provider.h"

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
/* The columns vendor_list_load reads, in order; append WHERE/ORDER BY (bench/db
 * times sqlite3 running it). */
#define VENDOR_SELECT "SELECT v.id, v.name, v.criticality, v.contact, v.notes, v.status, " \
	"v.created_at, v.updated_at, " \
	"(SELECT count(*) FROM endpoint e WHERE e.vendor_id = v.id AND e.status = 'active'), " \
	"(SELECT count(*) FROM incident i WHERE i.vendor_id = v.id AND i.status <> 'closed') " \
	"FROM vendor v"
/* The same rows as PostgreSQL plans them best: a count per vendor from one
 * grouped pass, where a correlated count is a subplan run for each vendor
 * (1,000 vendors: 1.4 ms against 2.8). SQLite runs the form above faster. */
#define VENDOR_SELECT_PG "SELECT v.id, v.name, v.criticality, v.contact, v.notes, v.status, " \
	"v.created_at, v.updated_at, coalesce(e.n, 0), coalesce(i.n, 0) FROM vendor v " \
	"LEFT JOIN (SELECT vendor_id, count(*) AS n FROM endpoint WHERE status = 'active' " \
	"GROUP BY vendor_id) e ON e.vendor_id = v.id " \
	"LEFT JOIN (SELECT vendor_id, count(*) AS n FROM incident WHERE status <> 'closed' " \
	"GROUP BY vendor_id) i ON i.vendor_id = v.id"
/* Adds "VENDOR/NAME" from two columns of a row, or null when the name column is NULL. */
void json_add_endpoint_ref(cJSON *o, const char *key, struct db_stmt *st, int vendor_col, int name_col);
/* Archives one vendor or endpoint row (table "vendor" or "endpoint") with its audit
 * entry, inside the caller's transaction; refuses one archived already. */
int record_archive(struct db *db, const char *actor, const char *table, int64_t id, const char *shown,
    struct aerr *err);

/* An endpoint's record (struct endpoint, endpoint_get, endpoint_list_load) is the
 * vendors layer's (provider.h). */
/* The one JSON form of an endpoint (endpoint list/show --json, vendor show, the report). */
cJSON *endpoint_to_json(const struct endpoint *e);
cJSON *endpoint_list_to_json(const struct endpoint_list *l);
/* An endpoint's engine as endpoint_to_json writes it: {"kind", "nodes": [URL...],
 * "credential": REF|null}, or null when none is set. */
cJSON *engine_conf_to_json(const struct engine_conf *c);

/* A vendor as "vendor list --json" prints it: fields named as the JSON keys. */
struct vendor_verdict;
/* A round of a questionnaire in work for a vendor. */
struct vendor_round {
	int64_t id, round;
	char questionnaire[64];
	char status[16];      /* draft, in_review */
	int answered, asked;  /* its questions answered, of those asked (assessment_score's) */
};

/* "assessment 2: scoring-test round 2, draft, 3 of 7 answered": a round in work
 * as vendor show and the vendor screen say it. */
void vendor_round_text(const struct vendor_round *r, char *out, size_t n);

struct vendor {
	int64_t id;
	char *name;
	int64_t criticality;
	char *contact, *notes;   /* NULL: null */
	char *status, *created_at, *updated_at;
	int64_t endpoints, open_incidents;   /* active endpoints, incidents not closed */
	/* Every endpoint, archived ones too (vendor show), when has_endpoint_list. */
	int has_endpoint_list;
	struct endpoint_list endpoint_list;
	/* Its rating (vendor-rating.h), or NULL when not rated: JSON without rating,
	 * rating_basis and draft. Owned. */
	struct vendor_verdict *rating;
	/* vendor show: every round in work (draft or in review), oldest first
	 * (JSON in_work [{id, questionnaire, round, status}]). Owned. */
	struct vendor_round *in_work;
	size_t nin_work;
	int has_in_work;
};
struct vendor_list {
	struct vendor *items;
	size_t n;
};
void vendor_free(struct vendor *v);
void vendor_list_free(struct vendor_list *l);
/* The vendor's row (no endpoint_list, no rating). */
int vendor_get(struct db *db, int64_t id, struct vendor *out, struct aerr *err);
/* The vendors by name (active ones, every one with all), without ratings. */
int vendor_list_load(struct db *db, int all, struct vendor_list *out, struct aerr *err);
/* Calls each with every vendor (active ones unless all, by name), one at a
 * time, the record valid during the call: a list of many is never held whole. */
int vendor_each(struct db *db, int all, void (*each)(const struct vendor *v, void *ctx), void *ctx,
    struct aerr *err);
/* A vendor's own part of its JSON form: its row, then endpoint_list when it
 * has one; and in_work when it has it. vendor_to_json (vendor-rating.h) puts
 * the rating between them. */
cJSON *vendor_row_to_json(const struct vendor *v);
void vendor_in_work_add_json(cJSON *o, const struct vendor *v);
/* A vendor's name and an endpoint's "VENDOR/NAME" by id; "" when there is no such row. */
int vendor_name(struct db *db, int64_t id, char *out, size_t n, struct aerr *err);
int endpoint_ref(struct db *db, int64_t id, char *out, size_t n, struct aerr *err);
/* Whether there is any vendor, archived or not: 1 or 0, -1 on error (err set).
 * One row is looked at, so a big database answers at once. */
int vendor_any(struct db *db, struct aerr *err);
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

/* ---- a vendor's terms (vendor-terms.c): what assessments and incidents both read ---- */

/* "24h", "5d", "90m", "2w" -> seconds; -1 when malformed. */
int duration_seconds(const char *s, int64_t *out);

/*
 * The vendor's notification SLA for incidents, from its answers to
 * exposure_notification_time (llm-inference-isolation) and
 * breach_notification_time (hipaa-ai-vendor): for each, the answer of the
 * newest final assessment, else of the newest draft; answers that are no
 * duration are skipped; the shorter of the two wins. Returns 0 and fills
 * *seconds and source ("assessment 3, hipaa-ai-vendor
 * breach_notification_time"), 1 when no assessment answers them, -1 on a
 * database error (err set).
 */
int vendor_notification_sla(struct db *db, int64_t vendor_id, int64_t *seconds, char *source,
    size_t source_len, struct aerr *err);

#endif
