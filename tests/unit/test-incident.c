/*
 * test-incident.c: the incident record against a real SQLite file — timeline
 * entries refuse change through aivet's own database layer, and an entry
 * edited, removed or inserted with the triggers dropped is found by the
 * audit verification; the vendor's contractual notification time is read
 * from questionnaire answers; the report JSON carries the entry as given.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "incident.h"
#include "audit-checks.h"
#include "../lib/tap.h"

static char dir[] = "/tmp/aivet-test-incident.XXXXXX";
static int dbn;

/* A fresh database with one vendor, one incident and one timeline entry. */
static struct db *
fresh_db(int64_t *entry_id)
{
	struct aerr err = { 0 };
	struct vendor_input vin = { .name = "acme" };
	struct db *db;
	int64_t vid;
	char *path = xasprintf("%s/db%d.sqlite", dir, ++dbn);

	if (db_open(path, &db, &err) != 0) {
		printf("# db_open: %s\n", err.msg);
		exit(99);
	}
	free(path);
	/* Vendor and incident rows are sealed too: each enters with its audit entry (1 and 2). */
	if (vendor_add(db, "tester", &vin, &vid, &err) != 0 || db_begin(db, &err) != 0 ||
	    db_exec(db, &err, "INSERT INTO incident (vendor_id, title, discovered_at, created_by, "
	    "created_at) VALUES (1, 'leak', '2026-03-02T14:00:00.000Z', 'tester', ?)", "t",
	    "2026-03-02T15:00:00.000Z") != 0 ||
	    audit_append(db, "tester", "incident.open", "incident", 1, NULL, &err) != 0 ||
	    incident_entry_add(db, "tester", 1, "vendor-notice", "2026-03-02T09:00:00-05:00",
	    "Vendor notice received", NULL, entry_id, &err) != 0 ||
	    db_commit(db, &err) != 0) {
		printf("# setup: %s\n", err.msg);
		exit(99);
	}
	return db;
}

static void
test_refused_through_aivet(void)
{
	struct aerr err = { 0 };
	int64_t eid, n;
	struct db *db = fresh_db(&eid);

	is_int(eid, 1, "the first entry has id 1");
	is_int(db_exec(db, &err, "UPDATE incident_entry SET text = 'nothing happened' WHERE id = ?",
	    "i", eid), AV_RUNTIME, "an UPDATE through aivet's database layer fails");
	is_str(err.msg, "database: write: incident timeline entries are immutable",
	    "with the trigger's message");
	aerr_clear(&err);
	is_int(db_exec(db, &err, "DELETE FROM incident_entry WHERE id = ?", "i", eid), AV_RUNTIME,
	    "a DELETE fails");
	is_str(err.msg, "database: write: incident timeline entries are immutable", "same message");
	db_int(db, &n, &err, "SELECT count(*) FROM incident_entry WHERE text = 'Vendor notice received'",
	    NULL);
	is_int(n, 1, "the entry is unchanged");
	{
		struct audit_status st;

		is_int(audit_verify(db, &st, &err), 0, "audit verify runs");
		is_int(st.bad_seq, 0, "and finds the chain and the entry intact");
		is_int(st.entries, 3, "three audit entries: vendor, incident, timeline entry");
	}
	{
		struct aerr e2 = { 0 };

		db_begin(db, &e2);
		is_int(incident_entry_add(db, "tester", 1, "gossip", NULL, "x", NULL, NULL, &e2), AV_USAGE,
		    "an unknown kind is refused");
		is_str(e2.msg, "unknown entry kind 'gossip' (one of detection, vendor-notice, observation, "
		    "decision, notification-sent, mitigation, verification, status-change)", "naming the kinds");
		is_int(incident_entry_add(db, "tester", 1, "observation", "2999-01-01T00:00:00Z", "x", NULL,
		    NULL, &e2), AV_USAGE, "an entry in the future is refused");
		is_str(e2.msg, "--at 2999-01-01T00:00:00Z is in the future: entries record what has "
		    "happened", "with a reason");
		is_int(incident_entry_add(db, "tester", 1, "observation", NULL, "  \n", NULL, NULL, &e2),
		    AV_USAGE, "blank text is refused");
		db_rollback(db);
	}
	db_close(db);
}

static void
test_tamper(const char *why, const char *sql, int64_t want_seq, const char *want_problem)
{
	struct aerr err = { 0 };
	struct audit_status st;
	int64_t eid;
	struct db *db = fresh_db(&eid);
	char *msg = NULL;

	if (db_script(db, sql, &msg) != DB_OK) {
		printf("# tamper failed: %s\n", msg);
		free(msg);
	}
	is_int(audit_verify(db, &st, &err), 0, "%s: verify runs", why);
	is_int(st.bad_seq, want_seq, "%s: reported at audit entry %lld", why, (long long)want_seq);
	is_str(st.problem, want_problem, "%s: problem named", why);
	db_close(db);
}

