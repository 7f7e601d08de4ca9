/*
 * cache-extract.c: can another organisation read a tenant's prompt out of a
 * shared prompt cache? prefix-timing shows that a cache is shared; this probe
 * shows what sharing discloses, as Song et al. (2024) and Wu et al. (NDSS
 * 2025) did: tenant B reconstructs tenant A's prompt one unit at a time from
 * the cached-token counts B's own guesses report.
 *
 * First the granularity, from A's own repeats: A sends an opening, then a
 * prompt sharing part of it, MEASURE_PAIRS times at lengths in pairs one word
 * apart (the opening re-sent each time); the greatest common divisor of the counts is the
 * block the cache counts in (1 to the token, 16, 128). One more repeat of the
 * longest part, sent without re-sending the opening, tells a cache that keeps
 * only the newest prompt (it reports only what the repeat before left).
 *
 * Then A plants a random secret (from libsodium, never real data: DIGIT_UNITS
 * digits, then a name of syllables, SECRET_UNITS units of ten values each)
 * after the opening, each unit followed by a padding of filler
 * words at least two blocks long, so that a right guess is counted whatever
 * the block boundaries. B sends two controls (a letter in the first unit's
 * place: the count of the known prefix, ref), then, unit by unit, the
 * recovered prefix and a guess: a guess whose count reaches ref + block +
 * HIT_MARGIN was served A's padding from the cache (unit_hit(), the recovery
 * rule), and counts only once compared with the planted value. Where the cache
 * keeps only the newest prompt, A sends its prompt again before each of B's
 * requests. B's first control opens with words only A has sent: a count of a
 * quarter of that opening is A's prefix served to B, sharing (control_shared(),
 * the sharing rule). A round of guesses without a hit while the controls showed
 * sharing is repeated once with A's prompt re-sent before each of B's requests
 * (a cache that restores an earlier prompt only when it beats a slot's current
 * one lets B's own requests displace A's). A unit no guess hits ends the search.
 *
 * Every prompt that carries the secret (A's and B's guesses) is stored sealed
 * like leaked content, both ways: the details name A's first planted prompt
 * as the sealed reference, and carry the units B recovered (which aivet
 * checks against the secret) as the evidence of recovery.
 *
 * PREFIX_CACHE_CONTENT_RECOVERED (critical) when B, a key of another
 * organisation, recovered any unit (a partial recovery too, naming the units),
 * citing every exchange; PREFIX_CACHE_SHARED_ACROSS_TENANTS when it recovered
 * none but its first control showed sharing, citing A's prompt and that
 * control. A pass only where B was served nothing of A's: its first control
 * under the sharing rule and its ten guesses of the first unit all answered
 * without a hit, while A's own repeats were cached; or when B is a key of A's
 * own organisation (sharing within it is no cross-tenant exposure). No
 * cached counts, no caching of A's own repeats, a block beyond the planned
 * MAX_BLOCK or the run's budget ending first: inconclusive, saying which.
 * Recovery by timing alone is not attempted: at the noise prefix-timing
 * measures it would take thousands of requests per unit. Opt-in.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "probe-env.h"

#define SECRET_UNITS 6            /* units planted, ten values each: about 20 bits */
#define DIGIT_UNITS 4             /* the first are digits, the rest a name's syllables */
#define ALPHABET 10
/* A's prime and repeat, at six lengths each twice a word apart: a greatest common divisor of
 * 12 counts overstates the block (all of them multiples of twice it) about once in 4,096. */
#define MEASURE_PAIRS 12
#define MAX_BLOCK 256             /* the largest block the plan budgets padding for */
#define BODY_UNITS 8              /* each request's own words after the planted text */
#define HIT_MARGIN 8              /* tokens beyond a block a right guess must add */
#define BODY_BYTES_MAX (24 << 10) /* a planted prompt is stored whole and sealed: under 32 KiB */
/* Requests at most: the measurement, A's first prompt, and B's two controls and every guess,
 * each after A's prompt again where the cache keeps only the newest, and one round of ten
 * guesses sent before A's prompt was re-sent. */
