#!/bin/sh
# cli-approval-forge.sh: the forgeries of an approval a report signer could
# make, each run as it was run: the signer (alice, who holds the report key
# 'org') changes an approved answer, or signs a new statement with her own
# key and writes that key into report.json as bob's, or strips the
# signature, then re-seals SHA256SUMS and signs it with the report key. An
# auditor who trusts the report key and, from bob, bob's key as reviewer
# ('key trust --reviewer') sees each: the content hash is recomputed from
# report.json, the reviewer's key comes from the auditor's trust store, and a
# final round without a signature is named. The report key cannot be
# registered as a person's key. On SQLite names are self-declared: the
# statement, report.md, VERIFY.txt and aivet verify say so.
. "$TESTS_SRCDIR/lib/lib.sh"

ALICE="$T/alice" BOB="$T/bob" AUD="$T/auditor"
export XDG_CONFIG_HOME="$ALICE"   # this is alice's shell
aud() { XDG_CONFIG_HOME="$AUD" run "$@"; }
"$AIVET" vendor add Acme >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" --actor alice assess start Acme scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 5d --note "per contract" >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null
XDG_CONFIG_HOME="$BOB" "$AIVET" key generate --no-password --name bob >/dev/null
XDG_CONFIG_HOME="$BOB" "$AIVET" --actor bob key register bob >/dev/null
XDG_CONFIG_HOME="$BOB" "$AIVET" --actor bob assess approve 1 >/dev/null
bobid=$(sed -n 's/^untrusted comment: minisign public key //p' "$BOB/aivet/keys/bob.pub")
"$AIVET" key generate --no-password --name org >/dev/null
"$AIVET" key generate --no-password --name alice >/dev/null
aliceid=$(sed -n 's/^untrusted comment: minisign public key //p' "$ALICE/aivet/keys/alice.pub")
run report Acme --out "$T/b" --key org
is "$rc" 0 "the report is written, signed with the report key$errout"

# The report key is the organisation's: nobody registers it as theirs.
orgid=$(sed -n 's/^untrusted comment: minisign public key //p' "$ALICE/aivet/keys/org.pub")
snap=$(db_snapshot)
run --actor mallory key register org
is "$rc $errout" "2 aivet: key $orgid signs report bundles (1 here): a report signing key is the organisation's, not a person's, and is not registered to anyone" \
	"the report signing key is refused as a person's key"
is "$(db_snapshot)" "$snap" "and nothing is registered"

# The auditor trusts the report key and, obtained from bob, bob's key.
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$ALICE/aivet/keys/org.pub" >/dev/null
aud key trust --reviewer bob "$BOB/aivet/keys/bob.pub"
is "$rc" 0 "the auditor trusts bob's key as reviewer bob's$errout"
aud key trust --reviewer carol "$ALICE/aivet/keys/org.pub"
is "$rc $errout" "2 aivet: $ALICE/aivet/keys/org.pub: key $orgid is trusted here as a report signer ('$orgid'): a report signing key is not a person's" \
	"nor does the auditor trust the report key as a reviewer's"
is "$(ls "$AUD/aivet/trusted/reviewers")" "bob.pub" "only bob's key is trusted as a reviewer's"

