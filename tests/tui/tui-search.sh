#!/bin/sh
# tui-search.sh: / searches on every screen and n/N step through the matches;
# text typed after / never runs as commands; a final assessment refuses edits
# before any dialog opens, saying in full what to do instead; a note goes on
# an unanswered question (TUI and CLI alike); the pager wraps long lines.
# At 80x24 and 120x40.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

Q="$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json"

# Assessment 1: every required question answered, submitted and approved (final).
# Assessment 2: a draft of the same vendor.
run vendor add Acme
run vendor add "Beta Health"
run vendor add "Beta Two"
run assess start Acme llm-inference-isolation
for round in 1 2 3 4 5 6; do
	run assess show 1 --json
	open=$(printf '%s' "$out" | jq -r '.questions[] | select(.asked and .required and .value == null) | .id')
	[ -z "$open" ] && break
	for qid in $open; do
		type=$(jq -r --arg q "$qid" '.sections[].questions[] | select(.id == $q) | .type' "$Q")
		first=$(jq -r --arg q "$qid" '.sections[].questions[] | select(.id == $q) | (.choices // [])[0].value // ""' "$Q")
		case "$type" in
		duration) v=24h ;; number) v=131072 ;; text) v="see contract" ;; *) v=$first ;;
		esac
		run assess answer 1 "$qid" "$v"
	done
done
run assess submit 1
approver_key rita
run --actor rita assess approve 1
run assess show 1 --json
is "$(printf '%s' "$out" | json '.status')" final "assessment 1 is final"
# One round at a time: the next round of a final one is its reopening, from its
# answers; cleared here, so that round 2 starts from none.
run assess reopen 1
is "$rc" 0 "assessment 2 is a draft"
for qid in $("$AIVET" assess show 2 --json | jq -r '.questions[] | select(.value != null) | .id'); do
	"$AIVET" assess answer 2 "$qid" --clear >/dev/null
done

# ---- the CLI: a note alone on an unanswered question ----
run assess answer 2 kv_pages_exposed --note "asked the vendor, awaiting reply"
is "$rc:$out" "0:question kv_pages_exposed: note recorded; the question is still unanswered" \
	"assess answer --note on an unanswered question records the note"
run assess show 2 --json
is "$(printf '%s' "$out" | json '.questions[] | select(.id == "kv_pages_exposed") | [.value, .note, .actor] | @json')" \
	'[null,"asked the vendor, awaiting reply","tester"]' "the question stays unanswered, with its note"
is "$(printf '%s' "$out" | json '.score.answered')" 0 "and counts as unanswered"
run assess history 2 kv_pages_exposed
like "$out" "tester +\(unanswered\) +asked the vendor, awaiting reply" "the history shows the note on no answer"
run assess answer 2 kv_pages_exposed no
run assess show 2 --json
is "$(printf '%s' "$out" | json '.questions[] | select(.id == "kv_pages_exposed") | [.value, .note] | @json')" \
	'["no","asked the vendor, awaiting reply"]' "an answer given later keeps the note"
run assess answer 2 cache_isolation_tested --evidence "$TESTS_SRCDIR/tui/tui-search.sh"
is "$rc:$errout" "2:aivet: question cache_isolation_tested has no answer yet: give a VALUE with --evidence (a --note alone may go on an unanswered question)
usage: aivet assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] [--evidence FILE]... [--effective DATE] [--clear]" \
	"evidence still needs an answer, and says the note does not"

