/*
 * probe-rejudge.c: a recorded run judged again from its own record. The
 * run's options (depth, budget, seed, judging rules) and its exchanges are
 * read back, the probes run over the record (probe-replay.c), and what they
 * conclude now is compared with what the run stored: each probe's verdict,
 * reason, request count and measured details, and its findings (code,
 * severity, message, cited evidence). A difference means the stored results
 * do not follow from the stored exchanges. Part of the probe engine.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"
#include "evidence-key.h"

void
replay_free(struct replay *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		struct replay_exchange *x = &rp->x[i];

		free(x->probe);
		free(x->method);
		free(x->url);
		free(x->request_sha256);
		free(x->recipe);
		free(x->error);
		free(x->started_at);
		cJSON_Delete(x->headers);
		buf_free(&x->body);
	}
	free(rp->x);
	for (size_t i = 0; i < rp->nout; i++) {
		free(rp->out[i].probe);
		free(rp->out[i].verdict);
		free(rp->out[i].reason);
		cJSON_Delete(rp->out[i].details);
		cJSON_Delete(rp->out[i].findings);
	}
	free(rp->out);
	memset(rp, 0, sizeof *rp);
}

static char *
dup_col(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : xstrdup(col_text(st, i));
}

static double
num_of(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItem(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The response's timings and transfer as recorded (exchange_timings()). */
static void
exchange_timings_read(struct replay_exchange *x, const char *s)
{
	cJSON *t = s != NULL ? cJSON_Parse(s) : NULL;

	x->connect_ms = num_of(t, "connect_ms");
	x->ttfb_ms = num_of(t, "ttfb_ms");
	x->total_ms = num_of(t, "total_ms");
	x->first_byte_ms = num_of(t, "first_byte_ms");
	x->curl_code = (int)num_of(t, "curl_code");
	x->after = (int64_t)num_of(t, "after");
	cJSON_Delete(t);
}

/* A sealed response opened with the evidence key, where this user has it. */
static int
open_sealed(struct replay_exchange *x, struct aerr *err)
{
	struct buf plain;

	if (evidence_open_sealed(x->body.data, x->body.len, &plain, err) != 0)
		return aerr_prefix(err, "not re-derivable: the response of exchange %lld (evidence %lld) "
		    "is sealed", (long long)x->seq, (long long)x->evidence_id);
	buf_free(&x->body);
	x->body = plain;
	return 0;
}

/* Every exchange of the run in the order it was answered, with its response's
 * bytes; a sealed one cannot be read without the evidence key and is named. */
static int
load_exchanges(struct db *db, int64_t run_id, struct replay *rp, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT evidence_id, probe, seq, method, url, "
	    "request_sha256, request_recipe, response_status, response_headers, response_blob, "
	    "response_truncated, error, timings, started_at FROM exchange WHERE run_id = ? ORDER BY id",
	    "i", run_id);
	int rc = 0;

	if (st == NULL)
		return err->code;
	while (rc == 0 && db_step(st) == DB_ROW) {
		struct replay_exchange *x;
		int sealed = 0;

		rp->x = xrealloc(rp->x, (rp->n + 1) * sizeof *rp->x);
		x = &rp->x[rp->n++];
		memset(x, 0, sizeof *x);
		buf_init(&x->body);
		x->evidence_id = db_col_int64(st, 0);
		x->probe = dup_col(st, 1);
		x->seq = db_col_int64(st, 2);
		x->method = dup_col(st, 3);
		x->url = dup_col(st, 4);
		x->request_sha256 = dup_col(st, 5);
		x->recipe = dup_col(st, 6);
		x->status = db_col_type(st, 7) == DB_NULL ? 0 : db_col_int64(st, 7);
		x->headers = db_col_type(st, 8) == DB_NULL ? NULL : cJSON_Parse(col_text(st, 8));
		x->truncated = db_col_int(st, 10);
		x->error = dup_col(st, 11);
		exchange_timings_read(x, db_col_type(st, 12) == DB_NULL ? NULL : col_text(st, 12));
		x->started_at = dup_col(st, 13);
		if (db_col_type(st, 9) != DB_NULL) {
			buf_free(&x->body);
			if ((rc = blob_get(db, col_text(st, 9), &x->body, &sealed, err)) == 0 && sealed)
				rc = open_sealed(x, err);
		}
	}
	db_finalize(st);
	return rc;
}

