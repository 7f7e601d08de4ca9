#!/bin/sh
# cli-incident-due.sh: "aivet incident due" — which clocks it lists (overdue,
# due within the window, none stopped or closed), its exit status (1 while
# any is listed, 0 when none), and --notify-url: the exact JSON document a
# loopback webhook receives, and a refused connection reported with exit 3.
# Also "incident list": a passed next-due date is shown as OVERDUE; and dates
# as the rules state them (the HHS annual date), in the organisation's zone
# (--tz, AIVET_TZ, the config file) beside UTC.
. "$TESTS_SRCDIR/lib/lib.sh"

export AIVET_NOW=2026-03-20T12:00:00Z
"$AIVET" vendor add acme >/dev/null

run incident due
is "$rc:$out" "0:aivet: no notification clock overdue or due within 7d" "no incident: nothing due, exit 0"
run incident due --within soon
is "$rc:$errout" "2:aivet: --within: bad duration 'soon': expected a whole number and a unit, such as 30m, 24h, 5d or 2w" "a bad window is a usage error"
run incident due --notify-url ftp://example.org/x
is "$rc:$errout" "2:aivet: --notify-url ftp://example.org: not an http(s) URL" "a non-http webhook is refused"
run incident due --notify-url http://hooks.example.org/services/T0/B0/SECRET
is "$rc:$errout" "2:aivet: --notify-url http://hooks.example.org: plain http would send the incident list unencrypted; use https" \
	"plain http to another host is refused, without echoing the webhook's token"

"$AIVET" incident open acme --title "Cross-tenant completions" --discovered 2026-03-02T09:00:00-05:00 \
	--phi yes --individuals 40 --eu-data yes --vendor-sla none >/dev/null
"$AIVET" incident open acme --title "No PHI" --discovered 2026-03-19T09:00:00Z --phi no --eu-data no --vendor-sla none >/dev/null

run incident due
is "$rc" 1 "an overdue clock: exit 1"
is "$out" "INCIDENT CLOCK              DUE                           LEFT                 TITLE
1        gdpr-sa            2026-03-05T14:00:00Z          OVERDUE 14d 22h      Cross-tenant completions" \
	"the overdue GDPR clock; HIPAA clocks beyond 7 days are not listed"
is "$errout" "aivet: 1 notification clock overdue or due soon" "said on stderr"

run incident due --within 7w --json
is "$(printf '%s\n' "$out" | json '.clocks | map([.incident, .clock, .state, .due, .seconds_left, .time_left] | map(tostring) | join(" ")) | join(";")')" \
	"1 gdpr-sa overdue 2026-03-05T14:00:00.000Z -1288800 -14d 22h;1 hipaa-individuals due 2026-05-01T14:00:00.000Z 3636000 42d 02h" \
	"--within 7w: worst first, then the HIPAA notice"

run incident list
is "$(printf '%s\n' "$out" | sed -n 2p | awk -F '  +' '{ print $6 }')" "OVERDUE gdpr-sa 2026-03-05T14:00:00.000Z" \
	"list: a passed next-due date says OVERDUE"
run incident list --json
is "$(printf '%s\n' "$out" | json '.[0].next_due | [.clock, .overdue] | map(tostring) | join(" ")')" "gdpr-sa true" \
	"list --json: next_due.overdue"

# ---- a webhook on loopback ----
cat >"$T/hook.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(n)
        with open(sys.argv[1], "ab") as f:
            f.write(self.headers.get("Content-Type", "").encode() + b"\n" + body + b"\n")
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[2], "w") as f:
    f.write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$T/hook.py" "$T/posted" "$T/port" &
hook=$!
stop_hook() { kill "$hook" 2>/dev/null; }
_cleanup_hooks="$_cleanup_hooks stop_hook"
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$T/port")

run incident due --notify-url "http://127.0.0.1:$port/hook"
is "$rc" 1 "posted: exit 1 for the overdue clock"
is "$(head -1 "$T/posted")" "application/json" "posted as application/json"
is "$(sed -n 2p "$T/posted")" '{"text":"aivet: 1 notification clock overdue or due within 7d:\n- incident 1 \"Cross-tenant completions\": gdpr-sa (GDPR supervisory authority) OVERDUE, was due 2026-03-05T14:00:00Z, overdue by 14d 22h","as_of":"2026-03-20T12:00:00.000Z","within_seconds":604800,"clocks":[{"incident":1,"title":"Cross-tenant completions","clock":"gdpr-sa","clock_name":"GDPR supervisory authority","state":"overdue","due":"2026-03-05T14:00:00.000Z","due_date":null,"due_text":"2026-03-05T14:00:00Z","due_org":null,"seconds_left":-1288800,"time_left":"-14d 22h","overdue_by":"14d 22h"}]}' \
	"the exact document posted"
