/*
 * report.c: collects report.json from the database — vendor, endpoints (no
 * secrets), assessment rounds and answers, probe runs with results, findings
 * and evidence hashes, incidents, the claims-vs-evidence table and the audit
 * checkpoint — plus the evidence files the report cites (report-evidence.c)
 * and the judgement on the vendor (report-judge.c). Everything is read in a
 * fixed order so the same database and options give the same bytes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "assess.h"
#include "claims.h"
#include "aivet/run-query.h"
#include "finding.h"
#include "incident.h"
#include "rating.h"
#include "report.h"
#include "report-doc.h"
#include "report-collect.h"

void
derived_uuid(const char *seed, const char *name, char out[37])
{
	crypto_hash_sha256_state st;
	unsigned char h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)seed, strlen(seed));
	crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)name, strlen(name));
	crypto_hash_sha256_final(&st, h);
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
	    h[12], h[13], h[14], h[15]);
}

/* ---- probe runs ---- */

static int
run_results(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT probe, verdict, reason, requests, details "
	    "FROM probe_result WHERE run_id = ? ORDER BY id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct report_result *p;

		run->results = report_grow(run->results, run->nresults, sizeof *run->results);
		p = &run->results[run->nresults++];
		*p = (struct report_result){ .probe = report_col_dup(st, 0),
		    .verdict = probe_verdict_of(db_col_text(st, 1)),
		    .reason = report_col_dup(st, 2), .has_requests = db_col_type(st, 3) != DB_NULL,
		    .requests = db_col_int64(st, 3), .details = report_col_json(st, 4) };
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

/* The evidence ids behind each of the run's findings, ascending: one query
 * for the run, not one per finding. */
static int
run_finding_evidence(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT fe.finding_id, fe.evidence_id FROM "
	    "finding_evidence fe JOIN finding f ON f.id = fe.finding_id WHERE f.run_id = ? "
	    "ORDER BY fe.finding_id, fe.evidence_id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW)
		for (size_t i = 0; i < run->nfindings; i++) {
			struct report_finding *f = &run->findings[i];

			if (f->id != db_col_int64(st, 0))
				continue;
			f->evidence = report_grow(f->evidence, f->nevidence, sizeof *f->evidence);
			f->evidence[f->nevidence++] = db_col_int64(st, 1);
		}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

static int
run_findings(struct db *db, struct report_run *run, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, run_id, probe, code, severity, message, "
	    "details FROM finding WHERE run_id = ? ORDER BY id", "i", run->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		struct report_finding *f;
		/* The column holds a severity's name (a CHECK in the schema). */
		int sev = severity_rank(db_col_text(st, 4));

		run->findings = report_grow(run->findings, run->nfindings, sizeof *run->findings);
		f = &run->findings[run->nfindings++];
		*f = (struct report_finding){ .id = db_col_int64(st, 0), .run_id = db_col_int64(st, 1),
		    .probe = report_col_dup(st, 2), .code = report_col_dup(st, 3),
		    .severity = sev < 0 ? SEV_INFO : (enum severity)sev,
		    .message = report_col_dup(st, 5), .details = report_col_json(st, 6) };
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "report query");
	return run_finding_evidence(db, run, err);
}

static int
run_included(const struct report_opts *o, int64_t id)
{
	for (size_t i = 0; i < o->nrun_ids; i++)
		if (o->run_ids[i] == id)
			return 1;
	return 0;
}

static int
id_in(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* --runs names runs of this vendor only. */
static int
runs_check(struct db *db, const struct report_opts *o, int64_t vendor_id, struct aerr *err)
{
	for (size_t i = 0; i < o->nrun_ids; i++) {
		int64_t owner;

		if (db_int(db, &owner, err, "SELECT e.vendor_id FROM probe_run r JOIN endpoint e ON "
		    "e.id = r.endpoint_id WHERE r.id = ?", "i", o->run_ids[i]) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--runs: no probe run %lld for vendor '%s'",
			    (long long)o->run_ids[i], o->vendor);
	}
	return 0;
}

/* The runs the options choose (--runs, else --since, else all) and those an
 * incident links, oldest first. */
static int
runs_chosen(struct db *db, const struct report_opts *o, int64_t vendor_id, const char *since,
    const int64_t *linked, size_t nlinked, struct report_doc *d, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT r.id, r.endpoint_id, e.name, r.status, r.probes, "
	    "r.options, r.plan, r.calibration, r.tokens_in, r.tokens_out, r.actor, r.started_at, "
	    "r.finished_at FROM probe_run r JOIN endpoint e ON e.id = r.endpoint_id "
	    "WHERE e.vendor_id = ? ORDER BY r.started_at, r.id", "i", vendor_id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t id = db_col_int64(st, 0);
		int keep = o->run_ids != NULL ? run_included(o, id) :
		    o->since != NULL ? strcmp(col_text(st, 11), since) >= 0 : 1;

		if (!keep && !id_in(linked, nlinked, id))
			continue;
		d->runs = report_grow(d->runs, d->nruns, sizeof *d->runs);
		d->runs[d->nruns++] = (struct report_run){ .id = id, .endpoint_id = db_col_int64(st, 1),
		    .endpoint = report_col_dup(st, 2), .state = run_state_of(db_col_text(st, 3)),
		    .probes = report_col_json(st, 4), .options = report_col_json(st, 5),
		    .plan = report_col_json(st, 6), .calibration = report_col_json(st, 7),
		    .tokens_in = db_col_int64(st, 8), .tokens_out = db_col_int64(st, 9),
		    .actor = report_col_dup(st, 10), .started_at = report_col_dup(st, 11),
		    .finished_at = report_col_dup(st, 12) };
	}
	db_finalize(st);
	return rc == DB_DONE ? 0 : db_err(db, err, "report query");
}

static int
collect_runs(struct db *db, const struct report_opts *o, int64_t vendor_id, const int64_t *linked,
    size_t nlinked, struct report *r, struct aerr *err)
{
	struct report_doc *d = r->doc;
	char since[32] = "";

	if (o->since != NULL) {
		int64_t ms;

		if (parse_time(o->since, &ms, err) != 0)
			return aerr_prefix(err, "--since");
		fmt_time_ms(ms, since);
	}
	if (runs_check(db, o, vendor_id, err) != 0 ||
	    runs_chosen(db, o, vendor_id, since, linked, nlinked, d, err) != 0)
		return err->code;
	for (size_t i = 0; i < d->nruns; i++)
		if (run_results(db, &d->runs[i], err) != 0 || run_findings(db, &d->runs[i], err) != 0 ||
		    report_run_exchanges(db, r, &d->runs[i], err) != 0)
			return err->code;
		else
			report_details_read(&d->runs[i]);
	return 0;
}

/* ---- incidents ---- */

/* One incident in full (facts, timeline, clocks with their due text, tasks),
 * its clocks computed as of the report's time. */
static int
incident_at(struct db *db, int64_t id, const char *generated, struct incident *out, struct aerr *err)
{
	const char *was = getenv("AIVET_NOW");
	char *saved = was ? xstrdup(was) : NULL;
	int rc;

	setenv("AIVET_NOW", generated, 1);
	rc = incident_get(db, id, out, err);
	if (saved != NULL)
		setenv("AIVET_NOW", saved, 1);
	else
		unsetenv("AIVET_NOW");
	free(saved);
	return rc;
}

static struct report_incident *
incident_add(struct report_doc *d)
{
	d->incidents = report_grow(d->incidents, d->nincidents, sizeof *d->incidents);
	memset(&d->incidents[d->nincidents], 0, sizeof *d->incidents);
	return &d->incidents[d->nincidents++];
}

/* With --incident, that incident's linked runs join the report and its
 * linked files are copied into evidence/. */
static int
incident_links(struct db *db, struct report *r, struct report_incident *ri, int64_t **linked,
    size_t *nlinked, struct aerr *err)
{
	ri->has_files = 1;
	for (size_t i = 0; i < ri->inc.nlinks; i++) {
		const struct incident_link *l = &ri->inc.links[i];

		if (strcmp(l->object_type, "run") == 0) {
			*linked = report_grow(*linked, *nlinked, sizeof **linked);
			(*linked)[(*nlinked)++] = l->object_id;
		} else if (strcmp(l->object_type, "evidence") == 0) {
			struct report_evidence e;

			if (report_file_evidence(db, r, l->object_id, &e, err) == 0) {
				ri->files = report_grow(ri->files, ri->nfiles, sizeof *ri->files);
				ri->files[ri->nfiles++] = e;
			}
			aerr_clear(err);
		}
	}
	return 0;
}

/* Every incident of the vendor in full; with --incident, that one alone. */
static int
collect_incidents(struct db *db, const struct report_opts *o, int64_t vendor_id, struct report *r,
    int64_t **linked, size_t *nlinked, struct aerr *err)
{
	struct report_doc *d = r->doc;
	int64_t *ids = NULL, owner;
	size_t n = 0;

	*linked = NULL, *nlinked = 0;
	if (o->incident_id == 0) {
		if (db_ids(db_prepare(db, err, "SELECT id FROM incident WHERE vendor_id = ? ORDER BY id",
		    "i", vendor_id), &ids, &n, err) != 0)
			return err->code;
		for (size_t i = 0; i < n; i++)
			if (incident_at(db, ids[i], d->generated_at, &incident_add(d)->inc, err) != 0) {
				free(ids);
				return err->code;
			}
		free(ids);
		return 0;
	}
	if (db_int(db, &owner, err, "SELECT vendor_id FROM incident WHERE id = ?", "i",
	    o->incident_id) != 0 || owner != vendor_id)
		return aerr_set(err, AV_USAGE, "--incident: no incident %lld for vendor '%s'",
		    (long long)o->incident_id, o->vendor);
	if (incident_at(db, o->incident_id, d->generated_at, &incident_add(d)->inc, err) != 0)
		return err->code;
	return incident_links(db, r, &d->incidents[d->nincidents - 1], linked, nlinked, err);
}

/* ---- assessments ---- */

/* A signed approval (approval.c) as the bundle carries it: the statement and
 * its minisign signature as files, and the key registered to the reviewer,
 * which aivet verify checks the signature against. */
static int
approval_add(struct db *db, struct report *r, struct report_assessment *a, struct aerr *err)
{
	struct approval_signature sig;
	struct minisign_pub reg;
	struct report_approval *ap;
	struct buf line;
	int found = 0;

	if (approval_signature_load(db, a->id, &sig, err) != 0)
		return err->code;
	if (sig.statement == NULL || a->reviewer == NULL) {
		approval_signature_free(&sig);
		return 0;
	}
	if (approval_registered_key(db, a->reviewer, &reg, &found, err) != 0) {
		approval_signature_free(&sig);
		return err->code;
	}
	ap = a->approval = xcalloc(1, sizeof *a->approval);
	ap->signer = xstrdup(a->reviewer);
	ap->key_id = xstrdup(sig.key_id);
	ap->statement_file = xasprintf("approvals/assessment-%lld.txt", (long long)a->id);
	ap->signature_file = xasprintf("%s.minisig", ap->statement_file);
	{
		char names[64];

		approval_statement_field(sig.statement, "names", names, sizeof names);
		ap->self_declared = strcmp(names, APPROVAL_NAMES_SELF) == 0;
	}
	report_file_add(r, xstrdup(ap->statement_file), sig.statement, strlen(sig.statement));
	report_file_add(r, xstrdup(ap->signature_file), sig.minisig, strlen(sig.minisig));
	if (found) {
		buf_init(&line);
		minisign_pubkey_base64(&reg, &line);
		ap->registered_public_key = buf_steal(&line);
	}
	approval_signature_free(&sig);
	return 0;
}

/* The questionnaire a round answers, as report.json names it. */
static int
assessment_questionnaire(struct db *db, struct report_assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT qid, version, title, sha256 FROM questionnaire "
	    "WHERE id = ?", "i", a->questionnaire_id);

	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW) {
		a->has_questionnaire = 1;
		a->q_qid = report_col_dup(st, 0);
		a->q_version = db_col_int64(st, 1);
		a->q_title = report_col_dup(st, 2);
		a->q_sha256 = report_col_dup(st, 3);
	}
	db_finalize(st);
	return 0;
}

