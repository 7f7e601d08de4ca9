/*
 * incident-write.c: the changes made to an incident — opening one (by hand
 * or from a probe finding), moving its status, adding timeline notes, tasks
 * and linked evidence — for the CLI's "aivet incident" and the TUI's incident
 * screens alike. Each validates its input, opens the database only then,
 * writes in one transaction with its audit entries, and prints nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "incident.h"
#include "zone.h"

#define MAX_TITLE 200

/* A time option: ISO 8601 with a zone, not in the future. */
int
incident_time_opt(const char *opt, const char *s, int64_t *ms, int *off, struct aerr *err)
{
	int o;

	if (parse_time_zone(s, ms, off ? off : &o, err) != 0)
		return aerr_prefix(err, "%s", opt);
	if (*ms > now_ms() + (int64_t)5 * 60 * 1000)
		return aerr_set(err, AV_USAGE, "%s %s is in the future", opt, s);
	return 0;
}

/* A count option: a whole number, or "unknown" (-1). */
int
incident_count_opt(const char *opt, const char *s, int64_t *out, struct aerr *err)
{
	if (strcmp(s, "unknown") == 0) {
		*out = -1;
		return 0;
	}
	return parse_int_opt(opt, s, 0, 1000000000000LL, out, err);
}

int
incident_title_check(const char *what, const char *title, struct aerr *err)
{
	size_t n = strlen(title);

	if (n == 0 || strspn(title, " ") == n)
		return aerr_set(err, AV_USAGE, "%s must not be empty", what);
	if (n > MAX_TITLE)
		return aerr_set(err, AV_USAGE, "%s is longer than %d characters", what, MAX_TITLE);
	for (const unsigned char *p = (const unsigned char *)title; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return aerr_set(err, AV_USAGE, "%s may not contain control characters", what);
	return 0;
}

int
incident_status_of(struct db *db, int64_t id, char *out, size_t n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT status FROM incident WHERE id = ?", "i", id);

	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown incident %lld", (long long)id);
	}
	snprintf(out, n, "%s", col_text(st, 0));
	db_finalize(st);
	return 0;
}

/* Refuses a closed incident (its record is final), read inside the write's
 * transaction; the id is the caller's, resolved once. */
int
incident_writable(struct db *db, int64_t id, struct aerr *err)
{
	char status[32];

	if (incident_status_of(db, id, status, sizeof status, err) != 0)
		return err->code;
	if (strcmp(status, "closed") == 0)
		return aerr_set(err, AV_USAGE, "incident %lld is closed: a closed incident does not "
		    "change", (long long)id);
	return 0;
}

struct finding_source {
	int64_t id, run_id, endpoint_id, vendor_id;
	char probe[64], code[64], severity[16], message[512], run_time[40];
};

static int
finding_source_load(struct db *db, int64_t fid, struct finding_source *fs, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT f.run_id, r.endpoint_id, e.vendor_id, f.probe, "
	    "f.code, f.severity, f.message, coalesce(r.finished_at, r.started_at) FROM finding f "
	    "JOIN probe_run r ON r.id = f.run_id JOIN endpoint e ON e.id = r.endpoint_id "
	    "WHERE f.id = ?", "i", fid);

	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "--from-finding: unknown finding %lld", (long long)fid);
	}
	fs->id = fid;
	fs->run_id = db_col_int64(st, 0);
	fs->endpoint_id = db_col_int64(st, 1);
	fs->vendor_id = db_col_int64(st, 2);
	snprintf(fs->probe, sizeof fs->probe, "%s", col_text(st, 3));
	snprintf(fs->code, sizeof fs->code, "%s", col_text(st, 4));
	snprintf(fs->severity, sizeof fs->severity, "%s", col_text(st, 5));
	snprintf(fs->message, sizeof fs->message, "%s", col_text(st, 6));
	snprintf(fs->run_time, sizeof fs->run_time, "%s", col_text(st, 7));
	db_finalize(st);
	return 0;
}

/* The facts an open and an edit both take, as typed. */
struct facts_text {
	const char *window_start, *window_end, *vendor_discovered, *individuals, *state_residents;
};

/* Checks and parses them: the exposure window has both ends or neither, in
 * order; the vendor's discovery is a time; the counts are counts (-1 when not given). */
