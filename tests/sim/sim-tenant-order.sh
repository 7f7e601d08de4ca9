#!/bin/sh
# sim-tenant-order.sh: an endpoint's credentials are one record read one way.
# "endpoint show" lists them by label; a probe run takes them as its tenants in
# the order they were added (the first added sends the run's first request, and
# the canary probe sends in that order), whatever their labels sort to; and the
# run's check before sending reads the same references, so a reference that
# does not resolve stops the run (or, with --all, every run) before anything
# is sent.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_ZULU=sk-zulu-0123456789abcdef KEY_ALPHA=sk-alpha-0123456789abcdef
sim_start --tenants "zulu=$KEY_ZULU,alpha=$KEY_ALPHA" || exit 1

run vendor add V
run endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential zz=env:KEY_ZULU --credential aa=env:KEY_ALPHA
is "$rc" 0 "an endpoint with two credentials, zz added first"
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -r '[.credentials[] | .label + "=" + .ref] | join(" ")')" \
	"aa=env:KEY_ALPHA zz=env:KEY_ZULU" "endpoint show lists them by label"

run probe run V/e --probe echo --yes
is "$rc" 0 "a probe run with both"
tenants=$(sqlite3 "$AIVET_DB" "SELECT tenant FROM exchange ORDER BY seq" | uniq | tr '\n' ' ')
is "$(sqlite3 "$AIVET_DB" "SELECT tenant FROM exchange ORDER BY seq LIMIT 1")" "zz" \
	"the run's first request is sent by the credential added first (zz), not the first by label"
like "$tenants" "^zz( |$)" "its requests begin with tenant zz ($tenants)"
is "$(grep -c 'tenant=zulu' "$SIM_LOG")" "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE tenant = 'zz'")" \
	"the simulator saw zz's key on each of zz's exchanges"
n=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE tenant = 'zz'")
ok "$([ "$n" -gt 0 ] && echo 0 || echo 1)" "zz sent at least one request ($n)"

# A reference that does not resolve stops the run before a byte is sent, and
# with --all, every run: the references of every endpoint are read first.
run endpoint add V --name f --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential b=env:KEY_B_UNSET
is "$rc" 0 "a second endpoint whose reference names a variable that is not set"
runs=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")
sent=$(wc -l < "$SIM_LOG")
run probe run --all --probe echo --yes
is "$rc" 2 "probe run --all is refused"
like "$errout" "V/f.*tenant 'b'.*KEY_B_UNSET" "naming the endpoint, the tenant and the reference ($errout)"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")" "$runs" "no run was recorded, V/e's neither"
is "$(wc -l < "$SIM_LOG")" "$sent" "and nothing reached the simulator"
run endpoint archive V/f
is "$rc" 0 "the second endpoint archived"

runs=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")
sent=$(wc -l < "$SIM_LOG")
unset KEY_ALPHA
run probe run V/e --probe echo --yes
is "$rc" 2 "a run whose credential aa does not resolve is refused"
like "$errout" "tenant 'aa'.*KEY_ALPHA" "naming the tenant and the reference ($errout)"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")" "$runs" "no run was recorded"
is "$(wc -l < "$SIM_LOG")" "$sent" "and nothing reached the simulator"

sim_stop
done_testing
