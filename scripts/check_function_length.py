#!/usr/bin/env python3
"""scripts/check_function_length.py — every function under src/ fits on a screen (issue 32).

A function's length is counted from the first line of its head (return type, name, parameters,
initializers) to its closing brace, comments included. A function over LIMIT lines fails unless
it is listed in OVER below with its length today; a listed one fails when it grows past that
length, and an entry whose function is gone or now fits fails too, so the list only shrinks.
Exit status 1 and one line per problem when anything fails.

  scripts/check_function_length.py [--root DIR] [--self-test] [-v]
"""

import argparse
import os
import re
import sys
import tempfile

LIMIT = 80
ROOTS = ("src",)
EXTS = (".cpp", ".hpp", ".cu", ".cuh", ".h")

# (file, function): its length when the check came (2026-11-29). Each is to be split; none may grow.
OVER = {
    ("src/cuda/cuda_backend.cu", "run_typed"): 204,
    ("src/multigpu/user_order.cuh", "gather_user"): 154,
    ("src/mpi/gpu_ranks.cpp", "run_gpu_ranks"): 132,
    ("src/io/gzip.cpp", "gunzip"): 120,
    ("src/cuda/kernels/paths.cuh", "closure_paths"): 115,
    ("src/cuda/kernels/distances.cuh", "gemm_tile"): 112,
    ("src/pipeline/pipeline.cpp", "solve_file"): 110,
    ("src/multigpu/multigpu_backend.cu", "run_typed"): 95,
    ("src/cuda/kernels/sparse_rows.cuh", "sn_minplus"): 94,
    ("src/cuda/device_solver_out.cuh", "run_schedule"): 92,
    ("src/io/edgelist.cpp", "read_edgelist"): 90,
    ("src/io/output_prefill.cpp", "prefill"): 90,
    ("src/multigpu/rounds_paths.cuh", "panels"): 89,
    ("src/mpi/gpu_ranks.cpp", "choose_device"): 85,
}

CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|try|return)\b")
FUNC_HEAD = re.compile(r"\)\s*(const|noexcept|override|final|mutable|volatile|&|&&|\s)*"
                       r"(->\s*[\w:<>,\s*&]+)?\s*$")
LAMBDA = re.compile(r"\]\s*\([^()]*\)\s*(mutable|noexcept|\s)*(->[^{]*)?$")
DECORATION = re.compile(r"__launch_bounds__\s*\([^()]*(\([^()]*\))?[^()]*\)|"
                        r"__attribute__\s*\(\(.*?\)\)|alignas\s*\([^()]*\)")


def strip(text):
    """Comments and string/char literals blanked out; newlines kept (line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == '"' and i > 0 and text[i - 1] == "R":  # raw string R"d( ... )d"
                m = re.match(r'"([^(\s]*)\(', text[i:])
                end = text.find(")" + (m.group(1) if m else "") + '"', i)
                j = n if end < 0 else end + len(m.group(1) if m else "") + 2
            else:
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if text[j] == "\\" else 1
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def name_of(head):
    """The function's name in its head: the identifier before the first top-level '('."""
    head = DECORATION.sub(" ", head)
    depth = 0
    for k, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            m = re.search(r"(operator\s*\S+|~?\w+)\s*$", head[:k])
            return m.group(1).replace(" ", "") if m else "?"
    return "?"


def functions(path):
    """[(name, first line, last line)] of the outermost function bodies in one file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip(f.read())
    found, stack, start = [], [], 0  # stack: (is_function, head line, name)
    line = 1
    for i, ch in enumerate(code):
        if ch == "\n":
            line += 1
        elif ch in ";{}":
            if ch == "{":
                head = code[start:i]
                flat = " ".join(head.split())
                is_fn = (bool(FUNC_HEAD.search(flat)) and not CONTROL.match(flat)
                         and not LAMBDA.search(flat) and not any(s[0] for s in stack))
                first = line - head.count("\n") + (len(head) - len(head.lstrip()) and
                                                   head[:len(head) - len(head.lstrip())].count("\n"))
                stack.append((is_fn, first, name_of(flat) if is_fn else ""))
            elif ch == "}" and stack:
                is_fn, first, name = stack.pop()
                if is_fn:
                    found.append((name, first, line))
            start = i + 1
    return found


def check(root, verbose=False):
    problems, seen = [], {}
    for top in ROOTS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                for name, first, last in functions(path):
                    n = last - first + 1
                    key = (rel, name)
                    if n > LIMIT:
                        seen[key] = max(seen.get(key, 0), n)
                    if verbose and n > LIMIT:
                        print(f"{rel}:{first}: {name}: {n} lines")
    for key, n in sorted(seen.items()):
        allowed = OVER.get(key)
        if allowed is None:
            problems.append(f"{key[0]}: {key[1]} has {n} lines (at most {LIMIT}): split it")
        elif n > allowed:
            problems.append(f"{key[0]}: {key[1]} grew to {n} lines (listed at {allowed}, the "
                            f"limit is {LIMIT}): split it")
    for key in sorted(set(OVER) - set(seen)):
        problems.append(f"{key[0]}: {key[1]} now fits (or is gone): remove it from OVER in "
                        f"scripts/check_function_length.py")
    return problems


def self_test():
    """Planted cases: a long function fails, a long class body or initializer does not."""
    body = "\n".join(f"  x += {k};" for k in range(LIMIT + 5))
    cases = {
        "long.cpp": (f"int f(int x) {{\n{body}\n  return x;\n}}\n", 1),
        "class.hpp": ("struct S {\n" + "\n".join(f"  int a{k};" for k in range(LIMIT + 5)) +
                      "\n  int g() const { return 1; }\n};\n", 0),
        "init.cpp": ("const int t[] = {\n" + ",\n".join(str(k) for k in range(LIMIT + 5)) +
                     "};\n", 0),
        "lambda.cpp": ("auto g = [](int x) {\n" + body + "\n  return x;\n};\n", 0),
        "short.cu": ("template <class T>\n__global__ void __launch_bounds__(256) k(T* p) {\n"
                     "  if (p) {\n    p[0] = T(0);\n  }\n}\n", 0),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "src"))
        for name, (text, expect) in cases.items():
            for other in os.listdir(os.path.join(tmp, "src")):
                os.remove(os.path.join(tmp, "src", other))
            with open(os.path.join(tmp, "src", name), "w", encoding="utf-8") as f:
                f.write(text)
            got = [p for p in check(tmp) if "OVER" not in p]
            if len(got) != expect:
                print(f"self-test {name}: expected {expect} problem(s), got {got}")
                failed += 1
    names = [n for n, _, _ in functions_of_text("template <class T>\n__global__ void "
                                                "__launch_bounds__(256, 2) sn_stream(T* t) {\n}\n")]
    if names != ["sn_stream"]:
        print(f"self-test names: {names}")
        failed += 1
    print(f"check_function_length: self-test: {'ok' if not failed else 'FAILED'}")
    return 1 if failed else 0


def functions_of_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".cuh", delete=False, encoding="utf-8") as f:
        f.write(text)
    try:
        return functions(f.name)
    finally:
        os.remove(f.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    problems = check(os.path.abspath(a.root), a.verbose)
    for p in problems:
        print(p)
    print(f"check_function_length: {len(problems)} problem(s), {len(OVER)} listed over {LIMIT}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
