#!/bin/sh
# tui-journey.sh: a reviewer's whole day in the terminal UI, keyboard only,
# from an empty database, at 80x24 and at 200x50: add a vendor and an
# endpoint, start an assessment and answer every required question, attach
# evidence through the file picker, submit, approve; each step checked
# against the database through the CLI's --json output.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

# The vendor: the incident's fault, two tenants, a price so the plan shows a cost.
sim_start --context 8192 --pool 5324 --fault disagg-placeholder \
	--tenants alice=sk-journey-alice-0123456789,bob=sk-journey-bob-9876543210 || exit 1
printf 'correct horse battery staple\n' > "$T/passphrase"
TUI_ENV="KEY_A=sk-journey-alice-0123456789 KEY_B=sk-journey-bob-9876543210 AIVET_KEY_PASSWORD_FILE=$T/passphrase"

Q="$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json"
mkdir -p "$T/files/evidence"
printf 'Isolation attestation, 2026-10-01\n' > "$T/files/evidence/attestation.pdf"
cd "$T/files" || exit 1

# The current question's id, read from the screen's detail pane.
current_question() {
	tui_screen | sed -n 's/^ \([a-z_][a-z0-9_]*\)\( (required)\)\{0,1\}: .*/\1/p' | head -1
}

# answer_current: answers the question on screen by its type — the first
# choice from the menu, a typed duration, the first item of a multi choice.
answer_current() {
	qid=$(current_question)
	type=$(jq -r --arg q "$qid" '.sections[].questions[] | select(.id == $q) | .type' "$Q")
	tui_keys Enter
	tui_wait "┌" 5 >/dev/null   # the menu or field opens (a box, which the pages have not)
	case "$type" in
	duration) tui_type 24h; tui_keys Enter ;;
	multi_choice) tui_keys Space Enter ;;
	number) tui_type 131072; tui_keys Enter ;;
	text) tui_type "see contract"; tui_keys Enter ;;
	*) tui_keys Enter ;;
	esac
	tui_wait "question $qid: " 5 >/dev/null
}

