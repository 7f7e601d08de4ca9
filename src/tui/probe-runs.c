/*
 * tui/probe-runs.c: an endpoint's probe runs, and running them. Above the runs
 * stands the plan of the next one, made by probe_plan_endpoint() and worded by
 * probe_plan_text(), as "probe run --dry-run" makes and prints it; p chooses
 * its depth and budget. r asks, then runs every probe in a job thread with its
 * own database connection; the progress line follows each request and x stops
 * the run cleanly (it is then marked interrupted). After the run the status
 * line gives what the vendor billed, in USD as "probe show" gives it. Enter
 * opens a run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/probe.h"
#include "aivet/run-query.h"
#include "tui.h"

struct runs_state {
	int64_t endpoint_id;
	char ref[300];
	struct tui_list list;
	struct probe_opts next;       /* the next run's depth and budget */
	char *plan;                   /* its plan as --dry-run words it, or why there is none */
	int head;                     /* rows above the list at the last draw */
};

/* What the job thread needs; lives until the job is reaped. */
struct run_job {
	struct tui_job job;
	struct aivet av;              /* a copy with its own connection */
	int64_t endpoint_id, run_id;
	struct probe_opts o;
};

static struct run_job running;   /* one job at a time, as the framework allows */

static const enum request runs_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_RUN, REQ_PLAN, REQ_CANCEL_JOB, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
runs_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct runs_state *s = xcalloc(1, sizeof *s);

	v->state = s;
	s->endpoint_id = *(const int64_t *)arg;
	s->next.depth = PROBE_VERIFY;   /* the command's default, so the two plans agree */
	s->head = 2;
	return endpoint_ref(t->av->db, s->endpoint_id, s->ref, sizeof s->ref, err);
}

/* The next run's plan in the command's words; where none can be made (no
 * credentials, a USD budget without prices), why. */
static void
make_plan(struct runs_state *s, struct tui *t)
{
	struct aerr err = { 0 };
	cJSON *plan;
	struct buf b;

	buf_init(&b);
	if (probe_plan_endpoint(t->av, s->endpoint_id, &s->next, &plan, &err) == 0) {
		probe_plan_text(&b, plan);
		cJSON_Delete(plan);
	} else
		buf_printf(&b, "no plan: %s\n", err.msg);
	free(s->plan);
	s->plan = buf_steal(&b);
}

static int
runs_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct runs_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->list);
	struct run_query q = { .endpoint_id = s->endpoint_id, .newest_first = 1, .verdicts = 1,
		.queued = 1 };
	struct probe_run_list runs;

	if (probe_run_list_load(t->av->db, &q, &runs, err) != 0)
		return err->code;
	tui_list_clear(&s->list);
	snprintf(s->list.header, sizeof s->list.header, "%-5s %-24s %-17s %-9s %-9s %s", "RUN",
	    "STARTED", "STATUS", "FINDINGS", "WORST", "VERDICTS");
	for (size_t i = 0; i < runs.n; i++) {
		const struct probe_run *o = &runs.items[i];
		const char *worst = o->worst ? o->worst : "-";
		int sev = severity_rank(worst);

		if (o->id == 0) {   /* queued for a worker: no run yet (an id below 0 opens nothing) */
			tui_list_add(&s->list, -o->queue_id, TUI_MARK_DIM, "%-5s %-24s %-17s %-9s %-9s "
			    "entry %lld%s%s", "-", o->started_at, o->status, "-", "-", (long long)o->queue_id,
			    o->worker ? ", worker " : "", o->worker ? o->worker : "");
			continue;
		}
		tui_list_add(&s->list, o->id, sev >= severity_rank("high") ? TUI_MARK_BAD :
		    sev >= severity_rank("low") ? TUI_MARK_WARN : TUI_MARK_GOOD,
		    "%-5lld %-24s %-17s %-9d %-9s %s%s%s%s%s", (long long)o->id, o->started_at, o->status,
		    (int)o->findings, worst, o->verdicts, o->worker ? "  worker " : "", o->worker ? o->worker : "",
		    o->lease_until ? ", lease until " : "", o->lease_until ? o->lease_until : "");
	}
	probe_run_list_free(&runs);
	tui_list_restore(&s->list, keep);
	make_plan(s, t);
	return 0;
}

