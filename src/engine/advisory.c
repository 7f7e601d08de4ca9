/*
 * advisory.c: advisories in OSV's format. aivet ships the ones it knows
 * (the files of advisories/, built in) and imports others (an OSV export for the
 * PyPI packages sglang and vllm, say) into the advisory table, each record
 * checked field by field before any is written, in one transaction with an
 * audit entry per record. The engine probe asks which advisories a node's
 * engine version falls in: ranges are evaluated as OSV defines them (events
 * sorted by version; introduced opens, fixed and limit close before the
 * version, last_affected after it), versions ordered as PEP 440 and SemVer
 * order them. A version that cannot be ordered is said so, never taken as
 * unaffected.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "aivet/core.h"
#include "advisory.h"


/* ---- versions ---- */

#define VER_PARTS 8

/* A version as an ordering key: epoch, release numbers, then the phase
 * (dev-only release, pre-release, release), the pre-release's kind and number,
 * the post number and the dev number. */
struct ver {
	long epoch;
	long rel[VER_PARTS];
	int nrel;
	int phase;                    /* 0 a dev release of no pre, 1 a pre-release, 2 a release */
	int pre_kind;                 /* 0 a/alpha, 1 b/beta, 2 rc/c/pre/preview */
	long pre_num, post, dev;      /* post -1 none; dev LONG_MAX none */
};

static int
take_num(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	*out = strtol(*p, &end, 10);
	if (*out < 0 || end - *p > 12)
		return -1;
	*p = end;
	return 0;
}

/* A word at *p (case-insensitive), then optional separators and a number. */
static int
take_tag(const char **p, const char *const *words, int *which, long *num)
{
	const char *s = *p;

	while (*s == '.' || *s == '-' || *s == '_')
		s++;
	for (int i = 0; words[i] != NULL; i++) {
		size_t n = strlen(words[i]);

		if (strncasecmp(s, words[i], n) != 0 || isalpha((unsigned char)s[n]))
			continue;
		s += n;
		while (*s == '.' || *s == '-' || *s == '_')
			s++;
		*num = 0;
		if (isdigit((unsigned char)*s) && take_num(&s, num) != 0)
			return 0;
		*which = i;
		*p = s;
		return 1;
	}
	return 0;
}

static int
ver_parse(const char *s, struct ver *v)
{
	static const char *const pre[] = { "alpha", "a", "beta", "b", "rc", "c", "preview", "pre", NULL };
	static const int pre_kind[] = { 0, 0, 1, 1, 2, 2, 2, 2 };
	static const char *const post[] = { "post", "rev", "r", NULL };
	static const char *const dev[] = { "dev", NULL };
	const char *p = s, *bang = strchr(s, '!');
	int w;
	long n;

	memset(v, 0, sizeof *v);
	v->post = -1;
	v->dev = -1;
	v->phase = 2;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == 'v' || *p == 'V')
		p++;
	if (bang != NULL) {
		if (take_num(&p, &v->epoch) != 0 || p != bang)
			return -1;
		p++;
	}
	do {
		if (v->nrel == VER_PARTS || take_num(&p, &v->rel[v->nrel++]) != 0)
			return -1;
	} while (*p == '.' && isdigit((unsigned char)p[1]) && p++);
	if (take_tag(&p, pre, &w, &n)) {
		v->phase = 1;
		v->pre_kind = pre_kind[w];
		v->pre_num = n;
	}
	if (take_tag(&p, post, &w, &n))
		v->post = n;
	else if (*p == '-' && isdigit((unsigned char)p[1])) {
		p++;               /* PEP 440's implicit post release: 1.0-1 */
		if (take_num(&p, &v->post) != 0)
			return -1;
	}
	if (take_tag(&p, dev, &w, &n)) {
		v->dev = n;
		if (v->phase == 2 && v->post < 0)
			v->phase = 0;
	}
	/* A local version (+ubuntu1) or SemVer build metadata (+sha) does not order. */
	if (*p == '+')
		p += strlen(p);
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0' ? 0 : -1;
}

static int
lcmp(long a, long b)
{
	return a < b ? -1 : a > b;
}

