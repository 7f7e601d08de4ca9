#!/bin/sh
# tui-journey.sh: a reviewer's whole day in the terminal UI, keyboard only,
# from an empty database, at 80x24 and at 200x50: add a vendor and an
# endpoint, start an assessment and answer every required question, attach
# evidence through the file picker, submit, approve; each step checked
# against the database through the CLI's --json output.
. "$TESTS_SRCDIR/lib.sh"
. "$TESTS_SRCDIR/tui-lib.sh"

Q="$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json"
mkdir -p "$T/work/evidence"
printf 'Isolation attestation, 2026-10-01\n' > "$T/work/evidence/attestation.pdf"
cd "$T/work" || exit 1

# The current question's id, read from the screen's detail pane.
current_question() {
	tui_screen | sed -n 's/^ \([a-z_][a-z0-9_]*\) (\(required\|optional\)): .*/\1/p' | head -1
}

# answer_current: answers the question on screen by its type — the first
# choice from the menu, a typed duration, the first item of a multi choice.
answer_current() {
	qid=$(current_question)
	type=$(jq -r --arg q "$qid" '.sections[].questions[] | select(.id == $q) | .type' "$Q")
	case "$type" in
	duration)
		tui_keys Enter; tui_type 24h; tui_keys Enter ;;
	multi_choice)
		tui_keys Enter; sleep 0.2; tui_keys Space Enter ;;
	number)
		tui_keys Enter; tui_type 131072; tui_keys Enter ;;
	text)
		tui_keys Enter; tui_type "see contract"; tui_keys Enter ;;
	*)
		tui_keys Enter; sleep 0.2; tui_keys Enter ;;
	esac
	tui_wait "question $qid: " 5 >/dev/null
}

journey() {
	size=$1
	rm -f "$AIVET_DB" "$AIVET_DB-wal" "$AIVET_DB-shm"
	tui_start "$size"
	tui_wait "No vendors yet. Press a to add the first one."; ok $? "$size: empty database"

	# A vendor and an endpoint with two tenants' credential references.
	tui_keys a; tui_wait "Add vendor"
	tui_type "Acme AI"; tui_keys Tab BSpace; tui_type 4; tui_keys Enter
	tui_wait "vendor Acme AI added (id 1)"; ok $? "$size: vendor added"
	tui_keys Enter; tui_wait "Vendor:      Acme AI"
	tui_keys a; tui_wait "Add endpoint"
	tui_type prod; tui_keys Tab Tab; tui_type "http://127.0.0.1:9/v1"; tui_keys Tab
	tui_type sim-1; tui_keys Tab; tui_type 65536; tui_keys Tab
	tui_type "alice=env:KEY_A bob=env:KEY_B"; tui_keys Enter
	tui_wait "endpoint Acme AI/prod added (id 1, 2 credentials)"; ok $? "$size: endpoint added"
	run endpoint show "Acme AI/prod" --json
	is "$(printf '%s' "$out" | json '[.context_tokens, ([.credentials[].label] | join(","))] | @csv')" \
		'65536,"alice,bob"' "$size: the CLI sees the endpoint"

	# An assessment, every required question answered.
	tui_keys s; tui_wait "Press a to start one."
	tui_keys a; tui_wait "Start an assessment against"
	tui_keys Down Enter; tui_wait "assessment 1 started"
	tui_keys Enter; tui_wait "Assessment 1 (draft)"; ok $? "$size: assessment open"
	tui_keys Tab
	answer_current
	i=0
	while [ $i -lt 25 ]; do
		run assess show 1 --json
		[ "$(printf '%s' "$out" | json '.score.unanswered_required')" = 0 ] && break
		tui_keys n; sleep 0.2
		answer_current
		i=$((i + 1))
	done
	run assess show 1 --json
	is "$(printf '%s' "$out" | json '.score.unanswered_required')" 0 "$size: every required question answered"
	is "$(printf '%s' "$out" | json '.questions[] | select(.id == "exposure_notification_time") | .value')" 24h \
		"$size: the typed duration is stored"

	# Evidence through the file picker, on the current answer.
	qid=$(current_question)
	tui_keys f; tui_wait "Attach evidence to this answer: $T/work"
	tui_keys Down Enter; tui_wait "attestation.pdf"
	tui_keys Down Enter; tui_wait "question $qid: "
	run assess show 1 --json
	is "$(printf '%s' "$out" | json --arg q "$qid" '.questions[] | select(.evidence | length > 0) | .evidence[0].original_name' 2>/dev/null || printf '%s' "$out" | jq -r '.questions[] | select(.evidence | length > 0) | .evidence[0].original_name')" \
		attestation.pdf "$size: the picked file is attached"

	# Submit, then approve as a reviewer who is not the only author.
	tui_keys S; tui_wait "Submit assessment 1 for review?"
	tui_keys y; tui_wait "assessment 1 submitted for review"; ok $? "$size: submitted"
	tui_keys V; tui_type rita; tui_keys Enter
	tui_wait "approved"; ok $? "$size: approved"
	run assess show 1 --json
	is "$(printf '%s' "$out" | json '"\(.status) \(.reviewer)"')" "final rita" "$size: final, reviewed by rita"

	tui_keys q q q q q
	tui_wait "[exit 0]"; ok $? "$size: q all the way out"
	tui_stop
}

journey 80x24
journey 200x50
done_testing
