/*
 * aivet/approval.h: approvals signed with the approver's own key
 * (approval.c, the domain): keys registered to people, the signed statement
 * an approval's audit entry keeps, and its check in a bundle.
 */
#ifndef AIVET_APPROVAL_H
#define AIVET_APPROVAL_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "base.h"
#include "db.h"
#include "assess.h"
#include "minisign.h"

/* ---- approvals (approval.c) ---- */

/* Registers pub as actor's key, audited ('key.register' by actor). AV_USAGE
 * when actor has a key registered already or another person has this one. */
int key_register(struct db *db, const char *actor, const struct minisign_pub *pub, struct aerr *err);
/* The key registered to person; found 0 when none. */
int approval_registered_key(struct db *db, const char *person, struct minisign_pub *pub, int *found,
    struct aerr *err);
/* The name of the key in the user's own key store that is actor's registered
 * key, newly allocated, or NULL. */
int approval_key_find(struct db *db, const char *actor, char **name, struct aerr *err);
/* The approver's secret key: key store key name, or (name NULL) the one
 * registered to actor (*sec NULL, 0, when none is here). tty 0: an encrypted
 * key is refused unless AIVET_KEY_PASSWORD_FILE gives its passphrase. */
int approval_key_load(struct db *db, const char *actor, const char *name, int tty,
    struct minisign_sec **sec, struct aerr *err);
/* Signs the approval of round a by actor at 'at' with sec into details.signature
 * {statement, minisig, key_id, public_key}. Refused (AV_USAGE) without sec,
 * or with a key that is not actor's registered one; on PostgreSQL a person
 * with no key registered approves unsigned (0, nothing added). */
int approval_sign(struct db *db, const char *actor, const struct assessment *a, const char *at,
    const struct minisign_sec *sec, cJSON *details, struct aerr *err);
/* The signature of a round's approval entry: the statement signed, its
 * minisign signature and the key id ("" when not recorded); statement NULL
 * when the approval was not signed. */
struct approval_signature {
	char *statement, *minisig, *key_id;
};
int approval_signature_load(struct db *db, int64_t assessment_id, struct approval_signature *out,
    struct aerr *err);
void approval_signature_free(struct approval_signature *s);
/* The statement an approval signs, first line; "names:" says how the name
 * approved_by was established (database logins, or self-declared on SQLite). */
#define APPROVAL_FORMAT "aivet-approval-2"
/* Before it: the same lines but names:, its content hash of the database's rows. */
#define APPROVAL_FORMAT_1 "aivet-approval-1"
#define APPROVAL_NAMES_SELF "self-declared"
#define APPROVAL_NAMES_LOGINS "database logins"
/* The round's content as a statement's content_sha256: format, questionnaire
 * (qid, version, SHA-256), then each answer shown (question id, value as
 * compact JSON, note or "") in byte order of question id (ans is sorted),
 * netstrings. The signer and aivet verify (from report.json) both call it. */
#define APPROVAL_CONTENT_FORMAT "aivet-approval-content-2"
struct approval_answer {
	const char *question_id;
	char *value;
	const char *note;
};
void approval_content_sha256(const char *qid, int64_t version, const char *q_sha256,
    struct approval_answer *ans, size_t n, char out[65]);
/* What the report says the statement approves. */
struct approval_expect {
	int64_t assessment_id, round;
	const char *vendor, *reviewer, *approved_at, *content_sha256;
};
/* Checks a signed statement as a bundle holds it: the signature by key (the
 * reviewer's, as the verifier trusts it) over statement, and that the statement
 * is this format and names this assessment, vendor, round, reviewer, time and
 * content. A format-1 statement (legacy 1) is checked but for its content,
 * which report.json cannot recompute. AV_FINDINGS, why in err. */
int approval_check(const char *statement, size_t slen, const char *minisig, size_t siglen,
    const struct minisign_pub *key, const struct approval_expect *want, int *legacy,
    struct aerr *err);
/* The value of "NAME: value" in a statement, into out ("" when absent). */
void approval_statement_field(const char *text, const char *name, char *out, size_t n);
/* The reviewer keys a verifier trusts ('aivet key trust --reviewer NAME FILE'):
 * trusted/reviewers/NAME.pub in the trust store; the path (caller frees), and
 * the key (found 0 when none is trusted for that name). */
char *approval_reviewer_path(const char *reviewer);
int approval_reviewer_key(const char *reviewer, struct minisign_pub *pub, int *found, struct aerr *err);

/* ---- reviewer keys from a checkpoint (src/domain/report/approval-trust.c: the report
 * room's, which checks signed files) ---- */

/* Adds to a checkpoint's JSON the reviewer keys the chain holds up to entry
 * upto: "reviewer_names" (APPROVAL_NAMES_LOGINS, or APPROVAL_NAMES_SELF on
 * SQLite) and "reviewer_keys", each person's first registered key
 * {person, key_id, public_key, entry}. */
int approval_checkpoint_keys(struct db *db, int64_t upto, cJSON *checkpoint, struct aerr *err);
/* Where a reviewer key trusted from a checkpoint comes from. */
struct approval_trust_source {
	int64_t entries;            /* the checkpoint's position */
	int64_t entry;              /* the key's 'key.register' entry */
	int self_declared;          /* the names were self-declared (SQLite) */
	char signer[1100];          /* why the checkpoint's signer is trusted */
	char signer_key_id[17];
};
/* Reviewer's key as the checkpoint at path records it, only when the
 * checkpoint's signature verifies with a key this user trusts (AV_FINDINGS
 * else); AV_USAGE when it records no key of reviewer's. *is_checkpoint 0
 * (and 0 returned) when path is not an aivet audit checkpoint. */
int approval_checkpoint_key(const char *path, const char *reviewer, struct minisign_pub *pub,
    struct approval_trust_source *src, int *is_checkpoint, struct aerr *err);

#endif
