/*
 * test-stats.c: the Mann-Whitney U test against published and independently
 * computed values. The expected p-values come from scipy 1.10
 * (scipy.stats.mannwhitneyu(x, y, alternative="less", method=...)), run once
 * when this table was written; the first case is the worked example of
 * scipy's documentation (Conover), p = 7/126 exactly. The power of the
 * gated test (p, Cliff's delta and median saving together) is checked
 * against cases worked out by hand: the exact null distribution of U for
 * 3 + 3 values (counts 1,1,2,3,3,3,3,2,1,1 of 20 orderings), a single pair
 * (power = P(x < y) = Phi(shift / (sd sqrt 2))), and Noether's formula where
 * the delta gate does not bind.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "aivet/domain.h"
#include "stats.h"
#include "../lib/tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const double conover_x[] = { 20, 11, 17, 12 };
static const double conover_y[] = { 19, 22, 16, 29, 24 };
static const double a12_x[] = { 3.1, 4.7, 2.2, 5.9, 1.4, 6.3, 2.8, 3.9, 4.1, 0.7, 5.2, 2.5 };
static const double a12_y[] = { 4.4, 6.8, 5.5, 7.1, 3.3, 8.2, 6.1, 5.0, 7.7, 4.9, 6.6, 9.0, 5.8,
	3.6, 7.4 };
static const double ties_x[] = { 1, 2, 2, 3, 3, 3, 4, 5 };
static const double ties_y[] = { 2, 3, 4, 4, 5, 5, 6, 6, 7 };
static const double larger_x[] = { 10, 11, 12, 13, 14 };
static const double larger_y[] = { 1, 2, 3, 4, 5, 6 };
/* 60 + 60 draws without ties: 3600 pairs, over the exact limit. */
static const double big_x[] = { 10.002, 10.597, 9.452, 8.219, 9.091, 8.017, 10.12, 12.68, 9.016,
	8.759, 10.98, 10.714, 10.211, 8.139, 9.941, 11.391, 7.312, 9.085, 6.198, 7.421, 6.317, 9.53,
	7.465, 10.543, 10.314, 9.626, 4.966, 8.923, 9.903, 10.227, 6.94, 9.044, 8.043, 8.382, 12.122,
	8.385, 9.935, 11.769, 8.833, 9.777, 10.221, 10.128, 7.55, 10.152, 12.718, 6.906, 11.719,
	10.239, 8.717, 14.001, 11.525, 7.601, 10.149, 11.153, 9.622, 11.366, 9.867, 11.334, 12.877,
	8.649 };
static const double big_y[] = { 11.406, 10.073, 11.255, 8.626, 9.841, 10.608, 12.798, 13.29,
	8.353, 9.411, 12.294, 7.015, 10.074, 10.805, 13.514, 12.379, 10.346, 10.263, 10.5, 14.047,
	10.144, 10.393, 11.705, 10.758, 10.605, 8.772, 10.977, 10.113, 13.332, 12.306, 10.952, 12.337,
	10.32, 13.104, 10.989, 12.167, 8.418, 11.693, 7.624, 6.929, 10.391, 9.2, 11.328, 15.49, 9.337,
	9.752, 11.411, 11.986, 10.647, 10.588, 12.405, 12.04, 8.933, 10.842, 11.071, 8.891, 11.52,
	9.284, 12.944, 11.385 };
/* 50 + 50 draws without ties: 2500 pairs, the largest exact case. */
static const double e50_x[] = { 0.0893, -0.591, -0.1186, -1.9977, -1.1314, 0.3628, -2.1286,
	0.8466, -1.7461, 0.7567, -0.8455, 0.779, 0.131, -1.5368, 1.2491, 1.4417, -0.0658, -0.2739,
	-0.1599, -0.9752, 1.0986, -0.5429, -0.0512, -0.7933, -0.6261, -1.2777, 1.2571, -0.1541,
	0.9659, 0.0133, -0.6944, -0.3267, -0.5602, 0.008, -0.3753, -0.2999, -1.3786, -0.8068, 1.6541,
	-0.6712, -1.0541, 0.3373, 1.4073, -1.454, -0.2085, -0.6321, -1.761, 0.7349, -0.0234, 0.0714 };
