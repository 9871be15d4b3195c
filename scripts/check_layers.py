#!/usr/bin/env python3
"""scripts/check_layers.py — the layers of docs/architecture.md, checked.

The table under "## Layers, as checked" in docs/architecture.md gives every part of the tree a
level; a file belongs to the row whose path is the longest prefix of its own. A file may include
(C++ `#include "..."`) or import (python/apsp) only files of its own row or of rows of a lower
level; a file of a room (a row whose "includes" cell says `api`: apps/, python/src/) only the
public API (level 0) and files under its own row's path. Also checked: every src/ folder has a row
and every row's path exists (--map), and kernel launches (`<<<`) appear only in src/cuda/launch.cuh
(dev/, the kernel lab, is not scanned). Exceptions are listed in ALLOWED below, one reason each; an
entry that no longer matches fails too, so the list only shrinks. Exit status 1 and one line per
problem when anything fails.

  scripts/check_layers.py [--root DIR] [--map] [--self-test] [-v]
"""

import argparse
import ast
import os
import re
import shutil
import sys
import tempfile

DOC = "docs/architecture.md"
HEADING = "## Layers, as checked"
CPP_ROOTS = ("include", "src", "apps", "python/src")
CPP_EXTS = (".hpp", ".cpp", ".cu", ".cuh", ".h")
INCLUDE_DIRS = ("src", "include", "apps", "python/src")
PY_PACKAGE = "python/apsp"
LAUNCH_LAYER = "src/cuda/launch.cuh"

# (file, what it includes or imports, or "<<<" for a kernel launch): the reason it stays for now.
ALLOWED = {
    ("src/cuda/baseline_fw.cuh", "<<<"):
        "the course-style baseline of `apsp bench` (not a backend's kernel): belongs in dev/",
    ("src/cuda/ceiling.cuh", "<<<"):
        "the min-plus ceiling probe of `apsp bench` (not a backend's kernel): belongs in dev/",
}

