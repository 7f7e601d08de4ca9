#!/bin/sh
# tests/pg/pg-rounds.sh: one round at a time, held by the PostgreSQL server
# (db/pg/015-rounds.sql), not only by aivet. A second assessor calls the
# start function herself in SQL beside alice's draft (of the same
# questionnaire, or of its next version), beside the round in review and
# after the final round: each refused naming the round in the way, nothing
# written. reopen after the final round starts round 2, then round 3; a
# second round 2 is refused even in the owner's own SQL; and two logins
# starting a vendor's first round at the same moment get one round, not two.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice amy rita; do pg_login "$l"; done
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
# psql_as LOGIN SQL: the first line psql prints (the error, or the first row).
psql_as() { pg_psql_as "$1" team -c "$2" 2>&1 | head -1; }
state() {
	pg_sql -d team "SELECT (SELECT count(*) FROM assessment) || '/' || (SELECT count(*) FROM answer) || '/' ||
		(SELECT count(*) FROM audit_log) || '/' ||
		(SELECT string_agg(id || status || round, ',' ORDER BY id) FROM assessment)"
}
# start_sql VENDOR QUESTIONNAIRE-ROW: a start in SQL, with the audit entry the
# commit needs, so that only the round rule can refuse it.
start_sql() {
	echo "SELECT aivet_audit_append('2026-12-01T09:00:00.000Z', 'assessment.start', 'assessment',
		aivet_assessment_start($1, $2, '2026-12-01T09:00:00.000Z'), '{}')"
}

as owner vendor add acme
as owner vendor add beta
for g in alice:assessor amy:assessor rita:reviewer; do as owner db grant "${g%%:*}" "${g#*:}"; done
as owner questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json"
jq '.version = 2' "$TESTS_SRCDIR/data/scoring-questionnaire.json" > "$T/scoring-v2.json"
as owner questionnaire import "$T/scoring-v2.json"
is "$rc" 0 "the owner sets up the team and loads two versions of a questionnaire$errout"
Q1=$(pg_sql -d team "SELECT id FROM questionnaire WHERE qid = 'scoring-test' AND version = 1")
Q2=$(pg_sql -d team "SELECT id FROM questionnaire WHERE qid = 'scoring-test' AND version = 2")
ACME=$(pg_sql -d team "SELECT id FROM vendor WHERE name = 'acme'")
BETA=$(pg_sql -d team "SELECT id FROM vendor WHERE name = 'beta'")
is "$(printf '%s' "$Q1$Q2$ACME$BETA" | tr -d '0-9')" "" "ids read back"

as alice assess start acme scoring-test@1
is "$rc" 0 "alice starts round 1 through aivet$errout"
D=$(pg_sql -d team "SELECT max(id) FROM assessment")

# ---- beside the draft ----
before=$(state)
is "$(psql_as amy "$(start_sql "$ACME" "$Q1")")" \
	"ERROR:  vendor $ACME already has draft $D of scoring-test (round 1, draft): one round at a time" \
	"amy's start in SQL beside alice's draft: refused, naming the draft"
is "$(psql_as amy "$(start_sql "$ACME" "$Q2")")" \
	"ERROR:  vendor $ACME already has draft $D of scoring-test (round 1, draft): one round at a time" \
	"and of the questionnaire's next version"
is "$(psql_as owner "INSERT INTO assessment (vendor_id, questionnaire_id, created_by, created_at)
	VALUES ($ACME, $Q1, 'owner', 'x')")" \
	"ERROR:  vendor $ACME already has draft $D of scoring-test (round 1, draft): one round at a time" \
	"the owner's own INSERT too"
as amy assess start acme scoring-test
is "$rc:$errout" "2:aivet: the vendor already has draft $D of scoring-test (round 1, draft): one round at a time; answer it there, or submit and approve it first" \
	"through aivet, the same refusal"
is "$(state)" "$before" "nothing written"

# ---- beside the round in review, then after the final round ----
as alice assess answer "$D" gate no
as alice assess answer "$D" notify 24h
as alice assess submit "$D"
before=$(state)
is "$(psql_as amy "$(start_sql "$ACME" "$Q1")")" \
	"ERROR:  vendor $ACME already has assessment $D of scoring-test (round 1, in review): one round at a time" \
	"beside the round in review: refused"
