/*
 * run-format.c: probe plans and runs as people and CI systems read them:
 * text (also what "aivet demo" and the probe commands print), and SARIF 2.1.0
 * and JUnit XML.
 * Everything is rendered into a buffer the front end prints; nothing here
 * writes to a terminal. The text is escaped as base.h's text_escape keeps lines:
 * a run's reasons, findings and names may quote a vendor, and nothing a
 * vendor sent may reach the reader's terminal as a control sequence.
 * SARIF: one SARIF run per probe run, one rule per finding code (so code
 * scanning groups findings by code), a result per finding with its
 * severity mapped to a level and a security-severity score, the endpoint as
 * a logical location, evidence ids in the properties, and probes that ended
 * in error or inconclusive as tool notifications. JUnit: one <testsuite>
 * per run, one <testcase> per probe; fail is <failure>, error is <error>,
 * inconclusive is <skipped>. Both are built from the run's record
 * (struct probe_run, probe-record.h) that "probe show --json" writes, so they
 * say exactly what it says.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "probe.h"
#include "run-format.h"

/* 1234567 -> "1,234,567" */
const char *
thousands(int64_t v, char out[32])
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%lld", (long long)(v < 0 ? -v : v)), o = 0;

	if (v < 0)
		out[o++] = '-';
	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
	return out;
}

/* The budget's line: under a budget the run stops at it, so that, not the whole plan,
 * is the most it spends. A token budget is priced at the plan's mix of input and
 * output (run_plan's budget_tokens_usd), and only where the plan has prices. */
static void
plan_budget_text(struct buf *b, const struct run_plan *plan)
{
	char x[32], y[32], z[32];

	if (plan->capped && plan->budget_usd > 0 && plan->has_cost_usd &&
	    plan->most_usd == plan->budget_usd) {
		buf_printf(b, "  %-12s at most USD %.2f (--budget-usd): the run stops there; the whole plan "
		    "would cost about USD %.2f\n", "budget", plan->most_usd, plan->cost_usd);
		return;
	}
	if (!plan->capped)
		return;
	buf_printf(b, "  %-12s at most %s tokens in and out (--budget-tokens", "budget",
	    thousands(plan->budget_tokens, x));
	if (plan->has_budget_tokens_usd)
		buf_printf(b, ", about USD %.2f", plan->budget_tokens_usd);
	buf_printf(b, "): the run stops there; the whole plan sends %s in and %s out\n",
	    thousands(plan->tokens_in, y), thousands(plan->tokens_out, z));
}

/* The plan in words, one line each: what "probe run --dry-run" prints and the TUI's
 * runs screen shows, so the two cannot say different figures. */
void
probe_plan_text(struct buf *b, const cJSON *plan_doc)
{
	struct run_plan plan;
	char x[32], y[32], z[32];

	run_plan_read(plan_doc, &plan);
	buf_adds(b, "plan (at most):\n");
	for (size_t i = 0; i < plan.nprobes; i++)
		buf_printf(b, "  %-12s %5s requests  %15s tokens in  %9s out\n", plan.probes[i].name,
		    thousands(plan.probes[i].requests, x), thousands(plan.probes[i].tokens_in, y),
		    thousands(plan.probes[i].tokens_out, z));
	buf_printf(b, "  %-12s %5s requests  %15s tokens in  %9s out", "total",
	    thousands(plan.requests, x), thousands(plan.tokens_in, y), thousands(plan.tokens_out, z));
	if (plan.has_cost_usd)
		buf_printf(b, "  (about USD %.2f)", plan.cost_usd);
	buf_adds(b, "\n");
	plan_budget_text(b, &plan);
	/* What a vendor that behaves as advertised bills: it refuses (and does not bill)
	 * the prompts over its context. Its price is these tokens' own, a budget or not. */
	if (plan.has_tokens_in_expected) {
		buf_printf(b, "  %-12s %5s           %15s tokens in", "expected", "",
		    thousands(plan.tokens_in_expected, y));
		if (plan.has_cost_usd_expected)
			buf_printf(b, "  (about USD %.2f)", plan.cost_usd_expected);
		buf_printf(b, " against a vendor as advertised (oversize prompts refused, not billed); "
		    "depth %s\n", plan.depth ? plan.depth : "verify");
	}
	if (plan.sweep_repeats != NULL)
		buf_printf(b, "  %s\n", plan.sweep_repeats);
	if (plan.cache_sharing_levels != NULL)
		buf_printf(b, "  prompt-cache sharing these credentials can tell: %s\n", plan.cache_sharing_levels);
	if (plan.has_max_prompt_tokens)
		buf_printf(b, "  prompts capped at %s tokens (--max-prompt-tokens): larger sizes are not judged\n",
		    thousands(plan.max_prompt_tokens, x));
	else if (plan.has_largest_prompt_tokens)
		buf_printf(b, "  largest prompt about %s tokens; under a lower tokens-per-minute limit, cap "
		    "prompts with --max-prompt-tokens N\n", thousands(plan.largest_prompt_tokens, x));
	run_plan_free(&plan);
}

