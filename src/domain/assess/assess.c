/*
 * assess.c: the assessment record — loading it with its questionnaire and
 * answers, deciding which questions are asked (depends_on), scoring, the
 * draft -> in_review -> final workflow with rounds, answer changes with
 * history, evidence and audit, and checking answers against probe results.
 * Final rounds never change: the code refuses, and so does the database
 * (triggers in db/002-assess.sql).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "db-admin.h"
#include "claims.h"
#include "rating.h"
#include "approval.h"


static char *
col_dup_or_null(struct db_stmt *st, int i)
{
	return db_col_type(st, i) == DB_NULL ? NULL : xstrdup(col_text(st, i));
}

static int
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
		if (streq_null(claims->items[i].status, "contradicted") &&
		    streq_null(claims->items[i].question_id, question_id))
			return &claims->items[i];
	return NULL;
}

const char *
assessment_claim_status(const struct claim_list *claims, const char *question_id)
{
	const char *word = NULL;

	if (assessment_contradiction(claims, question_id) != NULL)
		return "contradicted";
	for (size_t i = 0; claims != NULL && i < claims->n; i++) {
		const struct claim *c = &claims->items[i];

		if (!streq_null(c->question_id, question_id))
			continue;
		if (streq_null(c->status, "confirmed"))
			return "confirmed";
		/* Consistent with the answer on some endpoint beats untested, never confirms. */
		if (streq_null(c->status, "consistent"))
			word = "consistent";
		else if (word == NULL)
			word = "untested";
	}
	return word;
}

