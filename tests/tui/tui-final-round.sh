#!/bin/sh
# tests/tui/tui-final-round.sh: at 80x24 the vendor screen sizes its endpoint
# columns to what they hold, so an endpoint name the row has room for is shown
# whole (the URL keeps its host and port; a name longer than the room is cut in
# the middle); a final round's assessment screen offers, on its hint line and
# its help, none of the actions that cannot apply to it (submit, approve,
# return, note, attach, import), and a key typed anyway is still refused.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
D="$TESTS_SRCDIR/data"

"$AIVET" vendor add acme >/dev/null
"$AIVET" endpoint add acme --name inference-gateway-eu-west-1 --api openai \
	--url http://127.0.0.1:8443/v1 --model m --context 8192 >/dev/null
"$AIVET" endpoint add acme --name an-endpoint-name-far-longer-than-the-row-has-room-for \
	--api openai --url http://127.0.0.1:8443/v1 --model m --context 8192 >/dev/null
"$AIVET" questionnaire import "$D/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start acme scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 24h >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null
approver_key bob
"$AIVET" --actor bob assess approve 1 >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM assessment WHERE id = 1")" final "round 1 is final"

tui_start 80x24
tui_wait "aivet | Dashboard"
tui_keys L
tui_wait "aivet | Vendors (1)"
tui_keys Enter
tui_wait "Vendor:      acme"
rows=$(tui_screen | sed 's/[[:space:]]*$//' | sed -n '/^  ENDPOINT/,/^$/p')
is "$rows" "  ENDPOINT                          API    CONTEXT STATUS TENANTS URL
> an-endpoint-name…row-has-room-for openai 8192    active 0       127.0.0.1:8443
  inference-gateway-eu-west-1       openai 8192    active 0       127.0.0.1:8443" \
	"80x24: a name the row has room for is whole; a longer one is cut in the middle; the URL keeps host and port"
tui_keys s
tui_wait "Assessments of acme"
tui_keys Enter
tui_wait "Assessment 1 (final)"
hints=$(tui_screen | sed -n 23p | sed 's/[[:space:]]*$//')
is "$hints" "Tab pane  Enter open  H history  / find  E sheet  ? help  q back" \
	"80x24: the final round's hint line"
unlike "$hints" "submit|approve|return|note|attach|import" "offers nothing a final round refuses"
tui_keys S
tui_wait "error: final and read-only: :assess reopen 1 starts a new round to change it"
ok $? "S typed anyway is refused, saying how to change it"
sleep 0.6
tui_keys ?
tui_wait "Keys on this screen (assessment):"
help=$(tui_screen)
unlike "$help" "submit for review|approve \(as reviewer\)|return a round|add a note|attach an evidence|read a filled-in sheet" \
	"the help lists none of them either"
like "$help" "show the history" "and still lists what applies"
tui_stop
done_testing
