#!/usr/bin/env python3
"""Bounded fuzzing of apsp's input paths (issue 36): mutated NTHU / DIMACS / Matrix Market /
edge-list / gzip / .npy inputs through `apsp solve`, and malformed SciPy matrices through the
Python module. Every case must end in exit 0 or one error line "apsp: error: ..." with exit 1-5,
within --max-seconds and --max-rss-mb (peak RSS of that child, from os.wait4), half of them also
under an address-space limit of 1 GiB (prlimit --as=1G), and leave no temporary file behind.
APSP_HOST_MEMORY is set small, so a mutated header that promises a large graph must be refused
by the memory rule, never allocated. Seeded: a failure prints the seed and the input to replay.

usage: fuzz_hostile.py --apsp build/cpu-only/apsp [--seconds 45] [--seed S] [--python-path DIR]
"""
import argparse
import gzip
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time

HOST_MEMORY = 4_000_000  # V <= 1000 fits: a valid mutant solves at once
AS_LIMIT = 1 << 30


def seeds():
    """(name, bytes) of small valid inputs in every format."""
    edges = [(0, 1, 5), (1, 2, 7), (2, 0, 3), (2, 3, 1), (3, 1, 2)]
    nthu = struct.pack("<2i", 4, len(edges)) + b"".join(struct.pack("<3i", *e) for e in edges)
    gr = "p sp 4 5\n" + "".join(f"a {u + 1} {v + 1} {w}\n" for u, v, w in edges)
    mtx = ("%%MatrixMarket matrix coordinate integer general\n4 4 5\n" +
           "".join(f"{u + 1} {v + 1} {w}\n" for u, v, w in edges))
    el = "# vertices: 4\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges)
    npy = b"\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }" + \
        b" " * 45 + b"\n" + struct.pack("<4i", 0, 1, 1, 0)
    out = [("g.bin", nthu), ("g.gr", gr.encode()), ("g.mtx", mtx.encode()), ("g.txt", el.encode()),
           ("g.npy", npy)]
    out += [(n + ".gz", gzip.compress(b, mtime=0)) for n, b in out[:4]]
    return out


