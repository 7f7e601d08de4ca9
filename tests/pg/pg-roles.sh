#!/bin/sh
# tests/pg/pg-roles.sh: three logins with three roles on one PostgreSQL
# database. The owner grants aivet_auditor, aivet_assessor and
# aivet_reviewer; every action of the matrix below is run by each login and
# either succeeds or is refused with exit 2 naming the role it needs, with
# nothing changed. The actor is the login: an assessment alice answered is
# not approved by alice whatever --actor says, and rita approves it under
# her own name. The audit log cannot be edited, by the owner through the
# triggers or by the others through their privileges, and an edit made with
# the triggers switched off is found by an auditor's 'audit verify'.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/db-fixture.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita audrey mallory; do pg_login "$l"; done
pg_createdb team owner
# as LOGIN ARGS...: aivet connected as LOGIN (AIVET_ACTOR stays "tester": ignored here).
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
count() { pg_sql -d team "SELECT count(*) FROM $1"; }

# ---- the owner sets the team up ----
as owner vendor add V0
is "$rc:$out" "0:vendor V0 added (id 1)" "the owner creates and migrates the database"
for g in alice:assessor rita:reviewer audrey:auditor; do
	as owner db grant "${g%%:*}" "${g#*:}"
	is "$rc:$out" "0:granted aivet_${g#*:} to ${g%%:*}" "db grant ${g%%:*} ${g#*:}"
done
is "$(pg_sql "SELECT string_agg(u.rolname || '=' || g.rolname, ' ' ORDER BY u.rolname) FROM pg_auth_members m
	JOIN pg_roles u ON u.oid = m.member JOIN pg_roles g ON g.oid = m.roleid WHERE u.rolcanlogin")" \
	"alice=aivet_assessor audrey=aivet_auditor rita=aivet_reviewer" "the server holds the grants"
is "$(pg_sql -d team "SELECT string_agg(actor || ' ' || action || ' ' || details, '; ' ORDER BY seq) FROM audit_log WHERE action LIKE 'db.%'")" \
	'owner db.grant {"login":"alice","role":"assessor"}; owner db.grant {"login":"rita","role":"reviewer"}; owner db.grant {"login":"audrey","role":"auditor"}' \
	"each grant is in the audit log, by the owner"
as owner db roles
is "$out" "LOGIN                    OWNER ROLES                      MAY
owner                    yes   -                          everything (owner)
alice                          assessor                   read, verify, write (approving needs aivet_reviewer)
audrey                         auditor                    read, verify (writing needs aivet_assessor)
rita                           reviewer                   read, verify, write, approve" "db roles"
as alice db whoami --json
is "$(printf '%s' "$out" | jq -c '[.login, .backend, .owner, .roles, .read, .write, .approve]')" \
	'["alice","postgresql",false,["assessor"],true,true,false]' "db whoami --json: the login, not AIVET_ACTOR"
as audrey --actor rita db whoami
is "$out" "login     audrey
backend   postgresql
owner     no
roles     auditor
may       read, verify (writing needs aivet_assessor)" "db whoami: --actor does not change who you are"

snap=$(count audit_log)
as alice db grant mallory reviewer
is "$rc:$errout" "2:aivet: granting roles is for the database's owner: alice is not it" "only the owner grants"
as owner db grant nobody assessor
is "$rc:$errout" "2:aivet: no login 'nobody' on this server (create it first, e.g. CREATE ROLE nobody LOGIN)" \
	"granting to a login that does not exist"
as owner db grant aivet_reviewer assessor
is "$rc:$errout" "2:aivet: 'aivet_reviewer' is not a login: name a login to grant to" "granting to a group role"
as alice db timezone Asia/Tokyo
is "$rc:$errout" "2:aivet: setting the organisation's time zone is for the database's owner: alice is not it" \
	"only the owner sets the organisation's time zone"
is "$(count audit_log)" "$snap" "refused grants and zones change nothing"
as owner db timezone America/New_York
is "$rc" 0 "the owner sets the organisation's time zone"
as audrey db timezone --json
is "$(printf '%s' "$out" | jq -r '[.timezone, .set_by, .assumed] | map(tostring) | join(" ")')" \
	"America/New_York owner false" "an auditor reads it, and who set it"
# An entry for the zone another login writes through the audit function is
# refused (its function is the owner's, db/pg/018-no-change.sql), and moves no
# deadline: only the owner's entry counts.
pg_psql_as alice team -c "BEGIN; SELECT aivet_audit_append('2030-01-01T00:00:00.000Z', 'db.timezone',
	'database', 1, '{\"timezone\":\"Asia/Tokyo\"}'); COMMIT" >/dev/null 2>&1
is "$(pg_sql -d team "SELECT actor || ' ' || details FROM audit_log WHERE action = 'db.timezone' ORDER BY seq DESC LIMIT 1")" \
	'owner {"timezone":"America/New_York","previous":null}' "alice's own zone entry was refused"
as audrey db timezone --json
is "$(printf '%s' "$out" | jq -r '[.timezone, .set_by, .assumed] | map(tostring) | join(" ")')" \
	"America/New_York owner false" "and is not the organisation's zone: only the owner's entry counts"
