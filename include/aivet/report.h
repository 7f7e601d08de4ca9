/*
 * report.h: the report collector (database -> report.json and the evidence
 * files it cites), its renderings (HTML, Markdown, OSCAL assessment-results)
 * and the signed bundle that carries them (write and verify).
 */
#ifndef AIVET_REPORT_H
#define AIVET_REPORT_H

#include "core.h"
#include "tsa.h"

#define REPORT_FORMAT "aivet-report/1"

struct report_opts {
	const char *vendor;          /* NAME or ID */
	int64_t assessment_id;       /* 0: every assessment of the vendor */
	int64_t *run_ids;            /* --runs; NULL: by --since, else every run */
	size_t nrun_ids;
	const char *since;           /* ISO 8601, or NULL */
	int64_t incident_id;         /* 0: none in detail */
	const char *at;              /* pins generated_at, or NULL for now */
	int64_t retain_years;        /* retention-until = generated_at + this */
	const char *key_id;          /* the signer's key id */
	const char *public_key;      /* the signer's whole public key (base64 line) */
	int include_leaked;          /* --include-leaked-content: leaked bodies in clear */
	int allow_broken;            /* --allow-broken-chain: report a database that failed its
	                              * audit, saying so first (else refused) */
	const char *tsa_url;         /* --tsa: the TSA to ask for a time-stamp, or NULL */
	int tsa_optional;            /* --tsa-optional: a TSA that fails leaves the time unattested */
};

/* A file of the bundle other than the renderings: evidence/... */
struct report_file {
	char *path;                  /* relative to the bundle, e.g. evidence/exchange-7.json */
	struct buf data;
};

struct report_doc;

struct report {
	int64_t vendor_id;
	const cJSON *json;           /* report.json: the record as report_doc_to_json writes it,
	                              * once; nothing writes to it after (const) */
	struct report_doc *doc;      /* the report as a record (src/domain/report/report-doc.h) */
	struct report_file *files;
	size_t nfiles;
	int include_leaked;          /* from report_opts */
	int tsa_optional;            /* from report_opts (the TSA asked is the record's) */
	struct tsa_status *tsa;      /* where bundle_write tells how stamping went */
};

int report_collect(struct db *db, const struct report_opts *o, struct report *r, struct aerr *err);
void report_free(struct report *r);

/* The printed report.json bytes (tab-indented cJSON, trailing newline). */
char *report_json_text(const cJSON *report);
/* The renderings of the report as a record (r->doc), each the same bytes for
 * the same report. */
char *report_html(const struct report *r);
char *report_markdown(const struct report *r);
cJSON *report_oscal(const struct report *r);

/* ---- what both renderings share (report-parts.c) ---- */

struct report_evidence;
struct run_calibration;
struct sweep_bounds;
struct incident;

/* The bundle path (evidence/NAME) of evidence id in this report, or NULL when
 * the bundle holds no file for it. */
const char *report_evidence_path(const struct report_doc *d, int64_t id);

/* One cited piece of evidence: an exchange by id (e NULL) or an evidence
 * record (e). path is NULL when the bundle has no file for it, and note then
 * says why. */
struct report_ref {
	int64_t id;
	const char *path;
	const char *note;
	char name[EVIDENCE_NAME_MAX];
};
void report_evidence_ref(const struct report_doc *d, int64_t id, const struct report_evidence *e,
    struct report_ref *ref);

/* Appends a relative bundle path as a URL path (RFC 3986 unreserved bytes
 * and '/' as they are, every other byte %XX), safe in HTML and Markdown. */
void report_href(struct buf *b, const char *path);

/* A run's calibration as labelled rows (method, tokens per unit, overhead,
 * bounds, each sample with its exchange, rejected counts, anything else it
 * holds); evidence is the exchange's id, or 0. */
struct report_row {
	char *label, *value;
	int64_t evidence;
};
struct report_rows {
	struct report_row *v;
	size_t n;
};
void report_calibration_rows(const struct run_calibration *calibration, struct report_rows *rows);
void report_rows_free(struct report_rows *rows);

/* A sweep boundary (the refusal boundary, else the integrity boundary) in
 * words: the tokens, or why there is none. */
void report_boundary_words(const struct sweep_bounds *sweep, int refusal, char *out, size_t n);

/* An incident's facts in one sentence, the same in both renderings: "Status
 * open; severity 1; discovered ...; PHI yes; 120 individuals; EU data no;
 * exposure window A to B." */
void report_incident_facts(const struct incident *incident, struct buf *out);

/* The prefix-timing probe's distributions as an SVG histogram in a <figure>,
 * for the HTML report (report-timing.c); nothing when it holds no samples. */
struct prefix_timing;
void prefix_timing_svg(struct buf *b, const struct prefix_timing *timing);

/* A name-based UUID (SHA-256 of seed and name, version-5 layout) so the same
 * report gives the same identifiers. */
void derived_uuid(const char *seed, const char *name, char out[37]);

/* ---- bundle.c ---- */

struct minisign_sec;
struct minisign_pub;

/* ---- exporting (report-export.c) ---- */

struct report_export_result {
	int64_t id;                  /* the report row */
	char report_id[37];
	char key_id[17];
	char public_key[64];         /* the signer's whole public key (base64 line) */
	char sums[65];               /* SHA-256 of SHA256SUMS */
	char rating[32];
	size_t evidence_files;
	struct tsa_status tsa;       /* the time-stamp over SHA256SUMS, when one was asked */
};
/* Loads the key named key (asking for its passphrase), collects the report for
 * o (key_id and public_key are filled here), writes the signed bundle into
 * out and records the export with its audit entry, all in one transaction. */