as rita assess approve "$D"
is "$rc" 0 "rita approves round 1$errout"
before=$(state)
is "$(psql_as amy "$(start_sql "$ACME" "$Q2")")" \
	"ERROR:  vendor $ACME's scoring-test round 1 is final (assessment $D): reopening it starts round 2" \
	"a new round 1 after the final round: refused, naming reopen"
is "$(state)" "$before" "nothing written"

# ---- reopen: round N+1 ----
as amy assess reopen "$D"
is "$rc" 0 "amy reopens the final round$errout"
D2=$(pg_sql -d team "SELECT max(id) FROM assessment")
is "$(pg_sql -d team "SELECT round || ' ' || parent_id || ' ' || status || ' ' || created_by FROM assessment WHERE id = $D2")" \
	"2 $D draft amy" "round 2 of round 1, a draft, amy's"
before=$(state)
is "$(psql_as alice "SELECT aivet_assessment_reopen($D, 'x')")" \
	"ERROR:  assessment $D was already reopened" "reopening round 1 again: refused by the function"
is "$(psql_as owner "INSERT INTO assessment (vendor_id, questionnaire_id, round, parent_id, created_by, created_at)
	VALUES ($ACME, $Q1, 2, $D, 'owner', 'x')")" \
	"ERROR:  vendor $ACME already has draft $D2 of scoring-test (round 2, draft): one round at a time" \
	"a second round 2 in the owner's SQL: refused, naming round 2"
is "$(state)" "$before" "nothing written"
as amy assess submit "$D2"
as rita assess approve "$D2"
as alice assess reopen "$D2"
is "$rc" 0 "round 2 final and reopened$errout"
is "$(pg_sql -d team "SELECT string_agg(round || ':' || status, ',' ORDER BY id) FROM assessment WHERE vendor_id = $ACME")" \
	"1:final,2:final,3:draft" "round 3 follows round 2"
as rita audit verify
is "$rc" 0 "the chain verifies$errout"

# ---- two logins at the same moment ----
# alice's start holds the vendor's round lock (pg_advisory_xact_lock on
# hashtext('aivet.round') and the vendor's id) until amy's start, begun
# meanwhile, is seen waiting for it; amy's then sees alice's round.
round_lock="l.locktype = 'advisory' AND l.classid = hashtext('aivet.round')::oid AND l.objid = $BETA
	AND l.objsubid = 2"
pg_psql_as alice team -c "BEGIN" -c "$(start_sql "$BETA" "$Q1")" -c "DO \$\$ BEGIN
	FOR i IN 1..600 LOOP
		IF EXISTS (SELECT 1 FROM pg_locks l WHERE $round_lock AND NOT l.granted) THEN
			RAISE NOTICE 'a start waits for the round lock'; RETURN;
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RAISE NOTICE 'no start waited for the round lock';
END \$\$" -c "COMMIT" >"$T/alice.out" 2>&1 &
apid=$!
# amy starts once alice's start holds the round's lock (30 s at most), however
# slow the machine is to start alice's psql.
_i=0
while [ $_i -lt 300 ] && [ "$(pg_sql -d team "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a
	ON a.pid = l.pid WHERE $round_lock AND l.granted AND a.usename = 'alice'")" = 0 ]; do
	sleep 0.1; _i=$((_i + 1))
done
ok "$(test $_i -lt 300; echo $?)" "alice's start holds beta's round lock"
is "$(psql_as amy "$(start_sql "$BETA" "$Q1")" | sed 's/ [0-9]* of / N of /')" \
	"ERROR:  vendor $BETA already has draft N of scoring-test (round 1, draft): one round at a time" \
	"amy, starting while alice's start is not yet committed: refused once it is"
wait "$apid"
arc=$?
is "$(grep -c 'NOTICE:  a start waits for the round lock' "$T/alice.out")" 1 \
	"amy's start waited for the lock alice's held (alice's transaction saw it wait, then committed)"
is "$arc:$(pg_sql -d team "SELECT count(*) || ' ' || min(created_by) FROM assessment WHERE vendor_id = $BETA")" \
	"0:1 alice" "one round 1 for beta, alice's"
done_testing
