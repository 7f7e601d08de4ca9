/*
 * incident.h: incidents — the record of an exposure at a vendor, its
 * immutable timeline, its tasks and linked evidence, and the notification
 * clocks (HIPAA, HHS, media, the vendor's contractual notice, GDPR) that run
 * from its discovery. Shared by the CLI, the TUI and signed reports.
 */
#ifndef AIVET_INCIDENT_H
#define AIVET_INCIDENT_H

#include "core.h"
#include "vendor.h"
#include "url.h"

/* ---- notification clocks (clocks.c): pure arithmetic, no database ---- */

enum {
	CLOCK_HIPAA_INDIVIDUALS,
	CLOCK_HHS,
	CLOCK_MEDIA,
	CLOCK_VENDOR_SLA,
	CLOCK_GDPR_SA,
	CLOCK_COUNT
};

/* What the clocks depend on. -1 means unknown for the counts and times. */
struct incident_facts {
	int64_t discovered_ms;
	int discovered_offset;     /* minutes east of UTC of the zone discovery was given in */
	char phi;                  /* 'y', 'n' or 'u' (unknown) */
	int64_t individuals;
	int64_t state_residents;   /* most residents of any one state */
	int eu_data;               /* 1 yes, 0 no, -1 unknown: the GDPR clock runs until ruled out */
	int64_t vendor_sla_ms;     /* the vendor's contractual notice time, -1 when none */
	int vendor_sla_unknown;    /* 1: never answered nor given (not "none"): the clock may apply */
	char vendor_sla_text[32];  /* as answered: "24h" */
	char vendor_sla_source[160];
	int64_t vendor_discovered_ms; /* when the vendor says it discovered the incident */
	const char *zone;          /* the organisation's IANA zone, or NULL: UTC, assumed */
};

struct incident_clock {
	const char *id;            /* stable: hipaa-individuals, hhs, media, vendor-sla, gdpr-sa */
	const char *name;
	const char *rule;
	int applies;
	char basis[256];           /* why the clock applies or not, and what was assumed */
	int64_t start_ms, due_ms;
	int64_t stopped_ms;        /* -1 while running */
	int64_t stop_entry;        /* the timeline entry that stopped it */
	/* A deadline the rule states as a calendar date ("by 2027-03-01, end of
	 * day"): that date, due_ms being the end of it; "" otherwise. */
	char by_date[11];
	const char *zone;          /* the zone whose day that is: the organisation's, else UTC */
	int zone_assumed;          /* 1: UTC, because the database names no organisation zone */
	/* Set by clocks_compute for a clock that applies ("" otherwise): the due
	 * time as the rule states it (clock_due_text), in the zone discovery was
	 * given in, and in the organisation's zone ("" when it names none). */
	char due_text[96], due_local[40], due_org[64];
	/* Set by clocks_as_of: clock_state() at that time, and the seconds left
	 * (at the stop once stopped, negative when late; 0 when it does not apply). */
	const char *state;
	int64_t seconds_left;
};

/* Index of a clock id, or -1. */
int clock_index(const char *id);
const char *clock_id(int index);
void clocks_compute(const struct incident_facts *f, struct incident_clock out[CLOCK_COUNT]);
/* Sets each clock's state and seconds_left as of now (after its stops). */
void clocks_as_of(struct incident_clock c[CLOCK_COUNT], int64_t now);
/* A clock as "incident show --json" and report.json write it. */
cJSON *incident_clock_to_json(const struct incident_clock *c);
/* Records a stop; the earliest stop wins. */
void clock_stop(struct incident_clock *c, int64_t at_ms, int64_t entry_id);
/* "not-applicable", "running", "overdue", "met" or "late". */
const char *clock_state(const struct incident_clock *c, int64_t now);
/* The clock due next among those still running (overdue ones included), or
 * NULL; overdue[] gets the overdue ones and *noverdue their number. */
