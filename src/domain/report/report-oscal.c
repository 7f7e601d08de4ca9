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
#include "report-doc.h"

#define OSCAL_VERSION "1.0.6"

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

/* A finding a later run of its probe replaced: still listed, marked not open
 * and naming that run, so no reader counts it with the open ones. */
static void
superseded_props(cJSON *props, const struct report_finding *y)
{
	char id[32];

	cJSON_AddItemToArray(props, prop("open", y->open ? "true" : "false"));
	if (y->superseded_by_run != 0) {
		snprintf(id, sizeof id, "%lld", (long long)y->superseded_by_run);
		cJSON_AddItemToArray(props, prop("superseded-by-run", id));
	}
}

/* A finding; a registry entry (fi) makes its target the objective of the entry's
 * first NIST SP 800-53 control and lists every control it bears on. */
static void
add_finding(cJSON *findings, const char *seed, const char *key, const char *title, const char *desc,
    const char *target, int satisfied, const char *obs_uuid, const char *severity,
    const struct finding_info *fi, const struct report_finding *y)
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
	if (severity != NULL || fi != NULL || y != NULL)
		props = cJSON_AddArrayToObject(f, "props");
	if (severity != NULL)
		cJSON_AddItemToArray(props, prop("severity", severity));
	if (fi != NULL) {
		cJSON_AddItemToArray(props, prop("finding-code", fi->code));
		add_props(props, "nist-sp800-53-control", fi->nist);
		add_props(props, "hipaa-security-rule", fi->hipaa);
		add_props(props, "nist-ai-rmf", fi->ai_rmf);
	}
	if (y != NULL)
		superseded_props(props, y);
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

/* The controls the findings bear on, from the registry, each once. */
static void
oscal_reviewed_controls(cJSON *r)
{
	cJSON *rc = cJSON_AddObjectToObject(r, "reviewed-controls");
	cJSON *cs = cJSON_AddArrayToObject(rc, "control-selections"), *sel = cJSON_CreateObject();
	cJSON *inc = cJSON_AddArrayToObject(sel, "include-controls");
	char **seen = NULL;   /* the controls listed so far */
	size_t nseen = 0;

	cJSON_AddStringToObject(sel, "description", "NIST SP 800-53 Rev. 5 controls that aivet's "
	    "findings bear on (see aivet(1), FINDINGS).");
	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *fi = finding_info((enum finding_code)i);

		for (size_t k = 0; fi->nist[k] != NULL; k++) {
			char *id = control_id(fi->nist[k]);
			int dup = 0;

			for (size_t j = 0; j < nseen; j++)
				dup |= strcmp(seen[j], id) == 0;
			if (!dup) {
				cJSON *c = cJSON_CreateObject();

				cJSON_AddStringToObject(c, "control-id", id);
				cJSON_AddItemToArray(inc, c);
				seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
				seen[nseen++] = id;
			} else {
				free(id);
			}
		}
	}
	cJSON_AddItemToArray(cs, sel);
	for (size_t j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
}

/* A probe run: an observation per probe, with its exchanges as evidence, and
 * its findings, each tied to the observation of the probe that found it. */