snap=$(count audit_log)
as mallory vendor list
is "$rc" 2 "a login without a role cannot read (exit 2)"
like "$errout" "^aivet: reading needs the aivet_auditor role \(cannot open database .*user=mallory: permission denied for table aivet_schema\)$" \
	"and is told the role it needs"

# ---- fixtures for the matrix, by the owner: an endpoint on aivet-sim, an
# incident, a draft assessment to answer, and three submitted ones to approve ----
sim_start --context 8192 --tenants "alice=$PROBE_KEY_ALICE,bob=$PROBE_KEY_BOB" || exit 1
as owner endpoint add V0 --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB
# The owner set those references: each member's own configuration allows them.
mkdir -p "$XDG_CONFIG_HOME/aivet"
printf 'env:PROBE_KEY_* owner\n' >"$XDG_CONFIG_HOME/aivet/credentials-allowed"
chmod 600 "$XDG_CONFIG_HOME/aivet/credentials-allowed"
as owner questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json"
as owner incident open V0 --title "seen in the logs"
# One round at a time: each fixture round is another vendor's.
for v in V0 V1 V2 V3; do
	[ "$v" = V0 ] || as owner vendor add "$v"
	as owner assess start "$v" scoring-test
done
for i in 2 3 4; do
	as owner assess answer "$i" gate no
	as owner assess answer "$i" notify 5d
	as owner assess submit "$i"
done
is "$(pg_sql -d team "SELECT string_agg(id || ':' || status, ' ' ORDER BY id) FROM assessment")" \
	"1:draft 2:in_review 3:in_review 4:in_review" "fixtures: one draft, three in review"

# ---- the role matrix: what each role may do ----
# ACTION    AUDITOR   ASSESSOR  REVIEWER   ("ok", or the role named in the refusal)
matrix="read      ok        ok        ok
verify    ok        ok        ok
vendor    assessor  ok        ok
endpoint  assessor  ok        ok
answer    assessor  ok        ok
incident  assessor  ok        ok
probe     assessor  ok        ok
approve   reviewer  reviewer  ok
grant     owner     owner     owner"
echo "# role matrix as tested (ok, or the role the refusal names):"
printf '%s\n' "ACTION    AUDITOR   ASSESSOR  REVIEWER" "$matrix" | sed 's/^/#   /'

# action NAME LOGIN N: runs the action as LOGIN; N (the login's column) keeps names apart.
action() {
	case $1 in
	read) as "$2" vendor list --json ;;
	verify) as "$2" audit verify ;;
	vendor) as "$2" vendor add "V-$2" ;;
	endpoint) as "$2" endpoint add V0 --name "e-$2" --api openai --url "$SIM_URL/v1" --model m \
		--context 8192 ;;
	answer) as "$2" assess answer 1 since "2026-11-0$3" ;;
	incident) as "$2" incident note 1 "noted by $2" ;;
	probe) as "$2" probe run V0/e --yes --probe echo ;;
	approve) approve_as "$2" $(($3 + 1)) --db "$(pg_url team "$2")" ;;
	grant) as "$2" db grant mallory auditor ;;
	esac
}
# What each refusal names, and what a refused action must have left unchanged.
needs() {
	case $1 in
	owner) echo "granting roles is for the database's owner" ;;
	*) echo "aivet_$1" ;;
	esac
}
# The matrix is read on fd 3, so that nothing run in the loop can read it.
while read -r act a1 a2 a3 <&3; do
	col=0
	for l in audrey alice rita; do
		col=$((col + 1))
		eval "want=\$a$col"
		before=$(pg_sql -d team "SELECT (SELECT count(*) FROM audit_log) || '/' || (SELECT count(*) FROM pg_auth_members)")
		action "$act" "$l" "$col"
		if [ "$want" = ok ]; then
			is "$rc" 0 "$act as $l ($(echo "$l" | sed 's/audrey/auditor/; s/alice/assessor/; s/rita/reviewer/')): allowed$errout"
		else
			is "$rc" 2 "$act as $l: refused (exit 2)"
			like "$errout" "$(needs "$want")" "$act as $l: the refusal names $(needs "$want")"
			is "$(pg_sql -d team "SELECT (SELECT count(*) FROM audit_log) || '/' || (SELECT count(*) FROM pg_auth_members)")" \
				"$before" "$act as $l: nothing changed"
		fi
	done
done 3<<EOF
$matrix
EOF
is "$(pg_sql -d team "SELECT string_agg(id || ':' || status || ':' || coalesce(reviewer, '-'), ' ' ORDER BY id) FROM assessment")" \
	"1:draft:- 2:in_review:- 3:in_review:- 4:final:rita" "only the reviewer's approval took effect"
is "$(pg_sql -d team "SELECT string_agg(DISTINCT actor, ',' ORDER BY actor) FROM audit_log")" "alice,owner,rita" \
	"the audit log names logins only: alice, rita and the owner wrote; the auditor wrote nothing"
