/*
 * incident-record.c: the incident record shared by the CLI, the TUI and
 * signed reports: loaded with its clocks, timeline, tasks and links, listed,
 * freed, and written as the one JSON document every surface shows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "incident.h"
#include "zone.h"
#include "vendor.h"
#include "run-format.h"

/* A column as an owned string, NULL when null. */
static char *
col_dup_or_null(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : xstrdup(col_text(st, i));
}

static void
entry_free(struct incident_entry *e)
{
	free(e->kind), free(e->at), free(e->at_utc), free(e->actor), free(e->text);
	cJSON_Delete(e->details);
	free(e->recorded_at);
	memset(e, 0, sizeof *e);
}

static void
task_free(struct incident_task *t)
{
	free(t->title), free(t->owner), free(t->due_at), free(t->done_at), free(t->created_at);
	memset(t, 0, sizeof *t);
}

static void
link_free(struct incident_link *l)
{
	free(l->object_type), free(l->added_at), free(l->kind), free(l->sha256);
	free(l->original_name), free(l->file), free(l->media_type), free(l->status);
	free(l->started_at), free(l->finished_at);
	cJSON_Delete(l->probes);
	free(l->probe), free(l->code), free(l->severity), free(l->message);
	memset(l, 0, sizeof *l);
}

void
incident_free(struct incident *r)
{
	free(r->vendor), free(r->endpoint), free(r->title), free(r->status), free(r->phi);
	free(r->discovered_at), free(r->discovered_at_local), free(r->window_start);
	free(r->window_end), free(r->vendor_discovered_at), free(r->vendor_sla_value);
	free(r->vendor_sla_source), free(r->created_by), free(r->created_at), free(r->as_of);
	for (size_t i = 0; i < r->ntimeline; i++)
		entry_free(&r->timeline[i]);
	free(r->timeline);
	for (size_t i = 0; i < r->ntasks; i++)
		task_free(&r->tasks[i]);
	free(r->tasks);
	for (size_t i = 0; i < r->nlinks; i++)
		link_free(&r->links[i]);
	free(r->links);
	memset(r, 0, sizeof *r);
}

void
incident_list_free(struct incident_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		incident_free(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* The clocks and the facts they stand on, as of now. */
static int
load_clocks(struct db *db, struct incident *r, int64_t now, struct aerr *err)
{
	char t[40];

	if (incident_clocks(db, r->id, &r->facts, r->clocks, err) != 0)
		return err->code;
	clocks_as_of(r->clocks, now);
	r->as_of_ms = now;
	fmt_time_ms(now, t);
	r->as_of = xstrdup(t);
	return 0;
}

static int
load_timeline(struct db *db, struct incident *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, kind, at, at_utc, actor, text, details, "
	    "recorded_at FROM incident_entry WHERE incident_id = ? ORDER BY at_utc, id", "i", r->id);
	size_t cap = 0;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW) {
		struct incident_entry *e;

		if (r->ntimeline == cap)
			r->timeline = xrealloc(r->timeline, (cap = cap ? cap * 2 : 8) * sizeof *r->timeline);
		e = &r->timeline[r->ntimeline++];
		e->id = db_col_int64(st, 0);
		e->kind = xstrdup(col_text(st, 1));
		e->at = xstrdup(col_text(st, 2));
		e->at_utc = xstrdup(col_text(st, 3));
		e->actor = xstrdup(col_text(st, 4));
		e->text = xstrdup(col_text(st, 5));
		e->details = db_col_type(st, 6) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 6));
		e->recorded_at = xstrdup(col_text(st, 7));
	}
	db_finalize(st);
	return 0;
}

