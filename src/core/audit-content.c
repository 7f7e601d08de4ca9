/*
 * audit-content.c: what verify reads from an entry's full content
 * (audit-content.h): the row hash recomputed from it, which ties the content
 * to the entry's hash; the fields a creating entry's details name, compared
 * with the content it sealed (a trigger that rewrote a finding as it was
 * inserted, then was removed, leaves a row that matches its seal but not what
 * the run recorded); and the columns one content changed from the previous
 * one, each of which the entry that changed them must name or its action
 * write. It also holds the seal hash's netstrings, with which audit.c hashes
 * rows and entries, so that the two files call each other one way only.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aivet/core.h"
#include "audit-content.h"

/* ---- the seal hash: netstrings into a buffered SHA-256 (audit.c hashes rows
 * and entries with it) ---- */

void
sh_init(struct seal_hash *sh)
{
	crypto_hash_sha256_init(&sh->h);
	sh->n = 0;
}

void
sh_add(struct seal_hash *sh, const void *p, size_t n)
{
	if (n > sizeof sh->b - sh->n) {
		crypto_hash_sha256_update(&sh->h, sh->b, sh->n);
		sh->n = 0;
	}
	if (n >= sizeof sh->b) {
		crypto_hash_sha256_update(&sh->h, p, n);
		return;
	}
	memcpy(sh->b + sh->n, p, n);
	sh->n += n;
}

void
sh_final(struct seal_hash *sh, unsigned char md[crypto_hash_sha256_BYTES])
{
	crypto_hash_sha256_update(&sh->h, sh->b, sh->n);
	crypto_hash_sha256_final(&sh->h, md);
}

/* "<length>:<bytes>," into the hash, its length written without printf. */
void
netstring(struct seal_hash *sh, const char *s)
{
	unsigned char head[24], digits[24];
	size_t n = strlen(s), v = n, k = 0, d = 0;

	do
		digits[d++] = (unsigned char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (d > 0)
		head[k++] = digits[--d];
	head[k++] = ':';
	sh_add(sh, head, k);
	sh_add(sh, s, n);
	sh_add(sh, ",", 1);
}

/* The netstring of a decimal integer, written without printf: verify hashes two
 * per entry. */
void
netstring_int(struct seal_hash *h, int64_t v)
{
	char num[24], *p = num + sizeof num;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	netstring(h, p);
}

void
hash_begin(struct seal_hash *h, const char *type, int64_t id)
{
	sh_init(h);
	netstring(h, type);
	netstring_int(h, id);
}

/* Whether word is one of list's space-separated words. */
int
word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p != NULL && *p != '\0'; p += strcspn(p, " "), p += *p == ' ') {
		if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

/* ---- an entry's full content ---- */

/* The next column name of a seal part's list ("id, run_id, ..."), into name;
 * the list's rest, or NULL at its end. */
static const char *
next_col(const char *p, char *name, size_t cap)
{
	size_t n;

	while (*p == ' ' || *p == ',')
		p++;
	if (*p == '\0')
		return NULL;
	n = strcspn(p, ", ");
	if (n >= cap)
		n = cap - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	return p + n;
}

/* One value into the hash as hash_row() puts a column; -1 if not text or null. */
static int
hash_value(struct seal_hash *h, const cJSON *v)
{
	if (cJSON_IsNull(v)) {
		sh_add(h, "~", 1);
		return 0;
	}
	if (!cJSON_IsString(v))
		return -1;
	netstring(h, v->valuestring);
	return 0;
}

/* One row's columns in the part's order. Members in that order (as aivet
 * writes them on SQLite) are read as they come; others (a server's JSON sorts
 * its keys) looked up by name. A member the part does not list is refused. */
static int
hash_content_row(struct seal_hash *h, const char *cols, const cJSON *row)
{
	const cJSON *m = row->child;
	char name[64];
	int ncols = 0;

	if (!cJSON_IsObject(row))
		return -1;
	for (const char *p = cols; (p = next_col(p, name, sizeof name)) != NULL; ncols++) {
		const cJSON *v = m != NULL && strcmp(m->string, name) == 0 ? m :
		    cJSON_GetObjectItemCaseSensitive(row, name);

		if (v == NULL || hash_value(h, v) != 0)
			return -1;
		m = v->next;
	}
	return cJSON_GetArraySize(row) == ncols ? 0 : -1;
}

int
content_hash(const struct seal_part *parts, size_t n, int64_t id, const cJSON *content,
    unsigned char md[crypto_hash_sha256_BYTES])
{
	const cJSON *part = cJSON_IsArray(content) ? content->child : NULL;
	struct seal_hash h;

	if (part == NULL)
		return -1;
	hash_begin(&h, parts[0].type, id);
	for (size_t k = 0; k < n; k++, part = part->next) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "table");
		const cJSON *rows = cJSON_GetObjectItemCaseSensitive(part, "rows"), *r;

		if (!cJSON_IsString(t) || strcmp(t->valuestring, parts[k].table) != 0 || !cJSON_IsArray(rows) ||
		    cJSON_GetArraySize(part) != 2)
			return -1;
		if (!parts[k].late || rows->child != NULL)
			netstring(&h, parts[k].table);
		cJSON_ArrayForEach(r, rows)
			if (hash_content_row(&h, parts[k].cols, r) != 0)
				return -1;
		if (part->next == NULL && k + 1 < n)
			return -1;
	}
	if (part != NULL)
		return -1;
	sh_final(&h, md);
	return 0;
}

