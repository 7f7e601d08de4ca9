/*
 * rejudge.c: "aivet verify --rejudge": every probe run a report bundle cites
 * judged again from the bundle alone. For each run of report.json, its
 * exchanges' evidence files are read and handed with the run's probes,
 * options and stored results to the probe engine (probe_rejudge_doc), which
 * runs the probes over them without sending anything and names each verdict,
 * finding or measured number that does not follow from them; the report's
 * list of findings and its summary are then checked against the runs', and
 * report.md's verdicts and findings against report.json's. No database
 * and no key beyond the signer's is needed; the bundle's signature has been
 * checked before (bundle_verify), so the exchanges are the signer's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "report.h"

#define EXCHANGE_FILE_MAX ((size_t)64 << 20)

/* The run's exchanges as parsed documents; a file the run lists but the
 * bundle lacks or that is not JSON is named and left out, so the probe that
 * needed it fails as a missing exchange. */
static cJSON *
run_exchanges(const char *dir, const cJSON *run, struct buf *out, int *problems)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(run, "exchanges")) {
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(e, "file"));
		struct aerr err = { 0 };
		struct buf b;
		cJSON *d = NULL;
		char *path;

		if (file == NULL || strstr(file, "..") != NULL || file[0] == '/') {
			buf_printf(out, "run %d: an exchange without a file in the bundle\n",
			    cJSON_GetObjectItem(run, "id") ? cJSON_GetObjectItem(run, "id")->valueint : 0);
			(*problems)++;
			continue;
		}
		path = xasprintf("%s/%s", dir, file);
		if (read_file(path, EXCHANGE_FILE_MAX, &b, &err) == 0) {
			d = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
			buf_free(&b);
		}
		free(path);
		if (d == NULL) {
			buf_printf(out, "%s: cannot be read as an exchange%s%s\n", file, err.msg[0] ? ": " : "",
			    err.msg);
			(*problems)++;
			continue;
		}
		cJSON_AddItemToArray(a, d);
	}
	return a;
}

static const cJSON *
by_id(const cJSON *arr, double id)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "id")) == id)
			return e;
	return NULL;
}

static const cJSON *
run_of(const cJSON *rep, double id)
{
	return by_id(cJSON_GetObjectItem(rep, "probe_runs"), id);
}

/* The report's findings (current, or superseded by a later run) each equal
 * their run's, and each run's finding is in one of the two lists. */
static void
check_lists(const cJSON *rep, struct buf *out, int *differences)
{
	static const char *const lists[] = { "findings", "superseded_findings", NULL };
	const cJSON *run, *f;

	for (int l = 0; lists[l] != NULL; l++)
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, lists[l])) {
			const cJSON *r = run_of(rep, cJSON_GetNumberValue(cJSON_GetObjectItem(f, "run_id")));

			if (r != NULL && !cJSON_Compare(f, by_id(cJSON_GetObjectItem(r, "findings"),
			    cJSON_GetNumberValue(cJSON_GetObjectItem(f, "id"))), 1)) {
				buf_printf(out, "report.json: finding %d differs from its run's\n",
				    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(f, "id")));
				(*differences)++;
			}
		}
	cJSON_ArrayForEach(run, cJSON_GetObjectItem(rep, "probe_runs"))
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(run, "findings")) {
			double id = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "id"));

			if (by_id(cJSON_GetObjectItem(rep, "findings"), id) == NULL &&
			    by_id(cJSON_GetObjectItem(rep, "superseded_findings"), id) == NULL) {
				buf_printf(out, "report.json: finding %d of run %d is missing from the "
				    "report's findings\n", (int)id,
				    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(run, "id")));
				(*differences)++;
			}
		}
}

/* What report.json says of the findings beyond the runs, checked against the
 * runs' findings (which the probes re-derive): its lists hold each run's
 * findings as they are (check_lists), and the summary counts the current ones
 * (every one by severity, the open ones apart) and rates a report with a high
 * or critical open finding unacceptable. Each departure is named. */
static void
check_summary(const cJSON *rep, struct buf *out, int *differences)
{
	static const char *const sev[] = { "critical", "high", "medium", "low", "info", NULL };
	const cJSON *all = cJSON_GetObjectItem(rep, "findings"), *sum = cJSON_GetObjectItem(rep, "summary");
	const cJSON *f;
	int worst_open = 0;

	check_lists(rep, out, differences);
	for (int i = 0; sev[i] != NULL && sum != NULL; i++) {
		int n = 0, open = 0;

		cJSON_ArrayForEach(f, all) {
			const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(f, "severity"));

			if (s == NULL || strcmp(s, sev[i]) != 0)
				continue;
			n++;
			open += cJSON_IsTrue(cJSON_GetObjectItem(f, "open"));
		}
		if (i < 2 && open > 0)
			worst_open = 1;
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "findings"), sev[i])) != n ||
		    cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "open_findings"),
		    sev[i])) != open) {
			buf_printf(out, "report.json: the summary does not count the %s findings as the "
			    "report lists them (%d, %d open)\n", sev[i], n, open);
			(*differences)++;
		}
	}
	if (sum != NULL && worst_open && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(sum, "rating")) ?
	    cJSON_GetObjectItem(sum, "rating")->valuestring : "", "unacceptable") != 0) {
		buf_adds(out, "report.json: the summary's rating is not unacceptable, though a high or "
		    "critical finding is open\n");
		(*differences)++;
	}
}