int
osv_version_cmp(const char *a, const char *b, int *cmp)
{
	struct ver x, y;
	int c;

	*cmp = 0;
	if (ver_parse(a, &x) != 0 || ver_parse(b, &y) != 0)
		return -1;
	if ((c = lcmp(x.epoch, y.epoch)) != 0)
		return *cmp = c, 0;
	for (int i = 0; i < VER_PARTS; i++)
		if ((c = lcmp(i < x.nrel ? x.rel[i] : 0, i < y.nrel ? y.rel[i] : 0)) != 0)
			return *cmp = c, 0;
	if ((c = lcmp(x.phase, y.phase)) != 0)
		return *cmp = c, 0;
	if (x.phase == 1 && ((c = lcmp(x.pre_kind, y.pre_kind)) != 0 ||
	    (c = lcmp(x.pre_num, y.pre_num)) != 0))
		return *cmp = c, 0;
	if ((c = lcmp(x.post, y.post)) != 0)
		return *cmp = c, 0;
	/* No dev part sorts after any dev part. */
	*cmp = lcmp(x.dev < 0 ? __LONG_MAX__ : x.dev, y.dev < 0 ? __LONG_MAX__ : y.dev);
	return 0;
}

/* ---- OSV records ---- */

static const char *const event_kinds[] = { "introduced", "fixed", "last_affected", "limit", NULL };

/* The one kind an event names, and its version; -1 when it names none or several. */
static int
event_of(const cJSON *ev, const char **version)
{
	int kind = -1;

	for (int k = 0; event_kinds[k] != NULL; k++) {
		const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, event_kinds[k]));

		if (s == NULL)
			continue;
		if (kind >= 0)
			return -1;
		kind = k;
		*version = s;
	}
	return kind;
}

/* PyPI names compare normalised (PEP 503): case, and runs of -_. as one -. */
static int
same_package(const char *a, const char *b)
{
	for (;;) {
		int sa = 0, sb = 0;

		while (*a == '-' || *a == '_' || *a == '.')
			a++, sa = 1;
		while (*b == '-' || *b == '_' || *b == '.')
			b++, sb = 1;
		if (sa != sb || tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (*a == '\0')
			return 1;
		a++, b++;
	}
}

struct osv_event {
	int kind;
	const char *v;
};

/* One range: 1 the version is in it, 0 not, -1 it cannot be ordered. Events are
 * sorted by version ("0" first), then walked: introduced at or below the version
 * opens, fixed and limit at or below close, last_affected below closes. */
static int
range_holds(const cJSON *range, const char *version, const char **fixed)
{
	struct osv_event e[ADVISORY_MAX_EVENTS];
	const cJSON *ev;
	int n = 0, in = 0, c;

	*fixed = NULL;
	cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(range, "events")) {
		if (n == ADVISORY_MAX_EVENTS || (e[n].kind = event_of(ev, &e[n].v)) < 0)
			return -1;
		if (strcmp(e[n].v, "0") != 0 && osv_version_cmp(e[n].v, version, &c) != 0)
			return -1;
		n++;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			int zero_j = strcmp(e[j].v, "0") == 0, zero_p = strcmp(e[j - 1].v, "0") == 0;

			if (zero_j && !zero_p)
				c = -1;
			else if (zero_j || zero_p)
				c = zero_p ? 1 : -1;
			else
				osv_version_cmp(e[j].v, e[j - 1].v, &c);
			if (c >= 0)
				break;
			{
				struct osv_event t = e[j];

				e[j] = e[j - 1];
				e[j - 1] = t;
			}
		}
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i].v, "0") == 0)
			c = 1;
		else
			osv_version_cmp(version, e[i].v, &c);
		if (e[i].kind == 0 && c >= 0)
			in = 1;
		else if ((e[i].kind == 1 || e[i].kind == 3) && c >= 0)
			in = 0;
		else if (e[i].kind == 2 && c > 0)
			in = 0;
	}
	for (int i = 0; i < n && in && *fixed == NULL; i++) {
		if (e[i].kind != 1)
			continue;
		osv_version_cmp(version, e[i].v, &c);
		if (c < 0)
			*fixed = e[i].v;
	}
	return in;
}

