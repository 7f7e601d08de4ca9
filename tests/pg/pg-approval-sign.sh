#!/bin/sh
# pg-approval-sign.sh: on PostgreSQL the login decides who approves, and an
# approval is signed when the approver has a key registered: bob, a reviewer
# without a key, approves unsigned; once he registers his key (the entry is
# his login's, whatever --actor says) his next approval is signed with it,
# stock minisign verifies it in the bundle, and he cannot approve unsigned
# any more. Alice cannot register a key as bob. The statement says names are
# database logins; aivet verify checks it with the key its user trusts as
# bob's, and names the round approved unsigned. The owner's report key is
# refused as a person's key.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice bob; do pg_login "$l"; done
pg_createdb team owner
as() { _l=$1; shift; run --db "$(pg_url team "$_l")" "$@"; }
round() {
	# One round at a time: the first is started, each later one reopens the last.
	if [ "$1" = 1 ]; then as alice assess start V scoring-test; else as alice assess reopen $(($1 - 1)); fi
	as alice assess answer "$1" gate no
	as alice assess answer "$1" notify 5d
	as alice assess submit "$1"
}

as owner vendor add V
as owner db grant alice assessor
as owner db grant bob reviewer
as owner questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json"
round 1
as bob assess approve 1
is "$rc $out" "0 assessment 1 approved by bob (final)" "bob, with no key registered, approves unsigned: the login decides"

"$AIVET" key generate --no-password --name alice >/dev/null
as alice --actor bob key register alice
is "$rc $out" "0 key alice (key id $(sed -n 's/^untrusted comment: minisign public key //p' "$XDG_CONFIG_HOME/aivet/keys/alice.pub")) registered to alice: their approvals are signed with it" \
	"alice registering 'as bob' registers her own key: the actor is the login"
XDG_CONFIG_HOME="$T/bob" "$AIVET" key generate --no-password --name bob >/dev/null
bobpk=$(sed -n 2p "$T/bob/aivet/keys/bob.pub")
XDG_CONFIG_HOME="$T/bob" as bob key register bob
is "$rc" 0 "bob registers his key"
is "$(pg_sql -d team "SELECT string_agg(actor || ' ' || (details::json->>'person'), ',' ORDER BY seq) FROM audit_log WHERE action = 'key.register'")" \
	"alice alice,bob bob" "both registrations audited under their logins"

round 2
as bob assess approve 2
like "$rc $errout" "^2 aivet: an approval is signed with the approver's own key: bob's is key [0-9A-F]+, and no key here is it" \
	"with a key registered, bob approves only where it is"
XDG_CONFIG_HOME="$T/bob" as bob assess approve 2
is "$rc $out" "0 assessment 2 approved by bob (final), signed with their key" "bob approves, signed"
XDG_CONFIG_HOME="$T/bob" as bob report V --out "$T/b" --key bob --assessment 2
is "$rc" 0 "the report is written$errout"
minisign -Vm "$T/b/approvals/assessment-2.txt" -P "$bobpk" >/dev/null 2>&1
is "$?" 0 "stock minisign verifies bob's approval in the bundle"
is "$(jq -r '[.assessments[] | select(.approval_signature) | .id] | join(",")' "$T/b/report.json")" 2 \
	"round 2 carries a signature, round 1 (approved before his key) none"
is "$(sed -n 8p "$T/b/approvals/assessment-2.txt")" "names: database logins" "the statement says the name is a login"
XDG_CONFIG_HOME="$T/bob" run verify "$T/b"
bobid=$(sed -n 's/^untrusted comment: minisign public key //p' "$T/bob/aivet/keys/bob.pub")
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: approved, signature missing; assessment 2 by bob: signed by a key this verifier does not trust (key id $bobid)" \
	"aivet verify passes the bundle; round 1 (in it as history) approved unsigned, round 2 not verified without a reviewer key trusted"
XDG_CONFIG_HOME="$T/bob" "$AIVET" key trust --reviewer bob "$T/bob/aivet/keys/bob.pub" >/dev/null
XDG_CONFIG_HOME="$T/bob" run verify "$T/b"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    signed: assessment 2 by bob (key id $bobid)
  approvals    not verified: assessment 1 by bob: approved, signature missing" \
	"with bob's key trusted as his, the approval is verified, its name a login"
XDG_CONFIG_HOME="$T/bob" as bob report V --out "$T/b1" --key bob --assessment 1
XDG_CONFIG_HOME="$T/bob" run verify "$T/b1"
is "$rc $(printf '%s\n' "$out" | grep '^  approvals')" "0   approvals    not verified: assessment 1 by bob: approved, signature missing" \
	"round 1, approved unsigned, is named so"
like "$(cat "$T/b1/VERIFY.txt")" "# assessment 1: approved by bob, signature missing: nothing here" "and VERIFY.txt says so"

"$AIVET" key generate --no-password --name org >/dev/null
as owner report V --out "$T/b2" --key org
as owner key register org
is "$rc $errout" "2 aivet: key $(sed -n 's/^untrusted comment: minisign public key //p' "$XDG_CONFIG_HOME/aivet/keys/org.pub") signs report bundles (1 here): a report signing key is the organisation's, not a person's, and is not registered to anyone" \
	"the owner's report key is refused as the owner's own"
done_testing