static int
load_tasks(struct db *db, struct incident *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, title, owner, due_at, done_at, created_at "
	    "FROM incident_task WHERE incident_id = ? ORDER BY id", "i", r->id);
	size_t cap = 0;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW) {
		struct incident_task *t;
		int64_t due;

		if (r->ntasks == cap)
			r->tasks = xrealloc(r->tasks, (cap = cap ? cap * 2 : 8) * sizeof *r->tasks);
		t = &r->tasks[r->ntasks++];
		t->id = db_col_int64(st, 0);
		t->title = xstrdup(col_text(st, 1));
		t->owner = col_dup_or_null(st, 2);
		t->due_at = col_dup_or_null(st, 3);
		t->done_at = col_dup_or_null(st, 4);
		t->created_at = xstrdup(col_text(st, 5));
		t->overdue = t->done_at == NULL && t->due_at != NULL &&
		    parse_time(t->due_at, &due, NULL) == 0 && r->as_of_ms > due;
	}
	db_finalize(st);
	return 0;
}

static int
load_links(struct db *db, struct incident *r, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT l.object_type, l.object_id, l.added_at, "
	    "ev.kind, ev.sha256, ev.original_name, ev.media_type, ev.size, "
	    "r.status, r.started_at, r.finished_at, r.probes, "
	    "f.probe, f.code, f.severity, f.message, f.run_id "
	    "FROM incident_link l "
	    "LEFT JOIN evidence ev ON l.object_type = 'evidence' AND ev.id = l.object_id "
	    "LEFT JOIN probe_run r ON l.object_type = 'run' AND r.id = l.object_id "
	    "LEFT JOIN finding f ON l.object_type = 'finding' AND f.id = l.object_id "
	    "WHERE l.incident_id = ? ORDER BY l.object_type, l.object_id", "i", r->id);
	size_t cap = 0;

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW) {
		struct incident_link *l;

		if (r->nlinks == cap)
			r->links = xrealloc(r->links, (cap = cap ? cap * 2 : 8) * sizeof *r->links);
		l = &r->links[r->nlinks++];
		memset(l, 0, sizeof *l);
		l->object_type = xstrdup(col_text(st, 0));
		l->object_id = db_col_int64(st, 1);
		l->added_at = xstrdup(col_text(st, 2));
		if (strcmp(l->object_type, "evidence") == 0) {
			char name[EVIDENCE_NAME_MAX];

			l->kind = xstrdup(col_text(st, 3));
			l->sha256 = xstrdup(col_text(st, 4));
			l->original_name = col_dup_or_null(st, 5);
			evidence_file_name(l->object_id, l->kind, l->original_name, name, sizeof name);
			l->file = xstrdup(name);
			l->media_type = col_dup_or_null(st, 6);
			l->size = db_col_int64(st, 7);
		} else if (strcmp(l->object_type, "run") == 0) {
			l->status = xstrdup(col_text(st, 8));
			l->started_at = xstrdup(col_text(st, 9));
			l->finished_at = col_dup_or_null(st, 10);
			l->probes = cJSON_Parse(col_text(st, 11));
		} else {
			l->probe = xstrdup(col_text(st, 12));
			l->code = xstrdup(col_text(st, 13));
			l->severity = xstrdup(col_text(st, 14));
			l->message = xstrdup(col_text(st, 15));
			l->run_id = db_col_int64(st, 16);
		}
	}
	db_finalize(st);
	return 0;
}

/* The facts the clocks computed from that have no column: as text. */
static void
facts_texts(struct incident *r)
{
	const struct incident_facts *f = &r->facts;
	char t[40];

	fmt_time_offset(f->discovered_ms, f->discovered_offset, t);
	r->discovered_at_local = xstrdup(t);
	r->state_residents = f->state_residents;
	if (f->vendor_discovered_ms >= 0) {
		fmt_time_ms(f->vendor_discovered_ms, t);
		r->vendor_discovered_at = xstrdup(t);
	}
	/* A time stated as none is a fact, as a duration is: only unknown is null. */
	if ((r->has_vendor_sla = f->vendor_sla_ms >= 0 ||
	    (!f->vendor_sla_unknown && strcmp(f->vendor_sla_text, "none") == 0))) {
		r->vendor_sla_value = xstrdup(f->vendor_sla_text);
		r->vendor_sla_seconds = f->vendor_sla_ms / 1000;
		r->vendor_sla_source = xstrdup(f->vendor_sla_source);
	}
}

