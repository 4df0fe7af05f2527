#!/usr/bin/env python3
"""Check that every SLOTPROVE_* environment variable is in the one table
(`make check-env`).

Usage: python3 tests/check_env.py [TABLE]   (run from the repository root;
       TABLE defaults to tests/README.md)

A variable is *read* where
  - a C/CUDA source of common/ shm/ synthd/ gpud/ run/ tests/ holds the
    string literal "SLOTPROVE_NAME" on its own (getenv("SLOTPROVE_X"), or a
    helper given the name such as msm_tune("SLOTPROVE_MSM_SEG", ...));
    macros (SLOTPROVE_CUDA, include guards) are not string literals;
  - a shell script under tests/ or .ci/ expands $SLOTPROVE_NAME or
    ${SLOTPROVE_NAME...}.
The table is every Markdown table row of TABLE whose first cell is
`SLOTPROVE_NAME` (in backticks). Fails (exit 1), naming file and line, on a
variable read but not in the table, and on a row naming a variable that
nothing reads. Python 3 standard library only.
"""
import os
import re
import sys

ROOTS = ["common", "shm", "synthd", "gpud", "run", "tests"]
SKIP_DIRS = {"node_modules", "fixtures", "corpus", ".git"}
C_EXTS = (".c", ".h", ".cu", ".cuh")
C_READ = re.compile(r'"(SLOTPROVE_[A-Z0-9_]+)"')
SH_READ = re.compile(r'\$\{?(SLOTPROVE_[A-Z0-9_]+)')
ROW = re.compile(r'^\|\s*`(SLOTPROVE_[A-Z0-9_]+)`\s*\|')


def sources():
    for top in ROOTS + [".ci"]:
        for d, dirs, names in os.walk(top):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for n in sorted(names):
                p = os.path.join(d, n)
                if n.endswith(C_EXTS):
                    yield p, C_READ
                elif n.endswith(".sh") or p == ".ci/run":
                    yield p, SH_READ


def main(argv):
    table_path = argv[1] if len(argv) > 1 else "tests/README.md"
    reads = {}
    for path, rx in sources():
        with open(path, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                for m in rx.finditer(line):
                    reads.setdefault(m.group(1), []).append("%s:%d" % (path, lineno))
    listed = {}
    try:
        with open(table_path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                m = ROW.match(line)
                if m:
                    if m.group(1) in listed:
                        print("%s:%d: %s listed twice (first at line %d)"
                              % (table_path, lineno, m.group(1), listed[m.group(1)]))
                        return 1
                    listed[m.group(1)] = lineno
    except OSError as ex:
        print("check-env: cannot read the table %s: %s" % (table_path, ex.strerror))
        return 1
    bad = 0
    for name in sorted(set(reads) - set(listed)):
        print("check-env: %s is read (%s) but not in the table of %s"
              % (name, ", ".join(reads[name][:3]), table_path))
        bad += 1
    for name in sorted(set(listed) - set(reads)):
        print("check-env: %s:%d: %s is in the table but nothing reads it"
              % (table_path, listed[name], name))
        bad += 1
    if bad:
        print("check-env: FAILED (%d)" % bad)
        return 1
    print("check-env: %d SLOTPROVE_* variables, all read and all in %s"
          % (len(reads), table_path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
