/*
 * stats.c: the Mann-Whitney U test, its effect size and sample-size
 * estimate (see stats.h). Ranks are mid-ranks so ties count one half; the
 * exact null distribution comes from the recurrence on the largest
 * observation, kept as probabilities so that it only ever adds positive
 * numbers and cannot overflow.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aivet.h"
#include "stats.h"

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

/* P(U >= u) for samples of m and n without ties. The count of pairs (x > y)
 * has the same null distribution as that of (x < y): when the largest of the
 * m + n values is an x (probability m / (m + n)) it exceeds all n y's. */
static double
exact_upper_tail(size_t m, size_t n, long u)
{
	size_t width = m * n + 1;
	double *prev = xcalloc((n + 1) * width, sizeof *prev);
	double *cur = xcalloc((n + 1) * width, sizeof *cur);
	double p = 0;

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
	for (size_t k = u < 0 ? 0 : (size_t)u; k < width; k++)
		p += prev[n * width + k];
	free(prev);
	free(cur);
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

static int
double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
stats_median(const double *v, size_t n)
{
	double *s = xmalloc(n * sizeof *s), m;

	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, double_cmp);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
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
