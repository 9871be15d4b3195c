"""method='auto' (issue 33, defect 1): the choice between Floyd-Warshall (dense or nd rounds) and
per-source Dijkstra by predicted time, from rates measured once per machine and cached.

No test here times anything: the rates are fixed (the built-in ones, or made-up ones), and the
tests check the decision given the model, and which solver then runs.
"""
import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

import apsp
from apsp import _cost, _csgraph, _inputs

RATES = dict(_cost.DEFAULT_RATES)


@pytest.fixture
def fixed_rates(monkeypatch):
    monkeypatch.setattr(_cost, "_rates", dict(RATES))
    monkeypatch.setattr(_cost, "measure", lambda: pytest.fail("measured although rates are set"))


@pytest.fixture
def solver_spy(monkeypatch):
    """Records which solver shortest_path(method='auto') runs: "FW" (with its order) or "D"."""
    ran = []
    fw, ps = _csgraph._floyd_warshall, _csgraph._per_source

    def spy_fw(*args):
        ran.append(("FW", args[-1]))
        return fw(*args)

    def spy_ps(*args):
        ran.append(("D", None))
        return ps(*args)

    monkeypatch.setattr(_csgraph, "_floyd_warshall", spy_fw)
    monkeypatch.setattr(_csgraph, "_per_source", spy_ps)
    return ran


def random_csr(n, arcs_per_vertex, seed=1):
    rng = np.random.default_rng(seed)
    m = arcs_per_vertex * n
    w = rng.integers(1, 1000, m).astype(np.float64)
    return sp.csr_matrix((w, (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


def choice(graph, indices=None):
    inp = _inputs.inspect(graph, None, "shortest_path")
    _inputs.scan(inp)
    k = inp.n if indices is None else len(indices)
    return _csgraph._auto_choice(inp, inp.n, k, True, False, None, "cpu", 2, None, rates=RATES)


def test_grid_all_pairs_is_floyd_warshall_on_nd_rounds(fixed_rates, solver_spy):
    # The graph: auto ran per-source Dijkstra (0.74 s) where FW took 0.23 s.
    g = apsp.generate("grid", rows=60, cols=60)
    method, order, t = choice(g)
    assert (method, order) == ("FW", "auto")
    assert t["FW"] * 2 < t["D"], t  # clearly: nd rounds run a few percent of the dense work
    d = apsp.shortest_path(g, backend="cpu")
    assert solver_spy == [("FW", "auto")]
    assert np.array_equal(d, apsp.shortest_path(g, method="FW"))


@pytest.mark.parametrize("n", [2000, 3000])
def test_random_all_pairs_is_dense_floyd_warshall(fixed_rates, solver_spy, n):
    # E = 10 V: no small separators, so the solve is told order 'none' (no second METIS run).
    g = random_csr(n, 10)
    method, order, t = choice(g)
    assert (method, order) == ("FW", "none")
    assert t["FW"] * 1.5 < t["D"], t
    apsp.shortest_path(g, backend="cpu")
    assert solver_spy == [("FW", "none")]


def test_few_rows_are_per_source(fixed_rates, solver_spy):
    g = random_csr(2000, 10)
    method, _, t = choice(g, indices=[0, 1, 2])
    assert method == "D"
    assert t["D"] * 10 < t["FW"], t
    d = apsp.shortest_path(g, indices=[0, 1, 2])
    assert solver_spy == [("D", None)]
    assert d.shape == (3, 2000) and np.isfinite(d).sum() > 2000


def test_choose_follows_the_rates():
    # Same graph sizes, different machines: a slow FW machine picks Dijkstra.
    slow_fw = dict(RATES, fw4=3e8, fw8=3e8)
    assert _cost.choose(RATES, 2000, 2000, 20000, 4, 2, False)[0] == "FW"
    assert _cost.choose(slow_fw, 2000, 2000, 20000, 4, 2, False)[0] == "D"
    # an nd plan of 1% of the work wins where the dense rounds lose
    cheap_plan = lambda: ("nd (auto)", 0.01, 0.001)  # noqa: E731
    assert _cost.choose(slow_fw, 2000, 2000, 20000, 4, 2, False, cheap_plan)[:2] == ("FW", "auto")
    rejected = lambda: ("none (auto: nd would run 80% of the dense work)", 1.0, 0.01)  # noqa: E731
    assert _cost.choose(slow_fw, 2000, 2000, 20000, 4, 2, False, rejected)[:2] == ("D", "none")


def test_gpu_is_never_asked_for_a_cpu_order():
    def plan():
        raise AssertionError("nd plan asked for a GPU solve")
    method, order, _ = _cost.choose(RATES, 20000, 20000, 80000, 4, 2, True, None)
    assert (method, order) == ("FW", "auto")
    assert _cost.choose(RATES, 20000, 20000, 80000, 4, 2, True, plan)[0] == "FW"


# ---- measuring once per machine --------------------------------------------------------------
@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(_cost, "_rates", None)
    calls = []
    monkeypatch.setattr(_cost, "measure", lambda: calls.append(1) or dict(RATES, fw4=1.25e10))
    return tmp_path, calls


def test_rates_are_measured_once_and_cached(cache_home, monkeypatch):
    home, calls = cache_home
    assert _cost.rates()["fw4"] == 1.25e10
    assert _cost.rates()["fw4"] == 1.25e10
    assert calls == [1]
    path = home / "apsp" / "rates.json"
    assert json.loads(path.read_text())["rates"]["fw4"] == 1.25e10
    monkeypatch.setattr(_cost, "_rates", None)  # a new process: reads the file
    assert _cost.rates()["fw4"] == 1.25e10
    assert calls == [1]


def test_another_machine_or_a_bad_cache_measures_again(cache_home, monkeypatch):
    home, calls = cache_home
    _cost.rates()
    monkeypatch.setattr(_cost, "_rates", None)
    monkeypatch.setattr(_cost, "_cpu_model", lambda: "another CPU")
    _cost.rates()
    assert calls == [1, 1]
    monkeypatch.setattr(_cost, "_rates", None)
    (home / "apsp" / "rates.json").write_text("{not json")
    assert _cost.rates()["fw4"] == 1.25e10
    assert calls == [1, 1, 1]


def test_unwritable_cache_keeps_the_rates_in_memory(cache_home):
    home, calls = cache_home
    (home / "apsp").write_text("a file where the directory would go")
    assert _cost.rates()["fw4"] == 1.25e10
    assert _cost.rates()["fw4"] == 1.25e10
    assert calls == [1]


def test_small_problems_never_measure(cache_home):
    _, calls = cache_home
    d = apsp.shortest_path(random_csr(100, 5))
    assert d.shape == (100, 100)
    assert calls == [] and not os.path.exists(_cost.cache_path())


def test_small_graphs_stay_on_floyd_warshall(solver_spy):
    # Either method takes microseconds: FW, whose refusals python/README.md lists for 'auto'.
    assert _cost.choose(RATES, 2, 2, 2, 8, 2, False)[0] == "FW"
    with pytest.raises(ValueError, match="too large for exact integer distances"):
        apsp.shortest_path(np.array([[1e19, 1.0], [0.0, 0.0]]))
    assert solver_spy == [("FW", "none")]  # one tile: nothing to order
