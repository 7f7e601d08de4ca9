#!/bin/sh
# cli-seal-once.sh: an evidentiary row is sealed once, by the audit entry that
# created it. The insider of issue 33, with the sqlite3 shell on a real run's
# database: triggers dropped, findings deleted, failed verdicts set to pass,
# then one entry appended per touched row, chained correctly but carrying no
# row hash. audit verify names it, aivet report refuses, and a bundle forced
# over it fails aivet verify. Each rule on its own: an entry without a row
# hash, a second entry about a row sealed once (with the hash of the edited
# row), an action that does not write the type, a mutable row (a vendor)
# re-sealed by its own edit action and by another, an edit entry that names
# no changed field or a value the row does not hold, a final assessment's
# questionnaire given a newer load entry without its sha256. And a finding's
# severity is its code's: a trigger planted to rewrite one before it is
# sealed is named.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

# Every sealed type names the actions that create it (and those that edit it, if any).
is "$("$AIVET" audit tables --json | jq -r '[.seals[] | select((.creates // "") == "" or (.creates | startswith("type that"))) | .object_type] | join(",")')" \
	"" "every sealed type names the actions that create it"
is "$("$AIVET" audit tables --json | jq -r '[.seals[] | .object_type + "=" + (.edits // "once")] | map(select(endswith("=once"))) | join(" ")')" \
	"finding=once probe_result=once evidence=once incident_entry=once report=once questionnaire=once advisory=once blob_seal=once" \
	"findings, results, evidence, incident entries, reports, questionnaires and sealed content are sealed once"

export KEY_A=key-a KEY_B=key-b
sim_start --context 8192 --pool 8192 --tenants a=key-a,b=key-b --fault error-200 || exit 1
"$AIVET" vendor add Beta >/dev/null
"$AIVET" endpoint add Beta --name main --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
"$AIVET" probe run Beta/main --probe oversize,errors --yes >/dev/null 2>&1
sim_stop
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(probe || '=' || verdict) FROM probe_result; SELECT group_concat(code || ' ' || severity) FROM finding")" \
	"oversize=fail,errors=pass
ERROR_IN_200 medium" "a real run: a failed probe and a finding"
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start Beta scoring-test >/dev/null
"$AIVET" assess answer 1 gate yes >/dev/null
"$AIVET" assess answer 1 notify 5d >/dev/null
"$AIVET" assess answer 1 detail bad >/dev/null
"$AIVET" assess answer 1 deeper "left in place" >/dev/null
"$AIVET" assess submit 1 >/dev/null
approver_key bob
"$AIVET" --actor bob assess approve 1 >/dev/null
"$AIVET" key generate --no-password >/dev/null
run audit verify
is "$rc" 0 "the database verifies"
sqlite3 "$AIVET_DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$AIVET_DB" "$T/good.db"
fresh() { rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/good.db" "$AIVET_DB"; }
append() { python3 "$TESTS_SRCDIR/lib/audit-append.py" "$AIVET_DB" "$@"; }
entry() { sqlite3 "$AIVET_DB" "SELECT seq FROM audit_log WHERE $1 ORDER BY seq LIMIT 1"; }
frid=$(sqlite3 "$AIVET_DB" "SELECT id FROM probe_result WHERE verdict = 'fail'")
fid=$(sqlite3 "$AIVET_DB" "SELECT id FROM finding")
ok "$(test -n "$frid" && test -n "$fid"; echo $?)" "(the failed result is $frid, the finding $fid)"
fseq=$(entry "object_type = 'finding' AND object_id = $fid")
rseq=$(entry "object_type = 'probe_result' AND object_id = $frid")

# refused WHAT PROBLEM: audit verify names PROBLEM, aivet report refuses naming it.
refused() {
	run audit verify
	is "$rc:$errout" "1:aivet: audit chain broken: $2" "$1: named by audit verify"
	run report Beta --out "$T/r"
	is "$rc:$errout" "1:aivet: this database failed its audit: $2; no report was written (--allow-broken-chain writes one that opens with this)" \
		"$1: refused by aivet report"
	ok "$(test ! -e "$T/r"; echo $?)" "$1: no bundle"
}

# ---- the attack of the issue ----
fresh
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_delete; DROP TRIGGER finding_evidence_no_delete;
	DROP TRIGGER probe_result_no_update;
	DELETE FROM finding_evidence; DELETE FROM finding; UPDATE probe_result SET verdict = 'pass', reason = NULL"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM finding; SELECT group_concat(DISTINCT verdict) FROM probe_result")" "0