#define MAX_REQUESTS (2 * MEASURE_PAIRS + 1 + 1 + 2 * (2 + ALPHABET * SECRET_UNITS) + ALPHABET)

static int64_t
opening_tokens(const struct probe_env *env)
{
	return px_cache_opening(env);
}

/* Filler words of a padding at least two blocks and a margin long, whatever the tokenizer. */
static int64_t
pad_units(const struct probe_env *env, int64_t block)
{
	return (int64_t)ceil((double)(2 * block + 2 * HIT_MARGIN) / env->tpu_min) + 1;
}

static void
cache_extract_plan(const struct probe_env *env, struct probe_plan *p)
{
	int64_t open = opening_tokens(env);
	int64_t planted = SECRET_UNITS * (1 + pad_units(env, MAX_BLOCK));
	int64_t body = (int64_t)(env->overhead_tokens + BODY_UNITS * env->tokens_per_unit);

	if (env->ntenants < 2) {
		memset(p, 0, sizeof *p);
		return;
	}
	p->requests = MAX_REQUESTS;
	p->tokens_in = (2 * MEASURE_PAIRS + 1) * (open + body) +
	    (MAX_REQUESTS - 2 * MEASURE_PAIRS - 1) * (open + body +
	    (int64_t)((double)planted * env->tokens_per_unit));
	/* A vendor as advertised shares nothing across organisations: A's prompt, B's two
	 * controls and the ten guesses of the first unit, none a hit. */
	p->tokens_in_expected = (2 * MEASURE_PAIRS + 1) * (open + body) +
	    (1 + 2 + ALPHABET) * (open + body + (int64_t)((double)planted * env->tokens_per_unit));
	p->tokens_out = px_plan_tokens_out(env, p->requests);
}

/* The recovery rule: B's guess was served A's padding from the cache when its count
 * reaches a block and a margin beyond the known prefix's (ref). A wrong guess may still
 * match a token or two past the prefix (the space before it, a tokenizer merging across
 * the boundary): counted to the token that is the margin, in blocks it may cross into the
 * next one, which the block covers; a right guess is served two blocks of padding. */
static int
unit_hit(int64_t cached, int64_t ref, int64_t block)
{
	return cached >= ref + block + HIT_MARGIN;
}

/* The sharing rule: B's first control opens with words drawn for this run that only A has
 * sent, so a count of a quarter of that opening or more (and beyond a block and the margin,
 * which a chat template's own tokens stay under) is A's prefix served to B from the cache. */
static int
control_shared(const struct probe_env *env, int64_t cached, int64_t block)
{
	return cached >= opening_tokens(env) / 4 && cached >= block + HIT_MARGIN;
}

/* A name-like token string: syllables of ten, one a unit, as a digit is. */
static const char *const syllables[ALPHABET] = {
	"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "ha",
};

/* The value of unit i as the prompt carries it: a digit, a syllable (code 'a' + k), or a
 * control's letter. */
static const char *
unit_text(int i, char code, char buf[2])
{
	if (i >= DIGIT_UNITS && code >= 'a' && code < 'a' + ALPHABET)
		return syllables[code - 'a'];
	buf[0] = code;
	buf[1] = '\0';
	return buf;
}

/* The first value of unit i's alphabet: digits, then syllables' codes. */
static char
unit_base(int i)
{
	return i < DIGIT_UNITS ? '0' : 'a';
}

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* One run: every request sent (kept for the evidence), the layout and what was learnt. */
struct ce {
	struct px_req *r;
	char **text;                  /* each request's planted text, owned here */
	size_t n;
	int ta, tb, stop;             /* stop: the budget or an interrupt ended sending */
	int64_t open_units, pad, block, ref;
	uint64_t open_seed, meas_seed, pad_seed[SECRET_UNITS];
	char secret[SECRET_UNITS + 1], recovered[SECRET_UNITS + 1], wrong;
	int units, nrec, newest, reported, measured_cached, tried_first, answered_first;
	int shared;                   /* B's first control was served A's opening from the cache */
	int resent_unit;              /* the unit whose round was repeated with A's prompt re-sent, -1 */
	int64_t prime_evidence, count_max, control_cached, control_evidence;
	int64_t b_requests, b_in, b_out, tokens;
	struct px_tally tally;
	struct probe_outcome *out;
};

