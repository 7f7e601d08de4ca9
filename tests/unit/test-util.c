/*
 * test-util.c: unit tests of the shared helpers — time parsing and
 * formatting, SHA-256 against the FIPS 180-2 vectors, the audit entry
 * encoding, credential references, URL and name rules, option parsing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "cli.h"
#include "../lib/tap.h"

static void
test_time(void)
{
	static const struct { const char *in; const char *out; } good[] = {
		{ "2026-11-30", "2026-11-30T00:00:00.000Z" },
		{ "2026-11-30T12:34:56Z", "2026-11-30T12:34:56.000Z" },
		{ "2026-11-30T12:34:56.789Z", "2026-11-30T12:34:56.789Z" },
		{ "2026-11-30T12:34:56.7891Z", "2026-11-30T12:34:56.789Z" },
		{ "2026-03-02T09:00:00-05:00", "2026-03-02T14:00:00.000Z" },
		{ "2026-03-02T01:00:00+0230", "2026-03-01T22:30:00.000Z" },
		{ "2024-02-29T23:59:59.999Z", "2024-02-29T23:59:59.999Z" },
		{ "2000-02-29", "2000-02-29T00:00:00.000Z" },
		{ "1970-01-01T00:00Z", "1970-01-01T00:00:00.000Z" },
		{ "2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z" },
		/* found by fuzz-time: years below 1000 were written without padding */
		{ "0999-12-31T23:59:59Z", "0999-12-31T23:59:59.000Z" },
		{ "0000-01-01T00:00:00+00:00", "0000-01-01T00:00:00.000Z" },
	};
	static const char *const bad[] = {
		"", "2026", "2026-13-01", "2026-02-29", "1900-02-29", "2026-11-30T12:34:56",
		"2026-11-30T25:00:00Z", "2026-11-30T12:34:56.Z", "2026-11-30T12:34:56Zjunk",
		"2026-11-31", "the day before", "2026-11-30T12:34:56+25:00", "+3", "+3y", "3d", "+d",
		"++3d", "tomorow", "+1000000d",
	};
	char out[32];
	int64_t ms;
	struct aerr err;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		int rc = parse_time(good[i].in, &ms, &err);

		ok(rc == 0, "parse_time accepts %s", good[i].in);
		fmt_time_ms(ms, out);
		is_str(out, good[i].out, "%s is %s", good[i].in, good[i].out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(parse_time(bad[i], &ms, &err) == AV_USAGE, "parse_time refuses '%s'", bad[i]);
	parse_time("nope", &ms, &err);
	is_str(err.msg, "bad time 'nope': expected ISO 8601 such as 2026-11-30 or "
	    "2026-11-30T14:05:00Z (a time needs Z or an offset)", "bad time message");
	setenv("AIVET_NOW", "2026-01-02T03:04:05.006Z", 1);
	now_iso(out);
	is_str(out, "2026-01-02T03:04:05.006Z", "AIVET_NOW pins the clock");
	{
		/* Relative dates count from the (pinned) clock; a day word is that UTC date. */
		static const struct {
			const char *in, *out;
		} rel[] = {
			{ "now", "2026-01-02T03:04:05.006Z" },
			{ "today", "2026-01-02T00:00:00.000Z" },
			{ "tomorrow", "2026-01-03T00:00:00.000Z" },
			{ "yesterday", "2026-01-01T00:00:00.000Z" },
			{ "+3d", "2026-01-05T03:04:05.006Z" },
			{ "+2w", "2026-01-16T03:04:05.006Z" },
			{ "-1d", "2026-01-01T03:04:05.006Z" },
			{ "+4h", "2026-01-02T07:04:05.006Z" },
			{ "+30m", "2026-01-02T03:34:05.006Z" },
			{ "+0d", "2026-01-02T03:04:05.006Z" },
		};
		int off = 99;

		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			ok(parse_time_zone(rel[i].in, &ms, &off, &err) == 0 && off == 0,
			    "parse_time accepts '%s' (offset 0)", rel[i].in);
			fmt_time_ms(ms, out);
			is_str(out, rel[i].out, "'%s' is %s", rel[i].in, rel[i].out);
		}
		/* A relative AIVET_NOW would count from itself: it is not read. */
		setenv("AIVET_NOW", "+3d", 1);
		ok(now_ms() > INT64_C(1700000000000), "AIVET_NOW '+3d' is ignored, not recursed into");
		setenv("AIVET_NOW", "2026-01-02T03:04:05.006Z", 1);
	}
	unsetenv("AIVET_NOW");
	now_iso(out);
	ok(strlen(out) == 24 && out[23] == 'Z' && out[19] == '.', "now_iso has ms and Z: %s", out);
}

