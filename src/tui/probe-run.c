/*
 * tui/probe-run.c: one probe run — each probe with its verdict as a symbol
 * and a word (ok pass, X fail, ? inconclusive, ! error: colour is never the
 * only signal), the sweep's boundaries beside the advertised context, and
 * under each probe its findings. Enter on a finding (or v) opens the
 * evidence behind it; Enter on a probe shows it in words (reason, findings in
 * full with what the vendor should do, its details as an outline); J shows the
 * selected probe or finding as raw JSON. The selected row is also shown whole
 * above the list, wrapped, as rows are cut at the screen's edge.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/incident.h"
#include "aivet/probe.h"
#include "tui.h"

/* List ids: a finding's id, or minus the probe's row number. */
struct run_state {
	int64_t run_id;
	struct probe_run run;
	struct tui_list list;
	char summary[2][300];
	int head;   /* rows above the list at the last draw */
};

static const enum request run_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_EVIDENCE, REQ_INCIDENT, REQ_RAW, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

#define HEAD 3

static int
run_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct run_state *s = xcalloc(1, sizeof *s);

	s->run_id = *(const int64_t *)arg;
	s->head = HEAD;
	v->state = s;
	(void)t, (void)err;
	return 0;
}

static const char *
symbol(const char *verdict, int *mark)
{
	if (strcmp(verdict, "pass") == 0)
		return *mark = TUI_MARK_GOOD, "\xe2\x9c\x93";   /* check mark */
	if (strcmp(verdict, "fail") == 0)
		return *mark = TUI_MARK_BAD, "\xe2\x9c\x97";    /* ballot x */
	if (strcmp(verdict, "error") == 0)
		return *mark = TUI_MARK_BAD, "!";
	return *mark = TUI_MARK_WARN, "?";
}

/* The sweep's boundaries beside the advertised context, under its row. */
static void
add_sweep(struct tui_list *l, int64_t k, const struct sweep_bounds *d)
{
	const char *change = d->change ? d->change : "?";
	char a[32], b[32], c[32];

	/* A boundary is named only where a search found it: at verify depth none
	 * is searched, and "the top" is said only when nothing changed below it. */
	if (d->depth && strcmp(d->depth, "verify") == 0)
		tui_list_add(l, -k, TUI_MARK_NONE, "    advertised %s; %s at the top; "
		    "boundaries are searched at diagnose depth", thousands(d->advertised, a), change);
	else
		tui_list_add(l, -k, TUI_MARK_NONE, "    advertised %s; intact up to %s; "
		    "accepted up to %s; %s", thousands(d->advertised, a),
		    d->has_integrity_boundary ? thousands(d->integrity_boundary, b) :
		    strcmp(change, "none") == 0 ? "the top" : "-",
		    d->has_refusal_boundary ? thousands(d->refusal_boundary, c) :
		    strcmp(change, "visible_refusal") != 0 ? "the top" : "-", change);
}

/* What to run next, planned now as "probe show" plans it: advice on the screen, never
 * in the record. One row a line, not selectable. */
static void
add_next_steps(struct tui *t, struct tui_list *l, const struct probe_run *run)
{
	struct buf b;
	char *line, *save = NULL;

	buf_init(&b);
	probe_next_steps(t->av, run, &b);
	if (b.len > 0)
		tui_list_add(l, 0, TUI_MARK_NONE, "%s", "");
	for (line = b.len > 0 ? strtok_r(b.data, "\n", &save) : NULL; line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		tui_list_add(l, 0, TUI_MARK_DIM, "  %s", line);
	buf_free(&b);
}

static int
run_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct run_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->list);
	struct probe_run run;
	char a[32], b[32], billed[160];

	if (probe_run_get(t->av->db, s->run_id, &run, err) != 0)
		return err->code;
	probe_run_free(&s->run);
	s->run = run;
	snprintf(s->summary[0], sizeof s->summary[0], "Run %d on %s: %s, %s tokens in, %s out",
	    (int)run.id, run.endpoint, run.status, thousands(run.tokens_in, a), thousands(run.tokens_out, b));
	/* What the vendor billed, in the words "probe show" uses. */
	if (!probe_billed_text(&run, billed, sizeof billed))
		snprintf(billed, sizeof billed, "nothing billed yet");
	snprintf(s->summary[1], sizeof s->summary[1], "Started %s; calibration %s; %s", run.started_at,
	    run.calib.present ? (run.calib.method ? run.calib.method : "(null)") : "none", billed);
	tui_list_clear(&s->list);
	snprintf(s->list.header, sizeof s->list.header, "  %-12s %-13s %s", "PROBE", "VERDICT",
	    "REASON / FINDINGS");
	for (size_t i = 0; i < run.nprobes; i++) {
		const struct probe_result *p = &run.probes[i];
		int64_t k = (int64_t)i + 1;
		int mark;
		const char *sym = symbol(p->verdict, &mark);
		/* A reason may quote the vendor's reply: shown escaped. */
		char *why = p->reason ? text_escape(p->reason, strlen(p->reason), 0) : xstrdup("");

		tui_list_add(&s->list, -k, mark, "%s %-12s %-13s %s", sym, p->name, p->verdict, why);
		free(why);
		if (p->sweep.present)
			add_sweep(&s->list, k, &p->sweep);
		for (size_t j = 0; j < p->nfindings; j++) {
			const struct finding *f = &p->findings[j];
			int r = severity_rank(f->severity);
			char *msg = text_escape(f->message, strlen(f->message), 0);

			tui_list_add(&s->list, f->id, r >= severity_rank("high") ? TUI_MARK_BAD :
			    r >= severity_rank("low") ? TUI_MARK_WARN : TUI_MARK_DIM, "    %-8s %s: %s",
			    f->severity, f->code, msg);
			free(msg);
		}
	}
	add_next_steps(t, &s->list, &run);
	tui_list_restore(&s->list, keep);
	return 0;
}