/* What the next run is set to, in the options "probe run" takes. */
static void
settings_text(const struct probe_opts *o, char *out, size_t n)
{
	char a[32];

	if (o->budget_usd > 0)
		snprintf(out, n, "Next run: --depth %s --budget-usd %.2f", probe_depth_name(o->depth),
		    o->budget_usd);
	else if (o->budget_tokens > 0)
		snprintf(out, n, "Next run: --depth %s --budget-tokens %s", probe_depth_name(o->depth),
		    thousands(o->budget_tokens, a));
	else
		snprintf(out, n, "Next run: --depth %s, no budget", probe_depth_name(o->depth));
}

static void
runs_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct runs_state *s = v->state;
	char line[400];
	const char *p = s->plan ? s->plan : "";
	int y = 2;

	snprintf(line, sizeof line, "Probe runs of %s (%d)   r runs, p sets depth and budget",
	    s->ref, s->list.n);
	tui_put(w, 0, 2, cols - 2, line);
	settings_text(&s->next, line, sizeof line);
	wattron(w, A_BOLD);
	tui_put(w, 1, 2, cols - 2, line);
	wattroff(w, A_BOLD);
	/* The plan whole, each line wrapped under its own indent rather than cut, leaving a
	 * few rows for the runs. */
	while (*p != '\0' && y < rows - 5) {
		size_t len = strcspn(p, "\n"), ind = strspn(p, " ");
		char *one = strndup(p + ind, len - ind), **lines;
		int nl = tui_wrap(one, cols - 5 - (int)ind, &lines);

		for (int i = 0; i < nl && y < rows - 5; i++)
			tui_put(w, y++, 2 + (int)ind + (i ? 2 : 0), cols - 4 - (int)ind, lines[i]);
		tui_wrap_free(lines, nl);
		free(one);
		p += len + (p[len] == '\n');
	}
	s->head = ++y;
	if (s->list.n == 0)
		tui_put(w, y, 2, cols - 2, "No runs yet.");
	else if (rows > y)
		tui_list_draw(&s->list, t, w, y, rows - y, cols);
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
	struct probe_opts o = rj->o;   /* the depth and budget the plan was shown for */
	int64_t findings = 0;
	char billed[160] = "";
	int rc;

	o.progress = on_progress;
	o.progress_arg = job;
	/* x sets job->cancel; sig_atomic_t is int, and the engine only reads the flag. */
	o.cancel = (volatile sig_atomic_t *)&job->cancel;
	rc = probe_run_endpoint(&rj->av, rj->endpoint_id, &o, &rj->run_id, err);
	if (rj->run_id > 0 && rj->av.db != NULL) {
		struct probe_run run;
		struct aerr e2 = { 0 };

		probe_run_findings(rj->av.db, rj->run_id, &findings, &e2);
		/* What the vendor billed, worded as "probe show" words it. */
		if (probe_run_get(rj->av.db, rj->run_id, &run, &e2) == 0) {
			probe_billed_text(&run, billed, sizeof billed);
			probe_run_free(&run);
		}
	}
	av_close(&rj->av);
	if (rc == 0)
		tui_job_progress(job, 1, "run %lld finished: %lld finding%s; %s", (long long)rj->run_id,
		    (long long)findings, findings == 1 ? "" : "s", billed[0] ? billed : "nothing billed");
	return rc;
}

static int
check_depth(const char *value, void *ctx, struct aerr *err)
{
	enum probe_depth d;

	(void)ctx;
	return probe_depth_parse(value, &d, err);
}

static int
check_tokens(const char *value, void *ctx, struct aerr *err)
{
	int64_t v;

	(void)ctx;
	return value[0] == '\0' ? 0 : parse_int_opt("budget in tokens", value, 1, INT64_C(1) << 50, &v,
	    err);
}

static int
check_usd(const char *value, void *ctx, struct aerr *err)
{
	char *end;
	double v;

	(void)ctx;
	if (value[0] == '\0')
		return 0;
	v = strtod(value, &end);
	if (end == value || *end != '\0' || !(v > 0) || v > 1e9)
		return aerr_set(err, AV_USAGE, "budget in USD: '%s' is not an amount in USD", value);
	return 0;
}

/* The settings are taken only when the plan can be made with them (a USD budget
 * needs the endpoint's prices): the form says why not and stays open. */
