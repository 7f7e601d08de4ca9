/*
 * cmd-audit.c: "aivet audit" — verify the hash chain of the audit log and
 * the rows it seals, list its entries, and anchor it outside the database.
 * Verification recomputes every hash, so an edit made with the sqlite3 shell
 * is found even when the triggers were dropped. A chain rehashed from start
 * to end, or cut at its end, is consistent with itself: only an anchor kept
 * elsewhere finds it. A signed checkpoint ('audit checkpoint') or a signed
 * report bundle records a position and the head hash there; 'audit verify
 * --against' requires the chain to hold that head at that position.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "aivet/minisign.h"
#include "aivet/report.h"
#include "aivet/tsa.h"

/* A checkpoint: its position, head and the reviewer keys it records. */
#define ANCHOR_MAX (1024 * 1024)

struct anchor {
	const char *path;
	const char *kind;           /* "bundle" or "checkpoint" */
	int64_t entries;
	char head[65];
	char why[1100];             /* why its signer is trusted */
	struct tsa_status tsa;      /* its time-stamp, when it has one */
};

/* "audit_entries:N<TAB>audit_head:H" out of a trusted comment. */
static int
comment_position(const char *tc, int64_t *entries, char head[65])
{
	const char *e = strstr(tc, "audit_entries:"), *h = strstr(tc, "audit_head:");
	char *end;
	long long n;

	if (e == NULL || h == NULL)
		return -1;
	n = strtoll(e + 14, &end, 10);
	if (end == e + 14 || (*end != '\t' && *end != '\0') || n < 0 || strspn(h + 11, "0123456789abcdef") != 64 ||
	    (h[75] != '\t' && h[75] != '\0'))
		return -1;
	*entries = n;
	memcpy(head, h + 11, 64);
	head[64] = '\0';
	return 0;
}

/* Reads an anchor: a bundle directory (verified as 'aivet verify' does) or a checkpoint
 * file with its .minisig. Either must be signed by a trusted key; the signed trusted
 * comment gives the position and head. */
static int
anchor_read(const char *path, const struct minisign_pub *given, const char *given_source,
    const char *given_name, const char *tsa_cert, struct anchor *a, struct aerr *err)
{
	struct verify_result res;
	struct stat sb;
	int rc = 0;

	memset(a, 0, sizeof *a);
	a->path = path;
	if (stat(path, &sb) != 0)
		return aerr_set(err, AV_USAGE, "--against %s: no such bundle or checkpoint", path);
	if (S_ISDIR(sb.st_mode)) {
		a->kind = "bundle";
		if (bundle_verify(path, given, given_source, given_name, tsa_cert, &res, err) != 0)
			return err->code;
		a->tsa = res.tsa;
	} else {
		struct buf b;
		struct minisign_pub claimed;
		struct audit_checkpoint cp;
		int have_claimed = 0, bad;

		a->kind = "checkpoint";
		if (read_file(path, ANCHOR_MAX, &b, err) != 0)
			return aerr_prefix(err, "--against");
		bad = audit_checkpoint_parse(b.data, b.len, &cp) != 0;
		buf_free(&b);
		if (bad)
			return aerr_set(err, AV_USAGE, "--against %s: not a bundle directory or an aivet audit "
			    "checkpoint", path);
		if (cp.signer_public_key != NULL) {
			struct buf pk;
			struct aerr e = { 0 };

			buf_init(&pk);
			buf_printf(&pk, "untrusted comment: claimed signer\n%s\n", cp.signer_public_key);
			have_claimed = minisign_pubkey_parse(pk.data, pk.len, path, &claimed, &e) == 0;
			buf_free(&pk);
		}
		audit_checkpoint_free(&cp);
		signed_file_verify(path, have_claimed ? &claimed : NULL, given, given_source, given_name, &res);
		/* A checkpoint's token (FILE.tsr) is over the checkpoint file. */
		tsa_check(path, path, tsa_cert, &a->tsa);
		if (res.ok && a->tsa.requested && !a->tsa.attested) {
			rc = aerr_set(err, AV_FINDINGS, "--against %s: the checkpoint's time-stamp does not "
			    "verify: %s", path, a->tsa.problem);
			verify_result_free(&res);
			return rc;
		}
	}
	if (!res.ok) {
		rc = aerr_set(err, AV_FINDINGS, "--against %s: the %s does not verify, so it anchors nothing: %s",
		    path, a->kind, res.nproblems > 0 ? res.problems[0] : "?");
	} else if (comment_position(res.trusted_comment, &a->entries, a->head) != 0) {
		rc = aerr_set(err, AV_FINDINGS, "--against %s: its signed trusted comment holds no "
		    "audit_entries and audit_head", path);
	} else {
		verify_trust_label(&res, a->why, sizeof a->why);
	}
	verify_result_free(&res);
	return rc;
}

