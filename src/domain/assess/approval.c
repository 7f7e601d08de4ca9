/*
 * approval.c: approvals that prove who approved. A person registers the
 * public half of their own minisign key ('aivet key register': a 'key.register'
 * audit entry by that person, on PostgreSQL by that login); an approval is a
 * statement of the round (its questionnaire and answers as one SHA-256, who
 * approved, when) signed with the approver's secret key, kept in the
 * approval's own audit entry. A typed --actor therefore proves nothing
 * without that person's secret key. A report bundle carries the statement
 * and its signature as files stock minisign verifies; 'aivet verify' checks
 * them with the key its user trusts as the reviewer's ('aivet key trust
 * --reviewer'), never a key the bundle names, and recomputes the content
 * hash from report.json. The report signing key is the organisation's and
 * is never registered as a person's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A key that signs reports speaks for the organisation, never for one person:
 * a key id that signed a report here is refused (AV_USAGE). By key id: a key
 * made to carry that id is refused with it. */
static int
report_key_check(struct db *db, const char *id, struct aerr *err)
{
	int64_t reports = 0;

	if (db_int(db, &reports, err, "SELECT count(*) FROM report WHERE key_id = ?", "t", id) != 0)
		return err->code;
	if (reports > 0)
		return aerr_set(err, AV_USAGE, "key %s signs report bundles (%lld here): a report signing "
		    "key is the organisation's, not a person's, and is not registered to anyone", id,
		    (long long)reports);
	return 0;
}

/* A registration changes no row: on PostgreSQL its entry follows only the
 * server's function, which checks what key_register() checks here, for the
 * login (db/pg/018-no-change.sql). On SQLite nothing runs. */
static int
registration_record(struct db *db, int64_t oid, const cJSON *d, struct aerr *err)
{
	static const struct db_write registration = {
		{ NULL }, "SELECT aivet_key_register(?1, ?2)", 0
	};
	char *text = cJSON_PrintUnformatted(d);
	int rc = db_write(db, err, &registration, NULL, "it", oid, text);

	free(text);
	return rc;
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
	if (report_key_check(db, id, err) != 0)
		goto fail;
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
	if (registration_record(db, oid, d, err) != 0 ||
	    audit_append(db, actor, "key.register", "person_key", oid, d, err) != 0 ||
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

/* Answers by question id, in byte order. */
static int
answer_cmp(const void *x, const void *y)
{
	return strcmp(((const struct approval_answer *)x)->question_id,
	    ((const struct approval_answer *)y)->question_id);
}

void
approval_content_sha256(const char *qid, int64_t version, const char *q_sha256,
    struct approval_answer *ans, size_t n, char out[65])
{
	struct buf b;
	char v[32];

	/* Sorted here, byte order: a database's collation never decides the hash. */
	if (n > 0)
		qsort(ans, n, sizeof *ans, answer_cmp);
	snprintf(v, sizeof v, "%lld", (long long)version);
	buf_init(&b);
	for (const char *const *f = (const char *const[]){ APPROVAL_CONTENT_FORMAT, qid, v, q_sha256,
	    NULL }; *f; f++)
		buf_printf(&b, "%zu:%s,", strlen(*f), *f);
	for (size_t i = 0; i < n; i++)
		for (const char *const *f = (const char *const[]){ ans[i].question_id, ans[i].value,
		    ans[i].note ? ans[i].note : "", NULL }; *f; f++)
			buf_printf(&b, "%zu:%s,", strlen(*f), *f);
	sha256_hex(b.data ? b.data : "", b.len, out);
	buf_free(&b);
}

/* The round's content as the report shows it: its questionnaire, and each
 * question asked with an answer (value, note); report.json recomputes it. */
static void
content_sha256(const struct assessment *a, char out[65])
{
	struct approval_answer *ans = xcalloc((size_t)a->q->nquestions + 1, sizeof *ans);
	size_t n = 0;

	for (int i = 0; i < a->q->nquestions; i++)
		if (a->asked[i] && a->answers[i].value != NULL)
			ans[n++] = (struct approval_answer){ a->q->questions[i].id,
			    cJSON_PrintUnformatted(a->answers[i].value), a->answers[i].note };
	approval_content_sha256(a->q->qid, a->q->version, a->q->sha256, ans, n, out);
	for (size_t i = 0; i < n; i++)
		free(ans[i].value);
	free(ans);
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
	if (!found && sec == NULL && db_has(db, DB_ACTOR_IS_LOGIN))
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
	content_sha256(a, sha);
	/* The statement says how the name it signs was established: on SQLite anyone types it. */
	text = xasprintf("%s\nassessment: %lld\nvendor: %s\nround: %lld\n"
	    "content_sha256: %s\napproved_by: %s\napproved_at: %s\nnames: %s\n", APPROVAL_FORMAT,
	    (long long)a->id, a->vendor, (long long)a->round, sha, actor, at,
	    db_has(db, DB_ACTOR_IS_LOGIN) ? APPROVAL_NAMES_LOGINS : APPROVAL_NAMES_SELF);
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
void
approval_statement_field(const char *text, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);

	out[0] = '\0';
	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, name, k) == 0 && p[k] == ':' && p[k + 1] == ' ') {
			snprintf(out, n, "%.*s", (int)strcspn(p + k + 2, "\n"), p + k + 2);
			return;
		}
}

