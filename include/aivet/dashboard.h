/*
 * dashboard.h: what the dashboard shows, read in one call (dashboard.c):
 * vendors by rating, assessments waiting for review, the notification clocks
 * that are overdue or due soon, open incidents and recent probe runs. The
 * screen only draws it.
 */
#ifndef AIVET_DASHBOARD_H
#define AIVET_DASHBOARD_H

#include "core.h"
#include "incident.h"
#include "rating.h"
#include "run-query.h"

struct dash_vendor {
	int64_t id;
	char name[101];
	struct vendor_verdict v;      /* vendor_rate's: the rating every surface shows */
};

struct dash_review {
	int64_t id;                   /* the assessment */
	char vendor[101], questionnaire[64], submitted_at[40];
	int round;
};

struct dashboard {
	/* Active vendors: rated worst first (within a rating the higher score first),
	 * then those with nothing to rate, by name; at most rows in all. */
	struct dash_vendor *vendors;
	int nvendors;
	/* Assessments in review, longest waiting first; at most rows. */
	struct dash_review *reviews;
	int nreviews;
	/* The clocks of open incidents overdue, or due within the window, worst
	 * (earliest due) first, as "incident due" lists them. */
	struct due_report clocks;
	int64_t window_ms;
	/* Open incidents, newest first, as "incident list" gives them; at most rows. */
	struct incident_list incidents;
	/* The newest probe runs, newest first, as "probe runs" lists them; at most rows. */
	struct probe_run_list runs;
};

/* Reads the dashboard at now; rows bounds each list but the clocks.
 * dashboard_free() releases it, also after an error. */
int dashboard_load(struct db *db, int64_t now, int rows, struct dashboard *d, struct aerr *err);
void dashboard_free(struct dashboard *d);

#endif
