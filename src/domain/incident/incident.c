/*
 * incident.c: what an incident is made of and how it changes: severity and
 * EU-data words, timeline entries that are written once and covered by the
 * audit chain, the facts the notification clocks run on, the status workflow
 * and links to what caused it. The incident read back as one record and its
 * JSON is incident-record.c's.
 *
 * Facts without a column of their own (residents of one state, the vendor's
 * own discovery time, the discovery time as given with its zone) live in the
 * details of the timeline entry that established them, under "facts"; the
 * newest entry that sets a fact holds its current value.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "incident.h"
#include "zone.h"
#include "vendor.h"
#include "run-format.h"

const char *const incident_statuses[] = {
	"new", "investigating", "contained", "resolved", "closed", NULL
};

const char *const incident_entry_kinds[] = {
	"detection", "vendor-notice", "observation", "decision", "notification-sent",
	"mitigation", "verification", "status-change", NULL
};

static const char *const severity_words[] = { "low", "medium", "high", "critical" };

const char *
incident_severity_word(int64_t severity)
{
	return severity >= 1 && severity <= INCIDENT_SEVERITY_MAX ? severity_words[severity - 1] : "?";
}

void
incident_severity_text(int64_t severity, char *out, size_t n)
{
	snprintf(out, n, "%lld (%s; %d = most severe)", (long long)severity,
	    incident_severity_word(severity), INCIDENT_SEVERITY_MAX);
}

int
eu_data_parse(const char *word)
{
	if (word == NULL || strcmp(word, "unknown") == 0)
		return -1;
	return strcmp(word, "yes") == 0 ? 1 : strcmp(word, "no") == 0 ? 0 : -2;
}

const char *
eu_data_word(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

void
eu_data_add_json(cJSON *o, const char *key, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddBoolToObject(o, key, v);
}

int64_t
incident_severity_of_finding(const char *finding_severity)
{
	for (int i = 0; i < INCIDENT_SEVERITY_MAX; i++)
		if (strcmp(finding_severity, severity_words[i]) == 0)
			return i + 1;
	return 1;   /* info */
}

#define MAX_ENTRY_TEXT 20000
#define FUTURE_SLACK_MS ((int64_t)5 * 60 * 1000)

static int
in_list(const char *const *list, const char *s)
{
	for (int i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	return -1;
}

/* The content of an entry as its audit entry records it, so the chain covers it. */
static cJSON *
entry_content_json(int64_t incident_id, const char *kind, const char *at, const char *at_utc,
    const char *actor, const char *text, const char *details, const char *recorded_at)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "incident_id", (double)incident_id);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "at", at);
	cJSON_AddStringToObject(o, "at_utc", at_utc);
	cJSON_AddStringToObject(o, "actor", actor);
	cJSON_AddStringToObject(o, "text", text);
	json_add_str(o, "details", details);
	cJSON_AddStringToObject(o, "recorded_at", recorded_at);
	return o;
}

static int
text_check(const char *text, struct aerr *err)
{
	size_t n = strlen(text);

	if (n == 0 || strspn(text, " \t\n") == n)
		return aerr_set(err, AV_USAGE, "the entry text must not be empty");
	if (n > MAX_ENTRY_TEXT)
		return aerr_set(err, AV_USAGE, "the entry text is longer than %d bytes", MAX_ENTRY_TEXT);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			return aerr_set(err, AV_USAGE, "the entry text may not contain control characters");
	return 0;
}

/* Timeline entries and links (db.h's db_write): on PostgreSQL written by the
 * functions of db/pg/008-workflow.sql in the login's name. Entry arguments:
 * incident, kind, at, at_utc, actor, text, details, recorded_at. */
static const struct db_write entry_row = {
	{ "INSERT INTO incident_entry (incident_id, kind, at, at_utc, actor, text, details, recorded_at) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)" },
	"SELECT aivet_incident_entry(?1, ?2, ?3, ?4, ?6, ?7, ?8)", 1
};
static const struct db_write link_row = {
	{ "INSERT INTO incident_link (incident_id, object_type, object_id, added_at) "
	  "VALUES (?1, ?2, ?3, ?4)" },
	"SELECT aivet_incident_link(?1, ?2, ?3, ?4)", 0
};