const struct incident_clock *clocks_next_due(const struct incident_clock c[CLOCK_COUNT],
    int64_t now, const struct incident_clock *overdue[CLOCK_COUNT], int *noverdue);
/* HHS notice for fewer than 500: 60 days after the end of the calendar year of
 * discovery, the year taken in the zone the discovery time was given in. */
int64_t hhs_annual_due(int64_t discovered_ms, int offset_min);
/* The same with the year and the day's end taken in a named zone; by_date
 * gets the deadline's date ("2027-03-01"), the day due_ms ends. */
int64_t hhs_annual_due_zone(int64_t discovered_ms, const char *zone, char by_date[11]);
/* "by 2027-03-01, end of day" for a calendar-date deadline, else the UTC time. */
void clock_due_text(const struct incident_clock *c, char *out, size_t n);
/* A notification time as contracts write it: "24h", "72h", "5d", "2w", "30m". */
void fmt_notice_time(int64_t seconds, char *out, size_t n);
/* "59d 23h", "3h 05m", "42m": whole minutes, for humans. */
void fmt_duration(int64_t ms, char *out, size_t n);

/* ---- the incident record (incident.c) ---- */

extern const char *const incident_statuses[];   /* new ... closed, NULL-terminated */

/* Incident severity runs 1 (low) to 4 (critical, the most severe). */
#define INCIDENT_SEVERITY_MAX 4
/* The words for a severity: "low", "medium", "high", "critical"; "?" outside 1-4. */
const char *incident_severity_word(int64_t severity);
/* "4 (critical; 4 = most severe)" as every screen and text shows it. */
void incident_severity_text(int64_t severity, char *out, size_t n);
/* Whether EU personal data is involved, as stored (1 yes, 0 no, -1 unknown):
 * from "yes", "no", "unknown" (or NULL, unknown), -2 for any other word; the
 * word for a value; and the value in JSON (true, false, null for unknown). */
int eu_data_parse(const char *word);
const char *eu_data_word(int v);
void eu_data_add_json(cJSON *o, const char *key, int v);

/* The severity an incident opened from a finding starts at: critical 4, high 3,
 * medium 2, low and info 1. */
int64_t incident_severity_of_finding(const char *finding_severity);
extern const char *const incident_entry_kinds[];

/* Adds one immutable timeline entry and its audit entry (inside the caller's
 * transaction). at_given NULL means now; details may be NULL. */
int incident_entry_add(struct db *db, const char *actor, int64_t incident_id, const char *kind,
    const char *at_given, const char *text, const cJSON *details, int64_t *entry_id,
    struct aerr *err);
/* Checks every timeline entry against the content its audit entry recorded,
 * and each incident's status against its newest status-change entry: an
 * entry edited, deleted or inserted, or a status changed, behind aivet's
 * back is reported in st. */
int incident_entries_check(struct db *db, struct audit_status *st, struct aerr *err);
/* The same, as an entry of audit_checks[]. */
extern const struct audit_check incident_audit_check;
/* Loads the facts and clock stops of an incident and computes its clocks. */
int incident_clocks(struct db *db, int64_t incident_id, struct incident_facts *f,
    struct incident_clock clocks[CLOCK_COUNT], struct aerr *err);
/* The vendor's contractual notification time from its questionnaire answers
 * (vendor_notification_sla()), in milliseconds (-1: none), as text and its source. */
int incident_vendor_sla(struct db *db, int64_t vendor_id, int64_t *ms, char *text, size_t textn,
    char *source, size_t sourcen, struct aerr *err);
/* A duration option or fact: "30m", "24h", "5d", "2w" into milliseconds. */
int incident_duration(const char *opt, const char *s, int64_t *ms, struct aerr *err);
/* incident_get and incident_to_json in one: the incident as report.json holds it. */
int incident_report_json(struct db *db, int64_t incident_id, cJSON **out, struct aerr *err);
/* incident_list_load and incident_list_to_json in one: "incident list --json". */
int incident_list_json(struct db *db, int64_t vendor_id, int open_only, int64_t now, cJSON **out,
    struct aerr *err);

