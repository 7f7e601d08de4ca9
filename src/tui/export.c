/*
 * tui/export.c: the export dialog of the vendor screen — choose the
 * assessment, runs and incident, pick (or create) the signing key and the
 * output directory, then unlock the key once (one passphrase box on the
 * screen, the key derived once, progress on the status line), write the
 * bundle with report_export_sec, verify it with bundle_verify, and show
 * where it went and its key id, in the words the CLI uses. The TSA field
 * offers the configured time-stamping authority; the attested time shows
 * on the status line after verify. Also the verify dialog: any bundle directory, checked the same way.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <wchar.h>
#include <sodium.h>

#include "tui.h"
#include "aivet/minisign.h"
#include "aivet/report.h"
#include "aivet/assess.h"
#include "aivet/incident.h"
#include "aivet/run-query.h"

enum { F_ASSESSMENT, F_RUNS, F_INCIDENT, F_KEY, F_OUT, F_TSA, F_COUNT };

struct export_ctx {
	struct tui *t;
	const char *vendor;
	struct buf result;      /* the commands' output, shown after the dialog */
};

static int
check_optional_id(const char *value, void *ctx, struct aerr *err)
{
	int64_t n;

	(void)ctx;
	return *value == '\0' ? 0 : parse_int_opt("id", value, 1, INT64_MAX, &n, err);
}

/* Empty, "since:DATE", or run ids separated by commas. */
static int
check_runs(const char *value, void *ctx, struct aerr *err)
{
	int64_t ms;

	(void)ctx;
	if (*value == '\0')
		return 0;
	if (strncmp(value, "since:", 6) == 0)
		return parse_time(value + 6, &ms, err);
	for (const char *p = value; *p != '\0'; p++)
		if ((*p < '0' || *p > '9') && *p != ',')
			return aerr_set(err, AV_USAGE, "run ids separated by commas, or since:DATE");
	return 0;
}

static int
check_key(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return keystore_name_check(value, err);
}

/* Empty (no time-stamp) or the TSA's URL. */
static int
check_tsa(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return *value == '\0' ? 0 : tsa_url_check("TSA", value, err);
}

