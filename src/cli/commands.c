/*
 * commands.c: the one table of commands, and what every command shares:
 * dispatch to subcommands, the option parser that walks a command's declared
 * options, the usage line and --help made from those declarations, and the
 * resolver of VENDOR and VENDOR/NAME targets. A command is a file
 * src/cli/cmd-NAME.c exporting a struct cmd_entry; adding one means adding its
 * line here and in Makefile.am.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/assess.h"
#include "aivet/incident.h"
#include "aivet/probe.h"

extern const struct cmd_entry cmd_vendor_entry;
extern const struct cmd_entry cmd_endpoint_entry;
extern const struct cmd_entry cmd_audit_entry;
extern const struct cmd_entry cmd_tui_entry;
extern const struct cmd_entry cmd_questionnaire_entry;
extern const struct cmd_entry cmd_assess_entry;
extern const struct cmd_entry cmd_incident_entry;
extern const struct cmd_entry cmd_probe_entry;
extern const struct cmd_entry cmd_evidence_entry;
extern const struct cmd_entry cmd_demo_entry;
extern const struct cmd_entry cmd_key_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_verify_entry;
extern const struct cmd_entry cmd_db_entry;
extern const struct cmd_entry cmd_tsa_entry;
extern const struct cmd_entry cmd_advisories_entry;
extern const struct cmd_entry cmd_complete_entry;
extern const struct cmd_entry cmd_worker_entry;
extern const struct cmd_entry cmd_schedule_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_vendor_entry,
	&cmd_endpoint_entry,
	&cmd_audit_entry,
	&cmd_tui_entry,
	&cmd_questionnaire_entry,
	&cmd_assess_entry,
	&cmd_incident_entry,
	&cmd_probe_entry,
	&cmd_schedule_entry,
	&cmd_worker_entry,
	&cmd_evidence_entry,
	&cmd_demo_entry,
	&cmd_key_entry,
	&cmd_report_entry,
	&cmd_verify_entry,
	&cmd_db_entry,
	&cmd_tsa_entry,
	&cmd_advisories_entry,
	&cmd_complete_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	for (int i = 0; cmd_table[i] != NULL; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

/* Keeps the closest name so far: one edit for a word of up to four letters,
 * two for a longer one, so a short unrelated word suggests nothing. */
static void
closer(const char *typed, const char *name, const char **best, int *bestd)
{
	int dist = typo_distance(typed, name);

	if (dist <= (strlen(typed) <= 4 ? 1 : 2) && dist < *bestd) {
		*best = name;
		*bestd = dist;
	}
}

const char *
cmd_suggest(const char *typed)
{
	const char *best = NULL;
	int bestd = 3;

	for (int i = 0; cmd_table[i] != NULL; i++)
		closer(typed, cmd_table[i]->name, &best, &bestd);
	closer(typed, "help", &best, &bestd);
	return best;
}

const char *
subcmd_suggest(const struct cmd_entry *subs, const char *typed)
{
	const char *best = NULL;
	int bestd = 3;

	for (const struct cmd_entry *s = subs; s->name != NULL; s++)
		closer(typed, s->name, &best, &bestd);
	return best;
}

/* Words people type for a subcommand aivet spells otherwise (other tools'
 * verbs, or a state change that is a status): what to type instead. */
static const struct {
	const char *command, *word, *meant;
} subcmd_words[] = {
	{ "vendor", "delete", "vendor archive NAME" },
	{ "vendor", "remove", "vendor archive NAME" },
	{ "vendor", "rm", "vendor archive NAME" },
	{ "vendor", "create", "vendor add NAME" },
	{ "endpoint", "delete", "endpoint archive VENDOR/NAME" },
	{ "endpoint", "remove", "endpoint archive VENDOR/NAME" },
	{ "endpoint", "rm", "endpoint archive VENDOR/NAME" },
	{ "endpoint", "create", "endpoint add VENDOR --name NAME ..." },
	{ "probe", "list", "probe runs" },
	{ "probe", "ls", "probe runs" },
	{ "probe", "start", "probe run VENDOR/NAME" },
	{ "incident", "close", "incident status ID closed" },
	{ "incident", "resolve", "incident status ID resolved" },
	{ "incident", "reopen", "incident status ID investigating" },
	{ "incident", "add", "incident open VENDOR --title TEXT" },
	{ "incident", "create", "incident open VENDOR --title TEXT" },
	{ "incident", "new", "incident open VENDOR --title TEXT" },
	{ "assess", "new", "assess start VENDOR QUESTIONNAIRE" },
	{ "assess", "create", "assess start VENDOR QUESTIONNAIRE" },
	{ "key", "new", "key generate" },
	{ "key", "create", "key generate" },
	{ "schedule", "delete", "schedule remove ID" },
	{ "schedule", "rm", "schedule remove ID" },
};

