/*
 * questionnaire-check.c: a questionnaire file checked whole: its keys, its
 * sections and questions, each question's type with its choices or bands,
 * then (questionnaire-refs.c) what questions name of each other and of the
 * probes. The file's in-memory form is filled as it is checked. The whole
 * file is checked before anything is used, and every problem is reported at
 * once with its file:line:column and JSON path, so an author fixes a file in
 * one pass (questionnaire_check, questionnaire_parse).
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

static const char *const top_keys[] = { "id", "version", "title", "description", "sections", NULL };
static const char *const section_keys[] = { "id", "title", "description", "questions", NULL };
static const char *const question_keys[] = { "id", "text", "help", "type", "unit", "choices",
	"bands", "above", "weight", "required", "depends_on", "references", "verified_by", "claim", "contradicted_by", "measured_by",
	"every_request", "engine_fact", NULL };
static const char *const choice_keys[] = { "value", "label", "risk", NULL };
static const char *const band_keys[] = { "max", "risk", NULL };

struct id_pos {
	const char *id;
	int i;
};

static int
by_id_cmp(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

/* A choice value given twice: the later one is reported and dropped, then
 * the rest are indexed by value. Sorting keeps this O(n log n). */
static void
index_choices(struct vctx *v, struct q_question *qq, struct id_pos *pos, const cJSON **node,
    const int *where, const char *apath)
{
	char *drop = xcalloc((size_t)qq->nchoices + 1, 1);
	int k = 0;

	qsort(pos, (size_t)qq->nchoices, sizeof *pos, by_id_cmp);
	for (int j = 1; j < qq->nchoices; j++)
		if (strcmp(pos[j - 1].id, pos[j].id) == 0) {
			int c = pos[j].i;
			char *cp = path_index(apath, where[c]), *vp = path_key(cp, "value");

			problem(v, cJSON_GetObjectItemCaseSensitive(node[c], "value"), 0, vp,
			    "duplicate choice '%s'", pos[j].id);
			free(vp);
			free(cp);
			drop[c] = 1;
		}
	/* Keep file order; then the index over what is kept. */
	{
		int *newi = xcalloc((size_t)qq->nchoices + 1, sizeof *newi);

		for (int j = 0; j < qq->nchoices; j++) {
			newi[j] = k;
			if (!drop[j])
				qq->choices[k++] = qq->choices[j];
		}
		qq->by_value = xcalloc((size_t)k + 1, sizeof *qq->by_value);
		for (int j = 0, m = 0; j < qq->nchoices; j++)
			if (!drop[pos[j].i])
				qq->by_value[m++] = newi[pos[j].i];
		free(newi);
	}
	qq->nchoices = k;
	free(drop);
}

static void
check_choices(struct vctx *v, struct q_question *qq, const cJSON *qn, const char *qpath)
{
	const cJSON *arr = want_array(v, qn, qpath, "choices", 1), *c, **node;
	struct id_pos *pos;
	char *apath;
	int i = 0, *where;
	size_t n;

	if (arr == NULL)
		return;
	apath = path_key(qpath, "choices");
	n = (size_t)cJSON_GetArraySize(arr) + 1;
	qq->choices = xcalloc(n, sizeof *qq->choices);
	pos = xcalloc(n, sizeof *pos);
	node = xcalloc(n, sizeof *node);
	where = xcalloc(n, sizeof *where);
	cJSON_ArrayForEach(c, arr) {
		char *cp = path_index(apath, i++);
		const char *value;
		const cJSON *risk;
		int r;

		if (!cJSON_IsObject(c)) {
			problem(v, c, 0, cp, "a choice must be an object with value, label and risk");
			free(cp);
			continue;
		}
		check_keys(v, c, cp, choice_keys);
		value = want_string(v, c, cp, "value", 1);
		if (value != NULL && !is_ident(value, "_-")) {
			char *vp = path_key(cp, "value");

			problem(v, cJSON_GetObjectItemCaseSensitive(c, "value"), 0, vp,
			    "choice value '%s' must be lower-case letters, digits, '_' and '-'", value);
			free(vp);
			value = NULL;
		}
		risk = cJSON_GetObjectItemCaseSensitive(c, "risk");
		r = RISK_NONE;
		if (risk == NULL) {
			problem(v, c, 0, cp, "choice '%s' has no risk", value ? value : "?");
		} else {
			char *rp = path_key(cp, "risk");

			r = want_risk(v, risk, rp);
			free(rp);
		}
		/* Kept even with a bad risk, so later checks do not report the same choice again. */
		if (value != NULL) {
			struct q_choice *ch = &qq->choices[qq->nchoices];
			const char *label = want_string(v, c, cp, "label", 0);

			ch->value = value;
			ch->label = label ? label : value;
			ch->risk = r < 0 ? RISK_NONE : r;
			pos[qq->nchoices].id = value;
			pos[qq->nchoices].i = qq->nchoices;
			node[qq->nchoices] = c;
			where[qq->nchoices++] = i - 1;
		}
		free(cp);
	}
	index_choices(v, qq, pos, node, where, apath);
	free(pos);
	free(node);
	free(where);
	if (qq->type == QT_YES_NO) {
		int yes = 0, no = 0;

		cJSON_ArrayForEach(c, arr) {
			const cJSON *val = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "value") : NULL;

			yes += cJSON_IsString(val) && strcmp(val->valuestring, "yes") == 0;
			no += cJSON_IsString(val) && strcmp(val->valuestring, "no") == 0;
		}
		if (cJSON_GetArraySize(arr) != 2 || yes != 1 || no != 1)
			problem(v, arr, 0, apath, "a yes_no question needs exactly the choices 'yes' and 'no'");
	}
	free(apath);
}

