/*
 * zone.c: local time in named zones. The C library reads the zoneinfo
 * database only for the process's own TZ, so each computation sets TZ,
 * calls tzset, converts, and puts the previous TZ back: nothing else in the
 * process sees the change. Names are checked against the zoneinfo files
 * because an unknown TZ silently means UTC. Two zones are kept apart: the
 * organisation's, which the database records and which decides every
 * end-of-day deadline, and the zone a person asked to see times in (--tz),
 * which only adds a rendering.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zone.h"

static char *org_tz, *display_tz;

struct saved_tz {
	char *value;
	int had;
};

static void
tz_enter(const char *zone, struct saved_tz *s)
{
	const char *old = getenv("TZ");

	s->had = old != NULL;
	s->value = old ? xstrdup(old) : NULL;
	setenv("TZ", zone, 1);
	tzset();
}

static void
tz_leave(struct saved_tz *s)
{
	if (s->had)
		setenv("TZ", s->value, 1);
	else
		unsetenv("TZ");
	tzset();
	free(s->value);
}

int
zone_check(const char *name, struct aerr *err)
{
	const char *dir = getenv("TZDIR");
	char path[1024], magic[4];
	struct aerr ignored = { 0 };
	int fd, ok = 0;

	if (name == NULL || *name == '\0' || name[0] == '/' || strstr(name, "..") != NULL ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") !=
	    strlen(name))
		return aerr_set(err, AV_USAGE, "time zone '%s': expected an IANA name such as "
		    "America/New_York or UTC", name ? name : "");
	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	if ((fd = open_regular(path, 0, &ignored)) >= 0) {
		ok = read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
		close(fd);
	}
	if (!ok)
		return aerr_set(err, AV_USAGE, "time zone '%s': not in the system's zoneinfo (%s; is "
		    "the tzdata package installed?)", name, dir && *dir ? dir : "/usr/share/zoneinfo");
	return 0;
}

/* A zone kept for the process, checked first; NULL or "" clears it. */
static int
zone_keep(char **slot, const char *name, struct aerr *err)
{
	if (name != NULL && *name != '\0' && zone_check(name, err) != 0)
		return err->code;
	free(*slot);
	*slot = name != NULL && *name != '\0' ? xstrdup(name) : NULL;
	return 0;
}

int
org_zone_set(const char *name, struct aerr *err)
{
	return zone_keep(&org_tz, name, err);
}

const char *
org_zone(void)
{
	return org_tz;
}

int
display_zone_set(const char *name, struct aerr *err)
{
	return zone_keep(&display_tz, name, err);
}

const char *
display_zone(void)
{
	return display_tz;
}

char *
org_zone_from_config(void)
{
	char *dir = aivet_dir(AIVET_CONFIG_DIR), *path = xasprintf("%s/timezone", dir);
	struct aerr ignored = { 0 };
	struct buf b;
	char *out = NULL;

	free(dir);
	if (read_file(path, 4096, &b, &ignored) != 0) {
		free(path);
		return NULL;
	}
	free(path);
	b.data[strcspn(b.data, " \t\r\n")] = '\0';
	if (b.data[0] != '\0')
		out = xstrdup(b.data);
	buf_free(&b);
	return out;
}

static time_t
to_secs(int64_t ms)
{
	return (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
}

int
zone_offset(const char *zone, int64_t ms, char abbr[16])
{
	struct saved_tz s;
	struct tm tm;
	time_t t = to_secs(ms);

	tz_enter(zone, &s);
	localtime_r(&t, &tm);
	tz_leave(&s);
	if (abbr != NULL)
		snprintf(abbr, 16, "%s", tm.tm_zone ? tm.tm_zone : "");
	return (int)(tm.tm_gmtoff / 60);
}

void
zone_date(const char *zone, int64_t ms, int *year, int *month, int *day)
{
	struct saved_tz s;
	struct tm tm;
	time_t t = to_secs(ms);

	tz_enter(zone, &s);
	localtime_r(&t, &tm);
	tz_leave(&s);
	*year = tm.tm_year + 1900;
	*month = tm.tm_mon + 1;
	*day = tm.tm_mday;
}

int64_t
zone_midnight(const char *zone, int year, int month, int day)
{
	struct saved_tz s;
	struct tm tm;
	time_t t;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = month - 1;
	tm.tm_mday = day;
	/* The zone decides whether summer time applies on that day. */
	tm.tm_isdst = -1;
	tz_enter(zone, &s);
	t = mktime(&tm);
	tz_leave(&s);
	return (int64_t)t * 1000;
}

void
fmt_time_zone(int64_t ms, const char *zone, char out[64])
{
	char abbr[16], local[40];
	int off = zone_offset(zone, ms, abbr);

	fmt_time_offset(ms, off, local);
	snprintf(out, 64, "%s %s", local, abbr);
}

int
parse_deadline(const char *s, int64_t *ms, struct aerr *err)
{
	static const struct {
		const char *word;
		int days;
	} words[] = { { "today", 0 }, { "tomorrow", 1 }, { "yesterday", -1 } };
	const char *zone = org_tz != NULL ? org_tz : "UTC";
	int y = 0, m = 0, d = 0, found = 0, off;

	for (size_t i = 0; i < sizeof words / sizeof words[0] && !found; i++)
		if (strcmp(s, words[i].word) == 0) {
			zone_date(zone, now_ms(), &y, &m, &d);
			d += words[i].days;
			found = 1;
		}
	if (!found && strlen(s) == 10) {
		if (parse_time_zone(s, ms, &off, err) != 0)
			return err->code;
		if (sscanf(s, "%4d-%2d-%2d", &y, &m, &d) != 3)
			return aerr_set(err, AV_USAGE, "bad date '%s'", s);
		found = 1;
	}
	if (!found)
		return parse_time_zone(s, ms, &off, err);
	/* Due on a day is due by its end: the last millisecond before the next midnight. */
	*ms = zone_midnight(zone, y, m, d + 1) - 1;
	return 0;
}
