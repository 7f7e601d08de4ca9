#!/bin/sh
# tests/hard/hard-bytes.sh: a vendor's answer holding NUL bytes and bytes that are
# not UTF-8 (aivet-sim --hostile nul-bytes) is kept as evidence byte for byte,
# in the body and in a header, whatever the store: SQLite keeps such text as
# it is, a PostgreSQL server refuses it in a text column unless aivet's layer
# escapes it (tests/pg/on-pg/hard-bytes.sh runs this on a server). The run ends
# in a clean error, every exchange is recorded and the audit chain verifies.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

sim_start --tenants "$PROBE_TENANTS" --hostile nul-bytes || exit 1
probe_setup openai 8192
run probe run V/e --probe echo --yes --json
is "$rc $(printf '%s' "$out" | jq -r '[.status, .probes[0].verdict] | join(" ")')" "3 failed error" \
	"exit 3, the probe in error and so the run failed (nothing was checked)"
echo "# reason: $(printf '%s' "$out" | jq -r '.probes[0].reason')"
n=$(q "SELECT count(*) FROM exchange WHERE run_id = 1")
ok "$([ "$n" -gt 0 ]; echo $?)" "exchanges were recorded ($n)"
is "$n" "$(grep -c 'hostile=nul-bytes ' "$SIM_LOG")" "every request the vendor answered is recorded"

# What the vendor sends, as curl gets it.
sim_http POST /v1/chat/completions -H 'Content-Type: application/json' -d '{}'
sent_size=$(wc -c <"$T/sim-body")
sent_sha=$(sha256sum "$T/sim-body" | cut -d' ' -f1)
ok "$(tr -d '\000' <"$T/sim-body" | cmp -s - "$T/sim-body"; [ $? = 1 ]; echo $?)" \
	"the vendor's body holds NUL bytes ($sent_size bytes)"
sim_stop

run evidence show 1 --json
is "$(printf '%s' "$out" | jq -r '.exchange | [.response_status, .response_size, .response_sha256] | join(" ")')" \
	"200 $sent_size $sent_sha" "evidence show: the recorded size and SHA-256 are those of the bytes sent"

# evidence show gives those bytes back whole: escaped as text (a NUL would
# cut a C string and a JSON reader), exactly in response_body_base64.
printf '%s' "$out" | jq -r '.exchange.response_body_base64' | base64 -d >"$T/shown" 2>/dev/null
ok "$(cmp -s "$T/shown" "$T/sim-body"; echo $?)" "evidence show --json: response_body_base64 is the bytes sent"
like "$(printf '%s' "$out" | jq -r '.exchange.response_body')" '\\x00' \
	"evidence show --json: the text shows each NUL as \\x00, not cut at the first"
run evidence show 1 --full
like "$out" "response body \(not UTF-8 text: NUL and stray bytes shown as \\\\xNN; --json has the bytes in response_body_base64\):" \
	"evidence show: says the body is not text and where its bytes are"

# The body read back from the report bundle's evidence (base64, as it is not text).
"$AIVET" key generate --no-password >/dev/null 2>&1
run report V --out "$T/r"
is "$rc" 0 "report written"
all=1
for x in $(q "SELECT evidence_id FROM exchange WHERE run_id = 1 ORDER BY id"); do
	f="$T/r/evidence/exchange-$x.json"
	jq -r '.response.body_base64' "$f" | base64 -d >"$T/got-$x" 2>/dev/null
	cmp -s "$T/got-$x" "$T/sim-body" || { all=0; echo "# exchange $x: the exported body differs from the bytes sent"; }
done
is "$all" 1 "report: every exchange's response body is exactly the bytes the vendor sent"

# The header: evidence show escapes each byte that is not UTF-8 as \xNN. It
# also holds U+FDD0 U+F7FF, which is how a stray 0xff is escaped on a server:
# those characters come back as they are.
want=$(LC_ALL=C grep -i '^x-hostile-text:' "$T/sim-headers" | sed 's/^[^:]*: *//' | tr -d '\r' | PYTHONIOENCODING=utf-8 python3 -c 'import sys
print(sys.stdin.buffer.read().rstrip(b"\n").decode("utf-8", "backslashreplace"))')
like "$want" '\\xff\\xfe \\xc0\\xaf \\x80' "the vendor's header holds bytes that are not UTF-8"
run evidence show 1
is "$(printf '%s\n' "$out" | grep 'x-hostile-text:')" "  x-hostile-text: $want" \
	"evidence show: the header as the vendor sent it, its bytes escaped"
is "$(q "SELECT instr(hex(response_headers), '62616420FFFE20C0AF208020EFB790EF9FBF206279746573') > 0 FROM exchange WHERE evidence_id = 1")" 1 \
	"the stored header holds those very bytes"
run audit verify
is "$rc" 0 "audit verify passes after: $out"

# A redirect's Location that is not UTF-8, quoted in the probe's reason too.
EVIL_LOC=$(printf 'http://127.0.0.1:1/x\377\376\200y')
sim_start --tenants "$PROBE_TENANTS" --hostile redirect-origin --redirect-to "$EVIL_LOC" || exit 1
probe_setup openai 8192
run probe run V/e --probe echo --yes --json
is "$rc $(printf '%s' "$out" | jq -r '.status')" "3 failed" "a Location that is not UTF-8: the run ends failed (its one probe checked nothing)"
sim_stop
is "$(q "SELECT count(*) FROM exchange WHERE run_id = 1")" "$(grep -c 'hostile=redirect-origin ' "$SIM_LOG")" \
	"a Location that is not UTF-8: every request the vendor answered is recorded"
run probe show 1
is "$(printf '%s' "$out" | grep ' ERR ')" \
	'  ERR  echo         error         no answer: HTTP 307 redirect to http://127.0.0.1:1/x\xff\xfe\x80y was not followed (credentials are never sent on)' \
	"probe show: the reason keeps the Location's bytes (escaped)"
is "$(q "SELECT hex(reason) FROM probe_result WHERE run_id = 1 AND probe = 'echo'" | grep -c 'FFFE80')" 1 \
	"the stored reason holds those very bytes"
run audit verify
is "$rc" 0 "audit verify passes after the redirect: $out"
done_testing
