/*
 * report-oscal.c: oscal-assessment-results.json — the report as NIST OSCAL
 * 1.0.6 assessment-results: one result whose observations are the probe
 * results (TEST) and the vendor's answers (INTERVIEW), whose findings are
 * aivet's findings and the claims checked against evidence, and whose
 * back-matter lists every evidence file with its SHA-256. UUIDs are derived
 * from the report id, so the same report gives the same document.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "finding.h"
#include "report.h"

#define OSCAL_VERSION "1.0.6"

static const char *
s_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
add_uuid(cJSON *o, const char *seed, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
add_uuid(cJSON *o, const char *seed, const char *fmt, ...)
{
	char u[37], *name;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	derived_uuid(seed, name, u);
	cJSON_AddStringToObject(o, "uuid", u);
	free(name);
}

static cJSON *
prop(const char *name, const char *value)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddStringToObject(p, "ns", "https://aivet.invalid/ns/oscal");
	cJSON_AddStringToObject(p, "value", value);
	return p;
}

/* An OSCAL token: letters, digits, '.', '-', '_', starting with a letter or '_'. */
static char *
token(const char *prefix, const char *s)
{
	char *t = xasprintf("%s%s", prefix, s ? s : "none");

	for (char *p = t; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '-' || *p == '_'))
			*p = '_';
	return t;
}

/* NIST SP 800-53's "SC-4" and "CP-2(2)" as OSCAL's catalog ids "sc-4" and "cp-2.2". */
static char *
control_id(const char *nist)
{
	char *id = xstrdup(nist), *o = id;

	for (const char *p = nist; *p != '\0'; p++) {
		if (*p == '(')
			*o++ = '.';
		else if (*p != ')')
			*o++ = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	}
	*o = '\0';
	return id;
}

static void
add_props(cJSON *props, const char *name, const char *const *values)
{
	for (size_t i = 0; values != NULL && values[i] != NULL; i++)
		cJSON_AddItemToArray(props, prop(name, values[i]));
}

/* A finding; a registry entry (fi) makes its target the objective of the entry's
 * first NIST SP 800-53 control and lists every control it bears on. */
static void
add_finding(cJSON *findings, const char *seed, const char *key, const char *title, const char *desc,
    const char *target, int satisfied, const char *obs_uuid, const char *severity,
    const struct finding_info *fi)
{
	cJSON *f = cJSON_CreateObject(), *t, *st, *props = NULL;
	char *tok;

	if (fi != NULL && fi->nist[0] != NULL) {
		char *c = control_id(fi->nist[0]);

		tok = xasprintf("%s_obj", c);
		free(c);
	} else {
		tok = token("aivet-", target);
	}
	add_uuid(f, seed, "finding/%s", key);
	cJSON_AddStringToObject(f, "title", title);
	cJSON_AddStringToObject(f, "description", desc);
	if (severity != NULL || fi != NULL)
		props = cJSON_AddArrayToObject(f, "props");
	if (severity != NULL)
		cJSON_AddItemToArray(props, prop("severity", severity));
	if (fi != NULL) {
		cJSON_AddItemToArray(props, prop("finding-code", fi->code));
		add_props(props, "nist-sp800-53-control", fi->nist);
		add_props(props, "hipaa-security-rule", fi->hipaa);
		add_props(props, "nist-ai-rmf", fi->ai_rmf);
	}
	t = cJSON_AddObjectToObject(f, "target");
	cJSON_AddStringToObject(t, "type", "objective-id");
	cJSON_AddStringToObject(t, "target-id", tok);
	st = cJSON_AddObjectToObject(t, "status");
	cJSON_AddStringToObject(st, "state", satisfied ? "satisfied" : "not-satisfied");
	if (obs_uuid != NULL) {
		cJSON *ro = cJSON_AddArrayToObject(f, "related-observations"), *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "observation-uuid", obs_uuid);
		cJSON_AddItemToArray(ro, o);
	}
	cJSON_AddItemToArray(findings, f);
	free(tok);
}

/* A finding a later run of its probe replaced: still listed, marked not open
 * and naming that run, so no reader counts it with the open ones. */
