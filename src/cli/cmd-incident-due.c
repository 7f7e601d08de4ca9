/*
 * cmd-incident-due.c: "aivet incident due" — the notification clocks overdue
 * or due soon, across all open incidents, for a person or a nightly job: it
 * exits 1 while any is listed, so a timer's failure mail or a CI step is the
 * alarm, and with --notify-url it posts the list to chat webhooks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/incident.h"
#include "aivet/zone.h"

#define MAX_NOTIFY 16

static void
print_due(const struct due_report *r)
{
	if (r->n == 0) {
		term_printf(stdout, "%s\n", r->text);
		return;
	}
	term_printf(stdout, "%-8s %-18s %-29s %-20s %s\n", "INCIDENT", "CLOCK", "DUE", "LEFT", "TITLE");
	for (size_t i = 0; i < r->n; i++) {
		const struct due_clock *x = &r->clocks[i];
		char left[48];

		if (strcmp(x->state, "overdue") == 0)
			snprintf(left, sizeof left, "OVERDUE %s", x->overdue_by);
		else
			snprintf(left, sizeof left, "%s", x->time_left);
		term_printf(stdout, "%-8lld %-18s %-29s %-20s %s\n", (long long)x->incident, x->clock,
		    x->due_text, left, x->title);
	}
}

int
incident_due_cmd(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	const char *urls[MAX_NOTIFY];
	int64_t within_ms = (int64_t)7 * 86400 * 1000;
	int json = 0, nurls = 0, nfailed = 0, count;
	struct db *db;
	struct due_report due;
	char *body;
	struct aerr nerr;

	/* In the order given: the first bad value is the one named. */
	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;
		const char *arg = args->opt[i].arg;

		if (c == 'w') {
			if (incident_duration("--within", arg, &within_ms, err) != 0)
				return err->code;
		} else if (c == 'j') {
			json = 1;
		} else if (c == 'z') {
			/* As the global --tz, here too, where the dates print. */
			if (display_zone_set(arg, err) != 0)
				return aerr_prefix(err, "--tz");
		} else if (c == 'n') {
			if (nurls == MAX_NOTIFY)
				return usage_error(av, err, "--notify-url: at most %d", MAX_NOTIFY);
			char shown[300];

			if (incident_due_url_check(arg, shown, sizeof shown, err) != 0)
				return err->code;
			urls[nurls++] = arg;
		}
	}
	if ((db = av_db(av, err)) == NULL ||
	    incident_due_report(db, now_ms(), within_ms, &due, err) != 0)
		return err->code;
	count = (int)due.n;
	body = incident_due_notify_body(&due);
	/* Every URL is tried and each failure said: one dead webhook does not silence the others. */
	for (int i = 0; i < nurls; i++) {
		char shown[300];
		long status;

		aerr_clear(&nerr);
		if (incident_due_notify(urls[i], body, &status, shown, sizeof shown, &nerr) != 0) {
			fprintf(stderr, "aivet: %s\n", nerr.msg);
			nfailed++;
		} else {
			/* Said on stderr, so --json's document stays the whole of stdout. */
			fprintf(stderr, "notified %s: HTTP status %ld\n", shown, status);
		}
	}
	free(body);
	if (json)
		json_emit(due_report_to_json(&due));
	else
		print_due(&due);
	due_report_free(&due);
	if (nfailed > 0)
		return aerr_set(err, AV_RUNTIME, "%d of %d notifications failed", nfailed, nurls);
	if (count > 0)
		return aerr_set(err, AV_FINDINGS, "%d notification clock%s overdue or due soon", count,
		    count == 1 ? "" : "s");
	return 0;
}

const struct opt incident_due_opts[] = {
	{ .name = "within", .id = 'w', .arg = "DURATION",
	  .help = "the clocks due within DURATION too (default 7d)" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ .name = "tz", .id = 'z', .arg = "ZONE",
	  .help = "show the deadlines in this IANA time zone as well (as the global --tz)" },
	{ .name = "notify-url", .id = 'n', .arg = "URL",
	  .help = "POST the list to this webhook (Slack, Teams)", .flags = OPT_MANY },
	{ 0 }
};
