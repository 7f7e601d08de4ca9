/*
 * tui/vendor.c: one vendor — its fields and its endpoints. Endpoints are
 * added, changed and archived through the domain's endpoint_add,
 * endpoint_edit and endpoint_archive, as the endpoint commands do; credential
 * references are checked as they are typed, and a literal secret is refused.
 * The form's engine fields (kind, node URLs, credential reference) are checked
 * by the domain's own rules as they are typed; an edit sends only what changed,
 * so that its audit entry names the fields it changed. Above the endpoints, every round of the vendor's questionnaires in work
 * (draft or in review), each with how far it is answered, as vendor show
 * lists them: not only the newest draft the rating names.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "aivet/vendor-rating.h"

struct vendor_state {
	int64_t id;
	/* With its endpoint_list and its rating (vendor_rate's, as the dashboard
	 * and vendor list show it); loaded once the screen is. */
	struct vendor vendor;
	struct tui_list endpoints;
};

static const enum request vendor_requests[] = {
	REQ_UP, REQ_DOWN, REQ_PAGE_UP, REQ_PAGE_DOWN, REQ_HOME, REQ_END, REQ_SEARCH,
	REQ_ENTER, REQ_ADD, REQ_EDIT, REQ_ARCHIVE, REQ_ASSESS, REQ_INCIDENT, REQ_EXPORT, REQ_RUN,
	REQ_VERIFY, REQ_FIND_NEXT, REQ_FIND_PREV, REQ_NONE
};

/* Rows above the endpoint list: four fields, the rounds in work (one line
 * each, at least one, at most IN_WORK_ROWS), a blank row and the list's header. */
#define IN_WORK_ROWS 4

static int
header_rows(const struct vendor_state *s)
{
	size_t n = s->vendor.nin_work;

	return 4 + (n == 0 ? 1 : n > IN_WORK_ROWS ? IN_WORK_ROWS : (int)n) + 2;
}

static int
vendor_open(struct view *v, struct tui *t, const void *arg, struct aerr *err)
{
	struct vendor_state *s = xcalloc(1, sizeof *s);

	s->id = *(const int64_t *)arg;
	v->state = s;
	(void)t, (void)err;
	return 0;
}

/* The endpoint list's column widths: each column as wide as its widest value or
 * heading, and the name before the URL: the name is cut only where the URL would
 * otherwise lose its host and port, so 80 columns cut no name they have room for. */
struct ep_cols {
	int name, api, context, status, url;
};

/* The columns of what tui_fit_url keeps of a URL at the least: its host and port. */
static int
url_host_cols(const char *url, char *tmp, size_t n)
{
	const char *host = strstr(url, "://"), *path;

	if (host == NULL)
		return tui_text_cols(url);
	host += 3;
	path = strchr(host, '/');
	snprintf(tmp, n, "%.*s", path ? (int)(path - host) : (int)strlen(host), host);
	return tui_text_cols(tmp);
}

static void
ep_columns(const struct endpoint_list *l, int width, struct ep_cols *c)
{
	int name = 8, host = 3, fixed;   /* "ENDPOINT", "URL" */
	char tmp[600];

	c->api = 3, c->context = 7, c->status = 6;   /* "API", "CONTEXT", "STATUS" */
	for (size_t i = 0; i < l->n; i++) {
		const struct endpoint *e = &l->items[i];
		int w;

		name = name > (w = tui_text_cols(e->name)) ? name : w;
		c->api = c->api > (w = tui_text_cols(e->api)) ? c->api : w;
		c->context = c->context > (w = snprintf(tmp, sizeof tmp, "%lld",
		    (long long)e->context_tokens)) ? c->context : w;
		c->status = c->status > (w = tui_text_cols(e->status)) ? c->status : w;
		host = host > (w = url_host_cols(e->url, tmp, sizeof tmp)) ? host : w;
	}
	fixed = 1 + c->api + 1 + c->context + 1 + c->status + 1 + 7 + 1;   /* TENANTS */
	c->name = name < width - fixed - host ? name : width - fixed - host;
	if (c->name < 8)
		c->name = 8;
	c->url = width - fixed - c->name;
}