void
assessment_claim_text(const struct claim_list *claims, const char *question_id, struct buf *out)
{
	const char *st = assessment_claim_status(claims, question_id);
	const struct claim *c = assessment_contradiction(claims, question_id);
	int first = 1;

	if (st == NULL)
		return;
	/* The claim that gave the status: the contradicted one, else the first with it. */
	for (size_t i = 0; c == NULL && i < claims->n; i++)
		if (streq_null(claims->items[i].question_id, question_id) &&
		    streq_null(claims->items[i].status, st))
			c = &claims->items[i];
	if (c == NULL)
		return;
	buf_printf(out, "%c%s%s%s: %s", st[0] - 'a' + 'A', st + 1, c->endpoint ? " on " : "",
	    c->endpoint ? c->endpoint : "", c->reason ? c->reason : st);
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
static void
name_contradiction(const struct claim *c, char *out, size_t n)
{
	if (c->ncontradicting > 0 && c->contradicting[0].code != NULL)
		snprintf(out, n, "%s: %s%s%s", c->question_id, c->contradicting[0].code,
		    c->endpoint ? " on " : "", c->endpoint ? c->endpoint : "");
	else
		snprintf(out, n, "%s: %s", c->question_id, c->reason ? c->reason : "contradicted");
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

static void
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

/* ---- changing answers ---- */

/*
 * The workflow's writes (db.h's db_write): SQLite runs the statements, whose
 * triggers (db/008-workflow.sql) hold the same rules; PostgreSQL calls the
 * function of db/pg/008-workflow.sql, which checks the state and the role and
 * writes the login as the actor. Arguments: assessment, question, value (JSON,
 * NULL when cleared or a note alone), note, actor, time.
 */
static const struct db_write answer_put = {
	{ "DELETE FROM answer WHERE assessment_id = ?1 AND question_id = ?2 AND ?3 IS NULL AND ?4 IS NULL",
	  "INSERT INTO answer (assessment_id, question_id, value, note, actor, updated_at) "
	  "SELECT ?1, ?2, coalesce(?3, 'null'), ?4, ?5, ?6 WHERE ?3 IS NOT NULL OR ?4 IS NOT NULL "
	  "ON CONFLICT (assessment_id, question_id) DO UPDATE SET value = excluded.value, "
	  "note = excluded.note, actor = excluded.actor, updated_at = excluded.updated_at",
	  "INSERT INTO answer_history (assessment_id, question_id, value, note, actor, at) "
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	"SELECT aivet_answer_put(?1, ?2, ?3, ?4, ?6)", 0
};
static const struct db_write answer_evidence_add = {
	{ "INSERT INTO answer_evidence (assessment_id, question_id, evidence_id) VALUES (?1, ?2, ?3)" },
	"SELECT aivet_answer_evidence(?1, ?2, ?3)", 0
};

static int
attach_evidence(struct db *db, const char *actor, struct assessment *a, const char *question_id,
    const char *path, const char *effective_date, int *changed, struct aerr *err)
{
	struct buf b;
	char sha[65];
	int64_t have, eid;
	int rc;
	cJSON *d;

	if (read_file(path, EVIDENCE_FILE_MAX, &b, err) != 0)
		return aerr_prefix(err, "evidence file");
	sha256_hex(b.data, b.len, sha);
	buf_free(&b);
	rc = db_int(db, &have, err, "SELECT e.id FROM answer_evidence ae JOIN evidence e "
	    "ON e.id = ae.evidence_id WHERE ae.assessment_id = ? AND ae.question_id = ? "
	    "AND e.sha256 = ?", "itt", a->id, question_id, sha);
	if (rc < 0)
		return AV_RUNTIME;
	if (rc == 0)
		return 0;   /* this very file is attached to this answer already */
	if (evidence_add_file(db, actor, path, effective_date, &eid, err) != 0 ||
	    db_write(db, err, &answer_evidence_add, NULL, "iti", a->id, question_id, eid) != 0)
		return err->code;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "question", question_id);
	cJSON_AddNumberToObject(d, "evidence_id", (double)eid);
	cJSON_AddStringToObject(d, "sha256", sha);
	rc = audit_append(db, actor, "answer.evidence", "assessment", a->id, d, err);
	cJSON_Delete(d);
	if (rc == 0)
		(*changed)++;
	return rc;
}

/* An answer's audit entry; while a->batch collects them (a sheet's import),
 * the change joins it instead and the batch is written as one entry. */
static int
answer_audit(struct db *db, const char *actor, struct assessment *a, const char *action, cJSON *d,
    struct aerr *err)
{
	if (a->batch != NULL) {
		cJSON *c = cJSON_Duplicate(d, 1);

		cJSON_AddStringToObject(c, "action", action);
		cJSON_AddItemToArray(a->batch, c);
		return 0;
	}
	return audit_append(db, actor, action, "assessment", a->id, d, err);
}

/* A note on a question that has no answer yet ("asked the vendor, awaiting
 * reply"): the answer row holds JSON null as its value, so the question stays
 * unanswered everywhere it is counted; a history row and an audit entry record it.
 * A NULL note removes the row. */
static int
set_note_alone(struct db *db, const char *actor, struct assessment *a, int qi, const char *note,
    const char *at, int *changed, struct aerr *err)
{
	struct answer *an = &a->answers[qi];
	const char *qid = a->q->questions[qi].id;
	cJSON *d;
	int rc;

	if (streq_null(an->note, note))
		return 0;
	rc = db_write(db, err, &answer_put, NULL, "itnttt", a->id, qid, note, actor, at);
	if (rc != 0)
		return err->code;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "question", qid);
	json_add_str(d, "note", note);
	json_add_str(d, "previous_note", an->note);
	rc = answer_audit(db, actor, a, "answer.note", d, err);
	cJSON_Delete(d);
	if (rc != 0)
		return err->code;
	free(an->note);
	an->note = note ? xstrdup(note) : NULL;
	free(an->actor);
	an->actor = xstrdup(actor);
	free(an->updated_at);
	an->updated_at = xstrdup(at);
	(*changed)++;
	return 0;
}

int
assessment_set_answer(struct db *db, const char *actor, struct assessment *a, int qi,
    const cJSON *value, int set_note, const char *note, char *const *files, int nfiles,
    const char *effective_date, int *changed, struct aerr *err)
{
	struct answer *an = &a->answers[qi];
	const char *qid = a->q->questions[qi].id;
	const char *new_note = set_note ? note : an->note;
	char at[32];

	*changed = 0;
	if (assessment_editable(a, err) != 0)
		return err->code;
	if (value != NULL && answer_check(&a->q->questions[qi], value, err) != 0)
		return aerr_prefix(err, "question %s", qid);
	now_iso(at);
	if (value == NULL && set_note && an->value == NULL)
		return set_note_alone(db, actor, a, qi, note, at, changed, err);
	if (value == NULL && (an->value != NULL || an->note != NULL)) {
		cJSON *d = cJSON_CreateObject();
		int rc;

		add_value(d, "previous", an->value);
		cJSON_AddStringToObject(d, "question", qid);
		rc = db_write(db, err, &answer_put, NULL, "itnntt", a->id, qid, actor, at);
		if (rc == 0)
			rc = answer_audit(db, actor, a, "answer.clear", d, err);
		cJSON_Delete(d);
		if (rc != 0)
			return err->code;
		cJSON_Delete(an->value);
		free(an->note);
		an->value = NULL;
		an->note = NULL;
		(*changed)++;
	} else if (value != NULL && (an->value == NULL || !cJSON_Compare(an->value, value, 1) ||
	    !streq_null(an->note, new_note))) {
		char *json = cJSON_PrintUnformatted(value);
		char *keep_note = new_note ? xstrdup(new_note) : NULL;
		cJSON *d = cJSON_CreateObject();
		int rc;

		cJSON_AddStringToObject(d, "question", qid);
		add_value(d, "value", value);
		json_add_str(d, "note", new_note);
		add_value(d, "previous", an->value);
		rc = db_write(db, err, &answer_put, NULL, "ittttt", a->id, qid, json, new_note, actor, at);
		if (rc == 0)
			rc = answer_audit(db, actor, a, "answer.set", d, err);
		cJSON_Delete(d);
		free(json);
		if (rc != 0) {
			free(keep_note);
			return err->code;
		}
		cJSON_Delete(an->value);
		an->value = cJSON_Duplicate(value, 1);
		free(an->note);
		an->note = keep_note;
		free(an->actor);
		an->actor = xstrdup(actor);
		free(an->updated_at);
		an->updated_at = xstrdup(at);
		(*changed)++;
	}
	for (int i = 0; i < nfiles; i++)
		if (attach_evidence(db, actor, a, qid, files[i], effective_date, changed, err) != 0)
			return err->code;
	if (a->batch == NULL)
		assessment_update_asked(a);   /* a batch settles it once, at its end */
	return 0;
}

/* ---- workflow ---- */

/* Arguments: vendor, questionnaire, actor, time. */
/* Arguments: vendor, questionnaire row, actor, time, and the SHA-256 of the text
 * answered against, which audit verify re-hashes (PostgreSQL's function takes it
 * from the questionnaire's text itself). */
static const struct db_write start_round = {
	{ "INSERT INTO assessment (vendor_id, questionnaire_id, created_by, created_at, "
	  "questionnaire_sha256) VALUES (?1, ?2, ?3, ?4, ?5)" },
	"SELECT aivet_assessment_start(?1, ?2, ?4)", 1
};
/* Arguments: assessment, time (and the actor, for the approval). */
static const struct db_write submit_round = {
	{ "UPDATE assessment SET status = 'in_review', submitted_at = ?2 WHERE id = ?1" },
	"SELECT aivet_assessment_submit(?1, ?2)", 0
};
static const struct db_write approve_round = {
	{ "UPDATE assessment SET status = 'final', approved_at = ?2, reviewer = ?3 WHERE id = ?1" },
	"SELECT aivet_assessment_approve(?1, ?2)", 0
};
static const struct db_write return_round = {
	{ "UPDATE assessment SET status = 'draft', submitted_at = NULL WHERE id = ?1" },
	"SELECT aivet_assessment_return(?1)", 0
};
/* Arguments: the final round, actor, time, the questionnaire text's SHA-256. The
 * new round is the one child of the final round (reopen refuses a second). */
#define NEW_ROUND "(SELECT id FROM assessment WHERE parent_id = ?1)"
static const struct db_write reopen_round = {
	{ "INSERT INTO assessment (vendor_id, questionnaire_id, round, parent_id, created_by, created_at, "
	  "questionnaire_sha256) SELECT vendor_id, questionnaire_id, round + 1, id, ?2, ?3, ?4 "
	  "FROM assessment WHERE id = ?1",
	  "INSERT INTO answer (assessment_id, question_id, value, note, actor, updated_at) "
	  "SELECT " NEW_ROUND ", question_id, value, note, actor, updated_at FROM answer "
	  "WHERE assessment_id = ?1",
	  "INSERT INTO answer_history (assessment_id, question_id, value, note, actor, at) "
	  "SELECT " NEW_ROUND ", question_id, nullif(value, 'null'), note, actor, updated_at "
	  "FROM answer WHERE assessment_id = ?1 ORDER BY updated_at, question_id",
	  "INSERT INTO answer_evidence (assessment_id, question_id, evidence_id) "
	  "SELECT " NEW_ROUND ", question_id, evidence_id FROM answer_evidence WHERE assessment_id = ?1" },
	"SELECT aivet_assessment_reopen(?1, ?3)", 1
};

static int
audit_status(struct db *db, const char *actor, const char *action, int64_t id, cJSON *d,
    struct aerr *err)
{
	int rc = audit_append(db, actor, action, "assessment", id, d, err);

	cJSON_Delete(d);
	return rc;
}

/*
 * One round at a time: a vendor's questionnaire (any version) with a round in
 * work takes no second one beside it, and one whose latest round is final goes
 * on with "assess reopen", which starts round N+1 from its answers. Refused
 * naming that round.
 */
static int
one_round_at_a_time(struct db *db, int64_t vendor_id, const struct questionnaire *q, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT a.id, a.round, a.status, a.questionnaire_id "
	    "FROM assessment a JOIN questionnaire q ON q.id = a.questionnaire_id WHERE a.vendor_id = ? "
	    "AND q.qid = ? AND NOT EXISTS (SELECT 1 FROM assessment c WHERE c.parent_id = a.id) "
	    "ORDER BY a.status = 'final', a.id DESC LIMIT 1", "it", vendor_id, q->qid);
	int64_t id = 0, round = 0;
	char status[16] = "";
	int rc;

	if (st == NULL)
		return AV_RUNTIME;
	if ((rc = db_step(st)) == DB_ROW) {
		id = db_col_int64(st, 0);
		round = db_col_int64(st, 1);
		snprintf(status, sizeof status, "%s", col_text(st, 2));
	}
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_err(db, err, "the vendor's rounds");
	if (id == 0)
		return 0;
	if (strcmp(status, "final") != 0)
		return aerr_set(err, AV_USAGE, "the vendor already has %s %lld of %s (round %lld, %s): "
		    "one round at a time; answer it there, or submit and approve it first",
		    strcmp(status, "draft") == 0 ? "draft" : "assessment", (long long)id, q->qid,
		    (long long)round, strcmp(status, "in_review") == 0 ? "in review" : status);
	return aerr_set(err, AV_USAGE, "the vendor's %s round %lld is final (assessment %lld): "
	    "'aivet assess reopen %lld' starts round %lld from its answers", q->qid, (long long)round,
	    (long long)id, (long long)id, (long long)round + 1);
}

