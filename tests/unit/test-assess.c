/*
 * test-assess.c: the pieces of questionnaires and assessments that are
 * tables of cases — the JSON position locator, durations, typed answers and
 * their risk, the claim rule reports rely on, the bundled questionnaires'
 * contract — and, against a real SQLite file, scoring with depends_on and the
 * vendor's notification SLA.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "assess.h"
#include "claims.h"
#include "rating.h"
#include "vendor.h"
#include "jsonpos.h"
#include "../lib/tap.h"

static void
test_locator(void)
{
	static const char text[] = "{\n\t\"a\": [1, {\"b\": \"x\"}],\n  \"c\": true, \"é\": null,\n"
	    "  \"d\": {\"e\": -1.5e3, \"f\": \"q\\\"\"}, \"g\": false\n}";
	cJSON *root = cJSON_Parse(text);
	const cJSON *a = cJSON_GetObjectItem(root, "a");
	const cJSON *d = cJSON_GetObjectItem(root, "d");
	static const struct {
		const char *what;
		int at_key, line, col;
	} want[] = {
		{ "a[1].b value", 0, 2, 17 }, { "a[1].b key", 1, 2, 12 }, { "c value", 0, 3, 8 },
		{ "é value (columns count characters)", 0, 3, 19 }, { "d.f value", 0, 4, 27 },
		{ "g key after an escaped quote", 1, 4, 35 }, { "root", 0, 1, 1 }, { "a[0]", 0, 2, 8 },
	};
	const cJSON *nodes[8];
	size_t off;
	int line, col;

	nodes[0] = cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "b");
	nodes[1] = nodes[0];
	nodes[2] = cJSON_GetObjectItem(root, "c");
	nodes[3] = cJSON_GetArrayItem(root, 2);
	nodes[4] = cJSON_GetObjectItem(d, "f");
	nodes[5] = cJSON_GetObjectItem(root, "g");
	nodes[6] = root;
	nodes[7] = cJSON_GetArrayItem(a, 0);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		ok(json_locate(text, strlen(text), root, nodes[i], want[i].at_key, &off) == 0,
		    "locate %s", want[i].what);
		text_line_col(text, off, &line, &col);
		ok(line == want[i].line && col == want[i].col, "%s at %d:%d (got %d:%d)", want[i].what,
		    want[i].line, want[i].col, line, col);
	}
	{
		cJSON *other = cJSON_CreateNull();

		ok(json_locate(text, strlen(text), root, other, 0, &off) == -1,
		    "a node from another tree is not found");
		cJSON_Delete(other);
	}
	/* A tree that does not match the text: no position, no crash. */
	ok(json_locate("{\"a\": 1}", 8, root, nodes[4], 0, &off) == -1, "mismatched text: not found");
	cJSON_Delete(root);
}

