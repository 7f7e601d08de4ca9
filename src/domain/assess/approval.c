/*
 * approval.c: approvals that prove who approved. A person registers the
 * public half of their own minisign key ('aivet key register': a 'key.register'
 * audit entry by that person, on PostgreSQL by that login); an approval is a
 * statement of the round (its questionnaire and answers as one SHA-256, who
 * approved, when) signed with the approver's secret key, kept in the
 * approval's own audit entry. A typed --actor therefore proves nothing
 * without that person's secret key. A report bundle carries the statement
 * and its signature as files stock minisign verifies; 'aivet verify' checks
 * them against the key the bundle names as registered to the reviewer.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/domain.h"

static int
pub_from_line(const char *line, struct minisign_pub *pub, struct aerr *err)
{
	char *text = xasprintf("untrusted comment: a registered key\n%s\n", line ? line : "");
	int rc = minisign_pubkey_parse(text, strlen(text), "registered key", pub, err);

	free(text);
	return rc;
}

int
approval_registered_key(struct db *db, const char *person, struct minisign_pub *pub, int *found,
    struct aerr *err)
{
	/* The first key a person registered binds: later ones are refused. */
	struct db_stmt *st = db_prepare(db, err, "SELECT details FROM audit_log WHERE action = "
	    "'key.register' AND actor = ? ORDER BY seq LIMIT 1", "t", person);
	int rc = 0;

	*found = 0;
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 0));

		rc = pub_from_line(json_get_str(d, "public_key"), pub, err);
		*found = rc == 0;
		cJSON_Delete(d);
	}
	db_finalize(st);
	return rc;
}

/* Who registered the key already, if anyone: a newly allocated name or NULL. */
static char *
key_holder(struct db *db, const struct minisign_pub *pub, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT actor, details FROM audit_log WHERE action = "
	    "'key.register' ORDER BY seq", NULL);
	char *who = NULL;

	while (st != NULL && who == NULL && db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 1));
		struct minisign_pub other;
		struct aerr e = { 0 };

		if (pub_from_line(json_get_str(d, "public_key"), &other, &e) == 0 &&
		    minisign_pub_equal(&other, pub))
			who = xstrdup(col_text(st, 0));
		cJSON_Delete(d);
	}
	db_finalize(st);
	return who;
}

int
key_register(struct db *db, const char *actor, const struct minisign_pub *pub, struct aerr *err)
{
	struct minisign_pub had;
	struct buf line;
	char id[MINISIGN_KEYID_LEN + 1], hid[MINISIGN_KEYID_LEN + 1], *holder = NULL;
	int found;
	uint64_t u = 0;
	int64_t oid;
	cJSON *d = NULL;

	minisign_keyid(pub->keynum, id);
	/* Unsigned: the key number's top bit would overflow a signed shift. */
	for (int i = MINISIGN_KEYNUM_BYTES - 1; i >= 0; i--)
		u = u << 8 | pub->keynum[i];
	oid = (int64_t)(u & INT64_MAX);
	if (db_begin(db, err) != 0)
		return err->code;
	if (approval_registered_key(db, actor, &had, &found, err) != 0)
		goto fail;
	if (found) {
		minisign_keyid(had.keynum, hid);
		aerr_set(err, AV_USAGE, "%s already has key %s registered%s; a person's key is "
		    "registered once", actor, hid, minisign_pub_equal(&had, pub) ? " (this one)" : "");
		goto fail;
	}
	if ((holder = key_holder(db, pub, err)) != NULL) {
		aerr_set(err, AV_USAGE, "key %s is registered to %s already", id, holder);
		goto fail;
	}
	buf_init(&line);
	minisign_pubkey_base64(pub, &line);
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "person", actor);
	cJSON_AddStringToObject(d, "key_id", id);
	cJSON_AddStringToObject(d, "public_key", line.data);
	buf_free(&line);
	if (audit_append(db, actor, "key.register", "person_key", oid, d, err) != 0 ||
	    db_commit(db, err) != 0)
		goto fail;
	cJSON_Delete(d);
	return 0;
fail:
	db_rollback(db);
	cJSON_Delete(d);
	free(holder);
	return err->code;
}

