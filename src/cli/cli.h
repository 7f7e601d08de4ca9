/*
 * cli/cli.h: the command line's framework, private to the CLI (src/cli/):
 * command descriptors, the one option parser, target resolution and
 * streamed JSON. The CLI is a front end: it includes the library's public
 * headers (include/aivet/) and this one, nothing else of src/.
 */
#ifndef AIVET_CLI_H
#define AIVET_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "aivet/core.h"
#include "aivet/vendors.h"
#include "aivet/engine.h"
#include "aivet/domain.h"

/* ---- the terminal and the standard streams (terminal.c) ---- */
/* The one way text reaches a reader's terminal: the commands' text output
 * goes through these, so a vendor's or colleague's string (an answer, a note,
 * a contact, a header) cannot clear the screen, set the clipboard (OSC 52) or
 * reorder a line: everything text_escape escapes is shown escaped; LF and tab
 * pass. */
void term_write(FILE *f, const char *s);
int term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a cJSON value to stdout (indented, trailing newline) and frees it. */
void json_emit(cJSON *v);
/* Hands the library the command line's callbacks: the fatal message on
 * stderr, the key store's passphrase read from the terminal, its key
 * derivation told on a terminal. */
void cli_terminal_init(void);

/* ---- commands (commands.c and cmd-*.c) ----
 *
 * A command declares what it takes, as tmux's cmd_entry does, with designated
 * fields: its positional targets, a table of options (each with its
 * argument's name and a help line) and an option naming a target. The
 * framework parses the command line by those declarations, counts and
 * resolves the targets, and hands exec the result (struct cmd_args): no
 * command parses argv itself (tests/unit/cmd-decl.sh). The usage line and
 * --help are printed from the same tables, and tests/cli/cli-options.sh
 * checks that aivet(1) names every option.
 *
 * Adding an option: a line in the subcommand's table, and exec reading it
 * with args_has()/args_get() (or args->opt[] in order). Adding a subcommand:
 * a function and a line in its command's subcommand table. Adding a command:
 * a file src/cli/cmd-NAME.c exporting "const struct cmd_entry
 * cmd_NAME_entry", named in commands.c.
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
	OPT_HIDDEN = 1 << 7,    /* not in the usage line nor --help: read only for exec to refuse it
	                         * by name in its own words ("takes no --reviewer: ...") */
};

struct opt {
	const char *name;   /* the long name without "--"; NULL ends the table */
	int id;             /* its id in struct cmd_args: > 0, unique in the table, not : or ? */
	const char *arg;    /* the argument's name as usage shows it ("0-4", "USD"); NULL: a flag */
	const char *help;   /* one line for --help */
	unsigned flags;     /* OPT_* above */
};

/* What a positional (or the entry's target option) names: the framework
 * resolves a declared one before exec runs, by the one resolver, which names
 * an unknown one the same way everywhere. */
enum target_kind {
	TARGET_END,         /* ends a command's args[] */
	TARGET_WORD,        /* taken as written (a file, a text, a name to create) */
	TARGET_VENDOR,      /* VENDOR: a vendor's name or id */
	TARGET_ENDPOINT,    /* VENDOR/NAME: an endpoint */
	TARGET_ASSESSMENT,  /* ID: an assessment */
	TARGET_INCIDENT,    /* ID: an incident */
	TARGET_RUN,         /* RUN: a probe run's id */
	TARGET_CHOICE,      /* one of the words its place in the usage line names ("vendor|endpoint"):
	                     * target[i] is its index */
};
#define CMD_ARGS_MAX 4
/* A positional a command declares: its kind, and whether it may be left out:
 * 0 it must be given, 1 it may be left out, ARG_MANY (the last one only)
 * given once or more ("RUN [RUN...]"). Optional ones are filled from the left
 * while the words given allow, so one before a required one ("[ASSESSMENT]
 * FILE") is left out when one word is given; exec reads what each slot got in
 * the parser's word[i]. */