int
osv_affects(const cJSON *doc, const char *package, const char *version, const char **fixed)
{
	const cJSON *a, *r, *v;
	int named = 0, ordered = 0, c;

	*fixed = NULL;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(doc, "affected")) {
		const char *name = json_get_str(cJSON_GetObjectItemCaseSensitive(a, "package"), "name");

		if (name == NULL || !same_package(name, package))
			continue;
		named = 1;
		cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(a, "versions"))
			if (cJSON_IsString(v) && osv_version_cmp(v->valuestring, version, &c) == 0) {
				ordered = 1;
				if (c == 0)
					return 1;
			}
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(a, "ranges")) {
			const char *type = json_get_str(r, "type");
			int h;

			/* A GIT range orders commits, not released versions. */
			if (type == NULL || strcmp(type, "GIT") == 0)
				continue;
			if ((h = range_holds(r, version, fixed)) < 0)
				continue;
			ordered = 1;
			if (h == 1)
				return 1;
		}
	}
	*fixed = NULL;
	return named && !ordered ? -1 : 0;
}

/* Where a field is, for a message: "affected[0].ranges[1].events[2]". */
static int
field_err(struct aerr *err, const char *what, const char *field, const char *msg)
{
	return aerr_set(err, AV_USAGE, "%s: %s: %s", what, field, msg);
}

static int
check_ranges(const cJSON *a, int ai, const char *what, struct aerr *err)
{
	const cJSON *r = NULL, *ev;
	char f[96];
	int ri = 0, ei, c;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(a, "ranges")) {
		const char *type = json_get_str(r, "type"), *ver;
		const cJSON *events = cJSON_GetObjectItemCaseSensitive(r, "events");

		snprintf(f, sizeof f, "affected[%d].ranges[%d]", ai, ri);
		if (type == NULL || (strcmp(type, "SEMVER") != 0 && strcmp(type, "ECOSYSTEM") != 0 &&
		    strcmp(type, "GIT") != 0))
			return field_err(err, what, f, "type must be SEMVER, ECOSYSTEM or GIT");
		if (!cJSON_IsArray(events) || cJSON_GetArraySize(events) == 0)
			return field_err(err, what, f, "events must be a non-empty array");
		if (cJSON_GetArraySize(events) > ADVISORY_MAX_EVENTS)
			return field_err(err, what, f, "more than 256 events");
		ei = 0;
		cJSON_ArrayForEach(ev, events) {
			snprintf(f, sizeof f, "affected[%d].ranges[%d].events[%d]", ai, ri, ei);
			if (event_of(ev, &ver) < 0)
				return field_err(err, what, f, "an event names exactly one of introduced, fixed, "
				    "last_affected or limit, as a string");
			if (strcmp(type, "GIT") != 0 && strcmp(ver, "0") != 0 &&
			    osv_version_cmp(ver, ver, &c) != 0)
				return aerr_set(err, AV_USAGE, "%s: %s: '%s' is not a version aivet can order",
				    what, f, ver);
			ei++;
		}
		ri++;
	}
	return 0;
}

int
osv_check(const cJSON *doc, const char *what, struct aerr *err)
{
	const cJSON *a, *aff = cJSON_GetObjectItemCaseSensitive(doc, "affected");
	const char *id = json_get_str(doc, "id"), *mod = json_get_str(doc, "modified");
	char f[64];
	int64_t ms;
	struct aerr te = { 0 };
	int ai = 0;

	if (!cJSON_IsObject(doc))
		return aerr_set(err, AV_USAGE, "%s: not an OSV record (a JSON object)", what);
	if (id == NULL || *id == '\0' || strlen(id) > 128)
		return field_err(err, what, "id", "a string of 1 to 128 characters is needed");
	/* RFC 3339: a date and a time, never a word parse_time would also take. */
	if (mod == NULL || strlen(mod) < 20 || mod[4] != '-' || mod[10] != 'T' ||
	    parse_time(mod, &ms, &te) != 0)
		return field_err(err, what, "modified", "an RFC 3339 time is needed");
	if (!cJSON_IsArray(aff) || cJSON_GetArraySize(aff) == 0)
		return field_err(err, what, "affected", "a non-empty array is needed");
	cJSON_ArrayForEach(a, aff) {
		const cJSON *pkg = cJSON_GetObjectItemCaseSensitive(a, "package");

		snprintf(f, sizeof f, "affected[%d].package", ai);
		if (json_get_str(pkg, "name") == NULL || json_get_str(pkg, "ecosystem") == NULL)
			return field_err(err, what, f, "name and ecosystem are needed");
		if (check_ranges(a, ai, what, err) != 0)
			return err->code;
		ai++;
	}
	return 0;
}

