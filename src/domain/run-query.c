/*
 * run-query.c: reading probe runs for lists — "probe runs", an endpoint's
 * runs in the TUI, the dashboard's recent runs and the export dialog's
 * choices all read them here, so each shows a run the same way: its
 * endpoint, status, start, number of findings and the worst of them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "run-query.h"
#include "finding.h"
#include "probe.h"

int
probe_runs_json(struct db *db, const struct run_query *q, cJSON **out, struct aerr *err)
{
	char *sql = xasprintf("SELECT r.id, v.name || '/' || e.name, r.status, r.started_at, "
	    "(SELECT count(*) FROM finding f WHERE f.run_id = r.id), "
	    "(SELECT f.severity FROM finding f WHERE f.run_id = r.id ORDER BY "
	    "severity_rank(f.severity) DESC LIMIT 1), "
	    "(SELECT group_concat(probe || ':' || verdict, ' ') FROM probe_result p WHERE p.run_id = r.id) "
	    "FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id JOIN vendor v ON v.id = e.vendor_id "
	    "WHERE (? = 0 OR v.id = ?) AND (? = 0 OR e.id = ?) ORDER BY r.id %s%s",
	    q->newest_first ? "DESC" : "ASC", q->limit > 0 ? " LIMIT ?" : "");
	/* No LIMIT at all when unlimited: PostgreSQL refuses SQLite's LIMIT -1. */
	struct db_stmt *st = q->limit > 0 ?
	    db_prepare(db, err, sql, "iiiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id,
	    (int64_t)q->limit) :
	    db_prepare(db, err, sql, "iiii", q->vendor_id, q->vendor_id, q->endpoint_id, q->endpoint_id);

	free(sql);
	*out = NULL;
	if (st == NULL)
		return err->code;
	*out = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)db_col_int64(st, 0));
		cJSON_AddStringToObject(o, "endpoint", col_text(st, 1));
		cJSON_AddStringToObject(o, "status", col_text(st, 2));
		cJSON_AddStringToObject(o, "started_at", col_text(st, 3));
		cJSON_AddNumberToObject(o, "findings", (double)db_col_int64(st, 4));
		json_add_str(o, "worst", db_col_type(st, 5) == DB_NULL ? NULL : col_text(st, 5));
		if (q->verdicts)
			cJSON_AddStringToObject(o, "verdicts", col_text(st, 6));
		cJSON_AddItemToArray(*out, o);
	}
	db_finalize(st);
	return 0;
}

int
probe_run_findings(struct db *db, int64_t run_id, int64_t *n, struct aerr *err)
{
	*n = 0;
	return db_int(db, n, err, "SELECT count(*) FROM finding WHERE run_id = ?", "i", run_id) < 0 ?
	    err->code : 0;
}

static const cJSON *
probe_of(const cJSON *run, const char *name)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItem(run, "probes"))
		if (cJSON_IsString(cJSON_GetObjectItem(p, "name")) &&
		    strcmp(cJSON_GetObjectItem(p, "name")->valuestring, name) == 0)
			return p;
	return NULL;
}

/* How many findings of code which the run has, and the first one's first evidence. */
static int
count_code(const cJSON *run, enum finding_code which, int64_t *first_evidence)
{
	const char *code = finding_info(which)->code;
	const cJSON *p, *f;
	int n = 0;

	cJSON_ArrayForEach(p, cJSON_GetObjectItem(run, "probes"))
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(p, "findings")) {
			const cJSON *c = cJSON_GetObjectItem(f, "code");
			const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "evidence"), 0);

			if (cJSON_IsString(c) && strcmp(c->valuestring, code) == 0 && n++ == 0)
				*first_evidence = cJSON_IsNumber(e) ? (int64_t)e->valuedouble : 0;
		}
	return n;
}

/* The directions the canary probe attributed its leaks to, each once. */
static void
leak_directions(const cJSON *run, struct run_story *s)
{
	const cJSON *canary = probe_of(run, "canary"), *l;

	cJSON_ArrayForEach(l, cJSON_GetObjectItem(cJSON_GetObjectItem(canary, "details"), "leaks")) {
		const char *owner = cJSON_GetStringValue(cJSON_GetObjectItem(l, "owner_tenant"));
		const char *finder = cJSON_GetStringValue(cJSON_GetObjectItem(l, "found_by"));
		int dup = 0;

		if (!cJSON_IsTrue(cJSON_GetObjectItem(l, "other_tenant")) || owner == NULL || finder == NULL)
			continue;
		for (int i = 0; i < s->ndirs; i++)
			dup |= strncmp(s->dirs[i].owner, owner, 30) == 0 && strncmp(s->dirs[i].finder, finder, 30) == 0;
		if (dup || s->ndirs == 4)
			continue;
		s->dirs[s->ndirs].owner = xstrdup(owner);
		s->dirs[s->ndirs++].finder = xstrdup(finder);
	}
}

int
probe_run_story(struct db *db, int64_t run_id, struct run_story *s, struct aerr *err)
{
	const cJSON *sweep, *ib;
	cJSON *run;

	memset(s, 0, sizeof *s);
	if (probe_run_json(db, run_id, &run, err) != 0)
		return err->code;
	s->run = run_id;
	sweep = probe_of(run, "sweep");
	ib = sweep ? cJSON_GetObjectItem(cJSON_GetObjectItem(sweep, "details"), "integrity_boundary") : NULL;
	if (cJSON_IsNumber(ib)) {
		s->has_integrity_boundary = 1;
		s->integrity_boundary = ib->valuedouble;
	}
	s->placeholder = count_code(run, F_PLACEHOLDER_SUBSTITUTION, &s->placeholder_evidence);
	s->leaks = count_code(run, F_LEAK_CROSS_TENANT, &s->leak_evidence);
	if (s->leaks > 0)
		leak_directions(run, s);
	cJSON_Delete(run);
	return 0;
}

void
run_story_free(struct run_story *s)
{
	for (int i = 0; i < s->ndirs; i++) {
		free(s->dirs[i].owner);
		free(s->dirs[i].finder);
	}
	memset(s, 0, sizeof *s);
}
