/*
 * cmd-advisories.c: "aivet advisories" — the OSV advisories the engine probe
 * checks engine versions against: the ones aivet ships and the ones imported
 * (an OSV export, a file or a directory of them), each import checked whole
 * before anything is stored and audited record by record.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int
advisories_import_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct db *db;
	int json = args_has(args, 'j'), stored, skipped;

	if ((db = av_db(av, err)) == NULL ||
	    advisory_import(db, av->actor, args->argv[0], &stored, &skipped, err) != 0)
		return err->code;
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "stored", stored);
		cJSON_AddNumberToObject(o, "skipped", skipped);
		json_emit(o);
	} else {
		term_printf(stdout, "%d advisor%s stored, %d already stored\n", stored,
		    stored == 1 ? "y" : "ies", skipped);
	}
	return 0;
}

static int
advisories_list_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct advisory_list l;
	struct db *db;
	int json = args_has(args, 'j');

	if ((db = av_db(av, err)) == NULL || advisory_list_load(db, &l, err) != 0)
		return err->code;
	if (json)
		json_emit(advisory_list_to_json(&l));
	else
		for (size_t i = 0; i < l.n; i++) {
			term_printf(stdout, "%s  %s  (%s)\n", l.items[i].id, l.items[i].summary ?
			    l.items[i].summary : "", l.items[i].source);
			for (size_t j = 0; j < l.items[i].nranges; j++)
				term_printf(stdout, "    %s\n", l.items[i].ranges[j]);
		}
	advisory_list_free(&l);
	return 0;
}

static const struct cmd_entry advisories_subs[] = {
	{ .name = "import", .targets = "FILE|DIR", .opts = opt_json_only,
	  .summary = "import OSV advisories (a file, an array, or a directory of .json files)",
	  .exec = advisories_import_cmd, .args = ARGS({ TARGET_WORD, 0 }) },
	{ .name = "list", .opts = opt_json_only,
	  .summary = "list the advisories engine versions are checked against",
	  .exec = advisories_list_cmd, .args = ARGS_NONE },
	{ 0 }
};

const struct cmd_entry cmd_advisories_entry = {
	.name = "advisories",
	.summary = "the OSV advisories the engine probe checks versions against",
	.subs = advisories_subs,
};
