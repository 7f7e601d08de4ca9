#!/bin/sh
# cli-entry-record.sh: the entry is the record. An audit entry that seals a row
# holds the row's full content; audit verify recomputes the row hash from it
# and replays the entries. The attacks of issue 43 on SQLite, as they were run:
# triggers planted for one honest run (every new finding rewritten to
# USAGE_MISSING/info, every failing probe result to pass) and put back byte for
# byte are named, the run's own entries still saying what it found (so are a
# finding's evidence links dropped as they were written); an endpoint edited
# with SQL is not re-sealed by an honest no-op edit; an edit entry that names
# some of the fields it changed is named; so is an answer a trigger rewrote,
# and an incident's discovery moved behind a status change. A content edited
# behind the chain does not hash to its entry's row hash. A database written
# before entries held content migrates and verifies, and says from which entry
# on content is held.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

append() { python3 "$TESTS_SRCDIR/lib/audit-append.py" "$AIVET_DB" "$@"; }
entry() { sqlite3 "$AIVET_DB" "SELECT min(seq) FROM audit_log WHERE $1"; }

"$AIVET" key generate --no-password >/dev/null 2>&1
# ---- attack 1: triggers planted for one honest run, then put back ----
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
schema() { sqlite3 "$AIVET_DB" "SELECT type || ' ' || name || ' ' || sql FROM sqlite_master ORDER BY name"; }
before=$(schema)
sqlite3 "$AIVET_DB" "SELECT sql || ';' FROM sqlite_master WHERE name IN ('finding_no_update', 'probe_result_no_update')" \
	>"$T/triggers.sql"
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_update; DROP TRIGGER probe_result_no_update;
	CREATE TRIGGER zf AFTER INSERT ON finding BEGIN
	UPDATE finding SET code = 'USAGE_MISSING', severity = 'info' WHERE id = NEW.id; END;
	CREATE TRIGGER zr AFTER INSERT ON probe_result WHEN NEW.verdict = 'fail' BEGIN
	UPDATE probe_result SET verdict = 'pass' WHERE id = NEW.id; END"
run probe run V/e --probe canary --yes
sim_stop
sqlite3 "$AIVET_DB" "DROP TRIGGER zf; DROP TRIGGER zr; $(cat "$T/triggers.sql")"
is "$(schema)" "$before" "(the original triggers put back byte for byte)"
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(probe || '=' || verdict) FROM probe_result;
	SELECT group_concat(DISTINCT code || ' ' || severity) FROM finding")" "canary=pass