static int
vendor_load(struct view *v, struct tui *t, struct aerr *err)
{
	struct vendor_state *s = v->state;
	int64_t keep = tui_list_selected_id(&s->endpoints);
	struct vendor o;
	struct ep_cols c;
	char name[160], url[600];

	if (vendor_show_load(t->av->db, s->id, &o, err) != 0)
		return err->code;
	vendor_free(&s->vendor);
	s->vendor = o;
	tui_list_clear(&s->endpoints);
	ep_columns(&o.endpoint_list, COLS - 2, &c);
	snprintf(s->endpoints.header, sizeof s->endpoints.header, "%-*s %-*s %-*s %-*s %-7s %s",
	    c.name, "ENDPOINT", c.api, "API", c.context, "CONTEXT", c.status, "STATUS", "TENANTS", "URL");
	/* Active endpoints first, each group by name. */
	for (int archived = 0; archived < 2; archived++)
		for (size_t i = 0; i < o.endpoint_list.n; i++) {
			const struct endpoint *e = &o.endpoint_list.items[i];

			if ((strcmp(e->status, "active") != 0) != archived)
				continue;
			/* The URL takes what the row leaves, host and port kept (tui_fit_url). */
			tui_list_add(&s->endpoints, e->id, archived ? TUI_MARK_DIM : TUI_MARK_NONE,
			    "%s %-*s %-*lld %-*s %-7d %s", tui_fit_mid(name, sizeof name, e->name, c.name),
			    c.api, e->api, c.context, (long long)e->context_tokens, c.status, e->status,
			    (int)e->ncredentials, tui_fit_url(url, sizeof url, e->url, c.url));
		}
	tui_list_restore(&s->endpoints, keep);
	return 0;
}

/* A field to show, "-" for none (or before the screen loaded). */
static const char *
field(const char *value)
{
	return value != NULL ? value : "-";
}

/* One round in work, its questionnaire cut in the middle when the line would
 * not fit, so that its round, status and count stay whole. */
static void
draw_round(WINDOW *w, int y, int cols, const struct vendor_round *r)
{
	struct vendor_round cut = *r;
	char text[200], name[64];
	int width = cols - 2 - 13, over;

	vendor_round_text(r, text, sizeof text);
	over = (int)strlen(text) - width;
	if (over > 0) {
		int keep = (int)strlen(r->questionnaire) - over;

		tui_fit_mid(name, sizeof name, r->questionnaire, keep < 8 ? 8 : keep);
		snprintf(cut.questionnaire, sizeof cut.questionnaire, "%s", name);
		vendor_round_text(&cut, text, sizeof text);
	}
	tui_put(w, y, 15, width, text);
}

static void
draw_in_work(const struct vendor_state *s, WINDOW *w, int cols)
{
	size_t n = s->vendor.nin_work;
	char more[80];

	tui_put(w, 4, 2, cols - 2, n == 0 ? "In work:     none" : "In work:");
	for (size_t i = 0; i < n && i < IN_WORK_ROWS; i++) {
		if (i == IN_WORK_ROWS - 1 && n > IN_WORK_ROWS) {
			snprintf(more, sizeof more, "and %zu more (s lists the assessments)", n - i);
			tui_put(w, 4 + (int)i, 15, cols - 2 - 13, more);
			break;
		}
		draw_round(w, 4 + (int)i, cols, &s->vendor.in_work[i]);
	}
}

static void
vendor_draw(struct view *v, struct tui *t, WINDOW *w, int rows, int cols)
{
	struct vendor_state *s = v->state;
	char line[600];

	char tail[200];

	if (s->vendor.rating == NULL)
		return;
	snprintf(line, sizeof line, "Vendor:      %s  (%s)", field(s->vendor.name),
	    field(s->vendor.status));
	tui_put(w, 0, 2, cols - 2, line);
	vendor_verdict_short(s->vendor.rating, tail, sizeof tail);
	snprintf(line, sizeof line, "Criticality: %d   Rating: %s, %s",
	    (int)s->vendor.criticality, rating_name(s->vendor.rating->rating), tail);
	tui_put(w, 1, 2, cols - 2, line);
	snprintf(line, sizeof line, "Contact:     %s", field(s->vendor.contact));
	tui_put(w, 2, 2, cols - 2, line);
	snprintf(line, sizeof line, "Notes:       %s", field(s->vendor.notes));
	tui_put(w, 3, 2, cols - 2, line);
	draw_in_work(s, w, cols);
	if (rows > header_rows(s))
		tui_list_draw(&s->endpoints, t, w, header_rows(s) - 1, rows - header_rows(s) + 1, cols);
}