/* The chain against the anchor. A failed anchor is named in place of any other
 * problem: a cut or rewritten chain is what makes the rest inconsistent. An entry edited
 * without rehashing leaves the anchored hash in place, and the chain's own problem stands. */
static void
anchor_check(struct db *db, const struct anchor *a, struct audit_status *st, struct aerr *err)
{
	int64_t last = 0;

	if (a->entries == 0)
		return;
	if (audit_last_seq(db, &last, err) != 0)
		return;
	if (last < a->entries) {
		st->bad_seq = last + 1;
		snprintf(st->problem, sizeof st->problem, "the chain has %lld entries, fewer than the %lld "
		    "that %s %s recorded: entries were cut from its end", (long long)last,
		    (long long)a->entries, a->kind, a->path);
		return;
	}
	if (audit_hash_is(db, a->entries, a->head, err) == 1) {
		st->bad_seq = a->entries;
		snprintf(st->problem, sizeof st->problem, "entry %lld's hash is not the head that %s %s "
		    "recorded (%s): the chain was rewritten at or before entry %lld", (long long)a->entries,
		    a->kind, a->path, a->head, (long long)a->entries);
	}
}

/* --key NAME or --pubkey FILE: the signer an anchor must be from (else the keyring). */
static int
audit_verify_cmd(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	const char *against = args_get(a, 'a'), *key = args_get(a, 'k'), *pubfile = args_get(a, 'p');
	const char *tsa_cert = args_get(a, 'c');
	int json = args_has(a, 'j');
	struct minisign_pub pub;
	struct audit_status st;
	struct anchor anchor;
	struct db *db;

	if (tsa_cert != NULL && against == NULL)
		return usage_error(av, err, "--tsa-cert checks the time-stamp of --against");
	if (key != NULL && pubfile != NULL)
		return usage_error(av, err, "--key and --pubkey exclude each other");
	if ((key != NULL || pubfile != NULL) && against == NULL)
		return usage_error(av, err, "--key and --pubkey name the signer of --against");
	if ((key != NULL || pubfile != NULL) && signer_load(key, pubfile, &pub, err) != 0)
		return err->code;
	/* The anchor first: one that does not verify is bad input, whatever the database holds. */
	if (against != NULL && anchor_read(against, key || pubfile ? &pub : NULL, key ? "key" : "pubkey",
	    key ? key : pubfile, tsa_cert, &anchor, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL || audit_verify(db, &st, err) != 0)
		return err->code;
	if (against != NULL) {
		anchor_check(db, &anchor, &st, err);
		if (err->code != 0)
			return err->code;
	}
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddBoolToObject(o, "intact", st.bad_seq == 0);
		cJSON_AddNumberToObject(o, "entries", (double)st.entries);
		cJSON_AddStringToObject(o, "head", st.head);
		/* From which entry on the entries that seal rows hold their full content. */
		cJSON_AddNumberToObject(o, "content_from", (double)st.content_from);
		if (st.bad_seq) {
			cJSON_AddNumberToObject(o, "first_bad_entry", (double)st.bad_seq);
			cJSON_AddStringToObject(o, "problem", st.problem);
		}
		if (against != NULL) {
			cJSON *x = cJSON_AddObjectToObject(o, "anchor");

			cJSON_AddStringToObject(x, "path", anchor.path);
			cJSON_AddStringToObject(x, "kind", anchor.kind);
			cJSON_AddNumberToObject(x, "entries", (double)anchor.entries);
			cJSON_AddStringToObject(x, "head", anchor.head);
			cJSON_AddStringToObject(x, "signer_trusted_as", anchor.why);
			cJSON_AddItemToObject(x, "time_stamp", tsa_status_json(&anchor.tsa));
		}
		json_emit(o);
	}
	if (st.bad_seq)
		return aerr_set(err, AV_FINDINGS, "audit chain broken: %s", st.problem);
	if (!json) {
		term_printf(stdout, "audit chain intact: %lld entries, head %s\n", (long long)st.entries, st.head);
		/* A database older than full content: say which entries replay. */
		if (st.content_from > 1)
			term_printf(stdout, "  entries 1 to %lld were written before entries held their rows' full "
			    "content: their rows are checked against their row hashes only\n",
			    (long long)st.content_from - 1);
		if (against != NULL) {
			struct buf w;

			term_printf(stdout, "  holds the %s's head at entry %lld (%s, signed by %s)\n", anchor.kind,
			    (long long)anchor.entries, anchor.path, anchor.why);
			buf_init(&w);
			tsa_status_words(&anchor.tsa, &w);
			if (anchor.tsa.requested)
				printf("  %s\n", w.data);
			buf_free(&w);
		}
	}
	return 0;
}

