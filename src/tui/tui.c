/*
 * tui/tui.c: the terminal UI's entry and input loop. tui_main() sets the
 * terminal up, opens the first screen and reads keys: each becomes a request
 * the top screen handles, or the framework (back, quit, help, ':', reload).
 * The terminal is restored on every exit path, including fatal signals. The
 * rest of the framework has a file per job: draw.c, list.c, stack.c, frame.c,
 * hints.c, status.c, dialog.c, form.c, menu.c, files.c, command.c, jobs.c.
 * Screens live in their own files.
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui.h"
#include "aivet/minisign.h"

#define IDLE_RELOAD_MS 2000
/* Keys closer together than this are one burst of typing. */
#define BURST_MS 500

static int curses_active;

/* ---- terminal state ---- */

static void
on_term(int sig)
{
	(void)sig;
	tui_got_term = 1;
}

static void
on_fatal(int sig)
{
	/* Give the terminal back before dying, whatever the cause. */
	if (curses_active)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
restore_at_exit(void)
{
	if (curses_active) {
		endwin();
		curses_active = 0;
	}
}

static void
handle_mouse(struct tui *t, struct view *v)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED) {
		v->ops->request(v, t, REQ_UP, NULL);
		v->ops->request(v, t, REQ_UP, NULL);
		v->ops->request(v, t, REQ_UP, NULL);
	}
#ifdef BUTTON5_PRESSED
	else if (me.bstate & BUTTON5_PRESSED) {
		v->ops->request(v, t, REQ_DOWN, NULL);
		v->ops->request(v, t, REQ_DOWN, NULL);
		v->ops->request(v, t, REQ_DOWN, NULL);
	}
