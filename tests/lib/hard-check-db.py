#!/usr/bin/env python3
"""hard-check-db.py DB SNAPSHOT: the evidence checks after a crash. Prints one
line per problem and exits 1 when there is any; on success rewrites SNAPSHOT
with the exchanges now recorded, so the next call proves none of them
changed. Checks: PRAGMA integrity_check, foreign keys, every blob's SHA-256
(plaintext ones), every exchange's evidence and blobs present, and every
exchange in the previous snapshot still there byte for byte."""
import hashlib, json, sqlite3, sys

db_path, snap_path = sys.argv[1], sys.argv[2]
db = sqlite3.connect(db_path)
problems = []
ic = db.execute("PRAGMA integrity_check").fetchall()
if ic != [("ok",)]:
    problems.append("integrity_check: %r" % ic[:3])
fk = db.execute("PRAGMA foreign_key_check").fetchall()
if fk:
    problems.append("foreign_key_check: %r" % fk[:3])
for sha, size, enc, data in db.execute("SELECT sha256, size, encrypted, data FROM blob"):
    if not enc and (hashlib.sha256(data).hexdigest() != sha or len(data) != size):
        problems.append("blob %s: content does not match its hash" % sha)
rows = {}
for r in db.execute("SELECT x.id, x.evidence_id, x.run_id, x.seq, x.request_sha256, "
                    "x.response_sha256, x.response_status, x.response_size, e.sha256, "
                    "(SELECT count(*) FROM blob b WHERE b.sha256 = e.sha256), "
                    "(x.response_blob IS NULL OR EXISTS (SELECT 1 FROM blob b WHERE b.sha256 = x.response_blob)) "
                    "FROM exchange x LEFT JOIN evidence e ON e.id = x.evidence_id"):
    if r[8] is None or r[9] != 1 or not r[10]:
        problems.append("exchange %d: evidence or blob missing" % r[0])
    rows[str(r[0])] = list(r[:9])
try:
    before = json.load(open(snap_path))
except FileNotFoundError:
    before = {}
for k, v in before.items():
    if rows.get(k) != v:
        problems.append("exchange %s recorded before the kill changed or vanished" % k)
for p in problems:
    print(p)
if problems:
    sys.exit(1)
json.dump(rows, open(snap_path, "w"))
print("%d exchanges intact" % len(rows))
