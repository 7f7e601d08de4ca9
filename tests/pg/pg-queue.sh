#!/bin/sh
# tests/pg/pg-queue.sh: the queue of probe runs on a PostgreSQL server shared
# by workers, as logins with aivet's roles. The roles write the queue and
# schedules only through aivet's functions. A schedule seen due by four
# workers at once is queued exactly once. Per-vendor limits hold across three
# workers, counted at aivet-sim (--log-timing): never more of a vendor's runs
# at once than --runs, never more requests in a second than --per-minute
# allows. (sim-queue.sh, also run here by on-pg/, kills a worker mid-run.)
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
pg_login alice
pg_login bob
pg_createdb fleet owner
as() {
	_l=$1
	shift
	"$AIVET" --db "$(pg_url fleet "$_l")" "$@"
}
q() { pg_sql -d fleet "$1"; }
as owner vendor add V0 >/dev/null &&
as owner db grant alice assessor >/dev/null &&
as owner db grant bob assessor >/dev/null
ok $? "alice and bob are assessors"
# Workers send what alice's endpoints name; bob may send her references.
mkdir -p "$XDG_CONFIG_HOME/aivet"
printf 'env:KEY_A alice\n' >"$XDG_CONFIG_HOME/aivet/credentials-allowed"
export KEY_A=key-a

sim_start --context 8192 --pool 8192 --tenants a=key-a --log-timing --prefill-us-per-token 300 || exit 1
SLOW_URL=$SIM_URL SLOW_LOG=$SIM_LOG
sim_start --context 8192 --pool 8192 --tenants a=key-a --log-timing || exit 1
FAST_URL=$SIM_URL FAST_LOG=$SIM_LOG
sim_start --context 8192 --pool 8192 --tenants a=key-a || exit 1
SCHED_URL=$SIM_URL
add() { # add VENDOR N URL
	as alice vendor add "$1" >/dev/null || return 1
	_i=1
	while [ "$_i" -le "$2" ]; do
		as alice endpoint add "$1" --name "e$_i" --api openai --url "$3/v1" --model aivet-sim-1 \
			--context 8192 --credential a=env:KEY_A >/dev/null || return 1
		_i=$((_i + 1))
	done
}
add Runs 4 "$SLOW_URL" && add Rate 3 "$FAST_URL" && add Sched 6 "$SCHED_URL"
ok $? "three vendors, thirteen endpoints"

# ---- the roles write the queue through aivet's functions only ----
run --db "$(pg_url fleet alice)" probe queue Sched/e1 --probe echo
is "$rc:$out" "0:queued run entry 1 for Sched/e1" "alice queues a run"
for sql in "INSERT INTO probe_queue (endpoint_id, options, plan, actor, queued_at) VALUES (1, '{}', '{}', 'alice', 'x')" \
	"UPDATE probe_queue SET status = 'done'" "UPDATE probe_queue SET worker = 'me', lease_until = '2999-01-01'" \
	"INSERT INTO probe_schedule (every_s, options, next_at, actor, created_at) VALUES (60, '{}', 'x', 'a', 'x')"; do
	msg=$(pg_psql_as alice fleet -c "$sql" 2>&1)
	like "$msg" "permission denied for table" "alice cannot write the queue herself: ${sql%% (*}"
done
msg=$(pg_psql_as alice fleet -c "SELECT aivet_queue_requeue(1, NULL, 'x')" 2>&1)
is "$msg" 0 "nor requeue an entry whose lease holds (none taken)"
is "$(q "SELECT status || ' ' || actor FROM probe_queue")" "queued alice" "the entry is alice's, still queued"
run --db "$(pg_url fleet bob)" worker --once --name b1
is "$rc" 0 "bob's worker runs it"
is "$(q "SELECT q.status || ' ' || q.worker || ' ' || q.login || ' ' || r.status || ' ' || r.actor FROM probe_queue q \
	JOIN probe_run r ON r.id = q.run_id")" "done b1 bob completed bob" \
	"the entry is done, by worker b1 as bob; the run is bob's and completed"