/* One field of the statement against what the report says; 0 when equal. */
static int
field_is(const char *text, const char *field, const char *want, const char *what, struct aerr *err)
{
	char got[256];

	approval_statement_field(text, field, got, sizeof got);
	if (want != NULL && strcmp(got, want) == 0)
		return 0;
	return aerr_set(err, AV_FINDINGS, "the signed statement says %s %s, the report %s", what, got,
	    want ? want : "nothing");
}

int
approval_check(const char *statement, size_t slen, const char *minisig, size_t siglen,
    const struct minisign_pub *key, const struct approval_expect *want, int *legacy,
    struct aerr *err)
{
	char id[32], round[32], *text;
	int rc;

	*legacy = 0;
	if ((rc = minisign_verify_data(key, statement, slen, minisig, siglen, "signature", NULL,
	    err)) != 0) {
		err->code = AV_FINDINGS;   /* a malformed signature file fails the bundle too */
		return AV_FINDINGS;
	}
	text = xasprintf("%.*s", (int)slen, statement);
	snprintf(id, sizeof id, "%lld", (long long)want->assessment_id);
	snprintf(round, sizeof round, "%lld", (long long)want->round);
	/* Format 1 hashed the answers as the database held them: not recomputable. */
	*legacy = strncmp(text, APPROVAL_FORMAT_1 "\n", strlen(APPROVAL_FORMAT_1) + 1) == 0;
	if (!*legacy && strncmp(text, APPROVAL_FORMAT "\n", strlen(APPROVAL_FORMAT) + 1) != 0)
		rc = aerr_set(err, AV_FINDINGS, "the signed statement is not an %s statement: what it "
		    "approves cannot be recomputed from report.json", APPROVAL_FORMAT);
	else if (field_is(text, "assessment", id, "assessment", err) == 0 &&
	    field_is(text, "vendor", want->vendor, "vendor", err) == 0 &&
	    field_is(text, "round", round, "round", err) == 0 &&
	    field_is(text, "approved_by", want->reviewer, "approved by", err) == 0 &&
	    field_is(text, "approved_at", want->approved_at, "approved at", err) == 0)
		/* The answers approved: recomputed from report.json, never taken from the statement. */
		(void)(*legacy || field_is(text, "content_sha256", want->content_sha256, "content_sha256", err));
	free(text);
	return err->code;
}

char *
approval_reviewer_path(const char *reviewer)
{
	char *dir = keyring_trusted_dir(), *p = xasprintf("%s/reviewers/%s.pub", dir, reviewer);

	free(dir);
	return p;
}

int
approval_reviewer_key(const char *reviewer, struct minisign_pub *pub, int *found, struct aerr *err)
{
	char *path;
	struct buf b;
	int rc = 0;

	*found = 0;
	if (reviewer == NULL || keystore_name_check(reviewer, err) != 0) {
		aerr_clear(err);
		return 0;   /* no such name can be trusted, so none is */
	}
	path = approval_reviewer_path(reviewer);
	if (access(path, F_OK) == 0 && (rc = read_file(path, 4096, &b, err)) == 0) {
		rc = minisign_pubkey_parse(b.data, b.len, path, pub, err);
		buf_free(&b);
		*found = rc == 0;
	}
	free(path);
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