static void
test_vendor_sla(void)
{
	struct aerr err = { 0 };
	int64_t eid, ms;
	char text[32], source[160];
	struct db *db = fresh_db(&eid);

	is_int(incident_vendor_sla(db, 1, &ms, text, sizeof text, source, sizeof source, &err), 0,
	    "no answers: no error");
	is_int(ms, -1, "no answers: no SLA");
	db_exec(db, &err, "INSERT INTO questionnaire (id, qid, version, title, source, sha256, "
	    "loaded_at) VALUES (1, 'llm-inference-isolation', 1, 't', '{}', 'x', 'now'), "
	    "(2, 'hipaa-ai-vendor', 1, 't', '{}', 'y', 'now')", NULL);
	db_exec(db, &err, "INSERT INTO assessment (id, vendor_id, questionnaire_id, status, created_by, "
	    "created_at) VALUES (1, 1, 1, 'draft', 'a', 'now'), (2, 1, 1, 'draft', 'a', 'now'), "
	    "(3, 1, 2, 'draft', 'a', 'now')", NULL);
	db_exec(db, &err, "INSERT INTO answer (assessment_id, question_id, value, actor, updated_at) "
	    "VALUES (1, 'exposure_notification_time', '\"72h\"', 'a', 'now'), "
	    "(2, 'exposure_notification_time', '\"1h\"', 'a', 'now'), "
	    "(3, 'breach_notification_time', '\"2d\"', 'a', 'now')", NULL);
	/* Answered first: nothing is added to a final round. */
	db_exec(db, &err, "UPDATE assessment SET status = 'in_review' WHERE id IN (1, 3)", NULL);
	db_exec(db, &err, "UPDATE assessment SET status = 'final', reviewer = 'r', approved_at = 'now' "
	    "WHERE id IN (1, 3)", NULL);
	is_int(incident_vendor_sla(db, 1, &ms, text, sizeof text, source, sizeof source, &err), 0,
	    "answers read");
	is_int(ms, 2LL * 86400000, "the final answers count over a draft, and the shorter wins: 2d");
	is_str(text, "48h", "as contracts write it");
	is_str(source, "assessment 3, hipaa-ai-vendor breach_notification_time", "its source named");
	/* A newer final answer that is no duration (final rounds never change: add one). */
	db_exec(db, &err, "INSERT INTO assessment (id, vendor_id, questionnaire_id, status, created_by, "
	    "created_at) VALUES (4, 1, 2, 'draft', 'a', 'now')", NULL);
	db_exec(db, &err, "INSERT INTO answer (assessment_id, question_id, value, actor, updated_at) "
	    "VALUES (4, 'breach_notification_time', '\"soon\"', 'a', 'now')", NULL);
	db_exec(db, &err, "UPDATE assessment SET status = 'in_review' WHERE id = 4", NULL);
	db_exec(db, &err, "UPDATE assessment SET status = 'final', reviewer = 'r', approved_at = 'now' "
	    "WHERE id = 4", NULL);
	incident_vendor_sla(db, 1, &ms, text, sizeof text, source, sizeof source, &err);
	is_int(ms, 72LL * 3600000, "an answer that is no duration is skipped: 72h");
	is_str(source, "assessment 1, llm-inference-isolation exposure_notification_time", "source");
	{
		cJSON *r, *c;

		setenv("AIVET_NOW", "2026-03-03T00:00:00Z", 1);
		is_int(incident_report_json(db, 1, &r, &err), 0, "report JSON built");
		is_str(cJSON_GetObjectItem(r, "status")->valuestring, "new", "status");
		c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "clocks"), CLOCK_VENDOR_SLA);
		is_str(cJSON_GetObjectItem(c, "state")->valuestring, "met",
		    "the vendor's notice stopped its clock");
		is_int(cJSON_GetObjectItem(c, "stopped_by_entry")->valueint, 1, "stopped by entry 1");
		is_str(cJSON_GetObjectItem(c, "due")->valuestring, "2026-03-05T14:00:00.000Z",
		    "due 72h after discovery");
		c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "timeline"), 0);
		is_str(cJSON_GetObjectItem(c, "at")->valuestring, "2026-03-02T09:00:00-05:00",
		    "entry time as given, with its zone");
		is_str(cJSON_GetObjectItem(c, "at_utc")->valuestring, "2026-03-02T14:00:00.000Z",
		    "and in UTC");
		/* The record the JSON is written from: the same facts as fields. */
		{
			struct incident rec;
			char *a, *b;

			is_int(incident_get(db, 1, &rec, &err), 0, "the incident as a record");
			is_str(rec.clocks[CLOCK_VENDOR_SLA].state, "met", "its clock's state as a field");
			is_int(rec.clocks[CLOCK_VENDOR_SLA].stop_entry, 1, "stopped by entry 1");
			is_int(rec.clocks[CLOCK_VENDOR_SLA].seconds_left, 72 * 3600,
			    "72 hours early: the notice came at discovery");
			is_str(rec.clocks[CLOCK_VENDOR_SLA].due_text, "2026-03-05T14:00:00Z",
			    "its due text, as the rule states it");
			is_int((int64_t)rec.ntimeline, 1, "one timeline entry");
			is_str(rec.timeline[0].at, "2026-03-02T09:00:00-05:00", "as given");
			is_int(rec.individuals, -1, "individuals unknown: -1, null in the JSON");
			ok(rec.window_start == NULL && rec.window_end == NULL, "no exposure window: NULL");
			a = cJSON_PrintUnformatted(r);
			c = incident_to_json(&rec);
			b = cJSON_PrintUnformatted(c);
			is_str(b, a, "the one writer gives the document incident_report_json does");
			free(a);
			free(b);
			cJSON_Delete(c);
			incident_free(&rec);
			ok(rec.title == NULL && rec.ntimeline == 0, "freed and zeroed");
			incident_free(&rec);
		}
		/* The writes take the id the caller resolved: the check reads status only. */
		is_int(incident_writable(db, 1, &err), 0, "an open incident may change");
		is_int(incident_writable(db, 99, &err), AV_USAGE, "an id no incident has");
		is_str(err.msg, "unknown incident 99", "is named");
		cJSON_Delete(r);
		unsetenv("AIVET_NOW");
	}
	db_close(db);
}

