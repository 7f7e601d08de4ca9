/*
 * bundle-write.c: writing the signed report bundle: report.json, its HTML,
 * Markdown and OSCAL renderings, evidence/, aivet.pub and VERIFY.txt (how to
 * check all of it with minisign, coreutils or OpenSSL alone), then
 * SHA256SUMS over them and its minisign signature whose trusted comment
 * binds the report id, its time and the audit checkpoint, and last the
 * time-stamp over SHA256SUMS. Everything is written beside the target and
 * moved into place at the end, so a failure leaves nothing behind.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "minisign.h"
#include "report.h"
#include "bundle-files.h"
#include "report-doc.h"

#define SUMS "SHA256SUMS"
#define SUMS_SIG "SHA256SUMS.minisig"

/* SHA-256 of a file as hex, as SHA256SUMS lists it. */
static int
sha256_file(const char *path, char out[65], struct aerr *err)
{
	unsigned char h[crypto_hash_sha256_BYTES];

	if (file_digest(path, DIGEST_SHA256, h, err) != 0)
		return err->code;
	hex_encode(h, sizeof h, out);
	return 0;
}

static int
put(const char *root, const char *rel, const void *data, size_t len, struct names *written,
    struct aerr *err)
{
	int rc = write_file_below(root, rel, data, len, 0644, err);

	if (rc == 0 && written != NULL)
		bundle_names_add(written, rel);
	return rc;
}

/* VERIFY.txt on approvals/: what each statement binds, the stock minisign
 * command for each with the reviewer's own key, and the rounds approved
 * without a signature. */
static void
approvals_text(struct buf *b, const struct report_doc *d)
{
	int head = 0, self = 0;

	for (size_t i = 0; i < d->nassessments; i++) {
		const struct report_assessment *a = &d->assessments[i];
		const struct report_approval *o = a->approval;
		const char *who = a->reviewer ? a->reviewer : "?";
		long long id = (long long)a->id;

		if (o == NULL && a->status != ASSESS_FINAL)
			continue;
		if (!head++)
			buf_adds(b, "\nApprovals\n=========\n\n"
			    "approvals/ holds, for each approved round whose approval was signed, the\n"
			    "statement the reviewer signed (approvals/assessment-ID.txt: the round, its\n"
			    "vendor, the SHA-256 of its questionnaire and of the answers as report.json\n"
			    "shows them, who approved and when) and its minisign signature (.minisig).\n"
			    "The signature is the reviewer's own, not the report signer's: check it with\n"
			    "the reviewer's public key as you obtained it from the reviewer, never with\n"
			    "the registered_public_key report.json names (the report signer writes it).\n"
			    "An audit checkpoint you already hold ('aivet audit checkpoint'), once it\n"
			    "verifies with a key you trust (minisign -Vm CHECKPOINT -P \"$KEY\"), gives\n"
			    "each key registered by its position: reviewer_keys[].public_key of the person.\n"
			    "With REVIEWER_KEY set to that key, in this directory:\n\n");
		if (o == NULL) {
			buf_printf(b, "    # assessment %lld: approved by %s, signature missing: nothing here\n"
			    "    # proves who approved it\n", id, who);
			continue;
		}
		buf_printf(b, "    minisign -Vm %s -P \"$REVIEWER_KEY\"   # assessment %lld, %s, key id %s\n",
		    o->statement_file ? o->statement_file : "?", id, who, o->key_id ? o->key_id : "");
		self |= o->self_declared;
	}
	if (!head)
		return;
	buf_adds(b, "\nWith aivet: 'aivet key trust --reviewer NAME FILE' once for each reviewer\n"
	    "(FILE: their public key), or 'aivet key trust --reviewer NAME CHECKPOINT'\n"
	    "(the key registered to NAME that a checkpoint signed by a key you trust\n"
	    "records), then 'aivet verify DIR' checks each signature with\n"
	    "that key, and recomputes the content hash from report.json and compares the\n"
	    "round, vendor, reviewer and time; an approval signed with a key you have not\n"
	    "trusted for its reviewer is \"signed by a key this verifier does not trust\",\n"
	    "a final round without a signature \"approved, signature missing\".\n");
	if (self)
		buf_adds(b, "\nThe reviewers' names here are self-declared: the database is SQLite, where\n"
		    "anyone can type any name. A name means only \"the holder of the key registered\n"
		    "to it\"; that is why the reviewer's key must come from the reviewer.\n");
}

