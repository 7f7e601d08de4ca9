/*
 * url.c: checks endpoint URLs with libcurl's URL parser. Only http(s) is
 * accepted, and plain http only to a loopback host unless the endpoint was
 * added with --allow-insecure-http: keys must not cross a network in clear.
 */
#include "config.h"

#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "aivet.h"

int
url_is_loopback_host(const char *host)
{
	if (strcasecmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 ||
	    strcmp(host, "[::1]") == 0)
		return 1;
	return strncmp(host, "127.", 4) == 0 && strspn(host, "0123456789.") == strlen(host);
}

int
url_check(const char *url, int allow_insecure_http, struct aerr *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int rc = 0;

	if (u == NULL)
		die("out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = aerr_set(err, AV_USAGE, "--url: '%s' is not a valid URL", url);
	} else if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0) {
		rc = aerr_set(err, AV_USAGE, "--url: '%s' is not an http(s) URL", url);
	} else if (strcmp(scheme, "http") == 0 && !allow_insecure_http && !url_is_loopback_host(host)) {
		rc = aerr_set(err, AV_USAGE, "--url: plain http to %s would send credentials "
		    "unencrypted; use https, or --allow-insecure-http if you really mean it", host);
	}
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}