/* What a word typed after command means in aivet's own words, or NULL. */
static const char *
subcmd_meant(const char *command, const char *word)
{
	for (size_t i = 0; i < sizeof subcmd_words / sizeof subcmd_words[0]; i++)
		if (strcmp(subcmd_words[i].command, command) == 0 &&
		    strcmp(subcmd_words[i].word, word) == 0)
			return subcmd_words[i].meant;
	return NULL;
}

/* ---- usage lines and --help, from the tables ---- */

static void
opt_words(struct buf *b, const struct opt *o)
{
	buf_printf(b, "--%s", o->name);
	if (o->arg != NULL)
		buf_printf(b, o->flags & OPT_OPTARG ? " [%s]" : " %s", o->arg);
}

/* "vendor add NAME [--criticality 0-4] ...": the path, the targets, then
 * each option, grouped as its flags say. */
static void
entry_usage(const struct cmd_entry *e, const char *path, struct buf *b)
{
	int bracket = 0, many = 0, form = 0;

	buf_adds(b, path);
	if (e->subs != NULL) {
		for (const struct cmd_entry *s = e->subs; s->name != NULL; s++)
			buf_printf(b, "%c%s", s == e->subs ? ' ' : '|', s->name);
		buf_adds(b, " ...");
		return;
	}
	if (e->targets != NULL)
		buf_printf(b, " %s", e->targets);
	for (const struct opt *o = e->opts; o != NULL && o->name != NULL; o++) {
		unsigned next = o[1].name != NULL ? o[1].flags : 0;

		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->flags & OPT_FORM) {
			buf_printf(b, " | %s ", path);
			opt_words(b, o);
			form = 1;
			continue;
		}
		if (o->flags & OPT_OR)
			buf_adds(b, " | ");
		else if (o->flags & OPT_WITH)
			buf_adds(b, " ");
		else if (o->flags & OPT_UNDER)
			buf_adds(b, " [");
		else {
			bracket = !(o->flags & OPT_REQUIRED);
			many = 0;
			buf_adds(b, bracket ? " [" : " ");
		}
		opt_words(b, o);
		many |= (o->flags & OPT_MANY) != 0;
		if (o->flags & OPT_UNDER)
			buf_adds(b, "]");
		if (!(next & (OPT_OR | OPT_WITH | OPT_UNDER))) {
			buf_adds(b, bracket ? "]" : "");
			buf_adds(b, many ? "..." : "");
		}
	}
	if (form)
		buf_adds(b, " [options]");
}

void
cmd_usage(const struct aivet *av, struct buf *out)
{
	entry_usage(cli_of(av)->cmd, cli_of(av)->cmd_path, out);
}

int
usage_error(const struct aivet *av, struct aerr *err, const char *fmt, ...)
{
	char msg[512];
	struct buf u;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	buf_init(&u);
	cmd_usage(av, &u);
	aerr_set(err, AV_USAGE, "%s\nusage: aivet %s", msg, u.data);
	buf_free(&u);
	return AV_USAGE;
}

/* Two columns, as git and tmux print them: each left text (an option and its
 * argument, a subcommand and its targets) with its help aligned after the
 * longest that fits, a longer one with its help on the next line; help text
 * wraps at 80 columns under itself. */