/* The first row of a content's part for table; NULL when it has none. */
static const cJSON *
content_row(const cJSON *content, const char *table)
{
	const cJSON *part;

	cJSON_ArrayForEach(part, content) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "table");

		if (cJSON_IsString(t) && strcmp(t->valuestring, table) == 0) {
			const cJSON *rows = cJSON_GetObjectItemCaseSensitive(part, "rows");

			return cJSON_IsArray(rows) ? rows->child : NULL;
		}
	}
	return NULL;
}

/* A column's text in a content row: its value, or NULL for SQL NULL. *known
 * says whether the row has the column at all. */
static const char *
row_text(const cJSON *row, const char *col, int *known)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, col);

	*known = cJSON_IsString(v) || cJSON_IsNull(v);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
content_value_is(const cJSON *v, const char *text)
{
	const cJSON *kv;
	cJSON *obj;
	int same = 1;

	if (text == NULL || cJSON_IsNull(v))
		return text == NULL && cJSON_IsNull(v);
	if (cJSON_IsString(v))
		return strcmp(text, v->valuestring) == 0;
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? strcmp(text, "1") == 0 || strcmp(text, "true") == 0 :
		    strcmp(text, "0") == 0 || strcmp(text, "false") == 0;
	if (cJSON_IsNumber(v)) {
		char *end;
		double d = strtod(text, &end);

		return end != text && *end == '\0' && d == v->valuedouble;
	}
	if (!cJSON_IsObject(v))
		return 0;
	/* options: the keys an edit sets, merged into the row's. */
	obj = cJSON_Parse(text);
	cJSON_ArrayForEach(kv, v)
		same = same && cJSON_Compare(kv, cJSON_GetObjectItemCaseSensitive(obj, kv->string), 1);
	cJSON_Delete(obj);
	return same;
}

/* What a creating entry's details say of the row it creates: the detail key,
 * the table and column it stands for. A detail a writer leaves out is not
 * compared; a number 0 may stand for NULL where zero_null (an exchange with no
 * response has status 0 in its details, no status in its row). */
struct detail_col {
	const char *action, *key, *table, *col;
	int zero_null;
};

static const struct detail_col detail_cols[] = {
	{ "probe.finding", "run", "finding", "run_id", 0 },
	{ "probe.finding", "code", "finding", "code", 0 },
	{ "probe.finding", "severity", "finding", "severity", 0 },
	{ "probe.result", "run", "probe_result", "run_id", 0 },
	{ "probe.result", "probe", "probe_result", "probe", 0 },
	{ "probe.result", "verdict", "probe_result", "verdict", 0 },
	{ "probe.exchange", "run", "exchange", "run_id", 0 },
	{ "probe.exchange", "probe", "exchange", "probe", 0 },
	{ "probe.exchange", "seq", "exchange", "seq", 0 },
	{ "probe.exchange", "status", "exchange", "response_status", 1 },
};

static const cJSON *part_rows(const cJSON *content, const char *table);

