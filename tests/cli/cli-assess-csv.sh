#!/bin/sh
# cli-assess-csv.sh: the vendor round trip. Export a sheet, edit it as a
# vendor would (sed), import it and see the answers change; a sheet with bad
# rows is refused as a whole, every bad row named with its line.
. "$TESTS_SRCDIR/lib/lib.sh"
D="$TESTS_SRCDIR/data"

run vendor add acme
run questionnaire import "$D/scoring-questionnaire.json"
run assess start acme scoring-test
run assess answer 1 gate yes
run assess answer 1 notify 5d --note "contract 4.2"

run assess export 1 --format csv --output "$T/sheet.csv"
is "$rc" 0 "export csv"
is "$(head -n 1 "$T/sheet.csv")" '"question_id","section","question","type","required","allowed_values","asked_when","answer","note"' \
	"header"
is "$(grep '^"gate"' "$T/sheet.csv")" '"gate","main","Gate?","yes_no","yes","yes|no","","yes",""' "a yes_no row"
is "$(grep '^"detail"' "$T/sheet.csv")" '"detail","main","Detail behind the gate","single_choice","yes","fine|bad","gate is one of yes","",""' \
	"a depends_on row says when it is asked"
is "$(grep '^"notify"' "$T/sheet.csv")" '"notify","main","Notify within","duration","yes","duration (e.g. 24h, 5d; units m, h, d, w)","","5d","contract 4.2"' \
	"answer and note"
is "$(grep '^"tokens"' "$T/sheet.csv")" '"tokens","main","Tokens","number","no","number (tokens)","","",""' "a number row"
is "$(grep '^"channels"' "$T/sheet.csv")" '"channels","main","Channels","multi_choice","no","any of a|b|c, separated by '"','"'","","",""' \
	"a multi_choice row"
is "$(wc -l < "$T/sheet.csv")" 9 "one row per question"
run assess export 1 --format csv
is "$out" "$(cat "$T/sheet.csv")" "stdout and --output agree"

# The vendor fills it in.
sed -e '/^"gate"/s/"yes",""$/"no",""/' \
    -e '/^"notify"/s/"5d","contract 4.2"$/"48h","contract 4.2"/' \
    -e '/^"tokens"/s/"",""$/"500","measured"/' \
    -e '/^"channels"/s/"",""$/"b, a",""/' "$T/sheet.csv" > "$T/filled.csv"
run assess import 1 "$T/filled.csv"
is "$out" "assessment 1: 4 answers changed from $T/filled.csv" "import"
[ -z "$errout" ] || printf '# %s\n' "$errout"
run assess show 1 --json
is "$(printf '%s' "$out" | json '[.questions[] | select(.value != null) | "\(.id)=\(.value|tojson) \(.note)"] | join("; ")')" \
	'gate="no" null; channels=["a","b"] null; tokens=500 measured; notify="48h" contract 4.2' "values changed"
run assess history 1 notify --json
is "$(printf '%s' "$out" | json '[.[] | .value] | join(",")')" "5d,48h" "imported changes are history"
# One audit entry for the sheet, sealing the assessment once, listing each change.
is "$(sqlite3 "$AIVET_DB" "SELECT action || ' ' || json_extract(details, '$.file') || ' ' || (SELECT group_concat(json_extract(c.value, '$.action') || ':' || json_extract(c.value, '$.question'), ',') FROM json_each(details, '$.changes') c) || ' ' || (row_hash IS NOT NULL) FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)")" \
	"answer.import filled.csv answer.set:gate,answer.set:channels,answer.set:tokens,answer.set:notify 1" \
	"the import is one sealed audit entry naming the sheet and every change"
run assess import 1 "$T/filled.csv"
is "$out" "assessment 1: 0 answers changed from $T/filled.csv" "importing the same sheet again changes nothing"

# Bad rows: all reported with their line, then nothing imported.
cat > "$T/bad.csv" <<'EOF'
question_id,answer,note
gate,yes,"a note
over two lines"
nope,yes,
tokens,many,
channels,"a,z",
notify,soon,
since,2026-02-30,

notify,24h,
EOF
snap=$(db_snapshot)
run assess import 1 "$T/bad.csv"
is "$rc" 2 "a sheet with bad rows exits 2"
is "$errout" "$T/bad.csv:4: unknown question 'nope'
$T/bad.csv:5: question tokens: 'many' is not a number
$T/bad.csv:6: question channels: 'z' is not one of a, b, c
$T/bad.csv:7: question notify: 'soon' is not a duration like 24h or 5d (units m, h, d, w)
$T/bad.csv:8: question since: '2026-02-30' is not a date (YYYY-MM-DD)
$T/bad.csv:10: question notify appears twice (first on line 7)
aivet: $T/bad.csv: 6 cells refused; nothing was imported" "every bad row with its line (a quoted note spans two)"
is "$(db_snapshot)" "$snap" "nothing was imported, not even the good row"

