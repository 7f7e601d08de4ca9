/*
 * tui/probe-runs.c: an endpoint's probe runs, and running them. r shows the
 * plan and, once confirmed, runs every probe in a job thread with its own
 * database connection; the progress line follows each request and x stops
 * the run cleanly (it is then marked interrupted). Enter opens a run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "run-query.h"
#include "tui.h"

struct runs_state {
	int64_t endpoint_id;
	char ref[300];
	struct tui_list list;
};

/* What the job thread needs; lives until the job is reaped. */
struct run_job {
	struct tui_job job;
	struct aivet av;              /* a copy with its own connection */
	int64_t endpoint_id, run_id;
};

static struct run_job running;   /* one job at a time, as the framework allows */

static const enum request runs_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_RUN, REQ_CANCEL_JOB, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
runs_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct runs_state *s = xcalloc(1, sizeof *s);

	v->state = s;
	s->endpoint_id = *(const int64_t *)arg;
	return endpoint_ref(t->av->db, s->endpoint_id, s->ref, sizeof s->ref, err);
}

static int
runs_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct runs_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->list);
	struct run_query q = { .endpoint_id = s->endpoint_id, .newest_first = 1, .verdicts = 1 };
	cJSON *runs, *o;

	if (probe_runs_json(t->av->db, &q, &runs, err) != 0)
		return err->code;
	tui_list_clear(&s->list);
	snprintf(s->list.header, sizeof s->list.header, "%-5s %-24s %-17s %-9s %-9s %s", "RUN",
	    "STARTED", "STATUS", "FINDINGS", "WORST", "VERDICTS");
	cJSON_ArrayForEach(o, runs) {
		const char *worst = json_get_str(o, "worst") ? json_get_str(o, "worst") : "-";
		int sev = severity_rank(worst);

		tui_list_add(&s->list, (int64_t)cJSON_GetObjectItem(o, "id")->valuedouble,
		    sev >= severity_rank("high") ? TUI_MARK_BAD : sev >= severity_rank("low") ?
		    TUI_MARK_WARN : TUI_MARK_GOOD, "%-5lld %-24s %-17s %-9d %-9s %s",
		    (long long)cJSON_GetObjectItem(o, "id")->valuedouble, json_get_str(o, "started_at"),
		    json_get_str(o, "status"), cJSON_GetObjectItem(o, "findings")->valueint, worst,
		    json_get_str(o, "verdicts"));
	}
	cJSON_Delete(runs);
	tui_list_restore(&s->list, keep);
	return 0;
}

static void
runs_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct runs_state *s = v->state;
	char line[400];

	snprintf(line, sizeof line, "Probe runs of %s (%d)   r runs the probes, Enter opens a run",
	    s->ref, s->list.n);
	tui_put(w, 0, 2, cols - 2, line);
	if (s->list.n == 0)
		tui_put(w, 2, 2, cols - 2, "No runs yet.");
	else
		tui_list_draw(&s->list, t, w, 2, rows - 2, cols);
}

static void
on_progress(void *arg, const struct probe_progress *p)
{
	struct tui_job *job = arg;
	char tok[32];

	tui_job_progress(job, p->requests_planned > 0 ? (double)p->requests_done /
	    (double)p->requests_planned : -1, "%s: %lld/%lld requests, %s tokens", p->probe,
	    (long long)p->requests_done, (long long)p->requests_planned, thousands(p->tokens_used, tok));
}

static int
run_work(struct tui_job *job, void *arg, struct aerr *err)
{
	struct run_job *rj = arg;
	/* The TUI draws the sweep's boundaries: it runs at the depth that locates them. */
	struct probe_opts o = { .depth = PROBE_DIAGNOSE };
	int64_t findings = 0;
	int rc;

	o.progress = on_progress;
	o.progress_arg = job;
	/* x sets job->cancel; sig_atomic_t is int, and the engine only reads the flag. */
	o.cancel = (volatile sig_atomic_t *)&job->cancel;
	rc = probe_run_endpoint(&rj->av, rj->endpoint_id, &o, &rj->run_id, err);
	if (rj->run_id > 0 && rj->av.db != NULL)
		probe_run_findings(rj->av.db, rj->run_id, &findings, err);
	av_close(&rj->av);
	if (rc == 0)
		tui_job_progress(job, 1, "run %lld finished: %lld finding%s", (long long)rj->run_id,
		    (long long)findings, findings == 1 ? "" : "s");
	return rc;
}

static int
start_run(struct runs_state *s, struct tui *t, struct aerr *err)
{
	struct probe_opts o = { .depth = PROBE_DIAGNOSE };
	cJSON *plan;
	char a[32], b[32];
	int ok;

	if (t->job != NULL)
		return aerr_set(err, AV_USAGE, "another job is running; wait for it or stop it with x");
	if (probe_plan_endpoint(t->av, s->endpoint_id, &o, &plan, err) != 0)
		return err->code;
	{
		const cJSON *cost = cJSON_GetObjectItem(plan, "cost_usd");
		const cJSON *expected = cJSON_GetObjectItem(plan, "cost_usd_expected");

		/* With prices the cost is the question, in the figures probe run --dry-run
		 * gives: what a vendor as advertised bills, and what every request would. */
		thousands((int64_t)cJSON_GetObjectItem(plan, "requests")->valuedouble, a);
		if (cJSON_IsNumber(cost) && cJSON_IsNumber(expected))
			ok = tui_confirm(t, "Send up to %s requests to %s? USD %.2f expected, %.2f at most", a,
			    s->ref, expected->valuedouble, cost->valuedouble);
		else if (cJSON_IsNumber(cost))
			ok = tui_confirm(t, "Send up to %s requests to %s? At most about USD %.2f", a, s->ref,
			    cost->valuedouble);
		else
			ok = tui_confirm(t, "Send up to %s requests and %s input tokens to %s?", a,
			    thousands((int64_t)cJSON_GetObjectItem(plan, "tokens_in")->valuedouble, b), s->ref);
	}
	cJSON_Delete(plan);
	if (!ok)
		return 0;
	memset(&running, 0, sizeof running);
	running.av = *t->av;
	running.av.db = NULL;
	running.endpoint_id = s->endpoint_id;
	return tui_job_start(t, &running.job, run_work, &running, err);
}

static int
runs_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct runs_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);

	if (tui_list_request(&s->list, t, req, v->content_rows - 2))
		return 0;
	switch (req) {
	case REQ_RUN:
		return start_run(s, t, err);
	case REQ_ENTER:
		return id < 0 ? 0 : tui_push(t, &tui_probe_run_view, &id, err);
	default:
		return 0;
	}
}

static void
runs_close(struct view *v)
{
	struct runs_state *s = v->state;

	tui_list_free(&s->list);
	free(s);
}

static void
runs_title(struct view *v, char *buf, size_t n)
{
	snprintf(buf, n, "Probes %s", ((struct runs_state *)v->state)->ref);
}

static void
runs_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct runs_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->list, row - 2);
	if (dbl && runs_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_probe_runs_view = {
	"probe runs", runs_requests, runs_open, runs_load, runs_draw, runs_request, runs_close,
	runs_title, runs_click
};