static void
test_sha256(void)
{
	/* FIPS 180-2 appendix B vectors. */
	char hex[65];
	char *million = xmalloc(1000000);

	sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA-256 abc");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "SHA-256 448 bits");
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "SHA-256 one million a");
	free(million);
	sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "SHA-256 empty");
}

static void
test_audit_encoding(void)
{
	char h[65];

	/* Computed independently: sha256 over the netstrings of the fields. */
	audit_entry_hash(1, "2026-11-30T12:00:00.000Z", "alice", "vendor.add", "vendor", 7,
	    "{\"name\":\"Acme\"}",
	    "0000000000000000000000000000000000000000000000000000000000000000", h);
	is_str(h, "f7365cb59d0a8ddcabee7e5398c8a4c98288082698abdfc12df2ef5718896e03",
	    "audit entry hash matches the documented encoding");
	audit_entry_hash(1, "2026-11-30T12:00:00.000Z", "alice", "vendor.add", "vendor", 7,
	    "{\"name\":\"Acmf\"}",
	    "0000000000000000000000000000000000000000000000000000000000000000", h);
	ok(strcmp(h, "f7365cb59d0a8ddcabee7e5398c8a4c98288082698abdfc12df2ef5718896e03") != 0,
	    "one changed byte changes the hash");
	/* Netstrings keep field boundaries: moving a character between fields changes the hash. */
	{
		char a[65], b[65];

		audit_entry_hash(1, "t", "ab", "c", "o", 1, "{}", "p", a);
		audit_entry_hash(1, "t", "a", "bc", "o", 1, "{}", "p", b);
		ok(strcmp(a, b) != 0, "field boundaries are part of the encoding");
	}
}

static void
test_credref(void)
{
	static const struct { const char *ref; int rc; } cases[] = {
		{ "env:OPENAI_API_KEY", 0 }, { "env:_x1", 0 }, { "file:/run/secrets/key", 0 },
		{ "file:relative/key", 0 }, { "env:", AV_USAGE }, { "env:1ABC", AV_USAGE },
		{ "env:sk-proj-abc", AV_USAGE }, { "file:", AV_USAGE }, { "sk-live-1234567890", AV_USAGE },
		{ "", AV_USAGE }, { "ENV:X", AV_USAGE },
	};
	struct aerr err;
	char *secret;
	size_t len;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		is_int(credref_check(cases[i].ref, &err), cases[i].rc, "credref_check '%s'", cases[i].ref);
	credref_check("sk-live-1234567890", &err);
	ok(strstr(err.msg, "sk-live") == NULL, "the refusal does not echo a literal secret");
	setenv("AIVET_TEST_KEY", "s3cret-value", 1);
	ok(credref_resolve("env:AIVET_TEST_KEY", &secret, &len, &err) == 0 && len == 12 &&
	    strcmp(secret, "s3cret-value") == 0, "env reference resolves");
	credref_free(secret, len);
	unsetenv("AIVET_TEST_KEY");
	is_int(credref_resolve("env:AIVET_TEST_KEY", &secret, &len, &err), AV_USAGE, "unset variable");
	is_str(err.msg, "credential env:AIVET_TEST_KEY: the environment variable is not set",
	    "unset variable message");
	{
		char path[] = "/tmp/aivet-key-XXXXXX";
		int fd = mkstemp(path);

		ok(fd >= 0 && write(fd, "file-secret\n", 12) == 12, "write key file");
		close(fd);
		{
			char *ref = xasprintf("file:%s", path);

			ok(credref_resolve(ref, &secret, &len, &err) == 0 && strcmp(secret, "file-secret") == 0,
			    "file reference resolves without its newline");
			credref_free(secret, len);
			free(ref);
		}
		unlink(path);
	}
}

