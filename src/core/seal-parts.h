/*
 * seal-parts.h: what each sealed object type's row hash covers, written once.
 * audit.c hashes rows with it; on PostgreSQL, db.c copies it into the table
 * aivet_seal_part in each migration it applies, from which the server writes
 * aivet_seal_rows() (db/pg/019-static-seals.sql) and computes the same hash
 * inside the write functions, so no role chooses a hash. A change here
 * therefore comes with a migration, as severity.h's does.
 */
#ifndef AIVET_SEAL_PARTS_H
#define AIVET_SEAL_PARTS_H

/* What each sealed object type covers: its row, then child rows that are written
 * with no audit entry of their own (an exchange with its evidence row, a finding's
 * evidence links, an assessment's answers, an endpoint's credentials). The column
 * lists are canonical. key is the column that holds the object's id; a part marked
 * late was added after entries were sealed without it: it is hashed only when it
 * has rows (cond selects them), so those entries still verify. */
struct seal_part {
	const char *type;
	const char *label;     /* names the object in problems */
	const char *table;
	const char *cols;
	const char *key;
	const char *order;     /* within one object */
	const char *cond;      /* NULL, or which rows of the table belong */
	int late;
};

static const struct seal_part seal_parts[] = {
	{ "finding", "finding", "finding", "id, run_id, probe, code, severity, message, details",
	  "id", "id", NULL, 0 },
	{ "finding", NULL, "finding_evidence", "finding_id, evidence_id", "finding_id", "evidence_id", NULL, 0 },
	{ "probe_result", "probe result", "probe_result", "id, run_id, probe, verdict, reason, requests, "
	  "details", "id", "id", NULL, 0 },
	{ "probe_run", "probe run", "probe_run", "id, endpoint_id, status, probes, options, plan, "
	  "calibration, tokens_in, tokens_out, actor, pid, started_at, finished_at", "id", "id", NULL, 0 },
	{ "evidence", "evidence", "evidence", "id, kind, sha256, original_name, media_type, size, "
	  "effective_date, added_by, added_at", "id", "id", NULL, 0 },
	{ "evidence", NULL, "exchange", "id, evidence_id, run_id, probe, seq, tenant, streaming, method, "
	  "url, request_headers, request_sha256, request_size, request_blob, request_recipe, "
	  "response_status, response_headers, response_sha256, response_size, response_blob, "
	  "response_truncated, error, timings, started_at", "evidence_id", "id", NULL, 0 },
	{ "assessment", "assessment", "assessment", "id, vendor_id, questionnaire_id, round, parent_id, "
	  "status, created_by, created_at, submitted_at, approved_at, reviewer", "id", "id", NULL, 0 },
	{ "assessment", NULL, "answer", "assessment_id, question_id, value, note, actor, updated_at",
	  "assessment_id", "question_id", NULL, 0 },
	{ "assessment", NULL, "answer_evidence", "assessment_id, question_id, evidence_id",
	  "assessment_id", "question_id, evidence_id", NULL, 0 },
	{ "assessment", NULL, "answer_history", "id, assessment_id, question_id, value, note, actor, at",
	  "assessment_id", "id", NULL, 0 },
	/* The questionnaire text the round was answered against (schema 006). */
	{ "assessment", NULL, "assessment", "questionnaire_sha256", "id", "id",
	  "questionnaire_sha256 IS NOT NULL", 1 },
	{ "incident_entry", "incident entry", "incident_entry", "id, incident_id, kind, at, at_utc, actor, "
	  "text, details, recorded_at", "id", "id", NULL, 0 },
	{ "report", "report", "report", "id, report_uuid, vendor_id, out_dir, options, key_id, "
	  "sums_sha256, generated_at", "id", "id", NULL, 0 },
	/* Sealed since schema 006: entries written before carry no row_hash. */
	{ "questionnaire", "questionnaire", "questionnaire", "id, qid, version, title, sha256, bundled, "
	  "loaded_at", "id", "id", NULL, 0 },
	{ "vendor", "vendor", "vendor", "id, name, criticality, contact, notes, status, created_at, "
	  "updated_at", "id", "id", NULL, 0 },
	/* Prices are left out: REAL prints differently on the two stores, and only the
	 * cost estimate reads them (a run's plan seals what it used). */
	{ "endpoint", "endpoint", "endpoint", "id, vendor_id, name, api, url, model, context_tokens, "
	  "allow_insecure_http, options, status, created_at, updated_at", "id", "id", NULL, 0 },
	{ "endpoint", NULL, "credential", "id, endpoint_id, label, ref, org, created_at", "endpoint_id", "id",
	  NULL, 0 },
	/* The engine's nodes (schema 013): hashed only for an endpoint that has some. */
	{ "endpoint", NULL, "engine_node", "id, endpoint_id, position, engine, url, credential_ref, "
	  "created_at", "endpoint_id", "position", NULL, 1 },
	{ "advisory", "advisory", "advisory", "id, osv_id, modified, document, sha256, source, "
	  "imported_by, imported_at", "id", "id", NULL, 0 },
	{ "incident", "incident", "incident", "id, vendor_id, endpoint_id, title, status, severity, phi, "
	  "individuals, eu_data, discovered_at, window_start, window_end, created_by, created_at",
	  "id", "id", NULL, 0 },
	{ "incident", NULL, "incident_link", "incident_id, object_type, object_id, added_at", "incident_id",
	  "object_type, object_id", NULL, 0 },
	{ "incident_task", "incident task", "incident_task", "id, incident_id, title, owner, due_at, "
	  "done_at, created_at", "id", "id", NULL, 0 },
	{ "blob_seal", "sealed content", "blob_seal", "id, sha256, size, data_sha256, sealed_at", "id", "id",
	  NULL, 0 },
};
#endif
