#!/bin/sh
# tests/pg/pg-rejudge.sh: a run recorded on PostgreSQL (its exchanges written by
# the server's functions, its JSON stored as text the server keeps) judged again
# from the record: an auditor, who may read but not write, rejudges it with
# probe rejudge, and every probe is re-derived.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice audrey; do pg_login "$l"; done
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
as owner vendor add V
for g in alice:assessor audrey:auditor; do as owner db grant "${g%%:*}" "${g#*:}"; done
sim_start --context 8192 --tenants "$PROBE_TENANTS" --fault lose-middle || exit 1
as alice endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB
as alice probe run V/e --yes --json
want=$(printf '%s' "$out" | jq -r '.probes[] | "run 1 probe \(.name): re-derived (\(.verdict))"')
is "$(printf '%s\n' "$want" | tr '\n' ' ')" "run 1 probe echo: re-derived (pass) run 1 probe oversize: re-derived (pass) run 1 probe sweep: re-derived (fail) run 1 probe canary: re-derived (pass) run 1 probe errors: re-derived (pass) " \
	"alice's run: the sweep fails on the lost middle"
sim_stop
as audrey probe rejudge 1
is "$rc" 0 "the auditor's rejudge exits 0$errout"
is "$out" "$want" "every probe re-derived from the server's record"
done_testing