printf 'question_id,answer\ngate,"yes\n' > "$T/broken.csv"
run assess import 1 "$T/broken.csv"
is "$rc:$errout" "2:aivet: $T/broken.csv:2: not valid CSV: error parsing data while strict checking enabled" \
	"an unterminated quote"
printf 'question,value\ngate,yes\n' > "$T/nohdr.csv"
run assess import 1 "$T/nohdr.csv"
is "$rc:$errout" "2:aivet: $T/nohdr.csv:1: the header needs the columns question_id and answer (see 'aivet assess export')" \
	"a sheet without the columns"
printf '\357\273\277question_id,answer\r\ngate,yes\r\n' > "$T/excel.csv"
run assess import 1 "$T/excel.csv"
is "$out" "assessment 1: 1 answer changed from $T/excel.csv" "a byte order mark and CRLF lines are fine"
is "$(sqlite3 "$AIVET_DB" "SELECT value FROM answer WHERE assessment_id = 1 AND question_id = 'gate'")" '"yes"' \
	"and the value was read without the BOM or CR"

# A write that fails halfway through an import (the third of four changes, as a
# full disk or a lost lock would): the import is one transaction, so nothing of
# it stays, the two changes before the failure included. (The sheet's gate is
# no, the answer yes since the sheet with a byte order mark.)
sed -e '/^"notify"/s/"48h","contract 4.2"$/"72h","contract 4.2"/' \
    -e '/^"tokens"/s/"500","measured"$/"600","measured"/' \
    -e '/^"channels"/s/"b, a",""$/"c",""/' "$T/filled.csv" > "$T/refill.csv"
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	sqlite3 "$AIVET_DB" "CREATE FUNCTION fail_tokens() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN IF NEW.question_id = 'tokens' THEN RAISE EXCEPTION 'database or disk is full'; END IF;
		RETURN NEW; END \$\$;
		CREATE TRIGGER fail_tokens BEFORE INSERT ON answer_history FOR EACH ROW EXECUTE FUNCTION fail_tokens()" >/dev/null
	unfail="DROP TRIGGER fail_tokens; DROP FUNCTION fail_tokens()"   # the shim adds ON TABLE
else
	sqlite3 "$AIVET_DB" "CREATE TRIGGER fail_tokens BEFORE INSERT ON answer_history WHEN NEW.question_id = 'tokens'
		BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
	unfail="DROP TRIGGER fail_tokens"
fi
snap=$(db_snapshot)
run assess import 1 "$T/refill.csv"
like "$rc:$errout" "^[1-9]:aivet: .*database or disk is full" "a write failing halfway: the import fails, saying why"
is "$(db_snapshot)" "$snap" "and nothing of it stays: not the two changes written before the failure, nor its audit entry"
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(question_id || '=' || value, ' ') FROM (SELECT * FROM answer WHERE assessment_id = 1 ORDER BY question_id) AS a")" \
	'channels=["a","b"] gate="yes" notify="48h" tokens=500' "the answers are those from before the import"
sqlite3 "$AIVET_DB" "$unfail" >/dev/null
run assess import 1 "$T/refill.csv"
is "$rc:$out" "0:assessment 1: 4 answers changed from $T/refill.csv" "once writes succeed, the same sheet imports whole"
[ -z "$errout" ] || printf '# %s\n' "$errout"

run assess export 1 --format md
is "$(printf '%s\n' "$out" | head -n 1)" "# Scoring test: acme" "markdown title"
is "$(printf '%s\n' "$out" | grep '^| notify')" "| notify (required): Notify within | duration (e.g. 24h, 5d; units m, h, d, w) | 72h | contract 4.2 |" \
	"markdown row"
is "$(printf '%s\n' "$out" | grep '^| detail')" "| detail (required): Detail behind the gate<br>Only when gate is one of yes | fine\\|bad |  |  |" \
	"pipes escaped, condition shown"
run assess export 1
is "$rc:$errout" "2:aivet: assess export needs --format csv, md or xlsx
usage: aivet assess export ASSESSMENT --format csv|md|xlsx [--output FILE] [--due DATE]" "export needs a format"
run assess export 1 --format xml
is "$rc:$errout" "2:aivet: --format: 'xml' is not csv, md or xlsx
usage: aivet assess export ASSESSMENT --format csv|md|xlsx [--output FILE] [--due DATE]" "only csv, md and xlsx"

run audit verify
is "$rc" 0 "the audit chain is intact"
done_testing