/* ---- the advisories known: built in, then imported ---- */

/* Calls fn for each advisory: the built-in ones, then the latest imported version of each
 * id (an imported record of a built-in id stands in its place). Without a database (a
 * rejudge from a bundle), the built-in ones alone. */
typedef int (*advisory_fn)(void *arg, const cJSON *doc, const char *source, struct aerr *err);

static int
builtin_each(advisory_fn fn, void *arg, struct aerr *err)
{
	int rc = 0;

	for (const struct embedded_file *f = embedded_advisories; f->name != NULL && rc == 0; f++) {
		cJSON *d = cJSON_ParseWithLength((const char *)f->data, f->len);

		rc = fn(arg, d, "built in", err);
		cJSON_Delete(d);
	}
	return rc;
}

static int
advisory_each(struct db *db, advisory_fn fn, void *arg, struct aerr *err)
{
	struct db_stmt *st;
	int rc = 0;

	if (db == NULL)
		return builtin_each(fn, arg, err);
	st = db_prepare(db, err, "SELECT a.document, a.source, a.osv_id FROM advisory a WHERE a.id = "
	    "(SELECT b.id FROM advisory b WHERE b.osv_id = a.osv_id ORDER BY b.modified DESC, b.id DESC "
	    "LIMIT 1) ORDER BY a.osv_id", NULL);
	if (st == NULL)
		return err->code;
	for (const struct embedded_file *f = embedded_advisories; f->name != NULL && rc == 0; f++) {
		cJSON *d = cJSON_ParseWithLength((const char *)f->data, f->len);
		int replaced = 0;
		struct db_stmt *q = db_prepare(db, err, "SELECT count(*) FROM advisory WHERE osv_id = ?",
		    "t", json_get_str(d, "id"));

		if (q == NULL) {
			cJSON_Delete(d);
			rc = err->code;
			break;
		}
		if (db_step(q) == DB_ROW)
			replaced = db_col_int(q, 0) > 0;
		db_finalize(q);
		if (!replaced)
			rc = fn(arg, d, "built in", err);
		cJSON_Delete(d);
	}
	while (rc == 0 && db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 0));

		rc = fn(arg, d, col_text(st, 1), err);
		cJSON_Delete(d);
	}
	db_finalize(st);
	return rc;
}

struct affecting {
	const char *package, *version;
	cJSON *hits;
	int comparable;
};

static int
affecting_one(void *arg, const cJSON *doc, const char *source, struct aerr *err)
{
	struct affecting *a = arg;
	const char *fixed;
	int r = osv_affects(doc, a->package, a->version, &fixed);
	cJSON *h;

	(void)err;
	/* A withdrawn record (OSV's "withdrawn": the time it was) affects nothing. */
	if (json_get_str(doc, "withdrawn") != NULL)
		return 0;
	if (r >= 0)
		a->comparable = 1;
	if (r != 1)
		return 0;
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "id", json_get_str(doc, "id"));
	json_add_str(h, "summary", json_get_str(doc, "summary"));
	json_add_str(h, "fixed", fixed);
	cJSON_AddStringToObject(h, "source", source);
	cJSON_AddItemToArray(a->hits, h);
	return 0;
}

int
advisory_affecting(struct db *db, const char *package, const char *version, cJSON **hits,
    int *comparable, struct aerr *err)
{
	struct affecting a = { package, version, cJSON_CreateArray(), 0 };
	int c;

	*hits = NULL;
	*comparable = 0;
	if (osv_version_cmp(version, version, &c) != 0) {
		*hits = a.hits;
		return 0;
	}
	if (advisory_each(db, affecting_one, &a, err) != 0) {
		cJSON_Delete(a.hits);
		return err->code;
	}
	*hits = a.hits;
	*comparable = a.comparable;
	return 0;
}

