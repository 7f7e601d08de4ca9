/*
 * stats.c: the Mann-Whitney U test, its effect size and sample-size
 * estimate, and Wilcoxon's signed-rank test for paired trials (see stats.h). Ranks are mid-ranks so ties count one half; the
 * exact null distribution comes from the recurrence on the largest
 * observation, kept as probabilities so that it only ever adds positive
 * numbers and cannot overflow.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet/engine.h"
#include "stats.h"

static int double_cmp(const void *a, const void *b);
static double sorted_median(const double *s, size_t n);

struct ranked {
	double v;
	int from_x;
};

static int
ranked_cmp(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/* P(U = k), k = 0 .. m n, for samples of m and n without ties. The count of
 * pairs (x > y) has the same null distribution as that of (x < y): when the
 * largest of the m + n values is an x (probability m / (m + n)) it exceeds
 * all n y's. The caller frees the array. */
static double *
exact_null(size_t m, size_t n)
{
	size_t width = m * n + 1;
	double *prev = xcalloc((n + 1) * width, sizeof *prev);
	double *cur = xcalloc((n + 1) * width, sizeof *cur);
	double *dist = xmalloc(width * sizeof *dist);

	for (size_t j = 0; j <= n; j++)
		prev[j * width] = 1;          /* m = 0: U is 0 */
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * width * sizeof *cur);
		cur[0] = 1;                   /* n = 0: U is 0 */
		for (size_t j = 1; j <= n; j++) {
			double px = (double)i / (double)(i + j), py = (double)j / (double)(i + j);
			double *c = cur + j * width, *left = cur + (j - 1) * width, *up = prev + j * width;

			for (size_t k = 0; k <= i * j; k++) {
				double v = 0;

				if (k >= j && k - j <= (i - 1) * j)
					v += px * up[k - j];
				if (k <= i * (j - 1))
					v += py * left[k];
				c[k] = v;
			}
		}
		double *t = prev;
		prev = cur, cur = t;
	}
	memcpy(dist, prev + n * width, width * sizeof *dist);
	free(prev);
	free(cur);
	return dist;
}

/* P(U >= u) for samples of m and n without ties. */
static double
exact_upper_tail(size_t m, size_t n, long u)
{
	double *dist = exact_null(m, n), p = 0;

	for (size_t k = u < 0 ? 0 : (size_t)u; k < m * n + 1; k++)
		p += dist[k];
	free(dist);
	return p > 1 ? 1 : p;
}

int
mwu_less(const double *x, size_t nx, const double *y, size_t ny, struct mwu *r)
{
	size_t n = nx + ny, i, j;
	struct ranked *all;
	double rank_sum_x = 0, tie_term = 0, nn;

	memset(r, 0, sizeof *r);
	if (nx == 0 || ny == 0)
		return -1;
	for (i = 0; i < nx; i++)
		if (!isfinite(x[i]))
			return -1;
	for (i = 0; i < ny; i++)
		if (!isfinite(y[i]))
			return -1;
	all = xmalloc(n * sizeof *all);
	for (i = 0; i < nx; i++)
		all[i] = (struct ranked){ x[i], 1 };
	for (i = 0; i < ny; i++)
		all[nx + i] = (struct ranked){ y[i], 0 };
	qsort(all, n, sizeof *all, ranked_cmp);
	for (i = 0; i < n; i = j) {
		double t, mid;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		mid = ((double)i + 1 + (double)j) / 2;   /* ranks i+1 .. j */
		if (t > 1) {
			r->ties = 1;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (all[k].from_x)
				rank_sum_x += mid;
	}
	free(all);

	r->nx = nx, r->ny = ny;
	nn = (double)nx * (double)ny;
	/* R1 - nx(nx+1)/2 counts pairs with x > y; u counts the other side. */
	r->u = nn - (rank_sum_x - (double)nx * ((double)nx + 1) / 2);
	r->theta = r->u / nn;
	r->delta = 2 * r->theta - 1;
	r->mean = nn / 2;
	r->sd = sqrt(nn / 12 * (((double)n + 1) - tie_term / ((double)n * ((double)n - 1))));
	r->z = r->sd > 0 ? (r->u - r->mean - 0.5) / r->sd : 0;
	if (!r->ties && nx * ny <= MWU_EXACT_MAX_PAIRS) {
		r->exact = 1;
		r->p = exact_upper_tail(nx, ny, lround(r->u));
	} else {
		/* 1 - norm_cdf(z) would lose the far tail; erfc keeps it. */
		r->p = r->sd > 0 ? 0.5 * erfc(r->z / sqrt(2)) : 1;
	}
	return 0;
}

double
norm_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2));
}

