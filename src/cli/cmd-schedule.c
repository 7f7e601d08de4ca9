/*
 * cmd-schedule.c: "aivet schedule" — recurring probe runs that workers
 * queue when due (add, list, remove). The schedules are the engine's
 * (probe-queue.c); this reads the arguments and prints.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "aivet/incident.h"
#include "aivet/probe-queue.h"

enum { O_ALL = 256, O_VENDOR, O_EVERY, O_JSON };

/* What was scheduled, a schedule a line, in words: "schedule 2: Acme/e1 every 24h". */
static int
scheduled_print(struct aivet *av, const int64_t *ids, size_t n, const char *every, struct aerr *err)
{
	struct probe_schedule_list l;

	if (probe_schedule_list_load(av->db, &l, err) != 0)
		return err->code;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < l.n; j++)
			if (l.items[j].id == ids[i])
				term_printf(stdout, "schedule %lld: %s every %s\n", (long long)ids[i],
				    l.items[j].target, every);
	probe_schedule_list_free(&l);
	return 0;
}

static int
schedule_add(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct probe_opts po = { 0 };
	const char *every = NULL;
	int64_t every_ms = 0, *ids;
	struct probe_targets t;
	int json = args_has(args, O_JSON);

	/* In the order given: the first bad value is the one named. */
	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;

		if (c == O_EVERY) {
			every = args->opt[i].arg;
			if (incident_duration("--every", every, &every_ms, err) != 0)
				return err->code;
		} else if (probe_run_opt(av, c, args->opt[i].arg, &po, err) > 0)
			return err->code;
	}
	if (every_ms == 0)
		return usage_error(av, err, "schedule add needs --every DURATION (30m, 24h, 7d)");
	if (every_ms < 60000)
		return usage_error(av, err, "--every: '%s' is under a minute", every);
	if (probe_targets(av, args, args_has(args, O_ALL), args_get(args, O_VENDOR),
	    args_target(args, O_VENDOR), 0, &t, err) == 0) {
		ids = xcalloc(t.n + 1, sizeof *ids);
		if (probe_schedule_add(av, t.ids, t.n, t.vendor_id, every_ms / 1000, &po, ids, err) == 0 &&
		    json)
			probe_ids_print(ids, t.n ? t.n : 1, 1);
		else if (err->code == 0)
			scheduled_print(av, ids, t.n ? t.n : 1, every, err);
		free(ids);
	}
	free(t.ids);
	return err->code;
}

static int
schedule_list(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct probe_schedule_list l;
	int json = args_has(args, 'j');
	struct db *db;

	if ((db = av_db(av, err)) == NULL || probe_schedule_list_load(db, &l, err) != 0)
		return err->code;
	if (json)
		json_emit(probe_schedule_list_to_json(&l));
	else if (l.n == 0)
		printf("no schedules\n");
	for (size_t i = 0; !json && i < l.n; i++)
		term_printf(stdout, "%4lld  %-28s every %-8lld s  next %s  by %s\n", (long long)l.items[i].id,
		    l.items[i].target, (long long)l.items[i].every_s, l.items[i].next_at, l.items[i].actor);
	probe_schedule_list_free(&l);
	return 0;
}

static int
schedule_remove(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int64_t id;

	if (parse_int_opt("SCHEDULE", args->word[0], 1, INT64_MAX, &id, err) != 0 ||
	    probe_schedule_remove(av, id, err) != 0)
		return err->code;
	printf("schedule %lld removed\n", (long long)id);
	return 0;
}

static const struct opt add_opts[] = {
	{ .name = "every", .id = O_EVERY, .arg = "DURATION",
	  .help = "how often (30m, 24h, 7d; at least a minute)", .flags = OPT_REQUIRED },
	PROBE_RUN_OPTS,
	{ .name = "all", .id = O_ALL,
	  .help = "every active endpoint, as it is when the schedule is due", .flags = OPT_FORM },
	{ .name = "vendor", .id = O_VENDOR, .arg = "VENDOR",
	  .help = "with --all: only this vendor's endpoints" },
	{ .name = "json", .id = O_JSON, .help = "print the new schedules' ids as a JSON array" },
	{ 0 }
};
static const struct opt none_opts[] = {
	{ 0 }
};

static const struct cmd_entry schedule_subs[] = {
	{ .name = "add", .targets = "VENDOR/ENDPOINT...", .opts = add_opts,
	  .summary = "run probes on a schedule (workers queue them when due)",
	  .exec = schedule_add, .args = ARGS({ TARGET_ENDPOINT, ARG_ANY }),
	  .target = { O_VENDOR, TARGET_VENDOR } },
	{ .name = "list", .opts = opt_json_only, .summary = "list the active schedules",
	  .exec = schedule_list, .args = ARGS_NONE },
	{ .name = "remove", .targets = "SCHEDULE", .opts = none_opts,
	  .summary = "remove a schedule (runs already queued stay)", .exec = schedule_remove,
	  .args = ARGS({ TARGET_WORD, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_schedule_entry = {
	.name = "schedule",
	.summary = "recurring probe runs, queued for the workers when due",
	.subs = schedule_subs,
};
