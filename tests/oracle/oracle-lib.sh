# tests/oracle/oracle-lib.sh: sourced by the oracle scenarios after lib.sh.
# oracle_check ARGS... runs oracle.py (the rules of aivet(1) recomputed
# independently) and turns each line it prints into one of this test's TAP
# results; an oracle that stops short (a traceback) is a failure too.
# oracle_db prints an SQLite file holding the test's database for the oracle to
# read: the database itself, or on PostgreSQL a copy made by aivet db copy.
ORACLE="$TESTS_SRCDIR/oracle/oracle.py"

oracle_db() {
	if [ "${AIVET_TEST_BACKEND:-sqlite}" != pg ]; then
		printf '%s\n' "$AIVET_DB"
		return
	fi
	# Called as $(oracle_db): a fresh directory each time, the subshell keeps no count.
	_od=$(mktemp -d "$T/oracle-copy.XXXXXX")
	"$AIVET" db copy "$AIVET_DB" "$_od/aivet.db" >/dev/null 2>"$_od/err" ||
		sed "s/^/# db copy: /" "$_od/err" >&2
	printf '%s\n' "$_od/aivet.db"
}

oracle_check() {
	/usr/bin/python3 "$ORACLE" "$@" >"$T/oracle.out" 2>"$T/oracle.err" && _orc=0 || _orc=$?
	_seen=0
	while IFS= read -r _line; do
		case $_line in
		"ok - "*) ok 0 "${_line#ok - }"; _seen=$((_seen + 1)) ;;
		"not ok - "*) ok 1 "${_line#not ok - }"; _seen=$((_seen + 1)) ;;
		*) printf '%s\n' "$_line" ;;
		esac
	done <"$T/oracle.out"
	if [ "$_orc" != 0 ] && [ "$_orc" != 1 ] || [ "$_seen" = 0 ]; then
		ok 1 "oracle.py $1 ran to its end (exit $_orc)"
		sed 's/^/#   /' "$T/oracle.err" | tail -20
	fi
}
