/*
 * assess.h: vendor assessments — a questionnaire's answers for one vendor,
 * their risk and score, the draft -> in_review -> final workflow with rounds,
 * answer history and evidence, the vendor sheet (CSV and Markdown), and how
 * probe results confirm or contradict what a vendor answered. Shared by the
 * CLI, the TUI, reports and incidents.
 */
#ifndef AIVET_ASSESS_H
#define AIVET_ASSESS_H

#include "core.h"
#include "questionnaire.h"
#include "rating.h"
#include "run-query.h"

/* A file attached to an answer as evidence. */
struct answer_file {
	int64_t evidence_id, size;
	char *name, *sha256;     /* the name it was attached under; hex digest */
};

struct answer {
	cJSON *value;            /* NULL when unanswered */
	char *note, *actor, *updated_at;
	struct answer_file *files;   /* its evidence, oldest first */
	int nfiles;
};

struct assessment {
	int64_t id, vendor_id, round, parent_id;   /* parent_id 0 for a first round */
	char *vendor, *status, *created_by, *created_at, *submitted_at, *approved_at, *reviewer;
	struct approval_at approved;   /* what the approval entry recorded (final rounds) */
	struct questionnaire *q;
	struct answer *answers;  /* one per q->questions[] */
	int *asked;              /* 0 when depends_on hides the question */
	cJSON *batch;            /* non-NULL: answer changes collected for one audit entry */
};

/* ---- a claim as a record (claims.c judges; claims.h says how) ---- */

/* A probe that tests the claim and its newest completed result's verdict
 * (run_id 0: never run on the endpoint, and no verdict). */
struct claim_probe {
	char *probe;
	int64_t run_id;
	enum probe_verdict verdict;
};
/* A finding that disproves the claim. */
struct claim_contra {
	char *code;
	int64_t finding_id, run_id;
	char *probe, *message;
	int64_t *evidence;
	size_t nevidence;
};
/* What the claim's probe measured, for an answered number it tests. */
struct claim_measure {
	char *probe, *value;
	int has_measured, has_accepted_up_to, has_engine_capacity;
	double measured, accepted_up_to, engine_capacity;
	int limit_found;
	double tolerance;
};
/* A claim's status (claims.h says when each holds), in the order a report's
 * summary counts them; CLAIM_NONE: no claim (no probe tests the answer), or
 * nothing decided yet while it is judged. */
enum claim_status {
	CLAIM_NONE = -1, CLAIM_CONFIRMED, CLAIM_CONTRADICTED, CLAIM_UNTESTED, CLAIM_CONSISTENT,
	CLAIM_STATUS_COUNT
};
/* The status's word in every output (JSON, Markdown, HTML, OSCAL, assess
 * show, the TUI): confirmed, contradicted, untested or consistent; NULL for
 * CLAIM_NONE. The one table of them. */
const char *claim_status_name(enum claim_status s);

/* One answered, testable question judged on one endpoint. */
struct claim {
	int64_t assessment_id;        /* 0: not tied to one (claims_judge leaves it out) */
	char *question_id, *question;
	cJSON *answer;                /* the answer as given */
	char *endpoint;               /* NULL: the vendor has no endpoint (null) */
	enum claim_status status;     /* never CLAIM_NONE (claim_status_name names it) */
	char *reason;
	struct claim_probe *probes;
	size_t nprobes;
	struct claim_contra *contradicting;
	size_t ncontradicting;
	struct claim_measure *measure;   /* NULL: null */
	int has_endpoint_record;      /* a number the endpoint records (its context) */
	double endpoint_record;
	int record_mismatch;
};
struct claim_list {
	struct claim *items;
	size_t n;
};
/* An endpoint claims are judged on: its name as the runs name it, the
 * credentials it has (at least 1) and the context it advertises (0: none). */
struct claim_endpoint {
	char *name;
	int tenants;
	int64_t context;
};
/* What claims are judged on: the runs with their results and findings, and
 * the endpoints (claims.c loads them; the report builds them from its runs). */
struct claim_evidence {
	struct probe_run_list runs;
	struct claim_endpoint *endpoints;
	size_t nendpoints;
};
void claim_evidence_free(struct claim_evidence *ev);
void claim_list_free(struct claim_list *l);
/* The one JSON form of a claim (assess show --json, report.json): the members
 * named as the fields, assessment_id only when set. */
cJSON *claim_to_json(const struct claim *c);
cJSON *claim_list_to_json(const struct claim_list *l);

struct assessment_score {
	int worst_risk;          /* worst risk among the answered questions asked */
	int rating;              /* enum rating (rating.h), from the worst risk and what is missing */
	double risk_score;       /* weighted mean risk, 0 (none) to 100 (all critical) */
	int asked, answered, unanswered_required;
	int contradicted;        /* answers whose claim the evidence contradicts (counted high) */
	char finding[160];       /* the first of them: "kv_pages_cleared: LEAK_CROSS_TENANT on
	                            Sim Health AI/prod", or "" */
};

