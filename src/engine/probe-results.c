/*
 * probe-results.c: running the probes of a run and writing their results and
 * findings, linked to their evidence, with the run's status. Part of the
 * probe engine (probe-engine.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probe.h"
#include "probe-engine.h"
#include "probe-replay.h"

/* ---- results ---- */

/*
 * The run's rows (db.h's db_write): on PostgreSQL written by the functions of
 * db/pg/008-workflow.sql, which name the login as the run's actor and let
 * only that login, while the run runs, add its exchanges, results and
 * findings. Run arguments: endpoint, probes, options, plan, actor, pid, time.
 */
static const struct db_write run_row = {
	{ "INSERT INTO probe_run (endpoint_id, status, probes, options, plan, actor, pid, started_at) "
	  "VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7)" },
	"SELECT aivet_probe_start(?1, ?2, ?3, ?4, ?6, ?7)", 1
};

/* Arguments: run, status, calibration, tokens in and out, time, billed in and out. */
static const struct db_write run_update = {
	{ "UPDATE probe_run SET status = ?2, calibration = coalesce(?3, calibration), tokens_in = ?4, "
	  "tokens_out = ?5, finished_at = CASE WHEN ?2 = 'running' THEN NULL ELSE ?6 END, "
	  "plan = CASE WHEN json_valid(plan) THEN json_set(plan, '$.billed', json_object('tokens_in', ?7, "
	  "'tokens_out', ?8)) ELSE plan END WHERE id = ?1" },
	"SELECT aivet_probe_update(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", 0
};