/* Sends one request of tenant t: the opening (shared_units words of seed), planted text,
 * and its own words. Returns the cached count the usage reported, -1 when none (not
 * answered, no count, or not sent: s->stop). */
static int64_t
send_one(struct probe_env *env, struct ce *s, int t, uint64_t seed, int64_t shared,
    const struct buf *planted, int64_t planted_units)
{
	struct px_req *q;

	if (s->stop || s->n >= MAX_REQUESTS)
		return -1;
	q = &s->r[s->n];
	q->tenant = t;
	q->units = BODY_UNITS;
	q->shared_units = shared;
	q->shared_seed = seed;
	if (planted != NULL) {
		s->text[s->n] = xstrdup(planted->data);
		q->planted = s->text[s->n];
		q->planted_units = planted_units;
	}
	s->n++;
	if (px_send(env, q, 1, 1) != 0 || !q->sent) {
		s->stop = 1;
		return -1;
	}
	px_judge_common(env, s->out, q, 1);
	px_tally_add(&s->tally, q, q->cls == PXC_ANSWERED);
	if (q->res.usage.in > 0)
		s->tokens += q->res.usage.in + (q->res.usage.out > 0 ? q->res.usage.out : 0);
	if (t == s->tb) {
		s->b_requests++;
		s->b_in += q->res.usage.in > 0 ? q->res.usage.in : 0;
		s->b_out += q->res.usage.out > 0 ? q->res.usage.out : 0;
	}
	if (q->cls != PXC_ANSWERED || q->res.usage.cached_in < 0)
		return -1;
	s->reported++;
	return q->res.usage.cached_in;
}

/* A re-sends its planted prompt. */
static void
prime(struct probe_env *env, struct ce *s, const struct buf *a_text, int64_t a_units)
{
	send_one(env, s, s->ta, s->open_seed, s->open_units, a_text, a_units);
	if (s->prime_evidence == 0 && s->n > 0 && s->r[s->n - 1].sent)
		s->prime_evidence = s->r[s->n - 1].evidence_id;
}

/* The block the cache counts in, from A's own repeats, and whether it keeps only the
 * newest prompt. Returns 0, or -1 when sending stopped. */
static int
measure(struct probe_env *env, struct ce *s)
{
	int64_t len[MEASURE_PAIRS], c[MEASURE_PAIRS], check, g = 0;

	/* Longest first, so the check after the shortest tells a newest-only cache. */
	for (int j = 0; j < MEASURE_PAIRS; j++)
		len[j] = s->open_units * (MEASURE_PAIRS - j / 2 * 2) / (MEASURE_PAIRS + 1) + j % 2;
	for (int j = 0; j < MEASURE_PAIRS; j++) {
		send_one(env, s, s->ta, s->meas_seed, s->open_units, NULL, 0);
		c[j] = send_one(env, s, s->ta, s->meas_seed, len[j], NULL, 0);
		if (s->stop)
			return -1;
		if (c[j] > 0) {
			g = gcd64(g, c[j]);
			s->measured_cached++;
		}
		if (c[j] > s->count_max)
			s->count_max = c[j];
	}
	check = send_one(env, s, s->ta, s->meas_seed, len[0], NULL, 0);
	if (s->stop)
		return -1;
	s->block = g;
	s->newest = c[0] > 0 && check >= 0 && check < c[0];
	return 0;
}

/* B's prompt for unit i: the recovered units with their paddings, then `guess` and
 * unit i's padding. Returns its words. */
static int64_t
guess_text(const struct ce *s, int i, char guess, struct buf *b)
{
	buf_init(b);
	for (int k = 0; k <= i; k++) {
		char one[2];

		buf_printf(b, " %s", unit_text(k, k < i ? s->recovered[k] : guess, one));
		prompt_filler(s->pad_seed[k], s->pad, b);
	}
	return (int64_t)(i + 1) * (1 + s->pad);
}

