#!/usr/bin/env python3
"""Check the include graph of slotprove's own sources (`make check-layout`).

Usage: python3 tests/check_layout.py [--graph] [--includes-only]
       (run from the repository root)

Nodes are modules: a path without its extension, so x.c + x.h (and x.cu +
x.cuh) are one node, a template header *_tmpl.h is a node of its own. An
arrow A -> B means a file of A has `#include "b.h"` naming a file of B, or
a function body in A calls a function that a .c/.cu file of B defines
(found by name: the call graph, so a .c without a header of its own that
implements part of another module's header shows its arrows too;
--includes-only leaves these out). Include names are resolved as the
compiler does with the Makefile's -I flags: a file beside the includer
first, else the one project file of that name (names matching several files
are reported). System headers and names that
no project file carries (<...>, node_modules, generated test data) are not
nodes.

Rooms, lowest first: common -> shm -> synthd | gpud -> run. A file may
include its own room and lower rooms only; synthd and gpud (two programs of
one level) include neither each other; tests/ may include anything and
nothing includes tests/ except tests/.

Inside gpud (SUBFOLDER_ROOMS; run/ has its own order of sub-rooms,
run/README.md), the subfolders of one folder are siblings that know nothing
of each other (gpud/cpu and gpud/cuda: no arrow between them, the
"sideways" check), and a room's own top-level files are what its
subfolders build on: a top-level module reaches into a subfolder only if
it is the room's one chooser (CHOOSERS: gpud/select names the backends).

Fails (exit 1) on
  - a cycle: every strongly connected component of more than one module is
    printed with one concrete circle and the #include lines that make it;
  - an arrow from a lower room to a higher one (or between synthd and gpud);
  - inside gpud, an arrow between sibling subfolders, or from the room's
    top level into a subfolder (other than from CHOOSERS).
--graph prints every arrow as well. Python 3 standard library only.
"""
import os
import re
import sys

ROOTS = ["common", "shm", "synthd", "gpud", "run", "tests"]
RANK = {"common": 0, "shm": 1, "synthd": 2, "gpud": 2, "run": 3, "tests": 4}
EXTS = (".c", ".h", ".cu", ".cuh")
SKIP_DIRS = {"node_modules", "fixtures", "corpus", ".git"}
SUBFOLDER_ROOMS = {"gpud"}
CHOOSERS = {"gpud/select"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module(path):
    return os.path.splitext(path)[0]


def room(path):
    return path.split("/", 1)[0]


def scan():
    files = []
    for top in ROOTS:
        for d, dirs, names in os.walk(top):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(EXTS)]
    return files


def resolve(inc, includer, by_name):
    here = os.path.normpath(os.path.join(os.path.dirname(includer), inc))
    if os.path.isfile(here):
        return here, None
    cands = [p for p in by_name.get(os.path.basename(inc), []) if p.endswith("/" + inc) or p == inc]
    if len(cands) == 1:
        return cands[0], None
    if not cands:
        return None, None
    same = [p for p in cands if room(p) == room(includer)]
    if len(same) == 1:
        return same[0], None
    return cands[0], "%s: \"%s\" names %d files (%s)" % (includer, inc, len(cands), ", ".join(cands))


COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
DEFINITION = re.compile(r'^(?!static\b|typedef\b|#)[A-Za-z_][\w \t*]*?[\s*](\w+)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{', re.M)
CALL = re.compile(r'\b(\w+)\s*\(')