/* Arguments: run, probe, verdict, reason, requests, details. */
static const struct db_write result_row = {
	{ "INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	"SELECT aivet_probe_result(?1, ?2, ?3, ?4, ?5, ?6)", 1
};

/* Arguments: run, probe, code, severity, message, details. */
static const struct db_write finding_row = {
	{ "INSERT INTO finding (run_id, probe, code, severity, message, details) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	"SELECT aivet_finding_add(?1, ?2, ?3, ?4, ?5, ?6)", 1
};

static const struct db_write finding_evidence_row = {
	{ "INSERT INTO finding_evidence (finding_id, evidence_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING" },
	"SELECT aivet_finding_evidence(?1, ?2)", 0
};

/* On a server that writes evidence through its functions, a result that
 * raised no finding is its row and its audit entry in one call
 * (db/pg/016-exchange-record.sql), sent outside BEGIN: its own transaction,
 * the audit chain's lock taken first as db_begin() does, one round trip where
 * BEGIN, the row, the entry and COMMIT took four. Arguments: result_row's,
 * then the time and the entry's details. */
static const struct db_write result_record = {
	{ NULL },
	"SELECT aivet_probe_result_record(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", 1
};

static cJSON *
result_entry(const struct probe_env *env, const struct probe *p, const struct probe_outcome *out)
{
	cJSON *a = cJSON_CreateObject();

	cJSON_AddNumberToObject(a, "run", (double)env->run_id);
	cJSON_AddStringToObject(a, "probe", p->name);
	cJSON_AddStringToObject(a, "verdict", out->verdict);
	return a;
}

static int
write_result_on_server(struct probe_env *env, const struct probe *p, struct probe_outcome *out,
    const char *details, struct aerr *err)
{
	cJSON *a = result_entry(env, p, out);
	char at[32], *entry = cJSON_PrintUnformatted(a);
	int64_t rid;
	int rc;

	now_iso(at);
	rc = db_write(env->db, err, &result_record, &rid, "itttit" "tt", env->run_id, p->name,
	    out->verdict, out->reason[0] ? out->reason : NULL, out->requests, details, at, entry);
	free(entry);
	cJSON_Delete(a);
	return rc;
}

static int
write_result(struct probe_env *env, const struct probe *p, struct probe_outcome *out,
    struct aerr *err)
{
	struct db *db = env->db;
	char *details = out->details ? cJSON_PrintUnformatted(out->details) : NULL;
	int64_t rid;
	cJSON *a;
	int rc;

	if (env->replay != NULL) {
		free(details);
		replay_keep_result(env, p->name, out);
		return 0;
	}
	if (out->nf == 0 && db_has(db, DB_STORE_SEALS)) {
		rc = write_result_on_server(env, p, out, details, err);
		free(details);
		return rc;
	}
	if (db_begin(db, err) != 0) {
		free(details);
		return err->code;
	}
	if (db_write(db, err, &result_row, &rid, "itttit", env->run_id, p->name, out->verdict,
	    out->reason[0] ? out->reason : NULL, out->requests, details) != 0)
		goto fail;
	a = result_entry(env, p, out);
	if (audit_append(db, env->av->actor, "probe.result", "probe_result", rid, a, err) != 0) {
		cJSON_Delete(a);
		goto fail;
	}
	cJSON_Delete(a);
	for (int i = 0; i < out->nf; i++) {
		struct raised_finding *f = &out->f[i];
		char *fd = cJSON_PrintUnformatted(f->evidence);
		int64_t fid;
		cJSON *e;

		char *msg = f->more > 0 ? xasprintf("%s; and %d more", f->message, f->more) :
		    xstrdup(f->message);

		if (db_write(db, err, &finding_row, &fid, "itttt" "t", env->run_id, p->name, f->info->code,
		    severity_name(raised_severity(f)), msg, fd) != 0) {
			free(fd);
			free(msg);
			goto fail;
		}
		free(fd);
		free(msg);
		cJSON_ArrayForEach(e, f->evidence)
			if (db_write(db, err, &finding_evidence_row, NULL, "ii", fid,
			    (int64_t)e->valuedouble) != 0)
				goto fail;
		a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "run", (double)env->run_id);
		cJSON_AddStringToObject(a, "code", f->info->code);
		cJSON_AddStringToObject(a, "severity", severity_name(raised_severity(f)));
		cJSON_AddItemReferenceToObject(a, "evidence", f->evidence);
		if (audit_append(db, env->av->actor, "probe.finding", "finding", fid, a, err) != 0) {
			cJSON_Delete(a);
			goto fail;
		}
		cJSON_Delete(a);
	}
	free(details);
	return db_commit(db, err);
fail:
	db_rollback(db);
	free(details);
	return err->code;
}

/* The budget that stopped the run, in words: "USD budget of USD 10.00" or "token
 * budget of 1,000,000 tokens", never the other one when both were given. */
static void
budget_words(const struct probe_env *env, char *out, size_t n)
{
	char x[32];

	if (env->budget_hit == BUDGET_HIT_USD)
		snprintf(out, n, "USD budget of USD %.2f", env->opts->budget_usd);
	else
		snprintf(out, n, "token budget of %s tokens", thousands(env->opts->budget_tokens, x));
}

/* The verdict: findings of low or above fail the probe (its reason then counts them);
 * otherwise what the probe said, inconclusive when the budget cut it short or when it
 * said nothing. */
void
probe_judge(struct probe_env *env, struct probe_outcome *out)
{
	int worst = -1, xt = -1, xr = -1;

	/* Canaries of the same tenant's other requests that came back beside another
	 * tenant's went through memory shared across tenants: one cross-tenant defect,
	 * not a same-tenant leak besides. */
	for (int i = 0; i < out->nf; i++) {
		if (out->f[i].info->id == F_LEAK_CROSS_TENANT)
			xt = i;
		if (out->f[i].info->id == F_LEAK_CROSS_REQUEST)
			xr = i;
	}
	if (xt >= 0 && xr >= 0) {
		cJSON *e;

		cJSON_ArrayForEach(e, out->f[xr].evidence)
			outcome_finding(out, F_LEAK_CROSS_TENANT, (int64_t)e->valuedouble, "%s",
			    "canaries of the same tenant's other requests came back through the same "
			    "shared memory");
		free(out->f[xr].message);
		cJSON_Delete(out->f[xr].evidence);
		memmove(&out->f[xr], &out->f[xr + 1], (size_t)(out->nf - xr - 1) * sizeof out->f[0]);
		out->nf--;
	}
	for (int i = 0; i < out->nf; i++)
		if ((int)raised_severity(&out->f[i]) > worst)
			worst = (int)raised_severity(&out->f[i]);
	if (worst >= severity_rank("low")) {
		/* What the probe could not judge stays said beside its findings (an engine node
		 * not read is an error for that node, whatever the others showed). */
		char also[sizeof out->reason];

		snprintf(also, sizeof also, "%s", out->verdict != NULL && strcmp(out->verdict, "error") == 0 ?
		    out->reason : "");
		snprintf(out->reason, sizeof out->reason, "%d finding%s%s%.400s", out->nf,
		    out->nf == 1 ? "" : "s", also[0] ? "; and " : "", also);
		out->verdict = "fail";
	} else if (env->budget_hit && (out->verdict == NULL || strcmp(out->verdict, "error") != 0)) {
		char budget[64];

		budget_words(env, budget, sizeof budget);
		outcome_set(out, "inconclusive", "the %s was exhausted before the probe finished", budget);
	} else if (out->verdict == NULL) {
		/* No verdict without judged evidence: a probe that said nothing passed nothing. */
		outcome_set(out, "inconclusive", "no exchange was judged");
	}
}

/* Which output-limit field the endpoint took, and whether its streams report
 * usage, are part of how it was measured: added to the calibration (a new
 * object in *own, for the caller to free, when the run has none). */
static cJSON *
calibration_notes(const struct probe_env *env, cJSON *cal, cJSON **own)
{
	int no_stream_usage = env->prov->stream_usage != NULL &&
	    strcmp(env->prov->stream_usage(&env->ep), "none") == 0;

	if (env->limit_switch == NULL && !no_stream_usage && env->size_follow == NULL)
		return cal;
	if (cal == NULL)
		cal = *own = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "output_limit_field");
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "stream_usage");
	cJSON_DeleteItemFromObjectCaseSensitive(cal, "sizes_followed");
	if (env->size_follow != NULL)
		cJSON_AddItemToObject(cal, "sizes_followed", cJSON_Duplicate(env->size_follow, 1));
	if (env->limit_switch != NULL)
		cJSON_AddItemToObject(cal, "output_limit_field", cJSON_Duplicate(env->limit_switch, 1));
	if (no_stream_usage)
		cJSON_AddStringToObject(cal, "stream_usage", "none: streamed answers on this endpoint "
		    "carry no usage (no stream_options); usage comes from its non-streamed answers");
	return cal;
}

