/*
 * incident-due.c: the notification clocks that need someone's attention now.
 * It gathers, across open incidents, every clock overdue or due within a
 * window, worst first, as one report (struct due_report) with a plain text
 * summary that chat webhooks (Slack, Teams) show as it is; writes it as JSON
 * (the one writer "incident due --json" and the webhook body share) and posts
 * it to webhook URLs so a deadline reaches people rather than waiting to be
 * looked up.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "incident.h"
#include "zone.h"

static int
cmp_due(const void *a, const void *b)
{
	const struct due_clock *x = a, *y = b;

	if (x->due_ms != y->due_ms)
		return x->due_ms < y->due_ms ? -1 : 1;
	if (x->incident != y->incident)
		return x->incident < y->incident ? -1 : 1;
	/* One incident's clocks due at once (HIPAA's individuals, HHS and media notices
	 * of a large breach) keep the order of the rules, whatever qsort does with equals. */
	return clock_index(x->clock) - clock_index(y->clock);
}

static void
add_row(struct due_report *r, size_t *cap, int64_t id, const char *title,
    const struct incident_clock *c, int64_t now)
{
	struct due_clock *d;
	int64_t ms = c->due_ms - now;

	if (r->n == *cap)
		r->clocks = xrealloc(r->clocks, (*cap = *cap ? *cap * 2 : 16) * sizeof *r->clocks);
	d = &r->clocks[r->n++];
	memset(d, 0, sizeof *d);
	d->incident = id;
	d->title = xstrdup(title);
	d->clock = c->id;
	d->clock_name = c->name;
	d->state = ms < 0 ? "overdue" : "due";
	d->due_ms = c->due_ms;
	fmt_time_ms(c->due_ms, d->due);
	snprintf(d->due_date, sizeof d->due_date, "%s", c->by_date);
	snprintf(d->due_text, sizeof d->due_text, "%s", c->due_text);
	snprintf(d->due_org, sizeof d->due_org, "%s", c->due_org);
	d->seconds_left = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
	fmt_duration(ms, d->overdue_by, sizeof d->overdue_by);
	if (ms < 0) {
		snprintf(d->time_left, sizeof d->time_left, "-%s", d->overdue_by);
	} else {
		snprintf(d->time_left, sizeof d->time_left, "%s", d->overdue_by);
		d->overdue_by[0] = '\0';
	}
}

cJSON *
due_clock_to_json(const struct due_clock *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "incident", (double)d->incident);
	cJSON_AddStringToObject(o, "title", d->title);
	cJSON_AddStringToObject(o, "clock", d->clock);
	cJSON_AddStringToObject(o, "clock_name", d->clock_name);
	cJSON_AddStringToObject(o, "state", d->state);
	cJSON_AddStringToObject(o, "due", d->due);
	json_add_str(o, "due_date", d->due_date[0] != '\0' ? d->due_date : NULL);
	cJSON_AddStringToObject(o, "due_text", d->due_text);
	json_add_str(o, "due_org", d->due_org[0] != '\0' ? d->due_org : NULL);
	cJSON_AddNumberToObject(o, "seconds_left", (double)d->seconds_left);
	cJSON_AddStringToObject(o, "time_left", d->time_left);
	if (strcmp(d->state, "overdue") == 0)
		cJSON_AddStringToObject(o, "overdue_by", d->overdue_by);
	return o;
}

cJSON *
due_report_to_json(const struct due_report *r)
{
	cJSON *doc = cJSON_CreateObject(), *list;

	cJSON_AddStringToObject(doc, "text", r->text);
	cJSON_AddStringToObject(doc, "as_of", r->as_of);
	cJSON_AddNumberToObject(doc, "within_seconds", (double)r->within_seconds);
	list = cJSON_AddArrayToObject(doc, "clocks");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(list, due_clock_to_json(&r->clocks[i]));
	return doc;
}

void
due_report_free(struct due_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->clocks[i].title);
	free(r->clocks);
	free(r->text);
	memset(r, 0, sizeof *r);
}

static char *
due_text(const struct due_report *r)
{
	struct buf b;
	char win[32];

	buf_init(&b);
	fmt_notice_time(r->within_seconds, win, sizeof win);
	if (r->n == 0)
		buf_printf(&b, "aivet: no notification clock overdue or due within %s", win);
	else
		buf_printf(&b, "aivet: %d notification clock%s overdue or due within %s:", (int)r->n,
		    r->n == 1 ? "" : "s", win);
	for (size_t i = 0; i < r->n; i++) {
		const struct due_clock *x = &r->clocks[i];
		int over = strcmp(x->state, "overdue") == 0;

		buf_printf(&b, "\n- incident %lld \"%s\": %s (%s) %s %s, %s %s", (long long)x->incident,
		    x->title, x->clock, x->clock_name, over ? "OVERDUE, was due" : "due", x->due_text,
		    over ? "overdue by" : "left", over ? x->overdue_by : x->time_left);
	}
	return buf_steal(&b);
}

