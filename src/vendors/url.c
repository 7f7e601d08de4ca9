/*
 * url.c: checks endpoint URLs with libcurl's URL parser. Only http(s) is
 * accepted, and plain http only to a loopback host unless the endpoint was
 * added with --allow-insecure-http: keys must not cross a network in clear.
 * A URL never carries a credential (user:password@, ?key=..., #access_token=,
 * a key as a path segment or a host label): URLs are stored, audited and exported, so a
 * secret in one would be kept forever.
 */
#include "config.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "aivet/vendors.h"

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

/*
 * A secret in a URL, by a general rule rather than a list of places. Every
 * name and value of the query and the fragment, and every path segment, is
 * percent-decoded and then judged: a name is a credential's when, lower-cased
 * with its punctuation dropped, it is one of the names APIs and clouds give
 * keys, tokens and signatures (key, apikey, token, sig, code, ...) or ends as
 * one does (subscription-key, X-Amz-Security-Token, client_secret); a value is
 * a credential's when it is shaped like one: a vendor's key prefix (sk-,
 * AKIA..., AIza..., ghp_, xoxb-, ...), a bearer or basic scheme, a JWT, or a
 * long high-entropy run of base64 characters. Model names, versions, hex
 * account ids and UUIDs are none of these.
 */
static int
secret_name(const char *raw)
{
	static const char *const exact[] = {
		"key", "apikey", "token", "bearer", "auth", "authorization", "sig", "signature",
		"password", "passwd", "pwd", "pass", "secret", "code", "credential", "credentials",
		"jwt", "sas", "session", "sessionid", "apiauth", "xamzsignature", "xgoogsignature",
		"xamzcredential", "xgoogcredential", NULL
	};
	static const char *const suffix[] = {
		"key", "token", "secret", "password", "signature", "credential", "authorization", NULL
	};
	char n[128];
	size_t len = 0;

	for (const char *p = raw; *p != '\0' && len < sizeof n - 1; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			n[len++] = *p;
		else if (*p >= 'A' && *p <= 'Z')
			n[len++] = (char)(*p - 'A' + 'a');
	n[len] = '\0';
	for (int i = 0; exact[i] != NULL; i++)
		if (strcmp(n, exact[i]) == 0)
			return 1;
	for (int i = 0; suffix[i] != NULL; i++) {
		size_t k = strlen(suffix[i]);

		if (len > k && strcmp(n + len - k, suffix[i]) == 0)
			return 1;
	}
	return 0;
}

/* Bits per character of s[0..n) (Shannon). */
static double
entropy(const char *s, size_t n)
{
	int count[256] = { 0 };
	double h = 0;

	for (size_t i = 0; i < n; i++)
		count[(unsigned char)s[i]]++;
	for (int c = 0; c < 256; c++)
		if (count[c] > 0)
			h -= (double)count[c] / (double)n * log2((double)count[c] / (double)n);
	return h;
}

/* A run of base64 characters of 24 or more with upper case, lower case and
 * digits mixed at random: a key, a signature, a SAS token. Hex (account ids,
 * digests) and UUIDs have no mixed case, model names short words. */
static int
high_entropy_run(const char *v)
{
	const char *set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_";

	for (const char *p = v; *p != '\0'; ) {
		size_t n = strspn(p, set);
		int up = 0, lo = 0, dig = 0;

		for (size_t i = 0; i < n; i++) {
			up |= p[i] >= 'A' && p[i] <= 'Z';
			lo |= p[i] >= 'a' && p[i] <= 'z';
			dig |= p[i] >= '0' && p[i] <= '9';
		}
		if (n >= 24 && up && lo && dig && entropy(p, n) >= 3.5)
			return 1;
		p += n;
		if (*p != '\0')
			p++;
	}
	return 0;
}

static int
secret_value(const char *v)
{
	/* Prefixes vendors give their keys and tokens (with the length after them). */
	static const struct { const char *prefix; size_t min; } keys[] = {
		{ "sk-", 4 }, { "sk_", 4 }, { "rk_", 8 }, { "pk_live_", 8 }, { "AKIA", 16 }, { "ASIA", 16 },
		{ "AIza", 30 }, { "ya29.", 16 }, { "ghp_", 20 }, { "gho_", 20 }, { "ghs_", 20 },
		{ "github_pat_", 20 }, { "glpat-", 16 }, { "xoxb-", 8 }, { "xoxp-", 8 }, { "xoxa-", 8 },
		{ "xoxs-", 8 }, { "hf_", 20 }, { "r8_", 20 }, { "gsk_", 20 }, { "pplx-", 20 },
		{ "sv=20", 4 }, { NULL, 0 }
	};

	for (int i = 0; keys[i].prefix != NULL; i++) {
		size_t k = strlen(keys[i].prefix);

		if (strncmp(v, keys[i].prefix, k) == 0 && strlen(v) >= k + keys[i].min)
			return 1;
	}
	if (strncasecmp(v, "bearer ", 7) == 0 || strncasecmp(v, "basic ", 6) == 0)
		return 1;
	/* A JWT: base64url of '{"' and three dot-separated parts. */
	if (strncmp(v, "eyJ", 3) == 0 && strchr(v, '.') != NULL)
		return 1;
	return high_entropy_run(v);
}

static char *
decode(const char *s, size_t n)
{
	int len = 0;
	char *d = curl_easy_unescape(NULL, s, (int)n, &len), *out;

	if (d == NULL)
		die("out of memory");
	/* '+' is a space in a form-encoded query; a NUL ends what is judged. */
	for (int i = 0; i < len; i++)
		if (d[i] == '+')
			d[i] = ' ';
	out = xstrdup(d);
	curl_free(d);
	return out;
}

/* True when a query or fragment ("a=b&c=d", raw) names or holds a secret. */
static int
pairs_have_secret(const char *q)
{
	while (*q != '\0') {
		size_t len = strcspn(q, "&;"), klen = strcspn(q, "=&;");
		char *name = decode(q, klen), *value = klen < len ? decode(q + klen + 1, len - klen - 1) : NULL;
		int bad = secret_name(name) || secret_value(name) || (value != NULL && secret_value(value));

		free(name);
		free(value);
		if (bad)
			return 1;
		q += len;
		if (*q != '\0')
			q++;
	}
	return 0;
}

static int
path_has_secret(const char *path)
{
	while (*path != '\0') {
		size_t len = strcspn(path, "/");
		char *seg = decode(path, len);
		int bad = secret_value(seg);

		free(seg);
		if (bad)
			return 1;
		path += len;
		if (*path != '\0')
			path++;
	}
	return 0;
}

/* A host whose label is shaped like a key (sk-proj-....example): the name
 * is stored, shown and looked up in DNS, where the key would leak too. */
static int
host_has_secret(const char *host)
{
	while (*host != '\0') {
		size_t len = strcspn(host, ".");
		char *label = xasprintf("%.*s", (int)len, host);
		int bad = secret_value(label);

		free(label);
		if (bad)
			return 1;
		host += len;
		if (*host != '\0')
			host++;
	}
	return 0;
}

enum { CRED_NONE, CRED_USERINFO, CRED_QUERY, CRED_FRAGMENT, CRED_PATH, CRED_HOST };

static int
credential_in(CURLU *u)
{
	char *user = NULL, *pass = NULL, *query = NULL, *frag = NULL, *path = NULL, *host = NULL;
	int rc = CRED_NONE;

	(void)curl_url_get(u, CURLUPART_USER, &user, 0);
	(void)curl_url_get(u, CURLUPART_PASSWORD, &pass, 0);
	(void)curl_url_get(u, CURLUPART_QUERY, &query, 0);
	(void)curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0);
	(void)curl_url_get(u, CURLUPART_PATH, &path, 0);
	(void)curl_url_get(u, CURLUPART_HOST, &host, 0);
	if (user != NULL || pass != NULL)
		rc = CRED_USERINFO;
	else if (host != NULL && host_has_secret(host))
		rc = CRED_HOST;
	else if (query != NULL && pairs_have_secret(query))
		rc = CRED_QUERY;
	else if (frag != NULL && (pairs_have_secret(frag) || secret_value(frag)))
		rc = CRED_FRAGMENT;
	else if (path != NULL && path_has_secret(path))
		rc = CRED_PATH;
	curl_free(user);
	curl_free(pass);
	curl_free(query);
	curl_free(frag);
	curl_free(path);
	curl_free(host);
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
	return url_check_as("--url", url, allow_insecure_http, err);
}