/* An assessment is named by its id on the command line. */
int assessment_lookup(struct db *db, const char *ref, int64_t *id, struct aerr *err);
int assessment_load(struct db *db, int64_t id, struct assessment **out, struct aerr *err);
/* The assessments (of one vendor unless vendor_id is 0) by id; *ids is the caller's to free. */
int assessment_ids(struct db *db, int64_t vendor_id, int64_t **ids, size_t *n, struct aerr *err);
void assessment_free(struct assessment *a);
/* Index of a question of the assessment's questionnaire, or an error naming it. */
int assessment_question(const struct assessment *a, const char *question_id, int *index,
    struct aerr *err);
/* Recomputes which questions are asked (after answers change). */
void assessment_update_asked(struct assessment *a);
/* 0 when question qi is asked with the current answers, else the refusal of a
 * new answer to it, naming the question and the answer it depends on (what
 * assess answer and the assessment screen both say). */
int assessment_asked(const struct assessment *a, int qi, struct aerr *err);
/* The one rating of an assessment: its answers' risks, each answer whose claim
 * the evidence contradicts counted at least high (claims as assessment_claims
 * gives them; NULL only where no evidence exists yet). */
void assessment_score(const struct assessment *a, const struct claim_list *claims,
    struct assessment_score *s);
/* The risk answer qi carries in that rating (its stated risk, or high when contradicted). */
/* rating_since_approval of round a scored s: "approved at concerns 8.6; now
 * unacceptable 49.6: ..." ("" for a round with nothing recorded at approval). */
void assessment_since_approval(const struct assessment *a, const struct assessment_score *s,
    char *out, size_t n);
/* Adds approved_score ({rating, risk_score} or null) and since_approval (that
 * sentence or null) to o: assess show --json, assess list --json, the report. */
void assessment_approved_json(cJSON *o, const struct assessment *a, const struct assessment_score *s);
int assessment_answer_risk(const struct assessment *a, int qi, const struct claim_list *claims);
/* The first contradicted claim of answer qi in claims, or NULL. */
const struct claim *assessment_contradiction(const struct claim_list *claims, const char *question_id);
/* The claim status of an answer in claims, as assess show gives it:
 * contradicted when any of its claims is, else confirmed when one is, else
 * consistent when one is, else untested; CLAIM_NONE when no probe tests the
 * answer (no claim). */
enum claim_status assessment_claim_status(const struct claim_list *claims, const char *question_id);
/* The claim behind that status as one line, for a screen that shows a question
 * in full: "Contradicted on ENDPOINT: REASON; evidence 3, 4", "Confirmed on
 * ENDPOINT: REASON", "Untested on ENDPOINT: REASON"; nothing when no claim. */
void assessment_claim_text(const struct claim_list *claims, const char *question_id, struct buf *out);
/* Judges the claims on the database's evidence and scores: what assess show,
 * assess list, the dashboard, the TUI and the report all call. *claims (may be
 * NULL) receives the judged claims, the caller's to free. */
int assessment_rate(struct db *db, const struct assessment *a, struct assessment_score *s,
    struct claim_list *claims, struct aerr *err);
/* The full record as aivet assess show --json prints it (fields in aivet(1)). */
int assessment_json(struct db *db, const struct assessment *a, cJSON **out, struct aerr *err);
/* Answers may change only in draft. */
int assessment_editable(const struct assessment *a, struct aerr *err);

/*
 * Sets (value) or clears (NULL) one answer, inside the caller's transaction:
 * answer row, answer_history row and audit entry when anything changed, plus
 * each evidence file (stored once by SHA-256, attached once per question).
 * set_note: replace the note with note (NULL clears it). *changed counts the
 * changes made.
 */
int assessment_set_answer(struct db *db, const char *actor, struct assessment *a, int qi,
    const cJSON *value, int set_note, const char *note, char *const *files, int nfiles,
    const char *effective_date, int *changed, struct aerr *err);

/* One "assess answer": a VALUE as text (NULL: keep the current one, unless
 * clear), a note (set_note; "" removes it), evidence files. */
struct assessment_answer_input {
	int64_t id;       /* the assessment, or 0 when ref names it */
	const char *ref, *question, *value, *note, *effective;
	int set_note, clear;
	char *const *files;
	int nfiles;
};
struct assessment_answer_result {
	char *message;    /* "question Q: VALUE (risk R)", "... unchanged", "... cleared"; free it */
	int form_error;   /* the error is about what was asked (the CLI adds its usage line) */
};
/* Checks, writes in its own transaction with the audit entry, prints nothing. */
int assessment_answer(struct db *db, const char *actor, const struct assessment_answer_input *in,
    struct assessment_answer_result *out, struct aerr *err);
/* A question's answer history, oldest first: [{at, actor, value, note}]. */
int assessment_history(struct db *db, const struct assessment *a, int qi, cJSON **out,
    struct aerr *err);
/* That history as the "assess history" table. */
void assessment_history_text(const struct assessment *a, int qi, const cJSON *history,
    struct buf *out);

/* The assessment as "assess show" prints it: scores, answers by section, claims. */
void assessment_text(const struct assessment *a, const struct claim_list *claims, struct buf *out);

