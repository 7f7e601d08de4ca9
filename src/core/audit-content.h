/*
 * audit-content.h: the full content an audit entry holds of the row it seals
 * (audit-content.c), and the seal hash audit.c computes with it. An entry's
 * content is its object's parts (seal-parts.h) as JSON:
 *   [{"table": T, "rows": [{COLUMN: TEXT-OR-NULL, ...}, ...]}, ...]
 * one element per part in seal-parts.h's order, each value the text the row
 * hash reads. The entry hash does not cover the content: its row_hash does,
 * so verify recomputes the row hash from the content and requires the two to
 * agree, and a content that does not hash to its entry's row_hash is named.
 * The JSON's spacing and key order may differ between the stores.
 */
#ifndef AIVET_AUDIT_CONTENT_H
#define AIVET_AUDIT_CONTENT_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include <sodium.h>

#include "seal-parts.h"

/* A SHA-256 fed through a buffer: verify hashes every row and entry as many
 * short fields, so they go to the hash a buffer at a time rather than one
 * call each (audit-content.c). */
struct seal_hash {
	crypto_hash_sha256_state h;
	size_t n;
	unsigned char b[2048];
};
void sh_init(struct seal_hash *sh);
void sh_add(struct seal_hash *sh, const void *p, size_t n);
void sh_final(struct seal_hash *sh, unsigned char md[crypto_hash_sha256_BYTES]);
void netstring(struct seal_hash *sh, const char *s);
void netstring_int(struct seal_hash *h, int64_t v);
/* The netstrings of an object's type and id: where its row hash begins. */
void hash_begin(struct seal_hash *h, const char *type, int64_t id);
/* Whether word is one of list's space-separated words. */
int word_in(const char *list, const char *word);

/* The row hash of object id from its content, over parts[0..n) (one type's);
 * 0, or -1 when the content is not of that shape (a missing or extra part,
 * column or row member, a value neither text nor null). */
int content_hash(const struct seal_part *parts, size_t n, int64_t id, const cJSON *content,
    unsigned char md[crypto_hash_sha256_BYTES]);

/* The first field a creating entry's details name (action's detail keys that
 * stand for a column, e.g. a finding's code and severity) whose value is not
 * the content's; NULL when they agree. *col: the column, *text: the content's
 * value (NULL for null). */
const char *content_creation_mismatch(const char *action, const cJSON *details, const cJSON *content,
    const char **col, const char **text);

/* Whether a finding's evidence links (finding_evidence in its content) are
 * other than the evidence its probe.finding entry names; 0 for any other. */
int content_links_mismatch(const char *action, const cJSON *details, const cJSON *content);

/* The field (value, note) of the answer to question *qid that an answer
 * entry's details (answer.set, answer.clear, answer.note; an import's changes,
 * the last about each question) give otherwise than the assessment's content
 * holds; NULL when they agree. */
const char *content_answer_mismatch(const char *action, const cJSON *details, const cJSON *content,
    const char **qid);

/* The question of the first answer or evidence link that differs between an
 * assessment's contents prev and cur when the entry's details do not name the
 * question (its question, or an import's changes); NULL when none does. */
const char *content_answers_unnamed(const cJSON *prev, const cJSON *cur, const cJSON *details);

/* The first column (or child part's table) an entry with action changed
 * between contents prev and cur that the action does not write (a probe run's
 * finish writes its status, times, tokens and plan; an incident's status its
 * status; ...); NULL when none, or for an action with no such list. */
const char *content_action_overreach(const char *action, const cJSON *prev, const cJSON *cur);

/* The first of cols (NULL-terminated) whose value in the main row differs
 * between contents prev and cur and that details do not name with cur's value,
 * or the table of a child part whose rows differ when details name no change
 * of it (an endpoint's credentials, engine), or a column no edit names that
 * changed (any but updated_at and status); NULL when every change is named.
 * Nothing to compare (a content without the main row) is no change. */
const char *content_unnamed_change(const cJSON *prev, const cJSON *cur, const char *const *cols,
    const cJSON *details);

/* Whether a detail's JSON value is a column's text (NULL: SQL NULL) as the row
 * holds it: a number, a bool as 0/1, an object as keys merged into the
 * column's JSON object. */
int content_value_is(const cJSON *v, const char *text);

#endif
