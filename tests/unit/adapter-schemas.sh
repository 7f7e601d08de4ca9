#!/bin/sh
# adapter-schemas.sh: every request body each adapter builds (through the
# probe engine's own body path) validates against its vendor's published
# schema (excerpts in tests/data/schemas/, with their source, version and
# licence), and the bodies those specs forbid (stream_options or
# max_completion_tokens on Azure 2024-10-21, a missing required field) fail.
. "$TESTS_SRCDIR/lib/lib.sh"

dump="$(dirname "$AIVET")/../tests/unit/test-provider"
"$dump" --dump-requests >"$T/bodies.jsonl"
is "$?" 0 "the adapters' bodies are dumped"
python3 "$TESTS_SRCDIR/lib/adapter-schemas.py" "$TESTS_SRCDIR/data/schemas" "$T/bodies.jsonl" \
	>"$T/results" 2>"$T/err"
is "$?" 0 "the bodies are validated$(head -c 300 "$T/err")"
is "$(wc -l <"$T/results" | tr -d ' ')" 24 "24 bodies checked"
while IFS="$(printf '\t')" read -r case want got why; do
	is "$got" "$want" "$case: $want against the spec${why:+ ($why)}"
done <"$T/results"
# Each spec's excerpt is closed: a field it does not define fails.
like "$(grep '^azure 2024-10-21 stream with stream_options' "$T/results")" \
	"Additional properties are not allowed \('stream_options' was unexpected\)" \
	"Azure 2024-10-21 does not define stream_options"
done_testing