const char *
content_creation_mismatch(const char *action, const cJSON *details, const cJSON *content,
    const char **col, const char **text_out)
{
	for (size_t i = 0; i < sizeof detail_cols / sizeof detail_cols[0]; i++) {
		const struct detail_col *m = &detail_cols[i];
		const cJSON *v, *row;
		const char *text;
		int known;

		if (action[0] != m->action[0] || strcmp(action, m->action) != 0 ||
		    (v = cJSON_GetObjectItemCaseSensitive(details, m->key)) == NULL)
			continue;
		row = content_row(content, m->table);
		text = row != NULL ? row_text(row, m->col, &known) : NULL;
		if (row == NULL || !known)
			continue;
		if (m->zero_null && text == NULL && cJSON_IsNumber(v) && v->valuedouble == 0)
			continue;
		if (!content_value_is(v, text)) {
			*col = m->col;
			*text_out = text;
			return m->key;
		}
	}
	return NULL;
}

/* Whether finding_evidence row r links the evidence id names. */
static int
link_is(const cJSON *id, const cJSON *r)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "evidence_id");

	return cJSON_IsString(e) && content_value_is(id, e->valuestring);
}

/* Whether one of ids names the evidence row r links. */
static int
link_named(const cJSON *ids, const cJSON *r)
{
	const cJSON *id;

	cJSON_ArrayForEach(id, ids)
		if (link_is(id, r))
			return 1;
	return 0;
}

int
content_links_mismatch(const char *action, const cJSON *details, const cJSON *content)
{
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(details, "evidence"), *rows, *r, *id;

	if (strcmp(action, "probe.finding") != 0 || !cJSON_IsArray(ids) ||
	    (rows = part_rows(content, "finding_evidence")) == NULL)
		return 0;
	/* Each link is one the entry names, and each it names is a link (an id
	 * named twice is one link). */
	cJSON_ArrayForEach(r, rows)
		if (!link_named(ids, r))
			return 1;
	cJSON_ArrayForEach(id, ids) {
		int found = 0;

		cJSON_ArrayForEach(r, rows)
			found = found || link_is(id, r);
		if (!found)
			return 1;
	}
	return 0;
}

/* Whether an endpoint edit's details name the credential labelled label: a
 * key of credentials (set) or credential_orgs, or in credentials_removed, as
 * endpoint.c writes them. */
static int
credential_named(const cJSON *details, const char *label)
{
	const cJSON *x;

	if (cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(details, "credentials"), label) ||
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(details, "credential_orgs"), label))
		return 1;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(details, "credentials_removed"))
		if (cJSON_IsString(x) && strcmp(x->valuestring, label) == 0)
			return 1;
	return 0;
}

/* The row of rows whose label is that of row r; NULL when none. */
static const cJSON *
same_label(const cJSON *rows, const cJSON *r)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, "label"), *x;

	cJSON_ArrayForEach(x, rows) {
		const cJSON *xl = cJSON_GetObjectItemCaseSensitive(x, "label");

		if (cJSON_IsString(l) && cJSON_IsString(xl) && strcmp(l->valuestring, xl->valuestring) == 0)
			return x;
	}
	return NULL;
}

/* Whether each credential row added, changed or removed between rows a and b
 * is one the details name by its label. */
static int
credentials_named(const cJSON *a, const cJSON *b, const cJSON *details)
{
	const cJSON *r, *o, *l;

	cJSON_ArrayForEach(r, b) {
		o = same_label(a, r);
		l = cJSON_GetObjectItemCaseSensitive(r, "label");
		if ((o == NULL || !cJSON_Compare(o, r, 1)) &&
		    (!cJSON_IsString(l) || !credential_named(details, l->valuestring)))
			return 0;
	}
	cJSON_ArrayForEach(r, a) {
		l = cJSON_GetObjectItemCaseSensitive(r, "label");
		if (same_label(b, r) == NULL && (!cJSON_IsString(l) || !credential_named(details, l->valuestring)))
			return 0;
	}
	return 1;
}

/* The first child part (after the object's own row) whose rows differ between
 * contents prev and cur without the details naming the change: an endpoint's
 * credentials each by its label, its engine nodes by "engine"; its table. */
