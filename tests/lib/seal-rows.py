#!/usr/bin/env python3
# tests/lib/seal-rows.py DB: seals rows a test wrote with SQL, as aivet's writers
# would have: for every sealed object (aivet audit tables --json names the
# object types and the rows each seal covers) whose rows no audit entry
# records, or whose newest entry no longer matches them, it appends an entry
# carrying the rows' hash, in the canonical encoding aivet(1) documents; a
# sealed box with no record of its sealing gets its blob_seal row first.
# Fixtures use it so that their database passes 'aivet audit verify', as one
# written by aivet itself does. Needs $AIVET.
import hashlib, json, os, sqlite3, subprocess, sys

db = sqlite3.connect(sys.argv[1])
db.create_function("aivet_writing", 0, lambda: 1)
reg = json.loads(subprocess.run([os.environ["AIVET"], "audit", "tables", "--json"],
                                check=True, capture_output=True, text=True).stdout)
AT = "2026-01-01T00:00:00.000Z"

def ns(s):
    b = s.encode()
    return str(len(b)).encode() + b":" + b + b","

for sha, size, data in db.execute("SELECT b.sha256, b.size, b.data FROM blob b WHERE b.encrypted <> 0 "
                                  "AND NOT EXISTS (SELECT 1 FROM blob_seal s WHERE s.sha256 = b.sha256) "
                                  "ORDER BY b.sha256").fetchall():
    db.execute("INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at) VALUES (?,?,?,?)",
               (sha, size, hashlib.sha256(data).hexdigest(), AT))

def row_hash(seal, oid):
    h = hashlib.sha256(ns(seal["object_type"]) + ns(str(oid)))
    for p in seal["parts"]:
        cols = ", ".join("CAST(%s AS TEXT)" % c.strip() for c in p["columns"].split(","))
        where = p["key"] + " = ?" + (" AND " + p["where"] if p["where"] else "")
        rows = db.execute("SELECT %s FROM %s WHERE %s ORDER BY %s" % (cols, p["table"], where, p["order"]),
                          (oid,)).fetchall()
        if not p["only_when_rows"] or rows:
            h.update(ns(p["table"]))
        for r in rows:
            for v in r:
                h.update(b"~" if v is None else ns(v))
    return h.hexdigest()

for seal in reg["seals"]:
    main = seal["parts"][0]
    for (oid,) in db.execute("SELECT %s FROM %s ORDER BY %s" % (main["key"], main["table"], main["key"])).fetchall():
        rh = row_hash(seal, oid)
        last = db.execute("SELECT row_hash FROM audit_log WHERE object_type = ? AND object_id = ? "
                          "ORDER BY seq DESC LIMIT 1", (seal["object_type"], oid)).fetchone()
        if last is not None and last[0] in (None, rh):
            continue
        seq, prev = db.execute("SELECT coalesce(max(seq), 0) + 1, coalesce((SELECT entry_hash FROM audit_log "
                               "ORDER BY seq DESC LIMIT 1), ?) FROM audit_log", ("0" * 64,)).fetchone()
        fields = (str(seq), AT, "fixture", seal["object_type"] + ".fixture", seal["object_type"], str(oid),
                  "{}", prev, rh)
        eh = hashlib.sha256(b"".join(ns(f) for f in fields)).hexdigest()
        db.execute("INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, "
                   "entry_hash, row_hash) VALUES (?,?,?,?,?,?,?,?,?,?)", fields[:5] + (oid,) + fields[6:8] + (eh, rh))
db.commit()
# Into the main file: tests copy it with cp.
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
