/*
 * main.c: aivet's entry point. Parses the global options, finds the
 * database and the actor, then hands the rest of the command line to the
 * command table; with no command on a terminal it opens the TUI. Errors
 * come back as values and are printed here, once.
 */
#include "config.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "cli/cli.h"
#include "tui/tui-main.h"
#include "aivet/run-settle.h"
#include "aivet/zone.h"

static const char global_usage[] =
    "usage: aivet [--db PATH] [--actor NAME] [--tz ZONE] COMMAND [SUBCOMMAND] [options]\n"
    "       aivet [--db PATH] [--actor NAME] [--tz ZONE] (terminal UI)\n"
    "       aivet help [COMMAND [SUBCOMMAND]]\n"
    "       aivet --version | --help\n";

static const struct opt global_opts[] = {
	{ .name = "db", .id = 'd', .arg = "PATH",
	  .help = "database: a file, sqlite:PATH or postgresql://... (default $AIVET_DB, else "
	  "$XDG_DATA_HOME/aivet/aivet.db)" },
	{ .name = "actor", .id = 'a', .arg = "NAME",
	  .help = "who is acting, for the audit log (default $AIVET_ACTOR, else the login name; "
	  "ignored on PostgreSQL, where the actor is the database login)" },
	{ .name = "tz", .id = 'z', .arg = "ZONE",
	  .help = "an IANA time zone to show times in as well; it moves no deadline (those end "
	  "their days in the database's zone: aivet db timezone) (default $AIVET_TZ, else the "
	  "config file 'timezone')" },
	{ .name = "version", .id = 'V', .help = "print the version" },
	{ .name = "help", .id = 'h', .help = "print this help" },
	{ 0 }
};

/* The options before the command, declared as a command's are. */
static const struct cmd_entry global_entry = {
	.name = "aivet",
	.opts = global_opts,
	.summary = "Vets hosted AI inference vendors: assess, probe, prove.",
};

static void
print_help(void)
{
	fputs(global_usage, stdout);
	printf("\n%s\n\ncommands:\n", global_entry.summary);
	for (int i = 0; cmd_table[i] != NULL; i++)
		printf("  %-12s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	puts("\nglobal options:");
	cmd_print_options(stdout, global_opts);
	puts("\n'aivet help COMMAND' or 'aivet COMMAND --help' shows a command's subcommands and\n"
	    "options; see aivet(1).");
}

static char *
default_db_path(void)
{
	const char *p = getenv("AIVET_DB");
	char *dir, *path;

	if (p != NULL && *p != '\0')
		return xstrdup(p);
	dir = aivet_dir(AIVET_DATA_DIR);
	path = xasprintf("%s/aivet.db", dir);
	free(dir);
	return path;
}

/* Runs whose process died read 'interrupted' from the moment a command opens
 * the database. Best effort: a busy database settles them next time, and the
 * command goes on. */
static void
settle_on_open(struct aivet *av)
{
	struct aerr ignored = { 0 };

	(void)probe_runs_settle(av->db, av->actor, NULL, &ignored);
}

static void
default_actor(char *out, size_t n)
{
	const char *a = getenv("AIVET_ACTOR");
	struct passwd *pw;

	if (a == NULL || *a == '\0')
		a = getenv("LOGNAME");
	if (a == NULL || *a == '\0') {
		pw = getpwuid(getuid());
		a = pw ? pw->pw_name : "unknown";
	}
	snprintf(out, n, "%s", a);
}

/* "aivet help [COMMAND [SUBCOMMAND]]" is "aivet COMMAND [SUBCOMMAND] --help". */
/* How many words "aivet help" may take after itself for this command: two,
 * or three where the subcommand has subcommands of its own (incident task add). */
static int
help_depth(const char *cmd, const char *sub)
{
	const struct cmd_entry *e = cmd_find(cmd);

	if (e == NULL || e->subs == NULL || sub == NULL)
		return 2;
	for (const struct cmd_entry *s = e->subs; s->name != NULL; s++)
		if (strcmp(s->name, sub) == 0)
			return s->subs != NULL ? 3 : 2;
	return 2;
}

static int
help_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	char **args;
	int rc;

	if (argc < 2) {
		print_help();
		return AV_OK;
	}
	if (argc > help_depth(argv[1], argv[2]) + 1)
		return aerr_set(err, AV_USAGE, "help takes a command and its subcommands at most\n"
		    "usage: aivet help [COMMAND [SUBCOMMAND [SUBCOMMAND]]]");
	args = xmalloc(sizeof *args * (size_t)(argc + 1));
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = (char *)"--help";
	args[argc] = NULL;
	rc = cmd_run(cli_of(av), argc, args, err);
	free(args);
	return rc;
}

