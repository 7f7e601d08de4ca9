#!/bin/sh
# cli-incident-verify.sh: "aivet incident verify" against aivet-sim on
# 127.0.0.1 — with the KV-cache placeholder fault the failure reproduces
# (exit 1, a verification entry saying so, resolving refused); after the
# "fix" (the same service restarted without the fault) it no longer does,
# and the incident can be resolved. Every verification run is linked.
. "$TESTS_SRCDIR/lib.sh"

if [ ! -x "${AIVET_SIM:-}" ]; then
	echo "1..0 # SKIP aivet-sim is not built"
	exit 0
fi

sim_start() {
	"$AIVET_SIM" --port 0 --context 65536 --pool 32768 --tenants a=key-a,b=key-b \
		--fault "$1" > "$T/sim.out" 2> "$T/sim.err" &
	sim_pid=$!
	i=0
	while ! grep -q '^listening on ' "$T/sim.out" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	url=$(sed -n 's/^listening on //p' "$T/sim.out" | head -1)
}
sim_stop() { [ -n "${sim_pid:-}" ] && kill "$sim_pid" 2>/dev/null; wait 2>/dev/null; sim_pid=; }
_cleanup_hooks="$_cleanup_hooks sim_stop"

export KEY_A=key-a KEY_B=key-b
sim_start disagg-placeholder
"$AIVET" vendor add lumen >/dev/null
"$AIVET" endpoint add lumen --name chat --api openai --url "$url/v1" --model aivet-sim-1 \
	--context 65536 --credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
"$AIVET" incident open lumen --title "Other customers' text in responses" --phi no >/dev/null

run incident verify 1
is "$rc" 2 "an incident without an endpoint cannot be verified"
is "$errout" "aivet: incident 1 has no endpoint to verify against: set one with 'aivet incident edit 1 --endpoint VENDOR/NAME'" "saying how to set one"
"$AIVET" incident edit 1 --endpoint lumen/chat >/dev/null

run incident verify 1
is "$rc" 1 "with the fault, verify exits 1"
like "$out" "incident 1: entry 3: Verification run 1 \(canary,oversize\): the failure still reproduces: \[.*\"LEAK_CROSS_TENANT\".*\]" "the entry says it reproduces"
is "$errout" "aivet: incident 1: the failure still reproduces (run 1)" "and so does the error"
run incident show 1 --json
is "$(echo "$out" | json '.timeline[-1] | [.kind, (.details.run | tostring), (.details.reproduces | tostring), .details.probes] | join(" ")')" \
	"verification 1 true canary,oversize" "the verification entry's details"
is "$(echo "$out" | json '[.links[] | .object_type + ":" + (.object_id | tostring)] | join(",")')" "run:1" "the run is linked"
"$AIVET" incident status 1 investigating >/dev/null
"$AIVET" incident status 1 contained >/dev/null
run incident status 1 resolved
is "$errout" "aivet: incident 1 cannot be resolved: the latest verification (entry 3) found the failure still reproduces" "resolving is refused"

# The vendor's fix: the same service without the fault.
sim_stop
sim_start none
"$AIVET" endpoint edit lumen/chat --url "$url/v1" >/dev/null
run incident verify 1 --json
is "$rc" 0 "after the fix, verify exits 0"
is "$(echo "$out" | json '[.incident, .verification.run, .verification.reproduces, .verification.run_status] | map(tostring) | join(" ")')" \
	"1 2 false completed" "JSON: run 2, no longer reproduces"
run incident show 1 --json
is "$(echo "$out" | json '.timeline[-1].text')" \
	"Verification run 2 (canary,oversize): the failure no longer reproduces" "the entry says so"
run incident status 1 resolved
is "$out" "incident 1: contained -> resolved" "now it can be resolved"
run audit verify
is "$rc" 0 "the audit chain is intact"
done_testing
