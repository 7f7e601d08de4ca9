#!/bin/sh
# cli-seal.sh: sealed by construction. Every table of a fresh database is
# named by aivet's table registry ('aivet audit tables'), and a table the
# registry does not name fails 'audit verify'. The attacks an insider with a
# shell on the database would try, run with the sqlite3 shell (with psql as
# the database's owner when tests/pg/on-pg/cli-seal.sh runs it on a server):
# an edited questionnaire, destroyed evidence content (a blob flagged
# encrypted over random bytes), moved incident facts. Each is refused by a
# trigger and, with the trigger dropped, named by 'audit verify' and refused
# by 'aivet report'. And a signed SHA256SUMS without report.json never
# verifies.
. "$TESTS_SRCDIR/lib/lib.sh"
pg=${AIVET_TEST_BACKEND:-sqlite}
export AIVET_NOW=2026-03-20T12:00:00Z

# ---- the registry names every table ----
"$AIVET" vendor add Acme >/dev/null
if [ "$pg" = pg ]; then
	pg_sql -d aivet "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'
		AND table_type = 'BASE TABLE'" | LC_ALL=C sort > "$T/tables"
else
	sqlite3 "$AIVET_DB" "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_'" |
		LC_ALL=C sort > "$T/tables"
fi
"$AIVET" audit tables --json | jq -r '.tables[].table' | LC_ALL=C sort > "$T/registry"
is "$(LC_ALL=C comm -23 "$T/tables" "$T/registry")" "" "every table of a fresh database is in the registry"
ok "$(test "$(wc -l < "$T/tables")" -ge 20; echo $?)" "(the list was read: $(wc -l < "$T/tables") tables)"
is "$("$AIVET" audit tables --json | jq -r '[.seals[] | .object_type as $t | .parts[] | .table + "=" + $t] as $p |
	[.tables[] | select(.kind == "sealed") | select((.table + "=" + .sealed_by) as $x | $p | index($x) | not) | .table] | join(",")')" \
	"" "every sealed table is a part of the seal the registry names"
is "$("$AIVET" audit tables | sed -n '1p;/^questionnaire /p;/^blob /p;/^incident /p')" \
	"TABLE              KIND     SEALED BY ENTRIES ABOUT
questionnaire      sealed   questionnaire
incident           sealed   incident
blob               content  -" "audit tables prints the registry"
sqlite3 "$AIVET_DB" "CREATE TABLE vendor_score (vendor_id INTEGER, score TEXT)"
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: table vendor_score is in no kind of aivet's table registry (src/core/audit.c): nothing seals its rows" \
	"a table the registry does not name (a migration's, or one made by hand) fails audit verify"
db_fresh

# ---- a final assessment against a questionnaire, with a file as evidence ----
"$AIVET" vendor add Beta >/dev/null
"$AIVET" questionnaire import "$TESTS_SRCDIR/data/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start Beta scoring-test >/dev/null
printf 'the vendor says so\n' > "$T/proof.txt"
"$AIVET" assess answer 1 gate yes >/dev/null
"$AIVET" assess answer 1 notify 12h >/dev/null
"$AIVET" assess answer 1 detail bad --evidence "$T/proof.txt" >/dev/null
"$AIVET" assess answer 1 deeper "left in place" >/dev/null
"$AIVET" assess submit 1 >/dev/null
approver_key bob
run --actor bob assess approve 1
is "$rc" 0 "a final assessment"
rating() { "$AIVET" assess show 1 --json | jq -r .score.rating; }
is "$(rating)" "unacceptable" "rated unacceptable: 'detail bad' is a critical risk"
is "$(sqlite3 "$AIVET_DB" "SELECT a.questionnaire_sha256 = q.sha256 FROM assessment a JOIN questionnaire q ON q.id = a.questionnaire_id")" \
	1 "the assessment recorded the questionnaire text it was started against"