static void
test_url(void)
{
	static const struct { const char *url; int insecure, rc; } cases[] = {
		{ "https://api.openai.com/v1", 0, 0 },
		{ "http://127.0.0.1:8080/v1", 0, 0 },
		{ "http://localhost/v1", 0, 0 },
		{ "http://[::1]:9000", 0, 0 },
		{ "http://127.9.9.9", 0, 0 },
		{ "http://api.example.com/v1", 0, AV_USAGE },
		{ "http://api.example.com/v1", 1, 0 },
		{ "http://127.example.com", 0, AV_USAGE },
		{ "http://10.0.0.1/v1", 0, AV_USAGE },
		{ "ftp://example.com", 0, AV_USAGE },
		{ "file:///etc/passwd", 1, AV_USAGE },
		{ "not a url", 0, AV_USAGE },
		{ "", 0, AV_USAGE },
		/* Where every API aivet speaks puts its key: a header, so these URLs pass. */
		{ "https://api.openai.com/v1", 0, 0 },                          /* Authorization: Bearer */
		{ "https://api.anthropic.com/v1", 0, 0 },                       /* x-api-key */
		{ "https://res.openai.azure.com/openai?api-version=2024-06-01", 0, 0 }, /* api-key */
		{ "https://bedrock-runtime.us-east-1.amazonaws.com/model/"
		  "anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke", 0, 0 },  /* SigV4 headers */
		{ "https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:"
		  "streamGenerateContent?alt=sse", 0, 0 },                      /* x-goog-api-key */
		{ "https://api.cloudflare.com/client/v4/accounts/023e105f4ecef8ad9ca31a8372d0c353/ai/run/"
		  "@cf/meta/llama-3.1-8b-instruct", 0, 0 },                     /* Bearer; hex account id */
		{ "https://api.together.xyz/v1/models/meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo", 0, 0 },
		{ "https://x.example/deployments/3f2504e0-4f89-11d3-9a0c-0305e82c3301/chat", 0, 0 },
		{ "https://x.example/v1?limit=20&order=desc#section-2", 0, 0 },
		/* Keys in the query, by the names APIs and clouds use, percent-encoded or not. */
		{ "https://generativelanguage.googleapis.com/v1beta?key=AIzaSyA-example", 0, AV_USAGE },
		{ "https://x.example/v1?k%65y=abc", 0, AV_USAGE },
		{ "https://x.example/v1?%6B%65%79=abc", 0, AV_USAGE },
		{ "https://apim.example/v1?subscription-key=abc", 0, AV_USAGE },
		{ "https://apim.example/v1?Ocp-Apim-Subscription-Key=abc", 0, AV_USAGE },
		{ "https://res.openai.azure.com/openai?api-key=abc", 0, AV_USAGE },
		{ "https://x.example/v1?api_key=abc", 0, AV_USAGE },
		{ "https://x.example/v1?apikey=abc", 0, AV_USAGE },
		{ "https://x.example/v1?x-api-key=abc", 0, AV_USAGE },
		{ "https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc", 0, AV_USAGE },
		{ "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101", 0, AV_USAGE },
		{ "https://b.s3.amazonaws.com/o?X-Amz-Security-Token=abc", 0, AV_USAGE },
		{ "https://storage.googleapis.com/b/o?X-Goog-Signature=abc", 0, AV_USAGE },
		{ "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=abc", 0, AV_USAGE },
		{ "https://x.example/v1?bearer=abc", 0, AV_USAGE },
		{ "https://x.example/v1?access_token=abc", 0, AV_USAGE },
		{ "https://fn.azurewebsites.net/api/f?code=abc", 0, AV_USAGE },
		{ "https://x.example/v1?token=abc", 0, AV_USAGE },
		{ "https://x.example/v1?auth=abc", 0, AV_USAGE },
		{ "https://x.example/v1?password=abc", 0, AV_USAGE },
		{ "https://x.example/v1?client_secret=abc", 0, AV_USAGE },
		{ "https://gateway.ai.cloudflare.com/v1?cf-aig-authorization=abc", 0, AV_USAGE },
		/* Values shaped like a key, whatever the parameter is called. */
		{ "https://x.example/v1?model=m&k=sk-SECRET1234", 0, AV_USAGE },
		{ "https://x.example/v1?h=Bearer%20abc", 0, AV_USAGE },
		{ "https://x.example/v1?sk-proj-abcdefghijkl", 0, AV_USAGE },
		{ "https://x.example/v1?x=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", 0, AV_USAGE },
		{ "https://x.example/v1?x=aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", 0, AV_USAGE },
		/* In the fragment and in the path. */
		{ "https://x.example/v1#key=abc", 0, AV_USAGE },
		{ "https://x.example/v1#access_token=abc&token_type=bearer", 0, AV_USAGE },
		{ "https://x.example/sk-proj-abcdef123456/v1", 0, AV_USAGE },
		{ "https://x.example/v1/sk-ant-api03-abcdefgh/", 0, AV_USAGE },
		{ "https://x.example/v1/AKIAIOSFODNN7EXAMPLE/", 0, AV_USAGE },
		{ "https://x.example/v1/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", 0, AV_USAGE },
		{ "https://x.example/v1/aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY/chat", 0, AV_USAGE },
		{ "https://x.example/v1/sk%2Dproj%2Dabcdef123456", 0, AV_USAGE },
	};
	struct aerr err;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		is_int(url_check(cases[i].url, cases[i].insecure, &err), cases[i].rc,
		    "url_check '%s' insecure=%d", cases[i].url, cases[i].insecure);
	url_check("ftp://example.com", 0, &err);
	is_str(err.msg, "--url: 'ftp://example.com' is not an http(s) URL", "scheme message");
	url_check("https://x.example/v1?k%65y=s3cr3t", 0, &err);
	ok(strstr(err.msg, "s3cr3t") == NULL && strstr(err.msg, "query carries a credential") != NULL,
	    "a refused query is named, not echoed");
	url_check("https://x.example/sk-proj-s3cr3t4567/v1", 0, &err);
	ok(strstr(err.msg, "s3cr3t") == NULL && strstr(err.msg, "path carries a credential") != NULL,
	    "a refused path is named, not echoed");
	ok(url_has_credential("https://x.example/v1#key=abc") && !url_has_credential("https://x.example/v1"),
	    "url_has_credential (what a report refuses to copy) applies the same rule");
}