/* The TSA a checkpoint asks: --tsa, else the configured one; "none" or neither: url is "". */
static int
checkpoint_tsa(const char *opt, char url[1024], struct aerr *err)
{
	char *conf = opt == NULL ? tsa_url_from_config() : NULL;
	const char *u = opt != NULL ? opt : conf;
	int rc = 0;

	url[0] = '\0';
	if (u != NULL && strcmp(u, "none") != 0 &&
	    (rc = tsa_url_check(opt != NULL ? "--tsa" : "the config file 'tsa-url':", u, err)) == 0)
		snprintf(url, 1024, "%s", u);
	free(conf);
	return rc;
}

/* The checkpoint's JSON: the chain's position and head, when, by which key,
 * and the reviewer keys registered by then (an auditor may trust them from
 * it: 'key trust --reviewer NAME CHECKPOINT'); NULL on error. */
static char *
checkpoint_json(struct db *db, const struct audit_status *st, char *at, char *keyid, char *pubkey,
    struct aerr *err)
{
	struct audit_checkpoint cp = { .entries = st->entries, .at = at, .signer_key_id = keyid,
	    .signer_public_key = pubkey };
	cJSON *o;
	char *text;

	memcpy(cp.head, st->head, sizeof cp.head);
	o = audit_checkpoint_to_json(&cp);
	if (approval_checkpoint_keys(db, st->entries, o, err) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (text == NULL)
		die("out of memory");
	return text;
}

/* The checkpoint written to out, its signature to sigpath and, with a TSA,
 * its token; nothing is left behind when a step fails. */
static int
checkpoint_write(const struct minisign_sec *sec, const char *out, const char *sigpath,
    const char *text, const struct audit_status *st, const char *at, const char *tsa_url,
    struct tsa_status *ts, struct aerr *err)
{
	/* The trusted comment repeats the position and head: minisign -V prints them, signed. */
	char *tc = xasprintf("aivet-audit-checkpoint\taudit_entries:%lld\taudit_head:%s\tat:%s",
	    (long long)st->entries, st->head, at);
	struct buf t, sig;
	int rc;

