#!/bin/sh
# cli-questionnaire.sh: bundled questionnaires load on first use; validate
# names every problem with file:line:column and JSON path; import keeps
# every version and refuses a changed file under an old version.
. "$TESTS_SRCDIR/lib/lib.sh"
D="$TESTS_SRCDIR/data"
Q="$TESTS_SRCDIR/../questionnaires"

# The bundled files' versions, read from the files themselves.
VH=$(jq -e .version "$Q/hipaa-ai-vendor.json") VL=$(jq -e .version "$Q/llm-inference-isolation.json")
run questionnaire list --json
is "$rc" 0 "list succeeds on a new database"
is "$(printf '%s' "$out" | json '[.[] | "\(.id)@\(.version) \(.bundled)"] | join(",")')" \
	"hipaa-ai-vendor@$VH true,llm-inference-isolation@$VL true" "both bundled questionnaires are loaded"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action = 'questionnaire.load'")" 2 \
	"loading is audited"
run questionnaire list
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM questionnaire")" 2 "a second use loads nothing again"

# The contract other parts rely on.
run questionnaire show llm-inference-isolation --json
is "$rc" 0 "show --json"
is "$(printf '%s' "$out" | json '[.sections[].questions[] | select(.id == "exposure_notification_time") | .type] | .[0]')" \
	duration "exposure_notification_time is a duration"
is "$(printf '%s' "$out" | json '[.sections[].questions[] | select(.id == "over_limit_behaviour")][0] | [(.choices | map(.value) | join("/")), (.verified_by | map("\(.probe)=\(.confirms)") | join(","))] | join(" ")')" \
	"error/truncate/substitute/continue oversize=error,sweep=error" "over-limit question and its probes"
is "$(printf '%s' "$out" | json '[.sections[].questions[] | select(.id == "kv_cache_scope")][0] | [(.choices | map(.value) | join("/")), (.verified_by | map("\(.probe)=\(.confirms | join("|"))") | join(","))] | join(" ")')" \
	"per_request/per_tenant/shared canary=per_request|per_tenant,prefix-timing=per_request|per_tenant" \
	"cache-scope question and its probes"
is "$(printf '%s' "$out" | json '.sha256 | length')" 64 "show --json carries the sha256"
run questionnaire show hipaa-ai-vendor --json
is "$(printf '%s' "$out" | json '[.sections[].questions[] | select(.id == "breach_notification_time") | .type] | .[0]')" \
	duration "breach_notification_time is a duration"
run questionnaire show hipaa-ai-vendor
like "$out" "breach_notification_time \[required\] \(duration\)" "text show lists questions"
like "$out" "reference: HIPAA 164.410\(b\)" "text show lists references"
run questionnaire show nosuch
is "$rc:$errout" "2:aivet: unknown questionnaire 'nosuch' (see 'aivet questionnaire list')" "unknown questionnaire"
run questionnaire show llm-inference-isolation@7
is "$rc:$errout" "2:aivet: questionnaire 'llm-inference-isolation' has no version 7 (see 'aivet questionnaire list --all')" \
	"unknown version"