/* A tenant whose every exchange was refused for authentication, or -1. */
static int
auth_dead(const struct probe_env *env)
{
	for (int t = 0; t < env->ntenants; t++)
		if (env->tenant_auth_refused[t] > 0 && env->tenant_other[t] == 0)
			return t;
	return -1;
}

static int
update_run(struct probe_env *env, const char *status, cJSON *cal, struct aerr *err)
{
	char at[32], *cs;
	cJSON *a = cJSON_CreateObject(), *own = NULL;
	int rc;

	cal = calibration_notes(env, cal, &own);
	cs = cal ? cJSON_PrintUnformatted(cal) : NULL;
	cJSON_Delete(own);
	now_iso(at);
	if ((rc = db_begin(env->db, err)) != 0)
		goto out;
	/* Beside the plan, what the vendor really billed (its usage), kept with the run. */
	if (db_write(env->db, err, &run_update, NULL, "ittiitii", env->run_id, status, cs, env->tokens_in,
	    env->tokens_out, at, env->billed_in, env->billed_out) != 0) {
		db_rollback(env->db);
		rc = err->code;
		goto out;
	}
	cJSON_AddStringToObject(a, "status", status);
	cJSON_AddNumberToObject(a, "tokens_in", (double)env->tokens_in);
	cJSON_AddNumberToObject(a, "tokens_out", (double)env->tokens_out);
	if (audit_append(env->db, env->av->actor, strcmp(status, "running") == 0 ?
	    "probe.calibrate" : "probe.finish", "probe_run", env->run_id, a, err) != 0) {
		db_rollback(env->db);
		rc = err->code;
		goto out;
	}
	rc = db_commit(env->db, err);
out:
	cJSON_Delete(a);
	free(cs);
	return rc;
}

/* The run's row and its audit entry, in one transaction: which probes, with
 * what options, and the plan they were sent under. */