static int
facts_check(const struct facts_text *f, int64_t *ws, int64_t *we, int64_t *indiv, int64_t *state,
    struct aerr *err)
{
	int64_t vd;

	if ((f->window_start == NULL) != (f->window_end == NULL))
		return aerr_set(err, AV_USAGE, "--window-start and --window-end go together");
	if (f->window_start != NULL &&
	    (incident_time_opt("--window-start", f->window_start, ws, NULL, err) != 0 ||
	    incident_time_opt("--window-end", f->window_end, we, NULL, err) != 0))
		return err->code;
	if (f->window_start != NULL && *we < *ws)
		return aerr_set(err, AV_USAGE, "--window-end %s is before --window-start %s",
		    f->window_end, f->window_start);
	if (f->vendor_discovered != NULL &&
	    incident_time_opt("--vendor-discovered", f->vendor_discovered, &vd, NULL, err) != 0)
		return err->code;
	if (f->individuals != NULL && incident_count_opt("--individuals", f->individuals, indiv, err) != 0)
		return err->code;
	if (f->state_residents != NULL &&
	    incident_count_opt("--state-residents", f->state_residents, state, err) != 0)
		return err->code;
	return 0;
}

/* The open's input checked and parsed, before the database is touched. */
struct open_parsed {
	int64_t disc_ms, ws, we, indiv, state, sla_ms;
	int eu_data;   /* 1 yes, 0 no, -1 unknown */
};

static int
open_check(const struct incident_open_input *in, struct open_parsed *p, struct aerr *err)
{
	int off;

	p->ws = p->we = 0;
	p->indiv = p->state = p->sla_ms = -1;
	if (in->vendor_sla != NULL && strcmp(in->vendor_sla, "none") != 0 &&
	    incident_duration("--vendor-sla", in->vendor_sla, &p->sla_ms, err) != 0)
		return err->code;
	if (incident_title_check("--title", in->title, err) != 0)
		return err->code;
	/* A word no surface caught is refused here, not stored as a fourth value. */
	if ((p->eu_data = eu_data_parse(in->eu_data)) < -1)
		return aerr_set(err, AV_USAGE, "--eu-data: '%s' is not yes, no or unknown", in->eu_data);
	if (in->discovered != NULL &&
	    incident_time_opt("--discovered", in->discovered, &p->disc_ms, &off, err) != 0)
		return err->code;
	if (facts_check(&(struct facts_text){ in->window_start, in->window_end, in->vendor_discovered,
	    in->individuals, in->state_residents }, &p->ws, &p->we, &p->indiv, &p->state, err) != 0)
		return err->code;
	if (p->indiv >= 0 && p->state > p->indiv)
		return aerr_set(err, AV_USAGE, "--state-residents %lld is more than --individuals %lld",
		    (long long)p->state, (long long)p->indiv);
	return 0;
}

/* The endpoint the incident is about, from --endpoint and the finding, which must agree. */
static int
open_endpoint(struct db *db, const struct incident_open_input *in, int64_t vendor_id,
    struct finding_source *fs, int64_t *endpoint_id, struct aerr *err)
{
	*endpoint_id = 0;
	if (in->endpoint != NULL) {
		int64_t ev;

		if (endpoint_lookup(db, in->endpoint, endpoint_id, err) != 0 ||
		    db_int(db, &ev, err, "SELECT vendor_id FROM endpoint WHERE id = ?", "i",
		    *endpoint_id) != 0)
			return err->code;
		if (ev != vendor_id)
			return aerr_set(err, AV_USAGE, "--endpoint %s does not belong to vendor %s",
			    in->endpoint, in->vendor);
	}
	if (in->from_finding != 0) {
		if (finding_source_load(db, in->from_finding, fs, err) != 0)
			return err->code;
		if (fs->vendor_id != vendor_id)
			return aerr_set(err, AV_USAGE, "--from-finding %lld was found on another vendor's "
			    "endpoint", (long long)in->from_finding);
		if (*endpoint_id != 0 && *endpoint_id != fs->endpoint_id)
			return aerr_set(err, AV_USAGE, "--from-finding %lld was found on another endpoint "
			    "than %s", (long long)in->from_finding, in->endpoint);
		*endpoint_id = fs->endpoint_id;
	}
	return 0;
}