static void
print_rows(FILE *out, char **left, const char **help, int n)
{
	enum { MAXW = 28, COLS = 80 };
	int w = 0;

	for (int i = 0; i < n; i++)
		if ((int)strlen(left[i]) > w && strlen(left[i]) <= MAXW)
			w = (int)strlen(left[i]);
	for (int i = 0; i < n; i++) {
		const char *h = help[i];
		int room = COLS - (w + 4);

		if ((int)strlen(left[i]) > w)
			fprintf(out, "  %s\n  %-*s  ", left[i], w, "");
		else
			fprintf(out, "  %-*s  ", w, left[i]);
		while ((int)strlen(h) > room) {
			int cut = room;

			while (cut > 0 && h[cut] != ' ')
				cut--;
			if (cut == 0)
				break;
			fprintf(out, "%.*s\n%*s", cut, h, w + 4, "");
			h += cut + 1;
		}
		fprintf(out, "%s\n", h);
	}
}

static void
print_opts(FILE *out, const struct opt *opts)
{
	char *left[OPT_MAX];
	const char *help[OPT_MAX];
	int n = 0;

	for (const struct opt *o = opts; o != NULL && o->name != NULL && n < OPT_MAX; o++) {
		struct buf b;

		if (o->flags & OPT_HIDDEN)
			continue;
		buf_init(&b);
		opt_words(&b, o);
		left[n] = buf_steal(&b);
		help[n++] = o->help;
	}
	print_rows(out, left, help, n);
	for (int i = 0; i < n; i++)
		free(left[i]);
}

/* A command's help: its usage line and summary, then its subcommands (each
 * with its targets; its own --help has the rest) or its options. */
static void
print_help(FILE *out, const struct cmd_entry *e, const char *path)
{
	char *left[32];
	const char *help[32];
	int n = 0;
	struct buf u;

	buf_init(&u);
	entry_usage(e, path, &u);
	fprintf(out, "usage: aivet %s\n\n%s\n", u.data, e->summary);
	buf_free(&u);
	for (const struct cmd_entry *s = e->subs; s != NULL && s->name != NULL && n < 32; s++, n++) {
		const char *more = s->targets != NULL ? s->targets : s->subs != NULL ? "..." : NULL;

		left[n] = more != NULL ? xasprintf("%s %s %s", path, s->name, more) :
		    xasprintf("%s %s", path, s->name);
		help[n] = s->summary;
	}
	if (n > 0) {
		fputs("\n", out);
		print_rows(out, left, help, n);
	}
	for (int i = 0; i < n; i++)
		free(left[i]);
	if (e->opts != NULL && e->opts[0].name != NULL) {
		fputs("\noptions:\n", out);
		print_opts(out, e->opts);
	}
	if (n > 0)
		fprintf(out, "\n'aivet %s SUBCOMMAND --help' shows a subcommand's options.\n", path);
}

void
cmd_print_options(FILE *out, const struct opt *opts)
{
	print_opts(out, opts);
}

/* True when argv holds -h/--help before "--". */
static int
want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

/* The parser's parts, below with the parser. */
static int optarg_word(const struct opt *opts, int id, const char *next);
static char *opt_take(struct opt_parser *p);
static int target_resolve(struct db *db, enum target_kind t, const char *arg, int64_t *id,
    struct aerr *err);

/* The entry's target option (a vendor, an endpoint...), each time given
 * resolved by the one resolver, once the positionals are counted and
 * resolved. */
static int
option_targets(struct aivet *av, struct cmd_args *a, struct aerr *err)
{
	const struct cmd_entry *e = cli_of(av)->cmd;
	struct db *db = NULL;

	for (int i = 0; i < a->nopt; i++) {
		if (e->target.opt == 0 || a->opt[i].id != e->target.opt || a->opt[i].arg == NULL)
			continue;
		if (db == NULL && (db = av_db(av, err)) == NULL)
			return err->code;
		if (target_resolve(db, e->target.kind, a->opt[i].arg, &a->opt[i].target, err) != 0)
			return err->code;
	}
	return 0;
}

/* Parses argv by the running command's table and args into a, which the
 * caller frees with args_free(). */