static void
test_open_command(void)
{
	struct aerr err = { 0 };
	int64_t eid;
	struct db *db = fresh_db(&eid);
	char *cmd = NULL, *sh, line[512] = "";
	FILE *p;

	db_exec(db, &err, "UPDATE vendor SET name = 'Acme Health''s AI' WHERE id = 1", NULL);
	db_exec(db, &err, "INSERT INTO endpoint (id, vendor_id, name, api, url, model, context_tokens, "
	    "created_at, updated_at) VALUES (1, 1, 'prod', 'openai', 'https://x.example/v1', 'm', 1000, "
	    "'now', 'now')", NULL);
	db_exec(db, &err, "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at) "
	    "VALUES (1, 1, 'completed', '[\"canary\"]', 'tester', 'now')", NULL);
	db_exec(db, &err, "INSERT INTO finding (id, run_id, probe, code, severity, message) "
	    "VALUES (7, 1, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'leak')", NULL);
	is_int(incident_open_command(db, 7, &cmd, &err), 0, "the open command for a finding");
	is_str(cmd, "aivet incident open 'Acme Health'\\''s AI' --title 'LEAK_CROSS_TENANT on Acme "
	    "Health'\\''s AI/prod (finding 7)' --endpoint 'Acme Health'\\''s AI/prod' --from-finding 7",
	    "in the stable form, quoted for a shell");
	/* The shell reads the words back exactly. */
	sh = xasprintf("printf '%%s|' %s", cmd + strlen("aivet "));
	if ((p = popen(sh, "r")) != NULL) {
		if (fgets(line, sizeof line, p) == NULL)
			line[0] = '\0';
		pclose(p);
	}
	is_str(line, "incident|open|Acme Health's AI|--title|LEAK_CROSS_TENANT on Acme Health's AI/prod "
	    "(finding 7)|--endpoint|Acme Health's AI/prod|--from-finding|7|", "the shell reads it back");
	free(sh);
	free(cmd);
	is_int(incident_open_command(db, 8, &cmd, &err), AV_USAGE, "an unknown finding");
	is_str(err.msg, "unknown finding 8", "is named");
	db_close(db);
}

int
main(void)
{
	char *cmd;

	if (sodium_init() < 0 || mkdtemp(dir) == NULL)
		return 99;
	test_refused_through_aivet();
	test_tamper("text edited with the trigger dropped",
	    "DROP TRIGGER incident_entry_no_update; "
	    "UPDATE incident_entry SET text = 'nothing happened' WHERE id = 1", 3,
	    "incident entry 1 does not match audit entry 3: edited after it was recorded");
	test_tamper("back-dated behind aivet's back",
	    "DROP TRIGGER incident_entry_no_update; "
	    "UPDATE incident_entry SET at_utc = '2026-03-01T14:00:00.000Z' WHERE id = 1", 3,
	    "incident entry 1 does not match audit entry 3: edited after it was recorded");
	test_tamper("entry removed",
	    "DROP TRIGGER incident_entry_no_delete; DELETE FROM incident_entry WHERE id = 1", 3,
	    "incident entry 1 (audit entry 3) is missing: removed after it was recorded");
	test_tamper("entry inserted",
	    "INSERT INTO incident_entry (incident_id, kind, at, at_utc, actor, text, recorded_at) "
	    "VALUES (1, 'notification-sent', 'x', 'x', 'x', 'sent on time', 'x')", 4,
	    "incident entry 2 has no audit entry: added behind aivet's back");
	test_tamper("status changed",
	    "UPDATE incident SET status = 'closed' WHERE id = 1", 2,
	    "incident 1 does not match audit entry 2: edited after it was recorded");
	test_vendor_sla();
	test_open_command();
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(cmd);
	return tap_done();
}