static const unsigned char replay_seal[32];

/* A run's options as the probes read them, from what the run recorded. */
static int
opts_from_run(const cJSON *j, struct probe_opts *o, unsigned char seed[32], struct aerr *err)
{
	const char *rules = cJSON_GetStringValue(cJSON_GetObjectItem(j, "rules"));
	const char *hex = cJSON_GetStringValue(cJSON_GetObjectItem(j, "seed"));
	const char *depth = cJSON_GetStringValue(cJSON_GetObjectItem(j, "depth"));
	size_t len = 0;

	if (rules == NULL || hex == NULL || depth == NULL)
		return aerr_set(err, AV_USAGE, "not re-derivable: the run recorded no judging rules, "
		    "seed or depth (it was made by an aivet older than rejudging)");
	if (strcmp(rules, PROBE_RULES_VERSION) != 0)
		return aerr_set(err, AV_USAGE, "not re-derivable: the run was judged by rules %s and "
		    "this aivet has only rules %s", rules, PROBE_RULES_VERSION);
	if (sodium_hex2bin(seed, 32, hex, strlen(hex), NULL, &len, NULL) != 0 || len != 32)
		return aerr_set(err, AV_USAGE, "not re-derivable: the run's seed is not 64 hex digits");
	memset(o, 0, sizeof *o);
	if (probe_depth_parse(depth, &o->depth, err) != 0)
		return err->code;
	o->concurrency = (int)num_of(j, "concurrency");
	o->budget_tokens = (int64_t)num_of(j, "budget_tokens");
	o->budget_usd = num_of(j, "budget_usd");
	o->max_response = (size_t)num_of(j, "max_response");
	o->max_prompt_tokens = (int64_t)num_of(j, "max_prompt_tokens");
	o->timeout_ms = (long)num_of(j, "timeout_ms");
	/* The run could seal: the probes that plant only then do so again, and seal nothing. */
	if (cJSON_IsTrue(cJSON_GetObjectItem(j, "sealing")))
		o->leak_seal_pk = replay_seal;
	return 0;
}

struct run_record {
	int64_t endpoint_id;
	cJSON *probes, *options;
};

static int
run_record_read(struct db *db, int64_t run_id, struct run_record *rr, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT endpoint_id, probes, options FROM probe_run "
	    "WHERE id = ?", "i", run_id);
	int rc;

	memset(rr, 0, sizeof *rr);
	if (st == NULL)
		return err->code;
	if ((rc = db_step(st)) != DB_ROW) {
		db_finalize(st);
		return rc == DB_DONE ? aerr_set(err, AV_USAGE, "no run %lld", (long long)run_id) :
		    db_err(db, err, "probe_run");
	}
	rr->endpoint_id = db_col_int64(st, 0);
	rr->probes = cJSON_Parse(col_text(st, 1));
	rr->options = cJSON_Parse(col_text(st, 2));
	db_finalize(st);
	if (!cJSON_IsArray(rr->probes) || !cJSON_IsObject(rr->options))
		return aerr_set(err, AV_RUNTIME, "run %lld: its probes or options are not JSON",
		    (long long)run_id);
	return 0;
}

static const struct replay_outcome *
outcome_of(const struct replay *rp, const char *probe)
{
	for (size_t i = 0; i < rp->nout; i++)
		if (strcmp(rp->out[i].probe, probe) == 0)
			return &rp->out[i];
	return NULL;
}