static int
check_out(const char *value, void *ctx, struct aerr *err)
{
	DIR *d;
	struct dirent *de;
	int empty = 1;

	(void)ctx;
	if (*value == '\0')
		return aerr_set(err, AV_USAGE, "a directory for the bundle");
	if ((d = opendir(value)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				empty = 0;
		closedir(d);
	}
	return empty ? 0 : aerr_set(err, AV_USAGE, "exists and is not empty");
}

/* What the status line says beside "verified", so a bundle is never just "verified":
 * who is trusted, and when (the attested time, or that it is not attested). */
static char *
trusted_as(const struct verify_result *res)
{
	char why[1100];
	struct buf w;
	char *s;

	verify_trust_label(res, why, sizeof why);
	buf_init(&w);
	tsa_status_words(&res->tsa, &w);
	s = xasprintf(": signer trusted as %s; %s", why, w.data);
	buf_free(&w);
	return s;
}

/* The bytes most passphrases need; the CLI's prompt reads up to 1023 too. */
#define PASSPHRASE_MAX 1024

static void
passphrase_draw(WINDOW *win, struct tui *t, const char *title, int confirm, int cur,
    const char *msg)
{
	int w = getmaxx(win), h = getmaxy(win);

	werase(win);
	box(win, 0, 0);
	wattron(win, A_BOLD);
	tui_put(win, 0, 2, w - 4, title);
	wattroff(win, A_BOLD);
	tui_put(win, 2, 2, w - 4, cur == 0 ? "Passphrase: _" : "Passphrase: (given)");
	if (confirm)
		tui_put(win, 3, 2, w - 4, cur == 1 ? "Again:      _" : "Again:");
	wattron(win, tui_attr(t, msg[0] ? TUI_MARK_BAD : TUI_MARK_DIM));
	tui_put(win, h - 2, 2, w - 4, msg[0] ? msg : "typing is not shown  Enter accepts  Esc cancels");
	wattroff(win, tui_attr(t, msg[0] ? TUI_MARK_BAD : TUI_MARK_DIM));
	wrefresh(win);
}

/*
 * The passphrase typed into a box of the screen itself (the terminal is never
 * handed back), never echoed, read straight into sodium_malloc'ed memory.
 * confirm asks for a new key's passphrase a second time in the same box.
 * Returns 1 with *out (free with credref_free), 0 when cancelled.
 */
static int
passphrase_dialog(struct tui *t, const char *title, int confirm, char **out, size_t *outlen)
{
	char *pw[2] = { sodium_malloc(PASSPHRASE_MAX), sodium_malloc(PASSPHRASE_MAX) };
	size_t len[2] = { 0, 0 };
	const char *msg = "";
	WINDOW *win = NULL;
	int cur = 0, rc = -1;

	if (pw[0] == NULL || pw[1] == NULL)
		die("out of secure memory");
	while (rc < 0) {
		int h = confirm ? 7 : 6, w = COLS - 4 < 70 ? COLS - 4 : 70, r;
		char mb[MB_LEN_MAX];
		mbstate_t ms = { 0 };
		size_t n;
		wint_t ch;

		if ((win = tui_modal(t, win, h, w)) == NULL)
			break;
		passphrase_draw(win, t, title, confirm, cur, msg);
		if ((r = wget_wch(win, &ch)) == ERR) {
			if (tui_input_lost())
				rc = 0;   /* cancelled, as by Escape */
			continue;
		}
		msg = "";
		if (r == KEY_CODE_YES && ch == KEY_BACKSPACE) {
			ch = 127;
		} else if (r == KEY_CODE_YES) {
			if (ch == KEY_ENTER)
				ch = '\n';
			else
				continue;
		}
		if (ch == 27) {
			rc = 0;
		} else if (ch == 127 || ch == 8) {
			/* Back over one whole character, however many bytes it took. */
			while (len[cur] > 0 && ((unsigned char)pw[cur][--len[cur]] & 0xC0) == 0x80)
				;
		} else if (ch == 21) {   /* ^U */
			len[cur] = 0;
		} else if (ch == '\n' || ch == '\r') {
			if (len[cur] == 0)
				msg = "empty passphrase";
			else if (confirm && cur == 0)
				cur = 1;
			else if (confirm && (len[0] != len[1] || sodium_memcmp(pw[0], pw[1], len[0]) != 0))
				msg = "the passphrases do not match: type it again", cur = 0, len[0] = len[1] = 0;
			else
				rc = 1;
		} else if (ch >= 32 && (n = wcrtomb(mb, (wchar_t)ch, &ms)) != (size_t)-1 &&
		    len[cur] + n < PASSPHRASE_MAX) {
			memcpy(pw[cur] + len[cur], mb, n);
			len[cur] += n;
			sodium_memzero(mb, sizeof mb);
		}
	}
	if (win != NULL)
		delwin(win);
	touchwin(stdscr);
	credref_free(pw[1], len[1]);
	if (rc != 1) {
		credref_free(pw[0], len[0]);
		return 0;
	}
	pw[0][len[0]] = '\0';
	*out = pw[0];
	*outlen = len[0];
	return 1;
}

int
tui_key_ask(void *arg, const char *prompt, char *pw, size_t cap, size_t *len, struct aerr *err)
{
	char *got = NULL;
	size_t n = 0;

	if (!passphrase_dialog(arg, prompt, 0, &got, &n))
		return aerr_set(err, AV_USAGE, "no passphrase given");
	if (n >= cap) {
		credref_free(got, n);
		return aerr_set(err, AV_USAGE, "passphrase longer than %zu bytes", cap - 1);
	}
	memcpy(pw, got, n + 1);
	*len = n;
	credref_free(got, n);
	return 0;
}

static void
export_progress(void *arg, const char *what)
{
	struct export_ctx *c = arg;

	tui_status(c->t, 0, "%s", what);
	tui_redraw(c->t);
}

/*
 * The signing key, unlocked once for the whole export: the passphrase is asked
 * for once (AIVET_KEY_PASSWORD_FILE, else a box on the screen), the key derived
 * once with the line saying so, and the secret key kept in sodium_malloc'ed
 * memory until the caller frees (and so wipes) it. A missing key is created
 * first, with the same passphrase asked for once (and typed twice).
 */
static int
export_unlock(struct export_ctx *c, const char *name, struct minisign_sec **sec, struct aerr *err)
{
	struct minisign_pub pub;
	struct aerr e = { 0 };
	const char *pwfile = getenv("AIVET_KEY_PASSWORD_FILE");
	char title[160], *pw = NULL;
	size_t pwlen = 0;
	int exists = keystore_load_pub(name, &pub, &e) == 0, enc = 1, rc;

	*sec = NULL;
	if (!exists && !tui_confirm(c->t, "There is no key named %s. Create it now? You will be asked "
	    "for a passphrase.", name))
		return aerr_set(err, AV_USAGE, "no signing key: create one or name another");
	if (exists && keystore_sec_encrypted(name, &enc, err) != 0)
		return err->code;
	if (enc && pwfile != NULL && *pwfile != '\0') {
		if (key_password("", 0, &pw, &pwlen, err) != 0)
			return err->code;
	} else if (enc) {
		snprintf(title, sizeof title, exists ? "Passphrase for key %s" :
		    "Passphrase for the new key %s", name);
		if (!passphrase_dialog(c->t, title, !exists, &pw, &pwlen))
			return aerr_set(err, AV_USAGE, "no passphrase given: the bundle was not written");
	}
	if (enc)
		export_progress(c, exists ? "deriving the key from its passphrase ..." :
		    "deriving the new key's protection from its passphrase ...");
	if (exists) {
		rc = keystore_open_sec(name, pw, pwlen, sec, err);
	} else {
		rc = keystore_generate_sec(name, pw, pwlen, KDF_SENSITIVE, &pub, sec, err);
		if (rc == 0)
			keystore_created_text("generated", name, &pub, 1, &c->result);
	}
	credref_free(pw, pwlen);
	return rc;
}

static int
export_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct export_ctx *c = p;
	struct report_opts o = { .vendor = c->vendor, .retain_years = 6 };
	struct report_export_result res;
	struct verify_result vr;
	struct minisign_pub pub;
	struct minisign_sec *sec;
	const char *key = f[F_KEY].value, *out = f[F_OUT].value;
	int rc;

	(void)n;
	if ((f[F_ASSESSMENT].value[0] && parse_int_opt("--assessment", f[F_ASSESSMENT].value, 1,
	    INT64_MAX, &o.assessment_id, err) != 0) ||
	    (f[F_INCIDENT].value[0] && parse_int_opt("--incident", f[F_INCIDENT].value, 1,
	    INT64_MAX, &o.incident_id, err) != 0))
		return err->code;
	if (strncmp(f[F_RUNS].value, "since:", 6) == 0)
		o.since = f[F_RUNS].value + 6;
	else if (f[F_RUNS].value[0] &&
	    report_parse_runs(f[F_RUNS].value, &o.run_ids, &o.nrun_ids, err) != 0)
		return err->code;
	if (f[F_TSA].value[0] != '\0')
		o.tsa_url = f[F_TSA].value;
	if ((rc = export_unlock(c, key, &sec, err)) != 0) {
		/* In full (the dialog's line may cut it), and no progress line left behind. */
		tui_status(c->t, 1, "%s", err->msg);
		tui_redraw(c->t);
		goto out;
	}
	rc = report_export_sec(c->t->av->db, c->t->av->actor, &o, out, sec, export_progress, c, &res,
	    err);
	minisign_sec_free(sec);   /* sodium_free wipes the unlocked key */
	tui_changed(c->t);
	if (rc != 0) {
		tui_status(c->t, 1, "%s", err->msg);
		tui_redraw(c->t);
		goto out;
	}
	report_export_text(out, &res, &c->result);
	tui_status(c->t, 0, "verifying the bundle ...");
	tui_redraw(c->t);
	{
		struct aerr ve = { 0 };

		if (keystore_load_pub(key, &pub, &ve) != 0 ||
		    bundle_verify(out, &pub, "key", key, NULL, &vr, &ve) != 0) {
			tui_status(c->t, 1, "%s", ve.msg);
			goto out;
		}
	}
	buf_adds(&c->result, "\n");
	verify_result_text(out, &vr, &c->result);
	if (vr.ok) {
		char *why = trusted_as(&vr);

		tui_status(c->t, 0, "bundle written and verified%s", why);
		free(why);
	} else {
		tui_status(c->t, 1, "%s: verification failed (%zu problem%s)", out, vr.nproblems,
		    vr.nproblems == 1 ? "" : "s");
	}
	verify_result_free(&vr);
out:
	free(o.run_ids);
	return rc;
}

