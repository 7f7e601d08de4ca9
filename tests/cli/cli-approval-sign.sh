#!/bin/sh
# cli-approval-sign.sh: on SQLite the actor is a name anyone can type, so an
# approval proves who approved by its signature: made with the approver's own
# minisign key, whose public half is registered to them (audited). From
# alice's shell, '--actor bob assess approve' is refused without bob's secret
# key, whatever key alice registers or names; bob approves from his own
# shell. The bundle carries the signed statement, which stock minisign
# verifies with bob's key and aivet verify checks with the key its user
# trusts as bob's ('key trust --reviewer'), never the one report.json names;
# a statement re-signed with alice's key (the bundle re-sealed and signed by
# her) fails.
. "$TESTS_SRCDIR/lib/lib.sh"

ALICE="$T/alice" BOB="$T/bob"
export XDG_CONFIG_HOME="$ALICE"   # this is alice's shell
as_bob() { XDG_CONFIG_HOME="$BOB" run --actor bob "$@"; }
"$AIVET" vendor add Acme >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" --actor alice assess start Acme scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 5d >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null

snap=$(db_snapshot)
run --actor bob assess approve 1
is "$rc $errout" "2 aivet: an approval is signed with the approver's own key, and bob has none registered: bob runs 'aivet key generate --name NAME' and 'aivet key register NAME', then approves" \
	"a typed --actor bob without a key registered to bob is refused"
unlike "$errout" "--actor" "and the refusal suggests no --actor"
is "$(db_snapshot)" "$snap" "nothing changed"

# Bob makes and registers his key, in his own shell.
XDG_CONFIG_HOME="$BOB" "$AIVET" key generate --no-password --name bob >/dev/null
bobpk=$(sed -n 2p "$BOB/aivet/keys/bob.pub")
bobid=$(sed -n 's/^untrusted comment: minisign public key //p' "$BOB/aivet/keys/bob.pub")
as_bob key register bob
is "$rc $out" "0 key bob (key id $bobid) registered to bob: their approvals are signed with it" "bob registers his key"
is "$(sqlite3 "$AIVET_DB" "SELECT actor || ' ' || action || ' ' || json_extract(details, '\$.person') || ' ' ||
	json_extract(details, '\$.public_key') FROM audit_log WHERE action = 'key.register'")" "bob key.register bob $bobpk" \
	"the registration is audited, with the public key"

# Alice, in her shell, as bob.
"$AIVET" key generate --no-password --name alice >/dev/null
aliceid=$(sed -n 's/^untrusted comment: minisign public key //p' "$ALICE/aivet/keys/alice.pub")
snap=$(db_snapshot)
run --actor bob assess approve 1
is "$rc $errout" "2 aivet: an approval is signed with the approver's own key: bob's is key $bobid, and no key here is it; bob approves where that key is" \
	"--actor bob from alice's shell is refused: bob's key is not here"
run --actor bob assess approve 1 --key alice
is "$rc $errout" "2 aivet: key $aliceid is not bob's registered key ($bobid)" "nor with alice's key named"
run --actor bob key register alice
is "$rc $errout" "2 aivet: bob already has key $bobid registered; a person's key is registered once" \
	"nor can alice register her key as bob's"
is "$(db_snapshot)" "$snap" "none of it changed anything: the round is still in review"

as_bob assess approve 1
is "$rc $out" "0 assessment 1 approved by bob (final), signed with their key" "bob approves in his own shell"
at=$(sqlite3 "$AIVET_DB" "SELECT approved_at FROM assessment WHERE id = 1")

# The bundle, written and signed by alice.
run report Acme --out "$T/b" --key alice
is "$rc" 0 "the report is written"
S="$T/b/approvals/assessment-1.txt"
is "$(head -4 "$S"; sed -n 6,8p "$S")" "aivet-approval-2
assessment: 1
vendor: Acme
round: 1
approved_by: bob
approved_at: $at
names: self-declared" "the bundle carries the signed statement of round 1, bob and the time; on SQLite the name is self-declared"
like "$(sed -n 5p "$S")" '^content_sha256: [0-9a-f]{64}$' "with the round's content hash"
is "$(jq -r '.assessments[0].approval_signature | "\(.signer) \(.key_id) \(.registered_public_key) \(.statement_file) \(.signature_file)"' "$T/b/report.json")" \
	"bob $bobid $bobpk approvals/assessment-1.txt approvals/assessment-1.txt.minisig" \
	"report.json names the signer, his key and the files"