# ---- an idle worker wakes when work is queued (LISTEN/NOTIFY), not at its poll ----
"$AIVET" --db "$(pg_url fleet bob)" worker --name idle --poll 60000 >"$T/idle.out" 2>"$T/idle.err" &
idle=$!
# Idle: past its LISTEN, it has looked for work once (the count of queued
# entries ends each look) and waits on the connection.
n=0
while [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE usename = 'bob' AND state = 'idle' AND
	query = 'SELECT count(*) FROM probe_queue WHERE status = ''queued'''")" != 1 ] && [ "$n" -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
ok "$(test "$n" -lt 600; echo $?)" "the idle worker has looked for work and waits"
t0=$(date +%s)
as alice probe queue Sched/e2 --probe echo >/dev/null
n=0
while [ "$(q "SELECT status FROM probe_queue WHERE id = 2")" != done ] && [ "$n" -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
t1=$(date +%s)
is "$(q "SELECT status || ' ' || worker FROM probe_queue WHERE id = 2")" "done idle" \
	"the idle worker (polling once a minute) took and ran the entry"
ok "$(test $((t1 - t0)) -lt 30; echo $?)" "within $((t1 - t0)) s of its queueing: the NOTIFY woke it"
kill -TERM "$idle"
wait "$idle"
is "$?" 0 "SIGTERM stops the idle worker, exit 0"

# ---- a schedule seen due by four workers is queued once ----
i=1
while [ "$i" -le 6 ]; do
	as alice schedule add "Sched/e$i" --every 1h --probe echo >/dev/null || echo "# schedule $i not added"
	i=$((i + 1))
done
is "$(q "SELECT count(*) FROM probe_schedule WHERE status = 'active'")" 6 "six schedules, due now"
mkdir "$T/s" "$T/gate"
# The four meet the due schedules at once, however busy the machine: each,
# having read the six due, waits at AIVET_TEST_SCHEDULE_GATE until all four
# hold the list (gate.PID each), then they race to advance them.
for w in 1 2 3 4; do
	AIVET_TEST_SCHEDULE_GATE="$T/gate/g" "$AIVET" --db "$(pg_url fleet bob)" worker --once --name "s$w" \
	    --concurrency 2 >"$T/s/$w.out" 2>"$T/s/$w.err" &
	eval "spid$w=\$!"
done
n=0
while [ "$(ls "$T/gate" | wc -l)" -lt 4 ] && [ "$n" -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
is "$(ls "$T/gate" | wc -l | tr -d ' ')" 4 "the four workers hold the six due schedules before any writes"
: >"$T/gate/g"
for w in 1 2 3 4; do
	eval "wait \$spid$w"
	is "$?" 0 "worker s$w exits 0"
	sed 's/^/# /' "$T/s/$w.err" | head -5
done
is "$(q "SELECT count(*) FROM probe_queue WHERE schedule_id IS NOT NULL")" 6 "six entries queued, one per schedule"
is "$(q "SELECT count(DISTINCT schedule_id) FROM probe_queue WHERE schedule_id IS NOT NULL")" 6 "each schedule queued once"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.queue' AND details LIKE '%\"schedule\":%'")" 6 \
	"six probe.queue entries name their schedule"
is "$(q "SELECT count(*) FROM probe_queue q JOIN probe_run r ON r.id = q.run_id WHERE q.schedule_id IS NOT NULL \
	AND q.status = 'done' AND r.status = 'completed'")" 6 "and each ran once, completed"
raced=$(cat "$T"/s/*.out | sed -n 's/^schedules: \([0-9]*\) due, queued first by another worker$/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
is "$raced" 18 "each schedule advanced by one worker: the other three saw it due at once and queued nothing (6 x 3)"
is "$(q "SELECT count(*) FROM probe_schedule WHERE next_at > created_at")" 6 "each schedule's next time moved on"
as bob worker --once --name s5 >"$T/s/5.out"
is "$(q "SELECT count(*) FROM probe_queue WHERE schedule_id IS NOT NULL")" 6 "not due again: nothing more queued"

# ---- limits across workers, counted at the simulator ----
run --db "$(pg_url fleet alice)" probe limit Runs --runs 2
is "$rc:$out" "0:Runs: at most 2 runs at once across all workers
Runs: no limit of requests a minute" "alice limits vendor Runs to two runs at once"
run --db "$(pg_url fleet alice)" probe limit Rate --per-minute 300
is "$rc" 0 "and vendor Rate to 300 requests a minute"
is "$(q "SELECT count(*) FROM audit_log WHERE action = 'probe.limit'")" 2 "each limit has its audit entry"
as alice probe queue --all --vendor Runs --probe echo --concurrency 1 >/dev/null &&
	as alice probe queue --all --vendor Rate --probe echo --concurrency 1 >/dev/null
ok $? "seven runs queued"
for w in 1 2 3; do
	as bob worker --once --name "l$w" --concurrency 2 >"$T/s/l$w.out" 2>"$T/s/l$w.err" &
	eval "lpid$w=\$!"
done
# While a worker holds an entry under its lease, no one else can put it back.
n=0
held=""
while [ -z "$held" ] && [ "$n" -lt 200 ]; do
	held=$(q "SELECT id FROM probe_queue WHERE status = 'taken' AND run_id IS NOT NULL ORDER BY id LIMIT 1")
	[ -n "$held" ] || sleep 0.05
	n=$((n + 1))
done
ok "$(test -n "$held"; echo $?)" "a worker holds entry ${held:-?} (could not create the overlap otherwise)"
is "$(pg_psql_as alice fleet -c "SELECT aivet_queue_requeue(${held:-0}, NULL, 'x')" 2>&1)" 0 \
	"alice cannot requeue an entry whose lease holds"
for w in 1 2 3; do
	eval "wait \$lpid$w"
	is "$?" 0 "worker l$w exits 0"
done
is "$(q "SELECT status FROM probe_queue WHERE id = ${held:-0}")" done "that entry was done by its worker, not requeued"
is "$(q "SELECT count(*) FROM probe_queue q JOIN endpoint e ON e.id = q.endpoint_id JOIN vendor v ON v.id = e.vendor_id \
	JOIN probe_run r ON r.id = q.run_id WHERE v.name IN ('Runs', 'Rate') AND r.status = 'completed'")" 7 \
	"all seven runs completed"
most=$(sed -n 's/.* inflight=\([0-9]*\)$/\1/p' "$SLOW_LOG" | sort -n | tail -1)
nslow=$(grep -c ' inflight=' "$SLOW_LOG")
ok "$(test "$nslow" -ge 8; echo $?)" "vendor Runs received $nslow requests"
is "$most" 2 "at most two of vendor Runs's requests were ever in hand at once (one a run): the limit held, and was reached"
# Requests a second: 300 a minute is one each 200 ms, so any second holds at most 6
# (5 slots, and the next one's send when its wait ends in the same second).
sed -n 's/.* at=\([0-9]*\) inflight=.*/\1/p' "$FAST_LOG" | sort -n >"$T/at"
nfast=$(wc -l <"$T/at" | tr -d ' ')
ok "$(test "$nfast" -ge 12; echo $?)" "vendor Rate received $nfast requests"
peak=$(awk '{ t[NR] = $1 } END { m = 0; j = 1; for (i = 1; i <= NR; i++) { while (t[i] - t[j] >= 1000) j++;
	if (i - j + 1 > m) m = i - j + 1 } print m }' "$T/at")
ok "$(test "$peak" -le 6; echo $?)" "vendor Rate got at most 6 requests in any second across three workers (got $peak)"
span=$(awk 'NR == 1 { a = $1 } { b = $1 } END { print b - a }' "$T/at")
ok "$(test "$span" -ge $(( (nfast - 1) * 200 - 200 )); echo $?)" \
	"its $nfast requests took ${span} ms: paced at 200 ms each, whichever worker sent them"
run --db "$(pg_url fleet owner)" audit verify
is "$rc" 0 "audit verify passes"
like "$out" "audit chain intact" "the chain is intact"
done_testing
