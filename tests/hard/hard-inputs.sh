#!/bin/sh
# tests/hard/hard-inputs.sh: inputs an attacker controls, tried with stock tools.
# Each must fail closed in the way named: credentials in URLs, a DNS name
# dressed as loopback, credential files that are not private keys of the
# vendor, control characters from a vendor reaching the terminal, a symlink
# planted beside a report directory, spreadsheet formulas, non-regular
# evidence files, HTML in Markdown, and names that reorder or hide text.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
D="$TESTS_SRCDIR/data"
HINT="Give keys with --credential LABEL=env:VAR or LABEL=file:PATH"

# refused EXPECTED_STDERR DESCRIPTION aivet-args...: exit 2, that exact message, nothing changed.
refused() {
	_want=$1 _what=$2
	shift 2
	_before=$(db_snapshot)
	run "$@"
	is "$rc $errout" "2 aivet: $_want" "$_what: exit 2 and the message"
	is "$(db_snapshot)" "$_before" "$_what: nothing changed"
}

# ---- credentials in the endpoint URL (rule: a URL never carries a credential) ----
run vendor add V
run endpoint add V --name ok --api openai --url https://api.example.com/v1 --model m --context 1000 \
	--credential a=env:K
is "$rc" 0 "a plain https endpoint is accepted"
for u in 'https://api.example.com/v1?key=sk-live-SECRET1' 'https://api.example.com/v1?api_key=SECRET1' \
	'https://api.example.com/v1?x=1&token=SECRET1' 'https://api.example.com/v1?model=m&k=sk-SECRET1'; do
	refused "--url: the URL's query carries a credential (key=, token=, sk-...); it was not stored. $HINT" \
		"query credential $u" endpoint add V --name e --api openai --url "$u" --model m --context 1000 \
		--credential a=env:K
	unlike "$errout" "SECRET1" "the refusal does not echo the secret ($u)"
done
for u in 'https://user:sk-SECRET1@api.example.com/v1' 'https://SECRET1@api.example.com/v1' \
	'https://:SECRET1@api.example.com/v1'; do
	refused "--url: the URL carries a user name or password (user:...@host); it was not stored. $HINT" \
		"userinfo $u" endpoint add V --name e --api openai --url "$u" --model m --context 1000 \
		--credential a=env:K
	unlike "$errout" "SECRET1" "the refusal does not echo the secret ($u)"
done
refused "--url: the URL carries a user name or password (user:...@host); it was not stored. $HINT" \
	"endpoint edit with userinfo" endpoint edit V/ok --url 'https://u:sk-SECRET1@api.example.com/v1'
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE details LIKE '%SECRET1%'")
$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM endpoint WHERE url LIKE '%SECRET1%'")" "0
0" "no secret reached the audit log or the endpoint table"
run endpoint add V --name azure --api azure-openai --url 'https://x.example/openai?api-version=2024-06-01' \
	--model m --context 1000 --credential a=env:K
is "$rc" 0 "a query without a credential (api-version=) is accepted"
# By a general rule: decoded names, the fragment and path segments too.
for u in 'https://api.example.com/v1?k%65y=SECRET1' 'https://api.example.com/v1?subscription-key=SECRET1' \
	'https://api.example.com/v1?X-Amz-Signature=SECRET1' 'https://api.example.com/v1?bearer=SECRET1'; do
	refused "--url: the URL's query carries a credential (key=, token=, sk-...); it was not stored. $HINT" \
		"query credential $u" endpoint add V --name e --api openai --url "$u" --model m --context 1000
	unlike "$errout" "SECRET1" "the refusal does not echo the secret ($u)"
done
refused "--url: the URL's fragment carries a credential (#key=, #access_token=, ...); it was not stored. $HINT" \
	"fragment credential" endpoint add V --name e --api openai --url 'https://api.example.com/v1#key=SECRET1' \
	--model m --context 1000