/* Each range in words: "sglang ECOSYSTEM: introduced 0 fixed 0.5.22". */
static void
ranges_text(const cJSON *doc, struct advisory_info *a)
{
	const cJSON *af, *r, *ev;

	cJSON_ArrayForEach(af, cJSON_GetObjectItemCaseSensitive(doc, "affected"))
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(af, "ranges")) {
			struct buf b;
			const char *v;

			buf_init(&b);
			buf_printf(&b, "%s %s:", json_get_str(cJSON_GetObjectItemCaseSensitive(af, "package"),
			    "name"), json_get_str(r, "type"));
			cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(r, "events")) {
				int k = event_of(ev, &v);

				if (k >= 0)
					buf_printf(&b, " %s %s", event_kinds[k], v);
			}
			a->ranges = xrealloc(a->ranges, (a->nranges + 1) * sizeof *a->ranges);
			a->ranges[a->nranges++] = buf_steal(&b);
		}
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static int
list_one(void *arg, const cJSON *doc, const char *source, struct aerr *err)
{
	struct advisory_list *l = arg;
	struct advisory_info *a;
	const cJSON *af;

	(void)err;
	l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	a = &l->items[l->n++];
	memset(a, 0, sizeof *a);
	a->id = xstrdup(json_get_str(doc, "id"));
	a->modified = dup_or_null(json_get_str(doc, "modified"));
	a->summary = dup_or_null(json_get_str(doc, "summary"));
	a->source = xstrdup(source);
	cJSON_ArrayForEach(af, cJSON_GetObjectItemCaseSensitive(doc, "affected")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(af, "package");

		a->packages = xrealloc(a->packages, (a->npackages + 1) * sizeof *a->packages);
		a->packages[a->npackages++] = xasprintf("%s:%s", json_get_str(p, "ecosystem"),
		    json_get_str(p, "name"));
	}
	ranges_text(doc, a);
	return 0;
}

void
advisory_list_free(struct advisory_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct advisory_info *a = &l->items[i];

		free(a->id);
		free(a->modified);
		free(a->summary);
		free(a->source);
		for (size_t j = 0; j < a->npackages; j++)
			free(a->packages[j]);
		for (size_t j = 0; j < a->nranges; j++)
			free(a->ranges[j]);
		free(a->packages);
		free(a->ranges);
	}
	free(l->items);
	memset(l, 0, sizeof *l);
}

int
advisory_list_load(struct db *db, struct advisory_list *out, struct aerr *err)
{
	memset(out, 0, sizeof *out);
	if (advisory_each(db, list_one, out, err) != 0) {
		advisory_list_free(out);
		return err->code;
	}
	return 0;
}

cJSON *
advisory_list_to_json(const struct advisory_list *l)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++) {
		const struct advisory_info *a = &l->items[i];
		cJSON *o = cJSON_CreateObject(), *pk, *rg;

		cJSON_AddStringToObject(o, "id", a->id);
		json_add_str(o, "modified", a->modified);
		json_add_str(o, "summary", a->summary);
		cJSON_AddStringToObject(o, "source", a->source);
		pk = cJSON_AddArrayToObject(o, "packages");
		for (size_t j = 0; j < a->npackages; j++)
			cJSON_AddItemToArray(pk, cJSON_CreateString(a->packages[j]));
		rg = cJSON_AddArrayToObject(o, "ranges");
		for (size_t j = 0; j < a->nranges; j++)
			cJSON_AddItemToArray(rg, cJSON_CreateString(a->ranges[j]));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* ---- import ---- */

#define ADVISORY_MAX_RECORDS 20000

struct import_set {
	cJSON *records[ADVISORY_MAX_RECORDS];
	char *source[ADVISORY_MAX_RECORDS];
	int n;
	cJSON *docs[ADVISORY_MAX_FILES];
	int ndocs;
};

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files an import reads: path itself, or the *.json files of a directory, sorted. */
static int
import_files(const char *path, char ***files, int *n, struct aerr *err)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	*files = NULL;
	*n = 0;
	if (stat(path, &st) != 0)
		return aerr_set(err, AV_USAGE, "%s: no such file or directory", path);
	if (!S_ISDIR(st.st_mode)) {
		*files = xcalloc(1, sizeof **files);
		(*files)[(*n)++] = xstrdup(path);
		return 0;
	}
	if ((d = opendir(path)) == NULL)
		return aerr_set(err, AV_RUNTIME, "%s: cannot read the directory", path);
	*files = xcalloc(ADVISORY_MAX_FILES, sizeof **files);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
			continue;
		if (*n == ADVISORY_MAX_FILES) {
			closedir(d);
			return aerr_set(err, AV_USAGE, "%s: more than %d .json files; import it in parts",
			    path, ADVISORY_MAX_FILES);
		}
		(*files)[(*n)++] = xasprintf("%s/%s", path, e->d_name);
	}
	closedir(d);
	if (*n == 0)
		return aerr_set(err, AV_USAGE, "%s: no .json file in the directory", path);
	qsort(*files, (size_t)*n, sizeof **files, name_cmp);
	return 0;
}