/* The selected finding, or NULL when a probe row is selected. */
static const struct finding *
selected_finding(struct run_state *s)
{
	int64_t id = tui_list_selected_id(&s->list);

	return id > 0 ? probe_run_finding(&s->run, id) : NULL;
}

/* The probe of row id -k, or NULL. */
static const struct probe_result *
probe_of_row(struct run_state *s, int64_t id)
{
	return id < 0 && (size_t)-id <= s->run.nprobes ? &s->run.probes[-id - 1] : NULL;
}

/* Columns a UTF-8 text takes (its symbols are one column each). */
static int
text_cols(const char *p)
{
	int n = 0;

	for (; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	return n;
}

/* Word-wraps text into at most maxlines rows from row y; returns the rows used. */
static int
put_wrapped(WINDOW *w, int y, int x, int width, int maxlines, const char *p)
{
	int lines = 0;

	while (*p && lines < maxlines && width > 10) {
		int cut = (int)strlen(p);
		char *one;

		if (text_cols(p) > width) {
			int b = 0;

			/* width columns in bytes, then back to a space */
			for (int c = 0; p[b] && c < width; c++)
				for (b++; ((unsigned char)p[b] & 0xc0) == 0x80; b++)
					;
			cut = b;
			for (int c = b; c > b / 2; c--)
				if (p[c] == ' ') {
					cut = c;
					break;
				}
		}
		one = strndup(p, (size_t)cut);
		tui_put(w, y + lines++, x, width, one);
		free(one);
		p += cut;
		while (*p == ' ')
			p++;
	}
	return lines;
}

static void
run_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct run_state *s = v->state;
	const struct finding *f = selected_finding(s);
	int y = 0;

	/* The summary wraps rather than cut: what the vendor billed ends the line. */
	y += put_wrapped(w, y, 2, cols - 2, 2, s->summary[0]);
	y += put_wrapped(w, y, 2, cols - 2, 2, s->summary[1]);
	if (s->list.nvis > 0) {
		/* The selected row whole when the list cuts it at the edge. */
		const char *row = s->list.rows[s->list.vis[s->list.sel]];

		if (text_cols(row) > cols - 2) {
			while (*row == ' ')
				row++;
			wattron(w, A_BOLD);
			y += put_wrapped(w, y, 2, cols - 3, 3, row);
			wattroff(w, A_BOLD);
		}
	}
	if (f != NULL) {
		/* What the registry says of the selected finding; a critical one is where an
		 * incident starts: offer it. */
		const struct finding_info *fi = finding_lookup(f->code);
		int critical = severity_rank(f->severity) == SEV_CRITICAL;
		char *line = xasprintf("%s%s%s%s", critical ? "!! critical finding: i opens an incident from it" : "",
		    critical && fi ? ". " : "", fi ? "the vendor should: " : "", fi ? fi->remedy : "");

		wattron(w, tui_attr(t, critical ? TUI_MARK_BAD : TUI_MARK_WARN));
		y += put_wrapped(w, y, 2, cols - 3, 3, line);
		wattroff(w, tui_attr(t, critical ? TUI_MARK_BAD : TUI_MARK_WARN));
		free(line);
	}
	s->head = y + 1 > HEAD ? y + 1 : HEAD;   /* a blank row between the whole text and the list */
	if (rows > s->head)
		tui_list_draw(&s->list, t, w, s->head, rows - s->head, cols);
}