int
probe_billed_text(const struct probe_run *run, char *out, size_t n)
{
	char x[32], y[32];
	int len;

	if (!run->has_billed)
		return 0;
	len = snprintf(out, n, "billed by the vendor: %s tokens in, %s out",
	    thousands((int64_t)run->billed.tokens_in, x), thousands((int64_t)run->billed.tokens_out, y));
	if (run->billed.has_cost_usd && len > 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, ", USD %.2f", run->billed.cost_usd);
	else if (len > 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, " (no prices: set them with endpoint edit)");
	return 1;
}

char *
incident_open_command_text(const char *endpoint_ref, const char *code, int64_t finding_id)
{
	const char *slash = strchr(endpoint_ref, '/');
	char *vendor = slash ? strndup(endpoint_ref, (size_t)(slash - endpoint_ref)) :
	    xstrdup(endpoint_ref);
	char *title = xasprintf("%s on %s (finding %lld)", code, endpoint_ref, (long long)finding_id);
	struct buf b;

	if (vendor == NULL)
		die("out of memory");
	buf_init(&b);
	buf_adds(&b, "aivet incident open ");
	buf_shell_word(&b, vendor);
	buf_adds(&b, " --title ");
	buf_shell_word(&b, title);
	buf_adds(&b, " --endpoint ");
	buf_shell_word(&b, endpoint_ref);
	buf_printf(&b, " --from-finding %lld", (long long)finding_id);
	free(vendor);
	free(title);
	return buf_steal(&b);
}

/* "LABEL WORD" of an engine's own word (its version, its mode), escaped to one line. */
static void
word_text(struct buf *b, const char *label, const char *w)
{
	char *e = text_escape(w ? w : "not said", strlen(w ? w : "not said"), 0);

	buf_printf(b, "%s %s", label, e);
	free(e);
}

/* The engine probe's nodes, one line each: what the engine said of itself. */
static void
nodes_text(struct buf *b, const struct probe_result *p)
{
	char a[32];

	for (size_t k = 0; k < p->nnodes; k++) {
		const struct engine_node_status *n = &p->nodes[k];
		char *url = text_escape(n->url ? n->url : "", strlen(n->url ? n->url : ""), 0);

		buf_printf(b, "       node %zu %s: ", k + 1, url);
		free(url);
		if (!n->read) {
			buf_adds(b, "not read\n");
			continue;
		}
		if (n->pool >= 0)
			buf_printf(b, "pool %s, ", thousands(n->pool, a));
		if (n->context >= 0)
			buf_printf(b, "context %s, ", thousands(n->context, a));
		if (n->max_total >= 0)
			buf_printf(b, "max total %s, ", thousands(n->max_total, a));
		word_text(b, "version", n->version);
		word_text(b, ", mode", n->mode ? n->mode : "null");
		buf_adds(b, "\n");
	}
}

