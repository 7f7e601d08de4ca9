/*
 * report-export.c: exporting a vendor's signed report bundle — load the
 * signing key, collect the report in one transaction, write and sign the
 * bundle, and record the export (report table and audit log) in that same
 * transaction, so the audit checkpoint in the report is exact. Called by
 * "aivet report" and the TUI's export dialog; prints nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "report.h"
#include "assess.h"
#include "incident.h"
#include "run-query.h"
#include "report-doc.h"

int
report_parse_runs(const char *s, int64_t **ids, size_t *n, struct aerr *err)
{
	char *copy = xstrdup(s), *tok, *save = NULL;

	*ids = NULL;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		int64_t v;

		if (parse_int_opt("--runs", tok, 1, INT64_MAX, &v, err) != 0) {
			free(copy);
			free(*ids);
			*ids = NULL;
			return err->code;
		}
		*ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = v;
	}
	free(copy);
	if (*n == 0)
		return aerr_set(err, AV_USAGE, "--runs: give one or more run ids separated by commas");
	return 0;
}

/* An endpoint stored before URLs with credentials were refused must not
 * carry its secret into a signed bundle: the report is refused until the
 * URL is fixed. */
static int
endpoints_clean(const struct report *r, struct aerr *err)
{
	for (size_t i = 0; i < r->doc->endpoints.n; i++) {
		const struct endpoint *e = &r->doc->endpoints.items[i];

		if (e->url != NULL && url_has_credential(e->url)) {
			const char *ref = e->ref != NULL ? e->ref : "?";
			char *word = shell_word(ref);

			aerr_set(err, AV_USAGE, "endpoint %s: its URL carries a credential, which the "
			    "report would copy; set a URL without it ('aivet endpoint edit %s --url URL') "
			    "and give the key with --credential", ref, word);
			free(word);
			return err->code;
		}
	}
	return 0;
}

int
report_export(struct db *db, const char *actor, struct report_opts *o, const char *out,
    const char *key, struct report_export_result *res, struct aerr *err)
{
	struct minisign_sec *sec = NULL;
	int rc;

	memset(res, 0, sizeof *res);
	/* The key first: a wrong passphrase should cost nothing. */
	if (keystore_load_sec(key, &sec, err) != 0)
		return err->code;
	rc = report_export_sec(db, actor, o, out, sec, NULL, NULL, res, err);
	minisign_sec_free(sec);
	return rc;
}

int
report_export_sec(struct db *db, const char *actor, struct report_opts *o, const char *out,
    const struct minisign_sec *sec, void (*progress)(void *arg, const char *what), void *arg,
    struct report_export_result *res, struct aerr *err)
{
	struct minisign_pub pub;
	struct report r = { 0 };
	struct buf publine = { 0 };
	int rc;

