/*
 * approval-trust.c: reviewer keys an auditor trusts from a checkpoint she
 * already holds. 'aivet audit checkpoint' records, beside the chain's
 * position and head, the key each person had registered by then (their
 * first 'key.register' entry, the one that binds) and how the names were
 * established; the checkpoint's signature covers them. 'aivet key trust
 * --reviewer NAME CHECKPOINT' takes NAME's key from it only when that
 * signature verifies with a key the auditor trusts, so the key comes from
 * the auditor's side, never from a report bundle, whose signer writes
 * report.json. It lives in the report's room, beside the bundle's
 * verification of signed files, which it uses.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"
#include "aivet/report.h"

/* A checkpoint with its keys: a few hundred bytes a person. */
#define CHECKPOINT_MAX (1024 * 1024)

/* A public key's base64 line (as a .pub file's second line) into pub. */
static int
pub_from_line(const char *line, const char *path, struct minisign_pub *pub)
{
	char *text = xasprintf("untrusted comment: a key a checkpoint records\n%s\n", line);
	struct aerr e = { 0 };
	int rc = minisign_pubkey_parse(text, strlen(text), path, pub, &e);

	free(text);
	return rc;
}

/* Whether person is among the array's "person" values already. */
static int
person_listed(const cJSON *keys, const char *person)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, keys)
		if (json_get_str(k, "person") != NULL && strcmp(json_get_str(k, "person"), person) == 0)
			return 1;
	return 0;
}

int
approval_checkpoint_keys(struct db *db, int64_t upto, cJSON *checkpoint, struct aerr *err)
{
	/* Each person's first key binds (approval_registered_key), so only it is recorded. */
	struct db_stmt *st = db_prepare(db, err, "SELECT seq, actor, details FROM audit_log WHERE action = "
	    "'key.register' AND seq <= ? ORDER BY seq", "i", upto);
	cJSON *keys;

	if (st == NULL)
		return err->code;
	cJSON_AddStringToObject(checkpoint, "reviewer_names", db_has(db, DB_ACTOR_IS_LOGIN) ?
	    APPROVAL_NAMES_LOGINS : APPROVAL_NAMES_SELF);
	keys = cJSON_AddArrayToObject(checkpoint, "reviewer_keys");
	while (db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 2)), *k;

		if (!person_listed(keys, col_text(st, 1)) && json_get_str(d, "key_id") != NULL &&
		    json_get_str(d, "public_key") != NULL) {
			k = cJSON_CreateObject();
			cJSON_AddStringToObject(k, "person", col_text(st, 1));
			cJSON_AddStringToObject(k, "key_id", json_get_str(d, "key_id"));
			cJSON_AddStringToObject(k, "public_key", json_get_str(d, "public_key"));
			cJSON_AddNumberToObject(k, "entry", (double)db_col_int64(st, 0));
			cJSON_AddItemToArray(keys, k);
		}
		cJSON_Delete(d);
	}
	db_finalize(st);
	return 0;
}

/* The checkpoint's signature, by a key this user trusts: 0 with the signer's
 * label and key id in src, else AV_FINDINGS naming what failed. */
static int
checkpoint_signer(const char *path, const cJSON *cp, struct approval_trust_source *src, struct aerr *err)
{
	struct minisign_pub claimed;
	struct verify_result res;
	const char *line = json_get_str(cp, "signer_public_key");
	int have = line != NULL && pub_from_line(line, path, &claimed) == 0, rc = 0;

	signed_file_verify(path, have ? &claimed : NULL, NULL, NULL, NULL, &res);
	if (!res.ok || !res.signer_trusted)
		rc = aerr_set(err, AV_FINDINGS, "%s: the checkpoint's signature does not verify with a key "
		    "trusted here, so it vouches for no key: %s", path, res.nproblems > 0 ?
		    res.problems[0] : "signer not trusted");
	verify_trust_label(&res, src->signer, sizeof src->signer);
	snprintf(src->signer_key_id, sizeof src->signer_key_id, "%s", res.key_id);
	verify_result_free(&res);
	return rc;
}

/* reviewer's entry among the checkpoint's keys, into pub and src; AV_USAGE
 * when there is none, naming those there are. */
static int
checkpoint_person(const char *path, const cJSON *cp, const char *reviewer, struct minisign_pub *pub,
    struct approval_trust_source *src, struct aerr *err)
{
	const cJSON *k, *entry;
	struct buf names;
	char id[MINISIGN_KEYID_LEN + 1];
	int rc;

	buf_init(&names);
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(cp, "reviewer_keys")) {
		const char *who = json_get_str(k, "person"), *line = json_get_str(k, "public_key");

		if (who == NULL || strcmp(who, reviewer) != 0) {
			buf_printf(&names, "%s%s", names.len ? ", " : "", who ? who : "?");
			continue;
		}
		entry = cJSON_GetObjectItem(k, "entry");
		src->entry = cJSON_IsNumber(entry) ? (int64_t)entry->valuedouble : 0;
		if (line == NULL || pub_from_line(line, path, pub) != 0)
			rc = aerr_set(err, AV_FINDINGS, "%s: the key it records for %s is not a minisign "
			    "public key", path, reviewer);
		else if (minisign_keyid(pub->keynum, id), json_get_str(k, "key_id") == NULL ||
		    strcmp(json_get_str(k, "key_id"), id) != 0)
			rc = aerr_set(err, AV_FINDINGS, "%s: the key it records for %s has key id %s, not "
			    "the %s it names", path, reviewer, id, json_get_str(k, "key_id") ?
			    json_get_str(k, "key_id") : "none");
		else
			rc = 0;
		buf_free(&names);
		return rc;
	}
	rc = aerr_set(err, AV_USAGE, "%s: the checkpoint (at entry %lld) records no key registered to %s "
	    "(it records keys of: %s)", path, (long long)src->entries, reviewer, names.len ? names.data :
	    "nobody");
	buf_free(&names);
	return rc;
}

int
approval_checkpoint_key(const char *path, const char *reviewer, struct minisign_pub *pub,
    struct approval_trust_source *src, int *is_checkpoint, struct aerr *err)
{
	struct buf b;
	cJSON *cp;
	const cJSON *n;
	int rc;

	memset(src, 0, sizeof *src);
	*is_checkpoint = 0;
	if (read_file(path, CHECKPOINT_MAX, &b, err) != 0)
		return err->code;
	cp = cJSON_ParseWithLength(b.data, b.len);
	buf_free(&b);
	if (json_get_str(cp, "format") == NULL ||
	    strcmp(json_get_str(cp, "format"), AUDIT_CHECKPOINT_FORMAT) != 0) {
		cJSON_Delete(cp);
		return 0;
	}
	*is_checkpoint = 1;
	n = cJSON_GetObjectItem(cp, "entries");
	src->entries = cJSON_IsNumber(n) ? (int64_t)n->valuedouble : 0;
	src->self_declared = json_get_str(cp, "reviewer_names") == NULL ||
	    strcmp(json_get_str(cp, "reviewer_names"), APPROVAL_NAMES_LOGINS) != 0;
	rc = checkpoint_signer(path, cp, src, err);
	if (rc == 0 && cJSON_GetObjectItem(cp, "reviewer_keys") == NULL)
		rc = aerr_set(err, AV_USAGE, "%s: the checkpoint records no reviewer keys (it was written "
		    "by an aivet before they were recorded); write a new one with 'aivet audit checkpoint'",
		    path);
	else if (rc == 0)
		rc = checkpoint_person(path, cp, reviewer, pub, src, err);
	cJSON_Delete(cp);
	return rc;
}