int report_export(struct db *db, const char *actor, struct report_opts *o, const char *out,
    const char *key, struct report_export_result *res, struct aerr *err);
/* The same with a secret key the caller unlocked (and frees), telling
 * progress ("signing 12 files") when progress is not NULL. */
int report_export_sec(struct db *db, const char *actor, struct report_opts *o, const char *out,
    const struct minisign_sec *sec, void (*progress)(void *arg, const char *what), void *arg,
    struct report_export_result *res, struct aerr *err);
/* What a vendor's bundle can hold, as the export dialog offers it: its
 * assessments (at most 32), probe runs and incidents, each by id and status. */
struct report_choice {
	int64_t id;
	char *status;
};
struct report_choice_list {
	struct report_choice *items;
	size_t n;
};
struct report_choices {
	struct report_choice_list assessments, runs, incidents;
};
/* Lists that cannot be read are left empty. */
void report_choices_load(struct db *db, int64_t vendor_id, int64_t now, struct report_choices *out);
void report_choices_free(struct report_choices *c);
/* "--runs": run ids separated by commas, into a new array. */
int report_parse_runs(const char *s, int64_t **ids, size_t *n, struct aerr *err);
/* What "aivet report" prints: where the bundle went, its key and how to verify it. */
void report_export_text(const char *out, const struct report_export_result *res, struct buf *b);

/* Writes report, renderings, evidence, SHA256SUMS, its signature, aivet.pub and
 * VERIFY.txt into dir (which must not exist or be empty). sums_sha256 receives the
 * SHA-256 of SHA256SUMS. */
int bundle_write(const char *dir, const struct report *r, const struct minisign_sec *sec,
    char sums_sha256[65], struct aerr *err);

struct verify_result {
	int ok;                      /* 1 when nothing is wrong */
	char key_id[17];             /* the key that signed (from the signature) */
	char report_id[37];
	char generated_at[40];       /* report.json's, as the signer says */
	struct tsa_status tsa;       /* SHA256SUMS.tsr, when present */
	char trusted_comment[1025];
	/* The signer's whole public key (the base64 line of a .pub file), when the
	 * signature verified, and why it is trusted: signer_trusted is 1 only for a
	 * key given on the command line or one in the keyring, compared byte for byte. */
	char signer_public_key[64];
	int signer_trusted;
	char trust_source[16];       /* "own-key", "trusted-key", "pubkey", "key" or "" */
	char trust_name[1040];       /* the key's name or file */
	size_t files_checked;
	/* The approvals whose signatures verified: "assessment 1 by bob (key id X)", "; "-joined. */
	char approvals[512];
	/* The final rounds whose approval is not verified, named: "assessment 1 by bob:
	 * approved, signature missing" or "...: signed by a key this verifier does not
	 * trust (key id X)"; "; "-joined. Neither fails the bundle. */
	char approvals_unverified[1024];
	char **problems;             /* each names the file and what is wrong */
	size_t nproblems;
	/* Each part's own result, 1 when it held: the signature by a trusted signer,
	 * the hashes (SHA256SUMS, every file, none missing or extra), report.json.
	 * The time-stamp's is tsa (attested, untrusted: not verified, or failed). */
	int signature_ok, hashes_ok, report_ok;
};

/* Verifies a bundle: the signature on SHA256SUMS by a trusted signer, every hash,
 * no missing or extra file, report.json's structure and bindings, and the time-stamp
 * token over SHA256SUMS when there is one (trusting the TSA certificates of
 * 'aivet tsa trust' and those in tsa_cert, a PEM file, when not NULL). The signer is
 * given (given_source "pubkey" or "key", given_name its file or name) or, when
 * given is NULL, the keyring key with the signature's key id; a good signature
 * by any other key (the bundle's own aivet.pub) is a problem that names the key.
 * Returns 0 when it could check (see res->ok), an error for a missing directory. */
int bundle_verify(const char *dir, const struct minisign_pub *given, const char *given_source,
    const char *given_name, const char *tsa_cert, struct verify_result *res, struct aerr *err);
/* Every probe run of a verified bundle judged again from the bundle's exchanges
 * alone (rejudge.c): a line per run and probe in out, "re-derived" or each
 * difference, counted in *differences with each run that could not be
 * re-derived and each exchange file missing. */
struct aivet;
/* What VERIFY.txt says --rejudge proves and what not. */
void rejudge_verify_text(struct buf *b);
int bundle_rejudge(struct aivet *av, const char *dir, struct buf *out, int *differences,
    struct aerr *err);
/* The minisign signature PATH.minisig over PATH by a trusted signer, under the same
 * rules (claimed: the key the file says it is from, or NULL). Fills res (key, trusted
 * comment, trust, problems); returns 0. */
int signed_file_verify(const char *path, const struct minisign_pub *claimed,
    const struct minisign_pub *given, const char *given_source, const char *given_name,
    struct verify_result *res);
void verify_result_free(struct verify_result *res);
/* Why the signer is trusted: "own key 'aivet'", "trusted key 'NAME'", "--pubkey FILE",
 * "--key NAME", or "not trusted". */
void verify_trust_label(const struct verify_result *res, char *out, size_t n);
/* Each part's word: "verified" or "failed"; the time-stamp's "attested",
 * "not verified" (its TSA is not trusted), "failed" or "none". */
const char *verify_part_word(int ok);
const char *verify_time_word(const struct verify_result *res);
/* What "aivet verify" prints for the bundle in dir: verified (or the signature
 * and hashes verified and the time not), or each part and every problem. */
void verify_result_text(const char *dir, const struct verify_result *res, struct buf *out);

#endif