/* A finding's line and, for a critical one, the command that opens an incident from it. */
static void
finding_text(struct buf *b, const struct probe_run *run, const struct finding *fd)
{
	char *msg = text_escape(fd->message, strlen(fd->message), 0);
	size_t k;

	buf_printf(b, "       %-8s %s: %s (evidence", fd->severity, fd->code, msg);
	free(msg);
	for (k = 0; k < fd->nevidence; k++) {
		char name[EVIDENCE_NAME_MAX];

		if (k == 6) {
			buf_adds(b, " ...");
			break;
		}
		/* Named as in the report bundle's evidence/ and the terminal UI. */
		evidence_file_name(fd->evidence[k], "exchange", NULL, name, sizeof name);
		buf_printf(b, " %s", name);
	}
	buf_printf(b, "%s)\n", k == 0 ? " none recorded" : "");
	if (severity_rank(fd->severity) == SEV_CRITICAL) {
		char *cmd = incident_open_command_text(run->endpoint, fd->code, fd->id);

		buf_printf(b, "         open an incident: %s\n", cmd);
		free(cmd);
	}
}

static void
calibration_text(struct buf *b, const struct run_calibration *cal)
{
	if (cal->has_bounds)
		buf_printf(b, "calibration: bounds, no usable token count: %g to %g tokens per filler word\n",
		    cal->bounds[0], cal->bounds[1]);
	else if (cal->present && cal->method != NULL)
		buf_printf(b, "calibration: %s, %.3f tokens per filler word\n", cal->method,
		    cal->tokens_per_unit);
	else if (cal->present)
		buf_adds(b, "calibration: method not recorded\n");
	else
		buf_adds(b, "calibration: not measured in this run\n");
}

/* A run's text appended to out, the vendor's words escaped to one line each;
 * run_format_render escapes the whole for a terminal. */
static void
probe_run_text(struct buf *out, const struct probe_run *run)
{
	char a[32], b[32], line[160];

	buf_printf(out, "run %d on %s: %s (%s tokens in, %s out)\n", (int)run->id, run->endpoint,
	    run->status, thousands(run->tokens_in, a), thousands(run->tokens_out, b));
	if (probe_billed_text(run, line, sizeof line))
		buf_printf(out, "%s\n", line);
	calibration_text(out, &run->calib);
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct probe_result *p = &run->probes[i];
		const char *v = p->verdict;
		/* Reasons and messages may quote a vendor's reply: escaped for the terminal. */
		const char *said = p->reason != NULL && *p->reason ? p->reason : "no reason recorded";
		char *why = text_escape(said, strlen(said), 0);

		buf_printf(out, "  %-4s %-12s %-13s %s\n", strcmp(v, "pass") == 0 ? "ok" :
		    strcmp(v, "fail") == 0 ? "FAIL" : strcmp(v, "error") == 0 ? "ERR" : "??", p->name, v, why);
		free(why);
		if (p->sweep.present) {
			buf_printf(out, "       advertised context %s tokens; ", thousands((int64_t)p->sweep.advertised, a));
			if (p->sweep.has_integrity_boundary)
				buf_printf(out, "content intact up to %s tokens; ",
				    thousands((int64_t)p->sweep.integrity_boundary, b));
			if (p->sweep.has_refusal_boundary)
				buf_printf(out, "accepted up to %s tokens; ", thousands((int64_t)p->sweep.refusal_boundary, b));
			buf_printf(out, "change: %s\n", p->sweep.change ? p->sweep.change : "(null)");
		}
		nodes_text(out, p);
		for (size_t k = 0; k < p->nfindings; k++)
			finding_text(out, run, &p->findings[k]);
	}
}


int
run_format_parse(const char *s, int *fmt, struct aerr *err)
{
	static const char *const names[] = { "text", "json", "junit", "sarif" };

	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*fmt = i;
			return 0;
		}
	return aerr_set(err, AV_USAGE, "--format: '%s' is not one of text, json, junit, sarif", s);
}

/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD:
 * vendor error text ends up in messages, and JSON and XML need UTF-8. */
