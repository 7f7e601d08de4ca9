# tests/lib/sim-lib.sh: runs aivet-sim for a shell test. Source it after
# tests/lib/lib.sh. sim_start launches a simulator on an ephemeral loopback port
# and waits for its "listening on" line; every simulator started is killed
# when the test exits. sim_http sends one request to the last one started.

: "${AIVET_SIM:?AIVET_SIM must point at the built aivet-sim binary}"
_sim_pids=""
_sim_n=0

# sim_start ARGS...: starts aivet-sim --port 0 ARGS... and waits up to 10 s
# for its first line. Sets SIM_URL (http://127.0.0.1:PORT), SIM_PID and
# SIM_LOG (its stderr: one line per request). Returns 1, with the log shown
# as TAP comments, when it exits or never listens.
sim_start() {
	_sim_n=$((_sim_n + 1))
	_sim_out="$T/sim$_sim_n.out"
	SIM_LOG="$T/sim$_sim_n.log"
	SIM_URL=""
	: >"$_sim_out"
	"$AIVET_SIM" --port 0 "$@" >"$_sim_out" 2>"$SIM_LOG" &
	SIM_PID=$!
	_sim_pids="$_sim_pids $SIM_PID"
	_sim_tries=0
	while [ "$_sim_tries" -lt 200 ]; do
		_sim_line=$(head -n 1 "$_sim_out")
		case "$_sim_line" in
		"listening on "*)
			SIM_URL=${_sim_line#listening on }
			return 0
			;;
		esac
		if ! kill -0 "$SIM_PID" 2>/dev/null; then
			echo "# aivet-sim $* exited before listening:"
			sed 's/^/#   /' "$SIM_LOG"
			return 1
		fi
		sleep 0.05
		_sim_tries=$((_sim_tries + 1))
	done
	echo "# aivet-sim $* did not print its listening line within 10 s"
	kill "$SIM_PID" 2>/dev/null
	return 1
}

# sim_stop: sends SIGTERM to the last simulator started, waits for it, sets
# sim_rc to its exit status, and reports one test: it stopped with status 0
# and its log holds no sanitizer report.
sim_stop() {
	kill "$SIM_PID" 2>/dev/null
	wait "$SIM_PID" && sim_rc=0 || sim_rc=$?
	if [ "$sim_rc" = 0 ] && ! grep -q -e 'AddressSanitizer' -e 'LeakSanitizer' -e 'runtime error:' "$SIM_LOG"; then
		ok 0 "aivet-sim stopped cleanly"
	else
		ok 1 "aivet-sim stopped cleanly (exit status $sim_rc)"
		grep -v '^aivet-sim: #' "$SIM_LOG" | head -40 | sed 's/^/#   /'
	fi
}

_sim_cleanup() {
	for _p in $_sim_pids; do
		kill "$_p" 2>/dev/null
	done
	for _p in $_sim_pids; do
		wait "$_p" 2>/dev/null
	done
}
_cleanup_hooks="$_cleanup_hooks _sim_cleanup"

# sim_http METHOD PATH [curl options...]: one request to $SIM_URL. Sets
# $status (the HTTP status, or curl:N when curl failed with exit code N),
# $body, and $headers (the response header block, CRs removed).
sim_http() {
	_m=$1 _p=$2
	shift 2
	status=$(curl -sS -o "$T/sim-body" -D "$T/sim-headers" -w '%{http_code}' \
	    -X "$_m" "$SIM_URL$_p" "$@" 2>"$T/sim-curl-err") || status="curl:$?"
	body=$(cat "$T/sim-body")
	headers=$(tr -d '\r' <"$T/sim-headers")
}

# header NAME: the value of a response header from the last sim_http.
header() {
	printf '%s\n' "$headers" | grep -i "^$1:" | head -n 1 | sed 's/^[^:]*: *//'
}

# chat_json TEXT [MAX_TOKENS] [EXTRA_JQ]: an OpenAI chat request body with one user message.
chat_json() {
	jq -nc --arg t "$1" --argjson m "${2:-null}" \
	    "{model:\"aivet-sim-1\",messages:[{role:\"user\",content:\$t}]} +
	     (if \$m == null then {} else {max_tokens:\$m} end) ${3:+| . + $3}"
}

# messages_json TEXT [MAX_TOKENS] [EXTRA_JQ]: an Anthropic messages request body.
messages_json() {
	jq -nc --arg t "$1" --argjson m "${2:-256}" \
	    "{model:\"aivet-sim-1\",max_tokens:\$m,messages:[{role:\"user\",content:\$t}]} ${3:+| . + $3}"
}

# sse_data: the JSON of each "data:" line on stdin except [DONE], as one array.
sse_data() {
	grep '^data: ' | sed 's/^data: //' | grep -v '^\[DONE\]$' | jq -sc .
}

# listener_start FILE: starts tests/lib/byte-listener.py, which keeps in FILE
# every byte sent to it (FILE stays absent until one arrives), and waits for
# it; sets LISTEN_URL (http://127.0.0.1:PORT). Killed when the test exits.
listener_start() {
	python3 "$TESTS_SRCDIR/lib/byte-listener.py" "$1" >"$T/listener.out" 2>&1 &
	_sim_pids="$_sim_pids $!"
	for _i in $(seq 200); do grep -q '^listening on ' "$T/listener.out" && break; sleep 0.05; done
	LISTEN_URL=$(sed -n 's/^listening on //p' "$T/listener.out")
}

# listener_flush: returns once the listener has read and logged every
# connection made before this call (it serves them in order, one at a time),
# so that an empty FILE then means nothing was sent, not nothing yet.
listener_flush() {
	[ "$(curl -s --max-time 30 "$LISTEN_URL/.listener-flush")" = flushed ] ||
		echo "# the listener did not answer its flush request"
}

# case_on NAME: whether a test of named cases runs case NAME (TEST_CASES="name ...",
# unset: every case).
case_on() {
	[ -z "${TEST_CASES:-}" ] && return 0
	case " $TEST_CASES " in *" $1 "*) return 0 ;; esac
	return 1
}