static void
superseded_props(cJSON *f, const cJSON *y)
{
	cJSON *props = cJSON_GetObjectItem(f, "props");
	const cJSON *by = cJSON_GetObjectItem(y, "superseded_by_run");
	char id[32];

	if (props == NULL)
		props = cJSON_AddArrayToObject(f, "props");
	cJSON_AddItemToArray(props, prop("open", cJSON_IsFalse(cJSON_GetObjectItem(y, "open")) ?
	    "false" : "true"));
	if (cJSON_IsNumber(by)) {
		snprintf(id, sizeof id, "%lld", (long long)by->valuedouble);
		cJSON_AddItemToArray(props, prop("superseded-by-run", id));
	}
}

/* The controls the findings bear on, from the registry, each once. */
static void
oscal_reviewed_controls(cJSON *r)
{
	cJSON *rc = cJSON_AddObjectToObject(r, "reviewed-controls");
	cJSON *cs = cJSON_AddArrayToObject(rc, "control-selections"), *sel = cJSON_CreateObject();
	cJSON *inc = cJSON_AddArrayToObject(sel, "include-controls"), *have;

	cJSON_AddStringToObject(sel, "description", "NIST SP 800-53 Rev. 5 controls that aivet's "
	    "findings bear on (see aivet(1), FINDINGS).");
	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *fi = finding_info((enum finding_code)i);

		for (size_t k = 0; fi->nist[k] != NULL; k++) {
			char *id = control_id(fi->nist[k]);
			int dup = 0;

			cJSON_ArrayForEach(have, inc)
				dup |= strcmp(json_get_str(have, "control-id"), id) == 0;
			if (!dup) {
				cJSON *c = cJSON_CreateObject();

				cJSON_AddStringToObject(c, "control-id", id);
				cJSON_AddItemToArray(inc, c);
			}
			free(id);
		}
	}
	cJSON_AddItemToArray(cs, sel);
}

/* A probe run: an observation per probe, with its exchanges as evidence, and
 * its findings, each tied to the observation of the probe that found it. */
static void
oscal_run(cJSON *obs, cJSON *finds, const char *seed, const char *gen, const cJSON *x)
{
	const cJSON *y;
	char u[37];
	int run = cJSON_GetObjectItem(x, "id") ? cJSON_GetObjectItem(x, "id")->valueint : 0;

	cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "results")) {
		cJSON *o = cJSON_CreateObject(), *ev, *e;
		char *d = xasprintf("Probe %s on %s (run %d): %s%s%s", s_of(y, "probe"),
		    s_of(x, "endpoint") ? s_of(x, "endpoint") : "?", run, s_of(y, "verdict"),
		    s_of(y, "reason") ? ": " : "", s_of(y, "reason") ? s_of(y, "reason") : "");

		add_uuid(o, seed, "observation/run/%d/%s", run, s_of(y, "probe"));
		cJSON_AddStringToObject(o, "title", s_of(y, "probe"));
		cJSON_AddStringToObject(o, "description", d);
		free(d);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "methods"), cJSON_CreateString("TEST"));
		ev = cJSON_CreateArray();
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(x, "exchanges")) {
			cJSON *re;

			if (s_of(e, "probe") == NULL || strcmp(s_of(e, "probe"), s_of(y, "probe")) != 0)
				continue;
			re = cJSON_CreateObject();
			cJSON_AddStringToObject(re, "href", s_of(e, "file"));
			cJSON_AddStringToObject(re, "description", "recorded HTTP exchange, credentials redacted");
			cJSON_AddItemToArray(ev, re);
		}
		if (cJSON_GetArraySize(ev) > 0)
			cJSON_AddItemToObject(o, "relevant-evidence", ev);
		else
			cJSON_Delete(ev);
		cJSON_AddStringToObject(o, "collected", s_of(x, "started_at") ? s_of(x, "started_at") : gen);
		cJSON_AddItemToArray(obs, o);
	}
	cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "findings")) {
		char key[64];

		snprintf(key, sizeof key, "%d", cJSON_GetObjectItem(y, "id") ?
		    cJSON_GetObjectItem(y, "id")->valueint : 0);
		{
			char *on = xasprintf("observation/run/%d/%s", run, s_of(y, "probe"));

			derived_uuid(seed, on, u);
			free(on);
		}
		add_finding(finds, seed, key, s_of(y, "code"), s_of(y, "message"), s_of(y, "code"), 0, u,
		    s_of(y, "severity"), finding_lookup(s_of(y, "code")));
		superseded_props(cJSON_GetArrayItem(finds, cJSON_GetArraySize(finds) - 1), y);
	}
}

