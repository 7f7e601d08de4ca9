# tests/lib/probe-lib.sh: helpers for the probe tests. Source after lib.sh and
# sim-lib.sh. probe_setup registers vendor V with endpoint V/e pointing at
# the last simulator started, with tenants alice and bob (keys in env).

export PROBE_KEY_ALICE=sk-alice-0123456789abcdef PROBE_KEY_BOB=sk-bob-fedcba9876543210
PROBE_TENANTS="alice=$PROBE_KEY_ALICE,bob=$PROBE_KEY_BOB"

# probe_setup API CONTEXT [extra endpoint add options...]: a fresh database and endpoint V/e.
probe_setup() {
	_api=$1 _ctx=$2
	shift 2
	db_fresh
	_base="$SIM_URL/v1"
	[ "$_api" = anthropic ] && _base="$SIM_URL"
	"$AIVET" vendor add V >/dev/null &&
	"$AIVET" endpoint add V --name e --api "$_api" --url "$_base" --model aivet-sim-1 \
	    --context "$_ctx" --credential alice=env:PROBE_KEY_ALICE \
	    --credential bob=env:PROBE_KEY_BOB "$@" >/dev/null
}

# codes: the sorted, distinct finding codes of the run JSON in $out.
codes() {
	printf '%s' "$out" | jq -r '[.probes[].findings[].code] | unique | join(" ")'
}

# verdicts: "name:verdict ..." of the run JSON in $out.
verdicts() {
	printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)"] | join(" ")'
}

# q SQL: one value from the test database.
q() {
	sqlite3 "$AIVET_DB" "$1"
}

# per_probe: "name:verdict[CODE,CODE] ..." of the run JSON in $out.
per_probe() {
	printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)[\([.findings[].code] | sort | join(","))]"] | join(" ")'
}
# reason NAME: the reason of probe NAME.
reason() {
	printf '%s' "$out" | jq -r --arg n "$1" '.probes[] | select(.name == $n) | .reason'
}
# detail NAME FILTER: a jq filter over probe NAME's details.
detail() {
	printf '%s' "$out" | jq -c --arg n "$1" ".probes[] | select(.name == \$n) | .details | $2"
}
# run_probes: the default suite on V/e, as JSON.
run_probes() {
	run probe run V/e --yes --json "$@"
}