static char *
utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	struct buf b;

	buf_init(&b);
	while (*p) {
		unsigned c = *p;
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		    (c & 0xf8) == 0xf0 ? 4 : 0, i;

		for (i = 1; len > 1 && i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				break;
		/* Overlong two-byte forms (C0, C1) and code points above U+10FFFF are not UTF-8. */
		if (len == 0 || i < len || c == 0xc0 || c == 0xc1 || c > 0xf4) {
			buf_adds(&b, "\xef\xbf\xbd");
			p++;
			continue;
		}
		buf_add(&b, p, len);
		p += len;
	}
	return buf_steal(&b);
}

static const char *
sarif_level(const char *severity)
{
	int r = severity_rank(severity);

	return r >= SEV_HIGH ? "error" : r == SEV_MEDIUM ? "warning" : "note";
}

/* GitHub code scanning ranks security results by this CVSS-like score. */
static const char *
security_severity(const char *severity)
{
	static const char *const scores[SEV_COUNT] = {
		[SEV_INFO] = "0.0", [SEV_LOW] = "3.0", [SEV_MEDIUM] = "5.5", [SEV_HIGH] = "8.0",
		[SEV_CRITICAL] = "9.5",
	};
	int r = severity_rank(severity);

	return r >= 0 ? scores[r] : "0.0";
}

