#!/bin/sh
# tui-probe.sh: the probe screens in tmux against aivet-sim — from an
# endpoint, r opens its runs and r runs the probes with live progress; the
# run lists verdicts with symbols and words and the findings under them; a
# finding opens its evidence, request and response side by side, with the
# leaked canary marked >> <<.
. "$TESTS_SRCDIR/lib.sh"
. "$TESTS_SRCDIR/sim-lib.sh"
. "$TESTS_SRCDIR/probe-lib.sh"
. "$TESTS_SRCDIR/tui-lib.sh"

sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
TUI_ENV="PROBE_KEY_ALICE=$PROBE_KEY_ALICE PROBE_KEY_BOB=$PROBE_KEY_BOB"

tui_start 160x40 tui
tui_wait "V"
tui_keys L
tui_wait "Vendors"
tui_keys Enter
tui_wait "ENDPOINT"; ok $? "the vendor shows its endpoints"
tui_keys r
tui_wait "Probe runs of V/e (0)"; ok $? "r on an endpoint opens its probe runs"
tui_keys r
tui_wait "Send up to"; ok $? "r asks before sending, with the plan"
like "$(tui_screen)" "Send up to [0-9,]+ requests and [0-9,]+ input tokens to V/e\?" "the plan in the question"
tui_keys y
tui_wait "run 1 finished: " 60; ok $? "the run finishes, said in the status line"
like "$(tui_screen)" "1 +20[0-9-]+T[0-9:.]+Z +completed +[0-9]+ +critical" "the run is listed, worst finding critical"
tui_keys Enter
tui_wait "Run 1 on V/e: completed"; ok $? "Enter opens the run"
scr=$(tui_screen)
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
tui_keys Left
tui_wait "(1 of"; ok $? "left steps to the other evidence"

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
tui_keys q q q q q q
tui_wait "[exit 0]"; ok $? "q backs out and quits"
done_testing