static int
args_parse(struct aivet *av, int argc, char **argv, struct cmd_args *a, struct aerr *err)
{
	struct opt_parser p;
	int c;

	memset(a, 0, sizeof *a);
	a->opt = xcalloc((size_t)argc + 1, sizeof *a->opt);
	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0) {
		if (p.arg == NULL && p.ind < argc && optarg_word(cli_of(av)->cmd->opts, c, argv[p.ind]))
			opt_take(&p);
		a->opt[a->nopt].id = c;
		a->opt[a->nopt++].arg = p.arg;
	}
	if (c < 0) {
		free(p.ids);   /* a target refused midway */
		return err->code;
	}
	a->argc = argc - p.ind;
	a->argv = argv + p.ind;
	a->ids = p.ids != NULL ? p.ids : xcalloc((size_t)a->argc + 1, sizeof *a->ids);
	memcpy(a->target, p.target, sizeof a->target);
	memcpy(a->word, p.word, sizeof a->word);
	return option_targets(av, a, err);
}

static void
args_free(struct cmd_args *a)
{
	free(a->opt);
	free(a->ids);
	a->opt = NULL;
	a->ids = NULL;
}

int
args_has(const struct cmd_args *a, int id)
{
	int n = 0;

	for (int i = 0; i < a->nopt; i++)
		n += a->opt[i].id == id;
	return n;
}

const char *
args_get(const struct cmd_args *a, int id)
{
	for (int i = a->nopt - 1; i >= 0; i--)
		if (a->opt[i].id == id)
			return a->opt[i].arg;
	return NULL;
}

int64_t
args_target(const struct cmd_args *a, int id)
{
	for (int i = a->nopt - 1; i >= 0; i--)
		if (a->opt[i].id == id)
			return a->opt[i].target;
	return 0;
}

const char *
args_next(const struct cmd_args *a, int id, int *at)
{
	for (; *at < a->nopt; (*at)++)
		if (a->opt[*at].id == id)
			return a->opt[(*at)++].arg;
	return NULL;
}

/* Runs leaf entry e: the framework parses its options and positionals and
 * resolves its targets, then exec reads them. */
static int
entry_exec(struct cli *c, const struct cmd_entry *e, int argc, char **argv, struct aerr *err)
{
	struct cmd_args a;
	int rc;

	if (args_parse(&c->av, argc, argv, &a, err) != 0) {
		args_free(&a);
		return err->code;
	}
	rc = e->exec(&c->av, &a, err);
	args_free(&a);
	return rc;
}

/* Runs entry e (argv[0] its name) below path, the words before it. */
static int
entry_run(struct cli *c, const struct cmd_entry *group, const struct cmd_entry *e,
    const char *path, int argc, char **argv, struct aerr *err)
{
	char full[64];
	const char *near;

	snprintf(full, sizeof full, "%s%s%s", path, *path ? " " : "", e->name);
	c->cmd = e;
	c->cmd_group = group;
	snprintf(c->cmd_path, sizeof c->cmd_path, "%s", full);
	if (e->subs == NULL) {
		if (want_help(argc, argv)) {
			print_help(stdout, e, full);
			return 0;
		}
		return entry_exec(c, e, argc, argv, err);
	}
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_help(argc < 2 ? stderr : stdout, e, full);
		return argc < 2 ? aerr_set(err, AV_USAGE, "%s: a subcommand is needed", full) : 0;
	}
	for (const struct cmd_entry *s = e->subs; s->name != NULL; s++)
		if (strcmp(s->name, argv[1]) == 0)
			return entry_run(c, e, s, full, argc - 1, argv + 1, err);
	if ((near = subcmd_meant(full, argv[1])) != NULL)
		return aerr_set(err, AV_USAGE, "%s: unknown subcommand '%s': did you mean '%s'? (see "
		    "'aivet %s --help')", full, argv[1], near, full);
	if ((near = subcmd_suggest(e->subs, argv[1])) != NULL)
		return aerr_set(err, AV_USAGE, "%s: unknown subcommand '%s': did you mean '%s %s'? (see "
		    "'aivet %s --help')", full, argv[1], full, near, full);
	return aerr_set(err, AV_USAGE, "%s: unknown subcommand '%s' (see 'aivet %s --help')",
	    full, argv[1], full);
}