journey() {
	size=$1
	db_fresh
	# rita runs the probes on the keys the tester set: her configuration allows them.
	mkdir -p "$XDG_CONFIG_HOME/aivet"
	printf 'env:KEY_A tester\nenv:KEY_B tester\n' >"$XDG_CONFIG_HOME/aivet/credentials-allowed"
	chmod 600 "$XDG_CONFIG_HOME/aivet/credentials-allowed"
	tui_start "$size"
	tui_wait "No vendors yet. Press a to add the first one."; ok $? "$size: empty database"

	# A vendor and an endpoint with two tenants' credential references.
	tui_keys a; tui_wait "Add vendor"
	tui_type "Acme AI"; tui_keys Tab BSpace; tui_type 4; tui_keys Enter
	tui_wait "vendor Acme AI added (id 1)"; ok $? "$size: vendor added"
	tui_keys Enter; tui_wait "Vendor:      Acme AI"
	tui_keys a; tui_wait "Add endpoint"
	tui_type prod; tui_keys Tab Tab; tui_type "$SIM_URL/v1"; tui_keys Tab
	tui_type sim-1; tui_keys Tab; tui_type 8192; tui_keys Tab
	tui_type "alice=env:KEY_A bob=env:KEY_B"; tui_keys Enter
	tui_wait "endpoint Acme AI/prod added (id 1, 2 credentials)"; ok $? "$size: endpoint added"
	run endpoint show "Acme AI/prod" --json
	is "$(printf '%s' "$out" | json '[.context_tokens, ([.credentials[].label] | join(","))] | @csv')" \
		'8192,"alice,bob"' "$size: the CLI sees the endpoint"

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
		# n: the next question, once its id is on screen.
		prev=$(current_question)
		tui_keys n
		j=0
		while [ "$(current_question)" = "$prev" ] && [ $j -lt 30 ]; do sleep 0.1; j=$((j + 1)); done
		answer_current
		i=$((i + 1))
	done
	run assess show 1 --json
	is "$(printf '%s' "$out" | json '.score.unanswered_required')" 0 "$size: every required question answered"
	is "$(printf '%s' "$out" | json '.questions[] | select(.id == "exposure_notification_time") | .value')" 24h \
		"$size: the typed duration is stored"

	# Evidence through the file picker, on the current answer.
	sleep 0.3
	qid=$(current_question)
	tui_keys f; tui_wait "Attach evidence to this answer: $T/files"
	tui_keys Down Enter; tui_wait "attestation.pdf"
	tui_keys Down Enter; tui_wait "question $qid: "
	# The answer's own status line says the same words: wait for the file itself.
	i=0
	while [ $i -lt 50 ]; do
		run assess show 1 --json
		[ "$(printf '%s' "$out" | jq '[.questions[].evidence | length] | add')" != 0 ] && break
		sleep 0.1; i=$((i + 1))
	done
	is "$(printf '%s' "$out" | jq -r '[.questions[] | select(.evidence | length > 0) | "\(.id)=\(.evidence[0].original_name)"] | join(" ")')" \
		"$qid=attestation.pdf" "$size: the picked file is attached to the answer on screen"

	# Submit; the one who answered cannot approve; rita, running aivet as herself, does.
	tui_keys S; tui_wait "Submit assessment 1 for review?"
	tui_keys y; tui_wait "assessment 1 submitted for review"; ok $? "$size: submitted"
	tui_keys V; tui_wait "tester cannot approve assessment 1: tester answered and submitted it"
	ok $? "$size: the author's own approval is refused"
	unlike "$(tui_screen)" "Approve assessment 1 as tester\?" "$size: before any question is put"
	tui_stop
	approver_key rita
	TUI_ENV="$TUI_ENV $(actor_env rita)" tui_start "$size"
	tui_wait "Acme AI"; tui_keys Enter; tui_wait "Vendor:      Acme AI"
	tui_keys s; tui_wait "in_review"; tui_keys Enter; tui_wait "Assessment 1 (in_review)"
	tui_keys V; tui_wait "Approve assessment 1 as rita?"; ok $? "$size: as rita, V names rita"
	tui_keys y; tui_wait "assessment 1 approved by rita (final)"; ok $? "$size: approved"
	run assess show 1 --json
	is "$(printf '%s' "$out" | json '"\(.status) \(.reviewer)"')" "final rita" "$size: final, reviewed by rita"
	# A final assessment opens no edit dialog: Enter on a question says why not and how, in full.
	tui_keys Tab Enter
	tui_wait "error: final and read-only: :assess reopen 1 starts a new round to change it"
	ok $? "$size: Enter on a final assessment's question says it is final and how to change it"
	unlike "$(tui_screen)" "┌" "$size: and opens no dialog"
	sleep 0.6   # keys typed straight after a refusal are dropped

	# Probes from the endpoint, with the plan shown before anything is sent.
	tui_keys q q
	tui_wait "Vendor:      Acme AI"; ok $? "$size: back on the vendor"
	tui_keys r
	tui_wait "Probe runs of Acme AI/prod (0)"; ok $? "$size: r opens the endpoint's runs"
	tui_wait "Next run: --depth verify, no budget"; ok $? "$size: the next run's depth and budget"
	# diagnose: the canary looks further, for the evidence below.
	tui_keys p; tui_wait "Budget in USD"; tui_type diagnose; tui_keys Enter
	tui_wait "Next run: --depth diagnose, no budget"; ok $? "$size: p sets the depth"
	tui_keys r
	tui_wait "Send up to"; ok $? "$size: the plan is shown before sending"
	like "$(tui_screen | tr -d '\n')" "Send up to [0-9,]+ requests and [0-9,]+ input tokens to Acme AI/prod at depth ?diagnose" "$size: requests and tokens"
	tui_keys y
	tui_wait "run 1 finished: " 90; ok $? "$size: the run finishes without freezing the screen"
	run probe show 1 --json
	is "$(printf '%s' "$out" | jq -r '[.probes[].findings[].code] | unique | join(" ")' | grep -o 'LEAK_CROSS_TENANT')" \
		LEAK_CROSS_TENANT "$size: the leak is found"

	# Findings and their evidence.
	tui_keys Enter
	tui_wait "Run 1 on Acme AI/prod: completed"; ok $? "$size: the run opens"
	tui_keys /; tui_type LEAK_CROSS_TENANT; tui_keys Enter
	tui_wait "critical finding: i opens an incident from it"; ok $? "$size: a critical finding offers an incident"
	if [ "${size%%x*}" -lt 200 ]; then
		# The list cuts the finding at the edge: above it, the row stands whole, wrapped.
		run probe show 1 --json
		want=$(printf '%s' "$out" | jq -r '.probes[].findings[] | select(.code == "LEAK_CROSS_TENANT") | "critical \(.code): \(.message)"')
		# From its first line (under the run's summary, which may wrap) to the list's row.
		got=$(tui_screen | awk '/^  !! critical/ { exit } /^ +critical LEAK_CROSS_TENANT: / { on = 1 } on { sub(/^ +/, ""); sub(/ +$/, ""); printf "%s%s", sep, $0; sep = " " }')
		is "$got" "$want" "$size: the selected finding whole above the list"
	fi
	if [ "${size%%x*}" -ge 200 ]; then
		like "$(tui_screen)" "it\. the vendor should: Stop serving the affected deployment" \
			"$size: with what the registry says the vendor should do"
	fi
	tui_keys Enter
	tui_wait "RESPONSE"; ok $? "$size: the evidence, request beside response"
	shown=$(tui_screen | sed -n 's/.*Evidence \([0-9][0-9]*\): \(exchange-[0-9]*\.json\) (.*/\1 \2/p' | head -1)
	is "${shown#* }" "exchange-${shown%% *}.json" "$size: the exchange is named as in the bundle"
	like "$(tui_screen)" ">>AIVET[A-Za-z0-9]{19}<<" "$size: the leaked canary is marked"
	unlike "$(tui_screen)" "sk-journey" "$size: no key on screen"
	tui_keys q

	# An incident from the finding, a note, a task, its clocks.
	tui_keys i
	tui_wait "Incident title"; ok $? "$size: i asks for the incident's title"
	tui_keys Enter
	tui_wait "Incident 1 (new)"; ok $? "$size: the incident opens"
	like "$(tui_screen)" "hipaa-individuals +running +due" "$size: its notification clocks run"
	like "$(tui_screen)" "Severity: 4 \(critical; 4 = most severe\)" "$size: a critical finding opens it at severity 4"
	if [ "${size#*x}" -ge 50 ]; then
		like "$(tui_screen)" "evidence ${shown%% *} +[0-9a-f]{16}  ${shown#* }" \
			"$size: its linked evidence goes by the same name"
	fi
	run incident show 1 --json
	is "$(printf '%s' "$out" | jq -r '[.title, (.links | map(.object_type) | unique | join(","))] | join(" | ")')" \
		"LEAK_CROSS_TENANT on Acme AI/prod | evidence,finding,run" "$size: linked to the finding, its run and evidence"
	tui_keys N; tui_wait "Kind of timeline entry"; tui_keys Enter; tui_wait "Add timeline entry"
	tui_type "Vendor asked for its KV pool configuration"; tui_keys Enter
	tui_wait "incident 1: entry"; ok $? "$size: a timeline note"
	tui_keys t; tui_wait "Add task"
	tui_type "Confirm the vendor's fix"; tui_keys Tab; tui_type rita; tui_keys Enter
	tui_wait "incident 1: task 1 added"; ok $? "$size: a task"
	run incident show 1 --json
	is "$(printf '%s' "$out" | jq -r '[(.timeline | length >= 2), .tasks[0].owner] | map(tostring) | join(" ")')" \
		"true rita" "$size: the CLI sees the note and the task"
	# The incident's linked finding and run open on Enter: the finding's evidence, the run.
	tui_keys /; tui_type "LEAK_CROSS_TENANT: a response"; tui_keys Enter
	tui_wait "filter: LEAK_CROSS_TENANT: a response (1 of"
	tui_keys Enter
	tui_wait "Evidence of finding"; ok $? "$size: Enter on the incident's linked finding opens its evidence"
	tui_keys q
	tui_keys / C-u; tui_type "run      1"; tui_keys Enter
	tui_wait "filter: run      1 (1 of"
	tui_keys Enter
	tui_wait "Run 1 on Acme AI/prod: completed"; ok $? "$size: Enter on its linked run opens the run"
	tui_keys q
	tui_keys / C-u Enter; tui_wait "filter cleared"

	# Export a signed bundle from the vendor screen, then verify it.
	tui_keys q q q
	tui_wait "Vendor:      Acme AI"
	tui_keys E
	tui_wait "Export signed bundle"; ok $? "$size: E opens the export dialog"
	tui_keys Tab Tab Tab Tab C-u
	tui_type "$T/bundle-$size"
	tui_keys Enter
	tui_wait "There is no key named aivet. Create it now?"; ok $? "$size: no key yet: it offers to create one"
	tui_keys y
	tui_wait "bundle $T/bundle-$size verified" 60; ok $? "$size: the bundle is written and verified"
	run verify "$T/bundle-$size"
	is "$rc" 0 "$size: aivet verify accepts it"
	minisign -Vm "$T/bundle-$size/SHA256SUMS" -p "$T/bundle-$size/aivet.pub" >/dev/null 2>&1
	ok $? "$size: and so does stock minisign"
	ok "$(test -f "$T/bundle-$size/evidence/${shown#* }"; echo $?)" \
		"$size: the bundle holds the exchange the evidence screen named, under that name"

	tui_q_out
	tui_wait "[exit 0]"; ok $? "$size: q all the way out"
	tui_stop
	rm -rf "$XDG_CONFIG_HOME/aivet"
}

journey 80x24
journey 200x50
done_testing
