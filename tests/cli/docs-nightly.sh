#!/bin/sh
# docs-nightly.sh: the nightly job of docs/ (aivet-nightly.sh, which the
# systemd service and the CI workflow run) against aivet-sim, three nights:
# a clean one, then one after the vendor's configuration changed, then a clean
# one with an incident notification overdue. Results,
# exit status, drift, valid SARIF, well-formed JUnit, signed bundles that
# verify, no secret anywhere; and the unit files and workflow parse.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
DOCS=$TESTS_SRCDIR/../docs

export ACME_KEY_A=sk-test-tenant-a-0123456789 ACME_KEY_B=sk-test-tenant-b-9876543210
sim_start --context 8192 --pool 8192 --tenants "a=$ACME_KEY_A,b=$ACME_KEY_B" || exit 1
GOOD=$SIM_URL
sim_start --context 8192 --pool 5324 --tenants "a=$ACME_KEY_A,b=$ACME_KEY_B" --fault disagg-placeholder || exit 1
BAD=$SIM_URL
run vendor add "Acme Health"
run endpoint add "Acme Health" --name prod --api openai --url "$GOOD/v1" --model aivet-sim-1 \
	--context 8192 --credential a=env:ACME_KEY_A --credential b=env:ACME_KEY_B
run key generate --no-password
is "$rc" 0 "a signing key"

