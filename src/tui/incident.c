/*
 * tui/incident.c: one incident — its facts, notification clocks, tasks,
 * timeline and linked evidence on one scrolling page. Enter (or w) on a
 * clock shows why it applies. The facts form (e), the exposure window (W),
 * notes, tasks, status changes, attachments and verification call the
 * domain's incident functions the incident commands call, so the screen
 * refuses what the CLI refuses, for the same reasons.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/incident.h"
#include "aivet/probe.h"
#include "tui.h"
#include "aivet/zone.h"

#define HEADER_ROWS 5
/* Row ids: a task's own id; a timeline entry's below ENTRY_BASE; headings small negatives. */
#define ENTRY_BASE (INT64_C(1) << 40)
#define ENTRY_ROW(id) (-ENTRY_BASE - (int64_t)(id))
/* A linked finding's and run's rows, below the entries: Enter opens them. */
#define FINDING_BASE (INT64_C(1) << 42)
#define RUN_BASE (INT64_C(1) << 43)
/* A clock's row, below them all: Enter shows its basis. */
#define CLOCK_BASE (INT64_C(1) << 44)

struct incident_state {
	int64_t id;
	char ids[32];
	struct incident r;
	int loaded;
	struct tui_list lines;    /* tasks carry their task id; other lines a negative one */
};

static const enum request incident_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_EDIT, REQ_WINDOW, REQ_NOTE, REQ_TASK, REQ_STATUS, REQ_ATTACH, REQ_VERIFY,
	REQ_WHY, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static const char *
or_dash(const char *v)
{
	return v != NULL ? v : "-";
}

static int
incident_open_view(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct incident_state *s = xcalloc(1, sizeof *s);

	s->id = *(const int64_t *)arg;
	snprintf(s->ids, sizeof s->ids, "%lld", (long long)s->id);
	v->state = s;
	(void)t, (void)err;
	return 0;
}

static void
add_clock_line(struct incident_state *s, const struct incident_clock *c, int i)
{
	const char *state = c->state;
	int64_t row = -CLOCK_BASE - i;
	char dur[32] = "", stopped[32];
	int mark = TUI_MARK_NONE;

	if (c->applies)
		fmt_duration(c->seconds_left * 1000, dur, sizeof dur);
	if (strcmp(state, "not-applicable") == 0) {
		tui_list_add(&s->lines, row, TUI_MARK_DIM, "  %-18s %-9s %s", c->id, "n/a", c->basis);
		return;
	}
	if (strcmp(state, "overdue") == 0 || strcmp(state, "late") == 0)
		mark = TUI_MARK_BAD;
	else if (strcmp(state, "met") == 0)
		mark = TUI_MARK_GOOD;
	else if (c->seconds_left < 7 * 86400)
		mark = TUI_MARK_WARN;
	if (strcmp(state, "running") == 0) {
		tui_list_add(&s->lines, row, mark, "  %-18s %-9s due %s, %s left", c->id, state,
		    c->due_text, dur);
	} else if (strcmp(state, "overdue") == 0) {
		tui_list_add(&s->lines, row, mark, "  %-18s %-9s due %s, %s ago", c->id, "OVERDUE",
		    c->due_text, dur);
	} else {
		fmt_time_ms(c->stopped_ms, stopped);
		tui_list_add(&s->lines, row, mark, "  %-18s %-9s notified %s (%s %s), entry %lld", c->id,
		    strcmp(state, "late") == 0 ? "LATE" : state, stopped, dur,
		    strcmp(state, "met") == 0 ? "early" : "late", (long long)c->stop_entry);
	}
}

