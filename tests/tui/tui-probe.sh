#!/bin/sh
# tui-probe.sh: the probe screens in tmux against aivet-sim — from an
# endpoint, r opens its runs and r runs the probes with live progress; the
# run lists verdicts with symbols and words and the findings under them; a
# finding opens its evidence, request and response side by side, with the
# leaked canary marked >> <<.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192 --price-in 2.5 --price-out 10
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"

# screen_plan: the plan as the runs screen shows it, from its "plan (at most):" line to
# the blank line under it, without the screen's margin; its rows as the screen has them.
screen_plan() {
	tui_screen | sed -n '/^  plan (at most):/,/^ *$/p' | sed -e '/^ *$/d' -e 's/^  //' -e 's/[[:space:]]*$//'
}
# cli_plan ARGS...: the plan "probe run --dry-run" prints for the same endpoint.
cli_plan() {
	"$AIVET" probe run V/e --dry-run "$@" | sed 's/[[:space:]]*$//'
}
# plan_sums: from the screen's plan, the probe rows' requests, tokens in and out summed
# here, then the total row's, then the total's USD at the endpoint's prices (2.5 and 10
# per million), as "probes: R I O total: R I O USD": values worked out outside aivet,
# which the screen and --dry-run agreeing with each other could not show.
plan_sums() {
	screen_plan | tr -d , | awk '
		$1 == "plan" || $1 == "expected" || $1 == "largest" { next }
		$1 == "total" { tr = $2; ti = $4; to = $7; usd = $11; next }
		$3 == "requests" { r += $2; i += $4; o += $7; names = names " " $1 }
		END { printf "probes:%s: %d %d %d total: %d %d %d USD %.2f %s\n", names, r, i, o, tr, ti, to,
			ti * 2.5 / 1e6 + to * 10 / 1e6, usd }' | tr -d ')'
}
# flat: words in order, where the screen wrapped a line wider than it.
flat() {
	tr '\n' ' ' | tr -s ' '
}

tui_start 160x40 tui
tui_wait "V"
tui_keys L
tui_wait "Vendors"
tui_keys Enter
tui_wait "ENDPOINT"; ok $? "the vendor shows its endpoints"
tui_keys r
tui_wait "Probe runs of V/e (0)"; ok $? "r on an endpoint opens its probe runs"
tui_wait "plan (at most):"; ok $? "the next run's plan stands above the runs"
like "$(tui_screen)" "Next run: --depth verify, no budget" "at the command's default depth, without a budget"
is "$(screen_plan | head -8)" "$(cli_plan | head -8)" "the plan is the one probe run --dry-run prints, row for row"
is "$(screen_plan | flat)" "$(cli_plan | flat)" "and word for word where the screen wraps the longer lines"
like "$(screen_plan | flat)" "; depth verify " "the plan names its depth"
like "$(plan_sums)" "^probes: calibration echo oversize sweep canary errors: ([0-9]+ [0-9]+ [0-9]+) total: \1 USD ([0-9.]+) \2$" \
    "the plan's six probes add up to its total, priced at the endpoint's prices"
# p: depth and budget. A USD budget and a token budget together are refused in the form.
tui_keys p
tui_wait "Next run"; tui_wait "Depth"
tui_type diagnose; tui_keys Tab; tui_type 5000000; tui_keys Tab; tui_type 40; tui_keys Enter
tui_wait "a budget in tokens or in USD, not both"; ok $? "one budget at a time"
tui_keys Up C-u Enter
tui_wait "Next run: --depth diagnose --budget-usd 40.00"; ok $? "p sets the depth and the budget"
is "$(screen_plan | head -8)" "$(cli_plan --depth diagnose --budget-usd 40 | head -8)" \
    "the plan follows them, as --dry-run --depth diagnose --budget-usd 40 prints it"
like "$(plan_sums)" "^probes: calibration echo errors sweep canary oversize: ([0-9]+ [0-9]+ [0-9]+) total: \1 USD ([0-9.]+) \2$" \
    "at depth diagnose too the probes add up to the total and its price"
is "$(screen_plan | flat)" "$(cli_plan --depth diagnose --budget-usd 40 | flat)" "word for word"
like "$(screen_plan)" "  total +[0-9,]+ requests +[0-9,]+ tokens in +[0-9,]+ out  \(about USD [0-9]+\.[0-9]{2}\)" \
    "at most: requests, tokens and USD"
like "$(screen_plan | flat)" " expected [0-9,]+ tokens in \(about USD [0-9]+\.[0-9]{2}\) against .*; depth diagnose " \
    "expected: tokens and USD, and the depth"
# Under a budget below the whole plan, its at-most is the budget, in the plan and the question.
tui_keys p
tui_wait "Depth"
tui_keys Tab Tab C-u; tui_type 0.05; tui_keys Enter
tui_wait "Next run: --depth diagnose --budget-usd 0.05"; ok $? "p sets a budget below the whole plan"
is "$(screen_plan | flat)" "$(cli_plan --depth diagnose --budget-usd 0.05 | flat)" \
    "the plan says the budget is its at-most, as --dry-run --budget-usd 0.05 prints it"
tui_keys r
tui_wait "Send up to"
set -- $("$AIVET" probe run V/e --dry-run --json --depth diagnose --budget-usd 0.05 | jq -r '[.cost_usd_expected, .cost_usd] | @tsv')
like "$(tui_screen | tr -d '\n' | tr -s ' ')" "$(printf 'USD %.2f expected, 0.05 at most \\(the budget; the whole plan %.2f\\)' "$(echo "$1" | awk '{ print ($1 < 0.05 ? $1 : 0.05) }')" "$2")" \
    "the question's at-most is the budget, the whole plan beside, the expected figure never above it"