for f in "$Q"/*.json "$D/scoring-questionnaire.json"; do
	run questionnaire validate "$f"
	is "$rc" 0 "$(basename "$f") is valid"
done
cd "$D"
run questionnaire validate scoring-questionnaire.json
is "$out" "scoring-questionnaire.json: valid: scoring-test version 1, 1 sections, 8 questions" "validate reports what it read"

# Every problem of a bad file at once, in file order, with exact messages.
run questionnaire validate bad-questionnaire.json
is "$rc" 2 "a bad file exits 2"
is "$errout" "bad-questionnaire.json:2:8: id: questionnaire id 'Bad Id' must be lower-case letters, digits and '-'
bad-questionnaire.json:3:13: version: must be a whole number from 1
bad-questionnaire.json:5:2: colour: unknown key 'colour'
bad-questionnaire.json:12:56: sections[0].questions[0].choices[1]: choice 'no' has no risk
bad-questionnaire.json:13:13: sections[0].questions[1].id: duplicate question id 'q1' (first at sections[0].questions[0])
bad-questionnaire.json:14:47: sections[0].questions[2].type: unknown type 'yesno' (one of yes_no, single_choice, multi_choice, text, number, duration, date)
bad-questionnaire.json:16:44: sections[0].questions[3].choices[0].risk: unknown risk 'severe' (one of none, low, medium, high, critical)
bad-questionnaire.json:16:67: sections[0].questions[3].choices[1].value: duplicate choice 'a'
bad-questionnaire.json:17:35: sections[0].questions[3].depends_on.question: unknown question 'missing'
bad-questionnaire.json:19:35: sections[0].questions[4].depends_on.question: question 'q6' does not come before this one
bad-questionnaire.json:20:61: sections[0].questions[5].unit: only number questions have a unit
bad-questionnaire.json:21:18: sections[0].questions[5].choices: a yes_no question needs exactly the choices 'yes' and 'no'
bad-questionnaire.json:22:5: sections[0].questions[6]: missing required key 'unit'
bad-questionnaire.json:22:65: sections[0].questions[6].weight: must be a number from 0 to 100
bad-questionnaire.json:22:82: sections[0].questions[6].required: must be true or false
bad-questionnaire.json:23:57: sections[0].questions[6].verified_by[0].confirms: not an answer to this question: needs a number
bad-questionnaire.json:23:75: sections[0].questions[6].verified_by[1].probe: unknown probe 'psychic' (one of engine, echo, oversize, sweep, canary, errors, prefix-timing, cache-extract)
bad-questionnaire.json:24:5: sections[0].questions[7]: missing required key 'above' (the risk beyond the last band)
bad-questionnaire.json:25:50: sections[0].questions[7].bands[1]: bands must be in increasing order of max
bad-questionnaire.json:26:5: sections[0].questions[8]: missing required key 'id'
bad-questionnaire.json:26:40: sections[0].questions[8].extra: unknown key 'extra'
aivet: bad-questionnaire.json: 21 problems" "every problem, with line, column and JSON path"

# One case per file, so each message stands on its own.
bad() {  # bad DESCRIPTION EXPECTED-MESSAGE  (the file is \$T/case.json)

	run questionnaire validate "$T/case.json"
	is "$rc:$errout" "2:$T/case.json:$2
aivet: $T/case.json: 1 problem" "$1"
}
hdr='{"id":"t","version":1,"title":"T","sections":[{"id":"s","title":"S","questions":['
printf '{"id": "t",\n  "version": 1,\n}\n' > "$T/case.json"; bad "syntax error position" '3:2: not valid JSON'
printf '{"id": "t",\n "version": ' > "$T/case.json"; bad "truncated file" '2:12: not valid JSON'
printf '{"id":"t","version":1,"title":"T","sections":[]} {}' > "$T/case.json"; bad "text after the value" \
	'1:50: not valid JSON (text after the questionnaire)'
printf '[1]' > "$T/case.json"; bad "not an object" '1:1: (top level): a questionnaire must be a JSON object'
printf '%s\n{"id":"a","text":"A","type":"text","colour":1}]}]}' "$hdr" > "$T/case.json"; bad "unknown key" \
	"2:36: sections[0].questions[0].colour: unknown key 'colour'"
printf '%s\n{"id":"a","text":"A","type":"text"},\n{"id":"a","text":"B","type":"text"}]}]}' "$hdr" > "$T/case.json"; bad "duplicate id" \
	"3:7: sections[0].questions[1].id: duplicate question id 'a' (first at sections[0].questions[0])"
# Duplicates are found by sorting (validation is O(n log n)); the message still names the first.
printf '{"id":"t","version":1,"title":"T","sections":[\n{"id":"s","title":"S","questions":[]},\n2,\n{"id":"s","title":"S2","questions":[]}]}' > "$T/case.json"
run questionnaire validate "$T/case.json"
is "$(printf '%s' "$errout" | grep duplicate)" "$T/case.json:4:7: sections[2].id: duplicate section id 's' (first at sections[0])" \
	"duplicate section id"
printf '%s\n{"id":"b","text":"B","type":"text"},\n{"id":"a","text":"A","type":"text"},\n{"id":"a","text":"A2","type":"text"},\n{"id":"a","text":"A3","type":"text"}]}]}' "$hdr" > "$T/case.json"
run questionnaire validate "$T/case.json"
is "$errout" "$T/case.json:4:7: sections[0].questions[2].id: duplicate question id 'a' (first at sections[0].questions[1])
$T/case.json:5:7: sections[0].questions[3].id: duplicate question id 'a' (first at sections[0].questions[1])
aivet: $T/case.json: 2 problems" "an id three times: both repeats name the first"
printf '%s\n{"id":"a","text":"A","type":"multi_choice","choices":[{"value":"x","risk":"none"},{"value":"y","risk":"none"},{"value":"x","risk":"low"}],\n"verified_by":[{"probe":"canary","confirms":["y","x","y"]}]}]}]}' "$hdr" > "$T/case.json"
run questionnaire validate "$T/case.json"
is "$errout" "$T/case.json:2:120: sections[0].questions[0].choices[2].value: duplicate choice 'x'
$T/case.json:3:45: sections[0].questions[0].verified_by[0].confirms: not an answer to this question: 'y' is given twice
aivet: $T/case.json: 2 problems" "a repeated choice is dropped, a repeated answer value refused"
printf '%s\n{"id":"a","text":"A","type":"text","text":"again"}]}]}' "$hdr" > "$T/case.json"; bad "duplicate key" \
	"2:36: sections[0].questions[0].text: duplicate key 'text'"
printf '%s\n{"id":"a","text":"A","type":"text","depends_on":{"question":"zz","values":["x"]}}]}]}' "$hdr" > "$T/case.json"; bad \
	"depends_on a missing question" "2:61: sections[0].questions[0].depends_on.question: unknown question 'zz'"
printf '%s\n{"id":"a","text":"A","type":"single_choice","choices":[{"value":"x"}]}]}]}' "$hdr" > "$T/case.json"; bad \
	"choice without a risk" "2:56: sections[0].questions[0].choices[0]: choice 'x' has no risk"
printf '%s\n{"id":"a","text":"A","type":"boolean"}]}]}' "$hdr" > "$T/case.json"; bad "bad type" \
	"2:29: sections[0].questions[0].type: unknown type 'boolean' (one of yes_no, single_choice, multi_choice, text, number, duration, date)"
printf '%s\n{"id":"a","text":"A","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"low"}]},\n{"id":"b","text":"B","type":"text","depends_on":{"question":"a","values":["maybe"]}}]}]}' "$hdr" > "$T/case.json"; bad \
	"depends_on value that is not a choice" "3:75: sections[0].questions[1].depends_on.values[0]: 'maybe' is not a choice of 'a'"
printf '%s\n{"id":"a","text":"A","type":"text"},\n{"id":"b","text":"B","type":"text","depends_on":{"question":"a","values":["x"]}}]}]}' "$hdr" > "$T/case.json"; bad \
	"depends_on a text question" "3:61: sections[0].questions[1].depends_on.question: question 'a' is a text question; depends_on needs a yes_no or choice question"
printf '%s\n{"id":"a","text":"A","type":"duration","bands":[{"max":"1y","risk":"low"}],"above":"high"}]}]}' "$hdr" > "$T/case.json"; bad \
	"bad duration band" "2:56: sections[0].questions[0].bands[0].max: '1y' is not a duration like 24h or 5d (units m, h, d, w)"
printf '%s\n{"id":"a","text":"A","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"low"}],"verified_by":[{"probe":"echo","confirms":"maybe"}]}]}]}' "$hdr" > "$T/case.json"; bad \
	"verified_by confirms a value that is not an answer" "2:150: sections[0].questions[0].verified_by[0].confirms: not an answer to this question: 'maybe' is not one of yes, no"
printf '%s\n{"id":"a","text":"A","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"low"}],"verified_by":[{"probe":"echo","confirms":"yes"},{"probe":"echo","confirms":"no"}]}]}]}' "$hdr" > "$T/case.json"; bad \
	"a probe listed twice" "2:157: sections[0].questions[0].verified_by[1]: probe 'echo' is listed twice"

# Import: a bad file changes nothing.
snap=$(db_snapshot)
run questionnaire import bad-questionnaire.json
is "$rc" 2 "importing a bad file fails"
is "$(printf '%s' "$errout" | tail -n 1)" "aivet: bad-questionnaire.json: 21 problems; nothing was imported" "and says so"
is "$(db_snapshot)" "$snap" "a bad import changes nothing"

run questionnaire import scoring-questionnaire.json
like "$out" "^questionnaire scoring-test version 1 imported \(id [0-9]+\): 8 questions$" "import a new questionnaire"
run questionnaire import scoring-questionnaire.json
like "$out" "^questionnaire scoring-test version 1 is already loaded \(id [0-9]+\)$" "the same file again is a no-op"
sed 's/"Scoring test"/"Scoring test, edited"/' scoring-questionnaire.json > "$T/edited.json"
snap=$(db_snapshot)
run questionnaire import "$T/edited.json"
is "$rc:$errout" "2:aivet: $T/edited.json: questionnaire scoring-test version 1 is already loaded with different content; give the changed file a higher version" \
	"changed content under the same version is refused"
is "$(db_snapshot)" "$snap" "and changes nothing"
sed 's/"version": 1/"version": 2/; s/"Scoring test"/"Scoring test v2"/' scoring-questionnaire.json > "$T/v2.json"
run questionnaire import "$T/v2.json"
is "$rc" 0 "a higher version imports"
run questionnaire list --json
is "$(printf '%s' "$out" | json '[.[] | select(.id == "scoring-test") | "\(.version) \(.title) \(.bundled)"] | join(",")')" \
	"2 Scoring test v2 false" "list shows the newest version"
run questionnaire list --all --json
is "$(printf '%s' "$out" | json '[.[] | select(.id == "scoring-test") | .version] | join(",")')" "1,2" \
	"list --all keeps the old version"
run questionnaire show scoring-test@1 --json
is "$(printf '%s' "$out" | json '.title')" "Scoring test" "an old version stays readable"

run questionnaire validate
is "$rc:$errout" "2:aivet: questionnaire validate needs exactly one FILE
usage: aivet questionnaire validate FILE" "validate without a file"
run questionnaire validate "$T/none.json"
is "$rc:$errout" "2:aivet: $T/none.json: No such file or directory" "a missing file"

run audit verify
is "$rc" 0 "the audit chain is intact"
done_testing
