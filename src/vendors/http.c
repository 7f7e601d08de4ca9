/*
 * http.c: the HTTP engine on libcurl's multi interface. A batch of requests
 * runs with at most `concurrency` in flight over kept-alive connections;
 * bodies are built just before sending and freed after, so memory follows
 * the requests in flight, not the batch. Responses are capped, redirects are
 * never followed (so a credential can never reach another origin), TLS is
 * always verified, and 429/503 answers are retried after their Retry-After
 * or a capped exponential backoff with jitter.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sodium.h>

#include "http.h"

struct http_engine {
	struct http_opts o;
	CURLM *multi;
};

enum job_state { JOB_PENDING, JOB_ACTIVE, JOB_WAITING, JOB_DONE };

struct job {
	enum job_state state;
	int attempt;
	int64_t not_before;
	CURL *h;
	struct http_req req;
	struct http_resp resp;
	size_t cap;
	char errbuf[CURL_ERROR_SIZE];
	struct timespec t0;           /* when the attempt was handed to curl */
};

void
http_opts_default(struct http_opts *o)
{
	memset(o, 0, sizeof *o);
	o->concurrency = 4;
	o->connect_timeout_ms = 10000;
	o->timeout_ms = 600000;
	o->low_speed_secs = 120;
	o->max_response = (size_t)8 << 20;
	o->max_retries = 4;
	o->backoff_base_ms = 500;
	o->backoff_max_ms = 30000;
}

void
http_req_header(struct http_req *r, const char *name, const char *value, int secret)
{
	char *line = xasprintf("%s: %s", name, value);
	struct curl_slist *l = curl_slist_append(r->headers, line);

	/* The line may hold a key: wipe our copy (curl keeps its own until freed). */
	sodium_memzero(line, strlen(line));
	free(line);
	if (l == NULL)
		die("out of memory");
	r->headers = l;
	if (r->rec_headers == NULL)
		r->rec_headers = cJSON_CreateObject();
	cJSON_AddStringToObject(r->rec_headers, name, secret ? "[redacted]" : value);
}

void
http_req_free(struct http_req *r)
{
	struct curl_slist *l;

	/* Header lines can carry keys: wipe them before they go back to malloc. */
	for (l = r->headers; l != NULL; l = l->next)
		sodium_memzero(l->data, strlen(l->data));
	curl_slist_free_all(r->headers);
	cJSON_Delete(r->rec_headers);
	free(r->url);
	free(r->body);
	if (r->userpwd != NULL) {
		sodium_memzero(r->userpwd, strlen(r->userpwd));
		free(r->userpwd);
	}
	free(r->aws_sigv4);
	if (r->src != NULL) {
		r->src->free(r->src->arg);
		free(r->src);
	}
	memset(r, 0, sizeof *r);
}

