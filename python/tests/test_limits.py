"""Bounds a user can trust (issue 15, Python): numeric options are validated, huge inputs are
refused by the memory check before any O(V^2) scan, long scans stay interruptible, and
apsp.write never leaves a file that np.load would call pickled."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from conftest import apsp

D = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0]])


def run_python(code, timeout=60, **env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, **env))


def test_huge_thread_count_is_a_value_error_not_a_crash():
    # in a child: before the fix this killed the interpreter (stack overflow in GOMP_parallel)
    out = run_python("""
        import numpy as np, apsp
        for f in (apsp.shortest_path, apsp.dijkstra, apsp.solve):
            try:
                f(np.ones((3, 3)), threads=100000)
            except ValueError as e:
                assert "threads=100000" in str(e) and "threads=None" in str(e), e
            else:
                raise AssertionError(f"{f.__name__}: no error")
        print("ok")
    """)
    assert out.returncode == 0 and out.stdout.strip() == "ok", (out.returncode, out.stderr[-2000:])


@pytest.mark.parametrize("threads", [0, -3])
def test_zero_or_negative_threads_are_refused(threads):
    with pytest.raises(ValueError, match="threads must be >= 1"):
        apsp.shortest_path(D, threads=threads)
    with pytest.raises(ValueError, match="threads must be >= 1"):
        apsp.dijkstra(D, indices=0, threads=threads)


def test_thread_counts_within_the_bound_work():
    most = apsp._core.max_threads()
    assert most >= 4
    want = apsp.shortest_path(D)
    for t in (1, most):
        np.testing.assert_array_equal(apsp.shortest_path(D, threads=t), want)
        np.testing.assert_array_equal(apsp.shortest_path(D, method="D", threads=t), want)
    with pytest.raises(ValueError, match=f"at most {most}"):
        apsp.shortest_path(D, threads=most + 1)


@pytest.mark.parametrize("block", [0, -64, 4097, 2**31 - 1, 2**40])
def test_block_out_of_range_is_refused_before_any_allocation(block):
    with pytest.raises(ValueError, match="block must be"):
        apsp.shortest_path(D, block=block)
    with pytest.raises(ValueError, match="block must be"):
        apsp.solve(D, block=block)


def test_largest_block_works():
    np.testing.assert_array_equal(apsp.shortest_path(D, block=4096, backend="cpu"), apsp.shortest_path(D))


def test_huge_zero_stride_array_is_refused_before_it_is_scanned():
    # 200000 x 200000 zeros viewed through a zero stride: 4e10 entries to scan (21 s before the
    # fix), while the result could never fit. The memory check must come first.
    code = """
        import time, numpy as np, apsp
        a = np.broadcast_to(0.0, (200000, 200000))
        for call in (lambda: apsp.shortest_path(a), lambda: apsp.solve(a), lambda: apsp.floyd_warshall(a),
                     lambda: apsp.dijkstra(a)):
            t = time.monotonic()
            try:
                call()
            except MemoryError as e:
                assert "bytes" in str(e), e
            else:
                raise AssertionError("no MemoryError")
            assert time.monotonic() - t < 2, time.monotonic() - t
        print("ok")
    """
    out = run_python(code, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_long_scan_is_interruptible_by_ctrl_c():
    # A few rows of a 100000 x 100000 zero-stride matrix: the result is small, so the scan of its
    # 1e10 entries (seconds) runs; SIGINT must stop it promptly with KeyboardInterrupt.
    code = """
        import os, signal, threading, time, numpy as np, apsp
        a = np.broadcast_to(1.0, (100000, 100000))
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.monotonic()
        try:
            apsp.shortest_path(a, indices=[0])
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.monotonic() - t))
        else:
            print("finished")
    """
    out = run_python(code, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("interrupted"), (out.stdout, out.stderr[-2000:])
    assert float(out.stdout.split()[2]) < 2.5, out.stdout


def test_per_source_solve_is_interruptible_by_ctrl_c():
    code = """
        import os, signal, threading, time, numpy as np, scipy.sparse as sp, apsp
        n = 100000
        rng = np.random.default_rng(1)
        G = sp.csr_matrix((rng.random(5 * n), (rng.integers(0, n, 5 * n), rng.integers(0, n, 5 * n))), shape=(n, n))
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.monotonic()
        try:
            apsp.dijkstra(G, indices=np.arange(3000))  # about a minute of work
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.monotonic() - t))
        else:
            print("finished")
    """
    out = run_python(code, timeout=300)
    assert out.returncode == 0 and out.stdout.startswith("interrupted"), (out.stdout, out.stderr[-2000:])
    assert float(out.stdout.split()[2]) < 3, out.stdout


def test_writing_a_graph_to_npy_is_refused_not_pickled(tmp_path):
    g = apsp.graph([0, 1], [1, 2], [3.0, 4.0])
    for name in ("g.npy", "G.NPY", "g.npz"):
        with pytest.raises(ValueError, match=r"not \.npy.*apsp\.shortest_path"):
            apsp.write(tmp_path / name, g)
        assert not (tmp_path / name).exists()
    # what the message suggests works, and np.load reads it without allow_pickle
    apsp.write(tmp_path / "d.npy", apsp.shortest_path(g))
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), apsp.shortest_path(g))
    apsp.write(tmp_path / "g.bin", g)  # graphs still go to NTHU binary / edge lists
    assert apsp.read(tmp_path / "g.bin").num_vertices == 3
