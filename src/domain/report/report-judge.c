/*
 * report-judge.c: the report's judgement of the vendor from the record
 * report_collect gathered: claims judged on the runs and endpoints, each
 * round's answers rated as 'assess show' rates them, the verdict and rating
 * on the vendor, and the summary with the open findings, most severe first,
 * and the contradicted claims.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "assess.h"
#include "claims.h"
#include "rating.h"
#include "report.h"
#include "report-doc.h"
#include "report-collect.h"

/* ---- judging: claims, ratings, open findings ---- */

/* The report's runs and endpoints as claims are judged on them: the runs'
 * results, each with the findings its probe raised and its details as
 * report_details_read read them. The strings are the record's (claim_view_free frees only what
 * the view made). */
static void
claim_view(struct report_doc *d, struct claim_evidence *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->runs.items = xcalloc(d->nruns + 1, sizeof *ev->runs.items);
	ev->runs.n = d->nruns;
	for (size_t i = 0; i < d->nruns; i++) {
		struct report_run *r = &d->runs[i];
		struct probe_run *p = &ev->runs.items[i];

		*p = (struct probe_run){ .id = r->id, .endpoint = r->endpoint,
		    .status = (char *)run_state_name(r->state), .state = r->state,
		    .depth = claims_plan_depth(r->plan), .nprobes = r->nresults,
		    .probes = xcalloc(r->nresults + 1, sizeof *p->probes) };
		for (size_t k = 0; k < r->nresults; k++) {
			struct probe_result *x = &p->probes[k];

			*x = r->results[k].read;
			x->verdict = (char *)probe_verdict_name(r->results[k].verdict);   /* a name: not freed */
			x->reason = r->results[k].reason;
			x->findings = xcalloc(r->nfindings + 1, sizeof *x->findings);
			for (size_t f = 0; f < r->nfindings; f++) {
				const struct report_finding *rf = &r->findings[f];

				if (rf->probe != NULL && x->name != NULL && strcmp(rf->probe, x->name) == 0)
					x->findings[x->nfindings++] = (struct finding){ .id = rf->id, .code = rf->code,
					    /* the engine's record holds the name; the view frees none of these */
					    .severity = (char *)severity_name(rf->severity), .message = rf->message,
					    .evidence = rf->evidence, .nevidence = rf->nevidence };
			}
		}
	}
	ev->endpoints = xcalloc(d->endpoints.n + 1, sizeof *ev->endpoints);
	ev->nendpoints = d->endpoints.n;
	for (size_t i = 0; i < d->endpoints.n; i++) {
		const struct endpoint *e = &d->endpoints.items[i];

		ev->endpoints[i] = (struct claim_endpoint){ .name = e->name,
		    .tenants = e->ncredentials > 1 ? (int)e->ncredentials : 1, .context = e->context_tokens };
	}
}

static void
claim_view_free(struct claim_evidence *ev)
{
	for (size_t i = 0; i < ev->runs.n; i++) {
		for (size_t k = 0; k < ev->runs.items[i].nprobes; k++)
			free(ev->runs.items[i].probes[k].findings);
		free(ev->runs.items[i].probes);
		free(ev->runs.items[i].depth);
	}
	free(ev->runs.items);
	free(ev->endpoints);
}

/* Each answer's risk as the rating counts it (stated_risk as the vendor's
 * answer states it) and its claim status, in assess show's words. */
static void
rate_answers(const struct assessment *l, const struct claim_list *claims, struct report_assessment *a)
{
	for (size_t i = 0; i < a->nanswers; i++) {
		struct report_answer *x = &a->answers[i];
		int qi = questionnaire_find(l->q, x->question_id);

		if (qi < 0 || l->answers[qi].value == NULL)
			continue;
		x->rated = 1;
		x->risk = (enum risk_level)assessment_answer_risk(l, qi, claims);
		x->stated_risk = (enum risk_level)answer_risk(&l->q->questions[qi], l->answers[qi].value);
		x->claim = assessment_claim_status(claims, x->question_id);
	}
}

/* The round scored on its claims as assess show names them: the report's claims
 * give the endpoint by name, assess show (and so contradicted_by and the
 * since_approval sentence, which vendor show and list repeat) VENDOR/ENDPOINT. */