static int
incident_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct incident_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->lines), n = -1;
	struct incident r;

	if (incident_get(t->av->db, s->id, &r, err) != 0)
		return err->code;
	incident_free(&s->r);
	s->r = r;
	s->loaded = 1;
	tui_list_clear(&s->lines);
	tui_list_add(&s->lines, --n, TUI_MARK_DIM, "CLOCKS");
	for (int i = 0; i < CLOCK_COUNT; i++)
		add_clock_line(s, &r.clocks[i], i);
	tui_list_add(&s->lines, --n, TUI_MARK_DIM, "TASKS (t adds one; Enter marks the selected one done)");
	for (size_t i = 0; i < r.ntasks; i++) {
		const struct incident_task *x = &r.tasks[i];
		int done = x->done_at != NULL;

		tui_list_add(&s->lines, x->id, x->overdue ? TUI_MARK_BAD : done ? TUI_MARK_DIM :
		    TUI_MARK_NONE, "  [%c] %-4lld %-40s %-16s due %s%s", done ? 'x' : ' ', (long long)x->id,
		    x->title, or_dash(x->owner), or_dash(x->due_at), x->overdue ? "  OVERDUE" : "");
	}
	tui_list_add(&s->lines, --n, TUI_MARK_DIM,
	    "TIMELINE (N adds an entry, Enter shows one; entries never change)");
	for (size_t i = 0; i < r.ntimeline; i++) {
		const struct incident_entry *x = &r.timeline[i];

		tui_list_add(&s->lines, ENTRY_ROW(x->id), TUI_MARK_NONE, "  %-25s %-17s %-10s %s", x->at,
		    x->kind, x->actor, x->text);
	}
	tui_list_add(&s->lines, --n, TUI_MARK_DIM, "LINKED EVIDENCE (f attaches a file)");
	for (size_t i = 0; i < r.nlinks; i++) {
		const struct incident_link *x = &r.links[i];
		const char *type = x->object_type;

		if (strcmp(type, "evidence") == 0)
			tui_list_add(&s->lines, --n, TUI_MARK_NONE, "  evidence %-4lld %.16s  %s",
			    (long long)x->object_id, x->sha256, x->file);
		else if (strcmp(type, "run") == 0)
			tui_list_add(&s->lines, -RUN_BASE - x->object_id, TUI_MARK_NONE,
			    "  run      %-4lld %s %s", (long long)x->object_id, x->status, x->started_at);
		else
			tui_list_add(&s->lines, -FINDING_BASE - x->object_id, TUI_MARK_NONE,
			    "  finding  %-4lld %s %s: %s", (long long)x->object_id, x->severity, x->code,
			    x->message);
	}
	tui_list_restore(&s->lines, keep);
	return 0;
}

static void
incident_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct incident_state *s = v->state;
	const struct incident *r = &s->r;
	char line[700], ind[32] = "unknown", st[48] = "", sev[48];

	if (!s->loaded)
		return;
	if (r->individuals >= 0)
		snprintf(ind, sizeof ind, "%lld", (long long)r->individuals);
	if (r->state_residents >= 0)
		snprintf(st, sizeof st, " (at most %lld in one state)", (long long)r->state_residents);
	snprintf(line, sizeof line, "%s", r->title);
	wattron(w, A_BOLD);
	tui_put(w, 0, 2, cols - 2, line);
	wattroff(w, A_BOLD);
	incident_severity_text(r->severity, sev, sizeof sev);
	/* Status and severity first: they are what a narrow terminal must still show. */
	snprintf(line, sizeof line, "Status: %s   Severity: %s   Vendor: %s   Endpoint: %s",
	    r->status, sev, r->vendor, or_dash(r->endpoint));
	tui_put(w, 1, 2, cols - 2, line);
	/* The facts the clocks read, the short ones first: at 80 columns a long count is cut, not them. */
	snprintf(line, sizeof line, "Discovered: %s   PHI: %s   EU data: %s   Individuals: %s%s",
	    r->discovered_at_local, r->phi, eu_data_word(r->eu_data), ind, st);
	tui_put(w, 2, 2, cols - 2, line);
	snprintf(line, sizeof line, "Window: %s to %s", or_dash(r->window_start),
	    or_dash(r->window_end));
	tui_put(w, 3, 2, cols - 2, line);
	if (rows > HEADER_ROWS)
		tui_list_draw(&s->lines, t, w, HEADER_ROWS, rows - HEADER_ROWS, cols);
}

struct form_ctx {
	struct tui *t;
	struct incident_state *s;
	const char *kind;         /* a timeline entry's kind, picked before its form */
};

int
tui_check_time(const char *value, void *ctx, struct aerr *err)
{
	int64_t ms;

	(void)ctx;
	return value[0] == '\0' ? 0 : parse_time(value, &ms, err);
}

