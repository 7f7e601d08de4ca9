#!/bin/sh
# tests/cli/report-links.sh: the report bundle reads as a whole. Every evidence
# id and file in report.html is a relative link, and in report.md a relative
# Markdown link, to a file the bundle holds (checked by report-links.py over
# every link); an exchange has one name, exchange-ID.json, in the bundle,
# the reports, probe show, evidence show and incident show; the calibration
# is a table; and no report of the fixture or of a live aivet-sim run prints
# null.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"

# no_null FILE...: how many lines print a missing value as null or (null).
no_null() { cat "$@" | grep -cwE 'null|\(null\)|NaN|nan'; }

# ---- the fixture: rows written as the code writes them ----
make_fixture
"$AIVET" key generate --no-password >/dev/null
run report acme --out "$T/fx" --at 2026-11-30T08:00:00Z --incident 1
is "$rc" 0 "fixture: the report is written"
is "$(python3 "$TESTS_SRCDIR/lib/report-links.py" "$T/fx")" "html 6 md 6 broken 0" \
	"fixture: every link in report.html and report.md is a bundle file listed in SHA256SUMS"
H="$T/fx/report.html" M="$T/fx/report.md"
is "$(grep -c '<td><a href="evidence/exchange-1.json" download type="application/octet-stream">exchange-1.json</a></td></tr>' "$H")" 2 \
	"fixture: a finding's evidence is a link named as in the bundle (in the summary and in the open findings; a contradicted claim is not a finding)"
is "$(grep -c '<tr><td><a href="evidence/exchange-2.json" download type="application/octet-stream">2</a></td><td>canary</td><td>2</td><td>tenant-b</td><td>200</td><td><a href="evidence/exchange-2.json" download type="application/octet-stream">evidence/exchange-2.json</a></td>' "$H")" 1 \
	"fixture: the exchanges table links the evidence id and the file"
is "$(grep -c '^| high | OVERSIZE_ACCEPTED | oversize | 1 | a prompt twice the advertised context got HTTP 200 | \[exchange-1.json\](evidence/exchange-1.json) |$' "$M")" 2 \
	"fixture: report.md's findings carry the relative path as a Markdown link"
is "$(grep -c '^| high | SILENT_TRUNCATION | sweep | 1 | nonces lost from 681280 tokens with HTTP 200 | none |$' "$M")" 2 \
	"fixture: a finding without evidence says none"
is "$(grep -c '^| \[1\](evidence/exchange-1.json) | oversize | 1 | tenant-a | 200 | \[evidence/exchange-1.json\](evidence/exchange-1.json) |' "$M")" 1 \
	"fixture: report.md's exchanges link the id and the file"
is "$(sed -n '/^| Calibration |/,/^$/p' "$M")" "| Calibration | Value | Evidence |
|---|---|---|
| Chars per token | 3.98 | — |" "fixture: a calibration of another shape is still a table, one row per value"
is "$(grep -c '<tr><th>Chars per token</th><td colspan="2">3.98</td></tr>' "$H")" 1 \
	"fixture: and in the HTML"
like "$(cat "$M")" "Context-integrity sweep: advertised 1048576 tokens; refusal boundary none found: no prompt sent was refused for size; integrity boundary 681280 tokens; change past the limit: \*\*silent_degradation\*\*\." \
	"fixture: a boundary that was not found is said in words"
like "$(cat "$M")" "\| 1048576 \| 200 \| yes \| 0 \| 3 \| not reported \| none \|" "fixture: usage not reported is said so"
like "$(cat "$H")" "refusal boundary none found: no prompt sent was refused for size; integrity boundary 681280 tokens\.</figcaption>" \
	"fixture: the chart's caption says the boundaries too"
run probe show 1
printf '%s\n' "$out" > "$T/fx-show.txt"
like "$out" "high     OVERSIZE_ACCEPTED: a prompt twice the advertised context got HTTP 200 \(evidence exchange-1\.json\)" \
	"fixture: probe show names the evidence as the bundle does"