int
assessment_start_in(struct db *db, const char *actor, int64_t vendor_id, int64_t questionnaire_row,
    int64_t *id, struct aerr *err)
{
	struct questionnaire *q;
	char at[32];
	int64_t archived;
	cJSON *d;
	int rc;

	if (questionnaire_load(db, questionnaire_row, &q, err) != 0)
		return err->code;
	rc = db_int(db, &archived, err, "SELECT status = 'archived' FROM vendor WHERE id = ?", "i",
	    vendor_id);
	if (rc == 1)
		rc = aerr_set(err, AV_USAGE, "unknown vendor id %lld", (long long)vendor_id);
	else if (rc < 0)
		rc = AV_RUNTIME;
	else if (archived)
		rc = aerr_set(err, AV_USAGE, "vendor %lld is archived; assessments are for active vendors",
		    (long long)vendor_id);
	now_iso(at);
	if (rc == 0)
		rc = one_round_at_a_time(db, vendor_id, q, err);
	if (rc == 0)
		rc = db_write(db, err, &start_round, id, "iittt", vendor_id, questionnaire_row, actor, at,
		    q->sha256);
	if (rc == 0) {
		d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "vendor_id", (double)vendor_id);
		cJSON_AddStringToObject(d, "questionnaire", q->qid);
		cJSON_AddNumberToObject(d, "version", (double)q->version);
		rc = audit_status(db, actor, "assessment.start", *id, d, err);
	}
	questionnaire_free(q);
	return rc;
}