/* The round's answers by question id, each with its attached files. A
 * question its depends_on hides is not asked: its stale answer is neither
 * rated nor shown (as assess show leaves it out). */
static int
assessment_answers(struct db *db, struct report *r, const struct assessment *l,
    struct report_assessment *a, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT question_id, value, note, actor, updated_at "
	    "FROM answer WHERE assessment_id = ? AND value <> 'null' ORDER BY question_id", "i", a->id);
	int rc;

	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		int qi = questionnaire_find(l->q, col_text(st, 0));
		struct report_answer *x;

		if (qi >= 0 && !l->asked[qi])
			continue;
		a->answers = report_grow(a->answers, a->nanswers, sizeof *a->answers);
		x = &a->answers[a->nanswers++];
		*x = (struct report_answer){ .question_id = report_col_dup(st, 0), .value = report_col_json(st, 1),
		    .note = report_col_dup(st, 2), .actor = report_col_dup(st, 3), .updated_at = report_col_dup(st, 4),
		    .question = qi >= 0 && l->q->questions[qi].text ? xstrdup(l->q->questions[qi].text) : NULL,
		    .claim = CLAIM_NONE };
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return db_err(db, err, "report query");
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];
		int64_t *ids;
		size_t n;

		if (db_ids(db_prepare(db, err, "SELECT evidence_id FROM answer_evidence WHERE assessment_id = ? "
		    "AND question_id = ? ORDER BY evidence_id", "it", a->id, x->question_id), &ids, &n, err) != 0)
			return err->code;
		x->evidence = n ? xcalloc(n, sizeof *x->evidence) : NULL;
		for (size_t k = 0; k < n && err->code == 0; k++)
			if (report_file_evidence(db, r, ids[k], &x->evidence[x->nevidence], err) == 0)
				x->nevidence++;
		free(ids);
		if (err->code != 0)
			return err->code;
	}
	return 0;
}

