#!/usr/bin/env python3
"""Validate a command's --json output against docs/schema/CMD.json: schema_check.py CMD FILE|-."""
import json
import os
import sys

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "schema")


def main():
    if len(sys.argv) != 3:
        print("usage: schema_check.py CMD FILE|-", file=sys.stderr)
        return 2
    cmd, path = sys.argv[1], sys.argv[2]
    try:
        with open(os.path.join(SCHEMA_DIR, cmd + ".json")) as f:
            schema = json.load(f)
    except OSError as e:
        print("schema_check: no schema for '%s': %s" % (cmd, e), file=sys.stderr)
        return 2
    try:
        doc = json.load(sys.stdin if path == "-" else open(path))
    except (OSError, ValueError) as e:
        print("schema_check: %s: not JSON: %s" % (path, e), file=sys.stderr)
        return 1
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:10]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print("schema_check: %s: %s: %s" % (path, where, e.message[:300]), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
