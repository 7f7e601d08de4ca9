#!/bin/sh
# tests/pg/pg-workflow.sh: the workflow held by the PostgreSQL server whatever
# SQL a member writes (db/pg/008-workflow.sql, 011-seal-writes.sql). psql
# logged in as each role tries what an insider would: an assessor
# fabricating a reviewer's approval in one statement, a reviewer approving a
# round she answered under another name, an assessor editing a
# questionnaire, stored content or an incident's facts, sealing an evidence
# file's content to a box of garbage, a sealed audit entry for an operation
# that never ran, and a direct INSERT, UPDATE and DELETE on every
# evidentiary table by every role. Each
# is refused (42501 for a missing privilege, AVR01 for a rule) with nothing
# changed, and the same operations through aivet still work.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/db-fixture.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita bob audrey; do pg_login "$l"; done
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
# psql_as LOGIN SQL: the first line psql prints (the error, or the first row).
psql_as() { pg_psql_as "$1" team -c "$2" 2>&1 | head -1; }
# state: what the attacks must leave as it was.
state() {
	pg_sql -d team "SELECT (SELECT count(*) FROM assessment) || '/' || (SELECT count(*) FROM answer) || '/' ||
		(SELECT count(*) FROM answer_history) || '/' || (SELECT count(*) FROM audit_log) || '/' ||
		(SELECT string_agg(id || status || coalesce(reviewer, '-'), ',' ORDER BY id) FROM assessment)"
}

as owner vendor add V0
for g in alice:assessor rita:reviewer bob:reviewer audrey:auditor; do as owner db grant "${g%%:*}" "${g#*:}"; done
as owner questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json"
is "$rc" 0 "the owner sets up the team and loads a questionnaire$errout"
QID=$(pg_sql -d team "SELECT id FROM questionnaire WHERE qid = 'scoring-test'")

# ---- an assessor fabricates an approval by a reviewer, in one statement ----
before=$(state)
is "$(psql_as alice "WITH a AS (INSERT INTO assessment (vendor_id, questionnaire_id, status, created_by,
	created_at, submitted_at, approved_at, reviewer) VALUES (1, $QID, 'final', 'alice',
	'2026-11-30T09:00:00.000Z', '2026-11-30T09:00:00.000Z', '2026-11-30T09:00:00.000Z', 'rita') RETURNING id),
	ans AS (INSERT INTO answer (assessment_id, question_id, value, actor, updated_at)
	SELECT id, 'gate', '\"no\"', 'alice', '2026-11-30T09:00:00.000Z' FROM a)
	INSERT INTO answer_history (assessment_id, question_id, value, actor, at)
	SELECT id, 'gate', '\"no\"', 'alice', '2026-11-30T09:00:00.000Z' FROM a")" \
	"ERROR:  permission denied for table answer_history" "an assessor's INSERT of a final assessment with answers: refused"
is "$(psql_as alice "SELECT aivet_assessment_approve(1, '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  approving an assessment needs the aivet_reviewer role (alice does not have it)" \
	"the approval function refuses her: she is no reviewer"
# An assessment.approve entry, with no approval behind it (the server computes its hashes).
# seal_sql ACTION ID [OBJECT_TYPE]: such an entry (about an assessment unless named).
seal_sql() {
	echo "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', '$1', '${3:-assessment}', $2, '{}')"
}
as owner vendor add W1 >/dev/null 2>&1
as alice assess start W1 scoring-test
AID=$(pg_sql -d team "SELECT max(id) FROM assessment")
before=$(state)
is "$(psql_as alice "$(seal_sql assessment.approve "$AID")")" \
	"ERROR:  audit entry assessment.approve of assessment $AID follows no such operation in this transaction: it is written by the operation's function" \
	"a sealed assessment.approve entry with no approval: refused"
is "$(psql_as alice "$(seal_sql assessment.submit "$AID")")" \
	"ERROR:  audit entry assessment.submit of assessment $AID follows no such operation in this transaction: it is written by the operation's function" \
	"nor a submission that did not happen"
is "$(psql_as alice "SELECT aivet_audit_append(99, 'x', 'vendor.note', 'vendor', 1, '{}', 'x', 'x', NULL)" | sed 's/(.*//')" \
	"ERROR:  function aivet_audit_append" \
	"no role appends a raw entry: the function that took seq and hashes from its caller is gone"
is "$(psql_as alice "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, entry_hash)
	VALUES (99, 'x', 'alice', 'x', 'x', 1, '{}', 'x', 'x')")" "ERROR:  permission denied for table audit_log" \
	"no direct INSERT into the audit log"