screens() {
	size=$1
	tui_start "$size"
	tui_wait "Dashboard"

	# A list: / filters, n and N step through the matches, round the end.
	tui_keys L; tui_wait "Vendors"
	tui_keys /; tui_type Beta; tui_keys Enter
	tui_wait "filter: Beta (2 of 3 rows; n/N next/previous match"; ok $? "$size: / filters the vendors"
	tui_keys n
	tui_wait "'Beta': match 2 of 2"; ok $? "$size: n goes to the next match"
	like "$(tui_screen)" "^> [?! ]+Beta Two" "$size: on Beta Two"
	tui_keys n
	tui_wait "'Beta': match 1 of 2"; ok $? "$size: and round to the first"
	tui_keys N
	tui_wait "'Beta': match 2 of 2"; ok $? "$size: N goes back"
	# / opens empty; Up offers the search in force; Esc keeps it.
	tui_keys /; tui_wait_re '^/ *$' 5 >/dev/null
	is "$(tui_screen | tail -1 | sed 's/ *$//')" "/" "$size: the / prompt opens empty"
	tui_keys Up; tui_wait_re '^/ Beta *$' 5 >/dev/null
	is "$(tui_screen | tail -1 | sed 's/ *$//')" "/ Beta" "$size: Up offers the previous search"
	tui_keys Escape; sleep 0.3
	like "$(tui_screen)" "^> [?! ]+Beta Two" "$size: Esc keeps the filter and the selection"
	tui_keys / C-u Enter; tui_wait "filter cleared"
	tui_keys n
	tui_wait "n and N step through the matches of a / search; nothing is searched"; \
		ok $? "$size: n without a search says what it is for"

	# The final assessment: / searches its questions; typed text is not run as commands.
	tui_keys g Enter; tui_wait "Vendor:      Acme"
	tui_keys s; tui_wait "Assessments of Acme"
	tui_keys G Enter; tui_wait "Assessment 1 (final)"; ok $? "$size: the final assessment opens"
	tui_keys /; tui_type "pages"; tui_keys Enter
	tui_wait "/pages: match 1 of 1; >/< next/previous, / Enter on empty text ends it"; \
		ok $? "$size: / searches the assessment's questions"
	tui_wait "QUESTIONS  /pages: 1 of 1, >/< next/previous"; ok $? "$size: the search heads the questions"
	tui_wait " kv_pages_exposed (required): Can a request ever read KV cache pages"; \
		ok $? "$size: the matching question is selected"
	unlike "$(tui_screen)" "not on this screen|Yes: |No: pages" "$size: no letter of the search ran as a command"
	tui_keys /; tui_keys C-u; tui_type "tenant"; tui_keys Enter
	tui_wait_re "/tenant: match 1 of [2-9]"; ok $? "$size: a search matching several questions"
	n=$(tui_screen | sed -n 's|.*/tenant: match 1 of \([0-9]*\);.*|\1|p')
	tui_keys '>'
	tui_wait "/tenant: match 2 of $n"; ok $? "$size: > steps to the next match"
	tui_keys '<' '<'
	tui_wait "/tenant: match $n of $n"; ok $? "$size: < steps back, round the start"
	# Each key has one meaning here, and one line in the help; a final round has no
	# question to answer nor note to add, so n and N are not offered.
	tui_keys '?'; tui_wait "Keys on this screen (assessment)"
	help=$(tui_screen)
	is "$(printf '%s\n' "$help" | grep -cE '^ +n ')" 0 "$size: ? on a final round lists no n (next unanswered)"
	is "$(printf '%s\n' "$help" | grep -cE '^ +N ')" 0 "$size: nor N (note)"
	like "$help" "^ +> +go to the next match" "$size: > is the next match"
	like "$help" "^ +< +go to the previous match" "$size: < is the previous match"
	tui_keys q; tui_wait "QUESTIONS  /tenant"
	tui_keys /; tui_keys C-u Enter
	tui_wait "search ended"; ok $? "$size: empty text ends it"
	tui_keys '>'
	tui_wait "> and < step through the matches of a / search; nothing is searched"; \
		ok $? "$size: > without a search says what it is for"

	# Final: no key opens an edit dialog; each says why not and how, in full.
	for key in Enter N f S V; do
		sleep 0.6   # keys typed straight after a refusal are dropped
		tui_keys Escape
		tui_keys "$key"
		tui_wait "error: final and read-only: :assess reopen 1 starts a new round to change it" 3
		ok $? "$size: $key on a final assessment says it is final and how to change it"
		unlike "$(tui_screen)" "┌|Reviewer|Submit assessment" "$size: $key opened no dialog"
	done
	is "$(tui_screen | tail -1)" "error: final and read-only: :assess reopen 1 starts a new round to change it" \
		"$size: the whole message fits the status line"

	# The draft: a note on an unanswered question is accepted and shown.
	tui_keys q; tui_wait "Assessments of Acme"
	tui_keys g Enter; tui_wait "Assessment 2 (draft)"
	tui_keys /; tui_type "cache_isolation_tested"; tui_keys Enter
	tui_wait "/cache_isolation_tested: match 1 of 1"
	tui_keys N; tui_wait "Note on cache_isolation_tested"; ok $? "$size: N opens the note dialog, search or not"
	tui_keys C-u; tui_type "vendor to confirm by Friday $size"; tui_keys Enter
	tui_wait "question cache_isolation_tested: note recorded; the question is still unanswered"; \
		ok $? "$size: a note on an unanswered question is recorded"
	tui_wait " Note: vendor to confirm by Friday $size"; ok $? "$size: and shown under the question"
	run assess show 2 --json
	is "$(printf '%s' "$out" | json '.questions[] | select(.id == "cache_isolation_tested") | [.value, .note] | @json')" \
		"[null,\"vendor to confirm by Friday $size\"]" "$size: the CLI sees the note, the question unanswered"

	# History in the pager: long lines wrap rather than being cut at the edge.
	tui_keys H; tui_wait "History of cache_isolation_tested"
	like "$(tui_screen)" "tester +\(unanswered\) +vendor" "$size: the history shows the note"
	tui_keys q
	tui_keys Q; tui_wait "[exit 0]"
	tui_stop
}