/* B's two controls: a letter in the first unit's place gives the count of the known
 * opening (ref). */
static void
controls(struct probe_env *env, struct ce *s, const struct buf *a, int64_t au)
{
	for (int k = 0; k < 2 && !s->stop; k++) {
		struct buf b;
		int64_t words = guess_text(s, 0, k == 0 ? 'x' : 'y', &b), c;

		if (s->newest)
			prime(env, s, a, au);
		c = send_one(env, s, s->tb, s->open_seed, s->open_units, &b, words);
		if (k == 0 && c >= 0) {
			s->control_cached = c;
			s->control_evidence = s->r[s->n - 1].evidence_id;
			s->shared = control_shared(env, c, s->block);
		}
		if (c > s->ref)
			s->ref = c;
		buf_free(&b);
	}
}

/* One round of unit i: its ten values in a random order until one hits. Returns 1 on a hit
 * on the planted value, 0 when none hit, -1 when sending stopped or a hit was on a value
 * that is not the planted one (s->wrong): a hit counts only once compared with the secret. */
static int
guess_round(struct probe_env *env, struct ce *s, int i, const struct buf *a, int64_t au)
{
	char order[ALPHABET];

	for (int d = 0; d < ALPHABET; d++)
		order[d] = (char)(unit_base(i) + d);
	for (int d = ALPHABET - 1; d > 0; d--) {
		int j = (int)px_uniform(env, (uint32_t)d + 1);
		char t = order[d];

		order[d] = order[j];
		order[j] = t;
	}
	for (int d = 0; d < ALPHABET && !s->stop; d++) {
		struct buf b;
		int64_t words = guess_text(s, i, order[d], &b), c;

		if (s->newest)
			prime(env, s, a, au);
		c = send_one(env, s, s->tb, s->open_seed, s->open_units, &b, words);
		buf_free(&b);
		if (i == 0 && !s->stop) {
			s->tried_first++;
			s->answered_first += c >= 0;
		}
		if (c < 0 || !unit_hit(c, s->ref, s->block))
			continue;
		if (order[d] != s->secret[i]) {
			s->wrong = order[d];
			return -1;
		}
		s->recovered[s->nrec++] = order[d];
		s->ref = c;
		return 1;
	}
	return s->stop ? -1 : 0;
}

/* Unit by unit until a round finds no hit. A round without a hit while the controls showed
 * A's opening served to B is repeated once with A's prompt re-sent before each of B's
 * requests, from there on: a cache that restores an earlier prompt only when it beats a
 * slot's current one on both the kept fraction and the similarity (llama.cpp's server) lets
 * B's own requests displace A's, and a one-repeat check of A's cannot tell it. */
static void
recover(struct probe_env *env, struct ce *s, const struct buf *a, int64_t au)
{
	for (int i = 0; i < s->units && !s->stop; i++) {
		int r = guess_round(env, s, i, a, au);

		if (r == 0 && s->shared && !s->newest) {
			s->newest = 1;
			s->resent_unit = i;
			r = guess_round(env, s, i, a, au);
		}
		if (r <= 0)
			return;
	}
}

/* The secret, its seeds and A's planted text: each unit followed by its padding. Returns
 * the planted words, or 0 when no layout fits a prompt stored whole (s->units then 0). */
static int64_t
plant(struct probe_env *env, struct ce *s, struct buf *a)
{
	int64_t bytes;

	s->pad = pad_units(env, s->block);
	/* About 8 bytes a word; fewer units when a large block makes the paddings long. */
	for (s->units = SECRET_UNITS; s->units > 1; s->units--) {
		bytes = (s->open_units + BODY_UNITS + (int64_t)s->units * (1 + s->pad)) * 8 + 1024;
		if (bytes <= BODY_BYTES_MAX)
			break;
	}
	bytes = (s->open_units + BODY_UNITS + (int64_t)s->units * (1 + s->pad)) * 8 + 1024;
	if (bytes > BODY_BYTES_MAX) {
		s->units = 0;
		return 0;
	}
	buf_init(a);
	for (int i = 0; i < SECRET_UNITS; i++) {
		s->secret[i] = (char)(unit_base(i) + (int)px_uniform(env, ALPHABET));
		px_random(env, &s->pad_seed[i], sizeof s->pad_seed[i]);
	}
	for (int i = 0; i < s->units; i++) {
		char one[2];

		buf_printf(a, " %s", unit_text(i, s->secret[i], one));
		prompt_filler(s->pad_seed[i], s->pad, a);
	}
	return (int64_t)s->units * (1 + s->pad);
}

