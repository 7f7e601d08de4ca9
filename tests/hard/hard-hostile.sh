#!/bin/sh
# tests/hard/hard-hostile.sh: aivet against hostile vendors (aivet-sim --hostile
# MODE, and TLS with a self-signed certificate). Each must end in a clean
# 'error' verdict naming what was wrong, exit 3, in bounded time and memory,
# with no crash or sanitizer report, and no credential may reach another
# origin through a redirect.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# Peak memory allowed: 150 MB; a sanitizer build keeps freed memory in
# quarantine (256 MB by default), so it gets more room.
RSS_LIMIT_KB=150000
grep -q __asan_init "$AIVET" && RSS_LIMIT_KB=700000

# hostile MODE TIMEOUT REASON_PATTERN [sim options...]: one echo probe run
# against a hostile sim; checks exit 3, the verdict and its reason, time and memory.
hostile() {
	mode=$1 timeout=$2 reason=$3
	shift 3
	sim_start --tenants "$PROBE_TENANTS" --hostile "$mode" "$@" || { ok 1 "$mode: sim started"; return; }
	probe_setup openai 8192
	python3 "$TESTS_SRCDIR/lib/hard-measure.py" "$T/m" "$AIVET" probe run V/e --probe echo --yes --json \
		--timeout "$timeout"
	read -r rc ms rss <"$T/m"
	is "$rc $(jq -r '[.status, .probes[0].verdict] | join(" ")' "$T/m.stdout")" "3 failed error" \
		"$mode: exit 3, the probe in error and so the run failed (nothing was checked)"
	like "$(jq -r '.probes[0].reason' "$T/m.stdout")" "$reason" "$mode: the reason says what was wrong"
	ok "$([ "$rss" -lt "$RSS_LIMIT_KB" ] && [ "$ms" -lt $((timeout * 8000)) ]; echo $?)" \
		"$mode: bounded ($ms ms, peak RSS $rss KB)"
	unlike "$(cat "$T/m.stderr")" "runtime error|Sanitizer|Segmentation|Aborted" "$mode: no crash, no sanitizer report"
	sim_stop
	# The sim's own count, guarded against none at all (0 = 0 would pass with nothing sent).
	seen=$(grep -c "hostile=$mode " "$SIM_LOG")
	is "$(q "SELECT count(*) FROM exchange WHERE run_id = 1") $([ "$seen" -gt 0 ] && echo sent)" "$seen sent" \
		"$mode: every request the vendor answered ($seen) is recorded as evidence"
	is "$sim_rc" 0 "$mode: the sim stopped cleanly"
}

hostile gzip-bomb 5 "HTTP 200 with a body compressed though no compression was asked for \([0-9]+ bytes, openai API\)"
hostile endless-sse 5 "response body exceeded the 8388608-byte cap and was cut"
hostile slow-drip 2 "Operation timed out after 20[0-9][0-9] milliseconds with [0-9]+ out of 237 bytes received"
hostile invalid-utf8 5 "HTTP 200 with a body that is not valid UTF-8"
hostile deep-json 5 "HTTP 200 with a body that is not a response of this API \(200000 bytes, openai API\)"
hostile huge-header 5 "no answer: .+"
hostile empty-200 5 "HTTP 200 with an empty body"
hostile length-long 5 "transfer closed with 2133 bytes remaining to read"
hostile length-short 5 "HTTP 200 with a body that is not a response of this API \(79 bytes, openai API\)"
hostile nul-bytes 5 "HTTP 200 with a body that is not valid UTF-8 \(232 bytes, openai API\)"
hostile redirect-loop 5 "HTTP 302 redirect to http://127.0.0.1:[0-9]+/v1/chat/completions was not followed"

# A redirect to another origin: the other server must never see the key.
sim_start --tenants "$PROBE_TENANTS" || exit 1
OTHER_URL=$SIM_URL OTHER_LOG=$SIM_LOG
hostile redirect-origin 5 "HTTP 307 redirect to $OTHER_URL/steal was not followed" --redirect-to "$OTHER_URL/steal"
like "$(cat "$T/sim$((_sim_n)).log")" "hostile=redirect-origin status=307 credential=present" \
	"the redirecting server got the key (it is the endpoint)"
is "$(grep -c '^aivet-sim: #' "$OTHER_LOG")" 0 "the other origin got no request at all, so no key"

# TLS with a self-signed certificate: refused, unless the endpoint names the CA.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
sim_start --tenants "$PROBE_TENANTS" --tls-cert "$T/cert.pem" --tls-key "$T/key.pem" || exit 1
like "$SIM_URL" "^https://127\.0\.0\.1:[0-9]+$" "the sim serves https"
probe_setup openai 8192
run probe run V/e --probe echo --yes --json --timeout 5
is "$rc $(printf '%s' "$out" | jq -r '.probes[0].verdict')" "3 error" "a self-signed certificate is refused"
like "$(printf '%s' "$out" | jq -r '.probes[0].reason')" "SSL certificate problem: self.signed certificate" \
	"and the reason names it"
"$AIVET" endpoint edit V/e --option ca-file="$T/cert.pem" >/dev/null
run probe run V/e --probe echo --yes --json --timeout 5
is "$rc $(printf '%s' "$out" | jq -r '.probes[0].verdict')" "0 pass" "with ca-file naming its CA the endpoint is verified and probed"
done_testing