static void
check_bands(struct vctx *v, struct q_question *qq, const cJSON *qn, const char *qpath)
{
	const cJSON *arr = want_array(v, qn, qpath, "bands", 0), *b, *above;
	char *apath;
	int i = 0;

	if (arr == NULL)
		return;
	apath = path_key(qpath, "bands");
	qq->bands = xcalloc((size_t)cJSON_GetArraySize(arr), sizeof *qq->bands);
	cJSON_ArrayForEach(b, arr) {
		char *bp = path_index(apath, i++);
		const cJSON *max, *risk;
		double m = 0;
		int ok = 1, r = -1;

		if (!cJSON_IsObject(b)) {
			problem(v, b, 0, bp, "a band must be an object with max and risk");
			free(bp);
			continue;
		}
		check_keys(v, b, bp, band_keys);
		max = cJSON_GetObjectItemCaseSensitive(b, "max");
		risk = cJSON_GetObjectItemCaseSensitive(b, "risk");
		if (max == NULL) {
			problem(v, b, 0, bp, "missing required key 'max'");
			ok = 0;
		} else if (qq->type == QT_NUMBER ? !cJSON_IsNumber(max) : !cJSON_IsString(max)) {
			problem_key(v, max, bp, "max", qq->type == QT_NUMBER ? "must be a number" :
			    "must be a duration like \"24h\" or \"5d\"");
			ok = 0;
		} else if (qq->type == QT_NUMBER) {
			m = max->valuedouble;
		} else {
			int64_t s;

			if (duration_seconds(max->valuestring, &s) != 0) {
				problem_key(v, max, bp, "max", "'%s' is not a duration like 24h or 5d (units m, h, d, w)",
				    max->valuestring);
				ok = 0;
			}
			m = ok ? (double)s : 0;
		}
		if (risk == NULL) {
			problem(v, b, 0, bp, "missing required key 'risk'");
		} else {
			char *rp = path_key(bp, "risk");

			r = want_risk(v, risk, rp);
			free(rp);
		}
		if (ok && qq->nbands > 0 && m <= qq->bands[qq->nbands - 1].max) {
			problem(v, b, 0, bp, "bands must be in increasing order of max");
			ok = 0;
		}
		if (ok && r >= 0) {
			qq->bands[qq->nbands].max = m;
			qq->bands[qq->nbands++].risk = r;
		}
		free(bp);
	}
	above = cJSON_GetObjectItemCaseSensitive(qn, "above");
	if (above == NULL) {
		problem(v, qn, 0, qpath, "missing required key 'above' (the risk beyond the last band)");
	} else {
		char *ap = path_key(qpath, "above");

		qq->above = want_risk(v, above, ap);
		free(ap);
	}
	free(apath);
}