	buf_init(&sig);
	buf_init(&t);
	buf_printf(&t, "%s\n", text);
	rc = write_file_atomic(out, t.data, t.len, 0644, err);
	buf_free(&t);
	if (rc == 0 && (rc = minisign_sign_file(sec, out, tc, &sig, err)) == 0)
		rc = write_file_atomic(sigpath, sig.data, sig.len, 0644, err);
	/* The token over the checkpoint as signed; a TSA that fails leaves nothing behind. */
	if (rc == 0 && tsa_url[0] != '\0' && (rc = tsa_stamp(tsa_url, out, out, ts, err)) != 0)
		unlink(sigpath);
	if (rc != 0)
		unlink(out);
	buf_free(&sig);
	free(tc);
	return rc;
}

static void
checkpoint_print(const char *out, const char *sigpath, const struct audit_status *st,
    const char *keyid, const char *pubkey, const struct tsa_status *ts)
{
	struct buf w;

	term_printf(stdout, "audit checkpoint written to %s (signature %s)\n  entries      %lld\n  head         %s\n"
	    "  signed by    key id %s, public key %s\n", out, sigpath, (long long)st->entries, st->head,
	    keyid, pubkey);
	buf_init(&w);
	tsa_status_words(ts, &w);
	if (ts->requested)
		printf("  time-stamp   %s, token %s%s\n", w.data, out, TSA_TOKEN_SUFFIX);
	buf_free(&w);
}

static int
audit_checkpoint_cmd(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	const char *out = args_get(a, 'o'), *key = args_has(a, 'k') ? args_get(a, 'k') : "aivet";
	const char *tsa = args_get(a, 'T');
	struct minisign_sec *sec = NULL;
	struct tsa_status ts = { 0 };
	char tsa_url[sizeof ts.url];
	struct minisign_pub pub;
	struct audit_status st;
	struct buf line;
	char at[32], keyid[MINISIGN_KEYID_LEN + 1], *text, *sigpath;
	struct db *db;
	int rc;

	if (out == NULL)
		return usage_error(av, err, "--out FILE is required");
	if (checkpoint_tsa(tsa, tsa_url, err) != 0)
		return err->code;
	sigpath = xasprintf("%s.minisig", out);
	if (access(out, F_OK) == 0 || access(sigpath, F_OK) == 0) {
		rc = aerr_set(err, AV_USAGE, "--out %s: exists already (a checkpoint is never overwritten)",
		    access(out, F_OK) == 0 ? out : sigpath);
		free(sigpath);
		return rc;
	}
	if ((db = av_db(av, err)) == NULL || audit_verify(db, &st, err) != 0) {
		free(sigpath);
		return err->code;
	}
	/* Anchoring a broken chain would vouch for the break. */
	if (st.bad_seq != 0) {
		free(sigpath);
		return aerr_set(err, AV_FINDINGS, "audit chain broken: %s (no checkpoint written)", st.problem);
	}
	if (keystore_load_sec(key, &sec, err) != 0) {
		free(sigpath);
		return err->code;
	}
	minisign_sec_to_pub(sec, &pub);
	minisign_keyid(pub.keynum, keyid);
	buf_init(&line);
	minisign_pubkey_base64(&pub, &line);
	now_iso(at);
	text = checkpoint_json(db, &st, at, keyid, line.data, err);
	rc = text == NULL ? err->code :
	    checkpoint_write(sec, out, sigpath, text, &st, at, tsa_url, &ts, err);
	if (rc == 0)
		checkpoint_print(out, sigpath, &st, keyid, line.data, &ts);
	minisign_sec_free(sec);
	buf_free(&line);
	free(text);
	free(sigpath);
	return rc;
}

/* One entry of 'audit log': a line, or an element of the --json array. */
static void
log_entry(const struct audit_entry *e, void *ctx)
{
	cJSON *arr = ctx;

	if (arr != NULL) {
		cJSON_AddItemToArray(arr, audit_entry_to_json(e));
	} else {
		term_printf(stdout, "%6lld %s %-12s %-22s %s %lld %s\n", (long long)e->seq, e->at,
		    e->actor, e->action, e->object_type, (long long)e->object_id, e->details);
	}
}

static int
audit_log_cmd(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	int64_t limit = 50;
	int json = args_has(a, 'j');
	struct db *db;
	cJSON *arr;

	if (args_has(a, 'l') && parse_int_opt("--limit", args_get(a, 'l'), 1, INT64_MAX, &limit, err) != 0)
		return err->code;
	if ((db = av_db(av, err)) == NULL)
		return err->code;
	arr = json ? cJSON_CreateArray() : NULL;
	if (audit_log_newest(db, limit, log_entry, arr, err) != 0) {
		cJSON_Delete(arr);
		return err->code;
	}
	if (json)
		json_emit(arr);
	return 0;
}

static const struct opt verify_opts[] = {
	{ .name = "against", .id = 'a', .arg = "BUNDLE-DIR|CHECKPOINT",
	  .help = "check the chain still holds the head a bundle or checkpoint recorded" },
	{ .name = "key", .id = 'k', .arg = "NAME",
	  .help = "the anchor's signer, a key in the keyring" },
	{ .name = "pubkey", .id = 'p', .arg = "FILE",
	  .help = "the anchor's signer, a minisign public key file", .flags = OPT_OR },
	{ .name = "tsa-cert", .id = 'c', .arg = "FILE",
	  .help = "also trust the TSA certificates in FILE (PEM) for the anchor's time-stamp" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};
static const struct opt checkpoint_opts[] = {
	{ .name = "out", .id = 'o', .arg = "FILE", .help = "where to write the checkpoint",
	  .flags = OPT_REQUIRED },
	{ .name = "key", .id = 'k', .arg = "NAME",
	  .help = "the signing key (default: the only one)" },
	{ .name = "tsa", .id = 'T', .arg = "URL",
	  .help = "time-stamp the checkpoint at this RFC 3161 TSA (default: 'aivet tsa url'; "
	  "none)" },
	{ 0 }
};
static const struct opt log_opts[] = {
	{ .name = "limit", .id = 'l', .arg = "N",
	  .help = "how many entries, newest first (default 50)" },
	{ .name = "json", .id = 'j', .help = "print JSON" },
	{ 0 }
};

/* audit tables: every table of the schema, its kind, and what each seal covers. */
static int
audit_tables_cmd(struct aivet *av, const struct cmd_args *a, struct aerr *err)
{
	(void)av, (void)err;
	if (args_has(a, 'j')) {
		json_emit(audit_registry_json());
		return 0;
	}
	printf("%-18s %-8s %s\n", "TABLE", "KIND", "SEALED BY ENTRIES ABOUT");
	for (const struct audit_table *t = audit_tables; t->name != NULL; t++)
		printf("%-18s %-8s %s\n", t->name, audit_table_kind_name(t->kind), t->sealed_by ? t->sealed_by : "-");
	return 0;
}

static const struct cmd_entry audit_subs[] = {
	{ .name = "verify", .opts = verify_opts,
	  .summary = "recompute the audit log's hash chain and the rows it seals",
	  .exec = audit_verify_cmd, .args = ARGS_NONE },
	{ .name = "checkpoint", .opts = checkpoint_opts,
	  .summary = "write a signed checkpoint of the chain (position and head)",
	  .exec = audit_checkpoint_cmd, .args = ARGS_NONE },
	{ .name = "log", .opts = log_opts,
	  .summary = "print the newest audit entries (50 unless --limit)",
	  .exec = audit_log_cmd, .args = ARGS_NONE },
	{ .name = "tables", .opts = opt_json_only,
	  .summary = "list every table of the schema and what keeps it honest",
	  .exec = audit_tables_cmd, .args = ARGS_NONE },
	{ 0 }
};

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.summary = "verify, anchor and read the hash-chained audit log",
	.subs = audit_subs,
};
