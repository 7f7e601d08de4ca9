/*
 * test-clocks.c: the notification clock arithmetic, table by table — the
 * 60-day HIPAA clocks across leap years, the HHS annual deadline at year end
 * in different zones, which clocks apply for which facts, stop and overdue
 * boundaries, and the time and notice-time formats the clocks use; named
 * zones from the system's zoneinfo: the HHS date in the organisation's zone,
 * summer-time changes in America/New_York, and TZ left as it was.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "incident.h"
#include "../lib/tap.h"
#include "zone.h"

static int64_t
t(const char *s)
{
	int64_t ms;
	struct aerr err = { 0 };

	if (parse_time(s, &ms, &err) != 0) {
		printf("# bad time in test: %s\n", s);
		exit(99);
	}
	return ms;
}

static const char *
iso(int64_t ms)
{
	static char out[4][32];
	static int n;

	n = (n + 1) % 4;
	fmt_time_ms(ms, out[n]);
	return out[n];
}

static void
test_parse_time_zone(void)
{
	static const struct {
		const char *in, *utc;
		int offset;
	} cases[] = {
		{ "2026-03-02T09:00:00-05:00", "2026-03-02T14:00:00.000Z", -300 },
		{ "2026-03-02T09:00:00+0530", "2026-03-02T03:30:00.000Z", 330 },
		{ "2026-03-02T09:00:00Z", "2026-03-02T09:00:00.000Z", 0 },
		{ "2026-03-02", "2026-03-02T00:00:00.000Z", 0 },
		{ "2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z", -60 },
		{ "2028-02-29T12:00:00.250+14:00", "2028-02-28T22:00:00.250Z", 840 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t ms;
		int off = 12345;
		struct aerr err = { 0 };

		is_int(parse_time_zone(cases[i].in, &ms, &off, &err), 0, "parse %s", cases[i].in);
		is_str(iso(ms), cases[i].utc, "%s in UTC", cases[i].in);
		is_int(off, cases[i].offset, "%s offset", cases[i].in);
	}
}

static void
test_fmt_time_offset(void)
{
	static const struct {
		const char *utc;
		int offset;
		const char *want;
	} cases[] = {
		{ "2026-03-02T14:00:00Z", -300, "2026-03-02T09:00:00-05:00" },
		{ "2026-03-02T03:30:00Z", 330, "2026-03-02T09:00:00+05:30" },
		{ "2026-03-02T09:00:00.999Z", 0, "2026-03-02T09:00:00Z" },
		{ "2027-01-01T03:00:00Z", -300, "2026-12-31T22:00:00-05:00" },
		{ "2028-02-28T22:00:00Z", 840, "2028-02-29T12:00:00+14:00" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[40];

		fmt_time_offset(t(cases[i].utc), cases[i].offset, out);
		is_str(out, cases[i].want, "%s at offset %d", cases[i].utc, cases[i].offset);
	}
}

static void
test_hhs_annual(void)
{
	static const struct {
		const char *discovered, *due, *why;
	} cases[] = {
		{ "2026-06-15T12:00:00Z", "2027-03-02T00:00:00.000Z", "common year: all of 1 March" },
		{ "2027-05-01T08:00:00Z", "2028-03-01T00:00:00.000Z", "leap year: 29 February is day 60" },
		{ "2024-02-29T10:00:00Z", "2025-03-02T00:00:00.000Z", "discovered on a leap day" },
		{ "2026-01-01T00:00:00Z", "2027-03-02T00:00:00.000Z", "first instant of the year" },
		{ "2026-12-31T23:59:59.999Z", "2027-03-02T00:00:00.000Z", "last instant of the year" },
		{ "1999-12-31T12:00:00Z", "2000-03-01T00:00:00.000Z", "2000 is a leap year (by 400)" },
		{ "2099-07-01T00:00:00Z", "2100-03-02T00:00:00.000Z", "2100 is not a leap year" },
		/* Year end decided in the zone the discovery was given in. */
		{ "2026-12-31T22:00:00-05:00", "2027-03-02T05:00:00.000Z",
		    "New York evening of 31 December is still 2026 (UTC says 2027)" },
		{ "2027-01-01T03:00:00Z", "2028-03-01T00:00:00.000Z", "the same instant given in UTC is 2027" },
		{ "2027-01-01T01:00:00+09:00", "2028-02-29T15:00:00.000Z",
		    "Tokyo's 1 January is 2027 (UTC says 2026)" },
		{ "2026-12-31T16:00:00Z", "2027-03-02T00:00:00.000Z", "the same instant given in UTC is 2026" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t ms;
		int off;
		struct aerr err = { 0 };

		parse_time_zone(cases[i].discovered, &ms, &off, &err);
		is_str(iso(hhs_annual_due(ms, off)), cases[i].due, "HHS annual: %s (%s)",
		    cases[i].discovered, cases[i].why);
	}
}

