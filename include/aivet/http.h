/*
 * http.h: the HTTP engine probes send through. It runs a batch of requests
 * on one libcurl multi handle with bounded concurrency and keep-alive,
 * retries 429/503 after Retry-After or a capped, jittered backoff, cuts
 * responses at a size cap, never follows redirects and always verifies TLS.
 */
#ifndef AIVET_HTTP_H
#define AIVET_HTTP_H

#include <signal.h>
#include <curl/curl.h>

#include "core.h"

/* A request body produced piece by piece while it is sent, so a large
 * generated prompt never exists whole in memory. */
struct http_body_src {
	size_t (*read)(void *arg, char *dst, size_t n);  /* up to n bytes; 0 at the end */
	void (*rewind)(void *arg);    /* back to the first byte (a retry sends it again) */
	void (*free)(void *arg);
	void *arg;
};

/* One request. Headers go to curl as given; rec_headers is the copy kept as
 * evidence, with every credential-bearing value replaced by "[redacted]". */
struct http_req {
	char *url;
	const char *method;           /* "POST" or "GET" */
	struct curl_slist *headers;
	cJSON *rec_headers;           /* object: name -> value, redacted */
	char *body;
	size_t body_len;              /* also the length of a streamed body */
	struct http_body_src *src;    /* a streamed body (body is NULL), or NULL */
	char body_sha256[65];         /* a streamed body's SHA-256, hex */
	char *userpwd;                /* SigV4 "KEYID:SECRET" (sodium memory is the caller's) */
	char *aws_sigv4;              /* "aws:amz:REGION:SERVICE" */
	const char *cainfo;           /* PEM file of CAs to trust instead of the system's, or NULL */
	/* A body made from a recipe is left streamed, unmeasured and unhashed (body_len 0):
	 * for a rejudge, which sends nothing and compares such a body by its recipe. */
	int by_recipe;
};

/* Adds a header; a secret one is recorded as "[redacted]". */
void http_req_header(struct http_req *r, const char *name, const char *value, int secret);
void http_req_free(struct http_req *r);
/* Reads a streamed body whole into req->body (SigV4 signs the payload, which
 * libcurl hashes from memory; a rebuilt request is compared whole). */
void http_req_materialize(struct http_req *r);

struct http_resp {
	long status;                  /* 0 when no response arrived */
	cJSON *headers;               /* object: lower-case name -> value */
	struct buf body;
	int truncated;                /* the body hit the size cap and was cut */
	int curl_code;
	char error[256];              /* transport error, "" when none */
	double t_connect_ms, t_ttfb_ms, t_total_ms;  /* milliseconds, to the microsecond */
	double t_first_byte_ms;       /* first body byte: time to first token when streaming */
	char started_at[32];
	long retry_after_ms;          /* from Retry-After, -1 when absent */
};
void http_resp_free(struct http_resp *r);
/* A response header's value, or NULL. */
const char *http_resp_header(const struct http_resp *r, const char *lower_name);

struct http_opts {
	int concurrency;              /* parallel requests, >= 1 */
	long connect_timeout_ms;
	long timeout_ms;              /* whole request */
	long low_speed_secs;          /* abort below 1 byte/s for this long */
	size_t max_response;          /* body cap in bytes */
	int max_retries;              /* extra attempts on 429/503 */
	long backoff_base_ms, backoff_max_ms;
	volatile sig_atomic_t *cancel; /* set to stop: in-flight requests are abandoned */
};
void http_opts_default(struct http_opts *o);

struct http_engine;
struct http_engine *http_engine_new(const struct http_opts *o);
void http_engine_free(struct http_engine *e);
/* Requests in flight at once for the next http_run (>= 1). */
void http_engine_set_concurrency(struct http_engine *e, int n);

/*
 * Runs n requests. prepare(user, i, req) builds request i just before it is
 * sent (so large bodies exist only while in flight); it returns 0 to send,
 * or non-zero to skip the request (budget spent). done(user, i, req, resp,
 * will_retry) is called for every attempt that got an answer or failed;
 * when will_retry is set, the engine sends request i again later.
 * Returns 0, or AV_RUNTIME with "interrupted" when the cancel flag was set.
 */
typedef int (*http_prepare_fn)(void *user, size_t i, struct http_req *req);
typedef void (*http_done_fn)(void *user, size_t i, const struct http_req *req,
    const struct http_resp *resp, int will_retry);
int http_run(struct http_engine *e, size_t n, http_prepare_fn prepare, http_done_fn done,
    void *user, struct aerr *err);

/* Delay before attempt number `attempt` (1-based retry count) after resp. */
long http_backoff_ms(const struct http_opts *o, const struct http_resp *resp, int attempt);

#endif
