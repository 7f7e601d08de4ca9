#!/bin/sh
# cli-approval-checkpoint.sh: an auditor trusts reviewer keys from an audit
# checkpoint she already holds, signed by a key she trusts: 'audit
# checkpoint' records the key each person had registered by its position, and
# 'key trust --reviewer NAME CHECKPOINT' takes NAME's key from it only when
# the checkpoint's signature verifies with a trusted key. A checkpoint whose
# keys were edited, one re-signed by a key she does not trust, one written
# before the reviewer registered, and one that records no keys are refused,
# trusting nothing. On SQLite the checkpoint and the trust say the names are
# self-declared. The approval then verifies, with aivet and with stock
# minisign and the key the checkpoint records.
. "$TESTS_SRCDIR/lib/lib.sh"

ALICE="$T/alice" BOB="$T/bob" AUD="$T/auditor"
export XDG_CONFIG_HOME="$ALICE"   # this is alice's shell
aud() { XDG_CONFIG_HOME="$AUD" run "$@"; }
keyid() { sed -n 's/^untrusted comment: minisign public key //p' "$1"; }
"$AIVET" vendor add Acme >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" --actor alice assess start Acme scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 5d >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null
"$AIVET" key generate --no-password --name org >/dev/null
"$AIVET" key generate --no-password --name alice >/dev/null
run audit checkpoint --out "$T/cp0.json" --key org
is "$rc" 0 "a checkpoint is written before bob registers a key$errout"
XDG_CONFIG_HOME="$BOB" "$AIVET" key generate --no-password --name bob >/dev/null
XDG_CONFIG_HOME="$BOB" "$AIVET" --actor bob key register bob >/dev/null
XDG_CONFIG_HOME="$BOB" "$AIVET" --actor bob assess approve 1 >/dev/null
bobid=$(keyid "$BOB/aivet/keys/bob.pub") orgid=$(keyid "$ALICE/aivet/keys/org.pub")
bobkey=$(sed -n 2p "$BOB/aivet/keys/bob.pub")
run audit checkpoint --out "$T/cp.json" --key org
is "$rc" 0 "and one after he registered and approved$errout"
reg=$(sqlite3 "$AIVET_DB" "SELECT seq FROM audit_log WHERE action = 'key.register'")
entries=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")
is "$(jq -c '[.entries, .reviewer_names, .reviewer_keys]' "$T/cp.json")" \
	"[$entries,\"self-declared\",[{\"person\":\"bob\",\"key_id\":\"$bobid\",\"public_key\":\"$bobkey\",\"entry\":$reg}]]" \
	"the checkpoint records bob's registered key, its entry, and that names are self-declared here"
is "$(jq -c '.reviewer_keys' "$T/cp0.json")" "[]" "the earlier one records no key"
run report Acme --out "$T/b" --key org
is "$rc" 0 "the report is written, signed with the report key$errout"

# The auditor holds the checkpoints and trusts the key that signed them, nothing else.
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$ALICE/aivet/keys/org.pub" >/dev/null
aud verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: signed by a key this verifier does not trust (key id $bobid)" \
	"before she trusts a reviewer key, bob's approval is not verified"

# Forgeries of the checkpoint: each refused, nothing trusted.
cp "$T/cp.json" "$T/edited.json"
alicekey=$(sed -n 2p "$ALICE/aivet/keys/alice.pub")
sed -i "s|$bobkey|$alicekey|" "$T/edited.json"
cp "$T/cp.json.minisig" "$T/edited.json.minisig"
aud key trust --reviewer bob "$T/edited.json"
is "$rc $errout" "1 aivet: $T/edited.json: the checkpoint's signature does not verify with a key trusted here, so it vouches for no key: $T/edited.json.minisig: signature does not match edited.json" \
	"a checkpoint whose key for bob was replaced with alice's is refused"
rm "$T/edited.json.minisig"
"$AIVET" key sign "$T/edited.json" --key alice >/dev/null
aud key trust --reviewer bob "$T/edited.json"
is "$rc $errout" "1 aivet: $T/edited.json: the checkpoint's signature does not verify with a key trusted here, so it vouches for no key: $T/edited.json.minisig: signed by key $(keyid "$ALICE/aivet/keys/alice.pub"), not by the expected key $orgid" \
	"so is one alice re-signed with her own key"
jq 'del(.reviewer_keys, .reviewer_names)' "$T/cp.json" >"$T/old.json"
"$AIVET" key sign "$T/old.json" --key org >/dev/null
aud key trust --reviewer bob "$T/old.json"
is "$rc $errout" "2 aivet: $T/old.json: the checkpoint records no reviewer keys (it was written by an aivet before they were recorded); write a new one with 'aivet audit checkpoint'" \
	"a checkpoint that records no keys vouches for none"
aud key trust --reviewer bob "$T/cp0.json"
is "$rc $errout" "2 aivet: $T/cp0.json: the checkpoint (at entry $(jq .entries "$T/cp0.json")) records no key registered to bob (it records keys of: nobody)" \
	"one written before bob registered has no key of his"
aud key trust --reviewer carol "$T/cp.json"
is "$rc $errout" "2 aivet: $T/cp.json: the checkpoint (at entry $entries) records no key registered to carol (it records keys of: bob)" \
	"nor one of a person who registered none"
is "$(ls "$AUD/aivet/trusted/reviewers" 2>/dev/null | wc -l)" 0 "no reviewer key was trusted by any of these"

# The checkpoint as written: bob's key, trusted from it.
aud key trust --reviewer bob "$T/cp.json"
is "$rc $out" "0 key $bobid trusted as reviewer bob's: their approvals are checked with it
  public key  $bobkey
  file        $AUD/aivet/trusted/reviewers/bob.pub
  from        checkpoint $T/cp.json (registered in audit entry $reg of its $entries; checkpoint signed by key $orgid, trusted key '$orgid')
  names       self-declared: the database is SQLite, where anyone types any name; bob is only the holder of key $bobid" \
	"the auditor trusts bob's key from the checkpoint, told where it came from and what the name is worth"
is "$(sed -n 2p "$AUD/aivet/trusted/reviewers/bob.pub")" "$bobkey" "the key trusted is bob's own"
aud verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    signed: assessment 1 by bob (key id $bobid, name self-declared)" \
	"bob's approval now verifies"
like "$(cat "$T/b/VERIFY.txt")" "'aivet key trust --reviewer NAME CHECKPOINT'" "VERIFY.txt names the checkpoint way"

# Stock minisign: the checkpoint with the key that signed it, the approval with the key it records.
(cd "$T" && minisign -Vm cp.json -P "$(sed -n 2p "$ALICE/aivet/keys/org.pub")") >/dev/null 2>&1
is "$?" 0 "stock minisign verifies the checkpoint with the key the auditor trusts"
cmd=$(sed -n 's/^    \(minisign -Vm approvals\/.*\)   # assessment 1, bob, key id .*/\1/p' "$T/b/VERIFY.txt")
(cd "$T/b" && REVIEWER_KEY=$(jq -r '.reviewer_keys[] | select(.person == "bob") | .public_key' "$T/cp.json") &&
	eval "$cmd") >/dev/null 2>&1
is "$?" 0 "and VERIFY.txt's command for the approval, run with the key the checkpoint records for bob"
(cd "$T/b" && REVIEWER_KEY=$alicekey && eval "$cmd") >/dev/null 2>&1
is "$?" 1 "which fails with another key"
done_testing