static const char *const apis[] = {
	"openai", "anthropic", "azure-openai", "gemini", "bedrock", "cloudflare", NULL
};

static int
check_api(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	for (int i = 0; apis[i]; i++)
		if (strcmp(apis[i], value) == 0)
			return 0;
	return aerr_set(err, AV_USAGE, "one of openai, anthropic, azure-openai, gemini, bedrock, cloudflare");
}

static int
check_endpoint_name(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return name_check("endpoint", value, err);
}

static int
check_url(const char *value, void *ctx, struct aerr *err)
{
	const struct tui_field *insecure = ctx;

	return url_check(value, insecure->value[0] == 'y', err);
}

static int
check_context(const char *value, void *ctx, struct aerr *err)
{
	int64_t n;

	(void)ctx;
	return parse_int_opt("context", value, 1, INT64_C(1) << 40, &n, err);
}

static int
check_yes_no(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	if (strcmp(value, "y") == 0 || strcmp(value, "n") == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "y or n");
}

/* "a=env:KEY_A b=file:/path" — each LABEL=REF checked as a reference. */
static int
check_credentials(const char *value, void *ctx, struct aerr *err)
{
	char *copy = xstrdup(value), *save = NULL;
	int rc = 0;

	(void)ctx;
	for (char *tok = strtok_r(copy, " ", &save); tok && rc == 0; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || eq == tok)
			rc = aerr_set(err, AV_USAGE, "write LABEL=env:VAR or LABEL=file:PATH, space-separated");
		else
			rc = credref_check(eq + 1, err);
	}
	free(copy);
	return rc;
}

static int
check_price(const char *value, void *ctx, struct aerr *err)
{
	double usd;

	(void)ctx;
	return value[0] == '\0' ? 0 : endpoint_price_parse("price", value, &usd, err);
}

enum { EF_NAME, EF_API, EF_URL, EF_MODEL, EF_CONTEXT, EF_CREDS, EF_INSECURE, EF_PRICE_IN,
	EF_PRICE_OUT, EF_ENGINE, EF_ENGINE_URLS, EF_ENGINE_CRED, EF_COUNT };

/* The engine: empty (none), or a kind the domain knows. */
static int
check_engine(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	if (value[0] == '\0' || endpoint_engine_check(value, err) == 0)
		return 0;
	return aerr_set(err, AV_USAGE, "one of sglang, vllm, tgi or llama.cpp (empty: no engine)");
}

/* The node URLs field, one URL a node, split at commas and blanks in place;
 * returns how many, each added to in as --engine-url adds it (at most
 * ENGINE_MAX_NODES, none twice). */
static int
engine_urls_split(char *text, struct endpoint_input *in, struct aerr *err)
{
	char *save = NULL;

	for (char *tok = strtok_r(text, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save))
		if (endpoint_input_engine_url(in, tok, err) != 0)
			return -1;
	return in->nengine_urls;
}

/* ctx: the form's fields. Each node's URL is checked as the endpoint's is,
 * with the form's insecure flag; an engine needs a node, a node an engine. */