/* Opens an incident from the selected finding, as `incident open --from-finding`. */
static int
open_incident(struct tui *t, struct run_state *s, struct aerr *err)
{
	const struct finding *f = selected_finding(s);
	const char *endpoint = s->run.endpoint;
	struct incident_open_input in;
	char title[300], *vendor;
	struct incident_opened opened;
	int64_t id;
	int rc;

	if (f == NULL)
		return aerr_set(err, AV_USAGE, "select a finding to open an incident from it");
	snprintf(title, sizeof title, "%s on %s", f->code, endpoint);
	if (!tui_prompt(t, "Incident title", title, title, sizeof title) || title[0] == '\0')
		return 0;
	vendor = strndup(endpoint, strcspn(endpoint, "/"));
	in = (struct incident_open_input){ .vendor = vendor, .title = title, .endpoint = endpoint,
		.from_finding = f->id };
	rc = incident_open(t->av, &in, &id, &opened, err);
	if (rc == 0) {
		tui_changed(t);
		tui_status(t, 0, "incident %lld opened for vendor %s (discovered %s)", (long long)id,
		    vendor, opened.discovered);
		rc = tui_push(t, &tui_incident_view, &id, err);
	}
	free(vendor);
	return rc;
}

/* The probe in words: what Enter on a probe row shows (J shows the JSON). */
static int
show_probe(struct tui *t, const struct probe_result *p, struct aerr *err)
{
	char title[96];
	struct buf b;
	int rc;

	buf_init(&b);
	buf_printf(&b, "Probe %s: %s\n", p->name, p->verdict);
	if (p->reason)
		buf_printf(&b, "Reason: %s\n", p->reason);
	buf_printf(&b, "Requests: %d\n", (int)p->requests);
	if (p->nfindings > 0)
		buf_adds(&b, "\nFindings (Enter or v on one in the run shows its evidence)\n");
	for (size_t i = 0; i < p->nfindings; i++) {
		const struct finding *f = &p->findings[i];
		const struct finding_info *fi = finding_lookup(f->code);

		buf_printf(&b, "  %s %s (finding %d): %s\n", f->severity, f->code, (int)f->id, f->message);
		if (fi != NULL)
			buf_printf(&b, "    the vendor should: %s\n", fi->remedy);
		buf_adds(&b, "    evidence");
		for (size_t e = 0; e < f->nevidence; e++)
			buf_printf(&b, " %d", (int)f->evidence[e]);
		buf_adds(&b, "\n");
	}
	/* The probe's own document, whatever its shape, as an outline. */
	if (cJSON_IsObject(p->details)) {
		buf_adds(&b, "\nDetails\n");
		tui_json_outline(&b, p->details, 1);
	}
	buf_add(&b, "", 0);
	snprintf(title, sizeof title, "Probe %s", p->name);
	rc = tui_show_text(t, title, b.data, err);
	buf_free(&b);
	return rc;
}

/* The selected probe (row id -k) or finding, as raw JSON: as "probe show --json" writes it. */
static int
show_raw(struct tui *t, struct run_state *s, int64_t id, struct aerr *err)
{
	const struct probe_result *p = probe_of_row(s, id);
	const struct finding *f = id > 0 ? selected_finding(s) : NULL;
	cJSON *o = f ? finding_to_json(f) : p ? probe_result_to_json(p) : NULL;
	char title[96], *text;
	int rc;

	if (o == NULL)
		return 0;
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (id > 0)
		snprintf(title, sizeof title, "Finding %lld as JSON", (long long)id);
	else
		snprintf(title, sizeof title, "Probe %s as JSON", p->name);
	rc = tui_show_text(t, title, text, err);
	free(text);
	return rc;
}

static int
run_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct run_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->list);

	if (tui_list_request(&s->list, t, req, v->content_rows - s->head - 1))
		return 0;
	if (req == REQ_INCIDENT)
		return open_incident(t, s, err);
	if (req == REQ_RAW)
		return show_raw(t, s, id, err);
	if (req != REQ_ENTER && req != REQ_EVIDENCE)
		return 0;
	if (id > 0)
		return tui_push(t, &tui_evidence_view, &id, err);
	if (probe_of_row(s, id) != NULL && req == REQ_ENTER)
		return show_probe(t, probe_of_row(s, id), err);
	return aerr_set(err, AV_USAGE, "select a finding to see its evidence");
}

static void
run_close(struct view *v)
{
	struct run_state *s = v->state;

	tui_list_free(&s->list);
	probe_run_free(&s->run);
	free(s);
}

static void
run_title(struct view *v, char *buf, size_t n)
{
	snprintf(buf, n, "Probe run %lld", (long long)((struct run_state *)v->state)->run_id);
}

static void
run_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct run_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->list, row - s->head);
	if (dbl && run_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_probe_run_view = {
	"probe run", run_requests, run_open, run_load, run_draw, run_request, run_close, run_title,
	run_click, NULL
};
