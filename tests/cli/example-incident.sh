#!/bin/sh
# example-incident.sh: runs the worked example in docs/examples on a fresh
# database, so the example stays a script that works, and checks the record
# it leaves: the clocks met, the timeline in order, the notice as evidence.
. "$TESTS_SRCDIR/lib/lib.sh"

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
is "$(echo "$out" | json '.links[0] | [.object_type, .original_name] | join(" ")')" "evidence lumen-notice.txt" "the notice kept as evidence"
run audit verify
is "$rc" 0 "the audit chain covers it all"

# The incident as a signed bundle, checked with the stock minisign tool.
"$AIVET" key generate --no-password >/dev/null
run report "Lumen Inference" --incident 1 --out "$T/bundle" --at 2026-11-30T08:00:00Z
is "$rc" 0 "the signed incident report is written"
(cd "$T/bundle" && minisign -Vm SHA256SUMS -p aivet.pub >/dev/null 2>&1)
ok $? "minisign -Vm SHA256SUMS -p aivet.pub verifies it"
(cd "$T/bundle" && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1)
ok $? "every file matches SHA256SUMS"
is "$(jq -r '.incidents[0] | [.title, .status, ([.clocks[] | .id + "=" + .state] | join(",")), (.timeline | length | tostring)] | join("|")' "$T/bundle/report.json")" \
	"Hosted model returned other customers' prompt text (KV-cache admission bug)|contained|hipaa-individuals=met,hhs=met,media=met,vendor-sla=met,gdpr-sa=not-applicable|10" \
	"the report carries the timeline and each clock's outcome"
is "$(jq -r '.incidents[0].evidence_files | map(.sha256) | join(" ")' "$T/bundle/report.json")" \
	"$(sha256sum < "$T/lumen-notice.txt" | cut -c1-64)" "and the vendor's notice as evidence"

# The whole example, re-verification included, against aivet-sim standing in
# for the vendor's fixed service.
if [ -x "${AIVET_SIM:-}" ]; then
	. "$TESTS_SRCDIR/lib/sim-lib.sh"
	sim_start --context 1048576 --pool 681280 --tenants a=key-a,b=key-b --fault none
	export AIVET_DB="$T/full.db"
	KEY_A=key-a KEY_B=key-b EXAMPLE_URL="$SIM_URL/v1" \
		TMPDIR="$T" AIVET="$AIVET" sh "$example" > "$T/full.out" 2> "$T/full.err"
	is "$?" 0 "the whole example runs, re-verification included"
	run incident show 1 --json
	is "$(echo "$out" | json '[.status, (.timeline[-3] | .kind + ": " + .text)] | join(" | ")')" \
		"closed | verification: Verification run 1 (canary,oversize): the failure no longer reproduces" \
		"verified against the fixed service, then closed"
	is "$(echo "$out" | json '[.links[] | .object_type] | join(",")')" "evidence,run" "the verification run is linked"
else
	ok 0 "# SKIP aivet-sim is not built: the re-verification step is not run"
fi
done_testing
