/*
 * base-text.c: text from outside made safe to show: UTF-8 checked and
 * decoded, control characters and look-alike code points escaped, Markdown's
 * structure escaped (md_escape, for a report and an assessment sheet alike),
 * and the name a typo meant. Part of the base: libc only.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base.h"

int
utf8_valid(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		unsigned char lo = 0x80, hi = 0xbf;   /* the range of the second byte */

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		else
			return 0;
		if (n - i <= k || s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (size_t j = 2; j <= k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

size_t
utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, c = p[0] & 0x1f, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, c = p[0] & 0x0f, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, c = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int
unsafe_codepoint(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

char *
text_c0_problem(const char *s)
{
	static const char *const names[32] = { "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK",
		"BEL", "BS", "TAB", "LF", "VT", "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3",
		"DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US" };
	size_t chars = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		chars += (*p & 0xc0) != 0x80;
		if (*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')
			continue;
		return xasprintf("holds the control character U+%04X (%s) at character %zu: only tab and "
		    "line breaks are allowed in imported text", *p, names[*p], chars);
	}
	return NULL;
}

char *
text_escape(const char *s, size_t n, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n; ) {
		uint32_t cp;
		size_t len = utf8_decode(p + i, n - i, &cp);

		if (len == 0) {
			buf_printf(&b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (!unsafe_codepoint(cp) || (keep_lines && (cp == '\n' || cp == '\t')))
			buf_add(&b, p + i, len);
		else if (cp == '\n')
			buf_adds(&b, "\\n");
		else if (cp == '\r')
			buf_adds(&b, "\\r");
		else if (cp == '\t')
			buf_adds(&b, "\\t");
		else if (cp < 0x80)
			buf_printf(&b, "\\x%02x", (unsigned)cp);
		else
			buf_printf(&b, "\\u%04x", (unsigned)cp);
		i += len;
	}
	if (b.data == NULL)
		buf_add(&b, "", 0);
	return buf_steal(&b);
}

void
md_escape(struct buf *b, const char *s, const char *newline)
{
	/* Control characters first (text_escape), then what Markdown and the HTML
	 * it is rendered to would read as structure: markup, entities, cell bars. */
	char *nocr = xstrdup(s), *q = nocr, *t;

	for (const char *p = s; *p != '\0'; p++)
		if (*p != '\r')   /* line ends written by spreadsheets on Windows */
			*q++ = *p;
	*q = '\0';
	t = text_escape(nocr, strlen(nocr), 1);
	free(nocr);
	for (const char *p = t; *p != '\0'; p++) {
		/* No link, image or reference definition without '[', no autolink
		 * without "://" or "www." as such, no code span: a note cannot point a
		 * reader elsewhere. A backslash is escaped too, or it would undo ours. */
		if (*p == '|' || *p == '[' || *p == ']' || *p == '`' || *p == '\\' ||
		    (*p == ':' && p[1] == '/' && p[2] == '/') ||
		    (*p == '.' && p - t >= 3 && strncasecmp(p - 3, "www", 3) == 0)) {
			buf_add(b, "\\", 1);
			buf_add(b, p, 1);
		} else if (*p == '<')
			buf_adds(b, "&lt;");
		else if (*p == '>')
			buf_adds(b, "&gt;");
		else if (*p == '&')
			buf_adds(b, "&amp;");
		else if (*p == '\n')
			buf_adds(b, newline);
		else
			buf_add(b, p, 1);
	}
	free(t);
}

/* ---- suggestions for a mistyped name ---- */

/* Optimal string alignment distance: a swapped pair of letters costs one, as
 * a typo does. Words are short (commands, options, ids); longer ones are simply far. */
int
typo_distance(const char *a, const char *b)
{
	enum { MAXW = 64 };
	int d[MAXW + 1][MAXW + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAXW || lb > MAXW)
		return MAXW;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Whether every word of typed (split at '-', '_' and spaces) appears in name,
 * in order: "llm-isolation" in "llm-inference-isolation". */
static int
words_in(const char *typed, const char *name)
{
	const char *p = typed, *at = name;

	while (*p != '\0') {
		size_t n = strcspn(p, "-_ ");
		char word[64];
		const char *hit;

		if (n > 0) {
			if (n >= sizeof word)
				return 0;
			memcpy(word, p, n);
			word[n] = '\0';
			if ((hit = strstr(at, word)) == NULL)
				return 0;
			at = hit + n;
		}
		p += n;
		p += *p != '\0';
	}
	return 1;
}

const char *
name_suggest(const char *typed, const char *const *names, size_t n)
{
	const char *best = NULL, *holds = NULL;
	int bestd = 3, nholds = 0;

	for (size_t i = 0; i < n; i++) {
		int dist = typo_distance(typed, names[i]);

		/* One edit for a word of up to four letters, two for a longer one. */
		if (dist <= (strlen(typed) <= 4 ? 1 : 2) && dist < bestd) {
			best = names[i];
			bestd = dist;
		}
		if (strlen(typed) >= 3 && words_in(typed, names[i]) && nholds++ == 0)
			holds = names[i];
	}
	/* Failing a typo, the one name that holds what was typed (two would be a guess). */
	return best != NULL ? best : nholds == 1 ? holds : NULL;
}
