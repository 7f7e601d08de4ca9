# tests/lib/db-fixture.sh: a database with rows in every table aivet keeps, for
# the tests of 'aivet db copy'. Source after lib.sh and sim-lib.sh.
# fixture_build fills the SQLite database $AIVET_DB through the CLI: a vendor
# whose endpoint leaks (probe runs with exchanges, findings, stored content),
# a final assessment with evidence and its next round, an incident with its
# timeline, task and links, and a signed report. Answers are alice's,
# approval rita's. fixture_dump FILE prints every row of an SQLite file, to
# compare a database with its copy after a round trip.

# The fixture is an SQLite file whatever AIVET_TEST_BACKEND says: these tests
# choose their backends themselves.
AIVET_DB=$T/aivet.db
PATH=${PATH#"$TESTS_SRCDIR/lib/pg-bin:"}
export AIVET_DB PATH

export PROBE_KEY_ALICE=sk-alice-0123456789abcdef PROBE_KEY_BOB=sk-bob-fedcba9876543210

# approve_as ACTOR ID [--db SPEC]: approval by ACTOR (on PostgreSQL, by the
# login SPEC names, whatever ACTOR is; on SQLite with ACTOR's key, made and
# registered here the first time). Where this aivet still takes
# --reviewer NAME, the reviewer named is that login, or else ACTOR.
approve_as() {
	_who=$1 _id=$2
	shift 2
	# On SQLite an approval is signed with the approver's own registered key.
	case "$*" in *postgresql:*) ;; *)
		if [ ! -f "$XDG_CONFIG_HOME/aivet/keys/$_who.pub" ] &&
		    "$AIVET" assess approve --help 2>/dev/null | grep -q -- '--key'; then
			approver_key "$_who" "$@"
		fi ;;
	esac
	if "$AIVET" assess approve --help 2>/dev/null | grep -q -- --reviewer; then
		_rev=$_who
		case "$*" in *postgresql:*user=*) _rev=$(printf '%s' "$*" | sed 's/.*user=\([^& ]*\).*/\1/') ;; esac
		run "$@" --actor "$_who" assess approve "$_id" --reviewer "$_rev"
	else
		run "$@" --actor "$_who" assess approve "$_id"
	fi
}

fixture_build() {
	sim_start --context 8192 --pool 5324 --fault disagg-placeholder \
		--tenants "alice=$PROBE_KEY_ALICE,bob=$PROBE_KEY_BOB" || return 1
	"$AIVET" key generate --no-password >/dev/null &&
	"$AIVET" --actor alice vendor add V --criticality 3 --contact sec@v.example >/dev/null &&
	"$AIVET" --actor alice endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
		--context 8192 --credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB \
		--price-in 0.5 --price-out 1.25 >/dev/null &&
	"$AIVET" --actor alice questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null &&
	"$AIVET" --actor alice assess start V scoring-test >/dev/null || return 1
	printf 'SOC 2 report\n' >"$T/soc2.txt"
	"$AIVET" --actor alice assess answer 1 gate no --evidence "$T/soc2.txt" --note "see the report" >/dev/null &&
	"$AIVET" --actor alice assess answer 1 notify 5d >/dev/null &&
	"$AIVET" --actor alice assess submit 1 >/dev/null || return 1
	approve_as rita 1
	[ "$rc" = 0 ] || { echo "# approve: $errout"; return 1; }
	"$AIVET" --actor alice assess reopen 1 >/dev/null &&
	"$AIVET" --actor alice assess answer 2 gate yes >/dev/null || return 1
	"$AIVET" --actor alice probe run V/e --yes >/dev/null
	[ $? -le 1 ] || return 1
	"$AIVET" --actor alice incident open V --title "Cross-tenant completions" --endpoint V/e >/dev/null &&
	"$AIVET" --actor alice incident note 1 "the vendor was told" --kind vendor-notice >/dev/null &&
	"$AIVET" --actor alice incident task add 1 "ask for the root cause" >/dev/null &&
	"$AIVET" --actor alice incident link 1 --run 1 --finding 1 >/dev/null &&
	"$AIVET" --actor alice report V --out "$T/report" >/dev/null
}

# Every table aivet keeps, with the key its rows are listed by.
FIXTURE_TABLES="vendor:id endpoint:id credential:id questionnaire:id assessment:id
answer:assessment_id,question_id answer_history:id blob:sha256 blob_seal:id evidence:id
answer_evidence:assessment_id,question_id,evidence_id probe_run:id probe_result:id exchange:id
finding:id finding_evidence:finding_id,evidence_id incident:id incident_entry:id incident_task:id
incident_link:incident_id,object_type,object_id report:id audit_log:seq"

# fixture_dump FILE: every row of every table of an SQLite file, blobs as hex.
fixture_dump() {
	for _tk in $FIXTURE_TABLES; do
		_t=${_tk%%:*}
		echo "== $_t"
		if [ "$_t" = blob ]; then
			sqlite3 "$1" "SELECT sha256, size, encrypted, hex(data), typeof(data) FROM blob ORDER BY sha256"
		else
			sqlite3 -quote "$1" "SELECT * FROM $_t ORDER BY ${_tk#*:}"
		fi
	done
}
