/*
 * rating.c: the rating scale and its two rules (rating.h). A known high or
 * critical risk is never hidden behind "incomplete": unacceptable comes
 * first, then missing answers, then medium risks.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "claims.h"
#include "finding.h"
#include "questionnaire.h"
#include "rating.h"

static const char *const names[RATING_COUNT] = {
	"not-assessed", "acceptable", "incomplete", "concerns", "unacceptable",
};

const char assessment_rating_rule[] =
    "unacceptable when an answer carries high or critical risk (an answer whose claim the evidence "
    "contradicts carries at least high risk); otherwise incomplete while a "
    "required question is unanswered; otherwise concerns when an answer carries medium risk; "
    "otherwise acceptable. The score (0 to 100) is the weighted mean risk of the answers: it ranks "
    "assessments with the same rating.";

const char vendor_rating_rule[] =
    "the worst of: the rating of the latest final round of each questionnaire (a newer draft is "
    "shown beside it, never in its place); unacceptable for a high or critical open finding (one "
    "of the newest completed result of a probe on an endpoint) or a claim the evidence "
    "contradicts; concerns for a medium open finding; acceptable when probes ran and found nothing "
    "above low. Not assessed when there is neither a final round nor a completed probe run.";

const char *
rating_name(enum rating r)
{
	return (unsigned)r < RATING_COUNT ? names[r] : "unknown";
}

int
rating_parse(const char *name)
{
	for (int i = 0; name != NULL && i < RATING_COUNT; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

enum rating
assessment_rating(int worst_risk, int answered, int unanswered_required)
{
	if (worst_risk >= RISK_HIGH)
		return RATING_UNACCEPTABLE;
	if (unanswered_required > 0 || answered == 0)
		return RATING_INCOMPLETE;
	if (worst_risk == RISK_MEDIUM)
		return RATING_CONCERNS;
	return RATING_ACCEPTABLE;
}

enum rating
vendor_rating(enum rating worst_assessment, int worst_finding, int probed)
{
	enum rating r = worst_assessment;
	enum rating f = worst_finding >= SEV_HIGH ? RATING_UNACCEPTABLE : worst_finding == SEV_MEDIUM ?
	    RATING_CONCERNS : probed ? RATING_ACCEPTABLE : RATING_NOT_ASSESSED;

	return f > r ? f : r;
}

void
rating_since_approval(const struct approval_at *at, enum rating now, double score,
    int contradicted, const char *contradicted_by, char *out, size_t n)
{
	int len;

	if (at == NULL || !at->known) {
		snprintf(out, n, "%s", "");
		return;
	}
	len = snprintf(out, n, "approved at %s %.1f", rating_name(at->rating), at->score);
	if (len < 0 || (size_t)len >= n)
		return;
	if (at->rating == now && fabs(at->score - score) < 0.05)
		snprintf(out + len, n - (size_t)len, "; unchanged");
	else if (contradicted > 0)
		snprintf(out + len, n - (size_t)len, "; now %s %.1f: %d claim%s contradicted (%s)",
		    rating_name(now), score, contradicted, contradicted == 1 ? "" : "s",
		    contradicted_by ? contradicted_by : "by the evidence");
	else
		snprintf(out + len, n - (size_t)len, "; now %s %.1f", rating_name(now), score);
}

/* The status column's words, in the order of enum assessment_status. */
static const char *const status_names[] = { "draft", "in_review", "final" };

enum assessment_status
assessment_status_of(const char *status)
{
	for (size_t i = 0; status != NULL && i < sizeof status_names / sizeof status_names[0]; i++)
		if (strcmp(status, status_names[i]) == 0)
			return (enum assessment_status)i;
	return ASSESS_STATUS_OTHER;
}

const char *
assessment_status_name(enum assessment_status s)
{
	return (size_t)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "unknown";
}

const char *
assessment_status_words(enum assessment_status s)
{
	return s == ASSESS_IN_REVIEW ? "in review" : assessment_status_name(s);
}

/* Whether a final round of round i's questionnaire follows it. */
static int
later_final_of(const struct rated_round *r, int n, int i)
{
	for (int k = i + 1; k < n; k++)
		if (strcmp(r[k].qid, r[i].qid) == 0 && r[k].status == ASSESS_FINAL)
			return 1;
	return 0;
}

int
verdict_reads(const struct rated_round *r, int n, int i)
{
	return r[i].status == ASSESS_FINAL && !later_final_of(r, n, i);
}

/* The latest final round of each questionnaire, and the newest round in work
 * that is newer than its questionnaire's latest final. */
static void
verdict_rounds(const struct rated_round *r, int n, struct vendor_verdict *v)
{
	for (int i = 0; i < n; i++) {
		int later_final = later_final_of(r, n, i);

		if (r[i].status != ASSESS_FINAL) {
			if (later_final || r[i].id < v->draft_id)
				continue;
			v->draft_id = r[i].id;
			v->draft_round = r[i].round;
			v->draft_status = r[i].status;
			v->draft_rating = r[i].rating;
			v->draft_score = r[i].score;
			continue;
		}
		if (!verdict_reads(r, n, i))
			continue;
		v->nfinal++;
		v->contradicted += r[i].contradicted;
		if (r[i].contradicted_by != NULL && v->contradicted_by[0] == '\0')
			snprintf(v->contradicted_by, sizeof v->contradicted_by, "%s", r[i].contradicted_by);
		if (v->assessment_id == 0 || r[i].rating > v->assessed ||
		    (r[i].rating == v->assessed && r[i].score > v->score)) {
			v->assessed = r[i].rating;
			v->assessment_id = r[i].id;
			v->round = r[i].round;
			v->score = r[i].score;
			snprintf(v->qid, sizeof v->qid, "%s", r[i].qid);
			v->approved = r[i].approved;
			rating_since_approval(&r[i].approved, r[i].rating, r[i].score, r[i].contradicted,
			    r[i].contradicted_by, v->since_approval, sizeof v->since_approval);
		}
	}
}