/* The zone times are also shown in: --tz, else AIVET_TZ, else the config file.
 * The organisation's zone, which decides deadlines, is the database's. */
static int
set_org_zone(const char *opt)
{
	struct aerr err = { 0 };
	const char *env = getenv("AIVET_TZ"), *from = "--tz";
	char *conf = NULL;
	int rc;

	if (opt == NULL && env != NULL && *env != '\0') {
		opt = env;
		from = "AIVET_TZ";
	}
	if (opt == NULL && (conf = org_zone_from_config()) != NULL) {
		opt = conf;
		from = "the config file 'timezone'";
	}
	if ((rc = display_zone_set(opt, &err)) != 0)
		fprintf(stderr, "aivet: %s (from %s)\n", err.msg, from);
	free(conf);
	return rc;
}

int
main(int argc, char **argv)
{
	struct cli run = { 0 };
	struct aivet *av = &run.av;
	struct opt_parser p;
	struct aerr err = { 0 };
	char *db_path = NULL;
	const char *tz = NULL;
	int c, rc;

	cli_terminal_init();
	if (sodium_init() < 0)
		die("libsodium failed to initialise");
	av->progname = "aivet";
	av->on_open = settle_on_open;
	run.tui = tui_main;
	default_actor(av->actor, sizeof av->actor);
	run.cmd = &global_entry;
	opt_begin(&p, av, argc, argv);
	p.in_order = 1;   /* the command's own options follow it */
	p.shorts = "hV";
	while ((c = opt_next(&p, &err)) > 0) {
		switch (c) {
		case 'd':
			free(db_path);
			db_path = xstrdup(p.arg);
			break;
		case 'a':
			if (*p.arg == '\0') {
				fprintf(stderr, "aivet: --actor: must not be empty\n");
				return AV_USAGE;
			}
			snprintf(av->actor, sizeof av->actor, "%s", p.arg);
			break;
		case 'z':
			tz = p.arg;
			break;
		case 'V':
			printf("aivet %s\n", PACKAGE_VERSION);
			return AV_OK;
		case 'h':
			print_help();
			return AV_OK;
		}
	}
	if (c < 0) {
		/* The first line names the option; the global usage follows. */
		fprintf(stderr, "aivet: %.*s\n", (int)strcspn(err.msg, "\n"), err.msg);
		fputs(global_usage, stderr);
		free(db_path);
		return AV_USAGE;
	}
	/* The actor is written into the audit log and shown everywhere. */
	if (safe_text_check("actor", av->actor, &err) != 0) {
		char *msg = text_escape(err.msg, strlen(err.msg), 0);

		fprintf(stderr, "aivet: %s (from --actor or AIVET_ACTOR)\n", msg);
		free(msg);
		free(db_path);
		return AV_USAGE;
	}
	if (set_org_zone(tz) != 0) {
		free(db_path);
		return AV_USAGE;
	}
	/* Named: with --db, or with AIVET_DB (which 'aivet demo' honours as it does --db). */
	av->db_named = db_path != NULL || (getenv("AIVET_DB") != NULL && *getenv("AIVET_DB") != '\0');
	av->db_path = db_path ? db_path : (db_path = default_db_path());
	if (p.ind >= argc) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "aivet: the terminal UI needs a terminal; use the CLI "
			    "instead (see 'aivet --help')\n");
			free(db_path);
			return AV_USAGE;
		}
		rc = tui_main(av, &err);
	} else if (strcmp(argv[p.ind], "help") == 0) {
		rc = help_cmd(av, argc - p.ind, argv + p.ind, &err);
	} else {
		rc = cmd_run(&run, argc - p.ind, argv + p.ind, &err);
	}
	if (rc != 0 && err.msg[0] != '\0') {
		/* Messages may quote a vendor's reply: escaped, they cannot drive the terminal. */
		char *msg = text_escape(err.msg, strlen(err.msg), 1);

		fprintf(stderr, "aivet: %s\n", msg);
		free(msg);
	}
	av_close(av);
	free(db_path);
	fflush(stdout);
	return rc;
}