static const double e50_y[] = { -0.3523, 0.8548, -0.1393, 0.2571, -0.7083, -0.8161, 1.7355,
	-0.1071, 0.6917, 0.3662, -0.0411, -0.108, 1.0301, 0.0981, 0.2486, 0.4222, 1.5765, 1.0805,
	0.7826, -0.1636, -0.982, 1.3495, 1.3664, 0.2593, 0.9419, 1.1814, 1.2312, 1.3214, -0.0556,
	1.915, -0.8466, 1.2617, 0.8939, 1.2736, 2.279, 1.8844, -0.7452, -1.2887, 1.2169, -0.615,
	0.3876, 1.2397, -1.2438, -1.71, 0.6593, 0.4444, 0.1542, 0.4385, -0.4605, -1.1135 };

static const struct {
	const char *name;
	const double *x, *y;
	size_t nx, ny;
	double u, p;
	int exact, ties;
} cases[] = {
	{ "Conover (scipy docs), exact", conover_x, conover_y, N(conover_x), N(conover_y),
	  17, 0.05555555555555555, 1, 0 },
	{ "12 x 15 without ties, exact", a12_x, a12_y, N(a12_x), N(a12_y),
	  153, 0.0007106591976695625, 1, 0 },
	{ "8 x 9 with ties, normal with tie correction", ties_x, ties_y, N(ties_x), N(ties_y),
	  58.5, 0.015879478574031856, 0, 1 },
	{ "x entirely larger, exact", larger_x, larger_y, N(larger_x), N(larger_y),
	  0, 1.0, 1, 0 },
	{ "60 x 60, normal approximation", big_x, big_y, N(big_x), N(big_y),
	  2533, 6.0367743561235966e-05, 0, 0 },
	{ "50 x 50, exact", e50_x, e50_y, N(e50_x), N(e50_y),
	  1703, 0.0008081448289528896, 1, 0 },
};

static int
close_to(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-300;
}

static void
test_mwu_table(void)
{
	for (size_t i = 0; i < N(cases); i++) {
		struct mwu r;

		ok(mwu_less(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny, &r) == 0, "%s: computed",
		    cases[i].name);
		ok(r.u == cases[i].u, "%s: U = %g (want %g)", cases[i].name, r.u, cases[i].u);
		ok(close_to(r.p, cases[i].p, 1e-9), "%s: p = %.17g (want %.17g)", cases[i].name, r.p,
		    cases[i].p);
		is_int(r.exact, cases[i].exact, "%s: exact or approximate as expected", cases[i].name);
		is_int(r.ties, cases[i].ties, "%s: ties noticed", cases[i].name);
		ok(close_to(r.delta, 2 * cases[i].u / ((double)cases[i].nx * (double)cases[i].ny) - 1,
		    1e-12), "%s: Cliff's delta = %g", cases[i].name, r.delta);
	}
}

static void
test_mwu_edges(void)
{
	struct mwu r;
	double one[] = { 1 }, nan_[] = { 1, NAN }, same[] = { 5, 5, 5 };
	double hand_x[] = { 1, 2 }, hand_y[] = { 3, 4 };

	ok(mwu_less(one, 0, one, 1, &r) == -1, "an empty sample is refused");
	ok(mwu_less(nan_, 2, one, 1, &r) == -1, "a NaN is refused");
	ok(mwu_less(same, 3, same, 3, &r) == 0 && r.p == 1 && r.theta == 0.5 && r.delta == 0,
	    "all values equal: p = 1, theta = 1/2, delta = 0 (no division by zero)");
	ok(mwu_less(hand_x, 2, hand_y, 2, &r) == 0 && r.u == 4 && r.delta == 1,
	    "every x below every y: U = nx ny, delta = 1");
	ok(close_to(r.p, 1.0 / 6, 1e-12), "and p = 1 / C(4,2) = 1/6 exactly (%.17g)", r.p);
	ok(mwu_less(hand_y, 2, hand_x, 2, &r) == 0 && r.u == 0 && r.delta == -1 && close_to(r.p, 1, 1e-12),
	    "every x above every y: U = 0, delta = -1, p = 1");
}

