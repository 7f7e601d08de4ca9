/*
 * assess.c: the assessment record: loading it with its questionnaire and
 * answers, deciding which questions are asked (depends_on), scoring, the
 * record as JSON and text, its history, and its claims checked against probe
 * results (the judgement is claims.c's). Changing answers is
 * assess-answer.c's, the workflow of rounds assess-workflow.c's.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "claims.h"
#include "rating.h"
#include "approval.h"
#include "assess-impl.h"

static char *
col_dup_or_null(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : xstrdup(col_text(st, i));
}

int
streq_null(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

int
assessment_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err)
{
	int64_t n;
	int rc;

	if (*ref == '\0' || strspn(ref, "0123456789") != strlen(ref) || strlen(ref) > 15)
		return aerr_set(err, AV_USAGE, "'%s' is not an assessment id (see 'aivet assess list')", ref);
	n = atoll(ref);
	rc = db_int(db, id, err, "SELECT id FROM assessment WHERE id = ?", "i", n);
	if (rc == 1)
		return aerr_set(err, AV_USAGE, "unknown assessment %lld (see 'aivet assess list')",
		    (long long)n);
	return rc < 0 ? AV_RUNTIME : 0;
}

void
assessment_free(struct assessment *a)
{
	if (a == NULL)
		return;
	for (int i = 0; a->q != NULL && i < a->q->nquestions; i++) {
		cJSON_Delete(a->answers[i].value);
		free(a->answers[i].note);
		free(a->answers[i].actor);
		free(a->answers[i].updated_at);
		for (int k = 0; k < a->answers[i].nfiles; k++) {
			free(a->answers[i].files[k].name);
			free(a->answers[i].files[k].sha256);
		}
		free(a->answers[i].files);
	}
	free(a->answers);
	free(a->asked);
	questionnaire_free(a->q);
	free(a->vendor);
	free(a->status);
	free(a->created_by);
	free(a->created_at);
	free(a->submitted_at);
	free(a->approved_at);
	free(a->reviewer);
	free(a);
}

/* Each answer's evidence files, so every view of an answer can name them. */
static int
answer_files_load(struct db *db, struct assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT ae.question_id, e.id, e.original_name, e.size, "
	    "e.sha256 FROM answer_evidence ae JOIN evidence e ON e.id = ae.evidence_id "
	    "WHERE ae.assessment_id = ? ORDER BY e.id", "i", a->id);

	if (st == NULL)
		return AV_RUNTIME;
	while (db_step(st) == DB_ROW) {
		int qi = questionnaire_find(a->q, col_text(st, 0));
		struct answer *an;

		if (qi < 0)
			continue;
		an = &a->answers[qi];
		an->files = xrealloc(an->files, (size_t)(an->nfiles + 1) * sizeof *an->files);
		an->files[an->nfiles++] = (struct answer_file){
			.evidence_id = db_col_int64(st, 1), .size = db_col_int64(st, 3),
			.name = xstrdup(col_text(st, 2)), .sha256 = xstrdup(col_text(st, 4)),
		};
	}
	db_finalize(st);
	return 0;
}

/* The rating and score a final round was approved at, as its approval entry
 * recorded them (sealed with it): kept beside today's, which the evidence moves. */
static int
approved_load(struct db *db, struct assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT details FROM audit_log WHERE action = "
	    "'assessment.approve' AND object_type = 'assessment' AND object_id = ? ORDER BY seq DESC "
	    "LIMIT 1", "i", a->id);

	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 0));
		const cJSON *sc = cJSON_GetObjectItemCaseSensitive(d, "risk_score");
		int r = rating_parse(json_get_str(d, "rating"));

		if (r >= 0 && cJSON_IsNumber(sc))
			a->approved = (struct approval_at){ 1, (enum rating)r, sc->valuedouble };
		cJSON_Delete(d);
	}
	db_finalize(st);
	return 0;
}

