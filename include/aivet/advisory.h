/*
 * aivet/advisory.h: advisories in OSV's format (advisory.c, the engine):
 * the ones aivet ships (advisories/, built in) and the ones imported into the
 * database, version ranges compared as OSV defines them, and what the engine
 * probe asks of them: which advisories a package's version falls in.
 */
#ifndef AIVET_ADVISORY_H
#define AIVET_ADVISORY_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"

/* Limits on what an import reads (fail closed above them). */
#define ADVISORY_MAX_FILES 2000
#define ADVISORY_MAX_BYTES ((size_t)1 << 20)    /* one file */
#define ADVISORY_MAX_EVENTS 256                 /* one range's */

/* Compares two versions (PEP 440 and SemVer both: release numbers, a, b, rc,
 * post, dev; a leading v; local or build parts ignored): *cmp <0, 0, >0.
 * -1 when either is not a version this can order. */
int osv_version_cmp(const char *a, const char *b, int *cmp);
/* Whether version of package (its name; PyPI names normalised) is in one of
 * doc's affected ranges or listed versions: 1 yes, 0 no, -1 not comparable
 * (the version, or every range that names the package, cannot be ordered).
 * *fixed: the first fixed version of the range that holds it, or NULL. */
int osv_affects(const cJSON *doc, const char *package, const char *version, const char **fixed);
/* Checks an OSV record: 0, or AV_USAGE with the field named ("affected[0].ranges[1].events[2]:
 * ..."); what says where the record came from. */
int osv_check(const cJSON *doc, const char *what, struct aerr *err);

/* An advisory in use, as "advisories list" shows it: its packages as
 * "ECOSYSTEM:NAME", its ranges in words ("sglang ECOSYSTEM: introduced 0 fixed 0.5.22"),
 * its source "built in" or the file it was imported from. */
struct advisory_info {
	char *id, *modified, *summary, *source;
	char **packages, **ranges;
	size_t npackages, nranges;
};
struct advisory_list {
	struct advisory_info *items;
	size_t n;
};
/* Every advisory: the built-in ones, then the latest imported version of each. */
int advisory_list_load(struct db *db, struct advisory_list *out, struct aerr *err);
void advisory_list_free(struct advisory_list *l);
/* The one JSON form: [{"id","modified","summary","source","packages","ranges"}]. */
cJSON *advisory_list_to_json(const struct advisory_list *l);
/* The advisories version of package falls in: *hits [{"id","summary","fixed","source"}];
 * *comparable 0 when the version could be compared with no range of the package. */
int advisory_affecting(struct db *db, const char *package, const char *version, cJSON **hits,
    int *comparable, struct aerr *err);
/* Imports an OSV file (one record, or an array of records) or every *.json file
 * of a directory: all checked before anything is written, then one transaction,
 * an audit entry per record stored. A record already stored with the same bytes is
 * skipped. *stored and *skipped count them. */
int advisory_import(struct db *db, const char *actor, const char *path, int *stored, int *skipped,
    struct aerr *err);

#endif