int
incident_entry_add(struct db *db, const char *actor, int64_t incident_id, const char *kind,
    const char *at_given, const char *text, const cJSON *details, int64_t *entry_id,
    struct aerr *err)
{
	char at_utc[32], recorded[32];
	const char *at;
	char *dj = NULL;
	int64_t ms, id;
	int off, rc;
	cJSON *content;

	if (in_list(incident_entry_kinds, kind) < 0)
		return aerr_set(err, AV_USAGE, "unknown entry kind '%s' (one of detection, vendor-notice, "
		    "observation, decision, notification-sent, mitigation, verification, status-change)",
		    kind);
	if (text_check(text, err) != 0)
		return err->code;
	now_iso(recorded);
	if (at_given == NULL) {
		at = recorded;
		memcpy(at_utc, recorded, sizeof at_utc);
	} else {
		if (parse_time_zone(at_given, &ms, &off, err) != 0)
			return aerr_prefix(err, "--at");
		if (ms > now_ms() + FUTURE_SLACK_MS)
			return aerr_set(err, AV_USAGE, "--at %s is in the future: entries record what "
			    "has happened", at_given);
		at = at_given;
		fmt_time_ms(ms, at_utc);
	}
	if (details != NULL && (dj = cJSON_PrintUnformatted(details)) == NULL)
		die("out of memory");
	rc = db_write(db, err, &entry_row, &id, "itttttt" "t", incident_id, kind, at, at_utc, actor,
	    text, dj, recorded);
	if (rc != 0) {
		free(dj);
		return rc;
	}
	content = entry_content_json(incident_id, kind, at, at_utc, actor, text, dj, recorded);
	free(dj);
	rc = audit_append(db, actor, "incident.entry", "incident_entry", id, content, err);
	cJSON_Delete(content);
	if (rc == 0 && entry_id != NULL)
		*entry_id = id;
	return rc;
}


int
incident_entries_check(struct db *db, struct audit_status *st, struct aerr *err)
{
	struct db_stmt *q;
	int rc;

	/* Entries written before rows were sealed are checked against the content their
	 * details recorded; a sealed one (row_hash) audit_verify has recomputed already.
	 * The index audit_log_legacy_entry (schema 009) holds just those entries, so
	 * the log is not read a second time. */
	q = db_prepare(db, err, "SELECT a.seq, a.object_id, a.details, e.id, e.incident_id, e.kind, "
	    "e.at, e.at_utc, e.actor, e.text, e.details, e.recorded_at FROM audit_log a "
	    "LEFT JOIN incident_entry e ON e.id = a.object_id "
	    "WHERE a.action = 'incident.entry' AND a.row_hash IS NULL ORDER BY a.seq", NULL);
	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		int64_t seq = db_col_int64(q, 0), eid = db_col_int64(q, 1);
		cJSON *content;
		char *now;
		int same;

		if (db_col_type(q, 3) == DB_NULL) {
			audit_status_keep(st, seq, "incident entry %lld (audit entry %lld) is missing: removed "
			    "after it was recorded", (long long)eid, (long long)seq);
			break;
		}
		content = entry_content_json(db_col_int64(q, 4), col_text(q, 5), col_text(q, 6),
		    col_text(q, 7), col_text(q, 8), col_text(q, 9),
		    db_col_type(q, 10) == DB_NULL ? NULL : col_text(q, 10), col_text(q, 11));
		now = cJSON_PrintUnformatted(content);
		cJSON_Delete(content);
		if (now == NULL)
			die("out of memory");
		same = strcmp(now, col_text(q, 2)) == 0;
		free(now);
		if (!same) {
			audit_status_keep(st, seq, "incident entry %lld does not match audit entry %lld: edited "
			    "after it was recorded", (long long)eid, (long long)seq);
			break;
		}
	}
	if (rc != DB_ROW && rc != DB_DONE) {
		db_finalize(q);
		return db_err(db, err, "incident entries");
	}
	db_finalize(q);
	/* An entry no audit entry names at all audit_verify's pass over the sealed
	 * rows has named already (incident_entry is sealed). */
	if (st->bad_seq != 0)
		return 0;
	/* An incident's status is where its newest status-change entry took it. */
	q = db_prepare(db, err, "SELECT id, status, timeline FROM (SELECT i.id, i.status, "
	    "coalesce((SELECT json_extract(e.details, '$.to') FROM incident_entry e "
	    "WHERE e.incident_id = i.id AND e.kind = 'status-change' ORDER BY e.id DESC LIMIT 1), "
	    "'new') AS timeline FROM incident i) AS t WHERE status IS DISTINCT FROM timeline ORDER BY id LIMIT 1",
	    NULL);
	if (q == NULL)
		return AV_RUNTIME;
	if (db_step(q) == DB_ROW)
		audit_status_keep(st, st->entries + 1, "incident %lld is '%s' but its timeline says '%s': "
		    "changed behind aivet's back", (long long)db_col_int64(q, 0), col_text(q, 1),
		    col_text(q, 2));
	db_finalize(q);
	return 0;
}