/* ---- the incident as a record (incident.c) ---- */

/* One immutable timeline entry ("timeline" in the incident's JSON). */
struct incident_entry {
	int64_t id;
	char *kind, *at, *at_utc, *actor, *text;
	cJSON *details;            /* as recorded (free-form, the entry's own); NULL: null */
	char *recorded_at;
};
/* One task; owner, due_at and done_at NULL when null. */
struct incident_task {
	int64_t id;
	char *title, *owner, *due_at, *done_at, *created_at;
	int overdue;
};
/* A linked run, finding or evidence, with what each shows of it. */
struct incident_link {
	char *object_type;         /* "evidence", "run" or "finding" */
	int64_t object_id;
	char *added_at;
	/* evidence (original_name and media_type NULL when null) */
	char *kind, *sha256, *original_name, *file, *media_type;
	int64_t size;
	/* run (finished_at NULL while running; probes the run's list) */
	char *status, *started_at, *finished_at;
	cJSON *probes;
	/* finding */
	char *probe, *code, *severity, *message;
	int64_t run_id;
};
/*
 * An incident: its facts and exposure window, its state, its clocks as of
 * as_of and, loaded in full (incident_get), its timeline, tasks and links.
 * Strings NULL where the JSON has null; counts -1 when unknown.
 */
struct incident {
	int64_t id, vendor_id;
	char *vendor, *endpoint, *title, *status;
	int64_t severity;
	char *phi;
	int64_t individuals, state_residents;
	int eu_data;                            /* 1 yes, 0 no, -1 unknown */
	char *discovered_at, *discovered_at_local;
	char *window_start, *window_end;        /* the exposure window, NULL: not recorded */
	char *vendor_discovered_at;
	int has_vendor_sla;                     /* vendor_sla: {value, seconds, source} or null */
	char *vendor_sla_value, *vendor_sla_source;
	int64_t vendor_sla_seconds;
	char *created_by, *created_at;
	int64_t open_tasks;                     /* listed incidents only */
	char *as_of;
	int64_t as_of_ms;
	struct incident_facts facts;
	struct incident_clock clocks[CLOCK_COUNT];
	struct incident_entry *timeline;
	size_t ntimeline;
	struct incident_task *tasks;
	size_t ntasks;
	struct incident_link *links;
	size_t nlinks;
};
struct incident_list {
	struct incident *items;
	size_t n;
};
/* The whole incident, its clocks as of now (AIVET_NOW in tests and reports). */
int incident_get(struct db *db, int64_t id, struct incident *out, struct aerr *err);
void incident_free(struct incident *r);
/* The incidents (of one vendor unless vendor_id is 0; not closed with
 * open_only), by id, with their clocks as of now; no timeline, tasks or links. */
int incident_list_load(struct db *db, int64_t vendor_id, int open_only, int64_t now,
    struct incident_list *out, struct aerr *err);
void incident_list_free(struct incident_list *l);
/* The clock of a listed incident due next among those running (overdue ones
 * included) or NULL; *noverdue and overdue[] say which are overdue. */
const struct incident_clock *incident_next_due(const struct incident *r,
    const struct incident_clock *overdue[CLOCK_COUNT], int *noverdue);
/* The writers: the incident in full ("incident show --json", report.json,
 * the bundle), and as "incident list --json" lists it. */
cJSON *incident_to_json(const struct incident *r);
cJSON *incident_row_to_json(const struct incident *r);
cJSON *incident_list_to_json(const struct incident_list *l);

/* Resolves an incident id argument; unknown ids are a usage error. */
int incident_lookup(struct db *db, const char *arg, int64_t *id, struct aerr *err);
/* Links a run, finding or evidence (which must exist) to an incident, once. */
int incident_link_add(struct db *db, const char *actor, int64_t incident_id, const char *type,
    int64_t object_id, struct aerr *err);
