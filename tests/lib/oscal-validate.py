#!/usr/bin/env python3
"""tests/lib/oscal-validate.py SCHEMA DOCUMENT: validates an OSCAL document
against NIST's JSON schema (draft-07) with python3-jsonschema and prints
each error with its JSON path; exit 0 when valid, 1 otherwise.

The OSCAL schema's one token pattern uses the Unicode classes \\p{L} and
\\p{N}, which Python's re module does not know; they are translated to
[^\\W\\d_] (letters) and \\d (digits) before matching."""
import json
import re
import sys

import jsonschema


def translate(pattern):
    return pattern.replace(r"\p{L}", r"[^\W\d_]").replace(r"\p{N}", r"\d")


def pattern_keyword(validator, pattern, instance, schema):
    if isinstance(instance, str) and not re.search(translate(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    cls = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": pattern_keyword})
    errors = list(cls(schema, format_checker=jsonschema.FormatChecker()).iter_errors(doc))
    for e in errors:
        print("/" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:400])
    print(f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