const struct audit_check incident_audit_check = { "incident entries", incident_entries_check };

int
incident_lookup(struct db *db, const char *arg, int64_t *id, struct aerr *err)
{
	int rc;

	if (*arg == '\0' || strspn(arg, "0123456789") != strlen(arg) || strlen(arg) > 15)
		return aerr_set(err, AV_USAGE, "'%s' is not an incident id (see 'aivet incident list')",
		    arg);
	rc = db_int(db, id, err, "SELECT id FROM incident WHERE id = ?", "i", (int64_t)atoll(arg));
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "unknown incident %s (see 'aivet incident list')", arg);
	return rc < 0 ? AV_RUNTIME : 0;
}

/* The newest value of a fact recorded in an entry's details: 0 found, 1 never set. */
static int
fact_text(struct db *db, int64_t incident_id, const char *name, char *out, size_t n,
    int *is_null, struct aerr *err)
{
	char *path = xasprintf("$.facts.%s", name);
	struct db_stmt *st = db_prepare_kept(db, err, "SELECT json_extract(details, ?1), "
	    "json_type(details, ?1) FROM incident_entry WHERE incident_id = ?2 AND details IS NOT NULL "
	    "AND json_valid(details) AND json_type(details, ?1) IS NOT NULL ORDER BY id DESC LIMIT 1",
	    "ti", path, incident_id);
	int rc;

	free(path);
	if (st == NULL)
		return -1;
	rc = db_step(st);
	if (rc == DB_ROW) {
		*is_null = strcmp(col_text(st, 1), "null") == 0;
		snprintf(out, n, "%s", col_text(st, 0));
		db_finalize(st);
		return 0;
	}
	db_finalize(st);
	if (rc != DB_DONE) {
		db_err(db, err, "incident facts");
		return -1;
	}
	return 1;
}

int
incident_duration(const char *opt, const char *s, int64_t *ms, struct aerr *err)
{
	int64_t secs;

	if (duration_seconds(s, &secs) != 0 || secs <= 0)
		return aerr_set(err, AV_USAGE, "%s: bad duration '%s': expected a whole number and a "
		    "unit, such as 30m, 24h, 5d or 2w", opt, s);
	*ms = secs * 1000;
	return 0;
}

int
incident_vendor_sla(struct db *db, int64_t vendor_id, int64_t *ms, char *text, size_t textn,
    char *source, size_t sourcen, struct aerr *err)
{
	int64_t secs;
	int rc = vendor_notification_sla(db, vendor_id, &secs, source, sourcen, err);

	*ms = -1;
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0) {
		*ms = secs * 1000;
		fmt_notice_time(secs, text, textn);
	}
	return 0;
}

static int
fact_time(struct db *db, int64_t incident_id, const char *name, int64_t *ms, int *off,
    struct aerr *err)
{
	char v[64];
	int is_null, rc;

	*ms = -1;
	rc = fact_text(db, incident_id, name, v, sizeof v, &is_null, err);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0 && !is_null && parse_time_zone(v, ms, off, NULL) != 0)
		*ms = -1;
	return 0;
}

