#!/bin/sh
# tests/sim/sim-report.sh: the whole chain over real HTTP. aivet-sim stands in
# for a vendor whose disaggregated serving swaps oversized prompts for a
# placeholder; the vendor's answers (bundled questionnaire) say requests
# over the limit get an error and the KV cache is per tenant; the probes
# find otherwise; the signed report says so, and minisign and aivet verify it.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

sim_start --context 1048576 --pool 681280 --fault disagg-placeholder --tenants a=key-a,b=key-b
export KEY_A=key-a KEY_B=key-b
"$AIVET" vendor add lumen >/dev/null
"$AIVET" endpoint add lumen --name s --api openai --url "$SIM_URL/v1" --model m --context 1048576 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
"$AIVET" assess start lumen llm-inference-isolation >/dev/null
"$AIVET" assess answer 1 over_limit_behaviour error --note "per the vendor's FAQ" >/dev/null
"$AIVET" assess answer 1 kv_cache_scope per_tenant >/dev/null
"$AIVET" assess answer 1 errors_are_errors yes >/dev/null
# Answered while asked, then hidden by its depends_on: not asked, so not reported.
"$AIVET" assess answer 1 pd_disaggregated yes >/dev/null
"$AIVET" assess answer 1 kv_transfer_checked yes >/dev/null
"$AIVET" assess answer 1 pd_disaggregated no >/dev/null
"$AIVET" assess answer 1 training_on_customer_data no >/dev/null
"$AIVET" incident open lumen --title "Another tenant's text in a reply" --endpoint lumen/s \
	--discovered 2026-11-29T11:00:00Z --severity 3 --phi yes --individuals 120 \
	--window-start 2026-11-28T09:00:00Z --window-end 2026-11-29T10:00:00Z --eu-data no >/dev/null
run probe run lumen/s --probe oversize,sweep,canary,errors --yes
is "$rc" 1 "the probes ran and found problems (exit 1)"
"$AIVET" key generate --no-password >/dev/null

run report lumen --out "$T/b" --at 2026-11-30T08:00:00Z
is "$rc" 0 "report of the live run"
R="$T/b/report.json"
M="$T/b/report.md"
H="$T/b/report.html"
run assess show 1
show_rating=$(printf '%s\n' "$out" | sed -n 's/^  rating \([a-z]*\), risk score \([0-9.]*\) (worst answer \([a-z]*\)).*/\1 \2 \3/p')
is "$(grep '^Rating \*\*' "$M" | sed 's/^Rating \*\*\([a-z]*\)\*\*, risk score \([0-9.]*\) (worst answer \([a-z]*\)).*/\1 \2 \3/')" \
	"$show_rating" "report.md rates the assessment as assess show does"
at() { sed 's/| 20[0-9T:.-]*Z |/| AT |/; s/<td>20[0-9T:.-]*Z<\/td>/<td>AT<\/td>/'; }
is "$(sed -n '/^| Question | Answer | Risk | Claim |/,/^$/p' "$M" | grep '^| kv_cache_scope \|^| pd_disaggregated \|^| training_on_customer_data ' | at)" \
"| kv_cache_scope | per_tenant | high | contradicted | none | tester | AT | none |
| pd_disaggregated | no | none | untested | none | tester | AT | none |
| training_on_customer_data | no | none | not testable | none | tester | AT | none |" \
	"report.md: each answer with its risk as rated (a contradicted claim counted high) and its claim status"
is "$(printf '%s\n' "$out" | sed -n 's/^  kv_cache_scope  *per_tenant  *lumen\/s  *//p')" contradicted \
	"in the words assess show uses for the same claim"
like "$(cat "$H")" '<td>kv_cache_scope: How are KV caches and prefix \(prompt\) caches scoped\?</td><td>per_tenant</td><td>high</td><td class="claim-contradicted"><strong>contradicted</strong></td><td>none</td>' \
	"report.html: the same risk and claim status"
like "$(cat "$H")" '<td>training_on_customer_data: [^<]*</td><td>no</td><td>none</td><td>not testable</td>' \
	"report.html: an answer no probe tests says so"
is "$(grep -c kv_transfer_checked "$M" "$H" "$R" | tr '\n' ' ')" "$M:0 $H:0 $R:0 " \
	"a question its depends_on no longer asks is left out of report.md, report.html and report.json"
