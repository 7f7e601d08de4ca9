#!/bin/sh
# tests/pg/pg-concurrency.sh: two logins, forty processes each, writing to one
# PostgreSQL database at once: every process adds a vendor, answers the
# same question of one assessment and adds a note to one incident's
# timeline. Every command exits 0, nothing is lost (exact counts, every
# name), each audit entry names the login that wrote it, and the audit
# chain, appended by 240 writers one at a time, verifies.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

N=${PG_WRITERS:-40}
pg_start
pg_login owner CREATEROLE
pg_login alice
pg_login bob
pg_createdb team owner
as() {
	_l=$1
	shift
	"$AIVET" --db "$(pg_url team "$_l")" "$@"
}
as owner vendor add V0 >/dev/null &&
as owner questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null &&
as owner assess start V0 scoring-test >/dev/null &&
as owner incident open V0 --title "seen by everyone" >/dev/null &&
as owner db grant alice assessor >/dev/null &&
as owner db grant bob assessor >/dev/null
ok $? "the owner sets up a vendor, an assessment, an incident and two assessors"
q() { pg_sql -d team "$1"; }
audit0=$(q "SELECT count(*) FROM audit_log")
entries0=$(q "SELECT count(*) FROM incident_entry WHERE incident_id = 1")

# writer LOGIN I UNIT: one process's three writes, each command's status in a file.
writer() {
	as "$1" vendor add "V-$1-$2" >/dev/null 2>"$T/w/$1-$2.err"
	echo "vendor $?" >"$T/w/$1-$2.rc"
	# Every value differs from every other, so that no answer leaves the one before unchanged.
	as "$1" assess answer 1 notify "$2$3" >/dev/null 2>>"$T/w/$1-$2.err"
	echo "answer $?" >>"$T/w/$1-$2.rc"
	as "$1" incident note 1 "note $2 by $1" >/dev/null 2>>"$T/w/$1-$2.err"
	echo "note $?" >>"$T/w/$1-$2.rc"
}
mkdir "$T/w"
t0=$(date +%s%N)
pids=""
i=1
while [ "$i" -le "$N" ]; do
	writer alice "$i" h &
	pids="$pids $!"
	writer bob "$i" d &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do wait "$p"; done
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
writes=$((2 * N * 3))
echo "# $((2 * N)) processes, $writes writes in $ms ms ($(awk -v w="$writes" -v ms="$ms" 'BEGIN { printf "%.0f", w * 1000 / ms }') writes/s)"

is "$(cat "$T"/w/*.rc | sort | uniq -c | sed 's/^ *//')" "$((2 * N)) answer 0
$((2 * N)) note 0
$((2 * N)) vendor 0" "every one of the $writes commands exits 0"
cat "$T"/w/*.err | sort | uniq -c | head -5 | sed 's/^/# /'
is "$(q "SELECT count(*) FROM vendor")" "$((2 * N + 1))" "vendors: $((2 * N)) added, none lost"
want=$(i=1; while [ "$i" -le "$N" ]; do echo "V-alice-$i"; echo "V-bob-$i"; i=$((i + 1)); done | sort)
is "$(q "SELECT name FROM vendor WHERE name <> 'V0'" | sort)" "$want" "each by its name"
is "$(q "SELECT count(*) FROM answer_history WHERE assessment_id = 1 AND question_id = 'notify'")" "$((2 * N))" \
	"answer history: all $((2 * N)) answers to the one question"
is "$(q "SELECT count(*) FROM incident_entry WHERE incident_id = 1") " "$((entries0 + 2 * N)) " \
	"incident timeline: all $((2 * N)) notes"
is "$(q "SELECT count(*) FROM audit_log")" "$((audit0 + writes))" "audit log: one entry per write"
is "$(q "SELECT actor || ' ' || count(*) FROM audit_log WHERE seq > $audit0 GROUP BY actor ORDER BY actor")" \
	"alice $((3 * N))
bob $((3 * N))" "each entry names the login that wrote it"
is "$(q "SELECT count(*) FROM audit_log a JOIN audit_log b ON b.seq = a.seq + 1 WHERE b.prev_hash <> a.entry_hash")" 0 \
	"each entry chains to the one before it"
run --db "$(pg_url team owner)" audit verify
is "$rc:$out" "0:audit chain intact: $((audit0 + writes)) entries, head $(q "SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1")" \
	"audit verify passes"

done_testing
