/*
 * cmd-evidence.c: "aivet evidence show ID" — one piece of evidence: an
 * attached file's description, or a recorded exchange with its headers
 * (credentials were redacted when recorded), bodies, timings, and the
 * findings that cite it, printed from the record evidence_get() loads
 * (evidence-json.c),
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

static void
print_headers(const struct evidence_header *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		term_write(stdout, "  ");
		put_text(h[i].name, strlen(h[i].name), 0);
		term_write(stdout, ": ");
		put_text(h[i].value, strlen(h[i].value), 0);
		fputc('\n', stdout);
	}
}

static void
print_body(const char *label, const struct evidence_body *b, const char *key, int full)
{
	if (b->sealed && b->text == NULL)
		term_printf(stdout, "%s: sealed (leaked content is kept encrypted)\n", label);
	else if (b->text != NULL) {
		if (b->base64 != NULL)
			term_printf(stdout, "%s (not UTF-8 text: NUL and stray bytes shown as \\xNN; --json has the bytes "
			    "in %s_base64):\n", label, key);
		else
			term_printf(stdout, "%s (%zu bytes):\n", label, b->len);
		put_text(b->text, full || b->len <= PREVIEW ? b->len : PREVIEW, 1);
		if (!full && b->len > PREVIEW)
			term_printf(stdout, "\n... (%zu more bytes; --full shows all)", b->len - PREVIEW);
		term_printf(stdout, "\n");
	}
}

/* The usage object of a JSON body, or of the last server-sent event that
 * carries one; the caller's to delete, NULL when there is none. */
static cJSON *
body_usage(const char *text)
{
	cJSON *doc = cJSON_Parse(text), *u = NULL;

	if (doc != NULL) {
		u = cJSON_DetachItemFromObjectCaseSensitive(doc, "usage");
		cJSON_Delete(doc);
		return u;
	}
	for (const char *line = text; line != NULL; line = strchr(line, '\n')) {
		char *one;
		cJSON *ev, *eu;

		line += *line == '\n';
		if (strncmp(line, "data:", 5) != 0)
			continue;
		one = strndup(line + 5, strcspn(line + 5, "\n"));
		ev = cJSON_Parse(one);
		free(one);
		if (cJSON_IsObject(eu = cJSON_DetachItemFromObjectCaseSensitive(ev, "usage"))) {
			cJSON_Delete(u);
			u = eu;
		} else
			cJSON_Delete(eu);
		cJSON_Delete(ev);
	}
	return u;
}

/* The usage, on one line: the token counts findings cite stay in view when the
 * body's preview is cut before them. */
static void
print_usage(const struct evidence_body *b)
{
	cJSON *u;
	char *text;

	if (b->text == NULL || b->base64 != NULL || (u = body_usage(b->text)) == NULL)
		return;
	if (cJSON_IsObject(u) && (text = cJSON_PrintUnformatted(u)) != NULL) {
		term_write(stdout, "usage: ");
		put_text(text, strlen(text), 0);
		fputc('\n', stdout);
		free(text);
	}
	cJSON_Delete(u);
}

static void
print_exchange(const struct evidence_item *e, int full)
{
	const struct evidence_exchange *x = e->exchange;

	term_printf(stdout, "run %lld, probe %s, request %lld of the run, tenant %s%s\n", (long long)x->run, x->probe,
	    (long long)x->seq, x->tenant ? x->tenant : "-", x->streaming ? ", streaming" : "");
	term_printf(stdout, "%s ", x->method);
	put_text(x->url, strlen(x->url), 0);
	fputc('\n', stdout);
	print_headers(x->req_hdr, x->nreq_hdr);
	term_printf(stdout, "request: %lld bytes, SHA-256 %s\n", (long long)x->request_size, x->request_sha256);
	if (x->request_recipe != NULL)
		term_printf(stdout, "request body kept as its recipe; regenerated: %s\n",
		    x->request_regenerated ? "SHA-256 matches" : "SHA-256 DOES NOT MATCH");
	else
		print_body("request body", &x->request_body, "request_body", full);
	if (x->has_response_status)
		term_printf(stdout, "response: HTTP %d, %lld bytes%s\n", x->response_status,
		    (long long)x->response_size, x->response_truncated ? " (cut at the size cap)" : "");
	else
		term_printf(stdout, "response: none\n");
	if (x->error != NULL) {
		term_write(stdout, "error: ");
		put_text(x->error, strlen(x->error), 0);
		fputc('\n', stdout);
	}
	print_headers(x->resp_hdr, x->nresp_hdr);
	print_body("response body", &x->response_body, "response_body", full);
	print_usage(&x->response_body);
	if (x->has_timings)
		term_printf(stdout, "timings: connect %.3f ms, first byte %.3f ms, total %.3f ms; started %s\n",
		    x->connect_ms, x->ttfb_ms, x->total_ms, x->started_at);
	for (size_t i = 0; i < e->nfindings; i++)
		term_printf(stdout, "cited by finding %lld: %s (%s)\n", (long long)e->findings[i].id,
		    e->findings[i].code, e->findings[i].severity);
}

static int
evidence_show(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	int json = args_has(args, 'j'), full = args_has(args, 'f'), open_leaked = args_has(args, 'L');
	int64_t id;
	struct db *db;
	struct evidence_item e;

	if (parse_int_opt("ID", args->word[0], 1, INT64_MAX, &id, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	if (evidence_get(db, id, open_leaked, &e, err) != 0) {
		evidence_item_free(&e);
		return err->code;
	}
	if (json) {
		json_emit(evidence_item_to_json(&e));
		evidence_item_free(&e);
		return 0;
	}
	term_printf(stdout, "evidence %lld: %s, ", (long long)id, e.kind);
	put_text(e.file, strlen(e.file), 0);
	term_printf(stdout, ", %lld bytes, SHA-256 %s\n", (long long)e.size, e.sha256);
	term_printf(stdout, "added %s by %s\n", e.added_at, e.added_by);
	if (e.exchange != NULL)
		print_exchange(&e, full);
	evidence_item_free(&e);
	return 0;
}

static const struct opt show_opts[] = {
	{ .name = "full", .id = 'f', .help = "print bodies over 4 KiB whole" },
	{ .name = "include-leaked-content", .id = 'L',
	  .help = "show another tenant's leaked text instead of withholding it (audited)" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

static const struct cmd_entry evidence_subs[] = {
	{ .name = "show", .targets = "ID", .opts = show_opts,
	  .summary = "show a piece of evidence (an exchange: headers, bodies, timings)",
	  .exec = evidence_show, .args = ARGS({ TARGET_WORD, 0 }) },
	{ 0 }
};

const struct cmd_entry cmd_evidence_entry = {
	.name = "evidence",
	.summary = "show recorded evidence",
	.subs = evidence_subs,
};
