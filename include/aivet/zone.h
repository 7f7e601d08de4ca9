/*
 * zone.h: named time zones (IANA, from the system's zoneinfo) for deadlines
 * that end with a local day. The organisation's zone is the database's
 * ("aivet db timezone", read when the database opens): it decides every
 * end-of-day deadline, UTC until one is set. The display zone (--tz, AIVET_TZ
 * or the config file "timezone") only adds times shown in it.
 */
#ifndef AIVET_ZONE_H
#define AIVET_ZONE_H

#include <stdint.h>

#include "base.h"

/* Whether name is a zone the system's zoneinfo knows ("America/New_York", "UTC"). */
int zone_check(const char *name, struct aerr *err);
/* Sets the organisation's zone after checking it; NULL or "" clears it. */
int org_zone_set(const char *name, struct aerr *err);
/* The organisation's zone, or NULL when the database names none (deadlines then assume UTC). */
const char *org_zone(void);
/* The zone a person asked to see times in (--tz), or NULL; it moves no deadline. */
int display_zone_set(const char *name, struct aerr *err);
const char *display_zone(void);
/* From $XDG_CONFIG_HOME/aivet/timezone (one line), or NULL; newly allocated. */
char *org_zone_from_config(void);

/* Offset east of UTC in minutes of zone at the instant ms, and its
 * abbreviation ("EST", "EDT"; may be NULL). */
int zone_offset(const char *zone, int64_t ms, char abbr[16]);
/* The calendar date of the instant in zone. */
void zone_date(const char *zone, int64_t ms, int *year, int *month, int *day);
/* The instant local midnight begins on year-month-day in zone; out-of-range
 * days and months carry over ("1 January + 60 days"). */
int64_t zone_midnight(const char *zone, int year, int month, int day);
/* "2026-05-01T10:00:00-04:00 EDT": the instant as the zone's clock shows it. */
void fmt_time_zone(int64_t ms, const char *zone, char out[64]);

/* A due time as parse_time reads it, except that a calendar date (2026-03-21,
 * today, tomorrow, yesterday) is due by the end of that day, in the
 * organisation's zone, else UTC. */
int parse_deadline(const char *s, int64_t *ms, struct aerr *err);

#endif