static void
verify_text(struct buf *b, const struct report_doc *d, const char *keyid, const char *pubkey)
{
	buf_printf(b,
	    "How to verify this report bundle\n"
	    "================================\n"
	    "\n"
	    "This directory is a signed aivet report bundle: report %s, generated %s.\n"
	    "It is signed with this Ed25519 public key (minisign format, key id %s):\n"
	    "\n"
	    "    %s\n"
	    "\n"
	    "Compare that whole key, every character, with the signer's public key as the\n"
	    "organisation gave it to you through another channel (not from this directory).\n"
	    "aivet.pub here is only the key the bundle claims: whoever edits the bundle can\n"
	    "replace it and sign again, with a new key that even carries the same key id.\n"
	    "Verify with the key you obtained, never with aivet.pub; below it is PUBKEY.\n"
	    "\n"
	    "1. With minisign and coreutils, in this directory:\n"
	    "\n"
	    "    minisign -Vm SHA256SUMS -P \"$PUBKEY\"\n"
	    "    sha256sum -c SHA256SUMS\n"
	    "\n"
	    "The first checks the signature on the list of hashes and prints the trusted\n"
	    "comment, which binds the report id, its time and the audit-log checkpoint\n"
	    "(entry count and head hash) to the signature. The second checks every file\n"
	    "against the list. Both must succeed, and no file other than those listed,\n"
	    "SHA256SUMS and SHA256SUMS.minisig may be present%s. With aivet, once:\n"
	    "'aivet key trust FILE' (FILE: the public key you obtained), then\n"
	    "'aivet verify DIR' does all of this and checks the structure of report.json;\n"
	    "'aivet audit verify --against DIR' checks a database against this bundle.\n"
	    "\n"
	    "2. Without minisign, with OpenSSL 3 and a POSIX shell: set PUBKEY to the public\n"
	    "key you obtained and run these lines from this directory (they work in a\n"
	    "scratch directory and only read the bundle); each 'openssl pkeyutl' must print\n"
	    "'Signature Verified Successfully' and the last loop must print nothing.\n"
	    "\n"
	    "    B=${B:-$(pwd)}\n"
	    "    cd \"$(mktemp -d)\"\n"
	    "    printf '%%s\\n' \"${PUBKEY:?set PUBKEY to the public key obtained out of band}\" | openssl base64 -d -A | tail -c 32 > pk.raw\n"
	    "    { printf '\\060\\052\\060\\005\\006\\003\\053\\145\\160\\003\\041\\000'; cat pk.raw; } > pk.der\n"
	    "    sed -n 2p \"$B/SHA256SUMS.minisig\" | openssl base64 -d -A | tail -c 64 > sig.raw\n"
	    "    openssl dgst -blake2b512 -binary \"$B/SHA256SUMS\" > digest.raw\n"
	    "    openssl pkeyutl -verify -pubin -keyform DER -inkey pk.der -rawin -in digest.raw -sigfile sig.raw\n"
	    "    { cat sig.raw; sed -n 3p \"$B/SHA256SUMS.minisig\" | sed 's/^trusted comment: //' | tr -d '\\n'; } > global.raw\n"
	    "    sed -n 4p \"$B/SHA256SUMS.minisig\" | openssl base64 -d -A > gsig.raw\n"
	    "    openssl pkeyutl -verify -pubin -keyform DER -inkey pk.der -rawin -in global.raw -sigfile gsig.raw\n"
	    "    while read -r h f; do [ \"$(openssl dgst -sha256 -r \"$B/$f\" | cut -d' ' -f1)\" = \"$h\" ] || echo \"MISMATCH $f\"; done < \"$B/SHA256SUMS\"\n"
	    "\n"
	    "The DER prefix 302a300506032b6570032100 wraps the 32-byte Ed25519 public key\n"
	    "(the last 32 bytes of the decoded minisign key). The signature is minisign's\n"
	    "prehashed form: Ed25519 over the BLAKE2b-512 digest of SHA256SUMS; the global\n"
	    "signature covers the first signature followed by the trusted comment.\n",
	    d->report_id ? d->report_id : "?", d->generated_at ? d->generated_at : "?", keyid,
	    pubkey, d->tsa_url == NULL ? "" :
	    "\n(and the time-stamp's SHA256SUMS.tsr, SHA256SUMS.tsa.pem and TIMESTAMP.txt,\n"
	    "made after signing: see 3.)");
	if (d->tsa_url != NULL)
		tsa_verify_recipe(b, d->tsa_url);
	approvals_text(b, d);
	rejudge_verify_text(b);
}

