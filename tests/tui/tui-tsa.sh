#!/bin/sh
# tests/tui/tui-tsa.sh: the export dialog and the time-stamp, in tmux — the
# dialog offers the TSA set with 'aivet tsa url', the bundle is time-stamped
# by the loopback TSA (tests/lib/tsa-lib.sh), and after verify the status line
# and the result show the attested time; an emptied TSA field asks none.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
. "$TESTS_SRCDIR/lib/tsa-lib.sh"
make_fixture
"$AIVET" key generate --no-password >/dev/null
tsa_start
"$AIVET" tsa url "$URL/good" >/dev/null
"$AIVET" tsa trust "$P/ca.pem" >/dev/null

tui_start 160x40
tui_wait "Dashboard"; ok $? "the dashboard comes first"
tui_keys L
tui_wait "acme"
tui_keys Enter
tui_wait "Vendor:      acme"
tui_keys E
tui_wait "Export signed bundle"; ok $? "E opens the export dialog"
tui_wait "Time-stamp (TSA)"; ok $? "it has a TSA field"
tui_wait "$URL/good"; ok $? "offering the configured TSA"
tui_keys Tab Tab Tab Tab C-u
tui_type "$T/stamped"
tui_keys Enter
tui_wait "bundle $T/stamped verified" 20; ok $? "the bundle is written and verified"
tui_wait_re "bundle written and verified: signer trusted as --key aivet; time attested by TSA $TSA_SUBJECT at $ISO"
ok $? "the status line shows the attested time"
ATTESTED=$(sed -n 's/^time attested by TSA .* at //p' "$T/stamped/TIMESTAMP.txt")
like "$(tui_screen)" "time-stamp   time attested by TSA $TSA_SUBJECT at $ATTESTED" "and so does verify's result"
tui_keys q
tui_wait "Vendor:      acme"
tui_keys E
tui_wait "Export signed bundle"
tui_keys Tab Tab Tab Tab C-u
tui_type "$T/unstamped"
tui_keys Tab C-u Enter
tui_wait "bundle $T/unstamped verified" 20; ok $? "with the TSA field emptied, the bundle is written"
tui_wait "signer trusted as --key aivet; time not attested"; ok $? "and its time is not attested"
ok "$(test ! -e "$T/unstamped/SHA256SUMS.tsr"; echo $?)" "no token was asked"
tui_q_out
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"
tui_stop
done_testing
