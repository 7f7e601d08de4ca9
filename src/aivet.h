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
#include <getopt.h>
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
	/* The terminal UI, which "aivet tui" opens: the program hands it to the
	 * command line, which does not call the other front end. May be NULL. */
	int (*tui)(struct aivet *av, struct aerr *err);
	/* The (sub)command running, set by cmd_run() for its usage and options. */
	const struct cmd_entry *cmd;
	const struct cmd_entry *cmd_group;   /* the command whose subcommand it is, or NULL */
	char cmd_path[64];                   /* "incident task add" */
};

/* Opens (creating and migrating) the database on first use (av.c). */
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
/* The table registry (audit.c): every table of the schema and its kind. */
enum audit_table_kind {
	AUDIT_TABLE_SEALED,   /* each row's hash is in the audit entry that wrote it */
	AUDIT_TABLE_DERIVED,  /* rebuilt from sealed rows */
	AUDIT_TABLE_CONTENT,  /* named by the SHA-256 of its bytes (blob) */
	AUDIT_TABLE_LOG,      /* the hash-chained audit log itself */
	AUDIT_TABLE_SCHEMA,   /* the store's own bookkeeping (schema version) */
};
struct audit_table {
	const char *name;
	enum audit_table_kind kind;
	const char *sealed_by;  /* sealed: the object type whose entries seal its rows */
};
extern const struct audit_table *const audit_tables;   /* ends with a NULL name */
const struct audit_table *audit_table_lookup(const char *name);
const char *audit_table_kind_name(enum audit_table_kind k);
/* The registry and the seals' parts as 'aivet audit tables --json' prints them. */
cJSON *audit_registry_json(void);
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
/* One entry of the log as 'audit log' prints it. */
struct audit_entry {
	int64_t seq, object_id;
	const char *at, *actor, *action, *object_type, *details, *entry_hash;
};
/* The newest limit entries, oldest first, each handed to fn (valid during the call). */
int audit_log_newest(struct db *db, int64_t limit, void (*fn)(const struct audit_entry *e, void *ctx),
    void *ctx, struct aerr *err);
/* The last entry's number (0: the log is empty). */
int audit_last_seq(struct db *db, int64_t *seq, struct aerr *err);
/* Whether entry seq's hash is hash: 0 it is, 1 it is not (or there is no such entry). */
int audit_hash_is(struct db *db, int64_t seq, const char *hash, struct aerr *err);

/* ---- commands (commands.c and cmd-*.c) ----
 *
 * A command declares what it takes, as tmux does: its positional targets and
 * a table of options, each with its argument's name and a help line. One
 * parser (opt_next) walks the table, the usage line and --help are printed
 * from it, and tests/cli/cli-options.sh checks that aivet(1) names every option.
 *
 * Adding an option: a line in the subcommand's table and a case in its
 * opt_next() loop. Adding a subcommand: a function and a line in its
 * command's subcommand table. Adding a command: a file src/cmd-NAME.c
 * exporting "const struct cmd_entry cmd_NAME_entry", named in commands.c.
 */

/* How an option shows in the usage line ("[--x ARG]" unless said otherwise). */
enum {
	OPT_REQUIRED = 1 << 0,  /* "--out DIR", no brackets (the command checks it) */
	OPT_MANY = 1 << 1,      /* may repeat: "[--credential LABEL=REF]..." */
	OPT_OR = 1 << 2,        /* an alternative to the one before: "[--key NAME | --pubkey FILE]" */
	OPT_WITH = 1 << 3,      /* goes with the one before: "[--window-start TIME --window-end TIME]" */
	OPT_UNDER = 1 << 4,     /* optional, only with the one before: "[--file PATH [--effective DATE]]" */
	OPT_FORM = 1 << 5,      /* starts the command's other form: "... | probe run --all ..." */
	OPT_OPTARG = 1 << 6,    /* the argument may be left out: "[--eu-data [yes|no]]" */
};

struct opt {
	const char *name;   /* the long name without "--"; NULL ends the table */
	int id;             /* what opt_next() returns for it: > 0, unique in the table, not : or ? */
	const char *arg;    /* the argument's name as usage shows it ("0-4", "USD"); NULL: a flag */
	const char *help;   /* one line for --help */
	unsigned flags;     /* OPT_* above */
};

/* What a positional names. The framework resolves a declared one before the
 * command reads it (opt_next), and target_resolve() resolves one by hand. */
