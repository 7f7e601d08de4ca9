#!/bin/sh
# key-reads.sh: the report and the claims are records, not JSON read back by
# key. report.c builds the typed report from the database's records (with
# report-evidence.c, the evidence files, and report-judge.c, the judgement),
# report-json.c writes report.json from it, claims.c judges typed runs into
# claim lists: each may read by key (json_get_*, cJSON_GetObjectItem*,
# cJSON_ArrayForEach) only the free-form values the table below names, at
# most as often as it says. None of them turns rows into objects keyed by
# column name (db_col_name).
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

reads() { grep -cE 'json_get_|cJSON_GetObjectItem|cJSON_ArrayForEach' "$1"; }

# The counter counts: a line with a read is one, a line without none.
printf 'a = json_get_str(o, "k");\nb = 1;\nc = cJSON_GetObjectItem(o, "k");\n' > "$T/sample.c"
is "$(reads "$T/sample.c")" 2 "the counter finds the two reads of a sample"

# FILE MAX WHAT: the most reads by key FILE may hold, and of what. The probes'
# documents (a result's details, a run's calibration) are read once, by the
# engine that writes them (src/engine/probe-read.c), into typed members.
while read -r file max what; do
	case $file in ''|'#'*) continue ;; esac
	if [ ! -f "$file" ]; then
		ok 1 "$file exists (the table names a file that is gone)"
		continue
	fi
	n=$(reads "$file")
	ok "$([ "$n" -le "$max" ] && echo 0 || echo 1)" "$file: $n reads by key, at most $max ($what)"
done <<'EOF'
src/domain/report/report.c 0 none
src/domain/report/report-evidence.c 3 an exchange's recorded headers, in the three shapes they come in
src/domain/report/report-judge.c 0 none
src/domain/report/report-json.c 0 none
src/domain/report/report-doc.c 0 none: the engine reads the documents
src/domain/assess/claims.c 3 the questionnaire's value sets and finding codes
src/domain/report/report-html.c 1 an answer's free-form value, as text
src/domain/report/report-md.c 1 an answer's free-form value, as text
src/domain/report/report-oscal.c 0 none
src/domain/report/report-parts.c 1 a calibration member no row names, in words
src/domain/report/report-timing.c 0 none
src/domain/report/report-export.c 0 none: the options come from the record
src/engine/probe-diff.c 1 a scalar's value set, compared
EOF

# Every file of the report, the claims and the diff together: at most 30.
total=0 files=0
for f in $(tree_files "$top" 'src/domain/report/report*.c') src/domain/assess/claims.c src/engine/probe-diff.c; do
	[ -f "$f" ] || continue
	files=$((files + 1))
	total=$((total + $(reads "$f")))
done
ok "$([ "$files" -ge 11 ] && echo 0 || echo 1)" "the report's, the claims' and the diff's files are found ($files)"
ok "$([ "$total" -le 30 ] && echo 0 || echo 1)" "the report, the claims and the diff: $total reads by key together, at most 30"

for f in src/domain/report/report.c src/domain/report/report-evidence.c src/domain/report/report-judge.c \
    src/domain/assess/claims.c; do
	is "$(grep -c 'db_col_name' "$f")" 0 "$f reads no row keyed by column name"
done
done_testing