int
cmd_run(struct cli *c, int argc, char **argv, struct aerr *err)
{
	const struct cmd_entry *ce = cmd_find(argv[0]);

	if (ce == NULL) {
		const char *near = cmd_suggest(argv[0]);

		if (near != NULL)
			return aerr_set(err, AV_USAGE, "unknown command '%s': did you mean '%s'? (see "
			    "'aivet --help')", argv[0], near);
		return aerr_set(err, AV_USAGE, "unknown command '%s' (see 'aivet --help')", argv[0]);
	}
	return entry_run(c, NULL, ce, "", argc, argv, err);
}

/* ---- the option parser ---- */

void
opt_begin(struct opt_parser *p, struct aivet *av, int argc, char **argv)
{
	const struct cli *c = cli_of(av);
	const struct opt *o = c->cmd != NULL ? c->cmd->opts : NULL;
	int n = 0;

	memset(p, 0, sizeof *p);
	p->argc = argc;
	p->argv = argv;
	p->ind = 1;
	p->av = av;
	for (; o != NULL && o->name != NULL; o++) {
		if (n == OPT_MAX)
			die("%s: more than %d options", c->cmd_path, OPT_MAX);
		p->lo[n].name = o->name;
		p->lo[n].has_arg = o->arg == NULL ? no_argument :
		    o->flags & OPT_OPTARG ? optional_argument : required_argument;
		p->lo[n++].val = o->id;
	}
	optind = 0;   /* glibc: start afresh for each command line */
}

/* Whether an OPT_OPTARG option id given without "=" takes next as its
 * argument: when next is one of the words its argument's name lists
 * ("--eu-data no" for "yes|no|unknown"); else the argument is left out. */
static int
optarg_word(const struct opt *opts, int id, const char *next)
{
	for (const struct opt *o = opts; next != NULL && o != NULL && o->name != NULL; o++) {
		size_t len = strlen(next);

		if (o->id != id || !(o->flags & OPT_OPTARG))
			continue;
		for (const char *w = o->arg; w != NULL; w = strchr(w, '|'), w = w ? w + 1 : NULL)
			if (strncmp(w, next, len) == 0 && (w[len] == '|' || w[len] == '\0'))
				return len > 0;
	}
	return 0;
}

/* An option the command's other subcommands declare: wrong here, not unknown. */
static int
sibling_option(const struct aivet *av, const char *word)
{
	char name[64];

	if (cli_of(av)->cmd_group == NULL || strncmp(word, "--", 2) != 0)
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(word + 2, "="), word + 2);
	for (const struct cmd_entry *s = cli_of(av)->cmd_group->subs; s->name != NULL; s++)
		for (const struct opt *o = s->opts; o != NULL && o->name != NULL; o++)
			if (strcmp(o->name, name) == 0)
				return 1;
	return 0;
}