void
http_req_materialize(struct http_req *r)
{
	struct buf b;
	char chunk[16384];
	size_t n;

	if (r->src == NULL)
		return;
	buf_init(&b);
	buf_adds(&b, "");
	r->src->rewind(r->src->arg);
	while ((n = r->src->read(r->src->arg, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, n);
	r->src->free(r->src->arg);
	free(r->src);
	r->src = NULL;
	free(r->body);
	r->body = b.data;
	r->body_len = b.len;
}

void
http_resp_free(struct http_resp *r)
{
	cJSON_Delete(r->headers);
	buf_free(&r->body);
	memset(r, 0, sizeof *r);
}

const char *
http_resp_header(const struct http_resp *r, const char *lower_name)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(r->headers, lower_name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

struct http_engine *
http_engine_new(const struct http_opts *o)
{
	struct http_engine *e = xcalloc(1, sizeof *e);

	e->o = *o;
	if (e->o.concurrency < 1)
		e->o.concurrency = 1;
	e->multi = curl_multi_init();
	if (e->multi == NULL)
		die("curl_multi_init failed");
	return e;
}

void
http_engine_set_concurrency(struct http_engine *e, int n)
{
	e->o.concurrency = n < 1 ? 1 : n;
}

void
http_engine_free(struct http_engine *e)
{
	if (e == NULL)
		return;
	curl_multi_cleanup(e->multi);
	free(e);
}

static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct job *j = arg;
	size_t n = size * nmemb;

	if (j->resp.body.len + n > j->cap) {
		/* Keep what fits, then stop reading: a hostile server cannot make us buffer more. */
		buf_add(&j->resp.body, p, j->cap - j->resp.body.len);
		j->resp.truncated = 1;
		return 0;
	}
	buf_add(&j->resp.body, p, n);
	if (j->resp.t_first_byte_ms == 0 && n > 0) {
		/* Sub-millisecond, for timing probes: a streamed answer's first token. */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		j->resp.t_first_byte_ms = (double)(now.tv_sec - j->t0.tv_sec) * 1e3 +
		    (double)(now.tv_nsec - j->t0.tv_nsec) / 1e6;
	}
	return n;
}

static size_t
on_header(char *p, size_t size, size_t nmemb, void *arg)
{
	struct job *j = arg;
	size_t n = size * nmemb, k, v;
	char *name, *value;
	cJSON *old;

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* A new status line (after 100 Continue): headers start over. */
		cJSON_Delete(j->resp.headers);
		j->resp.headers = cJSON_CreateObject();
		return n;
	}
	for (k = 0; k < n && p[k] != ':'; k++)
		;
	if (k == 0 || k == n || j->resp.headers == NULL)
		return n;
	for (v = k + 1; v < n && (p[v] == ' ' || p[v] == '\t'); v++)
		;
	while (n > v && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	name = strndup(p, k);
	value = strndup(p + v, n - v);
	if (name == NULL || value == NULL)
		die("out of memory");
	for (char *c = name; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	old = cJSON_GetObjectItemCaseSensitive(j->resp.headers, name);
	if (cJSON_IsString(old)) {
		char *joined = xasprintf("%s, %s", old->valuestring, value);

		cJSON_ReplaceItemInObjectCaseSensitive(j->resp.headers, name, cJSON_CreateString(joined));
		free(joined);
	} else {
		cJSON_AddStringToObject(j->resp.headers, name, value);
	}
	free(name);
	free(value);
	return size * nmemb;
}

static long
parse_retry_after(const char *v)
{
	char *end;
	long s;
	time_t t;

	if (v == NULL)
		return -1;
	s = strtol(v, &end, 10);
	if (end != v && *end == '\0' && s >= 0)
		return s > 86400 ? 86400000L : s * 1000L;
	t = curl_getdate(v, NULL);
	if (t < 0)
		return -1;
	s = (long)((int64_t)t * 1000 - now_ms());
	return s < 0 ? 0 : s;
}

long
http_backoff_ms(const struct http_opts *o, const struct http_resp *resp, int attempt)
{
	long d;

	if (resp != NULL && resp->retry_after_ms >= 0) {
		d = resp->retry_after_ms;
	} else {
		d = o->backoff_base_ms;
		for (int i = 1; i < attempt && d < o->backoff_max_ms; i++)
			d *= 2;
	}
	if (d > o->backoff_max_ms)
		d = o->backoff_max_ms;
	/* Jitter up to a quarter more, so parallel clients do not retry in step. */
	if (d > 0)
		d += (long)randombytes_uniform((uint32_t)(d / 4 + 1));
	return d;
}

static size_t
on_upload(char *dst, size_t size, size_t nmemb, void *arg)
{
	struct http_body_src *src = arg;

	return src->read(src->arg, dst, size * nmemb);
}

/* libcurl rewinds an upload when it must send it again on a new connection. */
static int
on_upload_seek(void *arg, curl_off_t offset, int origin)
{
	struct http_body_src *src = arg;

	if (offset != 0 || origin != SEEK_SET)
		return CURL_SEEKFUNC_CANTSEEK;
	src->rewind(src->arg);
	return CURL_SEEKFUNC_OK;
}

static void
job_start(struct http_engine *e, struct job *j, size_t i)
{
	CURL *h = curl_easy_init();

	if (h == NULL)
		die("curl_easy_init failed");
	if (j->req.aws_sigv4 != NULL)
		http_req_materialize(&j->req);
	memset(&j->resp, 0, sizeof j->resp);
	j->resp.retry_after_ms = -1;
	j->resp.headers = cJSON_CreateObject();
	j->cap = e->o.max_response;
	j->errbuf[0] = '\0';
	now_iso(j->resp.started_at);
	curl_easy_setopt(h, CURLOPT_URL, j->req.url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (j->req.cainfo != NULL)   /* a private CA: verification stays on, against it */
		curl_easy_setopt(h, CURLOPT_CAINFO, j->req.cainfo);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, e->o.connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, e->o.timeout_ms);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, e->o.low_speed_secs);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, j->req.headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, j);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, j);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, j->errbuf);
	curl_easy_setopt(h, CURLOPT_PRIVATE, (void *)j);
	if (strcmp(j->req.method, "GET") == 0) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else if (j->req.src != NULL) {
		/* Every attempt sends the body from its first byte. */
		j->req.src->rewind(j->req.src->arg);
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_READFUNCTION, on_upload);
		curl_easy_setopt(h, CURLOPT_READDATA, j->req.src);
		curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_upload_seek);
		curl_easy_setopt(h, CURLOPT_SEEKDATA, j->req.src);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)j->req.body_len);
		if (strcmp(j->req.method, "POST") != 0)
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, j->req.method);
	} else {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, j->req.body ? j->req.body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)j->req.body_len);
		if (strcmp(j->req.method, "POST") != 0)
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, j->req.method);
	}
	if (j->req.aws_sigv4 != NULL) {
		curl_easy_setopt(h, CURLOPT_AWS_SIGV4, j->req.aws_sigv4);
		curl_easy_setopt(h, CURLOPT_USERPWD, j->req.userpwd);
	}
	(void)i;
	j->h = h;
	j->state = JOB_ACTIVE;
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	curl_multi_add_handle(e->multi, h);
}

