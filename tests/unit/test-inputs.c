/*
 * test-inputs.c: the shared defences against hostile input, tested below the
 * CLI: the escaping every screen uses for text from outside, the UTF-8
 * decoder behind name rules, the removal of a report's build directory
 * without following links, and commands run twice in one process (as the
 * TUI's ':' line runs them) keeping no state from the first run.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "cli.h"
#include "evidence-key.h"
#include "../lib/tap.h"

static void
test_escape(void)
{
	static const struct { const char *in; int keep; const char *out; } cases[] = {
		{ "plain text", 0, "plain text" },
		{ "\x1b[2J\x1b]0;title\x07", 0, "\\x1b[2J\\x1b]0;title\\x07" },
		{ "a\r\nb\tc", 0, "a\\r\\nb\\tc" },
		{ "a\r\nb\tc", 1, "a\\r\nb\tc" },
		{ "del\x7f", 0, "del\\x7f" },
		{ "nel\xc2\x85 csi\xc2\x9b", 0, "nel\\u0085 csi\\u009b" },
		{ "rlo\xe2\x80\xae lri\xe2\x81\xa6 lrm\xe2\x80\x8e", 0, "rlo\\u202e lri\\u2066 lrm\\u200e" },
		{ "bad \x80\xbf \xc0\xaf \xed\xa0\x80 \xff", 0, "bad \\x80\\xbf \\xc0\\xaf \\xed\\xa0\\x80 \\xff" },
		{ "cut \xe2\x80", 0, "cut \\xe2\\x80" },
		{ "\xc3\x84rzte \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x98\x80", 0,
		    "\xc3\x84rzte \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x98\x80" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *e = text_escape(cases[i].in, strlen(cases[i].in), cases[i].keep);
		char *twice = text_escape(e, strlen(e), cases[i].keep);

		is_str(e, cases[i].out, "text_escape case %zu", i);
		is_str(twice, e, "escaping twice changes nothing (case %zu)", i);
		free(e);
		free(twice);
	}
	{
		char *e = text_escape("a\0b", 3, 0);

		is_str(e, "a\\x00b", "a NUL inside the text is escaped, not the end");
		free(e);
	}
}

static void
test_names(void)
{
	static const struct { const char *name; int rc; } names[] = {
		{ "Acme", 0 }, { "\xc3\x84rzte-KI", 0 }, { "x\xe2\x80\xaey", AV_USAGE },
		{ "x\xe2\x81\xa9y", AV_USAGE }, { "x\xc2\x80y", AV_USAGE }, { "x\xffy", AV_USAGE },
		{ "x\xc0\xafy", AV_USAGE }, { "x\xed\xa0\x80y", AV_USAGE }, { "x\x7fy", AV_USAGE },
	};
	struct aerr err;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		is_int(name_check("vendor", names[i].name, &err), names[i].rc, "name case %zu", i);
}

static void
test_outdir(const char *dir)
{
	char *victim = xasprintf("%s/victim", dir), *target = xasprintf("%s/out", dir);
	char *precious = xasprintf("%s/precious", victim), *tmp, *p;
	struct aerr err = { 0 };

	mkdir(victim, 0700);
	ok(write_file_atomic(precious, "keep", 4, 0600, &err) == 0, "victim file written");
	ok(outdir_begin(target, &tmp, &err) == 0, "outdir_begin");
	ok(strncmp(tmp, target, strlen(target)) == 0 && strstr(tmp, ".partial.") != NULL,
	    "the build directory is beside the target: %s", tmp);
	p = xasprintf("%s/link", tmp);
	ok(symlink(victim, p) == 0, "a link to the victim inside the build directory");
	free(p);
	p = xasprintf("%s/sub", tmp);
	mkdir(p, 0700);
	free(p);
	p = xasprintf("%s/sub/link", tmp);
	ok(symlink(victim, p) == 0, "and one deeper down");
	free(p);
	outdir_discard(tmp);
	ok(access(tmp, F_OK) != 0, "the build directory is gone");
	ok(access(precious, F_OK) == 0, "the victim's file is still there: links were not followed");
	free(tmp);
	free(victim);
	free(target);
	free(precious);
}

/* Runs one command line in this process with stdout captured; returns the output. */
static char *
run_captured(struct aivet *av, const char *const *args, int *rc)
{
	char path[] = "/tmp/aivet-out-XXXXXX";
	int fd = mkstemp(path), saved;
	char *argv[16];
	int argc = 0;
	struct aerr err = { 0 };
	struct buf b;

	for (; args[argc] != NULL; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	*rc = cmd_run(cli_of(av), argc, argv, &err);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	if (read_file(path, 1 << 20, &b, &err) != 0)
		buf_add(&b, "", 0);
	unlink(path);
	return buf_steal(&b);
}

static void
test_no_state_between_commands(const char *dir)
{
	static const char leak[] = "PATIENT Jane Roe, MRN 0042 (another tenant's data)";
	static const char *const add_vendor[] = { "vendor", "add", "V", NULL };
	static const char *const add_ep[] = { "endpoint", "add", "V", "--name", "e", "--api", "openai",
		"--url", "https://x.example/v1", "--model", "m", "--context", "1000",
		"--credential", "a=env:K", NULL };
	static const char *const show_leaked[] = { "evidence", "show", "1", "--include-leaked-content", NULL };
	static const char *const show[] = { "evidence", "show", "1", NULL };
	struct cli run = { 0 };
	struct aivet *av = &run.av;
	struct aerr err = { 0 };
	unsigned char pk[32];
	char sha[65], req_sha[65];
	char *o;
	int rc;
	struct db *db;

	av->db_path = xasprintf("%s/aivet.db", dir);
	snprintf(av->actor, sizeof av->actor, "tester");
	av->progname = "aivet";
	free(run_captured(av, add_vendor, &rc));
	free(run_captured(av, add_ep, &rc));
	is_int(rc, 0, "vendor and endpoint added");
	db = av_db(av, &err);
	ok(db != NULL && evidence_key_public(pk, &err) == 0, "database and evidence key");
	/* An exchange whose response leaked, sealed to the evidence key as the probes store it
	 * (in a transaction: the sealing is recorded in the audit log). */
	ok(db_begin(db, &err) == 0 && db_exec(db, &err, "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at) "
	    "VALUES (1, 1, 'completed', '[\"canary\"]', 'tester', '2026-12-01T00:00:00.000Z')", "") == 0 &&
	    blob_put(db, "{}", 2, req_sha, &err) == 0 &&
	    blob_put_sealed(db, "tester", 1, leak, sizeof leak - 1, pk, sha, &err) == 0 &&
	    db_exec(db, &err, "INSERT INTO evidence (id, kind, sha256, original_name, size, added_by, "
	    "added_at) VALUES (1, 'exchange', ?, 'exchange-1-1.json', ?, 'tester', "
	    "'2026-12-01T00:00:00.000Z')", "ti", sha, (int64_t)(sizeof leak - 1)) == 0 &&
	    db_exec(db, &err, "INSERT INTO exchange (evidence_id, run_id, probe, seq, tenant, method, url, "
	    "request_headers, request_sha256, request_size, request_blob, response_status, "
	    "response_headers, response_sha256, response_size, response_blob, timings, started_at) "
	    "VALUES (1, 1, 'canary', 1, 'a', 'POST', 'https://x.example/v1/chat/completions', '{}', ?, 2, "
	    "?, 200, '{}', ?, ?, ?, '{\"connect_ms\":1,\"ttfb_ms\":2,\"total_ms\":3}', "
	    "'2026-12-01T00:00:00.000Z')", "tttit", req_sha, req_sha, sha, (int64_t)(sizeof leak - 1),
	    sha) == 0 && db_commit(db, &err) == 0, "a sealed exchange recorded: %s", err.msg);
	o = run_captured(av, show_leaked, &rc);
	ok(rc == 0 && strstr(o, leak) != NULL, "--include-leaked-content opens the sealed body");
	free(o);
	o = run_captured(av, show, &rc);
	ok(rc == 0 && strstr(o, leak) == NULL, "the next 'evidence show' in the same process does not");
	ok(strstr(o, "response body: sealed (leaked content is kept encrypted)") != NULL,
	    "it says the body is sealed");
	free(o);
	av_close(av);
	free((char *)av->db_path);
}

int
main(void)
{
	char dir[] = "/tmp/aivet-inputs-XXXXXX";

	if (sodium_init() < 0 || mkdtemp(dir) == NULL)
		return 1;
	setenv("HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("AIVET_NOW");
	test_escape();
	test_names();
	test_outdir(dir);
	test_no_state_between_commands(dir);
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);

		ok(system(cmd) == 0, "temporary directory removed");
		free(cmd);
	}
	return tap_done();
}