static int
check_clocks(const char *value, void *ctx, struct aerr *err)
{
	char *copy = xstrdup(value), *save = NULL;
	int rc = 0;

	(void)ctx;
	for (char *c = strtok_r(copy, " ", &save); c && rc == 0; c = strtok_r(NULL, " ", &save))
		if (clock_index(c) < 0)
			rc = aerr_set(err, AV_USAGE, "clocks: hipaa-individuals hhs media gdpr-sa");
	free(copy);
	return rc;
}

static int
note_submit(struct tui_field *f, int nf, void *p, struct aerr *err)
{
	struct form_ctx *c = p;
	struct incident_note_input in = {
		.id = c->s->id, .text = f[0].value, .kind = c->kind,
		.at = f[1].value[0] ? f[1].value : NULL,
	};
	char *copy = xstrdup(nf > 2 ? f[2].value : ""), *save = NULL;
	int64_t eid;
	int rc;

	for (char *k = strtok_r(copy, " ", &save); k && in.nclocks < 8; k = strtok_r(NULL, " ", &save))
		in.clocks[in.nclocks++] = k;
	rc = incident_note(c->t->av, &in, &eid, err);
	if (rc == 0) {
		tui_changed(c->t);
		tui_status(c->t, 0, "incident %lld: entry %lld recorded (%s)", (long long)c->s->id,
		    (long long)eid, in.kind);
	}
	free(copy);
	return rc;
}

static int
task_submit(struct tui_field *f, int nf, void *p, struct aerr *err)
{
	struct form_ctx *c = p;
	int64_t tid;

	(void)nf;
	if (incident_task_add(c->t->av, c->s->id, f[0].value, f[1].value[0] ? f[1].value : NULL,
	    f[2].value[0] ? f[2].value : NULL, &tid, err) != 0)
		return err->code;
	tui_changed(c->t);
	tui_status(c->t, 0, "incident %lld: task %lld added", (long long)c->s->id, (long long)tid);
	return 0;
}

/* ---- the facts form: what "incident edit" takes, the clocks' inputs first ---- */

enum { FF_SEVERITY, FF_PHI, FF_INDIVIDUALS, FF_STATE, FF_EU, FF_VENDOR_DISCOVERED, FF_VENDOR_SLA,
	FF_TITLE, FF_NOTE, FF_COUNT };

struct facts_ctx {
	struct tui *t;
	struct incident_state *s;
	char was[FF_COUNT][512];   /* the values the form opened with: only changes are sent */
};

static int
check_severity(const char *value, void *ctx, struct aerr *err)
{
	int64_t n;

	(void)ctx;
	return parse_int_opt("severity", value, 1, INCIDENT_SEVERITY_MAX, &n, err) != 0 ?
	    aerr_set(err, AV_USAGE, "1 low, 2 medium, 3 high or 4 critical (4 = most severe)") : 0;
}

static int
check_phi(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0 || strcmp(value, "unknown") == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "yes, no or unknown");
}

static int
check_count(const char *value, void *ctx, struct aerr *err)
{
	int64_t n;

	(void)ctx;
	return incident_count_opt("count", value, &n, err);
}

static int
check_eu(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return eu_data_parse(value) >= -1 && *value != '\0' ? 0 : aerr_set(err, AV_USAGE, "yes, no or unknown");
}

static int
check_sla(const char *value, void *ctx, struct aerr *err)
{
	int64_t ms;

	(void)ctx;
	return value[0] == '\0' || strcmp(value, "none") == 0 ? 0 :
	    incident_duration("vendor SLA", value, &ms, err);
}

/* A field changed from what the form opened with (an emptied optional one is left as it was). */
static const char *
changed(const struct facts_ctx *c, const struct tui_field *f, int i)
{
	return f[i].value[0] != '\0' && strcmp(f[i].value, c->was[i]) != 0 ? f[i].value : NULL;
}

