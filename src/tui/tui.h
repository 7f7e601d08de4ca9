/*
 * tui/tui.h: the terminal UI's framework. Keys map to requests through one
 * table (tui/keys.c); each screen is a file implementing struct view_ops;
 * requests change a view's state and drawing only reads it. Views stack:
 * Enter pushes, q pops. Long work runs in a job thread that reports
 * progress, so input is never blocked.
 */
#ifndef AIVET_TUI_H
#define AIVET_TUI_H

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <pthread.h>
#include <signal.h>

#include "aivet/core.h"
#include "aivet/credref.h"
#include "aivet/url.h"
#include "aivet/vendor.h"
#include "aivet/endpoint.h"
#include "aivet/evidence-json.h"
#include "tui-main.h"

/* Every action a key can ask for: its name (REQ_<id>), its rank in the hint
 * line (1 a screen's primary action, always shown; 2 common; 3 less used, the
 * first to go on a narrow terminal; 0 never there: movement, and ? and q, which
 * end every hint line), the short word of the hint line and the sentence of the
 * ? screen, in one list, so the enum and the help cannot drift apart. Screens add theirs here; keys.c binds keys to them. */
#define TUI_REQ_INFO(_) \
	/* movement and lists (every list) */ \
	_(UP, 0, "up", "move up") \
	_(DOWN, 0, "down", "move down") \
	_(PAGE_UP, 0, "page up", "move one page up") \
	_(PAGE_DOWN, 0, "page down", "move one page down") \
	_(HOME, 0, "first", "go to the first row") \
	_(END, 0, "last", "go to the last row") \
	_(LEFT, 0, "left", "move to the left pane or previous item") \
	_(RIGHT, 0, "right", "move to the right pane or next item") \
	_(NEXT_PANE, 3, "pane", "move the focus to the next pane or section") \
	_(ENTER, 2, "open", "open the selected row") \
	_(SEARCH, 2, "search", "filter the list (empty text clears)") \
	_(FIND, 1, "find", "search the text; the matches are highlighted") \
	_(FIND_NEXT, 0, "next", "go to the next match") \
	_(FIND_PREV, 0, "previous", "go to the previous match") \
	/* global */ \
	_(BACK, 0, "back", "go back (quit on the first screen)") \
	_(CANCEL, 0, "cancel", "cancel a dialog or prompt") \
	_(HELP, 0, "help", "show this screen's keys and what the markers mean") \
	_(REFRESH, 3, "refresh", "reload from the database") \
	_(COMMAND, 3, "command", "run an aivet CLI command") \
	_(QUIT, 3, "quit", "quit aivet") \
	/* records */ \
	_(ADD, 2, "add", "add a record") \
	_(EDIT, 2, "edit", "edit the selected record") \
	_(ARCHIVE, 3, "archive", "archive the selected record (asks first)") \
	/* assessments */ \
	_(ASSESS, 2, "assess", "start or open an assessment") \
	_(NEXT_UNANSWERED, 2, "next unanswered", "jump to the next unanswered question") \
	_(NOTE, 3, "note", "add a note") \
	_(HISTORY, 1, "history", "show the history") \
	_(SUBMIT, 1, "submit", "submit for review") \
	_(APPROVE, 1, "approve", "approve (as reviewer)") \
	_(RETURN, 2, "return", "return a round in review to draft, its answers unlocked") \
	_(ATTACH, 3, "attach", "attach an evidence file") \
	_(SHEET_EXPORT, 3, "sheet", "write the vendor's sheet: CSV or Excel workbook (xlsx)") \
	_(SHEET_IMPORT, 3, "import", "read a filled-in sheet back (CSV or xlsx), picked from the files") \
	/* probes, evidence, incidents, reports */ \
	_(RUN, 1, "run", "run probes") \
	_(PLAN, 2, "plan", "choose the next run's depth and budget; the plan shows above the runs") \
	_(CANCEL_JOB, 1, "stop", "cancel the running job") \
	_(EVIDENCE, 2, "evidence", "show the evidence") \
	_(INCIDENT, 2, "incident", "open or show incidents") \
	_(TASK, 3, "task", "add a task") \
	_(STATUS, 2, "status", "change the status") \
	_(EXPORT, 2, "export", "export a signed bundle") \
	_(VERIFY, 3, "verify", "verify") \
	_(WINDOW, 2, "window", "edit the exposure window: when the exposure began and ended") \
	_(WHY, 3, "why", "show why the selected clock applies or not: its basis, rule, start and due") \
	_(DASHBOARD, 3, "dashboard", "go to the dashboard") \
	_(VENDORS, 2, "vendors", "list all vendors") \
	_(RAW, 3, "raw JSON", "show the selected probe or finding as raw JSON")