USAGE_MISSING info" "(the run's rows say pass and USAGE_MISSING/info: the attack)"
rid=$(sqlite3 "$AIVET_DB" "SELECT id FROM probe_result WHERE probe = 'canary'")
rseq=$(entry "object_type = 'probe_result' AND object_id = $rid")
fid=$(sqlite3 "$AIVET_DB" "SELECT min(id) FROM finding")
fseq=$(entry "object_type = 'finding' AND object_id = $fid")
is "$(sqlite3 "$AIVET_DB" "SELECT json_extract(details, '$.verdict') FROM audit_log WHERE seq = $rseq;
	SELECT json_extract(details, '$.code') || ' ' || json_extract(details, '$.severity') FROM audit_log WHERE seq = $fseq")" \
	"fail
LEAK_CROSS_TENANT critical" "(the run's own entries still say fail, LEAK_CROSS_TENANT, critical)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: probe result $rid's verdict is pass where audit entry $rseq (probe.result) that created it says verdict is fail: the row was rewritten as it was written" \
	"the result rewritten as it was written: named by audit verify"
run report V --out "$T/r1"
like "$rc:$errout" "^1:aivet: this database failed its audit: probe result $rid's verdict is pass where audit entry $rseq" \
	"and aivet report refuses"
ok "$([ ! -e "$T/r1" ]; echo $?)" "no bundle"

# The finding alone (the result left as written).
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_update;
	CREATE TRIGGER zf AFTER INSERT ON finding BEGIN
	UPDATE finding SET code = 'USAGE_MISSING', severity = 'info' WHERE id = NEW.id; END"
run probe run V/e --probe canary --yes
sim_stop
sqlite3 "$AIVET_DB" "DROP TRIGGER zf; $(grep finding_no_update "$T/triggers.sql" -A1)"
fid=$(sqlite3 "$AIVET_DB" "SELECT min(id) FROM finding")
fseq=$(entry "object_type = 'finding' AND object_id = $fid")
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding $fid's code is USAGE_MISSING where audit entry $fseq (probe.finding) that created it says code is LEAK_CROSS_TENANT: the row was rewritten as it was written" \
	"a finding rewritten as it was written: named by audit verify"

# A finding's evidence links dropped as they were written.
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
sqlite3 "$AIVET_DB" "CREATE TRIGGER zl BEFORE INSERT ON finding_evidence BEGIN SELECT RAISE(IGNORE); END"
run probe run V/e --probe canary --yes
sim_stop
sqlite3 "$AIVET_DB" "DROP TRIGGER zl"
fid=$(sqlite3 "$AIVET_DB" "SELECT min(id) FROM finding")
fseq=$(entry "object_type = 'finding' AND object_id = $fid")
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM finding_evidence; SELECT json_array_length(details, '$.evidence') > 0 FROM audit_log WHERE seq = $fseq")" \
	"0
1" "(the finding has no evidence links, its entry names some: the attack)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding $fid's evidence links are not the evidence audit entry $fseq (probe.finding) that created it names: they were rewritten as they were written" \
	"named by audit verify"

# An honest run verifies, every sealing entry holding its row's content.
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
run probe run V/e --probe canary,errors --yes
sim_stop
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM finding WHERE code = 'LEAK_CROSS_TENANT' AND severity = 'critical'") \
$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE row_hash IS NOT NULL AND content IS NULL")" "1 0" \
	"(an honest run: LEAK_CROSS_TENANT critical; no sealing entry without content)"
run audit verify --json
is "$rc:$(printf '%s' "$out" | jq -c '[.intact, .content_from]')" "0:[true,1]" "it verifies, content held from entry 1$errout"
cp "$AIVET_DB" "$T/run.db"

# A content edited behind the chain (its trigger dropped and put back).
fseq=$(entry "object_type = 'finding'")
fid=$(sqlite3 "$AIVET_DB" "SELECT object_id FROM audit_log WHERE seq = $fseq")
sqlite3 "$AIVET_DB" "SELECT sql || ';' FROM sqlite_master WHERE name = 'audit_log_no_update'" >"$T/log.sql"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_update;
	UPDATE audit_log SET content = replace(content, '\"critical\"', '\"info\"') WHERE seq = $fseq;
	$(cat "$T/log.sql")"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $fseq's content is not the finding $fid it sealed: it does not hash to the entry's row hash" \
	"a content edited behind the chain: named by audit verify"
# A member the part does not list added to a row of it (the hash the same).
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_update;
	UPDATE audit_log SET content = replace(content, '\"code\":', '\"verdict\":\"pass\",\"code\":') WHERE seq = $fseq;
	$(cat "$T/log.sql")"
is "$(sqlite3 "$AIVET_DB" "SELECT json_extract(content, '\$[0].rows[0].verdict') FROM audit_log WHERE seq = $fseq")" pass \
	"(a content with a member its part does not list)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $fseq's content is not the finding $fid it sealed: it does not hash to the entry's row hash" \
	"named by audit verify"
# One removed (after content began, every sealing entry holds it).
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_update;
	UPDATE audit_log SET content = NULL WHERE seq = $fseq;
	$(cat "$T/log.sql")"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $fseq about finding $fid carries no content: every entry that seals a row since entry 1 holds the row's full content" \
	"a content removed: named by audit verify"

# ---- attack 2: an endpoint edited by SQL, then an honest no-op edit ----
cp "$T/run.db" "$AIVET_DB"
eseq=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'endpoint' AND object_id = 1")
sqlite3 "$AIVET_DB" "UPDATE endpoint SET context_tokens = 1000000 WHERE id = 1"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: endpoint 1 does not match audit entry $eseq: edited after it was recorded" \
	"an endpoint edited by SQL: named by audit verify"
n=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")
run endpoint edit V/e --model aivet-sim-1
is "$rc:$errout" "2:aivet: endpoint 1's context_tokens is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"an honest no-op endpoint edit does not re-seal it: refused, naming the field and the entry"
is "$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")" "$n" "nothing was appended"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: endpoint 1 does not match audit entry $eseq: edited after it was recorded" \
	"still named by audit verify"