/* Facts for one row of the table: counts -1 when unknown. */
struct clock_case {
	const char *why;
	char phi;
	int64_t individuals, state_residents;
	int eu_data;
	const char *vendor_sla;       /* NULL: stated none; "?": never answered nor given */
	const char *vendor_discovered;
	/* expected due per clock, "" when the clock does not apply */
	const char *due[CLOCK_COUNT];
	const char *basis_hhs, *basis_media;
};

static void
test_clocks_compute(void)
{
	static const struct clock_case cases[] = {
		{ "PHI, 1200 individuals, states unknown", 'y', 1200, -1, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z",
		    "", "" },
		    "PHI involved; 1200 individuals (500 or more): with the individuals' notice",
		    "PHI involved; 1200 individuals and residents per state unknown: assumed more than "
		    "500 in one state (give --state-residents)" },
		{ "no PHI", 'n', 1200, -1, 0, NULL, NULL, { "", "", "", "", "" },
		    "no PHI involved", "no PHI involved" },
		{ "PHI, 120 individuals: annual HHS log, no media", 'y', 120, -1, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2027-03-02T00:00:00.000Z", "", "", "" },
		    "PHI involved; 120 individuals (fewer than 500): annual log, 60 days after the end "
		    "of the calendar year of discovery",
		    "120 individuals in all, so no state has more than 500" },
		{ "exactly 500 individuals: HHS now; 500 is not more than 500 for media", 'y', 500, -1, 0,
		    NULL, NULL, { "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z", "", "", "" },
		    "PHI involved; 500 individuals (500 or more): with the individuals' notice",
		    "500 individuals in all, so no state has more than 500" },
		{ "499 individuals: annual", 'y', 499, -1, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2027-03-02T00:00:00.000Z", "", "", "" }, NULL, NULL },
		{ "2000 individuals, at most 300 in a state", 'y', 2000, 300, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z", "", "", "" }, NULL,
		    "at most 300 residents of any one state (500 or fewer)" },
		{ "501 residents of one state", 'y', 2000, 501, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z",
		    "", "" }, NULL, "PHI involved; 501 residents of one state (more than 500)" },
		{ "PHI and counts unknown: assume the worst", 'u', -1, -1, 0, NULL, NULL,
		    { "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z", "2026-05-01T14:00:00.000Z",
		    "", "" },
		    "PHI involvement unknown: assumed involved; number of individuals unknown: assumed "
		    "500 or more",
		    "PHI involvement unknown: assumed involved; number of individuals unknown: assumed "
		    "more than 500 residents of one state" },
		{ "EU data: GDPR 72 hours", 'n', -1, -1, 1, NULL, NULL,
		    { "", "", "", "", "2026-03-05T14:00:00.000Z" }, NULL, NULL },
		{ "vendor SLA 24h from the incident's discovery", 'n', -1, -1, 0, "24h", NULL,
		    { "", "", "", "2026-03-03T14:00:00.000Z", "" }, NULL, NULL },
		{ "vendor SLA 5d from the vendor's own discovery", 'n', -1, -1, 0, "5d",
		    "2026-02-20T08:30:00-08:00", { "", "", "", "2026-02-25T16:30:00.000Z", "" }, NULL, NULL },
		{ "vendor SLA unknown: runs, assumed the strictest 24h", 'n', -1, -1, 0, "?", NULL,
		    { "", "", "", "2026-03-03T14:00:00.000Z", "" }, NULL, NULL },
		{ "vendor SLA unknown, from the vendor's own discovery", 'n', -1, -1, 0, "?",
		    "2026-02-20T08:30:00-08:00", { "", "", "", "2026-02-21T16:30:00.000Z", "" }, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct clock_case *c = &cases[i];
		struct incident_facts f = { 0 };
		struct incident_clock clocks[CLOCK_COUNT];
		struct aerr err = { 0 };

		parse_time_zone("2026-03-02T09:00:00-05:00", &f.discovered_ms, &f.discovered_offset, &err);
		f.phi = c->phi;
		f.individuals = c->individuals;
		f.state_residents = c->state_residents;
		f.eu_data = c->eu_data;
		f.vendor_sla_ms = -1;
		f.vendor_discovered_ms = -1;
		if (c->vendor_sla != NULL && strcmp(c->vendor_sla, "?") == 0) {
			f.vendor_sla_unknown = 1;
		} else if (c->vendor_sla != NULL) {
			incident_duration("test", c->vendor_sla, &f.vendor_sla_ms, &err);
			snprintf(f.vendor_sla_text, sizeof f.vendor_sla_text, "%s", c->vendor_sla);
			snprintf(f.vendor_sla_source, sizeof f.vendor_sla_source, "test");
		}
		if (c->vendor_discovered != NULL)
			f.vendor_discovered_ms = t(c->vendor_discovered);
		clocks_compute(&f, clocks);
		for (int k = 0; k < CLOCK_COUNT; k++) {
			int want = c->due[k][0] != '\0';

			is_int(clocks[k].applies, want, "%s: %s %s", c->why, clock_id(k),
			    want ? "applies" : "does not apply");
			if (want)
				is_str(iso(clocks[k].due_ms), c->due[k], "%s: %s due", c->why, clock_id(k));
			is_str(clock_state(&clocks[k], t("2026-03-02T15:00:00Z")),
			    !want ? "not-applicable" : clocks[k].due_ms >= t("2026-03-02T15:00:00Z") ?
			    "running" : "overdue", "%s: %s state", c->why, clock_id(k));
		}
		if (c->basis_hhs != NULL)
			is_str(clocks[CLOCK_HHS].basis, c->basis_hhs, "%s: hhs basis", c->why);
		if (c->basis_media != NULL)
			is_str(clocks[CLOCK_MEDIA].basis, c->basis_media, "%s: media basis", c->why);
	}
}

