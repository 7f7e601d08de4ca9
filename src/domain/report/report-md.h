/*
 * report-md.h: Markdown escaping (report-md.c), private to the domain: the
 * report and the assessment sheet write Markdown tables with it.
 */
#ifndef AIVET_REPORT_MD_H
#define AIVET_REPORT_MD_H

#include "aivet/base.h"

/* ---- Markdown (report-md.c) ---- */
/* Appends s for a Markdown table cell or line: control characters escaped
 * (text_escape), HTML markup and entities escaped, '|' escaped, and each line
 * break replaced by newline ("<br>" or " "). */
void md_escape(struct buf *b, const char *s, const char *newline);

#endif
