/*
 * report-doc.h: the report as a typed record, private to the domain: what
 * report_collect gathers once (vendor, endpoints, assessments with answers,
 * probe runs with results, findings and exchanges, claims, incidents with
 * clocks, evidence, the audit checkpoint) and what report.json, report.md,
 * report.html and OSCAL render. Strings are NULL where report.json has null;
 * a has_ flag marks a number that may be null. Documents that are free-form
 * (a result's details, a run's calibration, plan and options, an answer's
 * value) stay cJSON, the same object report.json writes; what the renderings
 * draw of them (the sweep's points, prefix timing's groups, the calibration)
 * is read once, by the engine's reader of them (probe-record.h), through
 * report_details_read, so no renderer reads a document by key.
 */
#ifndef AIVET_REPORT_DOC_H
#define AIVET_REPORT_DOC_H

#include "aivet/assess.h"
#include "aivet/incident.h"
#include "aivet/probe-record.h"
#include "aivet/rating.h"
#include "aivet/report.h"
#include "aivet/vendor.h"

/* A stored file cited as evidence (an answer's attachment, an incident's
 * linked file): the evidence row, and where the bundle holds it. */
struct report_evidence {
	int64_t id;
	char *kind, *sha256;
	char *original_name, *media_type, *effective_date;   /* NULL: null */
	int64_t size;
	char *added_by, *added_at;
	int has_file;                 /* report.json has "file" (a path or null) */
	char *file;                   /* its path in the bundle (evidence/NAME); NULL: not in it */
	char *file_note;              /* why it is not (stored encrypted), or NULL */
};

/* A signed approval as the bundle carries it (approvals/assessment-ID.txt). */
struct report_approval {
	char *signer, *key_id;
	char *statement_file, *signature_file;
	char *registered_public_key;  /* NULL: the reviewer has no key registered */
	int self_declared;            /* the statement says the name is self-declared (SQLite) */
};

/* An answer of an assessment, rated as assess show rates it. */
struct report_answer {
	char *question_id;
	cJSON *value;                 /* the answer as given (free-form JSON value) */
	char *note, *actor, *updated_at;
	char *question;               /* the question's text; NULL: not in the questionnaire */
	enum risk_level risk, stated_risk;   /* as rated (risk_name names them); with rated */
	enum claim_status claim;      /* its claim status; CLAIM_NONE: not testable */
	struct report_evidence *evidence;
	size_t nevidence;
	int rated;                    /* risk, stated_risk and claim were judged (the question
	                               * is in the questionnaire): report.json has them */
};

/* One assessment round with its questionnaire, rating and answers. */
struct report_assessment {
	int64_t id, round;
	int rating_reads;             /* the vendor's rating reads this round (verdict_reads) */
	int64_t parent_id;            /* 0: a first round (null) */
	enum assessment_status status;   /* assessment_status_name names it */
	int64_t questionnaire_id;
	char *created_by, *created_at;
	char *submitted_at, *approved_at, *reviewer;    /* NULL: null */
	char *q_qid, *q_title, *q_sha256;               /* "questionnaire": {qid, version, title, sha256} */
	int64_t q_version;
	int has_questionnaire;        /* 0: the questionnaire row is missing ({}) */
	struct report_approval *approval;   /* NULL: no signed approval */
	enum rating rating;           /* as assess show rates the round (rating_name) */
	double risk_score;
	enum risk_level worst_risk;   /* the worst answer's risk (risk_name) */
	int64_t unanswered_required, contradicted_claims;
	char *contradicted_by;        /* NULL: none */
	int has_approved_score;       /* approved_score: {rating, risk_score} or null */
	enum rating approved_rating;
	double approved_risk_score;
	char *since_approval;         /* NULL: null */
	struct report_answer *answers;
	size_t nanswers;
};

/* The sweep as the report charts it: present for a sweep result whose
 * details hold points; its boundaries and points as the engine reads them
 * (probe_result_details_read, probe-record.h), points in the order sent. */
struct report_sweep {
	int present;
	struct sweep_bounds b;
	struct size_point *points;
	size_t npoints;
};

/* A probe's result in a run. */
struct report_result {
	char *probe;
	enum probe_verdict verdict;   /* the column as a value (probe_verdict_name names it) */
	char *reason;                 /* NULL: none recorded */
	int64_t requests;
	int has_requests;
	cJSON *details;               /* the probe's own document; NULL: null */
	struct probe_result read;     /* details as the engine reads them, once (report_details_read);
	                               * claims are judged on it too */
	struct report_sweep sweep;    /* views into read: no copy of their own */
	struct prefix_timing timing;
};

/* A finding of a run; open says whether a later run of the probe closed it. */
struct report_finding {
	int64_t id, run_id;
	char *probe, *code, *message;
	enum severity severity;       /* the column as a value (severity_rank); names by severity_name */
	cJSON *details;               /* NULL: null */
	int64_t *evidence;            /* the evidence ids behind it, ascending */
	size_t nevidence;
	int open;
	int64_t superseded_by_run;    /* 0: null */
};

