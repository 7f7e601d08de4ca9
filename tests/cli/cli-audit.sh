#!/bin/sh
# cli-audit.sh: "aivet audit verify" against edits made behind aivet's
# back with the sqlite3 shell — refused by the triggers, and caught by the
# hash chain even when the triggers are dropped. Every evidentiary row (a
# real probe run against aivet-sim, a final assessment, incident entries, a
# report) is sealed by the audit entry that recorded it: each attack is
# tried with the triggers in place (refused) and with them dropped (named by
# 'audit verify', exit 1).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

"$AIVET" vendor add Acme >/dev/null
"$AIVET" vendor add Beta >/dev/null
"$AIVET" vendor edit Acme --criticality 4 >/dev/null
"$AIVET" endpoint add Acme --name prod --api openai --url https://a.example --model m --context 100 >/dev/null

head=$(sqlite3 "$AIVET_DB" 'SELECT entry_hash FROM audit_log WHERE seq = 4')
run audit verify
is "$rc" 0 "intact chain exits 0"
is "$out" "audit chain intact: 4 entries, head $head" "intact message"
run audit verify --json
is "$(printf '%s' "$out" | json '[.intact, .entries, .head] | @csv')" "true,4,\"$head\"" "json verify"

err=$(sqlite3 "$AIVET_DB" "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2" 2>&1)
like "$err" "the audit log is append-only" "sqlite3 UPDATE refused by the trigger"
err=$(sqlite3 "$AIVET_DB" "DELETE FROM audit_log" 2>&1)
like "$err" "the audit log is append-only" "sqlite3 DELETE refused by the trigger"

cp "$AIVET_DB" "$T/good.db"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor = 'mallory' WHERE seq = 2"
run audit verify
is "$rc" 1 "tampered chain exits 1"
is "$errout" "aivet: audit chain broken: entry 2: contents do not match its entry_hash (edited after it was written)" \
	"names the first bad entry"
run audit verify --json
is "$(printf '%s' "$out" | json '[.intact, .entries, .first_bad_entry] | @csv')" "false,1,2" "json names it too"

cp "$T/good.db" "$AIVET_DB"; rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 3"
run audit verify
is "$errout" "aivet: audit chain broken: entry 3 is missing (next entry is 4)" "a deleted entry is found"

# Changing the data itself (not the log) leaves the log's record of what was written.
cp "$T/good.db" "$AIVET_DB"; rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"
sqlite3 "$AIVET_DB" "UPDATE vendor SET criticality = 0 WHERE name = 'Acme'"
run audit log --json
is "$(printf '%s' "$out" | json '[.[] | select(.action == "vendor.edit") | .details.criticality] | @csv')" 4 \
	"the log keeps what aivet wrote"

# ---- every evidentiary row is sealed ----
export AIVET_DB="$T/sealed.db" KEY_A=key-a KEY_B=key-b
sim_start --context 8192 --pool 8192 --tenants a=key-a,b=key-b --fault error-200 || exit 1
"$AIVET" vendor add Beta >/dev/null
"$AIVET" endpoint add Beta --name main --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
run probe run Beta/main --probe oversize,errors --yes
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(probe || '=' || verdict) FROM probe_result; SELECT code || ' ' || severity FROM finding")" \
	"oversize=fail,errors=pass
ERROR_IN_200 medium" "a real run: a failed probe, a passed one, a medium finding"
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start Beta scoring-test >/dev/null
"$AIVET" assess answer 1 gate yes >/dev/null
"$AIVET" assess answer 1 notify 5d >/dev/null
"$AIVET" assess answer 1 detail fine >/dev/null
"$AIVET" assess submit 1 >/dev/null
approver_key bob
run --actor bob assess approve 1
is "$rc" 0 "a final assessment"
"$AIVET" incident open Beta --title leak --discovered 2026-03-02T09:00:00Z >/dev/null
"$AIVET" incident note 1 "the vendor was told" >/dev/null
"$AIVET" key generate --no-password >/dev/null
run report Beta --out "$T/bundle"
is "$rc" 0 "a report"
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(DISTINCT object_type) FROM (SELECT object_type FROM audit_log WHERE row_hash IS NOT NULL ORDER BY seq)")" \
	"vendor,endpoint,probe_run,evidence,probe_result,finding,questionnaire,assessment,incident,incident_entry,report" \
	"entries about vendors, endpoints, runs, exchanges' evidence, results, findings, questionnaires, assessments, incidents, incident entries and reports carry row_hash"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE row_hash IS NULL AND object_type IN ('vendor', 'endpoint', 'probe_run', 'evidence', 'probe_result', 'finding', 'questionnaire', 'assessment', 'incident', 'incident_entry', 'report')")" \
	0 "every one of them"
