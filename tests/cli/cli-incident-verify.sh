#!/bin/sh
# cli-incident-verify.sh: "aivet incident verify" against aivet-sim on
# 127.0.0.1 — an incident opened from a probe's critical finding; with the
# KV-cache placeholder fault the failure (that finding's code) reproduces
# (exit 1, a verification entry saying so, resolving refused); after the
# "fix" (the same service restarted without the fault) it no longer does,
# and the incident can be resolved; while the vendor is unreachable it
# cannot be verified, and cannot be resolved on that run. Every verification run is linked.
. "$TESTS_SRCDIR/lib/lib.sh"

if [ ! -x "${AIVET_SIM:-}" ]; then
	echo "1..0 # SKIP aivet-sim is not built"
	exit 0
fi

. "$TESTS_SRCDIR/lib/sim-lib.sh"
# The vendor: a context of 65,536 tokens over a 32,768-token pool, two tenants.
vendor_start() {
	sim_start --context 65536 --pool 32768 --tenants a=key-a,b=key-b --fault "$1"
	url=$SIM_URL
}

export KEY_A=key-a KEY_B=key-b
vendor_start disagg-placeholder
"$AIVET" vendor add lumen >/dev/null
"$AIVET" endpoint add lumen --name chat --api openai --url "$url/v1" --model aivet-sim-1 \
	--context 65536 --credential a=env:KEY_A --credential b=env:KEY_B >/dev/null

# An incident without an endpoint has nothing to re-run.
"$AIVET" incident open lumen --title "Reported by another customer" --phi no >/dev/null
run incident verify 1
is "$rc" 2 "an incident without an endpoint cannot be verified"
is "$errout" "aivet: incident 1 has no endpoint to verify against: set one with 'aivet incident edit 1 --endpoint VENDOR/NAME'" "saying how to set one"

# A probe run finds the leak and prints, under each critical finding, the
# command that opens an incident from it; that command is run as printed.
run probe run lumen/chat --probe canary --yes
fid=$(sqlite3 "$AIVET_DB" "SELECT id FROM finding WHERE code = 'LEAK_CROSS_TENANT'")
ended=$(sqlite3 "$AIVET_DB" "SELECT finished_at FROM probe_run WHERE id = 1")
cmd=$(printf '%s\n' "$out" | grep -A1 "critical LEAK_CROSS_TENANT" | sed -n 's/^ *open an incident: //p')
is "$cmd" "aivet incident open lumen --title 'LEAK_CROSS_TENANT on lumen/chat (finding $fid)' --endpoint lumen/chat --from-finding $fid" \
	"a critical finding prints the command to open an incident from it"
out=$(eval "\"\$AIVET\"${cmd#aivet}")
is "$out" "incident 2 opened for vendor lumen (discovered $ended)" "the printed command opens it, discovered when the run ended"
run incident show 2 --json
is "$(echo "$out" | json '[.links[] | .object_type + ":" + (.object_id | tostring)] | map(select(startswith("evidence") | not)) | join(",")')" \
	"finding:$fid,run:1" "the finding and its run are linked"
is "$(echo "$out" | json '[.links[] | select(.object_type == "evidence")] | length')" \
	"$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM finding_evidence WHERE finding_id = $fid")" "and the finding's evidence"

dry=$("$AIVET" probe run lumen/chat --probe canary --dry-run | sed -n '1p;/^  canary /p;/^  total /p')
run incident verify 2 --yes
is "$rc" 1 "with the fault, verify exits 1 (--yes taken as probe run takes it)"
like "$dry" '^  canary +16 requests' "probe run --dry-run plans the canary"
is "$(printf '%s\n' "$out" | sed -n '1p;/^  canary /p;/^  total /p')" "$dry" \
	"the verification's plan is shown before it is sent, as probe run --dry-run shows it"
like "$out" "incident 2: entry 3: Verification run 2 \(canary\): the failure still reproduces: \[\"LEAK_CROSS_TENANT\"\]" "the entry says it reproduces"
is "$errout" "aivet: incident 2: the failure still reproduces (run 2)" "and so does the error"
run incident show 2 --json
is "$(echo "$out" | json '.timeline[-1] | [.kind, (.details.run | tostring), (.details.reproduces | tostring), .details.probes] | join(" ")')" \
	"verification 2 true canary" "the verification entry's details"
is "$(echo "$out" | json '[.links[] | select(.object_type == "run") | .object_id] | map(tostring) | join(",")')" "1,2" "the verification run is linked"
"$AIVET" incident status 2 investigating >/dev/null
"$AIVET" incident status 2 contained >/dev/null
run incident status 2 resolved
is "$errout" "aivet: incident 2 cannot be resolved: the latest verification (entry 3) found the failure still reproduces" "resolving is refused"

# The vendor unreachable: nothing was judged, so nothing is verified either way.
sim_stop
run incident verify 2
is "$rc" 3 "rule verify-needs-judged-exchanges: an unreachable vendor cannot be verified (exit 3)"
like "$errout" "^aivet: incident 2: could not verify \(run 3\): canary ended error: tenant 'a' got no answer to scan: no answer: Failed to connect" \
	"and the error says why"
run incident show 2 --json
is "$(echo "$out" | json '.timeline[-1] | [(.details.reproduces | tostring), (.text | startswith("Verification run 3 (canary): could not verify: canary ended error: tenant"))] | map(tostring) | join(" ")')" \
	"null true" "the entry records that it could not verify"
run incident status 2 resolved
is "$errout" "aivet: incident 2 cannot be resolved: the latest verification (entry 6) was inconclusive" \
	"resolving is refused on a verification that judged nothing"

# The vendor's fix: the same service without the fault.
vendor_start none
"$AIVET" endpoint edit lumen/chat --url "$url/v1" >/dev/null
run incident verify 2 --json
is "$rc" 0 "after the fix, verify exits 0"
is "$(echo "$out" | json '[.incident, .verification.run, .verification.reproduces, .verification.run_status] | map(tostring) | join(" ")')" \
	"2 4 false completed" "JSON: run 4, no longer reproduces"
run incident show 2 --json
is "$(echo "$out" | json '.timeline[-1].text')" \
	"Verification run 4 (canary): the failure no longer reproduces" "the entry says so"
run incident status 2 resolved
is "$out" "incident 2: contained -> resolved" "now it can be resolved"
# A discovery given by hand before the run that found the finding is kept (the
# clocks run from it, the stricter way) and said, in the output and the entry.
run incident open lumen --title "Known before the probe" --from-finding "$fid" --discovered 2026-01-02T03:04:05Z
is "$rc:$out" "0:incident 3 opened for vendor lumen (discovered 2026-01-02T03:04:05.000Z)
note: discovered before run 1 found finding $fid ($ended); the clocks run from the earlier time" \
	"an earlier discovery than the finding's run is said"
run incident show 3 --json
is "$(printf '%s' "$out" | json '.timeline[0].text' | sed 's/.*; discovered/discovered/')" \
	"discovered 2026-01-02T03:04:05.000Z, before run 1 found it ($ended)" "and kept in the detection entry"
run incident open lumen --title "Found by the probe" --from-finding "$fid"
is "$rc:$out" "0:incident 4 opened for vendor lumen (discovered $ended)" "from the finding alone: no note"
run audit verify
is "$rc" 0 "the audit chain is intact"
done_testing
