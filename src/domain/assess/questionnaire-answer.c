/*
 * questionnaire-answer.c: what a question's answer may be and what it costs:
 * the names of the types and risks, an answer value checked against its
 * question, which choice it made, the risk it carries (a choice's, or a
 * number's band) and the allowed values as people read them.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "finding.h"
#include "probe.h"
#include "questionnaire.h"
#include "vendor.h"
#include "jsonpos.h"
#include "questionnaire-impl.h"

static const char *const risk_names[] = { "none", "low", "medium", "high", "critical" };
static const char *const type_names[] = { "yes_no", "single_choice", "multi_choice", "text",
	"number", "duration", "date" };

#define NTYPES ((int)(sizeof type_names / sizeof type_names[0]))

const char *
risk_name(int risk)
{
	return risk >= RISK_NONE && risk <= RISK_CRITICAL ? risk_names[risk] : "?";
}

int
risk_parse(const char *s)
{
	for (int i = RISK_NONE; i <= RISK_CRITICAL; i++)
		if (strcmp(s, risk_names[i]) == 0)
			return i;
	return -1;
}

const char *
q_type_name(int type)
{
	return type >= 0 && type < NTYPES ? type_names[type] : "?";
}

int
is_choice_type(int type)
{
	return type == QT_YES_NO || type == QT_SINGLE || type == QT_MULTI;
}

int
is_date(const char *s)
{
	int64_t ms;

	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return 0;
	return s[10] == '\0' && parse_time(s, &ms, NULL) == 0;
}

/* Lower-case letters, digits and the given extra punctuation, 1 to 64 characters. */
int
is_ident(const char *s, const char *extra)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return 0;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || strchr(extra, *p)))
			return 0;
	return 1;
}

/* ---- answer values ---- */

static char *
choice_list(const struct q_question *qq, const char *sep)
{
	struct buf b;

	buf_init(&b);
	for (int i = 0; i < qq->nchoices; i++)
		buf_printf(&b, "%s%s", i ? sep : "", qq->choices[i].value);
	return buf_steal(&b);
}