#define TUI_REQ_ENUM(id, rank, name, help) REQ_##id,
enum request {
	REQ_NONE = 0,
	TUI_REQ_INFO(TUI_REQ_ENUM)
	REQ__COUNT
};
#undef TUI_REQ_ENUM

/* Key bindings are data apart from the actions: one key may name several
 * requests (n is "next unanswered" on an assessment and "next match" in a
 * text); the screen's own request list picks, else the first binding wins. */
struct keybinding {
	int key;              /* a character or a KEY_* code */
	enum request req;
};

struct request_info {
	enum request req;
	const char *name;     /* short, for the hint line */
	const char *help;     /* for the ? screen */
	int rank;             /* in the hint line: 1 kept first ... 3 dropped first; 0 never */
};

extern const struct keybinding tui_keymap[];
extern const struct request_info tui_requests[];
enum request tui_key_request(int key);
/* The request key asks for on a screen that handles the requests in handled
 * (REQ_NONE-terminated, may be NULL): a binding the screen handles, else the first. */
enum request tui_key_request_for(int key, const enum request *handled);
const struct request_info *tui_request_info(enum request req);
/* The first key bound to req, as text ("j", "Enter", "Down"). */
const char *tui_key_name_for(enum request req, char buf[16]);

struct tui;
struct view;

struct view_ops {
	const char *name;                  /* "vendors" */
	const enum request *requests;      /* what this screen handles, REQ_NONE-terminated */
	/* Creates the view's state; arg is what the opener passes (an id, ...). */
	int (*open)(struct view *v, struct tui *t, const void *arg, struct aerr *err);
	/* (Re)reads its data from the database; called on open, on R and when idle. */
	int (*load)(struct view *v, struct tui *t, struct aerr *err);
	void (*draw)(struct view *v, struct tui *t, WINDOW *w, int rows, int cols);
	/* Handles a request; returns 0, or an error to show in the status line. */
	int (*request)(struct view *v, struct tui *t, enum request req, struct aerr *err);
	void (*close)(struct view *v);
	/* Optional: the title shown in the title bar. */
	void (*title)(struct view *v, char *buf, size_t n);
	/* Optional: a mouse click at a content row (0-based). */
	void (*click)(struct view *v, struct tui *t, int row, int dbl);
	/* Optional: 0 when one of its requests cannot apply to what the screen shows
	 * now (approving a final round): the hint line and help leave it out. */
	int (*offers)(const struct view *v, enum request req);
};

/* A scrolling, filterable list: the one list widget every screen uses. */
struct tui_list {
	char **rows;           /* formatted rows */
	int64_t *ids;          /* the record behind each row */
	int *marks;            /* per-row attribute hints (TUI_MARK_*) */
	int n, cap;
	int sel, top;          /* index into the visible (filtered) rows */
	char filter[128];
	int *vis;              /* visible row indices */
	int nvis;
	char header[512];      /* column header line, optional */
	int blur;              /* not the focused pane: its selection shows dim, without > */
};

enum { TUI_MARK_NONE, TUI_MARK_GOOD, TUI_MARK_WARN, TUI_MARK_BAD, TUI_MARK_DIM };