struct cmd_arg {
	enum target_kind kind;
	int optional;
};
#define ARG_MANY 2
/* The last one only: given any number of times, none included
 * ("[VENDOR/ENDPOINT...]" beside a form without them, "--all"). */
#define ARG_ANY 3

/* A command's args[]: ARGS({ TARGET_ENDPOINT, 0 }, { TARGET_WORD, 1 }). */
#define ARGS(...) ((const struct cmd_arg[]){ __VA_ARGS__, { TARGET_END, 0 } })
/* A command that takes no positionals: any one is "unexpected". */
#define ARGS_NONE ((const struct cmd_arg[]){ { TARGET_END, 0 } })

/* What the framework hands a command's exec, as tmux's args_parse() does:
 * the options as given, already checked against the command's table (an
 * unknown one, one of a sibling's, a missing value are refused before exec
 * runs), its positionals, and the declared targets resolved. */
struct cmd_opt_given {
	int id;                 /* the option's id in the table */
	int64_t target;         /* the id its argument names, for the entry's target option */
	char *arg;              /* its argument (a word of argv), NULL for a flag or an OPT_OPTARG left out */
};
struct cmd_args {
	int argc;               /* the positionals: argv[0] to argv[argc - 1] */
	char **argv;
	int64_t target[CMD_ARGS_MAX];   /* positional i's id, when args declares a target there */
	int64_t *ids;           /* argv[i]'s id (0 for a word): every one of an ARG_MANY or ARG_ANY */
	const char *word[CMD_ARGS_MAX]; /* positional slot i's word as given, NULL when left out */
	int nopt;               /* the options, in the order given */
	struct cmd_opt_given *opt;
};
/* How many times option id was given (0: not at all). */
int args_has(const struct cmd_args *a, int id);
/* The argument option id was last given with, or NULL. */
const char *args_get(const struct cmd_args *a, int id);
/* The id the argument of option id (the entry's target option) last named,
 * resolved by the framework; 0 when it was not given. */
int64_t args_target(const struct cmd_args *a, int id);
/* Each argument of a repeated option in turn: *at starts at 0; NULL at the end.
 *	for (int at = 0; (v = args_next(a, O_CLOCK, &at)) != NULL;) */
const char *args_next(const struct cmd_args *a, int id, int *at);

/* A command, or a subcommand in its command's table, declared with
 * designated fields as tmux's cmd_entry is. */
struct cmd_entry {
	const char *name;
	const char *targets;    /* positionals as usage shows them ("VENDOR/NAME", "[VENDOR]"), or NULL */
	const struct opt *opts; /* NULL: no options */
	const char *summary;    /* one line */
	/* Runs the command on what the framework parsed and resolved. */
	int (*exec)(struct aivet *av, const struct cmd_args *args, struct aerr *err);
	/* A command with subcommands has exec NULL and this table, ending in an
	 * entry whose name is NULL; cmd_run() dispatches and prints their help. */
	const struct cmd_entry *subs;
	/* Its positionals, ending in TARGET_END: every command that runs declares
	 * them (tests/unit/cmd-decl.sh; ARGS_NONE for none). The framework
	 * refuses too few or too many, in one wording for all, and resolves each
	 * target: args->target[i]
	 * is the id of slot i (0 for a word or one left out), args->ids[k] that of
	 * args->argv[k] (every one of an ARG_MANY or ARG_ANY slot). */
	const struct cmd_arg *args;
	/* An option whose argument names a target, as tmux's -t does ("--vendor
	 * VENDOR"): the framework resolves each one given before exec, which reads
	 * the id with args_target(). opt 0: none. */
	struct {
		int opt;
		enum target_kind kind;
	} target;
};

/* One run of the command line: the library's invocation and what only the
 * command line knows, the (sub)command running (set by cmd_run() for its
 * usage and options) and the terminal UI "aivet tui" opens (the program
 * hands it over; the command line does not call the other front end). av
 * comes first: a command is handed &cli->av, and cli_of() finds its run. */