static void
test_durations(void)
{
	static const struct {
		const char *s;
		int64_t secs;   /* -1: refused */
	} cases[] = {
		{ "24h", 86400 }, { "5d", 432000 }, { "90m", 5400 }, { "2w", 1209600 }, { "0h", 0 },
		{ "60d", 5184000 }, { "", -1 }, { "h", -1 }, { "24", -1 }, { "24H", -1 }, { "1y", -1 },
		{ "-1d", -1 }, { "2 d", -1 }, { "24hh", -1 }, { "1234567890d", -1 }, { "P5D", -1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t s = -7;
		int rc = duration_seconds(cases[i].s, &s);

		if (cases[i].secs < 0)
			is_int(rc, -1, "duration '%s' is refused", cases[i].s);
		else
			ok(rc == 0 && s == cases[i].secs, "duration '%s' = %lld s (got %lld)", cases[i].s,
			    (long long)cases[i].secs, (long long)s);
	}
}

/* The scoring test questionnaire from tests/data, and its text in *text when asked. */
static struct questionnaire *
scoring_questionnaire(struct buf *text)
{
	struct aerr err = { 0 };
	struct questionnaire *q = NULL;
	struct buf b;
	char *path = xasprintf("%s/data/scoring-questionnaire.json", getenv("TESTS_SRCDIR") ?
	    getenv("TESTS_SRCDIR") : "tests");

	if (read_file(path, 1 << 20, &b, &err) != 0 ||
	    questionnaire_parse(path, b.data, b.len, &q, &err) != 0) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	if (text != NULL)
		*text = b;
	else
		buf_free(&b);
	free(path);
	return q;
}

static void
test_answers(void)
{
	struct questionnaire *q = scoring_questionnaire(NULL);
	static const struct {
		const char *question, *typed, *stored;   /* stored NULL: refused with message */
		const char *risk_or_msg;
	} cases[] = {
		{ "gate", "yes", "\"yes\"", "low" },
		{ "gate", " No ", "\"no\"", "none" },
		{ "gate", "y", NULL, "'y' is not one of yes, no" },
		{ "detail", "bad", "\"bad\"", "critical" },
		{ "channels", "c,a,c", "[\"a\",\"c\"]", "high" },
		{ "channels", "", "[]", "none" },
		{ "channels", "a,,b", "[\"a\",\"b\"]", "medium" },
		{ "channels", "a;b", NULL, "'a;b' is not one of a, b, c" },
		{ "tokens", "999", "999", "high" },
		{ "tokens", "1000", "1000", "high" },
		{ "tokens", "1000.5", "1000.5", "low" },
		{ "tokens", "100001", "100001", "none" },
		{ "tokens", "1e3", "1000", "high" },
		{ "tokens", "12 tokens", NULL, "'12 tokens' is not a number" },
		{ "tokens", "inf", NULL, "'inf' is not a number" },
		{ "notify", "24h", "\"24h\"", "none" },
		{ "notify", "1d", "\"1d\"", "none" },
		{ "notify", "25h", "\"25h\"", "medium" },
		{ "notify", "1w", "\"1w\"", "medium" },
		{ "notify", "8d", "\"8d\"", "critical" },
		{ "notify", "tomorrow", NULL, "'tomorrow' is not a duration like 24h or 5d (units m, h, d, w)" },
		{ "since", "2024-02-29", "\"2024-02-29\"", "none" },
		{ "since", "2023-02-29", NULL, "'2023-02-29' is not a date (YYYY-MM-DD)" },
		{ "since", "2024-2-1", NULL, "'2024-2-1' is not a date (YYYY-MM-DD)" },
		{ "deeper", "  keeps its spaces ", "\"  keeps its spaces \"", "none" },
		{ "deeper", " ", NULL, "the answer is empty" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct q_question *qq = &q->questions[questionnaire_find(q, cases[i].question)];
		struct aerr err = { 0 };
		cJSON *v = NULL;
		int rc = answer_from_text(qq, cases[i].typed, &v, &err);

		if (cases[i].stored == NULL) {
			ok(rc == AV_USAGE && v == NULL, "%s '%s' refused", cases[i].question, cases[i].typed);
			is_str(err.msg, cases[i].risk_or_msg, "%s '%s': message", cases[i].question, cases[i].typed);
		} else {
			char *json = v ? cJSON_PrintUnformatted(v) : NULL;

			is_str(json, cases[i].stored, "%s '%s' stored as %s", cases[i].question, cases[i].typed,
			    cases[i].stored);
			is_str(risk_name(answer_risk(qq, v)), cases[i].risk_or_msg, "%s '%s': risk %s",
			    cases[i].question, cases[i].typed, cases[i].risk_or_msg);
			free(json);
		}
		cJSON_Delete(v);
	}
	questionnaire_free(q);
}

/* answer_chose(): what the assessment screen marks as picked, for a one-of
 * answer, a many-of answer and none. */
static void
test_answer_chose(void)
{
	struct questionnaire *q = scoring_questionnaire(NULL);
	const struct q_question *gate = &q->questions[questionnaire_find(q, "gate")];
	const struct q_question *channels = &q->questions[questionnaire_find(q, "channels")];
	struct aerr err = { 0 };
	cJSON *one = NULL, *many = NULL, *none = NULL;
	char got[16];
	size_t n;

	if (answer_from_text(gate, "yes", &one, &err) != 0 || answer_from_text(channels, "c,a", &many, &err) != 0 ||
	    answer_from_text(channels, "", &none, &err) != 0) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	is_int(answer_chose(one, "yes"), 1, "one-of 'yes' chose yes");
	is_int(answer_chose(one, "no"), 0, "one-of 'yes' did not choose no");
	n = 0;
	for (int i = 0; i < channels->nchoices; i++)
		if (answer_chose(many, channels->choices[i].value) && n + 2 < sizeof got)
			n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", n ? "," : "", channels->choices[i].value);
	got[n] = '\0';
	is_str(got, "a,c", "many-of 'c,a' chose a and c, not b");
	is_int(answer_chose(none, "a"), 0, "an empty many-of answer chose nothing");
	is_int(answer_chose(NULL, "a"), 0, "no answer chose nothing");
	is_int(answer_chose(many, NULL), 0, "no choice is never chosen");
	cJSON_Delete(one);
	cJSON_Delete(many);
	cJSON_Delete(none);
	questionnaire_free(q);
}

/* The claim rules of claims.c, each case named by the rule it pins down. */
static const char claims_doc[] =
    "{\"id\":\"t\",\"version\":1,\"title\":\"T\",\"sections\":[{\"id\":\"s\",\"title\":\"S\",\"questions\":["
    "{\"id\":\"over_limit_behaviour\",\"text\":\"q\",\"type\":\"single_choice\",\"choices\":["
    "{\"value\":\"error\",\"risk\":\"none\"},{\"value\":\"truncate\",\"risk\":\"high\"}],"
    "\"verified_by\":[{\"probe\":\"oversize\",\"confirms\":\"error\"},{\"probe\":\"sweep\",\"confirms\":\"error\"}]},"
    "{\"id\":\"kv_cache_scope\",\"text\":\"q\",\"type\":\"single_choice\",\"choices\":["
    "{\"value\":\"per_tenant\",\"risk\":\"none\"},{\"value\":\"shared\",\"risk\":\"high\"}],"
    "\"verified_by\":[{\"probe\":\"canary\",\"confirms\":[\"per_tenant\"],\"tenants\":2}]},"
    "{\"id\":\"guaranteed_context_tokens\",\"text\":\"q\",\"type\":\"number\",\"unit\":\"tokens\","
    "\"measured_by\":{\"probe\":\"sweep\",\"value\":\"integrity_boundary\",\"tolerance\":0.01}},"
    "{\"id\":\"truncation_signalled\",\"text\":\"q\",\"type\":\"yes_no\",\"choices\":["
    "{\"value\":\"yes\",\"risk\":\"none\"},{\"value\":\"no\",\"risk\":\"high\"}],\"claim\":\"yes\"}"
    "]}]}";

/* runs: "STATUS probe=verdict ... probe:CODE ...;" per run (oldest first); sweep's
 * details are {integrity_boundary: B} for "b=B", or change none up to T for "top=T".
 * A finding is raised by the run's result of its probe. */
static void
claims_sweep_details(struct probe_result *sweep, const char *w)
{
	cJSON *d = sweep->details = cJSON_CreateObject();

	if (w[0] == 'b') {
		cJSON_AddNumberToObject(d, "integrity_boundary", atof(w + 2));
		cJSON_AddStringToObject(d, "change", "silent_degradation");
	} else {
		cJSON *pt = cJSON_CreateObject();

		cJSON_AddNullToObject(d, "integrity_boundary");
		cJSON_AddStringToObject(d, "change", "none");
		cJSON_AddNumberToObject(pt, "tokens_sent", atof(w + 4));
		cJSON_AddTrueToObject(pt, "accepted");
		/* Content intact: every nonce came back. */
		cJSON_AddNumberToObject(pt, "nonces_echoed", 12);
		cJSON_AddNumberToObject(pt, "nonces_total", 12);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "points"), pt);
	}
	probe_result_details_read(sweep);   /* as a loaded result is: its typed members from details */
}

