#!/usr/bin/env python3
# tests/lib/seal-rows.py DB: seals rows a test wrote with SQL, as aivet's writers
# would have: for every sealed object (aivet audit tables --json names the
# object types and the rows each seal covers) whose rows no audit entry
# records, or whose newest entry no longer matches them, it appends an entry
# carrying the rows' hash, in the canonical encoding aivet(1) documents, with
# an action the registry allows (one that creates the row, or edits it); a
# sealed box with no record of its sealing gets its blob_seal row first.
# Fixtures use it so that their database passes 'aivet audit verify', as one
# written by aivet itself does. Needs $AIVET.
import hashlib, json, os, sqlite3, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sealing import AT, append, registry, row_seal

db = sqlite3.connect(sys.argv[1])
db.create_function("aivet_writing", 0, lambda: 1)
reg = registry()

# An edit's details carry the fields it changed, as aivet's vendor and endpoint
# edits write them (audit verify compares the newest with the row): the
# fixture does not know which changed, so it names each with its value.
EDIT_FIELDS = {
    "vendor.edit": ("vendor", ["name", "criticality", "contact", "notes"]),
    "endpoint.edit": ("endpoint", ["name", "api", "url", "model", "context_tokens", "allow_insecure_http",
                                   "price_in_per_mtok", "price_out_per_mtok"]),
}


def details(action, oid):
    if action not in EDIT_FIELDS:
        return "{}"
    table, cols = EDIT_FIELDS[action]
    row = db.execute("SELECT %s FROM %s WHERE id = ?" % (", ".join(cols), table), (oid,)).fetchone()
    return json.dumps(dict(zip(cols, row)), separators=(",", ":"))


for sha, size, data in db.execute("SELECT b.sha256, b.size, b.data FROM blob b WHERE b.encrypted <> 0 "
                                  "AND NOT EXISTS (SELECT 1 FROM blob_seal s WHERE s.sha256 = b.sha256) "
                                  "ORDER BY b.sha256").fetchall():
    db.execute("INSERT INTO blob_seal (sha256, size, data_sha256, sealed_at) VALUES (?,?,?,?)",
               (sha, size, hashlib.sha256(data).hexdigest(), AT))

for seal in reg["seals"]:
    main = seal["parts"][0]
    for (oid,) in db.execute("SELECT %s FROM %s ORDER BY %s" % (main["key"], main["table"], main["key"])).fetchall():
        rh, content = row_seal(db, seal, oid)
        last = db.execute("SELECT row_hash FROM audit_log WHERE object_type = ? AND object_id = ? "
                          "ORDER BY seq DESC LIMIT 1", (seal["object_type"], oid)).fetchone()
        if last is not None and last[0] in (None, rh):
            continue
        # Written with the action that creates such a row; a row changed after it
        # was sealed is re-sealed by an action that edits it, if its kind has one.
        if last is None:
            action = seal["creates"].split()[0]
        elif seal["edits"]:
            action = seal["edits"].split()[0]
        else:
            sys.exit("seal-rows.py: %s %s was changed after it was sealed, and is sealed once"
                     % (seal["object_type"], oid))
        append(db, "fixture", action, seal["object_type"], oid, details(action, oid), rh, content)
db.commit()
# Into the main file: tests copy it with cp.
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