static int
check_engine_urls(const char *value, void *ctx, struct aerr *err)
{
	const struct tui_field *f = ctx;
	struct endpoint_input scratch = { 0 };
	char *copy = xstrdup(value);
	int n = engine_urls_split(copy, &scratch, err), rc = n < 0 ? AV_USAGE : 0;

	for (int i = 0; i < n && rc == 0; i++)
		rc = endpoint_engine_url_check(scratch.engine_url[i], f[EF_INSECURE].value[0] == 'y', err);
	if (rc == 0 && n > 0 && f[EF_ENGINE].value[0] == '\0')
		rc = aerr_set(err, AV_USAGE, "nodes need an engine: fill Engine above (sglang, vllm, "
		    "tgi or llama.cpp)");
	if (rc == 0 && n == 0 && f[EF_ENGINE].value[0] != '\0')
		rc = aerr_set(err, AV_USAGE, "engine %s needs at least one node's status URL",
		    f[EF_ENGINE].value);
	free(copy);
	return rc;
}

static int
check_engine_cred(const char *value, void *ctx, struct aerr *err)
{
	(void)ctx;
	return value[0] == '\0' ? 0 : credref_check(value, err);
}

struct endpoint_form_ctx {
	struct tui *t;
	const char *vendor;
	int64_t id;        /* 0 when adding */
	char ref[256];     /* VENDOR/NAME when editing */
	/* The values the form opened with: an edit sends only what differs from them,
	 * so that its audit entry names the fields it changed. */
	char was[EF_COUNT][512];
};

/* Whether field i is to be sent: every field typed when adding, a changed one when editing. */
static int
sent(const struct endpoint_form_ctx *c, const struct tui_field *f, int i)
{
	return c->id == 0 ? f[i].value[0] != '\0' : strcmp(f[i].value, c->was[i]) != 0;
}

/* A price typed (or changed, when editing) is set; an empty one is left as it is. */
static int
form_price(const struct endpoint_form_ctx *c, const struct tui_field *f, int i, double *usd,
    int *set, struct aerr *err)
{
	if (f[i].value[0] == '\0' || !sent(c, f, i))
		return 0;
	*set = 1;
	return endpoint_price_parse("price", f[i].value, usd, err);
}

/* The engine fields into in (urls: a copy of the URLs field the input points
 * into). Emptied when there was an engine, the engine goes; its credential
 * is not emptied alone (the domain keeps an engine's reference until it goes). */
static int
form_engine(const struct endpoint_form_ctx *c, struct tui_field *f, char *urls,
    struct endpoint_input *in, struct aerr *err)
{
	int had = c->was[EF_ENGINE][0] != '\0';

	if (had && f[EF_ENGINE].value[0] == '\0' && f[EF_ENGINE_URLS].value[0] == '\0' &&
	    f[EF_ENGINE_CRED].value[0] == '\0') {
		in->remove_engine = 1;
		return 0;
	}
	if (sent(c, f, EF_ENGINE))
		in->engine = f[EF_ENGINE].value, in->set_engine = 1;
	if (sent(c, f, EF_ENGINE_URLS) && engine_urls_split(urls, in, err) < 0)
		return aerr_prefix(err, "Engine URLs");
	if (sent(c, f, EF_ENGINE_CRED)) {
		if (f[EF_ENGINE_CRED].value[0] == '\0')
			return aerr_set(err, AV_USAGE, "Engine credential: the engine keeps its reference "
			    "while it has nodes; give another, or empty the three engine fields to remove "
			    "the engine");
		in->engine_cred = f[EF_ENGINE_CRED].value, in->set_engine_cred = 1;
	}
	return 0;
}

/* Whether the blank-separated words of text hold word (whole), or with
 * label_only, a word "LABEL=..." whose label is word's. */