static int
facts_submit(struct tui_field *f, int nf, void *p, struct aerr *err)
{
	struct facts_ctx *c = p;
	struct incident_edit_input in = {
		.id = c->s->id, .phi = changed(c, f, FF_PHI), .individuals = changed(c, f, FF_INDIVIDUALS),
		.state_residents = changed(c, f, FF_STATE),
		.vendor_discovered = changed(c, f, FF_VENDOR_DISCOVERED),
		.vendor_sla = changed(c, f, FF_VENDOR_SLA), .title = changed(c, f, FF_TITLE),
		.note = f[FF_NOTE].value[0] ? f[FF_NOTE].value : NULL,
	};

	(void)nf;
	if (changed(c, f, FF_SEVERITY) != NULL &&
	    parse_int_opt("severity", f[FF_SEVERITY].value, 1, INCIDENT_SEVERITY_MAX, &in.severity, err) != 0)
		return err->code;
	in.set_severity = changed(c, f, FF_SEVERITY) != NULL;
	in.set_eu_data = changed(c, f, FF_EU) != NULL;
	in.eu_data = eu_data_parse(f[FF_EU].value);
	if (!in.set_severity && !in.phi && !in.individuals && !in.state_residents && !in.set_eu_data &&
	    !in.vendor_discovered && !in.vendor_sla && !in.title) {
		tui_status(c->t, 0, "incident %s: no fact changed", c->s->ids);
		return 0;
	}
	if (incident_edit(c->t->av, &in, err) != 0)
		return err->code;
	tui_changed(c->t);
	tui_status(c->t, 0, "incident %lld: facts recorded; the clocks follow them", (long long)c->s->id);
	return 0;
}

static int
facts_form(struct incident_state *s, struct tui *t, struct aerr *err)
{
	struct tui_field f[FF_COUNT] = {
		[FF_SEVERITY] = { .label = "Severity", .width = 3, .check = check_severity,
		  .hint = "1 low, 2 medium, 3 high, 4 critical: 4 is the most severe" },
		[FF_PHI] = { .label = "PHI involved", .width = 8, .check = check_phi,
		  .hint = "yes, no or unknown: PHI starts the HIPAA and HHS clocks" },
		[FF_INDIVIDUALS] = { .label = "Individuals", .width = 12, .check = check_count,
		  .hint = "how many people are affected, or unknown (500 or more: HHS within 60 days)" },
		[FF_STATE] = { .label = "Most in one state", .width = 12, .check = check_count,
		  .hint = "residents of the state with the most, or unknown (over 500: media notice)" },
		[FF_EU] = { .label = "EU data subjects", .width = 7, .check = check_eu,
		  .hint = "yes, no or unknown: EU personal data (or not knowing) runs the GDPR 72-hour clock" },
		[FF_VENDOR_DISCOVERED] = { .label = "Vendor discovered", .width = 26, .check = tui_check_time,
		  .hint = "when the vendor says it discovered it, with a zone (empty: not known)" },
		[FF_VENDOR_SLA] = { .label = "Vendor SLA", .width = 8, .check = check_sla,
		  .hint = "the vendor's contractual notice time: 24h, 5d ... or none" },
		[FF_TITLE] = { .label = "Title", .width = 50, .hint = "one line" },
		[FF_NOTE] = { .label = "Note", .width = 50,
		  .hint = "why (the decision entry's text; empty: what was set)" },
	};
	struct facts_ctx c = { .t = t, .s = s };
	const struct incident *r = &s->r;

	if (strcmp(r->status, "closed") == 0)
		return aerr_set(err, AV_USAGE, "incident %s is closed: a closed incident does not change",
		    s->ids);
	snprintf(f[FF_SEVERITY].value, sizeof f[FF_SEVERITY].value, "%lld", (long long)r->severity);
	snprintf(f[FF_PHI].value, sizeof f[FF_PHI].value, "%s", r->phi);
	if (r->individuals >= 0)
		snprintf(f[FF_INDIVIDUALS].value, sizeof f[FF_INDIVIDUALS].value, "%lld",
		    (long long)r->individuals);
	else
		snprintf(f[FF_INDIVIDUALS].value, sizeof f[FF_INDIVIDUALS].value, "unknown");
	if (r->state_residents >= 0)
		snprintf(f[FF_STATE].value, sizeof f[FF_STATE].value, "%lld",
		    (long long)r->state_residents);
	else
		snprintf(f[FF_STATE].value, sizeof f[FF_STATE].value, "unknown");
	snprintf(f[FF_EU].value, sizeof f[FF_EU].value, "%s", eu_data_word(r->eu_data));
	snprintf(f[FF_VENDOR_DISCOVERED].value, sizeof f[FF_VENDOR_DISCOVERED].value, "%s",
	    r->vendor_discovered_at ? r->vendor_discovered_at : "");
	snprintf(f[FF_VENDOR_SLA].value, sizeof f[FF_VENDOR_SLA].value, "%s",
	    r->has_vendor_sla ? r->vendor_sla_value : r->facts.vendor_sla_unknown ? "" : "none");
	snprintf(f[FF_TITLE].value, sizeof f[FF_TITLE].value, "%s", r->title);
	for (int i = 0; i < FF_COUNT; i++)
		snprintf(c.was[i], sizeof c.was[i], "%s", f[i].value);
	tui_form(t, "Incident facts", f, FF_COUNT, facts_submit, &c);
	return 0;
}