int
url_check_as(const char *opt, const char *url, int allow_insecure_http, struct aerr *err)
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

		rc = aerr_set(err, AV_USAGE, "%s: '%s' is not a valid URL", opt, shown);
		free(shown);
		goto out;
	}
	/* The URL is not echoed from here on: it may hold the secret. */
	if ((cred = credential_in(u)) != CRED_NONE) {
		static const char *const where[] = {
			[CRED_USERINFO] = "URL carries a user name or password (user:...@host)",
			[CRED_QUERY] = "URL's query carries a credential (key=, token=, sk-...)",
			[CRED_FRAGMENT] = "URL's fragment carries a credential (#key=, #access_token=, ...)",
			[CRED_PATH] = "URL's path carries a credential (a segment shaped like a key: "
			    "sk-..., a JWT, a long random token)",
			[CRED_HOST] = "URL's host name carries a credential (a label shaped like a key: "
			    "sk-..., a JWT, a long random token)",
		};

		rc = aerr_set(err, AV_USAGE, "%s: the %s; it was not stored. Give keys with "
		    "--credential LABEL=env:VAR or LABEL=file:PATH", opt, where[cred]);
	} else if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0) {
		char *shown = text_escape(url, strlen(url), 0);

		rc = aerr_set(err, AV_USAGE, "%s: '%s' is not an http(s) URL", opt, shown);
		free(shown);
	} else if (strcmp(scheme, "http") == 0 && !allow_insecure_http && !url_is_loopback_host(host)) {
		char *shown = text_escape(host, strlen(host), 0);

		rc = aerr_set(err, AV_USAGE, "%s: plain http to %s would send credentials "
		    "unencrypted; use https, or --allow-insecure-http if you really mean it", opt, shown);
		free(shown);
	}
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