static void
check_question(struct vctx *v, struct questionnaire *q, struct qref *refs, const cJSON *qn,
    const char *qpath)
{
	struct q_question *qq = &q->questions[q->nquestions];
	const char *id, *type;
	const cJSON *it;

	memset(qq, 0, sizeof *qq);
	qq->dep = -1;
	qq->section = q->nsections;
	qq->weight = 1;
	qq->type = -1;
	check_keys(v, qn, qpath, question_keys);
	id = want_string(v, qn, qpath, "id", 1);
	if (id != NULL && !is_ident(id, "_")) {
		char *p = path_key(qpath, "id");

		problem(v, cJSON_GetObjectItemCaseSensitive(qn, "id"), 0, p,
		    "question id '%s' must be lower-case letters, digits and '_'", id);
		free(p);
		id = NULL;
	}
	qq->id = id ? id : "";
	qq->text = want_string(v, qn, qpath, "text", 1);
	qq->help = want_string(v, qn, qpath, "help", 0);
	type = want_string(v, qn, qpath, "type", 1);
	for (int i = QT_YES_NO; type != NULL && i <= QT_DATE; i++)
		if (strcmp(type, q_type_name(i)) == 0)
			qq->type = i;
	if (type != NULL && qq->type < 0) {
		problem_key(v, cJSON_GetObjectItemCaseSensitive(qn, "type"), qpath, "type", "unknown type '%s' (one of "
		    "yes_no, single_choice, multi_choice, text, number, duration, date)", type);
	}
	if (qq->type >= 0) {
		if (is_choice_type(qq->type)) {
			check_choices(v, qq, qn, qpath);
		} else if ((it = cJSON_GetObjectItemCaseSensitive(qn, "choices")) != NULL) {
			problem_key(v, it, qpath, "choices", "a %s question has no choices", type);
		}
		if (qq->type == QT_NUMBER) {
			qq->unit = want_string(v, qn, qpath, "unit", 1);
		} else if ((it = cJSON_GetObjectItemCaseSensitive(qn, "unit")) != NULL) {
			problem_key(v, it, qpath, "unit", "only number questions have a unit");
		}
		if (qq->type == QT_NUMBER || qq->type == QT_DURATION) {
			check_bands(v, qq, qn, qpath);
		} else {
			static const char *const band_only[] = { "bands", "above" };

			for (int i = 0; i < 2; i++)
				if ((it = cJSON_GetObjectItemCaseSensitive(qn, band_only[i])) != NULL) {
					char *p = path_key(qpath, band_only[i]);

					problem(v, it, 0, p, "only number and duration questions have bands");
					free(p);
				}
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "weight")) != NULL) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 100) {
			problem_key(v, it, qpath, "weight", "must be a number from 0 to 100");
		} else {
			qq->weight = it->valuedouble;
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "required")) != NULL) {
		if (!cJSON_IsBool(it)) {
			problem_key(v, it, qpath, "required", "must be true or false");
		} else {
			qq->required = cJSON_IsTrue(it);
		}
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(qn, "references")) != NULL) {
		char *p = path_key(qpath, "references");
		const cJSON *r;
		int i = 0, bad = !cJSON_IsArray(it);

		cJSON_ArrayForEach(r, (cJSON_IsArray(it) ? it : NULL)) {
			if (!cJSON_IsString(r) || r->valuestring[0] == '\0') {
				char *rp = path_index(p, i);

				problem(v, r, 0, rp, "a reference must be a non-empty string");
				free(rp);
			}
			i++;
		}
		if (bad)
			problem(v, it, 0, p, "must be an array of strings");
		cJSON_ArrayForEach(r, (cJSON_IsArray(it) ? it : NULL))
			if (cJSON_IsString(r)) {
				qq->references = xrealloc(qq->references, sizeof *qq->references *
				    (size_t)(qq->nreferences + 1));
				qq->references[qq->nreferences++] = r->valuestring;
			}
		free(p);
	}
	refs[q->nquestions].node = qn;
	refs[q->nquestions].path = xstrdup(qpath);
	q->nquestions++;
}

/* The sorted index behind questionnaire_find, and with it the duplicate ids
 * (the later of two equal ids names the first): O(n log n) for n questions. */