static void
claims_finding(struct probe_run *r, const char *probe, const char *code, int64_t id)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_result *p = &r->probes[i];

		if (strcmp(p->name, probe) != 0)
			continue;
		p->findings = xrealloc(p->findings, (p->nfindings + 1) * sizeof *p->findings);
		p->findings[p->nfindings] = (struct finding){ .id = id, .code = xstrdup(code),
		    .severity = xstrdup("high"), .message = xstrdup("m"),
		    .evidence = xmalloc(sizeof(int64_t)), .nevidence = 1 };
		p->findings[p->nfindings++].evidence[0] = 7;
	}
}

static void
claims_runs(const char *spec, int tenants, struct claim_evidence *ev)
{
	char *copy = xstrdup(spec), *save = NULL;
	int id = 0;

	memset(ev, 0, sizeof *ev);
	ev->endpoints = xcalloc(1, sizeof *ev->endpoints);
	ev->endpoints[0] = (struct claim_endpoint){ .name = xstrdup("V/e"), .tenants = tenants };
	ev->nendpoints = 1;
	for (char *run = strtok_r(copy, ";", &save); run != NULL; run = strtok_r(NULL, ";", &save)) {
		struct probe_run *r;
		char *s2 = NULL;
		int first = 1;

		ev->runs.items = xrealloc(ev->runs.items, (ev->runs.n + 1) * sizeof *ev->runs.items);
		r = &ev->runs.items[ev->runs.n++];
		*r = (struct probe_run){ .id = ++id, .endpoint = xstrdup("V/e") };
		for (char *w = strtok_r(run, " ", &s2); w != NULL; w = strtok_r(NULL, " ", &s2)) {
			char *eq = strchr(w, '='), *colon = strchr(w, ':');

			if (first) {
				r->status = xstrdup(w);
				first = 0;
			} else if (strncmp(w, "b=", 2) == 0 || strncmp(w, "top=", 4) == 0) {
				for (size_t i = 0; i < r->nprobes; i++)
					if (strcmp(r->probes[i].name, "sweep") == 0)
						claims_sweep_details(&r->probes[i], w);
			} else if (eq != NULL) {
				*eq = '\0';
				r->probes = xrealloc(r->probes, (r->nprobes + 1) * sizeof *r->probes);
				r->probes[r->nprobes++] = (struct probe_result){ .name = xstrdup(w),
				    .verdict = xstrdup(eq + 1), .reason = xstrdup("why") };
			} else if (colon != NULL) {
				*colon = '\0';
				claims_finding(r, w, colon + 1, 100 + id);
			}
		}
	}
	free(copy);
}