is "$errout" "notified http://127.0.0.1:$port: HTTP status 200
aivet: 1 notification clock overdue or due soon" "it says where it posted (by host, not path) and the HTTP status"

run incident due --notify-url "http://127.0.0.1:$port/a" --notify-url http://127.0.0.1:9/refused
is "$rc" 3 "a refused webhook: exit 3"
like "$errout" "^aivet: notify http://127.0.0.1:9: Couldn't connect to server" "the refused webhook is named by host, not by its path"
unlike "$errout" "refused" "the path (where a webhook keeps its token) is not shown"
like "$errout" "1 of 2 notifications failed" "and counted"
is "$(grep -c '^{' "$T/posted")" 2 "the working webhook still got the list"

# ---- stopped clocks leave the list ----
"$AIVET" incident note 1 "Notified the authority" --kind notification-sent --clock gdpr-sa \
	--at 2026-03-04T10:00:00Z >/dev/null
run incident due --notify-url "http://127.0.0.1:$port/hook"
is "$rc:$out" "0:aivet: no notification clock overdue or due within 7d" "the notice stops the clock: exit 0"
is "$(tail -1 "$T/posted" | json '.clocks | length')" 0 "an empty list is still posted"

# ---- dates as the rules state them, in the organisation's zone (the database's) ----
export AIVET_NOW=2026-12-20T12:00:00Z
"$AIVET" incident open acme --title "Small" --discovered 2026-12-20T09:00:00Z --phi yes --individuals 40 \
	--eu-data no --vendor-sla none >/dev/null
run incident show 3 --json
is "$(printf '%s\n' "$out" | json '.clocks[1] | [.due_date, .due_text, .due, (.due_org | tostring)] | join("|")')" \
	"2027-03-01|by 2027-03-01, end of day UTC (assumed: no zone set)|2027-03-02T00:00:00.000Z|null" \
	"HHS for fewer than 500: a date, by 1 March, UTC said to be assumed until the database names a zone"
run incident show 3
like "$out" "hhs +running +due by 2027-03-01, end of day UTC \(assumed: no zone set\) \(2027-03-02T00:00:00.000Z\)" \
	"shown as the date, UTC beside"
run --tz America/New_York incident show 3 --json
is "$(printf '%s\n' "$out" | json '.clocks[1] | [.due_date, .due, (.due_org | tostring)] | join("|")')" \
	"2027-03-01|2027-03-02T00:00:00.000Z|null" "--tz moves no deadline"
run --tz America/New_York incident show 3
like "$out" "due by 2027-03-01, end of day UTC \(assumed: no zone set\) \(2027-03-02T00:00:00.000Z, 2027-03-01T19:00:00-05:00 EST\)" \
	"--tz only adds the time as its zone shows it"
like "$out" "hipaa-individuals +running +due 2027-02-18T09:00:00.000Z \(2027-02-18T04:00:00-05:00 EST\)" \
	"a time deadline in UTC with the --tz clock beside"
AIVET_TZ=Asia/Tokyo run incident show 3
like "$out" "end of day UTC \(assumed: no zone set\) \(2027-03-02T00:00:00.000Z, 2027-03-02T09:00:00\+09:00 JST\)" "AIVET_TZ"
mkdir -p "$XDG_CONFIG_HOME/aivet"
echo "Europe/Paris" >"$XDG_CONFIG_HOME/aivet/timezone"
run incident show 3
like "$out" "\(2027-03-02T00:00:00.000Z, 2027-03-02T01:00:00\+01:00 CET\)" "the config file 'timezone'"
AIVET_TZ=Asia/Tokyo run incident show 3
like "$out" "\(2027-03-02T00:00:00.000Z, 2027-03-02T09:00:00\+09:00 JST\)" "AIVET_TZ before the config file"
rm "$XDG_CONFIG_HOME/aivet/timezone"
run --tz Mars/Olympus_Mons incident show 3
is "$rc:$errout" "2:aivet: time zone 'Mars/Olympus_Mons': not in the system's zoneinfo (/usr/share/zoneinfo; is the tzdata package installed?) (from --tz)" \
	"an unknown zone is refused, exit 2"
run db timezone
is "$out" "no organisation time zone set: end-of-day deadlines assume UTC (set one with: aivet db timezone ZONE)" \
	"db timezone: none set yet, and how to set one"
