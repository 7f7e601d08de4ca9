/*
 * questionnaire-typed.c: answers as people type them (a CSV cell, the
 * answer screen, "assess answer"): text turned into the question's typed
 * value, forgiving case, spaces and choice labels, and a value turned back
 * into the text they would type.
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

static char *
trimmed(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* The choices as they may be typed: each one's value, and its label beside it
 * where the label says more than the value (what a dropdown shows, also
 * accepted), separated by "; " when a label holds a comma. */
static char *
choice_labels(const struct q_question *qq)
{
	const char *sep = ", ";
	struct buf b;

	for (int i = 0; i < qq->nchoices; i++)
		if (strchr(qq->choices[i].label, ',') != NULL)
			sep = "; ";
	buf_init(&b);
	buf_adds(&b, "");
	for (int i = 0; i < qq->nchoices; i++) {
		const struct q_choice *c = &qq->choices[i];

		buf_printf(&b, "%s%s", i ? sep : "", c->value);
		if (strcasecmp(c->label, c->value) != 0)
			buf_printf(&b, " (%s)", c->label);
	}
	return buf_steal(&b);
}

/* A choice by its value or its label (what a dropdown shows), in any case; -1 for none. */
static int
choice_typed(const struct q_question *qq, const char *typed)
{
	char *low = xstrdup(typed);
	int i;

	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	i = choice_index(qq, low);
	free(low);
	for (int k = 0; i < 0 && k < qq->nchoices; k++)
		if (strcasecmp(qq->choices[k].label, typed) == 0)
			i = k;
	return i;
}

/* The vendor's words quoted as typed, and the choices as shown. */
static int
not_a_choice_typed(const struct q_question *qq, const char *typed, struct aerr *err)
{
	char *all = choice_labels(qq);

	aerr_set(err, AV_USAGE, "'%s' is not one of %s", typed, all);
	free(all);
	return AV_USAGE;
}

/* "30 days", "2 Weeks", "12 hours" as the short form (30d); NULL when it is none. */
static char *
duration_words(const char *t)
{
	static const struct { const char *word; char unit; } words[] = {
		{ "m", 'm' }, { "min", 'm' }, { "mins", 'm' }, { "minute", 'm' }, { "minutes", 'm' },
		{ "h", 'h' }, { "hr", 'h' }, { "hrs", 'h' }, { "hour", 'h' }, { "hours", 'h' },
		{ "d", 'd' }, { "day", 'd' }, { "days", 'd' },
		{ "w", 'w' }, { "wk", 'w' }, { "wks", 'w' }, { "week", 'w' }, { "weeks", 'w' } };
	size_t n = strspn(t, "0123456789");
	const char *u = t + n;

	if (n == 0 || n > 9)
		return NULL;
	while (*u == ' ')
		u++;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(u, words[i].word) == 0)
			return xasprintf("%.*s%c", (int)n, t, words[i].unit);
	return NULL;
}

/* A multi-choice answer: choices by value or label, separated by commas. */
static int
multi_from_text(const struct q_question *qq, char *t, cJSON **v, struct aerr *err)
{
	char *save = NULL, *tok;
	int *chosen = xcalloc((size_t)qq->nchoices + 1, sizeof *chosen);

	for (tok = strtok_r(t, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *one = trimmed(tok);
		int i = *one != '\0' ? choice_typed(qq, one) : -2;

		if (i == -1) {
			not_a_choice_typed(qq, one, err);
			free(one);
			free(chosen);
			return AV_USAGE;
		}
		if (i >= 0)
			chosen[i] = 1;
		free(one);
	}
	/* Stored in the questionnaire's order, so equal answers compare equal. */
	*v = cJSON_CreateArray();
	for (int i = 0; i < qq->nchoices; i++)
		if (chosen[i])
			cJSON_AddItemToArray(*v, cJSON_CreateString(qq->choices[i].value));
	free(chosen);
	return 0;
}

/* What the checks read from typed text; errors quote the text as typed. */
static int
value_from_text(const struct q_question *qq, const char *text, char *t, cJSON **v,
    struct aerr *err)
{
	char *end, *d;
	double n;
	int i;

	switch (qq->type) {
	case QT_MULTI:
		return multi_from_text(qq, t, v, err);
	case QT_YES_NO:
	case QT_SINGLE:
		if ((i = choice_typed(qq, t)) < 0)
			return not_a_choice_typed(qq, t, err);
		*v = cJSON_CreateString(qq->choices[i].value);
		return 0;
	case QT_NUMBER:
		errno = 0;
		n = strtod(t, &end);
		if (*end != '\0' || errno != 0 || !isfinite(n))
			return aerr_set(err, AV_USAGE, "'%s' is not a number", t);
		*v = cJSON_CreateNumber(n);
		return 0;
	case QT_TEXT:
		*v = cJSON_CreateString(text);   /* text is kept exactly as written */
		return 0;
	case QT_DURATION:
		if ((d = duration_words(t)) == NULL)
			return aerr_set(err, AV_USAGE, "'%s' is not a duration like 24h or 5d (units m, h, "
			    "d, w)", t);
		*v = cJSON_CreateString(d);
		free(d);
		return 0;
	default:
		if (!is_date(t))
			return aerr_set(err, AV_USAGE, "'%s' is not a date (YYYY-MM-DD)", t);
		*v = cJSON_CreateString(t);
		return 0;
	}
}

int
answer_from_text(const struct q_question *qq, const char *text, cJSON **value, struct aerr *err)
{
	char *t = trimmed(text);
	cJSON *v = NULL;
	int rc;

	*value = NULL;
	if (t == NULL)
		die("out of memory");
	if (*t == '\0' && qq->type != QT_MULTI) {
		free(t);
		return aerr_set(err, AV_USAGE, "the answer is empty");
	}
	rc = value_from_text(qq, text, t, &v, err);
	free(t);
	if (rc == 0 && (rc = answer_check(qq, v, err)) != 0) {
		cJSON_Delete(v);
		return rc;
	}
	*value = rc == 0 ? v : NULL;
	return rc;
}

char *
answer_to_text(const struct q_question *qq, const cJSON *value)
{
	struct buf b;
	const cJSON *c;

	(void)qq;
	if (value == NULL)
		return xstrdup("");
	if (cJSON_IsString(value))
		return xstrdup(value->valuestring);
	if (cJSON_IsNumber(value))
		return xasprintf("%.15g", value->valuedouble);
	buf_init(&b);
	cJSON_ArrayForEach(c, (cJSON_IsArray(value) ? value : NULL))
		buf_printf(&b, "%s%s", b.len ? "," : "", cJSON_IsString(c) ? c->valuestring : "?");
	return buf_steal(&b);
}