/* Workflow; each runs its own transaction. */
int assessment_start(struct db *db, const char *actor, int64_t vendor_id, int64_t questionnaire_row,
    int64_t *id, struct aerr *err);
/* assessment_start inside the caller's transaction. */
int assessment_start_in(struct db *db, const char *actor, int64_t vendor_id,
    int64_t questionnaire_row, int64_t *id, struct aerr *err);
/* Refused, naming them, while required questions asked are unanswered. */
int assessment_submit(struct db *db, const char *actor, int64_t id, struct aerr *err);
/* 0, or why assessment_submit would refuse for open required questions: asked
 * before any question is put (the TUI). */
int assessment_may_submit(struct db *db, int64_t id, struct aerr *err);
/* The actor approves and is recorded as reviewer; refused when the actor
 * answered or submitted this round (two people). The approval is signed with
 * sec, the actor's registered key (approval.c), and refused without it on
 * SQLite, where the actor is only a name typed in. */
struct minisign_sec;
int assessment_approve(struct db *db, const char *actor, int64_t id, const struct minisign_sec *sec,
    struct aerr *err);
/* 0 when the actor may approve the round now, else the refusal assessment_approve()
 * would give (changes nothing): asked before a question is put to the actor. */
int assessment_may_approve(struct db *db, const char *actor, int64_t id, struct aerr *err);
/* in_review -> draft (*new_id = id); final -> a new draft round copying the answers. */
int assessment_reopen(struct db *db, const char *actor, int64_t id, int64_t *new_id, struct aerr *err);

/* The assessment's answered claims judged against each active endpoint of its
 * vendor (claims.h says how and what each claim holds). */
int assessment_claims(struct db *db, const struct assessment *a, struct claim_list *out,
    struct aerr *err);
/* The same judged on evidence already loaded (claims_evidence_load). */
void assessment_claims_on(const struct assessment *a, const struct claim_evidence *ev,
    struct claim_list *out);

/* ---- the vendor sheet (assess-sheet.c) ---- */
int assessment_export(const struct assessment *a, const char *format, struct buf *out,
    struct aerr *err);
/*
 * One row of a sheet read back, from CSV or a workbook: the cells by meaning
 * and where to point at them. where names the row ("FILE:LINE",
 * "Answers!B14"), answer_where its answer ("Answers!E14"), seen how a later
 * duplicate points back at it ("on line 7"). A reader's own finding about
 * the row (a formula, an error value) is problem, reported as it stands;
 * other says a cell outside the three columns holds something.
 */
struct sheet_answer {
	const char *qid, *answer, *note;   /* note NULL without a note column */
	char *where, *answer_where, *seen, *problem;
	int other;
};
struct sheet_plan;
/* Checks every row against the questionnaire, appending each problem as a
 * line to problems; on any, fails with "SOURCE: N bad rows; nothing was
 * imported". Otherwise *plan holds the answers to write. */
int sheet_plan_rows(const struct questionnaire *q, const char *source, const struct sheet_answer *rows,
    int nrows, int has_note, struct buf *problems, struct sheet_plan **plan, struct aerr *err);
/* Writes a plan inside the caller's transaction, with one audit entry
 * "answer.import" naming source and listing each change; *changed counts
 * the changes. */
int sheet_plan_apply(struct db *db, const char *actor, struct assessment *a,
    const struct sheet_plan *plan, const char *source, int *changed, struct aerr *err);
/* sheet_plan_apply in its own transaction. */
int sheet_plan_write(struct db *db, const char *actor, struct assessment *a,
    const struct sheet_plan *plan, const char *source, int *changed, struct aerr *err);
void sheet_plan_free(struct sheet_plan *plan);

/* Reads a sheet back. Bad rows are all appended to problems, one line each
 * ("FILE:LINE: message\n"), and then nothing changes. */
int assessment_import_csv(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err);

/* ---- the vendor sheet as a workbook (assess-xlsx.c) ---- */
struct sheet_xlsx_info {
	const char *sender;      /* who sends it (the actor) */
	const char *due;         /* when the answers are due, NULL or "" when not set */
};
/* Writes the workbook of an assessment, or with a NULL a blank template of q. */
int sheet_export_xlsx(const struct questionnaire *q, const struct assessment *a,
    const struct sheet_xlsx_info *info, const char *path, struct aerr *err);
/* Reads a filled-in workbook back into an assessment, as assessment_import_csv. */
int assessment_import_xlsx(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err);
/* Whether a file is a workbook (a ZIP archive) rather than CSV: only a
 * regular file is looked into, without waiting on a FIFO. */
int sheet_is_workbook(const char *path);
/* A filled-in sheet read back, a workbook or CSV as its content says. */
int assessment_import_sheet(struct db *db, const char *actor, struct assessment *a, const char *path,
    struct buf *problems, int *changed, struct aerr *err);
/* Starts an assessment of a vendor from a workbook (its questionnaire version
 * named in the hidden sheet) with its answers, in one transaction. */
int assessment_import_xlsx_start(struct db *db, const char *actor, int64_t vendor_id, const char *path,
    struct buf *problems, int64_t *id, int *changed, struct aerr *err);

#endif
