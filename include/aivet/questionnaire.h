/*
 * questionnaire.h: questionnaires as aivet reads them — the file format
 * (questionnaires/FORMAT.md) checked with file:line:column and JSON path for
 * every problem at once, the in-memory form the assessment code scores
 * against, typed answer values, and the questionnaire table that keeps
 * every version ever loaded (old assessments keep pointing at theirs).
 */
#ifndef AIVET_QUESTIONNAIRE_H
#define AIVET_QUESTIONNAIRE_H

#include "core.h"

enum q_type { QT_YES_NO, QT_SINGLE, QT_MULTI, QT_TEXT, QT_NUMBER, QT_DURATION, QT_DATE };
enum risk_level { RISK_NONE, RISK_LOW, RISK_MEDIUM, RISK_HIGH, RISK_CRITICAL };

const char *risk_name(int risk);            /* "none" .. "critical" */
int risk_parse(const char *s);               /* -1 when unknown */
const char *q_type_name(int type);

struct q_choice {
	const char *value, *label;
	int risk;
};

/* Numbers and durations: the first band whose max the value does not exceed. */
struct q_band {
	double max;    /* seconds for durations */
	int risk;
};

/* One verified_by entry: a probe and the answer value it confirms when it passes. */
struct q_check {
	const char *probe;
	const cJSON *confirms;   /* a value, or for choices an array meaning "any of" */
	int tenants;             /* credentials the endpoint needs for a pass to confirm (>= 1) */
};

/* A number compared with a probe's measurement: the answer holds when the
 * measured value is at least answer * (1 - tolerance). */
struct q_measure {
	const char *probe;       /* "sweep" */
	const char *value;       /* a number in the probe's details: "integrity_boundary" */
	double tolerance;        /* 0 to 0.5 */
};

struct q_question {
	const char *id, *text, *help, *unit;
	int section, type, required;
	double weight;
	struct q_choice *choices;
	int nchoices;
	int *by_value;           /* choice indices sorted by value, for lookups */
	struct q_band *bands;
	int nbands, above;       /* above: risk beyond the last band */
	int dep;                 /* index of the question this one depends on, or -1 */
	const cJSON *dep_values; /* shown only when that answer is one of these */
	const char **references; /* its references (strings of the parsed file) */
	int nreferences;
	struct q_check *checks;
	int nchecks;
	const cJSON *claim;      /* the answers that assert the tested behaviour; NULL: every confirms */
	const cJSON *contradicted_by; /* finding codes beyond the registry's, may be NULL */
	struct q_measure measure; /* probe NULL when none */
	int every_request;       /* a claim about every request: a sample is at most consistent */
	const char *engine_fact; /* "disaggregation": the engine probe's node roles answer it; NULL */
};

struct q_section {
	const char *id, *title, *description;
	int first, count;        /* its questions in questionnaire.questions */
};

struct questionnaire {
	int64_t row_id;          /* questionnaire.id in the database, 0 when not stored */
	const char *qid, *title, *description;
	int64_t version;
	int bundled;
	char sha256[65];
	struct q_section *sections;
	int nsections;
	struct q_question *questions;
	int nquestions;
	int *by_id;              /* question indices sorted by id (then position), for lookups */
	cJSON *root;             /* owns every string above */
};

/* verified_by and measured_by name probes of the engine's table (probe_find). */

/*
 * Checks a questionnaire file. Every problem is appended to problems as one
 * line "NAME:LINE:COL: PATH: message\n"; returns how many there were. With
 * out and no problems, *out receives the parsed questionnaire.
 */
int questionnaire_check(const char *name, const char *text, size_t len, struct buf *problems,
    struct questionnaire **out);
/* questionnaire_check with the problems folded into err (AV_USAGE). */
int questionnaire_parse(const char *name, const char *text, size_t len, struct questionnaire **out,
    struct aerr *err);
void questionnaire_free(struct questionnaire *q);
int questionnaire_find(const struct questionnaire *q, const char *question_id);

/* Loads bundled questionnaires not yet in the database (first use, upgrades). */
int questionnaires_sync(struct db *db, const char *actor, struct aerr *err);
/* Stores a checked questionnaire inside the caller's transaction, with its audit entry. */
int questionnaire_store(struct db *db, const char *actor, struct questionnaire *q, const char *source,
    size_t len, int64_t *row_id, struct aerr *err);
/* "QID" (newest version) or "QID@VERSION" -> questionnaire row id. */
int questionnaire_lookup(struct db *db, const char *ref, int64_t *row_id, struct aerr *err);
/* The row ids of the newest version of each questionnaire (every version with
 * all), by id and version, as "questionnaire list" shows them; *ids is the caller's to free. */
int questionnaire_ids(struct db *db, int all, int64_t **ids, size_t *n, struct aerr *err);
/* The questionnaire ids (QID) that start with prefix, sorted, each handed to fn. */
int questionnaire_qids_from(struct db *db, const char *prefix,
    void (*fn)(const char *qid, void *ctx), void *ctx, struct aerr *err);
/* Whether version of qid is stored: 0 it is (*row_id, its content's SHA-256
 * in sha256), 1 it is not, -1 on a database error (in err). */
int questionnaire_stored(struct db *db, const char *qid, int64_t version, int64_t *row_id,
    char sha256[65], struct aerr *err);
/* "questionnaire import": stores checked questionnaire q (read from file
 * name, its text source) in one transaction with its audit entry. *row_id
 * is its row; *already is set when that version is loaded with the same
 * content (nothing written); with other content it is refused, naming name. */
int questionnaire_import(struct db *db, const char *actor, const char *name, struct questionnaire *q,
    const char *source, size_t len, int64_t *row_id, int *already, struct aerr *err);
int questionnaire_load(struct db *db, int64_t row_id, struct questionnaire **out, struct aerr *err);
/* When the stored questionnaire row_id was loaded (ISO 8601) into out; "" when
 * the row has no time. */
int questionnaire_loaded_at(struct db *db, int64_t row_id, char *out, size_t n, struct aerr *err);

/* ---- answer values (stored as JSON text in answer.value) ---- */

/* The answer as typed (CLI, CSV, TUI) -> its JSON value; multi_choice takes "a,b". */
int answer_from_text(const struct q_question *qq, const char *text, cJSON **value, struct aerr *err);
/* Whether a JSON value is a valid answer; explains why not. */
int answer_check(const struct q_question *qq, const cJSON *value, struct aerr *err);
/* The answer as typed back (malloc'ed). */
char *answer_to_text(const struct q_question *qq, const cJSON *value);
/* Whether the answer picked the choice `choice`: a one-of answer that is it, or
 * a many-of answer that holds it (what a screen marks as selected). */
int answer_chose(const cJSON *value, const char *choice);
int answer_risk(const struct q_question *qq, const cJSON *value);
/* The allowed values, for humans: "yes|no", "number (tokens)", ... (malloc'ed). */
char *question_allowed(const struct q_question *qq);

#endif