void
vendor_verdict(const struct rated_round *rounds, int n, const struct probe_run_list *runs,
    struct vendor_verdict *v)
{
	int f;

	memset(v, 0, sizeof *v);
	v->assessed = RATING_NOT_ASSESSED;
	verdict_rounds(rounds, n, v);
	v->worst_finding = claims_open_findings(runs, v->finding, sizeof v->finding, &v->probed);
	claims_open_counts(runs, v->open);
	/* A claim the evidence contradicts is a high finding. */
	f = v->contradicted > 0 && v->worst_finding < SEV_HIGH ? SEV_HIGH : v->worst_finding;
	v->rating = vendor_rating(v->assessed, f, v->probed);
}

void
vendor_verdict_basis(const struct vendor_verdict *v, char *out, size_t n)
{
	struct buf b;

	buf_init(&b);
	if (v->nfinal > 0)
		buf_printf(&b, "final round %lld of %s %s (score %.1f)%s%s", (long long)v->round, v->qid,
		    rating_name(v->assessed), v->score, v->since_approval[0] ? ", " : "",
		    v->since_approval);
	else
		buf_printf(&b, "no final round");
	if (v->worst_finding >= 0)
		buf_printf(&b, "; %s finding %s", severity_name((enum severity)v->worst_finding),
		    v->finding);
	else
		buf_printf(&b, v->probed ? "; no open finding" : "; no probe run");
	if (v->contradicted > 0)
		buf_printf(&b, "; %d contradicted claim%s (%s)", v->contradicted,
		    v->contradicted == 1 ? "" : "s", v->contradicted_by);
	snprintf(out, n, "%s", b.data);
	buf_free(&b);
}

void
vendor_verdict_counts(const struct vendor_verdict *v, char *out, size_t n)
{
	struct buf b;

	buf_init(&b);
	for (int i = SEV_COUNT - 1; i >= 0; i--)
		if (v->open[i] > 0)
			buf_printf(&b, "%s%d %s", b.len ? ", " : "", v->open[i], severity_name((enum severity)i));
	snprintf(out, n, "%s", b.len ? b.data : "none");
	buf_free(&b);
}

void
vendor_verdict_draft(const struct vendor_verdict *v, char *out, size_t n)
{
	if (v->draft_id == 0)
		snprintf(out, n, "%s", "");
	else
		snprintf(out, n, "%s round %lld: %s, score %.1f", assessment_status_words(v->draft_status),
		    (long long)v->draft_round, rating_name(v->draft_rating), v->draft_score);
}

void
vendor_verdict_short(const struct vendor_verdict *v, char *out, size_t n)
{
	int len;

	if (v->nfinal > 0 && v->approved.known && (v->approved.rating != v->assessed ||
	    fabs(v->approved.score - v->score) >= 0.05))
		len = snprintf(out, n, "score %.1f, approved at %s %.1f", v->score,
		    rating_name(v->approved.rating), v->approved.score);
	else if (v->nfinal > 0)
		len = snprintf(out, n, "score %.1f", v->score);
	else if (v->worst_finding >= SEV_MEDIUM)
		len = snprintf(out, n, "%s %s", severity_name((enum severity)v->worst_finding), v->finding);
	else if (v->contradicted > 0)
		len = snprintf(out, n, "%d contradicted", v->contradicted);
	else
		len = snprintf(out, n, "%s", v->probed ? "probed, no final round" : "no final round");
	/* Short enough that a row of 80 columns keeps it whole. */
	if (v->draft_id != 0 && len >= 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, "; %s round %lld %s",
		    assessment_status_words(v->draft_status), (long long)v->draft_round,
		    rating_name(v->draft_rating));
}

void
vendor_verdict_add_json(cJSON *o, const struct vendor_verdict *v)
{
	char basis[1024];

	cJSON_AddStringToObject(o, "rating", rating_name(v->rating));
	vendor_verdict_basis(v, basis, sizeof basis);
	cJSON_AddStringToObject(o, "rating_basis", basis);
	if (v->since_approval[0])
		cJSON_AddStringToObject(o, "since_approval", v->since_approval);
	else
		cJSON_AddNullToObject(o, "since_approval");
	{
		cJSON *c = cJSON_AddObjectToObject(o, "open_findings");

		for (int i = SEV_COUNT - 1; i >= 0; i--)
			cJSON_AddNumberToObject(c, severity_name((enum severity)i), v->open[i]);
	}
	if (v->draft_id != 0) {
		cJSON *d = cJSON_AddObjectToObject(o, "draft");

		cJSON_AddNumberToObject(d, "id", (double)v->draft_id);
		cJSON_AddNumberToObject(d, "round", (double)v->draft_round);
		cJSON_AddStringToObject(d, "status", assessment_status_name(v->draft_status));
		cJSON_AddStringToObject(d, "rating", rating_name(v->draft_rating));
		cJSON_AddNumberToObject(d, "score", v->draft_score);
	} else {
		cJSON_AddNullToObject(o, "draft");
	}
}
