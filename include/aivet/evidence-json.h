/*
 * aivet/evidence-json.h: a piece of evidence as a typed record and its one
 * JSON writer (evidence-json.c, the domain), as "evidence show" prints it.
 */
#ifndef AIVET_EVIDENCE_JSON_H
#define AIVET_EVIDENCE_JSON_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"

/* ---- a piece of evidence as a record (evidence-json.c) ---- */

/* A stored body of an exchange: "KEY_sealed", "KEY" and "KEY_base64" in its
 * JSON. With present 0 the exchange named no content (KEY is null, no
 * KEY_sealed); sealed content not opened has text NULL (KEY null). */
struct evidence_body {
	int present;                 /* content was recorded (KEY_sealed written) */
	int sealed;                  /* KEY_sealed: kept encrypted in the store */
	char *text;                  /* KEY: UTF-8 as is, else escaped (\xNN); NULL: null */
	size_t len;                  /* strlen(text) */
	char *base64;                /* KEY_base64: the exact bytes when text is escaped, else NULL */
};

/* One header of a recorded request or response (string values only). */
struct evidence_header {
	char *name, *value;
};

/* A finding that cites the evidence. */
struct evidence_finding {
	int64_t id;
	char *code, *severity;
};

/* The exchange behind a piece of evidence of kind "exchange". */
struct evidence_exchange {
	int64_t run, seq;
	char *probe, *tenant;        /* tenant NULL: null */
	int streaming;
	char *method, *url;
	char *request_headers;       /* the stored JSON object, as recorded */
	struct evidence_header *req_hdr;   /* its string members, in order */
	size_t nreq_hdr;
	char *request_sha256;
	int64_t request_size;
	char *request_recipe;        /* the stored recipe JSON, or NULL when the body is kept */
	int request_regenerated;     /* with a recipe: its regenerated body has request_sha256 */
	struct evidence_body request_body;   /* not present with a recipe */
	int has_response_status;
	int response_status;
	char *response_headers;      /* the stored JSON object, or NULL: null */
	struct evidence_header *resp_hdr;
	size_t nresp_hdr;
	char *response_sha256;       /* NULL: null */
	int64_t response_size;
	struct evidence_body response_body;
	int response_truncated;
	char *error;                 /* NULL: null */
	char *timings;               /* the stored JSON object */
	int has_timings;             /* timings is an object: the three below read from it */
	double connect_ms, ttfb_ms, total_ms;
	char *started_at;
};

/* A piece of evidence as "evidence show" prints it: an attached file's
 * description, or a recorded exchange with the findings that cite it. */
struct evidence_item {
	int64_t id;
	char *kind, *sha256;
	char *original_name, *media_type, *effective_date;   /* NULL: null */
	int64_t size;
	char *added_by, *added_at;
	char *file;                  /* its name in a bundle's evidence/ (evidence_file_name) */
	struct evidence_exchange *exchange;   /* kind "exchange" only, else NULL */
	struct evidence_finding *findings;    /* with an exchange: those citing it */
	size_t nfindings;
};

/* Loads piece of evidence id, bodies checked against their SHA-256 (a request
 * kept as a recipe regenerated and checked); sealed (leaked) bodies stay
 * sealed unless open_leaked (--include-leaked-content, for this one call). */
int evidence_get(struct db *db, int64_t id, int open_leaked, struct evidence_item *out, struct aerr *err);
/* The evidence row alone (id to file; no exchange or findings), as a report
 * lists an attached file: 0, 1 when there is no such evidence (err untouched),
 * or an error. */
int evidence_row_get(struct db *db, int64_t id, struct evidence_item *out, struct aerr *err);
void evidence_item_free(struct evidence_item *e);
/* The one JSON writer: "evidence show --json". */
cJSON *evidence_item_to_json(const struct evidence_item *e);
/* Its row's fields, id to added_at, into o: what report.json's evidence has of it too. */
void evidence_row_to_json(cJSON *o, const struct evidence_item *e);

#endif