/* One timeline entry in full: a long text is cut short in the list. Its details
 * read as an outline, not as JSON. */
static int
show_entry(struct incident_state *s, struct tui *t, int64_t entry_id, struct aerr *err)
{
	struct buf b;
	char title[64];
	int rc;

	for (size_t i = 0; i < s->r.ntimeline; i++) {
		const struct incident_entry *x = &s->r.timeline[i];

		if (x->id != entry_id)
			continue;
		buf_init(&b);
		buf_printf(&b, "kind         %s\nat           %s\nat (UTC)     %s\nactor        %s\n"
		    "recorded at  %s\n\n%s\n", x->kind, x->at, x->at_utc, x->actor, x->recorded_at,
		    x->text);
		/* The details are the entry's own free-form record: shown as an outline. */
		if (cJSON_IsObject(x->details) && x->details->child != NULL) {
			buf_adds(&b, "\ndetails\n");
			tui_json_outline(&b, x->details, 1);
		}
		snprintf(title, sizeof title, "Incident %s, entry %lld", s->ids, (long long)entry_id);
		rc = tui_show_text(t, title, b.data, err);
		buf_free(&b);
		return rc;
	}
	return 0;
}

/* One clock in full: why it applies or not (what was assumed), its rule, when
 * it started and is due (as the rule states it, in the organisation's zone),
 * and where it stands. */
static int
show_clock(struct incident_state *s, struct tui *t, int i, struct aerr *err)
{
	const struct incident_clock *c = &s->r.clocks[i];
	struct buf b;
	char title[96], at[32], dur[32] = "";
	int rc;

	if (c->applies)
		fmt_duration(c->seconds_left * 1000, dur, sizeof dur);
	buf_init(&b);
	buf_printf(&b, "clock        %s: %s\n", c->id, c->name);
	buf_printf(&b, "applies      %s\n", c->applies ? "yes" : "no");
	buf_printf(&b, "why          %s\n", c->basis);
	buf_printf(&b, "rule         %s\n", c->rule);
	if (c->applies) {
		fmt_time_ms(c->start_ms, at);
		buf_printf(&b, "started      %s\n", at);
		buf_printf(&b, "due          %s\n", c->due_text);
		fmt_time_ms(c->due_ms, at);
		buf_printf(&b, "due (UTC)    %s\n", at);
		/* A date deadline's end of day in the organisation's zone (an instant's
		 * due text is that time already). */
		if (c->due_org[0] != '\0' && strcmp(c->due_org, c->due_text) != 0)
			buf_printf(&b, "due (local)  %s\n", c->due_org);
		/* The zone --tz asked to see, when it is not the organisation's: shown, never moved. */
		if (display_zone() != NULL && (org_zone() == NULL || strcmp(display_zone(), org_zone()) != 0)) {
			char z[64];

			fmt_time_zone(c->due_ms, display_zone(), z);
			buf_printf(&b, "due (--tz)   %s\n", z);
		}
	}
	if (strcmp(c->state, "running") == 0) {
		buf_printf(&b, "state        running, %s left\n", dur);
	} else if (strcmp(c->state, "overdue") == 0) {
		buf_printf(&b, "state        OVERDUE by %s\n", dur);
	} else if (c->stopped_ms >= 0) {
		fmt_time_ms(c->stopped_ms, at);
		buf_printf(&b, "state        %s: notified %s (entry %lld), %s %s\n",
		    strcmp(c->state, "met") == 0 ? "met" : "LATE", at, (long long)c->stop_entry, dur,
		    strcmp(c->state, "met") == 0 ? "early" : "late");
	} else {
		buf_printf(&b, "state        not applicable\n");
	}
	buf_printf(&b, "as of        %s\n", s->r.as_of);
	snprintf(title, sizeof title, "Incident %s, clock %s", s->ids, c->id);
	rc = tui_show_text(t, title, b.data, err);
	buf_free(&b);
	return rc;
}

