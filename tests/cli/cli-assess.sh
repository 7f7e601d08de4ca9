#!/bin/sh
# cli-assess.sh: assessments from start to a final, reviewed record —
# typed answers and their exact refusals, depends_on, scoring, history,
# evidence stored once by hash, every workflow rule, rounds, final rounds
# read-only down to the database, and claims checked against probe runs.
. "$TESTS_SRCDIR/lib/lib.sh"
D="$TESTS_SRCDIR/data"

run vendor add acme
run questionnaire import "$D/scoring-questionnaire.json"
run assess start acme scoring-test
is "$out" "assessment 1 started: vendor acme, questionnaire scoring-test version 1, 8 questions (draft)" "start"
run assess start acme nosuch
is "$rc:$errout" "2:aivet: unknown questionnaire 'nosuch' (see 'aivet questionnaire list')" "start: unknown questionnaire"
run assess start nobody scoring-test
is "$rc:$errout" "2:aivet: unknown vendor 'nobody' (see 'aivet vendor list')" "start: unknown vendor"

score() { run assess show 1 --json; printf '%s' "$out" | json '.score | "\(.rating)/\(.worst_risk) \(.risk_score) asked=\(.asked) answered=\(.answered) missing=\(.unanswered_required)"'; }
is "$(score)" "incomplete/none 0 asked=6 answered=0 missing=2" "a new assessment: incomplete, not none; hidden questions do not count"
run assess show 1 --json
is "$(printf '%s' "$out" | json '[.status, .round, .created_by, .questionnaire.id, (.questionnaire.version|tostring), (.parent_id|tostring)] | join(" ")')" \
	"draft 1 tester scoring-test 1 null" "show --json header fields"
is "$(printf '%s' "$out" | json '.missing_required | join(",")')" "gate,notify" "missing_required lists them"

# ---- typed answers, and exactly how bad ones are refused (nothing changes) ----
snap=$(db_snapshot)
refused() {  # refused WANT-MESSAGE ARGS...
	want=$1; shift
	run "$@"
	is "$rc:$errout" "2:aivet: $want" "refused: $*"
}
refused "question gate: 'maybe' is not one of yes, no" assess answer 1 gate maybe
refused "question tokens: 'lots' is not a number" assess answer 1 tokens lots
refused "question notify: '2 fortnights' is not a duration like 24h or 5d (units m, h, d, w)" assess answer 1 notify "2 fortnights"
refused "question gate: 'Maybe' is not one of yes, no" assess answer 1 gate Maybe
refused "question tokens: -5 is below 0: the answer is a quantity (0 or more)" assess answer 1 tokens -- -5
refused "question since: '2026-13-01' is not a date (YYYY-MM-DD)" assess answer 1 since 2026-13-01
refused "question channels: 'z' is not one of a, b, c" assess answer 1 channels a,z
refused "question deeper: the answer is empty" assess answer 1 deeper "  "
refused "questionnaire scoring-test@1 has no question 'nope' (see 'aivet questionnaire show scoring-test@1')" \
	assess answer 1 nope yes
refused "unknown assessment 99 (see 'aivet assess list')" assess answer 99 gate yes
refused "'x1' is not an assessment id (see 'aivet assess list')" assess show x1
refused "assess answer takes ASSESSMENT QUESTION [VALUE]
usage: aivet assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] [--evidence FILE]... [--effective DATE] [--clear]" \
	assess answer 1
# A note alone may go on an unanswered question (tests/tui/tui-search.sh); evidence needs an answer.
refused "question gate has no answer yet: give a VALUE with --evidence (a --note alone may go on an unanswered question)
usage: aivet assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] [--evidence FILE]... [--effective DATE] [--clear]" \
	assess answer 1 gate --evidence "$TESTS_SRCDIR/cli/cli-assess.sh"
refused "--clear takes no VALUE, --note or --evidence
usage: aivet assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] [--evidence FILE]... [--effective DATE] [--clear]" \
	assess answer 1 gate yes --clear
is "$(db_snapshot)" "$snap" "no refused answer changed anything"

