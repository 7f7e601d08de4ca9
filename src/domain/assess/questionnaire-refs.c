/*
 * questionnaire-refs.c: the second pass of the checker: what a question names
 * outside itself, once every question is known: the question and values it
 * depends on, and the probes, findings and measures that verify, contradict
 * or measure its claim.
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

static const char *const depends_keys[] = { "question", "values", NULL };
static const char *const check_keys_allowed[] = { "probe", "confirms", "tenants", NULL };
static const char *const measure_keys_allowed[] = { "probe", "value", "tolerance", NULL };

/* Whether value is no answer to qq (why in e): for one-value questions an array
 * means "any of these answers", and must hold at least one. */
static int
not_an_answer(const struct q_question *qq, const cJSON *value, struct aerr *e)
{
	const cJSON *one;

	if (!cJSON_IsArray(value) || qq->type == QT_MULTI)
		return answer_check(qq, value, e) != 0;
	if (cJSON_GetArraySize(value) == 0) {
		snprintf(e->msg, sizeof e->msg, "must not be empty");
		return 1;
	}
	cJSON_ArrayForEach(one, value)
		if (answer_check(qq, one, e) != 0)
			return 1;
	return 0;
}

/* every_request (a claim about every request, which a sample of requests is
 * consistent with but never proves) and engine_fact (a fact the engine probe
 * reads of the serving nodes themselves: "disaggregation", prefill and decode
 * on separate nodes). */
static void
check_scope_keys(struct vctx *v, const cJSON *qn, const char *qpath, struct q_question *qq)
{
	const cJSON *every = cJSON_GetObjectItemCaseSensitive(qn, "every_request");
	const cJSON *fact = cJSON_GetObjectItemCaseSensitive(qn, "engine_fact");

	if (every != NULL && !cJSON_IsBool(every))
		problem_key(v, every, qpath, "every_request", "must be true or false");
	else
		qq->every_request = cJSON_IsTrue(every);
	if (fact == NULL)
		return;
	if (!cJSON_IsString(fact) || strcmp(fact->valuestring, "disaggregation") != 0)
		problem_key(v, fact, qpath, "engine_fact", "must be \"disaggregation\" (the one fact the "
		    "engine probe reads of the nodes' roles)");
	else if (qq->type >= 0 && qq->type != QT_YES_NO)
		problem_key(v, fact, qpath, "engine_fact", "only a yes_no question can be answered by an "
		    "engine fact");
	else
		qq->engine_fact = fact->valuestring;
}

/* claim, contradicted_by and measured_by: what the probes' evidence says of an answer. */
static void
check_claim_keys(struct vctx *v, const cJSON *qn, const char *qpath, struct q_question *qq)
{
	const cJSON *claim = cJSON_GetObjectItemCaseSensitive(qn, "claim");
	const cJSON *codes = want_array(v, qn, qpath, "contradicted_by", 0), *c, *m;
	int j = 0;

	if (claim != NULL && qq->type >= 0) {
		struct aerr e = { 0 };
		char *cp = path_key(qpath, "claim");

		if (not_an_answer(qq, claim, &e))
			problem(v, claim, 0, cp, "not an answer to this question: %s", e.msg);
		else
			qq->claim = claim;
		free(cp);
	}
	if (codes != NULL) {
		char *p = path_key(qpath, "contradicted_by");
		int good = 1;

		cJSON_ArrayForEach(c, codes) {
			char *cp = path_index(p, j++);

			if (!cJSON_IsString(c) || finding_lookup(c->valuestring) == NULL) {
				problem(v, c, 0, cp, "not a finding code of aivet (see aivet(1), FINDINGS)");
				good = 0;
			}
			free(cp);
		}
		if (good)
			qq->contradicted_by = codes;
		free(p);
	}
	if ((m = cJSON_GetObjectItemCaseSensitive(qn, "measured_by")) != NULL) {
		char *p = path_key(qpath, "measured_by");
		const char *probe, *value;
		const cJSON *tol;
		int known = 0;

		if (!cJSON_IsObject(m)) {
			problem(v, m, 0, p, "must be an object with probe, value and tolerance");
			free(p);
			return;
		}
		check_keys(v, m, p, measure_keys_allowed);
		probe = want_string(v, m, p, "probe", 1);
		value = want_string(v, m, p, "value", 1);
		tol = cJSON_GetObjectItemCaseSensitive(m, "tolerance");
		known = probe != NULL && probe_find(probe) != NULL;
		if (probe != NULL && !known)
			problem_key(v, cJSON_GetObjectItemCaseSensitive(m, "probe"), p, "probe",
			    "unknown probe '%s'", probe);
		else if (qq->type >= 0 && qq->type != QT_NUMBER)
			problem(v, m, 0, p, "only a number question can be measured");
		else if (tol != NULL && (!cJSON_IsNumber(tol) || tol->valuedouble < 0 || tol->valuedouble > 0.5))
			problem_key(v, tol, p, "tolerance", "must be a number from 0 to 0.5");
		else if (probe != NULL && value != NULL) {
			qq->measure.probe = probe;
			qq->measure.value = value;
			qq->measure.tolerance = tol ? tol->valuedouble : 0;
		}
		free(p);
	}
	check_scope_keys(v, qn, qpath, qq);
}