pass" "(the shell deleted the finding and passed every probe)"
n1=$(append finding.note finding "$fid" none)
n2=$(append finding.note probe_result "$frid" none)
is "$n2" "$((n1 + 1))" "(two entries appended, chained to the head)"
refused "the issue's attack" "probe result $frid does not match audit entry $rseq: edited after it was recorded"
run report Beta --out "$T/forced" --allow-broken-chain
is "$rc" 0 "a bundle forced over the break is written"
run verify "$T/forced"
like "$rc:$out" "^1:bundle $T/forced FAILED verification" "and fails aivet verify"
like "$out" "probe result $frid does not match audit entry $rseq" "naming the edited result"

# A deletion alone: the row its entry created must still be there.
fresh
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_delete; DROP TRIGGER finding_evidence_no_delete;
	DELETE FROM finding_evidence; DELETE FROM finding"
append finding.note finding "$fid" none >/dev/null
refused "a finding deleted" "finding $fid (audit entry $fseq) is missing: removed after it was recorded"

# ---- each rule on its own ----
fresh
sqlite3 "$AIVET_DB" "DROP TRIGGER probe_result_no_update; UPDATE probe_result SET verdict = 'pass', reason = NULL WHERE id = $frid"
n=$(append finding.note probe_result "$frid" none)
refused "an entry without a row hash (the result edited)" "probe result $frid does not match audit entry $rseq: edited after it was recorded"

fresh
n=$(append probe.finding finding "$fid" none)
refused "an entry without a row hash, alone" "audit entry $n about finding $fid carries no row hash: every entry about a finding seals what it records"

fresh
sqlite3 "$AIVET_DB" "DROP TRIGGER probe_result_no_update; UPDATE probe_result SET verdict = 'pass', reason = NULL WHERE id = $frid"
n=$(append probe.result probe_result "$frid" row)
refused "a second entry with the edited row's hash" "probe result $frid does not match audit entry $rseq: edited after it was recorded"

fresh
n=$(append probe.result probe_result "$frid" row)
refused "a second entry about a result, row unchanged" "audit entry $n records probe result $frid again: it was sealed once, by entry $rseq"

fresh
n=$(append finding.note finding "$fid" row)
refused "an action that writes no finding" "audit entry $n about finding $fid is not an action that edits a finding (none: it is sealed once)"

# A mutable row: re-sealed by the action that edits it, not by another.
fresh
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = 'edited by hand' WHERE name = 'Beta'"
n=$(append vendor.edit vendor 1 none)
refused "a vendor edited, its entry without a row hash" "audit entry $n about vendor 1 carries no row hash: every entry about a vendor seals what it records"
fresh
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = 'edited by hand' WHERE name = 'Beta'"
n=$(append vendor.note vendor 1 row)
refused "a vendor re-sealed by an action that does not edit one" "audit entry $n about vendor 1 is not an action that edits a vendor (vendor.edit vendor.archive)"
fresh
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = 'edited by hand' WHERE name = 'Beta'"
append vendor.edit vendor 1 row '{"notes":"edited by hand"}' >/dev/null
run audit verify
is "$rc" 0 "a vendor re-sealed by vendor.edit naming the change verifies (its entry is the record of the change)"

# An edit's entry carries the fields it changed, and the newest says what the row holds.
fresh
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = 'edited by hand' WHERE name = 'Beta'"
n=$(append vendor.edit vendor 1 row '{}')
refused "a vendor re-sealed by vendor.edit with empty details" "audit entry $n (vendor.edit) about vendor 1 names no field it changed: an edit's details carry the fields it changed"
fresh
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = 'edited by hand', criticality = 0 WHERE name = 'Beta'"
n=$(append vendor.edit vendor 1 row '{"notes":"edited by hand","criticality":4}')
refused "a vendor.edit naming a value the row does not hold" "vendor 1's criticality is not what audit entry $n (vendor.edit) recorded: edited behind aivet's back"
fresh
"$AIVET" vendor edit Beta --contact "ops@beta.example" >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT details FROM audit_log WHERE action = 'vendor.edit' ORDER BY seq DESC LIMIT 1")" \
	'{"contact":"ops@beta.example"}' "aivet's vendor edit names the field it changed"
