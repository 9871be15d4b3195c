"""apsp.explain: the solver's plan (backend, dtype and rungs, Johnson, engine and order, memory,
sinks, paths) for the keywords of solve / shortest_path, without running the rounds."""

import numpy as np
import pytest

import apsp

KEYS = ["input", "johnson", "backend", "dtype", "rungs", "engine", "order", "matrix", "memory",
        "sinks", "paths"]


def _chain(n=6, w=3.0):
    a = np.zeros((n, n))
    for i in range(n - 1):
        a[i, i + 1] = w
    return a


def test_explain_is_a_dict_in_the_solvers_order_and_reads_as_text():
    plan = apsp.explain(_chain(), backend="cpu")
    assert isinstance(plan, dict)
    assert list(plan)[:len(KEYS)] == KEYS
    assert plan["backend"] == "cpu"
    assert plan["dtype"].startswith("int32 (")
    assert plan["johnson"].startswith("none")
    assert plan["input"].startswith("V = 6, a dense V x V matrix read in place")
    text = str(plan)
    assert text.splitlines()[0].startswith("input ")
    assert len(text.splitlines()) == len(plan)
    assert "explain" in apsp.__all__


def test_explain_matches_solves_plan():
    a = _chain(40, 2.0)
    info = apsp.solve(a, backend="cpu")
    plan = apsp.explain(a, backend="cpu")
    assert plan["dtype"] == "int32 (" + plan["dtype"][7:]
    assert plan["rungs"] == "int32"
    assert info.rounds == "int32"


def test_explain_takes_shortest_path_keywords():
    a = _chain()
    plan = apsp.explain(a, backend="cpu", return_predecessors=True)
    assert plan["predecessors"] == "next hops of the reversed graph, transposed"
    assert plan["paths"].startswith("next hops")
    assert apsp.explain(a, backend="cpu", method="D")["method"].startswith("per-source Dijkstra")
    assert apsp.explain(a, backend="cpu", method="FW")["method"].startswith("FW")
    assert "method" not in apsp.explain(a, backend="cpu")
    with pytest.raises(ValueError):
        apsp.explain(a, order="sideways")


def test_explain_johnson_dtype_and_notes():
    src, dst = np.array([0, 1, 2]), np.array([1, 2, 0])
    plan = apsp.explain((src, dst, np.array([5, -2, 4])), backend="cpu")
    assert plan["johnson"].startswith("potentials h by Bellman-Ford")
    plan = apsp.explain((src, dst, np.array([5.5, -2, 4])), backend="cpu")
    assert plan["dtype"].startswith("float64 (fractional weights")
    assert plan["johnson"].startswith("none: negative weights")
    assert plan["note"].startswith("negative weights, no negative cycle")
    wide = apsp.explain((src, dst, np.array([2 ** 40, 1, 1])), backend="cpu", dtype=np.int64)
    assert wide["dtype"] == "int64 (asked)"
    assert wide["rungs"].startswith("checked int32 rounds first")


def test_explain_raises_what_solve_raises():
    src, dst = np.array([0, 1]), np.array([1, 0])
    with pytest.raises(apsp.NegativeCycleError):
        apsp.explain((src, dst, np.array([-1, -1])), backend="cpu")
    with pytest.raises(ValueError):
        apsp.explain((src, dst, np.array([0.5, 1.0])), backend="cpu", dtype=np.int32)


def test_explain_sparse_engine():
    g = apsp.generate("grid", rows=30, cols=30, seed=3)
    try:
        plan = apsp.explain(g, backend="cpu", order="sn")
    except (apsp.Error, ValueError) as err:
        if "METIS" not in str(err):
            raise
        pytest.skip(str(err))  # a build without METIS
    assert plan["engine"].startswith("sparse direct engine")
    assert plan["order"].startswith("sn")
