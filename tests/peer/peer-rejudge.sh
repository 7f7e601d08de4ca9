#!/bin/sh
# peer-rejudge.sh: a run against a real engine, llama.cpp's llama-server with a
# tiny random-weight model (tests/peer/peer-lib.sh; a visible SKIP where
# ../shared/peer is absent), judged again from its record alone: from the
# database (probe rejudge) and from its signed bundle on a machine that trusts
# only the signer's key and has no database of the signer's (verify --rejudge),
# after the server has been stopped. Real timings, real token counts and the
# engine's own status API are all answered from the record, so every probe
# re-derives its verdict, findings and numbers; a flipped verdict, re-signed,
# is named.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/peer/peer-lib.sh"

peer_require

peer_start 2 8192 || exit 1
peer_endpoint P --context 4096 --engine llama.cpp --engine-url "$PEER_URL" --engine-credential env:PEER_KEY_A
is "$rc" 0 "the endpoint on llama-server is added, with its engine"
run probe run P/e --yes --json --probe all
run_json=$out
is "$(printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)"] | join(" ")')" \
    "engine:pass echo:inconclusive oversize:pass sweep:pass canary:inconclusive errors:fail" \
    "the run's verdicts against llama-server"
peer_stop

want=$(printf '%s' "$run_json" | jq -r '.probes[] | "run 1 probe \(.name): re-derived (\(.verdict))"')
is "$(printf '%s\n' "$want" | grep -c 're-derived')" 6 "six probes to re-derive"
run probe rejudge 1
is "$rc" 0 "probe rejudge: exit 0 with the server stopped"
is "$out" "$want" "probe rejudge: every probe re-derived from the database's record"

"$AIVET" key generate --no-password >/dev/null
cp "$XDG_CONFIG_HOME/aivet/keys/aivet.pub" "$T/signer.pub"
run report P --out "$T/b"
is "$rc" 0 "the run's bundle is written"
auditor() {
	out=$(env XDG_CONFIG_HOME="$T/auditor" AIVET_DB="$T/auditor.db" "$AIVET" "$@" 2>"$T/stderr") && rc=0 || rc=$?
	errout=$(cat "$T/stderr")
}
auditor verify "$T/b" --pubkey "$T/signer.pub" --rejudge
is "$rc" 0 "verify --rejudge: exit 0 for the auditor"
is "$(printf '%s\n' "$out" | grep '^run ')" "$want" "verify --rejudge: every probe re-derived from the bundle alone"

rm -rf "$T/c" && cp -r "$T/b" "$T/c"
jq '(.probe_runs[0].results[] | select(.probe == "errors") | .verdict) = "pass" |
    .probe_runs[0].findings = [] | .findings = []' "$T/b/report.json" > "$T/c/report.json"
(cd "$T/c" && find . -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
"$AIVET" key sign "$T/c/SHA256SUMS" --trusted-comment "$(sed -n 3p "$T/b/SHA256SUMS.minisig" | cut -c18-)" >/dev/null
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "a flipped verdict, re-signed: exit 1"
like "$out" "run 1 probe errors: verdict differs: re-derived fail, recorded pass" "the flipped verdict is named"
done_testing