is "$(sed -n '/^### Incident 1: /,/^## Endpoints/p' "$M" | grep -v '^$')" \
"### Incident 1: Another tenant's text in a reply
Status new; severity 3 (high; 4 = most severe); discovered 2026-11-29T11:00:00.000Z; PHI yes; 120 individuals; EU data no; exposure window 2026-11-28T09:00:00.000Z to 2026-11-29T10:00:00.000Z.
| When (UTC) | Kind | Who | What |
|---|---|---|---|
| 2026-11-29T11:00:00.000Z | detection | tester | Incident opened: Another tenant's text in a reply |
Notification clocks as of 2026-11-30T08:00:00.000Z:
| Clock | State | Due | Stopped | Why |
|---|---|---|---|---|
| HIPAA notice to individuals | running | 2027-01-28T11:00:00Z | not stopped | PHI involved |
| HIPAA notice to HHS | running | by 2027-03-01, end of day UTC (assumed: no zone set) | not stopped | PHI involved; 120 individuals (fewer than 500): annual log, 60 days after the end of the calendar year of discovery |
| HIPAA notice to media | not-applicable | no deadline | not stopped | 120 individuals in all, so no state has more than 500 |
| Vendor's contractual notice | running | 2026-11-30T11:00:00Z | not stopped | contract: notice time unknown (not answered or given), may apply: assumed 24h, the strictest, until given (--vendor-sla), from the incident's discovery (the vendor's own discovery time is not recorded) |
| GDPR supervisory authority | not-applicable | no deadline | not stopped | no EU personal data involved |
## Endpoints" \
	"report.md (a vendor report): each incident in full, its facts, timeline and clocks with their due text"
is "$(grep -A3 '^<h3>Incident 1: ' "$H")" "<h3>Incident 1: Another tenant&#39;s text in a reply</h3>
<p>Status new; severity 3 (high; 4 = most severe); discovered 2026-11-29T11:00:00.000Z; PHI yes; 120 individuals; EU data no; exposure window 2026-11-28T09:00:00.000Z to 2026-11-29T10:00:00.000Z.</p>
<table><tr><th>When (UTC)</th><th>Kind</th><th>Who</th><th>What</th></tr>
<tr><td>2026-11-29T11:00:00.000Z</td><td>detection</td><td>tester</td><td>Incident opened: Another tenant&#39;s text in a reply</td></tr>" \
	"report.html: the incident's facts and timeline"
like "$(cat "$H")" '<tr><td>HIPAA notice to HHS</td><td>running</td><td>by 2027-03-01, end of day UTC \(assumed: no zone set\)</td>' \
	"report.html: its clocks with the due text incident show prints"
is "$(jq -r '[.claims[] | .question_id + "=" + .status] | join(" ")' "$R")" \
	"kv_cache_scope=contradicted over_limit_behaviour=contradicted errors_are_errors=contradicted pd_disaggregated=untested" \
	"claims in questionnaire order: no answer that the findings disprove is confirmed"
is "$(jq -r '.claims[] | select(.question_id == "errors_are_errors") | [.contradicting[].code] | unique | join(" ")' "$R")" \
	"PLACEHOLDER_SUBSTITUTION" "errors are errors: disproved by a prompt swapped behind a 200, whatever probe saw it"
like "$(jq -r '[.findings[].code] | join(" ")' "$R")" "LEAK_CROSS_TENANT" "the cross-tenant leak is a finding"
is "$(jq -r '[.summary.claims.contradicted, .summary.claims.contradicted_not_rated, ([.findings[] | select(.code == "CLAIM_CONTRADICTED")] | length), ([.assessments[] | .rating_reads] | unique | map(tostring) | join(","))] | map(tostring) | join(" ")' "$R")" "0 3 0 false" \
	"contradicted claims are counted as claims, never as findings; a draft's beside the rating, which reads no draft"
like "$(cat "${R%/*}/report.md")" "Of the rounds the rating reads; 3 more in a round it does not read" \
	"report.md says where the draft's contradicted claims are"
is "$(jq -r '.summary.rating' "$R")" unacceptable "the rating is unacceptable"
is "$(jq -r '.probe_runs[0].results[] | select(.probe=="sweep") | .details | [.advertised, .change] | map(tostring) | join(" ")' "$R")" \
	"1048576 silent_degradation" "the sweep saw silent degradation below the advertised context"
is "$(grep -c '<svg class="sweep-chart"' "$T/b/report.html")" 1 "and the HTML charts it"
# Each size the sweep sent is a point of its own; nothing is drawn between two
# sizes, where nothing was sent.
npts=$(jq '[.probe_runs[].results[] | select(.probe == "sweep") | .details.points[]] | length' "$R")
like "$npts" '^[1-9][0-9]*$' "the sweep sent $npts prompts"
is "$(sed -n '/<svg class="sweep-chart"/,/<\/svg>/p' "$T/b/report.html" | grep -c '<circle ')" "$npts" \
	"the chart has one point per size the sweep sent"
is "$(sed -n '/<svg class="sweep-chart"/,/<\/svg>/p' "$T/b/report.html" | grep -c '<polyline\|<path')" 0 \
	"and no line joining sizes nobody sent between"
is "$(grep -rl 'key-a\|key-b' "$T/b" | wc -l | tr -d ' ')" 0 "no credential in the bundle"
(cd "$T/b" && minisign -Vm SHA256SUMS -p aivet.pub >/dev/null 2>&1 && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1)
ok $? "minisign and sha256sum verify the bundle"
run verify "$T/b" --key aivet
is "$rc" 0 "aivet verify accepts it"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/oscal_assessment-results_schema-1.0.6.json" "$T/b/oscal-assessment-results.json" 2>&1)
is "$v" "0 errors" "the OSCAL output of a live run validates"
sim_stop
done_testing
