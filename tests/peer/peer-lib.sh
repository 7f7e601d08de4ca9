# tests/peer/peer-lib.sh: runs llama.cpp's llama-server from ../shared/peer (a
# CPU build and a tiny model, see its README) for a shell test. Source it after
# tests/lib/lib.sh. Only tests/peer/ reads ../shared/peer; where it is absent
# (or cannot run here) peer_require prints one visible SKIP and ends the test.
#
# Two API keys act as two tenants of one server: they share its slots and its
# prompt cache, which is what the probes must find.

PEER_DIR=${AIVET_PEER_DIR:-$TESTS_SRCDIR/../../shared/peer}
PEER_KEY_A=sk-tenant-a-1111
PEER_KEY_B=sk-tenant-b-2222
_peer_pids=""
_peer_n=0

# peer_require: ends the test with a SKIP unless llama-server and its model are
# there and the server's libraries load.
peer_require() {
	if [ ! -x "$PEER_DIR/bin/llama-server" ] || [ ! -f "$PEER_DIR/models/tiny-llama-spm.gguf" ]; then
		skip "no llama-server at $PEER_DIR (../shared/peer is absent)"
		done_testing
		exit 0
	fi
	if ! "$PEER_DIR/bin/llama-server" --version >/dev/null 2>&1; then
		skip "llama-server at $PEER_DIR does not run here: $("$PEER_DIR/bin/llama-server" --version 2>&1 | head -1)"
		done_testing
		exit 0
	fi
}

# peer_start SLOTS [CTX] [EXTRA-ARGS...]: starts llama-server on an ephemeral
# loopback port with SLOTS slots, a context of CTX (8192) for all of them and
# both tenants' keys, and waits (up to 60 s) for the port it prints and its
# /health. Sets PEER_URL (http://127.0.0.1:PORT), PEER_PID and PEER_LOG.
peer_start() {
	_np=$1 _ctx=${2:-8192}
	shift; [ $# -gt 0 ] && shift
	_peer_n=$((_peer_n + 1))
	PEER_LOG="$T/peer$_peer_n.log"
	printf '%s\n%s\n' "$PEER_KEY_A" "$PEER_KEY_B" >"$T/peer-keys"
	# One thread that sleeps while it waits (--poll 0): the server's default
	# threads spin between steps, which on a busy machine (a CI running two
	# suites beside it) turns seconds into minutes.
	"$PEER_DIR/bin/llama-server" -m "$PEER_DIR/models/tiny-llama-spm.gguf" -t 1 -tb 1 --poll 0 \
	    --host 127.0.0.1 --port 0 -c "$_ctx" -np "$_np" --api-key-file "$T/peer-keys" "$@" \
	    >"$PEER_LOG" 2>&1 &
	PEER_PID=$!
	_peer_pids="$_peer_pids $PEER_PID"
	PEER_URL=""
	_tries=0
	while [ "$_tries" -lt 600 ]; do
		if [ -z "$PEER_URL" ]; then
			_l=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$PEER_LOG" 2>/dev/null | head -1)
			[ -n "$_l" ] && PEER_URL=${_l#listening on }
		fi
		if [ -n "$PEER_URL" ] && curl -sf "$PEER_URL/health" >/dev/null 2>&1; then
			return 0
		fi
		if ! kill -0 "$PEER_PID" 2>/dev/null; then
			echo "# llama-server exited before serving:"
			tail -20 "$PEER_LOG" | sed 's/^/#   /'
			return 1
		fi
		sleep 0.1
		_tries=$((_tries + 1))
	done
	echo "# llama-server did not serve within 60 s"
	tail -20 "$PEER_LOG" | sed 's/^/#   /'
	return 1
}

# peer_stop: stops the last server started.
peer_stop() {
	kill "$PEER_PID" 2>/dev/null
	wait "$PEER_PID" 2>/dev/null
}

_peer_cleanup() {
	for _p in $_peer_pids; do kill "$_p" 2>/dev/null; done
	for _p in $_peer_pids; do wait "$_p" 2>/dev/null; done
}
_cleanup_hooks="$_cleanup_hooks _peer_cleanup"

# peer_endpoint NAME [ENDPOINT-OPTIONS...]: vendor NAME with endpoint "e" on the
# last server started: tenants a and b (the two keys, two organisations), the
# advertised context the server gives one slot unless an option says otherwise.
export PEER_KEY_A PEER_KEY_B
peer_endpoint() {
	_v=$1
	shift
	run vendor add "$_v" && run endpoint add "$_v" --name e --api openai --url "$PEER_URL/v1" \
	    --model tiny --credential a=env:PEER_KEY_A --credential b=env:PEER_KEY_B \
	    --credential-org a=org-a --credential-org b=org-b "$@"
}