static void
score_as_assess_show(const struct assessment *l, const struct claim_list *claims,
    struct assessment_score *sc)
{
	struct claim_list refs = { .items = xcalloc(claims->n + 1, sizeof *refs.items), .n = claims->n };

	for (size_t i = 0; i < claims->n; i++) {
		refs.items[i] = claims->items[i];
		if (claims->items[i].endpoint != NULL && l->vendor != NULL)
			refs.items[i].endpoint = xasprintf("%s/%s", l->vendor, claims->items[i].endpoint);
	}
	assessment_score(l, &refs, sc);
	for (size_t i = 0; i < refs.n; i++)
		if (refs.items[i].endpoint != claims->items[i].endpoint)
			free(refs.items[i].endpoint);
	free(refs.items);
}

/* A round rated as assess show rates it (assessment_score), its claims judged
 * on the report's runs, and those claims the report's. A contradicted claim is
 * counted as a claim, never as a finding: the findings are what the probes raised. */
static void
rate_assessment(const struct assessment *l, const struct claim_evidence *ev,
    struct report_assessment *a, struct claim_list *all)
{
	struct claim_list claims;
	struct assessment_score sc;

	assessment_claims_on(l, ev, &claims);
	score_as_assess_show(l, &claims, &sc);
	a->rating = sc.rating;
	a->risk_score = sc.risk_score;
	a->worst_risk = (enum risk_level)sc.worst_risk;
	a->unanswered_required = sc.unanswered_required;
	a->contradicted_claims = sc.contradicted;
	a->contradicted_by = sc.finding[0] ? xstrdup(sc.finding) : NULL;
	if ((a->has_approved_score = l->approved.known)) {
		char since[320];

		a->approved_rating = l->approved.rating;
		a->approved_risk_score = l->approved.score;
		assessment_since_approval(l, &sc, since, sizeof since);
		a->since_approval = xstrdup(since);
	}
	rate_answers(l, &claims, a);
	all->items = xrealloc(all->items, (all->n + claims.n + 1) * sizeof *all->items);
	for (size_t i = 0; i < claims.n; i++) {
		claims.items[i].assessment_id = a->id;
		all->items[all->n++] = claims.items[i];
	}
	free(claims.items);
}

/* The vendor's verdict on what the report holds: its rounds as the report
 * rated them and its runs, through the one rule (rating.c). */
static void
report_verdict(struct report_doc *d, const struct probe_run_list *runs, struct vendor_verdict *v)
{
	struct rated_round *r = xcalloc(d->nassessments + 1, sizeof *r);

	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *a = &d->assessments[i];

		/* What the round was approved at too: the summary's since_approval is
		 * the sentence vendor list and vendor show give. */
		r[i] = (struct rated_round){ .id = a->id, .round = a->round,
		    .qid = a->q_qid ? a->q_qid : "", .status = a->status,
		    .rating = a->rating, .score = a->risk_score,
		    .contradicted = (int)a->contradicted_claims, .contradicted_by = a->contradicted_by,
		    .approved = { .known = a->has_approved_score,
		    .rating = a->has_approved_score ? a->approved_rating : RATING_NOT_ASSESSED,
		    .score = a->approved_risk_score } };
	}
	vendor_verdict(r, (int)d->nassessments, runs, v);
	for (size_t i = 0; i < d->nassessments; i++)
		d->assessments[i].rating_reads = verdict_reads(r, (int)d->nassessments, (int)i);
	free(r);
}

void
report_claim_round(const struct report_doc *d, const struct claim *c, char *out, size_t n)
{
	snprintf(out, n, "-");
	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *a = &d->assessments[i];

		if (a->id == c->assessment_id)
			snprintf(out, n, "round %lld of assessment %lld (%s%s)", (long long)a->round,
			    (long long)a->id, assessment_status_name(a->status),
			    a->rating_reads ? "; the rating reads it" : "; the rating does not read it");
	}
}

/* Whether the rating reads the round a claim was judged in. */
static int
claim_rated(const struct report_doc *d, const struct claim *c)
{
	for (size_t i = 0; i < d->nassessments; i++)
		if (d->assessments[i].id == c->assessment_id)
			return d->assessments[i].rating_reads;
	return 0;
}

