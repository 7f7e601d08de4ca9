/*
 * aivet.h: the core contract every part of aivet shares. Errors travel as
 * values (struct aerr), commands are descriptors registered in one table,
 * and every database write goes through a transaction that also appends
 * to the hash-chained audit log.
 */
#ifndef AIVET_H
#define AIVET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"

/* Everything a command needs: the database, who acts, and global options. */
struct aivet {
	const char *db_path;   /* resolved path of the database */
	int db_named;          /* db_path was named with --db, not found by default */
	struct db *db;           /* opened lazily by av_db() */
	char actor[128];
	const char *progname;
	int is_demo;
	/* Called once each time av_db() opens the database: the command layer
	 * settles what a dead process left behind. May be NULL. */
	void (*on_open)(struct aivet *av);
};

/* Opens (creating and migrating) the database on first use. */
struct db *av_db(struct aivet *av, struct aerr *err);
void av_close(struct aivet *av);

/* ---- database: the query layer is db.h ---- */

/* ---- audit log (audit.c) ---- */

/* Appends an entry inside the caller's open transaction. details may be NULL. */
int audit_append(struct db *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err);
struct audit_status {
	int64_t entries;
	char head[65];
	int64_t bad_seq;      /* first bad entry, 0 when intact */
	char problem[256];
};
int audit_verify(struct db *db, struct audit_status *st, struct aerr *err);
/* A cross-check audit_verify runs once the chain is intact: a module whose
 * rows the chain protects provides one (setting st->bad_seq and st->problem
 * on a mismatch). audit.c runs the table, ending in NULL, that the command
 * table's file assembles, so the audit log needs none of those modules. */
struct audit_check {
	const char *name;
	int (*check)(struct db *db, struct audit_status *st, struct aerr *err);
};
extern const struct audit_check *const audit_checks[];
/* The canonical encoding hashed into entry_hash (documented in aivet(1)). */
void audit_entry_hash(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, char out[65]);
/* The same with row_hash, the seal of the recorded row (NULL: the entry seals none). */
void audit_entry_hash_sealed(int64_t seq, const char *at, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const char *details,
    const char *prev_hash, const char *row_hash, char out[65]);

/* ---- commands (commands.c and cmd-*.c) ---- */

struct cmd_entry {
	const char *name;
	const char *usage;     /* "vendor add NAME [--criticality 0-4] ..." */
	const char *summary;   /* one line */
	int (*exec)(struct aivet *av, int argc, char **argv, struct aerr *err);
};

/* A subcommand of a command with several (vendor add, vendor list, ...). */
struct subcmd {
	const char *name;
	const char *usage;
	const char *summary;
	int (*exec)(struct aivet *av, int argc, char **argv, struct aerr *err);
};

extern const struct cmd_entry *const cmd_table[];
const struct cmd_entry *cmd_find(const char *name);
/* The command, or subcommand of subs, a mistyped word most likely meant
 * (one edit for up to four letters, else two; a swapped pair counts one), or NULL. */
const char *cmd_suggest(const char *typed);
const char *subcmd_suggest(const struct subcmd *subs, const char *typed);
/* Runs one full command line (argv[0] is the command name). */
int cmd_run(struct aivet *av, int argc, char **argv, struct aerr *err);
/* Dispatches argv[1] to subs; prints help for --help / no subcommand. */
int subcmd_dispatch(const struct cmd_entry *ce, const struct subcmd *subs,
    struct aivet *av, int argc, char **argv, struct aerr *err);
