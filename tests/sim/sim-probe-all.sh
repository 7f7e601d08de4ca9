#!/bin/sh
# sim-probe-all.sh: "probe run --all" against two vendors on aivet-sim —
# one run per active endpoint, --vendor, the global concurrency limit
# shared among parallel runs, a per-vendor rate limit (measured from the
# recorded exchange times), the summary table, the worst exit status,
# --compare-last and the CI formats over several runs; a missing credential
# stops everything before anything is sent.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a KEY_B=key-b
sim_start --context 8192 --pool 8192 --tenants a=key-a,b=key-b || exit 1
GOOD=$SIM_URL
sim_start --context 8192 --pool 5324 --tenants a=key-a,b=key-b --fault disagg-placeholder || exit 1
BAD=$SIM_URL
run vendor add Acme
run vendor add Beta
run vendor add Idle
for n in prod eu; do
	run endpoint add Acme --name $n --api openai --url "$GOOD/v1" --model aivet-sim-1 --context 8192 \
		--credential a=env:KEY_A --credential b=env:KEY_B
done
run endpoint add Beta --name main --api openai --url "$BAD/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B
run endpoint add Beta --name old --api openai --url "$BAD/v1" --model aivet-sim-1 --context 8192
run endpoint archive Beta/old

# runs_of TEXT: the "run N on X: status" lines, token counts left out.
runs_of() {
	printf '%s\n' "$1" | grep -E '^(run [0-9]|[0-9]+ endpoints?,)' | sed 's/ (.* tokens in, .* out)$//'
}

run probe run --all --yes --probe echo,errors --parallel 1
is "$rc" 0 "--all: no finding at --fail-on high: exit 0"
is "$(runs_of "$out")" "3 endpoints, 1 at a time, 4 requests in flight each
run 1 on Acme/eu: completed
run 2 on Acme/prod: completed
run 3 on Beta/main: completed" \
	"every active endpoint once (not the archived one, nor the vendor without endpoints), in order"
is "$(printf '%s\n' "$out" | sed -n '/^  run  endpoint/,$p')" \
"  run  endpoint                     status            pass fail  inc  err findings  worst
    1  Acme/eu                      completed            2    0    0    0        0  -
    2  Acme/prod                    completed            2    0    0    0        0  -
    3  Beta/main                    completed            2    0    0    0        0  -" \
	"the summary table closes the output"

# Runs in parallel share the global limit; the rate limit paces each vendor.
run probe run --all --yes --probe echo,canary --concurrency 6 --parallel 2 --rate-limit 600 --compare-last
is "$rc" 1 "--all: a critical finding on one endpoint makes the exit status 1"
is "$(runs_of "$out" | sed 's/^run [4-6] on/run N on/')" "3 endpoints, 2 at a time, 3 requests in flight each, rate-limited per vendor
run N on Acme/eu: completed
run N on Acme/prod: completed
run N on Beta/main: completed" "two runs at a time, 3 requests in flight each: 6 in all"
like "$out" "no drift from run 3 to run [4-6] \(Beta/main\)
  not compared       canary: run 3 did not run it" \
	"--compare-last: Beta's leak is not called new against a run that never ran the canary; the canary is said to be not compared"
unlike "$out" "new finding" "--compare-last: no finding is new against runs of other probes"
like "$out" "no drift from run 1 to run [4-6] \(Acme/eu\)" "--compare-last: no drift on Acme/eu"
like "$(printf '%s\n' "$out" | tail -n 1)" '^    [4-6]  Beta/main                    completed            1    1    0    0        2  critical$' \
	"the summary names the worst finding"
# Requests per vendor at most 600 a minute, though two of Acme's runs went at once. The
# pacer hands out start slots 100 ms apart; an exchange records its start when its thread
# gets there, which on a busy machine may be any time later, so single gaps prove nothing
# and the span may lose what the first request was late by: one slot is allowed for that.
gaps=$(sqlite3 "$AIVET_DB" "WITH x AS (SELECT (julianday(x.started_at) * 86400000.0) AS t FROM exchange x
	JOIN probe_run r ON r.id = x.run_id JOIN endpoint e ON e.id = r.endpoint_id
	WHERE e.vendor_id = 1 AND r.id BETWEEN 4 AND 6),
	o AS (SELECT t, lag(t) OVER (ORDER BY t) AS p FROM x)
	SELECT CAST(max(t) - min(p) AS INTEGER) || ' ' || count(*)
	FROM o WHERE p IS NOT NULL")
set -- $gaps
ok "$([ "$2" -ge 10 ] && [ "$1" -ge $(( ($2 - 1) * 100 )) ] && echo 0 || echo 1)" \
	"rate limit: Acme's $2 gaps span $1 ms (at least ($2 - 1) x 100 ms: one slot for a late first start)"

# --vendor, and CI formats over several runs.
run probe run --all --vendor Acme --yes --probe echo --format junit
is "$rc" 0 "--all --vendor Acme --format junit: exit 0"
is "$(printf '%s' "$out" | python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.fromstring(sys.stdin.read())
print(r.get("tests"), r.get("failures"), " ".join(sorted(s.get("name") for s in r.findall("testsuite"))))')" \
	"2 0 Acme/eu Acme/prod" "JUnit: one well-formed suite per endpoint of the vendor"