const struct opt opt_json_only[] = {
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

/* The long option of the command nearest to a mistyped "--word[=value]". */
static const char *
option_suggest(const struct opt_parser *p, const char *word)
{
	const char *names[128];
	char typed[64];
	size_t n = 0;

	snprintf(typed, sizeof typed, "%.*s", (int)strcspn(word + 2, "="), word + 2);
	for (const struct option *o = p->lo; o != NULL && o->name != NULL && n < 128; o++)
		names[n++] = o->name;
	return name_suggest(typed, names, n);
}

/* Too few or too many positionals, worded alike for every command:
 * "endpoint show needs exactly one VENDOR/NAME", "endpoint list takes at most
 * one VENDOR", "... needs at least two RUN"; a command of several positionals
 * some of which may be left out names them as its usage line does: "assess
 * answer takes ASSESSMENT QUESTION [VALUE]". */
static int
count_error(const struct aivet *av, int min, int max, int n, struct aerr *err)
{
	static const char *const count[] = { "no", "one", "two", "three", "four" };
	const char *targets = cli_of(av)->cmd->targets ? cli_of(av)->cmd->targets : "?";
	char what[64];
	size_t k = 0;

	if (min != max && max >= 0 && strchr(targets, ' ') != NULL)
		return usage_error(av, err, "%s takes %s", cli_of(av)->cmd_path, targets);
	/* The usage line's targets without the brackets that mark one optional; of
	 * "RUN [RUN...]" (max -1: no most) the first. */
	for (const char *t = targets; *t && k + 1 < sizeof what; t++) {
		if (max < 0 && *t == ' ')
			break;
		if (*t != '[' && *t != ']')
			what[k++] = *t;
	}
	what[k] = '\0';
	if (max < 0)
		return usage_error(av, err, "%s needs at least %s %s", cli_of(av)->cmd_path, count[min], what);
	if (min == max)
		return usage_error(av, err, "%s needs exactly %s %s", cli_of(av)->cmd_path, count[max], what);
	if (n > max)
		return usage_error(av, err, "%s takes at most %s %s", cli_of(av)->cmd_path, count[max], what);
	return usage_error(av, err, "%s needs at least %s %s", cli_of(av)->cmd_path, count[min], what);
}

/* A TARGET_CHOICE: the index of word among the choices positional slot
 * names in the usage line ("vendor|endpoint|questionnaire [PREFIX]"), or
 * an error naming them: "'x' is not one of vendor, endpoint or questionnaire". */
static int
choice_resolve(const struct aivet *av, int slot, const char *word, int64_t *index, struct aerr *err)
{
	const char *c = cli_of(av)->cmd->targets ? cli_of(av)->cmd->targets : "";
	size_t len = strlen(word), n;
	struct buf b;
	int i = 0;

	for (; slot > 0 && c != NULL; slot--)
		if ((c = strchr(c, ' ')) != NULL)
			c++;
	c = c ? c + (*c == '[') : "";
	n = strcspn(c, " ]");
	for (const char *w = c; w < c + n; i++) {
		size_t wl = strcspn(w, "|");

		if (wl > (size_t)(c + n - w))
			wl = (size_t)(c + n - w);
		if (wl == len && strncmp(w, word, len) == 0) {
			*index = i;
			return 0;
		}
		w += wl + 1;
	}
	buf_init(&b);
	for (size_t k = 0; k < n; k++)
		if (c[k] == '|')
			buf_adds(&b, memchr(c + k + 1, '|', n - k - 1) ? ", " : " or ");
		else
			buf_printf(&b, "%c", c[k]);
	i = usage_error(av, err, "'%s' is not one of %s", word, b.data ? b.data : "");
	buf_free(&b);
	return i;
}

/* The positionals a command declared (its args[]): as many as it takes, in
 * one wording for every command, and each target resolved to its id by the
 * one resolver, which names an unknown one the same way everywhere. */
static int
declared_targets(struct opt_parser *p, struct aerr *err)
{
	const struct cmd_arg *a = cli_of(p->av)->cmd->args;
	int n = p->argc - p->ind, min = 0, max = 0, many, spare, at = p->ind;
	struct db *db = NULL;

	for (; a[max].kind != TARGET_END; max++)
		min += a[max].optional == 0 || a[max].optional == ARG_MANY;
	if (max > CMD_ARGS_MAX)
		die("%s: more than %d positionals declared", cli_of(p->av)->cmd_path, CMD_ARGS_MAX);
	many = max > 0 && (a[max - 1].optional == ARG_MANY || a[max - 1].optional == ARG_ANY);
	if (n < min || (n > max && max > 0 && !many))
		return count_error(p->av, min, many ? -1 : max, n, err);
	if (n > max && !many)
		return usage_error(p->av, err, "unexpected argument '%s'", p->argv[p->ind + max]);
	/* How many optional slots the words given fill, from the left; words
	 * beyond the last slot are more of an ARG_MANY or ARG_ANY one. */
	spare = (n > max ? max : n) - min;
	free(p->ids);
	p->ids = xcalloc((size_t)n + 1, sizeof *p->ids);
	for (int i = 0; at < p->argc; i++) {
		const struct cmd_arg *ai = &a[i < max ? i : max - 1];
		const char *w;
		int64_t id = 0;

		if (i < CMD_ARGS_MAX) {
			p->target[i] = 0;
			p->word[i] = NULL;
		}
		if (i < max && ai->optional == 1 && spare == 0)
			continue;
		if (i < max)
			spare -= ai->optional == 1;
		w = p->argv[at++];
		if (i < CMD_ARGS_MAX)
			p->word[i] = w;
		if (ai->kind == TARGET_WORD)
			continue;
		if (ai->kind == TARGET_CHOICE) {
			if (choice_resolve(p->av, i, w, &id, err) != 0)
				return err->code;
		} else {
			if (db == NULL && (db = av_db(p->av, err)) == NULL)
				return err->code;
			if (target_resolve(db, ai->kind, w, &id, err) != 0)
				return err->code;
		}
		if (i < CMD_ARGS_MAX)
			p->target[i] = id;
		p->ids[at - 1 - p->ind] = id;
	}
	return 0;
}

int
opt_next(struct opt_parser *p, struct aerr *err)
{
	char spec[48];
	const char *word;
	int c;

	snprintf(spec, sizeof spec, "%s:%s", p->in_order ? "+" : "", p->shorts ? p->shorts : "");
	c = getopt_long(p->argc, p->argv, spec, p->lo, NULL);
	p->arg = optarg;
	p->ind = optind;
	if (c == -1)
		return cli_of(p->av)->cmd != NULL && cli_of(p->av)->cmd->args != NULL && declared_targets(p, err) != 0 ? -1 : 0;
	word = p->argv[optind - 1];
	if (c == ':') {
		usage_error(p->av, err, "%s needs a value", word);
		return -1;
	}
	if (c == '?') {
		if (sibling_option(p->av, word))
			usage_error(p->av, err, "--%.*s is not an option here", (int)strcspn(word + 2, "="),
			    word + 2);
		else if (optopt != 0)   /* a single letter, perhaps inside "-xyz" */
			usage_error(p->av, err, "unknown option '-%c'", optopt);
		else if (strncmp(word, "--", 2) == 0 && option_suggest(p, word) != NULL)
			usage_error(p->av, err, "unknown option '%s': did you mean --%s?", word,
			    option_suggest(p, word));
		else
			usage_error(p->av, err, "unknown option '%s'", word);
		return -1;
	}
	return c;
}

/* Takes the next word as the current option's argument (an OPT_OPTARG
 * option given "--eu-data no" rather than "--eu-data=no"); NULL at the end. */
static char *
opt_take(struct opt_parser *p)
{
	if (optind >= p->argc)
		return NULL;
	p->arg = p->argv[optind++];
	p->ind = optind;
	return p->arg;
}

/* The one resolver of VENDOR (name or id), VENDOR/NAME, ASSESSMENT,
 * INCIDENT and RUN targets: the row's id, or AV_USAGE naming what is unknown
 * and where to list them. */
static int
target_resolve(struct db *db, enum target_kind t, const char *arg, int64_t *id, struct aerr *err)
{
	switch (t) {
	case TARGET_ENDPOINT:
		return endpoint_lookup(db, arg, id, err);
	case TARGET_ASSESSMENT:
		return assessment_lookup(db, arg, id, err);
	case TARGET_INCIDENT:
		return incident_lookup(db, arg, id, err);
	case TARGET_RUN:
		return probe_run_lookup(db, arg, id, err);
	default:
		return vendor_lookup(db, arg, id, err);
	}
}

/* Streaming a large array keeps one element in memory at a time and reuses
 * one print buffer: lists of thousands of rows stay fast and small. */
void
json_stream_begin(struct json_stream *js)
{
	js->n = 0;
	js->cap = 4096;
	js->buf = xmalloc(js->cap);
	fputs("[", stdout);
}

void
json_stream_item(struct json_stream *js, cJSON *item)
{
	json_print_prepare(item);
	while (!cJSON_PrintPreallocated(item, js->buf, (int)js->cap, 1)) {
		js->cap *= 2;
		js->buf = xrealloc(js->buf, js->cap);
	}
	fputs(js->n++ ? ",\n" : "\n", stdout);
	fputs(js->buf, stdout);
	cJSON_Delete(item);
}

void
json_stream_end(struct json_stream *js)
{
	fputs(js->n ? "\n]\n" : "]\n", stdout);
	free(js->buf);
	js->buf = NULL;
}