EXTREMES = [b"2147483647", b"-2147483648", b"536870911", b"134217727", b"-1e308", b"1e308",
            b"nan", b"-1", b"0", b"99999999999999999999", b"%%MatrixMarket", b"\xef\xbb\xbf"]


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        at = rng.randrange(len(b) + 1)
        if op == 0 and b:  # flip a byte
            b[min(at, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:  # insert random bytes
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2:  # truncate
            del b[at:]
        elif op == 3 and len(b) >= 4:  # an extreme int32 in binary data
            at = min(at, len(b) - 4)
            b[at:at + 4] = struct.pack("<i", rng.choice([2**31 - 1, -1, 65536, 536870911, 0]))
        elif op == 4:  # an extreme token in text
            b[at:at] = b" " + rng.choice(EXTREMES) + b" "
        elif op == 5:  # prepend what hides a banner or a header
            b[0:0] = rng.choice([b"\n", b"% c\n", b"  ", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff\xfe"])
        else:  # repeat a slice
            end = min(len(b), at + rng.randint(1, 64))
            b[at:at] = b[at:end] * rng.randint(1, 50)
    return bytes(b)


def limit_as():
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def run_case(apsp, workdir, name, data, capped, max_s):
    """Problems found (strings) for one input."""
    path = os.path.join(workdir, name)
    with open(path, "wb") as f:
        f.write(data)
    out = os.path.join(workdir, "out.bin")
    env = dict(os.environ, APSP_HOST_MEMORY=str(HOST_MEMORY), OMP_NUM_THREADS="2")
    t0 = time.monotonic()
    p = subprocess.Popen([apsp, "solve", path, out, "-q"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env, preexec_fn=limit_as if capped else None)
    err = b""
    deadline = t0 + max(10 * max_s, 10)
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            p.kill()
            _, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.002)
    seconds = time.monotonic() - t0
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    p.returncode = 0  # reaped above
    problems = []
    if os.WIFSIGNALED(status):
        problems.append(f"killed by signal {os.WTERMSIG(status)}")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if code not in (0, 1, 2, 3, 4, 5):  # 1: e.g. an NTHU output that cannot hold a distance
        problems.append(f"exit code {code}")
    if code != 0 and (not err.startswith("apsp: error: ") or err.count("\n") != 1):
        problems.append(f"not one error line: {err!r}")
    if seconds > max_s:
        problems.append(f"{seconds:.3f} s")
    rss_mb = ru.ru_maxrss / 1024
    return problems, rss_mb, seconds, code


def left_temps(workdir):
    return [n for n in os.listdir(workdir) if ".tmp." in n]


def fuzz_cli(args, rng, stop_at):
    cases, found, worst_rss, worst_s = 0, 0, 0.0, 0.0
    pool = seeds()
    with tempfile.TemporaryDirectory(prefix="apsp-fuzz-") as workdir:
        while time.monotonic() < stop_at:
            name, data = rng.choice(pool)
            if rng.random() < 0.3:  # another name: content sniffing
                name = rng.choice(["g", "g.bin", "g.txt", "g.mtx", "g.gr", "g.el", "g.gz"])
            data = mutate(rng, data)
            capped = cases % 2 == 1 and not args.no_as_limit
            problems, rss, seconds, code = run_case(args.apsp, workdir, name, data, capped,
                                                    args.max_seconds)
            if rss > args.max_rss_mb:
                problems.append(f"peak RSS {rss:.0f} MB")
            temps = left_temps(workdir)
            if temps:
                problems.append(f"temporary files left: {temps}")
            for n in os.listdir(workdir):
                os.unlink(os.path.join(workdir, n))
            worst_rss, worst_s = max(worst_rss, rss), max(worst_s, seconds)
            cases += 1
            if problems:
                found += 1
                print(f"case {cases} ({name}, {len(data)} bytes, as-limit={capped}, exit {code}): "
                      f"{'; '.join(problems)}\n  input: {data[:200]!r}", file=sys.stderr)
    print(f"cli: {cases} cases, {found} with problems; worst peak RSS {worst_rss:.1f} MB, "
          f"worst time {worst_s:.3f} s")
    return found


SCIPY_CHILD = r"""
import random, sys, numpy as np, scipy.sparse as sp, apsp, apsp.csgraph
rng = random.Random(int(sys.argv[1]))
n_cases = 0
for k in range(int(sys.argv[2])):
    n = rng.randint(1, 6)
    m = sp.random(n, n, density=0.5, format=rng.choice(["csr", "csc", "coo"]),
                  random_state=rng.randrange(1 << 30), data_rvs=lambda s: np.arange(1, s + 1))
    arrays = ["row", "col"] if m.format == "coo" else ["indptr", "indices"]
    a = getattr(m, rng.choice(arrays))
    if a.size:
        a[rng.randrange(a.size)] = rng.choice([-5, -1, n, n + 7, 50, 2**31 - 1])
    f = rng.choice([apsp.shortest_path, apsp.csgraph.shortest_path, apsp.closeness_centrality,
                    lambda g: apsp.csgraph.dijkstra(g, indices=[0])])
    try:
        f(m)
    except ValueError:
        pass
    n_cases += 1
print(n_cases)
"""


def fuzz_scipy(args, rng, seconds):
    if not args.python_path:
        return 0
    env = dict(os.environ, PYTHONPATH=args.python_path, APSP_HOST_MEMORY=str(HOST_MEMORY))
    count = max(50, int(seconds * 100))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", SCIPY_CHILD, str(rng.randrange(1 << 30)),
                        str(count)], capture_output=True, text=True, env=env,
                       timeout=max(60, 4 * seconds))
    if r.returncode == 0:
        print(f"scipy: {r.stdout.strip()} malformed matrices, none crashed "
              f"({time.monotonic() - t0:.1f} s)")
        return 0
    if "ModuleNotFoundError: No module named 'scipy'" in r.stderr:
        print("scipy: skipped (no SciPy)")
        return 0
    print(f"scipy: the child died (exit {r.returncode}): {r.stderr[-2000:]}", file=sys.stderr)
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apsp", required=True)
    ap.add_argument("--seconds", type=float, default=45)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--max-seconds", type=float, default=1.0, help="per case (tiny inputs)")
    ap.add_argument("--max-rss-mb", type=float, default=100)
    ap.add_argument("--python-path", default=None, help="where the apsp package is built")
    ap.add_argument("--no-as-limit", action="store_true",
                    help="no address-space limit (sanitizer builds reserve terabytes)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"fuzz_hostile: seed {seed} (replay with --seed {seed})")
    rng = random.Random(seed)
    scipy_share = 0.15 * args.seconds if args.python_path else 0
    found = fuzz_cli(args, rng, time.monotonic() + args.seconds - scipy_share)
    found += fuzz_scipy(args, rng, scipy_share)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
