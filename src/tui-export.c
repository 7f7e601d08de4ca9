/*
 * tui-export.c: the export dialog of the vendor screen — choose the
 * assessment, runs and incident, pick (or create) the signing key and the
 * output directory, then write the bundle through the CLI's own "report"
 * command, verify it with "verify", and show where it went and its key id.
 * Also the verify dialog: any bundle directory, checked by the CLI's verify.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "tui.h"
#include "minisign.h"

enum { F_ASSESSMENT, F_RUNS, F_INCIDENT, F_KEY, F_OUT, F_COUNT };

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

/* Runs a CLI command with the terminal handed back, for a passphrase prompt. */
static int
cli_on_terminal(struct tui *t, int argc, char **argv, struct buf *out, struct aerr *err)
{
	int rc;

	def_prog_mode();
	endwin();
	rc = tui_cli(t, argc, argv, out, err);
	reset_prog_mode();
	refresh();
	return rc;
}

static int
key_is_encrypted(const char *name)
{
	char *dir = keystore_dir(), *path = xasprintf("%s/%s.key", dir, name);
	struct secbuf b;
	struct aerr e = { 0 };
	int enc = 0;

	if (secbuf_read_file(path, &b, &e) == 0) {
		if (minisign_seckey_is_encrypted(b.data, b.len, path, &enc, &e) != 0)
			enc = 0;
		secbuf_free(&b);
	}
	free(dir);
	free(path);
	return enc && getenv("AIVET_KEY_PASSWORD_FILE") == NULL;
}

/* Why verify trusted the signer, from its "  trusted as   ..." line: what the status
 * line says beside "verified", so a bundle is never just "verified". */
static char *
trusted_as(const struct buf *out)
{
	const char *p = out->data ? strstr(out->data, "\n  trusted as   ") : NULL;
	size_t n;

	if (p == NULL)
		return xstrdup("");
	p += strlen("\n  trusted as   ");
	n = strcspn(p, "\n");
	return xasprintf(": signer trusted as %.*s", (int)n, p);
}

static int
export_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct export_ctx *c = p;
	struct minisign_pub pub;
	struct aerr e = { 0 };
	char *argv[20], *since = NULL;
	int argc = 0, rc;
	struct buf out;

	(void)n;
	if (keystore_load_pub(f[F_KEY].value, &pub, &e) != 0) {
		char *gen[] = { "key", "generate", "--name", f[F_KEY].value, NULL };

		if (!tui_confirm(c->t, "There is no key named %s. Create it now? You will be asked for "
		    "a passphrase.", f[F_KEY].value))
			return aerr_set(err, AV_USAGE, "no signing key: create one or name another");
		rc = cli_on_terminal(c->t, 4, gen, &out, err);
		buf_add(&c->result, out.data, out.len);
		buf_free(&out);
		if (rc != 0)
			return rc;
	}
	argv[argc++] = "report";
	argv[argc++] = (char *)c->vendor;
	argv[argc++] = "--out", argv[argc++] = f[F_OUT].value;
	argv[argc++] = "--key", argv[argc++] = f[F_KEY].value;
	if (f[F_ASSESSMENT].value[0])
		argv[argc++] = "--assessment", argv[argc++] = f[F_ASSESSMENT].value;
	if (strncmp(f[F_RUNS].value, "since:", 6) == 0)
		argv[argc++] = "--since", argv[argc++] = since = xstrdup(f[F_RUNS].value + 6);
	else if (f[F_RUNS].value[0])
		argv[argc++] = "--runs", argv[argc++] = f[F_RUNS].value;
	if (f[F_INCIDENT].value[0])
		argv[argc++] = "--incident", argv[argc++] = f[F_INCIDENT].value;
	argv[argc] = NULL;
	tui_status(c->t, 0, "writing and signing the bundle in %s ...", f[F_OUT].value);
	tui_redraw(c->t);
	rc = key_is_encrypted(f[F_KEY].value) ? cli_on_terminal(c->t, argc, argv, &out, err)
	    : tui_cli(c->t, argc, argv, &out, err);
	free(since);
	buf_add(&c->result, out.data, out.len);
	buf_free(&out);
	if (rc == 0) {
		char *vargv[] = { "verify", f[F_OUT].value, "--key", f[F_KEY].value, NULL };
		struct aerr ve = { 0 };
		char *why;

		tui_status(c->t, 0, "verifying the bundle ...");
		tui_redraw(c->t);

		tui_cli(c->t, 4, vargv, &out, &ve);
		why = trusted_as(&out);
		buf_adds(&c->result, "\n");
		buf_add(&c->result, out.data, out.len);
		buf_free(&out);
		tui_status(c->t, ve.code ? 1 : 0, "%s%s", ve.code ? ve.msg : "bundle written and verified",
		    ve.code ? "" : why);
		free(why);
	}
	return rc;
}

/* "1 (final), 2 (draft)": what the dialog's hints offer. */
static char *
choices(sqlite3 *db, const char *sql, int64_t vendor_id, const char *empty)
{
	struct aerr e = { 0 };
	sqlite3_stmt *st = db_prepare(db, &e, sql, "i", vendor_id);
	struct buf b;

	buf_init(&b);
	buf_adds(&b, empty);
	while (st != NULL && sqlite3_step(st) == SQLITE_ROW && b.len < 200)
		buf_printf(&b, "%s%lld (%s)", b.len > strlen(empty) ? ", " : "; ",
		    (long long)sqlite3_column_int64(st, 0), col_text(st, 1));
	sqlite3_finalize(st);
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
	};
	struct export_ctx c = { .t = t, .vendor = vendor };
	char *ha, *hr, *hi, stamp[32], safe[64];
	const char *home = getenv("HOME");
	size_t i;
	int rc;

	ha = choices(t->av->db, "SELECT id, status FROM assessment WHERE vendor_id = ? ORDER BY id",
	    vendor_id, "empty: every assessment");
	hr = choices(t->av->db, "SELECT r.id, r.status FROM probe_run r JOIN endpoint e ON "
	    "e.id = r.endpoint_id WHERE e.vendor_id = ? ORDER BY r.id", vendor_id,
	    "empty: every run; ids as 1,3 or since:2026-11-01");
	hi = choices(t->av->db, "SELECT id, status FROM incident WHERE vendor_id = ? ORDER BY id",
	    vendor_id, "empty: none in detail");
	f[F_ASSESSMENT].hint = ha;
	f[F_RUNS].hint = hr;
	f[F_INCIDENT].hint = hi;
	snprintf(f[F_KEY].value, sizeof f[F_KEY].value, "aivet");
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
	char *argv[] = { "verify", dir, NULL };
	struct buf out;
	struct aerr ve = { 0 };
	char *why;

	if (!tui_prompt(t, "Bundle directory to verify", NULL, dir, sizeof dir) || dir[0] == '\0')
		return 0;
	/* A failed verification is the answer, not an error: show what verify found. */
	tui_cli(t, 2, argv, &out, &ve);
	if (ve.code != 0 && ve.code != AV_FINDINGS) {
		buf_free(&out);
		return aerr_set(err, ve.code, "%s", ve.msg);
	}
	why = trusted_as(&out);
	tui_status(t, ve.code != 0, "%s%s", ve.code ? ve.msg : "bundle verified", ve.code ? "" : why);
	free(why);
	tui_show_text(t, "Verify", out.data, err);
	buf_free(&out);
	return 0;
}