int
choice_index(const struct q_question *qq, const char *value)
{
	int lo = 0, hi = qq->nchoices;

	if (qq->by_value == NULL) {
		for (int i = 0; i < qq->nchoices; i++)
			if (strcmp(qq->choices[i].value, value) == 0)
				return i;
		return -1;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, c = strcmp(qq->choices[qq->by_value[mid]].value, value);

		if (c == 0)
			return qq->by_value[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int
not_a_choice(const struct q_question *qq, const char *value, struct aerr *err)
{
	char *all = choice_list(qq, ", ");

	aerr_set(err, AV_USAGE, "'%s' is not one of %s", value, all);
	free(all);
	return AV_USAGE;
}

int
answer_check(const struct q_question *qq, const cJSON *value, struct aerr *err)
{
	const cJSON *c;

	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		if (!cJSON_IsString(value)) {
			char *all = choice_list(qq, ", ");

			aerr_set(err, AV_USAGE, "needs one of %s", all);
			free(all);
			return AV_USAGE;
		}
		return choice_index(qq, value->valuestring) < 0 ? not_a_choice(qq, value->valuestring, err) : 0;
	case QT_MULTI: {
		char *seen;

		if (!cJSON_IsArray(value))
			return aerr_set(err, AV_USAGE, "needs a list of choices");
		/* One flag per choice: a long list stays linear. */
		seen = xcalloc((size_t)qq->nchoices + 1, 1);
		cJSON_ArrayForEach(c, value) {
			int k;

			if (!cJSON_IsString(c)) {
				free(seen);
				return aerr_set(err, AV_USAGE, "needs a list of choices");
			}
			if ((k = choice_index(qq, c->valuestring)) < 0) {
				free(seen);
				return not_a_choice(qq, c->valuestring, err);
			}
			if (seen[k]) {
				free(seen);
				return aerr_set(err, AV_USAGE, "'%s' is given twice", c->valuestring);
			}
			seen[k] = 1;
		}
		free(seen);
		return 0;
	}
	case QT_TEXT:
		if (!cJSON_IsString(value) || value->valuestring[0] == '\0')
			return aerr_set(err, AV_USAGE, "needs some text");
		return 0;
	case QT_NUMBER:
		if (!cJSON_IsNumber(value) || !isfinite(value->valuedouble))
			return aerr_set(err, AV_USAGE, "needs a number");
		/* A number answer is a quantity (tokens, days, people): never below 0. The
		 * workbook's own validation says the same (assess-xlsx.c). */
		if (value->valuedouble < 0)
			return aerr_set(err, AV_USAGE, "%.15g is below 0: the answer is a quantity (0 or more)",
			    value->valuedouble);
		return 0;
	case QT_DURATION: {
		int64_t s;

		if (!cJSON_IsString(value))
			return aerr_set(err, AV_USAGE, "needs a duration like 24h or 5d");
		if (duration_seconds(value->valuestring, &s) != 0)
			return aerr_set(err, AV_USAGE, "'%s' is not a duration like 24h or 5d (units m, h, d, w)",
			    value->valuestring);
		return 0;
	}
	case QT_DATE:
		if (!cJSON_IsString(value))
			return aerr_set(err, AV_USAGE, "needs a date (YYYY-MM-DD)");
		if (!is_date(value->valuestring))
			return aerr_set(err, AV_USAGE, "'%s' is not a date (YYYY-MM-DD)", value->valuestring);
		return 0;
	}
	return aerr_set(err, AV_USAGE, "question has no valid type");
}

int
answer_chose(const cJSON *value, const char *choice)
{
	const cJSON *c;

	if (choice == NULL)
		return 0;
	if (cJSON_IsString(value))
		return strcmp(value->valuestring, choice) == 0;
	cJSON_ArrayForEach(c, (cJSON_IsArray(value) ? value : NULL))
		if (cJSON_IsString(c) && strcmp(c->valuestring, choice) == 0)
			return 1;
	return 0;
}

static int
band_risk(const struct q_question *qq, double x)
{
	if (qq->nbands == 0)
		return RISK_NONE;
	for (int i = 0; i < qq->nbands; i++)
		if (x <= qq->bands[i].max)
			return qq->bands[i].risk;
	return qq->above;
}

int
answer_risk(const struct q_question *qq, const cJSON *value)
{
	const cJSON *c;
	int worst = RISK_NONE, i;
	int64_t s;

	if (value == NULL)
		return RISK_NONE;
	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		i = cJSON_IsString(value) ? choice_index(qq, value->valuestring) : -1;
		return i >= 0 ? qq->choices[i].risk : RISK_NONE;
	case QT_MULTI:
		cJSON_ArrayForEach(c, value)
			if (cJSON_IsString(c) && (i = choice_index(qq, c->valuestring)) >= 0 &&
			    qq->choices[i].risk > worst)
				worst = qq->choices[i].risk;
		return worst;
	case QT_NUMBER:
		return cJSON_IsNumber(value) ? band_risk(qq, value->valuedouble) : RISK_NONE;
	case QT_DURATION:
		return cJSON_IsString(value) && duration_seconds(value->valuestring, &s) == 0 ?
		    band_risk(qq, (double)s) : RISK_NONE;
	}
	return RISK_NONE;
}

char *
question_allowed(const struct q_question *qq)
{
	char *all, *s;

	switch (qq->type) {
	case QT_YES_NO:
	case QT_SINGLE:
		return choice_list(qq, "|");
	case QT_MULTI:
		all = choice_list(qq, "|");
		s = xasprintf("any of %s, separated by ','", all);
		free(all);
		return s;
	case QT_NUMBER:
		return xasprintf("number (%s)", qq->unit ? qq->unit : "");
	case QT_DURATION:
		return xstrdup("duration (e.g. 24h, 5d; units m, h, d, w)");
	case QT_DATE:
		return xstrdup("date (YYYY-MM-DD)");
	}
	return xstrdup("text");
}
