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
#include <sqlite3.h>
#include <cjson/cJSON.h>

/* Exit codes: a stable contract, documented in aivet(1). */
enum {
	AV_OK = 0,       /* success */
	AV_FINDINGS = 1, /* findings at or above the threshold, or verification failed */
	AV_USAGE = 2,    /* usage error or bad input; nothing was changed */
	AV_RUNTIME = 3,  /* runtime error: network, database, file system */
};

/* An error as a value: a code from the enum above and a message for humans. */
struct aerr {
	int code;
	char msg[1024];
};

int aerr_set(struct aerr *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void aerr_clear(struct aerr *err);
/* Prefixes the current message with context ("file.json: ..."). */
int aerr_prefix(struct aerr *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The one exit for the truly fatal (out of memory, broken invariants). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_init(struct buf *b);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *buf_steal(struct buf *b);
void buf_free(struct buf *b);

/* Time: evidence and the audit log use UTC ISO 8601 with milliseconds and Z. */
int64_t now_ms(void);                     /* wall clock, ms since the epoch */
void fmt_time_ms(int64_t ms, char out[32]); /* 2026-11-30T12:34:56.789Z */
void now_iso(char out[32]);
/* Parses ISO 8601 (date, date-time with Z or +hh:mm, optional fraction) into ms. */
int parse_time(const char *s, int64_t *ms, struct aerr *err);
/* As parse_time, also giving the zone's offset east of UTC in minutes (0 for Z or a date). */
int parse_time_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err);
/* Whole seconds in a given zone: 2026-03-02T09:00:00-05:00 (Z for offset 0). */
void fmt_time_offset(int64_t ms, int offset_min, char out[40]);

/* Files. */
int mkdir_p(const char *path, unsigned mode, struct aerr *err);
int read_file(const char *path, size_t max, struct buf *out, struct aerr *err);
/* A directory written whole or not at all: outdir_begin makes a fresh
 * directory beside dir (mkdtemp, so nothing planted at a guessable name is
 * used), outdir_commit gives it mode and renames it to dir (which must be
 * absent or empty), outdir_discard removes it and what is inside without
 * following symbolic links. */
int outdir_begin(const char *dir, char **tmp, struct aerr *err);
int outdir_commit(const char *tmp, const char *dir, unsigned mode, struct aerr *err);
void outdir_discard(const char *tmp);
/* Writes atomically: temp file in the same directory, fsync, rename. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode, struct aerr *err);
void sha256_hex(const void *data, size_t len, char out[65]);
/* Opens path for reading only when it is a regular file (a FIFO or device is
 * refused before any read, without blocking) and reads at most max bytes. */
int read_regular_file(const char *path, size_t max, struct buf *out, struct aerr *err);

/* Text from outside (a vendor's reply, a file, a name someone typed) made safe
 * to show: C0 and C1 control characters, DEL, bidirectional overrides and
 * invalid UTF-8 become visible escapes (\x1b, \u202e); with keep_lines, LF
 * and tab pass through. Escaping twice changes nothing. Returns malloc'ed text. */
char *text_escape(const char *s, size_t n, int keep_lines);
/* Length of the UTF-8 sequence at p (at most n bytes) with its code point,
 * or 0 when it is invalid (overlong, surrogate, beyond U+10FFFF, cut short). */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);
/* True for code points that must not appear in names or on a terminal:
 * C0, DEL, C1, and the bidirectional embeddings, overrides and isolates. */
int unsafe_codepoint(uint32_t cp);
void hex_encode(const unsigned char *in, size_t n, char *out);
/* Random identifier-like string of n characters from [A-Za-z0-9]. */
void random_alnum(char *out, size_t n);
/* RFC 4122 version 4 UUID. */
void uuid4(char out[37]);

/* Everything a command needs: the database, who acts, and global options. */
struct aivet {
	const char *db_path;   /* resolved path of the database */
	sqlite3 *db;           /* opened lazily by av_db() */
	char actor[128];
	const char *progname;
	int is_demo;
};

/* Opens (creating and migrating) the database on first use. */
sqlite3 *av_db(struct aivet *av, struct aerr *err);
void av_close(struct aivet *av);

/* ---- database (db.c) ---- */

int db_open(const char *path, sqlite3 **out, struct aerr *err);
int db_migrate(sqlite3 *db, struct aerr *err);
int db_schema_version(void);   /* newest migration this binary carries */
/* Write transactions: BEGIN IMMEDIATE so the busy timeout applies up front. */
int db_begin(sqlite3 *db, struct aerr *err);
int db_commit(sqlite3 *db, struct aerr *err);
void db_rollback(sqlite3 *db);
/* Runs sql with "?" parameters bound from a format: 'i' int64, 't' text (NULL ok),
 * 'd' double, 'b' blob (ptr, size_t). Returns SQLITE_OK/DONE mapped to 0. */
int db_exec(sqlite3 *db, struct aerr *err, const char *sql, const char *fmt, ...);
/* Prepares sql and binds as db_exec; caller steps and finalizes. */
sqlite3_stmt *db_prepare(sqlite3 *db, struct aerr *err, const char *sql, const char *fmt, ...);
int db_err(sqlite3 *db, struct aerr *err, const char *what);
/* First column of the first row as int64; returns 0 on success, 1 when no row. */
int db_int(sqlite3 *db, int64_t *out, struct aerr *err, const char *sql, const char *fmt, ...);
const char *col_text(sqlite3_stmt *st, int i); /* "" for NULL */