/* depends_on and verified_by refer to other questions and values: checked once all are read. */

/* depends_on's question (path p): it must come before question i and be a
 * yes_no or choice question. Its index, or -1 when it is none of those. */
static int
depends_target(struct vctx *v, struct questionnaire *q, int i, const cJSON *dep, const char *p)
{
	const char *target = want_string(v, dep, p, "question", 1);
	const cJSON *it;
	char *tp;
	int t;

	if (target == NULL)
		return -1;
	tp = path_key(p, "question");
	t = questionnaire_find(q, target);
	it = cJSON_GetObjectItemCaseSensitive(dep, "question");
	if (t < 0)
		problem(v, it, 0, tp, "unknown question '%s'", target);
	else if (t >= i)
		problem(v, it, 0, tp, "question '%s' does not come before this one", target);
	else if (!is_choice_type(q->questions[t].type))
		problem(v, it, 0, tp, "question '%s' is a %s question; depends_on needs a "
		    "yes_no or choice question", target, q_type_name(q->questions[t].type));
	free(tp);
	if (t >= i || (t >= 0 && !is_choice_type(q->questions[t].type)))
		t = -1;
	return t;
}

/* Question i's depends_on (path p): set on the question only when the
 * question it names and every one of its values are good. */
static void
check_depends_on(struct vctx *v, struct questionnaire *q, int i, const cJSON *dep, const char *p)
{
	struct q_question *qq = &q->questions[i];
	const cJSON *it;
	int t;

	if (!cJSON_IsObject(dep)) {
		problem(v, dep, 0, p, "must be an object with question and values");
		return;
	}
	check_keys(v, dep, p, depends_keys);
	t = depends_target(v, q, i, dep, p);
	if ((it = want_array(v, dep, p, "values", 1)) != NULL) {
		char *vp = path_key(p, "values");
		const cJSON *val;
		int j = 0, good = 1;

		cJSON_ArrayForEach(val, it) {
			char *ep = path_index(vp, j++);
			struct aerr e = { 0 };

			if (!cJSON_IsString(val)) {
				problem(v, val, 0, ep, "must be a string");
				good = 0;
			} else if (t >= 0 && answer_check(&q->questions[t], val, &e) != 0) {
				problem(v, val, 0, ep, "'%s' is not a choice of '%s'", val->valuestring,
				    q->questions[t].id);
				good = 0;
			}
			free(ep);
		}
		free(vp);
		if (t >= 0 && good) {
			qq->dep = t;
			qq->dep_values = it;
		}
	}
}

