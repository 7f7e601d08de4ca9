#!/usr/bin/env python3
"""tests/lib/adapter-schemas.py SCHEMA-DIR BODIES: validates each request body
that tests/unit/test-provider --dump-requests wrote (one JSON line each: case,
schema file, definition, expected result, body) against the definition in
the vendor's schema excerpt (JSON Schema draft-07, python3-jsonschema).
Prints one tab-separated line per body: case, expected, result
(valid/invalid) and the first error with its JSON path."""
import json
import os
import sys

import jsonschema


def main():
    schemas = {}
    for line in open(sys.argv[2]):
        d = json.loads(line)
        if d["schema"] not in schemas:
            with open(os.path.join(sys.argv[1], d["schema"])) as f:
                schemas[d["schema"]] = json.load(f)
            jsonschema.Draft7Validator.check_schema(schemas[d["schema"]])
        root = dict(schemas[d["schema"]])
        root["$ref"] = "#/definitions/" + d["definition"]
        errors = sorted(jsonschema.Draft7Validator(root).iter_errors(d["body"]),
                        key=lambda e: list(e.absolute_path))
        why = ""
        if errors:
            e = errors[0]
            why = "/" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:200]
        print("\t".join([d["case"], d["expect"], "invalid" if errors else "valid", why]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
