#!/bin/sh
# tests/hard/hard-concurrency.sh: the TUI open on the database, two CLI writers
# and a report export at once. Every write lands, every command exits 0, no
# "database is locked" (or busy) reaches the user, the audit chain holds,
# each bundle verifies, and a write made from the TUI during the storm lands
# too.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

N=${AIVET_CONCURRENCY_N:-40}
"$AIVET" vendor add Acme >/dev/null
"$AIVET" key generate --no-password >/dev/null
tui_start 100x30
tui_wait "Acme" 10 || true

writer_vendors() {
	i=0
	while [ "$i" -lt "$N" ]; do
		"$AIVET" vendor add "a-$i" --notes "writer a" >/dev/null 2>>"$T/err-a" || echo "a-$i $?" >>"$T/fail"
		i=$((i + 1))
	done
}
writer_incidents() {
	i=0
	while [ "$i" -lt "$N" ]; do
		"$AIVET" incident open Acme --title "b-$i" >/dev/null 2>>"$T/err-b" || echo "b-$i $?" >>"$T/fail"
		i=$((i + 1))
	done
}
exporter() {
	i=0
	while [ "$i" -lt 4 ]; do
		"$AIVET" report Acme --out "$T/bundle-$i" >/dev/null 2>>"$T/err-r" || echo "report-$i $?" >>"$T/fail"
		i=$((i + 1))
	done
}
: >"$T/fail"
writer_vendors & pa=$!
writer_incidents & pb=$!
exporter & pr=$!
# Meanwhile, a write from the TUI's command line.
sleep 0.3
tui_keys Escape
tui_type ":vendor add FromTui"
tui_keys Enter
wait "$pa" "$pb" "$pr"

is "$(cat "$T/fail")" "" "every command exited 0"
is "$(cat "$T/err-a" "$T/err-b" "$T/err-r" | grep -ciE 'locked|busy')" 0 "no lock error reached the user"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM vendor WHERE name LIKE 'a-%'")" "$N" "all $N vendors of writer a landed"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM incident WHERE title LIKE 'b-%'")" "$N" "all $N incidents of writer b landed"
tui_wait "FromTui" 10 >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM vendor WHERE name = 'FromTui'")" 1 "the TUI's write landed during the storm"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action = 'vendor.add'") $(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action = 'incident.open'")" \
	"$((N + 2)) $N" "every write has its audit entry"
run audit verify
is "$rc" 0 "the audit chain verifies after the storm"
bad=0
for i in 0 1 2 3; do "$AIVET" verify "$T/bundle-$i" >/dev/null 2>&1 || bad=$((bad + 1)); done
is "$bad" 0 "each of the 4 bundles exported during the storm verifies"
is "$(sqlite3 "$AIVET_DB" "PRAGMA integrity_check")" ok "integrity_check ok"
unlike "$(tui_screen)" "\[exit [0-9]+\]" "the TUI is still running"
done_testing
