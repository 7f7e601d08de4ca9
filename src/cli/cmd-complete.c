/*
 * cmd-complete.c: aivet complete — the names shell completion offers for a
 * target being typed (vendors, endpoints as VENDOR/NAME, questionnaire ids),
 * one per line, read with one query so that Tab answers at once even with
 * thousands of vendors. completions/aivet and completions/_aivet call it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "aivet/questionnaire.h"

static void
put_name(const char *name, void *ctx)
{
	(void)ctx;
	printf("%s\n", name);
}

static int
complete_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	enum { VENDOR, ENDPOINT, QUESTIONNAIRE };
	struct db *db;
	const char *prefix = args->word[1] ? args->word[1] : "";

	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (args->target[0] != QUESTIONNAIRE)
		return vendor_names_from(db, args->target[0] == ENDPOINT, prefix, put_name, NULL, err);
	{
		/* The bundled ones join the database on first use, as for every command
		 * that names one; a login that may not write still gets what is there. */
		struct aerr e = { 0 };

		(void)questionnaires_sync(db, av->actor, &e);
	}
	return questionnaire_qids_from(db, prefix, put_name, NULL, err);
}

const struct cmd_entry cmd_complete_entry = {
	.name = "complete",
	.targets = "vendor|endpoint|questionnaire [PREFIX]",
	.summary = "print the names that start with PREFIX, for shell completion",
	.exec = complete_cmd,
	.args = ARGS({ TARGET_CHOICE, 0 }, { TARGET_WORD, 1 }),
};
