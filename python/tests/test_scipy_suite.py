"""SciPy's own test_shortest_path.py, run against apsp (issue 16's drop-in target).

Nothing of SciPy's is copied: the installed test module (Debian's python3-scipy ships it) is
imported, its solver names (shortest_path, dijkstra, johnson, bellman_ford, floyd_warshall) are
rebound to apsp.csgraph's, then to apsp's, for the duration of each test, and its test functions
are collected here as they are. SciPy's NegativeCycleError and construct_dist_matrix stay SciPy's, so the file also
checks that apsp's negative-cycle error is catchable as SciPy's class and that apsp's
predecessors rebuild SciPy's distances.
"""
import importlib

import pytest

import apsp  # noqa: F401  (the build under test)

scipy_tests = pytest.importorskip("scipy.sparse.csgraph.tests.test_shortest_path",
                                  reason="SciPy's test files are not installed")

SOLVERS = ("shortest_path", "dijkstra", "johnson", "bellman_ford", "floyd_warshall")


@pytest.fixture(autouse=True, params=["apsp.csgraph", "apsp"])
def _solvers_are_apsp(monkeypatch, request):
    # apsp.csgraph (SciPy's reading of inputs) and apsp's own functions both pass SciPy's tests
    module = importlib.import_module(request.param)
    for name in SOLVERS:
        if hasattr(scipy_tests, name):
            monkeypatch.setattr(scipy_tests, name, getattr(module, name))
    return module


for _name in dir(scipy_tests):
    if _name.startswith("test_") and callable(getattr(scipy_tests, _name)):
        globals()[_name] = getattr(scipy_tests, _name)


def test_the_rebinding_is_in_force(_solvers_are_apsp):
    # SciPy's tests above must call apsp, not SciPy: otherwise they would pass vacuously.
    assert scipy_tests.shortest_path is _solvers_are_apsp.shortest_path
    assert scipy_tests.dijkstra is _solvers_are_apsp.dijkstra
    assert scipy_tests.shortest_path.__module__.startswith("apsp")
    assert scipy_tests.NegativeCycleError.__module__.startswith("scipy.")
    collected = [n for n in dir(scipy_tests) if n.startswith("test_")]
    assert len(collected) >= 20, collected