int
incident_clocks(struct db *db, int64_t incident_id, struct incident_facts *f,
    struct incident_clock clocks[CLOCK_COUNT], struct aerr *err)
{
	struct db_stmt *st;
	int64_t vendor_id, given_ms;
	char v[64];
	int is_null, off, rc;

	memset(f, 0, sizeof *f);
	st = db_prepare_kept(db, err, "SELECT vendor_id, phi, individuals, eu_data, discovered_at "
	    "FROM incident WHERE id = ?", "i", incident_id);
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown incident %lld", (long long)incident_id);
	}
	vendor_id = db_col_int64(st, 0);
	f->phi = col_text(st, 1)[0];
	f->individuals = db_col_type(st, 2) == DB_NULL ? -1 : db_col_int64(st, 2);
	f->eu_data = db_col_int(st, 3);
	if (parse_time(col_text(st, 4), &f->discovered_ms, err) != 0) {
		db_finalize(st);
		return aerr_prefix(err, "incident %lld: discovered_at", (long long)incident_id);
	}
	db_finalize(st);
	/* The zone the discovery was given in decides which calendar year it fell in. */
	off = 0;
	if (fact_time(db, incident_id, "discovered_at", &given_ms, &off, err) != 0)
		return AV_RUNTIME;
	f->discovered_offset = given_ms >= 0 ? off : 0;
	if (fact_time(db, incident_id, "vendor_discovered_at", &f->vendor_discovered_ms, &off, err) != 0)
		return AV_RUNTIME;
	f->state_residents = -1;
	rc = fact_text(db, incident_id, "state_residents", v, sizeof v, &is_null, err);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0 && !is_null)
		f->state_residents = atoll(v);
	/* The SLA recorded when the incident was opened (or set since) is the contract
	 * that held; the live answers only stand in for an incident without one. */
	rc = fact_text(db, incident_id, "vendor_sla", v, sizeof v, &is_null, err);
	if (rc < 0)
		return AV_RUNTIME;
	f->vendor_sla_ms = -1;
	if (rc == 1) {
		if (incident_vendor_sla(db, vendor_id, &f->vendor_sla_ms, f->vendor_sla_text,
		    sizeof f->vendor_sla_text, f->vendor_sla_source, sizeof f->vendor_sla_source, err) != 0)
			return err->code;
		f->vendor_sla_unknown = f->vendor_sla_ms < 0;
	} else if (is_null) {
		f->vendor_sla_unknown = 1;   /* never answered nor given: unknown, not none */
	} else if (strcmp(v, "none") == 0 || incident_duration("vendor_sla", v, &f->vendor_sla_ms,
	    NULL) == 0) {
		snprintf(f->vendor_sla_text, sizeof f->vendor_sla_text, "%.31s", v);
		if (fact_text(db, incident_id, "vendor_sla_source", f->vendor_sla_source,
		    sizeof f->vendor_sla_source, &is_null, err) < 0)
			return AV_RUNTIME;
	} else {
		f->vendor_sla_unknown = 1;
	}
	f->zone = org_zone();
	clocks_compute(f, clocks);

	/* Stops: notification-sent entries name their clocks; a vendor notice stops vendor-sla. */
	st = db_prepare_kept(db, err, "SELECT id, kind, at_utc, details FROM incident_entry "
	    "WHERE incident_id = ? AND kind IN ('notification-sent', 'vendor-notice') ORDER BY id",
	    "i", incident_id);
	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW) {
		int64_t id = db_col_int64(st, 0), at;

		if (parse_time(col_text(st, 2), &at, NULL) != 0)
			continue;
		if (strcmp(col_text(st, 1), "vendor-notice") == 0) {
			clock_stop(&clocks[CLOCK_VENDOR_SLA], at, id);
		} else {
			cJSON *d = cJSON_Parse(col_text(st, 3)), *c;

			cJSON_ArrayForEach(c, cJSON_GetObjectItem(d, "clocks")) {
				int i = cJSON_IsString(c) ? clock_index(c->valuestring) : -1;

				if (i >= 0)
					clock_stop(&clocks[i], at, id);
			}
			cJSON_Delete(d);
		}
	}
	db_finalize(st);
	return 0;
}