is "$(state)" "$before" "the attacks changed nothing"

# ---- a reviewer approves a round she answered, under another's name ----
before=$(state)
is "$(psql_as rita "INSERT INTO answer (assessment_id, question_id, value, actor, updated_at)
	VALUES ($AID, 'gate', '\"no\"', 'alice', '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  permission denied for table answer" "rita's answer in alice's name: refused"
is "$(psql_as rita "INSERT INTO answer_history (assessment_id, question_id, value, actor, at)
	VALUES ($AID, 'gate', '\"no\"', 'alice', '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  permission denied for table answer_history" "and its history row"
is "$(psql_as rita "UPDATE assessment SET status = 'in_review' WHERE id = $AID")" \
	"ERROR:  permission denied for table assessment" "setting the status by UPDATE: refused"
is "$(psql_as rita "SELECT aivet_answer_put($AID, 'gate', '\"no\"', NULL, '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  answer of assessment $AID has no audit entry: nothing was written" \
	"an answer through the function with no audit entry: refused at commit"
is "$(state)" "$before" "nothing changed"
# Through aivet her answers are hers, whatever --actor says.
as rita --actor alice assess answer "$AID" gate no
as rita --actor alice assess answer "$AID" notify 5d
as alice assess submit "$AID"
is "$(pg_sql -d team "SELECT string_agg(DISTINCT actor, ',') FROM answer_history WHERE assessment_id = $AID")" "rita" \
	"the answers are recorded as rita's"
approve_as rita "$AID" --db "$(pg_url team rita)"
is "$rc" 2 "aivet assess approve by rita: refused (exit 2)"
like "$errout" "rita cannot approve assessment $AID: rita answered it" "naming what she did"
before=$(state)
is "$(psql_as rita "SELECT aivet_assessment_approve($AID, '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  login rita answered or submitted assessment $AID: another login must approve it" \
	"the approval function refuses her too"
is "$(psql_as alice "SELECT aivet_assessment_approve($AID, '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  approving an assessment needs the aivet_reviewer role (alice does not have it)" \
	"and the submitter, who is no reviewer"
is "$(psql_as bob "SELECT aivet_assessment_approve($AID, '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  assessment.approve of assessment $AID has no audit entry: nothing was written" \
	"bob may approve, but not without the audit entry"
is "$(state)" "$before" "nothing changed"
approve_as bob "$AID" --db "$(pg_url team bob)"
is "$rc" 0 "bob, who neither answered nor submitted, approves through aivet$errout"
is "$(pg_sql -d team "SELECT status || ' ' || reviewer FROM assessment WHERE id = $AID")" "final bob" "final, by bob"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"

# ---- the state machine, in the functions ----
as owner vendor add W2 >/dev/null 2>&1
as alice assess start W2 scoring-test
D=$(pg_sql -d team "SELECT max(id) FROM assessment")
is "$(psql_as alice "SELECT aivet_answer_put($AID, 'gate', '\"yes\"', NULL, 'x')")" \
	"ERROR:  assessment $AID is final: answers change only on a draft" "no answer on a final round"
is "$(psql_as bob "SELECT aivet_assessment_approve($D, 'x')")" \
	"ERROR:  assessment $D is draft: only an assessment in review is approved" "no approval of a draft"
is "$(psql_as alice "SELECT aivet_assessment_submit($AID, 'x')")" \
	"ERROR:  assessment $AID is final: only a draft is submitted" "no submission of a final round"
is "$(psql_as owner "UPDATE assessment SET status = 'final', reviewer = 'bob', approved_at = 'x' WHERE id = $D")" \
	"ERROR:  assessment $D cannot go from draft to final" "not even the owner's SQL skips review"
is "$(psql_as owner "INSERT INTO assessment (vendor_id, questionnaire_id, status, created_by, created_at)
	VALUES (1, $QID, 'final', 'owner', 'x')")" \
	"ERROR:  an assessment is not written as final: it is approved in review" "nor inserts a final round"
as alice assess answer "$D" gate no
as alice assess answer "$D" notify 5d
as alice assess submit "$D"
is "$(psql_as owner "INSERT INTO answer (assessment_id, question_id, value, actor, updated_at)
	VALUES ($D, 'notify', '\"1d\"', 'owner', 'x')")" \
	"ERROR:  assessment $D is in review: its answers change only on a draft" "answers only on a draft"

# ---- questionnaires, stored content and incident facts ----
as alice incident open V0 --title "seen in the logs" --discovered 2026-11-01T08:00:00Z --phi yes --eu-data
before=$(pg_sql -d team "SELECT md5(string_agg(q::text, '')) FROM questionnaire q")/$(pg_sql -d team "SELECT discovered_at || phi || eu_data FROM incident")
is "$(psql_as alice "UPDATE questionnaire SET source = replace(source, 'critical', 'none')")" \
	"ERROR:  permission denied for table questionnaire" "an assessor's UPDATE of a questionnaire: refused"
is "$(psql_as alice "UPDATE blob SET encrypted = 1, data = 'x'::bytea")" \
	"ERROR:  permission denied for table blob" "of stored content"
is "$(psql_as alice "INSERT INTO blob VALUES ('$(printf x | sha256sum | cut -c1-64)', 1, 0, 'y'::bytea)")" \
	"ERROR:  permission denied for table blob" "an INSERT of content under another's hash"
is "$(psql_as alice "SELECT aivet_blob_put('$(printf x | sha256sum | cut -c1-64)', 1, 0, 'y'::bytea)")" \
	"ERROR:  stored content $(printf x | sha256sum | cut -c1-64): the bytes do not hash to it" \
	"the function takes only bytes that hash to their name"
is "$(psql_as alice "SELECT aivet_blob_put('$(printf x | sha256sum | cut -c1-64)', 1, 1, 'y'::bytea)")" \
	"ERROR:  stored content $(printf x | sha256sum | cut -c1-64): not a sealed box of 1 bytes" \
	"and sealed content only as a sealed box of its size"
is "$(psql_as alice "SELECT aivet_questionnaire_load('scoring-test', 9, 't', '{}', 'abc', 0, 'x')")" \
	"ERROR:  questionnaire scoring-test version 9: sha256 abc is not the hash of its source" \
	"a questionnaire is stored only with its own hash"
is "$(psql_as alice "UPDATE incident SET discovered_at = '2026-11-29T08:00:00.000Z', phi = 'no', eu_data = 0")" \
	"ERROR:  permission denied for table incident" "an assessor's UPDATE of an incident's facts: refused"
is "$(psql_as alice "SELECT aivet_incident_set(1, 'phi', 'no')")" \
	"ERROR:  incident facts change only through aivet's audited entries (aivet incident edit), not by SQL" \
	"a fact changed through the function from psql: refused by the facts' trigger"
# Past that trigger (the session setting aivet's connections make, set by hand),
# the operation still needs its audit entry before the transaction commits.
is "$(psql_as alice "SET aivet.writing = 'on'; SELECT aivet_incident_set(1, 'phi', 'no')")" \
	"ERROR:  incident.edit of incident 1 has no audit entry: nothing was written" \
	"a fact changed through the function with no entry: refused at commit"
is "$(pg_sql -d team "SELECT md5(string_agg(q::text, '')) FROM questionnaire q")/$(pg_sql -d team "SELECT discovered_at || phi || eu_data FROM incident")" \
	"$before" "questionnaires and incident facts are as they were"
as alice incident edit 1 --phi no
is "$rc:$(pg_sql -d team "SELECT phi FROM incident")" "0:no" "incident edit through aivet still changes it$errout"

# ---- probe runs: written by the login running them, while they run ----
sim_start --context 8192 --tenants "alice=$PROBE_KEY_ALICE,bob=$PROBE_KEY_BOB" || exit 1
as alice endpoint add V0 --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB
as alice probe run V0/e --yes --probe echo
RUN=$(pg_sql -d team "SELECT max(id) FROM probe_run")
is "$rc:$(pg_sql -d team "SELECT status || ' ' || actor FROM probe_run WHERE id = $RUN")" "0:completed alice" \
	"alice's probe run, through the functions$errout"
before=$(pg_sql -d team "SELECT (SELECT count(*) FROM probe_result) || '/' || (SELECT count(*) FROM finding) || '/' ||
	(SELECT count(*) FROM finding_evidence) || '/' || (SELECT count(*) FROM audit_log)")
is "$(psql_as rita "SELECT aivet_probe_result($RUN, 'oversize', 'pass', NULL, 1, NULL)")" \
	"ERROR:  probe run $RUN is completed: finished probe runs are read-only" "no result added to a finished run"
is "$(psql_as alice "SELECT aivet_finding_add($RUN, 'echo', 'OVERSIZE_ACCEPTED', 'critical', 'm', NULL)")" \
	"ERROR:  probe run $RUN is completed: finished probe runs are read-only" "nor a finding, even by its runner"
is "$(psql_as alice "SELECT aivet_finding_evidence(1, 1)")" \
	"ERROR:  finding 1 was not added in this transaction: its evidence is cited as it is added" \
	"nor evidence cited by an old finding"
is "$(psql_as alice "SELECT aivet_probe_update($RUN, 'completed', NULL, 0, 0, 'x', 0, 0)")" \
	"ERROR:  probe run $RUN is completed: finished probe runs are read-only" "nor a finished run changed"
is "$(pg_sql -d team "SELECT (SELECT count(*) FROM probe_result) || '/' || (SELECT count(*) FROM finding) || '/' ||
	(SELECT count(*) FROM finding_evidence) || '/' || (SELECT count(*) FROM audit_log)")" "$before" "nothing changed"

# ---- stored content is sealed only as a running run receives it ----
# The attack: an evidence file's content "sealed" to a box of garbage, its
# record naming that garbage, so that audit verify would accept it.
printf 'SOC 2 report\n' >"$T/soc2.txt"
as owner vendor add W3 >/dev/null 2>&1
as alice assess start W3 scoring-test
as alice assess answer "$(pg_sql -d team "SELECT max(id) FROM assessment")" gate no --evidence "$T/soc2.txt"
SOC=$(sha256sum <"$T/soc2.txt" | cut -c1-64)
SOC_EV=$(pg_sql -d team "SELECT id FROM evidence WHERE sha256 = '$SOC'")
RESP=$(pg_sql -d team "SELECT response_blob || ' ' || response_size FROM exchange WHERE run_id = $RUN
	AND response_blob IS NOT NULL ORDER BY id LIMIT 1")
EP=$(pg_sql -d team "SELECT id FROM endpoint WHERE name = 'e'")
GARBAGE="decode(repeat('ab', 13 + 48), 'hex')"
content() {
	pg_sql -d team "SELECT md5(string_agg(sha256 || encrypted || md5(data), ',' ORDER BY sha256)) || '/' ||
		(SELECT count(*) FROM blob_seal) || '/' || (SELECT count(*) FROM audit_log) FROM blob"
}
before=$(content)
is "$(psql_as alice "INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at)
	VALUES ('$SOC', 13, encode(sha256($GARBAGE), 'hex'), '2026-11-30T09:00:00.000Z')")" \
	"ERROR:  permission denied for table blob_seal" "an assessor's record of a seal written by hand: refused"
is "$(psql_as alice "SELECT aivet_blob_seal($RUN, '$SOC', 13, $GARBAGE, 'x')")" \
	"ERROR:  probe run $RUN is completed: finished probe runs are read-only" \
	"sealing through the function, citing a finished run: refused"
is "$(psql_as alice "SELECT aivet_blob_seal(aivet_probe_start($EP, '[\"echo\"]', '{}', '{}', 1, 'x'), '$SOC', 13,
	$GARBAGE, 'x')")" \
	"ERROR:  stored content $SOC is the content of evidence $SOC_EV: evidence is never sealed" \
	"citing a run of her own that is running: an evidence file's content is never sealed"
is "$(psql_as alice "SELECT aivet_blob_seal(aivet_probe_start($EP, '[\"echo\"]', '{}', '{}', 1, 'x'), '${RESP% *}',
	${RESP#* }, decode(repeat('ab', ${RESP#* } + 48), 'hex'), 'x')")" \
	"ERROR:  stored content ${RESP% *} was recorded by probe run $RUN, which is completed: only content a running probe run receives is sealed" \
	"nor a response a finished run recorded"
is "$(psql_as alice "SELECT aivet_blob_put('$SOC', 13, 1, $GARBAGE)")" \
	"ERROR:  stored content $SOC: a sealed box is stored only as its sealing (aivet_blob_seal, with its audit entry) recorded it in this transaction" \
	"a box stored over the content with no sealing behind it: refused"
is "$(psql_as alice "$(seal_sql blob.seal 1 blob_seal)")" \
	"ERROR:  audit entry blob.seal of blob_seal 1 follows no such operation in this transaction: it is written by the operation's function" \
	"a sealed blob.seal entry for a sealing that never ran: refused"
is "$(psql_as owner "UPDATE blob SET encrypted = 1, data = $GARBAGE WHERE sha256 = '$SOC'")" \
	"ERROR:  stored content $SOC is the content of evidence $SOC_EV: evidence is never sealed" \
	"not even the owner's SQL seals evidence content"
is "$(content)" "$before" "stored content, its seals and the audit log are as they were"
as audrey audit verify
is "$rc" 0 "the chain verifies$errout"
sim_stop

# ---- no direct write on any evidentiary table, by any role ----
# TABLE COLUMN (one the UPDATE names)
tables="assessment status
answer note
answer_history note
answer_evidence question_id
questionnaire title
blob size
blob_seal sealed_at
evidence media_type
incident title
incident_entry text
incident_link added_at
incident_task title
report out_dir
probe_run status
probe_result verdict
exchange url
finding message
finding_evidence evidence_id
audit_log details"
while read -r t c <&3; do
	for l in audrey alice rita; do
		for op in INSERT UPDATE DELETE; do
			case $op in
			INSERT) sql="INSERT INTO $t DEFAULT VALUES" ;;
			UPDATE) sql="UPDATE $t SET $c = $c" ;;
			DELETE) sql="DELETE FROM $t" ;;
			esac
			got=$(pg_psql_as "$l" team -v VERBOSITY=sqlstate -c "$sql" 2>&1 | head -1)
			is "$got" "ERROR:  42501" "$op on $t as $l: no privilege (42501)"
		done
	done
done 3<<EOF
$tables
EOF
# aivet itself names the role when the server refuses.
as owner vendor add W4 >/dev/null 2>&1
as alice assess start W4 scoring-test
as audrey assess answer "$(pg_sql -d team "SELECT max(id) FROM assessment")" gate yes
is "$rc" 2 "an auditor's answer through aivet: exit 2"
like "$errout" "aivet_assessor" "naming the role it needs"

done_testing