is "$(pg_sql -d team "SELECT string_agg(name, ',' ORDER BY id) FROM vendor")" "V0,V1,V2,V3,V-alice,V-rita" \
	"vendors: the owner's, the assessor's and the reviewer's"

# ---- the actor is the login: four eyes by who is connected ----
as owner vendor add V4
as alice assess start V4 scoring-test
id=$(pg_sql -d team "SELECT max(id) FROM assessment")
as alice assess answer "$id" gate no
as alice assess answer "$id" notify 5d
as alice assess submit "$id"
approve_as bob "$id" --db "$(pg_url team alice)"
is "$rc" 2 "alice cannot approve what she answered, even with --actor bob (exit 2)"
like "$errout" "alice" "the refusal names alice, the login"
unlike "$errout" "bob" "and not the typed name"
approve_as bob "$id" --db "$(pg_url team rita)"
is "$rc" 0 "rita (reviewer) approves it$errout"
is "$(pg_sql -d team "SELECT status || ' ' || reviewer FROM assessment WHERE id = $id")" "final rita" \
	"the reviewer recorded is rita, whatever --actor said"
is "$(pg_sql -d team "SELECT actor FROM audit_log WHERE action = 'assessment.approve' AND object_id = $id")" "rita" \
	"and the audit entry is rita's"
as owner vendor add V5
as rita assess start V5 scoring-test
id=$(pg_sql -d team "SELECT max(id) FROM assessment")
as rita assess answer "$id" gate no
as rita assess answer "$id" notify 5d
as rita assess submit "$id"
approve_as bob "$id" --db "$(pg_url team rita)"
is "$rc" 2 "a reviewer cannot approve her own answers, even with --actor bob (exit 2)"
like "$errout" "rita" "the refusal names rita"
is "$(pg_sql -d team "SELECT status FROM assessment WHERE id = $id")" "in_review" "it stays in review"
# The server holds the rule even for a client that names someone else: the
# tables take no direct write, and the approval function names the login.
is "$(pg_psql_as rita team -c "UPDATE assessment SET status = 'final', reviewer = 'bob' WHERE id = $id" 2>&1 | head -1)" \
	"ERROR:  permission denied for table assessment" \
	"the server refuses a direct approval"
is "$(pg_psql_as rita team -c "SELECT aivet_assessment_approve($id, '2026-11-30T09:00:00.000Z')" 2>&1 | head -1)" \
	"ERROR:  login rita answered or submitted assessment $id: another login must approve it" \
	"and an approval by the author"
is "$(pg_psql_as alice team -c "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, entry_hash)
	SELECT max(seq) + 1, 'x', 'bob', 'x', 'x', 1, '{}', (SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1), 'x' FROM audit_log" 2>&1 | head -1)" \
	"ERROR:  permission denied for table audit_log" \
	"the server refuses an audit entry written past aivet_audit_append (which names the login)"

# ---- a role taken back ----
as owner db revoke rita reviewer
is "$rc:$out" "0:revoked aivet_reviewer from rita" "db revoke"
as rita vendor list
is "$rc" 2 "without a role rita cannot even read"
like "$errout" "^aivet: reading needs the aivet_auditor role" "and is told which role she needs"
as owner db grant rita reviewer
is "$(pg_sql -d team "SELECT string_agg(action || ' ' || details, '; ' ORDER BY seq) FROM audit_log WHERE action LIKE 'db.%' AND details LIKE '%rita%'")" \
	'db.grant {"login":"rita","role":"reviewer"}; db.revoke {"login":"rita","role":"reviewer"}; db.grant {"login":"rita","role":"reviewer"}' \
	"grants and revocations are in the audit log"

# ---- the audit log cannot be edited ----
n=$(count audit_log)
out=$(pg_psql_as owner team -c "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2" 2>&1)
like "$out" "^ERROR: .*append-only" "UPDATE on the audit log as the owner: refused by the trigger"
out=$(pg_psql_as owner team -c "DELETE FROM audit_log WHERE seq = $n" 2>&1)
like "$out" "^ERROR: .*append-only" "DELETE as the owner: refused by the trigger"
out=$(pg_psql_as rita team -c "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2" 2>&1)
is "$out" "ERROR:  permission denied for table audit_log" "UPDATE as a reviewer: no privilege"
out=$(pg_psql_as alice team -c "DELETE FROM answer_history" 2>&1)
is "$out" "ERROR:  permission denied for table answer_history" "answer history: no privilege to delete"
as audrey audit verify
is "$rc" 0 "the chain is intact$errout"
head=$(printf '%s' "$out" | sed -n 's/.*head //p')
# A superuser can switch the triggers off; verification still finds the edit.
pg_sql -d team "ALTER TABLE audit_log DISABLE TRIGGER USER; UPDATE audit_log SET actor = 'mallory' WHERE seq = 2; ALTER TABLE audit_log ENABLE TRIGGER USER"
as audrey audit verify
is "$rc:$errout" "1:aivet: audit chain broken: entry 2: contents do not match its entry_hash (edited after it was written)" \
	"an edit made with the triggers off is found by the auditor"

sim_stop
done_testing