int
assessment_start(struct db *db, const char *actor, int64_t vendor_id, int64_t questionnaire_row,
    int64_t *id, struct aerr *err)
{
	int rc;

	if (db_begin(db, err) != 0)
		return err->code;
	if ((rc = assessment_start_in(db, actor, vendor_id, questionnaire_row, id, err)) == 0)
		return db_commit(db, err);
	db_rollback(db);
	return rc;
}

/* Loads the assessment inside an open transaction (the state cannot move under us). */
static int
begin_with(struct db *db, int64_t id, struct assessment **a, struct aerr *err)
{
	if (db_begin(db, err) != 0)
		return err->code;
	if (assessment_load(db, id, a, err) != 0) {
		db_rollback(db);
		return err->code;
	}
	return 0;
}

static int
finish(struct db *db, struct assessment *a, int rc, struct aerr *err)
{
	if (rc == 0)
		rc = db_commit(db, err);
	else
		db_rollback(db);
	assessment_free(a);
	return rc;
}

/*
 * Rates the round into *s and refuses it, naming every required question
 * still open, when any is: a round goes to review, and is approved, only
 * complete, and submit and approve say so in the same words.
 */
static int
unanswered_refusal(struct db *db, const struct assessment *a, struct assessment_score *s,
    struct aerr *err)
{
	struct buf missing;
	int rc;