static void
say_diff(struct buf *out, int64_t run_id, const char *probe, const char *what, const char *now,
    const char *stored, int *differences)
{
	buf_printf(out, "run %lld probe %s: %s differs: re-derived %s, recorded %s\n",
	    (long long)run_id, probe, what, now, stored);
	(*differences)++;
}

/* The first place two JSON values differ, as a path ("details.points[2].ok")
 * with both values; 0 when they are the same. */
static int
json_first_diff(const cJSON *a, const cJSON *b, char *path, size_t n, char **va, char **vb)
{
	size_t len = strlen(path);

	if (a == NULL ? b == NULL || cJSON_IsNull(b) : b != NULL && cJSON_Compare(a, b, 1))
		return 0;
	if (cJSON_IsObject(a) && cJSON_IsObject(b) && cJSON_GetArraySize(a) == cJSON_GetArraySize(b)) {
		const cJSON *e;

		cJSON_ArrayForEach(e, a) {
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(b, e->string);

			if (f == NULL)
				break;
			snprintf(path + len, n - len, ".%s", e->string);
			if (json_first_diff(e, f, path, n, va, vb))
				return 1;
		}
	} else if (cJSON_IsArray(a) && cJSON_IsArray(b) && cJSON_GetArraySize(a) == cJSON_GetArraySize(b)) {
		for (int i = 0; i < cJSON_GetArraySize(a); i++) {
			snprintf(path + len, n - len, "[%d]", i);
			if (json_first_diff(cJSON_GetArrayItem(a, i), cJSON_GetArrayItem(b, i), path, n, va, vb))
				return 1;
		}
	}
	path[len] = '\0';
	*va = a != NULL ? cJSON_PrintUnformatted(a) : xstrdup("none");
	*vb = b != NULL ? cJSON_PrintUnformatted(b) : xstrdup("none");
	return 1;
}

static void
say_json_diff(struct buf *out, int64_t run_id, const char *probe, const char *what,
    const cJSON *now, const cJSON *stored, int *differences)
{
	char path[256], *va = NULL, *vb = NULL;

	snprintf(path, sizeof path, "%s", what);
	if (!json_first_diff(now, stored, path, sizeof path, &va, &vb))
		return;
	say_diff(out, run_id, probe, path, va, vb, differences);
	free(va);
	free(vb);
}

/* One stored result ({probe, verdict, reason, requests, details, findings:
 * [{code, severity, message, evidence}]}) against its re-derived outcome. */
static void
compare_result(int64_t run_id, const cJSON *st, const struct replay *rp, struct buf *out,
    int *differences)
{
	const char *probe = cJSON_GetStringValue(cJSON_GetObjectItem(st, "probe"));
	const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(st, "verdict"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(st, "reason"));
	const cJSON *req = cJSON_GetObjectItem(st, "requests");
	const struct replay_outcome *o;
	int before = *differences;
	char a[32], b[32];

	probe = probe ? probe : "?";
	verdict = verdict ? verdict : "none";
	reason = reason ? reason : "";
	if ((o = outcome_of(rp, probe)) == NULL) {
		say_diff(out, run_id, probe, "result", "none", verdict, differences);
		return;
	}
	if (strcmp(o->verdict, verdict) != 0)
		say_diff(out, run_id, probe, "verdict", o->verdict, verdict, differences);
	if (strcmp(o->reason, reason) != 0)
		say_diff(out, run_id, probe, "reason", o->reason, reason, differences);
	snprintf(a, sizeof a, "%lld", (long long)o->requests);
	snprintf(b, sizeof b, "%lld", cJSON_IsNumber(req) ? (long long)req->valuedouble : -1LL);
	if (strcmp(a, b) != 0)
		say_diff(out, run_id, probe, "requests", a, b, differences);
	say_json_diff(out, run_id, probe, "details", o->details, cJSON_GetObjectItem(st, "details"),
	    differences);
	say_json_diff(out, run_id, probe, "findings", o->findings, cJSON_GetObjectItem(st, "findings"),
	    differences);
	if (*differences == before)
		buf_printf(out, "run %lld probe %s: re-derived (%s)\n", (long long)run_id, probe, verdict);
}