static int
has_word(const char *text, const char *word, int label_only)
{
	size_t n = label_only ? strcspn(word, "=") : strlen(word);

	for (const char *p = text; *p; ) {
		size_t len = strcspn(p, " ");

		if (len >= n && strncmp(p, word, n) == 0 &&
		    (label_only ? p[n] == '=' : len == n))
			return 1;
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

/* The credentials the form opened with (old, a copy of them, which in points
 * into) whose label the field no longer holds (now): removed, as
 * --remove-credential removes them. */
static int
form_removed(const char *now, char *old, struct endpoint_input *in, struct aerr *err)
{
	char *save = NULL;

	for (char *tok = strtok_r(old, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (has_word(now, tok, 1))
			continue;
		if (in->nremove == ENDPOINT_MAX_CREDS)
			return aerr_set(err, AV_USAGE, "Credentials: too many removed");
		tok[strcspn(tok, "=")] = '\0';
		in->remove[in->nremove++] = tok;
	}
	return 0;
}

/* The form's fields into in: all of them when adding, the changed ones when
 * editing (of the credentials, those added, changed or removed). copy, urls
 * and old are the caller's copies, which in points into. */
static int
form_input(const struct endpoint_form_ctx *c, struct tui_field *f, char *copy, char *urls,
    char *old, struct endpoint_input *in, struct aerr *err)
{
	char *save = NULL;

	in->name = f[EF_NAME].value, in->set_name = c->id == 0 || sent(c, f, EF_NAME);
	in->api = f[EF_API].value, in->set_api = c->id == 0 || sent(c, f, EF_API);
	in->url = f[EF_URL].value, in->set_url = c->id == 0 || sent(c, f, EF_URL);
	in->model = f[EF_MODEL].value, in->set_model = c->id == 0 || sent(c, f, EF_MODEL);
	/* Plain http is allowed only when asked for; an edit also takes it back. */
	if (c->id ? sent(c, f, EF_INSECURE) : f[EF_INSECURE].value[0] == 'y')
		in->insecure = f[EF_INSECURE].value[0] == 'y', in->set_insecure = 1;
	if ((c->id == 0 || sent(c, f, EF_CONTEXT)) && (in->set_context = 1,
	    parse_int_opt("--context", f[EF_CONTEXT].value, 1, INT64_C(1) << 40, &in->context, err)) != 0)
		return err->code;
	if (form_price(c, f, EF_PRICE_IN, &in->price_in, &in->set_price_in, err) != 0 ||
	    form_price(c, f, EF_PRICE_OUT, &in->price_out, &in->set_price_out, err) != 0)
		return err->code;
	if (c->id == 0 || sent(c, f, EF_CREDS))
		for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (!has_word(c->was[EF_CREDS], tok, 0) &&
			    endpoint_input_credential(in, tok, err) != 0)
				return err->code;
	if (c->id != 0 && sent(c, f, EF_CREDS) && form_removed(f[EF_CREDS].value, old, in,
	    err) != 0)
		return err->code;
	return form_engine(c, f, urls, in, err);
}

static int
endpoint_form_submit(struct tui_field *f, int n, void *p, struct aerr *err)
{
	struct endpoint_form_ctx *c = p;
	struct endpoint_input in = { 0 };
	char *copy = xstrdup(f[EF_CREDS].value), *urls = xstrdup(f[EF_ENGINE_URLS].value),
	    *old = xstrdup(c->was[EF_CREDS]);
	struct db *db;
	int64_t id;
	int rc = 0, changed = c->id == 0;

	for (int i = 0; i < n; i++)
		changed |= sent(c, f, i);
	if (!changed) {
		tui_status(c->t, 0, "endpoint %s: nothing changed", c->ref);
		goto out;
	}
	if ((rc = form_input(c, f, copy, urls, old, &in, err)) != 0)
		goto out;
	if ((db = av_db(c->t->av, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if (c->id == 0) {
		if ((rc = endpoint_add(db, c->t->av->actor, c->vendor, &in, &id, err)) != 0)
			goto out;
		tui_status(c->t, 0, "endpoint %s/%s added (id %lld, %d credential%s)", c->vendor,
		    in.name, (long long)id, in.ncreds, in.ncreds == 1 ? "" : "s");
	} else {
		if ((rc = endpoint_edit(db, c->t->av->actor, c->ref, &in, err)) != 0)
			goto out;
		tui_status(c->t, 0, "endpoint %s updated", c->ref);
	}
	tui_changed(c->t);
out:
	endpoint_input_free(&in);
	free(copy);
	free(urls);
	free(old);
	return rc;
}

/* The form's fields as the endpoint has them. */
static void
form_fill(struct tui_field *f, const struct endpoint *e)
{
	snprintf(f[EF_NAME].value, sizeof f[EF_NAME].value, "%s", e->name);
	snprintf(f[EF_API].value, sizeof f[EF_API].value, "%s", e->api);
	snprintf(f[EF_URL].value, sizeof f[EF_URL].value, "%s", e->url);
	snprintf(f[EF_MODEL].value, sizeof f[EF_MODEL].value, "%s", e->model);
	snprintf(f[EF_CONTEXT].value, sizeof f[EF_CONTEXT].value, "%lld", (long long)e->context_tokens);
	for (size_t i = 0; i < e->ncredentials; i++) {
		size_t used = strlen(f[EF_CREDS].value);

		snprintf(f[EF_CREDS].value + used, sizeof f[EF_CREDS].value - used, "%s%s=%s",
		    used ? " " : "", e->credentials[i].label, e->credentials[i].ref);
	}
	snprintf(f[EF_INSECURE].value, sizeof f[EF_INSECURE].value, "%s",
	    e->allow_insecure_http ? "y" : "n");
	if (e->has_price_in)
		snprintf(f[EF_PRICE_IN].value, sizeof f[EF_PRICE_IN].value, "%g", e->price_in_per_mtok);
	if (e->has_price_out)
		snprintf(f[EF_PRICE_OUT].value, sizeof f[EF_PRICE_OUT].value, "%g", e->price_out_per_mtok);
	if (e->engine.n > 0) {
		snprintf(f[EF_ENGINE].value, sizeof f[EF_ENGINE].value, "%s", e->engine.engine);
		for (int i = 0; i < e->engine.n; i++) {
			size_t used = strlen(f[EF_ENGINE_URLS].value);

			snprintf(f[EF_ENGINE_URLS].value + used, sizeof f[EF_ENGINE_URLS].value - used,
			    "%s%s", used ? " " : "", e->engine.url[i]);
		}
		snprintf(f[EF_ENGINE_CRED].value, sizeof f[EF_ENGINE_CRED].value, "%s",
		    e->engine.credential_ref ? e->engine.credential_ref : "");
	}
}

static int
endpoint_form(struct tui *t, struct vendor_state *s, int64_t id, struct aerr *err)
{
	struct tui_field f[EF_COUNT] = {
		{ .label = "Name", .width = 30, .check = check_endpoint_name, .hint = "e.g. prod" },
		{ .label = "API", .width = 14, .check = check_api,
		  .hint = "openai, anthropic, azure-openai, gemini, bedrock or cloudflare" },
		{ .label = "Base URL", .width = 50, .check = check_url,
		  .hint = "https://...; plain http only to loopback unless allowed below" },
		{ .label = "Model", .width = 30, .hint = "the model name the API expects" },
		{ .label = "Context", .width = 10, .check = check_context,
		  .hint = "the advertised context length, in tokens" },
		{ .label = "Credentials", .width = 50, .check = check_credentials,
		  .hint = "LABEL=env:VAR or LABEL=file:PATH, one per tenant, space-separated" },
		{ .label = "Insecure http", .width = 3, .check = check_yes_no,
		  .hint = "y allows plain http to a non-loopback host (credentials in clear)" },
		[EF_PRICE_IN] = { .label = "Price in", .width = 12, .check = check_price,
		  .hint = "USD per million input tokens, e.g. 2.5 (empty: none; the plan shows no cost)" },
		[EF_PRICE_OUT] = { .label = "Price out", .width = 12, .check = check_price,
		  .hint = "USD per million output tokens, e.g. 10" },
		[EF_ENGINE] = { .label = "Engine", .width = 10, .check = check_engine,
		  .hint = "the serving engine the engine probe reads: sglang, vllm, tgi or llama.cpp "
		  "(empty: none)" },
		[EF_ENGINE_URLS] = { .label = "Engine URLs", .width = 50, .check = check_engine_urls,
		  .hint = "each node's status API, e.g. http://10.0.0.5:30000, separated by commas or "
		  "spaces" },
		[EF_ENGINE_CRED] = { .label = "Engine credential", .width = 30, .check = check_engine_cred,
		  .hint = "the engine admin API's credential: env:VAR or file:PATH (empty: none)" },
	};
	struct endpoint_form_ctx c = { .t = t, .vendor = field(s->vendor.name), .id = id };
	struct endpoint e;

	f[EF_URL].ctx = &f[EF_INSECURE];
	f[EF_ENGINE_URLS].ctx = f;
	snprintf(f[EF_API].value, sizeof f[EF_API].value, "openai");
	snprintf(f[EF_INSECURE].value, sizeof f[EF_INSECURE].value, "n");
	if (id != 0) {
		if (endpoint_get(t->av->db, id, &e, err) != 0)
			return err->code;
		snprintf(c.ref, sizeof c.ref, "%s", e.ref);
		form_fill(f, &e);
		endpoint_free(&e);
		for (int i = 0; i < EF_COUNT; i++)
			snprintf(c.was[i], sizeof c.was[i], "%s", f[i].value);
	}
	tui_form(t, id ? "Edit endpoint" : "Add endpoint", f, EF_COUNT, endpoint_form_submit, &c);
	return 0;
}

static int
vendor_request(struct view *v, struct tui *t, enum request req, struct aerr *err)
{
	struct vendor_state *s = v->state;
	int64_t id = tui_list_selected_id(&s->endpoints);
	char ref[300];
	struct buf out;

	if (tui_list_request(&s->endpoints, t, req, v->content_rows - header_rows(s)))
		return 0;
	if (id >= 0 && endpoint_ref(t->av->db, id, ref, sizeof ref, err) != 0)
		return err->code;
	switch (req) {
	case REQ_ASSESS:
		return tui_push(t, &tui_assessments_view, &s->id, err);
	case REQ_ADD:
		return endpoint_form(t, s, 0, err);
	case REQ_EDIT:
		if (id < 0)
			return aerr_set(err, AV_USAGE, "no endpoint selected");
		return endpoint_form(t, s, id, err);
	case REQ_ARCHIVE:
		if (id < 0)
			return aerr_set(err, AV_USAGE, "no endpoint selected");
		if (!tui_confirm(t, "Archive endpoint %s? Nothing is deleted.", ref))
			return 0;
		if (endpoint_archive(t->av->db, t->av->actor, ref, err) != 0)
			return err->code;
		tui_changed(t);
		tui_status(t, 0, "endpoint %s archived", ref);
		return 0;
	case REQ_EXPORT:
		return tui_export_dialog(t, s->id, field(s->vendor.name), err);
	case REQ_VERIFY:
		return tui_verify_dialog(t, err);
	case REQ_ENTER: {
		struct endpoint e;
		int rc;

		if (id < 0)
			return 0;
		if (endpoint_get(t->av->db, id, &e, err) != 0)
			return err->code;
		buf_init(&out);
		endpoint_describe(&e, &out);
		buf_add(&out, "", 0);
		endpoint_free(&e);
		rc = tui_show_text(t, ref, out.data, err);
		buf_free(&out);
		return rc;
	}
	case REQ_INCIDENT:
		return tui_push(t, &tui_incidents_view, &s->id, err);
	case REQ_RUN:
		if (id < 0)
			return aerr_set(err, AV_USAGE, "no endpoint selected");
		return tui_push(t, &tui_probe_runs_view, &id, err);
	default:
		return 0;
	}
}

static void
vendor_close(struct view *v)
{
	struct vendor_state *s = v->state;

	tui_list_free(&s->endpoints);
	vendor_free(&s->vendor);
	free(s);
}

static void
vendor_title(struct view *v, char *buf, size_t n)
{
	struct vendor_state *s = v->state;

	snprintf(buf, n, "Vendor %s", field(s->vendor.name));
}

static void
vendor_click(struct view *v, struct tui *t, int row, int dbl)
{
	struct vendor_state *s = v->state;
	struct aerr err = { 0 };

	tui_list_click(&s->endpoints, row - (header_rows(s) - 1));
	if (dbl && vendor_request(v, t, REQ_ENTER, &err) != 0)
		tui_status(t, 1, "%s", err.msg);
}

const struct view_ops tui_vendor_view = {
	"vendor", vendor_requests, vendor_open, vendor_load, vendor_draw, vendor_request,
	vendor_close, vendor_title, vendor_click, NULL
};