static void
test_names_and_options(void)
{
	static const struct { const char *name; int rc; } names[] = {
		{ "Acme", 0 }, { "Acme Health AI", 0 }, { "Ärzte-KI", 0 }, { "", AV_USAGE },
		{ "a/b", AV_USAGE }, { "123", AV_USAGE }, { " lead", AV_USAGE }, { "trail ", AV_USAGE },
		{ "tab\there", AV_USAGE }, { "x1", 0 },
	};
	static const struct { const char *s; int64_t lo, hi; int rc; int64_t want; } ints[] = {
		{ "0", 0, 4, 0, 0 }, { "4", 0, 4, 0, 4 }, { "5", 0, 4, AV_USAGE, 0 },
		{ "-1", 0, 4, AV_USAGE, 0 }, { "2x", 0, 4, AV_USAGE, 0 }, { "", 0, 4, AV_USAGE, 0 },
		{ "1048576", 1, INT64_C(1) << 40, 0, 1048576 },
		{ "99999999999999999999", 0, INT64_MAX, AV_USAGE, 0 },
	};
	struct aerr err;
	int64_t v;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		is_int(name_check("vendor", names[i].name, &err), names[i].rc, "name '%s'", names[i].name);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		v = 0;
		is_int(parse_int_opt("--x", ints[i].s, ints[i].lo, ints[i].hi, &v, &err), ints[i].rc,
		    "parse_int_opt '%s'", ints[i].s);
		if (ints[i].rc == 0)
			is_int(v, ints[i].want, "value of '%s'", ints[i].s);
	}
	parse_int_opt("--criticality", "5", 0, 4, &v, &err);
	is_str(err.msg, "--criticality: 5 is out of range (0 to 4)", "range message");
	parse_int_opt("--criticality", "high", 0, 4, &v, &err);
	is_str(err.msg, "--criticality: 'high' is not a whole number", "number message");
	ok(cmd_find("vendor") != NULL && cmd_find("endpoint") != NULL && cmd_find("audit") != NULL,
	    "commands are registered");
	ok(cmd_find("nope") == NULL, "unknown command is not found");
}