static void
compare_run(int64_t run_id, const cJSON *stored, const struct replay *rp, struct buf *out,
    int *differences)
{
	const cJSON *st;

	cJSON_ArrayForEach(st, stored)
		compare_result(run_id, st, rp, out, differences);
	for (size_t i = 0; i < rp->nout; i++) {
		int found = 0;

		cJSON_ArrayForEach(st, stored)
			found |= cJSON_GetStringValue(cJSON_GetObjectItem(st, "probe")) != NULL &&
			    strcmp(cJSON_GetObjectItem(st, "probe")->valuestring, rp->out[i].probe) == 0;
		if (!found)
			say_diff(out, run_id, rp->out[i].probe, "result", rp->out[i].verdict, "none",
			    differences);
	}
}

/* The probes of a run judged again over rp from its recorded probes and
 * options, and compared with stored. db, where given, is the one the run was
 * recorded in (the engine probe's advisories are read there). */
static int
rejudge(struct aivet *av, struct db *db, int64_t run_id, const cJSON *probes,
    const cJSON *options, struct replay *rp, const cJSON *stored, struct buf *out,
    int *differences, struct aerr *err)
{
	const struct probe *sel[16];
	struct probe_opts o;
	struct probe_env env;
	unsigned char seed[32];
	cJSON *plan = NULL, *cal = NULL;
	const cJSON *v;
	int n = 0;

	memset(&env, 0, sizeof env);
	if (opts_from_run(options, &o, seed, err) != 0)
		return err->code;
	cJSON_ArrayForEach(v, probes) {
		const struct probe *p = probe_find(cJSON_GetStringValue(v) ? v->valuestring : "");

		if (p == NULL || n == 16)
			return aerr_set(err, AV_USAGE, "not re-derivable: this aivet has no probe '%s'",
			    cJSON_GetStringValue(v) ? v->valuestring : "?");
		sel[n++] = p;
	}
	if (replay_env_init(&env, av, cJSON_GetObjectItem(options, "endpoint"), &o, err) == 0) {
		memcpy(env.seed, seed, sizeof seed);
		env.db = db;
		env.run_id = run_id;
		env.replay = rp;
		plan = make_plan(&env, sel, n);
		env.requests_planned = (int64_t)num_of(plan, "requests");
		if (rejudge_probes(&env, sel, n, &cal, err) == 0 && rp->next < rp->n)
			aerr_set(err, AV_FINDINGS, "run %lld: the record holds %zu exchanges the judgement "
			    "never asked for (from evidence %lld)", (long long)run_id, rp->n - rp->next,
			    (long long)rp->x[rp->next].evidence_id);
		/* A record that lacks what the judgement asks for, or holds another request
		 * than it makes, fails the check as a difference does. */
		if (rp->missing || rp->mismatch)
			err->code = AV_FINDINGS;
		if (err->code == 0)
			compare_run(run_id, stored, rp, out, differences);
	}
	env.replay = NULL;
	env.db = NULL;
	env_free(&env);
	cJSON_Delete(plan);
	cJSON_Delete(cal);
	return err->code;
}

/* ---- a run in the database ---- */