int
approval_key_find(struct db *db, const char *actor, char **name, struct aerr *err)
{
	struct minisign_pub reg;
	struct keyring_key *keys;
	size_t n;
	int found;

	*name = NULL;
	if (approval_registered_key(db, actor, &reg, &found, err) != 0 || !found)
		return err->code;
	keyring_load(&keys, &n);
	for (size_t i = 0; i < n && *name == NULL; i++)
		if (keys[i].own && minisign_pub_equal(&keys[i].pub, &reg))
			*name = xstrdup(keys[i].name);
	keyring_free(keys, n);
	return 0;
}

/* The round's content as one SHA-256: the questionnaire text it was answered
 * against, then each answer (question, value, note) by question, netstrings. */
static int
content_sha256(struct db *db, int64_t id, char out[65], struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT coalesce(questionnaire_sha256, '') FROM "
	    "assessment WHERE id = ?", "i", id);
	struct buf b;

	if (st == NULL)
		return err->code;
	buf_init(&b);
	if (db_step(st) == DB_ROW)
		buf_printf(&b, "%zu:%s,", strlen(col_text(st, 0)), col_text(st, 0));
	db_finalize(st);
	st = db_prepare(db, err, "SELECT question_id, value, note FROM answer WHERE assessment_id = ? "
	    "ORDER BY question_id", "i", id);
	if (st == NULL) {
		buf_free(&b);
		return err->code;
	}
	while (db_step(st) == DB_ROW)
		for (int c = 0; c < 3; c++)
			buf_printf(&b, "%zu:%s,", strlen(col_text(st, c)), col_text(st, c));
	db_finalize(st);
	sha256_hex(b.data ? b.data : "", b.len, out);
	buf_free(&b);
	return 0;
}

int
approval_sign(struct db *db, const char *actor, const struct assessment *a, const char *at,
    const struct minisign_sec *sec, cJSON *details, struct aerr *err)
{
	struct minisign_pub reg, mine;
	struct buf sig, line;
	char sha[65], id[MINISIGN_KEYID_LEN + 1], rid[MINISIGN_KEYID_LEN + 1], *text, *tc;
	int found;
	cJSON *o;

	if (approval_registered_key(db, actor, &reg, &found, err) != 0)
		return err->code;
	if (!found && sec == NULL && db_has(db, DB_LOGINS))
		return 0;   /* the login decides; a person without a key approves unsigned */
	if (!found)
		return aerr_set(err, AV_USAGE, "an approval is signed with the approver's own key, and "
		    "%s has none registered: %s runs 'aivet key generate --name NAME' and 'aivet key "
		    "register NAME', then approves", actor, actor);
	minisign_keyid(reg.keynum, rid);
	if (sec == NULL)
		return aerr_set(err, AV_USAGE, "an approval is signed with the approver's own key: "
		    "%s's is key %s, and no key here is it; %s approves where that key is", actor, rid,
		    actor);
	minisign_sec_to_pub(sec, &mine);
	minisign_keyid(mine.keynum, id);
	if (!minisign_pub_equal(&mine, &reg))
		return aerr_set(err, AV_USAGE, "key %s is not %s's registered key (%s)", id, actor, rid);
	if (content_sha256(db, a->id, sha, err) != 0)
		return err->code;
	text = xasprintf("aivet-approval-1\nassessment: %lld\nvendor: %s\nround: %lld\n"
	    "content_sha256: %s\napproved_by: %s\napproved_at: %s\n", (long long)a->id, a->vendor,
	    (long long)a->round, sha, actor, at);
	tc = xasprintf("aivet approval of assessment %lld by %s at %s", (long long)a->id, actor, at);
	buf_init(&sig);
	if (minisign_sign_data(sec, text, strlen(text), tc, &sig, err) == 0) {
		buf_init(&line);
		minisign_pubkey_base64(&mine, &line);
		o = cJSON_AddObjectToObject(details, "signature");
		cJSON_AddStringToObject(o, "statement", text);
		cJSON_AddStringToObject(o, "minisig", sig.data);
		cJSON_AddStringToObject(o, "key_id", id);
		cJSON_AddStringToObject(o, "public_key", line.data);
		buf_free(&line);
	}
	buf_free(&sig);
	free(text);
	free(tc);
	return err->code;
}

