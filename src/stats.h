/*
 * stats.h: the statistics behind timing probes. A one-sided Mann-Whitney U
 * test (exact for small samples without ties, else the normal approximation
 * with tie and continuity correction), its effect size (Cliff's delta, which
 * equals the rank-biserial correlation), and Noether's sample-size estimate
 * that turns "not significant" into "would need about N trials".
 */
#ifndef AIVET_STATS_H
#define AIVET_STATS_H

#include <stddef.h>

/* Exact p-values are computed when there are no ties and nx * ny is at most this. */
#define MWU_EXACT_MAX_PAIRS 2500

struct mwu {
	size_t nx, ny;
	double u;        /* pairs with x < y, ties counting one half */
	double mean, sd; /* of U under H0; sd with the tie correction */
	double z;        /* (u - mean - 0.5) / sd: continuity-corrected */
	double p;        /* one-sided P(U >= u) under H0: small when x tends to be smaller */
	int exact;       /* p is exact rather than the normal approximation */
	int ties;        /* some value occurs in both or within a sample more than once */
	double theta;    /* probability of superiority: P(x < y) + P(x = y) / 2 = u / (nx ny) */
	double delta;    /* Cliff's delta, P(x < y) - P(x > y) = 2 theta - 1, in [-1, 1] */
};

/* Tests H1 "x is stochastically smaller than y". Returns 0, or -1 when a
 * sample is empty or holds a value that is not finite. */
int mwu_less(const double *x, size_t nx, const double *y, size_t ny, struct mwu *r);

/* Standard normal distribution function and its inverse (0 < p < 1). */
double norm_cdf(double z);
double norm_quantile(double p);

/* Noether (1987): trials per group needed for a one-sided Mann-Whitney test
 * at level alpha to reach `power` when P(x < y) = theta, with equal groups.
 * 0 when theta <= 0.5 (no effect in the tested direction: no number suffices). */
long mwu_trials_needed(double theta, double alpha, double power);
/* The approximate power of the test with nx, ny trials when P(x < y) = theta. */
double mwu_power(size_t nx, size_t ny, double theta, double alpha);
/* P(x < y) for two normal samples whose means differ by shift with common sd:
 * the theta a given shift produces under that noise. */
double theta_for_shift(double shift, double sd);

/* Median and the scaled median absolute deviation (a robust sd: 1.4826 MAD).
 * v is not changed; n must be > 0. */
double stats_median(const double *v, size_t n);
double stats_mad_sd(const double *v, size_t n);

#endif