	if (assessment_rate(db, a, s, NULL, err) != 0)
		return err->code;
	if (s->unanswered_required == 0)
		return 0;
	buf_init(&missing);
	for (int i = 0; i < a->q->nquestions; i++)
		if (a->asked[i] && a->q->questions[i].required && a->answers[i].value == NULL)
			buf_printf(&missing, "%s%s", missing.len ? ", " : "", a->q->questions[i].id);
	rc = aerr_set(err, AV_USAGE, "assessment %lld has %d unanswered required question%s: %s",
	    (long long)a->id, s->unanswered_required, s->unanswered_required == 1 ? "" : "s",
	    missing.data);
	buf_free(&missing);
	return rc;
}

int
assessment_may_submit(struct db *db, int64_t id, struct aerr *err)
{
	struct assessment *a;
	struct assessment_score s;
	int rc;

	if (assessment_load(db, id, &a, err) != 0)
		return err->code;
	rc = unanswered_refusal(db, a, &s, err);
	assessment_free(a);
	return rc;
}

int
assessment_submit(struct db *db, const char *actor, int64_t id, struct aerr *err)
{
	struct assessment *a;
	struct assessment_score s;
	char at[32];
	int rc;

	if (begin_with(db, id, &a, err) != 0)
		return err->code;
	if (strcmp(a->status, "draft") != 0) {
		rc = strcmp(a->status, "final") == 0 ?
		    aerr_set(err, AV_USAGE, "assessment %lld is final; only a draft can be submitted",
		    (long long)id) :
		    aerr_set(err, AV_USAGE, "assessment %lld is already in review", (long long)id);
		return finish(db, a, rc, err);
	}
	if (unanswered_refusal(db, a, &s, err) != 0)
		return finish(db, a, err->code, err);
	now_iso(at);
	rc = db_write(db, err, &submit_round, NULL, "it", id, at);
	if (rc == 0)
		rc = audit_status(db, actor, "assessment.submit", id, NULL, err);
	return finish(db, a, rc, err);
}