/* One file: a record or an array of records, each checked. */
static int
import_read(struct import_set *s, const char *file, struct aerr *err)
{
	struct buf b;
	cJSON *doc, *r;
	int i = 0;

	if (read_file(file, ADVISORY_MAX_BYTES, &b, err) != 0)
		return aerr_prefix(err, "%s", file);
	doc = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
	buf_free(&b);
	if (doc == NULL)
		return aerr_set(err, AV_USAGE, "%s: not JSON", file);
	s->docs[s->ndocs++] = doc;
	if (!cJSON_IsArray(doc))
		r = doc, doc = NULL;
	else
		r = doc->child;
	for (; r != NULL; r = doc != NULL ? r->next : NULL, i++) {
		char *what = doc != NULL ? xasprintf("%s: record %d", file, i + 1) : xstrdup(file);
		int rc = s->n == ADVISORY_MAX_RECORDS ? aerr_set(err, AV_USAGE, "%s: more than %d "
		    "records in one import", what, ADVISORY_MAX_RECORDS) : osv_check(r, what, err);

		free(what);
		if (rc != 0)
			return rc;
		s->records[s->n] = r;
		s->source[s->n++] = xstrdup(file);
	}
	return 0;
}

static int
import_write(struct db *db, const char *actor, struct import_set *s, int *stored, int *skipped,
    struct aerr *err)
{
	char at[32], sha[65];

	now_iso(at);
	if (db_begin(db, err) != 0)
		return err->code;
	for (int i = 0; i < s->n; i++) {
		char *text = cJSON_PrintUnformatted(s->records[i]);
		const char *id = json_get_str(s->records[i], "id");
		int64_t rid, have = 0;
		cJSON *d;
		int rc;

		sha256_hex(text, strlen(text), sha);
		rc = db_int(db, &have, err, "SELECT count(*) FROM advisory WHERE osv_id = ? AND sha256 = ?",
		    "tt", id, sha) < 0 ? err->code : 0;
		if (rc == 0 && have > 0) {
			(*skipped)++;
			free(text);
			continue;
		}
		if (rc == 0)
			rc = db_insert(db, &rid, err, "INSERT INTO advisory (osv_id, modified, document, sha256, "
			    "source, imported_by, imported_at) VALUES (?,?,?,?,?,?,?)", "ttttttt", id,
			    json_get_str(s->records[i], "modified"), text, sha, s->source[i], actor, at);
		free(text);
		if (rc == 0) {
			d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "id", id);
			cJSON_AddStringToObject(d, "source", s->source[i]);
			cJSON_AddStringToObject(d, "sha256", sha);
			rc = audit_append(db, actor, "advisory.import", "advisory", rid, d, err);
			cJSON_Delete(d);
		}
		if (rc != 0) {
			db_rollback(db);
			return err->code;
		}
		(*stored)++;
	}
	return db_commit(db, err) != 0 ? err->code : 0;
}

int
advisory_import(struct db *db, const char *actor, const char *path, int *stored, int *skipped,
    struct aerr *err)
{
	struct import_set *s = xcalloc(1, sizeof *s);
	char **files = NULL;
	int n = 0, rc;

	*stored = *skipped = 0;
	rc = import_files(path, &files, &n, err);
	for (int i = 0; i < n && rc == 0; i++)
		rc = import_read(s, files[i], err);
	if (rc == 0)
		rc = import_write(db, actor, s, stored, skipped, err);
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	for (int i = 0; i < s->ndocs; i++)
		cJSON_Delete(s->docs[i]);
	for (int i = 0; i < s->n; i++)
		free(s->source[i]);
	free(s);
	return rc;
}