/* One round as loaded (assessment_load): its record, questionnaire, signed
 * approval and answers; rated once the claims are judged (rate_assessments). */
static int
assessment_add(struct db *db, struct report *r, const struct assessment *l, struct aerr *err)
{
	struct report_doc *d = r->doc;
	struct report_assessment *a;

	d->assessments = report_grow(d->assessments, d->nassessments, sizeof *d->assessments);
	a = &d->assessments[d->nassessments++];
	*a = (struct report_assessment){ .id = l->id, .round = l->round, .parent_id = l->parent_id,
	    .status = assessment_status_of(l->status), .questionnaire_id = l->q->row_id,
	    .created_by = l->created_by ? xstrdup(l->created_by) : NULL,
	    .created_at = l->created_at ? xstrdup(l->created_at) : NULL,
	    .submitted_at = l->submitted_at ? xstrdup(l->submitted_at) : NULL,
	    .approved_at = l->approved_at ? xstrdup(l->approved_at) : NULL,
	    .reviewer = l->reviewer ? xstrdup(l->reviewer) : NULL };
	if (assessment_questionnaire(db, a, err) != 0 || approval_add(db, r, a, err) != 0)
		return err->code;
	return assessment_answers(db, r, l, a, err);
}

/* The rounds the options choose: with --assessment, that round and the rounds
 * before it; else every round of the vendor. Each is loaded into loaded[]. */