/* Section ids given twice: the later is reported (and loses its id). */
static void
index_sections(struct vctx *v, struct questionnaire *q, const cJSON *secs)
{
	struct id_pos *ids = xcalloc((size_t)q->nsections + 1, sizeof *ids);
	const cJSON **node = xcalloc((size_t)q->nsections + 1, sizeof *node);
	int *at = xcalloc((size_t)q->nsections + 1, sizeof *at);
	const cJSON *s;
	int n = 0, ai = 0, first = 0;

	/* Sections that are not objects were skipped when read: map back to the array. */
	cJSON_ArrayForEach(s, secs) {
		if (cJSON_IsObject(s) && n < q->nsections)
			node[n] = s, at[n++] = ai;
		ai++;
	}
	for (int i = 0; i < q->nsections; i++)
		ids[i].id = q->sections[i].id, ids[i].i = i;
	qsort(ids, (size_t)q->nsections, sizeof *ids, by_id_cmp);
	for (int k = 0; k < q->nsections; k++) {
		int i = ids[k].i;
		char *sp, *p;

		if (k == 0 || strcmp(ids[k - 1].id, ids[k].id) != 0) {
			first = i;
			continue;
		}
		if (*ids[k].id == '\0' || i >= n)
			continue;
		sp = path_index("sections", at[i]);
		p = path_key(sp, "id");
		problem(v, cJSON_GetObjectItemCaseSensitive(node[i], "id"), 0, p,
		    "duplicate section id '%s' (first at sections[%d])", ids[k].id, first);
		q->sections[i].id = "";
		free(p);
		free(sp);
	}
	free(node);
	free(at);
	free(ids);
}

static void
index_questions(struct vctx *v, struct questionnaire *q, struct qref *refs)
{
	struct id_pos *ids = xcalloc((size_t)q->nquestions + 1, sizeof *ids);
	int first = 0;

	for (int i = 0; i < q->nquestions; i++)
		ids[i].id = q->questions[i].id, ids[i].i = i;
	qsort(ids, (size_t)q->nquestions, sizeof *ids, by_id_cmp);
	q->by_id = xcalloc((size_t)q->nquestions + 1, sizeof *q->by_id);
	for (int k = 0; k < q->nquestions; k++) {
		int i = ids[k].i;
		char *p;

		q->by_id[k] = i;
		if (k == 0 || strcmp(ids[k - 1].id, ids[k].id) != 0) {
			first = i;
			continue;
		}
		if (*ids[k].id == '\0')
			continue;   /* no id, reported already */
		p = path_key(refs[i].path, "id");
		problem(v, cJSON_GetObjectItemCaseSensitive(refs[i].node, "id"), 0, p,
		    "duplicate question id '%s' (first at %s)", ids[k].id, refs[first].path);
		free(p);
	}
	free(ids);
}

