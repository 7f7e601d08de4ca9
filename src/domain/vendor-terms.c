/*
 * vendor-terms.c: what a vendor committed to, read by assessments and
 * incidents alike: a duration as a questionnaire's answer gives it ("72h"),
 * and the time the vendor's answers promise to notify an incident in. Both
 * rooms call down to it; it reads the answers' rows itself, so that neither
 * room calls the other for it.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "aivet/domain.h"

int
duration_seconds(const char *s, int64_t *out)
{
	int64_t n = 0, unit;
	size_t i = 0;

	while (isdigit((unsigned char)s[i]) && i < 9)
		n = n * 10 + (s[i++] - '0');
	if (i == 0 || s[i] == '\0' || s[i + 1] != '\0')
		return -1;
	switch (s[i]) {
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	case 'd': unit = 86400; break;
	case 'w': unit = 7 * 86400; break;
	default: return -1;
	}
	*out = n * unit;
	return 0;
}

int
vendor_notification_sla(struct db *db, int64_t vendor_id, int64_t *seconds, char *source,
    size_t source_len, struct aerr *err)
{
	static const struct {
		const char *qid, *question;
	} slas[] = {
		{ "llm-inference-isolation", "exposure_notification_time" },
		{ "hipaa-ai-vendor", "breach_notification_time" },
	};
	int found = 0;

	for (size_t i = 0; i < sizeof slas / sizeof slas[0]; i++) {
		/* The answer that counts: a reviewed (final) round before a draft, then the
		 * newest. Picked here from the few rounds rather than by ORDER BY, which
		 * made SQLite build a temporary B-tree on every call: the dashboard asks
		 * once for each open incident. */
		struct db_stmt *st = db_prepare_kept(db, err, "SELECT a.id, a.status = 'final', ans.value "
		    "FROM answer ans JOIN assessment a ON a.id = ans.assessment_id "
		    "JOIN questionnaire q ON q.id = a.questionnaire_id "
		    "WHERE a.vendor_id = ? AND q.qid = ? AND ans.question_id = ? AND ans.value <> 'null'",
		    "itt", vendor_id, slas[i].qid, slas[i].question);
		int64_t best_id = 0;
		int best_final = 0, rc;
		char *best = NULL;

		if (st == NULL)
			return -1;
		while ((rc = db_step(st)) == DB_ROW) {
			int64_t id = db_col_int64(st, 0);
			int final = db_col_int(st, 1) != 0;

			if (best == NULL || final > best_final || (final == best_final && id > best_id)) {
				free(best);
				best = xstrdup(col_text(st, 2));
				best_id = id;
				best_final = final;
			}
		}
		if (rc != DB_DONE) {
			free(best);
			db_finalize(st);
			db_err(db, err, "notification SLA");
			return -1;
		}
		db_finalize(st);
		if (best != NULL) {
			cJSON *v = cJSON_Parse(best);
			int64_t sec;

			/* The strictest commitment binds the vendor: the shortest wins. */
			if (cJSON_IsString(v) && duration_seconds(v->valuestring, &sec) == 0 &&
			    (!found || sec < *seconds)) {
				*seconds = sec;
				snprintf(source, source_len, "assessment %lld, %s %s", (long long)best_id,
				    slas[i].qid, slas[i].question);
				found = 1;
			}
			cJSON_Delete(v);
			free(best);
		}
	}
	return found ? 0 : 1;
}
