# tests/oracle/oracle-lib.sh: sourced by the oracle scenarios after lib.sh.
# oracle_check ARGS... runs oracle.py (the rules of aivet(1) recomputed
# independently) and turns each line it prints into one of this test's TAP
# results; an oracle that stops short (a traceback) is a failure too.
ORACLE="$TESTS_SRCDIR/oracle/oracle.py"

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