/* The open tasks, each one. */
static int
close_tasks(struct db *db, int64_t id, struct buf *b, struct aerr *err)
{
	struct db_stmt *st;
	int rc;

	st = db_prepare(db, err, "SELECT id, title FROM incident_task WHERE incident_id = ? "
	    "AND done_at IS NULL ORDER BY id", "i", id);
	if (st == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(st)) == DB_ROW)
		buf_printf(b, "%stask %lld '%s' is not done", b->len ? "; " : "",
		    (long long)db_col_int64(st, 0), col_text(st, 1));
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "incident tasks");
}

/* The running notification clocks, all in one sentence with the one note that
 * stops them; the vendor's notice clock, stopped by another kind of entry,
 * in its own. */
static int
close_clocks(struct db *db, int64_t id, struct buf *b, struct aerr *err)
{
	struct incident_facts facts;
	struct incident_clock clocks[CLOCK_COUNT];
	struct buf names, flags;
	char due[32];
	int n = 0;

	if (incident_clocks(db, id, &facts, clocks, err) != 0)
		return err->code;
	buf_init(&names);
	buf_init(&flags);
	for (int i = 0; i < CLOCK_COUNT; i++) {
		if (!clocks[i].applies || clocks[i].stopped_ms >= 0 || i == CLOCK_VENDOR_SLA)
			continue;
		fmt_time_ms(clocks[i].due_ms, due);
		buf_printf(&names, "%s%s (due %s)", n ? ", " : "", clocks[i].id, due);
		buf_printf(&flags, " --clock %s", clocks[i].id);
		n++;
	}
	if (n == 1)
		buf_printf(b, "%sclock %s is still running", b->len ? "; " : "", names.data);
	else if (n > 1)
		buf_printf(b, "%sclocks %s are still running", b->len ? "; " : "", names.data);
	if (n > 0)
		buf_printf(b, "; record the notice with 'aivet incident note %lld TEXT --kind "
		    "notification-sent%s'", (long long)id, flags.data);
	buf_free(&names);
	buf_free(&flags);
	if (clocks[CLOCK_VENDOR_SLA].applies && clocks[CLOCK_VENDOR_SLA].stopped_ms < 0) {
		fmt_time_ms(clocks[CLOCK_VENDOR_SLA].due_ms, due);
		buf_printf(b, "%sclock vendor-sla is still running (due %s); record the vendor's notice "
		    "with 'aivet incident note %lld TEXT --kind vendor-notice'", b->len ? "; " : "",
		    due, (long long)id);
		/* unknown is not none: only a person says it */
		if (facts.vendor_sla_unknown)
			buf_printf(b, ", or, if the contract has no notice time, 'aivet incident edit "
			    "%lld --vendor-sla none'", (long long)id);
	}
	return 0;
}

/* Closing waits for every task and every clock: all of them are named in one
 * refusal, so that one round trip shows what is left. */
static int
close_check(struct db *db, int64_t id, struct aerr *err)
{
	struct buf b;
	int rc;

	buf_init(&b);
	if ((rc = close_tasks(db, id, &b, err)) == 0 && (rc = close_clocks(db, id, &b, err)) == 0 &&
	    b.len > 0)
		rc = aerr_set(err, AV_USAGE, "incident %lld cannot be closed: %s", (long long)id, b.data);
	buf_free(&b);
	return rc;
}

int
incident_status_check(struct db *db, int64_t id, const char *from, const char *to,
    struct aerr *err)
{
	int f = in_list(incident_statuses, from), t = in_list(incident_statuses, to);
	struct db_stmt *st;