int
incident_due_report(struct db *db, int64_t now, int64_t within_ms, struct due_report *out,
    struct aerr *err)
{
	struct db_stmt *st;
	size_t cap = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	st = db_prepare(db, err, "SELECT id, title FROM incident WHERE status <> 'closed' ORDER BY id", "");
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		struct incident_facts f;
		struct incident_clock clocks[CLOCK_COUNT];
		int64_t id = db_col_int64(st, 0);

		if ((rc = incident_clocks(db, id, &f, clocks, err)) != 0)
			break;
		for (int i = 0; i < CLOCK_COUNT; i++) {
			const char *state = clock_state(&clocks[i], now);

			if (strcmp(state, "overdue") == 0 ||
			    (strcmp(state, "running") == 0 && clocks[i].due_ms - now <= within_ms))
				add_row(out, &cap, id, col_text(st, 1), &clocks[i], now);
		}
	}
	db_finalize(st);
	if (rc != 0) {
		due_report_free(out);
		return rc;
	}
	if (out->n > 1)
		qsort(out->clocks, out->n, sizeof *out->clocks, cmp_due);
	fmt_time_ms(now, out->as_of);
	out->within_seconds = within_ms / 1000;
	out->text = due_text(out);
	return 0;
}

static size_t
discard(char *p, size_t size, size_t nmemb, void *arg)
{
	(void)p;
	(void)arg;
	return size * nmemb;
}

/*
 * A webhook URL is a secret (Slack and Teams put the token in the path or
 * query), so messages name only its scheme, host and port. The list names
 * incidents: plain http is for loopback receivers only.
 */
int
incident_due_url_check(const char *url, char *shown, size_t n, struct aerr *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int rc = 0;

	if (u == NULL)
		die("out of memory");
	snprintf(shown, n, "(not a URL)");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = aerr_set(err, AV_USAGE, "--notify-url: not a valid URL");
		goto out;
	}
	(void)curl_url_get(u, CURLUPART_PORT, &port, 0);
	snprintf(shown, n, "%s://%s%s%s", scheme, host, port ? ":" : "", port ? port : "");
	if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0)
		rc = aerr_set(err, AV_USAGE, "--notify-url %s: not an http(s) URL", shown);
	else if (strcmp(scheme, "http") == 0 && !url_is_loopback_host(host))
		rc = aerr_set(err, AV_USAGE, "--notify-url %s: plain http would send the incident list "
		    "unencrypted; use https", shown);
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return rc;
}

char *
incident_due_notify_body(const struct due_report *r)
{
	cJSON *post = due_report_to_json(r);
	const char *text = r->text != NULL ? r->text : "";
	char *safe = text_escape(text, strlen(text), 1), *body;
	struct buf b;

	buf_init(&b);
	for (const char *p = safe; *p != '\0'; p++) {
		if (*p == '&')
			buf_adds(&b, "&amp;");
		else if (*p == '<')
			buf_adds(&b, "&lt;");
		else if (*p == '>')
			buf_adds(&b, "&gt;");
		else
			buf_add(&b, p, 1);
	}
	if (b.data == NULL)
		buf_add(&b, "", 0);
	free(safe);
	cJSON_ReplaceItemInObject(post, "text", cJSON_CreateString(b.data));
	buf_free(&b);
	if ((body = cJSON_PrintUnformatted(post)) == NULL)
		die("out of memory");
	cJSON_Delete(post);
	return body;
}

int
incident_due_notify(const char *url, const char *body, long *out_status, char *shown, size_t n,
    struct aerr *err)
{
	CURL *c;
	struct curl_slist *h;
	CURLcode cc;
	long status = 0;

	*out_status = 0;
	if (incident_due_url_check(url, shown, n, err) != 0)
		return err->code;
	if ((c = curl_easy_init()) == NULL)
		return aerr_set(err, AV_RUNTIME, "notify %s: cannot start libcurl", shown);
	h = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	/* A webhook that redirects is not the one configured: the list is not sent on. */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	/* curl's own error text may quote the URL: only its code's text is shown. */
	if (cc != CURLE_OK)
		return aerr_set(err, AV_RUNTIME, "notify %s: %s", shown, curl_easy_strerror(cc));
	*out_status = status;
	if (status < 200 || status > 299)
		return aerr_set(err, AV_RUNTIME, "notify %s: HTTP status %ld", shown, status);
	return 0;
}
