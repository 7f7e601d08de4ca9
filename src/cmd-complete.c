/*
 * cmd-complete.c: aivet complete — the names shell completion offers for a
 * target being typed (vendors, endpoints as VENDOR/NAME, questionnaire ids),
 * one per line, read with one query so that Tab answers at once even with
 * thousands of vendors. completions/aivet and completions/_aivet call it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "aivet.h"
#include "questionnaire.h"

static const struct {
	const char *kind, *sql;
} kinds[] = {
	{ "vendor", "SELECT name FROM vendor WHERE status = 'active' AND substr(name, 1, length(?1)) = ?1 "
	    "ORDER BY name" },
	{ "endpoint", "SELECT v.name || '/' || e.name FROM endpoint e JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE e.status = 'active' AND v.status = 'active' AND "
	    "substr(v.name || '/' || e.name, 1, length(?1)) = ?1 ORDER BY v.name, e.name" },
	{ "questionnaire", "SELECT DISTINCT qid FROM questionnaire WHERE substr(qid, 1, length(?1)) = ?1 "
	    "ORDER BY qid" },
};

static int
complete_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	struct db_stmt *st;
	struct db *db;
	const char *prefix;
	int c;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0)
		;
	if (c < 0)
		return err->code;
	if (argc - p.ind < 1 || argc - p.ind > 2)
		return usage_error(av, err, "give what to complete (vendor, endpoint or questionnaire) "
		    "and the word typed so far");
	prefix = argc - p.ind == 2 ? argv[p.ind + 1] : "";
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(kinds[i].kind, argv[p.ind]) != 0)
			continue;
		if ((db = av_db(av, err)) == NULL)
			return err->code;
		if (strcmp(kinds[i].kind, "questionnaire") == 0) {
			/* The bundled ones join the database on first use, as for every command
			 * that names one; a login that may not write still gets what is there. */
			struct aerr e = { 0 };

			(void)questionnaires_sync(db, av->actor, &e);
		}
		if ((st = db_prepare(db, err, kinds[i].sql, "t", prefix)) == NULL)
			return err->code;
		while (db_step(st) == DB_ROW)
			printf("%s\n", col_text(st, 0));
		db_finalize(st);
		return 0;
	}
	return usage_error(av, err, "cannot complete '%s' (vendor, endpoint or questionnaire)",
	    argv[p.ind]);
}

const struct cmd_entry cmd_complete_entry = {
	"complete", "vendor|endpoint|questionnaire [PREFIX]", NULL,
	"print the names that start with PREFIX, for shell completion", complete_cmd, NULL, NULL
};
