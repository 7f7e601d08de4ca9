#!/bin/sh
# sim-queue.sh: probe runs queued in the database and run by workers
# (aivet worker) against aivet-sim. Queueing plans each endpoint and keeps its
# options and budget; bad input queues nothing. Two worker processes with
# --once share twelve entries: every entry is done once, each endpoint has
# exactly one completed run, each run names its worker, and the audit chain
# verifies. A worker killed with SIGKILL mid-run loses its lease: its run is
# interrupted with its exchanges kept and the endpoint is queued again and
# completed by another worker. A schedule whose endpoint was archived queues
# the others and says so. A worker whose stdout no one reads runs on. tests/pg/on-pg/sim-queue.sh runs it on a PostgreSQL
# server.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a
sim_start --context 8192 --pool 8192 --tenants a=key-a --prefill-us-per-token 300 || exit 1
q() { sqlite3 "$AIVET_DB" "$1"; }
for v in Acme Beta Gamma; do
	run vendor add $v
	for n in e1 e2 e3 e4; do
		run endpoint add $v --name $n --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
			--context 8192 --credential a=env:KEY_A
	done
done
is "$(q "SELECT count(*) FROM endpoint")" 12 "twelve endpoints"

# ---- queueing ----
before=$(db_snapshot)
run probe queue Acme/e1 Acme/nope --probe echo
is "$rc:$errout" "2:aivet: unknown endpoint 'Acme/nope' (see 'aivet endpoint list')" \
	"an unknown endpoint is named and nothing is queued"
is "$(db_snapshot)" "$before" "the database is unchanged"
run probe queue Acme/e1 --probe nosuch
is "$rc" 2 "an unknown probe is refused before anything is queued"
like "$errout" "nosuch" "the refusal names the probe"
is "$(db_snapshot)" "$before" "the database is unchanged"
run probe queue Acme/e1 --all
is "$rc:$(printf '%s' "$errout" | head -1)" "2:aivet: probe queue --all takes no VENDOR/ENDPOINT" \
	"--all with an endpoint is a usage error"

run probe queue --all --probe echo --budget-tokens 90000 --concurrency 1
is "$rc" 0 "probe queue --all exits 0"
is "$out" "$(i=0; for v in Acme Beta Gamma; do for n in e1 e2 e3 e4; do i=$((i + 1))
	echo "queued run entry $i for $v/$n"; done; done)" "it names the twelve entries, each with its endpoint"
is "$(q "SELECT count(*) FROM probe_queue WHERE status = 'queued'")" 12 "twelve entries queued"
is "$(q "SELECT DISTINCT json_extract(options, '\$.budget_tokens') || ' ' || json_extract(options, '\$.probes') \
	|| ' ' || json_extract(options, '\$.concurrency') FROM probe_queue")" "90000 echo 1" \
	"each keeps its budget, probes and concurrency"
is "$(q "SELECT count(*) FROM probe_queue WHERE json_extract(plan, '\$.requests') > 0 AND \
	json_extract(plan, '\$.probes[1].name') = 'echo'")" 12 "each keeps its plan"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.queue' AND object_type = 'probe_queue'")" 12 \
	"each queueing has its audit entry"
run probe runs --json
is "$(printf '%s' "$out" | jq -r '[.[] | select(.status == "queued")] | length')" 12 \
	"probe runs lists the queued entries"

# ---- workers ----
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then W=3; else W=2; fi
mkdir "$T/w"
# The last worker starts first, and is killed once it is recording a run's
# exchanges (the others start then: on a loaded machine they could otherwise
# take every entry before it starts).
victim=$W
"$AIVET" worker --once --name "w$victim" --lease 6 >"$T/w/$victim.out" 2>"$T/w/$victim.err" &
vpid=$!
n=0
while [ "$n" -lt 1200 ]; do
	r=$(q "SELECT q.run_id FROM probe_queue q WHERE q.worker = 'w$victim' AND q.status = 'taken' AND \
		(SELECT count(*) FROM exchange x WHERE x.run_id = q.run_id) > 0")
	[ -n "$r" ] && break
	sleep 0.05
	n=$((n + 1))