like "$errout" "  run  endpoint" "with a machine format, the summary goes to stderr"
run probe run --all --yes --probe echo --format sarif
printf '%s\n' "$out" >"$T/all.sarif"
is "$(json '[.runs[].properties.endpoint] | join(" ")' <"$T/all.sarif")" "Acme/eu Acme/prod Beta/main" \
	"SARIF: one SARIF run per endpoint"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/sarif-schema-2.1.0.json" "$T/all.sarif" 2>&1)
is "$v" "0 errors" "and the log is valid SARIF 2.1.0"
run probe run --all --yes --probe echo --json --compare-last --vendor Beta
is "$(printf '%s' "$out" | json '[length, .[0].endpoint, .[0].compare_last.a.endpoint, .[0].compare_last.changed] | @csv')" \
	'1,"Beta/main","Beta/main",false' "--json: an array of runs, each with its compare_last"

# --compare-last on a single endpoint.
run endpoint add Acme --name fresh --api openai --url "$GOOD/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B
run probe run Acme/fresh --yes --probe echo --compare-last
first=$(sqlite3 "$AIVET_DB" "SELECT max(id) FROM probe_run")
is "$(printf '%s\n' "$out" | tail -n 1)" "no earlier completed run of this endpoint to compare run $first with" \
	"--compare-last: the first run of an endpoint has nothing to compare with"
run probe run Acme/fresh --yes --probe echo --compare-last --format sarif
is "$(printf '%s' "$out" | json '.runs[0].properties.endpoint'):$(printf '%s\n' "$errout" | tail -n 1)" \
	"Acme/fresh:no drift from run $first to run $((first + 1)) (Acme/fresh)" \
	"--compare-last --format sarif: the SARIF on stdout, the plan and the drift on stderr"
run probe run Acme/fresh --yes --probe echo --compare-last --json
is "$(printf '%s' "$out" | json '[.compare_last.a.id, .compare_last.b.id, .compare_last.changed] | @csv')" \
	"$((first + 1)),$((first + 2)),false" "--compare-last --json: the drift as compare_last"
run endpoint archive Acme/fresh

# Ctrl-C: the run in progress stops cleanly, the endpoints not reached are not started.
runs_before=$(sqlite3 "$AIVET_DB" "SELECT max(id) FROM probe_run")
"$AIVET" probe run --all --yes --probe echo --rate-limit 12 --parallel 1 >"$T/int.out" 2>"$T/int.err" &
pid=$!
# Interrupt once the first run is under way and has sent something (at one request
# every five seconds, it is then far from done, however slowly each look at the
# database comes back on a busy machine), however long the machine takes to get there.
i=0
while [ "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange x JOIN probe_run r ON r.id = x.run_id
	WHERE r.id > $runs_before AND r.status = 'running'" 2>/dev/null || echo 0)" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -INT "$pid"
wait "$pid" && rc=0 || rc=$?
is "$rc" 3 "Ctrl-C during --all: exit 3"
last=$(sqlite3 "$AIVET_DB" "SELECT max(id) FROM probe_run")
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM probe_run WHERE id = $last")" interrupted "the run in progress is interrupted"
is "$(sed -n '/^  run  endpoint/,$p' "$T/int.out" | tail -n 2)" "    -  Acme/prod                    not started: interrupted
    -  Beta/main                    not started: interrupted" "the summary says which endpoints were not reached"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM exchange WHERE run_id = $last AND evidence_id NOT IN (SELECT id FROM evidence)")" 0 \
	"every recorded exchange of the interrupted run has its evidence"

# Bad input changes nothing and sends nothing.
run endpoint add Acme --name nokey --api openai --url "$GOOD/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:NO_SUCH_KEY
before=$(db_snapshot)
runs_before=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")
run probe run --all --yes --probe echo
is "$rc" 2 "a missing credential stops --all"
is "$errout" "aivet: Acme/nokey: tenant 'a': credential env:NO_SUCH_KEY: the environment variable is not set" \
	"naming the endpoint and the credential"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM probe_run")" "$runs_before" "no run was started on any endpoint"
run endpoint archive Acme/nokey
run probe run Acme/prod --vendor Acme
is "$rc:$errout" "2:aivet: --vendor, --parallel and --rate-limit go with --all
usage: aivet probe run VENDOR/ENDPOINT [--probe NAME,...|all] [--depth verify|diagnose] [--concurrency N] [--budget-tokens N] [--budget-usd USD] [--max-prompt-tokens N] [--yes] [--dry-run] [--fail-on SEVERITY] [--max-response BYTES] [--timeout SECONDS] [--json] [--format text|json|junit|sarif] [--compare-last] | probe run --all [--vendor VENDOR] [--parallel N] [--rate-limit PER_MINUTE] [options]" \
	"--vendor without --all is refused"
run probe run --all Acme/prod
like "$rc:$errout" "^2:aivet: probe run --all takes no VENDOR/ENDPOINT" "--all with an endpoint is refused"
run probe run --all --vendor Idle --yes
is "$rc:$errout" "2:aivet: vendor 'Idle' has no active endpoints" "a vendor without endpoints"
run probe run --all --rate-limit 0
is "$rc:$errout" "2:aivet: --rate-limit: 0 is out of range (1 to 600000)" "--rate-limit range"
run probe run --all --dry-run --probe echo --vendor Beta
is "$rc" 0 "--all --dry-run exits 0"
is "$(printf '%s\n' "$out" | head -n 1; printf '%s\n' "$out" | tail -n 1)" "Beta/main: plan (at most):
1 endpoint, 1 at a time, 4 requests in flight each" "--dry-run prints every plan and sends nothing"
done_testing