static const char *
child_change(const cJSON *prev, const cJSON *cur, const cJSON *details)
{
	const cJSON *a = prev->child != NULL ? prev->child->next : NULL, *b = cur->child->next;

	for (; a != NULL && b != NULL; a = a->next, b = b->next) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "table");
		const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a, "rows");
		const cJSON *rb = cJSON_GetObjectItemCaseSensitive(b, "rows");

		if (!cJSON_IsString(t) || cJSON_Compare(ra, rb, 1))
			continue;
		if (strcmp(t->valuestring, "credential") == 0 ? !credentials_named(ra, rb, details) :
		    strcmp(t->valuestring, "engine_node") == 0 &&
		    cJSON_GetObjectItemCaseSensitive(details, "engine") == NULL)
			return t->valuestring;
	}
	return NULL;
}

/* Whether a and b are the same value in a content: both null, or the same text. */
static int
value_same(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNull(a) || cJSON_IsNull(b))
		return cJSON_IsNull(a) && cJSON_IsNull(b);
	return cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring) == 0;
}

/* The first column of row c whose value differs from row p's, other than
 * those listed in may (space-separated) or in also (NULL-terminated, or NULL);
 * NULL when none does. */
static const char *
row_changed(const cJSON *p, const cJSON *c, const char *may, const char *const *also)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, c) {
		int listed = word_in(may, m->string);

		for (int i = 0; !listed && also != NULL && also[i] != NULL; i++)
			listed = strcmp(also[i], m->string) == 0;
		if (!listed && !value_same(cJSON_GetObjectItemCaseSensitive(p, m->string), m))
			return m->string;
	}
	return NULL;
}

/* The object's own row: the first part's first row. */
static const cJSON *
main_row(const cJSON *content)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_IsArray(content) ? content->child : NULL,
	    "rows");

	return cJSON_IsArray(rows) ? rows->child : NULL;
}

const char *
content_unnamed_change(const cJSON *prev, const cJSON *cur, const char *const *cols,
    const cJSON *details)
{
	const cJSON *p = main_row(prev), *c = main_row(cur);
	const char *col;

	if (p == NULL || c == NULL)
		return NULL;
	if ((col = child_change(prev, cur, details)) != NULL)
		return col;
	for (int i = 0; cols[i] != NULL; i++) {
		int kp, kc;
		const char *a = row_text(p, cols[i], &kp), *b = row_text(c, cols[i], &kc);
		const cJSON *d;

		if (!kp || !kc || (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0))
			continue;
		d = cJSON_GetObjectItemCaseSensitive(details, cols[i]);
		if (d == NULL || !content_value_is(d, b))
			return cols[i];
	}
	/* The columns no edit names: only the time of the change and the archiving. */
	return row_changed(p, c, "updated_at status", cols);
}

/* The answer row of question qid in an assessment's content; NULL when none. */
static const cJSON *
answer_row(const cJSON *content, const char *qid)
{
	const cJSON *part, *r;

	cJSON_ArrayForEach(part, content) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "table");

		if (!cJSON_IsString(t) || strcmp(t->valuestring, "answer") != 0)
			continue;
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(part, "rows")) {
			const cJSON *q = cJSON_GetObjectItemCaseSensitive(r, "question_id");

			if (cJSON_IsString(q) && strcmp(q->valuestring, qid) == 0)
				return r;
		}
		return NULL;
	}
	return NULL;
}

/* Whether a note as details give it (absent or null: none) is the row's. */
static int
note_is(const cJSON *note, const cJSON *row)
{
	int known;
	const char *t = row != NULL ? row_text(row, "note", &known) : NULL;

	if (note == NULL || cJSON_IsNull(note))
		return t == NULL;
	return cJSON_IsString(note) && t != NULL && strcmp(t, note->valuestring) == 0;
}

/* One answer change (action, its details ch) against the row it left: the
 * field that differs, NULL when none does. */