run db timezone Mars/Olympus_Mons
is "$rc" 2 "db timezone: an unknown zone is refused"
run db timezone America/New_York
is "$rc" 0 "db timezone sets the organisation's zone"
is "$(sqlite3 "$AIVET_DB" "SELECT action || ' ' || object_type || ' ' || details FROM audit_log ORDER BY seq DESC LIMIT 1")" \
	'db.timezone database {"timezone":"America/New_York","previous":null}' "and the audit log says so"
run --tz Asia/Tokyo incident show 3 --json
is "$(printf '%s\n' "$out" | json '.clocks[1] | [.due_date, .due_text, .due, .due_org] | join("|")')" \
	"2027-03-01|by 2027-03-01, end of day America/New_York|2027-03-02T05:00:00.000Z|2027-03-02T00:00:00-05:00 EST" \
	"the end of 1 March in New York, the zone named, whatever --tz says"
run incident due --within 12w --json
is "$(printf '%s\n' "$out" | json '.clocks | map(select(.incident == 3)) | map(.clock + "=" + .due_text) | join(";")')" \
	"hipaa-individuals=2027-02-18T04:00:00-05:00 EST;hhs=by 2027-03-01, end of day America/New_York" \
	"incident due: an instant in the organisation's zone, named; a date-only deadline stays a date"
run incident due --within 12w --tz Asia/Tokyo --json
is "$(printf '%s\n' "$out" | json '.clocks | map(select(.incident == 3)) | map(.due + "=" + .due_org) | join(";")')" \
	"2027-02-18T09:00:00.000Z=2027-02-18T04:00:00-05:00 EST;2027-03-02T05:00:00.000Z=2027-03-02T00:00:00-05:00 EST" \
	"incident due --tz: the same instants, in the organisation's zone"
run incident due --within 12w
like "$out" "^3 +hhs +by 2027-03-01, end of day America/New_York +" "incident due: the text table says the date and its zone"
like "$out" "^3 +hipaa-individuals +2027-02-18T04:00:00-05:00 EST " "and the instant with its zone"
run incident due --tz Mars/Olympus_Mons
is "$rc" 2 "incident due --tz: an unknown zone is refused"
# The signed report's renderings say the deadline as incident show does.
"$AIVET" key generate --no-password >/dev/null
"$AIVET" report acme --incident 3 --out "$T/rep" >/dev/null
like "$(grep -F "HIPAA notice to HHS" "$T/rep/report.md")" "\| running \| by 2027-03-01, end of day America/New_York \|" \
	"report.md: the HHS deadline as a date, its zone named"
like "$(grep -F "HIPAA notice to HHS" "$T/rep/report.html")" "<td>by 2027-03-01, end of day America/New_York</td>" \
	"report.html: the HHS deadline as a date"
unlike "$(cat "$T/rep/report.md")" "\| 2027-03-02T00:00:00" "report.md: not the instant after the day"

# ---- a chat webhook reads "text" as markup: Slack's rules, &, < and > as entities ----
"$AIVET" incident open acme --title 'ping <!channel> see <https://evil.example|the contract> & more' \
	--discovered 2026-12-20T10:00:00Z --phi yes --individuals 40 --eu-data no --vendor-sla none >/dev/null
run incident due --within 12w --notify-url "http://127.0.0.1:$port/hook"
is "$(tail -1 "$T/posted" | json '.text' | grep -F 'ping')" \
	'- incident 4 "ping &lt;!channel&gt; see &lt;https://evil.example|the contract&gt; &amp; more": hipaa-individuals (HIPAA notice to individuals) due 2027-02-18T05:00:00-05:00 EST, left 59d 22h
- incident 4 "ping &lt;!channel&gt; see &lt;https://evil.example|the contract&gt; &amp; more": hhs (HIPAA notice to HHS) due by 2027-03-01, end of day America/New_York, left 71d 17h' \
	"posted text: <!channel> pings no one, <URL|label> disguises no link"
is "$(tail -1 "$T/posted" | json '.clocks | map(select(.incident == 4)) | .[0].title')" \
	'ping <!channel> see <https://evil.example|the contract> & more' "the data fields keep the title as it is"
is "$(printf '%s\n' "$out" | grep -F 'ping' | head -1)" \
	'4        hipaa-individuals  2027-02-18T05:00:00-05:00 EST 59d 22h              ping <!channel> see <https://evil.example|the contract> & more' \
	"the terminal shows the title as it is"

done_testing