/* The command that opens an incident from a probe finding, quoted for a shell:
 * aivet incident open VENDOR --title TEXT --endpoint VENDOR/NAME --from-finding ID
 * (what a critical finding prints); *out is the caller's to free. */
int incident_open_command(struct db *db, int64_t finding_id, char **out, struct aerr *err);
/* Whether a status change is allowed now; the message says why not. */
int incident_status_check(struct db *db, int64_t incident_id, const char *from, const char *to,
    struct aerr *err);

/* ---- changing an incident (incident-write.c) ---- */

/* Checks shared by the writes and "incident edit": a time given with a zone
 * and not in the future, a count or "unknown" (-1), a one-line title. */
int incident_time_opt(const char *opt, const char *s, int64_t *ms, int *off, struct aerr *err);
int incident_count_opt(const char *opt, const char *s, int64_t *out, struct aerr *err);
int incident_title_check(const char *what, const char *title, struct aerr *err);
int incident_status_of(struct db *db, int64_t id, char *out, size_t n, struct aerr *err);
/* Refuses a closed incident: its record is final. The id is resolved already
 * (the command framework's target, the screen's incident): no second lookup. */
int incident_writable(struct db *db, int64_t id, struct aerr *err);

/* What "incident open" takes; times, counts and the SLA as given (text). */
struct incident_open_input {
	int64_t vendor_id;      /* the vendor as the caller resolved it; 0: look vendor up */
	const char *vendor;     /* its name as given */
	const char *title, *endpoint, *discovered, *window_start, *window_end, *phi;
	const char *individuals, *state_residents, *vendor_discovered, *vendor_sla;
	int64_t severity;       /* 1-4; 0: from the finding's severity, else 2 */
	int64_t from_finding;   /* 0: opened by hand */
	const char *eu_data;    /* "yes", "no" or "unknown"; NULL: unknown */
};
struct incident_note_input {
	int64_t id;                           /* the incident, resolved by the caller */
	const char *text, *kind, *at;         /* kind NULL: observation */
	const char *clocks[8];
	int nclocks;
	int64_t corrects;
};
struct incident_link_input {
	int64_t id;
	struct {
		const char *type;   /* run, finding or evidence */
		int64_t id;
	} links[64];
	int nlinks;
	const char *file, *effective;   /* a file to add as evidence and link */
};
/* What "incident edit" takes: only the facts given change (set_* for the numbers). */
struct incident_edit_input {
	int64_t id;
	const char *title, *endpoint, *phi, *individuals, *state_residents;
	const char *window_start, *window_end, *vendor_discovered, *vendor_sla;
	const char *note, *at;   /* the decision entry's text (default "Set ...") and time */
	int64_t severity;
	int set_severity, set_eu_data, eu_data;   /* eu_data: 1 yes, 0 no, -1 unknown */
};
/* Each checks its input, opens the database only then, writes in one
 * transaction with its audit entries and timeline entry, and prints nothing.
 * The incident (or, to open one, the vendor) is an id the caller resolved. */
/* What opening settled: the discovery time the clocks run from and, when a
 * discovery given by hand is earlier than the run that raised the finding it
 * is opened from, that run's time (else ""), which the caller says. */
struct incident_opened {
	char discovered[32];
	char finding_run_at[32];
	int64_t finding_run;
};
int incident_open(struct aivet *av, const struct incident_open_input *in, int64_t *id,
    struct incident_opened *out, struct aerr *err);
int incident_set_status(struct aivet *av, int64_t id, const char *to, const char *note,
    const char *at, char from[32], struct aerr *err);
int incident_note(struct aivet *av, const struct incident_note_input *in, int64_t *entry_id,
    struct aerr *err);