static int
run_start(struct probe_env *env, const struct probe *const *sel, int n, const cJSON *plan,
    struct aerr *err)
{
	const struct probe_opts *o = env->opts;
	cJSON *names = cJSON_CreateArray(), *opts = cJSON_CreateObject(), *a;
	char at[32], seed[2 * sizeof env->seed + 1], *plan_s, *names_s, *opts_s;
	int rc;

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(sel[i]->name));
	cJSON_AddNumberToObject(opts, "concurrency", env->hopts.concurrency);
	cJSON_AddNumberToObject(opts, "budget_tokens", (double)o->budget_tokens);
	if (o->budget_usd > 0)
		cJSON_AddNumberToObject(opts, "budget_usd", o->budget_usd);
	cJSON_AddNumberToObject(opts, "max_response", (double)env->hopts.max_response);
	cJSON_AddNumberToObject(opts, "tenants", env->ntenants);
	/* What else the judgement rests on: a rejudge runs the probes again with these. */
	cJSON_AddStringToObject(opts, "depth", probe_depth_name(o->depth));
	cJSON_AddNumberToObject(opts, "max_prompt_tokens", (double)o->max_prompt_tokens);
	cJSON_AddNumberToObject(opts, "timeout_ms", (double)env->hopts.timeout_ms);
	hex_encode(env->seed, sizeof env->seed, seed);
	cJSON_AddStringToObject(opts, "seed", seed);
	cJSON_AddStringToObject(opts, "rules", PROBE_RULES_VERSION);
	/* Whether leaked content and planted secrets could be sealed (cache-extract plants
	 * only then). */
	cJSON_AddBoolToObject(opts, "sealing", o->leak_seal_pk != NULL);
	cJSON_AddItemToObject(opts, "endpoint", replay_endpoint_json(env));
	plan_s = cJSON_PrintUnformatted(plan);
	names_s = cJSON_PrintUnformatted(names);
	opts_s = cJSON_PrintUnformatted(opts);
	now_iso(at);
	rc = db_begin(env->db, err);
	if (rc == 0)
		rc = db_write(env->db, err, &run_row, &env->run_id, "itttti" "t", env->ep.id, names_s, opts_s,
		    plan_s, env->av->actor, (int64_t)getpid(), at);
	if (rc == 0) {
		a = cJSON_CreateObject();
		cJSON_AddNumberToObject(a, "endpoint", (double)env->ep.id);
		cJSON_AddItemReferenceToObject(a, "probes", names);
		rc = audit_append(env->db, env->av->actor, "probe.start", "probe_run", env->run_id, a, err);
		cJSON_Delete(a);
	}
	if (rc == 0 && o->on_start != NULL)
		rc = o->on_start(o->on_start_arg, env->db, env->run_id, err);
	if (rc == 0)
		rc = db_commit(env->db, err);
	if (rc != 0)
		db_rollback(env->db);
	cJSON_Delete(names);
	cJSON_Delete(opts);
	free(plan_s);
	free(names_s);
	free(opts_s);
	return rc;
}

/* An honest partial verdict: the probes the budget left out (from index ran)
 * are recorded as not checked, beside those that were. */
static int
budget_left_out(struct probe_env *env, const struct probe *const *sel, int n, int ran,
    struct aerr *err)
{
	char checked[256] = "", budget[64];
	size_t len = 0;

