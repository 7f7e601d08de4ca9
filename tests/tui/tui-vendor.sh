#!/bin/sh
# tui-vendor.sh: drives the terminal UI in tmux — add a vendor and an
# endpoint with keystrokes, check the screens, check the database through
# the CLI, archive with confirmation, help, resize, and a clean terminal
# after q and after SIGTERM.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

# The endpoint's credentials resolve: a run is asked about only once they do.
TUI_ENV="KEY_A=a KEY_B=b"
tui_start 80x24
tui_wait "No vendors yet. Press a to add the first one."; ok $? "empty database: first screen says what to do"
tui_keys a
tui_wait "Add vendor"; ok $? "a opens the add dialog"
tui_type "Acme Health"
tui_keys Tab BSpace
tui_type 9
tui_wait "criticality: 9 is out of range (0 to 4)"; ok $? "criticality checked as it is typed"
tui_keys BSpace
tui_type 3
tui_keys Tab
tui_type "sec@acme.example"
tui_keys Enter
tui_wait "vendor Acme Health added (id 1)"; ok $? "the CLI's own words in the status line"
tui_expect tui-vendors-80x24.txt

run vendor list --json
is "$(printf '%s' "$out" | json '.[0] | [.name, .criticality, .contact] | @csv')" '"Acme Health",3,"sec@acme.example"' \
	"the CLI sees the vendor added in the TUI"

# A change made by the CLI appears in the TUI without a keypress (idle refresh).
"$AIVET" vendor add "Beta Labs" >/dev/null
tui_wait "Beta Labs" 5; ok $? "a CLI change shows up in the TUI"

# Open the vendor, add an endpoint; a literal secret is refused as it is typed.
tui_keys g Enter
tui_wait "Vendor:      Acme Health"; ok $? "Enter opens the vendor"
tui_keys a
tui_wait "Add endpoint"; ok $? "a opens the endpoint dialog"
tui_type prod
tui_keys Tab Tab
tui_type "http://127.0.0.1:8080/v1"
tui_keys Tab
tui_type triage-1
tui_keys Tab
tui_type 131072
tui_keys Tab
tui_type "tenant-a=sk-live-123"
tui_wait "a credential must be a reference"; ok $? "a literal secret is refused as it is typed"
tui_keys C-u
tui_type "tenant-a=env:KEY_A tenant-b=env:KEY_B"
tui_keys Tab Tab
tui_type "2.5x"
tui_wait "price: '2.5x' is not a price (USD per million tokens)"; ok $? "a price is checked as it is typed"
tui_keys BSpace Tab
tui_type 10
tui_keys Enter
tui_wait "endpoint Acme Health/prod added (id 1, 2 credentials)"; ok $? "endpoint added"
run endpoint show "Acme Health/prod" --json
is "$(printf '%s' "$out" | json '[.url, .context_tokens, ([.credentials[].ref] | join(" ")), .price_in_per_mtok, .price_out_per_mtok] | @csv')" \
	'"http://127.0.0.1:8080/v1",131072,"env:KEY_A env:KEY_B",2.5,10' "the CLI sees the endpoint, with its prices"
# The prices are in the edit dialog; the plan before sending gives the cost as probe run --dry-run does.
tui_keys e
tui_wait "Edit endpoint"
tui_expect tui-endpoint-prices-80x24.txt
tui_keys Escape
tui_wait "cancelled"
dry=$(KEY_A=a KEY_B=b "$AIVET" probe run "Acme Health/prod" --dry-run)
exp=$(printf '%s\n' "$dry" | sed -n 's/^  expected .*(about USD \([0-9.]*\)).*/\1/p')
most=$(printf '%s\n' "$dry" | sed -n 's/^  total .*(about USD \([0-9.]*\)).*/\1/p')
tui_keys r
tui_wait "Probe runs of Acme Health/prod"
tui_resize 100x24   # the question is one line: wide enough for this endpoint's name
tui_keys r
tui_wait "USD $exp expected, $most at most (y/n)"; ok $? "r: the plan gives the expected and the largest cost of the dry run ($exp, $most)"
tui_expect tui-probe-plan-100x24.txt
tui_keys n
tui_wait "cancelled"
tui_resize 80x24
tui_keys q
tui_wait "Vendor:      Acme Health"

