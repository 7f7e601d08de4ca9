#!/bin/sh
# sim-fleet.sh: a fault on some requests only. aivet-sim's mixed-fleet fault is
# a load balancer in front of four backends, round robin, one of which is short
# of KV and answers a prompt at the top of the context from a 1-token
# placeholder; the others are correct. At the default depth the sweep sends
# the top of the context twice, so a fault on one request in 4 shows on at
# least one with 43% confidence (1 - (3/4)^2), which keeps the default depth
# within 3x the context; diagnose sends its 97% point 4 times, 68%
# (1 - (3/4)^4). The plan says which. Round robin is deterministic: here one
# of verify's two top prompts goes to the short backend, and one of diagnose's
# four consecutive ones always does.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault mixed-fleet --fleet 4 || exit 1
probe_setup openai 8192
run probe run V/e --dry-run
is "$(printf '%s\n' "$out" | grep '^  sweep sends ')" \
    "  sweep sends the top of the context 2 times: a fault on one request in 4 shows on at least one with 43% confidence (--depth diagnose: 4 times, 68%; a budget covering them: up to 8, 89%)" \
    "plan: the sweep's repeats at the default depth, what they catch, and diagnose's"
run probe run V/e --dry-run --json
is "$(printf '%s' "$out" | json '[(.probes[] | select(.name == "sweep") | .requests), .sweep_repeats] | @csv')" \
    '3,"sweep sends the top of the context 2 times: a fault on one request in 4 shows on at least one with 43% confidence (--depth diagnose: 4 times, 68%; a budget covering them: up to 8, 89%)"' \
    "plan JSON: 2 plain top prompts and the streamed one, and the sentence"
run probe run V/e --dry-run --json --depth diagnose
is "$(printf '%s' "$out" | json '[(.probes[] | select(.name == "sweep") | .requests), .sweep_repeats] | @csv')" \
    '23,"sweep sends 97% of the context 4 times: a fault on one request in 4 shows on at least one with 68% confidence"' \
    "diagnose: the 7 fractions, the 97% point 3 times more, the streamed 1% and the 6 steps of each search; the sentence"

run probe run V/e --yes --json --probe sweep
is "$rc:$(per_probe)" "1:sweep:fail[PLACEHOLDER_SUBSTITUTION]" \
    "one backend in 4 substitutes: the default depth finds it here"
is "$(detail sweep '[.top_repeats, .catches_one_in, .confidence, ([.points[] | select(.accepted and .nonces_echoed == 0)] | length)]')" \
    '[2,4,0.43,1]' "details: 2 repeats, one in 4 caught with 43% confidence; 1 of the 2 went to the short backend"
like "$(printf '%s' "$out" | json '.probes[0].findings[0].message')" \
    "^accepted prompts at the top of the context \(about [0-9]+ tokens, advertised 8192\) were swapped for a placeholder" \
    "the finding says what was swapped"
run probe run V/e --yes --json --probe sweep --depth diagnose
is "$rc:$(per_probe)" "1:sweep:fail[PLACEHOLDER_SUBSTITUTION]" \
    "diagnose: four consecutive prompts at 97% of the context, one of them on the short backend"
is "$(detail sweep '[.points[] | select(.tokens_sent > 7700) | [.tokens_sent, .accepted, .nonces_echoed]] | map(.[0]) | unique | length') $(detail sweep '[.points[] | select(.tokens_sent > 7700) | .nonces_echoed] | sort')" \
    "1 [0,3,3,3]" "diagnose: the 97% point sent 4 times at one size, one answered from a placeholder"
sim_stop
done_testing