static void
test_hipaa_60_days(void)
{
	static const struct {
		const char *discovered, *due;
	} cases[] = {
		{ "2027-01-15T10:00:00Z", "2027-03-16T10:00:00.000Z" },   /* common year */
		{ "2028-01-15T10:00:00Z", "2028-03-15T10:00:00.000Z" },   /* leap year */
		{ "2026-11-15T18:00:00-05:00", "2027-01-14T23:00:00.000Z" }, /* across year end */
		{ "2028-12-31T23:00:00Z", "2029-03-01T23:00:00.000Z" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct incident_facts f = { .phi = 'y', .individuals = 10, .state_residents = -1,
		    .vendor_sla_ms = -1, .vendor_discovered_ms = -1 };
		struct incident_clock clocks[CLOCK_COUNT];
		struct aerr err = { 0 };

		parse_time_zone(cases[i].discovered, &f.discovered_ms, &f.discovered_offset, &err);
		clocks_compute(&f, clocks);
		is_str(iso(clocks[CLOCK_HIPAA_INDIVIDUALS].due_ms), cases[i].due,
		    "individuals' notice 60 days after %s", cases[i].discovered);
	}
}

static void
test_stops(void)
{
	struct incident_facts f = { .phi = 'y', .individuals = 1000, .state_residents = -1,
	    .eu_data = 1, .vendor_sla_ms = -1, .vendor_discovered_ms = -1 };
	struct incident_clock clocks[CLOCK_COUNT], *c = &clocks[CLOCK_GDPR_SA];
	int64_t due;

	f.discovered_ms = t("2026-03-02T14:00:00Z");
	clocks_compute(&f, clocks);
	due = c->due_ms;
	is_str(iso(due), "2026-03-05T14:00:00.000Z", "GDPR due 72 hours after discovery");
	is_str(clock_state(c, due), "running", "running at the due instant");
	is_str(clock_state(c, due + 1), "overdue", "overdue one millisecond later");
	clock_stop(c, due + 1, 7);
	is_str(clock_state(c, due + 1000), "late", "a notice after the due time is late");
	clock_stop(c, due, 5);
	is_str(clock_state(c, due + 1000), "met", "an earlier notice wins: met at the due instant");
	is_int(c->stop_entry, 5, "the stopping entry is the earliest");
	clock_stop(c, due + 5000, 9);
	is_int(c->stop_entry, 5, "a later notice does not move the stop");
	is_int(clock_index("hhs"), CLOCK_HHS, "clock ids are stable: hhs");
	is_int(clock_index("vendor-sla"), CLOCK_VENDOR_SLA, "vendor-sla");
	is_int(clock_index("HHS"), -1, "ids are case-sensitive");
}

static void
test_notice_time(void)
{
	static const struct {
		int64_t seconds;
		const char *want;
	} cases[] = {
		{ 86400, "24h" }, { 3 * 86400, "72h" }, { 4 * 86400, "4d" }, { 5 * 86400, "5d" },
		{ 7 * 86400, "7d" }, { 14 * 86400, "2w" }, { 3600, "1h" }, { 1800, "30m" },
		{ 36 * 3600, "36h" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[32];

		fmt_notice_time(cases[i].seconds, out, sizeof out);
		is_str(out, cases[i].want, "notice time of %lld seconds", (long long)cases[i].seconds);
	}
}

static void
test_fmt_duration(void)
{
	static const struct {
		int64_t ms;
		const char *want;
	} cases[] = {
		{ 0, "0m" }, { 59999, "0m" }, { 61 * 60000, "1h 01m" }, { 60LL * 86400000, "60d 00h" },
		{ -(3LL * 86400000 + 5 * 3600000), "3d 05h" }, { 23 * 3600000 + 59 * 60000, "23h 59m" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[32];

		fmt_duration(cases[i].ms, out, sizeof out);
		is_str(out, cases[i].want, "fmt_duration(%lld)", (long long)cases[i].ms);
	}
}

static void
test_hhs_annual_zone(void)
{
	static const struct {
		const char *zone, *discovered, *by_date, *due, *why;
	} cases[] = {
		{ "America/New_York", "2026-06-15T12:00:00Z", "2027-03-01", "2027-03-02T05:00:00.000Z",
		    "common year: by 1 March, end of day in New York (EST)" },
		{ "America/New_York", "2027-05-01T08:00:00Z", "2028-02-29", "2028-03-01T05:00:00.000Z",
		    "leap year: by 29 February" },
		{ "America/New_York", "2027-01-01T03:00:00Z", "2027-03-01", "2027-03-02T05:00:00.000Z",
		    "3 a.m. UTC on 1 January is still 31 December 2026 in New York" },
		{ "America/New_York", "2027-01-01T05:00:00Z", "2028-02-29", "2028-03-01T05:00:00.000Z",
		    "New York's midnight: 2027 has begun" },
		{ "Asia/Tokyo", "2026-12-31T16:00:00Z", "2028-02-29", "2028-02-29T15:00:00.000Z",
		    "Tokyo's 1 January 2027 (UTC says 2026)" },
		{ "UTC", "1999-12-31T12:00:00Z", "2000-02-29", "2000-03-01T00:00:00.000Z",
		    "2000 is a leap year (by 400)" },
		{ "UTC", "2099-07-01T00:00:00Z", "2100-03-01", "2100-03-02T00:00:00.000Z",
		    "2100 is not a leap year" },
		{ "Australia/Sydney", "2026-06-15T00:00:00Z", "2027-03-01", "2027-03-01T13:00:00.000Z",
		    "Sydney in summer time (UTC+11) at the deadline" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char by[11] = "";
		int64_t due = hhs_annual_due_zone(t(cases[i].discovered), cases[i].zone, by);

		is_str(by, cases[i].by_date, "HHS annual in %s: %s: date (%s)", cases[i].zone,
		    cases[i].discovered, cases[i].why);
		is_str(iso(due), cases[i].due, "HHS annual in %s: %s: end of that day", cases[i].zone,
		    cases[i].discovered);
	}
}

static void
test_zone_dst(void)
{
	static const struct {
		const char *at;
		int offset;
		const char *abbr, *shown;
	} cases[] = {
		{ "2026-03-08T06:59:59Z", -300, "EST", "2026-03-08T01:59:59-05:00 EST" },
		{ "2026-03-08T07:00:00Z", -240, "EDT", "2026-03-08T03:00:00-04:00 EDT" },
		{ "2026-11-01T05:59:59Z", -240, "EDT", "2026-11-01T01:59:59-04:00 EDT" },
		{ "2026-11-01T06:00:00Z", -300, "EST", "2026-11-01T01:00:00-05:00 EST" },
	};
	static const struct {
		int y, m, d;
		const char *want, *why;
	} nights[] = {
		{ 2026, 3, 8, "2026-03-08T05:00:00.000Z", "the night summer time begins: midnight is EST" },
		{ 2026, 3, 9, "2026-03-09T04:00:00.000Z", "the next midnight is EDT: that day had 23 hours" },
		{ 2026, 11, 1, "2026-11-01T04:00:00.000Z", "the night summer time ends: midnight is EDT" },
		{ 2026, 11, 2, "2026-11-02T05:00:00.000Z", "the next midnight is EST: that day had 25 hours" },
		{ 2027, 1, 61, "2027-03-02T05:00:00.000Z", "day 61 of 2027 carries over to 2 March" },
	};
	char abbr[16], out[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		is_int(zone_offset("America/New_York", t(cases[i].at), abbr), cases[i].offset,
		    "New York offset at %s", cases[i].at);
		is_str(abbr, cases[i].abbr, "New York abbreviation at %s", cases[i].at);
		fmt_time_zone(t(cases[i].at), "America/New_York", out);
		is_str(out, cases[i].shown, "%s shown in New York", cases[i].at);
	}
	for (size_t i = 0; i < sizeof nights / sizeof nights[0]; i++)
		is_str(iso(zone_midnight("America/New_York", nights[i].y, nights[i].m, nights[i].d)),
		    nights[i].want, "midnight %04d-%02d-%02d in New York (%s)", nights[i].y, nights[i].m,
		    nights[i].d, nights[i].why);
}

static void
test_zone_names(void)
{
	struct aerr err = { 0 };
	int y, m, d;

	ok(zone_check("America/New_York", &err) == 0, "America/New_York is known");
	ok(zone_check("UTC", &err) == 0, "UTC is known");
	ok(zone_check("Mars/Olympus_Mons", &err) == AV_USAGE, "an unknown zone is refused");
	is_str(err.msg, "time zone 'Mars/Olympus_Mons': not in the system's zoneinfo "
	    "(/usr/share/zoneinfo; is the tzdata package installed?)", "naming it");
	ok(zone_check("../../etc/passwd", &err) == AV_USAGE, "a path is refused");
	ok(zone_check("/etc/localtime", &err) == AV_USAGE, "an absolute path is refused");
	ok(zone_check("EST5EDT,M3.2.0,M11.1.0", &err) == AV_USAGE, "a POSIX TZ rule is not a name");

	/* TZ is the process's: every conversion puts it back as it found it. */
	unsetenv("TZ");
	zone_date("Asia/Tokyo", t("2026-12-31T16:00:00Z"), &y, &m, &d);
	ok(getenv("TZ") == NULL, "TZ unset before is unset after");
	is_int(y * 10000 + m * 100 + d, 20270101, "Tokyo's date");
	setenv("TZ", "Europe/Paris", 1);
	(void)zone_offset("America/New_York", t("2026-06-01T00:00:00Z"), NULL);
	is_str(getenv("TZ"), "Europe/Paris", "TZ set before is the same after");
	unsetenv("TZ");
}

static void
test_clocks_zone(void)
{
	struct incident_facts f = { .phi = 'y', .individuals = 40, .state_residents = -1,
	    .vendor_sla_ms = -1, .vendor_discovered_ms = -1 };
	struct incident_clock c[CLOCK_COUNT];
	char text[96];

	/* No organisation zone: UTC, whatever zone the discovery was given in, and said to be assumed. */
	f.discovered_ms = t("2026-12-31T23:30:00-05:00");
	f.discovered_offset = -300;
	clocks_compute(&f, c);
	is_str(c[CLOCK_HHS].by_date, "2028-02-29", "no zone: the HHS date, already 2027 in UTC");
	clock_due_text(&c[CLOCK_HHS], text, sizeof text);
	is_str(text, "by 2028-02-29, end of day UTC (assumed: no zone set)",
	    "printed as the rule states it, UTC said to be assumed");
	clock_due_text(&c[CLOCK_HIPAA_INDIVIDUALS], text, sizeof text);
	is_str(text, "2027-03-02T04:30:00Z", "a 60-day clock stays a time, to the second, in UTC");
	is_str(c[CLOCK_HIPAA_INDIVIDUALS].by_date, "", "and has no date");

	/* The organisation's zone decides the year, whatever zone the discovery was given in. */
	f.discovered_offset = 0;
	f.zone = "America/New_York";
	clocks_compute(&f, c);
	is_str(c[CLOCK_HHS].by_date, "2027-03-01", "organisation zone: 2026 in New York");
	is_str(iso(c[CLOCK_HHS].due_ms), "2027-03-02T05:00:00.000Z", "end of 1 March in New York");
	clock_due_text(&c[CLOCK_HHS], text, sizeof text);
	is_str(text, "by 2027-03-01, end of day America/New_York", "the day's zone named");
	f.zone = "Asia/Tokyo";
	clocks_compute(&f, c);
	is_str(c[CLOCK_HHS].by_date, "2028-02-29", "organisation zone: already 2027 in Tokyo");
}

int
main(void)
{
	test_hhs_annual_zone();
	test_zone_dst();
	test_zone_names();
	test_clocks_zone();
	test_parse_time_zone();
	test_fmt_time_offset();
	test_hhs_annual();
	test_hipaa_60_days();
	test_clocks_compute();
	test_stops();
	test_notice_time();
	test_fmt_duration();
	return tap_done();
}