done
i=1
while [ "$i" -lt "$W" ]; do
	"$AIVET" worker --once --name "w$i" --lease 30 >"$T/w/$i.out" 2>"$T/w/$i.err" &
	eval "wpid$i=\$!"
	i=$((i + 1))
done
ok "$(test -n "$r"; echo $?)" "worker w$victim is recording run ${r:-?} (could not create the overlap otherwise)"
kill -9 "$vpid"
wait "$vpid" 2>/dev/null
killed_run=$r
# Its process is gone, but the run is the lease's to settle: a worker's process
# may be on another host, where its id means nothing here.
run probe runs --json
is "$(printf '%s' "$out" | jq -r "[.[] | select(.id == $killed_run)][0] | .status + \" \" + .worker + \" \" +
	(.lease_until | test(\"^20[0-9-]+T[0-9:.]+Z\$\") | tostring)")" "running w$victim true" \
	"right after the kill, probe runs shows the run running, its worker and its lease"
run probe runs
like "$out" "[A-Za-z]+/e[0-9] +running .*, worker w$victim, lease until 20" "the text names them too"
kept=$(q "SELECT count(*) FROM exchange WHERE run_id = $killed_run")
# Its last lease, which no one renews now (read before any worker may requeue it).
lease=$(q "SELECT lease_until FROM probe_queue WHERE run_id = $killed_run AND status = 'taken'")
like "$lease" '^20[0-9-]+T[0-9:.]+Z$' "the killed worker's entry is still taken, under its lease"
i=1
while [ "$i" -lt "$W" ]; do
	eval "wait \$wpid$i"
	is "$?" 0 "worker w$i exits 0 when nothing is left to take"
	sed 's/^/# w'"$i"': /' "$T/w/$i.err"
	i=$((i + 1))
done
# The killed worker's lease (6 s) runs out: a worker still running, or one
# started after it, finds it gone and queues the entry again. Waits until the
# clock is past that lease (its text sorts as time does).
n=0
while awk -v now="$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" -v lease="$lease" 'BEGIN { exit !(now <= lease) }' &&
    [ "$n" -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
run worker --once --name w9
is "$rc:$errout" "0:" "a later worker exits 0"
cat "$T"/w/*.out >"$T/all.out"
printf '%s\n' "$out" >>"$T/all.out"
is "$(grep -c 'lease ran out, queued again' "$T/all.out")" 1 "one worker found the lease gone and queued the entry again"
is "$(q "SELECT status FROM probe_run WHERE id = $killed_run")" interrupted "the killed run is interrupted"
is "$(q "SELECT count(*) FROM exchange WHERE run_id = $killed_run")" "$kept" \
	"its $kept recorded exchanges are kept"
is "$(q "SELECT count(*) FROM probe_queue WHERE status = 'requeued'")" 1 "its entry is requeued"
is "$(q "SELECT count(*) FROM probe_queue WHERE status = 'done'")" 12 "twelve entries done"
is "$(q "SELECT count(*) FROM probe_queue WHERE status IN ('queued', 'taken')")" 0 "none left"
is "$(q "SELECT count(*) FROM probe_run WHERE status = 'completed'")" 12 "twelve runs completed"
# When not, what the entries that ended without a completed run say, and the workers' lines.
q "SELECT 'entry ' || q.id || ': run ' || coalesce(q.run_id, 0) || ' ' || coalesce(r.status, '-') || ' ' ||
	coalesce(q.error, '') FROM probe_queue q LEFT JOIN probe_run r ON r.id = q.run_id
	WHERE q.status = 'done' AND (r.status IS NULL OR r.status <> 'completed')" | sed 's/^/# /'
[ "$(q "SELECT count(*) FROM probe_run WHERE status = 'completed'")" = 12 ] || cat "$T"/w/*.out "$T"/w/*.err 2>/dev/null | sed 's/^/# /' | head -40
is "$(q "SELECT count(*) FROM endpoint e WHERE (SELECT count(*) FROM probe_run r WHERE r.endpoint_id = e.id AND \
	r.status = 'completed') = 1")" 12 "every endpoint completed exactly once"
is "$(q "SELECT count(*) FROM probe_queue q JOIN probe_run r ON r.id = q.run_id WHERE q.status = 'done' \
	AND r.status = 'completed' AND q.worker IS NOT NULL")" 12 "each done entry names its worker and its run"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.interrupted' AND object_id = $killed_run")" 1 \
	"the interruption has its audit entry"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.requeue'")" 1 "so has the requeueing"
run probe runs --json
is "$(printf '%s' "$out" | jq -r "[.[] | select(.id == $killed_run)][0] | .status + \" \" + .worker")" \
	"interrupted w$victim" "probe runs --json: the killed run, interrupted, with its worker"
# ---- a vendor's limit of runs at once, across worker processes ----
run probe limit Beta --runs 1
is "$rc" 0 "Beta: one run at once"
run probe queue --all --vendor Beta --probe echo --concurrency 1
is "$rc:$out" "0:queued run entry 14 for Beta/e1
queued run entry 15 for Beta/e2
queued run entry 16 for Beta/e3
queued run entry 17 for Beta/e4" "Beta's four endpoints queued, each entry named with its endpoint"
for i in 1 2; do
	"$AIVET" worker --once --name "l$i" --concurrency 2 >"$T/w/l$i.out" 2>"$T/w/l$i.err" &
	eval "lpid$i=\$!"
done
for i in 1 2; do
	eval "wait \$lpid$i"
	is "$?" 0 "worker l$i exits 0 once Beta's queue is empty"
done
is "$(q "SELECT count(*) FROM probe_queue q JOIN endpoint e ON e.id = q.endpoint_id JOIN vendor v ON v.id = e.vendor_id \
	WHERE v.name = 'Beta' AND q.worker IN ('l1', 'l2') AND q.status = 'done'")" 4 "all four done by the two workers"
is "$(q "SELECT count(*) FROM probe_queue a JOIN probe_queue b ON a.id < b.id JOIN endpoint ea ON ea.id = a.endpoint_id \
	JOIN endpoint eb ON eb.id = b.endpoint_id JOIN vendor v ON v.id = ea.vendor_id AND v.id = eb.vendor_id \
	WHERE v.name = 'Beta' AND a.worker IN ('l1', 'l2') AND b.worker IN ('l1', 'l2') \
	AND a.taken_at < b.finished_at AND b.taken_at < a.finished_at")" 0 \
	"no two of Beta's runs were taken at once: each was taken after the one before was done"

# ---- a schedule whose endpoint no longer plans ----
run schedule add Gamma/e1 --every 1h --probe echo
is "$rc:$out" "0:schedule 1: Gamma/e1 every 1h" "a schedule, due now, said in words"
run schedule add Gamma/e2 --every 1h --probe echo --json
is "$rc:$out" "0:[2]" "schedule add --json: the new schedule's id, for scripts"
run endpoint archive Gamma/e2
run worker --once --name w5
is "$rc" 0 "a worker queues and runs what is due"
is "$(printf '%s\n' "$out" | grep '^schedules:')" "schedules: 1 run queued
schedules: 1 endpoint left out: schedule 2: endpoint 'Gamma/e2' is archived" \
	"it says which endpoint it left out, and why, and queues the other"
is "$(q "SELECT count(*) FROM probe_queue WHERE schedule_id IS NOT NULL AND status = 'done'")" 1 "that run is done"
is "$(q "SELECT count(*) FROM probe_schedule WHERE next_at > created_at")" 2 "both schedules moved on"

# ---- a worker whose reader is gone ----
# Its stdout a pipe no one reads, SIGPIPE at its default (python ignores it
# for itself: put back before the exec): the worker's lines are lost, not the
# worker. The library leaves SIGPIPE to the program; the worker ignores it.
run probe queue Gamma/e3 --probe echo --concurrency 1
is "$rc" 0 "one more run queued"
python3 -c 'import os, signal, sys
r, w = os.pipe()
os.close(r)
os.dup2(w, 1)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$AIVET" worker --once --name wpipe 2>"$T/w/pipe.err"
is "$?:$(cat "$T/w/pipe.err")" "0:" "a worker whose stdout no one reads exits 0, without a word"
is "$(q "SELECT q.status || ' ' || r.status FROM probe_queue q JOIN probe_run r ON r.id = q.run_id \
	WHERE q.worker = 'wpipe'")" "done completed" "and its run is completed"

run audit verify
is "$rc" 0 "audit verify passes"
like "$out" "audit chain intact" "the chain is intact"
done_testing
