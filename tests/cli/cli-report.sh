#!/bin/sh
# tests/cli/cli-report.sh: aivet report and aivet verify — the bundle's files
# and contents, claims against evidence, redaction, determinism, OSCAL
# validity, the stock minisign and sha256sum checks, the openssl fallback in
# VERIFY.txt run as written, and every kind of tampering named by verify.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
make_fixture
"$AIVET" key generate --no-password >/dev/null
KEYID=$(sed -n 's/^untrusted comment: minisign public key //p' "$XDG_CONFIG_HOME/aivet/keys/aivet.pub")
AT=2026-11-30T08:00:00Z
cp "$FIXTURE_DB" "$T/pristine.db"

# ---- refusals change nothing ----
before=$(db_snapshot)
run report acme
is "$rc" 2 "report without --out is refused"
like "$errout" "^aivet: --out DIR is required" "and says so"
run report nosuch --out "$T/x"
is "$rc" 2 "an unknown vendor is refused"
run report acme --out "$T/x" --runs 1,x
is "$rc" 2 "a bad --runs is refused"
is "$errout" "aivet: --runs: 'x' is not a whole number" "naming the bad id"
run report acme --out "$T/x" --runs 99
is "$rc" 2 "a run of another vendor (or none) is refused"
is "$errout" "aivet: --runs: no probe run 99 for vendor 'acme'" "and named"
run report acme --out "$T/x" --incident 7
is "$errout" "aivet: --incident: no incident 7 for vendor 'acme'" "an unknown incident is named"
run report acme --out "$T/x" --key nokey
is "$rc" 2 "a missing key is refused"
mkdir "$T/full" && touch "$T/full/keep"
run report acme --out "$T/full"
is "$errout" "aivet: --out $T/full: exists and is not empty" "a non-empty --out is refused"
is "$(db_snapshot)" "$before" "failed reports changed nothing in the database"
ok "$(test ! -e "$T/x"; echo $?)" "and wrote no bundle"

# ---- the bundle ----
B="$T/bundle"
run report acme --out "$B" --at "$AT" --incident 1
is "$rc" 0 "report succeeds"
RID=$(jq -r .report_id "$B/report.json")
like "$out" "^report $RID written to $B" "prints the report id and where"
like "$out" "signed by    key id $KEYID" "and the signing key id"
is "$(cd "$B" && find . -type f | sort | tr '\n' ' ')" \
	"./SHA256SUMS ./SHA256SUMS.minisig ./VERIFY.txt ./aivet.pub ./evidence/exchange-1.json ./evidence/exchange-2.json ./oscal-assessment-results.json ./report.html ./report.json ./report.md " \
	"the bundle holds exactly the expected files"
is "$(cut -c67- "$B/SHA256SUMS" | tr '\n' ' ')" \
	"VERIFY.txt aivet.pub evidence/exchange-1.json evidence/exchange-2.json oscal-assessment-results.json report.html report.json report.md " \
	"SHA256SUMS lists every other file, sorted"
is "$(sqlite3 "$AIVET_DB" "SELECT report_uuid, key_id, out_dir FROM report")" "$RID|$KEYID|$B" \
	"the export is recorded in the report table"
is "$(sqlite3 "$AIVET_DB" "SELECT action FROM audit_log ORDER BY seq DESC LIMIT 1")" "report.export" \
	"and in the audit log"

# ---- stock tools ----
(cd "$B" && minisign -Vm SHA256SUMS -p aivet.pub >/dev/null 2>&1)
ok $? "minisign -Vm SHA256SUMS -p aivet.pub verifies the bundle"
(cd "$B" && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1)
ok $? "sha256sum -c SHA256SUMS passes"
tc=$(sed -n 3p "$B/SHA256SUMS.minisig")
head=$(jq -r .audit_checkpoint.head "$B/report.json")
n=$(jq -r .audit_checkpoint.entries "$B/report.json")
is "$tc" "trusted comment: aivet-report:$RID	generated_at:2026-11-30T08:00:00.000Z	audit_entries:$n	audit_head:$head	file:SHA256SUMS" \
	"the trusted comment binds report id, time and audit checkpoint"
is "$(sed -n 2p "$B/SHA256SUMS.minisig" | base64 -d | head -c 2)" "ED" "the signature is prehashed (ED)"