# The question closed drops keys typed meanwhile (flushinp): p waits until it has.
tui_step n
tui_keys p
tui_wait "Depth"
tui_keys Tab Tab C-u; tui_type 40; tui_keys Enter
tui_wait "Next run: --depth diagnose --budget-usd 40.00"
tui_keys r
tui_wait "Send up to"; ok $? "r asks before sending"
set -- $("$AIVET" probe run V/e --dry-run --json --depth diagnose --budget-usd 40 |
    jq -r '[.requests, .cost_usd_expected, .cost_usd] | @tsv')
like "$(tui_screen | tr -d '\n')" "$(printf 'Send up to %s requests to V/e at depth diagnose\\? USD %.2f expected, %.2f at most' "$1" "$2" "$3")" \
    "the question gives the depth and the plan's requests and USD"
tui_keys y
tui_wait "run 1 finished: " 60; ok $? "the run finishes, said in the status line"
run probe show 1
billed=$(printf '%s\n' "$out" | grep '^billed by the vendor: ')
like "$billed" "^billed by the vendor: [0-9,]+ tokens in, [0-9,]+ out, USD [0-9]+\.[0-9]{2}$" "probe show says what was billed, in USD"
like "$(tui_screen | tr -d '\n')" "run 1 finished: [0-9]+ findings?; $billed" "the TUI says the USD billed as probe show does"
is "$(sqlite3 "$AIVET_DB" "SELECT json_extract(options, '$.budget_usd') || ' ' || json_extract(plan, '$.depth') FROM probe_run WHERE id = 1")" \
    "40 diagnose" "the run ran at the depth and budget chosen"
like "$(tui_screen)" "1 +20[0-9-]+T[0-9:.]+Z +completed +[0-9]+ +critical" "the run is listed, worst finding critical"
tui_keys Enter
tui_wait "Run 1 on V/e: completed"; ok $? "Enter opens the run"
scr=$(tui_screen)
like "$scr" "; $billed" "the run says what was billed, as probe show does"
like "$scr" "✓ echo +pass" "a passing probe: symbol and word"
like "$scr" "✗ sweep +fail" "a failing probe: symbol and word"
like "$scr" "advertised 8,192; intact up to 5,[0-9]{3}; accepted up to the top; silent_degradation" \
    "the sweep's boundaries beside the advertised context"
like "$scr" "critical LEAK_CROSS_TENANT: a response to tenant '(alice|bob)' contained canaries that tenant '(bob|alice)' sent" \
    "the findings under their probe"
tui_keys /
tui_type LEAK_CROSS_TENANT
tui_keys Enter
# Keys queued behind a dialog's Enter are dropped: wait for the prompt to close.
tui_wait "filter: LEAK_CROSS_TENANT"
tui_keys Enter
tui_wait "REQUEST"; ok $? "Enter on a finding opens its evidence"
scr=$(tui_screen)
like "$scr" "LEAK_CROSS_TENANT \(critical\)" "the finding heads the evidence"
like "$scr" "RESPONSE" "request and response side by side"
like "$scr" "tenant (alice|bob)" "the response that leaked is a tenant's (either may receive the other's canaries)"
like "$scr" "Authorization: \[redacted\]" "the key is not shown"
like "$scr" ">>AIVET[A-Za-z0-9]{19}<<" "the leaked canary is marked"
# Which evidence opens (the leaked response) and how many there are depend on
# which tenant's canaries leaked where: Left steps to the one before, wrapping.
at=$(tui_screen | sed -n 's/.*Evidence [0-9]*: .* (\([0-9]*\) of \([0-9]*\);.*/\1 \2/p' | head -1)
k=${at% *} n=${at#* }
tui_keys Left
tui_wait "($(( k > 1 ? k - 1 : n )) of $n;"; ok $? "left steps to the other evidence (from $k of $n)"

# / in the evidence finds text in either pane and scrolls it to the top; n/N step.
tui_keys /; tui_type "x-request-id"; tui_keys Enter
tui_wait "/x-request-id: line 1 of 1 with it, at the top; n/N next/previous"; ok $? "/ searches the evidence"
like "$(tui_screen | sed -n 6p)" "x-request-id: req_sim" "the line found is at the top of the panes"
ESC=$(printf '\033')
like "$(tmux -S "$TMUX_SOCK" capture-pane -p -e | sed -n 6p)" "$ESC\[[0-9;]*7m([^a-z]*)x" \
	"the match is marked on screen (reversed), not by colour alone"
tui_keys q

# Enter on a probe shows it in words; J shows the raw JSON; Enter on a finding stays the evidence.
tui_keys / C-u; tui_type "✗ sweep"; tui_keys Enter
tui_wait "filter: ✗ sweep (1 of"
tui_keys Enter
tui_wait "aivet | Probe sweep"; ok $? "Enter on a probe opens it"
scr=$(tui_screen)
like "$scr" "^> Probe sweep: fail$" "its verdict in words"
like "$scr" "^    critical PLACEHOLDER_SUBSTITUTION \(finding [0-9]+\): " "its findings in full"
like "$scr" "^      the vendor should: " "with what the vendor should do"
like "$scr" "^    advertised: 8192$" "its details as an outline, not JSON"
unlike "$scr" '"advertised":' "no raw JSON"
tui_keys q
tui_keys J
tui_wait "aivet | Probe sweep as JSON"; ok $? "J shows the probe as raw JSON"
like "$(tui_screen)" '^      "name": +"sweep",$' "the JSON itself"
tui_keys q
tui_wait "Run 1 on V/e"; ok $? "q returns to the run"
like "$(tui_screen | tail -2)" "J raw JSON" "the footer names J"
tui_q_out
tui_wait "[exit 0]"; ok $? "q backs out and quits"
done_testing
