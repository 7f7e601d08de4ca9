/*
 * stats.h: the statistics behind timing probes. A one-sided Mann-Whitney U
 * test (exact for small samples without ties, else the normal approximation
 * with tie and continuity correction), its effect size (Cliff's delta, which
 * equals the rank-biserial correlation), Noether's sample-size estimate, and
 * the power of the test as a probe applies it: gated on p, on Cliff's delta
 * and on the median saving together, by a seeded (repeatable) Monte Carlo,
 * which turns "not significant" into "had the power to see it" or "would
 * need about N trials". The same for the paired design prefix-timing decides
 * on: Wilcoxon's signed-rank test of per-trial differences, gated on p and the
 * median difference only, with its simulated power and the pairs it needs.
 */
#ifndef AIVET_STATS_H
#define AIVET_STATS_H

#include <stddef.h>
#include <stdint.h>

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

/* A verdict that rejects only when all three hold: p < alpha, Cliff's delta
 * >= min_delta and the difference of the medians >= min_saving. */
struct mwu_gate {
	double alpha, min_delta, min_saving;
};

/* The smallest U for which p < alpha and Cliff's delta >= min_delta, for
 * samples without ties (both only grow with U, so the two gates are one
 * threshold); nx * ny + 1 when no U passes both. */
long mwu_gate_critical_u(size_t nx, size_t ny, double alpha, double min_delta);
/* The probability that the gated test rejects when x and y are normal with
 * common sd and x's mean lies `shift` below y's: the fraction of `sims`
 * simulated experiments (nx + ny draws each) that pass all three gates.
 * Deterministic for a given seed. */
double mwu_gate_power(size_t nx, size_t ny, const struct mwu_gate *g, double shift, double sd,
    unsigned sims, uint64_t seed);
/* The smallest equal group size whose gated power reaches `power`; 0 when no
 * size will (the shift's true delta is at or below the gate, or the shift
 * below min_saving), -1 when more than max_n would be needed. */
long mwu_gate_trials_needed(const struct mwu_gate *g, double shift, double sd, double power,
    long max_n, unsigned sims, uint64_t seed);

/* One look of a sequential design: the gated test of "x is stochastically
 * smaller than y" and, when it does not reject, whether it had the power to
 * see a shift of `shift` under noise `sd` (the effect looked for). */
enum mwu_look_decision {
	MWU_LOOK_REJECT,     /* p, delta and saving all past their gates */
	MWU_LOOK_POWERED,    /* not rejected, with power >= target: the effect is not there */
	MWU_LOOK_UNDECIDED,  /* not rejected, and too little power to say more */
};
struct mwu_look {
	struct mwu test;
	double saving;       /* median(y) - median(x) */
	double power;        /* of the gated test at this look's sizes, for `shift` */
	enum mwu_look_decision decision;
};
/* Returns -1 when a sample is empty or not finite (as mwu_less). */
int mwu_look(const double *x, size_t nx, const double *y, size_t ny, const struct mwu_gate *g,
    double shift, double sd, double power_target, uint64_t seed, struct mwu_look *l);

/* The paired design's test: Wilcoxon's signed-rank test of "the differences d
 * tend to be positive" (one-sided), for a trial's control time minus its primed
 * time. Zero differences are dropped (Wilcoxon's rule), the rest ranked by
 * size with mid-ranks for ties; p is the normal approximation with the tie
 * and continuity corrections. Load that moves both requests of a pair cancels
 * in the difference, which is why a paired test sees savings far below the
 * spread of the times. */
struct wsr {
	size_t n, zeros;    /* differences ranked, and zero ones dropped */
	double w;           /* W+: the rank sum of the positive differences */
	double mean, sd, z; /* of W+ under H0 (sd tie-corrected); z continuity-corrected */
	double p;           /* one-sided P(W+ >= w) under H0 */
	double r;           /* matched-pairs rank-biserial correlation, (W+ - W-) / (W+ + W-) */
};
/* Returns 0, or -1 when n is 0 or a difference is not finite; with every
 * difference zero, p is 1. */
int wsr_greater(const double *d, size_t n, struct wsr *r);

/* A paired verdict rejects when p < alpha and the median difference is at
 * least min_saving: no effect-size floor, so any real saving above
 * min_saving is found at some number of pairs. */
struct paired_gate {
	double alpha, min_saving;
};
/* That rule alone, on differences d: 1 when it rejects, 0 when not, -1 when
 * there is no test (wsr_greater's -1); the test in *w, the median in *saving. */
int wsr_gated(const double *d, size_t n, const struct paired_gate *g, struct wsr *w, double *saving);
/* The probability that the gated paired test rejects with n pairs whose
 * differences are normal with mean shift and sd `sd`: the fraction of `sims`
 * seeded simulated experiments that pass both gates. */
double wsr_gate_power(size_t n, const struct paired_gate *g, double shift, double sd,
    unsigned sims, uint64_t seed);
/* The smallest number of pairs whose gated power reaches `power`; 0 when no
 * number will (the shift is not above min_saving: the median difference
 * settles at the shift, so the saving gate holds at most half the time),
 * -1 when more than max_n would be needed. */
long wsr_gate_trials_needed(const struct paired_gate *g, double shift, double sd, double power,
    long max_n, unsigned sims, uint64_t seed);

/* One look of the paired sequential design, as mwu_look. */
struct wsr_look {
	struct wsr test;
	double saving;       /* the median difference */
	double power;        /* of the gated test at this look's pairs, for `shift` */
	enum mwu_look_decision decision;
};
int wsr_look(const double *d, size_t n, const struct paired_gate *g, double shift, double sd,
    double power_target, uint64_t seed, struct wsr_look *l);

/* Did a paired saving move during the run? d holds the differences in the
 * order sent; the halves' medians go to half[0] and half[1]. It drifted when
 * the halves differ (Mann-Whitney, DRIFT_ALPHA / 2 each way) and the smaller
 * half's median is below DRIFT_KEEP of the larger's (a half that saved nothing
 * is below any share of a saving). Both gates, because either alone fails a
 * stable hit: with a paired noise of 0.3 ms a 30 ms saving that is 0.5 ms
 * smaller in one half differs at p < 0.001, yet it held at 98% of itself; and
 * a 5 ms hit under 6 ms of noise has halves of 15 whose medians fall below half
 * of each other, or below zero, by chance alone. A level of 0.002 keeps such a
 * hit's false "drifted" under 1 in 500, while load that made a saving in one
 * half only differs far past it. Returns 1 or 0, or -1 when a half has fewer
 * than 2 differences or one is not finite. */
#define DRIFT_ALPHA 0.002
#define DRIFT_KEEP 0.5
int saving_drifted(const double *d, size_t n, double half[2]);

/* Median and the scaled median absolute deviation (a robust sd: 1.4826 MAD).
 * v is not changed; n must be > 0. */
double stats_median(const double *v, size_t n);
double stats_mad_sd(const double *v, size_t n);

/* A one-sided lower confidence bound, at level conf, of the median of the
 * distribution v was drawn from: the order statistic of the sign test's
 * interval, with no assumption on the distribution's shape (n = 30 at 0.95:
 * the 11th smallest). NAN when n is too small for the level (below 5 at 0.95),
 * or conf is not inside (0, 1). v is not changed. */
double stats_median_lower(const double *v, size_t n, double conf);

#endif