/* Bits and their cost: per request of B's and per dollar of B's tokens at the endpoint's
 * prices (null without them). */
static void
rate_json(const struct probe_env *env, const struct ce *s, cJSON *d)
{
	double bits = s->nrec * log2(ALPHABET), usd;

	cJSON_AddNumberToObject(d, "bits", round(bits * 100) / 100);
	cJSON_AddNumberToObject(d, "requests_tenant_b", (double)s->b_requests);
	cJSON_AddNumberToObject(d, "bits_per_request", s->b_requests > 0 ?
	    round(bits / (double)s->b_requests * 1e4) / 1e4 : 0);
	if (!env->ep.has_price_in) {
		cJSON_AddNullToObject(d, "bits_per_usd");
		return;
	}
	usd = (double)s->b_in / 1e6 * env->ep.price_in_per_mtok +
	    (env->ep.has_price_out ? (double)s->b_out / 1e6 * env->ep.price_out_per_mtok : 0);
	if (usd > 0)
		cJSON_AddNumberToObject(d, "bits_per_usd", round(bits / usd * 100) / 100);
	else
		cJSON_AddNullToObject(d, "bits_per_usd");
}

static cJSON *
ce_details(const struct probe_env *env, const struct ce *s)
{
	cJSON *d = cJSON_CreateObject(), *p;
	struct buf rec;

	buf_init(&rec);
	for (int i = 0; i < s->nrec; i++) {
		char one[2];

		buf_adds(&rec, unit_text(i, s->recovered[i], one));
	}
	p = cJSON_AddObjectToObject(d, "planted");
	cJSON_AddStringToObject(p, "kind", "digits, then a name");
	cJSON_AddNumberToObject(p, "digits", s->units < DIGIT_UNITS ? s->units : DIGIT_UNITS);
	cJSON_AddNumberToObject(p, "units", s->units);
	cJSON_AddBoolToObject(p, "sealed", 1);
	if (s->prime_evidence > 0)
		cJSON_AddNumberToObject(p, "evidence", (double)s->prime_evidence);
	else
		cJSON_AddNullToObject(p, "evidence");
	cJSON_AddStringToObject(d, "recovered", rec.data ? rec.data : "");
	if (rec.data != NULL)
		sodium_memzero(rec.data, rec.len);
	buf_free(&rec);
	cJSON_AddNumberToObject(d, "recovered_units", s->nrec);
	cJSON_AddNumberToObject(d, "requests", (double)s->tally.sent);
	cJSON_AddNumberToObject(d, "tokens", (double)s->tokens);
	if (s->block > 0)
		cJSON_AddNumberToObject(d, "granularity", (double)s->block);
	else
		cJSON_AddNullToObject(d, "granularity");
	cJSON_AddBoolToObject(d, "reprimed", s->newest);
	if (s->resent_unit >= 0)
		cJSON_AddNumberToObject(d, "resent_from_unit", s->resent_unit + 1);
	else
		cJSON_AddNullToObject(d, "resent_from_unit");
	cJSON_AddBoolToObject(d, "controls_shared", s->shared);
	cJSON_AddNumberToObject(d, "control_cached_tokens", (double)s->control_cached);
	cJSON_AddNumberToObject(d, "padding_units", (double)s->pad);
	cJSON_AddNumberToObject(d, "reference_cached_tokens", (double)s->ref);
	cJSON_AddNumberToObject(d, "first_unit_guesses", s->tried_first);
	rate_json(env, s, d);
	cJSON_AddStringToObject(d, "tenant_a", env->tenant_label[s->ta]);
	cJSON_AddStringToObject(d, "tenant_b", env->tenant_label[s->tb]);
	cJSON_AddBoolToObject(d, "same_organisation", px_same_org(env, s->ta, s->tb));
	px_tally_json(&s->tally, d);
	return d;
}

