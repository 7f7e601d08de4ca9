#!/bin/sh
# cli-advisories.sh: aivet advisories. The built-in OSV records are listed;
# an import reads a file, an array or a directory, checks every record first
# and fails closed naming the file, the record and the field (nothing
# stored); a stored record is audited and sealed; the same bytes again are
# skipped; a newer record of an id stands in its place, a built-in one's too;
# the engine probe then checks versions against it.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

osv() {  # osv ID MODIFIED PACKAGE EVENTS: one OSV record
	printf '{"schema_version":"1.6.0","id":"%s","modified":"%s","summary":"%s summary","affected":[{"package":{"ecosystem":"PyPI","name":"%s"},"ranges":[{"type":"ECOSYSTEM","events":[%s]}]}]}\n' \
	    "$1" "$2" "$1" "$3" "$4"
}

run advisories list --json
is "$(printf '%s' "$out" | jq -c '[.[] | [.id, .source, .packages[0], .ranges[0]]]')" \
    '[["AIVET-2026-0001","built in","PyPI:sglang","sglang ECOSYSTEM: introduced 0 fixed 0.5.22"],["AIVET-2026-0002","built in","PyPI:sglang","sglang ECOSYSTEM: introduced 0.4.0 fixed 0.5.23"]]' \
    "the built-in advisories: the disaggregation fix at 0.5.22, the transfer backends at 0.5.23"

mkdir "$T/osv"
osv GHSA-aaaa-0001 2026-10-01T00:00:00Z vllm '{"introduced":"0"},{"fixed":"0.9.0"}' >"$T/osv/a.json"
{ printf '['; osv PYSEC-2026-7 2026-10-02T00:00:00Z sglang '{"introduced":"0.5.0"},{"last_affected":"0.5.30"}'; printf ','
  osv PYSEC-2026-8 2026-10-02T00:00:00Z vllm '{"introduced":"0.10.0"},{"limit":"0.12.0"}'; printf ']'; } >"$T/osv/b.json"
echo 'not osv' >"$T/osv/notes.txt"

# ---- fails closed, naming the file, the record and the field ----
cp -r "$T/osv" "$T/bad"
osv PYSEC-2026-9 2026-10-02T00:00:00Z vllm '{"introduced":"0"},{"fixed":"1.0","limit":"2.0"}' >"$T/bad/c.json"
before=$(db_snapshot)
run advisories import "$T/bad"
is "$rc:$errout" "2:aivet: $T/bad/c.json: affected[0].ranges[0].events[1]: an event names exactly one of introduced, fixed, last_affected or limit, as a string" \
    "a bad record refuses the import, naming the file and the field"
is "$(db_snapshot)" "$before" "nothing was stored"
{ printf '['; osv X-1 2026-10-02T00:00:00Z vllm '{"introduced":"0"}'; printf ','; echo '{"id":"X-2","modified":"2026-10-02T00:00:00Z","affected":[{"package":{"name":"vllm","ecosystem":"PyPI"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"zero"}]}]}]}'; printf ']'; } >"$T/arr.json"
run advisories import "$T/arr.json"
is "$rc:$errout" "2:aivet: $T/arr.json: record 2: affected[0].ranges[0].events[0]: 'zero' is not a version aivet can order" \
    "in an array, the record is named by its place"
printf '{"id": ' >"$T/cut.json"
run advisories import "$T/cut.json"
is "$rc:$errout" "2:aivet: $T/cut.json: not JSON" "a file that is not JSON"
run advisories import "$T/none"
is "$rc:$errout" "2:aivet: $T/none: no such file or directory" "a missing path"
head -c 1048577 /dev/zero | tr '\0' ' ' >"$T/big.json"
run advisories import "$T/big.json"
like "$rc:$errout" "^2:aivet: $T/big.json: .*larger than" "a file over 1 MiB is refused unread"
is "$(db_snapshot)" "$before" "still nothing stored"

# ---- a directory: its .json files, in name order, one transaction, audited ----
run advisories import "$T/osv" --json
is "$rc:$out" '0:{
	"stored":	3,
	"skipped":	0
}' "three records from two files (notes.txt is not read)"
is "$(sqlite3 "$AIVET_DB" "SELECT osv_id || ' ' || source FROM advisory ORDER BY id")" \
    "GHSA-aaaa-0001 $T/osv/a.json
PYSEC-2026-7 $T/osv/b.json
PYSEC-2026-8 $T/osv/b.json" "each record with the file it came from"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log WHERE action = 'advisory.import' AND row_hash IS NOT NULL")" 3 \
    "an audit entry sealing each"
run audit verify
is "$rc" 0 "the chain and the seals verify"
run advisories import "$T/osv"
is "$rc:$out" "0:0 advisories stored, 3 already stored" "the same bytes again are skipped"
run advisories list --json
is "$(printf '%s' "$out" | jq -c '[.[].id]')" '["AIVET-2026-0001","AIVET-2026-0002","GHSA-aaaa-0001","PYSEC-2026-7","PYSEC-2026-8"]' \
    "built in, then imported"
sqlite3 "$AIVET_DB" "UPDATE advisory SET modified = 'x' WHERE id = 1" 2>"$T/upd.err"
like "$(cat "$T/upd.err")" "an imported advisory is written once" "a stored record cannot be changed"

# ---- a newer record of a built-in id stands in its place, and the probe uses it ----
osv AIVET-2026-0002 2026-12-01T00:00:00Z sglang '{"introduced":"0.4.0"},{"fixed":"0.5.25"}' >"$T/newer.json"
run advisories import "$T/newer.json"
is "$rc:$out" "0:1 advisory stored, 0 already stored" "a newer version of a built-in record"
run advisories list --json
is "$(printf '%s' "$out" | jq -c '[.[] | select(.id == "AIVET-2026-0002") | [.source, .ranges[0]]]')" \
    "[[\"$T/newer.json\",\"sglang ECOSYSTEM: introduced 0.4.0 fixed 0.5.25\"]]" "it stands in the built-in one's place"
osv PYSEC-2026-10 2026-10-03T00:00:00Z sglang '{"introduced":"0"}' | jq -c '.withdrawn = "2026-10-04T00:00:00Z"' >"$T/withdrawn.json"
run advisories import "$T/withdrawn.json"
is "$rc:$out" "0:1 advisory stored, 0 already stored" "a withdrawn record is stored as read ..."
sim_start --context 8192 --pool 8192 --engine-version 0.5.24 || exit 1
"$AIVET" vendor add V >/dev/null
"$AIVET" endpoint add V --name e --api openai --url "$SIM_URL/v1" --model m --context 8192 \
    --engine sglang --engine-url "$SIM_URL" >/dev/null
run probe run V/e --probe engine --yes --json
is "$(printf '%s' "$out" | jq -r '[.probes[0].findings[] | "\(.code) \(.message)"] | join("; ")')" \
    "ENGINE_VERSION_AFFECTED node 1 ($SIM_URL): sglang 0.5.24 is affected by AIVET-2026-0002 (AIVET-2026-0002 summary); fixed in 0.5.25; node 1 ($SIM_URL): sglang 0.5.24 is affected by PYSEC-2026-7 (PYSEC-2026-7 summary)" \
    "the probe checks against the imported records (last_affected 0.5.30 names no fix); ... and a withdrawn one affects nothing"
sim_stop
done_testing