/* ---- the exposure window: when it began and ended, as "incident edit" records it ---- */

struct window_ctx {
	struct tui *t;
	struct incident_state *s;
};

static int
window_submit(struct tui_field *f, int nf, void *p, struct aerr *err)
{
	struct window_ctx *c = p;
	const struct incident *r = &c->s->r;
	struct incident_edit_input in = {
		.id = c->s->id, .window_start = f[0].value, .window_end = f[1].value,
		.note = f[2].value[0] ? f[2].value : NULL,
	};

	(void)nf;
	if (f[0].value[0] == '\0' || f[1].value[0] == '\0')
		return aerr_set(err, AV_USAGE, "give when the exposure began and when it ended");
	if (r->window_start != NULL && r->window_end != NULL &&
	    strcmp(f[0].value, r->window_start) == 0 && strcmp(f[1].value, r->window_end) == 0) {
		tui_status(c->t, 0, "incident %s: the exposure window is unchanged", c->s->ids);
		return 0;
	}
	if (incident_edit(c->t->av, &in, err) != 0)
		return err->code;
	tui_changed(c->t);
	tui_status(c->t, 0, "incident %lld: exposure window recorded", (long long)c->s->id);
	return 0;
}

static int
window_form(struct incident_state *s, struct tui *t, struct aerr *err)
{
	struct tui_field f[3] = {
		{ .label = "Exposure began", .width = 30, .check = tui_check_time,
		  .hint = "when the exposure began, ISO 8601 with a zone" },
		{ .label = "Exposure ended", .width = 30, .check = tui_check_time,
		  .hint = "when it ended, with a zone (not before it began)" },
		{ .label = "Note", .width = 50,
		  .hint = "why (the decision entry's text; empty: what was set)" },
	};
	struct window_ctx c = { t, s };

	if (strcmp(s->r.status, "closed") == 0)
		return aerr_set(err, AV_USAGE, "incident %s is closed: a closed incident does not change",
		    s->ids);
	snprintf(f[0].value, sizeof f[0].value, "%s", s->r.window_start ? s->r.window_start : "");
	snprintf(f[1].value, sizeof f[1].value, "%s", s->r.window_end ? s->r.window_end : "");
	tui_form(t, "Exposure window", f, 3, window_submit, &c);
	return 0;
}

/* Verification runs probes for a while: a job thread with its own connection. */
struct verify_job {
	struct tui_job job;
	struct aivet av;
	struct incident_verify v;
};

static struct verify_job verifying;   /* one job at a time, as the framework allows */

static void
verify_progress(void *arg, const struct probe_progress *p)
{
	tui_job_progress(arg, p->requests_planned > 0 ? (double)p->requests_done /
	    (double)p->requests_planned : -1, "verifying: %s, %lld/%lld requests", p->probe,
	    (long long)p->requests_done, (long long)p->requests_planned);
}

