/*
 * aivet/endpoint.h: writing endpoints (endpoint.c, the domain): the fields
 * a command or a form gives, checked, and their plain-text view.
 */
#ifndef AIVET_ENDPOINT_H
#define AIVET_ENDPOINT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"
#include "vendor.h"

/* ---- writing endpoints (endpoint.c) ---- */

#define ENDPOINT_MAX_CREDS 16
extern const char *const endpoint_apis[];   /* NULL-terminated */
/* An endpoint's fields as the CLI's options and the TUI's form give them; a
 * set_* flag says the field was given (an edit changes only those). */
struct endpoint_input {
	const char *name, *api, *url, *model;
	int64_t context;
	double price_in, price_out;
	int insecure;
	int set_name, set_api, set_url, set_model, set_context, set_price_in, set_price_out, set_insecure;
	char *cred_label[ENDPOINT_MAX_CREDS];
	const char *cred_ref[ENDPOINT_MAX_CREDS];   /* point into the spec given */
	int ncreds;
	const char *remove[ENDPOINT_MAX_CREDS];
	int nremove;
	char *org_label[ENDPOINT_MAX_CREDS];         /* --credential-org LABEL=ORG */
	const char *org[ENDPOINT_MAX_CREDS];         /* point into the spec given */
	int norgs;
	cJSON *options;   /* KEY=VALUE settings, or NULL */
	/* The serving engine: its kind, its nodes' status URLs (given: they replace the
	 * nodes), its admin credential reference; remove_engine drops them all. */
	const char *engine, *engine_cred;
	const char *engine_url[ENGINE_MAX_NODES];
	int nengine_urls, set_engine, set_engine_cred, remove_engine;
};
/* Adds one --engine-url (url must outlive f). */
int endpoint_input_engine_url(struct endpoint_input *f, const char *url, struct aerr *err);
/* Checks one node's URL as the endpoint's is checked (https unless loopback or
 * insecure), the message said of --engine-url. */
int endpoint_engine_url_check(const char *url, int insecure, struct aerr *err);
/* Checks --engine's value: one of engine_kinds. */
int endpoint_engine_check(const char *engine, struct aerr *err);
/* Adds one "LABEL=env:VAR" or "LABEL=file:PATH" (spec must outlive f), checked. */
int endpoint_input_credential(struct endpoint_input *f, const char *spec, struct aerr *err);
/* A price in USD per million tokens, 0 to 1,000,000; what names it in the message. */
int endpoint_price_parse(const char *what, const char *s, double *out, struct aerr *err);
/* Adds one "LABEL=ORG": the organisation (account) the credential LABEL belongs to. */
int endpoint_input_credential_org(struct endpoint_input *f, const char *spec, struct aerr *err);
void endpoint_input_free(struct endpoint_input *f);
/* Each validates, writes in one transaction with its audit entry, and prints nothing. */
int endpoint_add(struct db *db, const char *actor, const char *vendor,
    const struct endpoint_input *in, int64_t *id, struct aerr *err);
int endpoint_edit(struct db *db, const char *actor, const char *ref, const struct endpoint_input *in,
    struct aerr *err);
int endpoint_archive(struct db *db, const char *actor, const char *ref, struct aerr *err);
/* actor, who wrote credential references of the endpoint, confirms that their
 * secrets may go to url, the endpoint's URL now (AV_USAGE when it is not, or
 * when actor wrote none): the references are bound to its origin from then on
 * (credref.c). labels: the labels confirmed, space-separated, newly allocated. */
int endpoint_confirm(struct db *db, const char *actor, const char *ref, const char *url,
    char **labels, struct aerr *err);
/* The plain-text view of an endpoint, as "endpoint show" and the TUI print it. */
void endpoint_describe(const struct endpoint *e, struct buf *out);

#endif