/* The section of report.md on run id: from its heading to the next run's. */
static const char *
md_run(const char *md, int id, size_t *len)
{
	char head[64];
	const char *at, *end;

	snprintf(head, sizeof head, "\n### Run %d on ", id);
	if ((at = strstr(md, head)) == NULL)
		return NULL;
	end = strstr(at + 1, "\n### Run ");
	*len = end != NULL ? (size_t)(end - at) : strlen(at);
	return at;
}

static int
md_has(const char *s, size_t len, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = s; p != NULL && (size_t)(p - s) + n <= len; p = strchr(p + 1, '\n'))
		if (strncmp(p + (*p == '\n'), line, n) == 0)
			return 1;
	return 0;
}

/* report.md, a rendering of report.json, says what report.json says of each
 * run: each probe's verdict and request count in the run's table, each of its
 * findings (severity, code, probe, run) in a table of findings. */
static void
check_markdown(const char *dir, const cJSON *rep, struct buf *out, int *differences)
{
	char *path = xasprintf("%s/report.md", dir);
	struct aerr e = { 0 };
	const cJSON *run, *r;
	struct buf md;

	if (read_file(path, (size_t)512 << 20, &md, &e) != 0) {
		free(path);
		return;   /* verify has named a missing file already */
	}
	free(path);
	cJSON_ArrayForEach(run, cJSON_GetObjectItem(rep, "probe_runs")) {
		int id = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(run, "id"));
		size_t len = 0;
		const char *sec = md_run(md.data ? md.data : "", id, &len);

		cJSON_ArrayForEach(r, cJSON_GetObjectItem(run, "results")) {
			char *row = xasprintf("| %s | %s | ", cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "probe")) ? cJSON_GetObjectItem(r, "probe")->valuestring : "none",
			    cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")) ?
			    cJSON_GetObjectItem(r, "verdict")->valuestring : "none");

			if (sec == NULL || !md_has(sec, len, row)) {
				buf_printf(out, "report.md: run %d does not show %s\n", id, row);
				(*differences)++;
			}
			free(row);
		}
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(run, "findings")) {
			char *row = xasprintf("| %s | %s | %s | %d | ", cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "severity")) ? cJSON_GetObjectItem(r, "severity")->valuestring : "none",
			    cJSON_GetStringValue(cJSON_GetObjectItem(r, "code")) ?
			    cJSON_GetObjectItem(r, "code")->valuestring : "none",
			    cJSON_GetStringValue(cJSON_GetObjectItem(r, "probe")) ?
			    cJSON_GetObjectItem(r, "probe")->valuestring : "none", id);

			if (!md_has(md.data ? md.data : "", md.len, row)) {
				buf_printf(out, "report.md: no finding row %s\n", row);
				(*differences)++;
			}
			free(row);
		}
	}
	buf_free(&md);
}

int
bundle_rejudge(struct aivet *av, const char *dir, struct buf *out, int *differences,
    struct aerr *err)
{
	char *path = xasprintf("%s/report.json", dir);
	const cJSON *run;
	struct buf b;
	cJSON *rep;
	int runs = 0;

	*differences = 0;
	if (read_file(path, (size_t)512 << 20, &b, err) != 0) {
		free(path);
		return err->code;
	}
	free(path);
	rep = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
	buf_free(&b);
	if (rep == NULL)
		return aerr_set(err, AV_FINDINGS, "%s/report.json: not JSON", dir);
	cJSON_ArrayForEach(run, cJSON_GetObjectItem(rep, "probe_runs")) {
		cJSON *ex = run_exchanges(dir, run, out, differences);
		struct aerr e = { 0 };
		int d = 0;

		runs++;
		if (probe_rejudge_doc(av, run, ex, out, &d, &e) != 0) {
			buf_printf(out, "run %d: not re-derived: %s\n", cJSON_GetObjectItem(run, "id") ?
			    cJSON_GetObjectItem(run, "id")->valueint : 0, e.msg);
			d++;
		}
		*differences += d;
		cJSON_Delete(ex);
	}
	if (runs == 0)
		buf_adds(out, "no probe run to re-derive\n");
	check_summary(rep, out, differences);
	check_markdown(dir, rep, out, differences);
	cJSON_Delete(rep);
	return 0;
}

void
rejudge_verify_text(struct buf *b)
{
	buf_adds(b,
	    "\n"
	    "Re-deriving the verdicts\n"
	    "------------------------\n"
	    "\n"
	    "The signature proves who signed this bundle, not that its verdicts follow\n"
	    "from its evidence. 'aivet verify DIR --rejudge' (after the checks above)\n"
	    "runs each probe again over the exchanges in evidence/, every one of each run\n"
	    "cited, without network, database or any key but the signer's, and compares\n"
	    "each probe's verdict, reason, request count, measured numbers (details) and\n"
	    "findings (code, severity, message, cited evidence) with report.json; it\n"
	    "names each difference, and fails when a probe asks for an exchange the bundle\n"
	    "lacks. A response that held another customer's content is given redacted\n"
	    "(body_redacted: the generated text replaced by '*' byte for byte, aivet's\n"
	    "planted tokens, usage, status fields and error messages kept), which is what\n"
	    "the judgement reads. report.json's lists of findings and its summary's\n"
	    "counts are checked against the runs' findings, and report.md's verdicts and\n"
	    "findings against report.json's. Re-deriving proves that the verdicts follow\n"
	    "from the signed exchanges; that the vendor really sent those bytes rests on\n"
	    "the signature and the time-stamp. report.html and the rest of report.md are\n"
	    "renderings of report.json and are not checked.\n");
}