struct cli {
	struct aivet av;
	const struct cmd_entry *cmd;
	const struct cmd_entry *cmd_group;   /* the command whose subcommand it is, or NULL */
	char cmd_path[64];                   /* "incident task add" */
	int (*tui)(struct aivet *av, struct aerr *err);   /* NULL: none */
};
/* The run whose invocation av is: av must be a struct cli's (cmd_run's). */
static inline struct cli *
cli_of(const struct aivet *av)
{
	return (struct cli *)(void *)(uintptr_t)av;
}

extern const struct cmd_entry *const cmd_table[];
const struct cmd_entry *cmd_find(const char *name);
/* The command, or subcommand of subs, a mistyped word most likely meant
 * (one edit for up to four letters, else two; a swapped pair counts one), or NULL. */
const char *cmd_suggest(const char *typed);
const char *subcmd_suggest(const struct cmd_entry *subs, const char *typed);
/* Runs one full command line (argv[0] is the command name): finds the
 * (sub)command, prints its help for -h/--help, else calls its exec with
 * cmd pointing at it and argv[0] its name. */
int cmd_run(struct cli *c, int argc, char **argv, struct aerr *err);
/* The usage line of the command running (cli_of(av)->cmd, without "usage: aivet "), built from its table. */
void cmd_usage(const struct aivet *av, struct buf *out);
/* A bad-input error (AV_USAGE) followed by the running command's usage line. */
int usage_error(const struct aivet *av, struct aerr *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define OPT_MAX 40   /* options in one table at most */

/*
 * The one option parser, run by the framework for every command (and by
 * main for the global options; no command calls it): GNU long options
 * ("--x ARG", "--x=ARG", unambiguous prefixes), options and positionals in
 * any order, "--" ends the options.
 *	struct opt_parser p;
 *	opt_begin(&p, av, argc, argv);
 *	while ((c = opt_next(&p, err)) > 0)
 *		switch (c) { case 'h': ...; ... p.arg ... }
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
	const char *word[CMD_ARGS_MAX]; /* each declared slot's word as given, NULL when left out */
	int64_t *ids;         /* each positional's id, in order (allocated; args_parse keeps it) */
	struct option lo[OPT_MAX + 1];   /* private: the table as getopt_long reads it */
};
void opt_begin(struct opt_parser *p, struct aivet *av, int argc, char **argv);
int opt_next(struct opt_parser *p, struct aerr *err);
/* The table of a subcommand whose one option is --json. */
extern const struct opt opt_json_only[];
/* Prints a table's options as --help does (main's global options). */
void cmd_print_options(FILE *out, const struct opt *opts);

/* Prints a JSON array element by element (for long lists). */
struct json_stream {
	char *buf;
	size_t cap;
	long n;
};
void json_stream_begin(struct json_stream *js);
void json_stream_item(struct json_stream *js, cJSON *item);   /* prints and frees item */
void json_stream_end(struct json_stream *js);

/* "aivet incident due" (cmd-incident-due.c), a subcommand of "aivet incident". */
extern const struct opt incident_due_opts[];   /* "incident due" declares them beside its code */
int incident_due_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err);

/* The options a run is asked with, shared by "probe run", "probe queue" and
 * "schedule add" (cmd-probe.c): their ids, their table lines, and the one
 * reader. probe_run_opt() returns -1 when c is not one of them, else 0 or
 * err's code. */
enum { PO_PROBE = 200, PO_DEPTH, PO_CONC, PO_BUDGET, PO_BUDGET_USD, PO_MAXPROMPT, PO_MAXRESP,
	PO_TIMEOUT };