"$AIVET" incident open Beta --title leak --discovered 2026-03-02T09:00:00-05:00 --phi yes --individuals 40 \
	--eu-data yes --vendor-sla none >/dev/null
due() { "$AIVET" incident due --within 90d 2>/dev/null | sed -n 2p | cut -c1-65 | sed 's/ *$//'; }
is "$(due)" "1        gdpr-sa            2026-03-05T14:00:00Z          OVERDUE" "the GDPR clock is overdue"
"$AIVET" key generate --no-password >/dev/null
run audit verify
is "$rc" 0 "the database verifies"
if [ "$pg" = pg ]; then db_save() { "$AIVET" db copy "$AIVET_DB" "$T/good.db" >/dev/null; }
	db_restore() { db_fresh; "$AIVET" db copy "$T/good.db" "$AIVET_DB" >/dev/null; }
else db_save() { cp "$AIVET_DB" "$T/good.db"; }
	db_restore() { rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"; cp "$T/good.db" "$AIVET_DB"; }
fi
rm -f "$T/good.db"
sqlite3 "$AIVET_DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null 2>&1
db_save
newest() { sqlite3 "$AIVET_DB" "SELECT max(seq) FROM audit_log WHERE $1"; }

# attack NAME SQL TRIGGERS REFUSAL VERIFY-PROBLEM
#   SQL refused by the triggers (REFUSAL in the message, nothing changed); with
#   TRIGGERS dropped it goes through, audit verify names VERIFY-PROBLEM and
#   aivet report refuses, naming it too.
attack() {
	db_restore
	snap=$(db_snapshot)
	msg=$(sqlite3 "$AIVET_DB" "$2" 2>&1)
	like "$msg" "$4" "$1: refused by a trigger"
	is "$(db_snapshot)" "$snap" "$1: nothing changed"
	for t in $3; do sqlite3 "$AIVET_DB" "DROP TRIGGER $t"; done
	msg=$(sqlite3 "$AIVET_DB" "$2" 2>&1)
	is "$msg" "" "$1: done once the triggers are dropped"
	run audit verify
	is "$rc:$errout" "1:aivet: audit chain broken: $5" "$1: named by audit verify"
	run report Beta --out "$T/r-$(echo "$1" | tr -c 'a-z0-9' -)"
	is "$rc:$errout" "1:aivet: this database failed its audit: $5; no report was written (--allow-broken-chain writes one that opens with this)" \
		"$1: refused by aivet report"
}

# ---- questionnaires are sealed ----
q=$(sqlite3 "$AIVET_DB" "SELECT id FROM questionnaire WHERE qid = 'scoring-test'")
ql=$(newest "object_type = 'questionnaire' AND object_id = $q")
attack "UPDATE questionnaire SET source (critical to none)" \
	"UPDATE questionnaire SET source = replace(source, '\"bad\", \"risk\": \"critical\"', '\"bad\", \"risk\": \"none\"') WHERE id = $q" \
	questionnaire_no_update "questionnaires are immutable" \
	"questionnaire $q (scoring-test@1) does not match audit entry $ql: its text was edited after it was loaded"
is "$(rating)" "acceptable" "(the edit did turn the rating: the attack)"
attack "UPDATE questionnaire SET source and sha256" \
	"UPDATE questionnaire SET source = replace(source, '\"critical\"', '\"none\"'), sha256 = '$(printf x | sha256sum | cut -c1-64)' WHERE id = $q" \
	questionnaire_no_update "questionnaires are immutable" \
	"questionnaire $q does not match audit entry $ql: edited after it was recorded"

# ---- stored bytes and flags are sealed ----
sha=$(sqlite3 "$AIVET_DB" "SELECT sha256 FROM evidence WHERE original_name = 'proof.txt'")
ev=$(newest "object_type = 'evidence'")
if [ "$pg" = pg ]; then box="decode(repeat('ab', (size + 48)::int), 'hex')"
	replace="INSERT INTO blob (sha256, size, encrypted, data) VALUES ('$sha', 19, 1, decode(repeat('ab', 67), 'hex')) ON CONFLICT (sha256) DO UPDATE SET encrypted = 1, data = excluded.data"
else box="randomblob(size + 48)"
	replace="INSERT OR REPLACE INTO blob (sha256, size, encrypted, data) VALUES ('$sha', 19, 1, randomblob(67))"
fi
attack "UPDATE blob SET encrypted = 1, data = random" "UPDATE blob SET encrypted = 1, data = $box WHERE sha256 = '$sha'" \
	blob_no_update "evidence is never sealed" \
	"stored content $sha is a sealed box but no audit entry recorded its sealing: sealed behind aivet's back"
attack "INSERT OR REPLACE a blob with encrypted = 1" "$replace" "blob_no_replace blob_no_update" \
	"evidence is never sealed" \
	"stored content $sha is a sealed box but no audit entry recorded its sealing: sealed behind aivet's back"
db_restore
msg=$(sqlite3 "$AIVET_DB" "INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at) VALUES ('$sha', 19, '$sha', '2026-03-20T00:00:00.000Z'); UPDATE blob SET encrypted = 1, data = $box WHERE sha256 = '$sha'" 2>&1)
like "$msg" "evidence is never sealed" "a blob_seal row written by hand does not let evidence content change"
# Content no evidence names (bytes stored by hand): the record of its seal must
# be in the audit log first.
other=$(printf 'not evidence' | sha256sum | cut -c1-64)
if [ "$pg" = pg ]; then data="convert_to('not evidence', 'UTF8')"; else data="CAST('not evidence' AS BLOB)"; fi
msg=$(sqlite3 "$AIVET_DB" "INSERT INTO blob (sha256, size, encrypted, data) VALUES ('$other', 12, 0, $data); INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at) VALUES ('$other', 12, '$other', '2026-03-20T00:00:00.000Z'); UPDATE blob SET encrypted = 1, data = $box WHERE sha256 = '$other'" 2>&1)
like "$msg" "stored content is immutable: only aivet seals it, recording the seal first" \
	"nor other content: the record's audit entry is missing"

# ---- incident facts change only through aivet ----
inc=$(newest "object_type = 'incident'")
# The shell's refusal says what is refused and why, on either store.
facts="incident facts change only through aivet's audited entries (aivet incident edit), not by SQL"
db_restore
is "$(sqlite3 "$AIVET_DB" "UPDATE incident SET phi = 'no' WHERE id = 1" 2>&1 | head -1 |
	sed 's/^Error: //; s/^stepping, //; s/ (19)$//')" "$facts" "the shell's UPDATE of a fact: refused in words"