/* A recorded exchange the run cites, with its file in the bundle. */
struct report_exchange {
	int64_t evidence_id, seq;
	char *probe, *tenant;
	int has_status;               /* 0: no response (null) */
	int64_t status;
	char *request_sha256, *response_sha256;   /* NULL: null */
	char *file, *file_sha256;
};

struct report_run {
	int64_t id, endpoint_id;
	char *endpoint;               /* the endpoint's name */
	enum probe_run_state state;   /* the status column as a value (run_state_name names it) */
	cJSON *probes, *options, *plan, *calibration;   /* as recorded; NULL: null */
	int64_t tokens_in, tokens_out;
	char *actor, *started_at;
	char *finished_at;            /* NULL: not finished */
	struct report_result *results;
	size_t nresults;
	struct report_finding *findings;
	size_t nfindings;
	struct report_exchange *exchanges;
	size_t nexchanges;
	struct run_calibration cal;   /* calibration as the engine reads it (report_details_read) */
};

/* An incident in full (the record incident_get loads, clocks as of the
 * report's time) and, with --incident, its linked files. */
struct report_incident {
	struct incident inc;
	struct report_evidence *files;    /* "evidence_files"; NULL with has_files 0 */
	size_t nfiles;
	int has_files;
};

/* A file the bundle holds beside the renderings, with its hash and size. */
struct report_file_entry {
	char *path;
	char sha256[65];
	int64_t size;
};

/* The findings and claims counted, and the verdict on the vendor. */
struct report_summary {
	struct vendor_verdict verdict;   /* rating, basis, open findings, draft (rating.c) */
	const char *rating_rule, *assessment_rating_rule;
	int64_t findings[SEV_COUNT];     /* open findings by severity (SEV_*) */
	int64_t claims[CLAIM_STATUS_COUNT];   /* by enum claim_status (claim_status_name) */
	int64_t claims_contradicted_unrated;   /* in rounds the rating does not read (a newer draft) */
	/* The open findings of high severity or worse (indices into doc->findings),
	 * and the contradicted claims (indices into doc->claims). */
	size_t *critical, ncritical;
	size_t *contradicted, ncontradicted;
};

struct report_doc {
	char *audit_failure;          /* NULL: the database passed its audit */
	char *format, *report_id, *aivet_version, *generated_at;
	char *organisation_timezone;  /* NULL: none set (UTC assumed) */
	char *retention_until;
	char *signer_key_id, *signer_public_key;   /* NULL: null */
	/* The TSA asked for a time-stamp over SHA256SUMS once it is signed
	 * ("time_stamp": its URL and the token's file); NULL: none asked. */
	char *tsa_url;
	/* The options the report was made with ("options"). */
	int64_t opt_assessment;       /* 0: null */
	int64_t *opt_runs;            /* NULL with has_opt_runs 0: null */
	size_t nopt_runs;
	int has_opt_runs;
	char *opt_since;
	int64_t opt_incident;         /* 0: null */
	int64_t opt_retain_years;
	int opt_include_leaked;
	/* The audit log as the report found it. */
	int64_t audit_entries;
	char *audit_head;
	int audit_intact;
	struct vendor vendor;
	struct endpoint_list endpoints;   /* credentials by label only (no ref) */
	struct report_assessment *assessments;
	size_t nassessments;
	struct report_summary summary;
	struct report_finding *superseded;   /* findings a later run closed */
	size_t nsuperseded;
	struct report_run *runs;
	size_t nruns;
	struct claim_list claims;
	struct report_finding *findings;     /* the open findings, most severe first */
	size_t nfindings;
	struct report_incident *incidents;
	size_t nincidents;
	struct report_file_entry *files;     /* "evidence_files", by path */
	size_t nfiles;
};

/* report.json: the one writer of the record (report-json.c). */
cJSON *report_doc_to_json(const struct report_doc *d);
/* The options as report.json writes them (the report id is derived from them too). */
cJSON *report_options_json(const struct report_doc *d);

void report_doc_free(struct report_doc *d);

/* Fills the typed members of a run's free-form documents (its calibration,
 * and each result's sweep and timing details) from the cJSON the run holds,
 * by the engine's readers (run_calibration_read, probe_result_details_read);
 * whatever builds a report_run calls it once its calibration and results are set. */
void report_details_read(struct report_run *r);

/* The round a claim was judged in, as every rendering names it: "round 2 of
 * assessment 3 (draft; the rating does not read it)", or "-" for none. */
void report_claim_round(const struct report_doc *d, const struct claim *c, char *out, size_t n);

/* A sealed response's body with the text a model generated hidden ('*', byte
 * for byte) but aivet's planted tokens and everything else kept (redact.c). */
void leak_redact(const char *body, size_t len, struct buf *out);

#endif