run assess answer 1 gate no
is "$out" "question gate: no (risk none)" "yes_no answer"
is "$(score)" "incomplete/none 0 asked=6 answered=1 missing=1" "gate=no keeps detail hidden"
run assess answer 1 gate YES
is "$out" "question gate: yes (risk low)" "choices are case-insensitive, stored lower-case"
is "$(score)" "incomplete/low 25 asked=7 answered=1 missing=2" "gate=yes asks detail (required)"
run assess answer 1 detail bad
is "$(score)" "unacceptable/critical 50 asked=8 answered=2 missing=2" "detail=bad asks deeper; a critical answer is unacceptable even while incomplete"
run assess answer 1 deeper "kept though hidden"
is "$out" "question deeper: kept though hidden (risk none)" "asked while detail is bad"
run assess answer 1 detail fine
is "$(score)" "incomplete/low 16.7 asked=7 answered=2 missing=1" "detail=fine hides deeper again"
refused "question deeper is not asked with the current answers: it is asked only when detail is bad (detail is fine)" \
	assess answer 1 deeper "kept though hidden"
is "$(score)" "incomplete/low 16.7 asked=7 answered=2 missing=1" "a hidden question takes no new answer; its stale one stays and does not count"
run assess answer 1 channels "c, a"
is "$out" "question channels: a,c (risk high)" "multi_choice: worst of the choices, stored in questionnaire order"
run assess answer 1 tokens 681280
is "$out" "question tokens: 681280 (risk none)" "number above the last band"
run assess answer 1 tokens 1000
is "$out" "question tokens: 1000 (risk high)" "a band's max is inclusive"
run assess answer 1 tokens 681280
run assess answer 1 notify "30 days"
is "$rc:$out" "0:question notify: 30d (risk critical)" "a duration in words ('30 days') is read as 30d"
run assess answer 1 notify "2 Weeks"
is "$rc:$out" "0:question notify: 2w (risk critical)" "and '2 Weeks' as 2w"
run assess answer 1 notify 5d
is "$out" "question notify: 5d (risk medium)" "duration band"
run assess answer 1 since 2026-11-30
run assess answer 1 limit truncate
is "$(score)" "unacceptable/high 34.4 asked=7 answered=7 missing=0" "weighted score: 100*(2*1+1*0+1*3+1*0+3*2)/(4*8)"
run assess show 1 --json
is "$(printf '%s' "$out" | json '[.questions[] | "\(.id)=\(.value|tojson):\(.risk):\(.asked)"] | join(" ")')" \
	'gate="yes":low:true detail="fine":none:true deeper="kept though hidden":none:false channels=["a","c"]:high:true tokens=681280:none:true notify="5d":medium:true since="2026-11-30":none:true limit="truncate":high:true' \
	"answer values are typed JSON"
is "$(printf '%s' "$out" | json '[.high_risk[] | "\(.question):\(.risk)"] | join(" ")')" "channels:high limit:high" \
	"high_risk lists what is high or critical"
is "$(sqlite3 "$AIVET_DB" "SELECT value FROM answer WHERE assessment_id = 1 AND question_id IN ('channels', 'tokens', 'gate') ORDER BY question_id")" \
	'["a","c"]
"yes"
681280' "stored as JSON text"
run assess answer 1 tokens 681280
is "$out" "question tokens unchanged" "the same answer again changes nothing"

# ---- history ----
run assess answer 1 gate yes --note "per their SOC 2 report"
is "$out" "question gate: yes (risk low)" "a note alone is a change"
run --actor carol assess answer 1 gate no
run assess answer 1 since --clear
is "$out" "question since cleared" "clear"
run assess history 1 gate --json
is "$(printf '%s' "$out" | json '[.[] | "\(.actor):\(.value):\(.note)"] | join(" ")')" \
	"tester:no:null tester:yes:null tester:yes:per their SOC 2 report carol:no:per their SOC 2 report" \
	"history keeps value, note and actor of every change"
like "$(printf '%s' "$out" | json '.[0].at')" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' "with UTC times"
run assess history 1 since --json
is "$(printf '%s' "$out" | json '[.[] | .value] | map(tojson) | join(" ")')" '"2026-11-30" null' "a clear is history too"
run assess history 1 gate
like "$out" "carol +no +per their SOC 2 report" "text history"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action IN ('answer.set', 'answer.clear') AND object_id = 1")" \
	"$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM answer_history WHERE assessment_id = 1")" "every change is in the audit log"