run audit verify
is "$rc" 0 "the sealed database verifies"
cp "$AIVET_DB" "$T/sealed-good.db"

# newest SQL-WHERE: the newest audit entry about an object
newest() { sqlite3 "$T/sealed-good.db" "SELECT max(seq) FROM audit_log WHERE $1"; }
drop_triggers() {
	sqlite3 "$AIVET_DB" "SELECT 'DROP TRIGGER ' || name || ';' FROM sqlite_master WHERE type = 'trigger'" |
		sqlite3 "$AIVET_DB"
}
fresh() { rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/sealed-good.db" "$AIVET_DB"; }
# restore_triggers: the triggers put back as they were (the schema is checked too).
restore_triggers() {
	sqlite3 "$T/sealed-good.db" "SELECT sql || ';' FROM sqlite_master WHERE type = 'trigger'" | sqlite3 "$AIVET_DB"
}

# attack NAME SQL TRIGGER-MESSAGE VERIFY-PROBLEM
attack() {
	fresh
	snap=$(db_snapshot)
	msg=$(sqlite3 "$AIVET_DB" "$2" 2>&1)
	like "$msg" "$3" "$1: refused by a trigger"
	is "$(db_snapshot)" "$snap" "$1: nothing changed"
	fresh
	drop_triggers
	msg=$(sqlite3 "$AIVET_DB" "$2" 2>&1)
	is "$msg" "" "$1: done once the triggers are dropped"
	run audit verify
	is "$rc:$errout" "1:aivet: audit chain broken: $4" "$1: named by audit verify (the row is sealed)"
}

f=$(newest "object_type = 'finding' AND object_id = 1")
attack "UPDATE finding SET severity" "UPDATE finding SET severity = 'info' WHERE id = 1" \
	"findings are immutable" "finding 1 does not match audit entry $f: edited after it was recorded"
attack "INSERT OR REPLACE a finding" \
	"INSERT OR REPLACE INTO finding (id, run_id, probe, code, severity, message) VALUES (1, 1, 'oversize', 'ERROR_IN_200', 'info', 'fine')" \
	"findings are immutable" "finding 1 does not match audit entry $f: edited after it was recorded"
attack "DELETE a finding" "DELETE FROM finding WHERE id = 1" \
	"findings are immutable" "finding 1 (audit entry $f) is missing: removed after it was recorded"
attack "DELETE a finding's evidence link" "DELETE FROM finding_evidence WHERE finding_id = 1" \
	"findings are immutable" "finding 1 does not match audit entry $f: edited after it was recorded"
# A new row is not refused (nothing distinguishes it from aivet's own), but nothing seals it.
fresh
sqlite3 "$AIVET_DB" "INSERT INTO finding (run_id, probe, code, severity, message) VALUES (1, 'errors', 'X', 'info', 'x')"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding 2 has no audit entry: added behind aivet's back" \
	"INSERT a finding with sqlite3: named by audit verify (no entry seals it)"
r=$(newest "object_type = 'probe_result' AND object_id = 1")
attack "UPDATE probe_result SET verdict" "UPDATE probe_result SET verdict = 'pass' WHERE id = 1" \
	"probe results are immutable" "probe result 1 does not match audit entry $r: edited after it was recorded"
attack "INSERT OR REPLACE a probe result" \
	"INSERT OR REPLACE INTO probe_result (run_id, probe, verdict, requests) VALUES (1, 'oversize', 'pass', 4)" \
	"probe results are immutable" "probe result 1 (audit entry $r) is missing: removed after it was recorded"
p=$(newest "object_type = 'probe_run' AND object_id = 1")
attack "UPDATE a finished probe_run" "UPDATE probe_run SET tokens_in = 1 WHERE id = 1" \
	"finished probe runs are read-only" "probe run 1 does not match audit entry $p: edited after it was recorded"
e=$(newest "object_type = 'evidence' AND object_id = 3")
attack "UPDATE exchange SET response_status" "UPDATE exchange SET response_status = 400 WHERE evidence_id = 3" \
	"exchanges are immutable" "evidence 3 does not match audit entry $e: edited after it was recorded"
attack "INSERT OR REPLACE an exchange" \
	"INSERT OR REPLACE INTO exchange SELECT id, evidence_id, run_id, probe, seq, tenant, streaming, method, url, request_headers, request_sha256, request_size, request_blob, request_recipe, 400, response_headers, response_sha256, response_size, response_blob, response_truncated, error, timings, started_at FROM exchange WHERE evidence_id = 3" \
	"exchanges are immutable" "evidence 3 does not match audit entry $e: edited after it was recorded"
attack "UPDATE evidence" "UPDATE evidence SET added_by = 'mallory' WHERE id = 3" \
	"evidence is immutable" "evidence 3 does not match audit entry $e: edited after it was recorded"
sha=$(sqlite3 "$T/sealed-good.db" "SELECT response_blob FROM exchange WHERE evidence_id = 3")
attack "UPDATE blob SET data (an exchange's response)" "UPDATE blob SET data = CAST('{\"ok\":true}' AS BLOB), size = 11 WHERE sha256 = '$sha'" \
	"stored content is immutable" "stored content $sha does not match its SHA-256 and size: edited after it was stored"
attack "INSERT OR REPLACE stored content" "INSERT OR REPLACE INTO blob (sha256, size, encrypted, data) VALUES ('$sha', 2, 0, CAST('{}' AS BLOB))" \
	"stored content is immutable" "stored content $sha does not match its SHA-256 and size: edited after it was stored"
a=$(newest "object_type = 'assessment' AND object_id = 1")
attack "INSERT OR REPLACE into answers of a final round" \
	"INSERT OR REPLACE INTO answer (assessment_id, question_id, value, actor, updated_at) VALUES (1, 'gate', '\"no\"', 'tester', '2026-01-01T00:00:00.000Z')" \
	"final assessments are read-only" "assessment 1 does not match audit entry $a: edited after it was recorded"
attack "INSERT an answer into a final round" \
	"INSERT INTO answer (assessment_id, question_id, value, actor, updated_at) VALUES (1, 'tokens', '5', 'tester', '2026-01-01T00:00:00.000Z')" \
	"final assessments are read-only" "assessment 1 does not match audit entry $a: edited after it was recorded"
attack "INSERT OR REPLACE answer history" \
	"INSERT OR REPLACE INTO answer_history SELECT id, assessment_id, question_id, '\"no\"', note, actor, at FROM answer_history WHERE id = 1" \
	"answer history is append-only" "assessment 1 does not match audit entry $a: edited after it was recorded"
attack "INSERT OR REPLACE a final assessment" \
	"INSERT OR REPLACE INTO assessment SELECT id, vendor_id, questionnaire_id, round, parent_id, 'draft', created_by, created_at, submitted_at, NULL, NULL, questionnaire_sha256 FROM assessment WHERE id = 1" \
	"final assessments are read-only" "assessment 1 does not match audit entry $a: edited after it was recorded"
i=$(newest "object_type = 'incident_entry' AND object_id = 2")
attack "INSERT OR REPLACE an incident entry" \
	"INSERT OR REPLACE INTO incident_entry SELECT id, incident_id, kind, at, at_utc, actor, 'nothing was told', details, recorded_at FROM incident_entry WHERE id = 2" \
	"incident timeline entries are immutable" "incident entry 2 does not match audit entry $i: edited after it was recorded"
x=$(newest "object_type = 'report' AND object_id = 1")
attack "UPDATE report" "UPDATE report SET sums_sha256 = 'x' WHERE id = 1" \
	"exported reports are immutable" "report 1 does not match audit entry $x: edited after it was recorded"

# The log itself: only the next seq, chained to the head.
fresh
n=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")
msg=$(sqlite3 "$AIVET_DB" "INSERT INTO audit_log SELECT seq + 2, at, actor, action, object_type, object_id, details, entry_hash, entry_hash, NULL, NULL FROM audit_log WHERE seq = $n" 2>&1)
like "$msg" "seq must be the next number after the head" "an audit entry that skips a number is refused"
msg=$(sqlite3 "$AIVET_DB" "INSERT OR REPLACE INTO audit_log SELECT * FROM audit_log WHERE seq = 5" 2>&1)
like "$msg" "seq must be the next number after the head" "INSERT OR REPLACE over an audit entry is refused"
msg=$(sqlite3 "$AIVET_DB" "INSERT INTO audit_log SELECT seq + 1, at, actor, action, object_type, object_id, details, '$(printf '%064d' 0)', entry_hash, NULL, NULL FROM audit_log WHERE seq = $n" 2>&1)
like "$msg" "seq must be the next number after the head" "an entry not chained to the head is refused"

# A report of a database that fails its audit is refused; written only on request,
# and then it opens with the failure and never verifies.
fresh
drop_triggers
sqlite3 "$AIVET_DB" "UPDATE finding SET severity = 'info' WHERE id = 1"
broken="this database failed its audit: finding 1 does not match audit entry $f: edited after it was recorded"
snap=$(db_snapshot)
run report Beta --out "$T/after-edit"
is "$rc:$errout" "1:aivet: $broken; no report was written (--allow-broken-chain writes one that opens with this)" \
	"aivet report after a finding was edited: refused, the break named"
ok "$(test ! -e "$T/after-edit"; echo $?)" "and no bundle written"
is "$(db_snapshot)" "$snap" "and nothing recorded"
run report Beta --out "$T/after-edit" --allow-broken-chain
is "$rc" 0 "--allow-broken-chain writes it"
is "$(jq -r '[keys_unsorted[0], .audit_failure, .audit_checkpoint.intact] | map(tostring) | join("|")' "$T/after-edit/report.json")" \
	"audit_failure|$broken|false" "report.json opens with the failure"
is "$(head -1 "$T/after-edit/report.md")" "**$broken**" "report.md opens with it"
is "$(sed -n '/<body>/{n;p;q}' "$T/after-edit/report.html")" "<p class=\"audit-failure\"><strong>$broken</strong></p>" \
	"report.html's page opens with it"
run verify "$T/after-edit"
is "$rc:$out" "1:bundle $T/after-edit FAILED verification
  parts        signature verified, hashes verified, report failed, time-stamp none
  report.json: $broken" "aivet verify fails that bundle, saying why"

# ---- external anchors: a signed checkpoint, a signed bundle ----
fresh
run audit checkpoint --out "$T/cp"
is "$rc" 0 "audit checkpoint writes a checkpoint"
n=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")
h=$(sqlite3 "$AIVET_DB" "SELECT entry_hash FROM audit_log WHERE seq = $n")
is "$(jq -r '[.format, .entries, .head] | join(" ")' "$T/cp")" "aivet-audit-checkpoint-1 $n $h" \
	"the checkpoint holds the position and the head"
minisign -Vm "$T/cp" -p "$XDG_CONFIG_HOME/aivet/keys/aivet.pub" > "$T/ms.out" 2>&1
ok $? "stock minisign verifies the checkpoint's signature"
like "$(cat "$T/ms.out")" "Trusted comment: aivet-audit-checkpoint	audit_entries:$n	audit_head:$h	at:" \
	"and prints the signed position and head"
run audit checkpoint --out "$T/cp"
is "$rc:$errout" "2:aivet: --out $T/cp: exists already (a checkpoint is never overwritten)" \
	"a checkpoint is never overwritten"
run audit verify --against "$T/cp"
is "$rc:$out" "0:audit chain intact: $n entries, head $h
  holds the checkpoint's head at entry $n ($T/cp, signed by own key 'aivet')" "verify --against a checkpoint"
"$AIVET" vendor add Later >/dev/null
run audit verify --against "$T/cp"
is "$rc" 0 "entries appended after a checkpoint keep it"
run audit verify --against "$T/bundle" --json
is "$rc:$(printf '%s' "$out" | json '[.intact, .anchor.kind, .anchor.entries] | @json')" \
	"0:[true,\"bundle\",$(jq .audit_checkpoint.entries "$T/bundle/report.json")]" "verify --against a signed bundle"
cp "$AIVET_DB" "$T/anchored.db"

# Cut the tail: the newest entries deleted (with the triggers dropped). The chain alone is consistent.
cut() { rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/anchored.db" "$AIVET_DB"; drop_triggers; sqlite3 "$AIVET_DB" "DELETE FROM audit_log WHERE seq > $1"; }
cut $((n - 1))
sqlite3 "$AIVET_DB" "DELETE FROM report; DELETE FROM vendor WHERE name = 'Later'"   # the rows the cut entries sealed go too
run audit verify
like "$rc:$errout" "^1:aivet: audit chain broken: the schema: trigger .* of aivet's schema is missing: dropped behind aivet's back" \
	"a cut tail with the triggers left dropped: the schema names it"
restore_triggers
run audit verify
is "$rc" 0 "a cut tail (and the row it recorded), the triggers put back, passes audit verify alone: the attack"
run audit verify --against "$T/cp"
is "$rc:$errout" "1:aivet: audit chain broken: the chain has $((n - 1)) entries, fewer than the $n that checkpoint $T/cp recorded: entries were cut from its end" \
	"rule: the anchored position must exist (a cut tail fails)"
b=$(jq .audit_checkpoint.entries "$T/bundle/report.json")
cut $((b - 1))
run audit verify --against "$T/bundle"
like "$rc:$errout" "^1:aivet: audit chain broken: the chain has $((b - 1)) entries, fewer than the $b that bundle $T/bundle recorded: entries were cut from its end$" \
	"a cut tail fails against a bundle too"

# Rehash: an entry edited, then every hash after it recomputed with the documented encoding.
rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/anchored.db" "$AIVET_DB"; drop_triggers
python3 - "$AIVET_DB" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def ns(s):
    b = s.encode()
    return str(len(b)).encode() + b":" + b + b","
db.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
prev = "0" * 64
for row in db.execute("SELECT seq, at, actor, action, object_type, object_id, details, row_hash FROM audit_log ORDER BY seq").fetchall():
    seq, at, actor, action, otype, oid, details, rh = row
    m = b"".join(ns(x) for x in (str(seq), at, actor, action, otype, str(oid), details, prev))
    if rh is not None:
        m += ns(rh)
    h = hashlib.sha256(m).hexdigest()
    db.execute("UPDATE audit_log SET prev_hash = ?, entry_hash = ? WHERE seq = ?", (prev, h, seq))
    prev = h
db.commit()
PY
restore_triggers
run audit verify
is "$rc" 0 "a chain rehashed with the documented encoding passes audit verify alone: the attack"
run audit verify --against "$T/cp"
is "$rc:$errout" "1:aivet: audit chain broken: entry $n's hash is not the head that checkpoint $T/cp recorded ($h): the chain was rewritten at or before entry $n" \
	"rule: the anchored head must be at its position (a rehashed chain fails)"
run audit verify --against "$T/bundle" --json
is "$rc:$(printf '%s' "$out" | json '[.intact, .first_bad_entry] | @json')" "1:[false,$b]" "and against the bundle"

# The anchor itself must verify, by a trusted key.
rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/anchored.db" "$AIVET_DB"
sed "s/\"entries\":.*/\"entries\": 1,/" "$T/cp" > "$T/cp-edited"
cp "$T/cp.minisig" "$T/cp-edited.minisig"
run audit verify --against "$T/cp-edited"
is "$rc:$errout" "1:aivet: --against $T/cp-edited: the checkpoint does not verify, so it anchors nothing: $T/cp-edited.minisig: signature does not match cp-edited" \
	"an edited checkpoint is refused"
XDG_CONFIG_HOME="$T/stranger" "$AIVET" key generate --no-password >/dev/null
XDG_CONFIG_HOME="$T/stranger" "$AIVET" audit checkpoint --out "$T/cp-stranger" >/dev/null
run audit verify --against "$T/cp-stranger"
is "$rc:$errout" "1:aivet: --against $T/cp-stranger: the checkpoint does not verify, so it anchors nothing: signature valid, signer not trusted: $(sed -n 2p "$T/stranger/aivet/keys/aivet.pub")" \
	"a checkpoint by an untrusted key anchors nothing"
run audit verify --against "$T/cp-stranger" --pubkey "$T/stranger/aivet/keys/aivet.pub"
is "$rc" 0 "unless its key is given"

sim_stop

done_testing