static void
test_claims(void)
{
	static const struct {
		const char *rule, *question, *answer, *runs;
		int tenants;
		const char *want, *reason;
	} cases[] = {
		{ "every testing probe passed, nothing contradicts", "over_limit_behaviour", "\"error\"",
		  "completed oversize=pass sweep=pass", 1, "confirmed",
		  "probe oversize passed; probe sweep passed, and no finding contradicts it" },
		{ "a registry finding disproves the claim", "over_limit_behaviour", "\"error\"",
		  "completed oversize=pass sweep=fail sweep:PLACEHOLDER_SUBSTITUTION", 1, "contradicted",
		  "PLACEHOLDER_SUBSTITUTION in run 1 (sweep)" },
		{ "a finding contradicts even when every testing probe passed", "over_limit_behaviour",
		  "\"error\"", "completed oversize=pass sweep=pass canary=fail canary:PLACEHOLDER_SUBSTITUTION", 1,
		  "contradicted", "PLACEHOLDER_SUBSTITUTION in run 1 (canary)" },
		{ "an unrelated finding does not contradict", "over_limit_behaviour", "\"error\"",
		  "completed oversize=pass sweep=pass canary=fail canary:LEAK_CROSS_TENANT", 1, "confirmed", NULL },
		{ "an inconclusive probe leaves the claim untested", "over_limit_behaviour", "\"error\"",
		  "completed oversize=inconclusive sweep=pass", 1, "untested", "probe oversize ended inconclusive "
		  "in run 1: why" },
		{ "every testing probe must have run", "over_limit_behaviour", "\"error\"",
		  "completed oversize=pass", 1, "untested", "probe sweep has no completed run on V/e" },
		{ "only completed runs count", "over_limit_behaviour", "\"error\"",
		  "interrupted oversize=pass sweep=pass", 1, "untested", NULL },
		{ "the newest completed result is judged", "over_limit_behaviour", "\"error\"",
		  "completed sweep=fail sweep:SILENT_TRUNCATION;completed oversize=pass sweep=pass", 1, "confirmed",
		  NULL },
		{ "an admitted weakness shown by a finding is confirmed", "over_limit_behaviour", "\"truncate\"",
		  "completed oversize=pass sweep=fail sweep:SILENT_TRUNCATION", 1, "confirmed", NULL },
		{ "an admitted weakness is never disproved by passes", "over_limit_behaviour", "\"truncate\"",
		  "completed oversize=pass sweep=pass", 1, "untested", NULL },
		{ "tenant isolation needs two credentials", "kv_cache_scope", "\"per_tenant\"",
		  "completed canary=pass", 1, "untested", "probe canary passed with 1 credential; a pass confirms "
		  "this only with 2 or more" },
		{ "tenant isolation with two credentials, a canary at depth verify", "kv_cache_scope",
		  "\"per_tenant\"", "completed canary=pass", 2, "consistent", NULL },
		{ "a cross-tenant leak disproves a tenant scope", "kv_cache_scope", "\"per_tenant\"",
		  "completed canary=fail canary:LEAK_CROSS_TENANT", 2, "contradicted", NULL },
		{ "a measurement under the number contradicts it", "guaranteed_context_tokens", "131072",
		  "completed sweep=pass b=81883", 1, "contradicted",
		  "integrity_boundary measured 81883, under the answered 131072" },
		{ "a measurement within the tolerance confirms", "guaranteed_context_tokens", "131072",
		  "completed sweep=pass b=130000", 1, "confirmed", NULL },
		{ "a measurement just past the tolerance contradicts", "guaranteed_context_tokens", "131072",
		  "completed sweep=pass b=129700", 1, "contradicted", NULL },
		{ "no limit found below the number leaves it untested", "guaranteed_context_tokens", "131072",
		  "completed sweep=pass top=127000", 1, "untested",
		  "probe sweep found content intact up to 127000 tokens, below the answered 131072" },
		{ "no limit found within the tolerance of the number confirms", "guaranteed_context_tokens",
		  "131072", "completed sweep=pass top=130000", 1, "confirmed", NULL },
		{ "no limit found above the number confirms", "guaranteed_context_tokens", "100000",
		  "completed sweep=pass top=127000", 1, "confirmed", NULL },
		{ "an inconclusive measurement is no measurement", "guaranteed_context_tokens", "100000",
		  "completed sweep=inconclusive b=1000", 1, "untested", NULL },
		{ "a claim only findings can test is contradicted by one", "truncation_signalled", "\"yes\"",
		  "completed sweep=fail sweep:SILENT_TRUNCATION", 1, "contradicted", NULL },
		/* Nothing judged: no run at all, or a completed run whose probes all ended in
		 * error. Nothing is confirmed, nor contradicted, on evidence never judged. */
		{ "no run: nothing judged, nothing confirmed", "over_limit_behaviour", "\"error\"", "", 1,
		  "untested", "probe oversize has no completed run on V/e" },
		{ "no run: a tenant scope is not confirmed by silence", "kv_cache_scope", "\"per_tenant\"", "",
		  2, "untested", NULL },
		{ "no run: a measured number is untested", "guaranteed_context_tokens", "131072", "", 1,
		  "untested", NULL },
		{ "no run: a claim only findings can test is untested", "truncation_signalled", "\"yes\"", "",
		  1, "untested", NULL },
		{ "probes in error judged nothing", "over_limit_behaviour", "\"error\"",
		  "completed oversize=error sweep=error", 1, "untested", NULL },
		{ "a probe in error measured nothing", "guaranteed_context_tokens", "131072",
		  "completed sweep=error b=1000", 1, "untested", NULL },
		{ "a claim only findings can test is never confirmed", "truncation_signalled", "\"yes\"",
		  "completed sweep=pass", 1, "untested", "no probe can confirm this answer; none of the findings "
		  "that would contradict it was raised" },
	};
	struct questionnaire *q;
	struct aerr err = { 0 };

	if (questionnaire_parse("claims", claims_doc, strlen(claims_doc), &q, &err) != 0) {
		ok(0, "claims questionnaire: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const cJSON **values = xcalloc((size_t)q->nquestions, sizeof *values);
		cJSON *answer = cJSON_Parse(cases[i].answer);
		int qi = questionnaire_find(q, cases[i].question);
		struct claim_evidence ev;
		struct claim_list out;

		if (qi >= 0)
			values[qi] = answer;
		claims_runs(cases[i].runs, cases[i].tenants, &ev);
		claims_judge(q, values, &ev, &out);
		ok(out.n == 1, "%s: one claim", cases[i].rule);
		is_str(out.n ? claim_status_name(out.items[0].status) : NULL, cases[i].want, "%s: %s",
		    cases[i].rule, cases[i].want);
		if (cases[i].reason != NULL)
			is_str(out.n ? out.items[0].reason : NULL, cases[i].reason, "%s: the reason", cases[i].rule);
		claim_list_free(&out);
		claim_evidence_free(&ev);
		cJSON_Delete(answer);
		free(values);
	}
	questionnaire_free(q);
}

/* A claim's status names itself in every output by one function, in the
 * order the report's summary counts them; no claim has no word. */
static void
test_claim_status_names(void)
{
	static const char *const want[] = { "confirmed", "contradicted", "untested", "consistent" };

	ok(CLAIM_STATUS_COUNT == 4, "four claim statuses");
	for (int i = 0; i < CLAIM_STATUS_COUNT; i++)
		is_str(claim_status_name((enum claim_status)i), want[i], "claim status %d is %s", i, want[i]);
	ok(claim_status_name(CLAIM_NONE) == NULL, "no claim has no word");
	ok(claim_status_name(CLAIM_STATUS_COUNT) == NULL, "a value past the statuses has none");
}

/* What the probe engine, reports and incidents rely on in the bundled files. */
static void
test_bundled(void)
{
	int n = 0;

	for (const struct embedded_file *f = embedded_questionnaires; f->name != NULL; f++, n++) {
		struct aerr err = { 0 };
		struct questionnaire *q;
		int rc = questionnaire_parse(f->name, (const char *)f->data, f->len, &q, &err);

		is_int(rc, 0, "bundled %s is valid%s%s", f->name, rc ? ": " : "", rc ? err.msg : "");
		if (rc != 0)
			continue;
		if (strcmp(q->qid, "llm-inference-isolation") == 0) {
			int i = questionnaire_find(q, "exposure_notification_time");
			int o = questionnaire_find(q, "over_limit_behaviour");
			int k = questionnaire_find(q, "kv_cache_scope");

			ok(i >= 0 && q->questions[i].type == QT_DURATION && q->questions[i].required,
			    "exposure_notification_time: a required duration");
			ok(o >= 0 && q->questions[o].nchecks == 2 &&
			    strcmp(q->questions[o].checks[0].probe, "oversize") == 0 &&
			    strcmp(q->questions[o].checks[1].probe, "sweep") == 0 &&
			    strcmp(q->questions[o].checks[0].confirms->valuestring, "error") == 0,
			    "over_limit_behaviour verified by oversize and sweep, confirming error");
			ok(k >= 0 && q->questions[k].nchecks == 2 &&
			    strcmp(q->questions[k].checks[0].probe, "canary") == 0 &&
			    strcmp(q->questions[k].checks[1].probe, "prefix-timing") == 0,
			    "kv_cache_scope verified by canary and prefix-timing");
			ok(q->nquestions >= 20, "llm-inference-isolation goes deeper than five questions (%d)",
			    q->nquestions);
		} else if (strcmp(q->qid, "hipaa-ai-vendor") == 0) {
			int i = questionnaire_find(q, "breach_notification_time");
			struct aerr e = { 0 };
			cJSON *v = NULL;

			ok(i >= 0 && q->questions[i].type == QT_DURATION && q->questions[i].required,
			    "breach_notification_time: a required duration");
			/* HIPAA's outer limit is 60 days from discovery: beyond it is critical. */
			answer_from_text(&q->questions[i], "61d", &v, &e);
			is_str(risk_name(answer_risk(&q->questions[i], v)), "critical", "61d breach notice: critical");
			cJSON_Delete(v);
			answer_from_text(&q->questions[i], "60d", &v, &e);
			is_str(risk_name(answer_risk(&q->questions[i], v)), "high", "60d: high");
			cJSON_Delete(v);
		}
		questionnaire_free(q);
	}
	is_int(n, 2, "two questionnaires are bundled");
}

static char dir[] = "/tmp/aivet-test-assess.XXXXXX";

static void
test_database(void)
{
	struct aerr err = { 0 };
	struct buf text;
	struct questionnaire *q = scoring_questionnaire(&text);
	struct assessment *a;
	struct assessment_score s;
	char *path = xasprintf("%s/db.sqlite", dir), src[160];
	int64_t row, id, secs;
	struct db *db;
	int changed;
	static const struct {
		const char *question, *typed;
		const char *worst, *rating;
		double score;
		int asked, unanswered;
	} steps[] = {
		/* The rating rule (rating.c): unacceptable first, then incomplete, then concerns. */
		{ NULL, NULL, "none", "incomplete", 0, 6, 2 },
		{ "gate", "yes", "low", "incomplete", 25, 7, 2 },
		{ "detail", "bad", "critical", "unacceptable", 50, 8, 2 },
		{ "deeper", "why", "critical", "unacceptable", 37.5, 8, 1 },
		{ "detail", "fine", "low", "incomplete", 16.7, 7, 1 },
		{ "notify", "3d", "medium", "concerns", 33.3, 7, 0 },
		{ "gate", "no", "medium", "concerns", 30, 6, 0 },
		{ "notify", "24h", "none", "acceptable", 0, 6, 0 },
		{ "notify", "8d", "critical", "unacceptable", 60, 6, 0 },
	};

	if (db_open(path, &db, &err) != 0 || questionnaires_sync(db, "tester", &err) != 0 ||
	    db_exec(db, &err, "INSERT INTO vendor (name, created_at, updated_at) VALUES ('acme', 'x', 'x')",
	    NULL) != 0 || db_begin(db, &err) != 0 ||
	    questionnaire_store(db, "tester", q, text.data, text.len, &row, &err) != 0 ||
	    db_commit(db, &err) != 0) {
		printf("# setup: %s\n", err.msg);
		exit(99);
	}
	buf_free(&text);
	is_int(assessment_start(db, "tester", 1, row, &id, &err), 0, "assessment started");
	is_int(assessment_load(db, id, &a, &err), 0, "and loaded");
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (steps[i].question != NULL) {
			int qi = questionnaire_find(a->q, steps[i].question);
			cJSON *v = NULL;

			answer_from_text(&a->q->questions[qi], steps[i].typed, &v, &err);
			db_begin(db, &err);
			is_int(assessment_set_answer(db, "tester", a, qi, v, 0, NULL, NULL, 0, NULL, &changed,
			    &err), 0, "%s = %s", steps[i].question, steps[i].typed);
			db_commit(db, &err);
			cJSON_Delete(v);
		}
		assessment_score(a, NULL, &s);
		is_str(risk_name(s.worst_risk), steps[i].worst, "step %zu: worst risk %s", i, steps[i].worst);
		is_str(rating_name(s.rating), steps[i].rating, "step %zu: rating %s", i, steps[i].rating);
		ok(s.risk_score == steps[i].score, "step %zu: score %.1f (got %.1f)", i, steps[i].score,
		    s.risk_score);
		is_int(s.asked, steps[i].asked, "step %zu: %d asked", i, steps[i].asked);
		is_int(s.unanswered_required, steps[i].unanswered, "step %zu: %d required unanswered", i,
		    steps[i].unanswered);
	}
	assessment_free(a);

	/* The notification SLA: assessments of the bundled questionnaires. */
	is_int(vendor_notification_sla(db, 1, &secs, src, sizeof src, &err), 1, "no answers: no SLA");
	{
		int64_t llm, hipaa, draft;
		const struct {
			int64_t *id;
			const char *qref, *question, *value;
			int final;
		} rounds[] = {
			{ &llm, "llm-inference-isolation", "exposure_notification_time", "72h", 1 },
			{ &draft, "llm-inference-isolation", "exposure_notification_time", "1h", 0 },
			{ &hipaa, "hipaa-ai-vendor", "breach_notification_time", "5d", 1 },
		};

		for (size_t i = 0; i < 3; i++) {
			int qi;
			cJSON *v = NULL;

			questionnaire_lookup(db, rounds[i].qref, &row, &err);
			/* One round at a time: the draft after a final round is its next round. */
			if (rounds[i].id == &draft ? assessment_reopen(db, "tester", llm, rounds[i].id, &err) :
			    assessment_start(db, "tester", 1, row, rounds[i].id, &err)) {
				printf("# setup: %s\n", err.msg);
				exit(99);
			}
			assessment_load(db, *rounds[i].id, &a, &err);
			qi = questionnaire_find(a->q, rounds[i].question);
			answer_from_text(&a->q->questions[qi], rounds[i].value, &v, &err);
			db_begin(db, &err);
			assessment_set_answer(db, "alice", a, qi, v, 0, NULL, NULL, 0, NULL, &changed, &err);
			db_commit(db, &err);
			cJSON_Delete(v);
			assessment_free(a);
			if (rounds[i].final) {
				/* Required questions stay open here, which submit refuses:
				 * review and finish the round directly in the database. */
				db_exec(db, &err, "UPDATE assessment SET status = 'in_review', "
				    "submitted_at = '2026-01-01T00:00:00.000Z' WHERE id = ?", "i", *rounds[i].id);
				db_exec(db, &err, "UPDATE assessment SET status = 'final', reviewer = 'rita', "
				    "approved_at = '2026-01-01T00:00:00.000Z' WHERE id = ?", "i", *rounds[i].id);
			}
		}
		is_int(vendor_notification_sla(db, 1, &secs, src, sizeof src, &err), 0, "SLA found");
		is_int(secs, 72 * 3600, "final rounds count before a newer draft; the shorter wins: 72h");
		is_str(src, "assessment 2, llm-inference-isolation exposure_notification_time", "source named");
		(void)hipaa;
		(void)draft;
	}
	db_close(db);
	free(path);
	questionnaire_free(q);
}

int
main(void)
{
	if (sodium_init() < 0 || mkdtemp(dir) == NULL)
		return 99;
	unsetenv("AIVET_NOW");
	test_locator();
	test_durations();
	test_answers();
	test_answer_chose();
	test_claims();
	test_claim_status_names();
	test_bundled();
	test_database();
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
		free(cmd);
	}
	return tap_done();
}
