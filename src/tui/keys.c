/*
 * tui/keys.c: the one key table. A key means the same request on every
 * screen (or, where a key names two requests, the one the screen handles);
 * a screen says which requests it handles, and the ? screen and the hint
 * line are generated from this table, that list and tui.h's TUI_REQ_INFO.
 */
#include "config.h"

#include <string.h>

#include "tui.h"

const struct keybinding tui_keymap[] = {
	{ 'j', REQ_DOWN }, { KEY_DOWN, REQ_DOWN },
	{ 'k', REQ_UP }, { KEY_UP, REQ_UP },
	{ KEY_NPAGE, REQ_PAGE_DOWN }, { ' ', REQ_PAGE_DOWN },
	{ KEY_PPAGE, REQ_PAGE_UP }, { '-', REQ_PAGE_UP },
	{ 'g', REQ_HOME }, { KEY_HOME, REQ_HOME },
	{ 'G', REQ_END }, { KEY_END, REQ_END },
	{ 'h', REQ_LEFT }, { KEY_LEFT, REQ_LEFT },
	{ 'l', REQ_RIGHT }, { KEY_RIGHT, REQ_RIGHT },
	{ '\t', REQ_NEXT_PANE },
	{ '\n', REQ_ENTER }, { '\r', REQ_ENTER }, { KEY_ENTER, REQ_ENTER },
	{ '/', REQ_SEARCH }, { '/', REQ_FIND },
	{ 'q', REQ_BACK },
	{ 27, REQ_CANCEL },
	{ '?', REQ_HELP },
	{ 'R', REQ_REFRESH },
	{ ':', REQ_COMMAND },
	{ 'Q', REQ_QUIT },
	{ 'a', REQ_ADD },
	{ 'e', REQ_EDIT },
	{ 'A', REQ_ARCHIVE },
	{ 's', REQ_ASSESS },
	{ 'n', REQ_NEXT_UNANSWERED }, { 'n', REQ_FIND_NEXT }, { '>', REQ_FIND_NEXT },
	{ 'N', REQ_NOTE }, { 'N', REQ_FIND_PREV }, { '<', REQ_FIND_PREV },
	{ 'H', REQ_HISTORY },
	{ 'S', REQ_SUBMIT },
	{ 'V', REQ_APPROVE },
	{ 'U', REQ_RETURN },
	{ 'f', REQ_ATTACH },
	{ 'r', REQ_RUN },
	{ 'p', REQ_PLAN },
	{ 'x', REQ_CANCEL_JOB },
	{ 'v', REQ_EVIDENCE },
	{ 'i', REQ_INCIDENT },
	{ 't', REQ_TASK },
	{ 'c', REQ_STATUS },
	{ 'E', REQ_EXPORT }, { 'E', REQ_SHEET_EXPORT },
	{ 'I', REQ_SHEET_IMPORT },
	{ 'y', REQ_VERIFY },
	{ 'W', REQ_WINDOW },
	{ 'w', REQ_WHY },
	{ 'D', REQ_DASHBOARD },
	{ 'L', REQ_VENDORS },
	{ 'J', REQ_RAW },
	{ 0, REQ_NONE }
};

#define TUI_REQ_ROW(id, rank, name, help) { REQ_##id, name, help, rank },
const struct request_info tui_requests[] = {
	TUI_REQ_INFO(TUI_REQ_ROW)
	{ REQ_NONE, NULL, NULL, 0 }
};
#undef TUI_REQ_ROW

enum request
tui_key_request(int key)
{
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++)
		if (k->key == key)
			return k->req;
	return REQ_NONE;
}

enum request
tui_key_request_for(int key, const enum request *handled)
{
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++) {
		if (k->key != key)
			continue;
		for (const enum request *r = handled; r && *r != REQ_NONE; r++)
			if (*r == k->req)
				return k->req;
	}
	return tui_key_request(key);
}

const struct request_info *
tui_request_info(enum request req)
{
	/* The table is made in the enum's order, so a request is its row. */
	if (req <= REQ_NONE || req >= REQ__COUNT)
		return NULL;
	return &tui_requests[req - 1];
}

static void
tui_keyname(int key, char buf[16])
{
	switch (key) {
	case '\n': strcpy(buf, "Enter"); return;
	case '\t': strcpy(buf, "Tab"); return;
	case ' ': strcpy(buf, "Space"); return;
	case 27: strcpy(buf, "Esc"); return;
	case KEY_DOWN: strcpy(buf, "Down"); return;
	case KEY_UP: strcpy(buf, "Up"); return;
	case KEY_LEFT: strcpy(buf, "Left"); return;
	case KEY_RIGHT: strcpy(buf, "Right"); return;
	case KEY_NPAGE: strcpy(buf, "PgDn"); return;
	case KEY_PPAGE: strcpy(buf, "PgUp"); return;
	case KEY_HOME: strcpy(buf, "Home"); return;
	case KEY_END: strcpy(buf, "End"); return;
	}
	if (key > 32 && key < 127) {
		buf[0] = (char)key;
		buf[1] = '\0';
	} else {
		snprintf(buf, 16, "#%d", key);
	}
}

const char *
tui_key_name_for(enum request req, char buf[16])
{
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++)
		if (k->req == req) {
			tui_keyname(k->key, buf);
			return buf;
		}
	buf[0] = '\0';
	return buf;
}

/* The keys that ask for req on a screen handling the requests in handled, joined
 * ("j Down"), for the help screen: a key that means another request there (n is
 * "next unanswered" on an assessment) is left out, so each key has one line. */
void tui_keys_for(enum request req, const enum request *handled, char *buf, size_t n);
void
tui_keys_for(enum request req, const enum request *handled, char *buf, size_t n)
{
	char one[16];

	buf[0] = '\0';
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++) {
		if (k->req != req || k->key == '\r' || k->key == KEY_ENTER ||
		    tui_key_request_for(k->key, handled) != req)
			continue;
		tui_keyname(k->key, one);
		if (buf[0] != '\0')
			strncat(buf, " ", n - strlen(buf) - 1);
		strncat(buf, one, n - strlen(buf) - 1);
	}
}