attack "UPDATE incident SET discovered_at, eu_data" \
	"UPDATE incident SET discovered_at = '2026-03-19T09:00:00.000Z', eu_data = 0, phi = 'no' WHERE id = 1" \
	incident_facts_update "$(printf '%s' "$facts" | sed 's/[()]/\\&/g')" \
	"incident 1 does not match audit entry $inc: edited after it was recorded"
is "$(due)" "" "(the edit did stop the clock: the attack)"
db_restore
is "$(due)" "1        gdpr-sa            2026-03-05T14:00:00Z          OVERDUE" "restored: the clock is overdue again"
run incident edit 1 --eu-data no
is "$rc" 0 "aivet changes the facts itself, with its entry"
run audit verify
is "$rc" 0 "and the database still verifies"

# ---- a signed SHA256SUMS without report.json never verifies ----
mkdir "$T/empty"
: > "$T/empty/SHA256SUMS"
"$AIVET" key sign "$T/empty/SHA256SUMS" >/dev/null
run verify "$T/empty"
is "$rc:$out" "1:bundle $T/empty FAILED verification
  parts        signature verified, hashes verified, report failed, time-stamp none
  report.json: not listed in SHA256SUMS: a bundle without its report never verifies" \
	"an empty signed SHA256SUMS does not verify"

done_testing
