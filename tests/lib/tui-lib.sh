# tests/lib/tui-lib.sh: drive aivet's terminal UI in a private tmux server.
# Source after lib.sh. tui_start COLSxROWS [aivet args...] starts aivet in
# a pane; tui_keys sends keys; tui_wait TEXT waits until the screen shows
# TEXT; tui_screen prints the screen. The server is killed on exit.

TMUX_SOCK="$T/tmux.sock"
tui_stop() {
	# What the pane still runs ends first, on SIGTERM, while its terminal is
	# there: killed with the server, it ends on the hangup, but a sanitizer
	# build's leak check at exit could then wait for ever, an orphan spinning
	# on a core long after the test.
	_pane=$(tmux -S "$TMUX_SOCK" display-message -p '#{pane_pid}' 2>/dev/null)
	if [ -n "$_pane" ]; then
		_kids=$(pgrep -P "$_pane" 2>/dev/null | tr '\n' ' ')
		[ -z "$_kids" ] || kill -TERM $_kids 2>/dev/null
		_i=0
		while [ -n "$_kids" ] && [ $_i -lt 50 ]; do
			_left=""
			for _k in $_kids; do kill -0 "$_k" 2>/dev/null && _left="$_left $_k"; done
			_kids=$_left
			[ -z "$_kids" ] || sleep 0.1
			_i=$((_i + 1))
		done
	fi
	tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true
	# Wait for the old server to go, so the next tui_start gets a fresh one.
	_i=0
	while tmux -S "$TMUX_SOCK" has-session 2>/dev/null && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	rm -f "$TMUX_SOCK"
}
_cleanup_hooks="$_cleanup_hooks tui_stop"

tui_start() {
	size=$1; shift
	cols=${size%x*}; rows=${size#*x}
	# The pane runs aivet, then prints its exit status so tests can read it.
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x "$cols" -y "$rows" \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 AIVET_DB='$AIVET_DB' AIVET_ACTOR='$AIVET_ACTOR' HOME='$HOME' XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' ${TUI_ENV:-} '$AIVET' $*; echo \"[exit \$?]\"; sleep 600"
	tmux -S "$TMUX_SOCK" set-option -g remain-on-exit on >/dev/null 2>&1 || true
}
tui_keys() { tmux -S "$TMUX_SOCK" send-keys "$@"; }
tui_type() { tmux -S "$TMUX_SOCK" send-keys -l "$1"; }
tui_screen() { tmux -S "$TMUX_SOCK" capture-pane -p; }
tui_resize() { tmux -S "$TMUX_SOCK" resize-window -x "${1%x*}" -y "${1#*x}"; }
# tui_wait_width COLS: waits until aivet has redrawn its title bar to COLS
# columns (after tui_resize, before keys whose result depends on the width).
tui_wait_width() {
	_i=0
	while [ $_i -lt 100 ]; do
		[ "$(tui_screen | head -1 | sed "s/[[:space:]]*$//" | wc -m)" -eq "$1" ] && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	echo "# the title bar was not redrawn across $1 columns"; return 1
}
# tui_wait TEXT [SECONDS]: waits until the screen contains TEXT (fixed string).
tui_wait() {
	_i=0; _limit=$(( ${2:-10} * 10 ))
	while [ $_i -lt $_limit ]; do
		if tui_screen | grep -qF -- "$1"; then return 0; fi
		sleep 0.1; _i=$((_i + 1))
	done
	echo "# timed out waiting for: $1"; tui_screen | sed 's/^/# | /'
	return 1
}
# tui_step KEY...: sends each key alone and waits until the screen changes (5 s at
# most): for keys that each move to another screen, which typed together may arrive
# as one burst on a loaded machine.
tui_step() {
	for _k in "$@"; do
		_before=$(tui_screen)
		tui_keys "$_k"
		_i=0
		while [ $_i -lt 50 ] && [ "$(tui_screen)" = "$_before" ]; do
			sleep 0.1; _i=$((_i + 1))
		done
	done
}
# tui_expect NAME: compares the screen (trailing blanks removed) with tests/data/NAME.
tui_expect() {
	tui_screen | sed 's/[[:space:]]*$//' > "$T/screen.txt"
	# TUI_REGEN=1 make check TESTS=... refreshes the expected screens after a deliberate change.
	# Under CI it is refused: a regenerated screen matches itself, so every check would pass.
	if [ -n "${TUI_REGEN:-}" ]; then
		if [ -n "${CI:-}" ]; then
			ok 1 "screen matches $1 (TUI_REGEN is refused under CI: it would make every screen pass)"
			return
		fi
		cp "$T/screen.txt" "$TESTS_SRCDIR/data/$1"
	fi
	if diff -u "$TESTS_SRCDIR/data/$1" "$T/screen.txt" > "$T/screen.diff"; then
		ok 0 "screen matches $1"
	else
		ok 1 "screen matches $1"
		sed 's/^/# /' "$T/screen.diff"
	fi
}
# tui_wait_re REGEX [SECONDS]: waits until a line of the screen matches REGEX
# (extended), for states that a fixed string cannot tell apart.
tui_wait_re() {
	_i=0; _limit=$(( ${2:-10} * 10 ))
	while [ $_i -lt $_limit ]; do
		if tui_screen | grep -qE -- "$1"; then return 0; fi
		sleep 0.1; _i=$((_i + 1))
	done
	echo "# timed out waiting for a line matching: $1"; tui_screen | sed 's/^/# | /'
	return 1
}
# tui_q_out: q until aivet asks "Quit aivet?" on its first screen, then y.
tui_q_out() {
	_i=0
	while [ $_i -lt 12 ]; do
		tui_keys q
		_j=0
		while [ $_j -lt 20 ]; do
			_s=$(tui_screen)
			case $_s in
			*"Quit aivet?"*) tui_keys y; return 0 ;;
			*"[exit "*) return 0 ;;
			esac
			sleep 0.05; _j=$((_j + 1))
		done
		_i=$((_i + 1))
	done
	return 1
}