/* Why sending stopped: the budget, an interrupt, or a request the engine did not send. */
static const char *
stopped_by(const struct probe_env *env)
{
	return env->budget_hit ? "the run's token budget ended" : env->interrupted ?
	    "the run was interrupted" : "a request could not be sent (a refused credential, or a "
	    "prompt kept under a rate limit)";
}

/* The units B recovered by place and kind, never their values (those stay in the sealed
 * details): "units 1 to 5 (4 digits, 1 syllable)". */
static void
units_named(const struct ce *s, char *out, size_t outsz)
{
	int d = s->nrec < DIGIT_UNITS ? s->nrec : DIGIT_UNITS, y = s->nrec - d;

	if (s->nrec == 1)
		snprintf(out, outsz, "unit 1 (a digit)");
	else if (y == 0)
		snprintf(out, outsz, "units 1 to %d (%d digits)", s->nrec, d);
	else
		snprintf(out, outsz, "units 1 to %d (%d digits, %d syllable%s)", s->nrec, d, y,
		    y == 1 ? "" : "s");
}

/* Why the search ended before the last unit: what the cited exchanges show. */
static void
units_missed(const struct probe_env *env, const struct ce *s, char *out, size_t outsz)
{
	if (s->nrec == s->units)
		out[0] = '\0';
	else if (s->stop)
		snprintf(out, outsz, "; unit %d not reached: %s", s->nrec + 1, stopped_by(env));
	else
		snprintf(out, outsz, "; no guess of unit %d was reported cached beyond the recovered "
		    "prefix%s%s%s", s->nrec + 1, s->newest ? " (with tenant '" : "",
		    s->newest ? env->tenant_label[s->ta] : "", s->newest ? "''s prompt re-sent before "
		    "each)" : "");
}

/* A recovery by a key of another organisation: the finding cites every exchange. */
static void
ce_recovered(struct probe_env *env, struct probe_outcome *out, const struct ce *s)
{
	const char *a = env->tenant_label[s->ta], *b = env->tenant_label[s->tb];
	char which[96], missed[192];
	int said = 0;

	units_named(s, which, sizeof which);
	units_missed(env, s, missed, sizeof missed);
	for (size_t i = 0; i < s->n; i++) {
		if (!s->r[i].sent || s->r[i].evidence_id <= 0)
			continue;
		if (said++ > 0)
			outcome_finding(out, F_PREFIX_CACHE_CONTENT_RECOVERED, s->r[i].evidence_id, "%s", "");
		else
			outcome_finding(out, F_PREFIX_CACHE_CONTENT_RECOVERED, s->r[i].evidence_id,
			    "tenant '%s' (%s) recovered %d of the %d units (digits, then a name's "
			    "syllables) of a random secret planted in tenant '%s''s prompt, one unit at "
			    "a time from the cached-token counts of its own guesses (blocks of %lld tokens), "
			    "in %lld requests of its own: %s, each the planted one%s; the prompt cache "
			    "discloses another organisation's prompts%s", b,
			    env->tenant_org[s->tb] ? env->tenant_org[s->tb] : "its own organisation",
			    s->nrec, s->units, a, (long long)s->block, (long long)s->b_requests, which,
			    missed, px_org_assumed(env, s->ta, s->tb) ? " (" PX_ORG_ASSUMED ")" : "");
	}
	outcome_set(out, "fail", "tenant '%s' recovered %d of the %d units planted in tenant "
	    "'%s''s prompt from cached counts (%s; %d requests, %lld tokens)", b, s->nrec, s->units,
	    a, which, s->tally.sent, (long long)s->tokens);
}

/* The controls showed A's opening served to B, and no unit was recovered: the sharing is
 * the finding, citing A's planted prompt and B's first control. */