static const char *
answer_change_mismatch(const char *action, const cJSON *ch, const cJSON *content)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(ch, "question"), *row;
	const char *vt;
	cJSON *v;
	int known, same;

	if (!cJSON_IsString(q))
		return NULL;
	row = answer_row(content, q->valuestring);
	vt = row != NULL ? row_text(row, "value", &known) : NULL;
	if (strcmp(action, "answer.clear") == 0)
		return vt == NULL ? NULL : "value";
	if (strcmp(action, "answer.note") == 0)
		return note_is(cJSON_GetObjectItemCaseSensitive(ch, "note"), row) ? NULL : "note";
	if (strcmp(action, "answer.set") != 0)
		return NULL;
	/* The value is JSON text: compared as JSON, whatever its spacing. */
	v = vt != NULL ? cJSON_Parse(vt) : NULL;
	same = v != NULL && cJSON_Compare(v, cJSON_GetObjectItemCaseSensitive(ch, "value"), 1);
	cJSON_Delete(v);
	if (!same)
		return "value";
	return note_is(cJSON_GetObjectItemCaseSensitive(ch, "note"), row) ? NULL : "note";
}

const char *
content_answer_mismatch(const char *action, const cJSON *details, const cJSON *content,
    const char **qid)
{
	const cJSON *ch, *later, *a, *q;
	const char *field;

	if (strcmp(action, "answer.import") != 0) {
		q = cJSON_GetObjectItemCaseSensitive(details, "question");
		*qid = cJSON_IsString(q) ? q->valuestring : "";
		return answer_change_mismatch(action, details, content);
	}
	/* A sheet's import: its changes in order, the last about each question counts. */
	cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(details, "changes")) {
		q = cJSON_GetObjectItemCaseSensitive(ch, "question");
		a = cJSON_GetObjectItemCaseSensitive(ch, "action");
		if (!cJSON_IsString(q) || !cJSON_IsString(a))
			continue;
		for (later = ch->next; later != NULL; later = later->next) {
			const cJSON *lq = cJSON_GetObjectItemCaseSensitive(later, "question");

			if (cJSON_IsString(lq) && strcmp(lq->valuestring, q->valuestring) == 0)
				break;
		}
		if (later == NULL && (field = answer_change_mismatch(a->valuestring, ch, content)) != NULL) {
			*qid = q->valuestring;
			return field;
		}
	}
	return NULL;
}

/* The questions an assessment entry's details name: its question, and the
 * question of each of an import's changes, sorted for bsearch (an import names
 * thousands, and each of its rows is looked up). */
struct qnames {
	const char **v;
	size_t n;
};

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
qnames_add(struct qnames *s, const cJSON *q, size_t *cap)
{
	if (!cJSON_IsString(q))
		return;
	if (s->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		s->v = xrealloc(s->v, *cap * sizeof *s->v);
	}
	s->v[s->n++] = q->valuestring;
}

static struct qnames
qnames_of(const cJSON *details)
{
	struct qnames s = { NULL, 0 };
	const cJSON *ch;
	size_t cap = 0;

	qnames_add(&s, cJSON_GetObjectItemCaseSensitive(details, "question"), &cap);
	cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(details, "changes"))
		qnames_add(&s, cJSON_GetObjectItemCaseSensitive(ch, "question"), &cap);
	if (s.n > 1)
		qsort(s.v, s.n, sizeof *s.v, str_cmp);
	return s;
}

static int
question_named(const struct qnames *s, const char *qid)
{
	return s->n > 0 && bsearch(&qid, s->v, s->n, sizeof *s->v, str_cmp) != NULL;
}

/* The rows of a content's part for table; NULL when it has no such part. */
static const cJSON *
part_rows(const cJSON *content, const char *table)
{
	const cJSON *part;

	cJSON_ArrayForEach(part, content) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "table");

		if (cJSON_IsString(t) && strcmp(t->valuestring, table) == 0)
			return cJSON_GetObjectItemCaseSensitive(part, "rows");
	}
	return NULL;
}

/* A part's rows by question, sorted for bsearch: whether the other content
 * holds a row is asked of every row, and an import changes thousands. */
struct qrow {
	const char *q;
	const cJSON *row;
};

static int
qrow_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qrow *)a)->q, ((const struct qrow *)b)->q);
}

static const char *
row_question(const cJSON *r)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(r, "question_id");

	return cJSON_IsString(q) ? q->valuestring : "";
}

static struct qrow *
qrows_index(const cJSON *rows, size_t *n)
{
	struct qrow *v = xmalloc(((size_t)cJSON_GetArraySize(rows) + 1) * sizeof *v);
	const cJSON *r;

	*n = 0;
	cJSON_ArrayForEach(r, rows)
		v[(*n)++] = (struct qrow){ row_question(r), r };
	qsort(v, *n, sizeof *v, qrow_cmp);
	return v;
}

