#!/bin/sh
# tui-review.sh: a round is reviewed where the dashboard asks for it. Enter on
# a row of "Assessments waiting for review" opens the round itself, which
# names what the actor can do: V approves (and when the actor may not, the one
# who answered or submitted it, the refusal comes before any y/n question) and
# U returns it to draft. At 80x24 and 120x40, exactly: the assessment's header
# leads with its rating and score, and the footers keep each screen's primary
# keys (a rank per request in tui.h: the less used go first).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

Q='{"id":"review","version":1,"title":"Review","sections":[{"id":"s","title":"Isolation","questions":[
{"id":"isolation","text":"Are tenants isolated?","type":"yes_no","required":true,"choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"critical"}]}]}]}'
printf '%s\n' "$Q" > "$T/review.json"

# setup: a fresh database with two rounds in review, answered and submitted by tester.
setup() {
	db_fresh
	"$AIVET" questionnaire import "$T/review.json" >/dev/null &&
	for v in "Acme AI" "Beta AI"; do
		"$AIVET" vendor add "$v" >/dev/null &&
		"$AIVET" assess start "$v" review >/dev/null || return 1
	done
	for id in 1 2; do
		"$AIVET" assess answer $id isolation yes >/dev/null &&
		"$AIVET" assess submit $id >/dev/null || return 1
	done
}

# footer: the hint line, whatever row it is on.
footer() {
	tui_screen | grep -E '\? help  q back$' | sed 's/[[:space:]]*$//'
}
header() {
	case $1 in
	80x24) echo " acceptable (score 0.0)  in_review  1/1 answered  0 required open  Acme AI  rev" ;;
	*) echo " acceptable (score 0.0)  in_review  1/1 answered  0 required open  Acme AI  review@1  round 1" ;;
	esac
}
assess_footer() {
	case $1 in
	80x24) echo "Tab pane  Enter open  H history  V approve  U return  / find  ? help  q back" ;;
	*) echo "Tab pane  Enter open  H history  V approve  U return  / find  E sheet  ? help  q back" ;;
	esac
}
vendor_footer() {
	case $1 in
	80x24) echo "/ search  Enter open  a add  e edit  s assess  i incident  r run  ? help  q back" ;;
	*) echo "/ search  Enter open  a add  e edit  A archive  s assess  i incident  E export  r run  y verify  ? help  q back" ;;
	esac
}

# to_review: from the dashboard, the selection on the first review row.
to_review() {
	tui_wait "Assessments waiting for review" || return 1
	i=0
	while [ $i -lt 30 ] && ! tui_screen | grep -q '^> ?  #1 '; do
		tui_keys j; sleep 0.1; i=$((i + 1))
	done
	tui_screen | grep -q '^> ?  #1 '
}

for size in 80x24 120x40; do
	setup; ok $? "$size: two rounds in review"
	# The author: told on opening, and refused before any question.
	tui_start "$size"
	to_review; ok $? "$size: the review queue on the dashboard"
	tui_keys Enter
	tui_wait "Assessment 1 (in_review)"; ok $? "$size: Enter on a round in review opens the round, not a text"
	tui_wait "V is refused: tester cannot approve"
	like "$(tui_screen | tr '\n' ' ')" "in review: U returns it to draft; V is refused: tester cannot approve assessment 1: tester answered and submitted it" \
		"$size: the author is told at once that they may not approve, and why"
	# At every size the rating and score lead the header, and the footer keeps the
	# screen's primary keys (S, V, H, /): the less used go first.
	is "$(tui_screen | sed -n 2p | sed 's/[[:space:]]*$//')" "$(header "$size")" "$size: the header, exactly"
	is "$(footer)" "$(assess_footer "$size")" "$size: the assessment's footer, exactly"
	sleep 0.6
	tui_keys V
	tui_wait "error: tester cannot approve assessment 1"; ok $? "$size: V is refused"
	unlike "$(tui_screen)" "Approve assessment 1" "$size: before any y/n question"
	# The vendor screen keeps r run.
	sleep 0.6
	tui_keys q; tui_wait "Dashboard"; tui_keys L; tui_wait "Vendors"; tui_keys Enter
	tui_wait "Vendor:      Acme AI"
	is "$(footer)" "$(vendor_footer "$size")" "$size: the vendor's footer keeps r run, exactly"
	tui_stop

	# A second person: approves from the queue; returns the other round to draft.
	approver_key rita
	TUI_ENV="$(actor_env rita)" tui_start "$size"
	to_review
	tui_keys Enter
	tui_wait "in review: V approves it as rita, U returns it to draft"; ok $? "$size: rita is told what she can do"
	tui_keys V
	tui_wait "Approve assessment 1 as rita? It becomes final."; ok $? "$size: V asks rita"
	tui_keys y
	tui_wait "assessment 1 approved by rita (final)"; ok $? "$size: approved from the review queue"
	tui_keys q
	tui_wait "Dashboard"
	tui_keys R
	tui_wait "?  #2 "
	i=0
	while [ $i -lt 30 ] && ! tui_screen | grep -q '^> ?  #2 '; do tui_keys j; sleep 0.1; i=$((i + 1)); done
	tui_keys Enter
	tui_wait "Assessment 2 (in_review)"; ok $? "$size: the other round opens"
	tui_keys U
	tui_wait "Return assessment 2 to draft? Its answers unlock for changes."; ok $? "$size: U asks first"
	tui_keys y
	tui_wait "assessment 2 returned to draft by rita"; ok $? "$size: U returns the round to draft"
	run assess list --json
	is "$(printf '%s' "$out" | jq -r '[.[] | "\(.id):\(.status)"] | join(" ")')" "1:final 2:draft" \
		"$size: one final, one back in draft"
	run assess show 1 --json
	is "$(printf '%s' "$out" | jq -r .reviewer)" rita "$size: rita is the reviewer"
	tui_keys q
	tui_wait "Dashboard"
	tui_keys R
	sleep 0.5
	unlike "$(tui_screen)" "#[12] .*round 1 +since" "$size: the queue is empty"
	run audit verify
	is "$rc" 0 "$size: the audit chain is intact"
	tui_stop
done
done_testing
