/*
 * tui/keys.c: the one key table. A key means the same request on every
 * screen; a screen says which requests it handles, and the ? screen and
 * the hint line are generated from this table and that list.
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
	{ '/', REQ_SEARCH },
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
	{ 'n', REQ_NEXT_UNANSWERED },
	{ 'N', REQ_NOTE },
	{ 'H', REQ_HISTORY },
	{ 'S', REQ_SUBMIT },
	{ 'V', REQ_APPROVE },
	{ 'f', REQ_ATTACH },
	{ 'r', REQ_RUN },
	{ 'x', REQ_CANCEL_JOB },
	{ 'v', REQ_EVIDENCE },
	{ 'i', REQ_INCIDENT },
	{ 't', REQ_TASK },
	{ 'c', REQ_STATUS },
	{ 'E', REQ_EXPORT },
	{ 'y', REQ_VERIFY },
	{ 'D', REQ_DASHBOARD },
	{ 'L', REQ_VENDORS },
	{ 'n', REQ_SEARCH_NEXT },
	{ 'N', REQ_SEARCH_PREV },
	{ 'J', REQ_RAW },
	{ 0, REQ_NONE }
};

const struct request_info tui_requests[] = {
	{ REQ_UP, "up", "move up" },
	{ REQ_DOWN, "down", "move down" },
	{ REQ_PAGE_UP, "page up", "move one page up" },
	{ REQ_PAGE_DOWN, "page down", "move one page down" },
	{ REQ_HOME, "first", "go to the first row" },
	{ REQ_END, "last", "go to the last row" },
	{ REQ_LEFT, "left", "move to the left pane or previous item" },
	{ REQ_RIGHT, "right", "move to the right pane or next item" },
	{ REQ_NEXT_PANE, "pane", "switch pane" },
	{ REQ_ENTER, "open", "open the selected row" },
	{ REQ_SEARCH, "search", "search (a list keeps what matches; empty text ends it)" },
	{ REQ_BACK, "back", "go back (quit on the first screen)" },
	{ REQ_CANCEL, "cancel", "cancel a dialog or prompt" },
	{ REQ_HELP, "help", "show this screen's keys" },
	{ REQ_REFRESH, "refresh", "reload from the database" },
	{ REQ_COMMAND, "command", "run an aivet CLI command" },
	{ REQ_QUIT, "quit", "quit aivet" },
	{ REQ_ADD, "add", "add a record" },
	{ REQ_EDIT, "edit", "edit the selected record" },
	{ REQ_ARCHIVE, "archive", "archive the selected record (asks first)" },
	{ REQ_ASSESS, "assess", "start or open an assessment" },
	{ REQ_NEXT_UNANSWERED, "next unanswered", "jump to the next unanswered question" },
	{ REQ_NOTE, "note", "add a note" },
	{ REQ_HISTORY, "history", "show the history" },
	{ REQ_SUBMIT, "submit", "submit for review" },
	{ REQ_APPROVE, "approve", "approve (as reviewer)" },
	{ REQ_ATTACH, "attach", "attach an evidence file" },
	{ REQ_RUN, "run", "run probes" },
	{ REQ_CANCEL_JOB, "stop", "cancel the running job" },
	{ REQ_EVIDENCE, "evidence", "show the evidence" },
	{ REQ_INCIDENT, "incident", "open or show incidents" },
	{ REQ_TASK, "task", "add a task" },
	{ REQ_STATUS, "status", "change the status" },
	{ REQ_EXPORT, "export", "export a signed bundle" },
	{ REQ_VERIFY, "verify", "verify" },
	{ REQ_DASHBOARD, "dashboard", "go to the dashboard" },
	{ REQ_VENDORS, "vendors", "list all vendors" },
	{ REQ_SEARCH_NEXT, "next match", "after a / search: the next match (else its own meaning)" },
	{ REQ_SEARCH_PREV, "previous match", "after a / search: the previous match (else its own meaning)" },
	{ REQ_RAW, "raw JSON", "show the selected record as raw JSON" },
	{ REQ_NONE, NULL, NULL }
};

enum request
tui_key_request(int key)
{
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++)
		if (k->key == key)
			return k->req;
	return REQ_NONE;
}

enum request
tui_key_request_on(const enum request *handled, int key)
{
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++)
		if (k->key == key)
			for (const enum request *r = handled; r && *r != REQ_NONE; r++)
				if (*r == k->req)
					return k->req;
	return tui_key_request(key);
}

const struct request_info *
tui_request_info(enum request req)
{
	for (const struct request_info *r = tui_requests; r->name != NULL; r++)
		if (r->req == req)
			return r;
	return NULL;
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

/* All keys bound to req, joined ("j Down"), for the help screen. */
void tui_keys_for(enum request req, char *buf, size_t n);
void
tui_keys_for(enum request req, char *buf, size_t n)
{
	char one[16];

	buf[0] = '\0';
	for (const struct keybinding *k = tui_keymap; k->req != REQ_NONE; k++) {
		if (k->req != req || k->key == '\r' || k->key == KEY_ENTER)
			continue;
		tui_keyname(k->key, one);
		if (buf[0] != '\0')
			strncat(buf, " ", n - strlen(buf) - 1);
		strncat(buf, one, n - strlen(buf) - 1);
	}
}
