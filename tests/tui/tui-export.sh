#!/bin/sh
# tests/tui/tui-export.sh: the vendor screen's export dialog in tmux — the
# choices offered, a bad field refused as it is typed, the bundle written
# with the chosen key and verified, and where it went shown; the passphrase
# asked for once per export, in a box on the screen, with the key derivation
# on the status line.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
make_fixture
"$AIVET" key generate --no-password >/dev/null
KEYID=$(sed -n 's/^untrusted comment: minisign public key //p' "$XDG_CONFIG_HOME/aivet/keys/aivet.pub")

tui_start 100x30
tui_wait "Dashboard"; ok $? "the dashboard comes first"
tui_keys L
tui_wait "acme"; ok $? "L lists the vendors"
tui_keys Enter
tui_wait "Vendor:      acme"; ok $? "Enter opens the vendor"
tui_keys E
tui_wait "Export signed bundle"; ok $? "E opens the export dialog"
tui_wait "empty: every assessment; 1 (final)"; ok $? "it offers the assessments"
tui_keys Tab
tui_wait "empty: every run; ids as 1,3 or since:2026-11-01; 1 (completed)"; ok $? "and the runs"
tui_type "x"
tui_wait "run ids separated by commas, or since:DATE"; ok $? "a bad run list is refused as it is typed"
tui_keys BSpace
tui_type "1"
tui_keys Tab
tui_type "1"
tui_keys Tab Tab C-u
tui_type "$T/tui-bundle"
tui_keys Enter
tui_wait "bundle $T/tui-bundle verified" 20; ok $? "the bundle is written and verified"
like "$(tui_screen)" "signed by    key id $KEYID" "the result names the key id"
like "$(tui_screen)" "bundle written and verified: signer trusted as --key aivet" \
	"the status line says which key was trusted and why"
like "$(tui_screen)" "report [0-9a-f-]{36} written to $T/tui-bundle" "and where the bundle went"

run verify "$T/tui-bundle" --key aivet
is "$rc" 0 "the CLI verifies the bundle made in the TUI"
is "$(jq -r '[.options.runs[0], .options.incident, (.incidents[0].timeline|length)] | map(tostring) | join(" ")' "$T/tui-bundle/report.json")" \
	"1 1 2" "with the runs and incident chosen in the dialog"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
tui_stop

# An encrypted key: its passphrase is asked for once, in a box on the screen, never echoed.
printf 'open sesame\n' > "$T/pw"
AIVET_KEY_PASSWORD_FILE="$T/pw" "$AIVET" key generate --name enc --kdf-cost interactive >/dev/null
ENCID=$(sed -n 's/^untrusted comment: minisign public key //p' "$XDG_CONFIG_HOME/aivet/keys/enc.pub")
# open_export KEY OUT: from the dashboard, acme's export dialog for key KEY into
# OUT, submitted.
open_export() {
	tui_wait "Dashboard"
	tui_keys L
	tui_wait "acme"
	tui_keys Enter
	tui_wait "Vendor:      acme"
	tui_keys E
	tui_wait "Export signed bundle"
	tui_keys Tab Tab Tab C-u
	tui_type "$1"
	tui_keys Tab C-u
	tui_type "$2"
	tui_keys Enter
}
tui_start 100x30
open_export enc "$T/enc-bundle"
tui_wait "Passphrase for key enc" 20; ok $? "the passphrase is asked for in a box on the screen"
tui_expect tui-export-passphrase.txt
tui_type "open sezame"
tui_keys Enter
tui_wait_re "^error: .*/enc.key: wrong passphrase" 20
ok $? "a wrong passphrase is refused, on the status line too"
tui_keys Enter
tui_wait "Passphrase for key enc" 20; ok $? "Enter in the dialog asks again"
tui_type "open sesame"
sleep 0.3
unlike "$(tui_screen)" "open sesame" "the passphrase is not echoed as it is typed"
tui_keys Enter
tui_wait "bundle $T/enc-bundle verified" 30; ok $? "the bundle is signed with the encrypted key"
like "$(tui_screen)" "signed by    key id $ENCID" "with its key id"
# y verifies any bundle, saying why its signer is trusted; a tampered one is named as such.
tui_keys q
tui_wait "Vendor:      acme"
tui_keys y
tui_wait "Bundle directory to verify"
tui_type "$T/enc-bundle"
tui_keys Enter
tui_wait "bundle verified: signer trusted as own key 'enc'"; ok $? "y: verified, signer trusted as an own key"
like "$(tui_screen)" "trusted as   own key 'enc'" "and verify's lines name the key"
tui_keys q
# A bundle re-signed by a key nobody trusts is not "verified".
cp -r "$T/tui-bundle" "$T/untrusted"
XDG_CONFIG_HOME="$T/other" "$AIVET" key generate --no-password >/dev/null
cp "$T/other/aivet/keys/aivet.pub" "$T/untrusted/aivet.pub"
(cd "$T/untrusted" && sha256sum $(cut -c67- SHA256SUMS) > SHA256SUMS)
tc=$(sed -n 's/^trusted comment: //p' "$T/untrusted/SHA256SUMS.minisig")
XDG_CONFIG_HOME="$T/other" "$AIVET" key sign "$T/untrusted/SHA256SUMS" --trusted-comment "$tc" >/dev/null
tui_keys y
tui_wait "Bundle directory to verify"
tui_type "$T/untrusted"
tui_keys Enter
tui_wait "signature valid, signer not trusted: $(sed -n 2p "$T/other/aivet/keys/aivet.pub")"
ok $? "y: a bundle by an unknown key names the key and is not verified"
like "$(tui_screen)" "verification failed \(3 problems\)" "the status line says it failed"
tui_keys q
printf 'x' >> "$T/tui-bundle/report.md"
tui_keys y
tui_wait "Bundle directory to verify"; ok $? "y asks for a bundle to verify"
tui_type "$T/tui-bundle"
tui_keys Enter
tui_wait "report.md: SHA-256 does not match SHA256SUMS"; ok $? "and shows what verify found"
like "$(tui_screen)" "verification failed \(1 problem\)" "the status line says it failed"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
tui_stop