	if (t < 0)
		return aerr_set(err, AV_USAGE, "unknown status '%s' (one of new, investigating, "
		    "contained, resolved, closed)", to);
	if (f == t)
		return aerr_set(err, AV_USAGE, "incident %lld is already %s", (long long)id, to);
	if (strcmp(from, "closed") == 0)
		return aerr_set(err, AV_USAGE, "incident %lld is closed: a closed incident does not "
		    "change", (long long)id);
	/* Forward one step at a time; back to investigating when a fix fails. */
	if (t != f + 1 && !(t == 1 && f > 1)) {
		if (f >= 2)
			return aerr_set(err, AV_USAGE, "incident %lld is %s: it can move to %s or back to "
			    "investigating, not %s", (long long)id, from, incident_statuses[f + 1], to);
		return aerr_set(err, AV_USAGE, "incident %lld is %s: it can move to %s, not %s",
		    (long long)id, from, incident_statuses[f + 1], to);
	}
	if (strcmp(to, "resolved") == 0) {
		int64_t eid = 0;
		char outcome[16] = "";
		int rc;

		/* A verification recorded by hand has no outcome field; verify's does. */
		st = db_prepare(db, err, "SELECT id, json_type(details, '$.reproduces') "
		    "FROM incident_entry WHERE incident_id = ? AND kind = 'verification' "
		    "ORDER BY at_utc DESC, id DESC LIMIT 1", "i", id);
		if (st == NULL)
			return AV_RUNTIME;
		rc = db_step(st);
		if (rc == DB_ROW) {
			eid = db_col_int64(st, 0);
			snprintf(outcome, sizeof outcome, "%s", col_text(st, 1));
		}
		db_finalize(st);
		if (eid == 0)
			return aerr_set(err, AV_USAGE, "incident %lld cannot be resolved without a "
			    "verification entry: run 'aivet incident verify %lld' or record one with "
			    "'aivet incident note %lld TEXT --kind verification'", (long long)id,
			    (long long)id, (long long)id);
		if (strcmp(outcome, "true") == 0)
			return aerr_set(err, AV_USAGE, "incident %lld cannot be resolved: the latest "
			    "verification (entry %lld) found the failure still reproduces", (long long)id,
			    (long long)eid);
		if (strcmp(outcome, "null") == 0)
			return aerr_set(err, AV_USAGE, "incident %lld cannot be resolved: the latest "
			    "verification (entry %lld) was inconclusive", (long long)id, (long long)eid);
	}
	if (strcmp(to, "closed") == 0)
		return close_check(db, id, err);
	return 0;
}

int
incident_link_add(struct db *db, const char *actor, int64_t incident_id, const char *type, int64_t oid,
    struct aerr *err)
{
	static const struct {
		const char *type, *sql;
	} tables[] = {
		{ "run", "SELECT id FROM probe_run WHERE id = ?" },
		{ "finding", "SELECT id FROM finding WHERE id = ?" },
		{ "evidence", "SELECT id FROM evidence WHERE id = ?" },
	};
	int64_t have;
	char at[32];
	cJSON *d;
	int rc;

	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		if (strcmp(tables[i].type, type) != 0)
			continue;
		rc = db_int(db, &have, err, tables[i].sql, "i", oid);
		if (rc < 0)
			return AV_RUNTIME;
		if (rc == 1)
			return aerr_set(err, AV_USAGE, "unknown %s %lld", type, (long long)oid);
	}
	rc = db_int(db, &have, err, "SELECT 1 FROM incident_link WHERE incident_id = ? AND "
	    "object_type = ? AND object_id = ?", "iti", incident_id, type, oid);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0)
		return aerr_set(err, AV_USAGE, "%s %lld is already linked to incident %lld", type,
		    (long long)oid, (long long)incident_id);
	now_iso(at);
	if (db_write(db, err, &link_row, NULL, "itit", incident_id, type, oid, at) != 0)
		return err->code;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "object_type", type);
	cJSON_AddNumberToObject(d, "object_id", (double)oid);
	rc = audit_append(db, actor, "incident.link", "incident", incident_id, d, err);
	cJSON_Delete(d);
	return rc;
}

int
incident_open_command(struct db *db, int64_t finding_id, char **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT v.name || '/' || e.name, f.code FROM finding f "
	    "JOIN probe_run r ON r.id = f.run_id JOIN endpoint e ON e.id = r.endpoint_id "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE f.id = ?", "i", finding_id);

	*out = NULL;
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown finding %lld", (long long)finding_id);
	}
	*out = incident_open_command_text(col_text(st, 0), col_text(st, 1), finding_id);
	db_finalize(st);
	return 0;
}