static void
test_helpers(void)
{
	double v[] = { 3, 1, 4, 1, 5, 9, 2, 6 }, w[] = { 7, 1, 3 };

	ok(close_to(norm_quantile(0.99), 2.3263478740408408, 1e-12), "z(0.99) = %.17g",
	    norm_quantile(0.99));
	ok(close_to(norm_quantile(0.8), 0.8416212335729143, 1e-12), "z(0.80) = %.17g",
	    norm_quantile(0.8));
	ok(close_to(norm_cdf(1.2345), 0.8914916766373298, 1e-14), "Phi(1.2345)");
	/* Noether's formula; the figures were worked out with scipy.stats.norm. */
	is_int(mwu_trials_needed(0.75, 0.01, 0.8), 27, "theta 0.75, alpha 0.01, power 0.8: 27 per group");
	is_int(mwu_trials_needed(0.6, 0.01, 0.8), 168, "theta 0.6: 168 per group");
	is_int(mwu_trials_needed(0.9, 0.01, 0.8), 11, "theta 0.9: 11 per group");
	is_int(mwu_trials_needed(0.5, 0.01, 0.8), 0, "no effect: no number of trials suffices (0)");
	is_int(mwu_trials_needed(0.3, 0.01, 0.8), 0, "effect the other way: 0");
	ok(close_to(mwu_power(30, 30, 0.75, 0.01), 0.8413805176474238, 1e-12), "power at 30 + 30, "
	    "theta 0.75: %.17g", mwu_power(30, 30, 0.75, 0.01));
	ok(close_to(theta_for_shift(10, 4), 0.9614500641282291, 1e-12), "theta for a 10 ms shift "
	    "under 4 ms noise");
	ok(theta_for_shift(1, 0) == 1 && theta_for_shift(0, 0) == 0.5, "theta without noise");
	ok(stats_median(v, 8) == 3.5 && stats_median(w, 3) == 3, "median of even and odd counts");
	ok(v[0] == 3 && v[7] == 6, "the median leaves its input alone");
	ok(close_to(stats_mad_sd(v, 8), 2.965204437011204, 1e-12), "scaled MAD");
}

static void
test_gate_critical(void)
{
	/* 2 + 2: P(U = 4) = 1/6, P(U >= 3) = 1/3. */
	is_int(mwu_gate_critical_u(2, 2, 0.2, 0), 4, "2 + 2 at alpha 0.2: only U = 4 (p = 1/6) rejects");
	is_int(mwu_gate_critical_u(2, 2, 0.1, 0), 5, "2 + 2 at alpha 0.1: no U rejects (nx ny + 1)");
	is_int(mwu_gate_critical_u(3, 3, 0.06, 0), 9, "3 + 3 at alpha 0.06: U = 9 (p = 1/20)");
	is_int(mwu_gate_critical_u(3, 3, 0.5, 0), 6, "3 + 3 at alpha 0.5: U = 6 (p = 7/20; U = 5 has p = 1/2)");
	is_int(mwu_gate_critical_u(3, 3, 0.5, 0.5), 7, "3 + 3 with the delta gate 0.5: U = 7 (2 * 7/9 - 1 = 0.56)");
	/* 60 + 60: normal; mean 1800, sd sqrt(3600 * 121 / 12) = 190.526; z(0.99) = 2.32635. */
	is_int(mwu_gate_critical_u(60, 60, 0.01, 0), 2244, "60 + 60 at alpha 0.01: U = 2244 "
	    "((2244 - 1800.5) / 190.526 = 2.3278 > 2.32635 > 2.3225)");
	is_int(mwu_gate_critical_u(60, 60, 0.01, 0.474), 2654, "60 + 60 with delta >= 0.474: the delta gate "
	    "binds, U = ceil(3600 * 1.474 / 2) = 2654");
}

