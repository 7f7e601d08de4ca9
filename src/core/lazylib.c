/*
 * lazylib.c: libcurl, libpq and libxml2, loaded on first use. Linked
 * directly they and the 35 libraries they pull in (Kerberos, LDAP, TLS,
 * HTTP/2, ICU, C++, ...) were mapped and relocated at every start, a third of
 * what "aivet vendor list" spent at 10,000 vendors; most commands reach
 * neither the network, PostgreSQL nor a workbook. Each function aivet calls is defined here under its own name,
 * so the program links no reference to either library (the aivet binary is
 * linked with --as-needed and leaves them out), and calls through a pointer
 * that dlopen/dlsym fill the first time. A program that links the libraries
 * anyway (the unit tests) works the same: the library is then already mapped.
 */
#include "config.h"

/* The wrappers are functions: curl's type-checking macros would rename them. */
#define CURL_DISABLE_TYPECHECK 1

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* curl 8 made curl_url_get's handle const: the header's prototype is put
 * aside and the wrapper defined with its own (the same call either way). */
#define curl_url_get curl_url_get_declared
#include <curl/curl.h>
#undef curl_url_get
#include <libpq-fe.h>
#include <libxml/xmlreader.h>

#include "base.h"

struct lazylib {
	const char *soname;
	void *handle;
};

static struct lazylib lib_curl = { "libcurl.so.4", NULL };
static struct lazylib lib_pq = { "libpq.so.5", NULL };
static struct lazylib lib_xml = { "libxml2.so.2", NULL };

/* The address of name in lib, loading lib first; a library that cannot be
 * loaded ends the program with its name (the build found it, the system lost it). */
static void *
lazy_sym(struct lazylib *lib, const char *name)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE), *p;

	if (h == NULL) {
		/* dlopen is thread-safe and returns the same handle to every caller. */
		if ((h = dlopen(lib->soname, RTLD_NOW | RTLD_GLOBAL)) == NULL)
			die("cannot load %s: %s", lib->soname, dlerror());
		__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	}
	if ((p = dlsym(h, name)) == NULL)
		die("%s has no %s", lib->soname, name);
	return p;
}

/* Declares f, the library's own name, found once (a race only finds the
 * same pointer twice). */
#define LAZY_RESOLVE(lib, name, f) \
	static __typeof__(&name) lazy_fn; \
	__typeof__(&name) f = __atomic_load_n(&lazy_fn, __ATOMIC_ACQUIRE); \
	if (f == NULL) { \
		f = (__typeof__(&name))lazy_sym(&lib, #name); \
		__atomic_store_n(&lazy_fn, f, __ATOMIC_RELEASE); \
	}

/* Defines name with its prototype, calling the library's own. */
#define LAZY(lib, ret, name, params, args) \
	ret name params \
	{ \
		LAZY_RESOLVE(lib, name, f) \
		return f args; \
	}
/* The same for a function that returns nothing. */
#define LAZY_VOID(lib, name, params, args) \
	void name params \
	{ \
		LAZY_RESOLVE(lib, name, f) \
		f args; \
	}

/* ---- libcurl ---- */
LAZY(lib_curl, CURLcode, curl_global_init, (long flags), (flags))
LAZY(lib_curl, CURL *, curl_easy_init, (void), ())
LAZY(lib_curl, CURLcode, curl_easy_perform, (CURL *h), (h))
LAZY_VOID(lib_curl, curl_easy_cleanup, (CURL *h), (h))
LAZY(lib_curl, const char *, curl_easy_strerror, (CURLcode c), (c))
LAZY(lib_curl, char *, curl_easy_escape, (CURL *h, const char *s, int n), (h, s, n))
LAZY(lib_curl, char *, curl_easy_unescape, (CURL *h, const char *s, int n, int *outn), (h, s, n, outn))
LAZY_VOID(lib_curl, curl_free, (void *p), (p))
LAZY(lib_curl, time_t, curl_getdate, (const char *s, const time_t *unused), (s, unused))
LAZY(lib_curl, CURLM *, curl_multi_init, (void), ())
LAZY(lib_curl, CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *h), (m, h))
LAZY(lib_curl, CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h))
LAZY(lib_curl, CURLMcode, curl_multi_perform, (CURLM *m, int *running), (m, running))
LAZY(lib_curl, CURLMcode, curl_multi_cleanup, (CURLM *m), (m))
LAZY(lib_curl, CURLMsg *, curl_multi_info_read, (CURLM *m, int *left), (m, left))
LAZY(lib_curl, CURLMcode, curl_multi_poll, (CURLM *m, struct curl_waitfd extra[], unsigned int nextra,
    int timeout_ms, int *ret), (m, extra, nextra, timeout_ms, ret))
LAZY(lib_curl, struct curl_slist *, curl_slist_append, (struct curl_slist *l, const char *s), (l, s))
LAZY_VOID(lib_curl, curl_slist_free_all, (struct curl_slist *l), (l))
LAZY(lib_curl, CURLU *, curl_url, (void), ())
LAZY_VOID(lib_curl, curl_url_cleanup, (CURLU *u), (u))
CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags);
LAZY(lib_curl, CURLUcode, curl_url_get, (CURLU *u, CURLUPart what, char **part, unsigned int flags),
    (u, what, part, flags))
LAZY(lib_curl, CURLUcode, curl_url_set, (CURLU *u, CURLUPart what, const char *part, unsigned int flags),
    (u, what, part, flags))
LAZY(lib_curl, curl_version_info_data *, curl_version_info, (CURLversion v), (v))