int
assessment_load(struct db *db, int64_t id, struct assessment **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT a.vendor_id, v.name, a.questionnaire_id, a.round, "
	    "coalesce(a.parent_id, 0), a.status, a.created_by, a.created_at, a.submitted_at, "
	    "a.approved_at, a.reviewer FROM assessment a JOIN vendor v ON v.id = a.vendor_id "
	    "WHERE a.id = ?", "i", id);
	struct assessment *a;
	int64_t qrow;

	*out = NULL;
	if (st == NULL)
		return AV_RUNTIME;
	if (db_step(st) != DB_ROW) {
		db_finalize(st);
		return aerr_set(err, AV_USAGE, "unknown assessment %lld", (long long)id);
	}
	a = xcalloc(1, sizeof *a);
	a->id = id;
	a->vendor_id = db_col_int64(st, 0);
	a->vendor = xstrdup(col_text(st, 1));
	qrow = db_col_int64(st, 2);
	a->round = db_col_int64(st, 3);
	a->parent_id = db_col_int64(st, 4);
	a->status = xstrdup(col_text(st, 5));
	a->created_by = xstrdup(col_text(st, 6));
	a->created_at = xstrdup(col_text(st, 7));
	a->submitted_at = col_dup_or_null(st, 8);
	a->approved_at = col_dup_or_null(st, 9);
	a->reviewer = col_dup_or_null(st, 10);
	db_finalize(st);
	if (strcmp(a->status, "final") == 0 && approved_load(db, a, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	if (questionnaire_load(db, qrow, &a->q, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	a->answers = xcalloc((size_t)a->q->nquestions, sizeof *a->answers);
	a->asked = xcalloc((size_t)a->q->nquestions, sizeof *a->asked);
	st = db_prepare(db, err, "SELECT question_id, value, note, actor, updated_at FROM answer "
	    "WHERE assessment_id = ?", "i", id);
	if (st == NULL) {
		assessment_free(a);
		return AV_RUNTIME;
	}
	while (db_step(st) == DB_ROW) {
		int qi = questionnaire_find(a->q, col_text(st, 0));

		if (qi < 0)
			continue;   /* cannot happen: answers are checked against this questionnaire */
		a->answers[qi].value = cJSON_Parse(col_text(st, 1));
		if (cJSON_IsNull(a->answers[qi].value)) {
			/* A note on a question not answered yet: the row holds JSON null. */
			cJSON_Delete(a->answers[qi].value);
			a->answers[qi].value = NULL;
		}
		a->answers[qi].note = col_dup_or_null(st, 2);
		a->answers[qi].actor = xstrdup(col_text(st, 3));
		a->answers[qi].updated_at = xstrdup(col_text(st, 4));
	}
	db_finalize(st);
	if (answer_files_load(db, a, err) != 0) {
		assessment_free(a);
		return err->code;
	}
	assessment_update_asked(a);
	*out = a;
	return 0;
}

int
assessment_question(const struct assessment *a, const char *question_id, int *index, struct aerr *err)
{
	const char **ids, *near;
	char meant[160] = "";

	*index = questionnaire_find(a->q, question_id);
	if (*index >= 0)
		return 0;
	ids = xcalloc((size_t)a->q->nquestions + 1, sizeof *ids);
	for (int i = 0; i < a->q->nquestions; i++)
		ids[i] = a->q->questions[i].id;
	if ((near = name_suggest(question_id, ids, (size_t)a->q->nquestions)) != NULL)
		snprintf(meant, sizeof meant, "; did you mean %s?", near);
	free(ids);
	return aerr_set(err, AV_USAGE, "questionnaire %s@%lld has no question '%s'%s (see 'aivet "
	    "questionnaire show %s@%lld')", a->q->qid, (long long)a->q->version, question_id, meant,
	    a->q->qid, (long long)a->q->version);
}

/* Whether an answer is one of the values a depends_on lists. */
static int
answer_in(const cJSON *value, const cJSON *values)
{
	const cJSON *v, *c;

	if (value == NULL)
		return 0;
	cJSON_ArrayForEach(v, values) {
		if (cJSON_IsString(value) && strcmp(value->valuestring, v->valuestring) == 0)
			return 1;
		cJSON_ArrayForEach(c, (cJSON_IsArray(value) ? value : NULL))
			if (cJSON_IsString(c) && strcmp(c->valuestring, v->valuestring) == 0)
				return 1;
	}
	return 0;
}

void
assessment_update_asked(struct assessment *a)
{
	/* depends_on only points backwards (checked on load), so one pass settles chains. */
	for (int i = 0; i < a->q->nquestions; i++) {
		int d = a->q->questions[i].dep;

		a->asked[i] = d < 0 || (a->asked[d] && answer_in(a->answers[d].value,
		    a->q->questions[i].dep_values));
	}
}

const struct claim *
assessment_contradiction(const struct claim_list *claims, const char *question_id)
{
	for (size_t i = 0; claims != NULL && i < claims->n; i++)
		if (claims->items[i].status == CLAIM_CONTRADICTED &&
		    streq_null(claims->items[i].question_id, question_id))
			return &claims->items[i];
	return NULL;
}

enum claim_status
assessment_claim_status(const struct claim_list *claims, const char *question_id)
{
	enum claim_status st = CLAIM_NONE;

	if (assessment_contradiction(claims, question_id) != NULL)
		return CLAIM_CONTRADICTED;
	for (size_t i = 0; claims != NULL && i < claims->n; i++) {
		const struct claim *c = &claims->items[i];

		if (!streq_null(c->question_id, question_id))
			continue;
		if (c->status == CLAIM_CONFIRMED)
			return CLAIM_CONFIRMED;
		/* Consistent with the answer on some endpoint beats untested, never confirms. */
		if (c->status == CLAIM_CONSISTENT)
			st = CLAIM_CONSISTENT;
		else if (st == CLAIM_NONE)
			st = CLAIM_UNTESTED;
	}
	return st;
}

void
assessment_claim_text(const struct claim_list *claims, const char *question_id, struct buf *out)
{
	enum claim_status st = assessment_claim_status(claims, question_id);
	const char *word = claim_status_name(st);
	const struct claim *c = assessment_contradiction(claims, question_id);
	int first = 1;

	if (st == CLAIM_NONE)
		return;
	/* The claim that gave the status: the contradicted one, else the first with it. */
	for (size_t i = 0; c == NULL && i < claims->n; i++)
		if (streq_null(claims->items[i].question_id, question_id) && claims->items[i].status == st)
			c = &claims->items[i];
	if (c == NULL)
		return;
	buf_printf(out, "%c%s%s%s: %s", word[0] - 'a' + 'A', word + 1, c->endpoint ? " on " : "",
	    c->endpoint ? c->endpoint : "", c->reason ? c->reason : word);
	for (size_t i = 0; i < c->ncontradicting; i++)
		for (size_t k = 0; k < c->contradicting[i].nevidence; k++) {
			buf_printf(out, "%s%d", first ? "; evidence " : ", ", (int)c->contradicting[i].evidence[k]);
			first = 0;
		}
}

int
assessment_answer_risk(const struct assessment *a, int qi, const struct claim_list *claims)
{
	int r = answer_risk(&a->q->questions[qi], a->answers[qi].value);

	/* A claim the evidence disproves is no lower than high, whatever its stated risk. */
	if (a->answers[qi].value != NULL && r < RISK_HIGH &&
	    assessment_contradiction(claims, a->q->questions[qi].id) != NULL)
		r = RISK_HIGH;
	return r;
}

/* "question: CODE on ENDPOINT", naming what contradicts the claim. */
void
name_contradiction(const struct claim *c, char *out, size_t n)
{
	if (c->ncontradicting > 0 && c->contradicting[0].code != NULL)
		snprintf(out, n, "%s: %s%s%s", c->question_id, c->contradicting[0].code,
		    c->endpoint ? " on " : "", c->endpoint ? c->endpoint : "");
	else
		snprintf(out, n, "%s: %s", c->question_id, c->reason ? c->reason :
		    claim_status_name(CLAIM_CONTRADICTED));
}

void
assessment_score(const struct assessment *a, const struct claim_list *claims, struct assessment_score *s)
{
	double sum = 0, max = 0;

	memset(s, 0, sizeof *s);
	for (int i = 0; i < a->q->nquestions; i++) {
		const struct q_question *qq = &a->q->questions[i];
		const struct claim *c;
		int r;

		if (!a->asked[i])
			continue;
		s->asked++;
		if (a->answers[i].value == NULL) {
			s->unanswered_required += qq->required;
			continue;
		}
		s->answered++;
		r = assessment_answer_risk(a, i, claims);
		if ((c = assessment_contradiction(claims, qq->id)) != NULL && s->contradicted++ == 0)
			name_contradiction(c, s->finding, sizeof s->finding);
		if (r > s->worst_risk)
			s->worst_risk = r;
		sum += qq->weight * r;
		max += qq->weight * RISK_CRITICAL;
	}
	s->risk_score = max > 0 ? round(1000.0 * sum / max) / 10.0 : 0;
	s->rating = assessment_rating(s->worst_risk, s->answered, s->unanswered_required);
}

void
assessment_since_approval(const struct assessment *a, const struct assessment_score *s, char *out,
    size_t n)
{
	rating_since_approval(&a->approved, (enum rating)s->rating, s->risk_score, s->contradicted,
	    s->finding[0] ? s->finding : NULL, out, n);
}

void
assessment_approved_json(cJSON *o, const struct assessment *a, const struct assessment_score *s)
{
	char since[320];
	cJSON *ap;

	if (!a->approved.known) {
		cJSON_AddNullToObject(o, "approved_score");
		cJSON_AddNullToObject(o, "since_approval");
		return;
	}
	ap = cJSON_AddObjectToObject(o, "approved_score");
	cJSON_AddStringToObject(ap, "rating", rating_name(a->approved.rating));
	cJSON_AddNumberToObject(ap, "risk_score", a->approved.score);
	assessment_since_approval(a, s, since, sizeof since);
	cJSON_AddStringToObject(o, "since_approval", since);
}

int
assessment_rate(struct db *db, const struct assessment *a, struct assessment_score *s,
    struct claim_list *claims, struct aerr *err)
{
	struct claim_list c;

	if (claims != NULL)
		memset(claims, 0, sizeof *claims);
	if (assessment_claims(db, a, &c, err) != 0)
		return err->code;
	assessment_score(a, &c, s);
	if (claims != NULL)
		*claims = c;
	else
		claim_list_free(&c);
	return 0;
}

int
assessment_editable(const struct assessment *a, struct aerr *err)
{
	if (strcmp(a->status, "final") == 0)
		return aerr_set(err, AV_USAGE, "assessment %lld is final and read-only ('aivet assess "
		    "reopen %lld' starts a new round)", (long long)a->id, (long long)a->id);
	if (strcmp(a->status, "in_review") == 0)
		return aerr_set(err, AV_USAGE, "assessment %lld is in review and its answers are locked "
		    "('aivet assess reopen %lld' returns it to draft)", (long long)a->id, (long long)a->id);
	return 0;
}

static cJSON *
evidence_list_json(struct db *db, int64_t assessment_id, const char *question_id, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT e.id, e.sha256, e.original_name, e.media_type, "
	    "e.size, e.effective_date, e.added_by, e.added_at FROM answer_evidence ae "
	    "JOIN evidence e ON e.id = ae.evidence_id WHERE ae.assessment_id = ? AND ae.question_id = ? "
	    "ORDER BY e.id", "it", assessment_id, question_id);
	cJSON *arr;

	if (st == NULL)
		return NULL;
	arr = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *e = cJSON_CreateObject();
		char *eff = col_dup_or_null(st, 5);

		cJSON_AddNumberToObject(e, "id", (double)db_col_int64(st, 0));
		cJSON_AddStringToObject(e, "sha256", col_text(st, 1));
		cJSON_AddStringToObject(e, "original_name", col_text(st, 2));
		cJSON_AddStringToObject(e, "media_type", col_text(st, 3));
		cJSON_AddNumberToObject(e, "size", (double)db_col_int64(st, 4));
		json_add_str(e, "effective_date", eff);
		cJSON_AddStringToObject(e, "added_by", col_text(st, 6));
		cJSON_AddStringToObject(e, "added_at", col_text(st, 7));
		cJSON_AddItemToArray(arr, e);
		free(eff);
	}
	db_finalize(st);
	return arr;
}

void
add_value(cJSON *o, const char *k, const cJSON *v)
{
	cJSON_AddItemToObject(o, k, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

int
assessment_json(struct db *db, const struct assessment *a, cJSON **out, struct aerr *err)
{
	struct assessment_score s;
	struct claim_list claims;
	cJSON *o, *q, *sc, *secs, *qs, *high, *missing;

	if (assessment_rate(db, a, &s, &claims, err) != 0)
		return err->code;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)a->id);
	cJSON_AddStringToObject(o, "vendor", a->vendor);
	cJSON_AddNumberToObject(o, "vendor_id", (double)a->vendor_id);
	q = cJSON_AddObjectToObject(o, "questionnaire");
	cJSON_AddStringToObject(q, "id", a->q->qid);
	cJSON_AddNumberToObject(q, "version", (double)a->q->version);
	cJSON_AddStringToObject(q, "title", a->q->title);
	cJSON_AddNumberToObject(o, "round", (double)a->round);
	if (a->parent_id)
		cJSON_AddNumberToObject(o, "parent_id", (double)a->parent_id);
	else
		cJSON_AddNullToObject(o, "parent_id");
	cJSON_AddStringToObject(o, "status", a->status);
	cJSON_AddStringToObject(o, "created_by", a->created_by);
	cJSON_AddStringToObject(o, "created_at", a->created_at);
	json_add_str(o, "submitted_at", a->submitted_at);
	json_add_str(o, "approved_at", a->approved_at);
	json_add_str(o, "reviewer", a->reviewer);
	sc = cJSON_AddObjectToObject(o, "score");
	cJSON_AddStringToObject(sc, "rating", rating_name(s.rating));
	cJSON_AddStringToObject(sc, "worst_risk", risk_name(s.worst_risk));
	cJSON_AddStringToObject(sc, "rule", assessment_rating_rule);
	cJSON_AddNumberToObject(sc, "risk_score", s.risk_score);
	cJSON_AddNumberToObject(sc, "asked", s.asked);
	cJSON_AddNumberToObject(sc, "answered", s.answered);
	cJSON_AddNumberToObject(sc, "unanswered_required", s.unanswered_required);
	cJSON_AddBoolToObject(sc, "complete", s.unanswered_required == 0);
	cJSON_AddNumberToObject(sc, "contradicted_claims", s.contradicted);
	json_add_str(sc, "contradicted_by", s.finding[0] ? s.finding : NULL);
	assessment_approved_json(o, a, &s);
	high = cJSON_AddArrayToObject(o, "high_risk");
	missing = cJSON_AddArrayToObject(o, "missing_required");
	secs = cJSON_AddArrayToObject(o, "sections");
	for (int i = 0; i < a->q->nsections; i++) {
		cJSON *so = cJSON_CreateObject();

		cJSON_AddStringToObject(so, "id", a->q->sections[i].id);
		cJSON_AddStringToObject(so, "title", a->q->sections[i].title);
		cJSON_AddItemToArray(secs, so);
	}
	qs = cJSON_AddArrayToObject(o, "questions");
	for (int i = 0; i < a->q->nquestions; i++) {
		const struct q_question *qq = &a->q->questions[i];
		const struct answer *an = &a->answers[i];
		cJSON *x = cJSON_CreateObject(), *ev;
		int r = assessment_answer_risk(a, i, &claims);

		cJSON_AddStringToObject(x, "id", qq->id);
		cJSON_AddStringToObject(x, "section", a->q->sections[qq->section].id);
		cJSON_AddStringToObject(x, "text", qq->text);
		cJSON_AddStringToObject(x, "type", q_type_name(qq->type));
		cJSON_AddBoolToObject(x, "required", qq->required);
		cJSON_AddNumberToObject(x, "weight", qq->weight);
		cJSON_AddBoolToObject(x, "asked", a->asked[i]);
		add_value(x, "value", an->value);
		json_add_str(x, "risk", an->value ? risk_name(r) : NULL);
		json_add_str(x, "stated_risk", an->value ? risk_name(answer_risk(qq, an->value)) : NULL);
		json_add_str(x, "note", an->note);
		json_add_str(x, "actor", an->actor);
		json_add_str(x, "updated_at", an->updated_at);
		if ((ev = evidence_list_json(db, a->id, qq->id, err)) == NULL) {
			cJSON_Delete(x);
			cJSON_Delete(o);
			claim_list_free(&claims);
			return AV_RUNTIME;
		}
		cJSON_AddItemToObject(x, "evidence", ev);
		cJSON_AddItemToArray(qs, x);
		if (a->asked[i] && an->value != NULL && r >= RISK_HIGH) {
			cJSON *h = cJSON_CreateObject();

			cJSON_AddStringToObject(h, "question", qq->id);
			cJSON_AddStringToObject(h, "risk", risk_name(r));
			add_value(h, "value", an->value);
			cJSON_AddItemToArray(high, h);
		}
		if (a->asked[i] && an->value == NULL && qq->required)
			cJSON_AddItemToArray(missing, cJSON_CreateString(qq->id));
	}
	cJSON_AddItemToObject(o, "claims", claim_list_to_json(&claims));
	claim_list_free(&claims);
	*out = o;
	return 0;
}

/* ---- claims checked by probes (the judgement is claims.c's) ---- */

void
assessment_claims_on(const struct assessment *a, const struct claim_evidence *ev, struct claim_list *out)
{
	const cJSON **values = xcalloc((size_t)a->q->nquestions + 1, sizeof *values);

	for (int i = 0; i < a->q->nquestions; i++)
		values[i] = a->asked[i] ? a->answers[i].value : NULL;
	claims_judge(a->q, values, ev, out);
	free(values);
}

int
assessment_claims(struct db *db, const struct assessment *a, struct claim_list *out, struct aerr *err)
{
	struct claim_evidence ev;

	memset(out, 0, sizeof *out);
	if (claims_evidence_load(db, a->vendor_id, &ev, err) != 0)
		return AV_RUNTIME;
	assessment_claims_on(a, &ev, out);
	claim_evidence_free(&ev);
	return 0;
}

int
assessment_history(struct db *db, const struct assessment *a, int qi, cJSON **out, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT at, actor, value, note FROM answer_history "
	    "WHERE assessment_id = ? AND question_id = ? ORDER BY id", "it", a->id,
	    a->q->questions[qi].id);

	if (st == NULL)
		return err->code;
	*out = cJSON_CreateArray();
	while (db_step(st) == DB_ROW) {
		cJSON *o = cJSON_CreateObject(), *v = db_col_type(st, 2) == DB_NULL ? NULL :
		    cJSON_Parse(col_text(st, 2));

		cJSON_AddStringToObject(o, "at", col_text(st, 0));
		cJSON_AddStringToObject(o, "actor", col_text(st, 1));
		cJSON_AddItemToObject(o, "value", v ? v : cJSON_CreateNull());
		if (db_col_type(st, 3) == DB_NULL)
			cJSON_AddNullToObject(o, "note");
		else
			cJSON_AddStringToObject(o, "note", col_text(st, 3));
		cJSON_AddItemToArray(*out, o);
	}
	db_finalize(st);
	return 0;
}