enum target_kind {
	TARGET_END,         /* ends a command's args[] */
	TARGET_WORD,        /* taken as written (a file, a text, a name to create) */
	TARGET_VENDOR,      /* VENDOR: a vendor's name or id */
	TARGET_ENDPOINT,    /* VENDOR/NAME: an endpoint */
	TARGET_ASSESSMENT,  /* ID: an assessment */
	TARGET_INCIDENT,    /* ID: an incident */
	TARGET_RUN,         /* RUN: a probe run's id */
};
#define CMD_ARGS_MAX 4
/* A positional a command declares: its kind, and whether it may be left out
 * (only the last ones may). */
struct cmd_arg {
	enum target_kind kind;
	int optional;
};

/* A command's args[]: ARGS({ TARGET_ENDPOINT, 0 }, { TARGET_WORD, 1 }). */
#define ARGS(...) ((const struct cmd_arg[]){ __VA_ARGS__, { TARGET_END, 0 } })
/* A command that takes no positionals: any one is "unexpected". */
#define ARGS_NONE ((const struct cmd_arg[]){ { TARGET_END, 0 } })

/* A command, or a subcommand in its command's table. */
struct cmd_entry {
	const char *name;
	const char *targets;    /* positionals as usage shows them ("VENDOR/NAME", "[VENDOR]"), or NULL */
	const struct opt *opts; /* NULL: no options */
	const char *summary;    /* one line */
	int (*exec)(struct aivet *av, int argc, char **argv, struct aerr *err);
	/* A command with subcommands has exec NULL and this table, ending in an
	 * entry whose name is NULL; cmd_run() dispatches and prints their help. */
	const struct cmd_entry *subs;
	/* Its positionals, ending in TARGET_END, or NULL when exec checks them
	 * itself. When declared, opt_next() refuses too few or too many, in one
	 * wording for all, and resolves each target: the parser's target[i] is
	 * the id of positional i (0 for a word or one left out). */
	const struct cmd_arg *args;
};

extern const struct cmd_entry *const cmd_table[];
const struct cmd_entry *cmd_find(const char *name);
/* The command, or subcommand of subs, a mistyped word most likely meant
 * (one edit for up to four letters, else two; a swapped pair counts one), or NULL. */
const char *cmd_suggest(const char *typed);
const char *subcmd_suggest(const struct cmd_entry *subs, const char *typed);
/* Runs one full command line (argv[0] is the command name): finds the
 * (sub)command, prints its help for -h/--help, else calls its exec with
 * av->cmd pointing at it and argv[0] its name. */