/* Files: open_regular refuses what is not a regular file without blocking;
 * write_file_below never follows a link planted below its root. */
static void
test_files(void)
{
	char dir[] = "/tmp/aivet-files-XXXXXX";
	char *fifo, *plain, *link, *root, *outside;
	struct aerr err;
	struct buf b;
	int fd;

	ok(mkdtemp(dir) != NULL, "a scratch directory");
	fifo = xasprintf("%s/fifo", dir), plain = xasprintf("%s/plain", dir);
	link = xasprintf("%s/link", dir), root = xasprintf("%s/root", dir);
	outside = xasprintf("%s/outside", dir);
	ok(mkfifo(fifo, 0600) == 0 && symlink(plain, link) == 0 && mkdir(root, 0700) == 0 &&
	    mkdir(outside, 0700) == 0, "a FIFO, a link, a root and a directory outside it");
	ok(write_file_below(root, "a/b/c.txt", "hi", 2, 0644, &err) == 0, "a nested file below the root");
	{
		char *c = xasprintf("%s/a/b/c.txt", root);

		ok(read_file(c, 16, &b, &err) == 0 && strcmp(b.data, "hi") == 0, "reads back");
		buf_free(&b);
		free(c);
	}
	is_int(write_file_below(root, "a/b/c.txt", "x", 1, 0644, &err), AV_RUNTIME, "a name written twice");
	{
		char *planted = xasprintf("%s/evil", root), *target = xasprintf("%s/t.txt", outside);

		ok(symlink(target, planted) == 0, "a link planted at a file's name");
		is_int(write_file_below(root, "evil", "x", 1, 0644, &err), AV_RUNTIME, "refused");
		ok(access(target, F_OK) != 0, "nothing written through the file link");
		free(planted);
		planted = xasprintf("%s/sub", root);
		ok(symlink(outside, planted) == 0, "a link planted at a directory's name");
		is_int(write_file_below(root, "sub/x.txt", "x", 1, 0644, &err), AV_RUNTIME, "refused");
		free(target);
		target = xasprintf("%s/x.txt", outside);
		ok(access(target, F_OK) != 0, "nothing written through the directory link");
		free(planted);
		free(target);
	}
	is_int(write_file_below(root, "../escape", "x", 1, 0644, &err), AV_RUNTIME, "'..' refused");
	is_int(fd = open_regular(fifo, 0, &err), -1, "open_regular: a FIFO, at once");
	{
		char *m = xasprintf("%s: not a regular file", fifo);

		is_str(err.msg, m, "named");
		free(m);
	}
	is_int(read_file("/dev/null", 16, &b, &err), AV_USAGE, "read_file: a device");
	ok(write_file_atomic(plain, "p", 1, 0600, &err) == 0, "a plain file");
	ok((fd = open_regular(link, 0, &err)) >= 0, "a link followed by default");
	if (fd >= 0)
		close(fd);
	is_int(open_regular(link, 1, &err), -1, "and refused with nofollow");
	{
		char *m = xasprintf("%s: a symbolic link, not followed here", link);

		is_str(err.msg, m, "named");
		free(m);
	}
	outdir_discard(dir);
	free(fifo), free(plain), free(link), free(root), free(outside);
}

/* A suggested command pastes into a shell as it reads: one quoting for all. */
static void
test_shell_word(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "V/e", "V/e" },
		{ "Sim Health AI/prod", "'Sim Health AI/prod'" },
		{ "O'Brien Labs", "'O'\\''Brien Labs'" },
		{ "", "''" },
		{ "a;rm -rf x", "'a;rm -rf x'" },
		{ "$HOME", "'$HOME'" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *w = shell_word(cases[i].in);

		is_str(w, cases[i].out, "shell_word(%s)", cases[i].in);
		free(w);
	}
}