#endif
	else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)) {
		if (me.y >= 1 && me.y < LINES - 2 && v->ops->click)
			v->ops->click(v, t, me.y - 1, (me.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
	}
}

static void
reload_top(struct tui *t)
{
	struct view *v = tui_top(t);
	struct aerr err = { 0 };

	t->dirty = 0;
	t->last_load_ms = now_ms();
	if (v != NULL && v->ops->load != NULL && v->ops->load(v, t, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

static void
global_request(struct tui *t, enum request req)
{
	struct aerr err = { 0 };
	char line[512];

	switch (req) {
	case REQ_BACK:
		/* Back from the first screen is leaving aivet: asked, as a stray q is common. */
		if (t->depth > 1 || tui_confirm(t, "Quit aivet?"))
			tui_pop(t);
		break;
	case REQ_QUIT:
		t->quit = 1;
		break;
	case REQ_HELP:
		if (tui_top(t)->ops != &tui_help_view && tui_push(t, &tui_help_view, tui_top(t), &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_REFRESH:
		reload_top(t);
		tui_status(t, 0, "reloaded");
		break;
	case REQ_COMMAND:
		if (tui_prompt(t, ":", "", line, sizeof line) && tui_run_command(t, line, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_CANCEL_JOB:
		if (t->job) {
			pthread_mutex_lock(&t->job->lock);
			t->job->cancel = 1;
			pthread_mutex_unlock(&t->job->lock);
			tui_status(t, 0, "stopping...");
		}
		break;
	case REQ_CANCEL:
		t->status[0] = '\0';
		break;
	case REQ_DASHBOARD:
		while (t->depth > 1)
			tui_pop(t);
		if (tui_top(t)->ops != &tui_dashboard_view && tui_push(t, &tui_dashboard_view, NULL, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_VENDORS:
		if (tui_push(t, &tui_vendors_view, NULL, &err) != 0)
			tui_status(t, 1, "%s", err.msg);
		break;
	case REQ_SEARCH:
		/* Whatever is typed after / goes into the prompt, never into commands. */
		tui_search_prompt(t, NULL, line, sizeof line);
		tui_status(t, 0, "this screen shows no list or text to search");
		break;
	case REQ_NONE:
		break;
	default: {
		char key[16];
		const struct request_info *ri = tui_request_info(req);

		/* A refusal: what follows it in the same burst of typing is dropped. */
		tui_status(t, 1, "%s is not on this screen (%s lists the keys)", ri ? ri->name : "that key",
		    tui_key_name_for(REQ_HELP, key));
		break;
	}
	}
}

/* Time between keys is measured by the machine's clock, never now_ms(): a
 * pinned AIVET_NOW would make every pause look like no pause at all. */
static int64_t
key_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* After a refused action the rest of what was being typed (a date meant for a
 * dialog that did not open, say) must not run as commands: keys that follow
 * one another within BURST_MS are dropped until the typing pauses. Esc and q,
 * which only go back, end the burst and act. Returns 1 when the key is dropped. */
static int
guard_drops(struct tui *t, int r, wint_t ch)
{
	int64_t now = key_clock_ms();

	if (!t->guarding)
		return 0;
	if (r == KEY_CODE_YES && (ch == KEY_RESIZE || ch == KEY_MOUSE))
		return 0;
	if (now - t->guard_ms >= BURST_MS || (r == OK && (ch == 27 || ch == 'q' || ch == 'Q'))) {
		t->guarding = 0;
		return 0;
	}
	t->guard_ms = now;
	t->dropped++;
	return 1;
}


/* The first screen: the dashboard once there is data, else the (empty) vendor list. */
static const struct view_ops *
first_view(struct aivet *av)
{
	struct aerr err = { 0 };

	/* Not the whole list: listing every vendor here made a big database slow to open. */
	return vendor_any(av->db, &err) > 0 ? &tui_dashboard_view : &tui_vendors_view;
}

/* Cleanly away on a stop signal; the terminal restored on a crash or exit. */
static void
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGSEGV, on_fatal);
	signal(SIGABRT, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGFPE, on_fatal);
	atexit(restore_at_exit);
}

/* curses on the terminal, with the mouse, and colour unless NO_COLOR says not. */
static int
start_curses(struct tui *t, struct aerr *err)
{
	if (newterm(NULL, stdout, stdin) == NULL)
		return aerr_set(err, AV_USAGE, "cannot use this terminal (TERM=%s)",
		    getenv("TERM") ? getenv("TERM") : "");
	curses_active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	timeout(250);
	mousemask(ALL_MOUSE_EVENTS, NULL);
	mouseinterval(200);
	if (has_colors() && getenv("NO_COLOR") == NULL) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_RED, -1);
		t->color = 1;
	}
	return 0;
}

/* The time from t0 to the first complete draw, written to FILE. */
static void
write_first_draw(const char *file, const struct timespec *t0)
{
	struct timespec t1;
	char line[64];
	struct aerr ignored;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(line, sizeof line, "first_draw_ms %.3f\n", (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e6);
	(void)write_file_atomic(file, line, strlen(line), 0600, &ignored);
}

/* A key's request, to the screen on top or to the keys every screen shares. */
static void
dispatch_request(struct tui *t, struct view *v, enum request req, struct aerr *err)
{
	unsigned refusals = t->refusals, dialogs = t->dialogs, statuses = t->statuses;
	struct view *before = v;
	int depth = t->depth;

	/* Stopping a job, quitting, help and ':' work the same on every screen. */
	if (req != REQ_CANCEL_JOB && req != REQ_QUIT && req != REQ_HELP && req != REQ_COMMAND &&
	    tui_view_handles(v, req)) {
		aerr_clear(err);
		if (v->ops->request(v, t, req, err) != 0)
			tui_status(t, 1, "%s", err->msg);
	} else {
		global_request(t, req);
	}
	/* Another screen, and nothing said on the way: the old status was the old
	 * screen's, and lingers no further. */
	if ((t->depth != depth || tui_top(t) != before) && t->statuses == statuses)
		t->status[0] = '\0';
	/* Refused at once, no dialog shown: the keys typed after it were meant
	 * for what did not open. (After a dialog, what it read was its own.) */
	if (t->refusals != refusals && t->dialogs == dialogs) {
		flushinp();
		t->guarding = 1;
		t->guard_ms = key_clock_ms();
	}
}

int
tui_main(struct aivet *av, struct aerr *err)
{
	struct tui t = { .av = av };
	/* The key store asks in the passphrase box and keeps quiet while deriving:
	 * the screen is curses'. What asked before is back when the TUI ends. */
	struct key_asker boxed = { tui_key_ask, NULL, &t }, before;
	/* AIVET_TUI_TIMING=FILE: the time from here to the first complete draw
	 * is written to FILE (for bench/db: the first screen of a big database). */
	const char *timing = getenv("AIVET_TUI_TIMING");
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	setlocale(LC_ALL, "");
	/* In a UTF-8 locale draw lines with Unicode box characters rather than the
	 * VT100 alternate character set, which some terminals (and multiplexers)
	 * show as plain letters. */
	setenv("NCURSES_NO_UTF8_ACS", "1", 0);
	if (av_db(av, err) == NULL)
		return err->code;
	key_asker_set(&boxed, &before);
	install_signals();
	if (start_curses(&t, err) != 0) {
		key_asker_set(&before, NULL);
		return err->code;
	}
	if (tui_push(&t, first_view(av), NULL, err) != 0) {
		endwin();
		curses_active = 0;
		key_asker_set(&before, NULL);
		return err->code;
	}
	while (t.depth > 0 && !t.quit && !tui_got_term) {
		struct view *v;
		wint_t ch;
		int r;
		enum request req;

		tui_job_poll(&t);
		if (t.dirty || (now_ms() - t.last_load_ms > IDLE_RELOAD_MS && t.job == NULL))
			reload_top(&t);
		else if (t.job != NULL && now_ms() - t.last_load_ms > 500)
			reload_top(&t);   /* show a job's results as they land */
		tui_redraw(&t);
		if (timing != NULL && *timing != '\0') {
			write_first_draw(timing, &t0);
			timing = NULL;   /* the first draw only */
		}
		r = get_wch(&ch);
		if (r == ERR) {
			tui_input_lost();   /* the loop ends on it */
			continue;
		}
		if (guard_drops(&t, r, ch))
			continue;
		v = tui_top(&t);
		if (r == KEY_CODE_YES && ch == KEY_RESIZE)
			continue;   /* the next redraw uses the new LINES and COLS */
		if (r == KEY_CODE_YES && ch == KEY_MOUSE) {
			handle_mouse(&t, v);
			continue;
		}
		if (r == OK && ch == '\r')
			ch = '\n';
		req = tui_key_request_for((int)ch, v->ops->requests);
		if (req == REQ_NONE)
			continue;
		dispatch_request(&t, v, req, err);
	}
	while (t.depth > 0)
		tui_pop(&t);
	if (t.job != NULL) {
		t.job->cancel = 1;
		tui_job_wait(t.job);
	}
	endwin();
	curses_active = 0;
	key_asker_set(&before, NULL);
	aerr_clear(err);
	return 0;
}