int cmd_run(struct aivet *av, int argc, char **argv, struct aerr *err);
/* The usage line of av->cmd (without "usage: aivet "), built from its table. */
void cmd_usage(const struct aivet *av, struct buf *out);
/* A bad-input error (AV_USAGE) followed by av->cmd's usage line. */
int usage_error(const struct aivet *av, struct aerr *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define OPT_MAX 40   /* options in one table at most */

/*
 * The one option parser: GNU long options ("--x ARG", "--x=ARG", unambiguous
 * prefixes), options and positionals in any order, "--" ends the options.
 *	struct opt_parser p;
 *	opt_begin(&p, av, argc, argv);
 *	while ((c = opt_next(&p, err)) > 0)
 *		switch (c) { case O_JSON: json = 1; break; ... p.arg ... }
 *	if (c < 0)
 *		return err->code;
 *	... positionals are p.argv[p.ind] to p.argv[p.argc - 1] ...
 * An unknown option, one that belongs to another subcommand, or a missing
 * value is reported in err (AV_USAGE, with the usage line) and gives -1.
 */
struct opt_parser {
	int argc;
	char **argv;
	int ind;              /* once opt_next() gave 0: the first positional */
	char *arg;            /* the current option's argument (NULL for a flag) */
	const char *shorts;   /* single-letter options whose id is the letter ("hV"), or NULL */
	int in_order;         /* stop at the first positional (global options) */
	struct aivet *av;
	int64_t target[CMD_ARGS_MAX];   /* the declared targets' ids (struct cmd_entry's args) */
	struct option lo[OPT_MAX + 1];   /* private: the table as getopt_long reads it */
};
void opt_begin(struct opt_parser *p, struct aivet *av, int argc, char **argv);
int opt_next(struct opt_parser *p, struct aerr *err);
/* The table of a subcommand whose one option is --json. */
extern const struct opt opt_json_only[];
/* Parses a subcommand declared with opt_json_only and its positionals (the
 * entry's args, counted and resolved by opt_next): *json, the first
 * positional at argv[*first]; refusals exit 2 with the usage line. */
int opt_json_args(struct aivet *av, int argc, char **argv, int *json, int *first, struct aerr *err);
/* Takes the next word as the current option's argument (an OPT_OPTARG
 * option given "--eu-data no" rather than "--eu-data=no"); NULL at the end. */
char *opt_take(struct opt_parser *p);
/* Prints a table's options as --help does (main's global options). */
void cmd_print_options(FILE *out, const struct opt *opts);

/* The one resolver of VENDOR (name or id) and VENDOR/NAME targets: the row's
 * id, or AV_USAGE naming what is unknown and where to list them. */
int target_resolve(struct db *db, enum target_kind t, const char *arg, int64_t *id, struct aerr *err);

/* Prints a JSON array element by element (for long lists), in the bytes
 * cJSON_Print gives. */
struct json_stream {
	long n;
};
void json_stream_begin(struct json_stream *js);
void json_stream_item(struct json_stream *js, cJSON *item);   /* prints and frees item */
void json_stream_end(struct json_stream *js);

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
/* Adds "VENDOR/NAME" from two columns of a row, or null when the name column is NULL. */
void json_add_endpoint_ref(cJSON *o, const char *key, struct db_stmt *st, int vendor_col, int name_col);
/* Archives one vendor or endpoint row (table "vendor" or "endpoint") with its audit
 * entry, inside the caller's transaction; refuses one archived already. */
int record_archive(struct db *db, const char *actor, const char *table, int64_t id, const char *shown,
    struct aerr *err);

/* One credential reference of an endpoint (never the secret). */
struct credential {
	char *label, *ref;
	char *org;            /* NULL: null (no organisation named) */
};

/* An endpoint as "endpoint show --json" prints it: fields named as the JSON keys. */
struct endpoint {
	int64_t id;
	char *vendor, *name;
	char *ref;            /* "VENDOR/NAME" */
	char *api, *url, *model;
	int64_t context_tokens;
	int allow_insecure_http;
	int has_price_in, has_price_out;   /* 0: the price is null */
	double price_in_per_mtok, price_out_per_mtok;
	char *options;        /* the settings as stored (a JSON object's text), or NULL: {} */
	char *status, *created_at, *updated_at;
	struct credential *credentials;    /* by label */
	size_t ncredentials;
};
struct endpoint_list {
	struct endpoint *items;
	size_t n;
};
void endpoint_free(struct endpoint *e);
void endpoint_list_free(struct endpoint_list *l);
int endpoint_get(struct db *db, int64_t id, struct endpoint *out, struct aerr *err);
/* The endpoints (of one vendor unless vendor_id is 0; active ones, every one with
 * all) by vendor and name. */
int endpoint_list_load(struct db *db, int64_t vendor_id, int all, struct endpoint_list *out,
    struct aerr *err);
/* The one JSON form of an endpoint (endpoint list/show --json, vendor show, the report). */
cJSON *endpoint_to_json(const struct endpoint *e);
cJSON *endpoint_list_to_json(const struct endpoint_list *l);

/* A vendor as "vendor list --json" prints it: fields named as the JSON keys. */
struct vendor_verdict;
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
/* The one JSON form of a vendor: its row, then endpoint_list when it has one,
 * then rating, rating_basis and draft when it is rated. */
cJSON *vendor_to_json(const struct vendor *v);
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
	char *org_label[ENDPOINT_MAX_CREDS];         /* --credential-org LABEL=ORG */
	const char *org[ENDPOINT_MAX_CREDS];         /* point into the spec given */
	int norgs;
	cJSON *options;   /* KEY=VALUE settings, or NULL */
};
/* Adds one "LABEL=env:VAR" or "LABEL=file:PATH" (spec must outlive f), checked. */
int endpoint_input_credential(struct endpoint_input *f, const char *spec, struct aerr *err);
/* A price in USD per million tokens, 0 to 1,000,000; what names it in the message. */
int endpoint_price_parse(const char *what, const char *s, double *out, struct aerr *err);
/* Adds one "LABEL=ORG": the organisation (account) the credential LABEL belongs to. */
int endpoint_input_credential_org(struct endpoint_input *f, const char *spec, struct aerr *err);
void endpoint_input_free(struct endpoint_input *f);
/* Each validates, writes in one transaction with its audit entry, and prints nothing. */
int endpoint_add(struct db *db, const char *actor, const char *vendor,
    const struct endpoint_input *in, int64_t *id, struct aerr *err);