/* The facts as opened, for the audit entry and the detection entry. */
static cJSON *
open_details(const struct incident_open_input *in, const struct open_parsed *p, int64_t severity,
    const char *disc_given, const char *sla_text, const char *sla_source)
{
	int none = in->vendor_sla != NULL && strcmp(in->vendor_sla, "none") == 0;
	cJSON *d = cJSON_CreateObject(), *facts;

	cJSON_AddBoolToObject(d, "opened", 1);
	facts = cJSON_AddObjectToObject(d, "facts");
	cJSON_AddStringToObject(facts, "title", in->title);
	cJSON_AddNumberToObject(facts, "severity", (double)severity);
	cJSON_AddStringToObject(facts, "phi", in->phi ? in->phi : "unknown");
	if (p->indiv >= 0)
		cJSON_AddNumberToObject(facts, "individuals", (double)p->indiv);
	else
		cJSON_AddNullToObject(facts, "individuals");
	if (p->state >= 0)
		cJSON_AddNumberToObject(facts, "state_residents", (double)p->state);
	else
		cJSON_AddNullToObject(facts, "state_residents");
	eu_data_add_json(facts, "eu_data", p->eu_data);
	cJSON_AddStringToObject(facts, "discovered_at", disc_given);
	json_add_str(facts, "window_start", in->window_start);
	json_add_str(facts, "window_end", in->window_end);
	json_add_str(facts, "vendor_discovered_at", in->vendor_discovered);
	/* The contract that holds for this incident is the one in force when it opened. */
	/* "none" is a statement (the contract has no notice time); null, unknown. */
	json_add_str(facts, "vendor_sla", p->sla_ms >= 0 || none ? sla_text : NULL);
	json_add_str(facts, "vendor_sla_source", p->sla_ms >= 0 || none ? sla_source : NULL);
	if (in->from_finding != 0)
		cJSON_AddNumberToObject(d, "finding", (double)in->from_finding);
	return d;
}

/* Links the finding, its run and its evidence to a new incident. */
static int
open_links(struct db *db, const char *actor, int64_t id, const struct finding_source *fs,
    struct aerr *err)
{
	struct db_stmt *st;
	int rc;

	if (incident_link_add(db, actor, id, "finding", fs->id, err) != 0 ||
	    incident_link_add(db, actor, id, "run", fs->run_id, err) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT evidence_id FROM finding_evidence WHERE finding_id = ? "
	    "ORDER BY evidence_id", "i", fs->id);
	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		if (incident_link_add(db, actor, id, "evidence", db_col_int64(st, 0), err) != 0) {
			db_finalize(st);
			return err->code;
		}
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "finding evidence");
	return 0;
}

/* The incident's own row (db.h's db_write): on PostgreSQL the functions of
 * db/pg/008-workflow.sql write it, in the login's name, and refuse a closed
 * incident; each fact incident edit changes is one call (edit_apply). Open's
 * arguments: vendor, endpoint (0 none), title, severity, phi, individuals (-1
 * unknown), eu_data, discovered_at, window start and end, actor, time. */
static const struct db_write incident_row = {
	{ "INSERT INTO incident (vendor_id, endpoint_id, title, severity, phi, individuals, eu_data, "
	  "discovered_at, window_start, window_end, created_by, created_at) VALUES (?1, nullif(?2, 0), "
	  "?3, ?4, ?5, nullif(?6, -1), ?7, ?8, ?9, ?10, ?11, ?12)" },
	"SELECT aivet_incident_open(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12)", 1
};
static const struct db_write status_row = {
	{ "UPDATE incident SET status = ?2 WHERE id = ?1" },
	"SELECT aivet_incident_status(?1, ?2)", 0
};
/* Tasks: incident, title, owner, due, time; done: task, time. */
static const struct db_write task_row = {
	{ "INSERT INTO incident_task (incident_id, title, owner, due_at, created_at) "
	  "VALUES (?1, ?2, ?3, ?4, ?5)" },
	"SELECT aivet_task_add(?1, ?2, ?3, ?4, ?5)", 1
};
static const struct db_write task_done = {
	{ "UPDATE incident_task SET done_at = ?2 WHERE id = ?1" },
	"SELECT aivet_task_done(?1, ?2)", 0
};

