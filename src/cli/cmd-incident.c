/*
 * cmd-incident.c: "aivet incident" — open an incident against a vendor (by
 * hand or from a probe finding), move it through its status workflow, keep
 * its timeline of immutable entries, its tasks and linked evidence, and show
 * its notification clocks. Every change is one transaction with its audit
 * entries; timeline entries carry the time as given with its zone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "aivet/incident.h"
#include "aivet/probe.h"
#include "aivet/zone.h"

#define MAX_LINKS 64

/* Everything any incident subcommand takes; each parser says which it allows. */
struct incident_opts {
	const char *title, *endpoint, *discovered, *window_start, *window_end, *phi;
	const char *vendor_discovered, *at, *kind, *note, *owner, *due, *vendor;
	const char *individuals, *state_residents, *eu_data_arg;
	const char *file, *effective, *vendor_sla;
	int64_t vendor_sla_ms;
	int64_t severity, from_finding, corrects;
	int set_severity, set_eu_data, eu_data, json, open_only;
	int64_t target;   /* the first declared target's id (struct cmd_entry's args) */
	const char *clocks[8];
	int nclocks;
	struct {
		const char *type;
		int64_t id;
	} links[MAX_LINKS];
	int nlinks;
};

enum {
	O_TITLE = 256, O_ENDPOINT, O_DISCOVERED, O_WSTART, O_WEND, O_SEVERITY, O_PHI, O_INDIV,
	O_STATE, O_EU, O_VDISC, O_FINDING, O_AT, O_KIND, O_CLOCK, O_NOTE, O_CORRECTS, O_OWNER,
	O_DUE, O_JSON, O_OPEN, O_VENDOR, O_RUN, O_LFINDING, O_EVIDENCE, O_FILE, O_EFFECTIVE, O_VSLA
};

/*
 * Reads the options the framework parsed (the subcommand's table declares
 * which), each checked in the order given so the first bad one is named.
 */
static int
read_opts(struct aivet *av, const struct cmd_args *args, struct incident_opts *o, struct aerr *err)
{
	for (int i = 0; i < args->nopt; i++) {
		int c = args->opt[i].id;
		const char *arg = args->opt[i].arg;
		char key[40];

		switch (c) {
		case O_TITLE: o->title = arg; break;
		case O_ENDPOINT: o->endpoint = arg; break;
		case O_DISCOVERED: o->discovered = arg; break;
		case O_WSTART: o->window_start = arg; break;
		case O_WEND: o->window_end = arg; break;
		case O_SEVERITY:
			if (parse_int_opt("--severity", arg, 1, 4, &o->severity, err) != 0)
				return err->code;
			o->set_severity = 1;
			break;
		case O_PHI:
			if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0 &&
			    strcmp(arg, "unknown") != 0)
				return usage_error(av, err, "--phi: '%s' is not yes, no or unknown", arg);
			o->phi = arg;
			break;
		case O_INDIV: o->individuals = arg; break;
		case O_STATE: o->state_residents = arg; break;
		case O_EU:
			/* "--eu-data" alone means yes; "--eu-data no" as well as "--eu-data=no"
			 * (the framework takes the word its argument's name lists). */
			o->eu_data = arg == NULL ? 1 : eu_data_parse(arg);
			if (o->eu_data < -1)
				return usage_error(av, err, "--eu-data: '%s' is not yes, no or unknown", arg);
			o->set_eu_data = 1;
			break;
		case O_VDISC: o->vendor_discovered = arg; break;
		case O_FINDING:
			if (parse_int_opt("--from-finding", arg, 1, INT64_MAX, &o->from_finding, err) != 0)
				return err->code;
			break;
		case O_AT: o->at = arg; break;
		case O_KIND: o->kind = arg; break;
		case O_CLOCK:
			if (clock_index(arg) < 0)
				return usage_error(av, err, "--clock: unknown clock '%s' (one of "
				    "hipaa-individuals, hhs, media, vendor-sla, gdpr-sa)", arg);
			if (o->nclocks == (int)(sizeof o->clocks / sizeof o->clocks[0]))
				return usage_error(av, err, "--clock: too many");
			o->clocks[o->nclocks++] = arg;
			break;
		case O_NOTE: o->note = arg; break;
		case O_CORRECTS:
			if (parse_int_opt("--corrects", arg, 1, INT64_MAX, &o->corrects, err) != 0)
				return err->code;
			break;
		case O_OWNER: o->owner = arg; break;
		case O_DUE: o->due = arg; break;
		case O_JSON: o->json = 1; break;
		case O_OPEN: o->open_only = 1; break;
		case O_VENDOR: o->vendor = arg; break;
		case O_RUN:
		case O_LFINDING:
		case O_EVIDENCE:
			if (o->nlinks == MAX_LINKS)
				return usage_error(av, err, "at most %d links at a time", MAX_LINKS);
			o->links[o->nlinks].type = c == O_RUN ? "run" : c == O_LFINDING ? "finding" : "evidence";
			snprintf(key, sizeof key, "--%s", o->links[o->nlinks].type);
			if (parse_int_opt(key, arg, 1, INT64_MAX, &o->links[o->nlinks].id, err) != 0)
				return err->code;
			o->nlinks++;
			break;
		case O_FILE: o->file = arg; break;
		case O_EFFECTIVE: o->effective = arg; break;
		case O_VSLA:
			if (strcmp(arg, "none") != 0 &&
			    incident_duration("--vendor-sla", arg, &o->vendor_sla_ms, err) != 0)
				return err->code;
			o->vendor_sla = arg;
			break;
		}
	}
	o->target = args->target[0];
	return 0;
}

