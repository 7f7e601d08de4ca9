/*
 * tui/hints.c: the hint line above the status line, the screen's own keys by
 * their rank in the request table (tui.h) and then "? help  q back", so that
 * on a narrow terminal the least used keys leave first.
 */
#include "config.h"

#include <string.h>

#include "tui.h"

/* Whether the screen handles req itself (else the framework does). */
int
tui_view_handles(const struct view *v, enum request req)
{
	for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++)
		if (*r == req)
			return 1;
	return 0;
}

/* Whether the screen offers req now: a request that cannot apply (ops->offers) is
 * left out of the hint line and help, so that neither suggests what is refused. */
int
tui_view_offers(const struct view *v, enum request req)
{
	return v->ops->offers == NULL || v->ops->offers(v, req);
}

/* The hint line: the screen's own keys, then "? help  q back", which are
 * never pushed off. Where not all fit, a key's rank in the request table says
 * which go first (3, the less used), so a screen keeps its primary actions;
 * those shown keep the screen's order. */
void
tui_draw_hints(struct tui *t, struct view *v, int y)
{
	static const enum request globals[] = { REQ_HELP, REQ_BACK, REQ_NONE };
	char line[512] = "", tail[64] = "", key[16];
	unsigned char shown[REQ__COUNT] = { 0 };
	size_t used = 0, room;

	for (const enum request *r = globals; *r != REQ_NONE; r++) {
		char item[40];

		snprintf(item, sizeof item, "  %s %s", tui_key_name_for(*r, key), tui_request_info(*r)->name);
		if (strlen(tail) + strlen(item) < (size_t)COLS)
			strcat(tail, item);
	}
	room = strlen(tail) < (size_t)COLS ? (size_t)COLS - strlen(tail) : 0;
	/* Which fit, best rank first: each item takes its key, name and two spaces. */
	for (int rank = 1; rank <= 3; rank++)
		for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++) {
			const struct request_info *ri = tui_request_info(*r);
			size_t w;

			if (ri == NULL || ri->rank != rank || shown[*r] || !tui_view_offers(v, *r))
				continue;
			w = strlen(tui_key_name_for(*r, key)) + 1 + strlen(ri->name) + (used ? 2 : 0);
			if (used + w > room || used + w >= sizeof line - 1)
				continue;
			shown[*r] = 1;
			used += w;
		}
	used = 0;
	for (const enum request *r = v->ops->requests; r && *r != REQ_NONE; r++) {
		char item[64];

		if (!shown[*r])
			continue;
		shown[*r] = 0;   /* a request listed twice shows once */
		snprintf(item, sizeof item, "%s%s %s", used ? "  " : "", tui_key_name_for(*r, key),
		    tui_request_info(*r)->name);
		strcat(line, item);
		used += strlen(item);
	}
	snprintf(line + used, sizeof line - used, "%s", used ? tail : tail + 2);
	move(y, 0);
	clrtoeol();
	attron(A_DIM);
	tui_put(stdscr, y, 0, COLS, line);
	attroff(A_DIM);
	(void)t;
}