like "$out" "SILENT_TRUNCATION: nonces lost from 681280 tokens with HTTP 200 \(evidence none recorded\)" \
	"fixture: and says when there is none"
like "$out" "ok   canary       pass          no reason recorded" "fixture: a result without a reason says so"
like "$out" "calibration: method not recorded" "fixture: so does a calibration without a method"
is "$(no_null "$M" "$H" "$T/fx-show.txt")" 0 "fixture: no report and no probe show prints null"

# ---- a live run against aivet-sim, with a file on an answer and on an incident ----
export AIVET_DB="$T/live.db"
sim_start --context 1048576 --pool 681280 --fault disagg-placeholder --tenants a=key-a,b=key-b
export KEY_A=key-a KEY_B=key-b
"$AIVET" vendor add lumen >/dev/null
"$AIVET" endpoint add lumen --name s --api openai --url "$SIM_URL/v1" --model m --context 1048576 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
"$AIVET" assess start lumen llm-inference-isolation >/dev/null
printf 'SOC 2 (type II), section 4\n' > "$T/soc 2 [final].txt"
"$AIVET" assess answer 1 kv_cache_scope per_tenant --evidence "$T/soc 2 [final].txt" >/dev/null
"$AIVET" probe run lumen/s --probe oversize,sweep,canary,errors --yes >/dev/null
leak=$(sqlite3 "$AIVET_DB" "SELECT id FROM finding WHERE code = 'LEAK_CROSS_TENANT'")
"$AIVET" incident open lumen --title leak --from-finding "$leak" >/dev/null
printf 'vendor notice\n' > "$T/notice.txt"
"$AIVET" incident link 1 --file "$T/notice.txt" >/dev/null
printf '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>\n' >"$T/chart.svg"
"$AIVET" incident link 1 --file "$T/chart.svg" >/dev/null
run report lumen --out "$T/live" --incident 1
is "$rc" 0 "live: the report is written"
R="$T/live/report.json" H="$T/live/report.html" M="$T/live/report.md"
# Links expected: each exchange twice (id, file), each finding's evidence (in the
# summary too when critical or high), two calibration samples, the answer's
# file, the incident's linked evidence; report.md adds each sweep point's exchange.
nlinks=$(jq '2 * ([.probe_runs[].exchanges[]] | length) + ([.findings[].evidence[]] | length)
	+ ([.summary.critical_findings[].evidence[]] | length) + 2 + 1 + ([.incidents[].evidence_files[]] | length)' "$R")
npoints=$(jq '[.probe_runs[].results[] | select(.probe == "sweep") | .details.points[] | select(.evidence)] | length' "$R")
is "$(python3 "$TESTS_SRCDIR/lib/report-links.py" "$T/live")" "html $nlinks md $((nlinks + npoints)) broken 0" \
	"live: every link resolves, one per evidence id or file shown"
nleak=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM finding_evidence WHERE finding_id = $leak")
is "$(jq '[.incidents[].evidence_files[]] | length' "$R")" "$((nleak + 2))" \
	"live: (the incident links the leak's exchanges, the notice and the chart)"
ok "$([ "$nleak" -ge 2 ] && echo 0 || echo 1)" "live: (the leak rests on two exchanges at least: $nleak)"
is "$(grep -cF '<a href="evidence/file-1-soc_2_%5Bfinal%5D.txt" download type="application/octet-stream">file-1-soc_2_[final].txt</a>' "$H")" 1 \
	"live: an answer's file is a link, its name percent-encoded in the href"
like "$(cat "$M")" "\| kv_cache_scope \| per_tenant \| high \| contradicted \| none \| tester \| [^|]+ \| \[file-1-soc\\\\_2\\\\_\\\\\[final\\\\\]\.txt\]\(evidence/file-1-soc_2_%5Bfinal%5D\.txt\) \|" \
	"live: and in report.md, the link text escaped for Markdown"
nid=$(sqlite3 "$AIVET_DB" "SELECT id FROM evidence WHERE kind = 'file' AND original_name = 'notice.txt'")
sid=$(sqlite3 "$AIVET_DB" "SELECT id FROM evidence WHERE kind = 'file' AND original_name = 'chart.svg'")
is "$(grep -o "<a href=\"evidence/file-$sid-chart.svg\"[^>]*>" "$H")" "<a href=\"evidence/file-$sid-chart.svg\" download type=\"application/octet-stream\">" \
	"live: an SVG with a script is linked to be downloaded as bytes, never opened beside the report"