static int
dir_is_empty_or_absent(const char *dir, struct aerr *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (d == NULL) {
		if (errno == ENOENT)
			return 0;
		return aerr_set(err, AV_USAGE, "--out %s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty ? 0 : aerr_set(err, AV_USAGE, "--out %s: exists and is not empty", dir);
}

/* SHA256SUMS.minisig: the signature over SHA256SUMS, its trusted comment
 * binding the record's report id, time and audit checkpoint. */
static int
sums_sign(const char *tmp, const struct report_doc *d, const struct minisign_sec *sec, struct aerr *err)
{
	char *tc = bundle_trusted_comment(d->report_id, d->generated_at, (long long)d->audit_entries,
	    d->audit_head), *path = xasprintf("%s/%s", tmp, SUMS);
	struct buf sig;
	int rc;

	buf_init(&sig);
	rc = minisign_sign_file(sec, path, tc, &sig, err);
	free(path);
	free(tc);
	if (rc == 0)
		rc = put(tmp, SUMS_SIG, sig.data, sig.len, NULL, err);
	buf_free(&sig);
	return rc;
}

int
bundle_write(const char *dir, const struct report *r, const struct minisign_sec *sec,
    char sums_sha256[65], struct aerr *err)
{
	struct names written = { 0 };
	struct minisign_pub pub;
	struct buf b, sums;
	char *tmp, *text, keyid[MINISIGN_KEYID_LEN + 1], *path;
	cJSON *oscal;
	int rc;

	if (dir_is_empty_or_absent(dir, err) != 0)
		return err->code;
	/* Everything is written beside the target first, so a failure leaves nothing behind. */
	if (outdir_begin(dir, &tmp, err) != 0)
		return err->code;
	minisign_sec_to_pub(sec, &pub);
	minisign_keyid(pub.keynum, keyid);
	text = report_json_text(r->json);
	rc = put(tmp, "report.json", text, strlen(text), &written, err);
	free(text);
	if (rc == 0) {
		text = report_html(r);
		rc = put(tmp, "report.html", text, strlen(text), &written, err);
		free(text);
	}
	if (rc == 0) {
		text = report_markdown(r);
		rc = put(tmp, "report.md", text, strlen(text), &written, err);
		free(text);
	}
	if (rc == 0) {
		oscal = report_oscal(r);
		text = report_json_text(oscal);
		cJSON_Delete(oscal);
		rc = put(tmp, "oscal-assessment-results.json", text, strlen(text), &written, err);
		free(text);
	}
	for (size_t i = 0; rc == 0 && i < r->nfiles; i++)
		rc = put(tmp, r->files[i].path, r->files[i].data.data, r->files[i].data.len, &written, err);
	if (rc == 0) {
		buf_init(&b);
		minisign_pubkey_format(&pub, &b);
		rc = put(tmp, "aivet.pub", b.data, b.len, &written, err);
		buf_free(&b);
	}
	if (rc == 0) {
		struct buf line;

		buf_init(&line);
		minisign_pubkey_base64(&pub, &line);
		buf_init(&b);
		verify_text(&b, r->doc, keyid, line.data);
		buf_free(&line);
		rc = put(tmp, "VERIFY.txt", b.data, b.len, &written, err);
		buf_free(&b);
	}
	if (rc != 0)
		goto fail;
	qsort(written.v, written.n, sizeof *written.v, bundle_str_cmp);
	buf_init(&sums);
	for (size_t i = 0; i < written.n; i++) {
		char h[65];

		path = xasprintf("%s/%s", tmp, written.v[i]);
		rc = sha256_file(path, h, err);
		free(path);
		if (rc != 0) {
			buf_free(&sums);
			goto fail;
		}
		buf_printf(&sums, "%s  %s\n", h, written.v[i]);
	}
	sha256_hex(sums.data, sums.len, sums_sha256);
	rc = put(tmp, SUMS, sums.data, sums.len, NULL, err);
	buf_free(&sums);
	if (rc != 0)
		goto fail;
	rc = sums_sign(tmp, r->doc, sec, err);
	/* The time-stamp comes last: it is over SHA256SUMS as signed. */
	if (rc == 0 && r->doc->tsa_url != NULL)
		rc = tsa_stamp_bundle(tmp, r->doc->tsa_url, r->tsa_optional, r->tsa, err);
	if (rc != 0)
		goto fail;
	if ((rc = outdir_commit(tmp, dir, 0755, err)) != 0)
		goto fail;
	bundle_names_free(&written);
	free(tmp);
	return 0;
fail:
	outdir_discard(tmp);
	bundle_names_free(&written);
	free(tmp);
	return err->code;
}