static int
collect_assessments(struct db *db, const struct report_opts *o, int64_t vendor_id, struct report *r,
    struct assessment ***loaded, struct aerr *err)
{
	int64_t *ids, owner;
	size_t n;

	*loaded = NULL;
	if (o->assessment_id != 0) {
		if (db_int(db, &owner, err, "SELECT vendor_id FROM assessment WHERE id = ?", "i",
		    o->assessment_id) != 0 || owner != vendor_id)
			return aerr_set(err, AV_USAGE, "--assessment: no assessment %lld for vendor '%s'",
			    (long long)o->assessment_id, o->vendor);
		/* The id typed: PostgreSQL would take a bare parameter as text, and text =
		 * bigint is no operator. */
		if (db_ids(db_prepare(db, err, "WITH RECURSIVE chain(id) AS (SELECT CAST(? AS BIGINT) "
		    "UNION ALL SELECT a.parent_id FROM assessment a JOIN chain ON a.id = chain.id "
		    "WHERE a.parent_id IS NOT NULL) SELECT a.id FROM assessment a WHERE a.id IN "
		    "(SELECT id FROM chain) ORDER BY a.round, a.id", "i", o->assessment_id), &ids, &n, err) != 0)
			return err->code;
	} else if (db_ids(db_prepare(db, err, "SELECT a.id FROM assessment a WHERE a.vendor_id = ? "
	    "ORDER BY a.id", "i", vendor_id), &ids, &n, err) != 0) {
		return err->code;
	}
	*loaded = xcalloc(n + 1, sizeof **loaded);
	for (size_t i = 0; i < n; i++)
		if (assessment_load(db, ids[i], &(*loaded)[i], err) != 0 ||
		    assessment_add(db, r, (*loaded)[i], err) != 0) {
			free(ids);
			return err->code;
		}
	free(ids);
	return 0;
}

