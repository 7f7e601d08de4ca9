#!/bin/sh
# sim-probe-diff.sh: "probe diff" judges drift against the resolution of
# the measurement itself, so a nightly comparison does not cry wolf. Runs
# against an unchanged aivet-sim (random filler in every calibration, a
# binary search ending anywhere in its last step) report no drift; a run
# after the vendor's KV pool shrank does. Then the two rules, each pinned on
# both sides of its threshold with runs written by sqlite3: calibration by
# the chance spread of its samples, boundaries by the brackets their
# searches ended in.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a KEY_B=key-b
sim_start --context 8192 --pool 5324 --tenants a=key-a,b=key-b || exit 1
run vendor add Acme
run endpoint add Acme --name prod --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B
for i in 1 2 3 4; do
	run probe run Acme/prod --probe echo,sweep --depth diagnose --yes --compare-last
done
is "$(printf '%s\n' "$out" | tail -n 1)" "no drift from run 3 to run 4 (Acme/prod)" \
	"unchanged vendor: --compare-last reports no drift"
for pair in "1 2" "2 3" "1 4"; do
	run probe diff $pair
	is "$rc:$out" "0:no drift from run ${pair% *} to run ${pair#* } (Acme/prod)" \
		"unchanged vendor: probe diff $pair reports no drift, exit 0"
done
is "$(sqlite3 "$AIVET_DB" "SELECT count(DISTINCT json_extract(calibration, '\$.overhead_tokens') || ' ' ||
	json_extract(calibration, '\$.tokens_per_unit')) > 1 FROM probe_run WHERE id <= 4")" 1 \
	"though the calibrations were not all the same"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_result WHERE probe = 'sweep' AND run_id <= 4
	AND json_extract(details, '\$.refusal_boundary') BETWEEN 5200 AND 5324")" 4 \
	"and every sweep found the refusal boundary at the pool's 5,324 tokens"

# The vendor's pool shrinks: the boundary moves, and that is drift.
sim_start --context 8192 --pool 4096 --tenants a=key-a,b=key-b || exit 1
run endpoint edit Acme/prod --url "$SIM_URL/v1"
run probe run Acme/prod --probe echo,sweep --depth diagnose --yes --compare-last
like "$out" "drift from run 4 to run 5 \(Acme/prod\):
  boundary           sweep refusal_boundary 5,[23][0-9]{2} -> 4,0[0-9]{2}$" \
	"pool changed: --compare-last reports the refusal boundary's move, and only that"
run probe diff 4 5
is "$rc" 1 "pool changed: probe diff exits 1"
# A run of other probes in between is no baseline: --compare-last compares with
# the last run that ran the same probes, so nothing reads as new.
run probe run Acme/prod --probe errors --yes
run probe run Acme/prod --probe echo --yes
run probe run Acme/prod --probe echo,sweep --depth diagnose --yes --compare-last
is "$(printf '%s\n' "$out" | tail -n 1)" "no drift from run 5 to run 8 (Acme/prod)" \
	"--compare-last after runs of other probes: the baseline is the last run of the same probes (5), not run 6 (errors) nor 7 (echo alone)"
run probe run Acme/prod --probe sweep --depth diagnose --yes --compare-last
is "$(printf '%s\n' "$out" | tail -n 1)" "no drift from run 8 to run 9 (Acme/prod)" \
	"a run of fewer probes: the last run that ran each of them"