# ---- VERIFY.txt: the whole key, to compare with one obtained out of band ----
PUBKEY=$(sed -n 2p "$XDG_CONFIG_HOME/aivet/keys/aivet.pub")
export PUBKEY
is "$(sed -n 5,7p "$B/VERIFY.txt")" "It is signed with this Ed25519 public key (minisign format, key id $KEYID):

    $PUBKEY" "VERIFY.txt prints the signer's whole public key"
like "$(cat "$B/VERIFY.txt")" "Compare that whole key, every character, with the signer's public key as the" \
	"and tells the auditor to compare it with one obtained out of band"
like "$(cat "$B/VERIFY.txt")" "    minisign -Vm SHA256SUMS -P \"\\\$PUBKEY\"" "minisign is run with that key, not aivet.pub"
(cd "$B" && minisign -Vm SHA256SUMS -P "$PUBKEY" >/dev/null 2>&1)
ok $? "which verifies"
is "$(jq -r .signer_public_key "$B/report.json")" "$PUBKEY" "report.json: signer_public_key"
is "$(grep "Signer's public key" "$B/report.md")" "- Signer's public key: \`$PUBKEY\` (compare it with the key obtained out of band)" \
	"report.md's header prints it"
is "$(grep -F -c "<dt>Signer's public key</dt><dd><code>$PUBKEY</code> (compare it with the key obtained out of band)</dd>" "$B/report.html")" 1 \
	"report.html's header too"
is "$(printf '%s\n' "$out" | grep '^  public key')" "  public key   $PUBKEY (auditors compare it with the key they obtained out of band)" \
	"report prints it"

# ---- the openssl-only fallback, exactly as VERIFY.txt writes it ----
sed -n '/^    B=/,/^    while read/p' "$B/VERIFY.txt" | sed 's/^    //' > "$T/fallback.sh"
is "$(wc -l < "$T/fallback.sh" | tr -d ' ')" 11 "VERIFY.txt holds the 11-line openssl fallback"
fb=$(cd "$B" && TMPDIR="$T" sh -e "$T/fallback.sh" 2>&1) && fbrc=0 || fbrc=$?
is "$fbrc" 0 "the openssl fallback runs from the bundle directory"
is "$fb" "Signature Verified Successfully
Signature Verified Successfully" "and verifies both signatures and every hash"
cp -r "$B" "$T/fb-tampered"
printf 'x' >> "$T/fb-tampered/report.md"
fb=$(cd "$T" && B="$T/fb-tampered" TMPDIR="$T" sh -e "$T/fallback.sh" 2>&1)
like "$fb" "MISMATCH report.md" "the fallback catches a changed file"
sed -i '3s/aivet-report:/aivet-report:x/' "$T/fb-tampered/SHA256SUMS.minisig"
fb=$(cd "$T" && B="$T/fb-tampered" TMPDIR="$T" sh -e "$T/fallback.sh" 2>&1) && fbrc=0 || fbrc=$?
like "$fb" "Signature Verification Failure" "the fallback catches an edited trusted comment"

# ---- aivet verify ----
run verify "$B"
is "$rc" 0 "aivet verify accepts the bundle"
is "$out" "bundle $B verified
  signature    good, key id $KEYID
  signer       $(sed -n 2p "$XDG_CONFIG_HOME/aivet/keys/aivet.pub")
  trusted as   own key 'aivet'
  report       $RID
  files        8 match SHA256SUMS, none missing or extra
  generated    $(jq -r .generated_at "$B/report.json") (as the signer says)
  time-stamp   time not attested
  approvals    not verified: assessment 1 by bob: approved, signature missing" \
	"and says what it checked, naming the round approved without a signature (the fixture's, unsigned)"
is "$(grep -A1 '^    # assessment 1:' "$B/VERIFY.txt")" "    # assessment 1: approved by bob, signature missing: nothing here
    # proves who approved it" "VERIFY.txt names the final round approved without a signature, from the record"
run verify "$B" --key aivet --json
is "$(printf "%s\n" "$out" | json '[.ok, .key_id, .report_id, .files_checked, (.problems|length)] | map(tostring) | join(" ")')" \
	"true $KEYID $RID 8 0" "verify --key --json"

# ---- report.json content ----
R="$B/report.json"
is "$(jq -r '[.format, .generated_at, .retention_until, .signer_key_id, .vendor.name] | join(" ")' "$R")" \
	"aivet-report/1 2026-11-30T08:00:00.000Z 2032-11-30T08:00:00.000Z $KEYID acme" \
	"header fields: format, generated_at, retention six years ahead, signer, vendor"
is "$(jq -r '.claims | map(.question_id + "=" + .status) | join(" ")' "$R")" \
	"limits_oversize=contradicted isolation_tenant=consistent context_full=contradicted stream_isolation=untested" \
	"claims vs evidence: contradicted, consistent (a canary pass at depth verify), contradicted, untested (no run)"
is "$(jq -r '[.claims[].endpoint] | unique | join(" ")' "$R")" "prod" "each claim names the endpoint it was tested on"
is "$(jq -r '[.findings[] | .severity + ":" + .code] | join(" ")' "$R")" \
	"high:OVERSIZE_ACCEPTED high:SILENT_TRUNCATION" \
	"findings sorted by severity; a contradicted claim is a claim, not a finding"
is "$(jq -c '[.claims[] | select(.status == "contradicted") | [.contradicting[].evidence[]]]' "$R")" "[[1],[]]" \
	"a contradicted claim cites the evidence of its probe's findings"
is "$(jq -r '.summary | [.rating, .findings.critical, .findings.high, .claims.contradicted, (.contradicted_claims|length)] | map(tostring) | join(" ")' "$R")" \
	"unacceptable 0 2 2 2" "summary: rating, open findings counted, contradicted claims as claims"
run assess show 1 --json
is "$(jq -r '.assessments[0] | "\(.rating) \(.risk_score)"' "$R") $(printf '%s' "$out" | json '.score | "\(.rating) \(.risk_score)"')" \
	"unacceptable 30 unacceptable 30" "an assessment is rated in report.json exactly as assess show rates it (its contradicted claims counted high)"
like "$(jq -r .summary.rating_rule "$R")" "^the worst of: the rating of the latest final round of each questionnaire \\(a newer draft is shown beside it, never in its place\\); unacceptable for a high or critical open finding" \
	"the report says how the assessments and the findings combine"
like "$(jq -r .summary.assessment_rating_rule "$R")" "^unacceptable when an answer carries high or critical risk \\(an answer whose claim the evidence contradicts carries at least high risk\\); otherwise incomplete" \
	"and how an assessment is rated"
is "$(jq -r '.assessments[0] | [.status, .reviewer, .questionnaire.qid, (.answers|length), .answers[0].question_id, .answers[2].value, .answers[2].note] | map(tostring) | join(" ")' "$R")" \
	"final bob ai-vendor 5 context_full error per their docs" "assessment round with answers, reviewer and questionnaire"
is "$(jq -r '.probe_runs[0] | [.id, .status, .calibration.chars_per_token, (.results|length), (.exchanges|length), .findings[0].evidence[0]] | map(tostring) | join(" ")' "$R")" \
	"1 completed 3.98 3 2 1" "probe run with calibration, results, exchanges and finding evidence"
is "$(jq -r '.endpoints[0].credentials | map(keys|join(",")) | join(" ")' "$R")" "label,org label,org" \
	"endpoints name their tenants by label and organisation only"
is "$(jq -r '.incidents[0] | [.title, (.timeline|length), .timeline[0].kind, (.tasks|length), .links[0].object_type, .as_of] | map(tostring) | join("|")' "$R")" \
	"Cross-tenant text in responses|2|detection|1|run|2026-11-30T08:00:00.000Z" \
	"--incident includes the timeline, tasks and links, as of the report's time"
is "$(jq -r '.incidents[0].clocks[] | select(.id == "hipaa-individuals") | .state + " " + .due' "$R")" \
	"running 2027-01-28T11:00:00.000Z" "and its notification clocks"
like "$(cat "$B/report.html")" "HIPAA notice to individuals</td><td>running</td><td>2027-01-28T11:00:00Z</td>" \
	"the HTML shows the clocks (an instant with its zone, as incident due says it)"
is "$(grep -c '<h2 id="runs">' "$B/report.html") $(grep -c '<h2 id="assessments">' "$B/report.html") $(grep -c '<h2 id="incidents">' "$B/report.html")" \
	"1 1 1" "report.html: each section heading once (unique ids)"
is "$(grep -o ' id="[a-z-]*"' "$B/report.html" | sort | uniq -d | wc -l)" 0 "report.html: no id twice"
like "$(cat "$B/report.html")" "<p>Rating <span class=\"rating rating-unacceptable\">unacceptable</span>, risk score 30.0 \(worst answer high\); 2 contradicted claims counted high: " \
	"report.html: each assessment with its rating, score and contradicted claims"

# ---- evidence: credentials redacted, leaked content left out ----
E1="$B/evidence/exchange-1.json"
is "$(jq -r '[.request.headers.Authorization, .response.headers["set-cookie"], .url] | join(" ")' "$E1")" \
	"[REDACTED] [REDACTED] https://api.acme.example/v1/chat/completions?api-key=REDACTED&x=1" \
	"exchange evidence redacts credentials in headers and the URL"
is "$(grep -rl 'sk-live-SECRET\|SECRETCOOKIE\|ACME_KEY' "$B" | wc -l | tr -d ' ')" 0 \
	"no credential or credential reference anywhere in the bundle"
like "$(jq -r .response.body "$E1")" "Patient John Doe" "a plaintext exchange keeps its body"
is "$(jq -r '[.request.headers[0], (.response.encrypted|tostring), (.response.body|tostring), .response.sha256] | join(" ")' "$B/evidence/exchange-2.json")" \
	"Authorization: [REDACTED] true null $(printf '%s' '{"choices":[{"message":{"content":"CANARY-7f3a leaked from tenant-a"}}]}' | sha256sum | cut -d' ' -f1)" \
	"an encrypted (leaked) response: metadata and hash, no body"
is "$(jq -r '.evidence_files | map(.path + "=" + .sha256) | join(" ")' "$R")" \
	"$(cd "$B" && for f in evidence/exchange-1.json evidence/exchange-2.json; do printf '%s=%s ' "$f" "$(sha256sum "$f" | cut -d' ' -f1)"; done | sed 's/ $//')" \
	"report.json lists each evidence file with its SHA-256"

# ---- HTML and Markdown ----
H="$B/report.html"
is "$(grep -c '<svg class="sweep-chart"' "$H")" 1 "the HTML has the sweep chart as inline SVG"
like "$(grep -o 'advertised 1.05M' "$H" | head -1)" "advertised 1.05M" "the chart marks the advertised context"
like "$(grep -o 'integrity lost 681k' "$H" | head -1)" "integrity lost 681k" "and the real boundary"
is "$(grep -ciE '<script|<link|<iframe|<img|src=|url\(|@import' "$H")" 0 \
	"the HTML fetches nothing and has no scripts"
is "$(grep -o 'href="[^"]*"' "$H" | grep -vc '^href="evidence/[^"/]*"$')" 0 \
	"its only links are relative, to the bundle's evidence files"
like "$(sed -n '/<h2/p' "$H" | head -1)" 'id="summary"' "the summary comes first"
like "$(cat "$H")" 'rating rating-unacceptable' "with the overall rating"
like "$(cat "$B/report.md")" "Overall rating: \*\*unacceptable\*\*" "report.md has the same summary"
like "$(cat "$B/report.md")" "\| limits_oversize \| round 1 of assessment 1 \([a-z_]+; the rating (does not )?reads? it\) \| error \| prod \| contradicted \| OVERSIZE_ACCEPTED in run 1 \(oversize\) \|" \
	"and the claims table"
is "$(grep -A2 '^| Question | Answer | Risk | Claim | Note | By | At | Evidence |$' "$B/report.md" | sed -n 3p)" \
	"| context_full | yes | high | contradicted | none | alice | 2026-11-02T10:02:00.000Z | none |" \
	"report.md's answers carry their risk as rated, their claim status and an evidence column (none when none is attached)"

# ---- OSCAL ----
O="$B/oscal-assessment-results.json"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/oscal_assessment-results_schema-1.0.6.json" "$O" 2>&1)
is "$v" "0 errors" "OSCAL assessment-results validate against the NIST 1.0.6 schema"
jq '."assessment-results".results[0].findings[0].target.status.state = "maybe"' "$O" > "$T/bad-oscal.json"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/oscal_assessment-results_schema-1.0.6.json" "$T/bad-oscal.json" 2>&1)
like "$v" "'maybe' is not one of" "(the validator does reject an invalid document)"
is "$(jq -r '."assessment-results" | [.uuid, .metadata["oscal-version"], (.results[0].observations|length), (.results[0].findings|length), (."back-matter".resources|length)] | map(tostring) | join(" ")' "$O")" \
	"$RID 1.0.6 8 4 3" "OSCAL: uuid, version, 8 observations (3 results, 5 answers), 4 findings (2 probe findings, 2 contradicted claims; a consistent one concludes nothing), 3 resources (plan, 2 evidence files)"
is "$(jq -r '."assessment-results"."back-matter".resources[1].rlinks[0] | .href + " " + .hashes[0].algorithm + " " + .hashes[0].value' "$O")" \
	"evidence/exchange-1.json SHA-256 $(sha256sum "$E1" | cut -d' ' -f1)" "back-matter carries the evidence hashes"

# ---- determinism: same database and options, same bytes ----
cp "$T/pristine.db" "$T/a.db"
cp "$T/pristine.db" "$T/b.db"
AIVET_DB="$T/a.db" "$AIVET" report acme --out "$T/d1" --at "$AT" >/dev/null
AIVET_DB="$T/b.db" "$AIVET" report acme --out "$T/d2" --at "$AT" >/dev/null
cmp -s "$T/d1/report.json" "$T/d2/report.json"
ok $? "the same inputs give the same report.json bytes"
diff -r "$T/d1" "$T/d2" >/dev/null
ok $? "and the same bundle, signature included"
AIVET_DB="$T/a.db" "$AIVET" report acme --out "$T/d3" --at "$AT" --runs 1 >/dev/null
cmp -s "$T/d1/report.json" "$T/d3/report.json"
ok $(( ! $? )) "different options give a different report"

# ---- selection ----
AIVET_DB="$T/b.db" run report acme --out "$T/s1" --since 2026-11-30 --at "$AT" --json
is "$(printf "%s\n" "$out" | json '.rating')" "acceptable" "--since after the run leaves it out (only answers remain)"
is "$(printf "%s\n" "$out" | json '[.report_id, .out_dir, .key_id, .sums_sha256, .evidence_files] | map(tostring) | join(" ")')" \
	"$(jq -r .report_id "$T/s1/report.json") $T/s1 $KEYID $(sha256sum "$T/s1/SHA256SUMS" | cut -d' ' -f1) 0" \
	"report --json: report_id, out_dir, key_id, sums_sha256, evidence_files"
is "$(jq -r '[(.probe_runs|length), (.claims|map(.status)|unique|join(","))] | map(tostring) | join(" ")' "$T/s1/report.json")" \
	"0 untested" "without runs every claim is untested"
is "$(jq -r '[.claims[].endpoint] | unique | map(tostring) | join(" ")' "$T/s1/report.json")" "prod" \
	"and names the endpoint that was not probed"

# ---- tampering: each named by aivet verify ----
tamper() { # tamper NAME: fresh copy of the bundle in $C
	C="$T/tamper-$1"
	rm -rf "$C"
	cp -r "$B" "$C"
}
flip() { # flip FILE: changes one byte in the middle
	size=$(stat -c %s "$1")
	off=$((size / 2))
	byte=$(dd if="$1" bs=1 skip=$off count=1 2>/dev/null | od -An -tx1 | tr -d ' ')
	new=$(printf '%02x' $(( 0x$byte ^ 1 )))
	printf "\\$(printf '%03o' 0x$new)" | dd of="$1" bs=1 seek=$off conv=notrunc 2>/dev/null
}
for f in report.json report.html report.md oscal-assessment-results.json VERIFY.txt aivet.pub \
    evidence/exchange-1.json evidence/exchange-2.json; do
	tamper flip
	flip "$C/$f"
	run verify "$C"
	is "$rc" 1 "a byte flipped in $f fails verification"
	case $f in
	aivet.pub) like "$out" "aivet.pub" "and names aivet.pub" ;;
	*) like "$out" "  $f: SHA-256 does not match SHA256SUMS" "and names $f" ;;
	esac
done
is "$errout" "aivet: $C: verification failed (1 problem)" "the error line counts the problems"
tamper sums
flip "$C/SHA256SUMS"
run verify "$C"
is "$rc" 1 "a byte flipped in SHA256SUMS fails"
like "$out" "SHA256SUMS.minisig: signature does not match SHA256SUMS" "and names SHA256SUMS"
tamper sig
flip "$C/SHA256SUMS.minisig"
run verify "$C"
is "$rc" 1 "a byte flipped in SHA256SUMS.minisig fails"
like "$out" "SHA256SUMS.minisig" "and names the signature file"
tamper comment
sed -i '3s/audit_entries:/audit_entries:1/' "$C/SHA256SUMS.minisig"
run verify "$C"
is "$rc" 1 "an edited trusted comment fails"
like "$out" "SHA256SUMS.minisig: the trusted comment was altered \(global signature does not verify\)" \
	"and says the trusted comment was altered"
tamper removed
rm "$C/evidence/exchange-2.json"
run verify "$C"
is "$rc" 1 "a removed file fails"
like "$out" "  evidence/exchange-2.json: missing \(listed in SHA256SUMS\)" "and names the missing file"
tamper added
echo extra > "$C/evidence/extra.json"
run verify "$C"
is "$rc" 1 "an added file fails"
is "$out" "bundle $C FAILED verification
  parts        signature verified, hashes failed, report verified, time-stamp none
  evidence/extra.json: extra file, not listed in SHA256SUMS" "and names the extra file, nothing else"
tamper symlink
ln -s /etc/passwd "$C/evidence/link.json"
run verify "$C"
is "$out" "bundle $C FAILED verification
  parts        signature verified, hashes failed, report verified, time-stamp none
  evidence/link.json: not a regular file" "a symbolic link in the bundle is named"
tamper resigned
# Re-signed with another key: good signature, but not by the key we trust.
"$AIVET" key generate --name other --no-password >/dev/null
jq '.vendor.name = "not-acme"' "$B/report.json" > "$C/report.json"
(cd "$C" && sha256sum VERIFY.txt aivet.pub evidence/exchange-1.json evidence/exchange-2.json \
	oscal-assessment-results.json report.html report.json report.md > SHA256SUMS)
"$AIVET" key sign "$C/SHA256SUMS" --key other --trusted-comment "$(sed -n 3p "$B/SHA256SUMS.minisig" | cut -c18-)" >/dev/null
run verify "$C" --key aivet
is "$rc" 1 "a bundle re-signed by another key fails against the trusted key"
like "$out" "SHA256SUMS.minisig: signed by key [0-9A-F]{1,16}, not by the expected key $KEYID" "and says whose it is"

# ---- minisign signs a bundle's SHA256SUMS with an aivet key; aivet verifies ----
tamper minisigned
(cd "$C" && minisign -S -s "$XDG_CONFIG_HOME/aivet/keys/aivet.key" -m SHA256SUMS -x SHA256SUMS.minisig \
	-t "$(sed -n 3p SHA256SUMS.minisig | cut -c18-)" </dev/null >/dev/null 2>&1)
cmp -s "$C/SHA256SUMS.minisig" "$B/SHA256SUMS.minisig"
ok $(( ! $? )) "(minisign wrote its own signature file)"
run verify "$C" --key aivet
is "$rc" 0 "aivet verifies a bundle signature made by minisign -S with our key"

# ---- structural rules of report.json ----
tamper structure
jq 'del(.claims) | .summary.rating = "great"' "$B/report.json" > "$C/report.json"
(cd "$C" && sha256sum VERIFY.txt aivet.pub evidence/exchange-1.json evidence/exchange-2.json \
	oscal-assessment-results.json report.html report.json report.md > SHA256SUMS)
"$AIVET" key sign "$C/SHA256SUMS" --trusted-comment "$(sed -n 3p "$B/SHA256SUMS.minisig" | cut -c18-)" >/dev/null
run verify "$C"
is "$rc" 1 "a correctly signed but malformed report.json fails"
is "$out" "bundle $C FAILED verification
  parts        signature verified, hashes verified, report failed, time-stamp none
  report.json: claims: missing or not an array
  report.json: summary.rating: missing or unknown" "and names each broken rule"

# ---- the trusted comment binds report.json: an audit checkpoint changed and re-signed ----
tamper checkpoint
jq '.audit_checkpoint.entries += 1' "$B/report.json" > "$C/report.json"
(cd "$C" && sha256sum VERIFY.txt aivet.pub evidence/exchange-1.json evidence/exchange-2.json \
	oscal-assessment-results.json report.html report.json report.md > SHA256SUMS)
"$AIVET" key sign "$C/SHA256SUMS" --trusted-comment "$(sed -n 3p "$B/SHA256SUMS.minisig" | cut -c18-)" >/dev/null
run verify "$C"
is "$rc" 1 "a report.json whose audit checkpoint differs from the signed trusted comment fails"
is "$out" "bundle $C FAILED verification
  parts        signature verified, hashes verified, report failed, time-stamp none
  report.json: does not match the signed trusted comment (report id, generated_at or audit checkpoint differ)" \
	"and says the trusted comment and report.json disagree"

# ---- files attached to answers: report.md names them as the bundle stores them ----
printf 'DPA signed 2026-10-01\n' > "$T/dpa.txt"
"$AIVET" vendor add beta >/dev/null
"$AIVET" assess start beta ai-vendor >/dev/null
"$AIVET" assess answer 2 retention_days 30 --evidence "$T/dpa.txt" >/dev/null
printf 'second page\n' > "$T/dpa 2.txt"
"$AIVET" assess answer 2 retention_days --evidence "$T/dpa 2.txt" >/dev/null
run report beta --out "$T/beta"
is "$rc" 0 "a report with attached files"
is "$(grep '^| retention_days |' "$T/beta/report.md" | sed 's/| [0-9T:.-]*Z |/| AT |/')" \
	"| retention_days | 30 | none | not testable | none | tester | AT | [file-3-dpa.txt](evidence/file-3-dpa.txt), [file-4-dpa\\_2.txt](evidence/file-4-dpa_2.txt) |" \
	"report.md's evidence column links each attached file by its path in the bundle"
ok "$(test -f "$T/beta/evidence/file-3-dpa.txt" && test -f "$T/beta/evidence/file-4-dpa_2.txt"; echo $?)" \
	"and those paths are the files in the bundle"

# ---- one assessment: the round chosen and the rounds before it (on both stores) ----
run report beta --out "$T/beta-one" --assessment 2 --json
is "$rc" 0 "report --assessment ID$errout"
is "$(jq -c '[.assessments[].id]' "$T/beta-one/report.json")" "[2]" "holds that assessment alone"
run report beta --out "$T/beta-other" --assessment 1
is "$rc:$errout" "2:aivet: --assessment: no assessment 1 for vendor 'beta'" \
	"an assessment of another vendor is refused"

# ---- the engine's admin credential is a reference to a secret: it stays out of the bundle ----
"$AIVET" vendor add gamma >/dev/null
"$AIVET" endpoint add gamma --name prod --api openai --url https://api.gamma.example/v1 --model g-1 \
	--context 8192 --engine sglang --engine-url http://127.0.0.1:1 --engine-credential env:GAMMA_ENGINE_ADMIN >/dev/null
is "$("$AIVET" endpoint show gamma/prod --json | jq -r '.engine.credential')" "env:GAMMA_ENGINE_ADMIN" \
	"(the endpoint holds the engine's credential reference)"
run report gamma --out "$T/gamma"
is "$rc" 0 "a report of an endpoint with an engine"
is "$(jq -c '.endpoints[0].engine' "$T/gamma/report.json")" '{"kind":"sglang","nodes":["http://127.0.0.1:1"],"credential":null}' \
	"report.json names the engine and its nodes, its credential null"
is "$(grep -rl 'GAMMA_ENGINE_ADMIN' "$T/gamma" | wc -l | tr -d ' ')" 0 "the reference is nowhere in the bundle"

# ---- an encrypted key: the passphrase is asked for once per report, on the terminal ----
. "$TESTS_SRCDIR/lib/tui-lib.sh"
printf 'open sesame\n' > "$T/encpw"
AIVET_KEY_PASSWORD_FILE="$T/encpw" "$AIVET" key generate --name enc --kdf-cost interactive >/dev/null
tui_start 100x30 report acme --out "$T/enc-report" --key enc
tui_wait "passphrase for key enc:"; ok $? "report asks for the key's passphrase on the terminal"
tui_type "open sesame"
tui_keys Enter
tui_wait "[exit 0]" 20; ok $? "and writes the report"
is "$(tui_screen | grep -c 'passphrase')" 1 "asking once"
like "$(tui_screen)" "aivet: deriving the key \(scrypt, [0-9]+ MiB\)\.\.\. done" \
	"and saying, on the terminal, what the wait after the passphrase is for"
tui_stop
AIVET_KEY_PASSWORD_FILE="$T/encpw" run report acme --out "$T/enc-report-2" --key enc
is "$rc:$errout" "0:" "off a terminal the key is derived without a word on stderr"

run verify "$T/nosuch"
is "$rc" 2 "verify of a missing directory is a usage error"
is "$errout" "aivet: $T/nosuch: not a directory" "and named"

done_testing
