/*
 * tui/evidence.c: the evidence behind a finding — each exchange with its
 * request on the left and its response on the right, side by side. Nonces
 * in the response that the request did not carry (a leaked canary) are
 * highlighted and marked with >> <<, so the mark does not rely on colour.
 * Left and right step through the finding's evidence; j/k scroll; / finds
 * text in either pane (n/N the next and previous place), scrolled to the top.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aivet/canary.h"
#include "aivet/probe.h"
#include "tui.h"

#define SHOW_MAX ((size_t)64 << 10)

struct evidence_state {
	int64_t finding_id;
	char finding[600];
	int64_t *ids;
	int n, cur;
	struct evidence_item ev;     /* the current evidence, as "evidence show" prints it */
	struct buf left, right;      /* texts of the two panes */
	int top;
	int foreign;                 /* nonces in the response not in the request */
	char search[128];
	int width[2];                /* the panes' widths at the last draw, for wrapped lines */
};

static const enum request evidence_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_LEFT, REQ_RIGHT, REQ_FIND,
	REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

static int
evidence_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct evidence_state *s = xcalloc(1, sizeof *s);
	int64_t *ids, leak;
	size_t n;

	v->state = s;
	s->finding_id = *(const int64_t *)arg;
	if (finding_evidence_ids(t->av->db, s->finding_id, s->finding, sizeof s->finding, &ids, &n,
	    err) != 0)
		return err->code;
	s->ids = ids;
	s->n = (int)n;
	if (s->n == 0)
		return aerr_set(err, AV_USAGE, "finding %lld cites no evidence", (long long)s->finding_id);
	/* Start on the response that shows the problem: the last cited exchange whose response
	 * held others' canaries, else the last cited (usually the answer; the first is often
	 * the victim's request). */
	s->cur = s->n - 1;
	if (finding_leak_evidence(t->av->db, s->finding_id, &leak, err) != 0)
		return err->code;
	for (int i = 0; i < s->n; i++)
		if (s->ids[i] == leak)
			s->cur = i;
	return 0;
}

/* Vendor text enters a pane escaped (text_escape): its control characters
 * show as \x1b and friends instead of being dropped or obeyed. */
static void
add_text(struct buf *b, const char *s, size_t n, int keep_lines)
{
	char *e = text_escape(s, n, keep_lines);

	buf_adds(b, e);
	free(e);
}

static void
add_headers(struct buf *b, const struct evidence_header *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		add_text(b, h[i].name, strlen(h[i].name), 0);
		buf_adds(b, ": ");
		add_text(b, h[i].value, strlen(h[i].value), 0);
		buf_adds(b, "\n");
	}
}

static void
add_body(struct buf *b, const struct evidence_body *body)
{
	const char *text = body->text ? body->text : "";
	size_t n = strlen(text);

	if (body->sealed) {
		buf_adds(b, "(sealed: leaked content is kept encrypted)\n");
		return;
	}
	add_text(b, text, n < SHOW_MAX ? n : SHOW_MAX, 1);
	if (n > SHOW_MAX)
		buf_printf(b, "\n... (%zu more bytes)", n - SHOW_MAX);
	buf_adds(b, "\n");
}

static int
evidence_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct evidence_state *s = v->state;
	const struct evidence_exchange *x;

	evidence_item_free(&s->ev);
	if (evidence_get(t->av->db, s->ids[s->cur], 0, &s->ev, err) != 0)
		return err->code;
	buf_free(&s->left);
	buf_free(&s->right);
	buf_adds(&s->left, "");
	buf_adds(&s->right, "");
	if ((x = s->ev.exchange) == NULL) {
		const char *name = s->ev.original_name ? s->ev.original_name : "";

		buf_printf(&s->left, "evidence %lld is a file: ", (long long)s->ids[s->cur]);
		add_text(&s->left, name, strlen(name), 0);
		buf_adds(&s->left, "\n");
		return 0;
	}
	buf_printf(&s->left, "%s ", x->method);
	add_text(&s->left, x->url, strlen(x->url), 0);
	buf_printf(&s->left, "\ntenant %s%s\n\n", x->tenant ? x->tenant : "", x->streaming ? ", streaming" : "");
	add_headers(&s->left, x->req_hdr, x->nreq_hdr);
	buf_adds(&s->left, "\n");
	if (x->request_recipe != NULL)
		buf_printf(&s->left, "(a generated prompt of %lld bytes, kept as its recipe; "
		    "regenerated: %s)\n", (long long)x->request_size,
		    x->request_regenerated ? "SHA-256 matches" : "SHA-256 DOES NOT MATCH");
	else
		add_body(&s->left, &x->request_body);
	if (x->has_response_status)
		buf_printf(&s->right, "HTTP %d%s\n", x->response_status,
		    x->response_truncated ? " (cut at the size cap)" : "");
	else
		buf_adds(&s->right, "no response\n");
	if (x->error != NULL && *x->error) {
		buf_adds(&s->right, "error: ");
		add_text(&s->right, x->error, strlen(x->error), 0);
		buf_adds(&s->right, "\n");
	}
	buf_adds(&s->right, "\n");
	add_headers(&s->right, x->resp_hdr, x->nresp_hdr);
	buf_adds(&s->right, "\n");
	add_body(&s->right, &x->response_body);
	return 0;
}

