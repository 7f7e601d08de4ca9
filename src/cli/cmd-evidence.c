/*
 * cmd-evidence.c: "aivet evidence show ID" — one piece of evidence: an
 * attached file's description, or a recorded exchange with its headers
 * (credentials were redacted when recorded), bodies, timings, and the
 * findings that cite it, printed from evidence_build() (evidence-json.c),
 * which checks stored bytes against their hash and regenerates a request
 * kept as a recipe. Sealed (leaked) content is not shown.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "aivet/probe.h"
#include "aivet/evidence-key.h"

#define PREVIEW ((size_t)4096)

/* Prints text that came from outside (a vendor's headers and bodies, a file
 * name) with control characters escaped: a reply must not drive the terminal. */
static void
put_text(const char *s, size_t n, int keep_lines)
{
	char *e = text_escape(s, n, keep_lines);

	term_write(stdout, e);
	free(e);
}

static const char *
str_or(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void
print_headers(const cJSON *h)
{
	const cJSON *kv;

	cJSON_ArrayForEach(kv, h)
		if (cJSON_IsString(kv)) {
			term_write(stdout, "  ");
			put_text(kv->string, strlen(kv->string), 0);
			term_write(stdout, ": ");
			put_text(kv->valuestring, strlen(kv->valuestring), 0);
			fputc('\n', stdout);
		}
}

static void
print_body(const char *label, const cJSON *x, const char *key, int full)
{
	const cJSON *b = cJSON_GetObjectItem(x, key);
	char *sealed = xasprintf("%s_sealed", key);

	if (cJSON_IsTrue(cJSON_GetObjectItem(x, sealed)) && !cJSON_IsString(b))
		term_printf(stdout, "%s: sealed (leaked content is kept encrypted)\n", label);
	else if (cJSON_IsString(b)) {
		size_t n = strlen(b->valuestring);
		char *b64key = xasprintf("%s_base64", key);

		if (cJSON_GetObjectItem(x, b64key) != NULL)
			term_printf(stdout, "%s (not UTF-8 text: NUL and stray bytes shown as \\xNN; --json has the bytes "
			    "in %s):\n", label, b64key);
		else
			term_printf(stdout, "%s (%zu bytes):\n", label, n);
		free(b64key);
		put_text(b->valuestring, full || n <= PREVIEW ? n : PREVIEW, 1);
		if (!full && n > PREVIEW)
			term_printf(stdout, "\n... (%zu more bytes; --full shows all)", n - PREVIEW);
		term_printf(stdout, "\n");
	}
	free(sealed);
}

static int
evidence_show(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;
	int json = 0, full = 0, open_leaked = 0, c;
	int64_t id;
	struct db *db;
	cJSON *j, *x, *t, *fd;

	opt_begin(&p, av, argc, argv);
	while ((c = opt_next(&p, err)) > 0) {
		if (c == 'j')
			json = 1;
		else if (c == 'f')
			full = 1;
		else if (c == 'L')
			open_leaked = 1;
	}
	if (c < 0)
		return err->code;
	if (parse_int_opt("ID", argv[p.ind], 1, INT64_MAX, &id, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (evidence_build(db, id, open_leaked, &j, err) != 0) {
		cJSON_Delete(j);
		return err->code;
	}
	if (json) {
		json_emit(j);
		return 0;
	}
	term_printf(stdout, "evidence %lld: %s, ", (long long)id, cJSON_GetObjectItem(j, "kind")->valuestring);
	put_text(str_or(j, "file", "-"), strlen(str_or(j, "file", "-")), 0);
	term_printf(stdout, ", %.0f bytes, SHA-256 %s\n", cJSON_GetObjectItem(j, "size")->valuedouble,
	    cJSON_GetObjectItem(j, "sha256")->valuestring);
	term_printf(stdout, "added %s by %s\n", cJSON_GetObjectItem(j, "added_at")->valuestring,
	    cJSON_GetObjectItem(j, "added_by")->valuestring);
	if ((x = cJSON_GetObjectItem(j, "exchange")) != NULL) {
		const cJSON *st = cJSON_GetObjectItem(x, "response_status");
		const cJSON *e = cJSON_GetObjectItem(x, "error");

		term_printf(stdout, "run %d, probe %s, exchange %d, tenant %s%s\n", cJSON_GetObjectItem(x, "run")->valueint,
		    cJSON_GetObjectItem(x, "probe")->valuestring, cJSON_GetObjectItem(x, "seq")->valueint,
		    str_or(x, "tenant", "-"),
		    cJSON_IsTrue(cJSON_GetObjectItem(x, "streaming")) ? ", streaming" : "");
		term_printf(stdout, "%s ", cJSON_GetObjectItem(x, "method")->valuestring);
		put_text(str_or(x, "url", ""), strlen(str_or(x, "url", "")), 0);
		fputc('\n', stdout);
		print_headers(cJSON_GetObjectItem(x, "request_headers"));
		term_printf(stdout, "request: %.0f bytes, SHA-256 %s\n", cJSON_GetObjectItem(x, "request_size")->valuedouble,
		    cJSON_GetObjectItem(x, "request_sha256")->valuestring);
		if (cJSON_GetObjectItem(x, "request_recipe") != NULL)
			term_printf(stdout, "request body kept as its recipe; regenerated: %s\n",
			    cJSON_IsTrue(cJSON_GetObjectItem(x, "request_regenerated")) ?
			    "SHA-256 matches" : "SHA-256 DOES NOT MATCH");
		else
			print_body("request body", x, "request_body", full);
		if (cJSON_IsNumber(st))
			term_printf(stdout, "response: HTTP %d, %.0f bytes%s\n", st->valueint,
			    cJSON_GetObjectItem(x, "response_size")->valuedouble,
			    cJSON_IsTrue(cJSON_GetObjectItem(x, "response_truncated")) ? " (cut at the size cap)" : "");
		else
			term_printf(stdout, "response: none\n");
		if (cJSON_IsString(e)) {
			term_write(stdout, "error: ");
			put_text(e->valuestring, strlen(e->valuestring), 0);
			fputc('\n', stdout);
		}
		print_headers(cJSON_GetObjectItem(x, "response_headers"));
		print_body("response body", x, "response_body", full);
		t = cJSON_GetObjectItem(x, "timings");
		if (cJSON_IsObject(t))
			term_printf(stdout, "timings: connect %.3f ms, first byte %.3f ms, total %.3f ms; started %s\n",
			    cJSON_GetObjectItem(t, "connect_ms")->valuedouble,
			    cJSON_GetObjectItem(t, "ttfb_ms")->valuedouble,
			    cJSON_GetObjectItem(t, "total_ms")->valuedouble,
			    cJSON_GetObjectItem(x, "started_at")->valuestring);
		cJSON_ArrayForEach(fd, cJSON_GetObjectItem(j, "findings"))
			term_printf(stdout, "cited by finding %d: %s (%s)\n", cJSON_GetObjectItem(fd, "id")->valueint,
			    cJSON_GetObjectItem(fd, "code")->valuestring,
			    cJSON_GetObjectItem(fd, "severity")->valuestring);
	}
	cJSON_Delete(j);
	return 0;
}

static const struct opt show_opts[] = {
	{ "full", 'f', NULL, "print bodies over 4 KiB whole", 0 },
	{ "include-leaked-content", 'L', NULL,
	  "show another tenant's leaked text instead of withholding it (audited)", 0 },
	{ "json", 'j', NULL, "print JSON", 0 },
	{ NULL, 0, NULL, NULL, 0 }
};

static const struct cmd_entry evidence_subs[] = {
	{ "show", "ID", show_opts, "show a piece of evidence (an exchange: headers, bodies, timings)",
	  evidence_show, NULL, ARGS({ TARGET_WORD, 0 }) },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL }
};

const struct cmd_entry cmd_evidence_entry = {
	"evidence", NULL, NULL, "show recorded evidence", NULL, evidence_subs, NULL
};