static void
test_gate_power(void)
{
	struct mwu_gate open = { 0.6, 0, -INFINITY }, h0 = { 0.06, 0, -INFINITY };
	struct mwu_gate plain = { 0.01, 0, -INFINITY }, gated = { 0.01, 0.474, -INFINITY };
	struct mwu_gate saving = { 0.01, 0, 1.0 };
	double p, q;
	long n;

	/* One pair: U = 1 (p = 1/2) rejects at 0.6; power = Phi(sqrt 2 / sqrt 2) = Phi(1). */
	p = mwu_gate_power(1, 1, &open, sqrt(2), 1, 20000, 1);
	ok(fabs(p - 0.8413447460685429) < 0.01, "one pair: power = Phi(1) = 0.8413 (got %.4f)", p);
	/* No effect: the power is the exact size of the test, P(U = 9) = 1/20 for 3 + 3. */
	p = mwu_gate_power(3, 3, &h0, 0, 1, 20000, 2);
	ok(fabs(p - 0.05) < 0.006, "3 + 3, no shift: rejects 1/20 of the time (got %.4f)", p);
	q = mwu_gate_power(3, 3, &h0, 0, 1, 20000, 2);
	ok(p == q, "the same seed gives the same power");
	ok(mwu_gate_power(30, 30, &plain, 1, 0, 100, 1) == 1 &&
	    mwu_gate_power(30, 30, &saving, 0.5, 0, 100, 1) == 0,
	    "no noise: power 1 for a shift, 0 for a shift below the saving gate");
	/* The gate caps the power: a true delta of 0.3 (theta 0.65, shift 0.54493 sd) never
	 * shows a sample delta of 0.474, however many trials; without the gate 250 suffice. */
	p = mwu_gate_power(250, 250, &gated, 0.54493, 1, 2000, 3);
	q = mwu_gate_power(250, 250, &plain, 0.54493, 1, 2000, 3);
	ok(p < 0.01, "delta gate 0.474, true delta 0.3, 250 + 250: power %.4f < 0.01", p);
	ok(q > 0.99, "no delta gate: power %.4f > 0.99", q);
	ok(mwu_power(250, 250, 0.65, 0.01) > 0.99, "which is what Noether's power, blind to the gate, "
	    "claims for both");
	is_int(mwu_gate_trials_needed(&gated, 0.54493, 1, 0.8, 4096, 500, 4), 0,
	    "delta gate 0.474, true delta 0.3: no number of trials will do (0)");
	/* Where the gate does not bind, the simulation agrees with Noether (theta 0.75: 27). */
	n = mwu_gate_trials_needed(&plain, 0.95387, 1, 0.8, 4096, 2000, 5);
	ok(n >= 23 && n <= 29, "theta 0.75, alpha 0.01, power 0.8: %ld trials, Noether says 27", n);
	/* The saving gate: a 1 ms shift under 1 ms noise cannot pass a 2 ms median gate. */
	saving.min_saving = 2;
	is_int(mwu_gate_trials_needed(&saving, 1, 1, 0.8, 4096, 500, 6), 0,
	    "a shift below the median-saving gate: no number of trials will do (0)");
	is_int(mwu_gate_trials_needed(&plain, 0.05, 1, 0.8, 64, 200, 7), -1,
	    "a tiny shift: more than the 64 allowed (-1)");
}