	budget_words(env, budget, sizeof budget);
	for (int i = 0; i < ran - 1 && len < sizeof checked; i++)
		len += (size_t)snprintf(checked + len, sizeof checked - len, "%s%s", i ? ", " : "",
		    sel[i]->name);
	for (int i = ran; i < n; i++) {
		struct probe_outcome out;
		struct probe_plan pp = { 0 };
		int rc;

		memset(&out, 0, sizeof out);
		sel[i]->plan(env, &pp);
		outcome_set(&out, "inconclusive", "not checked: the %s ran out before "
		    "it (%s%s); it plans at most %lld input tokens", budget,
		    ran > 1 ? "checked before it: " : "nothing was checked before it",
		    ran > 1 ? checked : "", (long long)pp.tokens_in);
		rc = write_result(env, sel[i], &out, err);
		outcome_free(&out);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* How the run's probes went: how many ran, how many have a result, how many
 * of those ended in error and the first such one. */
struct run_tally {
	int ran, results, errored;
	char first_error[300];
};

/* One probe run and judged; *stop set when the run stopped under it
 * (interrupted, or evidence could not be recorded). */
static int
run_one(struct probe_env *env, const struct probe *p, int i, struct run_tally *t, int *stop,
    struct aerr *err)
{
	struct probe_outcome out;
	int64_t before = env->requests_done;
	int rc;

	memset(&out, 0, sizeof out);
	env->probe_name = p->name;
	env->probe_index = i;
	report_progress(env);
	out.echo_baseline = -1;
	p->run(env, &out);
	out.requests = env->requests_done - before;
	if ((p->traits & PROBE_MAKES_ECHO_BASELINE) && out.echo_baseline >= 0)
		env->echo_ok = out.echo_baseline;
	if (env->interrupted || env->fatal.code != 0) {
		outcome_free(&out);
		*stop = 1;
		return 0;
	}
	probe_judge(env, &out);
	t->results++;
	if (strcmp(out.verdict, "error") == 0 && t->errored++ == 0)
		snprintf(t->first_error, sizeof t->first_error, "%s: %s", p->name, out.reason);
	rc = write_result(env, p, &out, err);
	outcome_free(&out);
	return rc;
}

/* The selected probes in order, until the run is interrupted, fails or meets
 * its budget; once every request of a tenant was refused for authentication,
 * the probes left are recorded as not run, and why (failing fast). */
static int
run_probes(struct probe_env *env, const struct probe **sel, int n, struct run_tally *t,
    struct aerr *err)
{
	int stop = 0;

	for (t->ran = 0; t->ran < n && !env->interrupted && env->fatal.code == 0 && !env->budget_hit;
	    t->ran++) {
		int dead = auth_dead(env), rc;

		if (dead >= 0) {
			struct probe_outcome out;

			memset(&out, 0, sizeof out);
			outcome_set(&out, "error", "not run: every request of tenant '%s' was refused for "
			    "authentication (%s): check the credential", env->tenant_label[dead],
			    env->tenant_auth_msg[dead]);
			rc = write_result(env, sel[t->ran], &out, err);
			outcome_free(&out);
		} else {
			rc = run_one(env, sel[t->ran], t->ran, t, &stop, err);
		}
		if (rc != 0)
			return rc;
		if (stop)
			break;
	}
	return 0;
}

/* The status the run ends in, with env->fatal set where the run failed. */
static const char *
run_status(struct probe_env *env, const struct run_tally *t)
{
	int dead = auth_dead(env);

	if (env->fatal.code == 0 && dead >= 0)
		aerr_set(&env->fatal, AV_RUNTIME, "run %lld stopped: every request of tenant '%s' was "
		    "refused for authentication (%s): check the credential", (long long)env->run_id,
		    env->tenant_label[dead], env->tenant_auth_msg[dead]);
	/* A run whose every probe ended in error checked nothing: it failed, whatever it
	 * sent on the way ("error" is a run stopped by trouble of its own). */
	if (env->fatal.code == 0 && !env->interrupted && t->results > 0 && t->errored == t->results) {
		aerr_set(&env->fatal, AV_RUNTIME, "run %lld failed: every probe ended in error (%s)",
		    (long long)env->run_id, t->first_error);
		return "failed";
	}
	if (env->fatal.code != 0)
		return "error";
	if (env->interrupted)
		return "interrupted";
	return env->budget_hit ? "budget_exhausted" : "completed";
}

int
probe_run_endpoint(struct aivet *av, int64_t endpoint_id, const struct probe_opts *o,
    int64_t *run_id, struct aerr *err)
{
	const struct probe *sel[16];
	struct probe_env env;
	cJSON *plan = NULL, *cal = NULL;
	struct run_tally t = { 0 };
	int n, rc;

	*run_id = 0;
	if (select_probes(o, sel, &n, err) != 0)
		return err->code;
	order_for_budget(o, sel, n);
	if (env_init(&env, av, endpoint_id, o, 1, err) != 0) {
		env_free(&env);
		return err->code;
	}
	drop_engineless(o, &env.ep, sel, &n);
	plan = make_plan(&env, sel, n);
	env.requests_planned = (int64_t)cJSON_GetObjectItem(plan, "requests")->valuedouble;
	env.probe_count = n;
	if (run_start(&env, sel, n, plan, err) != 0)
		goto out;
	*run_id = env.run_id;
	if (needs_calibration(sel, n)) {
		cal = calibrate(&env);
		if (update_run(&env, "running", cal, err) != 0)
			goto out;
	}
	if (run_probes(&env, sel, n, &t, err) != 0)
		goto out;
	if (env.budget_hit && !env.interrupted && env.fatal.code == 0 && t.ran < n &&
	    budget_left_out(&env, sel, n, t.ran, err) != 0)
		goto out;
	if (update_run(&env, run_status(&env, &t), cal, err) != 0)
		goto out;
	if (env.fatal.code != 0)
		*err = env.fatal;
	else if (env.interrupted)
		aerr_set(err, AV_RUNTIME, "interrupted: run %lld stopped; its finished exchanges are "
		    "recorded", (long long)env.run_id);
out:
	rc = err->code;
	cJSON_Delete(plan);
	cJSON_Delete(cal);
	env_free(&env);
	return rc;
}

/* The probes of a recorded run judged again from its record (env->replay):
 * the calibration, then each probe as the run ran them, results kept in the
 * replay instead of written (probe-rejudge.c compares them). */
int
rejudge_probes(struct probe_env *env, const struct probe **sel, int n, cJSON **cal,
    struct aerr *err)
{
	struct run_tally t = { 0 };

	env->probe_count = n;
	if (needs_calibration(sel, n))
		*cal = calibrate(env);
	if (env->fatal.code == 0 && run_probes(env, sel, n, &t, err) != 0)
		return err->code;
	if (env->budget_hit && !env->interrupted && env->fatal.code == 0 && t.ran < n &&
	    budget_left_out(env, sel, n, t.ran, err) != 0)
		return err->code;
	if (env->fatal.code != 0)
		*err = env->fatal;
	return err->code;
}

/* ---- audit verify: a finding's severity is its code's ---- */

/* The registry (finding.c) fixes each code's severity, and the most a probe
 * may raise it to (its worst); the stored value is a copy for SQL to sort and
 * count by. A finding whose stored severity is outside the two (a trigger
 * planted before it was sealed, say), or whose code aivet never raises, is
 * named at the entry that sealed it. */
static int
finding_severity_check(struct db *db, struct audit_status *st, struct aerr *err)
{
	struct db_stmt *q = db_prepare(db, err, "SELECT id, code, severity FROM finding ORDER BY id", NULL);
	int rc;

	if (q == NULL)
		return AV_RUNTIME;
	while ((rc = db_step(q)) == DB_ROW) {
		const struct finding_info *fi = finding_lookup(col_text(q, 1));
		int64_t id = db_col_int64(q, 0), seq = 0;

		int rank = severity_rank(col_text(q, 2));

		if (fi != NULL && rank >= (int)fi->severity && rank <= (int)finding_worst(fi))
			continue;
		if (db_int(db, &seq, err, "SELECT min(seq) FROM audit_log WHERE object_type = 'finding' "
		    "AND object_id = ?", "i", id) < 0) {
			db_finalize(q);
			return err->code;
		}
		if (seq <= 0)
			seq = st->entries + 1;
		if (fi == NULL)
			audit_status_keep(st, seq, "finding %lld (audit entry %lld) has code %s, which aivet "
			    "never raises: not in the finding registry", (long long)id, (long long)seq,
			    col_text(q, 1));
		else if (finding_worst(fi) == fi->severity)
			audit_status_keep(st, seq, "finding %lld (audit entry %lld) is recorded as %s, but a "
			    "%s finding is %s (the finding registry)", (long long)id, (long long)seq,
			    col_text(q, 2), fi->code, severity_name(fi->severity));
		else
			audit_status_keep(st, seq, "finding %lld (audit entry %lld) is recorded as %s, but a "
			    "%s finding is %s to %s (the finding registry)", (long long)id, (long long)seq,
			    col_text(q, 2), fi->code, severity_name(fi->severity), severity_name(finding_worst(fi)));
		break;
	}
	db_finalize(q);
	return rc == DB_ROW || rc == DB_DONE ? 0 : db_err(db, err, "finding");
}

const struct audit_check finding_audit_check = { "finding severities", finding_severity_check };