/* Claims and ratings judged once on the report's own runs, and each finding
 * open or superseded as the rating counts it. */
void
report_judge(struct report_doc *d, struct assessment **loaded)
{
	struct claim_evidence ev;

	claim_view(d, &ev);
	for (size_t i = 0; i < d->nassessments; i++)
		rate_assessment(loaded[i], &ev, &d->assessments[i], &d->claims);
	for (size_t i = 0; i < d->nruns; i++)
		for (size_t k = 0; k < d->runs[i].nfindings; k++) {
			struct report_finding *f = &d->runs[i].findings[k];

			f->open = claims_finding_open(&ev.runs, i, f->probe, &f->superseded_by_run);
		}
	report_verdict(d, &ev.runs, &d->summary.verdict);
	claim_view_free(&ev);
}

/* ---- the summary and the findings lists ---- */

static void
finding_copy(const struct report_finding *f, struct report_finding *out)
{
	*out = *f;
	out->probe = f->probe ? xstrdup(f->probe) : NULL;
	out->code = f->code ? xstrdup(f->code) : NULL;
	out->severity = f->severity;
	out->message = f->message ? xstrdup(f->message) : NULL;
	out->details = f->details ? cJSON_Duplicate(f->details, 1) : NULL;
	out->evidence = f->nevidence ? xmalloc(f->nevidence * sizeof *out->evidence) : NULL;
	if (f->nevidence)
		memcpy(out->evidence, f->evidence, f->nevidence * sizeof *out->evidence);
}

/* Findings, most severe first, then by run and id. */
static int
finding_cmp(const void *a, const void *b)
{
	const struct report_finding *x = a, *y = b;
	int d = (int)y->severity - (int)x->severity;
	int64_t xi = x->id ? x->id : INT64_MAX, yi = y->id ? y->id : INT64_MAX;

	if (d != 0)
		return d;
	if (xi != yi)
		return xi < yi ? -1 : 1;
	return strcmp(x->message ? x->message : "", y->message ? y->message : "");
}

/* The runs' findings that are open (open 1) or not (open 0), most severe first. */
static struct report_finding *
sorted_findings(const struct report_doc *d, int open, size_t *n)
{
	struct report_finding *v = NULL;

	*n = 0;
	for (size_t i = 0; i < d->nruns; i++)
		for (size_t k = 0; k < d->runs[i].nfindings; k++) {
			if (d->runs[i].findings[k].open != open)
				continue;
			v = report_grow(v, *n, sizeof *v);
			finding_copy(&d->runs[i].findings[k], &v[(*n)++]);
		}
	if (*n > 0)
		qsort(v, *n, sizeof *v, finding_cmp);   /* keys are unique: the order is total */
	return v;
}

void
report_summarise(struct report_doc *d)
{
	struct report_summary *s = &d->summary;

	d->findings = sorted_findings(d, 1, &d->nfindings);
	d->superseded = sorted_findings(d, 0, &d->nsuperseded);
	s->rating_rule = vendor_rating_rule;
	s->assessment_rating_rule = assessment_rating_rule;
	for (int i = 0; i < SEV_COUNT; i++)
		s->findings[i] = s->verdict.open[i];
	s->critical = xcalloc(d->nfindings + 1, sizeof *s->critical);
	for (size_t i = 0; i < d->nfindings; i++)
		if (d->findings[i].severity >= SEV_HIGH)
			s->critical[s->ncritical++] = i;
	/* A count beside the rating counts what the rating reads: the claims of
	 * the rounds it rests on, never a newer draft's beside them. */
	s->contradicted = xcalloc(d->claims.n + 1, sizeof *s->contradicted);
	for (size_t i = 0; i < d->claims.n; i++) {
		enum claim_status st = d->claims.items[i].status;

		if (!claim_rated(d, &d->claims.items[i])) {
			s->claims_contradicted_unrated += st == CLAIM_CONTRADICTED;
			continue;
		}
		s->claims[st]++;
		if (st == CLAIM_CONTRADICTED)
			s->contradicted[s->ncontradicted++] = i;
	}
}