/* ---- audit log (audit.c) ---- */

/* Appends an entry inside the caller's open transaction. details may be NULL. */
int audit_append(sqlite3 *db, const char *actor, const char *action,
    const char *object_type, int64_t object_id, const cJSON *details, struct aerr *err);
struct audit_status {
	int64_t entries;
	char head[65];
	int64_t bad_seq;      /* first bad entry, 0 when intact */
	char problem[256];
};
int audit_verify(sqlite3 *db, struct audit_status *st, struct aerr *err);
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
/* Parses a whole decimal number in [lo, hi] or explains which option was wrong. */
int parse_int_opt(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out, struct aerr *err);

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
/* Adds a string, or null for NULL. */
void json_add_str(cJSON *o, const char *k, const char *v);
/* A string member, or NULL when absent or not a string. */
const char *json_get_str(const cJSON *o, const char *k);

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
int vendor_lookup(sqlite3 *db, const char *name_or_id, int64_t *id, struct aerr *err);
/* Resolves "VENDOR/NAME" to an endpoint id. */
int endpoint_lookup(sqlite3 *db, const char *ref, int64_t *id, struct aerr *err);
/* The columns vendor_row_json reads, in order; append WHERE/ORDER BY. */
#define VENDOR_SELECT "SELECT v.id, v.name, v.criticality, v.contact, v.notes, v.status, " \
	"v.created_at, v.updated_at, " \
	"(SELECT count(*) FROM endpoint e WHERE e.vendor_id = v.id AND e.status = 'active'), " \
	"(SELECT count(*) FROM incident i WHERE i.vendor_id = v.id AND i.status <> 'closed') " \
	"FROM vendor v"
cJSON *vendor_row_json(sqlite3_stmt *st);
/* Adds "VENDOR/NAME" from two columns of a row, or null when the name column is NULL. */
void json_add_endpoint_ref(cJSON *o, const char *key, sqlite3_stmt *st, int vendor_col, int name_col);
/* Archives one vendor or endpoint row (table "vendor" or "endpoint") with its audit
 * entry, inside the caller's transaction; refuses one archived already. */
int record_archive(sqlite3 *db, const char *actor, const char *table, int64_t id, const char *shown,
    struct aerr *err);
int vendor_json(sqlite3 *db, int64_t id, cJSON **out, struct aerr *err);
/* A vendor's name and an endpoint's "VENDOR/NAME" by id; "" when there is no such row. */
int vendor_name(sqlite3 *db, int64_t id, char *out, size_t n, struct aerr *err);
int endpoint_ref(sqlite3 *db, int64_t id, char *out, size_t n, struct aerr *err);
/* The vendors by name (active ones, every one with all), as vendor_row_json gives them. */
int vendor_list_json(sqlite3 *db, int all, cJSON **out, struct aerr *err);
/* The endpoints (of one vendor unless vendor_id is 0; active ones, every one with
 * all) by vendor and name, as endpoint_json gives them. */
int endpoint_list_json(sqlite3 *db, int64_t vendor_id, int all, cJSON **out, struct aerr *err);
/* A vendor's fields as the CLI's options and the TUI's form give them; a
 * set_* flag says the field was given (an edit changes only those). */
struct vendor_input {
	const char *name, *contact, *notes;
	int64_t criticality;   /* 0-4; 2 when adding without set_crit */
	int set_name, set_crit, set_contact, set_notes;
};
/* Each validates, writes in one transaction with its audit entry, and prints nothing. */
int vendor_add(sqlite3 *db, const char *actor, const struct vendor_input *in, int64_t *id,
    struct aerr *err);
int vendor_edit(sqlite3 *db, const char *actor, const char *ref, const struct vendor_input *in,
    struct aerr *err);
/* Archives the vendor named by ref (NAME or ID) and its active endpoints. */
int vendor_archive(sqlite3 *db, const char *actor, const char *ref, struct aerr *err);
int endpoint_json(sqlite3 *db, int64_t id, cJSON **out, struct aerr *err);

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
int endpoint_add(sqlite3 *db, const char *actor, const char *vendor,
    const struct endpoint_input *in, int64_t *id, struct aerr *err);
int endpoint_edit(sqlite3 *db, const char *actor, const char *ref, const struct endpoint_input *in,
    struct aerr *err);
int endpoint_archive(sqlite3 *db, const char *actor, const char *ref, struct aerr *err);
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
int blob_put(sqlite3 *db, const void *data, size_t len, const unsigned char *seal_pk,
    char sha[65], struct aerr *err);
int blob_get(sqlite3 *db, const char *sha, struct buf *out, int *encrypted, struct aerr *err);
const char *media_type_for(const char *name);
/* The largest file kept as evidence; a larger one is refused before it is read. */
#define EVIDENCE_FILE_MAX ((size_t)1 << 30)
/* Copies a file into the store and adds an evidence row plus its audit entry. */
int evidence_add_file(sqlite3 *db, const char *actor, const char *path, const char *effective_date,
    int64_t *id, struct aerr *err);
/* The evidence a probe finding cites, by id, and the finding as "CODE (severity):
 * message" (summary "" when there is no such finding); *ids is the caller's to free. */
int finding_evidence_ids(sqlite3 *db, int64_t finding_id, char *summary, size_t n, int64_t **ids,
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
