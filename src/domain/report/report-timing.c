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

#include "run-format.h"

#define BINS 24

static const cJSON *
samples(const cJSON *d, const char *group)
{
	const cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "groups"), group);

	return cJSON_GetObjectItem(g, "ttft_ms");
}

static double
median_of(const cJSON *d, const char *group)
{
	const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "groups"), group),
	    "median_ms");

	return cJSON_IsNumber(m) ? m->valuedouble : NAN;
}

void
prefix_timing_svg(struct buf *b, const cJSON *d)
{
	static const struct { const char *group, *label, *color; } g[2] = {
		{ "primed", "B after A sent the same opening", "#c0392b" },
		{ "control", "B after a fresh opening", "#1f5fa8" },
	};
	const double W = 760, H = 300, L = 56, R = 16, T = 24, B = 64;
	const double pw = W - L - R, ph = H - T - B;
	int count[2][BINS] = { { 0 } }, ymax = 1, n = 0;
	double lo = INFINITY, hi = -INFINITY, width;
	const cJSON *v, *p;

	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(v, samples(d, g[k].group))
			if (cJSON_IsNumber(v)) {
				lo = fmin(lo, v->valuedouble);
				hi = fmax(hi, v->valuedouble);
				n++;
			}
	if (n == 0)
		return;
	if (hi - lo < 1e-6)
		hi = lo + 1;
	width = (hi - lo) / BINS;
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(v, samples(d, g[k].group))
			if (cJSON_IsNumber(v)) {
				int i = (int)((v->valuedouble - lo) / width);

				i = i < 0 ? 0 : i >= BINS ? BINS - 1 : i;
				if (++count[k][i] > ymax)
					ymax = count[k][i];
			}
#define X(ms) (L + ((ms) - lo) / (hi - lo) * pw)
#define Y(c) (T + ph - (double)(c) / ymax * ph)
	buf_adds(b, "<figure>\n");
	buf_printf(b, "<svg class=\"timing-histogram\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	    "height=\"%.0f\" aria-label=\"prefix-timing: time to first token\">\n", W, H, W, H);
	buf_adds(b, "<title>Prefix timing: tenant B's time to first token after tenant A sent the same "
	    "opening, and after a fresh opening</title>\n");
	buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
	    "stroke=\"#444\"/>\n", L, T, pw, ph);
	for (int i = 0; i <= 4; i++) {
		double ms = lo + (hi - lo) * i / 4;
		int c = (int)lround((double)ymax * i / 4);

		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>\n",
		    X(ms), T + ph + 16, ms);
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d</text>\n",
		    L - 6, Y(c) + 4, c);
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">time to first "
	    "token (ms)</text>\n", L + pw / 2, T + ph + 34);
	buf_printf(b, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
	    "text-anchor=\"middle\">trials</text>\n", T + ph / 2, T + ph / 2);
	/* Side by side in each bin: primed on the left half, control on the right. */
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < BINS; i++) {
			double x = X(lo + width * i) + (k ? pw / BINS / 2 : 0);

			if (count[k][i] == 0)
				continue;
			buf_printf(b, "<rect class=\"bar %s\" data-count=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>%d %s trial%s, %.1f-%.1f ms</title></rect>\n",
			    g[k].group, count[k][i], x, Y(count[k][i]), pw / BINS / 2 - 0.5,
			    T + ph - Y(count[k][i]), g[k].color, count[k][i], g[k].group,
			    count[k][i] == 1 ? "" : "s", lo + width * i, lo + width * (i + 1));
		}
	for (int k = 0; k < 2; k++) {
		double m = median_of(d, g[k].group);

		if (isfinite(m))
			buf_printf(b, "<line class=\"median %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-dasharray=\"5 3\"/>\n", g[k].group, X(m), T, X(m), T + ph,
			    g[k].color);
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"><tspan fill=\"%s\">&#9632; %s</tspan>  "
	    "<tspan fill=\"%s\">&#9632; %s</tspan>  (dashed: medians)</text>\n", L, H - 10, g[0].color,
	    g[0].label, g[1].color, g[1].label);
	buf_adds(b, "</svg>\n<figcaption>Prefix timing: ");
	p = cJSON_GetObjectItem(d, "cross_tenant");
	if (cJSON_IsObject(p) && cJSON_IsNumber(cJSON_GetObjectItem(d, "alpha_per_look")))
		/* Sequential runs: the level each look was held to, and the trials it took. */
		buf_printf(b, "one-sided Mann-Whitney p = %.2g (alpha %.2g per look, %.2g in all), Cliff's "
		    "delta %.2f, median saving %.1f ms, %d trials.", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(d, "alpha_per_look")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(d, "alpha")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cliffs_delta")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(d, "median_saving_ms")),
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(d, "trials")));
	else if (cJSON_IsObject(p))
		buf_printf(b, "one-sided Mann-Whitney p = %.2g (alpha %.2g), Cliff's delta %.2f, median saving "
		    "%.1f ms.", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(d, "alpha")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(p, "cliffs_delta")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(d, "median_saving_ms")));
	else
		buf_adds(b, "too few answered trials for a test.");
	buf_adds(b, "</figcaption>\n</figure>\n");
#undef X
#undef Y
}
