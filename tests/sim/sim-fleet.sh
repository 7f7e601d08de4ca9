#!/bin/sh
# sim-fleet.sh: a fault on some requests only. aivet-sim's mixed-fleet fault is
# a load balancer in front of four backends, round robin, one of which is short
# of KV and answers a prompt at the top of the context from a 1-token
# placeholder; the others are correct. At the default depth the sweep sends
# the top of the context 8 times, so a fault on one request in 4 shows on at
# least one with 89% confidence (1 - (3/4)^8), and the plan says so; the
# substitution is found. A single top prompt, as before, went to a correct
# backend three times in four.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault mixed-fleet --fleet 4 || exit 1
probe_setup openai 8192
run probe run V/e --dry-run
like "$out" "  sweep sends the top of the context 8 times: a fault on one request in 4 shows on at least one with 89% confidence" \
    "plan: the sweep's repeats and what they catch"
run probe run V/e --dry-run --json
is "$(printf '%s' "$out" | json '[(.probes[] | select(.name == "sweep") | .requests), .sweep_repeats] | @csv')" \
    '9,"sweep sends the top of the context 8 times: a fault on one request in 4 shows on at least one with 89% confidence"' \
    "plan JSON: 8 plain top prompts and the streamed one, and the sentence"
run probe run V/e --dry-run --json --depth diagnose
is "$(printf '%s' "$out" | json 'has("sweep_repeats")')" false "diagnose: the fractions and searches, no repeats said"

run probe run V/e --yes --json --probe sweep
is "$rc:$(per_probe)" "1:sweep:fail[PLACEHOLDER_SUBSTITUTION]" \
    "one backend in 4 substitutes: the default depth finds it"
is "$(detail sweep '[.top_repeats, .catches_one_in, .confidence, ([.points[] | select(.accepted and .nonces_echoed == 0)] | length)]')" \
    '[8,4,0.89,2]' "details: 8 repeats, one in 4 caught with 89% confidence; 2 of the 8 went to the short backend"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "^accepted prompts at the top of the context \(about [0-9]+ tokens, advertised 8192\) were swapped for a placeholder" \
    "the finding says what was swapped"
sim_stop
done_testing