# Nor a column no edit names (the endpoint moved to another vendor).
cp "$T/run.db" "$AIVET_DB"
"$AIVET" vendor add W >/dev/null
sqlite3 "$AIVET_DB" "UPDATE endpoint SET vendor_id = 2 WHERE id = 1"
run endpoint edit W/e --model aivet-sim-1
is "$rc:$errout" "2:aivet: endpoint 1's vendor_id is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"an endpoint moved to another vendor by SQL: an edit does not re-seal it"
# Nor a credential's reference changed by SQL, by an edit adding another.
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "UPDATE credential SET ref = 'env:MALLORY_KEY' WHERE label = 'alice'"
run endpoint edit V/e --credential carol=env:CAROL_KEY
is "$rc:$errout" "2:aivet: endpoint 1's credential is not what audit entry $eseq recorded, and this endpoint.edit does not name it: it was changed behind aivet's back; not re-sealed" \
	"an edit adding a credential does not re-seal another changed by SQL"
run endpoint edit V/e --credential alice=env:PROBE_KEY_ALICE
is "$rc" 0 "one naming the changed credential's label is taken$errout"
run audit verify
is "$rc" 0 "and verifies$errout"
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "UPDATE endpoint SET context_tokens = 1000000 WHERE id = 1"
# An edit that names the field (the change made by aivet) is taken.
run endpoint edit V/e --context 1000000
is "$rc" 0 "an edit naming the field is taken$errout"
run audit verify
is "$rc" 0 "and verifies$errout"

# ---- an edit entry that names some of the fields it changed ----
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "UPDATE vendor SET name = 'Renamed', notes = 'n2' WHERE id = 1"
n=$(append vendor.edit vendor 1 row '{"notes":"n2"}')
vseq=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'vendor' AND seq < $n")
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $n (vendor.edit) changed vendor 1's name from what audit entry $vseq recorded without naming it: an entry names each field it changes" \
	"a vendor.edit naming notes, the name changed too: named by audit verify"
cp "$T/run.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "UPDATE endpoint SET context_tokens = 1000000, model = 'm' WHERE id = 1"
n=$(append endpoint.edit endpoint 1 row '{"model":"m"}')
eseq=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'endpoint' AND seq < $n")
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $n (endpoint.edit) changed endpoint 1's context_tokens from what audit entry $eseq recorded without naming it: an entry names each field it changes" \
	"an endpoint.edit naming the model, the context changed too: named by audit verify"
# Archiving changes the status, which no edit names: taken.
cp "$T/run.db" "$AIVET_DB"
run endpoint archive V/e
is "$rc" 0 "an endpoint archived$errout"
run audit verify
is "$rc" 0 "verifies$errout"

# ---- a row changed beyond what its action writes: an incident's clock ----
cp "$T/run.db" "$AIVET_DB"
"$AIVET" incident open V --title leak --discovered 2026-11-01T00:00:00Z >/dev/null
iseq=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'incident'")
sqlite3 "$AIVET_DB" "SELECT sql || ';' FROM sqlite_master WHERE name = 'incident_facts_update'" >"$T/facts.sql"
sqlite3 "$AIVET_DB" "DROP TRIGGER incident_facts_update;
	UPDATE incident SET discovered_at = '2026-11-30T00:00:00.000Z' WHERE id = 1; $(cat "$T/facts.sql")"
run incident status 1 investigating
is "$rc:$errout" "2:aivet: incident 1's discovered_at is not what audit entry $iseq recorded, and this incident.status does not change it: it was changed behind aivet's back; not re-sealed" \
	"the discovery moved by SQL: a status change does not re-seal it"
n=$(append incident.status incident 1 row '{"from":"new","to":"new"}')
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $n (incident.status) changed incident 1's discovered_at from what audit entry $iseq recorded: that action does not change it" \
	"an entry appended over it: named by audit verify"