static void
check_root(struct vctx *v, struct questionnaire *q)
{
	const cJSON *root = v->root, *it, *secs, *s;
	struct qref *refs;
	int nq = 0, si = 0;

	if (!cJSON_IsObject(root)) {
		problem(v, root, 0, "", "a questionnaire must be a JSON object");
		return;
	}
	check_keys(v, root, "", top_keys);
	q->qid = want_string(v, root, "", "id", 1);
	if (q->qid != NULL && !is_ident(q->qid, "-")) {
		problem(v, cJSON_GetObjectItemCaseSensitive(root, "id"), 0, "id",
		    "questionnaire id '%s' must be lower-case letters, digits and '-'", q->qid);
		q->qid = NULL;
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (it == NULL)
		problem(v, root, 0, "", "missing required key 'version'");
	else if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 1e9 ||
	    it->valuedouble != floor(it->valuedouble))
		problem(v, it, 0, "version", "must be a whole number from 1");
	else
		q->version = (int64_t)it->valuedouble;
	q->title = want_string(v, root, "", "title", 1);
	q->description = want_string(v, root, "", "description", 0);
	if ((secs = want_array(v, root, "", "sections", 1)) == NULL)
		return;
	cJSON_ArrayForEach(s, secs) {
		const cJSON *qs = cJSON_IsObject(s) ? cJSON_GetObjectItemCaseSensitive(s, "questions") : NULL;

		nq += cJSON_GetArraySize(qs);
	}
	q->sections = xcalloc((size_t)cJSON_GetArraySize(secs), sizeof *q->sections);
	q->questions = xcalloc((size_t)nq, sizeof *q->questions);
	refs = xcalloc((size_t)nq, sizeof *refs);
	cJSON_ArrayForEach(s, secs) {
		char *sp = path_index("sections", si++);
		struct q_section *sec = &q->sections[q->nsections];
		const cJSON *qs, *qn;
		int qi = 0;

		if (!cJSON_IsObject(s)) {
			problem(v, s, 0, sp, "a section must be an object");
			free(sp);
			continue;
		}
		check_keys(v, s, sp, section_keys);
		sec->id = want_string(v, s, sp, "id", 1);
		if (sec->id != NULL && !is_ident(sec->id, "_-")) {
			char *p = path_key(sp, "id");

			problem(v, cJSON_GetObjectItemCaseSensitive(s, "id"), 0, p,
			    "section id '%s' must be lower-case letters, digits, '_' and '-'", sec->id);
			free(p);
			sec->id = NULL;
		}
		sec->title = want_string(v, s, sp, "title", 1);
		sec->description = want_string(v, s, sp, "description", 0);
		sec->first = q->nquestions;
		if ((qs = want_array(v, s, sp, "questions", 1)) != NULL) {
			char *qsp = path_key(sp, "questions");

			cJSON_ArrayForEach(qn, qs) {
				char *qp = path_index(qsp, qi++);

				if (!cJSON_IsObject(qn))
					problem(v, qn, 0, qp, "a question must be an object");
				else
					check_question(v, q, refs, qn, qp);
				free(qp);
			}
			free(qsp);
		}
		sec->count = q->nquestions - sec->first;
		if (sec->id == NULL)
			sec->id = "";
		q->nsections++;
		free(sp);
	}
	index_sections(v, q, secs);
	index_questions(v, q, refs);
	check_references(v, q, refs);
	for (int i = 0; i < q->nquestions; i++)
		free(refs[i].path);
	free(refs);
}

int
questionnaire_check(const char *name, const char *text, size_t len, struct buf *problems,
    struct questionnaire **out)
{
	struct vctx v = { name, text, len, NULL, NULL, 0, 0 };
	struct questionnaire *q;
	const char *end = NULL;
	cJSON *root;

	if (out != NULL)
		*out = NULL;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root == NULL) {
		int line, col;
		size_t off = end != NULL && end >= text && end <= text + len ? (size_t)(end - text) : 0;

		/* Where cJSON stopped: at or just after the mistake. */
		text_line_col(text, off, &line, &col);
		buf_printf(problems, "%s:%d:%d: not valid JSON\n", name, line, col);
		return 1;
	}
	{
		/* Trailing text after the value: cJSON stops there without complaint. */
		const char *p = end;

		while (p < text + len && strchr(" \t\r\n", *p) != NULL && *p != '\0')
			p++;
		if (p < text + len) {
			int line, col;

			text_line_col(text, (size_t)(p - text), &line, &col);
			buf_printf(problems, "%s:%d:%d: not valid JSON (text after the questionnaire)\n",
			    name, line, col);
			cJSON_Delete(root);
			return 1;
		}
	}
	q = xcalloc(1, sizeof *q);
	q->root = root;
	v.root = root;
	check_root(&v, q);
	if (v.n > 0)
		locate_problems(&v);
	for (int i = 0; i < v.n; i++) {
		buf_adds(problems, v.p[i].line);
		free(v.p[i].line);
	}
	free(v.p);
	sha256_hex(text, len, q->sha256);
	if (v.n > 0 || out == NULL)
		questionnaire_free(q);
	else
		*out = q;
	return v.n;
}

int
questionnaire_parse(const char *name, const char *text, size_t len, struct questionnaire **out,
    struct aerr *err)
{
	struct buf b;
	int n;

	buf_init(&b);
	n = questionnaire_check(name, text, len, &b, out);
	if (n > 0) {
		if (b.len > 0 && b.data[b.len - 1] == '\n')
			b.data[--b.len] = '\0';
		aerr_set(err, AV_USAGE, "%d problem%s in %s:\n%s", n, n == 1 ? "" : "s", name, b.data);
	}
	buf_free(&b);
	return n > 0 ? AV_USAGE : 0;
}