# A key made by the export itself: one passphrase box (typed twice in it), the
# derivation said on the status line while it runs, and nothing asked again to sign.
tui_start 120x40
open_export fresh "$T/fresh-bundle"
tui_wait "There is no key named fresh. Create it now?"; ok $? "a missing key is offered to be made"
tui_keys y
tui_wait "Passphrase for the new key fresh"; ok $? "its passphrase is asked for in a box"
tui_type "tr0ub4dor"
tui_keys Enter
tui_wait "Again:      _"; ok $? "and typed again in the same box"
tui_type "tr0ub4dor"
tui_keys Enter
tui_wait "deriving the new key's protection from its passphrase ..." 20
ok $? "the status line says the key is being derived while it is"
tui_wait "bundle $T/fresh-bundle verified" 60; ok $? "the bundle is signed without asking again"
like "$(tui_screen)" "key fresh generated \(key id [0-9A-F]+\)" "the result names the new key"
unlike "$(tui_screen)" "tr0ub4dor" "the passphrase never shows"
printf 'tr0ub4dor\n' > "$T/freshpw"
AIVET_KEY_PASSWORD_FILE="$T/freshpw" "$AIVET" key sign "$T/freshpw" --key fresh >/dev/null 2>&1
ok $? "the new key opens with the passphrase given once"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
tui_stop

# The passphrase file (the way tests and scripts give it) makes the key and signs:
# a regular file (aivet refuses a FIFO or a device there, which would block it).
printf 'open sesame\n' > "$T/pwfile"
TUI_ENV="AIVET_KEY_PASSWORD_FILE=$T/pwfile"
tui_start 100x30
open_export counted "$T/counted-bundle"
tui_wait "There is no key named counted. Create it now?"
tui_keys y
tui_wait "bundle $T/counted-bundle verified" 60; ok $? "an export that makes its key, the passphrase from a file"
AIVET_KEY_PASSWORD_FILE="$T/pwfile" "$AIVET" key sign "$T/pwfile" --key counted >/dev/null 2>&1
ok $? "the key it made opens with the passphrase from the file"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
tui_stop

# The terminal closed under the passphrase box: tmux's server killed while it
# waits, with the hangup signal (the pane's process group gets it) and without
# (aivet in a session of its own, where only its terminal's descriptor says
# so). Either way aivet ends at once; a loop that read again on the closed
# terminal would spin, and outlive the test.
to_passphrase() {   # [COMMAND-PREFIX]: the export's passphrase box for key enc
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 30 \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 AIVET_DB='$AIVET_DB' AIVET_ACTOR='$AIVET_ACTOR' HOME='$HOME' XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' $1 '$AIVET' tui"
	open_export enc "$T/hup-bundle"
	tui_wait "Passphrase for key enc" 20
}
# gone_after_kill WHAT: kills tmux's server and waits (up to 10 s) for the aivet
# the pane ran to end; a survivor is killed after the check.
gone_after_kill() {
	# The pane's own aivet (other tests may run aivet tui too): the pane's
	# process itself, or its child where setsid forked.
	_pane=$(tmux -S "$TMUX_SOCK" display-message -p '#{pane_pid}')
	_pid=$( { echo "$_pane"; pgrep -P "$_pane"; } | while read -r _c; do
		case $(tr '\0' ' ' < "/proc/$_c/cmdline" 2>/dev/null) in "$AIVET tui"*) echo "$_c" ;; esac
	done | head -1)
	tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	_i=0
	while [ -n "$_pid" ] && kill -0 "$_pid" 2>/dev/null && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	ok "$([ -n "$_pid" ] && ! kill -0 "$_pid" 2>/dev/null && echo 0 || echo 1)" \
		"$1: aivet (pid ${_pid:-none}) ended when its terminal closed under the passphrase box"
	[ -z "$_pid" ] || kill -9 "$_pid" 2>/dev/null
	rm -f "$TMUX_SOCK"
}
to_passphrase ""
ok $? "(the passphrase box is open)"
gone_after_kill "with the hangup signal"
to_passphrase "setsid -w"
ok $? "(the passphrase box is open, aivet in a session of its own)"
gone_after_kill "without a signal"

done_testing