refused "--url: the URL's path carries a credential (a segment shaped like a key: sk-..., a JWT, a long random token); it was not stored. $HINT" \
	"path credential" endpoint edit V/ok --url 'https://api.example.com/sk-proj-SECRET1abcdef/v1'
for u in 'https://sk-proj-SECRET1abcdefx.example/v1' 'https://eu.AKIASECRET1ABCDEFGHJK.example/v1'; do
	refused "--url: the URL's host name carries a credential (a label shaped like a key: sk-..., a JWT, a long random token); it was not stored. $HINT" \
		"key-shaped host label $u" endpoint edit V/ok --url "$u"
	unlike "$errout" "SECRET1" "the refusal does not echo the host ($u)"
done
run endpoint add V --name hosts --api openai --url 'https://sk.example/v1' --model m --context 1000
run endpoint edit V/hosts --url 'https://bedrock-runtime.eu-west-1.amazonaws.com/v1'
is "$rc" 0 "host names that are no key (sk, bedrock-runtime, eu-west-1) pass"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE details LIKE '%SECRET1%'")
$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM endpoint WHERE url LIKE '%SECRET1%'")" "0
0" "none of them reached the audit log or the endpoint table"
# One stored before the rule (written behind aivet's back) is never copied into a bundle.
"$AIVET" key generate --no-password --name urlkey >/dev/null 2>&1
sqlite3 "$AIVET_DB" "UPDATE endpoint SET url = 'https://api.example.com/v1#key=SECRET1' WHERE name = 'ok'"
db_seal   # as the older aivet that stored it sealed it
run report V --out "$T/url-bundle" --key urlkey
is "$rc $errout" "2 aivet: endpoint V/ok: its URL carries a credential, which the report would copy; set a URL without it ('aivet endpoint edit V/ok --url URL') and give the key with --credential" \
	"a report refuses an endpoint whose stored URL carries a secret in its fragment"
ok "$(test ! -e "$T/url-bundle"; echo $?)" "and writes no bundle"
"$AIVET" endpoint edit V/ok --url https://api.example.com/v1 >/dev/null   # as the message says