screens 80x24
screens 120x40

# The dashboard and an incident: / filters, n and N step; on the incident N is the
# timeline note again once the search is ended.
run incident open Acme --title "Other tenants' text in responses" --discovered 2026-11-28T14:00:00Z --eu-data no
tui_start 120x40 tui
tui_wait "Dashboard"
tui_keys /; tui_type Beta; tui_keys Enter
tui_wait "filter: Beta (2 of"; ok $? "the dashboard filters"
tui_keys n
tui_wait "'Beta': match 2 of 2"; ok $? "n steps on the dashboard"
tui_keys / C-u Enter
tui_keys i; tui_wait "Incidents"
tui_keys Enter; tui_wait "Incident 1 (new)"
tui_keys /; tui_type "running"; tui_keys Enter
tui_wait_re "filter: running \(([3-9]) of"; ok $? "the incident's lines filter"
n=$(tui_screen | sed -n 's/.*filter: running (\([0-9]*\) of.*/\1/p')
tui_keys N
tui_wait "'running': match $n of $n"; ok $? "N goes to the previous match while a search is set"
unlike "$(tui_screen)" "Add timeline entry" "and opens no note dialog"
tui_keys / C-u Enter; tui_wait "filter cleared"
tui_keys N
tui_wait "Kind of timeline entry"; ok $? "once the search is ended N adds a timeline entry again"
tui_keys Escape
tui_stop

# The pager wraps: a note longer than the screen is shown whole.
long="the vendor's security lead will confirm in writing that KV cache pages are zeroed before reuse across tenants, per the call of 2026-11-20"
run assess answer 2 cache_isolation_tested --note "$long"
tui_start 80x24 tui
tui_wait "Dashboard"
tui_keys :; tui_type "assess history 2 cache_isolation_tested"; tui_keys Enter
tui_wait ":assess history 2 cache_isolation_tested"
tui_wait "per the call of 2026-11-20"; ok $? "the pager wraps a long line: its end is on screen"
like "$(tui_screen)" "^    [a-z0-9 ,'-]*per the call of 2026-11-20$" "on a line of its own, indented under it"
tui_stop

done_testing