/* The stored results and findings of a run, as compare_result() reads them. */
static cJSON *
stored_results(struct db *db, int64_t run_id, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details "
	    "FROM probe_result WHERE run_id = ? ORDER BY id", "i", run_id);
	cJSON *a = cJSON_CreateArray();

	while (st != NULL && db_step(st) == DB_ROW) {
		cJSON *r = cJSON_CreateObject(), *f = cJSON_AddArrayToObject(r, "findings");
		struct db_stmt *q;

		cJSON_AddStringToObject(r, "probe", col_text(st, 0));
		cJSON_AddStringToObject(r, "verdict", col_text(st, 1));
		cJSON_AddStringToObject(r, "reason", db_col_type(st, 2) == DB_NULL ? "" : col_text(st, 2));
		cJSON_AddNumberToObject(r, "requests", (double)db_col_int64(st, 3));
		if (db_col_type(st, 4) != DB_NULL)
			cJSON_AddItemToObject(r, "details", cJSON_Parse(col_text(st, 4)));
		q = db_prepare(db, err, "SELECT code, severity, message, details FROM finding WHERE "
		    "run_id = ? AND probe = ? ORDER BY id", "it", run_id, col_text(st, 0));
		while (q != NULL && db_step(q) == DB_ROW) {
			cJSON *j = cJSON_CreateObject(), *ev = cJSON_Parse(col_text(q, 3));

			cJSON_AddStringToObject(j, "code", col_text(q, 0));
			cJSON_AddStringToObject(j, "severity", col_text(q, 1));
			cJSON_AddStringToObject(j, "message", col_text(q, 2));
			cJSON_AddItemToObject(j, "evidence", ids_sorted(ev));
			cJSON_Delete(ev);
			cJSON_AddItemToArray(f, j);
		}
		db_finalize(q);
		cJSON_AddItemToArray(a, r);
	}
	db_finalize(st);
	return a;
}

int
probe_rejudge_run(struct aivet *av, int64_t run_id, struct buf *out, int *differences,
    struct aerr *err)
{
	struct run_record rr = { 0 };
	struct replay rp = { 0 };
	cJSON *stored = NULL;
	struct db *db;

	*differences = 0;
	if ((db = av_db(av, err)) != NULL && run_record_read(db, run_id, &rr, err) == 0 &&
	    load_exchanges(db, run_id, &rp, err) == 0) {
		stored = stored_results(db, run_id, err);
		rejudge(av, db, run_id, rr.probes, rr.options, &rp, stored, out, differences, err);
	}
	replay_free(&rp);
	cJSON_Delete(stored);
	cJSON_Delete(rr.probes);
	cJSON_Delete(rr.options);
	return err->code;
}

/* ---- a run as a report bundle carries it ---- */

/* One exchange from its evidence file (report.c's exchange_file_json()). A
 * response kept sealed (leaked content) is not in the bundle: named. */
static void
exchange_from_doc(const cJSON *d, struct replay_exchange *x)
{
	const cJSON *rq = cJSON_GetObjectItem(d, "request"), *rs = cJSON_GetObjectItem(d, "response");
	const cJSON *recipe = cJSON_GetObjectItem(rq, "recipe"), *h = cJSON_GetObjectItem(rs, "headers");
	const char *body = cJSON_GetStringValue(cJSON_GetObjectItem(rs, "body"));
	const char *red = cJSON_GetStringValue(cJSON_GetObjectItem(rs, "body_redacted"));
	const char *b64 = cJSON_GetStringValue(cJSON_GetObjectItem(rs, "body_base64"));
	char *t = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "timings"));

	memset(x, 0, sizeof *x);
	buf_init(&x->body);
	x->evidence_id = (int64_t)num_of(d, "evidence_id");
	x->seq = (int64_t)num_of(d, "seq");
	x->probe = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(d, "probe")) ?
	    cJSON_GetObjectItem(d, "probe")->valuestring : "");
	x->method = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(d, "method")) ?
	    cJSON_GetObjectItem(d, "method")->valuestring : "");
	x->url = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(d, "url")) ?
	    cJSON_GetObjectItem(d, "url")->valuestring : "");
	x->request_sha256 = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(rq, "sha256")) ?
	    cJSON_GetObjectItem(rq, "sha256")->valuestring : "");
	x->recipe = cJSON_IsObject(recipe) ? cJSON_PrintUnformatted(recipe) : NULL;
	x->status = (long)num_of(rs, "status");
	x->headers = cJSON_IsObject(h) ? cJSON_Duplicate(h, 1) : NULL;
	x->truncated = cJSON_IsTrue(cJSON_GetObjectItem(rs, "truncated"));
	x->error = cJSON_GetStringValue(cJSON_GetObjectItem(d, "error")) ?
	    xstrdup(cJSON_GetObjectItem(d, "error")->valuestring) : NULL;
	x->started_at = cJSON_GetStringValue(cJSON_GetObjectItem(d, "started_at")) ?
	    xstrdup(cJSON_GetObjectItem(d, "started_at")->valuestring) : NULL;
	exchange_timings_read(x, t);
	free(t);
	/* Leaked content as the bundle carries it: generated text hidden, what is
	 * judged kept (redact.c). */
	if (body != NULL || red != NULL) {
		buf_adds(&x->body, body != NULL ? body : red);
	} else if (b64 != NULL) {
		size_t len = 0, cap = strlen(b64);
		unsigned char *bin = xmalloc(cap + 1);

		if (sodium_base642bin(bin, cap, b64, cap, NULL, &len, NULL,
		    sodium_base64_VARIANT_ORIGINAL) == 0)
			buf_add(&x->body, bin, len);
		else
			x->sealed = 1;
		free(bin);
	} else if (cJSON_IsTrue(cJSON_GetObjectItem(rs, "encrypted")) || num_of(rs, "size") > 0) {
		x->sealed = 1;
	}
}