/* True when argv holds -h/--help before "--"; prints usage then. */
int want_help(int argc, char **argv, const char *usage, const char *summary);
/* Standard option errors from getopt: unknown option, missing argument. */
int usage_error(struct aerr *err, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints a cJSON value to stdout (indented, trailing newline) and frees it. */
void json_emit(cJSON *v);
/* Prints a JSON array element by element (for long lists). */
struct json_stream {
	char *buf;
	size_t cap;
	long n;
};
void json_stream_begin(struct json_stream *js);
void json_stream_item(struct json_stream *js, cJSON *item);   /* prints and frees item */
void json_stream_end(struct json_stream *js);

/* ---- vendors and endpoints (vendor.c) ---- */

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

/* ---- writing endpoints (endpoint.c) ---- */

#define ENDPOINT_MAX_CREDS 16
extern const char *const endpoint_apis[];   /* NULL-terminated */
/* An endpoint's fields as the CLI's options and the TUI's form give them; a
 * set_* flag says the field was given (an edit changes only those). */
struct endpoint_input {
	const char *name, *api, *url, *model;
	int64_t context;
	double price_in, price_out;
	int insecure;
	int set_name, set_api, set_url, set_model, set_context, set_price_in, set_price_out, set_insecure;
	char *cred_label[ENDPOINT_MAX_CREDS];
	const char *cred_ref[ENDPOINT_MAX_CREDS];   /* point into the spec given */
	int ncreds;
	const char *remove[ENDPOINT_MAX_CREDS];
	int nremove;
	cJSON *options;   /* KEY=VALUE settings, or NULL */
};
/* Adds one "LABEL=env:VAR" or "LABEL=file:PATH" (spec must outlive f), checked. */
int endpoint_input_credential(struct endpoint_input *f, const char *spec, struct aerr *err);
void endpoint_input_free(struct endpoint_input *f);
/* Each validates, writes in one transaction with its audit entry, and prints nothing. */
int endpoint_add(struct db *db, const char *actor, const char *vendor,
    const struct endpoint_input *in, int64_t *id, struct aerr *err);
int endpoint_edit(struct db *db, const char *actor, const char *ref, const struct endpoint_input *in,
    struct aerr *err);
int endpoint_archive(struct db *db, const char *actor, const char *ref, struct aerr *err);
/* The plain-text view of endpoint_json's object, as "endpoint show" prints it. */
void endpoint_describe(const cJSON *e, struct buf *out);

/* ---- credentials (credref.c) ---- */

/* A credential reference is "env:VAR" or "file:PATH"; never the secret itself. */
int credref_check(const char *ref, struct aerr *err);
/* Resolves the reference into sodium_malloc'ed memory; free with credref_free. */
int credref_resolve(const char *ref, char **secret, size_t *len, struct aerr *err);
void credref_free(char *secret, size_t len);

/* ---- URLs (url.c) ---- */
int url_check(const char *url, int allow_insecure_http, struct aerr *err);
int url_is_loopback_host(const char *host);
/* True when the URL carries a credential (user:password@, ?key=...): such a
 * URL, stored before aivet refused them, must not be copied anywhere. */
int url_has_credential(const char *url);

/* ---- evidence store (evidence.c) ---- */

/* Stores bytes once by SHA-256 (inside the caller's transaction). With seal_pk
 * (a crypto_box public key) the blob is kept as a sealed box. */
int blob_put(struct db *db, const void *data, size_t len, const unsigned char *seal_pk,
    char sha[65], struct aerr *err);
int blob_get(struct db *db, const char *sha, struct buf *out, int *encrypted, struct aerr *err);
const char *media_type_for(const char *name);
/* The largest file kept as evidence; a larger one is refused before it is read. */
#define EVIDENCE_FILE_MAX ((size_t)1 << 30)
/* Copies a file into the store and adds an evidence row plus its audit entry. */
int evidence_add_file(struct db *db, const char *actor, const char *path, const char *effective_date,
    int64_t *id, struct aerr *err);
/* The evidence a probe finding cites, by id, and the finding as "CODE (severity):
 * message" (summary "" when there is no such finding); *ids is the caller's to free. */
int finding_evidence_ids(struct db *db, int64_t finding_id, char *summary, size_t n, int64_t **ids,
    size_t *nids, struct aerr *err);

/* ---- Markdown (report-md.c) ---- */
/* Appends s for a Markdown table cell or line: control characters escaped
 * (text_escape), HTML markup and entities escaped, '|' escaped, and each line
 * break replaced by newline ("<br>" or " "). */
void md_escape(struct buf *b, const char *s, const char *newline);

/* ---- TUI (tui.c) ---- */
int tui_main(struct aivet *av, struct aerr *err);

/* ---- embedded files (generated embedded.c) ---- */
struct embedded_file {
	const char *name;
	const unsigned char *data;
	size_t len;
};
extern const struct embedded_file embedded_migrations[];
extern const struct embedded_file embedded_questionnaires[];

#endif
