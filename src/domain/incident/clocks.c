/*
 * clocks.c: the arithmetic of notification deadlines. Given the facts of an
 * incident (discovery time and its zone, PHI, counts, EU data, the vendor's
 * contractual notice time) it says which clocks apply, when each is due and,
 * once stops are recorded, whether it was met. Pure functions with no
 * database, so the rules are tested table by table.
 *
 * Where a fact is unknown the clock assumes the stricter case (PHI involved,
 * 500 or more individuals, EU personal data involved), so an open question
 * never hides a deadline.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "incident.h"
#include "zone.h"

#define MS_MINUTE ((int64_t)60 * 1000)
#define MS_HOUR (60 * MS_MINUTE)
#define MS_DAY (24 * MS_HOUR)
/* The notice time assumed while the contract's is unknown: the strictest the
 * questionnaires score as no risk (exposure_notification_time, 24h). */
#define CLOCK_UNKNOWN_NOTICE_MS (24 * MS_HOUR)

static const struct {
	const char *id, *name, *rule;
} clock_defs[CLOCK_COUNT] = {
	[CLOCK_HIPAA_INDIVIDUALS] = { "hipaa-individuals", "HIPAA notice to individuals",
	    "45 CFR 164.404: without unreasonable delay and at most 60 calendar days after discovery" },
	[CLOCK_HHS] = { "hhs", "HIPAA notice to HHS",
	    "45 CFR 164.408: with the individuals' notice when 500 or more individuals, else within "
	    "60 days after the end of the calendar year of discovery" },
	[CLOCK_MEDIA] = { "media", "HIPAA notice to media",
	    "45 CFR 164.406: when more than 500 residents of a state, at most 60 calendar days "
	    "after discovery" },
	[CLOCK_VENDOR_SLA] = { "vendor-sla", "Vendor's contractual notice",
	    "the vendor's questionnaire answer: notice within the stated time after it discovered "
	    "the incident; stopped by a vendor-notice entry" },
	[CLOCK_GDPR_SA] = { "gdpr-sa", "GDPR supervisory authority",
	    "GDPR Art. 33: without undue delay and within 72 hours after becoming aware, when EU "
	    "personal data is involved" },
};

int
clock_index(const char *id)
{
	for (int i = 0; i < CLOCK_COUNT; i++)
		if (strcmp(clock_defs[i].id, id) == 0)
			return i;
	return -1;
}

const char *
clock_id(int index)
{
	return index >= 0 && index < CLOCK_COUNT ? clock_defs[index].id : NULL;
}