double
norm_quantile(double p)
{
	double lo = -40, hi = 40;

	if (!(p > 0 && p < 1))
		return p <= 0 ? -INFINITY : INFINITY;
	/* Bisection on erfc: slower than a rational approximation, exact to the last bits. */
	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = (lo + hi) / 2;

		if (norm_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

long
mwu_trials_needed(double theta, double alpha, double power)
{
	double za = norm_quantile(1 - alpha), zb = norm_quantile(power), d = theta - 0.5;

	if (!(d > 0))
		return 0;
	/* Noether: N = (za + zb)^2 / (12 c (1 - c) (theta - 1/2)^2), c = 1/2, per group N/2. */
	return (long)ceil((za + zb) * (za + zb) / (6 * d * d));
}

double
mwu_power(size_t nx, size_t ny, double theta, double alpha)
{
	double nn = (double)nx * (double)ny, sd0 = sqrt(nn * ((double)(nx + ny) + 1) / 12);

	if (nx == 0 || ny == 0)
		return 0;
	return norm_cdf((theta - 0.5) * nn / sd0 - norm_quantile(1 - alpha));
}

double
theta_for_shift(double shift, double sd)
{
	if (!(sd > 0))
		return shift > 0 ? 1 : shift < 0 ? 0 : 0.5;
	return norm_cdf(shift / (sd * sqrt(2)));
}

/* v sorted, in a copy the caller frees. */
static double *
sorted_copy(const double *v, size_t n)
{
	double *s = xmalloc(n * sizeof *s);

	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, double_cmp);
	return s;
}

double
stats_median(const double *v, size_t n)
{
	double *s = sorted_copy(v, n), m = sorted_median(s, n);

	free(s);
	return m;
}

/* The order statistic that bounds the median from below: the sign test's
 * interval. The k-th smallest of n (1-based) is at most the median with
 * probability P(Bin(n, 1/2) >= k) for any continuous distribution, so the
 * bound is the largest k that keeps P(Bin(n, 1/2) <= k - 1) within 1 - conf. */
double
stats_median_lower(const double *v, size_t n, double conf)
{
	double *s, tail = 0, lb;
	size_t k = 0;

	if (n == 0 || !(conf > 0 && conf < 1))
		return NAN;
	/* P(Bin(n, 1/2) = j) in logs: 2^-n underflows past n = 1074. */
	while (k < n) {
		double j = (double)k, pj = exp(lgamma((double)n + 1) - lgamma(j + 1) -
		    lgamma((double)n - j + 1) - (double)n * M_LN2);

		if (tail + pj > 1 - conf)
			break;
		tail += pj;
		k++;
	}
	if (k == 0)
		return NAN;
	s = sorted_copy(v, n);
	lb = s[k - 1];
	free(s);
	return lb;
}

double
stats_mad_sd(const double *v, size_t n)
{
	double med = stats_median(v, n), *d = xmalloc(n * sizeof *d), mad;

	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	mad = stats_median(d, n);
	free(d);
	return 1.482602218505602 * mad;
}

/* ---- power of the gated test ---- */

/* The normal approximation's p for U = u without ties, as mwu_less computes it. */
static double
normal_p(size_t nx, size_t ny, double u)
{
	double nn = (double)nx * (double)ny, sd = sqrt(nn * ((double)(nx + ny) + 1) / 12);

	return 0.5 * erfc((u - nn / 2 - 0.5) / sd / sqrt(2));
}

long
mwu_gate_critical_u(size_t nx, size_t ny, double alpha, double min_delta)
{
	long nn = (long)(nx * ny), u_p = nn + 1, u_d;

	if (nx == 0 || ny == 0)
		return 1;
	/* 2 u / nn - 1 >= min_delta, checked as mwu_less computes delta. */
	u_d = (long)ceil((double)nn * (1 + min_delta) / 2);
	while (u_d > 0 && 2 * (double)(u_d - 1) / (double)nn - 1 >= min_delta)
		u_d--;
	while (u_d <= nn && 2 * (double)u_d / (double)nn - 1 < min_delta)
		u_d++;
	if (nx * ny <= MWU_EXACT_MAX_PAIRS) {
		double *dist = exact_null(nx, ny), tail = 0;

		/* The tail grows as u falls: the last u whose tail is still below alpha. */
		for (long k = nn; k >= 0; k--) {
			tail += dist[k];
			if (!(tail < alpha))
				break;
			u_p = k;
		}
		free(dist);
	} else {
		double nn2 = (double)nn / 2, sd = sqrt((double)nn * ((double)(nx + ny) + 1) / 12);
		long u = (long)floor(nn2 + 0.5 + norm_quantile(1 - alpha) * sd);

		/* The quantile gives the neighbourhood; the p mwu_less would report decides. */
		if (u < 0)
			u = 0;
		while (u > 0 && normal_p(nx, ny, (double)(u - 1)) < alpha)
			u--;
		while (u <= nn && !(normal_p(nx, ny, (double)u) < alpha))
			u++;
		u_p = u;
	}
	return u_p > u_d ? u_p : u_d;
}

/* n standard normal draws (Box-Muller) from libsodium's deterministic
 * generator: the same seed and experiment give the same draws everywhere. */
static void
mc_normals(uint64_t seed, uint64_t experiment, double *v, size_t n, uint64_t *bits)
{
	unsigned char key[randombytes_SEEDBYTES] = { 0 };
	size_t pairs = (n + 1) / 2;

	memcpy(key, &seed, sizeof seed);
	memcpy(key + sizeof seed, &experiment, sizeof experiment);
	randombytes_buf_deterministic(bits, 2 * pairs * sizeof *bits, key);
	for (size_t i = 0; i < pairs; i++) {
		/* u1 in (0, 1]: log never sees 0. */
		double u1 = ((double)(bits[2 * i] >> 11) + 1) / 9007199254740992.0;
		double u2 = (double)(bits[2 * i + 1] >> 11) / 9007199254740992.0;
		double r = sqrt(-2 * log(u1));

		v[2 * i] = r * cos(2 * M_PI * u2);
		if (2 * i + 1 < n)
			v[2 * i + 1] = r * sin(2 * M_PI * u2);
	}
}

static double
sorted_median(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static int
double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
mwu_gate_power(size_t nx, size_t ny, const struct mwu_gate *g, double shift, double sd,
    unsigned sims, uint64_t seed)
{
	long ucrit = mwu_gate_critical_u(nx, ny, g->alpha, g->min_delta);
	double *x, *y, s, save;
	uint64_t *bits;
	unsigned hits = 0;

	if (nx == 0 || ny == 0 || sims == 0 || ucrit > (long)(nx * ny))
		return 0;
	if (!(sd > 0))
		/* No noise: every x sits shift below every y, U = nx ny. */
		return shift > 0 && shift >= g->min_saving ? 1 : 0;
	/* The test is scale-free: work in units of the noise. */
	s = shift / sd;
	save = g->min_saving / sd;
	x = xmalloc(nx * sizeof *x);
	y = xmalloc(ny * sizeof *y);
	bits = xmalloc((nx + ny + 2) * sizeof *bits);
	for (unsigned k = 0; k < sims; k++) {
		size_t i, j = 0;
		long u = 0;

		mc_normals(seed, 2 * (uint64_t)k, x, nx, bits);
		mc_normals(seed, 2 * (uint64_t)k + 1, y, ny, bits);
		for (i = 0; i < nx; i++)
			x[i] -= s;
		qsort(x, nx, sizeof *x, double_cmp);
		qsort(y, ny, sizeof *y, double_cmp);
		/* U counts pairs x < y: for each x, the y's above it. */
		for (i = 0; i < nx; i++) {
			while (j < ny && y[j] <= x[i])
				j++;
			u += (long)(ny - j);
		}
		if (u >= ucrit && sorted_median(y, ny) - sorted_median(x, nx) >= save)
			hits++;
	}
	free(x);
	free(y);
	free(bits);
	return (double)hits / sims;
}

long
mwu_gate_trials_needed(const struct mwu_gate *g, double shift, double sd, double power,
    long max_n, unsigned sims, uint64_t seed)
{
	long lo, hi;

	/* As n grows the sample delta settles at the true one: below the gate, no n will do. */
	if (!(shift > 0) || (sd > 0 && 2 * theta_for_shift(shift, sd) - 1 <= g->min_delta) ||
	    shift < g->min_saving)
		return 0;
	for (hi = 2; hi <= max_n; hi *= 2)
		if (mwu_gate_power((size_t)hi, (size_t)hi, g, shift, sd, sims, seed) >= power)
			break;
	if (hi > max_n) {
		if (mwu_gate_power((size_t)max_n, (size_t)max_n, g, shift, sd, sims, seed) < power)
			return -1;
		hi = max_n;
	}
	/* Power at lo is below the target, at hi at or above it. */
	lo = hi / 2;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (mwu_gate_power((size_t)mid, (size_t)mid, g, shift, sd, sims, seed) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Experiments simulated for a look's power: within about 0.01 of it. */
#define LOOK_SIMS 2000

int
mwu_look(const double *x, size_t nx, const double *y, size_t ny, const struct mwu_gate *g,
    double shift, double sd, double power_target, uint64_t seed, struct mwu_look *l)
{
	memset(l, 0, sizeof *l);
	if (mwu_less(x, nx, y, ny, &l->test) != 0)
		return -1;
	l->saving = stats_median(y, ny) - stats_median(x, nx);
	/* Reported either way: what a rejection had, or why a non-rejection says nothing. */
	l->power = mwu_gate_power(nx, ny, g, shift, sd, LOOK_SIMS, seed);
	if (l->test.p < g->alpha && l->test.delta >= g->min_delta && l->saving >= g->min_saving)
		l->decision = MWU_LOOK_REJECT;
	else
		l->decision = l->power >= power_target ? MWU_LOOK_POWERED : MWU_LOOK_UNDECIDED;
	return 0;
}

/* ---- the paired design: Wilcoxon's signed-rank test ---- */

/* W+'s p under H0 for n nonzero differences, tie term sum(t^3 - t). */
static void
wsr_normal(struct wsr *r, double tie_term)
{
	double n = (double)r->n;

	r->mean = n * (n + 1) / 4;
	r->sd = sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48);
	r->z = r->sd > 0 ? (r->w - r->mean - 0.5) / r->sd : 0;
	/* 1 - norm_cdf(z) would lose the far tail; erfc keeps it. */
	r->p = r->sd > 0 ? 0.5 * erfc(r->z / sqrt(2)) : 1;
}

int
wsr_greater(const double *d, size_t n, struct wsr *r)
{
	struct ranked *a;
	double tie_term = 0, total;
	size_t i, j, m = 0;

	memset(r, 0, sizeof *r);
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -1;
	a = xmalloc(n * sizeof *a);
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = (struct ranked){ fabs(d[i]), d[i] > 0 };
	r->n = m;
	r->zeros = n - m;
	qsort(a, m, sizeof *a, ranked_cmp);
	for (i = 0; i < m; i = j) {
		double t, mid;

		for (j = i + 1; j < m && a[j].v == a[i].v; j++)
			;
		t = (double)(j - i);
		mid = ((double)i + 1 + (double)j) / 2;
		tie_term += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (a[k].from_x)
				r->w += mid;
	}
	free(a);
	total = (double)m * ((double)m + 1) / 2;
	r->r = m > 0 ? (2 * r->w - total) / total : 0;
	wsr_normal(r, tie_term);
	return 0;
}

static int
abs_cmp(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return (x > y) - (x < y);
}

double
wsr_gate_power(size_t n, const struct paired_gate *g, double shift, double sd, unsigned sims,
    uint64_t seed)
{
	double *d, *s, save;
	uint64_t *bits;
	unsigned hits = 0;

	if (n == 0 || sims == 0)
		return 0;
	if (!(sd > 0)) {
		/* No noise: every difference is the shift, W+ its largest. */
		struct wsr w = { .n = n, .w = (double)n * ((double)n + 1) / 2 };

		wsr_normal(&w, 0);
		return shift > 0 && shift >= g->min_saving && w.p < g->alpha ? 1 : 0;
	}
	/* Scale-free: in units of the noise. */
	save = g->min_saving / sd;
	d = xmalloc(n * sizeof *d);
	s = xmalloc(n * sizeof *s);
	bits = xmalloc((n + 2) * sizeof *bits);
	for (unsigned k = 0; k < sims; k++) {
		struct wsr w = { .n = n };

		mc_normals(seed, (uint64_t)k, d, n, bits);
		for (size_t i = 0; i < n; i++)
			d[i] += shift / sd;
		memcpy(s, d, n * sizeof *s);
		qsort(s, n, sizeof *s, double_cmp);
		if (sorted_median(s, n) < save)
			continue;
		/* Continuous draws: no ties and no zeros, ranks 1 .. n. */
		qsort(d, n, sizeof *d, abs_cmp);
		for (size_t i = 0; i < n; i++)
			if (d[i] > 0)
				w.w += (double)(i + 1);
		wsr_normal(&w, 0);
		if (w.p < g->alpha)
			hits++;
	}
	free(d);
	free(s);
	free(bits);
	return (double)hits / sims;
}

long
wsr_gate_trials_needed(const struct paired_gate *g, double shift, double sd, double power,
    long max_n, unsigned sims, uint64_t seed)
{
	long lo, hi;

	if (!(shift > 0) || !(shift > g->min_saving))
		return 0;
	for (hi = 2; hi <= max_n; hi *= 2)
		if (wsr_gate_power((size_t)hi, g, shift, sd, sims, seed) >= power)
			break;
	if (hi > max_n) {
		if (wsr_gate_power((size_t)max_n, g, shift, sd, sims, seed) < power)
			return -1;
		hi = max_n;
	}
	lo = hi / 2;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (wsr_gate_power((size_t)mid, g, shift, sd, sims, seed) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int
wsr_gated(const double *d, size_t n, const struct paired_gate *g, struct wsr *w, double *saving)
{
	*saving = 0;
	if (wsr_greater(d, n, w) != 0)
		return -1;
	*saving = stats_median(d, n);
	/* No effect-size gate: a saving past min_saving at p below alpha is a rejection at
	 * any number of pairs. */
	return w->p < g->alpha && *saving >= g->min_saving;
}

int
saving_drifted(const double *d, size_t n, double half[2])
{
	size_t h = n / 2;
	struct mwu down, up;

	half[0] = half[1] = 0;
	if (h < 2 || mwu_less(d + h, n - h, d, h, &down) != 0 || mwu_less(d, h, d + h, n - h, &up) != 0)
		return -1;
	half[0] = stats_median(d, h);
	half[1] = stats_median(d + h, n - h);
	if (!(down.p < DRIFT_ALPHA / 2 || up.p < DRIFT_ALPHA / 2))
		return 0;
	return fmin(half[0], half[1]) < DRIFT_KEEP * fmax(half[0], half[1]);
}

int
wsr_look(const double *d, size_t n, const struct paired_gate *g, double shift, double sd,
    double power_target, uint64_t seed, struct wsr_look *l)
{
	int rejects;

	memset(l, 0, sizeof *l);
	if ((rejects = wsr_gated(d, n, g, &l->test, &l->saving)) < 0)
		return -1;
	l->power = wsr_gate_power(n, g, shift, sd, LOOK_SIMS, seed);
	if (rejects)
		l->decision = MWU_LOOK_REJECT;
	else if (l->power >= power_target)
		l->decision = MWU_LOOK_POWERED;
	else
		l->decision = MWU_LOOK_UNDECIDED;
	return 0;
}
