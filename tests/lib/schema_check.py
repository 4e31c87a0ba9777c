#!/usr/bin/env python3
"""Validate a command's --json output against docs/schema/CMD.json: schema_check.py CMD FILE|-.

schema_check.py --batch DIR checks many in one start (ktap_schema under KTAP_SCHEMA_BATCH): DIR/list
has a line "CMD<tab>description" per check, DIR/N.json the N-th document (from 1); one line "N ok"
or "N error..." per check goes to stdout.
"""
import json
import os
import sys

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "schema")


def check(cmd, path, out):
    """0 when the document at path fits CMD's schema; its problems (10 at most) go to out."""
    try:
        with open(os.path.join(SCHEMA_DIR, cmd + ".json")) as f:
            schema = json.load(f)
    except OSError as e:
        print("schema_check: no schema for '%s': %s" % (cmd, e), file=out)
        return 2
    try:
        doc = json.load(sys.stdin if path == "-" else open(path))
    except (OSError, ValueError) as e:
        print("schema_check: %s: not JSON: %s" % (path, e), file=out)
        return 1
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:10]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print("schema_check: %s: %s: %s" % (path, where, e.message[:300]), file=out)
    return 1 if errors else 0


class Prefixed:
    """A file-like object that prints every line it is given after a prefix."""

    def __init__(self, prefix):
        self.prefix = prefix

    def write(self, s):
        for line in s.splitlines():
            if line:
                print(self.prefix + line)


def batch(d):
    with open(os.path.join(d, "list")) as f:
        items = [line.rstrip("\n").split("\t", 1)[0] for line in f if line.strip()]
    for i, cmd in enumerate(items, 1):
        if check(cmd, os.path.join(d, "%d.json" % i), Prefixed("%d " % i)) == 0:
            print("%d ok" % i)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--batch":
        return batch(sys.argv[2])
    if len(sys.argv) != 3:
        print("usage: schema_check.py CMD FILE|-", file=sys.stderr)
        return 2
    return check(sys.argv[1], sys.argv[2], sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
