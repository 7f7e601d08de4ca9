/*
 * report-timing.c: the prefix-timing probe's two distributions as an inline
 * SVG histogram for the HTML report: tenant B's time to first token after
 * tenant A sent the same opening ("primed") beside B's time after a fresh
 * opening ("control"), on shared bins, with each median marked. A shared
 * cache shows as two separate humps; a scoped one as two that overlap.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report.h"
#include "report-doc.h"

#define BINS 24

static const struct { const char *group, *label, *color; } g[2] = {
	{ "primed", "B after A sent the same opening", "#c0392b" },
	{ "control", "B after a fresh opening", "#1f5fa8" },
};

/* The plot's frame and the counts per bin: both groups on shared bins. */
struct hist {
	double W, H, L, R, T, B, pw, ph;
	double lo, hi, width;
	int count[2][BINS], ymax;
};

#define X(h, ms) ((h)->L + ((ms) - (h)->lo) / ((h)->hi - (h)->lo) * (h)->pw)
#define Y(h, c) ((h)->T + (h)->ph - (double)(c) / (h)->ymax * (h)->ph)

/* The bins over both groups' samples; 0 when there are none. */
static int
hist_fill(struct hist *h, const struct timing_group *const grp[2])
{
	size_t n = 0;

	h->lo = INFINITY;
	h->hi = -INFINITY;
	h->ymax = 1;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < grp[k]->n; i++) {
			h->lo = fmin(h->lo, grp[k]->ttft_ms[i]);
			h->hi = fmax(h->hi, grp[k]->ttft_ms[i]);
			n++;
		}
	if (n == 0)
		return 0;
	if (h->hi - h->lo < 1e-6)
		h->hi = h->lo + 1;
	h->width = (h->hi - h->lo) / BINS;
	for (int k = 0; k < 2; k++)
		for (size_t j = 0; j < grp[k]->n; j++) {
			int i = (int)((grp[k]->ttft_ms[j] - h->lo) / h->width);

			i = i < 0 ? 0 : i >= BINS ? BINS - 1 : i;
			if (++h->count[k][i] > h->ymax)
				h->ymax = h->count[k][i];
		}
	return 1;
}

/* The frame, the ticks and the axis titles. */
static void
hist_axes(struct buf *b, const struct hist *h)
{
	buf_printf(b, "<svg class=\"timing-histogram\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	    "height=\"%.0f\" aria-label=\"prefix-timing: time to first token\">\n", h->W, h->H, h->W, h->H);
	buf_adds(b, "<title>Prefix timing: tenant B's time to first token after tenant A sent the same "
	    "opening, and after a fresh opening</title>\n");
	buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
	    "stroke=\"#444\"/>\n", h->L, h->T, h->pw, h->ph);
	for (int i = 0; i <= 4; i++) {
		double ms = h->lo + (h->hi - h->lo) * i / 4;
		int c = (int)lround((double)h->ymax * i / 4);

		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>\n",
		    X(h, ms), h->T + h->ph + 16, ms);
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d</text>\n",
		    h->L - 6, Y(h, c) + 4, c);
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">time to first "
	    "token (ms)</text>\n", h->L + h->pw / 2, h->T + h->ph + 34);
	buf_printf(b, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
	    "text-anchor=\"middle\">trials</text>\n", h->T + h->ph / 2, h->T + h->ph / 2);
}

/* The bars, side by side in each bin (primed left, control right), and the medians. */
static void
hist_bars(struct buf *b, const struct hist *h, const struct timing_group *const grp[2])
{
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < BINS; i++) {
			double x = X(h, h->lo + h->width * i) + (k ? h->pw / BINS / 2 : 0);
			int c = h->count[k][i];

			if (c == 0)
				continue;
			buf_printf(b, "<rect class=\"bar %s\" data-count=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>%d %s trial%s, %.1f-%.1f ms</title></rect>\n",
			    g[k].group, c, x, Y(h, c), h->pw / BINS / 2 - 0.5, h->T + h->ph - Y(h, c), g[k].color,
			    c, g[k].group, c == 1 ? "" : "s", h->lo + h->width * i, h->lo + h->width * (i + 1));
		}
	for (int k = 0; k < 2; k++) {
		double m = grp[k]->has_median ? grp[k]->median_ms : NAN;

		if (isfinite(m))
			buf_printf(b, "<line class=\"median %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-dasharray=\"5 3\"/>\n", g[k].group, X(h, m), h->T, X(h, m),
			    h->T + h->ph, g[k].color);
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"><tspan fill=\"%s\">&#9632; %s</tspan>  "
	    "<tspan fill=\"%s\">&#9632; %s</tspan>  (dashed: medians)</text>\n", h->L, h->H - 10,
	    g[0].color, g[0].label, g[1].color, g[1].label);
}

/* What the test found, under the chart. */
static void
hist_caption(struct buf *b, const struct prefix_timing *t)
{
	buf_adds(b, "</svg>\n<figcaption>Prefix timing: ");
	if (t->has_test && t->has_alpha_per_look && t->paired)
		/* The paired design: its test decides; Cliff's delta is between the groups. */
		buf_printf(b, "paired one-sided Wilcoxon signed-rank p = %.2g (alpha %.2g per look, %.2g in "
		    "all), Cliff's delta between the groups %.2f, median saving %.1f ms, %d trials.", t->p,
		    t->alpha_per_look, t->alpha, t->cliffs_delta, t->median_saving_ms, (int)t->trials);
	else if (t->has_test && t->has_alpha_per_look)
		/* Sequential runs: the level each look was held to, and the trials it took. */
		buf_printf(b, "one-sided Mann-Whitney p = %.2g (alpha %.2g per look, %.2g in all), Cliff's "
		    "delta %.2f, median saving %.1f ms, %d trials.", t->p, t->alpha_per_look, t->alpha,
		    t->cliffs_delta, t->median_saving_ms, (int)t->trials);
	else if (t->has_test)
		buf_printf(b, "one-sided Mann-Whitney p = %.2g (alpha %.2g), Cliff's delta %.2f, median saving "
		    "%.1f ms.", t->p, t->alpha, t->cliffs_delta, t->median_saving_ms);
	else
		buf_adds(b, "too few answered trials for a test.");
	buf_adds(b, "</figcaption>\n</figure>\n");
}

void
prefix_timing_svg(struct buf *b, const struct prefix_timing *t)
{
	const struct timing_group *const grp[2] = { &t->primed, &t->control };
	struct hist h = { .W = 760, .H = 300, .L = 56, .R = 16, .T = 24, .B = 64 };

	h.pw = h.W - h.L - h.R;
	h.ph = h.H - h.T - h.B;
	if (!t->present || !hist_fill(&h, grp))
		return;
	buf_adds(b, "<figure>\n");
	hist_axes(b, &h);
	hist_bars(b, &h, grp);
	hist_caption(b, t);
}