/* ---- open ---- */

static int
cmd_incident_open(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { .severity = 2 };
	struct incident_open_input in;
	int64_t id;
	struct incident_opened opened;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (o.title == NULL)
		return usage_error(av, err, "incident open needs --title");
	if (incident_title_check("--title", o.title, err) != 0)
		return err->code;
	if ((o.window_start == NULL) != (o.window_end == NULL))
		return usage_error(av, err, "--window-start and --window-end go together");
	in = (struct incident_open_input){
		.vendor_id = o.target, .vendor = args->argv[0], .title = o.title, .endpoint = o.endpoint,
		.discovered = o.discovered, .window_start = o.window_start, .window_end = o.window_end,
		.phi = o.phi, .individuals = o.individuals, .state_residents = o.state_residents,
		.vendor_discovered = o.vendor_discovered, .vendor_sla = o.vendor_sla,
		.severity = o.set_severity ? o.severity : 0, .from_finding = o.from_finding,
		.eu_data = o.set_eu_data ? eu_data_word(o.eu_data) : NULL,
	};
	if (incident_open(av, &in, &id, &opened, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld opened for vendor %s (discovered %s)\n", (long long)id,
	    args->argv[0], opened.discovered);
	if (opened.finding_run != 0)
		term_printf(stdout, "note: discovered before run %lld found finding %lld (%s); the "
		    "clocks run from the earlier time\n", (long long)opened.finding_run,
		    (long long)o.from_finding, opened.finding_run_at);
	return 0;
}

/* ---- list ---- */

static int
incident_list(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	int64_t vendor_id = args_target(args, O_VENDOR);
	struct db *db;
	struct incident_list l;
	struct table t;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (incident_list_load(db, vendor_id, o.open_only, now_ms(), &l, err) != 0)
		return err->code;
	if (o.json) {
		json_emit(incident_list_to_json(&l));
		incident_list_free(&l);
		return 0;
	}
	table_init(&t, 7, "ID", "STATUS", "VENDOR", "DISCOVERED", "OVERDUE", "NEXT DUE", "TITLE");
	for (size_t i = 0; i < l.n; i++) {
		const struct incident *r = &l.items[i];
		const struct incident_clock *next, *overdue[CLOCK_COUNT];
		char overbuf[16], nextbuf[64] = "-", due[32], id[24];
		int nover;

		next = incident_next_due(r, overdue, &nover);
		/* A passed date is not "next": it says so. */
		if (next != NULL) {
			fmt_time_ms(next->due_ms, due);
			snprintf(nextbuf, sizeof nextbuf, "%s%s %s", next->due_ms < r->as_of_ms ?
			    "OVERDUE " : "", next->id, due);
		}
		snprintf(overbuf, sizeof overbuf, "%d", nover);
		snprintf(id, sizeof id, "%lld", (long long)r->id);
		table_row(&t, id, r->status, r->vendor, r->discovered_at, nover ? overbuf : "-", nextbuf,
		    r->title);
	}
	table_print(&t, stdout);
	table_free(&t);
	incident_list_free(&l);
	return 0;
}

/* ---- show ---- */

static const char *
or_dash(const char *s)
{
	return s != NULL ? s : "-";
}

/* A date deadline as the rule states it, then UTC; the organisation's clock
 * beside, and the zone --tz asked for when it is another. */
static void
due_shown(const struct incident_clock *c, char *out, size_t n)
{
	int org = c->due_org[0] != '\0';
	char due[32], shown[64] = "";

	fmt_time_ms(c->due_ms, due);
	if (display_zone() != NULL && (org_zone() == NULL || strcmp(display_zone(), org_zone()) != 0)) {
		char z[64];

		fmt_time_zone(c->due_ms, display_zone(), z);
		snprintf(shown, sizeof shown, "%s", z);
	}
	if (c->by_date[0] != '\0')
		snprintf(out, n, "%s (%s%s%s%s%s)", c->due_text, due, org ? ", " : "", org ? c->due_org : "",
		    *shown ? ", " : "", shown);
	else
		snprintf(out, n, "%s%s%s%s%s%s", due, org || *shown ? " (" : "", org ? c->due_org : "",
		    org && *shown ? ", " : "", shown, org || *shown ? ")" : "");
}

static void
print_clock(const struct incident_clock *c)
{
	const char *state = c->state;
	char dur[32] = "", due[192], stopped[32];

	if (c->applies)
		fmt_duration(c->seconds_left * 1000, dur, sizeof dur);
	if (strcmp(state, "not-applicable") == 0) {
		term_printf(stdout, "  %-18s %-14s %s\n", c->id, state, c->basis);
		return;
	}
	due_shown(c, due, sizeof due);
	if (strcmp(state, "running") == 0) {
		term_printf(stdout, "  %-18s %-14s due %s (%s left)\n", c->id, state, due, dur);
	} else if (strcmp(state, "overdue") == 0) {
		term_printf(stdout, "  %-18s %-14s due %s (%s overdue)\n", c->id, "OVERDUE", due, dur);
	} else {
		fmt_time_ms(c->stopped_ms, stopped);
		term_printf(stdout, "  %-18s %-14s due %s, notified %s (entry %lld, %s %s)\n", c->id,
		    state, due, stopped, (long long)c->stop_entry, dur,
		    strcmp(state, "met") == 0 ? "early" : "late");
	}
	term_printf(stdout, "  %-18s %-14s %s\n", "", "", c->basis);
}

static int
incident_show(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	int64_t id;
	struct db *db;
	struct incident r;
	char sev[48];

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	id = o.target;
	if ((db = av_db(av, err)) == NULL || incident_get(db, id, &r, err) != 0)
		return err->code;
	if (o.json) {
		json_emit(incident_to_json(&r));
		incident_free(&r);
		return 0;
	}
	term_printf(stdout, "incident %lld: %s\n", (long long)id, r.title);
	term_printf(stdout, "  vendor       %s\n", r.vendor);
	term_printf(stdout, "  endpoint     %s\n", or_dash(r.endpoint));
	term_printf(stdout, "  status       %s\n", r.status);
	incident_severity_text(r.severity, sev, sizeof sev);
	term_printf(stdout, "  severity     %s\n", sev);
	term_printf(stdout, "  phi          %s\n", r.phi);
	if (r.individuals >= 0)
		term_printf(stdout, "  individuals  %lld\n", (long long)r.individuals);
	else
		term_printf(stdout, "  individuals  unknown\n");
	if (r.state_residents >= 0)
		term_printf(stdout, "  state max    %lld residents of one state\n",
		    (long long)r.state_residents);
	term_printf(stdout, "  eu data      %s\n", eu_data_word(r.eu_data));
	term_printf(stdout, "  discovered   %s (%s)\n", r.discovered_at_local, r.discovered_at);
	if (r.vendor_discovered_at != NULL)
		term_printf(stdout, "  vendor found %s\n", r.vendor_discovered_at);
	if (r.window_start != NULL)
		term_printf(stdout, "  window       %s to %s\n", r.window_start, or_dash(r.window_end));
	term_printf(stdout, "clocks (as of %s)\n", r.as_of);
	for (int i = 0; i < CLOCK_COUNT; i++)
		print_clock(&r.clocks[i]);
	term_printf(stdout, "timeline\n");
	for (size_t i = 0; i < r.ntimeline; i++) {
		const struct incident_entry *x = &r.timeline[i];

		term_printf(stdout, "  %-4lld %-25s %-17s %-10s %s\n", (long long)x->id, x->at, x->kind,
		    x->actor, x->text);
	}
	term_printf(stdout, "tasks\n");
	for (size_t i = 0; i < r.ntasks; i++) {
		const struct incident_task *x = &r.tasks[i];

		term_printf(stdout, "  %-4lld [%c] %s (owner %s, due %s%s)\n", (long long)x->id,
		    x->done_at != NULL ? 'x' : ' ', x->title, or_dash(x->owner), or_dash(x->due_at),
		    x->overdue ? ", OVERDUE" : "");
	}
	term_printf(stdout, "links\n");
	for (size_t i = 0; i < r.nlinks; i++) {
		const struct incident_link *x = &r.links[i];

		if (strcmp(x->object_type, "evidence") == 0)
			term_printf(stdout, "  evidence %-4lld %s %s\n", (long long)x->object_id, x->sha256,
			    x->file);
		else if (strcmp(x->object_type, "run") == 0)
			term_printf(stdout, "  run      %-4lld %s %s\n", (long long)x->object_id, x->status,
			    x->started_at);
		else
			term_printf(stdout, "  finding  %-4lld %s %s %s: %s\n", (long long)x->object_id,
			    x->severity, x->probe, x->code, x->message);
	}
	incident_free(&r);
	return 0;
}

/* ---- status ---- */

static int
cmd_incident_status(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	char from[32];

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (incident_set_status(av, o.target, args->argv[1], o.note, o.at, from, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld: %s -> %s\n", (long long)o.target, from, args->argv[1]);
	return 0;
}

/* ---- note ---- */

static int
cmd_incident_note(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	struct incident_note_input in = { 0 };
	const char *kind;
	int64_t eid;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	kind = o.kind ? o.kind : "observation";
	if (strcmp(kind, "status-change") == 0)
		return usage_error(av, err, "--kind status-change: use 'aivet incident status' "
		    "to change the status");
	if (o.nclocks > 0 && strcmp(kind, "notification-sent") != 0)
		return usage_error(av, err, "--clock needs --kind notification-sent");
	for (int i = 0; i < o.nclocks; i++)
		if (strcmp(o.clocks[i], "vendor-sla") == 0)
			return usage_error(av, err, "--clock vendor-sla: that clock stops when the "
			    "vendor's notice is recorded (--kind vendor-notice)");
	in.id = o.target, in.text = args->argv[1], in.kind = kind, in.at = o.at;
	in.corrects = o.corrects;
	for (int i = 0; i < o.nclocks; i++)
		in.clocks[in.nclocks++] = o.clocks[i];
	if (incident_note(av, &in, &eid, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld: entry %lld recorded (%s)\n", (long long)o.target, (long long)eid, kind);
	return 0;
}

/* ---- edit ---- */

static int
cmd_incident_edit(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	struct incident_edit_input in;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (!o.title && !o.endpoint && !o.set_severity && !o.phi && !o.individuals &&
	    !o.state_residents && !o.set_eu_data && !o.window_start && !o.window_end &&
	    !o.vendor_discovered && !o.vendor_sla)
		return usage_error(av, err, "incident edit: nothing to change");
	if (o.title != NULL && incident_title_check("--title", o.title, err) != 0)
		return err->code;
	if ((o.window_start == NULL) != (o.window_end == NULL))
		return usage_error(av, err, "--window-start and --window-end go together");
	in = (struct incident_edit_input){
		.id = o.target, .title = o.title, .endpoint = o.endpoint, .phi = o.phi,
		.individuals = o.individuals, .state_residents = o.state_residents,
		.window_start = o.window_start, .window_end = o.window_end,
		.vendor_discovered = o.vendor_discovered, .vendor_sla = o.vendor_sla, .note = o.note,
		.at = o.at, .severity = o.severity, .set_severity = o.set_severity,
		.set_eu_data = o.set_eu_data, .eu_data = o.eu_data,
	};
	if (incident_edit(av, &in, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld updated\n", (long long)o.target);
	return 0;
}

/* ---- tasks ---- */

static int
task_add(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	int64_t due_ms, tid;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (incident_title_check("the task title", args->argv[1], err) != 0)
		return err->code;
	if (o.owner != NULL && (*o.owner == '\0' || strlen(o.owner) > 100))
		return usage_error(av, err, "--owner must be 1 to 100 characters");
	if (o.due != NULL && parse_deadline(o.due, &due_ms, err) != 0)
		return aerr_prefix(err, "--due");
	if (incident_task_add(av, o.target, args->argv[1], o.owner, o.due, &tid, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld: task %lld added\n", (long long)o.target, (long long)tid);
	return 0;
}

static int
task_done(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	int64_t tid, iid;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (parse_int_opt("TASK_ID", args->argv[0], 1, INT64_MAX, &tid, err) != 0)
		return err->code;
	if (incident_task_done(av, tid, o.at, &iid, err) != 0)
		return err->code;
	term_printf(stdout, "incident %lld: task %lld done\n", (long long)iid, (long long)tid);
	return 0;
}

/* ---- link ---- */

static int
cmd_incident_link(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct incident_opts o = { 0 };
	struct incident_link_input in = { 0 };
	int64_t id = 0, eid = 0;

	if (read_opts(av, args, &o, err) != 0)
		return err->code;
	if (o.nlinks == 0 && o.file == NULL)
		return usage_error(av, err, "incident link: nothing to link");
	if (o.effective != NULL && o.file == NULL)
		return usage_error(av, err, "--effective goes with --file");
	id = o.target;
	in.id = id, in.file = o.file, in.effective = o.effective;
	for (int i = 0; i < o.nlinks; i++) {
		in.links[i].type = o.links[i].type;
		in.links[i].id = o.links[i].id;
	}
	in.nlinks = o.nlinks;
	if (incident_link(av, &in, &eid, err) != 0)
		return err->code;
	for (int i = 0; i < o.nlinks; i++)
		term_printf(stdout, "incident %lld: linked %s %lld\n", (long long)id, o.links[i].type,
		    (long long)o.links[i].id);
	if (o.file != NULL)
		term_printf(stdout, "incident %lld: linked evidence %lld (%s)\n", (long long)id, (long long)eid, o.file);
	return 0;
}

/* ---- verify ---- */

/* A verification spends the vendor's tokens as a probe run does: its plan is
 * shown and, on a terminal, confirmed the same way unless --yes. */
static int
verify_confirm(struct aivet *av, const struct incident_verify *v, const struct probe_opts *po,
    int json, int yes, struct aerr *err)
{
	cJSON *plan;
	char q[96];
	int go;

	if (probe_plan_endpoint(av, v->endpoint_id, po, &plan, err) != 0)
		return err->code;
	probe_print_plan(json ? stderr : stdout, plan);
	cJSON_Delete(plan);
	fflush(stdout);
	snprintf(q, sizeof q, "send these requests to verify incident %lld?", (long long)v->incident_id);
	go = probe_confirm_tty(yes, q);
	return go ? 0 : aerr_set(err, AV_USAGE, "not confirmed; nothing was sent");
}

static int
incident_verify(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	struct probe_opts po = { 0 };
	struct incident_verify v;
	const char *probes = NULL;
	int64_t id;
	int json = args_has(args, 'j'), yes = args_has(args, 'y'), rc;
	struct db *db;
	cJSON *details = NULL, *run;

	probes = args_get(args, 'p');
	if (args_has(args, 'b') && parse_int_opt("--budget-tokens", args_get(args, 'b'), 1,
	    INT64_C(1) << 50, &po.budget_tokens, err) != 0)
		return err->code;
	id = args->target[0];
	if ((db = av_db(av, err)) == NULL || incident_writable(db, id, err) != 0 ||
	    incident_verify_prepare(db, id, probes, &v, err) != 0)
		return err->code;
	po.probes = v.probes;
	if (verify_confirm(av, &v, &po, json, yes, err) != 0) {
		incident_verify_free(&v);
		return err->code;
	}
	/* The run is the probe command's own, with its progress and its report; with
	 * --json the run's document goes into ours instead. */
	if (json)
		rc = probe_run_endpoint(av, v.endpoint_id, &po, &v.run_id, err);
	else
		rc = probe_run_cli(av, v.endpoint_id, &po, 0, "critical", &v.run_id, err);
	if (v.run_id == 0) {
		if (rc == 0)
			aerr_set(err, AV_RUNTIME, "the verification run did not start");
		incident_verify_free(&v);
		return err->code;
	}
	aerr_clear(err);
	if (incident_verify_record(db, av->actor, &v, &details, err) != 0) {
		incident_verify_free(&v);
		return err->code;
	}
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "incident", (double)id);
		cJSON_AddNumberToObject(o, "entry", (double)v.entry_id);
		cJSON_AddItemToObject(o, "verification", details);
		if (probe_run_json(db, v.run_id, &run, err) == 0)
			cJSON_AddItemToObject(o, "run", run);
		json_emit(o);
	} else {
		term_printf(stdout, "incident %lld: entry %lld: %s\n", (long long)id, (long long)v.entry_id, v.text);
		cJSON_Delete(details);
	}
	if (v.reproduces > 0)
		aerr_set(err, AV_FINDINGS, "incident %lld: the failure still reproduces (run %lld)",
		    (long long)id, (long long)v.run_id);
	else if (v.reproduces < 0)
		aerr_set(err, AV_RUNTIME, "incident %lld: could not verify (run %lld): %s", (long long)id,
		    (long long)v.run_id, v.why);
	incident_verify_free(&v);
	return err->code;
}

#define FACT_OPTS(EU_ARG, EU_FLAGS, N) \
	{ .name = "severity", .id = O_SEVERITY, .arg = "1-4", \
	  .help = "how grave (4 most severe)" }, \
	{ .name = "phi", .id = O_PHI, .arg = "yes|no|unknown", \
	  .help = "whether protected health information was involved" }, \
	{ .name = "individuals", .id = O_INDIV, .arg = N, \
	  .help = "how many individuals are affected" }, \
	{ .name = "state-residents", .id = O_STATE, .arg = N, \
	  .help = "how many of them live in the most affected state" }, \
	{ .name = "eu-data", .id = O_EU, .arg = EU_ARG, \
	  .help = "personal data of people in the EU (GDPR clock)", .flags = EU_FLAGS }

static const struct opt open_opts[] = {
	{ .name = "title", .id = O_TITLE, .arg = "TEXT", .help = "what happened, in a line",
	  .flags = OPT_REQUIRED },
	{ .name = "endpoint", .id = O_ENDPOINT, .arg = "VENDOR/NAME",
	  .help = "the endpoint concerned" },
	{ .name = "discovered", .id = O_DISCOVERED, .arg = "TIME",
	  .help = "when it was discovered (default now); starts the clocks" },
	{ .name = "window-start", .id = O_WSTART, .arg = "TIME",
	  .help = "when the exposure began" },
	{ .name = "window-end", .id = O_WEND, .arg = "TIME", .help = "when it ended",
	  .flags = OPT_WITH },
	FACT_OPTS("yes|no|unknown", OPT_OPTARG, "N"),
	{ .name = "vendor-discovered", .id = O_VDISC, .arg = "TIME",
	  .help = "when the vendor discovered it" },
	{ .name = "vendor-sla", .id = O_VSLA, .arg = "DURATION",
	  .help = "the vendor's contractual notice time (its own clock)" },
	{ .name = "from-finding", .id = O_FINDING, .arg = "FINDING_ID",
	  .help = "open it from a probe finding, linked" },
	{ 0 }
};
static const struct opt list_opts[] = {
	{ .name = "open", .id = O_OPEN, .help = "only incidents not closed" },
	{ .name = "vendor", .id = O_VENDOR, .arg = "VENDOR",
	  .help = "only this vendor's incidents" },
	{ .name = "json", .id = O_JSON, .help = "print JSON" },
	{ 0 }
};
static const struct opt show_opts[] = {
	{ .name = "json", .id = O_JSON, .help = "print JSON" },
	{ 0 }
};
static const struct opt status_opts[] = {
	{ .name = "note", .id = O_NOTE, .arg = "TEXT", .help = "why, kept with the status change" },
	{ .name = "at", .id = O_AT, .arg = "TIME", .help = "when it changed (default now)" },
	{ 0 }
};
static const struct opt note_opts[] = {
	{ .name = "kind", .id = O_KIND, .arg = "KIND",
	  .help = "the entry's kind (note, notification-sent, decision, ...)" },
	{ .name = "at", .id = O_AT, .arg = "TIME", .help = "when it happened (default now)" },
	{ .name = "clock", .id = O_CLOCK, .arg = "CLOCK",
	  .help = "with --kind notification-sent: the clock it stops", .flags = OPT_MANY },
	{ .name = "corrects", .id = O_CORRECTS, .arg = "ENTRY_ID",
	  .help = "the entry this one corrects" },
	{ 0 }
};
static const struct opt edit_opts[] = {
	{ .name = "title", .id = O_TITLE, .arg = "TEXT", .help = "what happened, in a line" },
	{ .name = "endpoint", .id = O_ENDPOINT, .arg = "VENDOR/NAME",
	  .help = "the endpoint concerned" },
	FACT_OPTS("yes|no|unknown", 0, "N|unknown"),
	{ .name = "window-start", .id = O_WSTART, .arg = "TIME",
	  .help = "when the exposure began" },
	{ .name = "window-end", .id = O_WEND, .arg = "TIME", .help = "when it ended",
	  .flags = OPT_WITH },
	{ .name = "vendor-discovered", .id = O_VDISC, .arg = "TIME",
	  .help = "when the vendor discovered it" },
	{ .name = "vendor-sla", .id = O_VSLA, .arg = "DURATION|none",
	  .help = "the vendor's contractual notice time" },
	{ .name = "note", .id = O_NOTE, .arg = "TEXT",
	  .help = "why, kept with the decision entry" },
	{ .name = "at", .id = O_AT, .arg = "TIME",
	  .help = "when the facts were established (default now)" },
	{ 0 }
};
static const struct opt task_add_opts[] = {
	{ .name = "owner", .id = O_OWNER, .arg = "NAME", .help = "who does it" },
	{ .name = "due", .id = O_DUE, .arg = "TIME",
	  .help = "when it is due (a date: by its end; tomorrow, +3d)" },
	{ 0 }
};
static const struct opt task_done_opts[] = {
	{ .name = "at", .id = O_AT, .arg = "TIME", .help = "when it was done (default now)" },
	{ 0 }
};
static const struct opt link_opts[] = {
	{ .name = "run", .id = O_RUN, .arg = "RUN_ID", .help = "a probe run", .flags = OPT_MANY },
	{ .name = "finding", .id = O_LFINDING, .arg = "FINDING_ID", .help = "a probe finding",
	  .flags = OPT_MANY },
	{ .name = "evidence", .id = O_EVIDENCE, .arg = "EVIDENCE_ID", .help = "recorded evidence",
	  .flags = OPT_MANY },
	{ .name = "file", .id = O_FILE, .arg = "PATH",
	  .help = "a file, recorded as evidence and linked" },
	{ .name = "effective", .id = O_EFFECTIVE, .arg = "DATE",
	  .help = "the date the file speaks for", .flags = OPT_UNDER },
	{ 0 }
};
static const struct opt verify_opts[] = {
	{ .name = "probe", .id = 'p', .arg = "NAME,...",
	  .help = "these probes (default: those the incident's findings name)" },
	{ .name = "budget-tokens", .id = 'b', .arg = "N",
	  .help = "never spend more tokens than N" },
	{ .name = "yes", .id = 'y', .help = "run without asking to confirm the plan" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

static const struct cmd_entry task_subs[] = {
	{ .name = "add", .targets = "ID TITLE", .opts = task_add_opts,
	  .summary = "add a task with an owner and a due time", .exec = task_add,
	  .args = ARGS({ TARGET_INCIDENT, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "done", .targets = "TASK_ID", .opts = task_done_opts,
	  .summary = "mark a task done", .exec = task_done, .args = ARGS({ TARGET_WORD, 0 }) },
	{ 0 }
};

static const struct cmd_entry incident_subs[] = {
	{ .name = "open", .targets = "VENDOR", .opts = open_opts,
	  .summary = "open an incident (from a probe finding with --from-finding)",
	  .exec = cmd_incident_open, .args = ARGS({ TARGET_VENDOR, 0 }) },
	{ .name = "list", .opts = list_opts,
	  .summary = "list incidents with overdue and next-due clocks", .exec = incident_list,
	  .args = ARGS_NONE, .target = { O_VENDOR, TARGET_VENDOR } },
	{ .name = "due", .opts = incident_due_opts,
	  .summary = "list clocks overdue or due soon; post them to webhooks",
	  .exec = incident_due_cmd, .args = ARGS_NONE },
	{ .name = "show", .targets = "ID", .opts = show_opts,
	  .summary = "show an incident: facts, clocks, timeline, tasks, links",
	  .exec = incident_show, .args = ARGS({ TARGET_INCIDENT, 0 }) },
	{ .name = "status", .targets = "ID new|investigating|contained|resolved|closed",
	  .opts = status_opts, .summary = "move an incident through its workflow",
	  .exec = cmd_incident_status,
	  .args = ARGS({ TARGET_INCIDENT, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "note", .targets = "ID TEXT", .opts = note_opts,
	  .summary = "add an immutable timeline entry", .exec = cmd_incident_note,
	  .args = ARGS({ TARGET_INCIDENT, 0 }, { TARGET_WORD, 0 }) },
	{ .name = "edit", .targets = "ID", .opts = edit_opts,
	  .summary = "record established facts (recorded as a decision entry)",
	  .exec = cmd_incident_edit, .args = ARGS({ TARGET_INCIDENT, 0 }) },
	{ .name = "task", .summary = "add and complete tasks", .subs = task_subs },
	{ .name = "link", .targets = "ID", .opts = link_opts,
	  .summary = "link probe runs, findings and evidence", .exec = cmd_incident_link,
	  .args = ARGS({ TARGET_INCIDENT, 0 }) },
	{ .name = "verify", .targets = "ID", .opts = verify_opts,
	  .summary = "re-run the relevant probes and record a verification",
	  .exec = incident_verify, .args = ARGS({ TARGET_INCIDENT, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_incident_entry = {
	.name = "incident",
	.summary = "run incidents: timeline, tasks, notification clocks, evidence",
	.subs = incident_subs,
};