/* The origin a credential is bound to, as libcurl parses it: scheme, host
 * (lower case), port (the scheme's default when none is written) and path
 * (without its trailing '/'). 0, or -1 when the URL does not parse. */
struct origin {
	char *scheme, *host, *port, *path;
};

static int
origin_parse(const char *url, struct origin *o)
{
	CURLU *u = curl_url();
	int rc = 0;

	memset(o, 0, sizeof *o);
	if (u == NULL)
		die("out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &o->scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &o->host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &o->port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &o->path, 0) != CURLUE_OK)
		rc = -1;
	else {
		size_t n = strlen(o->path);

		for (char *p = o->host; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		while (n > 0 && o->path[n - 1] == '/')
			o->path[--n] = '\0';
	}
	curl_url_cleanup(u);
	return rc;
}

static void
origin_free(struct origin *o)
{
	curl_free(o->scheme);
	curl_free(o->host);
	curl_free(o->port);
	curl_free(o->path);
}

int
url_within_origin(const char *url, const char *bound)
{
	struct origin a, b;
	int ok = 0, pa = origin_parse(url, &a), pb = origin_parse(bound, &b);

	if (pa == 0 && pb == 0) {
		size_t n = strlen(b.path);

		/* A path prefix ends at a segment: /v1 holds /v1/chat, not /v1evil. */
		ok = strcmp(a.scheme, b.scheme) == 0 && strcmp(a.host, b.host) == 0 &&
		    strcmp(a.port, b.port) == 0 && strncmp(a.path, b.path, n) == 0 &&
		    (a.path[n] == '\0' || a.path[n] == '/');
	}
	origin_free(&a);
	origin_free(&b);
	return ok;
}
