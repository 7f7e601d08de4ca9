#!/bin/sh
# tests/cli/readme-screens.sh: the screens README.md shows (captured by
# docs/capture-screens) tell one story: the vendor's rating on the dashboard
# is the rating its vendor screen shows, and the assessment screen's rating
# is the one assess show gives the same round, as the prose says; the vendor
# screen lists the round in work; the incident's vendor notice time, never
# answered, keeps its clock running on the dashboard and the incident screen.
. "$TESTS_SRCDIR/lib/lib.sh"

R="$TESTS_SRCDIR/../README.md"
dash=$(sed -n '/^dashboard:$/,/^vendor:$/p' "$R" | grep -F 'Acme AI' | head -1 |
	sed 's/^.*Acme AI  *\([a-z-]*\).*/\1/')
vend=$(sed -n '/^vendor:$/,/^assessment:$/p' "$R" | sed -n 's/^.*Rating: \([a-z-]*\).*/\1/p' | head -1)
ok "$([ -n "$dash" ] && echo 0 || echo 1)" "README: the dashboard capture rates Acme AI ($dash)"
is "$vend" "$dash" "README: the vendor screen's capture gives Acme AI the dashboard's rating"
# The assessment's header leads with the rating and score, so 80 columns never cut them.
asse=$(sed -n '/^assessment:$/,/^probe-run:$/p' "$R" | grep -F '  draft  ' | grep -F 'Acme AI' | head -1 |
	sed 's/^ \([a-z-]*\) (score \([0-9.]*\))  draft  .*/\1 \2/')
like "$asse" '^(acceptable|incomplete|concerns|unacceptable) [0-9]+\.[0-9]$' \
	"README: the assessment capture shows the round's rating and score ($asse)"
# A draft is shown beside the vendor's rating: the dashboard's row names it.
like "$(sed -n '/^dashboard:$/,/^vendor:$/p' "$R" | grep -F 'Acme AI' | head -1)" "Acme AI +$dash " \
	"README: the dashboard rates by the word the vendor screen uses, never the draft's alone"
# Every round in work is on the vendor screen: the draft the dashboard names is listed there.
like "$(sed -n '/^vendor:$/,/^assessment:$/p' "$R" | grep -F 'In work:')" \
	"^  In work: +assessment 1: .* round 1, draft, [0-9]+ of [0-9]+ answered$" \
	"README: the vendor screen lists the round in work, with its answered count"
# Unknown is not no: the incident's vendor-sla clock, never answered, runs on both screens.
like "$(sed -n '/^dashboard:$/,/^vendor:$/p' "$R" | grep -F '== Open incidents ==' -A1 | tail -1)" \
	"vendor-sla OVERDUE by " "README: the dashboard's incident line names the vendor-sla clock overdue"
like "$(sed -n '/^incident:$/,$p' "$R" | grep -F '    vendor-sla ')" "^    vendor-sla +OVERDUE +due " \
	"README: and the incident screen shows it overdue, not n/a"
# The keys as the README gives them are the keys the help lists (tests/tui/tui-search.sh):
# on the assessment screen n is the next unanswered question, N the note, > and < the matches.
like "$(tr '\n' ' ' < "$R" | sed 's/  */ /g')" \
	'on the assessment screen, where `n` is the next unanswered question and `N` the note, `>`/`<` do\.' \
	"README: n and N on the assessment screen, as the help says"
done_testing