static void
oscal_run(cJSON *obs, cJSON *finds, const char *seed, const char *gen, const struct report_run *x)
{
	char u[37];
	int run = (int)x->id;

	for (size_t i = 0; i < x->nresults; i++) {
		const struct report_result *y = &x->results[i];
		cJSON *o = cJSON_CreateObject(), *ev;
		char *d = xasprintf("Probe %s on %s (run %d): %s%s%s", y->probe, x->endpoint ? x->endpoint : "?",
		    run, probe_verdict_name(y->verdict), y->reason ? ": " : "", y->reason ? y->reason : "");

		add_uuid(o, seed, "observation/run/%d/%s", run, y->probe);
		cJSON_AddStringToObject(o, "title", y->probe);
		cJSON_AddStringToObject(o, "description", d);
		free(d);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "methods"), cJSON_CreateString("TEST"));
		ev = cJSON_CreateArray();
		for (size_t k = 0; k < x->nexchanges; k++) {
			const struct report_exchange *e = &x->exchanges[k];
			cJSON *re;

			if (e->probe == NULL || strcmp(e->probe, y->probe) != 0)
				continue;
			re = cJSON_CreateObject();
			cJSON_AddStringToObject(re, "href", e->file);
			cJSON_AddStringToObject(re, "description", "recorded HTTP exchange, credentials redacted");
			cJSON_AddItemToArray(ev, re);
		}
		if (cJSON_GetArraySize(ev) > 0)
			cJSON_AddItemToObject(o, "relevant-evidence", ev);
		else
			cJSON_Delete(ev);
		cJSON_AddStringToObject(o, "collected", x->started_at ? x->started_at : gen);
		cJSON_AddItemToArray(obs, o);
	}
	for (size_t i = 0; i < x->nfindings; i++) {
		const struct report_finding *y = &x->findings[i];
		char key[64], *on;

		snprintf(key, sizeof key, "%d", (int)y->id);
		on = xasprintf("observation/run/%d/%s", run, y->probe);
		derived_uuid(seed, on, u);
		free(on);
		add_finding(finds, seed, key, y->code, y->message, y->code, 0, u, severity_name(y->severity),
		    finding_lookup(y->code), y);
	}
}

/* A free-form value as compact JSON ("null" for none). */
static char *
json_text(const cJSON *v)
{
	return v != NULL ? cJSON_PrintUnformatted(v) : xstrdup("null");
}

/* An assessment: an observation per answer, the vendor's word (INTERVIEW). */
static void
oscal_answers(cJSON *obs, const char *seed, const char *gen, const struct report_assessment *x)
{
	int aid = (int)x->id;

	for (size_t i = 0; i < x->nanswers; i++) {
		const struct report_answer *y = &x->answers[i];
		cJSON *o = cJSON_CreateObject();
		char *v = json_text(y->value);
		char *d = y->question ? xasprintf("Vendor's answer to %s (%s): %s", y->question_id, y->question,
		    v) : xasprintf("Vendor's answer to %s: %s", y->question_id, v);

		add_uuid(o, seed, "observation/assessment/%d/%s", aid, y->question_id);
		cJSON_AddStringToObject(o, "description", d);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "methods"), cJSON_CreateString("INTERVIEW"));
		cJSON_AddStringToObject(o, "collected", y->updated_at ? y->updated_at : gen);
		cJSON_AddItemToArray(obs, o);
		free(v);
		free(d);
	}
}

/* A claim tested against a probe: a finding when it is contradicted, a
 * satisfied finding when confirmed; untested claims conclude nothing. */
static void
oscal_claim(cJSON *finds, const char *seed, const struct claim *x)
{
	char u[37];
	const char *ep = x->endpoint ? x->endpoint : "-";
	char *key, *desc, *on, *ans;

	if (x->status == CLAIM_UNTESTED || x->status == CLAIM_CONSISTENT)
		return;   /* no conclusion to record: consistent with the answer is not confirmed */
	ans = json_text(x->answer);
	key = xasprintf("claim/%d/%s/%s", (int)x->assessment_id, x->question_id, ep);
	desc = xasprintf("The vendor's answer %s to %s is %s on %s: %s.", ans, x->question_id,
	    claim_status_name(x->status), ep, x->reason);
	on = xasprintf("observation/assessment/%d/%s", (int)x->assessment_id, x->question_id);
	derived_uuid(seed, on, u);
	if (x->status == CLAIM_CONTRADICTED) {
		const struct finding_info *fi = finding_info(F_CLAIM_CONTRADICTED);

		add_finding(finds, seed, key, fi->code, desc, x->question_id, 0, u,
		    severity_name(fi->severity), fi, NULL);
	} else {
		add_finding(finds, seed, key, "Claim confirmed", desc, x->question_id, 1, u, NULL, NULL, NULL);
	}
	free(key);
	free(desc);
	free(on);
	free(ans);
}