void tui_list_clear(struct tui_list *l);
void tui_list_add(struct tui_list *l, int64_t id, int mark, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tui_list_free(struct tui_list *l);
/* Keeps the selection on the same record across a reload when it can. */
void tui_list_restore(struct tui_list *l, int64_t id);
int64_t tui_list_selected_id(const struct tui_list *l);  /* -1 when empty */
void tui_list_draw(struct tui_list *l, struct tui *t, WINDOW *w, int y, int rows, int cols);
/* Movement and / filtering; returns 1 when it handled req. */
int tui_list_request(struct tui_list *l, struct tui *t, enum request req, int rows);
void tui_list_click(struct tui_list *l, int row);

struct view {
	const struct view_ops *ops;
	void *state;
	int content_rows, content_cols;
};

/* A background job: work runs in a thread; progress and result are read under lock. */
struct tui_job {
	pthread_t thread;
	pthread_mutex_t lock;
	int running, done, cancel;
	double fraction;          /* 0..1, or < 0 when unknown */
	char progress[256];
	int rc;
	struct aerr err;
	void *arg;
	int (*work)(struct tui_job *job, void *arg, struct aerr *err);
};

/* Called from a job's thread. Returns nonzero when the user asked to cancel. */
int tui_job_progress(struct tui_job *job, double fraction, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tui_job_start(struct tui *t, struct tui_job *job,
    int (*work)(struct tui_job *, void *, struct aerr *), void *arg, struct aerr *err);
void tui_job_wait(struct tui_job *job);
/* Joins a finished job and shows its result on the status line (jobs.c). */
void tui_job_poll(struct tui *t);

#define TUI_MAX_DEPTH 16

struct tui {
	struct aivet *av;
	struct view stack[TUI_MAX_DEPTH];
	int depth;
	char status[512];
	int status_error;
	unsigned statuses;          /* how many times the status was set */
	int color;
	int quit;
	int dirty;                /* views should reload */
	int64_t last_load_ms;
	struct tui_job *job;      /* the job running now, if any */
	unsigned refusals;        /* error statuses shown so far */
	unsigned dialogs;         /* dialogs closed so far */
	int guarding;             /* dropping the rest of a burst of typing after a refusal */
	int64_t guard_ms;         /* when the last key of that burst came */
	int dropped;              /* keys dropped since the refusal */
};

/* Pushes a new view; on error nothing is pushed. */
int tui_push(struct tui *t, const struct view_ops *ops, const void *arg, struct aerr *err);
void tui_pop(struct tui *t);
struct view *tui_top(struct tui *t);
void tui_status(struct tui *t, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_redraw(struct tui *t);
/* A centred dialog window of h rows by w columns, reading keys with a 250 ms
 * timeout: win itself while its size is still h by w, else win deleted, the
 * screens redrawn and a new one made (NULL when the terminal is too small). */
WINDOW *tui_modal(struct tui *t, WINDOW *win, int h, int w);
/* Marks every view for reload (after a write). */
void tui_changed(struct tui *t);
/* The status line (status.c): the rows it needs now (a long message wraps),
 * and drawing it, or a running job's progress, over the last srows rows. */
int tui_status_rows(const struct tui *t);
void tui_status_draw(struct tui *t, int srows);
/* The hint line (hints.c) on row y, and whether a screen handles req itself. */
void tui_draw_hints(struct tui *t, struct view *v, int y);
int tui_view_handles(const struct view *v, enum request req);
/* Whether the screen offers req now (ops->offers; 1 without it). */
int tui_view_offers(const struct view *v, enum request req);
/* Set by SIGTERM, SIGINT or SIGHUP: the loops and dialogs end (tui.c). */
extern volatile sig_atomic_t tui_got_term;
/* After a read of a key failed: whether the terminal is gone, so that the
 * caller ends as on a stop signal (tui_got_term is then set). A read fails
 * at its timeout too; on a closed terminal it fails at once, for good, and a
 * loop that only read again would spin (tui.c). */
int tui_input_lost(void);

/* Dialogs. They run their own input loop and return when done, then call
 * tui_dialog_closed: keys typed ahead while a dialog was open were meant for it,
 * so they are dropped rather than read as commands by the screen below. */
void tui_dialog_closed(struct tui *t);
/* Splits text into lines of at most width columns, breaking at spaces where it
 * can and at newlines; returns the count, *lines malloc'd (tui_wrap_free). */
int tui_wrap(const char *text, int width, char ***lines);
void tui_wrap_free(char **lines, int n);
int tui_confirm(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line of input at the bottom. Returns 1 with the text, 0 on Esc. */
int tui_prompt(struct tui *t, const char *label, const char *initial, char *out, size_t n);
/* The / prompt: it opens empty (Enter on empty text ends a search, Esc keeps it);
 * Up puts last, the search in force, back to edit. */
int tui_search_prompt(struct tui *t, const char *last, char *out, size_t n);

/* A file picker starting in the current directory; 1 with an absolute path, 0 on Esc. */
int tui_pick_file(struct tui *t, const char *title, char *out, size_t n);
/* A menu of choices (menu.c, on libmenu): label shown next to value. Returns the
 * index picked, or -1 on Esc. With multi, Space toggles items' selected and Enter
 * accepts (returns 0). */
struct tui_menu_item {
	char *value, *label;
	int selected;
};
int tui_menu(struct tui *t, const char *title, struct tui_menu_item *items, int n, int multi,
    int current);

/* A form dialog: labelled fields, Tab/Down moves, Enter submits, Esc cancels.
 * It is as wide as its fields, title and hints need, up to the terminal's width
 * less a margin; hints and messages wrap. A field entered with a value has it
 * selected: a printable key replaces it, arrows, Home and End keep it to edit. */
struct tui_field {
	const char *label;
	char value[512];
	int width;
	/* Checks a value as it is typed: returns 0, or fills err (shown under the field). */
	int (*check)(const char *value, void *ctx, struct aerr *err);
	void *ctx;
	const char *hint;         /* shown when the field is focused */
	const char *recall;       /* a one-line prompt: Up puts this text in, or NULL */
};
/* Runs the dialog; returns 1 when submitted with every check passing, 0 on Esc.
 * submit may refuse (returns nonzero and sets err): the dialog shows err and stays open. */
int tui_form(struct tui *t, const char *title, struct tui_field *fields, int n,
    int (*submit)(struct tui_field *fields, int n, void *ctx, struct aerr *err), void *ctx);

/* Appends a JSON object's members to b as an indented outline (outline.c). */
void tui_json_outline(struct buf *b, const cJSON *o, int depth);

/* Shows a text (command output, help) in a scrolling pager view. */
int tui_show_text(struct tui *t, const char *title, const char *text, struct aerr *err);
/* Runs a CLI command line (as typed after ':') in a child process, showing its
 * output and taking its error for the status line. */
int tui_run_command(struct tui *t, const char *line, struct aerr *err);

/* Drawing helpers: attributes that never rely on colour alone. */
int tui_attr(struct tui *t, int mark);
void tui_put(WINDOW *w, int y, int x, int maxw, const char *s);
/* s in a column of width columns: padded with spaces, or cut with an ellipsis
 * (the last column) so that a cut word never reads into the next column. */
const char *tui_fit(char *out, size_t n, const char *s, int width);
/* Display columns of a UTF-8 string (a stray byte counts one). */
int tui_text_cols(const char *s);
/* The same, cut in the middle (head...tail) where the end tells names apart:
 * "VENDOR/ENDPOINT" keeps the endpoint whole while it fits, cutting the vendor. */
const char *tui_fit_mid(char *out, size_t n, const char *s, int width);
const char *tui_fit_ref(char *out, size_t n, const char *s, int width);
/* A URL in width columns, keeping host and port: the scheme, then the path,
 * go first, then the middle. */
const char *tui_fit_url(char *out, size_t n, const char *url, int width);
/* The one marker set, on every screen: "!!" unacceptable (or an open incident
 * or an overdue clock: bad), "! " concerns, "? " not yet rated, "  " fine. */
const char *tui_rating_marker(int rating, int bad);

/* The screens. */
extern const struct view_ops tui_dashboard_view;
extern const struct view_ops tui_vendors_view;
extern const struct view_ops tui_vendor_view;
extern const struct view_ops tui_help_view;
extern const struct view_ops tui_text_view;
/* Incidents (incidents.c, incident.c); arg: a vendor id or NULL, an incident id. */
extern const struct view_ops tui_incidents_view;
extern const struct view_ops tui_incident_view;
/* A form check: empty, or ISO 8601 as parse_time reads it. */
int tui_check_time(const char *value, void *ctx, struct aerr *err);

/* ---- assessments (assessments.c, assess.c) ---- */
extern const struct view_ops tui_assessments_view;   /* arg: the vendor id */
extern const struct view_ops tui_assess_view;        /* arg: the assessment id */

/* The key store's passphrase question (struct key_asker's ask, arg the
 * struct tui) answered in the passphrase box, on the UI thread: the library
 * reads no terminal, and the TUI's is curses'. tui_main sets it. */
int tui_key_ask(void *arg, const char *prompt, char *pw, size_t cap, size_t *len,
    struct aerr *err);
/* The vendor screen's export dialog (export.c). */
int tui_export_dialog(struct tui *t, int64_t vendor_id, const char *vendor, struct aerr *err);
/* Asks for a bundle directory and shows what "verify" finds (export.c). */
int tui_verify_dialog(struct tui *t, struct aerr *err);
/* Probes (probe-runs.c, probe-run.c, evidence.c); arg: an endpoint id, a run id,
 * a finding id. */
extern const struct view_ops tui_probe_runs_view;
extern const struct view_ops tui_probe_run_view;
extern const struct view_ops tui_evidence_view;

#endif