# ---- loopback is a parsed address (rule: 127/8, ::1 or localhost, nothing textual) ----
for u in 'http://127.0.0.1.2/v1' 'http://127.0.0.1.example.com/v1' 'http://127.0.0.256/v1'; do
	host=${u#http://}; host=${host%/v1}
	run endpoint add V --name lb --api openai --url "$u" --model m --context 1000 --credential a=env:K
	is "$rc $errout" "2 aivet: --url: plain http to $host would send credentials unencrypted; use https, or --allow-insecure-http if you really mean it" \
		"$u is a DNS name, not loopback: refused over plain http"
done
# libcurl reads 127.1 and 0x7f000001 as 127.0.0.1 and connects there: loopback indeed.
n=0
for u in 'http://127.0.0.1:9/v1' 'http://127.200.3.4/v1' 'http://[::1]:9/v1' 'http://LocalHost/v1' \
	'http://127.1/v1' 'http://0x7f000001/v1'; do
	n=$((n + 1))
	run endpoint add V --name "lb$n" --api openai --url "$u" --model m --context 1000 --credential a=env:K
	is "$rc" 0 "$u is loopback: accepted over plain http"
done
run endpoint add V --name lbx --api openai --url 'http://127.0.0.1.2/v1' --model m --context 1000 \
	--credential a=env:K --allow-insecure-http
is "$rc" 0 "with --allow-insecure-http the DNS name is accepted"

# ---- names (rule: UTF-8 without controls or bidi overrides; refused input echoed escaped) ----
BIDI=$(printf 'Acme\342\200\256gpj.exe')
refused "vendor name 'Acme\\u202egpj.exe' may not contain '/', control characters or bidirectional overrides" \
	"U+202E in a vendor name" vendor add "$BIDI"
refused "vendor name 'x\\u2066y' may not contain '/', control characters or bidirectional overrides" \
	"U+2066 in a vendor name" vendor add "$(printf 'x\342\201\246y')"
refused "vendor name 'ab\\xffcd' is not valid UTF-8" "invalid UTF-8 in a vendor name" \
	vendor add "$(printf 'ab\377cd')"
refused "vendor name 'ab\\xc0\\xafcd' is not valid UTF-8" "an overlong UTF-8 '/' in a vendor name" \
	vendor add "$(printf 'ab\300\257cd')"
refused "vendor name 'ab\\u0085cd' may not contain '/', control characters or bidirectional overrides" \
	"a C1 control (NEL) in a vendor name" vendor add "$(printf 'ab\302\205cd')"
refused "vendor name 'x\\x1b]0;owned\\x07' may not contain '/', control characters or bidirectional overrides" \
	"an escape sequence in a vendor name is echoed escaped" vendor add "$(printf 'x\033]0;owned\007')"
refused "endpoint name 'e\\u202e' may not contain '/', control characters or bidirectional overrides" \
	"U+202E in an endpoint name" endpoint add V --name "$(printf 'e\342\200\256')" --api openai \
	--url https://x.example/v1 --model m --context 1000 --credential a=env:K
refused "--credential: label 't\\x1b[2J' may use only letters, digits, '-', '_' and '.'" \
	"a tenant label with an escape sequence is echoed escaped" endpoint add V --name e2 --api openai \
	--url https://x.example/v1 --model m --context 1000 --credential "$(printf 't\033[2J')=env:K"
refused "vendor name 'V\\u202e' may not contain '/', control characters or bidirectional overrides" \
	"vendor edit --name with U+202E" vendor edit V --name "$(printf 'V\342\200\256')"
refused "actor 'al\\u202eice' may not contain control characters or bidirectional overrides (from --actor or AIVET_ACTOR)" \
	"U+202E in --actor" --actor "$(printf 'al\342\200\256ice')" vendor add W
before=$(db_snapshot)
out=$(AIVET_ACTOR="$(printf 'x\033[2J')" "$AIVET" vendor add W 2>&1) && rc=0 || rc=$?
is "$rc $out" "2 aivet: actor 'x\\x1b[2J' may not contain control characters or bidirectional overrides (from --actor or AIVET_ACTOR)" \
	"an escape sequence in AIVET_ACTOR"
is "$(db_snapshot)" "$before" "nothing changed"
run vendor add "Ärzte-KI 東京"
is "$rc" 0 "non-ASCII letters in a name are fine"

# ---- CSV: formulas guarded on export, the guard removed on import (OWASP) ----
rm -f "$AIVET_DB"
run vendor add acme
run questionnaire import "$D/scoring-questionnaire.json"
run assess start acme scoring-test
for note in '=HYPERLINK("http://evil.example","x")' '+1+2' '-2+3' '@SUM(A1)' "$(printf '\tTAB')" \
	"$(printf '\rCR')" "'=quoted" "''two" "'plain" 'plain'; do
	run assess answer 1 gate yes --note "$note"
	run assess export 1 --format csv --output "$T/g.csv"
	cell=$(printf '%s' "$note" | sed 's/"/""/g')
	case "$note" in
	[=+@-]* | "$(printf '\t')"* | "$(printf '\r')"* | "'"[=+@\'-]*) want="\"'$cell\"" ;;
	*) want="\"$cell\"" ;;
	esac
	is "$(grep '^"gate"' "$T/g.csv" | sed 's/^"gate","main","Gate?","yes_no","yes","yes|no","","yes",//')" \
		"$want" "export guards the note $(printf '%s' "$note" | od -An -c | tr -s ' \n' ' ')"
	run assess answer 1 gate --clear
	run assess import 1 "$T/g.csv"
	is "$(sqlite3 "$AIVET_DB" "SELECT note FROM answer WHERE question_id = 'gate'")" "$note" \
		"import removes the guard: the note round-trips exactly"
done
refused "assess approve takes no --reviewer: the reviewer is who runs aivet (now tester), signing with their own key
usage: aivet assess approve ASSESSMENT [--key NAME]" \
	"U+202E in a typed reviewer's name (no typed name is taken)" assess approve 1 --reviewer "$(printf 'b\342\200\256ob')"
printf '"question_id","answer","note"\n"gate","no","a\000b"\n' >"$T/nul.csv"
refused "$T/nul.csv:2: a cell holds a NUL byte" "a NUL in a cell" assess import 1 "$T/nul.csv"
printf '"question_id","answer","note"\n"gate","no","a\nb\033[2Jc"\n' >"$T/esc.csv"
refused "$T/esc.csv:2: column 3 holds the control character U+001B (ESC) at character 4: only tab and line breaks are allowed in imported text" \
	"an ESC in a cell (a note over two lines: named on the line it starts)" assess import 1 "$T/esc.csv"
printf '"question_id","answer","note"\n"gate","no","tab\there\r\nCRLF"\n' >"$T/tab.csv"
run assess import 1 "$T/tab.csv"
is "$rc:$errout" "0:" "tab, CR and LF are allowed in a cell"
printf '"question_id","answer","note","answer"\n"gate","no","","yes"\n' >"$T/dup.csv"
refused "$T/dup.csv:1: the header names column 'answer' twice (columns 2 and 4)" \
	"a duplicate column" assess import 1 "$T/dup.csv"
mkfifo "$T/fifo.csv"
before=$(db_snapshot)
out=$(timeout 10 "$AIVET" assess import 1 "$T/fifo.csv" 2>&1) && rc=0 || rc=$?
is "$rc $out" "2 aivet: $T/fifo.csv: not a regular file" "a FIFO sheet is refused without waiting for a writer"

mkfifo "$T/q.fifo"
out=$(timeout 10 "$AIVET" questionnaire validate "$T/q.fifo" 2>&1) && rc=0 || rc=$?
is "$rc $out" "2 aivet: $T/q.fifo: not a regular file" "a FIFO questionnaire is refused without waiting"
# ---- --evidence: regular files only, refused before reading ----
refused "evidence file: /dev/zero: not a regular file" "--evidence /dev/zero" \
	assess answer 1 gate yes --evidence /dev/zero
mkfifo "$T/fifo"
out=$(timeout 10 "$AIVET" assess answer 1 gate yes --evidence "$T/fifo" 2>&1) && rc=0 || rc=$?
is "$rc $out" "2 aivet: evidence file: $T/fifo: not a regular file" "--evidence FIFO: refused, no hang"
is "$(db_snapshot)" "$before" "nothing changed by the refused sheet and evidence"
truncate -s 1073741825 "$T/big"
refused "evidence file: $T/big: larger than 1073741824 bytes" "--evidence over 1 GiB, refused unread" \
	assess answer 1 gate yes --evidence "$T/big"
rm -f "$T/big"

# ---- report.md escapes HTML; report --out never follows a planted symlink ----
"$AIVET" key generate --no-password >/dev/null 2>&1
run assess answer 1 gate yes --note '<script>alert(1)</script> & <img src=x onerror=alert(2)>'
run report acme --out "$T/r1"
is "$rc" 0 "report written"
is "$(grep -c '<script>\|<img' "$T/r1/report.md")" 0 "report.md holds no raw <script> or <img>"
like "$(cat "$T/r1/report.md")" '\| gate \| yes \| low \| not testable \| &lt;script&gt;alert\(1\)&lt;/script&gt; &amp; &lt;img src=x onerror=alert\(2\)&gt; \|' \
	"the note is there, escaped"
run assess export 1 --format md
like "$out" '\| gate \(required\): Gate\? \| yes\\\|no \| yes \| &lt;script&gt;alert\(1\)&lt;/script&gt; ' "assess export --format md escapes it too"
# The old build directory was DIR.partial.PID: plant a link there to a victim directory.
# exec keeps the shell's pid, so $$ is the pid aivet runs as.
mkdir -p "$T/victim" && echo keep >"$T/victim/precious"
sh -c 'ln -s "$1" "$2.partial.$$" && exec "$3" report acme --out "$2"' sh "$T/victim" "$T/r2" "$AIVET" \
	>/dev/null 2>&1
is "$(cat "$T/victim/precious" 2>&1)" "keep" "a symlink planted at DIR.partial.PID is not followed"
ok "$(test -f "$T/r2/report.md"; echo $?)" "and the report is written"
is "$(ls -d "$T"/r2.partial.* | grep -vc '\.partial\.[0-9]*$')" 0 "no build directory is left behind"

# An endpoint stored with a credential in its URL before such URLs were refused.
run endpoint add acme --name legacy --api openai --url https://api.example.com/v1 --model m \
	--context 1000 --credential a=env:K
sqlite3 "$AIVET_DB" "UPDATE endpoint SET url = 'https://api.example.com/v1?key=sk-OLDSECRET' WHERE name = 'legacy'"
db_seal   # as the older aivet that stored it sealed it
refused "endpoint acme/legacy: its URL carries a credential, which the report would copy; set a URL without it ('aivet endpoint edit acme/legacy --url URL') and give the key with --credential" \
	"a report with a legacy credential URL" report acme --out "$T/r3"
ok "$(test ! -e "$T/r3"; echo $?)" "and no bundle was written"
is "$(ls -d "$T"/r3.partial.* 2>/dev/null | wc -l)" 0 "and its build directory was removed"
"$AIVET" endpoint edit acme/legacy --url https://api.example.com/v1 >/dev/null
# An error after the build directory is made (the rename onto a symlink fails):
# only the build directory goes, nothing it does not own.
mkdir "$T/empty"
ln -s "$T/empty" "$T/r4"
before=$(db_snapshot)
run report acme --out "$T/r4"
like "$rc $errout" "^3 aivet: cannot move $T/r4\\.partial\\.[A-Za-z0-9]{6} to $T/r4: Not a directory$" \
	"a failed rename is a runtime error naming both"
is "$(ls -d "$T"/r4.partial.* 2>/dev/null | wc -l) $(ls -A "$T/empty" | wc -l)" "0 0" \
	"the build directory was removed; the link's target untouched"
ok "$(test -L "$T/r4"; echo $?)" "and the link itself is still there"
is "$(db_snapshot)" "$before" "and the failed report recorded nothing"

# ---- file: credentials (rule: private regular files, small, not aivet's own, no control characters) ----
sim_start --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192
"$AIVET" key generate --no-password >/dev/null 2>&1
KEYF="$XDG_CONFIG_HOME/aivet/keys/aivet.key"
# cred_refused FILE MESSAGE_TAIL DESCRIPTION: alice's key read from FILE; the run is refused.
cred_refused() {
	"$AIVET" endpoint edit V/e --credential "alice=file:$1" >/dev/null
	_before=$(db_snapshot)
	out=$(timeout 20 "$AIVET" probe run V/e --probe echo --yes 2>&1 >/dev/null) && rc=0 || rc=$?
	is "$rc $out" "2 aivet: tenant 'alice': credential file:$1: $2" "$3"
	is "$(db_snapshot)" "$_before" "$3: nothing recorded"
	is "$(grep -c '^aivet-sim: #' "$SIM_LOG")" 0 "$3: no request was sent"
}
printf '%s\n' "$PROBE_KEY_ALICE" >"$T/alice.key"
chmod 644 "$T/alice.key"
cred_refused "$T/alice.key" "the file is open to group or others (mode 0644); chmod 600 it" \
	"a credential file readable by others"
chmod 600 "$T/alice.key"
cred_refused "$KEYF" "that is one of aivet's own key or database files, never a vendor's key" \
	"the signing key as a credential"
ln "$KEYF" "$T/innocent-name"
cred_refused "$T/innocent-name" "that is one of aivet's own key or database files, never a vendor's key" \
	"a hard link to the signing key (compared by device and inode)"
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	# On a server the database is no file on this machine that a credential could name.
	for _i in 1 2 3; do ok 0 "# SKIP the database is a PostgreSQL server, not a file"; done
else
	chmod 600 "$AIVET_DB"
	cred_refused "$AIVET_DB" "that is one of aivet's own key or database files, never a vendor's key" \
		"the database as a credential"
fi
cred_refused /dev/zero "not a regular file" "a device as a credential"
mkfifo "$T/cred.fifo"
cred_refused "$T/cred.fifo" "not a regular file" "a FIFO as a credential (no hang)"
head -c 65537 /dev/zero | tr '\0' a >"$T/huge.key" && chmod 600 "$T/huge.key"
cred_refused "$T/huge.key" "larger than 65536 bytes" "a credential file over the 64 KiB cap"
n=0
for c in '\r\nX-Injected: 1' '\nX-Injected: 1' '\000tail' '\033x'; do
	n=$((n + 1))
	(umask 077 && printf "sk-alice$c\n" >"$T/inj.key")
	cred_refused "$T/inj.key" \
		"the secret holds control characters (CR, LF, NUL, ...), which would inject request headers; refused" \
		"control characters in a file secret (CR LF, LF, NUL, ESC: case $n)"
	unlike "$out" "sk-alice" "the message names the reference, never the secret (case $n)"
done
export INJ_KEY="$(printf 'sk-alice\r\nX-Injected: 1')"
"$AIVET" endpoint edit V/e --credential alice=env:INJ_KEY >/dev/null
run probe run V/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 'alice': credential env:INJ_KEY: the secret holds control characters (CR, LF, ...), which would inject request headers; refused" \
	"CR/LF in an environment secret"
"$AIVET" endpoint edit V/e --credential "alice=file:$T/alice.key" >/dev/null
run probe run V/e --probe echo --yes
is "$rc" 0 "a private key file is used"
sim_stop

# ---- vendor text on the terminal (rule: control characters escaped, one helper) ----
EVIL_LOC=$(printf 'http://127.0.0.1:1/x\033[2J\033]0;pwned\007')
sim_start --tenants "$PROBE_TENANTS" --hostile redirect-origin --redirect-to "$EVIL_LOC" || exit 1
probe_setup openai 8192
run probe run V/e --probe echo --yes
is "$(printf '%s%s' "$out" "$errout" | tr -d '\n' | tr -dc '\000-\037' | wc -c)" 0 \
	"probe run prints no control character from the vendor"
run probe show 1
is "$(printf '%s' "$out" | grep ' ERR ')" \
	'  ERR  echo         error         no answer: HTTP 307 redirect to http://127.0.0.1:1/x\x1b[2J\x1b]0;pwned\x07 was not followed (credentials are never sent on)' \
	"probe show escapes the redirect's Location in the reason"
run evidence show 1
is "$(printf '%s' "$out" | grep 'location:')" '  location: http://127.0.0.1:1/x\x1b[2J\x1b]0;pwned\x07' \
	"evidence show escapes the Location header"
is "$(printf '%s' "$out" | tr -d '\n' | tr -dc '\000-\037' | wc -c)" 0 "evidence show prints no control character"
run evidence show 1 --json
is "$(printf '%s' "$out" | jq -r '.exchange.response_headers.location')" "$EVIL_LOC" \
	"--json keeps the exact bytes (JSON escapes them)"
sim_stop
sim_start --tenants "$PROBE_TENANTS" --hostile invalid-utf8 || exit 1
probe_setup openai 8192
run probe run V/e --probe echo --yes
run evidence show 1
like "$out" 'content":"bad \\x80\\xbf \\xc0\\xaf \\xed\\xa0\\x80 \\xff\\xfe text"' \
	"evidence show escapes bytes that are not UTF-8 in a response body"
sim_stop

done_testing
