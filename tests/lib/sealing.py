# tests/lib/sealing.py: the canonical encoding aivet(1) documents, for tests
# that write audit entries themselves (seal-rows.py seals fixtures;
# audit-append.py plays an insider appending entries with the sqlite3 shell's
# powers). Row seals follow 'aivet audit tables --json'; needs $AIVET.
import hashlib, json, os, subprocess

AT = "2026-01-01T00:00:00.000Z"


def ns(s):
    b = s.encode()
    return str(len(b)).encode() + b":" + b + b","


def registry():
    return json.loads(subprocess.run([os.environ["AIVET"], "audit", "tables", "--json"],
                                     check=True, capture_output=True, text=True).stdout)


def row_seal(db, seal, oid):
    """The row hash of an object and its full content, as audit_append() writes them."""
    h = hashlib.sha256(ns(seal["object_type"]) + ns(str(oid)))
    content = []
    for p in seal["parts"]:
        names = [c.strip() for c in p["columns"].split(",")]
        cols = ", ".join("CAST(%s AS TEXT)" % c for c in names)
        where = p["key"] + " = ?" + (" AND " + p["where"] if p["where"] else "")
        rows = db.execute("SELECT %s FROM %s WHERE %s ORDER BY %s" % (cols, p["table"], where, p["order"]),
                          (oid,)).fetchall()
        if not p["only_when_rows"] or rows:
            h.update(ns(p["table"]))
        for r in rows:
            for v in r:
                h.update(b"~" if v is None else ns(v))
        content.append({"table": p["table"], "rows": [dict(zip(names, r)) for r in rows]})
    return h.hexdigest(), json.dumps(content, separators=(",", ":"), ensure_ascii=False)


def row_hash(db, seal, oid):
    return row_seal(db, seal, oid)[0]


def append(db, actor, action, otype, oid, details, rh, content=None):
    """Appends the next entry, chained to the head, with row hash rh (None: none)
    and full content (None: none)."""
    seq, prev = db.execute("SELECT coalesce(max(seq), 0) + 1, coalesce((SELECT entry_hash FROM audit_log "
                           "ORDER BY seq DESC LIMIT 1), ?) FROM audit_log", ("0" * 64,)).fetchone()
    fields = (str(seq), AT, actor, action, otype, str(oid), details, prev) + ((rh,) if rh else ())
    eh = hashlib.sha256(b"".join(ns(f) for f in fields)).hexdigest()
    db.execute("INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, "
               "entry_hash, row_hash, content) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               (seq, AT, actor, action, otype, oid, details, prev, eh, rh, content))
    return seq