/* Is the nonce at p (NONCE_LEN bytes) absent from the request pane? */
static int
is_foreign(const struct evidence_state *s, const char *p)
{
	char n[NONCE_LEN + 1];

	memcpy(n, p, NONCE_LEN);
	n[NONCE_LEN] = '\0';
	/* A request kept as a recipe still names its nonces in the recipe. */
	return strstr(s->left.data, n) == NULL && (s->ev.exchange == NULL ||
	    s->ev.exchange->request_recipe == NULL || strstr(s->ev.exchange->request_recipe, n) == NULL);
}

static int
nonce_at(const char *p, const char *end)
{
	if (end - p < NONCE_LEN || memcmp(p, NONCE_PREFIX, NONCE_PREFIX_LEN) != 0)
		return 0;
	for (int i = NONCE_PREFIX_LEN; i < NONCE_LEN; i++)
		if (!isalnum((unsigned char)p[i]))
			return 0;
	return 1;
}

/* Draws text wrapped into [x, x+width), from wrapped line `top`; returns the line count,
 * or with w NULL draws nothing and returns the wrapped line that byte `stop` is on. */
static int
draw_pane(struct evidence_state *s, struct tui *t, WINDOW *w, const struct buf *b, int y0, int rows,
    int x, int width, int top, int mark_foreign, size_t stop)
{
	const char *p = b->data ? b->data : "", *end = p + b->len, *at = p + stop;
	int line = 0, col = 0, found = 0;   /* found: bytes left of a / match being drawn */
	size_t flen = strlen(s->search);

	while (p < end) {
		int hl = mark_foreign && nonce_at(p, end) && is_foreign(s, p);
		int n = hl ? NONCE_LEN : 1;

		if (flen > 0 && found == 0 && (size_t)(end - p) >= flen && strncasecmp(p, s->search, flen) == 0)
			found = (int)flen;

		if (*p == '\n') {
			line++, col = 0, p++;
			continue;
		}
		if (col + n + (hl ? 4 : 0) > width && col > 0)
			line++, col = 0;
		if (w == NULL && p + n > at)
			return line;
		if (w != NULL && line >= top && line - top < rows) {
			int yy = y0 + line - top;

			if (hl) {
				wattron(w, tui_attr(t, TUI_MARK_BAD) | A_REVERSE);
				mvwaddnstr(w, yy, x + col, ">>", 2);
				mvwaddnstr(w, yy, x + col + 2, p, NONCE_LEN);
				mvwaddnstr(w, yy, x + col + 2 + NONCE_LEN, "<<", 2);
				wattroff(w, tui_attr(t, TUI_MARK_BAD) | A_REVERSE);
			} else {
				/* a / match is underlined and reversed, as the pager's are */
				mvwaddch(w, yy, x + col, ((unsigned char)*p >= 32 && (unsigned char)*p < 127 ?
				    (chtype)(unsigned char)*p : '.') | (found > 0 ? A_UNDERLINE | A_REVERSE : 0));
			}
		}
		col += n + (hl ? 4 : 0);
		found = found > n ? found - n : 0;
		p += n;
	}
	return line + 1;
}

static void
evidence_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct evidence_state *s = v->state;
	int half = cols / 2, body = rows - 4;
	char line[700];

	s->foreign = 0;
	{
		/* The finding in full: wrapped over the first two rows, cut only beyond them. */
		const char *p = s->finding;
		int room = cols - 4, cut = (int)strlen(p);

		if (cut > room)
			for (cut = room; cut > room / 2 && p[cut] != ' '; cut--)
				;
		if (cut > room || cut < 0 || (p[cut] != ' ' && p[cut] != '\0'))
			cut = room > 0 ? room : 0;   /* no space to break at: cut the word */
		snprintf(line, sizeof line, "%.*s", cut, p);
		tui_put(w, 0, 2, cols - 2, line);
		for (p += cut; *p == ' '; p++)
			;
		tui_put(w, 1, 2, cols - 2, p);
	}
	snprintf(line, sizeof line, "Evidence %lld: %s (%d of %d; left/right for the others)",
	    (long long)s->ids[s->cur], s->ev.file ? s->ev.file : "", s->cur + 1, s->n);
	tui_put(w, 2, 2, cols - 2, line);
	wattron(w, A_BOLD | A_UNDERLINE);
	tui_put(w, 3, 1, half - 2, "REQUEST");
	tui_put(w, 3, half + 1, cols - half - 2, "RESPONSE (>>nonce<< not in the request: leaked)");
	wattroff(w, A_BOLD | A_UNDERLINE);
	if (body <= 0)
		return;
	mvwvline(w, 4, half - 1, ACS_VLINE, body);
	s->width[0] = half - 3;
	s->width[1] = cols - half - 2;
	draw_pane(s, t, w, &s->left, 4, body, 1, half - 3, s->top, 0, 0);
	draw_pane(s, t, w, &s->right, 4, body, half + 1, cols - half - 2, s->top, 1, 0);
}