run audit log --json --limit 1
is "$(printf '%s' "$out" | json '.[0] | "\(.action) \(.actor) \(.details.question) \(.details.previous)"')" \
	"answer.clear tester since 2026-11-30" "the audit entry names the question and what it was"
run assess answer 1 gate yes

# ---- evidence: stored once by SHA-256 ----
printf 'SOC 2 Type II report, section 4.2\n' > "$T/soc2.txt"
sha=$(sha256sum "$T/soc2.txt" | cut -d' ' -f1)
run assess answer 1 gate yes --evidence "$T/soc2.txt" --effective 2026-06-30
is "$out" "question gate: yes (risk low)" "evidence attached"
run assess answer 1 notify 5d --evidence "$T/soc2.txt"
run assess answer 1 gate --evidence "$T/soc2.txt"
is "$out" "question gate unchanged" "the same file on the same answer once"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM blob WHERE sha256 = '$sha'") $(sqlite3 "$AIVET_DB" "SELECT count(*) FROM evidence WHERE sha256 = '$sha'") $(sqlite3 "$AIVET_DB" "SELECT count(*) FROM answer_evidence")" \
	"1 2 2" "the same file twice: one blob, two attachments"
run assess show 1 --json
is "$(printf '%s' "$out" | json '.questions[] | select(.id == "gate") | .evidence[0] | "\(.sha256) \(.original_name) \(.size) \(.media_type) \(.effective_date) \(.added_by)"')" \
	"$sha soc2.txt 34 text/plain 2026-06-30 tester" "evidence fields"
