/*
 * base-time.c: time in UTC milliseconds: now, formatting as ISO 8601 (with
 * or without the writer's offset), and parsing what users and files write
 * (a date, a time with a zone, or a relative "-2h"). Part of the base: libc
 * only.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"

static int parse_iso_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err);

int64_t
now_ms(void)
{
	struct timespec ts;
	const char *fixed = getenv("AIVET_NOW");
	int64_t ms;
	int off;

	/* AIVET_NOW pins the clock for reproducible tests and reports (ISO only:
	 * a relative AIVET_NOW would count from itself). */
	if (fixed != NULL && *fixed != '\0' && parse_iso_zone(fixed, &ms, &off, NULL) == 0)
		return ms;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
fmt_time_ms(int64_t ms, char out[32])
{
	time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)secs * 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	/* Four-digit years always: strftime's %Y would write year 999 as "999",
	 * which parse_time (rightly) refuses to read back. */
	snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

void
fmt_time_offset(int64_t ms, int offset_min, char out[40])
{
	int64_t local = ms + (int64_t)offset_min * 60000;
	time_t secs = (time_t)(local >= 0 ? local / 1000 : (local - 999) / 1000);
	struct tm tm;
	size_t n;
	int a = offset_min < 0 ? -offset_min : offset_min;

	gmtime_r(&secs, &tm);
	strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	n = strlen(out);
	if (offset_min == 0)
		snprintf(out + n, 40 - n, "Z");
	else
		snprintf(out + n, 40 - n, "%c%02d:%02d", offset_min < 0 ? '-' : '+', a / 60, a % 60);
}

void
now_iso(char out[32])
{
	fmt_time_ms(now_ms(), out);
}

static int
digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm). */
static int64_t
days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int y, int m)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 ? 28 + leap : dm[m - 1];
}

int
parse_time(const char *s, int64_t *ms, struct aerr *err)
{
	int off;

	return parse_time_zone(s, ms, &off, err);
}

static int
parse_iso_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err)
{
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, se = 0, frac = 0, off = 0;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
	    digits(&p, 2, &d))
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		goto bad;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			goto bad;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &se))
				goto bad;
			if (*p == '.') {
				int n = 0, scale = 100;

				p++;
				while (*p >= '0' && *p <= '9') {
					if (n++ < 3)
						frac += (*p - '0') * scale, scale /= 10;
					p++;
				}
				if (n == 0)
					goto bad;
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			goto bad;
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1, oh, om;

			if (digits(&p, 2, &oh))
				goto bad;
			if (*p == ':')
				p++;
			if (digits(&p, 2, &om) || oh > 23 || om > 59)
				goto bad;
			off = sign * (oh * 60 + om);
		} else {
			goto bad;   /* a time without a zone is ambiguous */
		}
	}
	if (*p != '\0')
		goto bad;
	*ms = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) - off * 60) * 1000 + frac;
	*offset_min = off;
	return 0;
bad:
	return aerr_set(err, AV_USAGE, "bad time '%s': expected ISO 8601 such as "
	    "2026-11-30 or 2026-11-30T14:05:00Z (a time needs Z or an offset)", s);
}

/*
 * Dates as people type them: "today", "tomorrow", "yesterday" are that UTC
 * date, read as "2026-11-30" is; "now"; "+3d", "-2w", "+4h", "+30m" count
 * from now. Returns 1 when s is one of these.
 */
static int
relative_time(const char *s, int64_t *ms)
{
	static const struct {
		const char *word;
		int days;
	} words[] = { { "today", 0 }, { "tomorrow", 1 }, { "yesterday", -1 } };
	const int64_t day = INT64_C(86400000);
	int64_t now, n = 0;
	const char *p;

	if (strcmp(s, "now") != 0 && strcmp(s, "today") != 0 && strcmp(s, "tomorrow") != 0 &&
	    strcmp(s, "yesterday") != 0 && !((s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9'))
		return 0;
	now = now_ms();
	if (strcmp(s, "now") == 0) {
		*ms = now;
		return 1;
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(s, words[i].word) == 0) {
			*ms = (now >= 0 ? now / day : (now - day + 1) / day) * day + words[i].days * day;
			return 1;
		}
	for (p = s + 1; *p >= '0' && *p <= '9' && n < INT64_C(1000000); p++)
		n = n * 10 + (*p - '0');
	if (p[0] == '\0' || p[1] != '\0' || n >= INT64_C(1000000))
		return 0;
	switch (*p) {
	case 'm': n *= 60000; break;
	case 'h': n *= 3600000; break;
	case 'd': n *= day; break;
	case 'w': n *= 7 * day; break;
	default: return 0;
	}
	*ms = now + (s[0] == '-' ? -n : n);
	return 1;
}

int
parse_time_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err)
{
	if (relative_time(s, ms)) {
		*offset_min = 0;
		return 0;
	}
	return parse_iso_zone(s, ms, offset_min, err);
}