static int
plan_submit(struct tui_field *f, int n, void *ctx, struct aerr *err)
{
	struct tui *t = ((void **)ctx)[0];
	struct runs_state *s = ((void **)ctx)[1];
	struct probe_opts o = { 0 };
	cJSON *plan;

	(void)n;
	if (probe_depth_parse(f[0].value, &o.depth, err) != 0)
		return err->code;
	if (f[1].value[0] != '\0' && f[2].value[0] != '\0')
		return aerr_set(err, AV_USAGE, "a budget in tokens or in USD, not both");
	if (f[1].value[0] != '\0')
		o.budget_tokens = strtoll(f[1].value, NULL, 10);
	if (f[2].value[0] != '\0')
		o.budget_usd = strtod(f[2].value, NULL);
	if (probe_plan_endpoint(t->av, s->endpoint_id, &o, &plan, err) != 0)
		return err->code;
	cJSON_Delete(plan);
	s->next = o;
	return 0;
}

static int
set_plan(struct runs_state *s, struct tui *t)
{
	struct tui_field f[3] = {
		{ .label = "Depth", .check = check_depth,
		  .hint = "verify (the default: checks each claim) or diagnose (also locates the boundaries)" },
		{ .label = "Budget in tokens", .check = check_tokens,
		  .hint = "the run stops before sending more input and output tokens (empty: none)" },
		{ .label = "Budget in USD", .check = check_usd,
		  .hint = "the run stops before spending more at the endpoint's prices (empty: none)" },
	};
	void *ctx[2] = { t, s };

	snprintf(f[0].value, sizeof f[0].value, "%s", probe_depth_name(s->next.depth));
	if (s->next.budget_tokens > 0)
		snprintf(f[1].value, sizeof f[1].value, "%lld", (long long)s->next.budget_tokens);
	if (s->next.budget_usd > 0)
		snprintf(f[2].value, sizeof f[2].value, "%.2f", s->next.budget_usd);
	if (tui_form(t, "Next run", f, 3, plan_submit, ctx)) {
		make_plan(s, t);
		tui_status(t, 0, "the plan above is for depth %s", probe_depth_name(s->next.depth));
	}
	return 0;
}

static int
start_run(struct runs_state *s, struct tui *t, struct aerr *err)
{
	cJSON *plan;
	char a[32], b[32];
	int ok;

	if (t->job != NULL)
		return aerr_set(err, AV_USAGE, "another job is running; wait for it or stop it with x");
	/* The credential guard first: no cost question for a run that could not start. */
	if (probe_credentials_ready(t->av->db, t->av->actor, s->endpoint_id, err) != 0 ||
	    probe_plan_endpoint(t->av, s->endpoint_id, &s->next, &plan, err) != 0)
		return err->code;
	{
		struct run_plan rp;
		const char *depth = probe_depth_name(s->next.depth);

		run_plan_read(plan, &rp);
		/* With prices the cost is the question, in the figures of the plan shown above. */
		thousands(rp.requests, a);
		if (rp.has_cost_usd && rp.has_cost_usd_expected && rp.capped)
			ok = tui_confirm(t, "Send up to %s requests to %s at depth %s? USD %.2f expected, "
			    "%.2f at most (the budget; the whole plan %.2f)", a, s->ref, depth, rp.expected_usd,
			    rp.most_usd, rp.cost_usd);
		else if (rp.has_cost_usd && rp.has_cost_usd_expected)
			ok = tui_confirm(t, "Send up to %s requests to %s at depth %s? USD %.2f expected, "
			    "%.2f at most", a, s->ref, depth, rp.expected_usd, rp.most_usd);
		else if (rp.has_cost_usd)
			ok = tui_confirm(t, "Send up to %s requests to %s at depth %s? At most about USD %.2f",
			    a, s->ref, depth, rp.most_usd);
		else
			ok = tui_confirm(t, "Send up to %s requests and %s input tokens to %s at depth %s?", a,
			    thousands(rp.tokens_in, b), s->ref, depth);
		run_plan_free(&rp);
	}
	cJSON_Delete(plan);
	if (!ok)
		return 0;
	memset(&running, 0, sizeof running);
	running.av = *t->av;
	running.av.db = NULL;
	running.endpoint_id = s->endpoint_id;
	running.o = s->next;
	return tui_job_start(t, &running.job, run_work, &running, err);
}

static int
runs_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct runs_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);

	if (tui_list_request(&s->list, t, req, v->content_rows - s->head))
		return 0;
	switch (req) {
	case REQ_RUN:
		return start_run(s, t, err);
	case REQ_PLAN:
		return set_plan(s, t);
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
	free(s->plan);
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

	tui_list_click(&s->list, row - s->head);
	if (dbl && runs_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_probe_runs_view = {
	"probe runs", runs_requests, runs_open, runs_load, runs_draw, runs_request, runs_close,
	runs_title, runs_click, NULL
};