/* LEAK_CROSS_TENANT -> LeakCrossTenant: SARIF's readable rule name. */
static char *
rule_name(const char *code)
{
	char *s = xstrdup(code), *o = s;
	int up = 1;

	for (const char *p = code; *p; p++) {
		if (*p == '_') {
			up = 1;
			continue;
		}
		*o++ = up ? *p : (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		up = 0;
	}
	*o = '\0';
	return s;
}

static void
add_tags(cJSON *tags, const char *prefix, const char *const *ids)
{
	for (size_t i = 0; ids != NULL && ids[i] != NULL; i++) {
		char *t = xasprintf("%s%s", prefix, ids[i]);

		cJSON_AddItemToArray(tags, cJSON_CreateString(t));
		free(t);
	}
}

/* A SARIF rule from the registry entry (f), or a bare one for a code the
 * registry does not know (a run recorded by another version of aivet). */
static cJSON *
rule_json(const char *code, const char *severity, const struct finding_info *f)
{
	cJSON *r = cJSON_CreateObject(), *o, *tags;
	char *name = rule_name(code);

	cJSON_AddStringToObject(r, "id", code);
	cJSON_AddStringToObject(r, "name", name);
	free(name);
	o = cJSON_AddObjectToObject(r, "shortDescription");
	cJSON_AddStringToObject(o, "text", f ? f->title : "A finding of aivet (see aivet(1)).");
	if (f != NULL) {
		o = cJSON_AddObjectToObject(r, "fullDescription");
		cJSON_AddStringToObject(o, "text", f->meaning);
		o = cJSON_AddObjectToObject(r, "help");
		cJSON_AddStringToObject(o, "text", f->remedy);
	}
	o = cJSON_AddObjectToObject(r, "defaultConfiguration");
	cJSON_AddStringToObject(o, "level", sarif_level(severity));
	o = cJSON_AddObjectToObject(r, "properties");
	cJSON_AddStringToObject(o, "security-severity", security_severity(severity));
	cJSON_AddStringToObject(o, "aivet-severity", severity);
	tags = cJSON_AddArrayToObject(o, "tags");
	cJSON_AddItemToArray(tags, cJSON_CreateString("security"));
	cJSON_AddItemToArray(tags, cJSON_CreateString("ai-vendor"));
	if (f != NULL) {
		add_tags(tags, "NIST-800-53:", f->nist);
		add_tags(tags, "HIPAA:", f->hipaa);
		add_tags(tags, "NIST-AI-RMF:", f->ai_rmf);
	}
	return r;
}

/* The rule index of code in driver.rules, adding a rule for an unknown code. */
static int
rule_index(cJSON *rules_arr, const char *code, const char *severity)
{
	int i = 0;
	const cJSON *r;

	cJSON_ArrayForEach(r, rules_arr) {
		if (strcmp(json_get_str(r, "id"), code) == 0)
			return i;
		i++;
	}
	cJSON_AddItemToArray(rules_arr, rule_json(code, severity, finding_lookup(code)));
	return i;
}

/*
 * Code-scanning services refuse a result without a physical location. The
 * place a finding is shown is its first piece of evidence, named as the
 * signed report bundle names it (evidence/exchange-ID.json, relative to the
 * bundle's directory); a finding without evidence points at the endpoint.
 */
static void
sarif_physical(cJSON *loc, const struct finding *finding, const struct probe_run *run)
{
	const char *url = run->endpoint_url;
	cJSON *art = cJSON_AddObjectToObject(cJSON_AddObjectToObject(loc, "physicalLocation"),
	    "artifactLocation");
	char *uri;

	if (finding->nevidence > 0) {
		uri = xasprintf("evidence/exchange-%lld.json", (long long)finding->evidence[0]);
		cJSON_AddStringToObject(art, "uri", uri);
		cJSON_AddStringToObject(art, "uriBaseId", "AIVET_BUNDLE");
		free(uri);
	} else {
		cJSON_AddStringToObject(art, "uri", url != NULL && *url != '\0' ? url : "about:blank");
	}
}

/* The probes that ended in error or inconclusive, as tool notifications; *ok
 * cleared when one erred. */
static cJSON *
sarif_notes(const struct probe_run *run, int *ok)
{
	cJSON *notes = cJSON_CreateArray();

	for (size_t i = 0; i < run->nprobes; i++) {
		const struct probe_result *p = &run->probes[i];
		const char *verdict = p->verdict, *name = p->name;
		cJSON *n, *m;
		char *s, *clean;

		if (verdict == NULL || name == NULL)
			continue;
		if (strcmp(verdict, "error") == 0)
			*ok = 0;
		if (strcmp(verdict, "error") != 0 && strcmp(verdict, "inconclusive") != 0)
			continue;
		n = cJSON_CreateObject();
		cJSON_AddStringToObject(n, "level", strcmp(verdict, "error") == 0 ? "error" : "warning");
		m = cJSON_AddObjectToObject(n, "message");
		s = xasprintf("probe %s %s: %s", name, verdict, p->reason ? p->reason : "");
		clean = utf8_clean(s);
		cJSON_AddStringToObject(m, "text", clean);
		free(clean);
		free(s);
		m = cJSON_AddObjectToObject(n, "descriptor");
		cJSON_AddStringToObject(m, "id", name);
		cJSON_AddItemToArray(notes, n);
	}
	return notes;
}

/* One finding as a SARIF result. */
static cJSON *
sarif_result(cJSON *rules_arr, const struct probe_run *run, const char *probe, const struct finding *f)
{
	const char *endpoint = run->endpoint ? run->endpoint : "";
	cJSON *r = cJSON_CreateObject(), *o, *loc, *ll, *fp, *ev, *props;
	char fq[512], hash[65], *s;

	cJSON_AddStringToObject(r, "ruleId", f->code);
	cJSON_AddNumberToObject(r, "ruleIndex", rule_index(rules_arr, f->code, f->severity));
	cJSON_AddStringToObject(r, "level", sarif_level(f->severity));
	o = cJSON_AddObjectToObject(r, "message");
	s = utf8_clean(f->message && *f->message ? f->message : f->code);
	cJSON_AddStringToObject(o, "text", s);
	free(s);
	loc = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "locations"), loc);
	sarif_physical(loc, f, run);
	ll = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(loc, "logicalLocations"), ll);
	snprintf(fq, sizeof fq, "%s/%s", endpoint, probe);
	cJSON_AddStringToObject(ll, "name", probe);
	cJSON_AddStringToObject(ll, "fullyQualifiedName", fq);
	cJSON_AddStringToObject(ll, "kind", "resource");
	/* The same code from the same probe on the same endpoint is the same alert across runs. */
	snprintf(fq, sizeof fq, "%s\n%s\n%s", endpoint, probe, f->code);
	sha256_hex(fq, strlen(fq), hash);
	fp = cJSON_AddObjectToObject(r, "partialFingerprints");
	cJSON_AddStringToObject(fp, "aivetFinding/v1", hash);
	props = cJSON_AddObjectToObject(r, "properties");
	cJSON_AddStringToObject(props, "severity", f->severity);
	cJSON_AddStringToObject(props, "probe", probe);
	cJSON_AddStringToObject(props, "endpoint", endpoint);
	cJSON_AddNumberToObject(props, "run", (double)run->id);
	cJSON_AddNumberToObject(props, "finding", (double)f->id);
	ev = cJSON_AddArrayToObject(props, "evidence");
	for (size_t e = 0; e < f->nevidence; e++)
		cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)f->evidence[e]));
	return r;
}