/* A check's confirms (in c, path cp): an answer to the question, or for a
 * one-value question an array meaning "any of these answers". 1 when good. */
static int
check_confirms(struct vctx *v, const struct q_question *qq, const cJSON *c, const char *cp,
    const cJSON **out)
{
	const cJSON *confirms = cJSON_GetObjectItemCaseSensitive(c, "confirms");
	struct aerr e = { 0 };
	char *fp;
	int bad;

	*out = confirms;
	if (confirms == NULL) {
		problem(v, c, 0, cp, "missing required key 'confirms'");
		return 0;
	}
	if (qq->type < 0)
		return 1;
	fp = path_key(cp, "confirms");
	if ((bad = not_an_answer(qq, confirms, &e)) != 0)
		problem(v, confirms, 0, fp, "not an answer to this question: %s", e.msg);
	free(fp);
	return !bad;
}

/* One entry of verified_by (c, path cp): a known probe not listed before, what
 * it confirms and for how many tenants; added to the question's checks when good. */
static void
check_one_check(struct vctx *v, struct q_question *qq, const cJSON *c, const char *cp)
{
	const char *probe;
	const cJSON *confirms, *t;
	int known = 0, good = 1;

	if (!cJSON_IsObject(c)) {
		problem(v, c, 0, cp, "must be an object with probe and confirms");
		return;
	}
	check_keys(v, c, cp, check_keys_allowed);
	probe = want_string(v, c, cp, "probe", 1);
	known = probe != NULL && probe_find(probe) != NULL;
	if (probe != NULL && !known) {
		struct buf names;

		buf_init(&names);
		probe_names_text(&names, ", ");
		problem_key(v, cJSON_GetObjectItemCaseSensitive(c, "probe"), cp, "probe", "unknown probe "
		    "'%s' (one of %s)", probe, names.data);
		buf_free(&names);
		good = 0;
	}
	for (int k = 0; probe != NULL && k < qq->nchecks; k++)
		if (strcmp(qq->checks[k].probe, probe) == 0) {
			problem(v, c, 0, cp, "probe '%s' is listed twice", probe);
			good = 0;
		}
	if (!check_confirms(v, qq, c, cp, &confirms))
		good = 0;
	t = cJSON_GetObjectItemCaseSensitive(c, "tenants");
	if (t != NULL && (!cJSON_IsNumber(t) || t->valuedouble != (int)t->valuedouble ||
	    t->valueint < 1 || t->valueint > 16)) {
		char *tp = path_key(cp, "tenants");

		problem(v, t, 0, tp, "must be a whole number from 1 to 16");
		free(tp);
		good = 0;
	}
	if (good && probe != NULL) {
		qq->checks[qq->nchecks].probe = probe;
		qq->checks[qq->nchecks].tenants = t ? t->valueint : 1;
		qq->checks[qq->nchecks++].confirms = confirms;
	}
}

void
check_references(struct vctx *v, struct questionnaire *q, struct qref *refs)
{
	for (int i = 0; i < q->nquestions; i++) {
		struct q_question *qq = &q->questions[i];
		const cJSON *qn = refs[i].node, *dep, *vb, *c;
		char *p;

		if ((dep = cJSON_GetObjectItemCaseSensitive(qn, "depends_on")) != NULL) {
			p = path_key(refs[i].path, "depends_on");
			check_depends_on(v, q, i, dep, p);
			free(p);
		}
		if ((vb = want_array(v, qn, refs[i].path, "verified_by", 0)) != NULL) {
			int j = 0;

			p = path_key(refs[i].path, "verified_by");
			qq->checks = xcalloc((size_t)cJSON_GetArraySize(vb), sizeof *qq->checks);
			cJSON_ArrayForEach(c, vb) {
				char *cp = path_index(p, j++);

				check_one_check(v, qq, c, cp);
				free(cp);
			}
			free(p);
		}
		check_claim_keys(v, qn, refs[i].path, qq);
	}
}