# Help is generated from the key table.
tui_keys '?'
tui_wait "Keys on this screen (vendor):"; ok $? "? shows this screen's keys"
like "$(tui_screen)" "A +archive the selected record \(asks first\)" "help lists archive"
tui_keys q q

# Resize: the list redraws at the new size.
tui_resize 120x30
tui_wait "Beta Labs"; ok $? "redraws after resize"
is "$(tui_screen | wc -l)" 30 "uses the new height"
tui_resize 80x24

# UTF-8 names are typed, stored and drawn as they are.
tui_keys a
tui_wait "Add vendor"
tui_type "Ärzte-KI Größe"
tui_keys Enter
tui_wait "Ärzte-KI Größe"; ok $? "a UTF-8 name is drawn"
# The name is on the screen as it is typed, before Enter is handled: wait for the row.
_i=0
while [ $_i -lt 100 ] && [ -z "$(sqlite3 "$AIVET_DB" "SELECT name FROM vendor WHERE id = 3")" ]; do
	sleep 0.1; _i=$((_i + 1))
done
is "$(sqlite3 "$AIVET_DB" "SELECT name FROM vendor WHERE id = 3")" "Ärzte-KI Größe" "and stored as typed"

# Filter the list with /.
tui_keys /
tui_type Beta
tui_keys Enter
tui_wait "filter: Beta (1 of 3 rows"; ok $? "/ filters"
tui_keys / C-u Enter
# Keys queued behind a dialog's Enter are dropped: wait for the prompt to close.
tui_wait "filter cleared"

# Archive asks first; n keeps it, y archives.
tui_keys g A
tui_wait "Archive vendor"; ok $? "A asks for confirmation"
like "$(tui_screen | tr -s ' \n' '  ')" "Archive vendor Acme Health and its endpoints\? Nothing is deleted\." \
	"the question names the vendor, not its padded list row"
tui_keys n
tui_wait "cancelled"
run vendor list --json
is "$(printf '%s' "$out" | json 'length')" 3 "n keeps the vendor"
tui_keys A
tui_wait "Archive vendor"
tui_keys y
tui_wait "vendor 1 archived"; ok $? "y archives"
run vendor list --all --json
is "$(printf '%s' "$out" | json '[.[] | .name + ":" + .status] | @csv')" '"Acme Health:archived","Beta Labs:active","Ärzte-KI Größe:active"' \
	"archived, not deleted"

# The ':' command line runs CLI commands; errors read as the CLI's.
tui_keys :
tui_type "vendor add 'Beta Labs'"
tui_keys Enter
tui_wait "error: vendor 'Beta Labs' already exists (id 2)"; ok $? ": reports the CLI's error"

# q quits and gives the terminal back.
tui_q_out
tui_wait "[exit 0]"; ok $? "q quits with status 0"
is "$(tmux -S "$TMUX_SOCK" display -p '#{alternate_on}')" 0 "terminal restored after q"
tui_stop

# SIGTERM also restores the terminal. With data, the first screen is the dashboard.
tui_start 80x24
tui_wait "== Vendors by rating =="; ok $? "the dashboard comes first once there is data"
like "$(tui_screen)" "\?  Beta Labs +not-assessed +no final round" "an unassessed vendor is listed as not assessed"
pid=$(pgrep -P "$(tmux -S "$TMUX_SOCK" display -p '#{pane_pid}')" -f "$AIVET")
kill -TERM "$pid"
tui_wait "[exit 0]"; ok $? "SIGTERM ends the TUI cleanly"
is "$(tmux -S "$TMUX_SOCK" display -p '#{alternate_on}')" 0 "terminal restored after SIGTERM"

tui_stop

# A failing assertion (SIGABRT) or a crash (SIGSEGV) gives the terminal back before the
# process dies, so the user is not left in a broken terminal.
for sig in ABRT SEGV; do
	tui_start 80x24
	tui_wait "Beta Labs"
	pid=$(pgrep -P "$(tmux -S "$TMUX_SOCK" display -p '#{pane_pid}')" -f "$AIVET")
	kill -"$sig" "$pid"
	tui_wait "[exit 1" ; ok $? "SIG$sig ends the TUI with the signal's status"
	is "$(tmux -S "$TMUX_SOCK" display -p '#{alternate_on}')" 0 "terminal restored after SIG$sig"
	tui_stop
done

done_testing