# ---- the rules, on runs written with sqlite3 ----
run endpoint add Acme --name fix --api openai --url https://api.acme.example/v1 --model m1 --context 8192
ep=$(sqlite3 "$AIVET_DB" "SELECT id FROM endpoint WHERE name = 'fix'")
n=100
# fixture TPU OVERHEAD SWEEP_DETAILS: a completed run whose calibration sampled 100 and
# 1,100 filler words; sets $n to its id.
fixture() {
	n=$((n + 1))
	sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, calibration, tokens_in,
		tokens_out, actor, started_at, finished_at) VALUES ($n, $ep, 'completed', '[\"sweep\"]',
		'{\"method\":\"usage\",\"tokens_per_unit\":$1,\"overhead_tokens\":$2,\"unit\":\"filler word\",
		\"samples\":[{\"units\":100,\"tokens\":380,\"evidence\":1},{\"units\":1100,\"tokens\":3365,\"evidence\":2}]}',
		1, 1, 'tester', '2026-11-30T02:00:00.000Z', '2026-11-30T02:01:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details)
		VALUES ($n, 'sweep', 'fail', '1 finding', 12, '$3');"
}
# point SENT USAGE|null ACCEPTED
point() { printf '{"tokens_sent":%s,"usage_prompt_tokens":%s,"accepted":%s,"stream":false}' "$1" "$2" "$3"; }
sweep() {   # REFUSAL LAST_GOOD_SENT NEXT_SENT
	printf '{"advertised":8192,"refusal_boundary":%s,"integrity_boundary":null,"change":"visible_refusal","points":[%s,%s,%s]}' \
		"$1" "$(point 2046 2045 true)" "$(point "$2" "$1" true)" "$(point "$3" null false)"
}
diff_of() { run probe diff "$1" "$2"; printf '%s' "$out"; }

# Calibration: samples of 100 and 1,100 words differ by chance by at most
# 1.5 sqrt(2n) + 2 tokens (23.21 and 72.36); through both, tokens_per_unit
# by (23.21 + 72.36) / 1000 = 0.0956 and overhead_tokens by 23.21 + 9.56 = 32.77.
fixture 2.98 80 "$(sweep 5311 5304 5322)"; base=$n
fixture 3.075 80 "$(sweep 5311 5304 5322)"
is "$(diff_of $base $n)" "no drift from run $base to run $n (Acme/fix)" \
	"rule calibration resolution: tokens_per_unit 2.98 -> 3.075 (0.095 < 0.0956) is no drift"
fixture 3.077 80 "$(sweep 5311 5304 5322)"
is "$(diff_of $base $n)" "drift from run $base to run $n (Acme/fix):
  calibration        tokens_per_unit 2.98 -> 3.077" \
	"rule calibration resolution: tokens_per_unit 2.98 -> 3.077 (0.097 > 0.0956) is drift"
fixture 2.98 112.7 "$(sweep 5311 5304 5322)"
is "$(diff_of $base $n)" "no drift from run $base to run $n (Acme/fix)" \
	"rule calibration resolution: overhead_tokens 80 -> 112.7 (32.7 < 32.77) is no drift, where 5% would have cried wolf"
fixture 2.98 112.9 "$(sweep 5311 5304 5322)"
is "$(diff_of $base $n)" "drift from run $base to run $n (Acme/fix):
  calibration        overhead_tokens 80 -> 112.9" \
	"rule calibration resolution: overhead_tokens 80 -> 112.9 (32.9 > 32.77) is drift"

# Boundaries: run $base's search ended between 5,311 tokens (by usage, exact) and the
# refused 5,322 (estimated: widened by the calibration's 0.0956 / 2.98 = 3.207% to 5,492.7).
fixture 2.98 80 "$(sweep 5492 5480 5500)"
is "$(diff_of $base $n)" "no drift from run $base to run $n (Acme/fix)" \
	"rule boundary bracket: 5,311 -> 5,492 lies within the first search's last step and the size resolution"
fixture 2.98 80 "$(sweep 5494 5480 5500)"
is "$(diff_of $base $n)" "drift from run $base to run $n (Acme/fix):
  boundary           sweep refusal_boundary 5,311 -> 5,494" \
	"rule boundary bracket: 5,311 -> 5,494 is beyond it: drift"
fixture 2.98 80 "$(sweep 5130 5120 5140)"
is "$(diff_of $base $n)" "drift from run $base to run $n (Acme/fix):
  boundary           sweep refusal_boundary 5,311 -> 5,130" \
	"rule boundary bracket: downwards, 5,130 (its bracket up to 5,140 x 1.03207 = 5,304.9) is drift"
fixture 2.98 80 "$(sweep 5147 5120 5146)"
is "$(diff_of $base $n)" "no drift from run $base to run $n (Acme/fix)" \
	"rule boundary bracket: 5,147 (bracket up to 5,146 x 1.03207 = 5,311.0) meets 5,311: no drift"
done_testing