is "$(grep -o '<a [^>]*>' "$H" | grep -vc ' download type="application/octet-stream">$')" 0 \
	"live: and so is every evidence link of report.html"
ok "$([ "$(grep -c '<a ' "$H")" -ge 10 ] && echo 0 || echo 1)" "live: (report.html has links: $(grep -c '<a ' "$H"))"
like "$(cat "$M")" "Linked evidence: .*\[file-$nid-notice\.txt\]\(evidence/file-$nid-notice\.txt\)" \
	"live: the incident's linked file is a link"

# The calibration table: what the calibration JSON holds, row by row.
cal=$(jq -c '.probe_runs[0].calibration' "$R")
s1=$(printf '%s' "$cal" | jq -r '.samples[0] | "\(.units) filler words: \(.tokens) tokens | [exchange-\(.evidence).json](evidence/exchange-\(.evidence).json)"')
s2=$(printf '%s' "$cal" | jq -r '.samples[1] | "\(.units) filler words: \(.tokens) tokens | [exchange-\(.evidence).json](evidence/exchange-\(.evidence).json)"')
is "$(sed -n '/^| Calibration |/,/^$/p' "$M")" "| Calibration | Value | Evidence |
|---|---|---|
| Method | usage: the prompt tokens the vendor reported for two sample prompts | — |
| Tokens per filler word | $(printf '%s' "$cal" | jq -r '.tokens_per_unit' | xargs printf '%.3f') | — |
| Overhead tokens per request | $(printf '%s' "$cal" | jq -r '.overhead_tokens' | xargs printf '%.0f') | — |
| Sample 1 | $s1 |
| Sample 2 | $s2 |
| Rejected counts | none | — |" "live: report.md's calibration is a table of method, rate, overhead, samples with their exchanges, rejections"
is "$(grep -c '<table class="calibration"><tr><th colspan="3">Calibration</th></tr>' "$H")" 1 "live: and the HTML's"
is "$(grep -c '"samples"\|tokens_per_unit' "$H" "$M" | awk -F: '{ n += $2 } END { print n }')" 0 \
	"live: no calibration JSON left in either"

# One name for an exchange: the bundle's file, the reports, probe show, evidence show, incident show.
ev=$(jq -r '.findings[] | select(.code == "LEAK_CROSS_TENANT") | .evidence[0]' "$R")
ok "$(test -f "$T/live/evidence/exchange-$ev.json"; echo $?)" "live: the bundle holds exchange-$ev.json"
run probe show 1
printf '%s\n' "$out" > "$T/live-show.txt"
like "$out" "LEAK_CROSS_TENANT: .* \(evidence exchange-$ev\.json " "live: probe show names it exchange-$ev.json"
run evidence show "$ev"
like "$out" "^evidence $ev: exchange, exchange-$ev\.json, " "live: evidence show too"
run evidence show "$ev" --json
is "$(printf '%s' "$out" | jq -r .file)" "exchange-$ev.json" "live: evidence show --json has the name in file"
run incident show 1
like "$out" "  evidence $ev +[0-9a-f]{64} exchange-$ev\.json" "live: incident show's links too"
is "$(no_null "$M" "$H" "$T/live-show.txt")" 0 "live: no report and no probe show prints null"
sim_stop
done_testing