static cJSON *
sarif_run(const struct probe_run *run)
{
	cJSON *sr = cJSON_CreateObject(), *driver, *rules_arr, *inv, *notes, *results, *o, *props;
	const char *endpoint = run->endpoint ? run->endpoint : "";
	const char *status = run->status ? run->status : "";
	int ok = run->state == RUN_COMPLETED;
	char *s;

	o = cJSON_AddObjectToObject(sr, "tool");
	driver = cJSON_AddObjectToObject(o, "driver");
	cJSON_AddStringToObject(driver, "name", "aivet");
	cJSON_AddStringToObject(driver, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(driver, "semanticVersion", PACKAGE_VERSION);
	rules_arr = cJSON_AddArrayToObject(driver, "rules");
	for (int i = 0; i < F_COUNT; i++) {
		const struct finding_info *fi = finding_info((enum finding_code)i);

		cJSON_AddItemToArray(rules_arr, rule_json(fi->code, severity_name(fi->severity), fi));
	}

	/* One category per endpoint, so code scanning tracks each endpoint's alerts apart. */
	o = cJSON_AddObjectToObject(sr, "automationDetails");
	s = xasprintf("aivet/%s/run-%lld", endpoint, (long long)run->id);
	cJSON_AddStringToObject(o, "id", s);
	free(s);

	inv = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(sr, "invocations"), inv);
	notes = sarif_notes(run, &ok);
	cJSON_AddBoolToObject(inv, "executionSuccessful", ok);
	if (run->started_at)
		cJSON_AddStringToObject(inv, "startTimeUtc", run->started_at);
	if (run->finished_at)
		cJSON_AddStringToObject(inv, "endTimeUtc", run->finished_at);
	cJSON_AddItemToObject(inv, "toolExecutionNotifications", notes);

	results = cJSON_AddArrayToObject(sr, "results");
	for (size_t i = 0; i < run->nprobes; i++)
		for (size_t k = 0; k < run->probes[i].nfindings; k++) {
			const struct finding *f = &run->probes[i].findings[k];

			if (f->code != NULL && f->severity != NULL)
				cJSON_AddItemToArray(results, sarif_result(rules_arr, run,
				    run->probes[i].name ? run->probes[i].name : "", f));
		}
	o = cJSON_AddObjectToObject(cJSON_AddObjectToObject(sr, "originalUriBaseIds"), "AIVET_BUNDLE");
	o = cJSON_AddObjectToObject(o, "description");
	cJSON_AddStringToObject(o, "text", "the directory of the signed report bundle (aivet report) "
	    "that holds this run's evidence");
	props = cJSON_AddObjectToObject(sr, "properties");
	cJSON_AddNumberToObject(props, "run", (double)run->id);
	cJSON_AddStringToObject(props, "endpoint", endpoint);
	cJSON_AddStringToObject(props, "status", status);
	return sr;
}

cJSON *
runs_sarif(const struct probe_run *runs, size_t n)
{
	cJSON *log = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(log, "version", "2.1.0");
	arr = cJSON_AddArrayToObject(log, "runs");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, sarif_run(&runs[i]));
	return log;
}