int
incident_get(struct db *db, int64_t id, struct incident *r, struct aerr *err)
{
	struct db_stmt *st;

	memset(r, 0, sizeof *r);
	st = db_prepare(db, err, "SELECT i.id, v.name, i.vendor_id, e.name, i.title, i.status, "
	    "i.severity, i.phi, i.individuals, i.eu_data, i.discovered_at, i.window_start, "
	    "i.window_end, i.created_by, i.created_at FROM incident i JOIN vendor v ON v.id = i.vendor_id "
	    "LEFT JOIN endpoint e ON e.id = i.endpoint_id WHERE i.id = ?", "i", id);
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown incident %lld (see 'aivet incident list')",
		    (long long)id);
	}
	r->id = db_col_int64(st, 0);
	r->vendor = xstrdup(col_text(st, 1));
	r->vendor_id = db_col_int64(st, 2);
	r->endpoint = db_col_type(st, 3) == DB_NULL ? NULL :
	    xasprintf("%s/%s", col_text(st, 1), col_text(st, 3));
	r->title = xstrdup(col_text(st, 4));
	r->status = xstrdup(col_text(st, 5));
	r->severity = db_col_int(st, 6);
	r->phi = xstrdup(col_text(st, 7));
	r->individuals = db_col_type(st, 8) == DB_NULL ? -1 : db_col_int64(st, 8);
	r->eu_data = db_col_int(st, 9);
	r->discovered_at = xstrdup(col_text(st, 10));
	r->window_start = col_dup_or_null(st, 11);
	r->window_end = col_dup_or_null(st, 12);
	r->created_by = xstrdup(col_text(st, 13));
	r->created_at = xstrdup(col_text(st, 14));
	db_finalize(st);
	if (load_clocks(db, r, now_ms(), err) != 0 || load_timeline(db, r, err) != 0 ||
	    load_tasks(db, r, err) != 0 || load_links(db, r, err) != 0) {
		incident_free(r);
		return err->code;
	}
	facts_texts(r);
	return 0;
}

static void
add_count(cJSON *o, const char *k, int64_t v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, (double)v);
}

static cJSON *
entry_to_json(const struct incident_entry *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)e->id);
	cJSON_AddStringToObject(o, "kind", e->kind);
	cJSON_AddStringToObject(o, "at", e->at);
	cJSON_AddStringToObject(o, "at_utc", e->at_utc);
	cJSON_AddStringToObject(o, "actor", e->actor);
	cJSON_AddStringToObject(o, "text", e->text);
	cJSON_AddItemToObject(o, "details", e->details ? cJSON_Duplicate(e->details, 1) :
	    cJSON_CreateNull());
	cJSON_AddStringToObject(o, "recorded_at", e->recorded_at);
	return o;
}

static cJSON *
task_to_json(const struct incident_task *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)t->id);
	cJSON_AddStringToObject(o, "title", t->title);
	json_add_str(o, "owner", t->owner);
	json_add_str(o, "due_at", t->due_at);
	json_add_str(o, "done_at", t->done_at);
	cJSON_AddStringToObject(o, "created_at", t->created_at);
	cJSON_AddBoolToObject(o, "overdue", t->overdue);
	return o;
}