/* Whether the indexed rows hold row r exactly (among those of its question). */
static int
rows_hold(const struct qrow *v, size_t n, const cJSON *r)
{
	struct qrow key = { row_question(r), r };
	size_t lo = 0, hi = n;

	while (lo < hi) {   /* the first row of r's question */
		size_t mid = lo + (hi - lo) / 2;

		if (qrow_cmp(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && strcmp(v[lo].q, key.q) == 0; lo++)
		if (cJSON_Compare(v[lo].row, r, 1))
			return 1;
	return 0;
}

/* The question of the first row of table that is in one of rows a and b and
 * not the other, when details do not name it; NULL when none. */
static const char *
question_rows_unnamed(const cJSON *a, const cJSON *b, const cJSON *details)
{
	const cJSON *rows[2] = { a, b }, *r;
	const char *found = NULL;
	struct qnames names = qnames_of(details);

	for (int i = 0; i < 2 && found == NULL; i++) {
		size_t n;
		struct qrow *other = qrows_index(rows[1 - i], &n);

		cJSON_ArrayForEach(r, rows[i]) {
			const cJSON *q = cJSON_GetObjectItemCaseSensitive(r, "question_id");

			if (!rows_hold(other, n, r) && (!cJSON_IsString(q) || !question_named(&names,
			    q->valuestring))) {
				found = cJSON_IsString(q) ? q->valuestring : "?";
				break;
			}
		}
		free(other);
	}
	free(names.v);
	return found;
}

const char *
content_answers_unnamed(const cJSON *prev, const cJSON *cur, const cJSON *details)
{
	const char *tables[] = { "answer", "answer_evidence" }, *q;

	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		const cJSON *a = part_rows(prev, tables[i]), *b = part_rows(cur, tables[i]);

		if (a != NULL && b != NULL && (q = question_rows_unnamed(a, b, details)) != NULL)
			return q;
	}
	return NULL;
}

/* What each action that changes a row (other than a vendor's or an endpoint's
 * edit, which names its fields) may change of it: the columns of its own row
 * (aivet's writers, and the server's functions, change these and no others),
 * and the child part whose rows it may change ("" none; an assessment's
 * answers are replayed by question, content_answers_unnamed()). */
static const struct {
	const char *action, *cols, *child;
} may_change[] = {
	{ "probe.calibrate", "status calibration tokens_in tokens_out finished_at plan", "" },
	{ "probe.finish", "status calibration tokens_in tokens_out finished_at plan", "" },
	{ "probe.interrupted", "status finished_at", "" },
	{ "incident.status", "status", "" },
	{ "incident.edit", "title endpoint_id severity phi individuals eu_data window_start window_end", "" },
	{ "incident.link", "", "incident_link" },
	{ "incident.task.done", "done_at", "" },
	{ "assessment.submit", "status submitted_at", NULL },
	{ "assessment.approve", "status approved_at reviewer", NULL },
	{ "assessment.return", "status submitted_at", NULL },
	{ "answer.set", "", NULL },
	{ "answer.clear", "", NULL },
	{ "answer.note", "", NULL },
	{ "answer.import", "", NULL },
	{ "answer.evidence", "", NULL },
};

const char *
content_action_overreach(const char *action, const cJSON *prev, const cJSON *cur)
{
	const cJSON *a, *b, *p = main_row(prev), *c = main_row(cur);
	const char *col;

	for (size_t i = 0; i < sizeof may_change / sizeof may_change[0]; i++) {
		if (strcmp(may_change[i].action, action) != 0)
			continue;
		if (p == NULL || c == NULL)
			return NULL;
		if ((col = row_changed(p, c, may_change[i].cols, NULL)) != NULL)
			return col;
		if (may_change[i].child == NULL)
			return NULL;
		/* Child parts: only the one the action writes. */
		for (a = prev->child->next, b = cur->child->next; a != NULL && b != NULL; a = a->next, b = b->next) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "table");

			if (cJSON_IsString(t) && strcmp(t->valuestring, may_change[i].child) != 0 &&
			    !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "rows"),
			    cJSON_GetObjectItemCaseSensitive(b, "rows"), 1))
				return t->valuestring;
		}
		return NULL;
	}
	return NULL;
}
