/*
 * assess-workflow.c: an assessment's rounds: started one at a time per
 * vendor and questionnaire, submitted when every required question is
 * answered, approved by a second person (signed when a key is given), and
 * reopened as a new round; each step with its audit entry.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "assess.h"
#include "db-admin.h"
#include "claims.h"
#include "rating.h"
#include "approval.h"

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
