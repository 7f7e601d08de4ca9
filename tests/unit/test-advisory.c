/*
 * test-advisory.c: versions ordered as PEP 440 and SemVer order them, OSV
 * ranges evaluated as OSV defines them (introduced, fixed, last_affected,
 * limit, listed versions; events out of order; several ranges; GIT ranges
 * not read), PyPI names normalised, and an OSV record refused naming its
 * field. Expected values are the specifications' own examples where they
 * give them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/engine.h"
#include "../lib/tap.h"

static int
cmp(const char *a, const char *b)
{
	int c;

	if (osv_version_cmp(a, b, &c) != 0)
		return 99;
	return c < 0 ? -1 : c > 0;
}

static void
versions(void)
{
	/* PEP 440's order: .devN < aN < bN < rcN < release < .postN. */
	static const char *const pep440[] = { "1.0.dev1", "1.0a1.dev1", "1.0a1", "1.0a2", "1.0b1",
		"1.0rc1", "1.0", "1.0.post1", "1.0.1", "1.1.dev1", "1.1", NULL };
	/* SemVer 2.0.0's example, section 11 (the identifiers aivet orders). */
	static const char *const semver[] = { "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta",
		"1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", NULL };

	for (int i = 0; pep440[i + 1] != NULL; i++)
		is_int(cmp(pep440[i], pep440[i + 1]), -1, "PEP 440: %s < %s", pep440[i], pep440[i + 1]);
	for (int i = 0; semver[i + 1] != NULL; i++)
		is_int(cmp(semver[i], semver[i + 1]), -1, "SemVer: %s < %s", semver[i], semver[i + 1]);
	is_int(cmp("0.5.9", "0.5.10"), -1, "numbers, not text: 0.5.9 < 0.5.10");
	is_int(cmp("0.5.22", "0.5.22"), 0, "equal");
	is_int(cmp("1.0", "1.0.0"), 0, "release padded with zeros: 1.0 == 1.0.0");
	is_int(cmp("v0.5.22", "0.5.22"), 0, "a leading v");
	is_int(cmp("0.5.22+cu124", "0.5.22"), 0, "a local part does not order");
	is_int(cmp("1.0.0+build.7", "1.0.0"), 0, "SemVer build metadata does not order");
	is_int(cmp("0.5.23rc1", "0.5.22"), 1, "a pre-release of the next is after the last release");
	is_int(cmp("0.5.22rc1", "0.5.22"), -1, "a pre-release is before its release");
	is_int(cmp("0.5.22.post1", "0.5.22"), 1, "a post-release is after");
	is_int(cmp("1!0.1", "2.0"), 1, "an epoch orders first");
	is_int(cmp("1.0-1", "1.0"), 1, "PEP 440's implicit post release");
	is_int(cmp("b0-dc02e1f8", "1.0"), 99, "a build id is not a version");
	is_int(cmp("nightly", "1.0"), 99, "a word is not a version");
	is_int(cmp("1.0.x", "1.0"), 99, "trailing text is refused");
	is_int(cmp("", "1.0"), 99, "empty is refused");
}

static cJSON *
doc(const char *events, const char *extra)
{
	char *s = xasprintf("{\"id\":\"T-1\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{"
	    "\"package\":{\"ecosystem\":\"PyPI\",\"name\":\"SGLang\"},\"ranges\":[{\"type\":\"ECOSYSTEM\","
	    "\"events\":[%s]}]%s}]}", events, extra);
	cJSON *d = cJSON_Parse(s);

	free(s);
	return d;
}

static int
affects(const char *events, const char *extra, const char *version, const char **fixed)
{
	cJSON *d = doc(events, extra);
	const char *f = NULL;
	int r = osv_affects(d, "sglang", version, &f);

	if (fixed != NULL)
		*fixed = f != NULL ? strcmp(f, "0.5.22") == 0 ? "0.5.22" : "other" : NULL;
	cJSON_Delete(d);
	return r;
}

