"""Every exception apsp raises pickles and unpickles as the same class, message and .cycle, with
and without SciPy / NetworkX imported, and crosses a multiprocessing.Pool (it raised
MaybeEncodingError: the SciPy-catchable NegativeCycleError is made at run time, so pickle could
not find it by name)."""
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import apsp, csgraph

CYCLE = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, -3.0], [1.0, 0.0, 0.0]])  # 0 -> 1 -> 2 -> 0, weight -1


def raised(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("nothing was raised")


def round_trip(e):
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert back.args == e.args and str(back) == str(e)
    assert getattr(back, "cycle", "none") == getattr(e, "cycle", "none")
    return back


def run_python(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env=os.environ, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_negative_cycle_error_pickles_when_it_is_scipys_class_too():
    for call in (lambda: apsp.shortest_path(CYCLE), lambda: apsp.floyd_warshall(CYCLE),
                 lambda: apsp.dijkstra(CYCLE, indices=[0]), lambda: apsp.csgraph.johnson(CYCLE),
                 lambda: apsp.solve(CYCLE), lambda: apsp.closeness_centrality(CYCLE)):
        e = raised(call)
        assert isinstance(e, csgraph.NegativeCycleError) and type(e) is not apsp.NegativeCycleError
        back = round_trip(e)
        assert sorted(back.cycle) == [0, 1, 2]
        assert isinstance(back, csgraph.NegativeCycleError) and isinstance(back, apsp.NegativeCycleError)
        assert isinstance(back, ValueError)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert type(pickle.loads(pickle.dumps(e, protocol))) is type(e)
    import copy
    assert copy.deepcopy(e).cycle == e.cycle and type(copy.copy(e)) is type(e)


def test_every_apsp_exception_class_pickles():
    for cls in (apsp.Error, apsp.InputError, apsp.BackendUnavailableError, apsp.NegativeCycleError):
        round_trip(cls("a message"))
    e = apsp.NegativeCycleError("negative cycle: 0 -> 1 -> 0 (weight -2)")
    e.cycle = [0, 1]
    assert round_trip(e).cycle == [0, 1]
    round_trip(raised(lambda: apsp.read(os.devnull, format="dimacs")))


def _solve_cycle(_):
    return apsp.shortest_path(CYCLE)


def _solve_cycle_csgraph(_):
    import apsp.csgraph
    return apsp.csgraph.shortest_path(CYCLE, method="D")


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_negative_cycle_error_crosses_a_pool(start):
    ctx = multiprocessing.get_context(start)
    with ctx.Pool(1) as pool:
        for func in (_solve_cycle, _solve_cycle_csgraph):
            with pytest.raises(csgraph.NegativeCycleError) as err:
                pool.map(func, [0])
            e = err.value
            assert isinstance(e, apsp.NegativeCycleError) and sorted(e.cycle) == [0, 1, 2]
            assert type(e) is type(raised(lambda: apsp.shortest_path(CYCLE)))


def test_unpickled_where_scipy_was_not_imported_it_is_scipys_class_again():
    data = pickle.dumps(raised(lambda: apsp.shortest_path(CYCLE)))
    out = run_python(f"""
        import pickle, sys, apsp
        assert "scipy.sparse.csgraph" not in sys.modules
        e = pickle.loads({data!r})
        from scipy.sparse.csgraph import NegativeCycleError
        assert isinstance(e, NegativeCycleError) and isinstance(e, apsp.NegativeCycleError), type(e).__mro__
        # the class apsp raises in this process too
        import numpy as np
        try:
            apsp.shortest_path(np.array([[0, -1.0], [0, 0]]), directed=False)
        except NegativeCycleError as raised:
            assert type(raised) is type(e)
        print(sorted(e.cycle), str(e))
    """)
    assert out == "[0, 1, 2] " + str(raised(lambda: apsp.shortest_path(CYCLE)))


def test_without_scipy_the_plain_class_pickles_and_crosses_a_pool():
    out = run_python("""
        import multiprocessing, pickle, sys, numpy as np, apsp
        G = np.array([[0, -1.0], [0, 0]])
        def solve(_):
            return apsp.shortest_path(G, directed=False)
        try:
            solve(0)
        except apsp.NegativeCycleError as e:
            back = pickle.loads(pickle.dumps(e))
            assert type(back) is apsp.NegativeCycleError and back.cycle == e.cycle == [0, 1] and back.args == e.args
        with multiprocessing.get_context("fork").Pool(1) as pool:
            try:
                pool.map(solve, [0])
            except apsp.NegativeCycleError as e:
                assert type(e) is apsp.NegativeCycleError and e.cycle == [0, 1], (type(e), e.cycle)
        assert not any(m.startswith("scipy") for m in sys.modules)
        print("ok")
    """)
    assert out == "ok"


def test_networkx_unbounded_pickles_with_and_without_scipy():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 1), ("b", "c", -3), ("c", "a", 1)])
    for call in (lambda: apsp.networkx.floyd_warshall_numpy(G), lambda: apsp.networkx.floyd_warshall(G)):
        e = raised(call)
        back = round_trip(e)
        assert isinstance(back, nx.NetworkXUnbounded) and isinstance(back, apsp.NegativeCycleError)
        assert isinstance(back, csgraph.NegativeCycleError)  # SciPy is imported here
        assert sorted(back.cycle) == ["a", "b", "c"]
    out = run_python("""
        import multiprocessing, pickle, sys, networkx as nx, apsp.networkx
        G = nx.DiGraph()
        G.add_weighted_edges_from([("a", "b", 1), ("b", "a", -3)])
        def solve(_):
            return apsp.networkx.floyd_warshall_numpy(G)
        try:
            solve(0)
        except nx.NetworkXUnbounded as e:
            raised = e
        assert "scipy.sparse.csgraph" not in sys.modules
        back = pickle.loads(pickle.dumps(raised))
        assert type(back) is type(raised) and back.args == raised.args and back.cycle == raised.cycle
        assert isinstance(back, apsp.NegativeCycleError)
        with multiprocessing.get_context("fork").Pool(1) as pool:
            try:
                pool.map(solve, [0])
            except nx.NetworkXUnbounded as e:
                assert type(e) is type(raised) and e.cycle == raised.cycle
        data = pickle.dumps(raised)
        print(repr(data))
    """)
    # the class without SciPy's base, unpickled here (SciPy imported): still the class without it
    back = pickle.loads(eval(out))
    assert isinstance(back, nx.NetworkXUnbounded) and isinstance(back, apsp.NegativeCycleError)
    assert not isinstance(back, csgraph.NegativeCycleError) and sorted(back.cycle) == ["a", "b"]