static cJSON *
link_to_json(const struct incident_link *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "object_type", l->object_type);
	cJSON_AddNumberToObject(o, "object_id", (double)l->object_id);
	cJSON_AddStringToObject(o, "added_at", l->added_at);
	if (strcmp(l->object_type, "evidence") == 0) {
		cJSON_AddStringToObject(o, "kind", l->kind);
		cJSON_AddStringToObject(o, "sha256", l->sha256);
		json_add_str(o, "original_name", l->original_name);
		cJSON_AddStringToObject(o, "file", l->file);
		json_add_str(o, "media_type", l->media_type);
		cJSON_AddNumberToObject(o, "size", (double)l->size);
	} else if (strcmp(l->object_type, "run") == 0) {
		cJSON_AddStringToObject(o, "status", l->status);
		cJSON_AddStringToObject(o, "started_at", l->started_at);
		json_add_str(o, "finished_at", l->finished_at);
		cJSON_AddItemToObject(o, "probes", l->probes ? cJSON_Duplicate(l->probes, 1) :
		    cJSON_CreateArray());
	} else {
		cJSON_AddStringToObject(o, "probe", l->probe);
		cJSON_AddStringToObject(o, "code", l->code);
		cJSON_AddStringToObject(o, "severity", l->severity);
		cJSON_AddStringToObject(o, "message", l->message);
		cJSON_AddNumberToObject(o, "run_id", (double)l->run_id);
	}
	return o;
}

cJSON *
incident_to_json(const struct incident *r)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddStringToObject(o, "vendor", r->vendor);
	cJSON_AddNumberToObject(o, "vendor_id", (double)r->vendor_id);
	json_add_str(o, "endpoint", r->endpoint);
	cJSON_AddStringToObject(o, "title", r->title);
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddNumberToObject(o, "severity", (double)r->severity);
	cJSON_AddStringToObject(o, "phi", r->phi);
	add_count(o, "individuals", r->individuals);
	eu_data_add_json(o, "eu_data", r->eu_data);
	cJSON_AddStringToObject(o, "discovered_at", r->discovered_at);
	json_add_str(o, "window_start", r->window_start);
	json_add_str(o, "window_end", r->window_end);
	cJSON_AddStringToObject(o, "created_by", r->created_by);
	cJSON_AddStringToObject(o, "created_at", r->created_at);
	cJSON_AddStringToObject(o, "discovered_at_local", r->discovered_at_local);
	add_count(o, "state_residents", r->state_residents);
	json_add_str(o, "vendor_discovered_at", r->vendor_discovered_at);
	if (r->has_vendor_sla) {
		cJSON *s = cJSON_AddObjectToObject(o, "vendor_sla");

		cJSON_AddStringToObject(s, "value", r->vendor_sla_value);
		if (strcmp(r->vendor_sla_value, "none") == 0)
			cJSON_AddNullToObject(s, "seconds");
		else
			cJSON_AddNumberToObject(s, "seconds", (double)r->vendor_sla_seconds);
		cJSON_AddStringToObject(s, "source", r->vendor_sla_source);
	} else {
		cJSON_AddNullToObject(o, "vendor_sla");
	}
	cJSON_AddStringToObject(o, "as_of", r->as_of);
	arr = cJSON_AddArrayToObject(o, "clocks");
	for (int i = 0; i < CLOCK_COUNT; i++)
		cJSON_AddItemToArray(arr, incident_clock_to_json(&r->clocks[i]));
	arr = cJSON_AddArrayToObject(o, "timeline");
	for (size_t i = 0; i < r->ntimeline; i++)
		cJSON_AddItemToArray(arr, entry_to_json(&r->timeline[i]));
	arr = cJSON_AddArrayToObject(o, "tasks");
	for (size_t i = 0; i < r->ntasks; i++)
		cJSON_AddItemToArray(arr, task_to_json(&r->tasks[i]));
	arr = cJSON_AddArrayToObject(o, "links");
	for (size_t i = 0; i < r->nlinks; i++)
		cJSON_AddItemToArray(arr, link_to_json(&r->links[i]));
	return o;
}

int
incident_report_json(struct db *db, int64_t id, cJSON **out, struct aerr *err)
{
	struct incident r;

	*out = NULL;
	if (incident_get(db, id, &r, err) != 0)
		return err->code;
	*out = incident_to_json(&r);
	incident_free(&r);
	return 0;
}