like "$(printf '%s' "$out" | json '.questions[] | select(.id == "gate") | .evidence[0].added_at')" 'Z$' "added_at in UTC"
run assess show 1
is "$(printf '%s\n' "$out" | grep -A2 ' gate ' | sed 's/  */ /g')" \
	" low gate yes
 note: per their SOC 2 report
 evidence 1: soc2.txt (34 bytes, sha256 ${sha%${sha#????????????}})" \
	"assess show names each answer's evidence files: id, name, size and digest prefix"
like "$out" " notify .*
 +evidence 2: soc2.txt \(34 bytes, sha256 ${sha%${sha#????????????}}\)" "on every answer that has one"
snap=$(db_snapshot)
refused "--effective dates an --evidence file; none was given
usage: aivet assess answer ASSESSMENT QUESTION [VALUE] [--note TEXT] [--evidence FILE]... [--effective DATE] [--clear]" \
	assess answer 1 gate yes --effective 2026-01-01
run assess answer 1 gate no --evidence "$T/missing.txt"
is "$rc:$errout" "2:aivet: evidence file: $T/missing.txt: No such file or directory" "a missing evidence file"
is "$(db_snapshot)" "$snap" "and the answer did not change either"

# ---- workflow ----
run vendor add beta
run assess start beta scoring-test
refused "assessment 2 is a draft; submit it for review first ('aivet assess submit 2')" --actor bob assess approve 2
# A round goes to review complete: submit names every open required question,
# in the words approve uses.
refused "assessment 2 has 2 unanswered required questions: gate, notify" assess submit 2
run --actor alice assess answer 2 gate no
refused "assessment 2 has 1 unanswered required question: notify" assess submit 2
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM assessment WHERE id = 2")" "draft" "a refused submit leaves a draft"
run assess answer 2 notify 24h
run assess submit 2
is "$out" "assessment 2 submitted for review" "submit"
refused "assessment 2 is already in review" assess submit 2
refused "assessment 2 is in review and its answers are locked ('aivet assess reopen 2' returns it to draft)" \
	assess answer 2 gate no
# The reviewer is the actor: no typed name stands in for who approves.
snap=$(db_snapshot)
refused "assess approve takes no --reviewer: the reviewer is who runs aivet (now tester), signing with their own key
usage: aivet assess approve ASSESSMENT [--key NAME]" assess approve 2 --reviewer bob
refused "assess approve takes no --reviewer: the reviewer is who runs aivet (now tester), signing with their own key
usage: aivet assess approve ASSESSMENT [--key NAME]" assess approve 2 --reviewer=bob
is "$(db_snapshot)" "$snap" "a typed reviewer changes nothing"
run assess reopen 2
is "$out" "assessment 2 returned to draft" "reopen a review: back to draft"
run --actor carol assess submit 2
# Two people: nobody who answered this round or submitted it approves it.
snap=$(db_snapshot)
refused "alice cannot approve assessment 2: alice answered it, and approval needs a second person, who approves with their own key" \
	--actor alice assess approve 2
refused "carol cannot approve assessment 2: carol submitted it, and approval needs a second person, who approves with their own key" \
	--actor carol assess approve 2
is "$(db_snapshot)" "$snap" "a refused approval changes nothing"
run assess reopen 2
run assess submit 2
refused "tester cannot approve assessment 2: tester answered and submitted it, and approval needs a second person, who approves with their own key" \
	assess approve 2
approver_key bob
run --actor bob assess approve 2
is "$rc:$out" "0:assessment 2 approved by bob (final), signed with their key" \
	"approve: the actor is the reviewer, signing with their registered key"
run assess show 2 --json
is "$(printf '%s' "$out" | json '"\(.status) \(.reviewer) \(.approved_at != null) \(.submitted_at != null)"')" \
	"final bob true true" "final, with reviewer and times"
run audit log --json --limit 1
is "$(printf '%s' "$out" | json '.[0] | "\(.action) \(.actor) \(.details.reviewer)"')" \
	"assessment.approve bob bob" "the audit entry: the approver is the actor"
refused "assessment 2 is already final" --actor bob assess approve 2
refused "assessment 2 is final; only a draft can be submitted" assess submit 2
refused "assessment 2 is final and read-only ('aivet assess reopen 2' starts a new round)" assess answer 2 gate yes
refused "assessment 2 is final and read-only ('aivet assess reopen 2' starts a new round)" \
	assess import 2 "$T/soc2.txt"
snap=$(db_snapshot)
for sql in "UPDATE answer SET value = '\"yes\"' WHERE assessment_id = 2" \
	"DELETE FROM answer WHERE assessment_id = 2" \
	"UPDATE assessment SET status = 'draft' WHERE id = 2" \
	"DELETE FROM answer_history WHERE assessment_id = 1"; do
	msg=$(sqlite3 "$AIVET_DB" "$sql" 2>&1)
	like "$msg" "(final assessments are read-only|answer history is append-only)" "the database refuses: $sql"
done
is "$(db_snapshot)" "$snap" "a final round cannot be changed behind aivet's back"

run assess reopen 2
is "$out" "assessment 2 reopened as assessment 3 (new round, draft)" "reopen a final round: a new round"
run assess show 3 --json
is "$(printf '%s' "$out" | json '"\(.status) \(.round) \(.parent_id) \(.vendor)"')" "draft 2 2 beta" "round 2 of beta"
is "$(printf '%s' "$out" | json '[.questions[] | select(.value != null) | "\(.id)=\(.value)"] | join(" ")')" \
	"gate=no notify=24h" "the answers are copied"
run assess answer 3 notify 72h
run assess show 2 --json
is "$(printf '%s' "$out" | json '.questions[] | select(.id == "notify") | .value')" "24h" "the final round is untouched"
refused "assessment 2 was already reopened as assessment 3" assess reopen 2
refused "assessment 3 is already a draft" assess reopen 3
run assess history 3 notify --json
is "$(printf '%s' "$out" | json '[.[] | .value] | join(",")')" "24h,72h" "the new round's history starts from the copy"
run assess list --json
is "$(printf '%s' "$out" | json '[.[] | "\(.id):\(.vendor):\(.round):\(.status):\(.rating)"] | join(" ")')" \
	"1:acme:1:draft:unacceptable 2:beta:1:final:acceptable 3:beta:2:draft:concerns" "list"
run assess list beta --json
is "$(printf '%s' "$out" | json '[.[] | .id] | join(",")')" "2,3" "list by vendor"
# Each column as wide as its widest cell (or heading): nothing runs into the next.
run assess list
is "$out" "ID VENDOR QUESTIONNAIRE  ROUND STATUS RATING       SCORE MISSING APPROVAL
1  acme   scoring-test@1 1     draft  unacceptable 34.4  0       -
2  beta   scoring-test@1 1     final  acceptable   0.0   0       approved at acceptable 0.0; unchanged
3  beta   scoring-test@1 2     draft  concerns     30.0  0       -" "text list: the RATING column as wide as 'unacceptable'; a final round's APPROVAL last"
run assess list beta
is "$out" "ID VENDOR QUESTIONNAIRE  ROUND STATUS RATING     SCORE MISSING APPROVAL
2  beta   scoring-test@1 1     final  acceptable 0.0   0       approved at acceptable 0.0; unchanged
3  beta   scoring-test@1 2     draft  concerns   30.0  0       -" "text list of one vendor: RATING as wide as 'acceptable'"

# ---- claims against probe results ----
run endpoint add acme --name main --api openai --url http://127.0.0.1:9/v1 --model m --context 1000
run endpoint add acme --name backup --api openai --url http://127.0.0.1:9/v1 --model m --context 1000
claims() { run assess show 1 --json; printf '%s' "$out" | json '[.claims[] | "\(.question_id) \(.endpoint) \([.probes[] | "\(.probe)@\(.run_id)=\(.verdict)"] | join(",")) \(.status)"] | join("; ")'; }
run assess answer 1 limit error
is "$(claims)" "limit acme/backup oversize@null=null untested; limit acme/main oversize@null=null untested" \
	"no runs: untested"
sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at) VALUES
	(1, 1, 'completed', '[\"oversize\"]', 't', '2026-11-01T00:00:00.000Z', '2026-11-01T00:10:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict) VALUES (1, 'oversize', 'pass');"
is "$(claims)" "limit acme/backup oversize@null=null untested; limit acme/main oversize@1=pass confirmed" \
	"the answer claims what the probe tests, and it passed: confirmed"
sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at) VALUES
	(2, 1, 'completed', '[\"oversize\"]', 't', '2026-11-02T00:00:00.000Z', '2026-11-02T00:10:00.000Z'),
	(3, 1, 'interrupted', '[\"oversize\"]', 't', '2026-11-03T00:00:00.000Z', NULL),
	(4, 1, 'completed', '[\"canary\"]', 't', '2026-11-04T00:00:00.000Z', '2026-11-04T00:10:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict) VALUES (2, 'oversize', 'fail'), (3, 'oversize', 'pass'),
	(4, 'canary', 'pass');"
is "$(claims)" "limit acme/backup oversize@null=null untested; limit acme/main oversize@2=fail untested" \
	"a fail with no finding that disproves the answer contradicts nothing"
sqlite3 "$AIVET_DB" "INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
	(1, 2, 'oversize', 'OVERSIZE_ACCEPTED', 'high', 'a prompt of 1050 tokens was answered');"
is "$(claims)" "limit acme/backup oversize@null=null untested; limit acme/main oversize@2=fail contradicted" \
	"the newest completed run counts: its OVERSIZE_ACCEPTED contradicts"
run assess show 1 --json
is "$(printf '%s' "$out" | json '.claims[1] | "\(.reason) \([.contradicting[] | "\(.code):\(.finding_id)"] | join(","))"')" \
	"OVERSIZE_ACCEPTED in run 2 (oversize) OVERSIZE_ACCEPTED:1" "with the finding that disproves it"
run assess answer 1 limit truncate
is "$(claims)" "limit acme/backup oversize@null=null untested; limit acme/main oversize@2=fail confirmed" \
	"an admitted weakness that a finding shows: confirmed"
sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at) VALUES
	(5, 2, 'completed', '[\"oversize\"]', 't', '2026-11-05T00:00:00.000Z', '2026-11-05T00:10:00.000Z'),
	(6, 1, 'completed', '[\"oversize\"]', 't', '2026-11-06T00:00:00.000Z', '2026-11-06T00:10:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict) VALUES (5, 'oversize', 'pass'), (6, 'oversize', 'inconclusive');"
is "$(claims)" "limit acme/backup oversize@5=pass untested; limit acme/main oversize@6=inconclusive untested" \
	"an admitted weakness is never disproved by a pass; inconclusive: untested"
run assess show 1
like "$out" "limit +truncate +acme/backup +untested" "text show lists claims"
like "$out" "the answer admits the weaker behaviour: probes can show it, never rule it out" "with the reason"

# The bundled cache-scope question: tenant isolation needs two credentials and every testing probe.
run assess start acme llm-inference-isolation
id=$(printf '%s' "$out" | sed 's/^assessment \([0-9]*\) .*/\1/')
sqlite3 "$AIVET_DB" "INSERT INTO probe_result (run_id, probe, verdict) VALUES (6, 'canary', 'pass'), (6, 'prefix-timing', 'pass')"
cache() { run assess show "$id" --json; printf '%s' "$out" | json '[.claims[] | select(.question_id == "kv_cache_scope" and .endpoint == "acme/main") | "\(.status): \(.reason)"] | join(" ")'; }
is "$(cache)" "" "unanswered: no claim"
run assess answer "$id" kv_cache_scope per_request
is "$(cache)" "untested: probe canary passed with 1 credential; a pass confirms this only with 2 or more" \
	"per_request: passes without two credentials confirm nothing"
sqlite3 "$AIVET_DB" "INSERT INTO credential (endpoint_id, label, ref, created_at) VALUES
	(1, 'alice', 'env:A_KEY', '2026-11-01T00:00:00.000Z'), (1, 'bob', 'env:B_KEY', '2026-11-01T00:00:00.000Z')"
is "$(cache)" "consistent: probe canary passed at depth verify: consistent with the answer, which only a pass at depth diagnose (twice the canary rounds, under load) confirms" \
	"per_request: both probes passed with two credentials, the canary at depth verify: consistent, not confirmed"
sqlite3 "$AIVET_DB" "INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
	(2, 6, 'prefix-timing', 'PREFIX_CACHE_SHARED_ACROSS_TENANTS', 'medium', 'sooner');"
run assess answer "$id" kv_cache_scope per_tenant
is "$(cache)" "contradicted: PREFIX_CACHE_SHARED_ACROSS_TENANTS in run 6 (prefix-timing)" \
	"per_tenant: a shared prefix cache contradicts it"
run assess answer "$id" kv_cache_scope shared
is "$(cache)" "confirmed: the answer admits it, and PREFIX_CACHE_SHARED_ACROSS_TENANTS shows it" \
	"shared: admitted and shown"

# ---- a newer questionnaire version: old assessments keep theirs ----
sed 's/"version": 1/"version": 2/; s/"Gate?"/"Gate, reworded?"/' "$D/scoring-questionnaire.json" > "$T/v2.json"
run questionnaire import "$T/v2.json"
"$AIVET" vendor add gamma >/dev/null
"$AIVET" vendor add delta >/dev/null
run assess start gamma scoring-test
newid=$(printf '%s' "$out" | sed 's/^assessment \([0-9]*\) .*/\1/')
like "$out" "questionnaire scoring-test version 2" "a new assessment takes the newest version"
run assess show 1 --json
is "$(printf '%s' "$out" | json '"\(.questionnaire.version) \(.questions[0].text)"')" "1 Gate?" \
	"an old assessment keeps the version it was answered against"
run assess show "$newid" --json
is "$(printf '%s' "$out" | json '"\(.questionnaire.version) \(.questions[0].text)"')" "2 Gate, reworded?" "the new one has the new text"
run assess start delta scoring-test@1
like "$out" "questionnaire scoring-test version 1" "an old version can still be chosen"
run assess start acme scoring-test@1
like "$errout" "^aivet: the vendor already has draft 1 of scoring-test \(round 1, draft\): one round at a time" \
	"but not beside a round of another version in work"

run audit verify
e=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'endpoint' AND object_id = 1")
is "$rc:$errout" "1:aivet: audit chain broken: endpoint 1 does not match audit entry $e: edited after it was recorded" \
	"the rows this test wrote with sqlite3 are named, the earliest sealed first: a credential added to endpoint 1"
done_testing