/*
 * Two people: whoever approves must not have written any answer of this round
 * nor submitted it. The approver is the actor aivet runs as (--actor,
 * AIVET_ACTOR, the login; the database login where the database knows who
 * connects), never a name typed in, so the check is on the actor alone and
 * every way in (command, terminal UI) passes here.
 */
static int
approver_is_second_person(struct db *db, const char *actor, int64_t id, struct aerr *err)
{
	int64_t authors, answered, submitted;

	if (db_int(db, &authors, err, "SELECT count(DISTINCT actor) FROM answer_history "
	    "WHERE assessment_id = ?", "i", id) < 0 ||
	    db_int(db, &answered, err, "SELECT count(*) FROM answer_history "
	    "WHERE assessment_id = ? AND actor = ?", "it", id, actor) < 0 ||
	    db_int(db, &submitted, err, "SELECT count(*) FROM (SELECT actor FROM audit_log "
	    "WHERE action = 'assessment.submit' AND object_type = 'assessment' AND object_id = ? "
	    "ORDER BY seq DESC LIMIT 1) AS latest WHERE actor = ?", "it", id, actor) < 0)
		return AV_RUNTIME;
	if (authors == 0)
		return aerr_set(err, AV_USAGE, "assessment %lld has no answers to approve", (long long)id);
	if (answered == 0 && submitted == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "%s cannot approve assessment %lld: %s %s it, and approval "
	    "needs a second person, who approves with their own key", actor, (long long)id, actor,
	    answered && submitted ? "answered and submitted" : answered ? "answered" : "submitted");
}

/* Why the actor may not approve a (loaded) round, or 0: the one rule that
 * assessment_approve() applies and the TUI asks before any question. */
static int
approve_refusal(struct db *db, const char *actor, const struct assessment *a,
    struct assessment_score *s, struct aerr *err)
{
	int64_t id = a->id;

	if (actor == NULL || *actor == '\0')
		return aerr_set(err, AV_USAGE, "approval needs an actor (--actor NAME or AIVET_ACTOR)");
	/* On PostgreSQL approving is a reviewer's (the server refuses anyone else). */
	if (db_require_role(db, DB_ROLE_REVIEWER, "approving an assessment", err) != 0)
		return err->code;
	if (strcmp(a->status, "in_review") != 0)
		return strcmp(a->status, "final") == 0 ?
		    aerr_set(err, AV_USAGE, "assessment %lld is already final", (long long)id) :
		    aerr_set(err, AV_USAGE, "assessment %lld is a draft; submit it for review first "
		    "('aivet assess submit %lld')", (long long)id, (long long)id);
	if (unanswered_refusal(db, a, s, err) != 0)
		return err->code;
	return approver_is_second_person(db, actor, id, err);
}

int
assessment_may_approve(struct db *db, const char *actor, int64_t id, struct aerr *err)
{
	struct assessment *a;
	struct assessment_score s;
	int rc;

	if (assessment_load(db, id, &a, err) != 0)
		return err->code;
	rc = approve_refusal(db, actor, a, &s, err);
	assessment_free(a);
	return rc;
}

int
assessment_approve(struct db *db, const char *actor, int64_t id, const struct minisign_sec *sec,
    struct aerr *err)
{
	struct assessment *a;
	struct assessment_score s;
	char at[32];
	cJSON *d;
	int rc = 0;

