#!/bin/sh
# sim-plan-bound.sh: the plan's "at most" is a true upper bound. Against
# aivet-sim with each of its faults in turn (the list aivet-sim --help
# gives, so a new fault is covered the day it is added), the default run
# sends no more requests, and counts no more input or output tokens, than
# its dry-run plan said it would at most. A run against a port nobody
# listens on (nothing reached a vendor) is tests/sim/sim-run-failed.sh.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

faults=$("$AIVET_SIM" --help 2>&1 | awk '/^  --fault NAME/ { on = 1 } on { print } /\(default none\)/ { on = 0 }' |
    sed 's/.*--fault NAME\[,NAME\.\.\.\]//; s/repeat or list to combine//; s/(default none)//' |
    tr ',;' '  ' | tr -s ' \n' '\n\n' | grep -E '^[a-z0-9-]+$' | grep -vx none)
ok "$([ "$(printf '%s\n' $faults | wc -l)" -ge 14 ] && echo 0 || echo 1)" \
    "aivet-sim --help lists its faults ($(printf '%s ' $faults))"

for f in $faults; do
	extra=
	case $f in
	redirect) extra="--redirect-to http://127.0.0.1:9/v1" ;;
	huge-response) extra="--huge-bytes 65536" ;;
	noisy-neighbour) extra="--neighbour-hold-ms 100" ;;
	keep-end-under-context) extra="--pool 2048" ;;
	esac
	# shellcheck disable=SC2086
	sim_start --context 4096 --tenants "$PROBE_TENANTS" --fault "$f" $extra || exit 1
	probe_setup openai 4096
	plan=$("$AIVET" probe run V/e --dry-run --json 2>/dev/null | jq -c '[.requests, .tokens_in, .tokens_out]')
	run probe run V/e --yes --json
	run_id=$(printf '%s' "$out" | jq .id)
	# Requests: each sent once, whatever retries it took (a retry is the same request again).
	sent=$(q "SELECT count(DISTINCT seq) FROM exchange WHERE run_id = $run_id")
	got=$(printf '%s' "$out" | jq -c --argjson s "$sent" '[$s, .tokens_in, .tokens_out]')
	# numbers: a null (a field gone) drops out of the list, which then fails, where null <= N holds.
	is "$(jq -nc --argjson p "$plan" --argjson g "$got" '[range(3) as $i | ($g[$i] | numbers) <= ($p[$i] | numbers)]')" \
	    '[true,true,true]' "fault $f: requests, tokens in and out $got within the plan's at most $plan"
	sim_stop
done

done_testing
