/*
 * incident-due.c: the notification clocks that need someone's attention now.
 * It gathers, across open incidents, every clock overdue or due within a
 * window, worst first, as one JSON document with a plain "text" summary that
 * chat webhooks (Slack, Teams) show as it is, and posts that document to
 * webhook URLs so a deadline reaches people rather than waiting to be looked
 * up.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "incident.h"
#include "zone.h"

struct due_row {
	int64_t incident, due_ms;
	char title[256];
	struct incident_clock copy;
};

static int
cmp_due(const void *a, const void *b)
{
	const struct due_row *x = a, *y = b;

	if (x->due_ms != y->due_ms)
		return x->due_ms < y->due_ms ? -1 : 1;
	if (x->incident != y->incident)
		return x->incident < y->incident ? -1 : 1;
	/* One incident's clocks due at once (HIPAA's individuals, HHS and media notices
	 * of a large breach) keep the order of the rules, whatever qsort does with equals. */
	return clock_index(x->copy.id) - clock_index(y->copy.id);
}

static void
add_row(struct due_row **rows, size_t *n, size_t *cap, int64_t id, const char *title,
    const struct incident_clock *c)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*rows = xrealloc(*rows, *cap * sizeof **rows);
	}
	(*rows)[*n].incident = id;
	(*rows)[*n].due_ms = c->due_ms;
	snprintf((*rows)[*n].title, sizeof (*rows)[*n].title, "%s", title);
	(*rows)[*n].copy = *c;
	(*n)++;
}

static cJSON *
row_json(const struct due_row *r, int64_t now)
{
	cJSON *o = cJSON_CreateObject();
	char due[32], left[32], text[64];
	int64_t ms = r->due_ms - now;

	fmt_time_ms(r->due_ms, due);
	fmt_duration(ms, left, sizeof left);
	cJSON_AddNumberToObject(o, "incident", (double)r->incident);
	cJSON_AddStringToObject(o, "title", r->title);
	cJSON_AddStringToObject(o, "clock", r->copy.id);
	cJSON_AddStringToObject(o, "clock_name", r->copy.name);
	cJSON_AddStringToObject(o, "state", ms < 0 ? "overdue" : "due");
	cJSON_AddStringToObject(o, "due", due);
	json_add_str(o, "due_date", r->copy.by_date[0] != '\0' ? r->copy.by_date : NULL);
	clock_due_text(&r->copy, text, sizeof text);
	cJSON_AddStringToObject(o, "due_text", text);
	if (org_zone() != NULL) {
		char org[64];

		fmt_time_zone(r->due_ms, org_zone(), org);
		cJSON_AddStringToObject(o, "due_org", org);
	} else {
		cJSON_AddNullToObject(o, "due_org");
	}
	/* Whole seconds, negative once passed: what a script compares. */
	cJSON_AddNumberToObject(o, "seconds_left", (double)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000)));
	if (ms < 0) {
		char neg[40];

		snprintf(neg, sizeof neg, "-%s", left);
		cJSON_AddStringToObject(o, "time_left", neg);
		cJSON_AddStringToObject(o, "overdue_by", left);
	} else {
		cJSON_AddStringToObject(o, "time_left", left);
	}
	return o;
}

static char *
due_text(const cJSON *list, int64_t within_ms)
{
	struct buf b;
	const cJSON *x;
	int n = cJSON_GetArraySize(list);
	char win[32];

	buf_init(&b);
	fmt_notice_time(within_ms / 1000, win, sizeof win);
	if (n == 0)
		buf_printf(&b, "aivet: no notification clock overdue or due within %s", win);
	else
		buf_printf(&b, "aivet: %d notification clock%s overdue or due within %s:", n,
		    n == 1 ? "" : "s", win);
	cJSON_ArrayForEach(x, list) {
		const char *state = cJSON_GetObjectItem(x, "state")->valuestring;
		int over = strcmp(state, "overdue") == 0;

		buf_printf(&b, "\n- incident %d \"%s\": %s (%s) %s %s, %s %s",
		    cJSON_GetObjectItem(x, "incident")->valueint,
		    cJSON_GetObjectItem(x, "title")->valuestring,
		    cJSON_GetObjectItem(x, "clock")->valuestring,
		    cJSON_GetObjectItem(x, "clock_name")->valuestring,
		    over ? "OVERDUE, was due" : "due", cJSON_GetObjectItem(x, "due_text")->valuestring,
		    over ? "overdue by" : "left",
		    cJSON_GetObjectItem(x, over ? "overdue_by" : "time_left")->valuestring);
	}
	return buf_steal(&b);
}

int
incident_due_report(struct db *db, int64_t now, int64_t within_ms, cJSON **out, struct aerr *err)
{
	struct due_row *rows = NULL;
	size_t n = 0, cap = 0;
	struct db_stmt *st;
	cJSON *doc, *list;
	char asof[32], *text;
	int rc = 0;

	*out = NULL;
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
				add_row(&rows, &n, &cap, id, col_text(st, 1), &clocks[i]);
		}
	}
	db_finalize(st);
	if (rc != 0) {
		free(rows);
		return rc;
	}
	if (n > 1)
		qsort(rows, n, sizeof *rows, cmp_due);
	doc = cJSON_CreateObject();
	fmt_time_ms(now, asof);
	list = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(list, row_json(&rows[i], now));
	free(rows);
	text = due_text(list, within_ms);
	cJSON_AddStringToObject(doc, "text", text);
	free(text);
	cJSON_AddStringToObject(doc, "as_of", asof);
	cJSON_AddNumberToObject(doc, "within_seconds", (double)(within_ms / 1000));
	cJSON_AddItemToObject(doc, "clocks", list);
	*out = doc;
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
incident_due_notify_body(const cJSON *doc)
{
	cJSON *post = cJSON_Duplicate(doc, 1);
	const char *text = json_get_str(doc, "text");
	char *safe = text_escape(text != NULL ? text : "", text != NULL ? strlen(text) : 0, 1), *body;
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