	if (actor == NULL || *actor == '\0')
		return aerr_set(err, AV_USAGE, "approval needs an actor (--actor NAME or AIVET_ACTOR)");
	if (begin_with(db, id, &a, err) != 0)
		return err->code;
	if (approve_refusal(db, actor, a, &s, err) != 0)
		return finish(db, a, err->code, err);
	now_iso(at);
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "reviewer", actor);
	cJSON_AddStringToObject(d, "rating", rating_name(s.rating));
	cJSON_AddNumberToObject(d, "risk_score", s.risk_score);
	/* Signed before anything is written: a refused signature leaves the round in review. */
	rc = approval_sign(db, actor, a, at, sec, d, err);
	if (rc == 0)
		rc = db_write(db, err, &approve_round, NULL, "itt", id, at, actor);
	if (rc == 0)
		rc = audit_status(db, actor, "assessment.approve", id, d, err);
	else
		cJSON_Delete(d);
	return finish(db, a, rc, err);
}

int
assessment_reopen(struct db *db, const char *actor, int64_t id, int64_t *new_id, struct aerr *err)
{
	struct assessment *a;
	int64_t child;
	char at[32];
	cJSON *d;
	int rc;

	if (begin_with(db, id, &a, err) != 0)
		return err->code;
	*new_id = id;
	if (strcmp(a->status, "draft") == 0)
		return finish(db, a, aerr_set(err, AV_USAGE, "assessment %lld is already a draft",
		    (long long)id), err);
	if (strcmp(a->status, "in_review") == 0) {
		rc = db_write(db, err, &return_round, NULL, "i", id);
		if (rc == 0)
			rc = audit_status(db, actor, "assessment.return", id, NULL, err);
		return finish(db, a, rc, err);
	}
	rc = db_int(db, &child, err, "SELECT id FROM assessment WHERE parent_id = ?", "i", id);
	if (rc == 0)
		return finish(db, a, aerr_set(err, AV_USAGE, "assessment %lld was already reopened as "
		    "assessment %lld", (long long)id, (long long)child), err);
	if (rc < 0)
		return finish(db, a, AV_RUNTIME, err);
	now_iso(at);
	/* The final round stays as it was; the new round starts from its answers. */
	rc = db_write(db, err, &reopen_round, new_id, "ittt", id, actor, at, a->q->sha256);
	if (rc == 0) {
		d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "from", (double)id);
		cJSON_AddNumberToObject(d, "round", (double)(a->round + 1));
		rc = audit_status(db, actor, "assessment.reopen", *new_id, d, err);
	}
	return finish(db, a, rc, err);
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

/* ---- one answer, as "assess answer" and the assessment screen give it ---- */

int
assessment_asked(const struct assessment *a, int qi, struct aerr *err)
{
	const struct q_question *qq = &a->q->questions[qi];
	int d = qq->dep;
	char *want, *now;
	int rc;

	if (a->asked[qi])
		return 0;
	if (d < 0)
		return aerr_set(err, AV_USAGE, "question %s is not asked with the current answers", qq->id);
	want = answer_to_text(NULL, qq->dep_values);
	now = a->answers[d].value == NULL ? xstrdup(a->asked[d] ? "unanswered" : "not asked") :
	    answer_to_text(&a->q->questions[d], a->answers[d].value);
	rc = aerr_set(err, AV_USAGE, "question %s is not asked with the current answers: it is asked "
	    "only when %s is %s (%s is %s)", qq->id, a->q->questions[d].id, want,
	    a->q->questions[d].id, now);
	free(want);
	free(now);
	return rc;
}

/* An answer's risk as the rating counts it, with the stated one beside it when
 * the evidence raised it: "risk high (stated low; contradicted: LEAK_CROSS_TENANT
 * on e)". Without the evidence (it could not be read) the stated risk, said so. */
static void
answer_risk_words(struct db *db, const struct assessment *a, int qi, char *out, size_t n)
{
	struct aerr e = { 0 };
	struct claim_list claims;
	const struct claim *c;
	int stated = answer_risk(&a->q->questions[qi], a->answers[qi].value), counted;
	char why[160];

	if (assessment_claims(db, a, &claims, &e) != 0) {
		snprintf(out, n, "risk %s as stated; the evidence could not be read", risk_name(stated));
		return;
	}
	counted = assessment_answer_risk(a, qi, &claims);
	if (counted == stated || (c = assessment_contradiction(&claims, a->q->questions[qi].id)) == NULL)
		snprintf(out, n, "risk %s", risk_name(counted));
	else {
		name_contradiction(c, why, sizeof why);
		snprintf(out, n, "risk %s (stated %s; contradicted by %s)", risk_name(counted),
		    risk_name(stated), strchr(why, ':') ? strchr(why, ':') + 2 : why);
	}
	claim_list_free(&claims);
}