# The content hash, computed here as aivet(1) defines it, from report.json.
content_sha() {
	jq -j '.assessments[0] | ([ "aivet-approval-content-2", .questionnaire.qid,
		(.questionnaire.version | tostring), .questionnaire.sha256 ] +
		([ .answers | sort_by(.question_id)[] | .question_id, (.value | tojson), (.note // "") ]))
		| map("\(utf8bytelength):\(.),") | join("")' "$1" | sha256sum | cut -d' ' -f1
}
S="$T/b/approvals/assessment-1.txt"
is "$(sed -n 's/^content_sha256: //p' "$S")" "$(content_sha "$T/b/report.json")" \
	"the statement's content hash is of the questionnaire and the answers report.json shows"
is "$(sed -n 8p "$S")" "names: self-declared" "the statement says the name is self-declared"
aud verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    signed: assessment 1 by bob (key id $bobid, name self-declared)" \
	"the auditor verifies the bundle and bob's approval"
like "$(cat "$T/b/report.md")" "The reviewer's name is self-declared \(on SQLite anyone can type any name\): the approval is signed with key $bobid" \
	"report.md says the name is self-declared"
like "$(cat "$T/b/VERIFY.txt")" "The reviewers' names here are self-declared: the database is SQLite" \
	"VERIFY.txt says so too"
cmd=$(sed -n 's/^    \(minisign -Vm approvals\/.*\)   # assessment 1, bob, key id .*/\1/p' "$T/b/VERIFY.txt")
is "$cmd" 'minisign -Vm approvals/assessment-1.txt -P "$REVIEWER_KEY"' "VERIFY.txt gives the stock minisign command"
(cd "$T/b" && REVIEWER_KEY=$(sed -n 2p "$BOB/aivet/keys/bob.pub") && eval "$cmd") >/dev/null 2>&1
is "$?" 0 "which, run as written with bob's key, verifies his approval"

# Alice's edits, each re-sealed and SHA256SUMS signed with the report key.
forge() {
	rm -rf "$T/f" && cp -r "$T/b" "$T/f"
	"$@"
	# report.json's list of the bundle's files follows the edit, as a forger makes it.
	for f in $(jq -r '.evidence_files[].path' "$T/f/report.json"); do
		if [ -f "$T/f/$f" ]; then
			jqf "(.evidence_files[] | select(.path == \"$f\") | .sha256) = \"$(sha256sum "$T/f/$f" | cut -d' ' -f1)\""
		else
			jqf "del(.evidence_files[] | select(.path == \"$f\"))"
		fi
	done
	tc=$(sed -n 's/^trusted comment: //p' "$T/f/SHA256SUMS.minisig")
	(cd "$T/f" && find . -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' | LC_ALL=C sort |
		xargs sha256sum >SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS && rm SHA256SUMS.minisig)
	"$AIVET" key sign "$T/f/SHA256SUMS" --key org --trusted-comment "$tc" >/dev/null
}
jqf() { jq "$1" "$T/f/report.json" >"$T/f/r.json" && mv "$T/f/r.json" "$T/f/report.json"; }

# 1. An approved answer changed.
forge jqf '(.assessments[0].answers[] | select(.question_id == "notify") | .value) = "1d"'
aud verify "$T/f"
is "$rc" 1 "a bundle whose approved answer was changed fails"
is "$(printf '%s\n' "$out" | grep 'assessment 1:')" "  assessment 1: the approval's signature: the signed statement says content_sha256 $(sed -n 's/^content_sha256: //p' "$S"), the report $(content_sha "$T/f/report.json")" \
	"named by the statement's hash and the one recomputed from report.json"
forge jqf '(.assessments[0].answers[] | select(.question_id == "notify") | .note) = "verbal"'
aud verify "$T/f"
is "$rc" 1 "so does a changed note"
like "$out" "^  assessment 1: the approval's signature: the signed statement says content_sha256 [0-9a-f]{64}, the report [0-9a-f]{64}$" \
	"named so"

# 2. A new statement, of the changed answer, signed with alice's key, her key written in as bob's.
newstmt() {
	jqf '(.assessments[0].answers[] | select(.question_id == "notify") | .value) = "1d"'
	sed -i "s/^content_sha256: .*/content_sha256: $(content_sha "$T/f/report.json")/" "$T/f/approvals/assessment-1.txt"
	rm "$T/f/approvals/assessment-1.txt.minisig"
	"$AIVET" key sign "$T/f/approvals/assessment-1.txt" --key alice >/dev/null
	jqf ".assessments[0].approval_signature.registered_public_key = \"$(sed -n 2p "$ALICE/aivet/keys/alice.pub")\" |
		.assessments[0].approval_signature.key_id = \"$aliceid\""
}
forge newstmt
aud verify "$T/f"
is "$rc" 1 "the auditor who trusts bob's key fails the new statement"
is "$(printf '%s\n' "$out" | grep 'assessment 1:')" "  assessment 1: the approval's signature: signature: signed by key $aliceid, not by the expected key $bobid" \
	"naming alice's key and bob's"
XDG_CONFIG_HOME="$T/other" "$AIVET" key trust "$ALICE/aivet/keys/org.pub" >/dev/null
XDG_CONFIG_HOME="$T/other" run verify "$T/f"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: signed by a key this verifier does not trust (key id $aliceid)" \
	"a verifier who trusts no key as bob's is told so, never that bob signed"

# 3. The signature stripped: the round still final, no statement.
forge sh -c "rm -r '$T/f/approvals' && jq 'del(.assessments[0].approval_signature)' '$T/f/report.json' >'$T/f/r.json' && mv '$T/f/r.json' '$T/f/report.json'"
aud verify "$T/f"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: approved, signature missing" \
	"a final round whose signature was removed is named, not verified"
aud verify --json "$T/f"
is "$(printf '%s' "$out" | jq -r '"\(.approvals_signed) \(.approvals_not_verified)"')" "null assessment 1 by bob: approved, signature missing" \
	"and so in JSON"

# A statement of format 1 (its content hash of the database's rows), signed by bob
# himself: the answers cannot be recomputed, so it is named, not verified.
v1() {
	{ echo aivet-approval-1; sed -n 2,7p "$T/b/approvals/assessment-1.txt"; } >"$T/f/approvals/assessment-1.txt"
	rm "$T/f/approvals/assessment-1.txt.minisig"
	XDG_CONFIG_HOME="$BOB" "$AIVET" key sign "$T/f/approvals/assessment-1.txt" --key bob >/dev/null
}
forge v1
aud verify "$T/f"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: signed (key id $bobid) in format 1, whose answers cannot be checked against report.json" \
	"a format-1 approval by bob is named, not verified"

# The auditor stops trusting bob's key: his approval is no longer verified.
aud key untrust --reviewer bob
is "$rc $out" "0 key $bobid no longer trusted as reviewer bob's
  removed     $AUD/aivet/trusted/reviewers/bob.pub" "key untrust --reviewer removes bob's key"
aud verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: signed by a key this verifier does not trust (key id $bobid)" \
	"and the approval is no longer said verified"
aud key untrust --reviewer bob
is "$rc $errout" "2 aivet: no key is trusted as reviewer bob's" "untrusting again is refused"
done_testing
