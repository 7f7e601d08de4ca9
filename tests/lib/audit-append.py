#!/usr/bin/env python3
# tests/lib/audit-append.py DB ACTION TYPE ID none|row [DETAILS]: appends one
# audit entry as an insider with the sqlite3 shell could, chained to the head
# with the documented encoding: without a row hash (none), or with the hash and
# the full content of the row as it is now (row); its details DETAILS (default
# {}). Prints the entry's seq. Needs $AIVET.
import os, sqlite3, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sealing import append, registry, row_seal

db_path, action, otype, oid, mode = sys.argv[1:6]
details = sys.argv[6] if len(sys.argv) > 6 else "{}"
db = sqlite3.connect(db_path)
rh = content = None
if mode == "row":
    seal = next(s for s in registry()["seals"] if s["object_type"] == otype)
    rh, content = row_seal(db, seal, int(oid))
print(append(db, "mallory", action, otype, int(oid), details, rh, content))
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
