#!/bin/sh
# tui-sheet.sh: the vendor's sheet from the assessment screen. E writes it in
# the format picked from a menu (an Excel workbook beside CSV and Markdown);
# openpyxl fills the workbook as a vendor would; I reads it back through the
# file picker, and a refused sheet shows every problem with its cell and
# changes nothing.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import openpyxl' 2>/dev/null; then
	echo "1..0 # SKIP python3-openpyxl is not installed"
	exit 0
fi

run vendor add acme
run questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json"
run assess start acme scoring-test
run assess answer 1 gate yes
mkdir -p "$T/files"
cd "$T/files" || exit 1

tui_start 100x30
tui_wait "acme"
tui_keys Enter
tui_wait "Vendor:      acme"
tui_keys s
tui_wait "scoring-test"
tui_keys Enter
tui_wait "Assessment 1 (draft)"; ok $? "the assessment is open"
tui_keys E
tui_wait "Write the vendor's sheet as"; ok $? "E asks for the sheet's format"
like "$(tui_screen)" "xlsx +Excel workbook" "the workbook is offered"
like "$(tui_screen)" "csv +CSV, one row per question" "beside CSV"
tui_keys Enter
tui_wait "Write to: assessment-1.xlsx"; ok $? "a file name is proposed"
tui_keys Enter
tui_wait "assessment 1: xlsx sheet written to assessment-1.xlsx"; ok $? "the workbook is written"
"$PY" "$TESTS_SRCDIR/lib/xlsx-vendor.py" show "$T/files/assessment-1.xlsx" | grep '^meta' | head -2 > "$T/meta.txt"
is "$(cat "$T/meta.txt")" "meta ('assessment', 1)
meta ('questionnaire', 'scoring-test')" "a workbook of this assessment"
tui_keys E Down Enter
tui_wait "Write to: assessment-1.csv"
tui_keys Enter
tui_wait "assessment 1: csv sheet written to assessment-1.csv"; ok $? "CSV the same way"
is "$(head -n 1 "$T/files/assessment-1.csv")" '"question_id","section","question","type","required","allowed_values","asked_when","answer","note"' \
	"the CSV sheet"

"$PY" "$TESTS_SRCDIR/lib/xlsx-vendor.py" fill "$T/files/assessment-1.xlsx" "$T/files/filled.xlsx"
"$PY" "$TESTS_SRCDIR/lib/xlsx-vendor.py" answer "$T/files/assessment-1.xlsx" "$T/files/maybe.xlsx" gate maybe
snap=$(db_snapshot)
tui_keys I
tui_wait "Import a filled-in sheet (.xlsx or .csv): $T/files"; ok $? "I opens the file picker"
tui_keys /
tui_type maybe
tui_keys Enter
tui_wait "[filter: maybe]"
tui_keys Enter
tui_wait "Answers!E2: question gate: 'maybe' is not one of yes, no"; ok $? "a refused sheet shows its problems by cell"
like "$(tui_screen)" "maybe.xlsx: 1 cell refused; nothing was imported" "and that nothing was imported"
is "$(db_snapshot)" "$snap" "nothing changed"
tui_keys q
tui_wait "Assessment 1 (draft)"
tui_keys I /
tui_type filled
tui_keys Enter
tui_wait "[filter: filled]"
tui_keys Enter
tui_wait "assessment 1: 6 answers changed from $T/files/filled.xlsx"; ok $? "a filled workbook imports"
run assess show 1 --json
is "$(printf '%s' "$out" | json '[.questions[] | select(.value != null) | "\(.id)=\(.value|tojson)"] | join("; ")')" \
	'gate="no"; channels=["a","b"]; tokens=500; notify="48h"; since="2026-03-01"; limit="error"' "with the vendor's answers"
tui_wait_re "none +gate +no$"; ok $? "the screen shows them"
done_testing
