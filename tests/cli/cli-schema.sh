#!/bin/sh
# cli-schema.sh: the schema is evidence. 'audit verify' compares the
# database's schema objects (tables and their columns, triggers, views,
# indexes) with what aivet's migrations create, applied to an in-memory
# database, and names the first difference; 'aivet report' then refuses. Each
# change is made with the sqlite3 shell on a real file, none touching a
# sealed row.
. "$TESTS_SRCDIR/lib/lib.sh"

"$AIVET" vendor add Acme >/dev/null
"$AIVET" endpoint add Acme --name prod --api openai --url https://a.example/v1 --model m --context 100 >/dev/null
"$AIVET" key generate --no-password >/dev/null
run audit verify
is "$rc" 0 "a database aivet made verifies"
sqlite3 "$AIVET_DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$AIVET_DB" "$T/good.db"
ntrig=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")
ok "$(test "$ntrig" -ge 40; echo $?)" "(the schema has its triggers: $ntrig)"

# change NAME SQL PROBLEM: SQL run on a copy of the good database; audit verify
# names PROBLEM, aivet report refuses naming it, and writes nothing.
change() {
	rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/good.db" "$AIVET_DB"
	sqlite3 "$AIVET_DB" "$2"
	run audit verify
	is "$rc:$errout" "1:aivet: audit chain broken: the schema: $3" "$1: named by audit verify"
	run report Acme --out "$T/r"
	is "$rc:$errout" "1:aivet: this database failed its audit: the schema: $3; no report was written (--allow-broken-chain writes one that opens with this)" \
		"$1: refused by aivet report"
	ok "$(test ! -e "$T/r"; echo $?)" "$1: no bundle"
}

change "a trigger dropped" "DROP TRIGGER finding_no_update" \
	"trigger finding_no_update (on finding) of aivet's schema is missing: dropped behind aivet's back"
change "a trigger planted" "CREATE TRIGGER zz AFTER INSERT ON finding BEGIN
	UPDATE finding SET severity = 'info', message = 'nothing to see' WHERE id = NEW.id; END" \
	"trigger zz (on finding) is not in aivet's schema (its migrations create no such object): made behind aivet's back"
change "a trigger rewritten under its own name" "DROP TRIGGER finding_no_update;
	CREATE TRIGGER finding_no_update BEFORE UPDATE ON finding BEGIN SELECT 1; END" \
	"trigger finding_no_update is not as aivet's migrations create it: changed behind aivet's back"
change "a view added" "CREATE VIEW acceptable AS SELECT name FROM vendor" \
	"view acceptable (on acceptable) is not in aivet's schema (its migrations create no such object): made behind aivet's back"
change "an index dropped" "DROP INDEX audit_log_object" \
	"index audit_log_object (on audit_log) of aivet's schema is missing: dropped behind aivet's back"
change "a column added" "ALTER TABLE vendor ADD COLUMN waiver TEXT" \
	"table vendor is not as aivet's migrations create it: changed behind aivet's back"
change "a column's check loosened in place (writable_schema)" "PRAGMA writable_schema = ON;
	UPDATE sqlite_master SET sql = replace(sql, 'BETWEEN 0 AND 4', 'BETWEEN 0 AND 9') WHERE name = 'vendor';" \
	"table vendor is not as aivet's migrations create it: changed behind aivet's back"

# A bundle forced over a changed schema opens with the break and fails aivet verify.
rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/good.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "CREATE TRIGGER zz AFTER INSERT ON finding BEGIN UPDATE finding SET severity = 'info' WHERE id = NEW.id; END"
run report Acme --out "$T/forced" --allow-broken-chain
is "$rc" 0 "a bundle forced over a planted trigger is written"
run verify "$T/forced"
is "$rc:$out" "1:bundle $T/forced FAILED verification
  parts        signature verified, hashes verified, report failed, time-stamp none
  report.json: this database failed its audit: the schema: trigger zz (on finding) is not in aivet's schema (its migrations create no such object): made behind aivet's back" \
	"and fails aivet verify, naming the trigger"

# What aivet itself writes later keeps the schema as it was.
rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/good.db" "$AIVET_DB"
"$AIVET" vendor edit Acme --criticality 4 >/dev/null
run audit verify
is "$rc" 0 "aivet's own writes leave the schema as its migrations made it"

done_testing