int incident_task_add(struct aivet *av, int64_t id, const char *title, const char *owner,
    const char *due, int64_t *task_id, struct aerr *err);
int incident_task_done(struct aivet *av, int64_t task_id, const char *at, int64_t *id,
    struct aerr *err);
int incident_link(struct aivet *av, const struct incident_link_input *in,
    int64_t *file_evidence_id, struct aerr *err);
int incident_edit(struct aivet *av, const struct incident_edit_input *in, struct aerr *err);

/* ---- clocks that need attention (incident-due.c) ---- */

/* One clock that needs attention ("clocks" of "incident due --json"). */
struct due_clock {
	int64_t incident;
	char *title;
	const char *clock, *clock_name;  /* the clock's id and name */
	const char *state;               /* "overdue" or "due" */
	int64_t due_ms;
	char due[32];
	char due_date[11];               /* "" (null) unless the rule states a date */
	char due_text[96];
	char due_org[64];                /* "" (null) unless the organisation names its zone */
	int64_t seconds_left;            /* whole seconds, negative once passed */
	char time_left[40];
	char overdue_by[32];             /* "" (absent) unless overdue */
};
/* Every clock of an open incident overdue or due within within_seconds of
 * as_of, worst (earliest due) first; text is a summary a chat webhook shows as it is. */
struct due_report {
	char *text;
	char as_of[32];
	int64_t within_seconds;
	struct due_clock *clocks;
	size_t n;
};
int incident_due_report(struct db *db, int64_t now, int64_t within_ms, struct due_report *out,
    struct aerr *err);
void due_report_free(struct due_report *r);
/* {"text", "as_of", "within_seconds", "clocks": [{incident, title, clock, clock_name,
 * state, due, due_date, due_text, due_org, seconds_left, time_left, overdue_by}]}. */
cJSON *due_clock_to_json(const struct due_clock *c);
cJSON *due_report_to_json(const struct due_report *r);
/* The body posted to chat webhooks: the due report with its "text" escaped as
 * Slack and Teams read it (&, <, > as entities, so <!channel> pings no one and
 * <URL|label> disguises no link; control characters shown escaped). */
char *incident_due_notify_body(const struct due_report *r);
/* POSTs body (JSON) to an https URL (http to loopback): no redirects,
 * bounded time; any transport failure or non-2xx status is an AV_RUNTIME error.
 * On success *status is the HTTP status and shown (n bytes) the part of the
 * URL that may be shown (incident_due_url_check). */
int incident_due_notify(const char *url, const char *body, long *status, char *shown, size_t n,
    struct aerr *err);
/* Checks a webhook URL (http only to loopback) and gives the part that may be
 * shown ("https://hooks.example.org"): the rest may hold its token. */
int incident_due_url_check(const char *url, char *shown, size_t n, struct aerr *err);

/* ---- re-verification (incident-verify.c) ---- */

/*
 * Verifying an incident: prepare says what to re-run and what counts as the
 * failure, the caller runs the probes (with or without a terminal), record
 * links the run and adds the verification entry.
 */
struct incident_verify {
	int64_t incident_id, endpoint_id;
	char *probes;             /* "canary,oversize" */
	cJSON *codes;             /* the failure's finding codes; empty: any high or critical */
	int64_t run_id;           /* set by the caller's run */
	/* filled by record */
	int64_t entry_id;
	int reproduces;           /* 1, 0, or -1 when the run could not verify */
	char run_status[32];
	char why[512];            /* when -1: why the run could not verify */
	char *text;
};
int incident_verify_prepare(struct db *db, int64_t incident_id, const char *probes,
    struct incident_verify *v, struct aerr *err);
/* One transaction: the run linked, the verification entry added; *details
 * (the entry's details) is the caller's to free. */
int incident_verify_record(struct db *db, const char *actor, struct incident_verify *v,
    cJSON **details, struct aerr *err);
void incident_verify_free(struct incident_verify *v);

#endif
