#!/bin/sh
# adapter-memory.sh: request bodies are generated from their recipe while
# libcurl sends them, so the oversize probe's peak memory does not grow with
# the context: at a 1,048,576-token context (bodies of about 5 MB) aivet's
# peak RSS stays within 4 MB of the same run at 8,192 tokens (bodies of
# about 40 KB); building the bodies in memory grew it by about 11 MB. The
# figures are bench/oversize's.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# oversize CONTEXT POOL STREAMED: one oversize run against a fresh sim, STREAMED of
# its four bodies over the 32 KB kept whole; sets rss and body.
oversize() {
	sim_start --tenants "$PROBE_TENANTS" --context "$1" --pool "$2" || { ok 1 "sim at $1 started"; return; }
	probe_setup openai "$1"
	python3 "$TESTS_SRCDIR/lib/hard-measure.py" "$T/m" "$AIVET" probe run V/e --probe oversize --yes --json
	read -r rc ms rss <"$T/m"
	body=$(q "SELECT max(request_size) FROM exchange")
	is "$rc:$(jq -r '.probes[0].verdict' "$T/m.stdout")" "0:pass" "context $1: oversize runs (largest body $body bytes)"
	is "$(q "SELECT count(*) || ' ' || count(request_recipe) || ' ' || count(request_blob)
		FROM exchange WHERE request_size > 32768")" "$3 $3 0" \
		"context $1: its $3 bodies over 32 KB are kept as their recipe, not stored"
	sim_stop
}

oversize 8192 5328 2
small_rss=$rss small_body=$body
oversize 1048576 681280 4
ok "$([ "$body" -gt $((small_body * 100)) ]; echo $?)" "the 1M bodies are over 100 times the 8k ones ($body vs $small_body bytes)"
if grep -q __asan_init "$AIVET"; then
	_n=$((_n + 1)); echo "ok $_n # SKIP a sanitizer build keeps freed memory in quarantine"
else
	ok "$([ "$rss" -le $((small_rss + 4096)) ]; echo $?)" \
		"peak RSS at 1M ($rss KB) within 4 MB of 8k ($small_rss KB)"
fi
done_testing