/* Text as XML 1.0 character data or attribute value: markup escaped, invalid
 * UTF-8 and the control characters XML cannot carry shown as U+FFFD; C1
 * controls, bidirectional overrides and isolates (which would reorder what a
 * CI page shows) and the non-characters U+FFFE and U+FFFF written as visible
 * escapes (\u202e), as on the terminal. */
static void
xml_text(struct buf *b, const char *s)
{
	char *clean = utf8_clean(s);
	const unsigned char *p = (const unsigned char *)clean;
	size_t n = strlen(clean);

	for (size_t i = 0; i < n; ) {
		uint32_t cp;
		size_t len = utf8_decode(p + i, n - i, &cp);

		if (len == 0)
			cp = 0xfffd, len = 1;   /* utf8_clean left none; never loop */
		switch (cp) {
		case '&': buf_adds(b, "&amp;"); break;
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&apos;"); break;
		case '\t': case '\n': case '\r': buf_add(b, p + i, len); break;
		default:
			if (cp < 0x20 || cp == 0x7f)
				buf_adds(b, "\xef\xbf\xbd");
			else if (unsafe_codepoint(cp) || cp == 0xfffe || cp == 0xffff)
				buf_printf(b, "\\u%04x", (unsigned)cp);
			else
				buf_add(b, p + i, len);
		}
		i += len;
	}
	free(clean);
}

static void
xml_attr(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, " %s=\"", name);
	xml_text(b, value);
	buf_adds(b, "\"");
}

/* Seconds between two ISO 8601 times, 0 when either is missing. */
static double
seconds_between(const char *a, const char *b)
{
	int64_t ma, mb;
	struct aerr err;

	if (a == NULL || b == NULL || parse_time(a, &ma, &err) != 0 || parse_time(b, &mb, &err) != 0)
		return 0;
	return mb > ma ? (double)(mb - ma) / 1000 : 0;
}

/* A failed probe's <failure>: typed by its worst finding, each finding a line. */
static void
junit_failure(struct buf *b, const struct probe_result *p)
{
	const struct finding *worst = probe_result_worst(p);
	const char *reason = p->reason;
	struct buf body;

	buf_init(&body);
	for (size_t k = 0; k < p->nfindings; k++) {
		const struct finding *f = &p->findings[k];

		buf_printf(&body, "[%s] %s: %s (evidence", f->severity, f->code, f->message ? f->message : "");
		for (size_t e = 0; e < f->nevidence; e++)
			buf_printf(&body, " %lld", (long long)f->evidence[e]);
		buf_adds(&body, ")\n");
	}
	buf_adds(b, "      <failure");
	if (worst != NULL) {
		char *m = xasprintf("%s (%s): %s", worst->code, worst->severity, reason ? reason : "");

		xml_attr(b, "type", worst->code);
		xml_attr(b, "message", m);
		free(m);
	} else {
		xml_attr(b, "type", "fail");
		xml_attr(b, "message", reason);
	}
	buf_adds(b, ">");
	xml_text(b, body.data);
	buf_adds(b, "</failure>\n");
	buf_free(&body);
}