sqlite3 "$AIVET_DB" "UPDATE vendor SET notes = NULL WHERE name = 'Beta'"
n=$(append vendor.edit vendor 1 row '{"notes":null}')
run audit verify
is "$rc" 0 "an edit naming null for a cleared field verifies$errout"
fresh
"$AIVET" endpoint edit Beta/main --model other-model --price-in 1.25 >/dev/null
run audit verify
is "$rc" 0 "aivet's endpoint edit verifies$errout"
sqlite3 "$AIVET_DB" "UPDATE endpoint SET price_in_per_mtok = 0.01 WHERE id = 1"
n=$(append endpoint.edit endpoint 1 row '{"model":"other-model","price_in_per_mtok":1.25}')
refused "an endpoint.edit whose price is not the row's" "endpoint 1's price_in_per_mtok is not what audit entry $n (endpoint.edit) recorded: edited behind aivet's back"

# A created row's first entry is the one that creates it.
fresh
sqlite3 "$AIVET_DB" "INSERT INTO vendor (name, criticality, status, created_at, updated_at) SELECT 'Gamma', criticality, status, created_at, updated_at FROM vendor WHERE id = 1"
n=$(append vendor.edit vendor 2 row)
refused "a row whose first entry edits it" "audit entry $n about vendor 2 is not an action that creates a vendor (vendor.add)"

# ---- a final assessment's questionnaire ----
fresh
qid=$(sqlite3 "$AIVET_DB" "SELECT questionnaire_id FROM assessment WHERE id = 1")
qseq=$(entry "object_type = 'questionnaire' AND object_id = $qid")
sqlite3 "$AIVET_DB" "DROP TRIGGER questionnaire_no_update;
	UPDATE questionnaire SET source = replace(source, '\"critical\"', '\"none\"') WHERE id = $qid"
n=$(append questionnaire.load questionnaire "$qid" row)
refused "a newer load entry without sha256" "audit entry $n records questionnaire $qid again: it was sealed once, by entry $qseq"
is "$("$AIVET" assess show 1 --json | jq -r .status)" final "(the assessment is final)"

# ---- derived severity: a planted trigger rewrites a finding before it is sealed ----
. "$TESTS_SRCDIR/lib/probe-lib.sh"
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
"$AIVET" key generate --no-password >/dev/null 2>&1
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_update;
	CREATE TRIGGER zz AFTER INSERT ON finding BEGIN
	UPDATE finding SET severity = 'info', message = 'nothing to see' WHERE id = NEW.id; END"
run probe run V/e --probe canary --yes
sim_stop
leak=$(sqlite3 "$AIVET_DB" "SELECT id FROM finding WHERE code = 'LEAK_CROSS_TENANT' ORDER BY id LIMIT 1")
is "$(sqlite3 "$AIVET_DB" "SELECT severity || ' ' || message FROM finding WHERE id = $leak")" "info nothing to see" \
	"(the honest run recorded and sealed LEAK_CROSS_TENANT as info: the attack)"
lseq=$(entry "object_type = 'finding' AND object_id = $leak")
is "$(sqlite3 "$AIVET_DB" "SELECT json_extract(details, '$.severity') FROM audit_log WHERE seq = $lseq")" critical \
	"(its entry's details still say critical)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding $leak (audit entry $lseq) is recorded as info, but a LEAK_CROSS_TENANT finding is critical (the finding registry)" \
	"a finding's severity is its code's: named by audit verify"
run report V --out "$T/leak"
like "$rc:$errout" "^1:aivet: this database failed its audit: finding $leak \\(audit entry $lseq\\) is recorded as info" \
	"and aivet report refuses"
run report V --out "$T/leak" --allow-broken-chain
run verify "$T/leak"
like "$rc:$out" "^1:bundle $T/leak FAILED verification" "a bundle forced over it fails aivet verify"
done_testing
