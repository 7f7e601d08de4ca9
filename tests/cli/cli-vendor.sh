#!/bin/sh
# cli-vendor.sh: every "aivet vendor" subcommand on a temporary database,
# including each kind of bad input, which must change nothing.
. "$TESTS_SRCDIR/lib/lib.sh"

run vendor add Acme --criticality 3 --contact sec@acme.example --notes "hosts our triage model"
is "$rc" 0 "vendor add exits 0"
is "$out" "vendor Acme added (id 1)" "vendor add says what it did"
run vendor add "Beta Labs"
is "$out" "vendor Beta Labs added (id 2)" "second vendor"

run vendor list --json
is "$(printf '%s' "$out" | json 'length')" 2 "two vendors listed"
is "$(printf '%s' "$out" | json '.[0] | [.id, .name, .criticality, .contact, .notes, .status, .endpoints, .open_incidents] | @csv')" \
	'1,"Acme",3,"sec@acme.example","hosts our triage model","active",0,0' "Acme's fields"
is "$(printf '%s' "$out" | json '.[1] | [.name, .criticality, .contact] | @csv')" '"Beta Labs",2,' \
	"Beta Labs defaults: criticality 2, no contact"
like "$(printf '%s' "$out" | json '.[0].created_at')" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' \
	"created_at is UTC ISO 8601 with ms"

run vendor list
is "$(printf '%s\n' "$out" | sed -n 2p | tr -s ' ')" "1 Acme 3 0 active 0 not-assessed" "text list row, rated as the dashboard rates it"

run vendor show Acme --json
is "$(printf '%s' "$out" | json '[.name, (.endpoint_list | length)] | @csv')" '"Acme",0' "show by name"
run vendor show 2
like "$out" "^vendor Beta Labs \(id 2\)" "show by id"

run vendor edit Acme --criticality 4 --notes "moved to prod"
is "$out" "vendor Acme updated" "edit"
run vendor show Acme --json
is "$(printf '%s' "$out" | json '[.criticality, .notes] | @csv')" '4,"moved to prod"' "edit changed the fields"
run vendor edit 2 --name "Beta Health"
run vendor show "Beta Health" --json
is "$(printf '%s' "$out" | json '.id')" 2 "rename keeps the id"

# Bad input: each is refused with exit 2, a clear message, and no change.
before=$(db_snapshot)
check_refused() {
	want_msg=$1; shift
	run "$@"
	is "$rc" 2 "refused: $*"
	is "$errout" "aivet: $want_msg" "message: $*"
}
check_refused "vendor 'Acme' already exists (id 1)" vendor add Acme
check_refused "--criticality: 5 is out of range (0 to 4)" vendor add Gamma --criticality 5
check_refused "--criticality: 'high' is not a whole number" vendor add Gamma --criticality high
check_refused "unknown vendor 'Nope' (see 'aivet vendor list')" vendor show Nope
run vendor list Acme
is "$rc:$errout" "2:aivet: unexpected argument 'Acme'
usage: aivet vendor list [--all] [--json]" "vendor list takes no target"
run vendor show
is "$rc:$errout" "2:aivet: vendor show needs exactly one NAME|ID
usage: aivet vendor show NAME|ID [--json]" "vendor show counts its target"
run vendor show Acme Acme
is "$rc:$(echo "$errout" | head -1)" "2:aivet: vendor show needs exactly one NAME|ID" "one target only"
check_refused "unknown vendor 'Nope' (see 'aivet vendor list')" vendor edit Nope --notes x
check_refused "unknown vendor '99' (see 'aivet vendor list')" vendor archive 99
check_refused "vendor name must not be empty" vendor add ""
check_refused "vendor name 'a/b' may not contain '/', control characters or bidirectional overrides" vendor add a/b
check_refused "vendor name '42' is all digits, which reads as an id; choose another" vendor add 42
check_refused "vendor 'Acme' already exists (id 1)" vendor edit "Beta Health" --name Acme
check_refused "vendor: unknown subcommand 'remove': did you mean 'vendor archive NAME'? (see 'aivet vendor --help')" vendor remove AcmeUpdated
run vendor add Gamma --colour red
is "$rc" 2 "unknown option refused"
like "$errout" "^aivet: unknown option '--colour'" "unknown option named"
run vendor edit Acme
is "$rc" 2 "edit with nothing to change refused"
like "$errout" "vendor edit: nothing to change" "nothing to change named"
run vendor add Gamma --criticality
is "$rc" 2 "missing option value refused"
like "$errout" "^aivet: --criticality needs a value" "missing value named"
is "$(db_snapshot)" "$before" "no refused command changed the database"