/* outline_lines(): a free-form document as the lines the probe and incident
 * screens draw, each kind of member once, nested and at a starting depth. */
static void
test_outline(void)
{
	cJSON *doc = cJSON_Parse("{\"change\":\"refused\",\"advertised\":8192,\"ok\":true,\"gone\":null,"
	    "\"sizes\":[1024,\"2k\",4096],\"none\":[],\"boundary\":{\"low\":100,\"at\":{\"n\":\"x y\"}},"
	    "\"steps\":[{\"size\":1,\"class\":\"answered\",\"body\":{\"a\":[1]}},{}],\"empty\":{}}");
	struct outline_line_list l = { 0 };
	struct buf b;

	outline_lines(doc, 1, &l);
	buf_init(&b);
	buf_add(&b, "", 0);
	for (size_t i = 0; i < l.n; i++)
		buf_printf(&b, "%d|%s\n", l.items[i].depth, l.items[i].text);
	is_str(b.data, "1|change: refused\n1|advertised: 8192\n1|ok: true\n1|gone: null\n"
	    "1|sizes: 1024, 2k, 4096\n1|none:\n1|boundary:\n2|low: 100\n2|at:\n3|n: x y\n"
	    "1|steps:\n2|- size=1 class=answered body={\"a\":[1]}\n2|-\n1|empty:\n",
	    "outline_lines: every kind of member, nested, from depth 1");
	is_int((int)l.n, 14, "outline_lines: 14 lines");
	outline_line_list_free(&l);
	is_int((int)l.n, 0, "outline_line_list_free empties the list");
	outline_lines(NULL, 0, &l);
	is_int((int)l.n, 0, "outline_lines: no document, no lines");
	buf_free(&b);
	cJSON_Delete(doc);
}

/* json_print_prepare: the text of a document is cJSON's own, whole numbers included. */
static void
test_json_print(void)
{
	const char *src = "{\"id\":7,\"neg\":-42,\"zero\":0,\"half\":1.5,\"tenth\":0.1,"
	    "\"big\":999999999999999,\"e15\":1e15,\"huge\":1e300,\"a\":[1,-2,{\"n\":3}],\"s\":\"9\"}";
	cJSON *doc = cJSON_Parse(src), *ref = cJSON_Parse(src), *shared = cJSON_CreateObject();
	char *got, *want;

	cJSON_AddNumberToObject(doc, "negzero", -0.0);
	cJSON_AddNumberToObject(ref, "negzero", -0.0);
	cJSON_AddNumberToObject(shared, "k", 5);
	cJSON_AddItemReferenceToObject(doc, "shared", shared);
	cJSON_AddItemReferenceToObject(ref, "shared", shared);
	want = cJSON_PrintUnformatted(ref);
	json_print_prepare(doc);
	got = cJSON_PrintUnformatted(doc);
	is_str(got, want, "json_print_prepare: the same text as cJSON prints");
	is_str(got, "{\"id\":7,\"neg\":-42,\"zero\":0,\"half\":1.5,\"tenth\":0.1,\"big\":999999999999999,"
	    "\"e15\":1e+15,\"huge\":1e+300,\"a\":[1,-2,{\"n\":3}],\"s\":\"9\",\"negzero\":-0,\"shared\":{\"k\":5}}",
	    "json_print_prepare: whole numbers as digits, the rest as cJSON writes them");
	ok(cJSON_IsRaw(cJSON_GetObjectItem(doc, "id")) && cJSON_IsNumber(cJSON_GetObjectItem(doc, "half")) &&
	    cJSON_IsNumber(cJSON_GetObjectItem(doc, "e15")) && cJSON_IsNumber(cJSON_GetObjectItem(shared, "k")),
	    "json_print_prepare: only whole numbers below 1e15 are made raw; a referenced document is left alone");
	free(got);
	free(want);
	cJSON_Delete(doc);
	cJSON_Delete(ref);
	cJSON_Delete(shared);
}

int
main(void)
{
	if (sodium_init() < 0)
		return 99;
	test_time();
	test_sha256();
	test_audit_encoding();
	test_credref();
	test_url();
	test_names_and_options();
	test_files();
	test_shell_word();
	test_outline();
	test_json_print();
	return tap_done();
}
