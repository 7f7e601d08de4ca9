/*
 * assess-answer.c: changing an assessment's answers: a value or a note set
 * with its history, evidence attached, and an audit entry for each, and one
 * answer as "assess answer" and the assessment screen give it. A final
 * round never changes: the code refuses, and so does the database (triggers
 * in db/002-assess.sql).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "claims.h"
#include "rating.h"
#include "approval.h"
#include "assess-impl.h"

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