def strip(text):
    """The text without comments, string and character literals (kept as
    spaces and blank lines so line numbers stay)."""
    return COMMENT.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def definitions(texts):
    """name -> defining file, for the external (non-static) functions of the
    .c and .cu files; a name defined in two files is left out."""
    seen = {}
    for f, text in texts.items():
        if not f.endswith((".c", ".cu")):
            continue
        for m in DEFINITION.finditer(text):
            name = m.group(1)
            if name in ("if", "for", "while", "switch", "return", "sizeof"):
                continue
            seen.setdefault(name, set()).add(f)
    return {n: next(iter(fs)) for n, fs in seen.items() if len(fs) == 1}


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative; returns the components of > 1 node."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def circle(comp, edges):
    """A shortest circle through comp[0] inside the component (BFS)."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def main(argv):
    files = scan()
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    edges, why, problems = {}, {}, []
    texts = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            texts[f] = fh.read()
    for f in files:
        if True:
            for lineno, line in enumerate(texts[f].splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target, warn = resolve(m.group(1), f, by_name)
                if warn:
                    problems.append("ambiguous include: " + warn)
                if target is None:
                    continue
                a, b = module(f), module(target)
                if a == b:
                    continue
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), "%s:%d: #include \"%s\"" % (f, lineno, m.group(1)))
    # calls: a function body (inside braces, so not a prototype) calling a
    # function that another module's .c/.cu defines depends on that module,
    # even where the declaration sits in a third header (e.g. a .c with no
    # header of its own implementing part of another module's header).
    defs = {} if "--includes-only" in argv else definitions({f: strip(t) for f, t in texts.items()})
    for f in files:
        if room(f) == "tests":
            continue
        depth = 0
        for lineno, line in enumerate(strip(texts[f]).splitlines(), 1):
            # calls sit inside braces: prototypes at file level are not calls
            inner = []
            for ch in line:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                inner.append(ch if depth > 0 else " ")
            if line.lstrip().startswith("#"):
                continue
            for m in CALL.finditer("".join(inner)):
                d = defs.get(m.group(1))
                if d is None or room(d) == "tests":
                    continue
                a, b = module(f), module(d)
                if a == b:
                    continue
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), "%s:%d: calls %s() of %s" % (f, lineno, m.group(1), d))
    nodes = sorted({module(f) for f in files})

    if "--graph" in argv:
        for a in nodes:
            for b in sorted(edges.get(a, ())):
                print("%s -> %s" % (a, b))

    upward = []
    for a in nodes:
        for b in sorted(edges.get(a, ())):
            ra, rb = room(a), room(b)
            if ra == "tests" or ra == rb:
                continue
            if rb == "tests" or RANK[rb] > RANK[ra] or (RANK[rb] == RANK[ra]):
                upward.append("  %s (%s) -> %s (%s)   %s" % (a, ra, b, rb, why[(a, b)]))

    # inside a room: sibling subfolders apart, the top level below them
    inner = []
    for a in nodes:
        for b in sorted(edges.get(a, ())):
            if room(a) != room(b) or room(a) not in SUBFOLDER_ROOMS:
                continue
            pa, pb = a.split("/"), b.split("/")
            i = 0
            while i < min(len(pa), len(pb)) - 1 and pa[i] == pb[i]:
                i += 1
            a_sub, b_sub = len(pa) > i + 1, len(pb) > i + 1
            if a_sub and b_sub and pa[i] != pb[i]:
                inner.append("  %s -> %s (sideways, between sibling folders)   %s" % (a, b, why[(a, b)]))
            elif i == 1 and not a_sub and b_sub and a not in CHOOSERS:
                inner.append("  %s -> %s (up, from %s's top level into a subfolder)   %s"
                             % (a, b, room(a), why[(a, b)]))

    comps = sccs(nodes, edges)
    for c in comps:
        path = circle(c, edges)
        lines = ["cycle of %d modules: %s" % (len(c), " ".join(c)),
                 "  circle: " + " -> ".join(path)]
        for a, b in zip(path, path[1:]):
            lines.append("    " + why[(a, b)])
        problems.append("\n".join(lines))
    if inner:
        problems.append("arrows inside a room against its folders (siblings apart, subfolders above "
                        "the top level):\n" + "\n".join(inner))
    if upward:
        problems.append("arrows against the room order (common -> shm -> synthd | gpud -> run):\n"
                        + "\n".join(upward))

    print("check-layout: %d files, %d modules, %d arrows"
          % (len(files), len(nodes), sum(len(v) for v in edges.values())))
    if problems:
        for p in problems:
            print(p)
        print("check-layout: FAILED (%d cycles, %d arrows against the room order, %d inside a room)"
              % (len(comps), len(upward), len(inner)))
        return 1
    print("check-layout: no cycles, every arrow goes down the room order")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