/* A discovery given by hand before the run that raised the finding is kept
 * (someone may have known first, and earlier clocks are the stricter ones),
 * but said: it may as well be a mistyped date. */
static int
before_run(int64_t disc_ms, const struct finding_source *fs, struct incident_opened *out)
{
	struct aerr e = { 0 };
	int64_t run_ms;

	if (parse_time(fs->run_time, &run_ms, &e) != 0 || disc_ms >= run_ms)
		return 0;
	out->finding_run = fs->run_id;
	fmt_time_ms(run_ms, out->finding_run_at);
	return 0;
}

int
incident_open(struct aivet *av, const struct incident_open_input *in, int64_t *idp,
    struct incident_opened *out, struct aerr *err)
{
	const char *actor = av->actor;
	struct finding_source fs = { 0 };
	struct open_parsed p = { 0 };
	int64_t vendor_id, endpoint_id, id, severity, sla_ms = -1;
	char disc_utc[32], ws_utc[32], we_utc[32], at[32], sla_text[32] = "", sla_source[160] = "";
	const char *disc_given;
	struct db *db;
	cJSON *d;
	char *text;
	int rc;

	if (open_check(in, &p, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	/* The command framework resolved the vendor already; a screen's form gives a name. */
	vendor_id = in->vendor_id;
	if ((vendor_id == 0 && vendor_lookup(db, in->vendor, &vendor_id, err) != 0) ||
	    open_endpoint(db, in, vendor_id, &fs, &endpoint_id, err) != 0)
		goto fail;
	/* Unless given, a finding's severity carries over: a critical finding is a 4. */
	severity = in->severity ? in->severity : in->from_finding ?
	    incident_severity_of_finding(fs.severity) : 2;
	/* Discovery: as given, else when the finding's run saw it, else now. */
	now_iso(at);
	if (in->discovered != NULL) {
		disc_given = in->discovered;
	} else if (in->from_finding != 0) {
		disc_given = fs.run_time;
		if (parse_time(disc_given, &p.disc_ms, err) != 0)
			goto fail;
	} else {
		disc_given = at;
		p.disc_ms = now_ms();
	}
	fmt_time_ms(p.disc_ms, disc_utc);
	if (in->vendor_sla != NULL) {
		snprintf(sla_text, sizeof sla_text, "%s", in->vendor_sla);
		snprintf(sla_source, sizeof sla_source, "given with incident open by %s", actor);
	} else if (in->vendor_sla == NULL && incident_vendor_sla(db, vendor_id, &sla_ms, sla_text,
	    sizeof sla_text, sla_source, sizeof sla_source, err) != 0) {
		goto fail;
	} else if (in->vendor_sla == NULL) {
		p.sla_ms = sla_ms;
	}
	if (in->window_start != NULL) {
		fmt_time_ms(p.ws, ws_utc);
		fmt_time_ms(p.we, we_utc);
	}
	if (db_write(db, err, &incident_row, &id, "iitit" "iittttt", vendor_id, endpoint_id, in->title,
	    severity, in->phi ? in->phi : "unknown", p.indiv, (int64_t)p.eu_data, disc_utc,
	    in->window_start ? ws_utc : NULL, in->window_start ? we_utc : NULL, actor, at) != 0)
		goto fail;
	d = open_details(in, &p, severity, disc_given, sla_text, sla_source);
	if (audit_append(db, actor, "incident.open", "incident", id, d, err) != 0) {
		cJSON_Delete(d);
		goto fail;
	}
	memset(out, 0, sizeof *out);
	if (in->from_finding != 0 && in->discovered != NULL && before_run(p.disc_ms, &fs, out) != 0)
		goto fail;
	if (out->finding_run != 0)
		text = xasprintf("Incident opened from probe finding %lld (%s %s, %s): %s; discovered "
		    "%s, before run %lld found it (%s)", (long long)fs.id, fs.probe, fs.code,
		    fs.severity, fs.message, disc_utc, (long long)fs.run_id, out->finding_run_at);
	else if (in->from_finding != 0)
		text = xasprintf("Incident opened from probe finding %lld (%s %s, %s): %s",
		    (long long)fs.id, fs.probe, fs.code, fs.severity, fs.message);
	else
		text = xasprintf("Incident opened: %s", in->title);
	rc = incident_entry_add(db, actor, id, "detection", disc_given, text, d, NULL, err);
	free(text);
	cJSON_Delete(d);
	if (rc != 0 || (in->from_finding != 0 && open_links(db, actor, id, &fs, err) != 0))
		goto fail;
	if (db_commit(db, err) != 0)
		return err->code;
	*idp = id;
	snprintf(out->discovered, sizeof out->discovered, "%s", disc_utc);
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

int
incident_set_status(struct aivet *av, int64_t id, const char *to, const char *note,
    const char *at_given, char from[32], struct aerr *err)
{
	int64_t ms;
	struct db *db;
	cJSON *d;
	char *text;
	int rc;

	if (at_given != NULL && incident_time_opt("--at", at_given, &ms, NULL, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (incident_status_of(db, id, from, 32, err) != 0 ||
	    incident_status_check(db, id, from, to, err) != 0)
		goto fail;
	if (at_given != NULL) {
		/* A back-dated change still follows the change before it. */
		struct db_stmt *st = db_prepare(db, err, "SELECT id, at, at_utc FROM incident_entry "
		    "WHERE incident_id = ? AND (kind = 'status-change' OR json_type(details, "
		    "'$.opened') = 'true') ORDER BY id DESC LIMIT 1", "i", id);
		int64_t prev;

		if (st == NULL)
			goto fail;
		if (db_step(st) == DB_ROW && parse_time(col_text(st, 2), &prev, NULL) == 0 &&
		    ms < prev) {
			aerr_set(err, AV_USAGE, "--at %s is before the incident's previous status change "
			    "(entry %lld at %s)", at_given, (long long)db_col_int64(st, 0),
			    col_text(st, 1));
			db_finalize(st);
			goto fail;
		}
		db_finalize(st);
	}
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "from", from);
	cJSON_AddStringToObject(d, "to", to);
	text = note ? xstrdup(note) : xasprintf("Status %s -> %s", from, to);
	rc = db_write(db, err, &status_row, NULL, "it", id, to);
	if (rc == 0)
		rc = audit_append(db, av->actor, "incident.status", "incident", id, d, err);
	if (rc == 0)
		rc = incident_entry_add(db, av->actor, id, "status-change", at_given, text, d, NULL, err);
	free(text);
	cJSON_Delete(d);
	if (rc != 0 || db_commit(db, err) != 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

int
incident_note(struct aivet *av, const struct incident_note_input *in, int64_t *entry_id,
    struct aerr *err)
{
	const char *kind = in->kind ? in->kind : "observation";
	int64_t id = in->id, ms, owner;
	struct db *db;
	cJSON *d = NULL;
	int rc;

	if (strcmp(kind, "status-change") == 0)
		return aerr_set(err, AV_USAGE, "--kind status-change: use 'aivet incident status' "
		    "to change the status");
	if (in->nclocks > 0 && strcmp(kind, "notification-sent") != 0)
		return aerr_set(err, AV_USAGE, "--clock needs --kind notification-sent");
	for (int i = 0; i < in->nclocks; i++) {
		if (clock_index(in->clocks[i]) < 0)
			return aerr_set(err, AV_USAGE, "--clock: unknown clock '%s' (one of "
			    "hipaa-individuals, hhs, media, vendor-sla, gdpr-sa)", in->clocks[i]);
		if (strcmp(in->clocks[i], "vendor-sla") == 0)
			return aerr_set(err, AV_USAGE, "--clock vendor-sla: that clock stops when the "
			    "vendor's notice is recorded (--kind vendor-notice)");
	}
	if (in->at != NULL && incident_time_opt("--at", in->at, &ms, NULL, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (incident_writable(db, id, err) != 0)
		goto fail;
	if (in->corrects != 0) {
		rc = db_int(db, &owner, err, "SELECT incident_id FROM incident_entry WHERE id = ?", "i",
		    in->corrects);
		if (rc < 0)
			goto fail;
		if (rc == 1 || owner != id) {
			aerr_set(err, AV_USAGE, "--corrects %lld: incident %lld has no such entry",
			    (long long)in->corrects, (long long)id);
			goto fail;
		}
	}
	if (in->nclocks > 0 || in->corrects != 0) {
		d = cJSON_CreateObject();
		if (in->nclocks > 0) {
			cJSON *a = cJSON_AddArrayToObject(d, "clocks");

			for (int i = 0; i < in->nclocks; i++)
				cJSON_AddItemToArray(a, cJSON_CreateString(in->clocks[i]));
		}
		if (in->corrects != 0)
			cJSON_AddNumberToObject(d, "corrects", (double)in->corrects);
	}
	rc = incident_entry_add(db, av->actor, id, kind, in->at, in->text, d, entry_id, err);
	cJSON_Delete(d);
	if (rc != 0 || db_commit(db, err) != 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

int
incident_task_add(struct aivet *av, int64_t id, const char *title, const char *owner,
    const char *due_given, int64_t *task_id, struct aerr *err)
{
	int64_t due_ms = 0, tid;
	char due[32], at[32];
	struct db *db;
	cJSON *d;
	int rc;

	if (incident_title_check("the task title", title, err) != 0)
		return err->code;
	if (owner != NULL && (*owner == '\0' || strlen(owner) > 100))
		return aerr_set(err, AV_USAGE, "--owner must be 1 to 100 characters");
	if (due_given != NULL && parse_deadline(due_given, &due_ms, err) != 0)
		return aerr_prefix(err, "--due");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (incident_writable(db, id, err) != 0)
		goto fail;
	if (due_given != NULL)
		fmt_time_ms(due_ms, due);
	now_iso(at);
	if (db_write(db, err, &task_row, &tid, "itttt", id, title, owner, due_given ? due : NULL, at) != 0)
		goto fail;
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "incident_id", (double)id);
	cJSON_AddStringToObject(d, "title", title);
	json_add_str(d, "owner", owner);
	json_add_str(d, "due_at", due_given ? due : NULL);
	rc = audit_append(db, av->actor, "incident.task.add", "incident_task", tid, d, err);
	cJSON_Delete(d);
	if (rc != 0 || db_commit(db, err) != 0)
		goto fail;
	*task_id = tid;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

int
incident_task_done(struct aivet *av, int64_t tid, const char *at_given, int64_t *idp,
    struct aerr *err)
{
	int64_t iid, ms;
	char at[32];
	struct db *db;
	struct db_stmt *st;
	cJSON *d;
	int rc;

	if (at_given != NULL && incident_time_opt("--at", at_given, &ms, NULL, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	st = db_prepare(db, err, "SELECT incident_id, done_at FROM incident_task WHERE id = ?", "i", tid);
	if (st == NULL)
		goto fail;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		aerr_set(err, AV_USAGE, "unknown task %lld", (long long)tid);
		goto fail;
	}
	iid = db_col_int64(st, 0);
	if (db_col_type(st, 1) != DB_NULL) {
		aerr_set(err, AV_USAGE, "task %lld is already done (%s)", (long long)tid, col_text(st, 1));
		db_finalize(st);
		goto fail;
	}
	db_finalize(st);
	if (incident_writable(db, iid, err) != 0)
		goto fail;
	if (at_given != NULL)
		fmt_time_ms(ms, at);
	else
		now_iso(at);
	if (db_write(db, err, &task_done, NULL, "it", tid, at) != 0)
		goto fail;
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "incident_id", (double)iid);
	cJSON_AddStringToObject(d, "done_at", at);
	rc = audit_append(db, av->actor, "incident.task.done", "incident_task", tid, d, err);
	cJSON_Delete(d);
	if (rc != 0 || db_commit(db, err) != 0)
		goto fail;
	*idp = iid;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

int
incident_link(struct aivet *av, const struct incident_link_input *in,
    int64_t *file_evidence_id, struct aerr *err)
{
	int64_t id = in->id;
	struct db *db;

	if (in->nlinks == 0 && in->file == NULL)
		return aerr_set(err, AV_USAGE, "incident link: nothing to link");
	if (in->effective != NULL && in->file == NULL)
		return aerr_set(err, AV_USAGE, "--effective goes with --file");
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (incident_writable(db, id, err) != 0)
		goto fail;
	for (int i = 0; i < in->nlinks; i++)
		if (incident_link_add(db, av->actor, id, in->links[i].type, in->links[i].id, err) != 0)
			goto fail;
	if (in->file != NULL &&
	    (evidence_add_file(db, av->actor, in->file, in->effective, file_evidence_id, err) != 0 ||
	    incident_link_add(db, av->actor, id, "evidence", *file_evidence_id, err) != 0))
		goto fail;
	if (db_commit(db, err) != 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}

/* ---- edit ---- */

/* The edit's input checked and parsed, before the database is touched. */
struct edit_parsed {
	int64_t ws, we, indiv, state;
	int64_t endpoint_id;
};

static int
edit_check(const struct incident_edit_input *in, struct edit_parsed *p, struct aerr *err)
{
	int64_t ms;

	p->ws = p->we = p->endpoint_id = 0;
	p->indiv = p->state = -1;
	if (in->title != NULL && incident_title_check("--title", in->title, err) != 0)
		return err->code;
	if (facts_check(&(struct facts_text){ in->window_start, in->window_end, in->vendor_discovered,
	    in->individuals, in->state_residents }, &p->ws, &p->we, &p->indiv, &p->state, err) != 0)
		return err->code;
	if (in->at != NULL && incident_time_opt("--at", in->at, &ms, NULL, err) != 0)
		return err->code;
	if (in->vendor_sla != NULL && strcmp(in->vendor_sla, "none") != 0 &&
	    incident_duration("--vendor-sla", in->vendor_sla, &ms, err) != 0)
		return err->code;
	return 0;
}

/* Checks what the edit needs from the incident: the endpoint of the same vendor,
 * no more state residents than individuals. */
static int
edit_check_db(struct db *db, int64_t id, const struct incident_edit_input *in, struct edit_parsed *p,
    struct aerr *err)
{
	int64_t cur_indiv;
	int rc;

	if (in->endpoint != NULL) {
		int64_t ev, iv;

		if (endpoint_lookup(db, in->endpoint, &p->endpoint_id, err) != 0 ||
		    db_int(db, &ev, err, "SELECT vendor_id FROM endpoint WHERE id = ?", "i",
		    p->endpoint_id) ||
		    db_int(db, &iv, err, "SELECT vendor_id FROM incident WHERE id = ?", "i", id))
			return err->code;
		if (ev != iv)
			return aerr_set(err, AV_USAGE, "--endpoint %s belongs to another vendor than "
			    "incident %lld's", in->endpoint, (long long)id);
	}
	if (in->state_residents != NULL && p->state >= 0) {
		rc = db_int(db, &cur_indiv, err, "SELECT individuals FROM incident WHERE id = ? AND "
		    "individuals IS NOT NULL", "i", id);
		if (rc < 0)
			return err->code;
		if (in->individuals != NULL)
			cur_indiv = p->indiv, rc = p->indiv < 0;
		if (rc == 0 && p->state > cur_indiv)
			return aerr_set(err, AV_USAGE, "--state-residents %lld is more than the %lld "
			    "individuals", (long long)p->state, (long long)cur_indiv);
	}
	return 0;
}

/* The columns hold the current values. */
static int
edit_apply(struct db *db, int64_t id, const struct incident_edit_input *in,
    const struct edit_parsed *p, struct aerr *err)
{
	char ws_utc[32], we_utc[32];
	int rc = 0;

	/* The edit itself, on PostgreSQL: facts with no column are its entries alone. */
	static const struct db_write edit = { { NULL }, "SELECT aivet_incident_edit(?1)", 0 };

	rc = db_write(db, err, &edit, NULL, "i", id);
#define SET(cond, col, expr, fmt, ...) \
	if (rc == 0 && (cond)) { \
		const struct db_write w = { { "UPDATE incident SET " col " = " expr " WHERE id = ?1" }, \
		    "SELECT aivet_incident_set(?1, '" col "', ?2)", 0 }; \
		rc = db_write(db, err, &w, NULL, "i" fmt, id, __VA_ARGS__); \
	}
	SET(in->title, "title", "?2", "t", in->title);
	SET(in->endpoint, "endpoint_id", "?2", "i", p->endpoint_id);
	SET(in->set_severity, "severity", "?2", "i", in->severity);
	SET(in->phi, "phi", "?2", "t", in->phi);
	SET(in->individuals, "individuals", "nullif(?2, -1)", "i", p->indiv);
	SET(in->set_eu_data, "eu_data", "?2", "i", (int64_t)in->eu_data);
	if (in->window_start) {
		fmt_time_ms(p->ws, ws_utc);
		fmt_time_ms(p->we, we_utc);
	}
	SET(in->window_start, "window_start", "?2", "t", ws_utc);
	SET(in->window_start, "window_end", "?2", "t", we_utc);
#undef SET
	return rc;
}

static void
fact_count(cJSON *facts, const char *k, int64_t v)
{
	if (v < 0)
		cJSON_AddNullToObject(facts, k);
	else
		cJSON_AddNumberToObject(facts, k, (double)v);
}

/* The facts as given, for the entry's details, and the entry's text ("title, phi yes"). */
static void
edit_facts(const struct incident_edit_input *in, const struct edit_parsed *p, const char *actor,
    cJSON *facts, struct buf *what)
{
	if (in->title)
		cJSON_AddStringToObject(facts, "title", in->title), buf_printf(what, ", title");
	if (in->endpoint)
		cJSON_AddStringToObject(facts, "endpoint", in->endpoint),
		    buf_printf(what, ", endpoint %s", in->endpoint);
	if (in->set_severity)
		cJSON_AddNumberToObject(facts, "severity", (double)in->severity),
		    buf_printf(what, ", severity %lld", (long long)in->severity);
	if (in->phi)
		cJSON_AddStringToObject(facts, "phi", in->phi), buf_printf(what, ", phi %s", in->phi);
	if (in->individuals)
		fact_count(facts, "individuals", p->indiv), buf_printf(what, ", individuals %s",
		    in->individuals);
	if (in->state_residents)
		fact_count(facts, "state_residents", p->state),
		    buf_printf(what, ", state residents %s", in->state_residents);
	if (in->set_eu_data)
		eu_data_add_json(facts, "eu_data", in->eu_data),
		    buf_printf(what, ", EU data %s", eu_data_word(in->eu_data));
	if (in->window_start) {
		cJSON_AddStringToObject(facts, "window_start", in->window_start);
		cJSON_AddStringToObject(facts, "window_end", in->window_end);
		buf_printf(what, ", window %s to %s", in->window_start, in->window_end);
	}
	if (in->vendor_discovered)
		cJSON_AddStringToObject(facts, "vendor_discovered_at", in->vendor_discovered),
		    buf_printf(what, ", vendor discovered %s", in->vendor_discovered);
	if (in->vendor_sla) {
		char *src = xasprintf("set by %s with incident edit", actor);

		json_add_str(facts, "vendor_sla", in->vendor_sla);
		json_add_str(facts, "vendor_sla_source", src);
		free(src);
		buf_printf(what, ", vendor SLA %s", in->vendor_sla);
	}
}

int
incident_edit(struct aivet *av, const struct incident_edit_input *in, struct aerr *err)
{
	struct edit_parsed p;
	struct buf what;
	int64_t id = in->id;
	struct db *db;
	cJSON *d, *facts;
	char *text;
	int rc;

	if (!in->title && !in->endpoint && !in->set_severity && !in->phi && !in->individuals &&
	    !in->state_residents && !in->set_eu_data && !in->window_start && !in->window_end &&
	    !in->vendor_discovered && !in->vendor_sla)
		return aerr_set(err, AV_USAGE, "incident edit: nothing to change");
	if (edit_check(in, &p, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (incident_writable(db, id, err) != 0 || edit_check_db(db, id, in, &p, err) != 0 ||
	    edit_apply(db, id, in, &p, err) != 0)
		goto fail;
	/* The facts as given go into the entry; the columns hold the current values. */
	d = cJSON_CreateObject();
	facts = cJSON_AddObjectToObject(d, "facts");
	buf_init(&what);
	buf_add(&what, "", 0);
	edit_facts(in, &p, av->actor, facts, &what);
	text = in->note ? xstrdup(in->note) : xasprintf("Set %s", what.data + 2);
	buf_free(&what);
	rc = audit_append(db, av->actor, "incident.edit", "incident", id, facts, err);
	if (rc == 0)
		rc = incident_entry_add(db, av->actor, id, "decision", in->at, text, d, NULL, err);
	free(text);
	cJSON_Delete(d);
	if (rc != 0 || db_commit(db, err) != 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return err->code;
}