#define PROBE_RUN_OPTS \
	{ .name = "probe", .id = PO_PROBE, .arg = "NAME,...|all", \
	  .help = "which probes (default all but the opt-in ones)" }, \
	{ .name = "depth", .id = PO_DEPTH, .arg = "verify|diagnose", \
	  .help = "verify: does each invariant hold (default); diagnose: where it breaks" }, \
	{ .name = "concurrency", .id = PO_CONC, .arg = "N", \
	  .help = "requests in flight at most (default 4)" }, \
	{ .name = "budget-tokens", .id = PO_BUDGET, .arg = "N", \
	  .help = "never spend more tokens than N" }, \
	{ .name = "budget-usd", .id = PO_BUDGET_USD, .arg = "USD", \
	  .help = "never spend more than USD at the endpoint's prices" }, \
	{ .name = "max-prompt-tokens", .id = PO_MAXPROMPT, .arg = "N", \
	  .help = "cap every prompt at N tokens (at least 256)" }, \
	{ .name = "max-response", .id = PO_MAXRESP, .arg = "BYTES", \
	  .help = "cut longer response bodies (default 8 MiB)" }, \
	{ .name = "timeout", .id = PO_TIMEOUT, .arg = "SECONDS", \
	  .help = "give up on one request after SECONDS" }
struct probe_opts;
int probe_run_opt(const struct aivet *av, int c, const char *arg, struct probe_opts *po,
    struct aerr *err);
/* What "probe queue" and "schedule add" are asked to run: the endpoints named
 * as VENDOR/ENDPOINT... (declared ARG_ANY, resolved by the framework), or with
 * --all (and --vendor, the entry's target option: its word and id) the
 * vendor's id and, when expand, every active endpoint (of that vendor); ids
 * the caller's to free. The usage errors are worded once for both. */
struct probe_targets {
	int64_t *ids;
	size_t n;
	int64_t vendor_id;
};
int probe_targets(struct aivet *av, const struct cmd_args *a, int all, const char *vendor,
    int64_t vendor_id, int expand, struct probe_targets *t, struct aerr *err);
/* New ids, one a line, or as a JSON array. */
void probe_ids_print(const int64_t *ids, size_t n, int json);

/* The terminal's side of running probes (probe-cli.c): the engine asks and
 * prints nothing. "QUESTION [y/N]" on stderr, the answer from stdin, 1 for yes;
 * without asking when yes is set or stdin or stderr is not a terminal. */
int probe_confirm_tty(int yes, const char *question);
/* A plan's text, a run's next steps, runs in a run_format (run-format.h), through term_write. */
void probe_print_plan(FILE *f, const cJSON *plan);
struct probe_run;
void probe_print_next_steps(struct aivet *av, const struct probe_run *run);
void probe_print_runs(const struct probe_run *runs, size_t n, int one, cJSON *const *compare, int fmt);
/* A comparison's text (probe diff, --compare-last), through term_write. */
struct probe_diff;
void probe_print_diff(FILE *f, const struct probe_diff *d);
/* Runs one endpoint with Ctrl-C handling and a progress bar on a terminal, prints
 * the run (or its JSON), and returns the exit status of "probe run". */
int probe_run_cli(struct aivet *av, int64_t endpoint_id, const struct probe_opts *po, int json,
    const char *fail_on, int64_t *run_id, struct aerr *err);
/* "probe run --all": plans every active endpoint, prints the plans and asks,
 * runs them (Ctrl-C stops them all), prints each run in fmt and a summary
 * table; returns the worst exit status. */
struct probe_all_opts;
int probe_run_all(struct aivet *av, const struct probe_opts *po, const struct probe_all_opts *a,
    int fmt, const char *fail_on, int yes, int dry, struct aerr *err);

/* ---- text tables (table.c) ----
 * A table's first row is its heading; each column is as wide as its widest
 * cell, two spaces between columns, the last column unpadded. A NULL cell
 * shows as "-". Cells are escaped for the terminal as they are added. */
struct table {
	size_t ncols, nrows, cap;
	char **cells;
};
void table_init(struct table *t, size_t ncols, ...);   /* the heading's ncols cells */
void table_row(struct table *t, ...);                  /* ncols cells (const char *) */
void table_vrow(struct table *t, va_list ap);
void table_print(struct table *t, FILE *f);
void table_free(struct table *t);

#endif