minisign -Vm "$S" -P "$bobpk" >"$T/mv.out" 2>&1
is "$?:$(sed -n 2p "$T/mv.out")" "0:Trusted comment: aivet approval of assessment 1 by bob at $at" \
	"stock minisign verifies the approval with bob's public key"
minisign -Vm "$S" -P "$(sed -n 2p "$ALICE/aivet/keys/alice.pub")" >/dev/null 2>&1
is "$?" 1 "and not with alice's"
run verify "$T/b"
is "$rc" 0 "aivet verify passes the bundle$errout"
is "$(printf '%s\n' "$out" | grep '^  approvals')" "  approvals    not verified: assessment 1 by bob: signed by a key this verifier does not trust (key id $bobid)" \
	"alice trusts no key as bob's: the approval is named, not verified"
run key trust --reviewer bob "$BOB/aivet/keys/bob.pub"
is "$rc $(printf '%s\n' "$out" | head -1)" "0 key $bobid trusted as reviewer bob's: their approvals are checked with it" \
	"alice trusts bob's key, obtained from bob, as his"
run key trust --reviewer bob "$ALICE/aivet/keys/alice.pub"
is "$rc $errout" "2 aivet: a key of reviewer bob is trusted already ($ALICE/aivet/trusted/reviewers/bob.pub): 'rm $ALICE/aivet/trusted/reviewers/bob.pub' first to replace it" \
	"a second key for bob is refused"
run verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    signed: assessment 1 by bob (key id $bobid, name self-declared)" \
	"now the approval is verified, and said to rest on a self-declared name"

# Alice forges: the statement re-signed with her key, SHA256SUMS re-made and signed by her.
forge() {
	rm -rf "$T/f" && cp -r "$T/b" "$T/f"
	"$@"
	tc=$(sed -n 's/^trusted comment: //p' "$T/f/SHA256SUMS.minisig")
	(cd "$T/f" && grep -v '^SHA256SUMS' SHA256SUMS | awk '{ print $2 }' | xargs sha256sum >SHA256SUMS.new &&
		mv SHA256SUMS.new SHA256SUMS && rm SHA256SUMS.minisig)
	"$AIVET" key sign "$T/f/SHA256SUMS" --key alice --trusted-comment "$tc" >/dev/null
	run verify "$T/f"
}
forge "$AIVET" key sign "$T/f/approvals/assessment-1.txt" --key alice
is "$rc" 1 "a bundle whose approval alice re-signed fails verification"
like "$out" "assessment 1: the approval's signature: signature: signed by key $aliceid, not by the expected key $bobid" \
	"naming the keys"
forge sed -i "s/^approved_by: bob/approved_by: carol/" "$T/f/approvals/assessment-1.txt"
is "$rc" 1 "a statement edited after bob signed it fails"
like "$out" "assessment 1: the approval's signature: signature: signature does not match what it signs" "named so"
forge sh -c "jq '.assessments[0].reviewer = \"carol\"' '$T/f/report.json' >'$T/f/r.json' && mv '$T/f/r.json' '$T/f/report.json'"
is "$rc" 1 "a report naming another reviewer than the signed statement fails"
like "$out" "the signed statement says approved by bob, the report carol" "named so"
forge sh -c "jq '.assessments[0].approval_signature.registered_public_key = null' '$T/f/report.json' >'$T/f/r.json' && mv '$T/f/r.json' '$T/f/report.json'"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    signed: assessment 1 by bob (key id $bobid, name self-declared)" \
	"the key report.json names is not what the approval is checked with"
XDG_CONFIG_HOME="$BOB" "$AIVET" key trust "$ALICE/aivet/keys/alice.pub" >/dev/null
XDG_CONFIG_HOME="$BOB" run verify "$T/f"
is "$rc" 1 "without it, a verifier who trusts no key as bob's is not given one by report.json"
like "$out" "assessment 1: the approval's signature: the key registered to bob is missing or malformed" "named so"
done_testing
