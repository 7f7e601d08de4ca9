#!/bin/sh
# example-incident.sh: runs the worked example in docs/examples on a fresh
# database, so the example stays a script that works, and checks the record
# it leaves: the clocks met, the timeline in order, the notice as evidence.
. "$TESTS_SRCDIR/lib.sh"

example="$TESTS_SRCDIR/../docs/examples/kv-cache-exposure.sh"
SKIP_VERIFY=1 TMPDIR="$T" AIVET="$AIVET" sh "$example" > "$T/example.out" 2> "$T/example.err"
is "$?" 0 "the example runs to the end"
is "$(cat "$T/example.err")" "" "without errors"
run incident show 1 --json
is "$(echo "$out" | json '[.status, .phi, .individuals, .state_residents, .discovered_at, .discovered_at_local] | map(tostring) | join(" ")')" \
	"contained yes 1840 1210 2026-03-04T14:12:00.000Z 2026-03-04T09:12:00-05:00" "the facts"
is "$(echo "$out" | json '[.clocks[] | .id + "=" + .state] | join(" ")')" \
	"hipaa-individuals=met hhs=met media=met vendor-sla=met gdpr-sa=not-applicable" "every clock met"
is "$(echo "$out" | json '.clocks[3] | [.start, .due, .stopped_at] | join(" ")')" \
	"2026-03-01T22:10:00.000Z 2026-03-04T22:10:00.000Z 2026-03-04T14:12:00.000Z" "the vendor's 72 hours from its own discovery"
is "$(echo "$out" | json '[.timeline[].kind] | join(",")')" \
	"detection,vendor-notice,status-change,mitigation,status-change,observation,decision,notification-sent,notification-sent,notification-sent" \
	"the timeline in the order things happened"
is "$(echo "$out" | json '[.tasks[] | .done_at] | join(" ")')" \
	"2026-03-06T20:30:00.000Z 2026-03-12T16:00:00.000Z 2026-04-09T14:00:00.000Z" "tasks done"
is "$(echo "$out" | json '.links[0] | [.type, .original_name] | join(" ")')" "evidence lumen-notice.txt" "the notice kept as evidence"
run audit verify
is "$rc" 0 "the audit chain covers it all"
done_testing
