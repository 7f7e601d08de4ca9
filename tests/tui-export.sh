#!/bin/sh
# tests/tui-export.sh: the vendor screen's export dialog in tmux — the
# choices offered, a bad field refused as it is typed, the bundle written
# with the chosen key and verified, and where it went shown.
. "$TESTS_SRCDIR/lib.sh"
. "$TESTS_SRCDIR/tui-lib.sh"
. "$TESTS_SRCDIR/report-fixture.sh"
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
like "$(tui_screen)" "empty: every assessment; 1 \(final\)" "it offers the assessments"
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
like "$(tui_screen)" "report [0-9a-f-]{36} written to $T/tui-bundle" "and where the bundle went"

run verify "$T/tui-bundle" --key aivet
is "$rc" 0 "the CLI verifies the bundle made in the TUI"
is "$(jq -r '[.options.runs[0], .options.incident, (.incidents[0].timeline|length)] | map(tostring) | join(" ")' "$T/tui-bundle/report.json")" \
	"1 1 2" "with the runs and incident chosen in the dialog"
tui_keys q q q q
tui_wait "[exit 0]"; ok $? "aivet exits cleanly"

done_testing