/* "1 (final), 2 (draft)": what the dialog's hints offer. */
static char *
choices_text(const struct report_choice_list *l, const char *empty)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, empty);
	for (size_t i = 0; i < l->n && b.len < 200; i++)
		buf_printf(&b, "%s%lld (%s)", b.len > strlen(empty) ? ", " : "; ", (long long)l->items[i].id,
		    l->items[i].status);
	return buf_steal(&b);
}

int
tui_export_dialog(struct tui *t, int64_t vendor_id, const char *vendor, struct aerr *err)
{
	struct tui_field f[F_COUNT] = {
		[F_ASSESSMENT] = { .label = "Assessment", .width = 10, .check = check_optional_id },
		[F_RUNS] = { .label = "Probe runs", .width = 30, .check = check_runs },
		[F_INCIDENT] = { .label = "Incident", .width = 10, .check = check_optional_id },
		[F_KEY] = { .label = "Signing key", .width = 20, .check = check_key,
		  .hint = "a key under $XDG_CONFIG_HOME/aivet/keys; created (with a passphrase) if missing" },
		[F_OUT] = { .label = "Output directory", .width = 50, .check = check_out,
		  .hint = "a new or empty directory for the bundle" },
		[F_TSA] = { .label = "Time-stamp (TSA)", .width = 50, .check = check_tsa,
		  .hint = "an RFC 3161 TSA's URL (default: 'aivet tsa url'); empty: time not attested" },
	};
	char *conf_tsa = tsa_url_from_config();
	struct export_ctx c = { .t = t, .vendor = vendor };
	char *ha, *hr, *hi, stamp[32], safe[64];
	const char *home = getenv("HOME");
	size_t i;
	int rc;

	struct report_choices ch;

	report_choices_load(t->av->db, vendor_id, now_ms(), &ch);
	ha = choices_text(&ch.assessments, "empty: every assessment");
	hr = choices_text(&ch.runs, "empty: every run; ids as 1,3 or since:2026-11-01");
	hi = choices_text(&ch.incidents, "empty: none in detail");
	report_choices_free(&ch);
	f[F_ASSESSMENT].hint = ha;
	f[F_RUNS].hint = hr;
	f[F_INCIDENT].hint = hi;
	snprintf(f[F_KEY].value, sizeof f[F_KEY].value, "aivet");
	snprintf(f[F_TSA].value, sizeof f[F_TSA].value, "%s", conf_tsa ? conf_tsa : "");
	free(conf_tsa);
	now_iso(stamp);
	for (i = 0; vendor[i] != '\0' && i < sizeof safe - 1; i++)
		safe[i] = strchr("/\\ \t\n", vendor[i]) ? '-' : vendor[i];
	safe[i] = '\0';
	/* ~/aivet-reports/VENDOR-2026-11-30-123456 */
	snprintf(f[F_OUT].value, sizeof f[F_OUT].value, "%s/aivet-reports/%s-%.10s-%.2s%.2s%.2s",
	    home && *home ? home : ".", safe, stamp, stamp + 11, stamp + 14, stamp + 17);
	buf_init(&c.result);
	rc = tui_form(t, "Export signed bundle", f, F_COUNT, export_submit, &c);
	if (rc == 1 && c.result.len > 0)
		tui_show_text(t, "Export", c.result.data, err);
	buf_free(&c.result);
	free(ha);
	free(hr);
	free(hi);
	return 0;
}

int
tui_verify_dialog(struct tui *t, struct aerr *err)
{
	char dir[512];
	struct verify_result res;
	struct buf out;
	char *why;

	if (!tui_prompt(t, "Bundle directory to verify", NULL, dir, sizeof dir) || dir[0] == '\0')
		return 0;
	/* A failed verification is the answer, not an error: show what verify found. */
	if (bundle_verify(dir, NULL, "pubkey", NULL, NULL, &res, err) != 0)
		return err->code;
	buf_init(&out);
	verify_result_text(dir, &res, &out);
	buf_add(&out, "", 0);
	if (res.ok) {
		why = trusted_as(&res);
		tui_status(t, 0, "bundle verified%s", why);
		free(why);
	} else {
		tui_status(t, 1, "%s: verification failed (%zu problem%s)", dir, res.nproblems,
		    res.nproblems == 1 ? "" : "s");
	}
	verify_result_free(&res);
	tui_show_text(t, "Verify", out.data, err);
	buf_free(&out);
	return 0;
}
