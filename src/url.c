/*
 * url.c: checks endpoint URLs with libcurl's URL parser. Only http(s) is
 * accepted, and plain http only to a loopback host unless the endpoint was
 * added with --allow-insecure-http: keys must not cross a network in clear.
 * A URL never carries a credential (user:password@, ?key=...): URLs are
 * stored, audited and exported, so a secret in one would be kept forever.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "aivet.h"

/* Loopback is decided on the parsed address, never on the text: 127.0.0.1.2
 * is a DNS name that may resolve anywhere. */
int
url_is_loopback_host(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char buf[64];
	size_t n = strlen(host);

	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof buf) {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		host = buf;
	}
	return inet_pton(AF_INET6, host, &a6) == 1 && memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
}

/* Query parameter names that carry a secret in the APIs aivet talks to. */
static int
secret_param(const char *name, size_t n)
{
	static const char *const names[] = {
		"key", "api_key", "api-key", "apikey", "x-api-key", "access_token", "token", "auth",
		"secret", "client_secret", "password", "sig", "signature", "code", NULL
	};

	for (int i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], name, n) == 0)
			return 1;
	return 0;
}

/* True when the query string (raw, still percent-encoded) names a secret
 * parameter or has a value that looks like an API key. */
static int
query_has_secret(const char *q)
{
	while (*q != '\0') {
		size_t len = strcspn(q, "&;"), klen = strcspn(q, "=&;");
		char *v = NULL;

		if (secret_param(q, klen))
			return 1;
		if (klen < len) {
			int vlen = 0;

			v = curl_easy_unescape(NULL, q + klen + 1, (int)(len - klen - 1), &vlen);
			if (v != NULL && (strncmp(v, "sk-", 3) == 0 || strncmp(v, "Bearer ", 7) == 0)) {
				curl_free(v);
				return 1;
			}
			curl_free(v);
		}
		q += len;
		if (*q != '\0')
			q++;
	}
	return 0;
}

/* 1 for user:password@, 2 for a credential in the query, 0 for none. */
static int
credential_in(CURLU *u)
{
	char *user = NULL, *pass = NULL, *query = NULL;
	int rc = 0;

	(void)curl_url_get(u, CURLUPART_USER, &user, 0);
	(void)curl_url_get(u, CURLUPART_PASSWORD, &pass, 0);
	(void)curl_url_get(u, CURLUPART_QUERY, &query, 0);
	if (user != NULL || pass != NULL)
		rc = 1;
	else if (query != NULL && query_has_secret(query))
		rc = 2;
	curl_free(user);
	curl_free(pass);
	curl_free(query);
	return rc;
}

int
url_has_credential(const char *url)
{
	CURLU *u = curl_url();
	int rc;

	if (u == NULL)
		die("out of memory");
	rc = curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK ? credential_in(u) != 0 : 0;
	curl_url_cleanup(u);
	return rc;
}

int
url_check(const char *url, int allow_insecure_http, struct aerr *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int rc = 0, cred;

	if (u == NULL)
		die("out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		char *shown = text_escape(url, strlen(url), 0);

		rc = aerr_set(err, AV_USAGE, "--url: '%s' is not a valid URL", shown);
		free(shown);
		goto out;
	}
	/* The URL is not echoed from here on: it may hold the secret. */
	if ((cred = credential_in(u)) == 1) {
		rc = aerr_set(err, AV_USAGE, "--url: the URL carries a user name or password "
		    "(user:...@host); it was not stored. Give keys with --credential LABEL=env:VAR "
		    "or LABEL=file:PATH");
	} else if (cred == 2) {
		rc = aerr_set(err, AV_USAGE, "--url: the URL's query carries a credential (key=, "
		    "token=, sk-...); it was not stored. Give keys with --credential LABEL=env:VAR "
		    "or LABEL=file:PATH");
	} else if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0) {
		char *shown = text_escape(url, strlen(url), 0);

		rc = aerr_set(err, AV_USAGE, "--url: '%s' is not an http(s) URL", shown);
		free(shown);
	} else if (strcmp(scheme, "http") == 0 && !allow_insecure_http && !url_is_loopback_host(host)) {
		char *shown = text_escape(host, strlen(host), 0);

		rc = aerr_set(err, AV_USAGE, "--url: plain http to %s would send credentials "
		    "unencrypted; use https, or --allow-insecure-http if you really mean it", shown);
		free(shown);
	}
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}