void
assessment_history_text(const struct assessment *a, int qi, const cJSON *history, struct buf *out)
{
	const cJSON *h;

	buf_printf(out, "%-24s %-16s %-24s %s\n", "AT", "ACTOR", "VALUE", "NOTE");
	cJSON_ArrayForEach(h, history) {
		const cJSON *v = cJSON_GetObjectItem(h, "value"), *n = cJSON_GetObjectItem(h, "note");
		/* No value: cleared, or a note on a question not answered yet. */
		char *text = !cJSON_IsNull(v) ? answer_to_text(&a->q->questions[qi], v) :
		    xstrdup(cJSON_IsString(n) ? "(unanswered)" : "(cleared)");

		buf_printf(out, "%-24s %-16s %-24s %s\n", cJSON_GetObjectItem(h, "at")->valuestring,
		    cJSON_GetObjectItem(h, "actor")->valuestring, text,
		    cJSON_IsString(n) ? n->valuestring : "");
		free(text);
	}
}

void
assessment_text(const struct assessment *a, const struct claim_list *claims, struct buf *out)
{
	struct assessment_score s;
	int nhigh = 0;

	assessment_score(a, claims, &s);
	buf_printf(out, "assessment %lld: vendor %s, %s@%lld (%s), round %lld, %s\n", (long long)a->id,
	    a->vendor, a->q->qid, (long long)a->q->version, a->q->title, (long long)a->round, a->status);
	buf_printf(out, "  created %s by %s", a->created_at, a->created_by);
	if (a->parent_id)
		buf_printf(out, ", reopened from assessment %lld", (long long)a->parent_id);
	buf_printf(out, "\n");
	if (a->submitted_at)
		buf_printf(out, "  submitted %s\n", a->submitted_at);
	if (a->approved_at)
		buf_printf(out, "  approved %s by %s\n", a->approved_at, a->reviewer ? a->reviewer : "?");
	if (a->approved.known) {
		char since[320];

		assessment_since_approval(a, &s, since, sizeof since);
		buf_printf(out, "  %s\n", since);
	}
	buf_printf(out, "  rating %s, risk score %.1f (worst answer %s); %d of %d asked questions "
	    "answered, %d required unanswered\n", rating_name(s.rating), s.risk_score,
	    risk_name(s.worst_risk), s.answered, s.asked, s.unanswered_required);
	if (s.contradicted > 0)
		buf_printf(out, "  %d contradicted claim%s counted high risk: %s\n", s.contradicted,
		    s.contradicted == 1 ? "" : "s", s.finding);
	buf_printf(out, "  the rating: %s\n", assessment_rating_rule);
	for (int i = 0; i < a->q->nquestions; i++) {
		int r = assessment_answer_risk(a, i, claims);

		if (a->asked[i] && a->answers[i].value != NULL && r >= RISK_HIGH) {
			char *text = answer_to_text(&a->q->questions[i], a->answers[i].value);

			if (nhigh++ == 0)
				buf_printf(out, "  high and critical:\n");
			buf_printf(out, "    %-32s %-8s %s\n", a->q->questions[i].id, risk_name(r), text);
			free(text);
		}
	}
	/* Symbols, so the state reads without colour: ! required and unanswered,
	 * ? unanswered, - not asked, otherwise the risk. */
	for (int sct = 0; sct < a->q->nsections; sct++) {
		const struct q_section *sec = &a->q->sections[sct];

		buf_printf(out, "\n%s\n", sec->title);
		for (int i = sec->first; i < sec->first + sec->count; i++) {
			const struct q_question *qq = &a->q->questions[i];
			const struct answer *an = &a->answers[i];
			char *text = answer_to_text(qq, an->value);
			const char *mark = !a->asked[i] ? "-" : an->value == NULL ? (qq->required ? "!" : "?") :
			    risk_name(assessment_answer_risk(a, i, claims));

			buf_printf(out, "  %-8s %-32s %s\n", mark, qq->id, an->value ? text : (a->asked[i] ?
			    "(unanswered)" : "(not asked)"));
			if (an->note != NULL)
				buf_printf(out, "  %-8s %-32s note: %s\n", "", "", an->note);
			for (int k = 0; k < an->nfiles; k++)
				buf_printf(out, "  %-8s %-32s evidence %lld: %s (%lld bytes, sha256 %.12s)\n", "", "",
				    (long long)an->files[k].evidence_id, an->files[k].name,
				    (long long)an->files[k].size, an->files[k].sha256);
			free(text);
		}
	}
	if (claims != NULL && claims->n > 0)
		buf_printf(out, "\nclaims checked by the evidence:\n");
	for (size_t i = 0; claims != NULL && i < claims->n; i++) {
		const struct claim *c = &claims->items[i];
		char *ans = answer_to_text(NULL, c->answer);

		buf_printf(out, "  %-32s %-14s %-24s %s\n", c->question_id, ans,
		    c->endpoint ? c->endpoint : "(no endpoint)", claim_status_name(c->status));
		buf_printf(out, "  %-32s %s\n", "", c->reason);
		free(ans);
	}
}

int
assessment_ids(struct db *db, int64_t vendor_id, int64_t **ids, size_t *n, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id FROM assessment WHERE ? = 0 OR vendor_id = ? "
	    "ORDER BY id", "ii", vendor_id, vendor_id);

	return db_ids(st, ids, n, err);
}