run vendor archive "Beta Health"
is "$out" "vendor Beta Health archived" "archive"
run vendor list --json
is "$(printf '%s' "$out" | json '[.[].name] | @csv')" '"Acme"' "archived vendor hidden from list"
run vendor list --all --json
is "$(printf '%s' "$out" | json '[.[] | .name + ":" + .status] | @csv')" '"Acme:active","Beta Health:archived"' \
	"--all shows it, archived, not deleted"
run vendor archive "Beta Health"
is "$rc" 2 "archiving twice refused"
is "$errout" "aivet: vendor 'Beta Health' is already archived" "archive twice message"

run audit log --json
is "$(printf '%s' "$out" | json '[.[].action] | @csv')" \
	'"vendor.add","vendor.add","vendor.edit","vendor.edit","vendor.archive"' "every change is in the audit log"
is "$(printf '%s' "$out" | json '.[0] | [.actor, .object_type, .object_id, .details.name] | @csv')" \
	'"tester","vendor",1,"Acme"' "audit entry fields"

run vendor --help
is "$rc" 0 "vendor --help exits 0"
like "$out" "vendor archive NAME\|ID" "help lists subcommands"
run vendor add --help
like "$out" "^usage: aivet vendor add NAME \[--criticality 0-4\]" "subcommand help"

# A vendor's counts are its active endpoints and its open incidents: an
# archived endpoint and a closed incident are not counted, on either store
# (PostgreSQL reads them with a query of its own: VENDOR_SELECT_PG).
"$AIVET" vendor add Counts >/dev/null
for e in a b; do
	"$AIVET" endpoint add Counts --name "$e" --api openai --url https://counts.example/v1 --model m \
		--context 8192 >/dev/null
done
"$AIVET" endpoint archive Counts/b >/dev/null
for t in open shut; do "$AIVET" incident open Counts --title "$t" >/dev/null; done
shut=$("$AIVET" incident list --json | jq -r '.[] | select(.title == "shut") | .id')
"$AIVET" incident status "$shut" investigating >/dev/null
"$AIVET" incident status "$shut" contained >/dev/null
"$AIVET" incident note "$shut" "fixed" --kind verification >/dev/null
"$AIVET" incident status "$shut" resolved >/dev/null
"$AIVET" incident note "$shut" sent --kind notification-sent --clock hipaa-individuals --clock hhs \
	--clock media --clock gdpr-sa >/dev/null
"$AIVET" incident note "$shut" "the vendor's notice" --kind vendor-notice >/dev/null
run incident status "$shut" closed
is "$rc" 0 "(the second incident is closed)$errout"
run vendor list --json
is "$(printf '%s' "$out" | json '.[] | select(.name == "Counts") | [.endpoints, .open_incidents] | @csv')" "1,1" \
	"vendor list: 1 active endpoint of 2, 1 open incident of 2"
run vendor show Counts --json
is "$(printf '%s' "$out" | json '[.endpoints, .open_incidents] | @csv')" "1,1" \
	"vendor show: the same counts"

# A list cut short by a database error is an error, not fewer vendors: with
# the last page of vendors torn, the list read so far is not given as the whole.
torn="$T/torn.db" notes=$(printf 'n%.0s' $(seq 1 600))
for i in $(seq 1 40); do "$AIVET" --db "$torn" vendor add "T$i" --notes "$notes" >/dev/null || break; done
page=$(sqlite3 "$torn" "SELECT max(pageno) FROM dbstat WHERE name = 'vendor' AND pagetype = 'leaf'")
ok "$([ "${page:-0}" -gt 2 ] && echo 0 || echo 1)" "40 vendors fill leaf pages up to page $page"
size=$(sqlite3 "$torn" "PRAGMA page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$torn" bs="$size" seek=$((page - 1)) conv=notrunc 2>/dev/null
run --db "$torn" vendor list --json
is "$rc" 3 "a torn vendor page: vendor list --json fails (exit 3)"
is "$errout" "aivet: database: vendor list: database disk image is malformed" "naming the list and SQLite's error"

done_testing