static void
junit_suite(struct buf *b, const struct probe_run *run, int *tests, int *failures, int *errors,
    int *skipped, double *time)
{
	const char *endpoint = run->endpoint ? run->endpoint : "";
	const char *started = run->started_at;
	int t = 0, fl = 0, er = 0, sk = 0;
	double secs = seconds_between(started, run->finished_at);
	char stamp[20] = "", num[32], *cls;

	for (size_t i = 0; i < run->nprobes; i++) {
		const char *v = run->probes[i].verdict ? run->probes[i].verdict : "";

		t++;
		fl += strcmp(v, "fail") == 0;
		er += strcmp(v, "error") == 0;
		sk += strcmp(v, "inconclusive") == 0;
	}
	/* JUnit's timestamp is ISO 8601 without a zone; ours are UTC. */
	if (started != NULL)
		snprintf(stamp, sizeof stamp, "%.19s", started);
	buf_adds(b, "  <testsuite");
	xml_attr(b, "name", endpoint);
	snprintf(num, sizeof num, "%lld", (long long)run->id);
	xml_attr(b, "id", num);
	buf_printf(b, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
	    t, fl, er, sk, secs);
	if (stamp[0])
		xml_attr(b, "timestamp", stamp);
	buf_adds(b, " hostname=\"aivet\">\n    <properties>\n");
	buf_adds(b, "      <property name=\"aivet.run\"");
	xml_attr(b, "value", num);
	buf_adds(b, "/>\n      <property name=\"aivet.status\"");
	xml_attr(b, "value", run->status);
	buf_adds(b, "/>\n    </properties>\n");
	cls = xasprintf("aivet.%s", endpoint);
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct probe_result *p = &run->probes[i];
		const char *v = p->verdict ? p->verdict : "", *reason = p->reason;

		buf_adds(b, "    <testcase");
		xml_attr(b, "classname", cls);
		xml_attr(b, "name", p->name);
		buf_adds(b, ">\n");
		if (strcmp(v, "fail") == 0) {
			junit_failure(b, p);
		} else if (strcmp(v, "error") == 0) {
			buf_adds(b, "      <error type=\"error\"");
			xml_attr(b, "message", reason);
			buf_adds(b, "/>\n");
		} else if (strcmp(v, "inconclusive") == 0) {
			buf_adds(b, "      <skipped");
			xml_attr(b, "message", reason);
			buf_adds(b, "/>\n");
		}
		if (reason != NULL) {
			buf_adds(b, "      <system-out>");
			xml_text(b, reason);
			buf_adds(b, "</system-out>\n");
		}
		buf_adds(b, "    </testcase>\n");
	}
	free(cls);
	buf_adds(b, "  </testsuite>\n");
	*tests += t, *failures += fl, *errors += er, *skipped += sk, *time += secs;
}

char *
runs_junit(const struct probe_run *runs, size_t n)
{
	struct buf b, suites;
	int t = 0, f = 0, e = 0, s = 0;
	double secs = 0;

	buf_init(&suites);
	for (size_t i = 0; i < n; i++)
		junit_suite(&suites, &runs[i], &t, &f, &e, &s, &secs);
	buf_init(&b);
	buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_printf(&b, "<testsuites name=\"aivet\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
	    "skipped=\"%d\" time=\"%.3f\">\n", t, f, e, s, secs);
	buf_add(&b, suites.data, suites.len);
	buf_adds(&b, "</testsuites>\n");
	buf_free(&suites);
	return buf_steal(&b);
}

/* Appends a JSON document to b and frees it. */
static void
json_text(struct buf *b, cJSON *v)
{
	char *s = cJSON_Print(v);

	if (s == NULL)
		die("out of memory");
	buf_printf(b, "%s\n", s);
	free(s);
	cJSON_Delete(v);
}

void
run_format_render(struct buf *b, const struct probe_run *runs, size_t n, int one, cJSON *const *compare,
    int fmt)
{
	if (fmt == RUN_FMT_JSON) {
		cJSON *arr = one ? NULL : cJSON_CreateArray();

		for (size_t i = 0; i < n; i++) {
			cJSON *o = probe_run_to_json(&runs[i]);

			if (compare != NULL && compare[i] != NULL)
				cJSON_AddItemToObject(o, "compare_last", cJSON_Duplicate(compare[i], 1));
			if (one) {
				json_text(b, o);
				return;
			}
			cJSON_AddItemToArray(arr, o);
		}
		json_text(b, arr);
	} else if (fmt == RUN_FMT_SARIF) {
		json_text(b, runs_sarif(runs, n));
	} else if (fmt == RUN_FMT_JUNIT) {
		char *s = runs_junit(runs, n);

		buf_adds(b, s);
		free(s);
	} else {
		struct buf t;
		char *safe;

		buf_init(&t);
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				buf_adds(&t, "\n");
			probe_run_text(&t, &runs[i]);
		}
		/* Safe for a terminal as it stands: the caller prints it as it is. */
		safe = text_escape(t.data ? t.data : "", t.len, 1);
		buf_adds(b, safe);
		free(safe);
		buf_free(&t);
	}
}