static void
ranges(void)
{
	const char *ev = "{\"introduced\":\"0\"},{\"fixed\":\"0.5.22\"}", *f;

	is_int(affects(ev, "", "0.5.21", &f), 1, "introduced 0, fixed 0.5.22: 0.5.21 affected");
	is_str(f, "0.5.22", "... and the fix named");
	is_int(affects(ev, "", "0.5.22", NULL), 0, "fixed is exclusive: 0.5.22 not affected");
	is_int(affects(ev, "", "0.5.22rc1", NULL), 1, "a pre-release of the fix is affected");
	is_int(affects(ev, "", "0.0.1", NULL), 1, "introduced 0 holds the first version");
	is_int(affects(ev, "", "0.5.23", NULL), 0, "after the fix: not affected");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"fixed\":\"0.5.23\"}", "", "0.3.9", NULL), 0,
	    "before introduced: not affected");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"fixed\":\"0.5.23\"}", "", "0.4.0", NULL), 1,
	    "introduced is inclusive");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"last_affected\":\"0.5.1\"}", "", "0.5.1", NULL),
	    1, "last_affected is inclusive");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"last_affected\":\"0.5.1\"}", "", "0.5.1.post1",
	    NULL), 0, "after last_affected: not affected");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"limit\":\"0.5.0\"}", "", "0.5.0", NULL), 0,
	    "limit is exclusive");
	is_int(affects("{\"introduced\":\"0.4.0\"},{\"limit\":\"0.5.0\"}", "", "0.4.9", NULL), 1,
	    "below the limit: affected");
	is_int(affects("{\"introduced\":\"0.4.0\"}", "", "9.0", NULL), 1, "no fix yet: every later version");
	/* Events in any order are sorted by version first. */
	is_int(affects("{\"fixed\":\"0.5.22\"},{\"introduced\":\"0\"}", "", "0.5.0", NULL), 1,
	    "events out of order: sorted first");
	/* Two windows in one range: introduced 0.1 fixed 0.2, introduced 0.3 fixed 0.4. */
	ev = "{\"introduced\":\"0.3\"},{\"fixed\":\"0.2\"},{\"introduced\":\"0.1\"},{\"fixed\":\"0.4\"}";
	is_int(affects(ev, "", "0.1.5", NULL), 1, "two windows: inside the first");
	is_int(affects(ev, "", "0.2.5", NULL), 0, "two windows: between them");
	is_int(affects(ev, "", "0.3.5", NULL), 1, "two windows: inside the second");
	is_int(affects(ev, "", "0.4", NULL), 0, "two windows: at the second fix");
	is_int(affects("{\"introduced\":\"9.0\"}", ",\"versions\":[\"0.5.21\"]", "0.5.21", NULL), 1,
	    "a listed version is affected");
	is_int(affects("{\"introduced\":\"0\"},{\"fixed\":\"0.5.22\"}", "", "b0-dc02e1f8", NULL), -1,
	    "a version that cannot be ordered: not comparable, never unaffected");
	{
		cJSON *d = doc("{\"introduced\":\"0\"},{\"fixed\":\"0.5.22\"}", "");
		const char *fx;

		is_int(osv_affects(d, "vllm", "0.5.0", &fx), 0, "another package: not affected");
		is_int(osv_affects(d, "Sg-Lang", "0.5.0", &fx), 0, "a different name is another package");
		is_int(osv_affects(d, "s_g.lang", "0.5.0", &fx), 0, "separators are not removed");
		is_int(osv_affects(d, "SGLANG", "0.5.0", &fx), 1, "PyPI names compare without case");
		cJSON_Delete(d);
	}
	{
		cJSON *d = cJSON_Parse("{\"affected\":[{\"package\":{\"ecosystem\":\"PyPI\",\"name\":"
		    "\"sglang\"},\"ranges\":[{\"type\":\"GIT\",\"repo\":\"x\",\"events\":[{\"introduced\":"
		    "\"0\"},{\"fixed\":\"abc\"}]}]}]}");
		const char *fx;

		is_int(osv_affects(d, "sglang", "0.5.0", &fx), -1, "only a GIT range: not comparable");
		cJSON_Delete(d);
	}
}

static void
check(const char *json, const char *want)
{
	cJSON *d = cJSON_Parse(json);
	struct aerr e = { 0 };
	int rc = osv_check(d, "f.json", &e);

	if (want == NULL)
		is_int(rc, 0, "valid: %.60s", json);
	else
		is_str(e.msg, want, "refused: %s", want);
	cJSON_Delete(d);
}

static void
records(void)
{
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{\"package\":"
	    "{\"ecosystem\":\"PyPI\",\"name\":\"sglang\"},\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":"
	    "[{\"introduced\":\"0\"},{\"fixed\":\"0.5.22\"}]}]}]}", NULL);
	check("{\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[]}", "f.json: id: a string of 1 to "
	    "128 characters is needed");
	check("{\"id\":\"A\",\"modified\":\"yesterday\",\"affected\":[]}", "f.json: modified: an RFC 3339 "
	    "time is needed");
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[]}", "f.json: affected: a "
	    "non-empty array is needed");
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{\"package\":{\"name\":"
	    "\"x\"}}]}", "f.json: affected[0].package: name and ecosystem are needed");
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{\"package\":{\"name\":"
	    "\"x\",\"ecosystem\":\"PyPI\"},\"ranges\":[{\"type\":\"RANGE\",\"events\":[]}]}]}",
	    "f.json: affected[0].ranges[0]: type must be SEMVER, ECOSYSTEM or GIT");
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{\"package\":{\"name\":"
	    "\"x\",\"ecosystem\":\"PyPI\"},\"ranges\":[{\"type\":\"SEMVER\",\"events\":[{\"introduced\":"
	    "\"0\"},{\"fixed\":\"1.0\",\"limit\":\"2.0\"}]}]}]}", "f.json: affected[0].ranges[0].events[1]: "
	    "an event names exactly one of introduced, fixed, last_affected or limit, as a string");
	check("{\"id\":\"A\",\"modified\":\"2026-01-01T00:00:00Z\",\"affected\":[{\"package\":{\"name\":"
	    "\"x\",\"ecosystem\":\"PyPI\"},\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{\"introduced\":"
	    "\"0\"},{\"fixed\":\"soon\"}]}]}]}", "f.json: affected[0].ranges[0].events[1]: 'soon' is not a "
	    "version aivet can order");
	check("[1]", "f.json: not an OSV record (a JSON object)");
}

int
main(void)
{
	versions();
	ranges();
	records();
	return tap_done();
}