	memset(res, 0, sizeof *res);
	minisign_sec_to_pub(sec, &pub);
	minisign_keyid(pub.keynum, res->key_id);
	o->key_id = res->key_id;
	minisign_pubkey_base64(&pub, &publine);
	snprintf(res->public_key, sizeof res->public_key, "%s", publine.data);
	o->public_key = res->public_key;
	if (db_begin(db, err) != 0)
		goto done;
	if (progress != NULL)
		progress(arg, "collecting the report ...");
	if (report_collect(db, o, &r, err) != 0 || endpoints_clean(&r, err) != 0)
		goto fail;
	r.tsa_optional = o->tsa_optional;
	r.tsa = &res->tsa;
	if (progress != NULL) {
		/* The renderings, the evidence files, aivet.pub and VERIFY.txt. */
		char *what = xasprintf("writing and signing %zu files ...", r.nfiles + 6);

		progress(arg, what);
		free(what);
	}
	if (bundle_write(out, &r, sec, res->sums, err) != 0)
		goto fail;
	{
		const char *rid = r.doc->report_id, *gen = r.doc->generated_at;
		/* The options as report.json records them, written by the record's writer. */
		cJSON *opts = report_options_json(r.doc), *d = cJSON_CreateObject();
		char *optstr = cJSON_PrintUnformatted(opts);

		/* On PostgreSQL the function of db/pg/008-workflow.sql writes it. */
		static const struct db_write report_row = {
			{ "INSERT INTO report (report_uuid, vendor_id, out_dir, options, key_id, sums_sha256, "
			  "generated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
			"SELECT aivet_report_add(?1, ?2, ?3, ?4, ?5, ?6, ?7)", 1
		};

		rc = db_write(db, err, &report_row, &res->id, "tittttt", rid, r.vendor_id, out, optstr,
		    res->key_id, res->sums, gen);
		cJSON_AddStringToObject(d, "report_id", rid);
		cJSON_AddStringToObject(d, "out_dir", out);
		cJSON_AddStringToObject(d, "key_id", res->key_id);
		cJSON_AddStringToObject(d, "sums_sha256", res->sums);
		if (res->tsa.attested)   /* when, as the TSA attests it */
			cJSON_AddStringToObject(d, "tsa_time", res->tsa.time);
		if (rc == 0)
			rc = audit_append(db, actor, "report.export", "report", res->id, d, err);
		free(optstr);
		cJSON_Delete(opts);
		cJSON_Delete(d);
		if (rc != 0 || db_commit(db, err) != 0)
			goto fail;
		snprintf(res->report_id, sizeof res->report_id, "%s", rid);
		snprintf(res->rating, sizeof res->rating, "%s", rating_name(r.doc->summary.verdict.rating));
		res->evidence_files = r.nfiles;
	}
	err->code = 0;
	goto done;
fail:
	db_rollback(db);
done:
	report_free(&r);
	buf_free(&publine);
	return err->code;
}

void
report_export_text(const char *out, const struct report_export_result *res, struct buf *b)
{
	buf_printf(b, "report %s written to %s\n", res->report_id, out);
	buf_printf(b, "  rating       %s\n", res->rating);
	buf_printf(b, "  signed by    key id %s\n", res->key_id);
	buf_printf(b, "  public key   %s (auditors compare it with the key they obtained out of band)\n",
	    res->public_key);
	buf_printf(b, "  SHA256SUMS   %s\n", res->sums);
	buf_adds(b, "  time-stamp   ");
	tsa_status_words(&res->tsa, b);
	buf_adds(b, "\n");
	buf_adds(b, "  verify with  aivet verify ");
	buf_shell_word(b, out);
	buf_printf(b, "  (or see %s/VERIFY.txt)\n", out);
}

static void
choice_add(struct report_choice_list *l, int64_t id, const char *status)
{
	l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	l->items[l->n].id = id;
	l->items[l->n++].status = xstrdup(status ? status : "");
}

void
report_choices_load(struct db *db, int64_t vendor_id, int64_t now, struct report_choices *c)
{
	struct aerr e = { 0 };
	int64_t *ids = NULL;
	size_t n = 0;
	struct probe_run_list runs;
	struct incident_list incs;

	memset(c, 0, sizeof *c);
	if (assessment_ids(db, vendor_id, &ids, &n, &e) == 0)
		for (size_t i = 0; i < n && i < 32; i++) {
			struct assessment *a;

			if (assessment_load(db, ids[i], &a, &e) != 0)
				break;
			choice_add(&c->assessments, a->id, a->status);
			assessment_free(a);
		}
	free(ids);
	aerr_clear(&e);
	if (probe_run_list_load(db, &(struct run_query){ .vendor_id = vendor_id }, &runs, &e) == 0) {
		for (size_t i = 0; i < runs.n; i++)
			choice_add(&c->runs, runs.items[i].id, runs.items[i].status);
		probe_run_list_free(&runs);
	}
	aerr_clear(&e);
	if (incident_list_load(db, vendor_id, 0, now, &incs, &e) == 0) {
		for (size_t i = 0; i < incs.n; i++)
			choice_add(&c->incidents, incs.items[i].id, incs.items[i].status);
		incident_list_free(&incs);
	}
	aerr_clear(&e);
}

static void
choice_list_free(struct report_choice_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].status);
	free(l->items);
	memset(l, 0, sizeof *l);
}

void
report_choices_free(struct report_choices *c)
{
	choice_list_free(&c->assessments);
	choice_list_free(&c->runs);
	choice_list_free(&c->incidents);
}