int
assessment_answer(struct db *db, const char *actor, const struct assessment_answer_input *in,
    struct assessment_answer_result *out, struct aerr *err)
{
	struct assessment *a = NULL;
	cJSON *value = NULL;
	int64_t id;
	int qi, changed = 0, rc;

	out->form_error = 0;
	out->message = NULL;
	if (in->clear && (in->value != NULL || in->set_note || in->nfiles > 0)) {
		out->form_error = 1;
		return aerr_set(err, AV_USAGE, "--clear takes no VALUE, --note or --evidence");
	}
	if (in->effective != NULL && in->nfiles == 0) {
		out->form_error = 1;
		return aerr_set(err, AV_USAGE, "--effective dates an --evidence file; none was given");
	}
	if ((id = in->id) == 0 && assessment_lookup(db, in->ref, &id, err) != 0)
		return err->code;
	if (db_begin(db, err) != 0)
		return err->code;
	if (assessment_load(db, id, &a, err) != 0 ||
	    assessment_question(a, in->question, &qi, err) != 0 ||
	    assessment_editable(a, err) != 0)
		goto fail;
	if (in->value != NULL) {
		if (answer_from_text(&a->q->questions[qi], in->value, &value, err) != 0) {
			aerr_prefix(err, "question %s", a->q->questions[qi].id);
			goto fail;
		}
		/* A stale answer may stay (and be cleared), but a hidden question takes no new one. */
		if (assessment_asked(a, qi, err) != 0)
			goto fail;
	} else if (!in->clear) {
		if (a->answers[qi].value == NULL && in->nfiles > 0) {
			out->form_error = 1;
			aerr_set(err, AV_USAGE, "question %s has no answer yet: give a VALUE with "
			    "--evidence (a --note alone may go on an unanswered question)",
			    a->q->questions[qi].id);
			goto fail;
		}
		if (!in->set_note && in->nfiles == 0) {
			out->form_error = 1;
			aerr_set(err, AV_USAGE, "nothing to change: give a VALUE, --note or --evidence");
			goto fail;
		}
		value = a->answers[qi].value ? cJSON_Duplicate(a->answers[qi].value, 1) : NULL;
	}
	/* An empty note removes the note. */
	if (assessment_set_answer(db, actor, a, qi, value, in->set_note,
	    in->note && *in->note ? in->note : NULL, in->files, in->nfiles, in->effective,
	    &changed, err) != 0)
		goto fail;
	if ((rc = db_commit(db, err)) != 0)
		goto out;
	if (changed == 0) {
		out->message = xasprintf("question %s unchanged", a->q->questions[qi].id);
	} else if (a->answers[qi].value == NULL && in->set_note) {
		out->message = a->answers[qi].note ? xasprintf("question %s: note recorded; the question "
		    "is still unanswered", a->q->questions[qi].id) : xasprintf("question %s: note removed",
		    a->q->questions[qi].id);
	} else if (a->answers[qi].value == NULL) {
		out->message = xasprintf("question %s cleared", a->q->questions[qi].id);
	} else {
		char *text = answer_to_text(&a->q->questions[qi], a->answers[qi].value), risk[200];

		answer_risk_words(db, a, qi, risk, sizeof risk);
		out->message = xasprintf("question %s: %s (%s)%s", a->q->questions[qi].id, text, risk,
		    a->asked[qi] ? "" : " — not asked with the current answers (depends_on)");
		free(text);
	}
	goto out;
fail:
	rc = err->code;
	db_rollback(db);
out:
	cJSON_Delete(value);
	assessment_free(a);
	return rc;
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
		    c->endpoint ? c->endpoint : "(no endpoint)", c->status);
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