nightly() {
	out=$(AIVET="$AIVET" AIVET_OUT="$T/out" AIVET_PROBES=echo,canary sh "$DOCS/aivet-nightly.sh" 2>"$T/nightly.err") &&
		rc=0 || rc=$?
	night=$(ls -d "$T"/out/* | tail -n 1)
}

nightly
is "$rc" 0 "night 1: a clean run exits 0"
is "$out" "aivet-nightly: results in $night (probe exit status 0)" "night 1: says where the results are"
is "$(cd "$night" && ls | tr '\n' ' ')" "aivet-junit.xml aivet.sarif bundle-Acme_Health drift.txt incidents-due.json probe-run.log report.log runs.json " \
	"night 1: SARIF, JUnit, drift, incident deadlines, logs, runs and a bundle per vendor"
is "$(jq -r '.clocks | length' "$night/incidents-due.json")" 0 "night 1: no incident deadline due"
is "$(jq -r '[length, .[0].endpoint, (.[0].compare_last == null)] | @csv' "$night/runs.json")" '1,"Acme Health/prod",true' \
	"night 1: one run, nothing to compare with yet"
is "$(cat "$night/drift.txt")" "" "night 1: no drift"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/sarif-schema-2.1.0.json" "$night/aivet.sarif" 2>&1)
is "$v" "0 errors" "night 1: the SARIF is valid"
run verify "$night/bundle-Acme_Health"
is "$rc" 0 "night 1: the signed bundle verifies"

sleep 1   # a new night's directory name
run endpoint edit "Acme Health/prod" --url "$BAD/v1"
nightly
is "$rc" 1 "night 2: a critical finding fails the job (exit 1)"
is "$(cat "$night/drift.txt")" "drift on Acme Health/prod: run 1 -> 2" "night 2: the drift is named"
is "$(jq -r '[.[0].compare_last.findings.new[].code] | join(" ")' "$night/runs.json")" \
	"LEAK_CROSS_TENANT PLACEHOLDER_SUBSTITUTION" "night 2: the new findings, against night 1"
is "$(python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
print(r.get("tests"), r.get("failures"), r.find("testsuite/testcase[@name=\"canary\"]/failure").get("type"))' "$night/aivet-junit.xml")" \
	"2 1 LEAK_CROSS_TENANT" "night 2: JUnit shows the failing probe"
is "$(jq -r '[.runs[0].results[].ruleId] | join(" ")' "$night/aivet.sarif")" \
	"LEAK_CROSS_TENANT PLACEHOLDER_SUBSTITUTION" "night 2: SARIF results"
run verify "$night/bundle-Acme_Health"
is "$rc" 0 "night 2: the bundle is written and verifies even though the job fails"
is "$(grep -rl -e "$ACME_KEY_A" -e "$ACME_KEY_B" "$T/out" "$AIVET_DB" | wc -l)" 0 \
	"no API key in any result, log, bundle or the database"

# Night 3: the vendor is clean again, but an incident's GDPR notice is overdue.
sleep 1
run endpoint edit "Acme Health/prod" --url "$GOOD/v1"
run incident open "Acme Health" --title "Disclosed exposure" --discovered "$(date -u -d '-5 days' +%Y-%m-%dT%H:%M:%SZ)" \
	--phi no --eu-data --vendor-sla none
nightly
is "$rc" 1 "night 3: an overdue incident notification fails the job (exit 1)"
is "$(jq -r '.clocks | map(.clock + " " + .state) | join(",")' "$night/incidents-due.json")" "gdpr-sa overdue" \
	"night 3: incidents-due.json names the clock"
like "$(cat "$T/nightly.err")" "incident notification clocks overdue or due soon" "night 3: and says so"

# Night 4, across hosts: a schedule queues the runs, a worker runs them, and the
# job only reports (AIVET_FROM_WORKERS): the same results, drift against night 3.
sleep 1
run endpoint edit "Acme Health/prod" --url "$BAD/v1"
run schedule add --all --every 24h --probe echo,canary
is "$rc:$out" "0:schedule 1: every endpoint every 24h" "night 4: a schedule of every endpoint, every 24 hours"
run worker --once --name host-b
is "$rc" 0 "night 4: a worker on another host runs what the schedule queued"
out=$(AIVET="$AIVET" AIVET_OUT="$T/out" AIVET_FROM_WORKERS=24h sh "$DOCS/aivet-nightly.sh" 2>"$T/nightly.err") &&
	rc=0 || rc=$?
night=$(ls -d "$T"/out/* | tail -n 1)
is "$rc" 1 "night 4: the workers' critical finding fails the job (exit 1)"
is "$(jq -r '[length, .[0].endpoint, .[0].compare_last.a.id, .[0].compare_last.b.id] | @csv' "$night/runs.json")" \
	"1,\"Acme Health/prod\",3,4" "night 4: the worker's run, compared with night 3's"
is "$(cat "$night/drift.txt")" "drift on Acme Health/prod: run 3 -> 4" "night 4: the drift is named"
is "$(jq -r '[.runs[0].results[].ruleId] | join(" ")' "$night/aivet.sarif")" \
	"LEAK_CROSS_TENANT PLACEHOLDER_SUBSTITUTION" "night 4: SARIF results of the worker's run"
run verify "$night/bundle-Acme_Health"
is "$rc" 0 "night 4: the bundle of the worker's run verifies"

# The scheduling files themselves.
vars=$(grep -ho 'AIVET_[A-Z_]*' "$DOCS/systemd/aivet-nightly.service" "$DOCS/systemd/aivet-worker.service" \
	"$DOCS/ci/github-actions-nightly.yml" | sort -u)
missing=""
for v in $vars; do
	grep -q "^#   $v\|, $v\|^#   .*$v" "$DOCS/aivet-nightly.sh" || grep -q "^.It Ev $v" "$TESTS_SRCDIR/../man/aivet.1" ||
		case $v in AIVET_SIGNING_KEY|AIVET_SIGNING_KEY_PASSWORD) ;; *) missing="$missing $v" ;; esac
done
is "$missing" "" "every AIVET_ variable the unit and workflow set is documented (script header or aivet(1))"
is "$(python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
steps = d["jobs"]["verify"]["steps"]
print(d[True]["schedule"][0]["cron"], sum("aivet-nightly.sh" in s.get("run", "") for s in steps),
      [s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact")][0])' \
	"$DOCS/ci/github-actions-nightly.yml")" "30 2 * * * 1 out/" \
	"the workflow parses: nightly, runs the job, keeps out/ as an artifact"
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$T/units"
	sed "s|^ExecStart=.*|ExecStart=$DOCS/aivet-nightly.sh|" "$DOCS/systemd/aivet-nightly.service" >"$T/units/aivet-nightly.service"
	cp "$DOCS/systemd/aivet-nightly.timer" "$T/units/"
	sed "s|^ExecStart=/usr/local/bin/aivet |ExecStart=$AIVET |" "$DOCS/systemd/aivet-worker.service" >"$T/units/aivet-worker.service"
	v=$(cd "$T/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no aivet-nightly.timer aivet-nightly.service \
		aivet-worker.service 2>&1)
	is "$v" "" "systemd-analyze verify finds nothing wrong with the service, timer and worker"
else
	_n=$((_n + 1)); echo "ok $_n - systemd unit check # SKIP systemd-analyze not installed"
fi
done_testing
