#!/bin/sh
# hard-escape.sh: text from outside (a contact, a note; a vendor's sheet refuses
# control characters outright) reaches each reader escaped for that reader. On the terminal no
# control sequence runs (OSC 52 would set the clipboard, CSI 2J clear the
# screen, U+202E reorder the line): every command's text output shows them as
# \x1b, \u202e. In report.md a note's links, images and HTML are inert text.
# A vendor's replies (aivet-sim --hostile terminal-escapes: an error whose
# keys, codes and message carry those sequences) reach probe run, probe show
# and probe diff escaped. Exact bytes throughout.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
D="$TESTS_SRCDIR/data"

ESC=$(printf '\033') BEL=$(printf '\007') RLO=$(printf '\342\200\256')
run vendor add acme --contact "sec${ESC}]52;c;ZXZpbA==${BEL}@acme.example" --notes "n${ESC}[2Jx${RLO}gpj.exe"
run vendor show acme
is "$(printf '%s\n' "$out" | sed -n '/contact/p;/notes/p')" \
	'  contact      sec\x1b]52;c;ZXZpbA==\x07@acme.example
  notes        n\x1b[2Jx\u202egpj.exe' "vendor show: OSC 52, CSI 2J and U+202E shown escaped"
run vendor list
unlike "$out" "$ESC" "vendor list: no raw escape"

run questionnaire import "$D/scoring-questionnaire.json"
run assess start acme scoring-test
printf 'question_id,answer,note\nnotify,5d,"a%s[2Jb%s]52;c;ZXZpbA==%s%s"\n' "$ESC" "$ESC" "$BEL" "$RLO" >"$T/vendor.csv"
run assess import 1 "$T/vendor.csv"
is "$rc:$errout" "2:aivet: $T/vendor.csv:2: column 3 holds the control character U+001B (ESC) at character 2: only tab and line breaks are allowed in imported text" \
	"the vendor's sheet with control characters is refused, naming the line and column"
# Typed at the command line the same note is taken, and shown escaped.
run assess answer 1 notify 5d --note "a${ESC}[2Jb${ESC}]52;c;ZXZpbA==${BEL}${RLO}"
is "$rc" 0 "the note typed at the command line is taken as it is"
run assess show 1
is "$(printf '%s\n' "$out" | grep -A1 '^  medium   notify' | tail -1 | sed 's/^ *//')" \
	'note: a\x1b[2Jb\x1b]52;c;ZXZpbA==\x07\u202e' "assess show: the note's control sequences shown escaped"
run assess history 1 notify
is "$(printf '%s\n' "$out" | tail -1 | sed 's/.*5d *//')" 'a\x1b[2Jb\x1b]52;c;ZXZpbA==\x07\u202e' \
	"assess history: the same"
run assess show 1 --json
is "$(printf '%s' "$out" | json '.questions[] | select(.id == "notify") | .note' | od -An -c | tr -s ' \n' '  ')" \
	" a 033 [ 2 J b 033 ] 5 2 ; c ; Z X Z p b A = = \a 342 200 256 \n " "--json keeps the bytes (JSON escapes them for its reader)"

# report.md: a note's links, images and raw HTML are text, not markup.
run assess answer 1 gate yes --note 'see [click](https://evil.example/x) ![img](https://track.example/p.png) <img src=x onerror=alert(1)> www.evil.example \[y](z) `code`'
"$AIVET" key generate --no-password >/dev/null 2>&1
run report acme --out "$T/bundle"
is "$rc" 0 "a report"
is "$(grep -F 'see \[click' "$T/bundle/report.md" | cut -d'|' -f6)" \
	' see \[click\](https\://evil.example/x) !\[img\](https\://track.example/p.png) &lt;img src=x onerror=alert(1)&gt; www\.evil.example \\\[y\](z) \`code\` ' \
	"report.md: no link, image, autolink, code span or HTML from a note"
is "$(grep -c 'onerror=alert' "$T/bundle/report.html") $(grep -c '<img src=x' "$T/bundle/report.html")" "1 0" \
	"report.html: the note's HTML is text"
is "$(grep -c "$ESC" "$T/bundle/report.md" "$T/bundle/report.html" | tr '\n' ' ')" \
	"$T/bundle/report.md:0 $T/bundle/report.html:0 " "no raw escape in report.md or report.html"

# ---- a vendor's replies: probe run, probe show, probe diff ----
raw() { printf '%s' "$1" | grep -c -e "$ESC" -e "$BEL" -e "$RLO"; }
sim_start --context 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
run probe run V/e --yes --probe echo,errors
is "$rc" 0 "a first run against a well-behaved vendor"
sim_start --context 8192 --tenants "$PROBE_TENANTS" --hostile terminal-escapes || exit 1
"$AIVET" endpoint edit V/e --url "$SIM_URL/v1" >/dev/null
run probe run V/e --yes --probe echo,errors
is "$rc:$(raw "$out$errout")" "3:0" "probe run against the hostile vendor: no raw escape in what it prints"
run probe show 2
is "$(printf '%s\n' "$out" | grep '^  ERR  echo')" \
	'  ERR  echo         error         every request was refused for a reason unrelated to the test (HTTP 400 (\x1b]52;c;ZXZpbA==\x07): bad \x1b]52;c;ZXZpbA==\x07request\x1b[2J\u202egpj.exe)' \
	"probe show: the vendor's message quoted in the reason, escaped"
is "$(raw "$out")" 0 "probe show: no raw escape"
run probe diff 1 2
is "$(printf '%s\n' "$out" | grep '^  new error shape    echo ')" \
	'  new error shape    echo 400 {error:{message:string,type:"\x1b[2Jinvalid",code:"\x1b]52;c;ZXZpbA==\x07"},\x1b[2Jhint:string}' \
	"probe diff: the keys and codes of the vendor's error, escaped in its shape"
is "$(raw "$out")" 0 "probe diff: no raw escape"
run probe diff 1 2 --json
is "$(printf '%s' "$out" | json '.error_shapes.new[] | select(.probe == "echo") | .shape' | grep -c "$ESC\\[2Jhint")" 1 \
	"--json keeps the vendor's bytes (JSON escapes them for its reader)"
sim_stop
done_testing