/* An assessment: an observation per answer, the vendor's word (INTERVIEW). */
static void
oscal_answers(cJSON *obs, const char *seed, const char *gen, const cJSON *x)
{
	const cJSON *y;
	int aid = cJSON_GetObjectItem(x, "id") ? cJSON_GetObjectItem(x, "id")->valueint : 0;

	cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "answers")) {
		cJSON *o = cJSON_CreateObject();
		char *v = cJSON_PrintUnformatted(cJSON_GetObjectItem(y, "value"));
		char *d = s_of(y, "question") ? xasprintf("Vendor's answer to %s (%s): %s",
		    s_of(y, "question_id"), s_of(y, "question"), v) :
		    xasprintf("Vendor's answer to %s: %s", s_of(y, "question_id"), v);

		add_uuid(o, seed, "observation/assessment/%d/%s", aid, s_of(y, "question_id"));
		cJSON_AddStringToObject(o, "description", d);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "methods"), cJSON_CreateString("INTERVIEW"));
		cJSON_AddStringToObject(o, "collected", s_of(y, "updated_at") ? s_of(y, "updated_at") : gen);
		cJSON_AddItemToArray(obs, o);
		free(v);
		free(d);
	}
}

/* A claim tested against a probe: a finding when it is contradicted, a
 * satisfied finding when confirmed; untested claims conclude nothing. */
static void
oscal_claim(cJSON *finds, const char *seed, const cJSON *x)
{
	char u[37];
	const char *st = s_of(x, "status");
	char *key, *desc, *on, *ans = cJSON_PrintUnformatted(cJSON_GetObjectItem(x, "answer"));

	if (strcmp(st, "untested") == 0 || strcmp(st, "consistent") == 0) {
		free(ans);
		return;   /* no conclusion to record: consistent with the answer is not confirmed */
	}
	key = xasprintf("claim/%d/%s/%s", cJSON_GetObjectItem(x, "assessment_id")->valueint,
	    s_of(x, "question_id"), s_of(x, "endpoint") ? s_of(x, "endpoint") : "-");
	desc = xasprintf("The vendor's answer %s to %s is %s on %s: %s.", ans, s_of(x, "question_id"), st,
	    s_of(x, "endpoint") ? s_of(x, "endpoint") : "-", s_of(x, "reason"));
	on = xasprintf("observation/assessment/%d/%s", cJSON_GetObjectItem(x, "assessment_id")->valueint,
	    s_of(x, "question_id"));
	derived_uuid(seed, on, u);
	if (strcmp(st, "contradicted") == 0) {
		const struct finding_info *fi = finding_info(F_CLAIM_CONTRADICTED);

		add_finding(finds, seed, key, fi->code, desc, s_of(x, "question_id"), 0, u,
		    severity_name(fi->severity), fi);
	} else {
		add_finding(finds, seed, key, "Claim confirmed", desc, s_of(x, "question_id"), 1, u,
		    NULL, NULL);
	}
	free(key);
	free(desc);
	free(on);
	free(ans);
}

/* The implicit assessment plan and every evidence file with its hash. */
static void
oscal_back_matter(cJSON *ar, const char *seed, const char *ap_uuid, const cJSON *rep)
{
	cJSON *bm, *resources;
	const cJSON *x;

	bm = cJSON_AddObjectToObject(ar, "back-matter");
	resources = cJSON_AddArrayToObject(bm, "resources");
	{
		cJSON *apr = cJSON_CreateObject();

		cJSON_AddStringToObject(apr, "uuid", ap_uuid);
		cJSON_AddStringToObject(apr, "title", "Assessment plan");
		cJSON_AddStringToObject(apr, "description", "The plan is implicit: the questionnaire answers "
		    "and probe runs listed in report.json, selected by the options recorded there.");
		cJSON_AddItemToArray(resources, apr);
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "evidence_files")) {
		cJSON *res1 = cJSON_CreateObject(), *rl = cJSON_CreateObject(), *h = cJSON_CreateObject();

		add_uuid(res1, seed, "resource/%s", s_of(x, "path"));
		cJSON_AddStringToObject(res1, "title", s_of(x, "path"));
		cJSON_AddStringToObject(rl, "href", s_of(x, "path"));
		cJSON_AddStringToObject(h, "algorithm", "SHA-256");
		cJSON_AddStringToObject(h, "value", s_of(x, "sha256"));
		cJSON_AddItemToArray(cJSON_AddArrayToObject(rl, "hashes"), h);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(res1, "rlinks"), rl);
		cJSON_AddItemToArray(resources, res1);
	}
}