/* The two variadic ones take one argument after the option: a long, a
 * curl_off_t, a pointer or a function pointer, each passed in one integer
 * register (the ABIs aivet builds for), so it is handed on as the widest. */
CURLcode
curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
	LAZY_RESOLVE(lib_curl, curl_easy_setopt, f)
	va_list ap;
	void *arg;

	va_start(ap, opt);
	/* Option numbers say the argument's type: below CURLOPTTYPE_OBJECTPOINT a long. */
	if (opt < CURLOPTTYPE_OBJECTPOINT) {
		long n = va_arg(ap, long);

		va_end(ap);
		return f(h, opt, n);
	}
	if (opt >= CURLOPTTYPE_OFF_T && opt < CURLOPTTYPE_BLOB) {
		curl_off_t n = va_arg(ap, curl_off_t);

		va_end(ap);
		return f(h, opt, n);
	}
	arg = va_arg(ap, void *);
	va_end(ap);
	return f(h, opt, arg);
}

CURLcode
curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	LAZY_RESOLVE(lib_curl, curl_easy_getinfo, f)
	va_list ap;
	void *out;

	va_start(ap, info);
	out = va_arg(ap, void *);   /* always where to write the answer */
	va_end(ap);
	return f(h, info, out);
}

/* ---- libpq ---- */
LAZY(lib_pq, PGconn *, PQconnectdb, (const char *conninfo), (conninfo))
LAZY(lib_pq, PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values,
    int expand_dbname), (keywords, values, expand_dbname))
LAZY(lib_pq, PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))
LAZY_VOID(lib_pq, PQconninfoFree, (PQconninfoOption *o), (o))
LAZY(lib_pq, char *, PQuser, (const PGconn *c), (c))
LAZY_VOID(lib_pq, PQfinish, (PGconn *c), (c))
LAZY(lib_pq, ConnStatusType, PQstatus, (const PGconn *c), (c))
LAZY(lib_pq, PGTransactionStatusType, PQtransactionStatus, (const PGconn *c), (c))
LAZY(lib_pq, char *, PQerrorMessage, (const PGconn *c), (c))
LAZY(lib_pq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *c, PQnoticeProcessor p, void *arg),
    (c, p, arg))
LAZY(lib_pq, PGresult *, PQexec, (PGconn *c, const char *q), (c, q))
LAZY(lib_pq, PGresult *, PQexecParams, (PGconn *c, const char *q, int n, const Oid *types,
    const char *const *values, const int *lengths, const int *formats, int result_format),
    (c, q, n, types, values, lengths, formats, result_format))
LAZY_VOID(lib_pq, PQclear, (PGresult *r), (r))
LAZY(lib_pq, ExecStatusType, PQresultStatus, (const PGresult *r), (r))
LAZY(lib_pq, char *, PQresultErrorField, (const PGresult *r, int code), (r, code))
LAZY(lib_pq, char *, PQcmdTuples, (PGresult *r), (r))
LAZY(lib_pq, int, PQntuples, (const PGresult *r), (r))
LAZY(lib_pq, int, PQnfields, (const PGresult *r), (r))
LAZY(lib_pq, char *, PQfname, (const PGresult *r, int i), (r, i))
LAZY(lib_pq, Oid, PQftype, (const PGresult *r, int i), (r, i))
LAZY(lib_pq, char *, PQgetvalue, (const PGresult *r, int row, int col), (r, row, col))
LAZY(lib_pq, int, PQgetisnull, (const PGresult *r, int row, int col), (r, row, col))
LAZY_VOID(lib_pq, PQfreemem, (void *p), (p))
LAZY(lib_pq, int, PQsocket, (const PGconn *c), (c))
LAZY(lib_pq, int, PQconsumeInput, (PGconn *c), (c))
LAZY(lib_pq, PGnotify *, PQnotifies, (PGconn *c), (c))
LAZY(lib_pq, unsigned char *, PQunescapeBytea, (const unsigned char *s, size_t *len), (s, len))

/* ---- libxml2 (reading workbooks) ---- */

/* xmlFree is a variable (a function pointer) the library exports: defined
 * here it takes no reference to the library; the first call loads it and
 * hands the string to the library's own. */
static void
xml_free_first(void *p)
{
	xmlFreeFunc *own = lazy_sym(&lib_xml, "xmlFree");

	(*own)(p);
}
xmlFreeFunc xmlFree = xml_free_first;

LAZY(lib_xml, xmlTextReaderPtr, xmlReaderForMemory, (const char *buf, int size, const char *url,
    const char *encoding, int options), (buf, size, url, encoding, options))
LAZY_VOID(lib_xml, xmlFreeTextReader, (xmlTextReaderPtr r), (r))
LAZY_VOID(lib_xml, xmlSetGenericErrorFunc, (void *ctx, xmlGenericErrorFunc handler), (ctx, handler))
LAZY_VOID(lib_xml, xmlTextReaderSetStructuredErrorHandler, (xmlTextReaderPtr r,
    xmlStructuredErrorFunc handler, void *arg), (r, handler, arg))
LAZY(lib_xml, int, xmlTextReaderRead, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderNodeType, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderGetParserLineNumber, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, const xmlChar *, xmlTextReaderConstLocalName, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, xmlChar *, xmlTextReaderReadString, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderMoveToElement, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderMoveToFirstAttribute, (xmlTextReaderPtr r), (r))
LAZY(lib_xml, int, xmlTextReaderMoveToNextAttribute, (xmlTextReaderPtr r), (r))