# The "includes" cell of a room's row: its files include only the public API and their own.
ROOM = "api"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_layers(root):
    """[(level, name, path, includes)] from the table under HEADING in docs/architecture.md;
    includes is ROOM for a room (the public API and its own files only), else ""."""
    with open(os.path.join(root, DOC), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if HEADING not in lines:
        raise SystemExit(f"{DOC}: no '{HEADING}' section")
    rows = []
    for line in lines[lines.index(HEADING) + 1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        includes = cells[3] if len(cells) > 3 else ""
        if includes not in ("", ROOM):
            raise SystemExit(f"{DOC}: row {cells[1]}: includes '{includes}' (expected '{ROOM}' "
                             f"or nothing)")
        for path in re.findall(r"`([^`]+)`", cells[2]):
            rows.append((int(cells[0]), cells[1], path, includes))
    if not rows:
        raise SystemExit(f"{DOC}: the '{HEADING}' table has no rows")
    return rows


def layer_of(rows, path):
    """The row (level, name, path) whose path is the longest prefix of `path`, or None."""
    best = None
    for row in rows:
        p = row[2]
        if path == p or (p.endswith("/") and path.startswith(p)):
            if best is None or len(p) > len(best[2]):
                best = row
    return best


def source_files(root, top, exts):
    base = os.path.join(root, top)
    for d, dirs, files in os.walk(base):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(exts):
                yield os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")


def resolve_include(root, src, inc):
    """The repository path `#include "inc"` in `src` names, or None (a system or third-party
    header): the including file's folder first, then the include directories."""
    for d in (os.path.dirname(src),) + INCLUDE_DIRS:
        cand = os.path.normpath(os.path.join(d, inc)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def strip_comment(line):
    return line.split("//", 1)[0]


def cpp_edges(root):
    """(file, included file) for every quoted include under CPP_ROOTS, and (file, "<<<") for
    every line with a kernel launch outside a comment."""
    edges = []
    for top in CPP_ROOTS:
        for src in source_files(root, top, CPP_EXTS):
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE_RE.match(line)
                    if m:
                        target = resolve_include(root, src, m.group(1))
                        if target:
                            edges.append((src, target))
                    elif "<<<" in strip_comment(line) and src != LAUNCH_LAYER:
                        edges.append((src, "<<<"))
    return sorted(set(edges))


def py_module_path(root, name):
    """python/apsp/NAME.py, or the bindings (python/src/) for the extension _core."""
    if name == "_core":
        return "python/src/"
    path = f"{PY_PACKAGE}/{name}.py"
    return path if os.path.isfile(os.path.join(root, path)) else None


def py_targets(root, node):
    """The package modules an Import / ImportFrom node of a module in python/apsp names."""
    pkg = f"{PY_PACKAGE}/__init__.py"
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name == "apsp" or a.name.startswith("apsp.")]
        return [py_module_path(root, n.split(".")[1]) if "." in n else pkg for n in names]
    if node.level == 0 and node.module != "apsp" and not (node.module or "").startswith("apsp."):
        return []
    if node.level > 1:
        return []
    module = node.module if node.level == 1 else (node.module or "")[len("apsp"):].lstrip(".")
    if module:
        return [py_module_path(root, module.split(".")[0])]
    return [py_module_path(root, a.name) or pkg for a in node.names]


def py_edges(root):
    """(module file, imported module file) for every import of the package, lazy ones too."""
    edges = []
    for src in source_files(root, PY_PACKAGE, (".py",)):
        with open(os.path.join(root, src), encoding="utf-8") as f:
            tree = ast.parse(f.read(), src)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges += [(src, t) for t in py_targets(root, node) if t and t != src]
    return sorted(set(edges))


def py_cycles(edges):
    """Import circles among the package's modules, each as a list of files."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return cycles


def check_edge(rows, src, dst):
    """The problem with `src` including or importing `dst` (dst "<<<": a kernel launch), or None."""
    if dst == "<<<":
        return f"{src}: a kernel launch (<<<) outside {LAUNCH_LAYER}"
    a, b = layer_of(rows, src), layer_of(rows, dst)
    if a is None or b is None:
        return None  # reported once per file by check_coverage
    if a[3] == ROOM:  # a room: the public API, and the files under its own path
        if b[0] == 0 or dst.startswith(a[2]):
            return None
        return (f"{src} ({a[1]}, a room) -> {dst} ({b[1]}, level {b[0]}): not the public API "
                f"(include/apsp/); see {DOC}")
    if a[:2] == b[:2] or b[0] < a[0]:  # one table row (its paths) is one layer
        return None
    how = "same level" if a[0] == b[0] else "upward"
    return (f"{src} ({a[1]}, level {a[0]}) -> {dst} ({b[1]}, level {b[0]}): {how}; "
            f"see {DOC}")


def check_coverage(rows, files):
    return [f"{f}: no row of {DOC} '{HEADING}' covers it" for f in files
            if layer_of(rows, f) is None]


def check_map(root, rows):
    """Every src/ folder has a row; every row's path exists."""
    problems = []
    for name in sorted(os.listdir(os.path.join(root, "src"))):
        if os.path.isdir(os.path.join(root, "src", name)) and \
                not any(r[2] == f"src/{name}/" for r in rows):
            problems.append(f"src/{name}/: missing from {DOC} '{HEADING}'")
    for _, name, path, _ in rows:
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"{DOC}: row {name}: {path} does not exist")
    return problems


def check(root, map_only=False, verbose=False):
    """Every problem found under `root`, one line each."""
    rows = read_layers(root)
    problems = check_map(root, rows)
    if map_only:
        return problems
    files = [f for top in CPP_ROOTS for f in source_files(root, top, CPP_EXTS)]
    files += list(source_files(root, PY_PACKAGE, (".py",)))
    problems += check_coverage(rows, files)
    py = py_edges(root)
    used = set()
    for src, dst in cpp_edges(root) + py:
        problem = check_edge(rows, src, dst)
        if problem and (src, dst) in ALLOWED:
            used.add((src, dst))
            if verbose:
                print(f"allowed: {problem} ({ALLOWED[(src, dst)]})")
        elif problem:
            problems.append(problem)
    problems += [f"python import circle: {' -> '.join(c)}" for c in py_cycles(py)]
    problems += [f"allow-list entry no longer needed: {k[0]} -> {k[1]} (remove it)"
                 for k in sorted(set(ALLOWED) - used)]
    return problems


def self_test(root):
    """Copies the map into a scratch tree, plants one violation of each kind and expects each
    to be reported; the clean scratch tree must pass."""
    tmp = tempfile.mkdtemp(prefix="check_layers.")
    try:
        os.makedirs(os.path.join(tmp, "docs"))
        shutil.copy(os.path.join(root, DOC), os.path.join(tmp, DOC))
        for _, _, path, _ in read_layers(root):
            full = os.path.join(tmp, path)
            os.makedirs(full if path.endswith("/") else os.path.dirname(full), exist_ok=True)
            if not path.endswith("/"):
                open(full, "w").close()
        for key in ALLOWED:  # the allowed violations, so that their entries are used
            write(tmp, key[0], "k<<<1, 1>>>();\n" if key[1] == "<<<" else
                  f'#include "{key[1].split("/", 1)[1]}"\n')
            if key[1] != "<<<":
                write(tmp, key[1], "")
        # A room's allowed includes: the public API, its own files (a sub-row's too).
        write(tmp, "include/apsp/pub.hpp", "")
        write(tmp, "apps/sub/own.hpp", "")
        write(tmp, "apps/ok.cpp", '#include "apsp/pub.hpp"\n#include "sub/own.hpp"\n')
        clean = check(tmp)
        if clean:
            return ["self-test: the clean scratch tree fails:"] + clean
        planted = {
            "src/core/up.hpp": ('#include "order/low.hpp"\n', "upward"),
            "src/order/low.hpp": ("", None),
            "src/multigpu/launch.cuh": ("k<<<1, 1>>>();\n", "kernel launch"),
            f"{PY_PACKAGE}/_inputs.py": ("from . import networkx\n", None),
            f"{PY_PACKAGE}/networkx.py": ("from . import _inputs\n", "import circle"),
            "apps/room.cpp": ('#include "order/low.hpp"\n', "apps/room.cpp (apps, a room)"),
            "python/src/room.cpp": ('#include "core/up.hpp"\n',
                                    "python/src/room.cpp (bindings, a room)"),
        }
        for path, (text, _) in planted.items():
            write(tmp, path, text)
        os.makedirs(os.path.join(tmp, "src", "unmapped"))
        got = "\n".join(check(tmp))
        expect = [w for _, w in planted.values() if w] + ["src/unmapped/: missing"]
        return [f"self-test: '{w}' not reported" for w in expect if w not in got]
    finally:
        shutil.rmtree(tmp)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--map", action="store_true", help="only: every src/ folder is on the map")
    ap.add_argument("--self-test", action="store_true", help="plant violations, expect them")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list allowed violations")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems = self_test(root) if args.self_test else check(root, args.map, args.verbose)
    for p in problems:
        print(p)
    what = "self-test" if args.self_test else "map" if args.map else "layers"
    print(f"check_layers: {what}: {'FAIL, ' + str(len(problems)) if problems else 'ok, 0'} "
          f"problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