cJSON *
report_oscal(const cJSON *rep)
{
	const char *seed = s_of(rep, "report_id") ? s_of(rep, "report_id") : "";
	const char *gen = s_of(rep, "generated_at"), *vname = s_of(cJSON_GetObjectItem(rep, "vendor"), "name");
	cJSON *root = cJSON_CreateObject(), *ar, *md, *res, *r, *obs, *finds;
	const cJSON *x;
	char *title, ap_uuid[37];
	const char *start = gen;

	ar = cJSON_AddObjectToObject(root, "assessment-results");
	cJSON_AddStringToObject(ar, "uuid", seed);
	md = cJSON_AddObjectToObject(ar, "metadata");
	title = xasprintf("aivet assessment results: %s", vname ? vname : "?");
	cJSON_AddStringToObject(md, "title", title);
	cJSON_AddStringToObject(md, "last-modified", gen);
	cJSON_AddStringToObject(md, "version", s_of(rep, "aivet_version"));
	cJSON_AddStringToObject(md, "oscal-version", OSCAL_VERSION);
	derived_uuid(seed, "assessment-plan", ap_uuid);
	{
		char *href = xasprintf("#%s", ap_uuid);

		cJSON_AddStringToObject(cJSON_AddObjectToObject(ar, "import-ap"), "href", href);
		free(href);
	}
	res = cJSON_AddArrayToObject(ar, "results");
	r = cJSON_CreateObject();
	cJSON_AddItemToArray(res, r);
	add_uuid(r, seed, "result");
	cJSON_AddStringToObject(r, "title", title);
	free(title);
	cJSON_AddStringToObject(r, "description", "Vendor questionnaire answers and live probes of the "
	    "vendor's inference API (cross-tenant canary, oversize and context-integrity tests), with "
	    "each answer checked against the probe that tests it.");
	/* The result starts with the earliest probe run it covers. */
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs"))
		if (s_of(x, "started_at") && strcmp(s_of(x, "started_at"), start) < 0)
			start = s_of(x, "started_at");
	cJSON_AddStringToObject(r, "start", start);
	cJSON_AddStringToObject(r, "end", gen);
	/* A final round beside what it was approved at (report.json's since_approval). */
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments"))
		if (s_of(x, "since_approval") != NULL) {
			cJSON *props = cJSON_GetObjectItem(r, "props");
			char *v = xasprintf("assessment %d: %s", cJSON_GetObjectItem(x, "id") ?
			    cJSON_GetObjectItem(x, "id")->valueint : 0, s_of(x, "since_approval"));

			if (props == NULL)
				props = cJSON_AddArrayToObject(r, "props");
			cJSON_AddItemToArray(props, prop("since-approval", v));
			free(v);
		}
	oscal_reviewed_controls(r);
	obs = cJSON_CreateArray();
	finds = cJSON_CreateArray();
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "probe_runs"))
		oscal_run(obs, finds, seed, gen, x);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "assessments"))
		oscal_answers(obs, seed, gen, x);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(rep, "claims"))
		oscal_claim(finds, seed, x);
	if (cJSON_GetArraySize(obs) > 0)
		cJSON_AddItemToObject(r, "observations", obs);
	else
		cJSON_Delete(obs);
	if (cJSON_GetArraySize(finds) > 0)
		cJSON_AddItemToObject(r, "findings", finds);
	else
		cJSON_Delete(finds);
	oscal_back_matter(ar, seed, ap_uuid, rep);
	return root;
}