int64_t
hhs_annual_due(int64_t discovered_ms, int offset_min)
{
	int64_t local = discovered_ms + offset_min * MS_MINUTE;
	time_t secs = (time_t)(local >= 0 ? local / 1000 : (local - 999) / 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	/* 1 January of the next year, midnight in the discovery's zone, then 60 days. */
	tm.tm_year += 1;
	tm.tm_mon = 0;
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	return (int64_t)timegm(&tm) * 1000 - offset_min * MS_MINUTE + 60 * MS_DAY;
}

int64_t
hhs_annual_due_zone(int64_t discovered_ms, const char *zone, char by_date[11])
{
	int y, m, d;
	int64_t due;

	zone_date(zone, discovered_ms, &y, &m, &d);
	/* Day 60 after 31 December is 1 March, or 29 February in a leap year; the
	 * deadline is the end of that local day, the start of the next. */
	due = zone_midnight(zone, y + 1, 1, 61);
	zone_date(zone, due - 1, &y, &m, &d);
	snprintf(by_date, 11, "%04d-%02d-%02d", y % 10000, m % 100, d % 100);
	return due;
}

void
clock_due_text(const struct incident_clock *c, char *out, size_t n)
{
	char t[40];

	/* A day ends in a zone: named, and said to be assumed until the database names one. */
	if (c->by_date[0] != '\0') {
		snprintf(out, n, "by %s, end of day %s%s", c->by_date, c->zone ? c->zone : "UTC",
		    c->zone_assumed ? " (assumed: no zone set)" : "");
		return;
	}
	/* An instant names its zone: the organisation's clock when it has one, else UTC (Z). */
	if (org_zone() != NULL) {
		char z[64];

		fmt_time_zone(c->due_ms, org_zone(), z);
		snprintf(out, n, "%s", z);
		return;
	}
	fmt_time_offset(c->due_ms, 0, t);
	snprintf(out, n, "%s", t);
}

static void
set_basis(struct incident_clock *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
set_basis(struct incident_clock *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->basis, sizeof c->basis, fmt, ap);
	va_end(ap);
}

/* The HIPAA clocks need PHI; unknown counts as involved until decided. */
static int
hipaa_applies(const struct incident_facts *f, struct incident_clock *c)
{
	if (f->phi == 'n') {
		set_basis(c, "no PHI involved");
		return 0;
	}
	return 1;
}

static const char *
phi_note(const struct incident_facts *f)
{
	return f->phi == 'y' ? "PHI involved" : "PHI involvement unknown: assumed involved";
}

static void
clocks_init(const struct incident_facts *f, struct incident_clock out[CLOCK_COUNT])
{
	for (int i = 0; i < CLOCK_COUNT; i++) {
		struct incident_clock *c = &out[i];

		memset(c, 0, sizeof *c);
		c->id = clock_defs[i].id;
		c->name = clock_defs[i].name;
		c->rule = clock_defs[i].rule;
		c->start_ms = f->discovered_ms;
		c->due_ms = -1;
		c->stopped_ms = -1;
	}
}

static void
clock_hhs(const struct incident_facts *f, struct incident_clock *c)
{
	if (f->individuals >= 500) {
		c->due_ms = f->discovered_ms + 60 * MS_DAY;
		set_basis(c, "%s; %lld individuals (500 or more): with the individuals' notice",
		    phi_note(f), (long long)f->individuals);
	} else if (f->individuals < 0) {
		c->due_ms = f->discovered_ms + 60 * MS_DAY;
		set_basis(c, "%s; number of individuals unknown: assumed 500 or more", phi_note(f));
	} else {
		/* The year and the day end in the organisation's zone, whoever asks. */
		c->zone = f->zone != NULL ? f->zone : "UTC";
		c->zone_assumed = f->zone == NULL;
		c->due_ms = hhs_annual_due_zone(f->discovered_ms, c->zone, c->by_date);
		set_basis(c, "%s; %lld individuals (fewer than 500): annual log, 60 days after "
		    "the end of the calendar year of discovery", phi_note(f),
		    (long long)f->individuals);
	}
}

static void
clock_media(const struct incident_facts *f, struct incident_clock *c)
{
	if (f->state_residents > 500) {
		set_basis(c, "%s; %lld residents of one state (more than 500)", phi_note(f),
		    (long long)f->state_residents);
	} else if (f->state_residents >= 0) {
		c->applies = 0;
		set_basis(c, "at most %lld residents of any one state (500 or fewer)",
		    (long long)f->state_residents);
	} else if (f->individuals >= 0 && f->individuals <= 500) {
		/* Residents of one state cannot outnumber the individuals. */
		c->applies = 0;
		set_basis(c, "%lld individuals in all, so no state has more than 500",
		    (long long)f->individuals);
	} else if (f->individuals > 500) {
		set_basis(c, "%s; %lld individuals and residents per state unknown: assumed more "
		    "than 500 in one state (give --state-residents)", phi_note(f),
		    (long long)f->individuals);
	} else {
		set_basis(c, "%s; number of individuals unknown: assumed more than 500 residents "
		    "of one state", phi_note(f));
	}
	if (c->applies)
		c->due_ms = f->discovered_ms + 60 * MS_DAY;
}

/*
 * Unknown is not no: a notice time never answered nor given keeps the clock
 * running, due at the strictest time the questionnaires score as no risk
 * (CLOCK_UNKNOWN_NOTICE_MS), until the contract's time (or that it has none)
 * is given. Only a stated "none" stops it.
 */
static void
clock_vendor(const struct incident_facts *f, struct incident_clock *c)
{
	char assumed[16];
	const char *from = f->vendor_discovered_ms >= 0 ? "from the vendor's own discovery" :
	    "from the incident's discovery (the vendor's own discovery time is not recorded)";

	if (f->vendor_sla_ms < 0 && !f->vendor_sla_unknown) {
		set_basis(c, "no contractual notification time (stated none%s%s)",
		    f->vendor_sla_source[0] ? ", " : "", f->vendor_sla_source);
		return;
	}
	c->applies = 1;
	if (f->vendor_discovered_ms >= 0)
		c->start_ms = f->vendor_discovered_ms;
	if (f->vendor_sla_unknown) {
		fmt_notice_time(CLOCK_UNKNOWN_NOTICE_MS / 1000, assumed, sizeof assumed);
		c->due_ms = c->start_ms + CLOCK_UNKNOWN_NOTICE_MS;
		set_basis(c, "contract: notice time unknown (not answered or given), may apply: "
		    "assumed %s, the strictest, until given (--vendor-sla), %s", assumed, from);
		return;
	}
	set_basis(c, "%s (%s), %s", f->vendor_sla_text, f->vendor_sla_source, from);
	c->due_ms = c->start_ms + f->vendor_sla_ms;
}

static void
clock_gdpr(const struct incident_facts *f, struct incident_clock *c)
{
	/* Unknown is not no: the clock runs until EU data is ruled out. */
	if (f->eu_data == 0) {
		set_basis(c, "no EU personal data involved");
		return;
	}
	c->applies = 1;
	c->due_ms = f->discovered_ms + 72 * MS_HOUR;
	set_basis(c, "%s", f->eu_data > 0 ? "EU personal data involved" :
	    "EU personal data unknown: may apply, assumed involved until ruled out (--eu-data no)");
}

void
clocks_compute(const struct incident_facts *f, struct incident_clock out[CLOCK_COUNT])
{
	clocks_init(f, out);
	if ((out[CLOCK_HIPAA_INDIVIDUALS].applies = hipaa_applies(f, &out[CLOCK_HIPAA_INDIVIDUALS]))) {
		out[CLOCK_HIPAA_INDIVIDUALS].due_ms = f->discovered_ms + 60 * MS_DAY;
		set_basis(&out[CLOCK_HIPAA_INDIVIDUALS], "%s", phi_note(f));
	}
	if ((out[CLOCK_HHS].applies = hipaa_applies(f, &out[CLOCK_HHS])))
		clock_hhs(f, &out[CLOCK_HHS]);
	if ((out[CLOCK_MEDIA].applies = hipaa_applies(f, &out[CLOCK_MEDIA])))
		clock_media(f, &out[CLOCK_MEDIA]);
	clock_vendor(f, &out[CLOCK_VENDOR_SLA]);
	clock_gdpr(f, &out[CLOCK_GDPR_SA]);

	/* The due time as each surface prints it, once, beside the arithmetic. */
	for (int i = 0; i < CLOCK_COUNT; i++) {
		struct incident_clock *c = &out[i];

		if (!c->applies)
			continue;
		clock_due_text(c, c->due_text, sizeof c->due_text);
		fmt_time_offset(c->due_ms, f->discovered_offset, c->due_local);
		if (org_zone() != NULL)
			fmt_time_zone(c->due_ms, org_zone(), c->due_org);
	}
}

void
clocks_as_of(struct incident_clock c[CLOCK_COUNT], int64_t now)
{
	for (int i = 0; i < CLOCK_COUNT; i++) {
		c[i].state = clock_state(&c[i], now);
		if (!c[i].applies)
			c[i].seconds_left = 0;
		else if (c[i].stopped_ms >= 0)   /* the margin at the stop: negative when late */
			c[i].seconds_left = (c[i].due_ms - c[i].stopped_ms) / 1000;
		else
			c[i].seconds_left = (c[i].due_ms - now) / 1000;
	}
}

cJSON *
incident_clock_to_json(const struct incident_clock *c)
{
	cJSON *o = cJSON_CreateObject();
	char t[40];

	cJSON_AddStringToObject(o, "id", c->id);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddBoolToObject(o, "applies", c->applies);
	cJSON_AddStringToObject(o, "state", c->state);
	cJSON_AddStringToObject(o, "basis", c->basis);
	cJSON_AddStringToObject(o, "rule", c->rule);
	if (!c->applies) {
		static const char *const nulls[] = { "start", "due", "due_local", "due_date", "due_text",
		    "due_org", "stopped_at", "stopped_by_entry", "seconds_left" };

		for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
			cJSON_AddNullToObject(o, nulls[i]);
		return o;
	}
	fmt_time_ms(c->start_ms, t);
	cJSON_AddStringToObject(o, "start", t);
	fmt_time_ms(c->due_ms, t);
	cJSON_AddStringToObject(o, "due", t);
	cJSON_AddStringToObject(o, "due_local", c->due_local);
	json_add_str(o, "due_date", c->by_date[0] != '\0' ? c->by_date : NULL);
	cJSON_AddStringToObject(o, "due_text", c->due_text);
	json_add_str(o, "due_org", c->due_org[0] != '\0' ? c->due_org : NULL);
	if (c->stopped_ms >= 0) {
		fmt_time_ms(c->stopped_ms, t);
		cJSON_AddStringToObject(o, "stopped_at", t);
		cJSON_AddNumberToObject(o, "stopped_by_entry", (double)c->stop_entry);
	} else {
		cJSON_AddNullToObject(o, "stopped_at");
		cJSON_AddNullToObject(o, "stopped_by_entry");
	}
	cJSON_AddNumberToObject(o, "seconds_left", (double)c->seconds_left);
	return o;
}

void
clock_stop(struct incident_clock *c, int64_t at_ms, int64_t entry_id)
{
	if (c->stopped_ms < 0 || at_ms < c->stopped_ms) {
		c->stopped_ms = at_ms;
		c->stop_entry = entry_id;
	}
}

const char *
clock_state(const struct incident_clock *c, int64_t now)
{
	if (!c->applies)
		return "not-applicable";
	if (c->stopped_ms >= 0)
		return c->stopped_ms <= c->due_ms ? "met" : "late";
	return now <= c->due_ms ? "running" : "overdue";
}

const struct incident_clock *
clocks_next_due(const struct incident_clock c[CLOCK_COUNT], int64_t now,
    const struct incident_clock *overdue[CLOCK_COUNT], int *noverdue)
{
	const struct incident_clock *next = NULL;

	*noverdue = 0;
	for (int i = 0; i < CLOCK_COUNT; i++) {
		const char *state = clock_state(&c[i], now);
		int over = strcmp(state, "overdue") == 0;

		if (over)
			overdue[(*noverdue)++] = &c[i];
		if ((over || strcmp(state, "running") == 0) && (next == NULL || c[i].due_ms < next->due_ms))
			next = &c[i];
	}
	return next;
}

void
fmt_notice_time(int64_t seconds, char *out, size_t n)
{
	/* As contracts write them: hours up to three days, then days or weeks. */
	if (seconds % (7 * 86400) == 0 && seconds >= 14 * 86400)
		snprintf(out, n, "%lldw", (long long)(seconds / (7 * 86400)));
	else if (seconds % 86400 == 0 && seconds >= 4 * 86400)
		snprintf(out, n, "%lldd", (long long)(seconds / 86400));
	else if (seconds % 3600 == 0)
		snprintf(out, n, "%lldh", (long long)(seconds / 3600));
	else
		snprintf(out, n, "%lldm", (long long)(seconds / 60));
}

void
fmt_duration(int64_t ms, char *out, size_t n)
{
	int64_t m = (ms < 0 ? -ms : ms) / MS_MINUTE;
	long long d = m / (24 * 60), h = m / 60 % 24, mi = m % 60;

	if (d > 0)
		snprintf(out, n, "%lldd %02lldh", d, h);
	else if (h > 0)
		snprintf(out, n, "%lldh %02lldm", h, mi);
	else
		snprintf(out, n, "%lldm", mi);
}