/* The wrapped lines of both panes holding the search text, in order, once each. */
static int
search_lines(struct evidence_state *s, int **out)
{
	int n = 0, cap = 0, *lines = NULL;
	size_t len = strlen(s->search);

	for (int pane = 0; pane < 2; pane++) {
		const struct buf *b = pane ? &s->right : &s->left;
		const char *p = b->data ? b->data : "";

		while (len > 0 && (p = strcasestr(p, s->search)) != NULL) {
			int line = draw_pane(s, NULL, NULL, b, 0, 0, 0, s->width[pane] > 4 ? s->width[pane] : 4,
			    0, pane, (size_t)(p - b->data)), i = 0;

			while (i < n && lines[i] < line)
				i++;
			if (i == n || lines[i] != line) {
				if (n == cap)
					lines = xrealloc(lines, sizeof *lines * (size_t)(cap = cap ? cap * 2 : 16));
				memmove(lines + i + 1, lines + i, sizeof *lines * (size_t)(n - i));
				lines[i] = line;
				n++;
			}
			p += len;
		}
	}
	*out = lines;
	return n;
}

/* Scrolls the next (dir 1) or previous (-1) line holding the search to the top;
 * from_here counts the line at the top itself. */
static void
search_step(struct tui *t, struct evidence_state *s, int dir, int from_here)
{
	int *lines, n = search_lines(s, &lines), pick = -1;

	if (s->search[0] == '\0') {
		tui_status(t, 0, "n and N step through the matches of a / search; nothing is searched");
		free(lines);
		return;
	}
	for (int i = 0; i < n && dir > 0 && pick < 0; i++)
		if (lines[i] > s->top || (from_here && lines[i] == s->top))
			pick = i;
	for (int i = n - 1; i >= 0 && dir < 0 && pick < 0; i--)
		if (lines[i] < s->top)
			pick = i;
	if (n > 0 && pick < 0)
		pick = dir > 0 ? 0 : n - 1;   /* round the end */
	if (pick < 0) {
		tui_status(t, 0, "'%s' is not in this exchange (left/right for the others)", s->search);
	} else {
		s->top = lines[pick];
		tui_status(t, 0, "/%s: line %d of %d with it, at the top; n/N next/previous",
		    s->search, pick + 1, n);
	}
	free(lines);
}

static int
evidence_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct evidence_state *s = v->state;
	int page = v->content_rows > 6 ? v->content_rows - 5 : 1;
	char text[128];

	switch (req) {
	case REQ_FIND:
		if (tui_search_prompt(t, s->search, text, sizeof text)) {
			snprintf(s->search, sizeof s->search, "%s", text);
			if (s->search[0] == '\0')
				tui_status(t, 0, "search ended");
			else
				search_step(t, s, 1, 1);
		}
		break;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		search_step(t, s, req == REQ_FIND_NEXT ? 1 : -1, 0);
		break;
	case REQ_DOWN:
		s->top++;
		break;
	case REQ_UP:
		s->top = s->top > 0 ? s->top - 1 : 0;
		break;
	case REQ_PAGE_DOWN:
		s->top += page;
		break;
	case REQ_PAGE_UP:
		s->top = s->top > page ? s->top - page : 0;
		break;
	case REQ_HOME:
		s->top = 0;
		break;
	case REQ_LEFT:
	case REQ_RIGHT:
		s->cur = (s->cur + (req == REQ_RIGHT ? 1 : s->n - 1)) % s->n;
		s->top = 0;
		return evidence_load(v, t, err);
	default:
		break;
	}
	return 0;
}

static void
evidence_close(struct view *v)
{
	struct evidence_state *s = v->state;

	evidence_item_free(&s->ev);
	buf_free(&s->left);
	buf_free(&s->right);
	free(s->ids);
	free(s);
}

static void
evidence_title(struct view *v, char *buf, size_t n)
{
	snprintf(buf, n, "Evidence of finding %lld", (long long)((struct evidence_state *)v->state)->finding_id);
}

const struct view_ops tui_evidence_view = {
	"evidence", evidence_requests, evidence_open, evidence_load, evidence_draw, evidence_request,
	evidence_close, evidence_title, NULL, NULL
};