/* n ideal normal draws: the quantiles (i + 1/2) / n of N(mean, sd), no ties. */
static double *
ideal(size_t n, double mean, double sd)
{
	double *v = xmalloc(n * sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = mean + sd * norm_quantile(((double)i + 0.5) / (double)n);
	return v;
}

static void
test_look(void)
{
	struct mwu_gate g = { 0.0025, 0.147, 5 };
	struct mwu_look l;
	double *y30 = ideal(30, 100, 1), *x_fast = ideal(30, 90, 1), *x_same = ideal(30, 100.001, 1);
	double *y_noisy = ideal(30, 100, 20), *x_noisy = ideal(30, 100.001, 20), *x_small = ideal(30, 97, 0.1);
	double *y_small = ideal(30, 100, 0.1), *y1000 = ideal(1000, 0, 1), *x1000 = ideal(1000, -0.15, 1);
	double *y_past = ideal(30, 100, 9.5), *x_past = ideal(30, 100.001, 9.5);
	double *y_short = ideal(30, 100, 12), *x_short = ideal(30, 100.001, 12);
	double *y_p = ideal(30, 100, 10), *x_p = ideal(30, 97, 10);

	ok(mwu_look(x_fast, 30, y30, 30, &g, 10, 1, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_REJECT,
	    "look: 10 ms faster under 1 ms noise: rejected (p %.2g, delta %.2f, saving %.1f)", l.test.p,
	    l.test.delta, l.saving);
	ok(mwu_look(x_same, 30, y30, 30, &g, 10, 1, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_POWERED &&
	    l.power > 0.99, "look: no difference, and a 10 ms effect under 1 ms noise would have shown: "
	    "powered (power %.3f)", l.power);
	/* Rule "pass needs power": 10 ms under 20 ms noise at 30 + 30 has power near 0.2. */
	ok(mwu_look(x_noisy, 30, y_noisy, 30, &g, 10, 20, 0.8, 1, &l) == 0 &&
	    l.decision == MWU_LOOK_UNDECIDED && l.power < 0.5, "rule pass needs power: no difference under "
	    "20 ms noise at 30 trials is undecided, not a pass (power %.3f)", l.power);
	/* Between those two, on either side of the 0.8 power target: 10 ms under 9.5 ms noise
	 * has power about 0.86 (a pass), under 12 ms noise about 0.61 (undecided). */
	ok(mwu_look(x_past, 30, y_past, 30, &g, 10, 9.5, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_POWERED &&
	    l.power > 0.82 && l.power < 0.89, "rule pass needs power: under 9.5 ms noise, power %.3f is past "
	    "the 0.8 target: powered", l.power);
	ok(mwu_look(x_short, 30, y_short, 30, &g, 10, 12, 0.8, 1, &l) == 0 &&
	    l.decision == MWU_LOOK_UNDECIDED && l.power > 0.55 && l.power < 0.7, "rule pass needs power: "
	    "under 12 ms noise, power %.3f is short of the 0.8 target: undecided, though over one half",
	    l.power);
	/* Rule "median saving gate": 3 ms faster, significant and large, yet below the 5 ms gate. */
	ok(mwu_look(x_small, 30, y_small, 30, &g, 10, 0.1, 0.8, 1, &l) == 0 && l.test.p < 0.0025 &&
	    l.test.delta == 1 && l.decision == MWU_LOOK_POWERED, "rule median saving gate: 3 ms faster "
	    "(p %.2g, delta 1) is no rejection under a 5 ms gate", l.test.p);
	/* Rule "Cliff's delta gate": 0.15 sd faster over 1000 + 1000: p tiny, delta 0.085 < 0.147. */
	g.min_saving = 0.1;
	ok(mwu_look(x1000, 1000, y1000, 1000, &g, 0.5, 1, 0.8, 1, &l) == 0 && l.test.p < 0.0025 &&
	    l.test.delta < 0.147 && l.saving >= 0.1 && l.decision != MWU_LOOK_REJECT,
	    "rule Cliff's delta gate: p %.2g and saving %.2f pass, delta %.3f does not: no rejection",
	    l.test.p, l.saving, l.test.delta);
	/* Rule "p-value gate": 3 ms faster under 10 ms noise at 30 + 30: delta and saving
	 * past their gates, p about 0.13. */
	g.min_saving = 1;
	ok(mwu_look(x_p, 30, y_p, 30, &g, 10, 10, 0.8, 1, &l) == 0 && l.test.delta >= 0.147 &&
	    l.saving >= 1 && l.test.p >= 0.0025 && l.decision != MWU_LOOK_REJECT,
	    "rule p-value gate: delta %.3f and saving %.1f pass, p %.3f does not: no rejection",
	    l.test.delta, l.saving, l.test.p);
	ok(mwu_look(x1000, 0, y1000, 1000, &g, 0.5, 1, 0.8, 1, &l) == -1, "look: an empty sample is refused");
	free(y30), free(x_fast), free(x_same), free(y_noisy), free(x_noisy), free(x_small);
	free(y_small), free(y1000), free(x1000), free(y_past), free(x_past), free(y_short), free(x_short);
	free(y_p), free(x_p);
}

/* The paired test: Wilcoxon's signed-rank test of differences tending positive. The
 * expected values are the textbook formulas worked by hand (mid-ranks 1.5, 1.5, 3.5,
 * 3.5, 5, 6, 7 for the second case, its zero dropped, tie term 12). */
static void
test_wsr(void)
{
	static const double d1[] = { 1, 2, -3, 4, 5 };
	static const double d2[] = { 0, 1, -1, 2, 2, 3, -4, 5 };
	static const double bad[] = { 1, NAN };
	struct wsr r;

	ok(wsr_greater(d1, N(d1), &r) == 0 && r.n == 5 && r.zeros == 0 && r.w == 12 &&
	    close_to(r.z, 1.0787197799411874, 1e-12) && close_to(r.p, 0.1403563326342479, 1e-12) &&
	    close_to(r.r, 0.6, 1e-12), "signed rank: W+ 12 of 15, z %.6f, p %.6f, r %.2f", r.z, r.p,
	    r.r);
	ok(wsr_greater(d2, N(d2), &r) == 0 && r.n == 7 && r.zeros == 1 && r.w == 20.5 &&
	    close_to(r.z, 1.0178267156159653, 1e-12) && close_to(r.p, 0.15438015676376626, 1e-12) &&
	    close_to(r.r, 13.0 / 28, 1e-12), "signed rank with ties and a zero: W+ 20.5, z %.6f, p %.6f",
	    r.z, r.p);
	ok(wsr_greater(d1, 0, &r) == -1 && wsr_greater(bad, 2, &r) == -1,
	    "signed rank: no differences, or one not finite, is refused");
}

/* The gated paired test's power and the pairs it needs: no effect-size floor, so any
 * shift past the saving gate is found at some number of pairs. */
static void
test_wsr_power(void)
{
	struct paired_gate g = { 0.0025, 1 }, open = { 0.05, -INFINITY };
	double p;
	long n;

	/* Under H0 the power is the size of the test. */
	p = wsr_gate_power(30, &open, 0, 1, 20000, 5);
	ok(p > 0.045 && p < 0.056, "paired: no shift, alpha 0.05, 30 pairs: rejects %.4f of the time", p);
	/* An independent simulation (Python's random.gauss, 4,000 experiments) gave 0.357;
	 * Noether's asymptotic Phi(0.5 sqrt(90 / pi) - z(0.9975)) = 0.448 overstates it at
	 * 30 pairs and alpha 0.0025. */
	p = wsr_gate_power(30, &(struct paired_gate){ 0.0025, -INFINITY }, 0.5, 1, 4000, 6);
	ok(p > 0.31 && p < 0.40, "paired: 0.5 sd, 30 pairs, alpha 0.0025: power %.3f, about 0.36", p);
	ok(wsr_gate_power(30, &g, 2, 0, 100, 1) == 1 && wsr_gate_power(30, &g, 0.5, 0, 100, 1) == 0,
	    "paired, no noise: power 1 for a shift past the saving gate, 0 below it");
	/* ((z(0.9975) + z(0.8)) / 0.5)^2 pi / 3 = 55.8 pairs asymptotically; at this size
	 * the simulated test needs a few more. */
	n = wsr_gate_trials_needed(&(struct paired_gate){ 0.0025, -INFINITY }, 0.5, 1, 0.8, 4096, 400,
	    7);
	ok(n >= 56 && n <= 75, "paired: 0.5 sd at alpha 0.0025, power 0.8: %ld pairs, 56 or more", n);
	/* A Cliff's delta of 0.10 between the groups (0.178 sd) under pairing that halves
	 * nothing: many pairs, but a number; the old delta floor of 0.147 said none. */
	n = wsr_gate_trials_needed(&(struct paired_gate){ 0.0025, 0 }, 0.178, 1.414, 0.8, 4096, 400, 8);
	ok(n > 250 && n < 4096, "paired: a delta-0.10 hit with unpaired noise needs %ld pairs, a number", n);
	ok(wsr_gate_trials_needed(&g, 1, 5, 0.8, 4096, 400, 1) == 0 &&
	    wsr_gate_trials_needed(&g, 0, 5, 0.8, 4096, 400, 1) == 0,
	    "paired: a shift not above the saving gate: no number of pairs (0)");
	ok(wsr_gate_trials_needed(&g, 1.5, 50, 0.8, 64, 100, 1) == -1,
	    "paired: more than max_n needed: -1");
}

static void
test_wsr_look(void)
{
	struct paired_gate g = { 0.0025, 1 };
	struct wsr_look l;
	double *big = ideal(30, 10, 1), *none = ideal(30, 0.001, 1), *tiny = ideal(30, 0.5, 0.1);
	double *noisy = ideal(30, 2, 4), *wide = ideal(30, 0.001, 40), *mid = ideal(30, 0.001, 16);
	double *fine = ideal(30, 0.001, 12);

	ok(wsr_look(big, 30, &g, 5, 1, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_REJECT,
	    "paired look: 10 ms saved under 1 ms noise: rejected (p %.2g)", l.test.p);
	/* Rule "saving gate": 0.5 ms saved in every pair, p tiny, yet below the 1 ms gate. */
	ok(wsr_look(tiny, 30, &g, 5, 0.1, 0.8, 1, &l) == 0 && l.test.p < 0.0025 &&
	    l.decision == MWU_LOOK_POWERED, "rule paired saving gate: 0.5 ms saved (p %.2g) is no "
	    "rejection under a 1 ms gate", l.test.p);
	/* Rule "p gate": 2 ms saved under 4 ms noise in 30 pairs: saving past the gate, p not. */
	ok(wsr_look(noisy, 30, &g, 5, 4, 0.8, 1, &l) == 0 && l.saving >= 1 && l.test.p >= 0.0025 &&
	    l.decision != MWU_LOOK_REJECT, "rule paired p gate: saving %.1f ms, p %.3g above 0.0025: no "
	    "rejection", l.saving, l.test.p);
	ok(wsr_look(none, 30, &g, 5, 1, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_POWERED &&
	    l.power > 0.99, "paired look: nothing saved, and 5 ms would have shown: powered (%.3f)",
	    l.power);
	ok(wsr_look(wide, 30, &g, 5, 40, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_UNDECIDED &&
	    l.power < 0.2, "rule paired pass needs power: under 40 ms noise undecided (power %.3f)",
	    l.power);
	/* Either side of the 0.8 target (the same independent simulation: 0.98 at 10 ms of
	 * noise, 0.82 at 13): 12 ms of noise gives about 0.9, 16 ms about 0.6. */
	ok(wsr_look(fine, 30, &g, 10, 12, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_POWERED &&
	    l.power > 0.8 && l.power < 0.95, "paired: power %.3f past the 0.8 target: powered", l.power);
	ok(wsr_look(mid, 30, &g, 10, 16, 0.8, 1, &l) == 0 && l.decision == MWU_LOOK_UNDECIDED &&
	    l.power > 0.5 && l.power < 0.8, "paired: power %.3f between 0.5 and the 0.8 target: "
	    "undecided", l.power);
	free(big), free(none), free(tiny), free(noisy), free(wide), free(mid), free(fine);
}

/* The gated paired rule alone (wsr_gated: wsr_look's rejection, and
 * prefix-timing's "A's own repeats were faster"), at both gates' edges. */
static void
test_wsr_gated(void)
{
	struct paired_gate g = { 0.01, 1 };
	struct wsr w;
	double saving;
	double *half = ideal(30, 0.5, 0.1), *three = ideal(30, 3, 0.5), *just = ideal(30, 1.01, 0.1);
	double *under = ideal(30, 0.99, 0.1), *noisy = ideal(30, 2, 8), *none = ideal(30, 0, 1);

	ok(wsr_gated(half, 30, &g, &w, &saving) == 0 && w.p < 0.01 && fabs(saving - 0.5) < 0.05,
	    "rule gated saving: 0.5 ms saved in every pair, p %.2g below 0.01: not faster", w.p);
	ok(wsr_gated(under, 30, &g, &w, &saving) == 0 && w.p < 0.01 && saving < 1,
	    "rule gated saving edge: a median of %.3f ms, just under 1 ms: not faster", saving);
	ok(wsr_gated(just, 30, &g, &w, &saving) == 1 && saving >= 1,
	    "rule gated saving edge: a median of %.3f ms, just past 1 ms: faster", saving);
	ok(wsr_gated(three, 30, &g, &w, &saving) == 1 && w.p < 1e-5,
	    "gated: 3 ms saved (p %.2g): faster", w.p);
	ok(wsr_gated(noisy, 30, &g, &w, &saving) == 0 && saving >= 1 && w.p >= 0.01,
	    "rule gated p: %.1f ms saved under 8 ms noise, p %.3f not below 0.01: not faster", saving, w.p);
	ok(wsr_gated(none, 30, &g, &w, &saving) == 0, "gated: nothing saved: not faster");
	ok(wsr_gated(none, 0, &g, &w, &saving) == -1, "gated: no pairs: no test");
	free(half), free(three), free(just), free(under), free(noisy), free(none);
}

/* A paired saving's drift between the run's halves (saving_drifted, prefix-timing's
 * check before a timing finding), at both gates' edges: the halves must differ
 * significantly and the smaller must be under half the larger; a half that saved
 * nothing drifted whatever the test says. */
static double *
halves(double first, double second, double sd)
{
	double *a = ideal(15, first, sd), *b = ideal(15, second, sd), *d = xmalloc(30 * sizeof *d);

	memcpy(d, a, 15 * sizeof *d);
	memcpy(d + 15, b, 15 * sizeof *d);
	free(a), free(b);
	return d;
}

static void
test_saving_drifted(void)
{
	struct mwu m;
	double h[2];
	double *same = halves(30.5, 30, 0.3), *under = halves(30, 14.9, 0.3), *over = halves(30, 15.1, 0.3);
	double *noisy = halves(30, 10, 40), *gone = halves(20, -1, 40), *grew = halves(14.9, 30, 0.3);
	double *nothing = halves(5, -0.5, 0.3), *level = halves(8, 2, 5.5);

	mwu_less(same + 15, 15, same, 15, &m);
	ok(m.p < 0.001 && saving_drifted(same, 30, h) == 0 && fabs(h[0] - 30.5) < 1e-9 &&
	    fabs(h[1] - 30) < 1e-9, "rule drift keep: 30.5 then 30 ms under 0.3 ms noise differ (p %.2g), "
	    "yet the saving held: not drifted", m.p);
	ok(saving_drifted(under, 30, h) == 1, "rule drift keep edge: 30 then 14.9 ms: drifted");
	ok(saving_drifted(over, 30, h) == 0, "rule drift keep edge: 30 then 15.1 ms: not drifted");
	ok(saving_drifted(grew, 30, h) == 1, "drift: 14.9 then 30 ms, the saving grew: drifted");
	ok(saving_drifted(nothing, 30, h) == 1 && h[1] < 0, "drift: a second half that saved nothing, "
	    "the halves differing: drifted");
	mwu_less(noisy + 15, 15, noisy, 15, &m);
	ok(m.p >= 0.005 && saving_drifted(noisy, 30, h) == 0,
	    "rule drift p: 30 then 10 ms under 40 ms noise do not differ (p %.2g): not drifted", m.p);
	mwu_less(gone + 15, 15, gone, 15, &m);
	ok(m.p >= 0.005 && saving_drifted(gone, 30, h) == 0 && h[1] < 0, "rule drift p: a half that "
	    "saved nothing by chance, under 40 ms noise (p %.2g), has not drifted", m.p);
	mwu_less(level + 15, 15, level, 15, &m);
	ok(m.p > 0.001 && m.p < 0.005 && saving_drifted(level, 30, h) == 0, "rule drift level edge: 8 "
	    "then 2 ms under 5.5 ms noise differ at p %.2g, past 0.01's half but not 0.002's: not drifted",
	    m.p);
	ok(saving_drifted(same, 3, h) == -1, "drift: halves of fewer than 2 differences: no test");
	free(same), free(under), free(over), free(noisy), free(gone), free(grew), free(nothing), free(level);
}

/* The median's lower confidence bound (stats_median_lower: the effect prefix-timing
 * looks for is half the prefill at 0.95). Expected order statistics are the sign
 * test's, from the exact binomial tail summed in fractions: the k-th smallest of n
 * where k is the largest with P(Bin(n, 1/2) <= k - 1) <= 1 - conf (n = 30: 0.0494 at
 * k = 11, 0.1002 at 12; the tables' one-sided 0.05 critical value 10 for n = 30). The
 * values are 1 .. n in reverse, so the k-th smallest is k and the input's order is
 * checked untouched. */
static double
lower_of(size_t n, double conf)
{
	double *v = xmalloc(n * sizeof *v), lb;
	int kept = 1;

	for (size_t i = 0; i < n; i++)
		v[i] = (double)(n - i);
	lb = stats_median_lower(v, n, conf);
	for (size_t i = 0; i < n; i++)
		kept &= v[i] == (double)(n - i);
	free(v);
	return kept ? lb : -1;
}

static void
test_median_lower(void)
{
	static const struct { size_t n; double k; } at95[] = {
		{ 5, 1 }, { 6, 1 }, { 10, 2 }, { 20, 6 }, { 30, 11 }, { 60, 24 }, { 120, 51 },
		{ 250, 112 }, { 1100, 523 },
	};

	for (size_t i = 0; i < sizeof at95 / sizeof at95[0]; i++)
		ok(lower_of(at95[i].n, 0.95) == at95[i].k, "median lower bound: n = %zu at 0.95 is order "
		    "statistic %.0f (got %g)", at95[i].n, at95[i].k, lower_of(at95[i].n, 0.95));
	ok(isnan(lower_of(4, 0.95)), "median lower bound: n = 4 cannot reach 0.95 (1/16 > 0.05): none");
	ok(isnan(lower_of(0, 0.95)), "median lower bound: no values: none");
	ok(lower_of(30, 0.9506) == 11 && lower_of(30, 0.9507) == 10, "rule median lower edge: n = 30, "
	    "P(Bin <= 10) = 0.049369: the 11th at 0.9506, the 10th at 0.9507");
	ok(isnan(lower_of(30, 1)) && isnan(lower_of(30, 0)), "median lower bound: a level outside (0, 1): none");
}

int
main(void)
{
	test_mwu_table();
	test_mwu_edges();
	test_helpers();
	test_gate_critical();
	test_gate_power();
	test_look();
	test_wsr();
	test_wsr_power();
	test_wsr_look();
	test_wsr_gated();
	test_saving_drifted();
	test_median_lower();
	return tap_done();
}