# ---- a database written before entries held content ----
cp "$T/run.db" "$AIVET_DB"
total=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log")
last=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE row_hash IS NOT NULL")
# As schema 016 left it: no content column.
sqlite3 "$AIVET_DB" "ALTER TABLE audit_log DROP COLUMN content; PRAGMA user_version = 16" >/dev/null
run audit verify
is "$rc:$out" "0:audit chain intact: $total entries, head $(sqlite3 "$AIVET_DB" "SELECT entry_hash FROM audit_log WHERE seq = $total")
  entries 1 to $last were written before entries held their rows' full content: their rows are checked against their row hashes only" \
	"migrated: verifies, saying from which entry on content is held$errout"
is "$(sqlite3 "$AIVET_DB" "PRAGMA user_version")" 19 "(migrated through 017 to the newest schema, 019)"
run vendor edit V --notes after
run audit verify --json
is "$rc:$(printf '%s' "$out" | jq -c '[.intact, .content_from]')" "0:[true,$((last + 1))]" \
	"a write after the migration holds content and verifies$errout"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE seq > $total AND content IS NOT NULL")" 1 \
	"(the edit's entry holds its content)"
sqlite3 "$AIVET_DB" "UPDATE vendor SET contact = 'mallory' WHERE id = 1"
run vendor edit V --notes again
like "$rc:$errout" "^2:aivet: vendor 1's contact is not what audit entry $((total + 1)) recorded" \
	"an edit of a row changed behind aivet's back after the migration is refused"

# ---- an answer rewritten as it was written ----
db_fresh
"$AIVET" vendor add Beta >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start Beta scoring-test >/dev/null
sqlite3 "$AIVET_DB" "CREATE TRIGGER za AFTER INSERT ON answer BEGIN
	UPDATE answer SET value = '\"yes\"' WHERE assessment_id = NEW.assessment_id AND question_id = NEW.question_id; END"
run assess answer 1 gate no
sqlite3 "$AIVET_DB" "DROP TRIGGER za"
n=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE action = 'answer.set'")
is "$(sqlite3 "$AIVET_DB" "SELECT value FROM answer WHERE question_id = 'gate'; SELECT json_extract(details, '$.value') FROM audit_log WHERE seq = $n")" \
	'"yes"
no' "(the answer reads yes, its entry no: the attack)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: assessment 1's answer to gate: its value is not what audit entry $n (answer.set) says: the row was rewritten as it was written" \
	"named by audit verify"
db_fresh
"$AIVET" vendor add Beta >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start Beta scoring-test >/dev/null
"$AIVET" assess answer 1 gate no --note "asked twice" >/dev/null
"$AIVET" assess answer 1 gate --clear >/dev/null 2>&1
"$AIVET" assess answer 1 notify 5d >/dev/null
"$AIVET" assess answer 1 detail --note "awaiting reply" >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(action, ' ') FROM audit_log WHERE action LIKE 'answer.%'")" \
	"answer.set answer.clear answer.set answer.note" "(answers set, cleared, and a note alone)"
run audit verify
is "$rc" 0 "honest answers, a note and a clear verify$errout"
cp "$AIVET_DB" "$T/assess.db"
# An answer edited by SQL is not re-sealed by an honest answer to another question.
aseq=$(sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE object_type = 'assessment'")
sqlite3 "$AIVET_DB" "UPDATE answer SET value = '\"1d\"' WHERE question_id = 'notify'"
run assess answer 1 gate yes
is "$rc:$errout" "2:aivet: assessment 1's answer to notify is not what audit entry $aseq recorded, and this answer.set does not name it: it was changed behind aivet's back; not re-sealed" \
	"an answer edited by SQL: an honest answer to another question does not re-seal it"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: assessment 1 does not match audit entry $aseq: edited after it was recorded" \
	"still named by audit verify"
# Nor an entry appended that names another question.
n=$(append answer.set assessment 1 row '{"question":"gate","value":"no","note":"asked twice","previous":null}')
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: audit entry $n (answer.set) changed assessment 1's answer to notify from what audit entry $aseq recorded without naming it: an entry names each answer it changes" \
	"an entry naming another question: named by audit verify"

done_testing