static int
by_evidence(const void *a, const void *b)
{
	const struct replay_exchange *x = a, *y = b;

	return (x->evidence_id > y->evidence_id) - (x->evidence_id < y->evidence_id);
}

/* A report's stored results and findings grouped as compare_result() reads them. */
static cJSON *
doc_results(const cJSON *run)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *r, *f;

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(run, "results")) {
		cJSON *o = cJSON_Duplicate(r, 1), *fs = cJSON_AddArrayToObject(o, "findings");
		const char *probe = cJSON_GetStringValue(cJSON_GetObjectItem(r, "probe"));

		if (cJSON_IsNull(cJSON_GetObjectItem(o, "reason")))
			cJSON_ReplaceItemInObject(o, "reason", cJSON_CreateString(""));
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			const char *fp = cJSON_GetStringValue(cJSON_GetObjectItem(f, "probe"));
			cJSON *j;

			if (probe == NULL || fp == NULL || strcmp(probe, fp) != 0)
				continue;
			j = cJSON_CreateObject();
			cJSON_AddItemToObject(j, "code", cJSON_Duplicate(cJSON_GetObjectItem(f, "code"), 1));
			cJSON_AddItemToObject(j, "severity", cJSON_Duplicate(cJSON_GetObjectItem(f,
			    "severity"), 1));
			cJSON_AddItemToObject(j, "message", cJSON_Duplicate(cJSON_GetObjectItem(f,
			    "message"), 1));
			cJSON_AddItemToObject(j, "evidence", ids_sorted(cJSON_GetObjectItem(f, "evidence")));
			cJSON_AddItemToArray(fs, j);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

int
probe_rejudge_doc(struct aivet *av, const cJSON *run, const cJSON *exchanges, struct buf *out,
    int *differences, struct aerr *err)
{
	struct replay rp = { 0 };
	const cJSON *d;
	cJSON *stored;

	*differences = 0;
	cJSON_ArrayForEach(d, exchanges) {
		rp.x = xrealloc(rp.x, (rp.n + 1) * sizeof *rp.x);
		exchange_from_doc(d, &rp.x[rp.n++]);
	}
	if (rp.n > 1)
		qsort(rp.x, rp.n, sizeof *rp.x, by_evidence);
	stored = doc_results(run);
	rejudge(av, NULL, (int64_t)num_of(run, "id"), cJSON_GetObjectItem(run, "probes"),
	    cJSON_GetObjectItem(run, "options"), &rp, stored, out, differences, err);
	cJSON_Delete(stored);
	replay_free(&rp);
	return err->code;
}