int endpoint_edit(struct db *db, const char *actor, const char *ref, const struct endpoint_input *in,
    struct aerr *err);
int endpoint_archive(struct db *db, const char *actor, const char *ref, struct aerr *err);
/* The plain-text view of an endpoint, as "endpoint show" and the TUI print it. */
void endpoint_describe(const struct endpoint *e, struct buf *out);

/* ---- credentials (credref.c) ---- */

/* A credential reference is "env:VAR" or "file:PATH"; never the secret itself. */
int credref_check(const char *ref, struct aerr *err);
/* Resolves the reference into sodium_malloc'ed memory; free with credref_free. */
int credref_resolve(const char *ref, char **secret, size_t *len, struct aerr *err);
/* As credref_resolve, for a probe run by runner of the endpoint's credential
 * label: refused (AV_USAGE, naming who set it and the setting that would
 * allow it) unless runner set that reference or allows it in
 * CONFIG/credentials-allowed. */
int credref_read(struct db *db, const char *runner, int64_t endpoint_id, const char *label,
    const char *ref, char **secret, size_t *len, struct aerr *err);
void credref_free(char *secret, size_t len);

/* ---- URLs (url.c) ---- */
int url_check(const char *url, int allow_insecure_http, struct aerr *err);
int url_is_loopback_host(const char *host);
/* True when the URL carries a credential (user:password@, ?key=...): such a
 * URL, stored before aivet refused them, must not be copied anywhere. */
int url_has_credential(const char *url);

/* ---- evidence store (evidence.c) ---- */

/* Stores bytes once by SHA-256 (inside the caller's transaction). */
int blob_put(struct db *db, const void *data, size_t len, char sha[65], struct aerr *err);
/* Stores what probe run run is receiving as a sealed box to seal_pk (a crypto_box
 * public key), replacing a plaintext copy; the sealing is recorded under actor in
 * blob_seal and the audit log. Content an evidence item names, or a finished run
 * recorded, is never sealed (the triggers and PostgreSQL's function refuse it). */
int blob_put_sealed(struct db *db, const char *actor, int64_t run, const void *data, size_t len,
    const unsigned char *seal_pk, char sha[65], struct aerr *err);
int blob_get(struct db *db, const char *sha, struct buf *out, int *encrypted, struct aerr *err);
const char *media_type_for(const char *name);
/* The largest file kept as evidence; a larger one is refused before it is read. */
#define EVIDENCE_FILE_MAX ((size_t)1 << 30)
/* An evidence row for stored content (kind "file" or "exchange"), its new id in *id. */
int evidence_insert(struct db *db, const char *actor, const char *kind, const char *sha,
    const char *name, const char *media_type, size_t size, const char *effective_date,
    int64_t *id, struct aerr *err);
/* Copies a file into the store and adds an evidence row plus its audit entry. */
int evidence_add_file(struct db *db, const char *actor, const char *path, const char *effective_date,
    int64_t *id, struct aerr *err);
/* The evidence a probe finding cites, by id, and the finding as "CODE (severity):
 * message" (summary "" when there is no such finding); *ids is the caller's to free. */
int finding_evidence_ids(struct db *db, int64_t finding_id, char *summary, size_t n, int64_t **ids,
    size_t *nids, struct aerr *err);
/* The newest exchange a finding cites whose response held other tenants'
 * canaries (readable, not sealed), or 0 when none did. */
int finding_leak_evidence(struct db *db, int64_t finding_id, int64_t *id, struct aerr *err);
/* The name of a piece of evidence wherever it is shown, as in a report
 * bundle's evidence/: "exchange-ID.json" for an exchange (kind "exchange" or
 * NULL), "file-ID-NAME" for a file (NAME: original_name with path separators
 * and blanks as '_', at most 79 bytes). ID is the evidence id. */
#define EVIDENCE_NAME_MAX 128
void evidence_file_name(int64_t id, const char *kind, const char *original_name, char *out, size_t n);

/* ---- a piece of evidence as JSON (evidence-json.c) ---- */

/* As "evidence show --json" prints it; sealed content stays sealed. */
int evidence_json(struct db *db, int64_t id, cJSON **out, struct aerr *err);
/* The same, with sealed bodies opened by the evidence key when open_leaked
 * (--include-leaked-content, for this one call only). */
int evidence_build(struct db *db, int64_t id, int open_leaked, cJSON **out, struct aerr *err);

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
extern const struct embedded_file embedded_pg_migrations[];   /* db/pg/ */
extern const struct embedded_file embedded_questionnaires[];

#endif
