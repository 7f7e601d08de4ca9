#!/bin/sh
# aivet-nightly.sh: the nightly verification job that the systemd timer
# (docs/systemd/) and the CI workflow (docs/ci/) run. It probes every active
# endpoint once, compares each run with that endpoint's previous run, writes
# SARIF and JUnit for the CI system, and a signed report bundle per vendor
# that an auditor can verify with stock tools. Credentials come from the
# environment (the endpoints hold env:VAR references), never from this file.
#
# Environment:
#   AIVET_OUT        directory that keeps the results (required); each night
#                    gets a subdirectory named after the UTC time
#   AIVET            the aivet binary (default: aivet on PATH)
#   AIVET_PROBES     probes to run (default: all,prefix-timing); "all" holds the
#                    engine probe on every endpoint with an engine (endpoint
#                    --engine-url): each node's pool and context read from the
#                    engine itself, no prompt, 0 tokens, one GET per node
#   AIVET_DEPTH      verify (default: each invariant checked where it breaks, at
#                    a fraction of the tokens) or diagnose (adds the boundary
#                    searches: run it after a failure, or to track boundaries)
#   AIVET_FAIL_ON    severity that fails the job (default: high)
#   AIVET_KEY        signing key name for the bundles (default: aivet's default key)
#   AIVET_NOTIFY_URLS  webhook URLs (Slack, Teams, any JSON receiver), space
#                    separated, that get the incident notification clocks
#                    overdue or due within AIVET_DUE_WITHIN (default: 7d)
#   AIVET_FROM_WORKERS  a duration (24h): probe nothing here, and report the
#                    runs that workers (aivet worker, on any number of hosts,
#                    docs/systemd/aivet-worker.service) finished within it, as
#                    queued by a schedule ("aivet schedule add --all --every
#                    24h"); drift is each run against its endpoint's run before
#   AIVET_KEY_PASSWORD_FILE, AIVET_DB, AIVET_ACTOR: as in aivet(1)
#
# Exit status: that of "aivet probe run --all" (0 clean, 1 a finding at or
# above AIVET_FAIL_ON, 3 a probe or run failed), unless writing the reports
# or posting to a webhook failed (3); 1 also when an incident's notification
# clock is overdue or due soon ("aivet incident due", kept in
# incidents-due.json). The results are written either way, so keep them as
# artifacts even when the job fails.
set -u
aivet=${AIVET:-aivet}
out=${AIVET_OUT:?set AIVET_OUT to the directory that keeps the results}
probes=${AIVET_PROBES:-all,prefix-timing}
depth=${AIVET_DEPTH:-verify}
fail_on=${AIVET_FAIL_ON:-high}
night="$out/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$night" || exit 3

# The runs workers finished within AIVET_FROM_WORKERS, into runs.json as "probe run
# --all --json" writes it (compare_last: the diff from the endpoint's run before),
# and rc: 1 when one has a finding at or above AIVET_FAIL_ON, 3 when one did not complete.
from_workers() {
	since=$(date -u -d "-$(printf '%s' "$AIVET_FROM_WORKERS" | sed 's/h$/ hours/; s/d$/ days/; s/m$/ minutes/')" \
		+%Y-%m-%dT%H:%M:%S) || return 1
	"$aivet" probe runs --json >"$night/all-runs.json" 2>"$night/probe-run.log" || return 1
	ids=$(jq -r --arg s "$since" '.[] | select(.id != null and .worker != null and .status != "running" and
		.started_at >= $s) | .id' "$night/all-runs.json")
	rc=0
	printf '[' >"$night/runs.json"
	sep=
	for id in $ids; do
		prev=$(jq -r --argjson id "$id" '(map(select(.id == $id))[0].endpoint) as $e |
			[.[] | select(.id != null and .id < $id and .endpoint == $e)] | last | .id // empty' "$night/all-runs.json")
		"$aivet" probe show "$id" --json >"$night/run.json" 2>>"$night/probe-run.log" || return 1
		if [ -n "$prev" ]; then
			"$aivet" probe diff "$prev" "$id" --json >"$night/diff.json" 2>>"$night/probe-run.log"
			[ $? -le 1 ] || return 1
		else
			echo null >"$night/diff.json"
		fi
		printf '%s' "$sep" >>"$night/runs.json"
		jq -c --slurpfile d "$night/diff.json" '. + {compare_last: $d[0]}' "$night/run.json" >>"$night/runs.json"
		sep=,
	done
	printf ']\n' >>"$night/runs.json"
	rm -f "$night/run.json" "$night/diff.json" "$night/all-runs.json"
	# The job's status as "probe run --all" would give it, from each run's findings.
	# shellcheck disable=SC2086 # one argument per run id
	[ -z "$ids" ] || "$aivet" probe show $ids --fail-on "$fail_on" >/dev/null 2>>"$night/probe-run.log"
	case $? in 0) ;; 1) rc=1 ;; *) [ "$rc" = 0 ] && rc=3 ;; esac
	return 0
}

if [ -n "${AIVET_FROM_WORKERS:-}" ]; then
	from_workers || exit 3
else
	# Every endpoint, one run each; the drift from the previous night goes into
	# runs.json ("compare_last") and, readable, into the log.
	"$aivet" probe run --all --yes --probe "$probes" --depth "$depth" --fail-on "$fail_on" --compare-last --json \
		>"$night/runs.json" 2>"$night/probe-run.log"
	rc=$?
fi
ids=$(jq -r '.[].id' "$night/runs.json" 2>/dev/null)
if [ -z "$ids" ]; then
	echo "aivet-nightly: no run was made; see $night/probe-run.log" >&2
	exit 3
fi
# shellcheck disable=SC2086 # one argument per run id
"$aivet" probe show $ids --format sarif >"$night/aivet.sarif" &&
	"$aivet" probe show $ids --format junit >"$night/aivet-junit.xml" || rc=3
jq -r '.[] | select(.compare_last != null and .compare_last.changed) |
	"drift on \(.endpoint): run \(.compare_last.a.id) -> \(.id)"' "$night/runs.json" >"$night/drift.txt"

# One signed bundle per vendor with this night's runs.
jq -r 'group_by(.endpoint | split("/")[0])[] |
	[(.[0].endpoint | split("/")[0]), (map(.id | tostring) | join(","))] | @tsv' "$night/runs.json" |
while IFS="$(printf '\t')" read -r vendor runs; do
	dir="$night/bundle-$(printf '%s' "$vendor" | tr -c 'A-Za-z0-9._-' '_')"
	# shellcheck disable=SC2086 # --key NAME only when a key was named
	"$aivet" report "$vendor" --out "$dir" --runs "$runs" ${AIVET_KEY:+--key "$AIVET_KEY"} \
		>>"$night/report.log" 2>&1 || { echo "aivet-nightly: report for $vendor failed" >&2; exit 3; }
done || rc=3

# Deadlines reach people: the clocks overdue or due soon, posted to each webhook.
notify=
for u in ${AIVET_NOTIFY_URLS:-}; do notify="$notify --notify-url $u"; done
# shellcheck disable=SC2086 # one --notify-url per URL
"$aivet" incident due --within "${AIVET_DUE_WITHIN:-7d}" --json $notify >"$night/incidents-due.json"
case $? in
0) ;;
1) [ "$rc" = 0 ] && rc=1; echo "aivet-nightly: incident notification clocks overdue or due soon" >&2 ;;
*) rc=3 ;;
esac
echo "aivet-nightly: results in $night (probe exit status $rc)"
exit "$rc"
