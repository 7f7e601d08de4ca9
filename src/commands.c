/*
 * commands.c: the one table of commands, and the dispatch and help helpers
 * they share. A command is a file src/cmd-NAME.c exporting a struct
 * cmd_entry; adding one means adding its line here and in Makefile.am.
 * The cross-checks of "audit verify" are registered here too.
 */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "incident.h"

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

const struct cmd_entry *const cmd_table[] = {
	&cmd_vendor_entry,
	&cmd_endpoint_entry,
	&cmd_audit_entry,
	&cmd_tui_entry,
	&cmd_questionnaire_entry,
	&cmd_assess_entry,
	&cmd_incident_entry,
	&cmd_probe_entry,
	&cmd_evidence_entry,
	&cmd_demo_entry,
	&cmd_key_entry,
	&cmd_report_entry,
	&cmd_verify_entry,
	&cmd_db_entry,
	NULL
};

/* What "audit verify" checks besides the chain: every module whose rows the
 * chain protects, listed here where all of them may be named. */
const struct audit_check *const audit_checks[] = {
	&incident_audit_check,
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

/* Optimal string alignment distance: a swapped pair of letters costs one, as
 * a typo does. Words are short (commands), longer ones are simply far. */
static int
typo_distance(const char *a, const char *b)
{
	enum { MAXW = 32 };
	int d[MAXW + 1][MAXW + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAXW || lb > MAXW)
		return MAXW;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
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
subcmd_suggest(const struct subcmd *subs, const char *typed)
{
	const char *best = NULL;
	int bestd = 3;

	for (const struct subcmd *s = subs; s->name != NULL; s++)
		closer(typed, s->name, &best, &bestd);
	return best;
}

int
cmd_run(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	const struct cmd_entry *ce = cmd_find(argv[0]);

	if (ce == NULL) {
		const char *near = cmd_suggest(argv[0]);

		if (near != NULL)
			return aerr_set(err, AV_USAGE, "unknown command '%s': did you mean '%s'? (see "
			    "'aivet --help')", argv[0], near);
		return aerr_set(err, AV_USAGE, "unknown command '%s' (see 'aivet --help')", argv[0]);
	}
	optind = 0;   /* glibc: restart getopt for each (sub)command */
	return ce->exec(av, argc, argv, err);
}

int
want_help(int argc, char **argv, const char *usage, const char *summary)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: aivet %s\n", usage);
			if (summary != NULL)
				printf("\n%s\n", summary);
			return 1;
		}
	}
	return 0;
}

int
usage_error(struct aerr *err, const char *usage, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return aerr_set(err, AV_USAGE, "%s\nusage: aivet %s", msg, usage);
}

int
subcmd_dispatch(const struct cmd_entry *ce, const struct subcmd *subs,
    struct aivet *av, int argc, char **argv, struct aerr *err)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		FILE *out = argc < 2 ? stderr : stdout;

		fprintf(out, "usage: aivet %s\n\n%s\n\n", ce->usage, ce->summary);
		for (const struct subcmd *s = subs; s->name != NULL; s++)
			fprintf(out, "  %-60s %s\n", s->usage, s->summary);
		return argc < 2 ? aerr_set(err, AV_USAGE, "%s: a subcommand is needed", ce->name) : 0;
	}
	for (const struct subcmd *s = subs; s->name != NULL; s++) {
		if (strcmp(s->name, argv[1]) == 0) {
			optind = 0;
			if (want_help(argc - 1, argv + 1, s->usage, s->summary))
				return 0;
			return s->exec(av, argc - 1, argv + 1, err);
		}
	}
	if (subcmd_suggest(subs, argv[1]) != NULL)
		return aerr_set(err, AV_USAGE, "%s: unknown subcommand '%s': did you mean '%s %s'? (see "
		    "'aivet %s --help')", ce->name, argv[1], ce->name, subcmd_suggest(subs, argv[1]),
		    ce->name);
	return aerr_set(err, AV_USAGE, "%s: unknown subcommand '%s' (see 'aivet %s --help')",
	    ce->name, argv[1], ce->name);
}

void
json_emit(cJSON *v)
{
	char *s = cJSON_Print(v);

	if (s == NULL)
		die("out of memory");
	/* cJSON indents with tabs; field names and values are the contract, not the layout. */
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	cJSON_Delete(v);
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