static void
loaded_free(struct assessment **loaded)
{
	for (size_t i = 0; loaded != NULL && loaded[i] != NULL; i++)
		assessment_free(loaded[i]);
	free(loaded);
}

static void
add_years(const char *iso, int64_t years, char out[32])
{
	int y = atoi(iso) + (int)years;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	snprintf(out, 32, "%04d%s", y, iso + 4);
	if (!leap && strncmp(iso + 4, "-02-29", 6) == 0)
		memcpy(out + 4, "-02-28", 6);
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct report_file *)a)->path, ((const struct report_file *)b)->path);
}

/* A report vouches for the database: the whole audit verification runs first, and
 * a database that fails it is not reported as sound; with --allow-broken-chain it is
 * reported under a first line saying so (as->failure). */
static int
audit_gate(struct db *db, const struct report_opts *o, struct audit_status *as, char failure[320],
    struct aerr *err)
{
	if (audit_verify(db, as, err) != 0)
		return err->code;
	if (as->bad_seq == 0)
		return 0;
	snprintf(failure, 320, "this database failed its audit: %s", as->problem);
	if (!o->allow_broken)
		return aerr_set(err, AV_FINDINGS, "%s; no report was written (--allow-broken-chain writes "
		    "one that opens with this)", failure);
	return 0;
}

/* report.json's object: a report of a database that failed its audit opens with that. */

static void
drop(char **s)
{
	free(*s);
	*s = NULL;
}

/* The vendor's endpoints, tenants by label only: not even the reference to a
 * secret leaves, the engine's admin credential's included: the record holds none,
 * so report.json writes none. */
static int
collect_endpoints(struct db *db, int64_t vid, struct report_doc *d, struct aerr *err)
{
	if (endpoint_list_load(db, vid, 1, &d->endpoints, err) != 0)
		return err->code;
	for (size_t i = 0; i < d->endpoints.n; i++) {
		struct endpoint *e = &d->endpoints.items[i];

		for (size_t k = 0; k < e->ncredentials; k++)
			drop(&e->credentials[k].ref);
		drop(&e->engine.credential_ref);
	}
	return 0;
}

/* The report's header: when, by whom, kept how long, the options, and the
 * audit log as found. The report id names this report of this database state
 * at this time. */
static void
report_header(const struct report_opts *o, int64_t vid, const struct audit_status *as,
    const char *failure, struct report_doc *d)
{
	char retain[32], uuid[37], *seed, *optstr;
	cJSON *opts;

	d->audit_failure = as->bad_seq != 0 ? xstrdup(failure) : NULL;
	d->format = xstrdup(REPORT_FORMAT);
	d->aivet_version = xstrdup(PACKAGE_VERSION);
	d->organisation_timezone = org_zone() ? xstrdup(org_zone()) : NULL;
	add_years(d->generated_at, o->retain_years, retain);
	d->retention_until = xstrdup(retain);
	d->signer_key_id = o->key_id ? xstrdup(o->key_id) : NULL;
	d->signer_public_key = o->public_key ? xstrdup(o->public_key) : NULL;
	d->tsa_url = o->tsa_url ? xstrdup(o->tsa_url) : NULL;
	d->opt_assessment = o->assessment_id;
	if ((d->has_opt_runs = o->run_ids != NULL)) {
		d->opt_runs = xcalloc(o->nrun_ids + 1, sizeof *d->opt_runs);
		memcpy(d->opt_runs, o->run_ids, o->nrun_ids * sizeof *d->opt_runs);
		d->nopt_runs = o->nrun_ids;
	}
	d->opt_since = o->since ? xstrdup(o->since) : NULL;
	d->opt_incident = o->incident_id;
	d->opt_retain_years = o->retain_years;
	d->opt_include_leaked = o->include_leaked;
	d->audit_entries = as->entries;
	d->audit_head = xstrdup(as->head);
	d->audit_intact = as->bad_seq == 0;
	opts = report_options_json(d);
	optstr = cJSON_PrintUnformatted(opts);
	seed = xasprintf("aivet-report\n%lld\n%s\n%lld\n%s\n%s\n%s", (long long)vid, optstr,
	    (long long)as->entries, as->head, d->generated_at, o->key_id ? o->key_id : "");
	derived_uuid(seed, "report", uuid);
	d->report_id = xstrdup(uuid);
	free(seed);
	free(optstr);
	cJSON_Delete(opts);
}