static void
ce_shared(struct probe_env *env, struct probe_outcome *out, const struct ce *s)
{
	const char *a = env->tenant_label[s->ta], *b = env->tenant_label[s->tb];
	char missed[192];

	units_missed(env, s, missed, sizeof missed);
	outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, s->prime_evidence,
	    "tenant '%s''s first control was served %lld cached tokens of an opening only tenant "
	    "'%s' had sent: the prompt cache is shared across organisations%s, though no unit of the "
	    "secret was recovered%s", b, (long long)s->control_cached, a,
	    px_org_assumed(env, s->ta, s->tb) ? " (" PX_ORG_ASSUMED ")" : "", missed);
	outcome_finding(out, F_PREFIX_CACHE_SHARED_ACROSS_TENANTS, s->control_evidence, "%s", "");
	outcome_set(out, "fail", "tenant '%s''s first control was served %lld cached tokens of "
	    "tenant '%s''s opening: the cache is shared with '%s', though no unit of the secret was "
	    "recovered", b, (long long)s->control_cached, a, b);
}

/* The verdict on a recovery that ran: what B recovered, what the controls showed, or what
 * it tried. A pass only where B was served nothing of A's. */
static void
ce_verdict(struct probe_env *env, struct probe_outcome *out, const struct ce *s)
{
	const char *a = env->tenant_label[s->ta], *b = env->tenant_label[s->tb];
	int same = px_same_org(env, s->ta, s->tb);

	if (s->wrong) {
		char one[2];

		outcome_set(out, "inconclusive", "tenant '%s''s guess '%s' for unit %d was reported "
		    "cached beyond the known prefix (%lld tokens) but is not the planted one: the counts "
		    "do not behave as a prefix cache's, and nothing is claimed from them", b,
		    unit_text(s->nrec, s->wrong, one), s->nrec + 1, (long long)s->ref);
	} else if ((s->nrec > 0 || s->shared) && same) {
		outcome_set(out, "pass", "tenant '%s' recovered %d of the %d units planted in tenant "
		    "'%s''s prompt from the cached counts (its first control served %lld cached tokens "
		    "of the opening), both keys of organisation '%s': the cache is shared within the "
		    "organisation, not across tenants as far as these keys show", b, s->nrec, s->units,
		    a, (long long)s->control_cached, env->tenant_org[s->ta]);
	} else if (s->nrec > 0) {
		ce_recovered(env, out, s);
	} else if (s->shared) {
		ce_shared(env, out, s);
	} else if (s->stop) {
		outcome_set(out, "inconclusive", "%s after %d requests, before tenant '%s' had tried "
		    "every guess of the first unit (%d of %d)", stopped_by(env), s->tally.sent, b,
		    s->tried_first, ALPHABET);
	} else if (s->answered_first == ALPHABET && s->control_evidence > 0) {
		outcome_set(out, "pass", "tenant '%s''s first control was served %lld cached tokens "
		    "(sharing needs %lld) and none of its %d guesses of the first planted unit was "
		    "reported cached beyond the known opening (%lld tokens, a hit needs %lld more), "
		    "while tenant '%s''s own repeats were cached in blocks of %lld tokens (up to %lld): "
		    "nothing recovered, the cache is not shared with '%s'%s", b,
		    (long long)s->control_cached, (long long)(opening_tokens(env) / 4 >
		    s->block + HIT_MARGIN ? opening_tokens(env) / 4 : s->block + HIT_MARGIN), ALPHABET,
		    (long long)s->ref, (long long)(s->block + HIT_MARGIN), a, (long long)s->block,
		    (long long)s->count_max, b, same ? " (per user: both keys are of one organisation)" :
		    "");
	} else {
		px_set_unjudged(env, out, &s->tally, "tenant B's first control and the guesses of the "
		    "first unit were not all answered with a cached count");
	}
}

