#!/bin/sh
# tests/hard/hard-crash.sh: crash consistency. `aivet probe run` is killed with
# SIGKILL at 50 random moments against aivet-sim; after each kill the
# database passes PRAGMA integrity_check and foreign_key_check, the audit
# chain verifies, every exchange recorded before the kill is still there
# unchanged with its evidence and blobs, and the killed run reads
# 'interrupted' (or 'completed' when it finished first). At the end every
# blob is checked against its SHA-256 (tests/lib/hard-check-db.py).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

KILLS=${AIVET_CRASH_KILLS:-50}
seed=${AIVET_CRASH_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# kill moments from seed $seed (AIVET_CRASH_SEED=$seed repeats them)"
sim_start --tenants "$PROBE_TENANTS" --context 8192 --pool 8192 --decode-us-per-token 3000 || exit 1
probe_setup openai 8192
# Moments in ms after the plan is printed, spread over a run of echo and canary
# (about 0.5 s here: the sim decodes at 3 ms a token so that a kill can land mid-run).
awk -v s="$seed" -v n="$KILLS" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%d\n", rand() * 600 }' \
	>"$T/moments"

prev_max=0
prev_sum=$(printf '' | md5sum)
bad_db=0 bad_audit=0 bad_status=0 interrupted=0 completed=0 before_start=0 i=0
while read -r ms; do
	i=$((i + 1))
	last=$(q "SELECT coalesce(max(id), 0) FROM probe_run")
	"$AIVET" probe run V/e --probe echo,canary --yes --json >/dev/null 2>"$T/run.err" &
	pid=$!
	# The moment counts from the plan on stderr, printed just before the run
	# begins: a store that opens slowly (a server, a busy machine) moves it all.
	w=0
	while [ "$w" -lt 1000 ] && ! grep -q '^  total ' "$T/run.err" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do
		sleep 0.01
		w=$((w + 1))
	done
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	problem=""
	# The file's pages and foreign keys: SQLite's own checks. A PostgreSQL server
	# enforces foreign keys on every write and keeps its pages itself.
	if [ "${AIVET_TEST_BACKEND:-sqlite}" != pg ]; then
		[ "$(q "PRAGMA integrity_check")" = ok ] || problem="integrity_check failed"
		[ -z "$(q "PRAGMA foreign_key_check")" ] || problem="$problem; foreign keys broken"
	fi
	[ "$(q "SELECT count(*) FROM exchange x LEFT JOIN evidence e ON e.id = x.evidence_id
		WHERE e.id IS NULL OR NOT EXISTS (SELECT 1 FROM blob b WHERE b.sha256 = e.sha256)
		OR (x.response_blob IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blob b WHERE b.sha256 = x.response_blob))")" = 0 ] ||
		problem="$problem; an exchange lost its evidence or blob"
	# The exchanges that existed before this kill, byte for byte.
	now=$(q "SELECT x.*, e.sha256, length(b.data) FROM exchange x JOIN evidence e ON e.id = x.evidence_id
		JOIN blob b ON b.sha256 = e.sha256 WHERE x.id <= $prev_max ORDER BY x.id" | md5sum)
	[ "$now" = "$prev_sum" ] || problem="$problem; exchanges recorded before the kill changed"
	if [ -n "$problem" ]; then
		bad_db=$((bad_db + 1))
		echo "# kill $i at ${ms} ms: $problem"
	fi
	prev_max=$(q "SELECT coalesce(max(id), 0) FROM exchange")
	prev_sum=$(q "SELECT x.*, e.sha256, length(b.data) FROM exchange x JOIN evidence e ON e.id = x.evidence_id
		JOIN blob b ON b.sha256 = e.sha256 WHERE x.id <= $prev_max ORDER BY x.id" | md5sum)
	if ! "$AIVET" audit verify >/dev/null 2>&1; then
		bad_audit=$((bad_audit + 1))
		echo "# kill $i at ${ms} ms: audit verify failed"
	fi
	run=$(q "SELECT coalesce(max(id), 0) FROM probe_run")
	if [ "$run" = "$last" ]; then
		before_start=$((before_start + 1))
		continue
	fi
	st=$("$AIVET" probe show "$run" --json | jq -r .status)
	case $st in
	interrupted) interrupted=$((interrupted + 1)) ;;
	completed) completed=$((completed + 1)) ;;
	*) bad_status=$((bad_status + 1)); echo "# kill $i at ${ms} ms: run $run is '$st'" ;;
	esac
done <"$T/moments"
echo "# $KILLS kills: $interrupted runs interrupted, $completed completed first, $before_start before the run existed"

is "$bad_db" 0 "after each of $KILLS kills: integrity_check ok, earlier exchanges intact"
is "$bad_audit" 0 "after each kill the audit chain verifies"
is "$bad_status" 0 "every killed run reads interrupted (or completed), none running"
ok "$([ "$interrupted" -ge $((KILLS / 3)) ]; echo $?)" "most kills landed mid-run ($interrupted of $KILLS)"
is "$(q "SELECT count(*) FROM probe_run WHERE status = 'running'")" 0 "no run is left running"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.interrupted'")" "$interrupted" \
	"each settled run has its audit entry"
# On a server the checks read the rows as copied into an SQLite file, byte for byte.
check_db=$AIVET_DB
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	check_db=$T/check.db
	"$AIVET" db copy "$AIVET_DB" "$check_db" >/dev/null
fi
python3 "$TESTS_SRCDIR/lib/hard-check-db.py" "$check_db" "$T/snapshot" >"$T/check" 2>&1
is "$?" 0 "every blob matches its SHA-256, every exchange complete"
sed 's/^/# /' "$T/check" | head -5
n=$(q "SELECT count(*) FROM exchange")
ok "$([ "$n" -gt 0 ]; echo $?)" "exchanges were recorded across the kills ($n)"
# A run killed mid-way keeps its exchanges and ends at the last of them.
r=$(q "SELECT r.id FROM probe_run r WHERE r.status = 'interrupted' AND EXISTS (SELECT 1 FROM exchange x WHERE x.run_id = r.id) LIMIT 1")
if [ -n "$r" ]; then
	is "$(q "SELECT finished_at = (SELECT max(started_at) FROM exchange WHERE run_id = $r) FROM probe_run WHERE id = $r")" 1 \
		"an interrupted run ends at its last recorded exchange"
else
	ok 0 "# SKIP no interrupted run had exchanges"
fi
done_testing
