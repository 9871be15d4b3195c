"""apsp.solve_file: the CLI's file pipeline from Python (same bytes as apsp.solve + apsp.write)."""
import os

import numpy as np
import pytest

from conftest import apsp


def write_graph(path, n, m, seed, wmin=0, wmax=50):
    g = apsp.generate("uniform", n=n, m=m, wmin=wmin, wmax=wmax, seed=seed)
    apsp.write(path, g, format="nthu")
    return g


@pytest.mark.parametrize("n", [1, 37, 300, 800])  # 800: the matrix is faulted in beside the read
def test_nthu_and_npy_match_solve(tmp_path, n):
    src = tmp_path / "g.bin"
    g = write_graph(src, n, 0 if n == 1 else n * 3, seed=7)
    want = apsp.solve(g, backend="cpu").dist
    assert n == 1 or (want < apsp.UNREACHABLE_INT32).sum() > n  # not trivially all-unreachable
    info = apsp.solve_file(src, tmp_path / "d.out", backend="cpu")
    assert info["vertices"] == n and info["dtype"] == "int32" and info["backend"] == "cpu"
    assert info["timings"]["read"] >= 0 and info["timings"]["write"] >= 0
    got = np.fromfile(tmp_path / "d.out", dtype="<i4").reshape(n, n)
    np.testing.assert_array_equal(got, want)
    apsp.solve_file(str(src), str(tmp_path / "d.npy"), backend="cpu", threads=1, block=32)
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), want)


def test_paths_written_beside(tmp_path):
    src = tmp_path / "g.bin"
    g = write_graph(src, 50, 200, seed=3)
    apsp.solve_file(src, tmp_path / "d.npy", paths=True, backend="cpu")
    nxt = np.load(tmp_path / "d.next.npy")
    want = apsp.solve(g, paths=True, backend="cpu")
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), want.dist)
    np.testing.assert_array_equal(nxt, want.next_hop)


def test_errors_leave_no_output(tmp_path):
    src = tmp_path / "g.bin"
    write_graph(src, 10, 30, seed=1)
    with pytest.raises(FileNotFoundError):
        apsp.solve_file(tmp_path / "missing.bin", tmp_path / "d.out")
    with pytest.raises(apsp.Error, match="directory"):
        apsp.solve_file(src, tmp_path / "no" / "d.out", backend="cpu")
    with pytest.raises(ValueError, match="overwrite the input"):
        apsp.solve_file(src, src, backend="cpu")
    bad = tmp_path / "neg.txt"
    bad.write_text("0 1 -5\n1 0 2\n")
    with pytest.raises(apsp.NegativeCycleError, match="neg.txt"):
        apsp.solve_file(bad, tmp_path / "d.out", backend="cpu")
    assert sorted(os.listdir(tmp_path)) == ["g.bin", "neg.txt"]
    with pytest.raises(ValueError, match="output format"):
        apsp.solve_file(src, tmp_path / "d.out", output_format="csv")