/* What stops the probe before any recovery: 1 with the verdict set. */
static int
ce_cannot(struct probe_env *env, struct probe_outcome *out, const struct ce *s)
{
	const char *a = env->tenant_label[s->ta];

	if (s->stop) {
		outcome_set(out, "inconclusive", "%s during the granularity measurement (%d requests)",
		    stopped_by(env), s->tally.sent);
	} else if (s->tally.judged == 0) {
		px_set_unjudged(env, out, &s->tally, "tenant A's repeats");
	} else if (s->reported == 0) {
		outcome_set(out, "inconclusive", "the vendor's usage reported no cached-token counts "
		    "(%d answered requests): recovery reads them, and recovery by timing alone is not "
		    "attempted (at prefix-timing's noise it needs thousands of requests a unit, beyond "
		    "any planned budget)", s->tally.judged);
	} else if (s->measured_cached < 2 || s->count_max < opening_tokens(env) / 4) {
		outcome_set(out, "inconclusive", "tenant '%s''s own repeats were not reported cached "
		    "(%d of %d, at most %lld tokens): no prompt caching seen, nothing to recover through",
		    a, s->measured_cached, MEASURE_PAIRS, (long long)s->count_max);
	} else if (s->block > MAX_BLOCK) {
		outcome_set(out, "inconclusive", "the cache counts in blocks of %lld tokens, beyond the "
		    "%d the probe plans its padding for", (long long)s->block, MAX_BLOCK);
	} else if (s->units == 0) {
		outcome_set(out, "inconclusive", "blocks of %lld tokens need a padding (%lld words a "
		    "unit) that makes the planted prompt too large to store whole and sealed",
		    (long long)s->block, (long long)s->pad);
	} else {
		return 0;
	}
	return 1;
}

static void
cache_extract_run(struct probe_env *env, struct probe_outcome *out)
{
	struct ce s;
	struct buf a;
	int64_t au = 0;
	int cross, same;

	if (env->ntenants < 2) {
		outcome_set(out, "inconclusive", "recovering a planted secret across tenants needs a "
		    "second credential on the endpoint (one per tenant)");
		return;
	}
	if (env->opts->leak_seal_pk == NULL) {
		outcome_set(out, "inconclusive", "no evidence key to seal the planted secret with: "
		    "the probe plants nothing it cannot seal");
		return;
	}
	memset(&s, 0, sizeof s);
	s.resent_unit = -1;
	buf_init(&a);
	s.out = out;
	px_cache_pairs(env, &cross, &same);
	s.tb = cross >= 0 ? cross : same;
	s.r = xcalloc(MAX_REQUESTS, sizeof *s.r);
	s.text = xcalloc(MAX_REQUESTS, sizeof *s.text);
	s.open_units = px_units_for(env, opening_tokens(env));
	px_random(env, &s.open_seed, sizeof s.open_seed);
	px_random(env, &s.meas_seed, sizeof s.meas_seed);
	if (measure(env, &s) == 0 && s.reported > 0 && s.block <= MAX_BLOCK &&
	    s.measured_cached >= 2 && s.count_max >= opening_tokens(env) / 4)
		au = plant(env, &s, &a);
	if (au > 0) {
		if (!s.newest)
			prime(env, &s, &a, au);
		controls(env, &s, &a, au);
		recover(env, &s, &a, au);
	}
	out->details = ce_details(env, &s);
	if (au == 0 ? ce_cannot(env, out, &s) == 0 : 1)
		ce_verdict(env, out, &s);
	/* The engine words a run the budget ended in its own terms: where it stopped is kept. */
	if (s.stop && out->verdict != NULL && strcmp(out->verdict, "inconclusive") == 0)
		cJSON_AddStringToObject(out->details, "stopped", out->reason);
	sodium_memzero(s.secret, sizeof s.secret);
	sodium_memzero(a.data ? a.data : s.secret, a.data ? a.len : 0);
	buf_free(&a);
	for (size_t i = 0; i < MAX_REQUESTS; i++)
		if (s.text[i] != NULL) {
			sodium_memzero(s.text[i], strlen(s.text[i]));
			free(s.text[i]);
		}
	px_free(s.r, s.n);
	free(s.r);
	free(s.text);
}

const struct probe probe_cache_extract = {
	"cache-extract", "cache disclosure: can another organisation recover a planted secret "
	"from a shared prompt cache?",
	cache_extract_plan, cache_extract_run, PROBE_OPT_IN, 7, 7,
};