static int
verify_work(struct tui_job *job, void *arg, struct aerr *err)
{
	struct verify_job *vj = arg;
	struct probe_opts o = { .probes = vj->v.probes, .progress = verify_progress,
	    .progress_arg = job };
	cJSON *details = NULL;
	struct db *db;
	int rc;

	/* x sets job->cancel; sig_atomic_t is int, and the engine only reads the flag. */
	o.cancel = (volatile sig_atomic_t *)&job->cancel;
	rc = probe_run_endpoint(&vj->av, vj->v.endpoint_id, &o, &vj->v.run_id, err);
	if (vj->v.run_id > 0 && (db = av_db(&vj->av, err)) != NULL) {
		aerr_clear(err);
		rc = incident_verify_record(db, vj->av.actor, &vj->v, &details, err);
		cJSON_Delete(details);
		if (rc == 0)
			tui_job_progress(job, 1, "incident %lld: entry %lld: %s",
			    (long long)vj->v.incident_id, (long long)vj->v.entry_id, vj->v.text);
	}
	av_close(&vj->av);
	incident_verify_free(&vj->v);
	return rc;
}

static int
start_verify(struct incident_state *s, struct tui *t, struct aerr *err)
{
	if (t->job != NULL)
		return aerr_set(err, AV_USAGE, "another job is running; wait for it or stop it with x");
	if (strcmp(s->r.status, "closed") == 0)
		return aerr_set(err, AV_USAGE, "incident %s is closed: a closed incident does not change",
		    s->ids);
	memset(&verifying, 0, sizeof verifying);
	if (incident_verify_prepare(t->av->db, s->id, NULL, &verifying.v, err) != 0)
		return err->code;
	if (!tui_confirm(t, "Re-run %s against %s to verify incident %s?", verifying.v.probes,
	    or_dash(s->r.endpoint), s->ids)) {
		incident_verify_free(&verifying.v);
		return 0;
	}
	verifying.av = *t->av;
	verifying.av.db = NULL;
	if (tui_job_start(t, &verifying.job, verify_work, &verifying, err) != 0) {
		incident_verify_free(&verifying.v);
		return err->code;
	}
	tui_status(t, 0, "verifying incident %s: %s (x stops)", s->ids, verifying.v.probes);
	return 0;
}

/* N: a timeline entry, its kind picked first from the kinds the incident
 * module accepts, bar status-change (c writes those). */
static int
note_form(struct incident_state *s, struct tui *t)
{
	struct form_ctx c = { t, s, NULL };
	struct tui_field f[3] = {
		{ .label = "Text", .width = 60, .hint = "what happened" },
		{ .label = "At", .width = 26, .check = tui_check_time,
		  .hint = "when it happened, with a zone (empty: now)" },
		{ .label = "Clocks", .width = 40, .check = check_clocks,
		  .hint = "the clocks this notice stops, space-separated" },
	};
	struct tui_menu_item kinds[16];
	char title[80];
	int n = 0, cur = 0, k;

	for (int i = 0; incident_entry_kinds[i] != NULL && n < 16; i++) {
		if (strcmp(incident_entry_kinds[i], "status-change") == 0)
			continue;
		if (strcmp(incident_entry_kinds[i], "observation") == 0)
			cur = n;
		kinds[n++] = (struct tui_menu_item){ (char *)incident_entry_kinds[i], NULL, 0 };
	}
	if ((k = tui_menu(t, "Kind of timeline entry", kinds, n, 0, cur)) < 0)
		return 0;
	c.kind = kinds[k].value;
	snprintf(title, sizeof title, "Add timeline entry (%s)", c.kind);
	tui_form(t, title, f, strcmp(c.kind, "notification-sent") == 0 ? 3 : 2, note_submit, &c);
	return 0;
}

static int
task_form(struct incident_state *s, struct tui *t)
{
	struct form_ctx c = { t, s, NULL };
	struct tui_field f[3] = {
		{ .label = "Task", .width = 50, .hint = "what needs doing" },
		{ .label = "Owner", .width = 24, .hint = "who (optional)" },
		{ .label = "Due", .width = 26, .check = tui_check_time,
		  .hint = "ISO 8601 with a zone (optional)" },
	};

	tui_form(t, "Add task", f, 3, task_submit, &c);
	return 0;
}

