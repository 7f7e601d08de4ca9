#!/bin/sh
# noisy-prefix-timing.sh: the sequential prefix-timing test against a vendor
# whose first-token latency is noisy (tests/lib/noisy-vendor.py: a fixed list of
# delays, the same for the two groups compared, so no hit and no chance
# difference; machine load only adds noise, which only lowers the power).
# With the noise of the 60 ms list (sd about 22 ms) and a 24 ms prefill the
# effect looked for (a 12 ms hit) needs about 110 trials: the probe keeps
# sampling past the first look and stops when the token budget does not
# cover the next, saying so; the delays are large beside a busy machine's
# scheduling noise, which would have to double the sd to change that. With
# the 120 ms list and no prefill, a hit of half the prefill the probe can
# measure (a few ms, from the vendor's own parsing of long prompts) is within
# negligible effect size: the probe stops at the first look, since no number
# of trials could show it.
. "$TESTS_SRCDIR/lib/lib.sh"

export KEY_A=key-a KEY_B=key-b
_vpids=""
_noisy_cleanup() { for p in $_vpids; do kill "$p" 2>/dev/null; done; }
_cleanup_hooks="$_cleanup_hooks _noisy_cleanup"

# noisy_vendor NAME DELAY_MAX_MS PREFILL_MS: starts the vendor; adds vendor NAME with endpoint e.
noisy_vendor() {
	python3 "$TESTS_SRCDIR/lib/noisy-vendor.py" "$2" "$3" >"$T/$1.out" 2>"$T/$1.err" &
	_vpids="$_vpids $!"
	i=0
	until grep -q '^listening on ' "$T/$1.out" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
	url=$(sed -n 's/^listening on //p' "$T/$1.out")
	run vendor add "$1"
	run endpoint add "$1" --name e --api openai --url "$url/v1" --model m --context 131072 \
		--credential a=env:KEY_A --credential b=env:KEY_B
}

noisy_vendor Noisy 60 24
# 600,000 tokens: the first look takes about 160,000, the second as much; a third (60
# more trials, about 410,000 reserved) would not fit.
run probe run Noisy/e --probe prefix-timing --yes --json --budget-tokens 600000
is "$rc" 0 "noisy: exit 0"
is "$(printf '%s' "$out" | json '[.status, .probes[0].verdict, .probes[0].requests, .probes[0].details.trials, ([.probes[0].details.looks[].trials] | map(tostring) | join(" ")), ([.probes[0].details.looks[].power < 0.8] | all), .probes[0].details.stopped, (.probes[0].details.trials_needed > 60 and .probes[0].details.trials_needed <= 250)] | @csv')" \
	'"completed","inconclusive",300,60,"30 60",true,"the run'"'"'s token budget does not cover the next look",true' \
	"noisy: undecided at 30 trials, it kept sampling to the second look (60), then the budget stopped it"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
	"^timing noise \(sd [0-9.]+ ms\) is too high for 60 trials to see a cache hit saving [0-9.]+ ms \(power [0-7]?[0-9]%\); the run's token budget does not cover the next look; would need about [0-9]+ trials$" \
	"noisy: the reason says the budget ended it, and how many trials would do"

noisy_vendor Noisier 120 0
run probe run Noisier/e --probe prefix-timing --yes --json
is "$(printf '%s' "$out" | json '[.probes[0].verdict, .probes[0].requests, (.probes[0].details.looks | length), .probes[0].details.stopped, .probes[0].details.trials_needed] | @csv')" \
	'"inconclusive",150,1,"more trials cannot help",0' \
	"noisier: a hit of a few ms under about 44 ms of noise: stopped at the first look, trials needed 0 (none would do)"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
	"^timing noise \(sd [0-9.]+ ms\) is too high to see a cache hit saving [0-9.]+ ms in 30 trials \(power [0-9]%\), and no number of trials would: under that noise such a hit has Cliff's delta 0\.(0[0-9]|1[0-4]), not beyond the 0\.147 a finding needs$" \
	"noisier: the reason says why no number of trials would do"
done_testing