int
incident_list_load(struct db *db, int64_t vendor_id, int open_only, int64_t now,
    struct incident_list *out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT i.id, v.name, e.name, i.title, i.status, "
	    "i.severity, i.discovered_at, (SELECT count(*) FROM incident_task t WHERE "
	    "t.incident_id = i.id AND t.done_at IS NULL) FROM incident i "
	    "JOIN vendor v ON v.id = i.vendor_id LEFT JOIN endpoint e ON e.id = i.endpoint_id "
	    "WHERE (? = 0 OR i.status <> 'closed') AND (? = 0 OR i.vendor_id = ?) ORDER BY i.id",
	    "iii", (int64_t)open_only, vendor_id, vendor_id);
	size_t cap = 0;

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct incident *r;

		if (out->n == cap)
			out->items = xrealloc(out->items, (cap = cap ? cap * 2 : 16) * sizeof *out->items);
		r = &out->items[out->n++];
		memset(r, 0, sizeof *r);
		r->id = db_col_int64(st, 0);
		r->vendor = xstrdup(col_text(st, 1));
		r->endpoint = db_col_type(st, 2) == DB_NULL ? NULL :
		    xasprintf("%s/%s", col_text(st, 1), col_text(st, 2));
		r->title = xstrdup(col_text(st, 3));
		r->status = xstrdup(col_text(st, 4));
		r->severity = db_col_int(st, 5);
		r->discovered_at = xstrdup(col_text(st, 6));
		r->open_tasks = db_col_int64(st, 7);
		r->individuals = r->state_residents = -1;
		if (load_clocks(db, r, now, err) != 0) {
			db_finalize(st);
			incident_list_free(out);
			return err->code;
		}
	}
	db_finalize(st);
	return 0;
}

const struct incident_clock *
incident_next_due(const struct incident *r, const struct incident_clock *overdue[CLOCK_COUNT],
    int *noverdue)
{
	return clocks_next_due(r->clocks, r->as_of_ms, overdue, noverdue);
}

cJSON *
incident_row_to_json(const struct incident *r)
{
	const struct incident_clock *next, *overdue[CLOCK_COUNT];
	cJSON *o = cJSON_CreateObject(), *over;
	char due[32];
	int nover;

	next = incident_next_due(r, overdue, &nover);
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddStringToObject(o, "vendor", r->vendor);
	json_add_str(o, "endpoint", r->endpoint);
	cJSON_AddStringToObject(o, "title", r->title);
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddNumberToObject(o, "severity", (double)r->severity);
	cJSON_AddStringToObject(o, "discovered_at", r->discovered_at);
	cJSON_AddNumberToObject(o, "open_tasks", (double)r->open_tasks);
	over = cJSON_AddArrayToObject(o, "overdue_clocks");
	for (int i = 0; i < nover; i++)
		cJSON_AddItemToArray(over, cJSON_CreateString(overdue[i]->id));
	if (next != NULL) {
		cJSON *n = cJSON_AddObjectToObject(o, "next_due");

		fmt_time_ms(next->due_ms, due);
		cJSON_AddStringToObject(n, "clock", next->id);
		cJSON_AddStringToObject(n, "due", due);
		cJSON_AddStringToObject(n, "due_text", next->due_text);
		cJSON_AddBoolToObject(n, "overdue", next->due_ms < r->as_of_ms);
	} else {
		cJSON_AddNullToObject(o, "next_due");
	}
	return o;
}

cJSON *
incident_list_to_json(const struct incident_list *l)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(arr, incident_row_to_json(&l->items[i]));
	return arr;
}

int
incident_list_json(struct db *db, int64_t vendor_id, int open_only, int64_t now, cJSON **out,
    struct aerr *err)
{
	struct incident_list l;

	*out = NULL;
	if (incident_list_load(db, vendor_id, open_only, now, &l, err) != 0)
		return err->code;
	*out = incident_list_to_json(&l);
	incident_list_free(&l);
	return 0;
}