/* c: the new status, the one after the current offered. */
static int
status_prompt(struct incident_state *s, struct tui *t, struct aerr *err)
{
	const char *cur = s->r.status;
	char text[512], from[32];
	int i;

	for (i = 0; incident_statuses[i] != NULL && strcmp(incident_statuses[i], cur) != 0; i++)
		;
	if (!tui_prompt(t, "New status", incident_statuses[i] && incident_statuses[i + 1] ?
	    incident_statuses[i + 1] : "", text, sizeof text) || text[0] == '\0')
		return 0;
	if (incident_set_status(t->av, s->id, text, NULL, NULL, from, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "incident %lld: %s -> %s", (long long)s->id, from, text);
	return 0;
}

static int
attach_file(struct incident_state *s, struct tui *t, struct aerr *err)
{
	char text[512];
	struct incident_link_input in = { .id = s->id, .file = text };
	int64_t tid;

	if (!tui_pick_file(t, "Attach a file to this incident", text, sizeof text))
		return 0;
	if (incident_link(t->av, &in, &tid, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "incident %lld: linked evidence %lld (%s)", (long long)s->id,
	    (long long)tid, text);
	return 0;
}

/* Enter on a line: a clock shows why it applies; a linked run opens the run
 * screen, a linked finding its evidence (as v there); a task is marked done. */
static int
open_line(struct incident_state *s, struct tui *t, int64_t sel, struct aerr *err)
{
	char ids[32];
	int64_t iid;

	if (sel <= -CLOCK_BASE)
		return show_clock(s, t, (int)(-sel - CLOCK_BASE), err);
	if (sel <= -RUN_BASE) {
		int64_t run = -sel - RUN_BASE;

		return tui_push(t, &tui_probe_run_view, &run, err);
	}
	if (sel <= -FINDING_BASE) {
		int64_t finding = -sel - FINDING_BASE;

		return tui_push(t, &tui_evidence_view, &finding, err);
	}
	if (sel <= -ENTRY_BASE)
		return show_entry(s, t, -sel - ENTRY_BASE, err);
	if (sel <= 0)
		return 0;
	snprintf(ids, sizeof ids, "%lld", (long long)sel);
	if (!tui_confirm(t, "Mark task %s done?", ids))
		return 0;
	if (incident_task_done(t->av, sel, NULL, &iid, err) != 0)
		return err->code;
	tui_changed(t);
	tui_status(t, 0, "incident %lld: task %lld done", (long long)iid, (long long)sel);
	return 0;
}

static int
incident_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct incident_state *s = v->state;
	int64_t sel = tui_list_selected_id(&s->lines);

	/* After a / search N steps back through the matches, as on every screen. */
	if (req == REQ_NOTE && s->lines.filter[0] != '\0')
		req = REQ_FIND_PREV;
	if (tui_list_request(&s->lines, t, req, v->content_rows - HEADER_ROWS))
		return 0;
	switch (req) {
	case REQ_NOTE:
		return note_form(s, t);
	case REQ_TASK:
		return task_form(s, t);
	case REQ_STATUS:
		return status_prompt(s, t, err);
	case REQ_ATTACH:
		return attach_file(s, t, err);
	case REQ_VERIFY:
		return start_verify(s, t, err);
	case REQ_EDIT:
		return facts_form(s, t, err);
	case REQ_WINDOW:
		return window_form(s, t, err);
	case REQ_WHY:
		if (sel > -CLOCK_BASE || sel <= -CLOCK_BASE - CLOCK_COUNT)
			return aerr_set(err, AV_USAGE, "select a clock: w shows why it applies");
		return show_clock(s, t, (int)(-sel - CLOCK_BASE), err);
	case REQ_ENTER:
		return open_line(s, t, sel, err);
	default:
		return 0;
	}
}

static void
incident_close(struct view *v)
{
	struct incident_state *s = v->state;

	tui_list_free(&s->lines);
	incident_free(&s->r);
	free(s);
}

static void
incident_title(struct view *v, char *buf, size_t n)
{
	struct incident_state *s = v->state;

	snprintf(buf, n, "Incident %s (%s)", s->ids, s->loaded ? s->r.status : "");
}

static void
incident_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct incident_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->lines, row - HEADER_ROWS);
	if (dbl && incident_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_incident_view = {
	"incident", incident_requests, incident_open_view, incident_load, incident_draw,
	incident_request, incident_close, incident_title, incident_click, NULL
};