int
approval_signature_load(struct db *db, int64_t assessment_id, struct approval_signature *out,
    struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT details FROM audit_log WHERE action = "
	    "'assessment.approve' AND object_type = 'assessment' AND object_id = ? ORDER BY seq DESC "
	    "LIMIT 1", "i", assessment_id);

	memset(out, 0, sizeof *out);
	if (st == NULL)
		return err->code;
	if (db_step(st) == DB_ROW) {
		/* The entry's details as approval_sign wrote them: {signature: {statement,
		 * minisig, key_id, public_key}}; both texts or neither. */
		cJSON *d = cJSON_Parse(col_text(st, 0));
		const cJSON *sig = cJSON_GetObjectItemCaseSensitive(d, "signature");
		const char *stmt = json_get_str(sig, "statement"), *ms = json_get_str(sig, "minisig");

		if (stmt != NULL && ms != NULL) {
			out->statement = xstrdup(stmt);
			out->minisig = xstrdup(ms);
			out->key_id = xstrdup(json_get_str(sig, "key_id") ? json_get_str(sig, "key_id") : "");
		}
		cJSON_Delete(d);
	}
	db_finalize(st);
	return 0;
}

void
approval_signature_free(struct approval_signature *s)
{
	free(s->statement), free(s->minisig), free(s->key_id);
	memset(s, 0, sizeof *s);
}

/* The value of "NAME: value" in a statement, copied into out ("" when absent). */
static void
statement_field(const char *text, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);

	out[0] = '\0';
	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, name, k) == 0 && p[k] == ':' && p[k + 1] == ' ') {
			snprintf(out, n, "%.*s", (int)strcspn(p + k + 2, "\n"), p + k + 2);
			return;
		}
}

int
approval_check(const char *statement, size_t slen, const char *minisig, size_t siglen,
    const char *registered_key, int64_t assessment_id, const char *reviewer,
    const char *approved_at, struct aerr *err)
{
	struct minisign_pub pub;
	char got[256], want[32], *text;
	int rc;

	if (pub_from_line(registered_key, &pub, err) != 0)
		return aerr_set(err, AV_FINDINGS, "the key registered to %s is missing or malformed",
		    reviewer ? reviewer : "the reviewer");
	if ((rc = minisign_verify_data(&pub, statement, slen, minisig, siglen, "signature", NULL,
	    err)) != 0) {
		err->code = AV_FINDINGS;   /* a malformed signature file fails the bundle too */
		return AV_FINDINGS;
	}
	text = xasprintf("%.*s", (int)slen, statement);
	snprintf(want, sizeof want, "%lld", (long long)assessment_id);
	rc = 0;
	statement_field(text, "assessment", got, sizeof got);
	if (strcmp(got, want) != 0)
		rc = aerr_set(err, AV_FINDINGS, "the signed statement is of assessment %s", got);
	statement_field(text, "approved_by", got, sizeof got);
	if (rc == 0 && (reviewer == NULL || strcmp(got, reviewer) != 0))
		rc = aerr_set(err, AV_FINDINGS, "the signed statement says approved by %s, the report "
		    "by %s", got, reviewer ? reviewer : "nobody");
	statement_field(text, "approved_at", got, sizeof got);
	if (rc == 0 && (approved_at == NULL || strcmp(got, approved_at) != 0))
		rc = aerr_set(err, AV_FINDINGS, "the signed statement says approved at %s, the report "
		    "at %s", got, approved_at ? approved_at : "no time");
	free(text);
	return rc;
}

int
approval_key_load(struct db *db, const char *actor, const char *name, int tty, struct minisign_sec **sec,
    struct aerr *err)
{
	char *found = NULL;
	int enc = 0, rc;

	*sec = NULL;
	if (name == NULL && (approval_key_find(db, actor, &found, err) != 0 || found == NULL))
		return err->code;
	if (name == NULL)
		name = found;
	rc = keystore_sec_encrypted(name, &enc, err);
	if (rc == 0 && enc && !tty && getenv("AIVET_KEY_PASSWORD_FILE") == NULL)
		rc = aerr_set(err, AV_USAGE, "key %s is encrypted and asks for its passphrase: approve "
		    "with 'aivet assess approve ID', or give AIVET_KEY_PASSWORD_FILE", name);
	if (rc == 0)
		rc = keystore_load_sec(name, sec, err);
	free(found);
	return rc;
}