/* generated_at: --at, else now. */
static int
report_time(const struct report_opts *o, struct report_doc *d, struct aerr *err)
{
	char t[32];

	if (o->at != NULL) {
		int64_t ms;

		if (parse_time(o->at, &ms, err) != 0)
			return aerr_prefix(err, "--at");
		fmt_time_ms(ms, t);
	} else {
		now_iso(t);
	}
	d->generated_at = xstrdup(t);
	return 0;
}

/* The files the bundle holds beside the renderings, by path, with their hashes. */
static void
list_files(struct report *r)
{
	struct report_doc *d = r->doc;

	if (r->nfiles > 0)
		qsort(r->files, r->nfiles, sizeof *r->files, file_cmp);
	d->files = xcalloc(r->nfiles + 1, sizeof *d->files);
	for (size_t i = 0; i < r->nfiles; i++) {
		d->files[i].path = xstrdup(r->files[i].path);
		sha256_hex(r->files[i].data.data, r->files[i].data.len, d->files[i].sha256);
		d->files[i].size = (int64_t)r->files[i].data.len;
	}
	d->nfiles = r->nfiles;
}

/* The record from the database: the vendor, what the options choose of its
 * incidents, rounds and runs, then everything judged once. */
static int
collect(struct db *db, const struct report_opts *o, int64_t vid, struct report *r,
    struct assessment ***loaded, struct aerr *err)
{
	struct report_doc *d = r->doc;
	struct audit_status as;
	char failure[320];
	int64_t *linked;
	size_t nlinked;
	int rc;

	if (vendor_get(db, vid, &d->vendor, err) != 0 || report_time(o, d, err) != 0 ||
	    audit_gate(db, o, &as, failure, err) != 0)
		return err->code;
	rc = collect_incidents(db, o, vid, r, &linked, &nlinked, err);
	if (rc == 0)
		rc = collect_assessments(db, o, vid, r, loaded, err);
	if (rc == 0)
		rc = collect_runs(db, o, vid, linked, nlinked, r, err);
	free(linked);
	if (rc != 0)
		return rc;
	report_header(o, vid, &as, failure, d);
	return collect_endpoints(db, vid, d, err);
}

int
report_collect(struct db *db, const struct report_opts *o, struct report *r, struct aerr *err)
{
	struct assessment **loaded = NULL;
	int64_t vid;

	memset(r, 0, sizeof *r);
	if (vendor_lookup(db, o->vendor, &vid, err) != 0)
		return err->code;
	r->vendor_id = vid;
	r->include_leaked = o->include_leaked;
	r->doc = xcalloc(1, sizeof *r->doc);
	if (collect(db, o, vid, r, &loaded, err) != 0) {
		loaded_free(loaded);
		report_free(r);
		return err->code;
	}
	report_judge(r->doc, loaded);
	loaded_free(loaded);
	report_summarise(r->doc);
	list_files(r);
	r->json = report_doc_to_json(r->doc);
	return 0;
}

void
report_free(struct report *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		buf_free(&r->files[i].data);
	}
	free(r->files);
	cJSON_Delete((cJSON *)r->json);   /* the one cast: freeing the record it wrote */
	if (r->doc != NULL)
		report_doc_free(r->doc);
	free(r->doc);
	memset(r, 0, sizeof *r);
}
