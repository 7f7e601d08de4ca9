#!/bin/sh
# tests/cli/db-workflow.sh: the assessment workflow held by an SQLite file's
# triggers (db/008-workflow.sql), the same rules PostgreSQL's functions
# check (tests/pg/pg-workflow.sh): with the sqlite3 shell, an assessment cannot
# be written as final, skip review, be approved by someone who answered or
# submitted it or by no one, and a round in review takes no answers. Each
# attempt is refused with nothing changed; aivet's own way still works.
. "$TESTS_SRCDIR/lib/lib.sh"

"$AIVET" vendor add V0 >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start V0 scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 5d >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM assessment WHERE id = 1")" "draft" "a draft answered by alice"

# refused SQL MESSAGE DESCRIPTION: sqlite3 fails naming MESSAGE and nothing changes.
refused() {
	_before=$(db_snapshot)
	_out=$(sqlite3 "$AIVET_DB" "$1" 2>&1)
	like "$_out" "$2" "$3: refused"
	is "$(db_snapshot)" "$_before" "$3: nothing changed"
}
refused "INSERT INTO assessment (vendor_id, questionnaire_id, status, created_by, created_at, submitted_at,
	approved_at, reviewer) VALUES (1, 1, 'final', 'alice', 'x', 'x', 'x', 'rita')" \
	"an assessment is not written as final: it is approved in review" "an assessment inserted as final"
refused "UPDATE assessment SET status = 'final', reviewer = 'rita', approved_at = 'x' WHERE id = 1" \
	"status moves draft -> in_review -> final" "a draft made final without review"

"$AIVET" --actor sam assess submit 1 >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM assessment WHERE id = 1")" "in_review" "submitted by sam"
refused "UPDATE assessment SET status = 'final', reviewer = 'alice', approved_at = 'x' WHERE id = 1" \
	"approval names a reviewer who neither answered nor submitted the round" "approval by the one who answered"
refused "UPDATE assessment SET status = 'final', reviewer = 'sam', approved_at = 'x' WHERE id = 1" \
	"approval names a reviewer who neither answered nor submitted the round" "approval by the one who submitted"
refused "UPDATE assessment SET status = 'final' WHERE id = 1" \
	"approval names a reviewer who neither answered nor submitted the round" "approval by no one"
refused "INSERT INTO answer (assessment_id, question_id, value, actor, updated_at) VALUES (1, 'tokens', '5', 'rita', 'x')" \
	"its answers change only on a draft" "an answer added in review"
refused "INSERT INTO answer_history (assessment_id, question_id, value, actor, at) VALUES (1, 'tokens', '5', 'rita', 'x')" \
	"its answers change only on a draft" "a history row added in review"
refused "UPDATE answer SET value = '\"yes\"' WHERE assessment_id = 1" \
	"its answers change only on a draft" "an answer changed in review"
refused "DELETE FROM answer WHERE assessment_id = 1" \
	"its answers change only on a draft" "an answer removed in review"

run --actor alice assess approve 1
is "$rc" 2 "aivet refuses alice's approval too (exit 2)"
approver_key rita
run --actor rita assess approve 1
is "$rc" 0 "rita, a second person, approves$errout"
is "$(sqlite3 "$AIVET_DB" "SELECT status || ' ' || reviewer FROM assessment WHERE id = 1")" "final rita" "final, by rita"
run assess reopen 1
is "$rc" 0 "a final round reopens as a new draft$errout"
is "$(sqlite3 "$AIVET_DB" "SELECT status || ' ' || round || ' ' || parent_id || ' ' ||
	(SELECT count(*) FROM answer WHERE assessment_id = 2) FROM assessment WHERE id = 2")" "draft 2 1 2" \
	"round 2, with the answers of round 1"
run audit verify
is "$rc" 0 "the chain verifies$errout"

done_testing