/* The implicit assessment plan and every evidence file with its hash. */
static void
oscal_back_matter(cJSON *ar, const char *seed, const char *ap_uuid, const struct report_doc *rep)
{
	cJSON *bm, *resources;

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
	for (size_t i = 0; i < rep->nfiles; i++) {
		const struct report_file_entry *x = &rep->files[i];
		cJSON *res1 = cJSON_CreateObject(), *rl = cJSON_CreateObject(), *h = cJSON_CreateObject();

		add_uuid(res1, seed, "resource/%s", x->path);
		cJSON_AddStringToObject(res1, "title", x->path);
		cJSON_AddStringToObject(rl, "href", x->path);
		cJSON_AddStringToObject(h, "algorithm", "SHA-256");
		cJSON_AddStringToObject(h, "value", x->sha256);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(rl, "hashes"), h);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(res1, "rlinks"), rl);
		cJSON_AddItemToArray(resources, res1);
	}
}

/* The result's start (the earliest probe run it covers) and, for a final
 * round, what it was approved at (report.json's since_approval). */
static void
oscal_result_times(cJSON *r, const struct report_doc *rep, const char *gen)
{
	const char *start = gen;
	cJSON *props = NULL;

	for (size_t i = 0; i < rep->nruns; i++)
		if (rep->runs[i].started_at && strcmp(rep->runs[i].started_at, start) < 0)
			start = rep->runs[i].started_at;
	cJSON_AddStringToObject(r, "start", start);
	cJSON_AddStringToObject(r, "end", gen);
	for (size_t i = 0; i < rep->nassessments; i++) {
		const struct report_assessment *x = &rep->assessments[i];
		char *v;

		if (x->since_approval == NULL)
			continue;
		v = xasprintf("assessment %d: %s", (int)x->id, x->since_approval);
		if (props == NULL)
			props = cJSON_AddArrayToObject(r, "props");
		cJSON_AddItemToArray(props, prop("since-approval", v));
		free(v);
	}
}

/* The observations and findings of the result. */
static void
oscal_result_body(cJSON *r, const struct report_doc *rep, const char *seed, const char *gen)
{
	cJSON *obs = cJSON_CreateArray(), *finds = cJSON_CreateArray();

	for (size_t i = 0; i < rep->nruns; i++)
		oscal_run(obs, finds, seed, gen, &rep->runs[i]);
	for (size_t i = 0; i < rep->nassessments; i++)
		oscal_answers(obs, seed, gen, &rep->assessments[i]);
	for (size_t i = 0; i < rep->claims.n; i++)
		oscal_claim(finds, seed, &rep->claims.items[i]);
	if (cJSON_GetArraySize(obs) > 0)
		cJSON_AddItemToObject(r, "observations", obs);
	else
		cJSON_Delete(obs);
	if (cJSON_GetArraySize(finds) > 0)
		cJSON_AddItemToObject(r, "findings", finds);
	else
		cJSON_Delete(finds);
}

cJSON *
report_oscal(const struct report *report)
{
	const struct report_doc *rep = report->doc;
	const char *seed = rep->report_id ? rep->report_id : "";
	const char *gen = rep->generated_at, *vname = rep->vendor.name;
	cJSON *root = cJSON_CreateObject(), *ar, *md, *res, *r;
	char *title, ap_uuid[37];

	ar = cJSON_AddObjectToObject(root, "assessment-results");
	cJSON_AddStringToObject(ar, "uuid", seed);
	md = cJSON_AddObjectToObject(ar, "metadata");
	title = xasprintf("aivet assessment results: %s", vname ? vname : "?");
	cJSON_AddStringToObject(md, "title", title);
	cJSON_AddStringToObject(md, "last-modified", gen);
	cJSON_AddStringToObject(md, "version", rep->aivet_version);
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
	oscal_result_times(r, rep, gen);
	oscal_reviewed_controls(r);
	oscal_result_body(r, rep, seed, gen);
	oscal_back_matter(ar, seed, ap_uuid, rep);
	return root;
}