static void
job_finish_resp(struct job *j, CURLcode cc)
{
	curl_off_t t;
	long status = 0;

	curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &status);
	j->resp.status = status;
	j->resp.curl_code = (int)cc;
	if (curl_easy_getinfo(j->h, CURLINFO_CONNECT_TIME_T, &t) == CURLE_OK)
		j->resp.t_connect_ms = (double)t / 1000.0;
	if (curl_easy_getinfo(j->h, CURLINFO_STARTTRANSFER_TIME_T, &t) == CURLE_OK)
		j->resp.t_ttfb_ms = (double)t / 1000.0;
	if (curl_easy_getinfo(j->h, CURLINFO_TOTAL_TIME_T, &t) == CURLE_OK)
		j->resp.t_total_ms = (double)t / 1000.0;
	if (j->resp.truncated)
		snprintf(j->resp.error, sizeof j->resp.error,
		    "response body exceeded the %zu-byte cap and was cut", j->cap);
	else if (cc != CURLE_OK)
		snprintf(j->resp.error, sizeof j->resp.error, "%s",
		    j->errbuf[0] ? j->errbuf : curl_easy_strerror(cc));
	j->resp.retry_after_ms = parse_retry_after(http_resp_header(&j->resp, "retry-after"));
}

static void
job_release(struct http_engine *e, struct job *j)
{
	if (j->h != NULL) {
		curl_multi_remove_handle(e->multi, j->h);
		curl_easy_cleanup(j->h);
		j->h = NULL;
	}
}

int
http_run(struct http_engine *e, size_t n, http_prepare_fn prepare, http_done_fn done,
    void *user, struct aerr *err)
{
	struct job *jobs = xcalloc(n ? n : 1, sizeof *jobs);
	size_t next = 0, remaining = n;
	int active = 0, rc = 0;

	while (remaining > 0) {
		int64_t now = now_ms(), wake = now + 200;
		CURLMsg *m;
		int left;

		if (e->o.cancel != NULL && *e->o.cancel) {
			rc = aerr_set(err, AV_RUNTIME, "interrupted");
			break;
		}
		/* Retries whose time has come go first, then new requests in order. */
		for (size_t i = 0; i < n && active < e->o.concurrency; i++) {
			if (jobs[i].state == JOB_WAITING && jobs[i].not_before <= now) {
				job_start(e, &jobs[i], i);
				active++;
			} else if (jobs[i].state == JOB_WAITING && jobs[i].not_before < wake) {
				wake = jobs[i].not_before;
			}
		}
		while (active < e->o.concurrency && next < n) {
			struct job *j = &jobs[next];

			j->req.method = "POST";
			if (prepare(user, next, &j->req) != 0) {
				http_req_free(&j->req);
				j->state = JOB_DONE;
				remaining--;
				next++;
				continue;
			}
			job_start(e, j, next);
			active++;
			next++;
		}
		if (active > 0) {
			int running;
			long wait = (long)(wake - now);

			curl_multi_perform(e->multi, &running);
			/* Wait only when nothing finished: a transfer done in this perform
			 * leaves no socket to wake the poll, which would sleep its full
			 * timeout (up to 200 ms) before the next request is started. */
			if (running >= active) {
				curl_multi_poll(e->multi, NULL, 0, (int)(wait < 1 ? 1 : wait), NULL);
				curl_multi_perform(e->multi, &running);
			}
		} else if (remaining > 0) {
			/* Only backoff waits are left: sleep until the first is due (or cancel). */
			long wait = (long)(wake - now);

			curl_multi_poll(e->multi, NULL, 0, (int)(wait < 1 ? 1 : wait), NULL);
		}
		while ((m = curl_multi_info_read(e->multi, &left)) != NULL) {
			struct job *j;
			size_t i;
			int retry;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&j);
			i = (size_t)(j - jobs);
			job_finish_resp(j, m->data.result);
			job_release(e, j);
			active--;
			retry = (j->resp.status == 429 || j->resp.status == 503) &&
			    j->attempt < e->o.max_retries &&
			    !(e->o.cancel != NULL && *e->o.cancel);
			done(user, i, &j->req, &j->resp, retry);
			if (retry) {
				j->attempt++;
				j->not_before = now_ms() + http_backoff_ms(&e->o, &j->resp, j->attempt);
				j->state = JOB_WAITING;
			} else {
				http_req_free(&j->req);
				j->state = JOB_DONE;
				remaining--;
			}
			http_resp_free(&j->resp);
		}
	}
	for (size_t i = 0; i < n; i++) {
		job_release(e, &jobs[i]);
		if (jobs[i].state != JOB_DONE)
			http_req_free(&jobs[i].req);
		if (jobs[i].state == JOB_ACTIVE)
			http_resp_free(&jobs[i].resp);
	}
	free(jobs);
	return rc;
}
